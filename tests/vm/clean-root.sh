# Sourced by the clean-system tests (test_vm_package_clean_install.sh,
# test_vm_quickstart_clean_root.sh, test_vm_demo_clean_root.sh) after tests/lib/common.sh: a fresh Debian 12
# root (mmdebstrap --variant=apt plus man-db), made once per recipe and cached
# as a tarball under ${TPMTRACE_PACKAGE_CACHE:-~/.cache/tpmtrace-package}
# (about 2 min cold, most of it downloading), and a way to run commands in it.
CLEAN_ROOT_RECIPE="1 bookworm --variant=apt --include=man-db"
[ "$(id -u)" -eq 0 ] || skip "needs root (mmdebstrap, chroot and mounts)"
need mmdebstrap unshare chroot

clean_root() { # clean_root DIR: a fresh root unpacked into DIR; 1 when it cannot be made
	local cache base
	cache=${TPMTRACE_PACKAGE_CACHE:-$HOME/.cache/tpmtrace-package}
	base=$cache/clean-root-$(sha256sum <<<"$CLEAN_ROOT_RECIPE" | cut -c1-12).tar
	mkdir -p "$cache"
	(
		flock 9
		[ -e "$base" ] || {
			# shellcheck disable=SC2086 # the recipe's words
			mmdebstrap --quiet ${CLEAN_ROOT_RECIPE#1 bookworm } bookworm "$base.tmp.tar" &&
				mv "$base.tmp.tar" "$base"
		}
	) 9>"$cache/.clean-root.lock"
	[ -s "$base" ] || return 1
	mkdir -p "$1" && tar -C "$1" -xf "$base" && cp /etc/resolv.conf "$1/etc/resolv.conf"
}

# clean_root_with_tree: R=$T/root made by clean_root, checked, with the
# tree's tracked files in $R/root/tpmtrace as a clone has them; a root that
# cannot be made ends the test (finish).
clean_root_with_tree() {
	R=$T/root
	clean_root "$R"
	expect_eq "the clean Debian 12 root is made (mmdebstrap)" "$?" 0
	[ -d "$R/root" ] || finish
	mkdir "$R/root/tpmtrace"
	git -C "$TPMTRACE_SRC" ls-files -z | tar -C "$TPMTRACE_SRC" --null -T - -cf - |
		tar -C "$R/root/tpmtrace" -xf -
}

# inroot DIR COMMAND: runs the shell command in the root DIR (in /root), with
# /proc, /sys, /dev and /run mounted in a mount namespace of its own, so that
# they go when it ends.
inroot() {
	unshare --mount --propagation private sh -c '
		mount -t proc proc "$1/proc" && mount -t sysfs sysfs "$1/sys" &&
		mount --rbind /dev "$1/dev" && mount -t tmpfs tmpfs "$1/run" &&
		exec chroot "$1" /bin/sh -c "cd /root && $2"' sh "$@"
}
