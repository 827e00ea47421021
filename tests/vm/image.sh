# shellcheck shell=bash
# tests/vm/image.sh -- a real Debian 12 system for the VM tests: root on a
# LUKS2 volume that the TPM unlocks in the initramfs, in two variants:
#   dracut           systemd in the initrd, systemd-cryptenroll --tpm2-device=auto
#                    --tpm2-pcrs=7 (systemd-cryptsetup unlocks)
#   initramfs-tools  clevis with the tpm2 pin (PCR 7), clevis-initramfs
# Source it after harness.sh (and vm_init). Functions:
#
#   vm_image_build VARIANT     the cached image (below); sets IMG (its directory)
#   vm_image_install VARIANT   per run: tpmtrace installed into the image by the
#                              install blocks of docs/record-boot.md, the
#                              initramfs made by the distribution's tool, the
#                              result written into a copy-on-write layer over
#                              the cached LUKS disk; sets VM_KERNEL, VM_INITRD
#   vm_image_boot              boot the installed system (harness vm_boot with
#                              the LUKS disk, the image's swtpm state, and
#                              VM_APPEND from VM_IMAGE_APPEND + the variant's
#                              root options)
#
# The cache: $VM_CACHE/debian-image/<variant>-<key>/ where key is a hash of
# the recipe (vm_image_recipe: packages, mmdebstrap options, distribution
# configuration, provisioning script; not the tpmtrace tree, which is
# installed per run). Built once, under a flock per variant:
#   root/       the root file system as mmdebstrap made it, configured
#   luks.img    a raw disk: LUKS2 (passphrase VM_IMAGE_PASS, pbkdf2) holding an
#               ext4 copy of root/, with a TPM binding to PCR 7 made in a
#               provisioning boot (systemd-cryptenroll or clevis luks bind)
#   swtpm/      the swtpm state that binding belongs to (each run copies it)
#   meta        UUID, kernel version, build times
# The host cannot open LUKS (no dm-crypt), so everything that touches the
# volume runs in a guest: the harness's busybox initramfs with the image's own
# cryptsetup/systemd-cryptenroll/clevis run in a chroot of the image.

VM_IMAGE_RECIPE_VERSION=2
VM_IMAGE_SUITE=bookworm
VM_IMAGE_UUID=7c3f6f1e-2a4d-4e55-9b1a-18aa00000018
# The recovery passphrase of the test volume (never given at a test boot).
VM_IMAGE_PASS=tpmtrace-recovery-passphrase
VM_IMAGE_MIRRORS=(
	"deb http://deb.debian.org/debian bookworm main"
	"deb http://deb.debian.org/debian bookworm-updates main"
	"deb http://deb.debian.org/debian-security bookworm-security main"
)
# What tpmtrace needs at run time (tpmtrace, tpm-cuse-proxy: ldd), tools the
# tests use in the guest, and cmake for the documented `cmake --install`.
VM_IMAGE_PKGS_COMMON="systemd systemd-sysv udev kmod linux-image-amd64 tpm2-tools
 libtss2-tcti-device0 libtss2-rc0 libtss2-tctildr0 cryptsetup cryptsetup-bin e2fsprogs
 libsqlite3-0 libfuse3-3 libpcap0.8 libssl3 libyaml-0-2 libbpf1 libpq5 cmake"
VM_IMAGE_PKGS_dracut="dracut dracut-core"
VM_IMAGE_PKGS_initramfs_tools="initramfs-tools busybox cryptsetup-initramfs clevis clevis-tpm2
 clevis-luks clevis-initramfs"
# Left out of the image (dpkg path-exclude): documentation, and kernel
# modules no guest of this harness loads (about 250 MB of the 400).
VM_IMAGE_EXCLUDES="/usr/share/doc/* /usr/share/man/* /usr/share/locale/* /usr/share/info/*
 /lib/modules/*/kernel/sound/* /lib/modules/*/kernel/drivers/gpu/*
 /lib/modules/*/kernel/drivers/media/* /lib/modules/*/kernel/drivers/net/*
 /lib/modules/*/kernel/drivers/infiniband/* /lib/modules/*/kernel/drivers/iio/*
 /lib/modules/*/kernel/drivers/staging/* /lib/modules/*/kernel/drivers/comedi/*
 /lib/modules/*/kernel/drivers/isdn/* /lib/modules/*/kernel/drivers/bluetooth/*
 /lib/modules/*/kernel/drivers/hwmon/* /lib/modules/*/kernel/drivers/mtd/*
 /lib/modules/*/kernel/drivers/target/* /lib/modules/*/kernel/drivers/usb/*
 /lib/modules/*/kernel/drivers/video/* /lib/modules/*/kernel/drivers/hid/*
 /lib/modules/*/kernel/drivers/mmc/* /lib/modules/*/kernel/drivers/thunderbolt/*
 /lib/modules/*/kernel/drivers/scsi/* /lib/modules/*/kernel/drivers/ata/*
 /lib/modules/*/kernel/drivers/platform/* /lib/modules/*/kernel/drivers/input/*
 /lib/modules/*/kernel/net/wireless/* /lib/modules/*/kernel/net/mac80211/*
 /lib/modules/*/kernel/net/bluetooth/* /lib/modules/*/kernel/net/netfilter/*
 /lib/modules/*/kernel/fs/xfs/* /lib/modules/*/kernel/fs/btrfs/* /lib/modules/*/kernel/fs/nfs/*
 /lib/modules/*/kernel/fs/nfsd/* /lib/modules/*/kernel/fs/ocfs2/* /lib/modules/*/kernel/fs/smb/*
 /lib/modules/*/kernel/fs/ceph/* /lib/modules/*/kernel/fs/gfs2/* /lib/modules/*/kernel/fs/f2fs/*
 /lib/modules/*/kernel/arch/x86/kvm/* /lib/modules/*/kernel/drivers/parport/*
 /lib/modules/*/kernel/drivers/i2c/* /lib/modules/*/kernel/drivers/block/floppy.ko
 /lib/modules/*/kernel/net/ipv4/netfilter/* /lib/modules/*/kernel/net/ipv6/netfilter/*
 /lib/modules/*/kernel/net/bridge/*"

# Every boot of these tests: no_timer_check, because on a loaded host the
# kernel's check that the IO-APIC timer ticks can fail under TCG and panic
# ("IO-APIC + timer doesn't work!") before anything of ours runs.
VM_IMAGE_KERNEL_ARGS="no_timer_check"

# The kernel command line that finds and unlocks the root, per variant.
vm_image_root_args() { # VARIANT
	case $1 in
	dracut) echo "rd.luks.name=$VM_IMAGE_UUID=root rd.luks.options=$VM_IMAGE_UUID=tpm2-device=auto root=/dev/mapper/root" ;;
	initramfs-tools) echo "root=/dev/mapper/root" ;;
	esac
}

# vm_image_configure VARIANT ROOT: the distribution's own configuration of
# the image (what an administrator sets up for a TPM-unlocked root), run on
# the mmdebstrap result. Part of the recipe.
vm_image_configure() {
	local v=$1 r=$2 u
	echo tpmtrace-vm >"$r/etc/hostname"
	printf '127.0.1.1 tpmtrace-vm\n' >>"$r/etc/hosts"
	printf '/dev/mapper/root / ext4 errors=remount-ro 0 1\n' >"$r/etc/fstab"
	# Nothing a test boot needs; each costs seconds under TCG.
	for u in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer e2scrub_reap.service \
		fstrim.timer systemd-pstore.service; do
		ln -sfn /dev/null "$r/etc/systemd/system/$u"
	done
	ln -sfn /lib/systemd/system/multi-user.target "$r/etc/systemd/system/default.target"
	case $v in
	dracut)
		printf 'root UUID=%s none luks,tpm2-device=auto\n' "$VM_IMAGE_UUID" >"$r/etc/crypttab"
		# A generic initrd (no host detection: it is built in a chroot),
		# without the modules this machine has no use for.
		cat >"$r/etc/dracut.conf.d/10-tpmtrace-vm.conf" <<-'EOF'
			hostonly="no"
			hostonly_cmdline="no"
			add_dracutmodules+=" crypt tpm2-tss "
			omit_dracutmodules+=" network network-legacy nfs iscsi nbd lvm mdraid dmraid multipath btrfs plymouth resume cifs fcoe fcoe-uefi nvmf biosdevname "
			add_drivers+=" virtio_pci virtio_blk dm_crypt ext4 "
		EOF
		;;
	initramfs-tools)
		# `initramfs`: unlocked in the initramfs whatever the build host's
		# root is (the image is built in a chroot).
		printf 'root UUID=%s none luks,initramfs\n' "$VM_IMAGE_UUID" >"$r/etc/crypttab"
		mkdir -p "$r/etc/cryptsetup-initramfs"
		printf 'CRYPTSETUP=y\n' >"$r/etc/cryptsetup-initramfs/conf-hook"
		printf 'MODULES=list\n' >"$r/etc/initramfs-tools/conf.d/tpmtrace-vm"
		printf 'virtio_pci\nvirtio_blk\ndm_crypt\next4\n' >>"$r/etc/initramfs-tools/modules"
		;;
	esac
}

# vm_image_provision_script VARIANT: the guest script of the provisioning
# boot (busybox guest; the image's tools run in a chroot of it): LUKS2 on
# the "luks" disk, the root file system copied in, the TPM binding to PCR 7.
# Part of the recipe.
vm_image_provision_script() {
	cat <<-EOF
		#!/bin/sh
		. /lib/vm-guest.sh
		set -x
		disk() { for b in /sys/block/vd*; do [ "\$(cat \$b/serial 2>/dev/null)" = "\$1" ] && echo /dev/\${b##*/}; done; }
		TWIN=\$(disk twin) LUKS=\$(disk luks)
		[ -b "\$TWIN" ] && [ -b "\$LUKS" ] || exit 1
		R=/mnt/twin
		mkdir -p \$R && mount -t ext4 -o ro \$TWIN \$R || exit 1
		for d in run tmp; do mount -t tmpfs tmpfs \$R/\$d || exit 1; done
		for d in dev proc sys; do mount -o bind /\$d \$R/\$d || exit 1; done
		printf '%s' '$VM_IMAGE_PASS' >\$R/run/pass
		C="chroot \$R"
		\$C cryptsetup luksFormat --batch-mode --type luks2 --uuid $VM_IMAGE_UUID \\
			--pbkdf pbkdf2 --pbkdf-force-iterations 1000 --key-file /run/pass \$LUKS || exit 1
		\$C cryptsetup open --key-file /run/pass \$LUKS root || exit 1
		dd if=\$TWIN of=/dev/mapper/root bs=1M 2>\$O/dd.txt || exit 1
		\$C e2fsck -fy /dev/mapper/root >\$O/fsck.txt 2>&1
		\$C resize2fs /dev/mapper/root >\$O/resize.txt 2>&1 || exit 1
		\$C cryptsetup close root || exit 1
		\$C tpm2_pcrread sha256:7 >\$O/pcr7.txt
	EOF
	case $1 in
	dracut)
		cat <<-EOF
			PASSWORD='$VM_IMAGE_PASS' \$C systemd-cryptenroll --tpm2-device=auto --tpm2-pcrs=7 \$LUKS || exit 1
		EOF
		;;
	initramfs-tools)
		cat <<-'EOF'
			# What udev makes on a real system: clevis-encrypt-tpm2 (bash) reads <(...).
			[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
			$C clevis luks bind -y -k /run/pass -d $LUKS tpm2 '{"pcr_bank":"sha256","pcr_ids":"7"}' || exit 1
		EOF
		;;
	esac
	cat <<-'EOF'
		$C cryptsetup luksDump $LUKS >$O/luksdump.txt
		exit 0
	EOF
}

# vm_image_recipe VARIANT: everything the cached image is made from, as text.
vm_image_recipe() {
	local v=$1 pk=VM_IMAGE_PKGS_${1//-/_}
	printf 'recipe %s variant %s suite %s uuid %s\n' "$VM_IMAGE_RECIPE_VERSION" "$v" \
		"$VM_IMAGE_SUITE" "$VM_IMAGE_UUID"
	printf '%s\n' "${VM_IMAGE_MIRRORS[@]}"
	echo $VM_IMAGE_PKGS_COMMON ${!pk}
	echo "$VM_IMAGE_EXCLUDES"
	vm_image_root_args "$v"
	declare -f vm_image_configure vm_image_mmdebstrap
	vm_image_provision_script "$v"
}

vm_image_key() { vm_image_recipe "$1" | sha256sum | cut -c1-12; }

# vm_image_mmdebstrap VARIANT DIR: the Debian root file system (minbase, no
# recommends) with the packages of the variant.
vm_image_mmdebstrap() {
	local v=$1 dir=$2 pk=VM_IMAGE_PKGS_${1//-/_} x xs opts=()
	# Patterns, not globs for this shell.
	read -r -d '' -a xs <<<"$VM_IMAGE_EXCLUDES"
	for x in "${xs[@]}"; do
		opts+=(--dpkgopt="path-exclude=$x")
	done
	# shellcheck disable=SC2086 # word lists
	mmdebstrap --variant=minbase --mode=root --format=directory \
		--aptopt='APT::Install-Recommends "false"' "${opts[@]}" \
		--include="$(echo $VM_IMAGE_PKGS_COMMON ${!pk} | tr ' ' ',')" \
		"$VM_IMAGE_SUITE" "$dir" "${VM_IMAGE_MIRRORS[@]}"
}

vm_image_now() { date +%s.%N; }
vm_image_secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", b - a }'; }

# vm_image_build VARIANT: the cached image, built if missing. Sets IMG.
# Returns 77 (SKIP printed) when it cannot be built here for a documented
# reason (not root, no mmdebstrap and no apt-get to install it).
vm_image_build() {
	local v=$1 key base
	case $v in dracut | initramfs-tools) ;; *) vm_die "unknown image variant $v" || return ;; esac
	[ "$(id -u)" = 0 ] || { vm_skip "building the Debian image needs root (mmdebstrap --mode=root, chroot, mount)"; return; }
	vm_need mmdebstrap mmdebstrap || { vm_skip "mmdebstrap not found and could not be installed"; return; }
	vm_need qemu-img qemu-utils || vm_die "qemu-img not found (package qemu-utils)" || return
	vm_need mkfs.ext4 e2fsprogs || vm_die "mkfs.ext4 not found (package e2fsprogs)" || return
	# The busybox guests of the build and the install run the harness's kernel.
	VM_HARNESS_KERNEL=${VM_HARNESS_KERNEL:-$VM_KERNEL}
	key=$(vm_image_key "$v")
	base=$VM_CACHE/debian-image
	IMG=$base/$v-$key
	mkdir -p "$base" || return 1
	(
		flock 8
		[ -e "$IMG/.done" ] && exit 0
		vm_log "building the $v Debian image into $IMG (once; see tests/vm/README.md for times)"
		vm_image_build_locked "$v" "$IMG"
	) 8>"$base/.lock-$v"
	local rc=$?
	[ $rc = 0 ] || { vm_die "building the $v image failed (log: $IMG.build.log)"; return $rc; }
	VM_IMAGE_KVER=$(sed -n 's/^kver=//p' "$IMG/meta")
	return 0
}

# Runs under the lock: everything into IMG.tmp, renamed when complete.
vm_image_build_locked() {
	local v=$1 img=$2 t0 t1 t2 t3 tmp=$2.tmp log=$2.build.log kver kib
	rm -rf "$tmp" && mkdir -p "$tmp" || return 1
	: >"$log"
	t0=$(vm_image_now)
	vm_log "mmdebstrap $v (log: $log)"
	vm_image_mmdebstrap "$v" "$tmp/root" >>"$log" 2>&1 || { tail -n 20 "$log" >&2; return 1; }
	vm_image_configure "$v" "$tmp/root" || return 1
	kver=$(cd "$tmp/root/boot" && ls vmlinuz-* | sed 's/^vmlinuz-//' | sort -V | tail -n1)
	[ -n "$kver" ] || { echo "no kernel in the image" >&2; return 1; }
	t1=$(vm_image_now)
	# The file system the LUKS volume will hold: root/ as ext4, shrunk to
	# its content for the copy (the guest grows it to the volume).
	kib=$(du -sk "$tmp/root" | cut -f1)
	mkfs.ext4 -q -F -L root -d "$tmp/root" "$tmp/twin.ext4" "$((kib * 13 / 10 / 1024 + 64))M" >>"$log" 2>&1 || return 1
	e2fsck -fy "$tmp/twin.ext4" >>"$log" 2>&1
	resize2fs -M "$tmp/twin.ext4" >>"$log" 2>&1 || return 1
	truncate -s "$(dumpe2fs -h "$tmp/twin.ext4" 2>/dev/null |
		awk -F: '/^Block count/ { n = $2 } /^Block size/ { b = $2 } END { print n * b }')" "$tmp/twin.ext4" || return 1
	# The volume: room for the copy, later installs, traces and logs.
	truncate -s "$((kib * 13 / 10 / 1024 + 64 + 512))M" "$tmp/luks.img" || return 1
	t2=$(vm_image_now)
	vm_image_provision "$v" "$tmp" >>"$log" 2>&1 || { tail -n 30 "$log" >&2; return 1; }
	rm -f "$tmp/twin.ext4"
	t3=$(vm_image_now)
	{
		echo "variant=$v"
		echo "uuid=$VM_IMAGE_UUID"
		echo "kver=$kver"
		echo "packages=$(chroot "$tmp/root" dpkg-query -W -f '${Package}=${Version} ' 2>/dev/null | wc -w)"
		echo "size_root_kib=$kib"
		echo "t_mmdebstrap=$(vm_image_secs "$t0" "$t1")"
		echo "t_ext4=$(vm_image_secs "$t1" "$t2")"
		echo "t_provision=$(vm_image_secs "$t2" "$t3")"
		echo "t_total=$(vm_image_secs "$t0" "$t3")"
	} >"$tmp/meta"
	rm -rf "$img" && mv "$tmp" "$img" && touch "$img/.done" || return 1
	# Images of older recipes of this variant go (about 1 GB each), with
	# their logs and any half-built leftover (we hold the variant's lock).
	local old
	for old in "${img%-*}"-*; do
		[ "$old" = "$img" ] || [ "$old" = "$img.build.log" ] || rm -rf "$old"
	done
	vm_log "$v image built in $(vm_image_secs "$t0" "$t3")s ($(sed -n 's/^t_//p' "$img/meta" | tr '\n' ' '))"
}

# The provisioning boot: harness guest, image tools in a chroot, its own swtpm
# state kept as DIR/swtpm.
vm_image_provision() {
	local v=$1 d=$2 saved_mods=${VM_MODULES:-} saved_out=$VM_OUT
	mkdir -p "$d/prov" && VM_OUT=$d/prov
	vm_image_provision_script "$v" >"$VM_WORK/provision.sh"
	# dm-crypt with aes-xts, the kernel crypto API for cryptsetup, ext4.
	VM_MODULES="dm_crypt xts aesni_intel af_alg algif_skcipher ext4 crc32c_generic"
	local extra=(-drive "file=$d/twin.ext4,if=none,format=raw,id=twin" -device virtio-blk-pci,drive=twin,serial=twin
		-drive "file=$d/luks.img,if=none,format=raw,id=luks" -device virtio-blk-pci,drive=luks,serial=luks)
	local saved_mem=$VM_MEM saved_to=$VM_TIMEOUT saved_append=${VM_APPEND:-}
	VM_APPEND=$VM_IMAGE_KERNEL_ARGS
	VM_QEMU_EXTRA=("${extra[@]}")
	VM_MEM=1024
	VM_TIMEOUT=1200
	rm -rf "$VM_WORK/swtpm"
	vm_run "$VM_WORK/provision.sh"
	local rc=$?
	unset VM_QEMU_EXTRA
	VM_MEM=$saved_mem VM_TIMEOUT=$saved_to VM_MODULES=$saved_mods VM_OUT=$saved_out VM_APPEND=$saved_append
	cat "$d/prov/guest.log"
	[ $rc = 0 ] && [ "$VM_GUEST_RC" = 0 ] || { echo "provisioning boot failed (guest rc ${VM_GUEST_RC:-none})"; return 1; }
	# The binding belongs to this TPM: keep its state with the image.
	cp -a "$VM_WORK/swtpm/state" "$d/swtpm" || return 1
	rm -rf "$VM_WORK/swtpm"
}

# vm_image_doc_block TAG: the commands of docs/record-boot.md's block fenced
# as ```sh TAG (indentation removed), as the image build runs them.
vm_image_doc_block() {
	awk -v tag="$1" '
		$0 ~ "^ *```sh " tag "$" { on = 1; match($0, /^ */); ind = RLENGTH; next }
		on && $0 ~ /^ *```$/ { on = 0; next }
		on { print substr($0, ind + 1) }
	' "$SRC/docs/record-boot.md"
}

# vm_image_new_top PATH: the first directory of PATH the image does not have
# (made as a mount point during the install, removed after), or nothing.
vm_image_new_top() {
	local acc='' c parts
	IFS=/ read -r -a parts <<<"${1#/}"
	for c in "${parts[@]}"; do
		acc=$acc/$c
		[ -e "$IMG/root$acc" ] || { echo "$acc"; return; }
	done
}

# vm_image_install_blocks VARIANT: the names of docs/record-boot.md's blocks
# the install runs, in order: tpm-cuse-proxy's install, record --kernel's,
# the variant's initramfs block, and with dracut record --kernel's module.
vm_image_install_blocks() {
	echo record-boot-install record-kernel-boot-install "record-boot-$1"
	[ "$1" != dracut ] || echo record-kernel-boot-dracut
}

# vm_image_install VARIANT [EXTRA_DIR]: install this tree's tpmtrace into the
# image the way docs/record-boot.md says: the blocks of
# vm_image_install_blocks, run line by line, word for word, in a chroot
# of the image (an overlay: the cache is never written), from a checkout
# whose build/ is this build. Then, on a second overlay over that result,
# the "proxy binary missing" case: tpm-cuse-proxy removed, the initramfs
# block again. Then EXTRA_DIR's files (the test's own units, not part of the
# documented install) on top, and what changed is written into the LUKS
# volume of this run's disk (a copy-on-write layer over the cached image) by
# a short busybox guest. Sets:
#   VM_KERNEL, VM_INITRD      the image's kernel, the initramfs its tool made
#   VM_IMAGE_DISK             this run's disk (qcow2 over the cached luks.img)
#   VM_IMAGE_INSTALL_LOG      output of the install; "+ LINE" before each line
#   VM_IMAGE_INITRD_LIST      lsinitrd/lsinitramfs of the new initramfs
#   VM_IMAGE_NOPROXY_RC       status of the initramfs block without the proxy
#   VM_IMAGE_NOPROXY_LOG      its output
#   VM_IMAGE_NOPROXY_KEPT     1 when the initramfs it had is byte for byte kept
vm_image_install() {
	local v=$1 extra=${2:-} w=$VM_WORK/image build src block rc new_tops t
	build=$(cd "$BIN/.." && pwd) src=$(cd "$SRC" && pwd)
	rm -rf "$w" && mkdir -p "$w/upper" "$w/upper2" "$w/ovl" "$w/ovl2" "$w/merged" "$w/delta" || return 1
	: >"$w/doc-install.txt"
	for block in $(vm_image_install_blocks "$v"); do
		[ -n "$(vm_image_doc_block "$block")" ] ||
			vm_die "docs/record-boot.md has no \`\`\`sh $block block" || return
		vm_image_doc_block "$block" >>"$w/doc-install.txt"
	done
	vm_image_doc_block "record-boot-$v" >"$w/doc-initramfs.txt"
	# Each line as the documentation has it: printed, then run; the first
	# failure stops.
	cat >"$w/run-lines.sh" <<-'EOF'
		while IFS= read -r line; do
			[ -n "$line" ] || continue
			printf '+ %s\n' "$line"
			eval "$line" || exit $?
		done <"$1"
	EOF
	VM_IMAGE_INSTALL_LOG=$w/install.log
	VM_IMAGE_INITRD_LIST=$w/initrd-list.txt
	VM_IMAGE_NOPROXY_LOG=$w/noproxy.log
	new_tops="$(vm_image_new_top "$src") $(vm_image_new_top "$build")"
	# A private mount namespace: the overlay (the image + this run's
	# changes in upper/), the API file systems, the sources read-only and
	# the build tree through an overlay of its own (cmake --install writes
	# install_manifest.txt there), at the paths cmake_install.cmake names;
	# all gone when it ends.
	unshare -m --propagation private bash -c '
		set -e
		w=$1 img=$2 src=$3 build=$4 kver=$5
		m=$w/merged
		env="/usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8"
		setup() {
			mount -t proc proc "$m/proc"
			mount --rbind /sys "$m/sys"
			mount --rbind /dev "$m/dev"
			mount -t tmpfs tmpfs "$m/run"
			mount -t tmpfs tmpfs "$m/tmp"
			mkdir -p "$m$src" "$m$build" "$w/bupper$1" "$w/bwork$1"
			mount --bind "$src" "$m$src"
			mount -o remount,bind,ro "$m$src"
			mount -t overlay overlay -o "lowerdir=$build,upperdir=$w/bupper$1,workdir=$w/bwork$1" "$m$build"
			# A checkout as a user has it: the sources, and build/.
			mkdir -p "$m/run/checkout"
			ln -s "$build" "$m/run/checkout/build"
			cp "$w/run-lines.sh" "$w/doc-install.txt" "$w/doc-initramfs.txt" "$m/run/"
		}
		mount -t overlay overlay -o "lowerdir=$img/root,upperdir=$w/upper,workdir=$w/ovl" "$m"
		setup 1
		chroot "$m" $env sh -c "cd /run/checkout && sh /run/run-lines.sh /run/doc-install.txt" \
			>"$w/install.log" 2>&1 || { echo "install failed: $?" >>"$w/install.log"; exit 1; }
		# What went into the initramfs, by the distribution tool that lists it.
		chroot "$m" sh -c "lsinitrd /boot/initrd.img-$kver 2>/dev/null || lsinitramfs /boot/initrd.img-$kver" \
			>"$w/initrd-list.txt" 2>&1 || true
		umount -R "$m"
		# The proxy binary missing: over the installed image, read-only.
		mount -t overlay overlay -o "lowerdir=$w/upper:$img/root,upperdir=$w/upper2,workdir=$w/ovl2" "$m"
		setup 2
		sum=$(sha256sum <"$m/boot/initrd.img-$kver")
		rm "$m/usr/bin/tpm-cuse-proxy"
		rc=0
		chroot "$m" $env sh -c "cd /run/checkout && sh /run/run-lines.sh /run/doc-initramfs.txt" \
			>"$w/noproxy.log" 2>&1 || rc=$?
		echo $rc >"$w/noproxy.rc"
		[ "$(sha256sum <"$m/boot/initrd.img-$kver")" = "$sum" ] && echo 1 >"$w/noproxy.kept" || echo 0 >"$w/noproxy.kept"
		umount -R "$m"
	' _ "$w" "$IMG" "$src" "$build" "$VM_IMAGE_KVER" >"$w/unshare.log" 2>&1
	rc=$?
	if [ $rc != 0 ]; then
		cat "$w/unshare.log" >&2
		tail -n 30 "$VM_IMAGE_INSTALL_LOG" >&2
		vm_die "the documented install failed in the $v image (log above)"
		return
	fi
	VM_IMAGE_NOPROXY_RC=$(cat "$w/noproxy.rc")
	VM_IMAGE_NOPROXY_KEPT=$(cat "$w/noproxy.kept")
	rm -rf "$w/upper2" "$w/ovl2"
	# The mount points made for the tree are not part of the install.
	for t in $new_tops; do
		rm -rf "${w:?}/upper$t"
	done
	if [ -n "$extra" ]; then
		cp -a "$extra/." "$w/upper/" || return 1
	fi
	# Whiteouts (deleted files) would be lost on the way: there should be none.
	if [ -n "$(find "$w/upper" -type c 2>/dev/null | head -n1)" ]; then
		find "$w/upper" -type c >&2
		vm_die "the install deleted files from the image; vm_image_install cannot carry that" || return
	fi
	cp "$IMG/root/boot/vmlinuz-$VM_IMAGE_KVER" "$w/vmlinuz" || return 1
	cp "$w/upper/boot/initrd.img-$VM_IMAGE_KVER" "$w/initrd.img" ||
		vm_die "the install made no /boot/initrd.img-$VM_IMAGE_KVER" || return
	VM_KERNEL=$w/vmlinuz
	VM_INITRD=$w/initrd.img
	# Into the volume: everything but /boot (the kernel and initramfs go to
	# QEMU directly, as from an unencrypted /boot partition) and caches.
	tar -C "$w/upper" --exclude=./boot --exclude=./var/cache --exclude=./var/log \
		-cf "$w/delta/delta.tar" . || return 1
	printf '%s' "$VM_IMAGE_PASS" >"$w/delta/pass"
	VM_IMAGE_DISK=$VM_WORK/disk.qcow2
	rm -f "$VM_IMAGE_DISK"
	qemu-img create -q -f qcow2 -F raw -b "$IMG/luks.img" "$VM_IMAGE_DISK" || return 1
	vm_image_apply "$w/delta"
}

# The install boot: the harness guest opens the volume (host cryptsetup) and
# unpacks the delta. Harness state (modules, results dir) is restored after.
vm_image_apply() {
	local delta=$1 rc
	local s_out=$VM_OUT s_mods=${VM_MODULES:-} s_tpm=$VM_TPM s_kernel=$VM_KERNEL s_initrd=$VM_INITRD
	local s_append=${VM_APPEND:-}
	VM_APPEND=$VM_IMAGE_KERNEL_ARGS
	vm_need cryptsetup cryptsetup-bin || vm_die "cryptsetup not found (package cryptsetup-bin)" || return
	vm_add_bin "$(command -v cryptsetup)" /usr/sbin/cryptsetup || return 1
	VM_KERNEL=$VM_HARNESS_KERNEL
	VM_OUT=$VM_WORK/image/apply-out
	mkdir -p "$VM_OUT"
	VM_MODULES="dm_crypt xts aesni_intel af_alg algif_skcipher"
	VM_TPM=none
	vm_ext4_image "$delta" || return 1
	VM_QEMU_EXTRA=(-drive "file=$VM_IMAGE_DISK,if=none,format=qcow2,id=luks"
		-device virtio-blk-pci,drive=luks,serial=luks)
	cat >"$VM_WORK/apply.sh" <<-'EOF'
		#!/bin/sh
		. /lib/vm-guest.sh
		set -x
		for b in /sys/block/vd*; do [ "$(cat $b/serial 2>/dev/null)" = luks ] && L=/dev/${b##*/}; done
		cryptsetup open --key-file $VM_EXT4/pass $L root || exit 1
		mkdir -p /mnt/root && mount -t ext4 /dev/mapper/root /mnt/root || exit 1
		tar -x -f $VM_EXT4/delta.tar -C /mnt/root || exit 1
		ls -la /mnt/root/usr/bin/tpm-cuse-proxy /mnt/root/usr/libexec/tpmtrace >$O/installed.txt 2>&1
		umount /mnt/root && cryptsetup close root || exit 1
		sync
	EOF
	vm_run "$VM_WORK/apply.sh"
	rc=$?
	[ $rc = 0 ] && [ "$VM_GUEST_RC" = 0 ] || { cat "$VM_OUT/guest.log" >&2; rc=1; }
	unset VM_QEMU_EXTRA
	VM_EXT4_IMG=
	VM_OUT=$s_out VM_MODULES=$s_mods VM_TPM=$s_tpm VM_KERNEL=$s_kernel VM_INITRD=$s_initrd VM_APPEND=$s_append
	[ $rc = 0 ] || vm_die "writing the install into the LUKS volume failed"
}

# vm_image_boot: boot the installed image once. The caller sets
# VM_IMAGE_APPEND (more kernel command line), and for vm-record
# VM_QEMU_PREFIX/VM_SWTPM/VM_TPM_ARGS as with vm_boot; the TPM state is
# VM_IMAGE_TPMSTATE (a copy of the image's, made by vm_image_tpmstate).
vm_image_boot() {
	local v=$1
	VM_APPEND="$VM_IMAGE_KERNEL_ARGS $(vm_image_root_args "$v") ${VM_IMAGE_APPEND:-}"
	VM_QEMU_EXTRA=(-drive "file=$VM_IMAGE_DISK,if=none,format=qcow2,id=root"
		-device virtio-blk-pci,drive=root,serial=root)
	VM_MEM=${VM_IMAGE_MEM:-1024}
	vm_boot
}

# vm_image_tpmstate: this run's copy of the image's swtpm state (the one the
# LUKS key is bound to), kept for every boot of the run. Sets VM_IMAGE_TPMSTATE.
vm_image_tpmstate() {
	VM_IMAGE_TPMSTATE=$VM_WORK/tpmstate
	rm -rf "$VM_IMAGE_TPMSTATE" && cp -a "$IMG/swtpm" "$VM_IMAGE_TPMSTATE"
}
