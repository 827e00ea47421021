# Shared by tools/demo, tools/test and tools/bench (sourced): install the Debian
# packages that are missing (apt-get, nothing else), then configure and build.

# What the project builds with and what tools/demo runs: a C compiler, the
# build's libraries, swtpm, tpm2-tools and sqlite3 (docs/install.md). Not
# build-essential (g++ and dpkg-dev: the project is C) nor swtpm-tools
# (swtpm_ioctl, for one test).
TPMTRACE_DEMO_PACKAGES=(
	gcc make libc6-dev cmake pkg-config
	libtss2-dev libsqlite3-dev libpcap-dev libfuse3-dev libssl-dev libyaml-dev libpq-dev libbpf-dev
	sqlite3 swtpm tpm2-tools
)
# What tools/package adds to the build's packages (record --kernel's clang and
# bpftool, lintian), and for the arm64 package the cross compiler and the
# sysroot maker.
TPMTRACE_PACKAGE_PACKAGES=(dpkg-dev file lintian clang bpftool)
TPMTRACE_CROSS_PACKAGES=(mmdebstrap gcc-aarch64-linux-gnu libc6-dev-arm64-cross)

# Everything the project builds with, tests against and runs (tools/test).
TPMTRACE_PACKAGES=(
	"${TPMTRACE_DEMO_PACKAGES[@]}"
	tpm2-abrmd libtss2-tcti-tabrmd0 tshark python3 xxd openssl swtpm-tools
	qemu-system-x86 qemu-utils busybox-static ovmf e2fsprogs cpio mmdebstrap cryptsetup-bin keyutils
	clang clang-format libclang-rt-14-dev valgrind
	chromium groff-base man-db bsdutils
	postgresql
	bpftool dwarves llvm
	"${TPMTRACE_PACKAGE_PACKAGES[@]}" # test_vm_package_clean_install runs tools/package amd64
	# The arm64 guest (tests/vm/arm64.sh): QEMU for Arm, tools/package arm64.
	qemu-system-arm "${TPMTRACE_CROSS_PACKAGES[@]}"
)

setup_packages() { # setup_packages PKG...: installs those not installed yet
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "tpmtrace setup: installing ${missing[*]}"
	local sudo=()
	[ "$(id -u)" -eq 0 ] || sudo=(sudo)
	export DEBIAN_FRONTEND=noninteractive
	# tshark asks whether non-root users may capture; answer for it.
	echo 'wireshark-common wireshark-common/install-setuid boolean false' |
		"${sudo[@]}" debconf-set-selections
	"${sudo[@]}" apt-get update -q
	"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# setup_build DIR [CMAKE ARGS...]: configure (once) and build; SETUP_TARGETS
# (words) builds only those targets.
setup_build() {
	local dir=$1 targets=() t
	shift
	for t in ${SETUP_TARGETS:-}; do targets+=(--target "$t"); done
	cmake -S . -B "$dir" "$@" >/dev/null
	cmake --build "$dir" -j "$(nproc)" "${targets[@]}" -- --no-print-directory
}
