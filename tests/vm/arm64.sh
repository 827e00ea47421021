# shellcheck shell=bash
# tests/vm/arm64.sh -- the harness's arm64 guest (VM_ARCH=arm64, sourced by
# harness.sh): qemu-system-aarch64 -M virt (TCG) with Debian 12's arm64 kernel
# and a swtpm behind QEMU's memory-mapped TIS (tpm-tis-device), the TPM
# interface of the arm64 boards whose slow boots started the project (TIS over
# SPI there: the same tpm_tis_core).
#
# Debian's arm64 kernel builds tpm_tis_core and tpm_tis_spi but not tpm_tis,
# the platform driver that binds the "tcg,tpm-tis-mmio" node QEMU's
# tpm-tis-device puts in the device tree (CONFIG_TCG_TIS is not set). The
# harness builds that one module from Debian's linux-source of the kernel's
# very version against the kernel's own headers package (Module.symvers, its
# configuration) with Debian's cross compiler: the kernel stays Debian's.
#
# Everything arm64 comes from one mmdebstrap --variant=extract of Debian's
# arm64 packages (nothing installed, no emulation): the kernel, busybox-static,
# tpm2-tools and its TCTIs, bash, keyutils, the libraries tpmtrace's arm64
# package depends on and the packages VM_ARM64_PACKAGES adds. Cached, with the module, in
# $VM_CACHE/arm64-KEY/, KEY = SHA-256 of this recipe (the package list and
# VM_ARM64_RECIPE); a flock serialises the first build (about 40 s and a
# 140 MB download of the source package), which removes the roots of older
# recipes.

VM_ARM64_RECIPE=1
VM_ARM64_BASE=linux-image-arm64,busybox-static,tpm2-tools,libtss2-tcti-device0,libtss2-tcti-pcap0,bash,keyutils

# vm_arm64_package: tpmtrace's arm64 package of this tree, VM_ARM64_DEB: the
# one in $VM_ARM64_PKGDIR (default TPMTRACE_TEST_BUILD/package-arm64, where
# ctest's fixture vm/arm64_package builds it) when its version names this
# tree's commit, else built there now by tools/package arm64 (under a flock).
vm_arm64_package() {
	local dir=${VM_ARM64_PKGDIR:-${TPMTRACE_TEST_BUILD:-$SRC/build}/package-arm64} head
	head=$(git -C "$SRC" rev-parse --short=7 HEAD 2>/dev/null)
	[ -z "$(git -C "$SRC" status --porcelain --untracked-files=no 2>/dev/null)" ] || head=dirty
	mkdir -p "$dir" || return 1
	(
		flock 9
		set -- "$dir"/tpmtrace_*"~git"*".$head"_arm64.deb
		[ "$head" != dirty ] && [ -e "$1" ] && exit 0
		vm_log "building tpmtrace's arm64 package into $dir (tools/package arm64)"
		TPMTRACE_PACKAGE_OUT=$dir "$SRC/tools/package" arm64 >"$dir/package.log" 2>&1 ||
			{ tail -n 30 "$dir/package.log" >&2; exit 1; }
	) 9>"$dir/.lock" || { vm_die "tools/package arm64 failed (log: $dir/package.log)"; return; }
	VM_ARM64_DEB=$(find "$dir" -maxdepth 1 -name 'tpmtrace_*_arm64.deb' | head -n1)
	[ -n "$VM_ARM64_DEB" ] || vm_die "no arm64 package in $dir"
}

# vm_arm64_fetch: the cached arm64 root (made once). Sets VM_AROOT (the
# extracted root), VM_KROOT (the same: boot/ and lib/modules/), VM_KERNEL,
# VM_KVER. Returns 77 (after SKIP) when the tools or packages cannot be had.
vm_arm64_fetch() {
	local t pkgs key
	for t in mmdebstrap:mmdebstrap aarch64-linux-gnu-gcc-12:gcc-12-aarch64-linux-gnu \
		make:make bc:bc flex:flex bison:bison readelf:binutils; do
		vm_need "${t%%:*}" "${t#*:}" ||
			{ vm_skip "${t%%:*} (package ${t#*:}) is needed for the arm64 guest"; return; }
	done
	vm_arm64_package || return
	# The libraries the package depends on (its Depends, without versions;
	# the first of alternatives).
	pkgs=$VM_ARM64_BASE,$(dpkg-deb -f "$VM_ARM64_DEB" Depends |
		sed -e 's/([^)]*)//g' -e 's/|[^,]*//g' -e 's/ //g')
	pkgs=$pkgs${VM_ARM64_PACKAGES:+,$VM_ARM64_PACKAGES}
	key=$(printf '%s\n' "$VM_ARM64_RECIPE" bookworm "$pkgs" "$(sed -n '/^vm_arm64_make()/,/^}/p' \
		"$VM_HARNESS_DIR/arm64.sh")" | sha256sum | cut -c1-12)
	VM_AROOT=$VM_CACHE/arm64-$key
	mkdir -p "$VM_CACHE" || { vm_skip "cannot create cache dir $VM_CACHE"; return; }
	(
		flock 9
		[ -e "$VM_AROOT/.complete" ] && exit 0
		vm_arm64_make "$pkgs"
	) 9>"$VM_CACHE/.lock-arm64"
	case $? in
	0) ;;
	77)
		vm_skip "the arm64 packages could not be downloaded (mmdebstrap; see above)"
		return
		;;
	*)
		vm_die "making the arm64 guest root $VM_AROOT failed"
		return
		;;
	esac
	VM_KROOT=$VM_AROOT
	VM_KERNEL=$(find "$VM_KROOT/boot" -name 'vmlinuz-*' | head -n1)
	VM_KVER=${VM_KERNEL##*/vmlinuz-}
	[ -e "$VM_KROOT/lib/modules/${VM_KVER:-none}/extra/tpm_tis.ko" ] ||
		vm_die "the arm64 root $VM_AROOT has no kernel or no tpm_tis.ko"
}

# vm_arm64_make PACKAGES: under the flock, the root extracted, the headers,
# the source and the amd64 kbuild tools of the kernel's version downloaded by
# the same apt (an extract hook: one package index, one version), tpm_tis.ko
# built into lib/modules/KVER/extra.
vm_arm64_make() {
	local pkgs=$1 tmp=$VM_AROOT.tmp.$$ w img src hdr f
	rm -rf "$tmp" && mkdir -p "$tmp" || return 1
	vm_log "making the arm64 guest root $VM_AROOT (once: Debian's arm64 packages, tpm_tis.ko)"
	# shellcheck disable=SC2016 # the hook's words are the hook's
	if ! mmdebstrap --quiet --variant=extract --architectures=arm64,amd64 \
		--include="$pkgs" --skip=cleanup/apt/cache \
		--extract-hook='set -e; cd "$1"/var/cache/apt/archives
			img=$(ls linux-image-[0-9]*-arm64_*_arm64.deb | head -n1)
			ver=$(dpkg-deb -f "$img" Version); p=$(dpkg-deb -f "$img" Package)
			abi=${p#linux-image-}; abi=${abi%-arm64}; mm=$(echo "$abi" | cut -d. -f1,2)
			mkdir -p "$1/kbuild" && cd "$1/kbuild"
			APT_CONFIG=$MMDEBSTRAP_APT_CONFIG apt-get download -q \
				"linux-headers-$abi-arm64=$ver" "linux-headers-$abi-common=$ver" \
				"linux-kbuild-$mm:amd64=$ver" "linux-source-$mm=$ver" >/dev/null' \
		bookworm "$tmp/root" >"$tmp/log" 2>&1; then
		cat "$tmp/log" >&2
		rm -rf "$tmp"
		return 77
	fi
	w=$tmp/root/kbuild
	img=$(find "$tmp/root/boot" -name 'vmlinuz-*' | head -n1)
	[ -n "$img" ] || { echo "no arm64 kernel in the extracted root" >&2; return 1; }
	local kver=${img##*/vmlinuz-}
	for f in "$w"/linux-headers-*.deb "$w"/linux-kbuild-*.deb; do
		dpkg-deb -x "$f" "$w/x" || return 1
	done
	src=$(find "$w" -maxdepth 1 -name 'linux-source-*.deb' | head -n1)
	hdr=$w/x/usr/src/linux-headers-$kver
	# The headers' Makefile includes the common half by its installed path.
	sed -i "s|/usr/src/|$w/x/usr/src/|" "$hdr/Makefile" || return 1
	mkdir -p "$w/mod" || return 1
	dpkg-deb --fsys-tarfile "$src" | tar -x -O --wildcards './usr/src/linux-source-*.tar.xz' |
		tar -xJ -C "$w" --wildcards '*/drivers/char/tpm/tpm_tis.c' '*/drivers/char/tpm/tpm.h' \
			'*/drivers/char/tpm/tpm_tis_core.h' || return 1
	cp "$w"/linux-source-*/drivers/char/tpm/{tpm_tis.c,tpm.h,tpm_tis_core.h} "$w/mod/" || return 1
	echo 'obj-m := tpm_tis.o' >"$w/mod/Kbuild"
	make -C "$hdr" M="$w/mod" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- modules \
		>"$w/build.log" 2>&1 || { cat "$w/build.log" >&2; return 1; }
	mkdir -p "$tmp/root/lib/modules/$kver/extra" &&
		cp "$w/mod/tpm_tis.ko" "$tmp/root/lib/modules/$kver/extra/" || return 1
	rm -rf "$w" "$tmp/root"/var/cache/apt/archives/*.deb "$tmp/root/usr/share/doc" \
		"$tmp/root/usr/share/man" "$tmp/root/usr/share/locale"
	rm -rf "$VM_AROOT" && mv "$tmp/root" "$VM_AROOT" && rm -rf "$tmp" &&
		touch "$VM_AROOT/.complete" || return 1
	# A new recipe's root replaces the old ones (about 450 MB each).
	find "$VM_CACHE" -maxdepth 1 -name 'arm64-*' ! -name "${VM_AROOT##*/}" -exec rm -rf {} +
}

# vm_arm64_lib NAME: the path of an arm64 shared library in the root.
vm_arm64_lib() {
	local d
	for d in usr/lib/aarch64-linux-gnu lib/aarch64-linux-gnu usr/lib lib; do
		[ -e "$VM_AROOT/$d/$1" ] && { echo "$VM_AROOT/$d/$1"; return 0; }
	done
	return 1
}

# vm_arm64_libs FILE: the libraries an arm64 ELF file needs (its DT_NEEDED,
# recursively, read with readelf: ldd cannot run it), and the loader.
vm_arm64_libs() {
	local n p
	for n in $(readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
		[ -e "$VM_ROOT/usr/lib/aarch64-linux-gnu/$n" ] && continue
		p=$(vm_arm64_lib "$n") || vm_die "no arm64 library $n (needed by $1) in $VM_AROOT" || return
		cp -L "$p" "$VM_ROOT/usr/lib/aarch64-linux-gnu/$n" || return
		vm_arm64_libs "$p" || return
	done
	if [ ! -e "$VM_ROOT/usr/lib/ld-linux-aarch64.so.1" ]; then
		p=$(vm_arm64_lib ld-linux-aarch64.so.1) || vm_die "no arm64 loader in $VM_AROOT" || return
		cp -L "$p" "$VM_ROOT/usr/lib/ld-linux-aarch64.so.1"
	fi
}

# vm_arm64_deb: tpmtrace's arm64 package unpacked (dpkg-deb -x) into the
# guest's /usr, with the libraries of its binaries (vm_setup does it).
vm_arm64_deb() {
	local x=$VM_WORK/deb f
	rm -rf "$x" && dpkg-deb -x "$VM_ARM64_DEB" "$x" || vm_die "cannot unpack $VM_ARM64_DEB" || return
	for f in "$x"/usr/bin/*; do
		vm_add_bin "$f" "/usr/bin/${f##*/}" || return
	done
	cp -a "$x/usr/libexec" "$VM_ROOT/usr/" 2>/dev/null || true
}
