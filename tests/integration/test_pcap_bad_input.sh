#!/bin/bash
# Bad input to `tpmtrace import pcap`: empty, not a capture, truncated (pcapng
# and classic pcap, inside a packet and inside the file header), a corrupt
# block length, no TPM traffic, a directory, a missing file. Each must fail
# with exit status 1 (no crash) and a message naming the file and, where it
# applies, the packet and byte offset; no trace is left behind (and no
# database is created by an import that imported nothing), and good files
# given alongside are still imported; without libpcap installed the import
# says which package is missing. Run it in the sanitizer build too.
. "$(dirname "$0")/../lib/common.sh"
DATA=$TPMTRACE_SHARED_DATA/pcap
GOOD=$DATA/esys-get-random.int.pcap
[ -r "$GOOD" ] || skip "$GOOD missing"
need sqlite3 tshark editcap
W=$T

# expect_fail FILE REGEX: import fails with status 1 and a matching message.
expect_fail() {
	local f=$1 re=$2 rc
	"$TPMTRACE" import pcap "$f" --db "$W/t.db" >"$W/out" 2>"$W/err"
	rc=$?
	if [ $rc -ne 1 ]; then
		bad "$f: exit status $rc (want 1): $(cat "$W/err")"
		return
	fi
	if grep -qE -- "$re" "$W/err" && grep -qF -- "$f" "$W/err"; then ok; else
		bad "$f: message '$(cat "$W/err")' does not match /$re/"; fi
}

: >"$W/empty.pcap"
expect_fail "$W/empty.pcap" "empty file"
cp /etc/os-release "$W/text.pcap"
expect_fail "$W/text.pcap" "not a pcap or pcapng capture"
head -c 3000 "$GOOD" >"$W/trunc.pcapng"
# tshark says how many whole packets precede the cut.
n=$(tshark -r "$W/trunc.pcapng" 2>/dev/null | wc -l)
expect_fail "$W/trunc.pcapng" "packet $((n + 1)) \(block at byte offset [0-9]+\): .*truncated"
head -c 20 "$GOOD" >"$W/shb.pcapng"
expect_fail "$W/shb.pcapng" "not a pcap or pcapng capture|truncated"
editcap -F pcap "$GOOD" "$W/classic.pcap" 2>/dev/null
size=$(stat -c %s "$W/classic.pcap")
head -c $((size - 7)) "$W/classic.pcap" >"$W/classic-trunc.pcap"
expect_fail "$W/classic-trunc.pcap" "packet 54 \(block at byte offset [0-9]+\): .*truncated"
head -c 10 "$W/classic.pcap" >"$W/classic-hdr.pcap"
expect_fail "$W/classic-hdr.pcap" "truncated|not a pcap"
# A block length field that points past the end of the file (third block).
python3 - "$GOOD" "$W/corrupt.pcapng" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
off = 0
for _ in range(3):
    off += struct.unpack_from("<I", d, off + 4)[0]
struct.pack_into("<I", d, off + 4, 0x7FFFFFF0)
open(sys.argv[2], "wb").write(d)
PY
expect_fail "$W/corrupt.pcapng" "packet 2 \(block at byte offset [0-9]+\)"
# A good capture of something else: no TPM traffic on the port.
"$TPMTRACE" import pcap "$GOOD" --port 4000 --db "$W/t.db" >/dev/null 2>"$W/err"
[ $? -eq 1 ] && grep -q "no TPM traffic on TCP port 4000" "$W/err" && ok || bad "other port: $(cat "$W/err")"
mkdir "$W/dir.pcap"
expect_fail "$W/dir.pcap" "is a directory"
expect_fail "$W/missing.pcap" "No such file"

check "failed imports created no database" test ! -e "$W/t.db"

# Good and bad together: the good one is imported, the status says a file
# failed (the empty one is recognised as no capture before anything is
# written, the truncated one fails part-way and leaves no trace).
"$TPMTRACE" import pcap "$W/trunc.pcapng" "$GOOD" "$W/empty.pcap" --db "$W/t.db" >"$W/out" 2>"$W/err"
rc=$?
[ $rc -eq 1 ] && ok || bad "mixed import exit $rc"
[ "$(grep -c . "$W/err")" = 2 ] && ok || bad "want two error lines: $(cat "$W/err")"
n=$(sqlite3 "$W/t.db" "SELECT count(*) || ':' || group_concat(status) FROM trace")
[ "$n" = "1:complete" ] && ok || bad "after mixed import: traces $n"
n=$(sqlite3 "$W/t.db" "SELECT count(*) FROM command")
[ "$n" = 27 ] && ok || bad "good file gave $n commands"

# Usage errors.
"$TPMTRACE" import pcap "$GOOD" >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "missing --db is not a usage error"
# libpcap not installed (recorder/import/pcap_lib.h: loaded when a capture is
# read): the import says which package; other imports do not need it.
check "tpmtrace does not link libpcap" sh -c "! ldd '$TPMTRACE' | grep -q libpcap"
without_lib libpcap.so.0.8 "$TPMTRACE" import pcap "$GOOD" --db "$W/nolib.db" >"$W/out" 2>"$W/err"
expect_eq "import pcap without libpcap exits 1" "$?" 1
check "it names the file, the library and the package ($(cat "$W/err"))" \
	grep -qF "$GOOD: reading a capture needs libpcap (libpcap.so.0.8), which is not installed (Debian: apt-get install libpcap0.8)" "$W/err"
check "and creates no database" test ! -e "$W/nolib.db"
"$TPMTRACE" import nosuchkind "$GOOD" --db "$W/t.db" >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "unknown KIND is not a usage error"
"$TPMTRACE" export "$W/t.db" --trace 99 --csv - >/dev/null 2>"$W/err"
[ $? -eq 1 ] && grep -q "no trace 99" "$W/err" && ok || bad "export of a missing trace: $(cat "$W/err")"
finish
