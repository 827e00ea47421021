#!/bin/bash
# VM smoke test: a real Debian kernel under QEMU with a swtpm vTPM (TIS).
# In the guest: the TPM driver creates /dev/tpm0 and /dev/tpmrm0, tpm2-tools
# talk to /dev/tpmrm0 (PCR read, GetRandom, PCR extend), `modprobe cuse`
# creates /dev/cuse, and IMA (ima_policy=tcb) measures a program run from an
# ext4 image. The host checks the results against values it computes itself.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=harness.sh
. "$HERE/harness.sh"

vm_setup

# A program on ext4 for IMA to measure (ima_policy=tcb skips the initramfs).
mkdir -p "$VM_WORK/ext4src"
printf '#!/bin/sh\necho hello from ext4\n' >"$VM_WORK/ext4src/hello.sh"
chmod 755 "$VM_WORK/ext4src/hello.sh"
vm_ext4_image "$VM_WORK/ext4src" || exit 1
VM_APPEND="ima_policy=tcb"

# The value the guest extends into PCR 16 (resettable, all zeros after reset).
DIGEST=$(printf 'tpmtrace vm smoke %s' "$$" | sha256sum | cut -c1-64)

cat >"$VM_WORK/guest.sh" <<EOF
#!/bin/sh
. /lib/vm-guest.sh
for d in tpm0 tpmrm0; do
	if [ -c /dev/\$d ]; then kv \$d "\$(stat -c '%t:%T' /dev/\$d)"; else kv \$d missing; fi
done
tpm2_pcrread sha256:0 >\$O/pcr0.txt 2>\$O/pcr0.err; kv pcrread_rc \$?
tpm2_getrandom 8 --hex >\$O/rand1.txt 2>\$O/rand.err; kv getrandom_rc \$?
tpm2_getrandom 8 --hex >\$O/rand2.txt 2>>\$O/rand.err; kv getrandom2_rc \$?
tpm2_pcrread sha256:16 >\$O/pcr16-before.txt 2>&1
tpm2_pcrextend 16:sha256=$DIGEST 2>\$O/extend.err; kv pcrextend_rc \$?
tpm2_pcrread sha256:16 >\$O/pcr16.txt 2>&1; kv pcrread16_rc \$?
if [ -e /dev/cuse ]; then kv cuse_before present; else kv cuse_before absent; fi
modprobe cuse 2>\$O/cuse.err; kv modprobe_cuse_rc \$?
if [ -c /dev/cuse ]; then kv cuse "\$(stat -c '%t:%T' /dev/cuse)"; else kv cuse missing; fi
kv ext4 "\${VM_EXT4:-none}"
"\$VM_EXT4/hello.sh" >\$O/hello.txt 2>&1; kv hello_rc \$?
cat /sys/kernel/security/ima/ascii_runtime_measurements >\$O/ima.txt 2>&1
kv uname "\$(uname -r)"
exit 0
EOF

vm_run_checked "$VM_WORK/guest.sh"
check "guest script exit status 0 (got $VM_GUEST_RC)" [ "$VM_GUEST_RC" = 0 ]

# Hex value of one PCR from tpm2_pcrread's YAML-ish output ("  16: 0xABC...").
pcr_hex() { sed -n 's/^ *[0-9]* *: *0x\([0-9A-Fa-f]*\)$/\1/p' "$1" | head -n1 | tr 'A-F' 'a-f'; }

check "guest kernel is $VM_KVER" [ "$(vm_get uname)" = "$VM_KVER" ]
# TPM character devices: /dev/tpm0 is misc-like major 10 minor 224; tpmrm0 has a
# dynamic major, so only its presence is checked.
check "/dev/tpm0 is char 10:224 (got $(vm_get tpm0))" [ "$(vm_get tpm0)" = "a:e0" ]
t=$(vm_get tpmrm0)
check "/dev/tpmrm0 is a char device (got $t)" [ "${t:-missing}" != missing ]

check "tpm2_pcrread sha256:0 succeeded" [ "$(vm_get pcrread_rc)" = 0 ]
pcr0=$(pcr_hex "$O/pcr0.txt")
check "PCR 0 is 32 bytes (got '$pcr0')" [ ${#pcr0} = 64 ]
# SeaBIOS measures itself into PCR 0, so it is neither reset (0) nor unset (FF).
ZERO=$(printf '0%.0s' $(seq 64))
check "PCR 0 holds firmware measurements" [ "$pcr0" != "$ZERO" -a "$pcr0" != "$(printf 'f%.0s' $(seq 64))" ]

check "tpm2_getrandom succeeded twice" [ "$(vm_get getrandom_rc)$(vm_get getrandom2_rc)" = 00 ]
r1=$(tr -d '\n' <"$O/rand1.txt")
r2=$(tr -d '\n' <"$O/rand2.txt")
check "GetRandom gave 8 bytes (got '$r1')" grep -Eqx '[0-9a-f]{16}' <<<"$r1"
check "two GetRandom results differ" [ "$r1" != "$r2" ]

check "tpm2_pcrextend succeeded" [ "$(vm_get pcrextend_rc)" = 0 ]
before=$(pcr_hex "$O/pcr16-before.txt")
# PCR_Extend (TPM 2.0 Part 3, 22.2): new = H(old || digest); PCR 16 starts at 0.
expect=$(printf "$(printf '%s%s' "$before" "$DIGEST" | sed 's/../\\x&/g')" | sha256sum | cut -c1-64)
got=$(pcr_hex "$O/pcr16.txt")
check "PCR 16 before extend is zero (got '$before')" [ "$before" = "$ZERO" ]
check "PCR 16 = SHA256(old || digest) (want $expect, got '$got')" [ "$got" = "$expect" ]

check "/dev/cuse absent before modprobe" [ "$(vm_get cuse_before)" = absent ]
check "modprobe cuse succeeded" [ "$(vm_get modprobe_cuse_rc)" = 0 ]
check "/dev/cuse is char 10:203 (got $(vm_get cuse))" [ "$(vm_get cuse)" = "a:cb" ]

check "ext4 image mounted (got $(vm_get ext4))" [ "$(vm_get ext4)" = /mnt/ext4 ]
check "program on ext4 ran" grep -qx 'hello from ext4' "$O/hello.txt"
want=$(sha256sum "$VM_WORK/ext4src/hello.sh" | cut -c1-64)
check "IMA measured /mnt/ext4/hello.sh as sha256:$want into PCR 10" \
	grep -Eq "^10 [0-9a-f]{40,64} ima-[a-z]+ sha256:$want /mnt/ext4/hello.sh" "$O/ima.txt"

echo "boot-to-result: ${VM_ELAPSED}s"
if [ "$fail" != 0 ]; then
	echo "--- guest.log ---" >&2
	cat "$O/guest.log" >&2
fi
finish
