#!/bin/bash
# `tpmtrace record --kernel` refuses clearly and creates nothing: without
# root (or CAP_BPF + CAP_PERFMON), and on a kernel without the probed
# function (TPMTRACE_KERNEL_TRANSMIT_SYMBOL names one no kernel has; a host
# without a TPM driver has no tpm_transmit either). Exit 1, the message names
# the cause and the kernel release, no database file. The same checks run in
# a guest with a TPM driver in tests/vm/test_vm_kernel_refusals.sh.
. "$(dirname "$0")/../lib/common.sh"
check "record --help offers --kernel" grep -q -- '--kernel' <("$TPMTRACE" record --help 2>&1)
ldd "$TPMTRACE_BIN/tpmtrace" 2>/dev/null | grep -q libbpf || skip "this tpmtrace was built without libbpf"
REL=$(uname -r)

# 1. Not root: the effective capabilities lack CAP_BPF/CAP_PERFMON/CAP_SYS_ADMIN.
chmod 711 "$T" && mkdir -p "$T/u" && chmod 1777 "$T/u"
if [ "$(id -u)" = 0 ]; then
	NOROOT=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
else
	NOROOT=()
fi
"${NOROOT[@]}" "$TPMTRACE" record --kernel --db "$T/u/user.db" >"$T/user.out" 2>&1
rc=$?
cat "$T/user.out"
expect_eq "not root: exit 1" "$rc" 1
check "not root: the message names the privileges needed" grep -q 'needs root, or the capabilities CAP_BPF and CAP_PERFMON' "$T/user.out"
check "not root: no database file" [ ! -e "$T/u/user.db" ]

# 2. The probed function absent (needs the privileges, checked first).
if [ "$(id -u)" = 0 ]; then
	TPMTRACE_KERNEL_TRANSMIT_SYMBOL=tpmtrace_no_such_function "$TPMTRACE" record --kernel \
		--db "$T/absent.db" >"$T/absent.out" 2>&1
	rc=$?
	cat "$T/absent.out"
	expect_eq "no probe point: exit 1" "$rc" 1
	check "no probe point: the message names the function and the kernel" \
		grep -q "Linux $REL has no tpmtrace_no_such_function (not in /proc/kallsyms" "$T/absent.out"
	check "no probe point: no database file" [ ! -e "$T/absent.db" ]
	if ! grep -q ' tpm_transmit$' /proc/kallsyms; then
		"$TPMTRACE" record --kernel --db "$T/host.db" >"$T/host.out" 2>&1
		rc=$?
		expect_eq "this host has no TPM driver: exit 1" "$rc" 1
		check "the message names tpm_transmit" grep -q "Linux $REL has no tpm_transmit" "$T/host.out"
		check "no database file" [ ! -e "$T/host.db" ]
	fi
fi

# 3. Options of other modes are refused before anything is looked at.
"$TPMTRACE" record --kernel --spawn-swtpm --db "$T/mix.db" >"$T/mix.out" 2>&1
rc=$?
check "--kernel with --spawn-swtpm is a usage error (exit $rc)" [ "$rc" = 2 ]
check "and creates nothing" [ ! -e "$T/mix.db" ]
finish
