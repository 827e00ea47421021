#!/usr/bin/env bash
# A client whose size field understates (issue 36, item 7): a
# HierarchyChangeAuth with a password session and a 40-byte newAuth whose
# commandSize says 20 bytes fewer than it sends, in one write. The proxy frames
# by the size field: the first command ends inside newAuth (its parameters do
# not parse by the layout), and the 20 bytes after it come as the "next
# command" (no TPM header: refused). Neither is a command the decoder accepts,
# so with the default --payloads redacted each is stored as its 10-byte header
# and zeros, sizes kept; before, the first kept the start of newAuth in clear
# (a parameter that runs past the end stopped the redaction walk). The
# remainder's header is made of newAuth's bytes 20..29 and is kept (the
# search's control): what the rule allows, 10 bytes of a message's header.
. "$(dirname "$0")/../lib/common.sh"
need swtpm python3 xxd tpm2_createprimary
H=(python3 "$TPMTRACE_TEST_LIB/hostile.py")

# Bytes 20-21 (the remainder's tag) are no TPM tag, whatever the random rest.
AUTH=$(head -c 20 /dev/urandom | xxd -p -c 256)ffff$(head -c 18 /dev/urandom | xxd -p -c 256)
start_swtpm "$T/sw"
swtpm_primary "$T/sw/s.sock" || { echo "cannot prepare swtpm" >&2; exit 1; }
record_bg "$T/h.db" --backend "swtpm:path=$T/sw/s.sock" --listen "unix:$T/p.sock"
wait_for_socket "$T/p.sock"
out=$("${H[@]}" understate "unix:$T/p.sock" "$AUTH")
check "the cut command is answered with an error, the rest refused ($out)" \
	[ "$(sed -n 1p <<<"$out" | head -c 4)" = 8001 -a "$(sed -n 1p <<<"$out" | cut -c13-20)" != 00000000 ]
kill -INT "$RECORD_PID"
wait "$RECORD_PID"
rc=$?
check "the recorder exits 0 ($(tail -1 "$T/record.err"))" [ $rc -eq 0 ]

q() { "$TPMTRACE" sql "$T/h.db" --no-header "$1"; }
# The stored rows, in order: code (8 hex digits: the remainder's is random
# and may start with a zero), size received, header, whether everything
# after the header is zero, the redacted flag.
got=$(q "SELECT printf('0x%08x', cc), length(cmd), lower(hex(substr(cmd, 1, 10))),
	rtrim(hex(substr(cmd, 11)), '0') = '', flags & 1 FROM command WHERE cmd IS NOT NULL ORDER BY seq")
n=$((10 + 4 + 13 + 2 + 40 - 20))
rest=${AUTH:40:20}
expect_eq "both commands stored as their header, the rest zero, flagged redacted" "$got" \
	"0x00000129|$n|80020000$(printf '%04x' $n)00000129|1|1
0x${rest:12:8}|20|$rest|1|1"

# newAuth's bytes in the cut command (0..19) and after the remainder's
# header (30..39): in no form in the database files.
printf 'secret %s\nsecret %s\npublic %s\n' "${AUTH:0:40}" "${AUTH:60:20}" "$rest" >"$T/needles"
found=$(python3 "$TPMTRACE_TEST_LIB/secret_search.py" "$T/needles" "$T"/h.db*)
rc=$?
check "the secret search ran" [ $rc -eq 0 ]
expect_eq "no byte of newAuth beyond a header in the database files" "$found" "secret 0 0
public 1"
finish
