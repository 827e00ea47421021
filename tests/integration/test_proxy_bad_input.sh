#!/usr/bin/env bash
# Bad input through the proxy: a malformed command that can be framed reaches
# swtpm and its client gets exactly swtpm's answer (compared with a direct
# swtpm); a command is exactly the bytes its size field declares (bytes after
# it are the next command); a size field that cannot be a command's (garbage,
# oversized, below the header) is answered TPM_RC_COMMAND_SIZE without
# reaching swtpm, recorded with its reason and header, and the connection is
# closed; a truncated command is recorded; another client's traffic continues
# unaffected meanwhile.
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3

start_swtpm "$T/ref"
start_swtpm "$T/sw"
db=$T/bad.db
record_bg "$db" --backend "swtpm:path=$T/sw/s.sock" --listen "unix:$T/p.sock" --payloads full
wait_for_socket "$T/p.sock"
check "startup through the proxy" "$TPMCLIENT" --connect "unix:$T/p.sock" --cmd startup
check "startup of the reference" "$TPMCLIENT" --connect "unix:$T/ref/s.sock" --cmd startup

# A well-behaved client runs throughout.
"$TPMCLIENT" --connect "unix:$T/p.sock" --cmd getrandom --count 2000 >"$T/good" &
good=$!

same_as_swtpm() { # HEX: the answer through the proxy equals swtpm's own
	local direct proxied
	direct=$("$TPMCLIENT" --connect "unix:$T/ref/s.sock" --hex "$1")
	proxied=$("$TPMCLIENT" --connect "unix:$T/p.sock" --hex "$1")
	[ -n "$direct" ] && [ "$direct" != closed ] && [ "$direct" = "$proxied" ] ||
		{ echo "direct '$direct' proxied '$proxied'" >&2; return 1; }
}
check "bad tag: swtpm's answer" same_as_swtpm 12340000000a00000144
check "unknown command code: swtpm's answer" same_as_swtpm 80010000000a0000015a
check "auth size past the end: swtpm's answer" same_as_swtpm 80020000001200000182000000100000ff00

# 14 bytes whose size field says 12: GetRandom(16) is forwarded as it
# declares, its answer comes back, and the 2 bytes after it wait for a command
# of their own (the client then closes: recorded as a short message).
answer=$("$TPMCLIENT" --connect "unix:$T/p.sock" --hex 80010000000c0000017b0010ffff)
expect_eq "size field below the bytes sent: the declared command's answer" \
	"${answer:0:24}" 80010000001c000000000010

refused=80010000000a00000142 # TPM_RC_COMMAND_SIZE, never from swtpm here
expect_eq "garbage: refused" \
	"$("$TPMCLIENT" --connect "unix:$T/p.sock" --hex 68656c6c6f2c2074706d21)" $refused
expect_eq "truncated command: connection closed" \
	"$("$TPMCLIENT" --connect "unix:$T/p.sock" --hex 80010000006400000144000000000000000000000000)" closed
expect_eq "oversized command: refused" \
	"$("$TPMCLIENT" --connect "unix:$T/p.sock" --hex 80010000138800000144)" $refused
expect_eq "size field below the header: refused" \
	"$("$TPMCLIENT" --connect "unix:$T/p.sock" --hex 800100000009000001)" $refused

check "the other client got every answer right" wait $good
kill -TERM $RECORD_PID
check "recorder exits 0" wait $RECORD_PID

q() { sqlite3 "$db" "$1"; }
expect_eq "the good client's commands and the 12-byte one" \
	"$(q "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'GetRandom') AND rc=0")" 2001
reason() { q "SELECT malformed FROM command WHERE hex(cmd) LIKE '$1%' AND flags & 2"; }
expect_eq "bad tag recorded" "$(reason 12340000000A)" "unknown tag"
expect_eq "unknown code recorded" "$(reason 80010000000A0000015A)" "unknown command code"
expect_eq "no GetRandom recorded with bytes beyond its size field" \
	"$(q "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'GetRandom') AND length(cmd) != 12")" 0
expect_eq "the 2 bytes after it recorded on their own" "$(reason FFFF)" "shorter than the 10-byte header"
expect_eq "auth size recorded" "$(reason 800200000012)" "authorization size past the end"
expect_eq "truncated recorded" "$(reason 800100000064)" "size field larger than the bytes received (truncated)"
expect_eq "oversized recorded" "$(reason 800100001388)" "larger than 4096 bytes"
expect_eq "oversized: declared size kept" "$(q "SELECT cmd_size FROM command WHERE hex(cmd) LIKE '800100001388%'")" 5000
expect_eq "size below the header recorded" "$(reason 800100000009)" "size field smaller than the 10-byte header"
expect_eq "garbage recorded" "$(q "SELECT count(*) FROM command WHERE hex(cmd) LIKE '68656C6C%' AND flags & 2")" 1
expect_eq "forwarded malformed commands have swtpm's response" \
	"$(q "SELECT count(*) FROM command WHERE flags & 2 AND rc IS NOT NULL")" 3
expect_eq "refused ones were not forwarded" \
	"$(q "SELECT count(*) FROM command WHERE flags & 2 AND rc IS NULL")" 5
check "verify" "$TPMTRACE" verify "$db" >/dev/null
finish
