/* --takeover: the CUSE device is served under the kernel node's name while the
 * kernel's node waits beside it as NAME.real. Every step keeps a TPM node
 * under NAME: the swap is one renameat2(RENAME_EXCHANGE), the way back one
 * rename(2) over the CUSE node. A guardian process (and --restore, for
 * ExecStopPost or by hand) puts the kernel's node back if the proxy dies. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cuse_proxy.h"

/* Directories opened once, before the initramfs's /dev, /sys and /proc are
 * moved under the real root: a proxy (and its guardian) started in the
 * initramfs keeps its old root, where those paths are empty afterwards. */
static int sys_class_fd = -1;

void takeover_init(void)
{
	if (sys_class_fd < 0)
		sys_class_fd = open("/sys/class", O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static int class_has_dev(const char *cls, dev_t rdev)
{
	char path[512], buf[64];
	struct dirent *e;
	int found = 0;
	takeover_init();
	int dfd =
	    sys_class_fd >= 0 ? openat(sys_class_fd, cls, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/dev", e->d_name);
		int fd = openat(dfd, path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = 0;
		unsigned ma, mi;
		if (sscanf(buf, "%u:%u", &ma, &mi) == 2 && makedev(ma, mi) == rdev)
			found = 1;
	}
	closedir(d);
	return found;
}

int node_is_kernel_tpm(dev_t rdev)
{
	return class_has_dev("tpm", rdev) || class_has_dev("tpmrm", rdev);
}

int node_restore(int dir, const char *name, char *err, size_t errlen)
{
	char real[512], node[512];
	struct stat st;
	snprintf(real, sizeof real, "%s.real", name);
	snprintf(node, sizeof node, "%s", name);
	if (fstatat(dir, real, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", real, strerror(errno));
		return -errno;
	}
	if (!S_ISCHR(st.st_mode) || !node_is_kernel_tpm(st.st_rdev)) {
		/* Before the swap NAME.real is the CUSE node itself; the kernel
		 * removes it with the CUSE device. Anything else is not ours. */
		if (S_ISCHR(st.st_mode) && class_has_dev("cuse", st.st_rdev))
			return 0;
		if (S_ISCHR(st.st_mode) && sys_class_fd < 0 && major(st.st_rdev) != 0) {
			/* No sysfs to ask (an early initramfs): a leftover
			 * NAME.real is only ever the kernel's node once the
			 * CUSE device is gone. */
		} else {
			snprintf(err, errlen,
				 "%s is not a kernel TPM device node (%u:%u); not restoring it",
				 real, major(st.st_rdev), minor(st.st_rdev));
			return -EEXIST;
		}
	}
	if (renameat(dir, real, dir, node) != 0) {
		int e = errno;
		if (e == ENOENT)
			return 0; /* someone else (proxy or guardian) was first */
		snprintf(err, errlen, "cannot rename %s to %s: %s", real, node, strerror(e));
		return -e;
	}
	return 1;
}

int node_restore_all(int dir, char *err, size_t errlen)
{
	int dfd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *e;
	int restored = 0, rc = 0;
	if (!d) {
		snprintf(err, errlen, "device directory: %s", strerror(errno));
		if (dfd >= 0)
			close(dfd);
		return -errno;
	}
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n <= 5 || strcmp(e->d_name + n - 5, ".real") != 0)
			continue;
		char name[256];
		snprintf(name, sizeof name, "%.*s", (int)(n - 5), e->d_name);
		int r = node_restore(dir, name, err, errlen);
		if (r < 0)
			rc = r;
		else
			restored += r;
	}
	closedir(d);
	return rc ? rc : restored;
}

int node_takeover(int dir, const char *name, int mode, long uid, long gid, char *err, size_t errlen)
{
	char real[512], node[512];
	struct stat st_node, st_cuse;
	snprintf(node, sizeof node, "%s", name);
	snprintf(real, sizeof real, "%s.real", name);

	if (fstatat(dir, node, &st_node, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISCHR(st_node.st_mode)) {
		snprintf(err, errlen, "%s is not a character device", node);
		return -ENODEV;
	}
	/* The CUSE node appears asynchronously on systems where udev, not
	 * devtmpfs, makes nodes. */
	for (int i = 0; i < 500; i++) {
		if (fstatat(dir, real, &st_cuse, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISCHR(st_cuse.st_mode))
			break;
		usleep(10000);
	}
	if (fstatat(dir, real, &st_cuse, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISCHR(st_cuse.st_mode)) {
		snprintf(err, errlen, "the CUSE node %s did not appear", real);
		return -ENOENT;
	}
	if (fchmodat(dir, real, mode >= 0 ? (mode_t)mode : st_node.st_mode & 07777, 0) != 0 ||
	    fchownat(dir, real, uid >= 0 ? (uid_t)uid : st_node.st_uid,
		     gid >= 0 ? (gid_t)gid : st_node.st_gid, AT_SYMLINK_NOFOLLOW) != 0) {
		snprintf(err, errlen, "cannot set mode/owner of %s: %s", real, strerror(errno));
		return -errno;
	}
	if (renameat2(dir, real, dir, node, RENAME_EXCHANGE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS) {
		snprintf(err, errlen, "cannot exchange %s and %s: %s", real, node, strerror(errno));
		return -errno;
	}
	/* No RENAME_EXCHANGE on this file system: three renames, a short gap. */
	char swap[520];
	snprintf(swap, sizeof swap, "%s.swap", node);
	if (renameat(dir, node, dir, swap) != 0 || renameat(dir, real, dir, node) != 0 ||
	    renameat(dir, swap, dir, real) != 0) {
		int e = errno;
		snprintf(err, errlen, "cannot move %s aside: %s", node, strerror(e));
		if (faccessat(dir, node, F_OK, 0) != 0 && faccessat(dir, swap, F_OK, 0) == 0)
			renameat(dir, swap, dir, node);
		return -e;
	}
	return 0;
}

int guardian_start(int dir, const char *name)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		return -e;
	}
	if (pid == 0) {
		/* Holds nothing but the pipe and the two directories: no TPM, no
		 * CUSE, no database. */
		char err[600], c;
		int maxfd = (int)sysconf(_SC_OPEN_MAX);
		for (int fd = 3; fd < maxfd && fd < 4096; fd++)
			if (fd != p[0] && fd != dir && fd != sys_class_fd)
				close(fd);
		signal(SIGTERM, SIG_IGN);
		signal(SIGINT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		prctl(PR_SET_NAME, "tpm-cuse-guard");
		for (;;) {
			ssize_t n = read(p[0], &c, 1);
			if (n == 0 || (n < 0 && errno != EINTR))
				break;
		}
		int rc = node_restore(dir, name, err, sizeof err);
		if (rc > 0)
			fprintf(stderr, "tpm-cuse-proxy: guardian: proxy gone, restored %s\n",
				name);
		else if (rc < 0)
			fprintf(stderr, "tpm-cuse-proxy: guardian: %s\n", err);
		_exit(rc < 0 ? 1 : 0);
	}
	close(p[0]);
	return p[1];
}
