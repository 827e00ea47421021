/* ftrace function_graph text: see recorder/import/ftrace.h. */
#include "recorder/import/ftrace.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/tpm/decode.h"
#include "model/policy.h"
#include "model/profile.h"
#include "model/tpm/tpm_cc.h"

/* Kernel functions that send one TPM command (drivers/char/tpm/tpm2-cmd.c,
 * tpm2-space.c, tpm2-sessions.c, security/keys/trusted-keys/trusted_tpm2.c). */
static const struct {
	const char *fn;
	uint32_t cc;
	uint8_t variant; /* enum pol_variant: the replayer's and predict's words */
} ftrace_fns[] = {
    {"tpm2_pcr_extend", TPM_CC_PCR_Extend, POL_VAR_NONE},
    {"tpm2_pcr_read", TPM_CC_PCR_Read, POL_VAR_NONE},
    {"tpm2_get_random", TPM_CC_GetRandom, POL_VAR_NONE},
    {"tpm2_start_auth_session", TPM_CC_StartAuthSession, POL_VAR_SALTED_ECC},
    {"tpm2_load_context", TPM_CC_ContextLoad, POL_VAR_NONE},
    {"tpm2_save_context", TPM_CC_ContextSave, POL_VAR_NONE},
    {"tpm2_flush_context", TPM_CC_FlushContext, POL_VAR_NONE},
    {"tpm2_read_public", TPM_CC_ReadPublic, POL_VAR_NONE},
    {"tpm2_create_primary", TPM_CC_CreatePrimary, POL_VAR_ECC_P256},
    {"tpm2_create_null_primary", TPM_CC_CreatePrimary, POL_VAR_ECC_P256},
    {"tpm2_get_tpm_pt", TPM_CC_GetCapability, POL_VAR_NONE},
    {"tpm2_get_cc_attrs_tbl", TPM_CC_GetCapability, POL_VAR_NONE},
    {"tpm2_get_pcr_allocation", TPM_CC_GetCapability, POL_VAR_NONE},
    {"tpm2_probe", TPM_CC_GetCapability, POL_VAR_NONE},
    {"tpm2_shutdown", TPM_CC_Shutdown, POL_VAR_NONE},
    {"tpm2_startup", TPM_CC_Startup, POL_VAR_NONE},
    {"tpm2_do_selftest", TPM_CC_SelfTest, POL_VAR_NONE},
    {"tpm2_seal_trusted", TPM_CC_Create, POL_VAR_NONE},
    {"tpm2_load_cmd", TPM_CC_Load, POL_VAR_NONE},
    {"tpm2_unseal_cmd", TPM_CC_Unseal, POL_VAR_NONE},
};
#define N_FTRACE_FNS (sizeof ftrace_fns / sizeof ftrace_fns[0])

const char *ftrace_fn_name(size_t i, uint32_t *cc)
{
	if (i >= N_FTRACE_FNS)
		return NULL;
	if (cc)
		*cc = ftrace_fns[i].cc;
	return ftrace_fns[i].fn;
}

static int ftrace_fn(const char *name)
{
	for (size_t i = 0; i < N_FTRACE_FNS; i++)
		if (!strcmp(name, ftrace_fns[i].fn))
			return (int)i;
	return -1;
}

static int is_transmit(const char *name)
{
	return !strcmp(name, "tpm_transmit_cmd") || !strcmp(name, "tpm_transmit") ||
	       !strcmp(name, "tpm_try_transmit");
}

/* Who a transmission is for (struct ftrace_op: user, hwrng): user space's
 * commands go through tpm_dev_transmit (tpm-dev-common.c; static, so its
 * callers are named too in case it is inlined), the kernel's hwrng reads
 * through tpm_hwrng_read (tpm-chip.c); the kernel's own flush of its session
 * before a user command is tpm2_end_auth_session (tpm2-sessions.c). */
static const char *const user_fns[] = {"tpm_dev_transmit", "tpm_common_write",
				       "tpm_dev_async_work"};
#define FN_HWRNG    "tpm_hwrng_read"
#define FN_KEND	    "tpm2_end_auth_session"
#define FN_TRANSMIT "tpm_transmit,tpm_transmit_cmd"

static int is_user_fn(const char *name)
{
	for (size_t i = 0; i < sizeof user_fns / sizeof user_fns[0]; i++)
		if (!strcmp(name, user_fns[i]))
			return 1;
	return 0;
}

const char *ftrace_guest_cmdline(void)
{
	static char line[1024];
	if (line[0])
		return line;
	size_t n = (size_t)snprintf(line, sizeof line,
				    "ftrace=function_graph trace_options=funcgraph-abstime "
				    "ftrace_filter=" FN_TRANSMIT "," FN_HWRNG "," FN_KEND);
	for (size_t i = 0; i < sizeof user_fns / sizeof user_fns[0] && n < sizeof line; i++)
		n += (size_t)snprintf(line + n, sizeof line - n, ",%s", user_fns[i]);
	for (size_t i = 0; i < N_FTRACE_FNS && n < sizeof line; i++)
		n += (size_t)snprintf(line + n, sizeof line - n, ",%s", ftrace_fns[i].fn);
	return line;
}

/* Functions that mean an HMAC session is in use for the enclosing command. */
static int is_session_fn(const char *name)
{
	return !strcmp(name, "tpm2_start_auth_session") || strstr(name, "hmac_session") ||
	       strstr(name, "hmac_response");
}

#define FT_CPUS	    4096 /* CPU numbers taken: 0..4095 (kernel NR_CPUS is at most 8192) */
#define FT_DEPTH    64
#define FT_MAX_SEC  9000000000ull /* abstime seconds: t_ns stays far below INT64_MAX */
#define FT_LINE_MAX 1024

struct ft_frame {
	char name[64];
	int fn;		/* index in ftrace_fns or -1 */
	int had_sample; /* a TPM command was timed inside */
	int session;	/* an HMAC session was set up inside */
	int has_time;
	uint64_t t_ns; /* funcgraph-abstime of the opening line */
};

struct ft_cpu {
	struct ft_frame f[FT_DEPTH];
	int depth;
};

/* Tasks seen in context-switch lines ("0) a-1 => b-2"): each task keeps its
 * own call stack, so that a task that sleeps inside a traced function (the
 * TPM driver waits for the chip, the hwrng for the driver's lock) and the one
 * that runs meanwhile on the same CPU do not nest into each other. A task
 * with no open frame needs no stack: its entry is reused (a boot has far more
 * tasks than ever wait at once). */
#define FT_TASKS 64
struct ft_task {
	char name[48];
	struct ft_cpu st;
};
struct ft_tasks {
	struct ft_task t[FT_TASKS];
	int cur[FT_CPUS]; /* the running task's entry + 1 per CPU; 0: the CPU's own stack */
};

static void ft_trim(char *s, size_t n, const char *from, const char *to)
{
	while (from < to && isspace((unsigned char)*from))
		from++;
	while (to > from && isspace((unsigned char)to[-1]))
		to--;
	size_t l = (size_t)(to - from) < n - 1 ? (size_t)(to - from) : n - 1;
	memcpy(s, from, l);
	s[l] = 0;
}

/* The entry of task name, or a free one (no open frame, not running)
 * named so, or NULL. */
static struct ft_task *ft_task_get(struct ft_tasks *k, const char *name)
{
	struct ft_task *free_one = NULL;
	for (int i = 0; i < FT_TASKS; i++) {
		struct ft_task *t = &k->t[i];
		if (t->name[0] && !strcmp(t->name, name))
			return t;
		if (!free_one && !t->st.depth) {
			int running = 0;
			for (int c = 0; c < FT_CPUS && !running; c++)
				running = k->cur[c] == i + 1;
			if (!running)
				free_one = t;
		}
	}
	if (free_one)
		snprintf(free_one->name, sizeof free_one->name, "%s", name);
	return free_one;
}

/* "CPU) FROM => TO": what is open on the CPU so far is FROM's; TO runs next. */
static void ft_switch(struct ft_tasks *k, struct ft_cpu **cpus, const char *s)
{
	char *e;
	const char *arrow = strstr(s, "=>");
	long cpu = strtol(s, &e, 10);
	if (!arrow || e == s || *e != ')' || cpu < 0 || cpu >= FT_CPUS)
		return;
	char from[48], to[48];
	ft_trim(from, sizeof from, e + 1, arrow);
	ft_trim(to, sizeof to, arrow + 2, arrow + strlen(arrow));
	if (!k->cur[cpu] && cpus[cpu] && cpus[cpu]->depth) {
		/* Frames opened before the first switch seen: FROM's. */
		struct ft_task *a = ft_task_get(k, from);
		if (a && !a->st.depth) {
			a->st = *cpus[cpu];
			cpus[cpu]->depth = 0;
		}
	}
	k->cur[cpu] = 0;
	struct ft_task *b = ft_task_get(k, to);
	k->cur[cpu] = b ? (int)(b - k->t) + 1 : 0;
}

/* A transmission already open on this CPU: the one timed is the outermost. */
static int inside_transmit(const struct ft_cpu *c)
{
	for (int d = 0; d < c->depth; d++)
		if (is_transmit(c->f[d].name))
			return 1;
	return 0;
}

struct ft_parse {
	int (*op)(void *ctx, const struct ftrace_op *o);
	void *ctx;
	struct ftrace_stats *st;
	int transmit_only; /* ftrace_parse_transmissions */
};

/* Emits an operation for the innermost command function on the stack (or fn
 * itself when fn >= 0 is a leaf). */
static int ft_sample(struct ft_parse *p, struct ft_cpu *c, int cpu, int fn, int session, double ms,
		     unsigned line, int has_time, uint64_t t_ns)
{
	struct ftrace_op o = {.ms = ms, .cpu = cpu, .line = line, .auth = TPM_AUTH_NONE};
	int idx = fn;
	for (int d = c->depth - 1; idx < 0 && d >= 0; d--)
		if (c->f[d].fn >= 0) {
			idx = c->f[d].fn;
			session |= c->f[d].session;
		}
	for (int d = 0; d < c->depth; d++) {
		c->f[d].had_sample = 1;
		if (is_user_fn(c->f[d].name))
			o.user = 1;
		else if (!strcmp(c->f[d].name, FN_HWRNG))
			o.hwrng = 1;
	}
	for (int d = 0; d < c->depth && o.user; d++)
		if (!strcmp(c->f[d].name, FN_KEND))
			o.user = 0;
	if (has_time) {
		o.has_time = 1;
		o.t_start_ns = t_ns;
	}
	if (idx >= 0) {
		uint32_t cc = ftrace_fns[idx].cc;
		const struct tpm_cc_info *ci = tpm_cc_lookup(cc);
		o.cc = cc;
		o.fn = ftrace_fns[idx].fn;
		o.variant = tpm_variant_str(ftrace_fns[idx].variant);
		o.auth = ci && ci->auth_handles ? TPM_AUTH_PASSWORD : TPM_AUTH_NONE;
		if (session && (cc == TPM_CC_PCR_Extend || cc == TPM_CC_Load))
			o.auth = TPM_AUTH_HMAC;
		else if (session &&
			 (cc == TPM_CC_GetRandom || cc == TPM_CC_Create || cc == TPM_CC_Unseal))
			o.auth = TPM_AUTH_HMAC_ENC; /* the kernel encrypts these (tpm2-cmd.c) */
	} else {
		p->st->unattributed++;
	}
	p->st->ops++;
	return p->op ? p->op(p->ctx, &o) : 0;
}

static int ft_bad(char *err, size_t errlen, const char *path, unsigned line, const char *what)
{
	snprintf(err, errlen, "%s:%u: %s", path, line, what);
	return -EINVAL;
}

/* funcgraph-abstime: "  190.412307 |   1) ...": seconds.micros, then a bar.
 * Returns 1 with *t_ns, 0 if there is none, -1 if it is beyond FT_MAX_SEC. */
static int ft_abstime(const char *s, uint64_t *t_ns)
{
	const char *q = s;
	uint64_t sec = 0, frac = 0;
	int dsec = 0, dfrac = 0;
	while (isdigit((unsigned char)*q) && dsec < 12) {
		sec = sec * 10 + (uint64_t)(*q++ - '0');
		dsec++;
	}
	if (!dsec || *q++ != '.')
		return 0;
	while (isdigit((unsigned char)*q) && dfrac < 9) {
		frac = frac * 10 + (uint64_t)(*q++ - '0');
		dfrac++;
	}
	if (!dfrac || !isspace((unsigned char)*q))
		return 0;
	while (isspace((unsigned char)*q))
		q++;
	if (*q != '|')
		return 0;
	for (int i = dfrac; i < 9; i++)
		frac *= 10;
	if (sec > FT_MAX_SEC)
		return -1;
	*t_ns = sec * 1000000000ull + frac;
	return 1;
}

/* The CPU of a line: the first "N)" before the bar. One that cannot be a
 * CPU is an error: folded into CPU 0 it would mix the nesting of several
 * CPUs. */
static int ft_line_cpu(const char *s, int *cpu, char *err, size_t errlen, const char *path,
		       unsigned lineno)
{
	*cpu = 0;
	for (const char *q = s; *q; q++) {
		if (isdigit((unsigned char)*q) && (q == s || !isalnum((unsigned char)q[-1]))) {
			char *e;
			errno = 0;
			long v = strtol(q, &e, 10);
			if (*e == ')') {
				if (errno || v >= FT_CPUS || (q > s && q[-1] == '-')) {
					char msg[128], num[24];
					snprintf(num, sizeof num, "%.*s", (int)(e - q), q);
					snprintf(
					    msg, sizeof msg, "CPU %s%s is not one (0 to %d taken)",
					    q > s && q[-1] == '-' ? "-" : "", num, FT_CPUS - 1);
					return ft_bad(err, errlen, path, lineno, msg);
				}
				*cpu = (int)v;
				break;
			}
		}
	}
	return 0;
}

/* The duration of a line: "[+!#*@$] 123.45 us" before the bar; NAN if there
 * is none. */
static int ft_line_ms(const char *s, double *ms_out, char *err, size_t errlen, const char *path,
		      unsigned lineno)
{
	double ms = NAN;
	const char *unit = strstr(s, " us");
	double scale = 1e-3;
	*ms_out = NAN;
	if (!unit) {
		unit = strstr(s, " ms");
		scale = 1;
	}
	if (unit && (unit[3] == 0 || isspace((unsigned char)unit[3]))) {
		const char *sp = unit;
		while (sp > s && !isspace((unsigned char)sp[-1]))
			sp--;
		char num[48];
		size_t nlen = (size_t)(unit - sp);
		char *e;
		if (nlen == 0 || nlen >= sizeof num)
			return ft_bad(err, errlen, path, lineno, "duration without a number");
		memcpy(num, sp, nlen);
		num[nlen] = 0;
		errno = 0;
		double v = strtod(num, &e);
		if (*e || errno || !isfinite(v)) {
			char msg[128];
			snprintf(msg, sizeof msg, "duration '%s' is not a number", num);
			return ft_bad(err, errlen, path, lineno, msg);
		}
		ms = v * scale;
		if (ms < 0 || ms > PROFILE_MAX_MS) {
			char msg[128];
			snprintf(msg, sizeof msg, "duration %s %s is %s", num,
				 scale == 1 ? "ms" : "us",
				 ms < 0 ? "negative" : "absurd (over 10 minutes)");
			return ft_bad(err, errlen, path, lineno, msg);
		}
	}
	*ms_out = ms;
	return 0;
}

/* A closing line: the duration belongs to the frame being closed. Output
 * that starts inside a call closes frames it never opened. */
static int ft_close(struct ft_parse *p, struct ft_cpu *c, int cpu, double ms, unsigned lineno,
		    int has_time, uint64_t t_ns)
{
	if (!c->depth)
		return 0;
	struct ft_frame fr = c->f[--c->depth];
	if (isnan(ms))
		return 0;
	/* The start: the opening line's time, else the close's minus the
	 * duration. */
	uint64_t dur = (uint64_t)llround(ms * 1e6);
	uint64_t t0 = fr.has_time ? fr.t_ns : t_ns >= dur ? t_ns - dur : 0;
	int ht = fr.has_time || has_time;
	if (is_transmit(fr.name)) {
		if (!inside_transmit(c) && !fr.had_sample)
			return ft_sample(p, c, cpu, -1, 0, ms, lineno, ht, t0);
	} else if (fr.fn >= 0 && !fr.had_sample && !p->transmit_only) {
		return ft_sample(p, c, cpu, fr.fn, fr.session, ms, lineno, ht, t0);
	}
	return 0;
}

static int ft_parse(const char *buf, size_t len, const char *path,
		    int (*op)(void *ctx, const struct ftrace_op *o), void *ctx,
		    struct ftrace_stats *st, char *err, size_t errlen, int transmit_only)
{
	struct ftrace_stats dummy;
	struct ft_parse p = {
	    .op = op, .ctx = ctx, .st = st ? st : &dummy, .transmit_only = transmit_only};
	char line[FT_LINE_MAX];
	unsigned lineno = 0;
	struct ft_cpu **cpus = NULL; /* made for a CPU when it first appears */
	struct ft_tasks *tasks = NULL;
	int rc = 0;

	memset(p.st, 0, sizeof *p.st);
	if (len && memchr(buf, 0, len))
		return ft_bad(err, errlen, path, 1, "binary data, not ftrace text");
	cpus = calloc(FT_CPUS, sizeof *cpus);
	tasks = calloc(1, sizeof *tasks);
	if (!cpus || !tasks) {
		free(cpus);
		free(tasks);
		return -ENOMEM;
	}
	for (size_t off = 0; off < len;) {
		const char *l = buf + off;
		const char *nl = memchr(l, '\n', len - off);
		size_t n = nl ? (size_t)(nl - l) : len - off;
		off += n + (nl ? 1 : 0);
		lineno++;
		if (n >= sizeof line) {
			rc = ft_bad(err, errlen, path, lineno, "line longer than 1023 characters");
			goto out;
		}
		memcpy(line, l, n);
		line[n] = 0;
		char *s = line;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s || *s == '#')
			continue;
		char *bar = strrchr(s, '|');
		if (!bar) {
			/* Context switches ("1) a-1 => b-2"), separators, irq marks. */
			if (strstr(s, "=====>") || strstr(s, "<=====") || *s == '-')
				continue;
			if (strstr(s, "=>")) {
				ft_switch(tasks, cpus, s);
				continue;
			}
			rc = ft_bad(err, errlen, path, lineno,
				    "not a function_graph line (expected 'CPU) DURATION | "
				    "function')");
			goto out;
		}
		uint64_t t_ns = 0;
		int has_time = ft_abstime(s, &t_ns);
		if (has_time < 0) {
			char msg[128], ts[32];
			snprintf(ts, sizeof ts, "%.*s", (int)strcspn(s, " |"), s);
			snprintf(msg, sizeof msg, "timestamp %s is beyond %llu seconds", ts,
				 (unsigned long long)FT_MAX_SEC);
			rc = ft_bad(err, errlen, path, lineno, msg);
			goto out;
		}
		if (has_time)
			s = strchr(s, '|') + 1;
		bar = strrchr(s, '|');
		if (!bar) {
			rc = ft_bad(err, errlen, path, lineno,
				    "a timestamp but no 'CPU) DURATION | function' after it");
			goto out;
		}
		*bar = 0;
		char *fn = bar + 1;
		while (isspace((unsigned char)*fn))
			fn++;
		size_t fl = strlen(fn);
		while (fl && isspace((unsigned char)fn[fl - 1]))
			fn[--fl] = 0;
		int cpu;
		if ((rc = ft_line_cpu(s, &cpu, err, errlen, path, lineno)))
			goto out;
		double ms;
		if ((rc = ft_line_ms(s, &ms, err, errlen, path, lineno)))
			goto out;
		if (!cpus[cpu] && !(cpus[cpu] = calloc(1, sizeof **cpus))) {
			rc = -ENOMEM;
			goto out;
		}
		struct ft_cpu *c = tasks->cur[cpu] ? &tasks->t[tasks->cur[cpu] - 1].st : cpus[cpu];
		size_t nmlen = strcspn(fn, "(");
		char name[64];
		if (fn[0] == '}') {
			if ((rc = ft_close(&p, c, cpu, ms, lineno, has_time, t_ns)))
				goto out;
			continue;
		}
		if (fn[0] == '/' || !fn[0] || nmlen == 0 || nmlen >= sizeof name || !fn[nmlen])
			continue; /* trace_printk comments and the like */
		memcpy(name, fn, nmlen);
		name[nmlen] = 0;
		int leaf = strstr(fn + nmlen, ");") != NULL;
		int open = !leaf && strchr(fn + nmlen, '{') != NULL;
		if (is_session_fn(name))
			for (int d = 0; d < c->depth; d++)
				c->f[d].session = 1;
		if (open) {
			if (c->depth == FT_DEPTH) {
				rc = ft_bad(err, errlen, path, lineno,
					    "calls nested deeper than 64");
				goto out;
			}
			struct ft_frame *fr = &c->f[c->depth++];
			memset(fr, 0, sizeof *fr);
			strcpy(fr->name, name);
			fr->fn = ftrace_fn(name);
			fr->has_time = has_time;
			fr->t_ns = t_ns;
			continue;
		}
		if (!leaf || isnan(ms))
			continue;
		/* A leaf line carries the time the function was entered. */
		int fi;
		if (is_transmit(name)) {
			if (!inside_transmit(c))
				rc = ft_sample(&p, c, cpu, -1, 0, ms, lineno, has_time, t_ns);
		} else if ((fi = ftrace_fn(name)) >= 0 && !p.transmit_only) {
			rc = ft_sample(&p, c, cpu, fi, 0, ms, lineno, has_time, t_ns);
		}
		if (rc)
			goto out;
	}
out:
	p.st->lines = lineno;
	for (int i = 0; i < FT_CPUS; i++)
		free(cpus[i]);
	free(cpus);
	free(tasks);
	return rc;
}

int ftrace_parse_mem(const char *buf, size_t len, const char *path,
		     int (*op)(void *ctx, const struct ftrace_op *o), void *ctx,
		     struct ftrace_stats *st, char *err, size_t errlen)
{
	return ft_parse(buf, len, path, op, ctx, st, err, errlen, 0);
}

int ftrace_parse_transmissions(const char *buf, size_t len, const char *path,
			       int (*op)(void *ctx, const struct ftrace_op *o), void *ctx,
			       struct ftrace_stats *st, char *err, size_t errlen)
{
	return ft_parse(buf, len, path, op, ctx, st, err, errlen, 1);
}
