# shellcheck shell=bash
# tests/vm/harness.sh -- boot a real Debian kernel under QEMU (TCG) with a swtpm
# vTPM, run a guest script in a busybox initramfs and bring its results back.
#
# Source it from bash (tests/vm/test_*.sh, tests/vm/vm-run). Quick use:
#
#   source "$TPMTRACE_SRC/tests/vm/harness.sh"
#   vm_setup                           # vm_init (exits 77 = skip: no qemu / no kernel package)
#                                      # and tpm2-tools; vm_setup_cuse adds tpm-cuse-proxy
#   vm_add_bin "$TPMTRACE"             # any host binary, with its shared libraries
#   vm_run guest.sh                    # build initramfs, start swtpm, boot, collect
#   echo "guest exit $VM_GUEST_RC"; ls "$VM_OUT"
#
# In the guest, the script runs as root with /proc, /sys, /dev (devtmpfs),
# securityfs and /tmp mounted, PATH set, TPM2TOOLS_TCTI=device:/dev/tpmrm0, and
# VM_OUT=/out: whatever it leaves in /out comes back to the host in $VM_OUT,
# together with guest.log (its stdout+stderr). Its exit status is $VM_GUEST_RC.
# An ext4 image (vm_ext4_image DIR) is mounted at /mnt/ext4 (VM_EXT4 in the guest).
#
# Knobs (set before vm_run / vm_boot; all optional):
#   TPMTRACE_VM_CACHE   kernel cache dir (default $HOME/.cache/tpmtrace-vm)
#   VM_KERNEL_BUILD     hmac | stock (set before vm_init): boot Linux 6.12 built
#                       from linux-source-6.12 by tests/vm/linux-6.12.recipe
#                       instead of the linux-image-amd64 package (cached; see
#                       vm_kernel_build). vm_kernel_build_use VARIANT switches.
#                       With VM_ARCH=arm64: stock, the recipe's arm64 kernel.
#   VM_TIMEOUT          seconds for the whole boot (default 300)
#   VM_TPM              tpm-tis (default) | tpm-crb | none
#   VM_APPEND           extra kernel command line words (e.g. ima_policy=tcb)
#   VM_MODULES          extra guest modules loaded by /init before the script
#   VM_MEM              guest memory in MiB (default 512)
#   VM_QEMU             QEMU binary (default qemu-system-x86_64)
#   VM_ARCH             amd64 (default) | arm64 (set before vm_init): the arm64
#                       guest of tests/vm/arm64.sh: qemu-system-aarch64 -M virt,
#                       Debian's arm64 kernel, tpm-tis-device; VM_ARM64_PACKAGES
#                       (comma-separated) adds Debian arm64 packages to its root
#   VM_QEMU_PREFIX      array (or string): words put before the QEMU command,
#                       e.g. (tpmtrace vm-record --db x.db --) -- the wrapper then
#                       receives the full QEMU command line as its arguments
#   VM_TPM_ARGS         array: replaces the default TPM wiring
#                       (-chardev socket,id=chrtpm,path=$VM_SWTPM_SOCK -tpmdev
#                       emulator,id=tpm0,chardev=chrtpm -device $VM_TPM,tpmdev=tpm0)
#                       @SOCK@ in VM_QEMU_PREFIX / VM_TPM_ARGS / VM_QEMU_EXTRA
#                       words is replaced by $VM_SWTPM_SOCK (set by vm_init)
#   VM_SWTPM            1 (default): the harness starts swtpm; 0: caller does
#   VM_QEMU_EXTRA       array: more QEMU arguments
#   VM_VERBOSE          1: copy the guest console to stderr while it runs
#   VM_KEEP             1: keep the work dir ($VM_WORK) after cleanup
#
# Results: VM_GUEST_RC (guest script exit status, empty if the guest did not
# report), VM_OUT (host dir with /out of the guest), VM_CONSOLE (console log),
# VM_ELAPSED (seconds from QEMU start to QEMU exit). The console log is also
# copied to $VM_OUT/vm-console.log.

VM_HARNESS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# The built project, as ctest passes it (or the default build/ of this tree).
SRC=${TPMTRACE_SRC:-$VM_HARNESS_DIR/../..}
BIN=${TPMTRACE_BIN:-$SRC/build/bin}
TPMTRACE=${TPMTRACE:-$BIN/tpmtrace}
PROXY=$BIN/tpm-cuse-proxy

# vm_need_proxy: fail (not skip) when tpm-cuse-proxy was not built.
vm_need_proxy() {
	[ -x "$PROXY" ] && return 0
	echo "tpm-cuse-proxy not built at $PROXY (libfuse3-dev missing?)" >&2
	return 1
}

vm_log() { printf 'vm: %s\n' "$*" >&2; }
vm_die() {
	printf 'vm: error: %s\n' "$*" >&2
	return 1
}

# vm_skip REASON: print why and return 77 (the caller exits with it).
vm_skip() {
	printf 'SKIP: %s\n' "$*"
	return 77
}

# Install a Debian package when a tool is missing and we may (root, apt-get).
vm_apt_install() {
	[ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || return 1
	vm_log "installing $* with apt-get"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >&2 ||
		{ apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >&2; }
}

vm_need() { # TOOL PACKAGE
	command -v "$1" >/dev/null && return 0
	vm_apt_install "$2" >/dev/null 2>&1 && command -v "$1" >/dev/null
}

# vm_setup: the start every VM test shares: vm_init (the script exits with
# its status, 77 for a skip) and tpm2-tools in the guest.
vm_setup() {
	vm_init
	local rc=$?
	[ $rc = 0 ] || exit $rc
	vm_add_tpm2_tools || exit 1
	# The arm64 guest runs the arm64 package's binaries (arm64.sh).
	[ "$VM_ARCH" != arm64 ] || vm_arm64_deb || exit 1
}

# vm_add_tpmtrace BIN: the host's build of tpmtrace or tpm-cuse-proxy as
# /usr/bin/NAME; the arm64 guest has the package's (vm_setup).
vm_add_tpmtrace() {
	[ "$VM_ARCH" = arm64 ] || vm_add_bin "$1" "/usr/bin/${1##*/}"
}

# vm_setup_cuse: vm_setup for a test of tpm-cuse-proxy: the proxy built and in
# the guest, the cuse module loaded at boot.
vm_setup_cuse() {
	vm_need_proxy || exit 1
	vm_setup
	vm_add_tpmtrace "$PROXY" || exit 1
	VM_MODULES="cuse"
}

# vm_init: check tools, fetch the kernel (cached), make the work dir.
# Returns 77 (after printing SKIP: reason) when QEMU or the kernel package
# cannot be had, 1 on other errors.
vm_init() {
	# What the architecture decides, here only: QEMU and its machine, the
	# console, the library directory, the modules the TPM needs, and
	# VM_SYSROOT, the root the guest's programs come from (the host's: "").
	VM_ARCH=${VM_ARCH:-amd64}
	VM_SYSROOT=
	local qpkg=qemu-system-x86
	case $VM_ARCH in
	amd64)
		VM_QEMU=${VM_QEMU:-qemu-system-x86_64} VM_TRIPLET=x86_64-linux-gnu VM_TTY=ttyS0
		VM_MACHINE=(-machine pc -cpu max) VM_ARCH_MODULES=
		;;
	arm64)
		VM_QEMU=${VM_QEMU:-qemu-system-aarch64} VM_TRIPLET=aarch64-linux-gnu VM_TTY=ttyAMA0
		qpkg=qemu-system-arm
		# The virt machine (PCI for the virtio disks, a device tree for
		# the TIS); a Cortex-A72 (max's pointer authentication is slow
		# under TCG). Its TIS driver is a module (arm64.sh).
		VM_MACHINE=(-machine virt -cpu cortex-a72) VM_ARCH_MODULES=tpm_tis
		[ "${VM_TPM:-tpm-tis}" != tpm-tis ] || VM_TPM="tpm-tis-device"
		;;
	*) vm_die "VM_ARCH=$VM_ARCH: amd64 or arm64" || return ;;
	esac
	VM_TIMEOUT=${VM_TIMEOUT:-300}
	VM_TPM=${VM_TPM:-tpm-tis}
	VM_MEM=${VM_MEM:-512}
	VM_SWTPM=${VM_SWTPM:-1}
	VM_CACHE=${TPMTRACE_VM_CACHE:-${HOME:-/root}/.cache/tpmtrace-vm}
	VM_GUEST_RC=
	VM_EXT4_IMG=
	VM_SWTPM_PID=

	vm_need "$VM_QEMU" "$qpkg" ||
		{ vm_skip "$VM_QEMU not found and $qpkg could not be installed"; return; }
	local t
	for t in busybox:busybox-static gzip:gzip flock:util-linux timeout:coreutils; do
		vm_need "${t%%:*}" "${t#*:}" || vm_die "${t%%:*} not found (package ${t#*:})" || return
	done
	if [ "$VM_SWTPM" = 1 ] && [ "$VM_TPM" != none ]; then
		vm_need swtpm swtpm || vm_die "swtpm not found (package swtpm)" || return
	fi
	[ "$(busybox --list | grep -c -x -e cpio -e modprobe -e tar -e poweroff)" = 4 ] ||
		vm_die "busybox lacks cpio/modprobe/tar/poweroff; install busybox-static" || return

	VM_WORK=$(mktemp -d "${TMPDIR:-/tmp}/tpmtrace-vm.XXXXXX") || return 1
	VM_ROOT=$VM_WORK/root
	VM_OUT=${VM_OUT:-$VM_WORK/out}
	VM_CONSOLE=$VM_WORK/console.log
	VM_SWTPM_SOCK=$VM_WORK/swtpm/ctrl.sock
	mkdir -p "$VM_ROOT" "$VM_OUT" || return 1
	if [ -z "${VM_NO_TRAP:-}" ]; then
		trap vm_cleanup EXIT
	fi

	if [ "$VM_ARCH" = arm64 ]; then
		vm_arm64_fetch || return
		VM_SYSROOT=$VM_AROOT
		# The recipe's arm64 kernel instead of Debian's: its TIS driver
		# is built in (no module to load).
		if [ -n "${VM_KERNEL_BUILD:-}" ]; then
			vm_kernel_build_use "$VM_KERNEL_BUILD" || return
			VM_ARCH_MODULES=
		fi
	elif [ -n "${VM_KERNEL_BUILD:-}" ]; then
		vm_kernel_build_use "$VM_KERNEL_BUILD" || return
	else
		vm_kernel_fetch || return
	fi
	vm_root_base || return
}

# vm_kernel_fetch: make sure an unpacked linux-image-*-amd64 is in the cache.
# Sets VM_KVER, VM_KERNEL (vmlinuz), VM_KROOT (unpacked package root).
# The package is downloaded with apt-get download and unpacked with dpkg-deb -x,
# never installed (installing runs update-initramfs for minutes).
vm_kernel_fetch() {
	mkdir -p "$VM_CACHE" || { vm_skip "cannot create cache dir $VM_CACHE"; return; }
	local pkg=${TPMTRACE_VM_KERNEL_PKG:-}
	if [ -z "$pkg" ]; then
		# linux-image-amd64 is a metapackage: its one dependency is the real image.
		pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
			sed -n 's/^ *Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -n1)
	fi
	if [ -z "$pkg" ]; then
		# No package lists (fresh machine, offline): reuse the newest cached kernel.
		pkg=$(cd "$VM_CACHE" && find . -maxdepth 1 -name 'linux-image-*-amd64' -printf '%f\n' | sort -V | tail -n1)
		pkg=${pkg:-}
	fi
	if [ -z "$pkg" ] && [ "$(id -u)" = 0 ]; then
		apt-get update -q >/dev/null 2>&1
		pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
			sed -n 's/^ *Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -n1)
	fi
	[ -n "$pkg" ] || { vm_skip "cannot resolve linux-image-amd64 to a kernel package (apt-cache depends)"; return; }

	VM_KROOT=$VM_CACHE/$pkg
	(
		flock 9
		[ -e "$VM_KROOT/.unpacked" ] && exit 0
		vm_log "downloading $pkg into $VM_CACHE (once)"
		dl=$VM_CACHE/dl.$$
		rm -rf "$dl" "$VM_KROOT.tmp" && mkdir -p "$dl" || exit 1
		# apt-get download works as any user; root gets a harmless "unsandboxed" note.
		if ! (cd "$dl" && apt-get download -q "$pkg" >/dev/null 2>"$dl/err"); then
			if [ "$(id -u)" = 0 ]; then
				apt-get update -q >/dev/null 2>&1
				(cd "$dl" && apt-get download -q "$pkg" >/dev/null 2>"$dl/err") || { cat "$dl/err" >&2; rm -rf "$dl"; exit 77; }
			else
				cat "$dl/err" >&2
				rm -rf "$dl"
				exit 77
			fi
		fi
		dpkg-deb -x "$dl"/"$pkg"_*.deb "$VM_KROOT.tmp" || { rm -rf "$dl"; exit 1; }
		rm -rf "$dl" "$VM_KROOT"
		mv "$VM_KROOT.tmp" "$VM_KROOT" && touch "$VM_KROOT/.unpacked"
	) 9>"$VM_CACHE/.lock"
	case $? in
	0) ;;
	77)
		vm_skip "cannot download kernel package $pkg with apt-get download"
		return
		;;
	*)
		vm_die "unpacking $pkg into $VM_KROOT failed"
		return
		;;
	esac
	VM_KERNEL=$(find "$VM_KROOT/boot" -name 'vmlinuz-*' 2>/dev/null | head -n1)
	[ -n "$VM_KERNEL" ] || vm_die "no vmlinuz in $VM_KROOT/boot" || return
	VM_KVER=${VM_KERNEL##*/vmlinuz-}
	[ -d "$VM_KROOT/lib/modules/$VM_KVER" ] || vm_die "no modules for $VM_KVER in $VM_KROOT" || return
	return 0
}

# ---- Kernels built from source (VM_KERNEL_BUILD) ----------------------------
# A kernel built from Debian's linux-source-6.12 with the options of
# tests/vm/linux-6.12.recipe, one bzImage per variant of the recipe (hmac:
# CONFIG_TCG_TPM2_HMAC=y, stock: =n), everything built in (no modules). Cached
# in $VM_CACHE/linux-build/KEY/VARIANT, KEY = source package version + gcc
# version + SHA-256 of the recipe; the first build makes every variant under a
# flock, with ccache (CCACHE_DIR=$VM_CACHE/ccache) when it is installed. The
# unpacked source (1.7 GB) is removed after the build.

VM_KERNEL_RECIPE=$VM_HARNESS_DIR/linux-6.12.recipe
VM_KERNEL_SRC_PKG=linux-source-6.12

# vm_kernel_arch: the kernel architecture (make ARCH=) of VM_ARCH's guest.
vm_kernel_arch() {
	if [ "${VM_ARCH:-amd64}" = arm64 ]; then echo arm64; else echo x86_64; fi
}

# vm_kernel_recipe_lines [ARCH]: the recipe's lines for an architecture
# (default vm_kernel_arch), without comments: a line ARCH/... of another
# architecture left out, the ARCH/ of its own removed.
vm_kernel_recipe_lines() {
	awk -v arch="${1:-$(vm_kernel_arch)}" '
		/^[[:space:]]*(#|$)/ { next }
		$1 ~ /\// {
			if (substr($1, 1, index($1, "/") - 1) != arch) next
			sub(/^[^\/]*\//, "")
		}
		{ print }' "$VM_KERNEL_RECIPE"
}

# vm_kernel_recipe_opts VARIANT PASS [ARCH]: the recipe's scripts/config
# arguments for a variant (-e X / -d X), PASS 1 (before second-pass) or 2.
vm_kernel_recipe_opts() {
	vm_kernel_recipe_lines "${3:-}" | awk -v want="$1" -v pass="$2" '
		$1 == "second-pass" { p = 2; next }
		{
			v = $1; o = $2; n = split(v, a, ":")
			if (n == 2) { if (a[1] != want) next; v = a[2] }
			if ((p ? p : 1) != pass) next
			if (v == "y") print "-e " o; else if (v == "n") print "-d " o
			else { print "bad recipe line: " $0 > "/dev/stderr"; exit 1 }
		}'
}

# vm_kernel_variants: the variant names the recipe uses for the guest's
# architecture.
vm_kernel_variants() {
	vm_kernel_recipe_lines | sed -n 's/^\([a-z0-9_-]*\):[yn] .*/\1/p' | sort -u
}

# vm_kernel_cross: the prefix of the cross tool chain for the guest's
# architecture (CROSS_COMPILE=), empty for the host's.
vm_kernel_cross() {
	[ "$(vm_kernel_arch)" = x86_64 ] || echo aarch64-linux-gnu-
}

# vm_kernel_build_deps: the source package and the build tools, installed when
# missing and we may (root). Returns 77 (after SKIP) when they cannot be had.
vm_kernel_build_deps() {
	local t cross
	cross=$(vm_kernel_cross)
	if ! dpkg-query -W -f='${Status}' "$VM_KERNEL_SRC_PKG" 2>/dev/null | grep -q 'ok installed'; then
		vm_apt_install "$VM_KERNEL_SRC_PKG" >/dev/null 2>&1 ||
			{ vm_skip "$VM_KERNEL_SRC_PKG is not installed and cannot be (apt-get install $VM_KERNEL_SRC_PKG)"; return; }
	fi
	for t in make:make gcc:gcc flex:flex bison:bison bc:bc xz:xz-utils perl:perl \
		${cross:+${cross}gcc:gcc-aarch64-linux-gnu}; do
		vm_need "${t%%:*}" "${t#*:}" || { vm_skip "${t%%:*} (package ${t#*:}) is needed to build the kernel"; return; }
	done
	if [ ! -e /usr/include/libelf.h ]; then
		vm_apt_install libelf-dev >/dev/null 2>&1 || { vm_skip "libelf-dev is needed to build the kernel (objtool)"; return; }
	fi
	command -v ccache >/dev/null || vm_apt_install ccache >/dev/null 2>&1 || true
	return 0
}

# vm_kernel_build_key: the cache key of the recipe's build for the guest's
# architecture: the source package's version, the architecture (but the
# host's), the compiler's version, and the architecture's recipe lines
# without comments (a comment edited, or a line of the other architecture,
# rebuilds nothing).
vm_kernel_build_key() {
	local ver gcc sum cross arch
	cross=$(vm_kernel_cross) arch=$(vm_kernel_arch)
	ver=$(dpkg-query -W -f='${Version}' "$VM_KERNEL_SRC_PKG" 2>/dev/null) || return 1
	gcc=$("${cross}gcc" -dumpfullversion 2>/dev/null || "${cross}gcc" -dumpversion)
	sum=$(vm_kernel_recipe_lines | sha256sum | cut -c1-12)
	echo "${ver//[^A-Za-z0-9.+-]/_}${cross:+-$arch}-gcc$gcc-$sum"
}

# vm_kernel_build: every variant of the recipe for the guest's architecture
# (VM_ARCH) built into the cache (once). Sets VM_KBUILD_DIR. Build times go
# to VM_KBUILD_DIR/times.
vm_kernel_build() {
	local rc key
	vm_kernel_build_deps || return
	key=$(vm_kernel_build_key) || { vm_die "cannot read the version of $VM_KERNEL_SRC_PKG"; return; }
	VM_KBUILD_DIR=$VM_CACHE/linux-build/$key
	# Built: used at once. The lock is for building, and another recipe's
	# build (the arm64 kernels') holds it for tens of minutes.
	[ -e "$VM_KBUILD_DIR/.built" ] && return 0
	mkdir -p "$VM_CACHE/linux-build" || return 1
	(
		flock 9
		[ -e "$VM_KBUILD_DIR/.built" ] && exit 0
		vm_kernel_build_locked
	) 9>"$VM_CACHE/linux-build/.lock"
	rc=$?
	[ $rc = 0 ] || vm_die "building the $(vm_kernel_arch) kernel from $VM_KERNEL_SRC_PKG failed (log: $VM_CACHE/linux-build/work/build-*.log)"
}

# vm_children_cpu PID: CPU seconds (user + system) of the finished children of
# shell PID so far (cutime and cstime of /proc/PID/stat, in 1/100 s).
vm_children_cpu() {
	local st
	read -r -a st <"/proc/$1/stat"
	echo $(((st[15] + st[16]) / 100))
}

# Runs under the flock: unpack, configure and build each variant, check the
# options, install into VM_KBUILD_DIR, remove the source. The work dir has a
# fixed path so that ccache sees the same compiler arguments every time. The
# image is cached as boot/vmlinuz-KVER whatever its kind (x86: bzImage;
# arm64: Image, which QEMU's -kernel boots as it is).
vm_kernel_build_locked() {
	local w=$VM_CACHE/linux-build/work src v obj opt want got kver t0 t1 c0 me=$BASHPID
	local tarball arch cross cc image
	arch=$(vm_kernel_arch) cross=$(vm_kernel_cross)
	cc=${cross}gcc
	case $arch in
	x86_64) image=arch/x86/boot/bzImage ;;
	*) image=arch/$arch/boot/Image ;;
	esac
	tarball=$(dpkg -L "$VM_KERNEL_SRC_PKG" | grep -m1 '/usr/src/linux-source-.*\.tar\.[a-z]*$') ||
		{ echo "no source tarball in $VM_KERNEL_SRC_PKG" >&2; return 1; }
	rm -rf "$w" "$VM_KBUILD_DIR.tmp" && mkdir -p "$w" "$VM_KBUILD_DIR.tmp" || return 1
	if command -v ccache >/dev/null; then
		cc="ccache $cc"
		export CCACHE_DIR=$VM_CACHE/ccache CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-2G}
	fi
	vm_log "building Linux for $arch from $tarball (once; about 10 minutes of CPU per cold build, less with ccache)"
	t0=$(date +%s)
	tar -xf "$tarball" -C "$w" || return 1
	src=$(find "$w" -mindepth 1 -maxdepth 1 -type d | head -n1)
	t1=$(date +%s)
	echo "unpack $((t1 - t0))" >"$VM_KBUILD_DIR.tmp/times"
	local mk=(make -C "$src" ARCH="$arch" ${cross:+CROSS_COMPILE=$cross})
	for v in $(vm_kernel_variants); do
		obj=$w/obj-$v
		t0=$(date +%s)
		c0=$(vm_children_cpu "$me")
		{
			# shellcheck disable=SC2046 # the options are words
			"${mk[@]}" O="$obj" tinyconfig &&
				"$src/scripts/config" --file "$obj/.config" $(vm_kernel_recipe_opts "$v" 1) \
					--set-str LOCALVERSION "-tpmtrace-$v" -d LOCALVERSION_AUTO &&
				"${mk[@]}" O="$obj" olddefconfig &&
				"$src/scripts/config" --file "$obj/.config" $(vm_kernel_recipe_opts "$v" 2) &&
				"${mk[@]}" O="$obj" olddefconfig
		} >"$w/build-$v.log" 2>&1 || return 1
		# Every option as the recipe asks, or the recipe is wrong for this source.
		for opt in $(vm_kernel_recipe_opts "$v" 1 | tr ' ' ':') $(vm_kernel_recipe_opts "$v" 2 | tr ' ' ':'); do
			want=${opt%%:*}
			got=$("$src/scripts/config" --file "$obj/.config" -s "${opt#*:}")
			if { [ "$want" = -e ] && [ "$got" != y ]; } || { [ "$want" = -d ] && [ "$got" = y ]; }; then
				echo "CONFIG_${opt#*:} ($arch): the recipe asks $([ "$want" = -e ] && echo y || echo n), the configuration has '$got'" >&2
				return 1
			fi
		done
		"${mk[@]}" O="$obj" CC="$cc" -j"${VM_KBUILD_JOBS:-2}" "${image##*/}" >>"$w/build-$v.log" 2>&1 || return 1
		kver=$("${mk[@]}" -s O="$obj" kernelrelease 2>/dev/null)
		t1=$(date +%s)
		mkdir -p "$VM_KBUILD_DIR.tmp/$v/boot" "$VM_KBUILD_DIR.tmp/$v/lib/modules/$kver/kernel" &&
			cp "$obj/$image" "$VM_KBUILD_DIR.tmp/$v/boot/vmlinuz-$kver" &&
			cp "$obj/.config" "$VM_KBUILD_DIR.tmp/$v/boot/config-$kver" &&
			cp "$obj/System.map" "$VM_KBUILD_DIR.tmp/$v/boot/System.map-$kver" &&
			cp "$obj/modules.builtin" "$VM_KBUILD_DIR.tmp/$v/lib/modules/$kver/" &&
			cp "$w/build-$v.log" "$VM_KBUILD_DIR.tmp/$v/build.log" || return 1
		c0=$(($(vm_children_cpu "$me") - c0))
		echo "$v $((t1 - t0)) s, $c0 s of CPU" >>"$VM_KBUILD_DIR.tmp/times"
		vm_log "built $kver ($arch) in $((t1 - t0)) s ($c0 s of CPU)"
	done
	[ -z "${CCACHE_DIR:-}" ] || ccache -s >"$VM_KBUILD_DIR.tmp/ccache-stats" 2>&1
	cp "$VM_KERNEL_RECIPE" "$VM_KBUILD_DIR.tmp/recipe" &&
		rm -rf "$VM_KBUILD_DIR" && mv "$VM_KBUILD_DIR.tmp" "$VM_KBUILD_DIR" &&
		touch "$VM_KBUILD_DIR/.built" || return 1
	rm -rf "$w"
}

# vm_kernel_build_use VARIANT: boot the built kernel of that variant (building
# it first if needed). Sets VM_KERNEL, VM_KVER, VM_KROOT, VM_KERNEL_VARIANT.
# Callable again after vm_init to switch variants; the guest checks that the
# kernel is what it claims (HMAC: /sys/class/tpm/tpm0/null_name exists).
vm_kernel_build_use() {
	local v=$1
	vm_kernel_variants | grep -qx -- "$v" ||
		{ vm_die "VM_KERNEL_BUILD=$v: not a variant of $VM_KERNEL_RECIPE ($(vm_kernel_variants | tr '\n' ' '))"; return; }
	vm_kernel_build || return
	VM_KROOT=$VM_KBUILD_DIR/$v
	VM_KERNEL=$(find "$VM_KROOT/boot" -name 'vmlinuz-*' | head -n1)
	[ -n "$VM_KERNEL" ] || vm_die "no vmlinuz in $VM_KROOT/boot" || return
	VM_KVER=${VM_KERNEL##*/vmlinuz-}
	VM_KERNEL_VARIANT=$v
	# No modules: the initramfs gets an empty modules directory for depmod.
	mkdir -p "$VM_ROOT/usr/lib/modules/$VM_KVER" || return 1
}

# vm_kernel_guard_conf: the guest's check of the kernel under test, for
# /etc/vm.conf: what the variant claimed was built with (its config) against
# what the booted kernel shows: with HMAC sessions it exports its null key's
# Name.
vm_kernel_guard_conf() {
	[ -n "${VM_KERNEL_VARIANT:-}" ] || return 0
	if cat "$VM_KBUILD_DIR/$VM_KERNEL_VARIANT"/boot/config-* | grep -qx 'CONFIG_TCG_TPM2_HMAC=y'; then
		echo "VM_EXPECT_NULL_NAME=1"
	else
		echo "VM_EXPECT_NULL_NAME=0"
	fi
}

# Staging root with a merged-/usr layout, busybox applets and a few dirs.
vm_root_base() {
	local r=$VM_ROOT d a
	mkdir -p "$r"/usr/bin "$r"/usr/sbin "$r"/usr/lib64 "$r/usr/lib/$VM_TRIPLET" \
		"$r"/proc "$r"/sys "$r"/dev "$r"/tmp "$r"/out "$r"/mnt/ext4 "$r"/etc "$r"/root "$r"/run || return 1
	for d in bin sbin lib lib64; do
		ln -sfn "usr/$d" "$r/$d"
	done
	cp "$(vm_tool_path busybox)" "$r/usr/bin/busybox" || return 1
	# One symlink per applet, never over busybox itself or a copied binary
	# (the host's busybox lists them: the same Debian package).
	for a in $(busybox --list-full); do
		case $a in */busybox) continue ;; esac
		[ -e "$r/$a" ] || [ -L "$r/$a" ] || ln -s /usr/bin/busybox "$r/$a"
	done
	VM_MODULE_LIST=""
	vm_add_modules virtio_pci virtio_blk cuse tpm_vtpm_proxy
}

# vm_copy_file SRC [DEST]: copy SRC (following symlinks) to DEST in the guest.
vm_copy_file() {
	local src=$1 dst=${2:-$1}
	mkdir -p "$VM_ROOT$(dirname "$dst")" && cp -L "$src" "$VM_ROOT$dst"
}

# vm_add_libs FILE: copy the shared libraries FILE needs (ldd), with the loader.
vm_add_libs() {
	local lib
	[ -z "$VM_SYSROOT" ] || { vm_arm64_libs "$1"; return; }
	for lib in $(ldd "$1" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p'); do
		[ -e "$VM_ROOT$lib" ] && continue
		vm_copy_file "$lib" || vm_die "cannot copy $lib (needed by $1)" || return
	done
}

# vm_add_dlopened: the library tpmtrace's binaries load at its first use
# (dlopen), which no ldd names: libcrypto (model/tpm/crypto_lib.h), with its
# own libraries.
vm_add_dlopened() {
	local n=libcrypto.so.3 p
	if [ -n "$VM_SYSROOT" ]; then
		[ -e "$VM_ROOT/usr/lib/aarch64-linux-gnu/$n" ] && return 0
		p=$(vm_arm64_lib "$n") || vm_die "no arm64 library $n in $VM_AROOT" || return
		cp -L "$p" "$VM_ROOT/usr/lib/aarch64-linux-gnu/$n" && vm_arm64_libs "$p"
		return
	fi
	p=$(ldconfig -p | awk -v s="$n" '$1 == s {print $NF; exit}')
	[ -n "$p" ] || vm_die "no $n on this host" || return
	[ -e "$VM_ROOT$p" ] && return 0
	vm_copy_file "$p" && vm_add_libs "$p"
}

# vm_add_bin FILE [DEST]: a host executable (or .so) with all its libraries
# (for tpmtrace's binaries, the one they load at first use too). Default DEST
# is /usr/bin/NAME for executables named by path.
vm_add_bin() {
	local src=$1 dst=${2:-}
	[ -e "$src" ] || src=$(command -v "$1") || vm_die "no such binary: $1" || return
	[ -n "$dst" ] || dst=/usr/bin/$(basename "$src")
	rm -f "$VM_ROOT$dst"
	vm_copy_file "$src" "$dst" || vm_die "cannot copy $src" || return
	vm_add_libs "$src" || return
	case ${dst##*/} in
	tpmtrace | tpm-cuse-proxy) vm_add_dlopened ;;
	esac
}

# vm_tool_path NAME: the program of the guest's architecture: the host's
# (command -v) or VM_SYSROOT's.
vm_tool_path() {
	local d
	[ -n "$VM_SYSROOT" ] || { command -v "$1"; return; }
	for d in usr/bin bin usr/sbin sbin; do
		[ -x "$VM_SYSROOT/$d/$1" ] && { echo "$VM_SYSROOT/$d/$1"; return 0; }
	done
	vm_die "no $VM_ARCH $1 in $VM_SYSROOT (add its package to VM_ARM64_PACKAGES)"
}

# vm_add_tool NAME: vm_tool_path NAME as /usr/bin/NAME, with its libraries.
vm_add_tool() {
	local p
	p=$(vm_tool_path "$1") && vm_add_bin "$p" "/usr/bin/$1"
}

# vm_add_file SRC DEST: any file or directory (recursively) into the guest.
vm_add_file() {
	mkdir -p "$VM_ROOT$(dirname "$2")" && cp -a "$1" "$VM_ROOT$2" || vm_die "cannot copy $1 to $2"
}

# vm_add_tpm2_tools: tpm2-tools (multi-call tpm2 + tpm2_* links, or separate
# tools) and the TCTI libraries, which tctildr dlopen()s so ldd cannot see them.
vm_add_tpm2_tools() {
	local t lib from=$VM_SYSROOT
	if [ -x "$from/usr/bin/tpm2" ]; then
		vm_add_bin "$from/usr/bin/tpm2" /usr/bin/tpm2 || return
		for t in "$from"/usr/bin/tpm2_*; do
			if [ -L "$t" ] && [ "$(readlink "$t")" = tpm2 ]; then
				ln -sfn tpm2 "$VM_ROOT/usr/bin/${t##*/}"
			else
				vm_add_bin "$t" "/usr/bin/${t##*/}" || return
			fi
		done
	else
		set -- "$from"/usr/bin/tpm2_*
		[ -e "$1" ] || vm_die "tpm2-tools not found (package tpm2-tools)" || return
		for t; do vm_add_bin "$t" "/usr/bin/${t##*/}" || return; done
	fi
	for lib in "$from/usr/lib/$VM_TRIPLET"/libtss2-tcti-*.so* "$from/usr/lib/$VM_TRIPLET"/libtss2-tctildr.so*; do
		[ -e "$lib" ] || continue
		if [ -L "$lib" ]; then
			cp -P "$lib" "$VM_ROOT/usr/lib/$VM_TRIPLET/" || return
		else
			vm_add_bin "$lib" "${lib#"$from"}" || return
		fi
	done
}

# Read a module's .modinfo field: kmod's modinfo if present, else the strings
# of the (decompressed) file, which reads any architecture's modules.
vm_modinfo() { # FIELD FILE
	if command -v modinfo >/dev/null; then
		modinfo -F "$1" "$2"
		return
	fi
	case $2 in
	*.xz) xz -dc "$2" ;;
	*.zst) zstd -dc "$2" ;;
	*.gz) gzip -dc "$2" ;;
	*) cat "$2" ;;
	esac | tr '\0' '\n' | sed -n "s/^$1=//p"
}

# vm_add_modules NAME...: kernel modules and (recursively) their dependencies.
vm_add_modules() {
	local m f mdir=$VM_KROOT/lib/modules/$VM_KVER dep dirs
	dirs=("$mdir/kernel")
	[ ! -d "$mdir/extra" ] || dirs+=("$mdir/extra")
	for m; do
		m=${m//-/_}
		case " $VM_MODULE_LIST " in *" $m "*) continue ;; esac
		# extra/: modules the harness built (arm64.sh: tpm_tis).
		f=$(find "${dirs[@]}" \( -name "$m.ko" -o -name "$m.ko.*" -o -name "${m//_/-}.ko" -o -name "${m//_/-}.ko.*" \) | head -n1)
		if [ -z "$f" ]; then
			# Built in: nothing to copy.
			grep -q "/$m.ko\$" "$mdir/modules.builtin" 2>/dev/null || grep -q "/${m//_/-}.ko\$" "$mdir/modules.builtin" 2>/dev/null ||
				vm_die "kernel module $m not found in $mdir" || return
			continue
		fi
		VM_MODULE_LIST="$VM_MODULE_LIST $m"
		mkdir -p "$VM_ROOT/lib/modules/$VM_KVER/$(dirname "${f#"$mdir"/}")" &&
			cp "$f" "$VM_ROOT/lib/modules/$VM_KVER/${f#"$mdir"/}" || return
		dep=$(vm_modinfo depends "$f")
		# shellcheck disable=SC2086
		[ -z "$dep" ] || vm_add_modules ${dep//,/ } || return
	done
}

# vm_ext4_image DIR [EXTRA_MIB]: an ext4 image made from DIR (mkfs.ext4 -d),
# attached as a virtio disk and mounted at /mnt/ext4 in the guest. Files run or
# read from it are measured by IMA under ima_policy=tcb (tmpfs/ramfs are not).
vm_ext4_image() {
	vm_need mkfs.ext4 e2fsprogs || vm_die "mkfs.ext4 not found (package e2fsprogs)" || return
	local kib
	kib=$(du -sk "$1" | cut -f1)
	VM_EXT4_IMG=$VM_WORK/ext4.img
	rm -f "$VM_EXT4_IMG"
	mkfs.ext4 -q -F -d "$1" -L tpmtrace "$VM_EXT4_IMG" "$(((kib * 12 / 10) / 1024 + ${2:-8}))M" >/dev/null ||
		vm_die "mkfs.ext4 -d $1 failed" || return
	vm_add_modules ext4 crc32c_generic
}

# vm_initramfs GUEST_SCRIPT: write /init and /guest.sh, depmod, pack the cpio.
vm_initramfs() {
	local script=$1 r=$VM_ROOT
	[ -r "$script" ] || vm_die "guest script $script not readable" || return
	cp "$script" "$r/guest.sh" && chmod 755 "$r/guest.sh" || return
	# shellcheck disable=SC2086 # space-separated lists
	vm_add_modules $VM_ARCH_MODULES ${VM_MODULES:-} || return
	cp "$VM_HARNESS_DIR/guest-init.sh" "$r/init" && chmod 755 "$r/init" || return
	mkdir -p "$r/lib" && cp "$VM_HARNESS_DIR/guest-lib.sh" "$r/lib/vm-guest.sh" || return
	cat >"$r/etc/vm.conf" <<-EOF
		VM_LOAD_MODULES="virtio_pci virtio_blk $VM_ARCH_MODULES ${VM_EXT4_IMG:+ext4 crc32c_generic} ${VM_MODULES:-}"
		VM_HAVE_EXT4=${VM_EXT4_IMG:+1}
		$(vm_kernel_guard_conf)
	EOF
	printf 'root:x:0:0:root:/root:/bin/sh\n' >"$r/etc/passwd"
	printf 'root:x:0:\n' >"$r/etc/group"
	# modules.dep for the guest's modprobe; kmod depmod if present, else busybox's.
	if command -v depmod >/dev/null; then
		depmod -b "$r" "$VM_KVER" || return
	else
		busybox depmod -b "$r" "$VM_KVER" || return
	fi
	# A loader cache makes dlopen() of TCTI libraries independent of search paths.
	ldconfig -r "$r" 2>/dev/null || true
	local cpio=(busybox cpio -o -H newc -R 0:0)
	command -v cpio >/dev/null && cpio=(cpio -o -H newc -R 0:0 --quiet)
	(cd "$r" && find . | LC_ALL=C sort | "${cpio[@]}" 2>/dev/null) | gzip -1 >"$VM_WORK/initrd.gz" ||
		vm_die "packing initramfs failed" || return
	VM_INITRD=$VM_WORK/initrd.gz
}

# vm_swtpm_start: a fresh swtpm with private state; --terminate makes it exit
# when QEMU closes the control connection. Run as our child (not --daemon) so
# this shell reaps it.
vm_swtpm_start() {
	local d=$VM_WORK/swtpm
	mkdir -p "$d/state" || return
	swtpm socket --tpm2 --tpmstate dir="$d/state" --ctrl type=unixio,path="$VM_SWTPM_SOCK" \
		--terminate --log file="$d/log" </dev/null >>"$d/log" 2>&1 &
	VM_SWTPM_PID=$!
	for _ in $(seq 50); do
		[ -S "$VM_SWTPM_SOCK" ] && break
		kill -0 "$VM_SWTPM_PID" 2>/dev/null || break
		sleep 0.1
	done
	[ -S "$VM_SWTPM_SOCK" ] || vm_die "swtpm did not create $VM_SWTPM_SOCK (log: $(tail -n 3 "$d/log" 2>/dev/null))" || return
}

# vm_swtpm_stop: reap swtpm (it leaves by itself once QEMU is gone).
vm_swtpm_stop() {
	[ -n "${VM_SWTPM_PID:-}" ] || return 0
	for _ in $(seq 20); do
		kill -0 "$VM_SWTPM_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill "$VM_SWTPM_PID" 2>/dev/null
	wait "$VM_SWTPM_PID" 2>/dev/null
	VM_SWTPM_PID=
}

# shellcheck disable=SC2054 # commas inside QEMU option values
# vm_qemu_cmd: fill the array VM_QEMU_CMD (prefix + QEMU + arguments).
vm_qemu_cmd() {
	local tpm=() prefix=() extra=()
	if declare -p VM_TPM_ARGS 2>/dev/null | grep -q '^declare -a'; then
		tpm=("${VM_TPM_ARGS[@]}")
	elif [ "$VM_TPM" != none ]; then
		tpm=(-chardev "socket,id=chrtpm,path=$VM_SWTPM_SOCK"
			-tpmdev emulator,id=tpm0,chardev=chrtpm -device "$VM_TPM,tpmdev=tpm0")
	fi
	if declare -p VM_QEMU_PREFIX 2>/dev/null | grep -q '^declare -a'; then
		prefix=("${VM_QEMU_PREFIX[@]}")
	else
		# shellcheck disable=SC2206
		prefix=(${VM_QEMU_PREFIX:-})
	fi
	if declare -p VM_QEMU_EXTRA 2>/dev/null | grep -q '^declare -a'; then
		extra=("${VM_QEMU_EXTRA[@]}")
	fi
	VM_QEMU_CMD=("${prefix[@]}" "$VM_QEMU" "${VM_MACHINE[@]}" -accel tcg -nographic
		-m "$VM_MEM" -smp 1 -no-reboot -nic none
		-kernel "$VM_KERNEL" -initrd "$VM_INITRD"
		-append "console=$VM_TTY panic=-1 loglevel=4 ${VM_APPEND:-}"
		-drive "file=$VM_WORK/results.img,if=none,format=raw,id=res"
		-device virtio-blk-pci,drive=res,serial=results)
	if [ -n "$VM_EXT4_IMG" ]; then
		VM_QEMU_CMD+=(-drive "file=$VM_EXT4_IMG,if=none,format=raw,id=ext4"
			-device virtio-blk-pci,drive=ext4,serial=ext4)
	fi
	VM_QEMU_CMD+=("${tpm[@]}" "${extra[@]}")
	# @SOCK@ in caller-supplied words stands for the swtpm control socket.
	VM_QEMU_CMD=("${VM_QEMU_CMD[@]//@SOCK@/$VM_SWTPM_SOCK}")
}

# vm_boot: start swtpm (unless VM_SWTPM=0), run QEMU with a timeout, unpack the
# results. Returns 0 when the guest reported (check VM_GUEST_RC), 1 otherwise.
vm_boot() {
	local rc t0 t1
	VM_GUEST_RC=
	[ -n "${VM_INITRD:-}" ] || vm_die "vm_boot: call vm_initramfs first" || return
	# The guest writes a tar of /out to this raw disk; tar stops at its end marker.
	rm -f "$VM_WORK/results.img"
	truncate -s "${VM_RESULTS_MB:-64}M" "$VM_WORK/results.img" || return
	if [ "$VM_SWTPM" = 1 ] && [ "$VM_TPM" != none ]; then
		vm_swtpm_start || return
	fi
	vm_qemu_cmd
	vm_log "booting $VM_KVER (timeout ${VM_TIMEOUT}s, console log: $VM_OUT/vm-console.log)"
	t0=$(date +%s.%N)
	if [ "${VM_VERBOSE:-0}" = 1 ]; then
		timeout -k 5 "$VM_TIMEOUT" "${VM_QEMU_CMD[@]}" </dev/null 2>&1 | tee "$VM_CONSOLE" >&2
		rc=${PIPESTATUS[0]}
	else
		timeout -k 5 "$VM_TIMEOUT" "${VM_QEMU_CMD[@]}" </dev/null >"$VM_CONSOLE" 2>&1
		rc=$?
	fi
	t1=$(date +%s.%N)
	vm_swtpm_stop
	mkdir -p "$VM_OUT" && cp "$VM_CONSOLE" "$VM_OUT/vm-console.log" 2>/dev/null
	VM_ELAPSED=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		vm_die "QEMU timed out after ${VM_TIMEOUT}s; last console lines:"
		tail -n 20 "$VM_CONSOLE" >&2
		return 1
	fi
	[ "$rc" = 0 ] || vm_log "QEMU exited with status $rc"
	if ! tar -x -f "$VM_WORK/results.img" -C "$VM_OUT" 2>/dev/null || [ ! -e "$VM_OUT/.guest-rc" ]; then
		vm_die "guest did not report results (QEMU status $rc); last console lines:"
		tail -n 20 "$VM_CONSOLE" >&2
		return 1
	fi
	VM_GUEST_RC=$(cat "$VM_OUT/.guest-rc")
	vm_guest_errors || return 1
	vm_log "guest script exited $VM_GUEST_RC; boot-to-result ${VM_ELAPSED}s"
	return 0
}

# vm_guest_errors: fails, naming them, when the guest's /init found the boot
# not as asked (an ext4 image that did not mount, a kernel that is not the
# variant claimed): guest-init.sh writes them to /out/.vm-error.
vm_guest_errors() {
	[ -e "$VM_OUT/.vm-error" ] || return 0
	while IFS= read -r l; do vm_die "guest: $l"; done <"$VM_OUT/.vm-error"
	return 1
}

# vm_run_checked GUEST_SCRIPT [WHAT]: vm_run, checked ("WHAT booted and
# reported results"); a guest that did not report ends the test (finish).
# Then O is the host copy of the guest's /out.
vm_run_checked() {
	vm_run "$1"
	local rc=$?
	check "${2:-guest} booted and reported results" [ "$rc" = 0 ]
	[ "$rc" = 0 ] || finish
	O=$VM_OUT
}

# vm_get KEY: the value the guest wrote with kv KEY VALUE (first one).
vm_get() { sed -n "s/^$1=//p" "$VM_OUT/results" | head -n1; }

# vm_run GUEST_SCRIPT: vm_initramfs + vm_boot.
vm_run() {
	vm_initramfs "$1" && vm_boot
}

# vm_cleanup: stop what we started, remove the work dir unless VM_KEEP=1.
vm_cleanup() {
	vm_swtpm_stop
	if [ -n "${VM_WORK:-}" ] && [ -d "$VM_WORK" ]; then
		if [ "${VM_KEEP:-0}" = 1 ]; then
			vm_log "kept $VM_WORK"
		else
			rm -rf "$VM_WORK"
		fi
	fi
}

# Counting checks in the VM tests: check DESCRIPTION COMMAND..., then finish
# prints "N passed, N failed" and exits with the verdict.
pass=0
fail=0
# One command per check (a function for a compound condition): never
# `check "…" [ A ] && [ B ]` (tests/lib/check_guard.sh catches it).
check() { # DESCRIPTION COMMAND...
	check_guard_arm "$1"
	local what=$1
	shift
	if [ $# -gt 0 ] && "$@"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $what" >&2
	fi
}
finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit
}
check_escaped() {
	fail=$((fail + 1))
	echo "FAIL: $*" >&2
}
. "$VM_HARNESS_DIR/../lib/check_guard.sh"
# shellcheck source=arm64.sh
. "$VM_HARNESS_DIR/arm64.sh"
