#!/bin/bash
# record --kernel, proof 3: load. In one boot under `tpmtrace vm-record`,
# 64 concurrent clients (tpmclient --device /dev/tpmrm0, one write and one
# read per command, mixed commands) while IMA measures programs from ext4,
# recorded twice by `record --kernel`: with the default ring buffer, and
# with an 8 KiB one (TPMTRACE_KERNEL_RING_BYTES) and its reader away 500 ms
# before each read (TPMTRACE_FAULT_KERNEL_READER_STALL_MS: a recorder
# descheduled on a loaded machine; woken a quarter full, the reader kept up
# with an 8 KiB ring alone), which makes the BPF side drop. Between two
# marker commands (PCR_Extend of PCR 23 with digests of their own) every
# command the host relayed is accounted for: recorded in
# the guest trace, or counted in its `dropped`, which equals the gap. Without
# drops the two traces are byte-identical in order.
# KERNEL_LOAD_CLIENTS and KERNEL_LOAD_COUNT change the 64 x 20.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=harness.sh
. "$HERE/harness.sh"
# shellcheck source=kernel-lib.sh
. "$HERE/kernel-lib.sh"

TPMCLIENT=${TPMTRACE_TEST_BUILD:-$BIN/..}/tests/tpmclient
CLIENTS=${KERNEL_LOAD_CLIENTS:-64}
N=${KERNEL_LOAD_COUNT:-20}
VM_TIMEOUT=${VM_TIMEOUT:-900}
[ -x "$TPMCLIENT" ] || { echo "tpmclient not built at $TPMCLIENT" >&2; exit 1; }
KERNEL_PROGRAMS=240
kernel_setup
vm_add_bin "$TPMCLIENT" || exit 1
VM_APPEND="ima_policy=tcb"
HOSTDB=$VM_WORK/host.db
VM_SWTPM=0
VM_TPM_ARGS=()
VM_QEMU_PREFIX=("$TPMTRACE" vm-record --db "$HOSTDB" --payloads full --name host --)

{
	echo '#!/bin/sh'
	echo "CLIENTS=$CLIENTS N=$N"
	cat <<'EOF2'
. /lib/vm-guest.sh
kv uname "$(uname -r)"
cd /tmp
tpm2_createprimary -Q -C o -G ecc256 -c prim.ctx && tpm2_evictcontrol -Q -C o -c prim.ctx 0x81000001 >/dev/null
kv persistent $?
# load.sh RUN FIRST LAST: a marker, IMA measuring programs FIRST..LAST beside
# CLIENTS clients, a marker.
cat >/tmp/load.sh <<'L'
#!/bin/sh
m() { tpm2_pcrextend 23:sha256=$(printf "$1%.0s" $(seq 32)) || exit 9; }
m "${1}1"
( for p in $(seq -w $2 $3); do "$VM_EXT4/p$p.sh" || exit 1; done ) &
ima=$!
pids=
for k in $(seq $CLIENTS); do
	tpmclient --device /dev/tpmrm0 --cmd mix --tag $k --count $N --quiet >/tmp/c.$1.$k 2>&1 &
	pids="$pids $!"
done
bad=0
for p in $pids; do wait $p || bad=$((bad + 1)); done
wait $ima || bad=$((bad + 100))
# SETTLE seconds for a reader away (run 2) to empty the ring first, so
# that the end marker itself is not dropped
sleep "${SETTLE:-0}"
m "${1}2"
exit $bad
L
export CLIENTS N
tpmtrace record --kernel --db $O/big.db --payloads full -- sh /tmp/load.sh a 001 120 >$O/big.log 2>&1
kv big_rc $?
SETTLE=2 TPMTRACE_KERNEL_RING_BYTES=8192 TPMTRACE_FAULT_KERNEL_READER_STALL_MS=500 tpmtrace record --kernel --db $O/small.db --payloads full -- sh /tmp/load.sh b 121 240 >$O/small.log 2>&1
kv small_rc $?
EOF2
} >"$VM_WORK/guest.sh"

t0=$(date +%s)
vm_run_checked "$VM_WORK/guest.sh" "guest (through vm-record)"
echo "boot: $(($(date +%s) - t0)) s"
cat "$O/big.log" "$O/small.log"
check "guest script exit status 0 (got $VM_GUEST_RC)" [ "$VM_GUEST_RC" = 0 ]
check "persistent key for ReadPublic made" [ "$(vm_get persistent)" = 0 ]
check "run 1: recorder, $CLIENTS clients and IMA exit 0 (got $(vm_get big_rc))" [ "$(vm_get big_rc)" = 0 ]
check "run 2 (8 KiB ring): exit 0 (got $(vm_get small_rc))" [ "$(vm_get small_rc)" = 0 ]

# account DB MARK: the host's commands strictly between the marker extends,
# the guest's, and the guest trace's dropped.
account() {
	python3 - "$HOSTDB" "$1" "$2" <<'PY'
import sqlite3, sys
hostdb, gdb, mark = sys.argv[1:]
def rows(db, order):
    return sqlite3.connect(db).execute(
        f"SELECT cmd, rsp FROM command WHERE cmd IS NOT NULL ORDER BY {order}").fetchall()
def between(rows, a, b):
    ia = [i for i, r in enumerate(rows) if r[0].endswith(a)]
    ib = [i for i, r in enumerate(rows) if r[0].endswith(b)]
    if len(ia) != 1 or len(ib) != 1:
        return None
    return rows[ia[0] + 1:ib[0]]
a = bytes([int(mark + "1", 16)]) * 32
b = bytes([int(mark + "2", 16)]) * 32
h = between(rows(hostdb, "trace_id, seq"), a, b)
g = between(rows(gdb, "seq"), a, b)
dropped = sqlite3.connect(gdb).execute("SELECT coalesce(dropped,0) FROM trace").fetchone()[0]
if h is None or g is None:
    print(f"markers not found once each (host {h is not None}, guest {g is not None})"); sys.exit(1)
print(f"between the markers: host {len(h)} commands, guest {len(g)} recorded + {dropped} dropped")
if len(g) + dropped != len(h):
    sys.exit(1)
# Recorded in order: the guest's are a subsequence of the host's.
j = 0
for r in g:
    while j < len(h) and h[j] != r:
        j += 1
    if j == len(h):
        # Name it: a transmission the guest's driver gave up on (a timeout:
        # no response, or another) is the likely cause, not the recorder.
        cc = r[0][6:10].hex() if r[0] else "?"
        rc = r[1][6:10].hex() if r[1] and len(r[1]) >= 10 else "none"
        print(f"a guest command is not in the host's order: cc {cc}, "
              f"response {len(r[1] or b'')} bytes, rc {rc}"); sys.exit(1)
    j += 1
print("the recorded ones in the host's order, byte for byte" + (" (all of them)" if not dropped else ""))
sys.exit(3 if dropped else 0)
PY
}
account "$O/big.db" a >"$VM_WORK/big.txt"
rc=$?
cat "$VM_WORK/big.txt"
check "run 1: recorded + dropped = the host's count, in order" test "$rc" -eq 0 -o "$rc" -eq 3
account "$O/small.db" b >"$VM_WORK/small.txt"
rc=$?
cat "$VM_WORK/small.txt"
check "run 2 (8 KiB ring, reader away): commands dropped, and recorded + dropped = the host's count, in order" \
	test "$rc" -eq 3
n_ima=$("$TPMTRACE" sql "$O/big.db" --no-header "SELECT count(*) FROM command c JOIN client k ON k.id=c.client_id WHERE c.cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend') AND c.pcr=10 AND k.peer='ima'")
check "run 1: IMA's extends among the load, origin ima (got $n_ima)" [ "$n_ima" -ge 100 ]
finish
