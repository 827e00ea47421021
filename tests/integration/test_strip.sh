#!/usr/bin/env bash
# tpmtrace strip, the password-equivalent of a trace: a recording of PCR
# extends and GetRandom (tpmclient, password sessions) is replayed under each
# kernel preset on a private swtpm; stripping each replay gives the recording
# back, command for command and byte for byte (codes, handles, sizes, tags,
# authorization kinds, session attributes, command and response bytes but
# GetRandom's random ones). Stripping what has no kernel session makes no
# trace and says so. The example of docs/policies.md runs word for word. Then bad input:
# no such trace, not a database: a message, exit status 1, no trace added.
# (The same against a real HMAC kernel: tests/vm/test_vm_hmac_kernel.sh.)
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 python3

db=$T/boot.db
c() { echo "'$TPMCLIENT' --connect \"\$TPMTRACE_TCTI\" --quiet $* >/dev/null"; }
"$TPMTRACE" record --spawn-swtpm --no-startup --db "$db" --payloads full -- bash -c \
	"$(c --cmd startup) && $(c --cmd pcrextend --count 30) && $(c --cmd getrandom --count 4) && $(c --cmd pcrextend --count 10)" \
	2>"$T/rec.err"
expect_eq "recorded" "$?" 0
n_src=$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=1")
expect_eq "commands recorded" "$n_src" 45

rows() { # DB TRACE: what strip must give back, one line per command
	sqlite3 "$1" "SELECT cc, coalesce(handle1,''), tag, cmd_size, rsp_size, auth_kind, n_sessions,
		coalesce(sess_handle,''), coalesce(sess_attrs,''), rc, hex(cmd),
		CASE WHEN cc = (SELECT cc FROM tpm_cc WHERE name = 'GetRandom') THEN length(rsp) ELSE hex(rsp) END
		FROM command WHERE trace_id=$2 ORDER BY seq"
}
rows "$db" 1 >"$T/source.rows"
for p in linux-6.10 linux-6.12 linux-6.12-no-pcr-integrity; do
	"$TPMTRACE" replay "$db" --trace 1 --policy "$p" --json >"$T/$p.json" 2>"$T/$p.err"
	expect_eq "$p: replay exit status" "$?" 0
	rep=$(json_get "$T/$p.json" runs.0.trace)
	check "$p: the replay holds the kernel's sessions" \
		test "$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=$rep AND cc = (SELECT cc FROM tpm_cc WHERE name = 'StartAuthSession')")" -gt 0
	"$TPMTRACE" strip "$db" --trace "$rep" --json >"$T/$p.strip.json" 2>"$T/$p.strip.err"
	expect_eq "$p: strip exit status" "$?" 0
	id=$(json_get "$T/$p.strip.json" trace)
	expect_eq "$p: a derived trace whose parent is the replay" \
		"$(sqlite3 "$db" "SELECT kind || ',' || parent_id || ',' || status FROM trace WHERE id=$id")" "derived,$rep,complete"
	rows "$db" "$id" >"$T/$p.rows"
	check "$p: stripping the replay gives the recording back" cmp -s "$T/source.rows" "$T/$p.rows"
	cmp -s "$T/source.rows" "$T/$p.rows" || diff "$T/source.rows" "$T/$p.rows" | head -5 >&2
done
expect_eq "linux-6.10: 3 registration commands, 3 per extend and GetRandom, 4 session ends" \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["registration"], d["setup"], d["ends"], d["rewritten"])' "$T/linux-6.10.strip.json")" \
	"3 132 4 44"

# Nothing to strip: no trace made, and said so (issue 31, item 9).
before=$(sqlite3 "$db" "SELECT count(*) FROM trace")
"$TPMTRACE" strip "$db" --trace 1 --name copy >"$T/copy.out" 2>&1
expect_eq "strip of the recording itself" "$?" 0
check "...says there is nothing to strip" grep -q "^trace 1: nothing to strip" "$T/copy.out"
expect_eq "...and makes no trace" "$(sqlite3 "$db" "SELECT count(*) FROM trace")" "$before"
"$TPMTRACE" strip "$db" --trace 1 --json >"$T/copy.json" 2>&1
check "...--json: trace null, every command kept" python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
assert d["trace"] is None and d["commands"] == d["source_commands"] == 45, d' "$T/copy.json"
expect_eq "...nor with --json" "$(sqlite3 "$db" "SELECT count(*) FROM trace")" "$before"
check "tpmtrace verify accepts the database" "$TPMTRACE" verify "$db"

# The example of docs/policies.md, word for word, on a copy of the recording.
mkdir -p "$T/doc" && sqlite3 "$db" ".backup '$T/doc/boot.db'"
sqlite3 "$T/doc/boot.db" "DELETE FROM command WHERE trace_id>1; DELETE FROM event WHERE trace_id>1;
	DELETE FROM client WHERE trace_id>1; DELETE FROM trace WHERE id>1"
python3 - "$TPMTRACE_SRC/docs/policies.md" >"$T/doc/example.sh" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
part = s[s.index("## The password-equivalent of a trace"):]
print(re.search(r"^```sh\n(.*?)^```", part, re.S | re.M).group(1))
PY
check "docs/policies.md has the strip example" grep -q 'tpmtrace strip boot.db' "$T/doc/example.sh"
(cd "$T/doc" && PATH=$(dirname "$TPMTRACE"):$PATH bash -euo pipefail example.sh) >"$T/doc/out" 2>&1
expect_eq "the docs example runs" "$?" 0
expect_eq "the docs example's trace 3 is the password-equivalent of its replay" \
	"$(sqlite3 "$T/doc/boot.db" "SELECT kind || ' ' || parent_id FROM trace WHERE id=3")" "derived 2"
check "...and equals the recording" cmp -s "$T/source.rows" <(rows "$T/doc/boot.db" 3)

# Bad input.
before=$(sqlite3 "$db" "SELECT count(*) FROM trace")
"$TPMTRACE" strip "$db" --trace 99 >"$T/bad.out" 2>&1
expect_eq "no such trace: exit status" "$?" 1
check "no such trace: the message says so" grep -q 'no trace 99' "$T/bad.out"
printf 'not a database' >"$T/junk.db"
"$TPMTRACE" strip "$T/junk.db" >"$T/junk.out" 2>&1
expect_eq "not a database: exit status" "$?" 1
expect_eq "nothing added" "$(sqlite3 "$db" "SELECT count(*) FROM trace")" "$before"
finish
