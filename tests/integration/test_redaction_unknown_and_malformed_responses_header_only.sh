#!/usr/bin/env bash
# With the default --payloads redacted, the response to a command whose code
# the command table lacks (a vendor code) and to a command the decoder calls
# malformed keeps its 10-byte header and nothing else (issue 22, item 5): the
# rest is unknown, so it may be a secret. A fake TPM (tests/lib/fake_tpm.py:
# fault injection, swtpm answers neither with a payload) answers both with a
# secret-looking payload, recorded through the real recorder.
. "$(dirname "$0")/../lib/common.sh"
need python3
F=(python3 "$TPMTRACE_TEST_LIB/fake_tpm.py")
SECRET=5ec7e75ec7e75ec7e75ec7e75ec7e75e00112233445566778899aabbccddeeff
"${F[@]}" serve "$T/fake.sock" "$SECRET" &
PIDS+=($!)
wait_for_socket "$T/fake.sock"
record_bg "$T/t.db" --backend "unix:$T/fake.sock" --listen "unix:$T/p.sock"
wait_for_socket "$T/p.sock"
"${F[@]}" client "$T/p.sock" >"$T/answers"
rc=$?
check "the client got both answers through the proxy" [ $rc -eq 0 -a "$(grep -c "$SECRET" "$T/answers")" -eq 2 ]
kill -INT "$RECORD_PID"
wait "$RECORD_PID"
rc=$?
check "the recorder exits 0 ($(tail -1 "$T/record.err"))" [ $rc -eq 0 ]

q() { "$TPMTRACE" sql "$T/t.db" "$1" | tail -n +2; }
# Per stored response: its code, the decoder's reason, its size, its stored
# header, and what is left of the rest once zero bytes are taken away.
got=$(q "SELECT printf('0x%x', cc), malformed IS NOT NULL, rsp_size, length(rsp),
	hex(substr(rsp, 1, 10)), rtrim(hex(substr(rsp, 11)), '0') = '', flags & 1
	FROM command ORDER BY seq")
expect_eq "vendor code and malformed Unseal: header kept, the rest zero, flagged redacted" \
	"$got" "0x20000001|1|42|42|80010000002A00000000|1|1
0x15e|1|44|44|80010000002C00000000|1|1"

# The secret in no form in the database or beside it; the stored header as the
# control that the search finds what is there.
printf 'secret %s\npublic 80010000002a00000000\n' "$SECRET" >"$T/needles"
found=$(python3 "$TPMTRACE_TEST_LIB/secret_search.py" "$T/needles" "$T"/t.db*)
rc=$?
check "the secret search ran" [ $rc -eq 0 ]
expect_eq "no byte of the secret in the database files" "$found" "secret 0 0
public 1"
finish
