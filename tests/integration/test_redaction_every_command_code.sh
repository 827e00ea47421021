#!/usr/bin/env bash
# Redaction from the command table (issue 15, finding 4), every command code:
# tests/lib/redactcheck builds a command and a response for each code of
# model/tpm/tpm_cc.def with a marker in every parameter its secret columns name
# (and public markers elsewhere, and a password per authorized handle),
# records them through recorder_log with the default payloads, and checks the
# stored rows (secret bytes zeroed, sizes kept, the rest intact) and the
# database, its live WAL and shm for the markers. Here every export format and
# the report of that trace are searched too: no secret marker in any form
# (raw, hex, base64, UTF-16) in pcapng, CSV, JSONL, the event exports or the
# HTML, while the public markers are found in the pcapng (the search works).
# docs/security.md names every command the table marks.
. "$(dirname "$0")/../lib/common.sh"
need python3
RC=${TPMTRACE_TEST_BUILD:-$(dirname "$TPMTRACE")/..}/tests/redactcheck
S=(python3 "$TPMTRACE_TEST_LIB/secret_search.py")

db=$T/r.db
check "finding 4: every code's secrets zeroed in the rows, the database, WAL and shm" \
	"$RC" "$db" "$T/markers"
check "markers listed" [ "$(grep -c '^secret' "$T/markers")" -ge 60 ]
check "export pcapng, CSV, JSONL and events" "$TPMTRACE" export "$db" --pcapng "$T/x.pcapng" \
	--csv "$T/x.csv" --jsonl "$T/x.jsonl" --events-csv "$T/e.csv" --events-jsonl "$T/e.jsonl"
check "report" "$TPMTRACE" report "$db" -o "$T/x.html"
out=$("${S[@]}" "$T/markers" "$T/x.pcapng" "$T/x.csv" "$T/x.jsonl" "$T/e.csv" "$T/e.jsonl" \
	"$T/x.html" "$db"*)
expect_eq "finding 4: secret markers in the exports, the report and the database" \
	"$(sed -n 1p <<<"$out")" "secret 0 0"
expect_eq "the public markers are all in the pcapng (the search works)" \
	"$(sed -n 2p <<<"$out")" "public $(grep -c '^public' "$T/markers")"
# Control for the other forms: the public markers, taken as secrets, are all
# found in hex and base64 dumps of the pcapng.
sed -n 's/^public /secret /p' "$T/markers" >"$T/public-as-secret"
xxd -p "$T/x.pcapng" | tr -d '\n' >"$T/x.hex"
base64 -w0 "$T/x.pcapng" >"$T/x.b64"
expect_eq "control: public markers found as hex text" \
	"$("${S[@]}" "$T/public-as-secret" "$T/x.hex" 2>/dev/null | sed -n 1p | cut -d' ' -f2)" \
	"$(wc -l <"$T/public-as-secret")"
expect_eq "control: public markers found as base64" \
	"$("${S[@]}" "$T/public-as-secret" "$T/x.b64" 2>/dev/null | sed -n 1p | cut -d' ' -f2)" \
	"$(wc -l <"$T/public-as-secret")"

# Every command the table marks is named in docs/security.md.
missing=""
for name in $(sed -n 's/^command //p' "$T/markers"); do
	[ "$name" = Vendor_TCG_Test ] && continue
	grep -q "\`$name\`" "$TPMTRACE_SRC/docs/security.md" || missing="$missing $name"
done
expect_eq "every command with secret parameters is in docs/security.md's table" "$missing" ""
finish
