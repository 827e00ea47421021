/* Helpers shared by tpmtrace's subcommands (tools/tpmtrace/common.h): opening a
 * database and checking one to create (cli_open_db, cli_db_for_create), picking
 * a trace by the rule of docs/cli.md (cli_pick_trace, cli_trace_kind,
 * cli_trace_delete), db/out.h's outputs with their errors printed
 * (cli_out_check, cli_out_open, cli_out_close), progress bars on a terminal
 * only, running a child with a TCTI (cli_spawn, cli_exit_status), and small
 * formatters (cli_name, cli_ns_to_ms, db_text_wrap). */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "db/db.h"
#include "db/trace_kind.h"
#include "db/text.h"
#include "model/tpm/redact.h"
#include "model/tpm/tpm_cc.h"

sqlite3 *cli_open_db(const char *sub, const char *path, int write)
{
	sqlite3 *db;
	char err[512];
	if (db_open(path, write ? DB_WRITE : DB_READ, &db, err, sizeof err)) {
		cli_error(sub, "%s", err);
		return NULL;
	}
	return db;
}

int cli_db_for_create(const char *sub, const char *path)
{
	char err[4400];
	if (!db_check_create(path, err, sizeof err))
		return 0;
	return cli_error(sub, "%s", err);
}

int64_t cli_pick_trace(const char *sub, sqlite3 *db, const char *arg)
{
	char err[600], warn[400], lead[64];
	int64_t id = db_trace_pick(db, arg, err, sizeof err, warn, sizeof warn);
	if (!id)
		cli_error(sub, "%s", err);
	else if (warn[0]) {
		snprintf(lead, sizeof lead, "tpmtrace %s: warning: ", sub);
		db_text_wrap(stderr, lead, 2, warn, strlen(warn), DB_TEXT_WIDTH);
	}
	return id;
}

void cli_payloads_warn(const char *sub, int payloads, const char *db_path)
{
	if (payloads == PAYLOADS_FULL)
		fprintf(stderr,
			"tpmtrace %s: --payloads full: secrets (unsealed data, random bytes, "
			"passwords, sensitive areas) will be stored in %s\n",
			sub, cli_name(db_path));
}

int cli_trace_delete(const char *sub, const char *db_path, int64_t id)
{
	char err[512];
	if (!db_trace_delete(db_path, id, err, sizeof err))
		return 0;
	return cli_error(sub, "%s", err);
}

/* ---- outputs (db/out.h) ---- */

int cli_out_check(const char *sub, const char *path, const char *const *inputs)
{
	char err[sizeof((struct db_out *)0)->err];
	if (!db_out_check(path, inputs, err, sizeof err))
		return 0;
	fprintf(stderr, "tpmtrace %s: %s\nTry 'tpmtrace %s --help'.\n", sub, err, sub);
	return EXIT_USAGE;
}

int cli_out_open(const char *sub, struct db_out *o, const char *path, const char *const *inputs)
{
	int rc = db_out_open(o, path, inputs);
	if (rc == DB_OUT_REFUSED)
		fprintf(stderr, "tpmtrace %s: %s\nTry 'tpmtrace %s --help'.\n", sub, o->err, sub);
	else if (rc)
		cli_error(sub, "%s", o->err);
	return rc;
}

int cli_out_close(const char *sub, struct db_out *o, int ok)
{
	int rc = db_out_close(o, ok);
	if (rc && o->err[0])
		cli_error(sub, "%s", o->err);
	return rc;
}

int cli_out_fail(const char *sub, struct db_out *o, const char *path, const char *why)
{
	int we = db_out_write_error(o);
	db_out_close(o, 0);
	return cli_error(sub, "%s: %s", path, we ? strerror(we) : why);
}

const char *cli_name(const char *s)
{
	static char buf[4][1024];
	static unsigned next;
	char *b = buf[next++ % 4];
	return db_text_safe(s, b, sizeof buf[0]);
}

double cli_ns_to_ms(double ns)
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
	p->t_start = db_mono_ns();
}

void progress_update(struct progress *p, uint64_t done, uint64_t total)
{
	if (!p->enabled)
		return;
	uint64_t now = db_mono_ns();
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
		cli_error(sub, "fork: %s", strerror(errno));
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
