#!/usr/bin/env bash
# Bad input through the proxy: a malformed command that can be framed reaches
# swtpm and its client gets exactly swtpm's answer (compared with a direct
# swtpm); garbage, truncated and oversized messages are recorded with their
# malformed reason and the connection is closed; another client's traffic
# continues unaffected meanwhile.
. "$TPMTRACE_TEST_LIB/common.sh"
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
check "size field below the real size: swtpm's answer" same_as_swtpm 80010000000c0000017b0010ffff
check "auth size past the end: swtpm's answer" same_as_swtpm 80020000001200000182000000100000ff00

expect_eq "garbage: connection closed" \
	"$("$TPMCLIENT" --connect "unix:$T/p.sock" --hex 68656c6c6f2c2074706d21)" closed
expect_eq "truncated command: connection closed" \
	"$("$TPMCLIENT" --connect "unix:$T/p.sock" --hex 80010000006400000144000000000000000000000000)" closed
expect_eq "oversized command: connection closed" \
	"$("$TPMCLIENT" --connect "unix:$T/p.sock" --hex 80010000138800000144)" closed
expect_eq "9-byte header: connection closed" \
	"$("$TPMCLIENT" --connect "unix:$T/p.sock" --hex 800100000009000001)" closed

check "the other client got every answer right" wait $good
kill -TERM $RECORD_PID
check "recorder exits 0" wait $RECORD_PID

q() { sqlite3 "$db" "$1"; }
expect_eq "the good client's commands" "$(q "SELECT count(*) FROM command WHERE cc=0x17B AND rc=0")" 2000
reason() { q "SELECT malformed FROM command WHERE hex(cmd) LIKE '$1%' AND flags & 2"; }
expect_eq "bad tag recorded" "$(reason 12340000000A)" "unknown tag"
expect_eq "unknown code recorded" "$(reason 80010000000A0000015A)" "unknown command code"
expect_eq "short size field recorded" "$(reason 80010000000C0000017B0010FFFF)" "size field smaller than the bytes received"
expect_eq "auth size recorded" "$(reason 800200000012)" "authorization size past the end"
expect_eq "truncated recorded" "$(reason 800100000064)" "size field larger than the bytes received (truncated)"
expect_eq "oversized recorded" "$(reason 800100001388)" "larger than 4096 bytes"
expect_eq "9-byte header recorded" "$(reason 800100000009)" "shorter than the 10-byte header"
expect_eq "garbage recorded" "$(q "SELECT count(*) FROM command WHERE hex(cmd) LIKE '68656C6C%' AND flags & 2")" 1
expect_eq "forwarded malformed commands have swtpm's response" \
	"$(q "SELECT count(*) FROM command WHERE flags & 2 AND rc IS NOT NULL")" 4
check "verify" "$TPMTRACE" verify "$db" >/dev/null
finish
