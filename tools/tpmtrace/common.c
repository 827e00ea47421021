#include "common.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "db/db.h"

sqlite3 *cli_open_db(const char *sub, const char *path, int write)
{
	sqlite3 *db;
	char err[512];
	if (db_open(path, write ? DB_WRITE : DB_READ, &db, err, sizeof err)) {
		die(sub, "%s", err);
		return NULL;
	}
	return db;
}

int64_t cli_pick_trace(const char *sub, sqlite3 *db, const char *arg)
{
	if (!arg) {
		int64_t id = db_last_trace(db);
		if (!id)
			die(sub, "the database holds no trace");
		return id;
	}
	char *end;
	long long id = strtoll(arg, &end, 10);
	if (!*arg || *end || id <= 0) {
		die(sub, "--trace takes a trace id (see 'tpmtrace list'), not '%s'", arg);
		return 0;
	}
	sqlite3_stmt *st;
	int found = 0;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM trace WHERE id=?", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		found = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
	}
	if (!found) {
		die(sub, "no trace %lld in this database (see 'tpmtrace list')", id);
		return 0;
	}
	return id;
}

void json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Length of the UTF-8 sequence at s that a terminal shows as text (not a C1
 * control), or 0. */
static size_t utf8_text(const unsigned char *s)
{
	size_t n = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
	if (!n || (s[0] == 0xC2 && s[1] >= 0x80 && s[1] <= 0x9F))
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	return n;
}

const char *safe_text(const char *s, char *buf, size_t len)
{
	size_t o = 0;
	if (!len)
		return buf;
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
		char tmp[8];
		size_t n, adv = 1;
		if (*p == '\\') {
			memcpy(tmp, "\\\\", 2);
			n = 2;
		} else if (*p >= 0x20 && *p < 0x7F) {
			tmp[0] = (char)*p;
			n = 1;
		} else if (*p >= 0x80 && (adv = utf8_text(p)) != 0) {
			memcpy(tmp, p, adv);
			n = adv;
		} else {
			snprintf(tmp, sizeof tmp, "\\x%02x", *p);
			n = 4;
			adv = 1;
		}
		if (o + n + 4 > len) {
			snprintf(buf + o, len - o, "%s", len - o > 3 ? "..." : "");
			return buf;
		}
		memcpy(buf + o, tmp, n);
		o += n;
		p += adv;
	}
	buf[o] = 0;
	return buf;
}

void print_safe(FILE *f, const char *s)
{
	char buf[4096];
	fputs(safe_text(s, buf, sizeof buf), f);
}

double ns_to_ms(double ns)
{
	return ns / 1e6;
}

void progress_init(struct progress *p, const char *what, const char *unit, int allowed)
{
	const char *ci = getenv("CI");
	memset(p, 0, sizeof *p);
	p->what = what;
	p->unit = unit;
	p->enabled = allowed && isatty(2) && !(ci && *ci && strcmp(ci, "false") && strcmp(ci, "0"));
	p->t_start = mono_ns();
}

void progress_update(struct progress *p, uint64_t done, uint64_t total)
{
	if (!p->enabled)
		return;
	uint64_t now = mono_ns();
	if (done < total && p->shown && now - p->t_last < 100000000ull)
		return;
	p->t_last = now;
	p->shown = 1;
	double secs = (double)(now - p->t_start) / 1e9;
	double rate = secs > 0 ? (double)done / secs : 0;
	int width = 30, fill = total ? (int)((double)done * width / (double)total) : 0;
	char bar[40], eta[32] = "--:--";
	for (int i = 0; i < width; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[width] = 0;
	if (rate > 0 && total >= done) {
		unsigned long left = (unsigned long)((double)(total - done) / rate + 0.5);
		snprintf(eta, sizeof eta, "%lu:%02lu", left / 60, left % 60);
	}
	fprintf(stderr, "\r%s [%s] %3d%% %llu/%llu %s, %.0f/s, ETA %s ", p->what, bar,
		total ? (int)(100.0 * (double)done / (double)total) : 0, (unsigned long long)done,
		(unsigned long long)total, p->unit, rate, eta);
	fflush(stderr);
}

void progress_done(struct progress *p)
{
	if (p->shown)
		fprintf(stderr, "\r%100s\r", "");
	p->shown = 0;
}

pid_t cli_spawn(const char *sub, char *const argv[], const sigset_t *mask, const char *tcti)
{
	pid_t pid = fork();
	if (pid < 0) {
		die(sub, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, mask, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (tcti) {
			setenv("TPM2TOOLS_TCTI", tcti, 1);
			setenv("TCTI", tcti, 1);
			setenv("TPMTRACE_TCTI", tcti, 1);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "tpmtrace %s: cannot run %s: %s\n", sub, argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

int cli_exit_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}
