# shellcheck shell=bash
# shellcheck disable=SC2034 # VM_* knobs are read by harness.sh
# tests/vm/hmac-lib.sh -- the boot the HMAC-kernel tests share (sourced by
# test_vm_hmac_*.sh after harness.sh): Linux 6.12 built from source
# (VM_KERNEL_BUILD, tests/vm/linux-6.12.recipe), booted under `tpmtrace
# vm-record` with the guest kernel tracing its TPM driver from boot on
# (`tpmtrace attribute --kernel-cmdline`), IMA's tcb policy measuring
# HMAC_PROGRAMS programs run from an ext4 image, with tpm2-tools commands in
# between, then `tpmtrace attribute` telling the kernel's commands from user
# space's.
#
#   hmac_setup                      vm_setup on the hmac kernel + the ext4 image
#   hmac_boot VARIANT DB NAME [VM-RECORD OPTIONS...]
#                                   one boot into DB (trace NAME), attributed;
#                                   HMAC_APPEND: more kernel command line words
#   hmac_trace DB NAME              the id of trace NAME in DB

HMAC_PROGRAMS=${HMAC_PROGRAMS:-240}
# User space's commands: after every HMAC_USER_EVERY programs.
HMAC_USER_EVERY=${HMAC_USER_EVERY:-60}

hmac_setup() {
	[ -x "$TPMTRACE" ] || { echo "tpmtrace binary not found at $TPMTRACE" >&2; exit 1; }
	VM_KERNEL_BUILD=hmac
	vm_setup
	local i
	mkdir -p "$VM_WORK/ext4src"
	for i in $(seq -w 1 "$HMAC_PROGRAMS"); do
		printf '#!/bin/sh\n: program %s %s\n' "$i" "$$" >"$VM_WORK/ext4src/p$i.sh"
	done
	chmod 755 "$VM_WORK/ext4src"/*
	vm_ext4_image "$VM_WORK/ext4src" || exit 1
	# vm-record starts its own swtpm and wires the TPM into QEMU's arguments.
	VM_SWTPM=0
	VM_TPM_ARGS=()
	cat >"$VM_WORK/guest.sh" <<EOF
#!/bin/sh
. /lib/vm-guest.sh
kv uname "\$(uname -r)"
if [ -e /sys/class/tpm/tpm0/null_name ]; then kv null_name present; else kv null_name absent; fi
T=/sys/kernel/tracing
mount -t tracefs nodev \$T 2>/dev/null
kv tracer "\$(cat \$T/current_tracer)"
# The programs, measured by IMA (one PCR 10 extend each), and user space's
# TPM commands in between: each is a flush event for the kernel's session.
i=0
for p in \$VM_EXT4/p*.sh; do
	"\$p" || exit 1
	i=\$((i + 1))
	if [ \$((i % $HMAC_USER_EVERY)) = 0 ]; then
		tpm2_getcap properties-fixed >/dev/null || exit 1
		tpm2_pcrread sha256:10 >/dev/null || exit 1
	fi
done
kv ran \$i
cat /sys/kernel/security/ima/ascii_runtime_measurements >\$O/ima.txt
# The trace last: only the power-off's commands come after it.
echo 0 >\$T/tracing_on
cat \$T/trace >\$O/ftrace.txt
EOF
}

# hmac_boot VARIANT DB NAME [VM-RECORD OPTIONS...]
hmac_boot() {
	local v=$1 db=$2 name=$3
	shift 3
	vm_kernel_build_use "$v" || exit 1
	VM_APPEND="ima_policy=tcb $("$TPMTRACE" attribute --kernel-cmdline) ${HMAC_APPEND:-}"
	VM_QEMU_PREFIX=("$TPMTRACE" vm-record --db "$db" --payloads full --name "$name" "$@" --)
	rm -rf "$VM_OUT" && mkdir -p "$VM_OUT"
	vm_run_checked "$VM_WORK/guest.sh" "$v kernel (through vm-record)"
	check "$v: guest script exit status 0 (got $VM_GUEST_RC)" [ "$VM_GUEST_RC" = 0 ]
	check "$v: the guest runs the kernel built ($(vm_get uname))" [ "$(vm_get uname)" = "$VM_KVER" ]
	check "$v: all $HMAC_PROGRAMS programs ran" [ "$(vm_get ran)" = "$HMAC_PROGRAMS" ]
	check "$v: function_graph traced from boot on" [ "$(vm_get tracer)" = function_graph ]
	# IMA measured every program from ext4: the mount worked, IMA is on.
	local n
	n=$(grep -c ' /mnt/ext4/p[0-9]*\.sh$' "$O/ima.txt")
	check "$v: IMA measured the $HMAC_PROGRAMS programs (got $n)" [ "$n" = "$HMAC_PROGRAMS" ]
	cp "$O/ftrace.txt" "$VM_WORK/$name.ftrace"
	"$TPMTRACE" attribute "$db" --trace "$(hmac_trace "$db" "$name")" --ftrace "$VM_WORK/$name.ftrace" \
		>"$VM_WORK/$name.attr" 2>&1
	local rc=$?
	check "$v: tpmtrace attribute lines the guest's ftrace up with the trace" [ "$rc" = 0 ]
	[ "$rc" = 0 ] || cat "$VM_WORK/$name.attr" >&2
	echo "$v: $(cat "$VM_WORK/$name.attr")"
}

hmac_trace() { "$TPMTRACE" sql "$1" --no-header "SELECT id FROM trace WHERE name='$2'"; }
