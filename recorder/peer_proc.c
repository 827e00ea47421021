/* Who is at the other end, from /proc (recorder/peer_proc.h): the program
 * name comm was cut from, and the process holding the other end of a local
 * TCP connection (proc(5): /proc/net/tcp, /proc/PID/fd). */
#include "recorder/peer_proc.h"

#include "db/db.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define COMM_WHOLE 15 /* TASK_COMM_LEN - 1: a comm this long may be cut */

/* Reads up to len - 1 bytes of a /proc file; the count read (0 on error). */
static size_t read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got = 0;
	if (fd >= 0) {
		got = read(fd, buf, len - 1);
		close(fd);
	}
	if (got < 0)
		got = 0;
	buf[got] = 0;
	return (size_t)got;
}

static const char *base_of(const char *s)
{
	const char *b = strrchr(s, '/');
	return b ? b + 1 : s;
}

/* Whether cand is the name comm was cut from. */
static int extends(const char *cand, const char *comm)
{
	return strlen(cand) > COMM_WHOLE && !strncmp(cand, comm, COMM_WHOLE);
}

static void put_name(char *out, size_t len, const char *name, int cut)
{
	size_t n = strlen(name), mark = strlen(DB_NAME_CUT);
	if (len <= mark)
		return;
	if (n + 1 > len) {
		n = len - 1 - mark;
		cut = 1;
	}
	if (cut && n + mark + 1 > len)
		n = len - 1 - mark;
	/* never end inside a UTF-8 sequence */
	while (cut && n && ((unsigned char)name[n] & 0xC0) == 0x80)
		n--;
	snprintf(out, len, "%.*s%s", (int)n, name, cut ? DB_NAME_CUT : "");
}

void recorder_proc_name(pid_t pid, const char *comm, char *out, size_t len)
{
	char path[64], own[32], args[4096], exe[512];
	out[0] = 0;
	if (!comm) {
		snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
		read_small(path, own, sizeof own);
		own[strcspn(own, "\n")] = 0;
		comm = own;
	}
	if (strlen(comm) < COMM_WHOLE) {
		put_name(out, len, comm, 0);
		return;
	}
	/* argv[0] (a link's name: tpm2_createprimary, where exe is tpm2),
	 * then argv[1] (a script run by its interpreter), then the file. */
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	size_t n = read_small(path, args, sizeof args);
	for (size_t off = 0, k = 0; off < n && k < 2; k++) {
		const char *a = base_of(args + off);
		if (extends(a, comm)) {
			put_name(out, len, a, 0);
			return;
		}
		off += strlen(args + off) + 1;
	}
	snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
	ssize_t l = readlink(path, exe, sizeof exe - 1);
	if (l > 0) {
		exe[l] = 0;
		char *del = strstr(exe, " (deleted)");
		if (del && !del[10])
			*del = 0;
		if (extends(base_of(exe), comm)) {
			put_name(out, len, base_of(exe), 0);
			return;
		}
	}
	put_name(out, len, comm, 1);
}

/* ---- the process at the other end of a local TCP connection ---- */

/* An address as /proc/net/tcp prints it: the 32-bit words in memory order,
 * each %08X, and the port %04X. */
static void proc_addr(const void *a, size_t words, unsigned port, char *out, size_t len)
{
	size_t o = 0;
	for (size_t i = 0; i < words; i++) {
		uint32_t w;
		memcpy(&w, (const uint8_t *)a + 4 * i, 4);
		o += (size_t)snprintf(out + o, len - o, "%08X", (unsigned)w);
	}
	snprintf(out + o, len - o, ":%04X", port);
}

/* The inode and uid of the socket whose local end is want_l and remote end
 * want_r in file (/proc/net/tcp or tcp6). 0 if there is none. */
static unsigned long socket_inode(const char *file, const char *want_l, const char *want_r,
				  uid_t *uid)
{
	FILE *f = fopen(file, "re");
	char line[512], l[64], r[64];
	unsigned long ino = 0, u;
	if (!f)
		return 0;
	while (!ino && fgets(line, sizeof line, f))
		if (sscanf(line, " %*u: %63s %63s %*x %*s %*s %*s %lu %*d %lu", l, r, &u, &ino) !=
			4 ||
		    strcmp(l, want_l) || strcmp(r, want_r))
			ino = 0;
		else
			*uid = (uid_t)u;
	fclose(f);
	return ino;
}

/* Whether process pid holds the socket (its target "socket:[INODE]"). */
static int holds(const char *pid, const char *target, unsigned long *budget)
{
	char path[300], link[64];
	snprintf(path, sizeof path, "/proc/%s/fd", pid);
	DIR *d = opendir(path);
	struct dirent *e;
	int found = 0;
	if (!d)
		return 0;
	while (!found && *budget && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		(*budget)--;
		snprintf(path, sizeof path, "/proc/%s/fd/%s", pid, e->d_name);
		ssize_t n = readlink(path, link, sizeof link - 1);
		if (n > 0) {
			link[n] = 0;
			found = !strcmp(link, target);
		}
	}
	closedir(d);
	return found;
}

static int is_local(const struct sockaddr_storage *peer, const struct sockaddr_storage *self)
{
	if (peer->ss_family == AF_INET) {
		const struct sockaddr_in *p = (const void *)peer, *s = (const void *)self;
		return (ntohl(p->sin_addr.s_addr) >> 24) == 127 ||
		       p->sin_addr.s_addr == s->sin_addr.s_addr;
	}
	const struct sockaddr_in6 *p = (const void *)peer, *s = (const void *)self;
	return IN6_IS_ADDR_LOOPBACK(&p->sin6_addr) ||
	       !memcmp(&p->sin6_addr, &s->sin6_addr, sizeof p->sin6_addr);
}

/* An IPv4 address seen through an IPv6 socket (::ffff:a.b.c.d) as IPv4:
 * /proc/net/tcp lists the peer's socket there. */
static void unmap_v4(struct sockaddr_storage *a)
{
	struct sockaddr_in6 *s6 = (void *)a;
	if (a->ss_family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
		return;
	struct sockaddr_in s4 = {.sin_family = AF_INET, .sin_port = s6->sin6_port};
	memcpy(&s4.sin_addr, s6->sin6_addr.s6_addr + 12, 4);
	memset(a, 0, sizeof *a);
	memcpy(a, &s4, sizeof s4);
}

static void proc_form(const struct sockaddr_storage *a, char *out, size_t len)
{
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *s = (const void *)a;
		proc_addr(&s->sin_addr, 1, ntohs(s->sin_port), out, len);
	} else {
		const struct sockaddr_in6 *s = (const void *)a;
		proc_addr(&s->sin6_addr, 4, ntohs(s->sin6_port), out, len);
	}
}

static int newest_first(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x < y) - (x > y);
}

pid_t recorder_tcp_peer(int fd, uid_t *uid)
{
	/* The last process found first: a client that connects again and
	 * again (a connection per command) is found in its own descriptors. */
	static pid_t last;
	struct sockaddr_storage peer, self;
	socklen_t pl = sizeof peer, sl = sizeof self;
	char lp[64], ls[64], target[48], name[32];
	if (getpeername(fd, (struct sockaddr *)&peer, &pl) ||
	    getsockname(fd, (struct sockaddr *)&self, &sl))
		return 0;
	unmap_v4(&peer);
	unmap_v4(&self);
	if ((peer.ss_family != AF_INET && peer.ss_family != AF_INET6) ||
	    peer.ss_family != self.ss_family || !is_local(&peer, &self))
		return 0;
	/* The peer's socket: its local end is our remote one. */
	proc_form(&peer, lp, sizeof lp);
	proc_form(&self, ls, sizeof ls);
	unsigned long ino = socket_inode(
	    peer.ss_family == AF_INET ? "/proc/net/tcp" : "/proc/net/tcp6", lp, ls, uid);
	if (!ino)
		return 0;
	snprintf(target, sizeof target, "socket:[%lu]", ino);
	unsigned long budget = RECORDER_PEER_SCAN;
	if (last > 0) {
		snprintf(name, sizeof name, "%d", (int)last);
		if (holds(name, target, &budget))
			return last;
	}
	/* The newest processes first: the client that just connected was most
	 * likely started just now (a tpm2-tools command), so the descriptors of
	 * the host's long-running processes are rarely read. This runs on the
	 * proxy's loop, once per connection: the fewer read the better. */
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t found = 0, *pids = NULL;
	size_t n = 0, cap = 0;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0 || pid == getpid() || pid == last)
			continue;
		if (n == cap) {
			pid_t *np = realloc(pids, (cap = cap ? 2 * cap : 512) * sizeof *pids);
			if (!np)
				break;
			pids = np;
		}
		pids[n++] = (pid_t)pid;
	}
	closedir(d);
	qsort(pids, n, sizeof *pids, newest_first);
	for (size_t i = 0; i < n && !found && budget; i++) {
		struct stat st;
		/* the socket's owner's processes only (others' fds are closed
		 * to us unless we are root, and hold it only when passed) */
		snprintf(name, sizeof name, "/proc/%d", (int)pids[i]);
		if (stat(name, &st) || st.st_uid != *uid)
			continue;
		if (holds(name + 6, target, &budget))
			found = pids[i];
	}
	free(pids);
	if (found)
		last = found;
	return found;
}
