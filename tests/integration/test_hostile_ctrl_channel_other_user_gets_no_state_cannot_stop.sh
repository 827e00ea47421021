#!/usr/bin/env bash
# The control channel a recorder serves (issue 36, item 3; docs/security.md,
# "Local users"): `--listen tcp:H:P` opens P+1 to every local user, so it
# passes on only what a TPM client asks (locality, cancel, INIT, ...). Another
# user (nobody) asks for the spawned swtpm's permanent state (the owner
# password in clear), stops it and shuts it down: each is refused with
# swtpm's 4-byte TPM_BAD_ORDINAL answer and stored as a refused event; the
# owner's secret never reaches them, the next SET_LOCALITY gets its own
# answer, and clients are served after it all. The unix socket's PATH.ctrl
# applies the same filter.
. "$(dirname "$0")/../lib/common.sh"
need swtpm setpriv python3 sqlite3 tpm2_changeauth tpm2_nvdefine tpm2_nvwrite
[ "$(id -u)" -eq 0 ] || skip "needs root: talks to the control port as nobody"
SECRET=owner-$RANDOM$RANDOM-secret
# ctrl ADDR HEXREQ: one control request, its answer read as swtpm's protocol
# frames it (a 4-byte result; a state blob: a 16-byte header and the length
# it names), printed in hex; whatever came if the answer stops short.
cat >"$T/ctrl.py" <<'EOF'
import socket, struct, sys
addr, req = sys.argv[1], bytes.fromhex(sys.argv[2])
if addr.startswith("unix:"):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(addr[5:])
else:
    host, port = addr[4:].rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=10)
s.sendall(req)
got = b""
def need(n):
    global got
    while len(got) < n:
        b = s.recv(65536)
        if not b:
            raise EOFError
        got += b
try:
    need(4)
    if req[:4] == struct.pack(">I", 0x0C) and got[:4] == b"\0\0\0\0":
        need(16)
        need(16 + struct.unpack(">I", got[12:16])[0])
except (EOFError, socket.timeout):
    pass
print(got.hex())
EOF
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
chmod 755 "$T"
PY=
for c in /usr/bin/python3 /usr/local/bin/python3 "$(command -v python3)"; do
	as_nobody "$c" -c '' 2>/dev/null && PY=$c && break
done
[ -n "$PY" ] || skip "no python3 that nobody may run"
ctrl() { "$PY" "$T/ctrl.py" "$@"; }

record_bg "$T/r.db" --spawn-swtpm --listen tcp:127.0.0.1:0 --listen "unix:$T/u.sock"
port=$(listen_port swtpm)
check "the recorder listens on a TCP port ($(cat "$T/record.err"))" [ -n "$port" ]
export TPM2TOOLS_TCTI=swtpm:host=127.0.0.1,port=$port
check "the owner sets a password" tpm2_changeauth -c o "$SECRET"
# NV data of the owner's, enough for a state blob larger than one read of
# the old control relay (4,200 bytes).
head -c 2048 /dev/urandom >"$T/nv.bin"
nv() { # INDEX: defines a 2,048-byte index and writes nv.bin into it
	tpm2_nvdefine "$1" -C o -P "$SECRET" -s 2048 -a "ownerread|ownerwrite" >/dev/null &&
		tpm2_nvwrite "$1" -C o -P "$SECRET" -i "$T/nv.bin"
}
check "the owner writes NV data" nv 0x1500016
check "and more of it" nv 0x1500017

# As nobody, on the TCP control port.
CP=tcp:127.0.0.1:$((port + 1))
state=$(as_nobody "$PY" "$T/ctrl.py" "$CP" 0000000c000000000000000100000000)
expect_eq "nobody's GET_STATEBLOB (permanent) is refused" "$state" 0000000a
hex_secret=$(printf '%s' "$SECRET" | od -An -tx1 | tr -d ' \n')
check "the owner's password is not in the answer" [ "${state/$hex_secret/}" = "$state" ]
expect_eq "the next SET_LOCALITY gets its own answer" \
	"$(as_nobody "$PY" "$T/ctrl.py" "$CP" 0000000500)" 00000000
expect_eq "nobody's STOP is refused" "$(as_nobody "$PY" "$T/ctrl.py" "$CP" 0000000e)" 0000000a
expect_eq "nobody's SHUTDOWN is refused" "$(as_nobody "$PY" "$T/ctrl.py" "$CP" 00000003)" 0000000a
expect_eq "nobody's SET_BUFFERSIZE is refused" \
	"$(as_nobody "$PY" "$T/ctrl.py" "$CP" 0000001100000000)" 0000000a
# The owner's own unix control socket: the same filter.
expect_eq "GET_STATEBLOB on unix:PATH.ctrl is refused" \
	"$(ctrl "unix:$T/u.sock.ctrl" 0000000c000000000000000100000000)" 0000000a
expect_eq "SET_LOCALITY on unix:PATH.ctrl is answered" \
	"$(ctrl "unix:$T/u.sock.ctrl" 0000000500)" 00000000

check "clients are served after it all" tpm2_getrandom 8 -o "$T/rnd"
check "the TPM still holds the owner's NV data" \
	tpm2_nvread 0x1500016 -C o -P "$SECRET" -o "$T/nv.out"
check "as it was written" cmp -s "$T/nv.bin" "$T/nv.out"
kill -INT $RECORD_PID
wait $RECORD_PID
rc=$?
check "the recorder stops cleanly ($rc)" [ $rc -eq 0 ]
q() { sqlite3 "$T/r.db" "$1"; }
expect_eq "each refusal is an event" \
	"$(q "SELECT kind FROM event WHERE detail LIKE 'refused%' ORDER BY id" | tr '\n' ' ')" \
	"ctrl:GET_STATEBLOB ctrl:STOP ctrl:SHUTDOWN ctrl:SET_BUFFERSIZE ctrl:GET_STATEBLOB "
expect_eq "no backend was lost" "$(q "SELECT count(*) FROM event WHERE kind='backend-lost'")" 0
finish
