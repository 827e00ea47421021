/* Profile importers: ftrace function_graph text of the kernel's TPM functions
 * and tpm2-algtest / TPMScan performance.yaml. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/profile_derive.h"
#include "model/tpm/decode.h"
#include "model/tpm/params.h"
#include "recorder/import/ftrace.h"
#include "recorder/import/profile_import.h"
#include "model/tpm/tpm_cc.h"
#include "recorder/import/yaml.h"

static int read_all(const char *path, char **out, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	size_t n = 0, cap = 0;
	char *buf = NULL;
	int rc = 0;
	if (!f) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return rc;
	}
	for (;;) {
		if (n + 1 >= cap) {
			cap = cap ? cap * 2 : 65536;
			if (cap > (256u << 20)) {
				snprintf(err, errlen, "%s: larger than 256 MiB", path);
				rc = -EFBIG;
				break;
			}
			char *nb = realloc(buf, cap);
			if (!nb) {
				rc = -ENOMEM;
				break;
			}
			buf = nb;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		if (!got)
			break;
		n += got;
	}
	if (!rc && ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		rc = -EIO;
	}
	fclose(f);
	if (rc) {
		free(buf);
		return rc;
	}
	if (!buf && !(buf = malloc(1)))
		return -ENOMEM;
	buf[n] = 0;
	*out = buf;
	*len = n;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* Groups of samples keyed by (cc, auth, variant), in first-seen order. */
struct group {
	struct prof_entry e;
	double *v;
	size_t n, cap;
};

struct groups {
	struct group *g;
	size_t n, cap;
};

static int group_add(struct groups *gs, uint32_t cc, int auth, const char *variant, double ms)
{
	struct group *g = NULL;
	for (size_t i = 0; i < gs->n; i++)
		if (gs->g[i].e.cc == cc && gs->g[i].e.auth == auth &&
		    !strcmp(gs->g[i].e.variant, variant))
			g = &gs->g[i];
	if (!g) {
		if (gs->n == gs->cap) {
			size_t cap = gs->cap ? gs->cap * 2 : 16;
			struct group *ng = realloc(gs->g, cap * sizeof *ng);
			if (!ng)
				return -ENOMEM;
			gs->g = ng;
			gs->cap = cap;
		}
		g = &gs->g[gs->n++];
		memset(g, 0, sizeof *g);
		g->e.cc = cc;
		g->e.auth = (uint8_t)auth;
		snprintf(g->e.variant, sizeof g->e.variant, "%s", variant);
	}
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 64;
		double *nv = realloc(g->v, cap * sizeof *nv);
		if (!nv)
			return -ENOMEM;
		g->v = nv;
		g->cap = cap;
	}
	g->v[g->n++] = ms;
	return 0;
}

static void groups_free(struct groups *gs)
{
	for (size_t i = 0; i < gs->n; i++)
		free(gs->g[i].v);
	free(gs->g);
}

/* ---- ftrace function_graph (parser: recorder/import/ftrace.c) ---- */

struct ft_ctx {
	struct groups gs;
	unsigned unattributed;
};

static int ft_on_op(void *ctx, const struct ftrace_op *o)
{
	struct ft_ctx *x = ctx;
	if (!o->cc) {
		x->unattributed++;
		return 0;
	}
	return group_add(&x->gs, o->cc, o->auth, o->variant, o->ms);
}

int import_profile_ftrace(const char *path, struct profile *p, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len;
	struct ft_ctx x = {0};
	int rc;

	profile_init(p);
	if ((rc = read_all(path, &buf, &len, err, errlen)))
		return rc;
	if ((rc = ftrace_parse_mem(buf, len, path, ft_on_op, &x, NULL, err, errlen)))
		goto out;
	if (!x.gs.n) {
		snprintf(err, errlen,
			 "%s: no timed TPM commands found (expected tpm_transmit_cmd or tpm2_* "
			 "calls with durations)",
			 path);
		rc = -EINVAL;
		goto out;
	}
	char covers[1024] = "", tmp[256];
	for (size_t i = 0; i < x.gs.n; i++) {
		struct group *g = &x.gs.g[i];
		profile_entry_stats(&g->e, g->v, g->n);
		snprintf(tmp, sizeof tmp, "ftrace %s (%zu samples)", base_name(path), g->n);
		g->e.comment = tmp;
		char msg[200];
		if (profile_check_entry(&g->e, msg, sizeof msg) == 0 &&
		    (rc = profile_add(p, &g->e)))
			goto out;
		size_t cl = strlen(covers);
		snprintf(covers + cl, sizeof covers - cl, "%s%s/%s", cl ? " " : "",
			 tpm_cc_name(g->e.cc), profile_auth_str(g->e.auth));
	}
	snprintf(tmp, sizeof tmp, "ftrace-%s", base_name(path));
	if (strrchr(tmp, '.') && strrchr(tmp, '.') > tmp + 7)
		*strrchr(tmp, '.') = 0;
	profile_set(p, "name", tmp);
	snprintf(tmp, sizeof tmp, "ftrace function_graph output %s", base_name(path));
	profile_set(p, "source", tmp);
	profile_set(p, "covers", covers);
	profile_set(p, "note",
		    "Durations of tpm_transmit_cmd (bus, driver and TPM) attributed to the "
		    "enclosing tpm2_* function; transport is included, so transport-ms is 0.");
	if (x.unattributed) {
		snprintf(tmp, sizeof tmp,
			 "%u timed transmissions outside a known tpm2_* function were skipped",
			 x.unattributed);
		profile_set(p, "note", tmp);
	}
	rc = 0;
out:
	if (rc)
		profile_release(p);
	groups_free(&x.gs);
	free(buf);
	return rc;
}

/* ---- TPMScan / tpm2-algtest performance.yaml ---- */

/* A curve's profile token (model/tpm/tpm_ecc.def). */
static const char *curve_lookup(const char *s)
{
	char *e;
	unsigned long v = strtoul(s, &e, 0);
	if (*e || e == s || v > 0xFFFF)
		return NULL;
	return tpm_ecc_profile_name((uint16_t)v);
}

/* An algorithm's profile token (model/tpm/tpm_alg.def), for the class. */
static const char *alg_lookup(int class_, const char *s)
{
	char *e;
	unsigned long v = strtoul(s, &e, 0);
	if (*e || e == s || v > 0xFFFF)
		return NULL;
	return tpm_alg_profile_name((uint16_t)v, class_);
}

/* Appends a variant token: lower case, blanks become '-'. */
static void var_add(char *v, size_t len, const char *tok)
{
	size_t l = strlen(v);
	if (l && l + 1 < len)
		v[l++] = '.';
	for (const char *c = tok; *c && l + 1 < len; c++) {
		char ch = (char)tolower((unsigned char)*c);
		if (isspace((unsigned char)ch))
			ch = '-';
		if (isalnum((unsigned char)ch) || strchr("-_+", ch))
			v[l++] = ch;
	}
	v[l] = 0;
}

/* "ECC 0x0003" -> ecc-p256, "RSA 2048" -> rsa-2048, "SYMCIPHER 0x0006 128"
 * -> aes-128, bare "0x0003" (ECDH) -> ecc-p256. */
static void key_params(char *v, size_t len, const char *s)
{
	char a[32] = "", b[32] = "", c[32] = "", tok[96];
	int n = sscanf(s, "%31s %31s %31s", a, b, c);
	const char *curve;
	if (n >= 2 && !strcmp(a, "ECC") && (curve = curve_lookup(b))) {
		snprintf(tok, sizeof tok, "ecc-%s", curve);
	} else if (n == 1 && (curve = curve_lookup(a))) {
		snprintf(tok, sizeof tok, "ecc-%s", curve);
	} else if (n == 2 && (!strcmp(a, "KeyGen") || !strcmp(a, "ZGen")) &&
		   (curve = curve_lookup(b))) {
		snprintf(tok, sizeof tok, "ecc-%s", curve);
	} else if (n == 3 && !strcmp(a, "SYMCIPHER") && alg_lookup(TPM_ALGC_SYM, b)) {
		snprintf(tok, sizeof tok, "%s-%s", alg_lookup(TPM_ALGC_SYM, b), c);
	} else {
		snprintf(tok, sizeof tok, "%s", s);
	}
	var_add(v, len, tok);
}

static const char *scalar_of(const struct ynode *map, const char *key)
{
	const struct ynode *n = import_ydoc_get(map, key);
	return n && n->kind == YDOC_SCALAR ? n->value : NULL;
}

static int ts_bad(char *err, size_t errlen, const char *path, unsigned line, const char *what,
		  const char *detail)
{
	snprintf(err, errlen, "%s:%u: %s%s%s", path, line, what, detail ? ": " : "",
		 detail ? detail : "");
	return -EINVAL;
}

static int ts_number(const struct ynode *map, const char *key, double *out, const char *path,
		     char *err, size_t errlen)
{
	const struct ynode *n = import_ydoc_get(map, key);
	char *e;
	if (!n || n->kind != YDOC_SCALAR)
		return ts_bad(err, errlen, path, map->line, "missing field", key);
	errno = 0;
	*out = strtod(n->value, &e);
	if (*e || e == n->value || errno || !isfinite(*out))
		return ts_bad(err, errlen, path, n->line, "not a number", n->value);
	return 0;
}

/* The variant of measurement it (key parameters kp) from its parameters, in
 * a fixed order. */
static void ts_variant(const struct ynode *it, const char *kp, char *var, size_t vlen)
{
	char tmp[512];
	const char *v;
	if (kp)
		key_params(var, vlen, kp);
	if ((v = scalar_of(it, "hash algorithm"))) {
		const char *h = alg_lookup(TPM_ALGC_HASH, v);
		/* Older files spell names: "SHA-256" -> sha256. */
		char hn[32];
		size_t hl = 0;
		for (const char *c = v; *c && hl + 1 < sizeof hn; c++)
			if (*c != '-')
				hn[hl++] = *c;
		hn[hl] = 0;
		var_add(var, vlen, h ? h : hn);
	}
	if ((v = scalar_of(it, "algorithm"))) {
		const char *a = alg_lookup(TPM_ALGC_SYM, v), *kl = scalar_of(it, "key length");
		snprintf(tmp, sizeof tmp, "%s%s%s", a ? a : v, kl ? "-" : "", kl ? kl : "");
		var_add(var, vlen, tmp);
	}
	if ((v = scalar_of(it, "mode"))) {
		const char *m = alg_lookup(TPM_ALGC_MODE, v);
		var_add(var, vlen, m ? m : v);
	}
	if ((v = scalar_of(it, "encrypt/decrypt?")))
		var_add(var, vlen, v);
	if ((v = scalar_of(it, "scheme"))) {
		const char *s = alg_lookup(TPM_ALGC_SCHEME, v);
		var_add(var, vlen, s ? s : v);
	}
	if ((v = scalar_of(it, "data length (bytes)"))) {
		snprintf(tmp, sizeof tmp, "%sb", v);
		var_add(var, vlen, tmp);
	}
	if (!var[0])
		snprintf(var, vlen, "-");
}

/* The profile's name: <manufacturer>-<chip>-fw<firmware>, lower case. The
 * chip is the vendor string's first letters and digits ("SLB9670" slb9670,
 * "ST33TPHF2XSPI" st33, "NPCT75x..." npct75), a leading "rls" (Nuvoton's
 * release marker) left out; none when that is empty or the manufacturer's
 * own name ("AMD"). */
static void ts_name(char *name, size_t len, const char *manu, const char *chip, const char *fw)
{
	char m[16] = "", c[32] = "";
	size_t ml = 0, cl = 0;
	for (const char *x = manu; *x && ml + 1 < sizeof m; x++)
		if (isalnum((unsigned char)*x))
			m[ml++] = (char)tolower((unsigned char)*x);
	m[ml] = 0;
	const char *x = chip ? chip : "";
	while (*x && !isalnum((unsigned char)*x))
		x++;
	if (!strncasecmp(x, "rls", 3))
		x += 3;
	for (; isalpha((unsigned char)*x) && cl + 1 < sizeof c; x++)
		c[cl++] = (char)tolower((unsigned char)*x);
	for (; isdigit((unsigned char)*x) && cl + 1 < sizeof c; x++)
		c[cl++] = *x;
	c[cl] = 0;
	if (!strcmp(c, m))
		c[0] = 0;
	snprintf(name, len, "%s%s%s-fw%s", m, c[0] ? "-" : "", c, fw);
}

/* A TPMScan import: one run (a performance.yaml and, beside it, detail/ with
 * a CSV of every measurement's samples) or several runs of one chip and
 * firmware merged. A measurement is keyed by (command, authorization,
 * variant); its samples are pooled over the runs. */
struct ts_item {
	struct prof_entry e;
	double *v; /* the samples (ms) of every run, when each run had its CSV */
	size_t nv, cap;
	int partial;	 /* a run without the CSV: the yaml's figures only */
	double sum_ms;	 /* yaml avg x successful, summed over the runs */
	uint64_t n;	 /* successful iterations over the runs */
	unsigned run;	 /* the last run that gave it (a duplicate in one run) */
	unsigned runs;	 /* runs that gave it */
	char csv[160];	 /* the CSV's name */
	char where[200]; /* single run: "FILE line L" */
};

struct ts_import {
	struct ts_item *it;
	size_t n, cap;
	char covers[2048], failed[4096];
	unsigned dup, runs, runs_csv;
	char manu[64], chip[128], fw[64], date[64], host[512]; /* the first run's */
	char ids[1024];					       /* the runs' directory names */
};

static struct ts_item *ts_find(struct ts_import *x, const struct prof_entry *e)
{
	for (size_t i = 0; i < x->n; i++)
		if (x->it[i].e.cc == e->cc && x->it[i].e.auth == e->auth &&
		    !strcmp(x->it[i].e.variant, e->variant))
			return &x->it[i];
	if (x->n == x->cap) {
		size_t nc = x->cap ? x->cap * 2 : 64;
		struct ts_item *ni = realloc(x->it, nc * sizeof *ni);
		if (!ni)
			return NULL;
		x->it = ni;
		x->cap = nc;
	}
	struct ts_item *t = &x->it[x->n++];
	memset(t, 0, sizeof *t);
	t->e = *e;
	t->e.comment = NULL;
	t->e.min_ms = t->e.max_ms = NAN;
	return t;
}

static int ts_push(struct ts_item *t, double ms)
{
	if (t->nv == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 1024;
		double *nv = realloc(t->v, nc * sizeof *nv);
		if (!nv)
			return -ENOMEM;
		t->v = nv;
		t->cap = nc;
	}
	t->v[t->nv++] = ms;
	return 0;
}

/* The CSV of a measurement: detail/Perf_<op>[:<parameters joined by _>].csv
 * (the key parameters with '_' for blanks, then hash algorithm, algorithm,
 * key length, mode, encrypt/decrypt and scheme as the yaml spells them);
 * an operation measured once may have its CSV named Perf_<op>.csv (HMAC). */
static void ts_csv_name(const struct ynode *it, const char *op, const char *detail, char *path,
			size_t len, char *name, size_t nlen)
{
	static const char *const keys[] = {"hash algorithm", "algorithm",	 "key length",
					   "mode",	     "encrypt/decrypt?", "scheme"};
	char ps[256] = "";
	size_t pl = 0;
	const char *kp = scalar_of(it, "key parameters");
	if (kp)
		for (const char *c = kp; *c && pl + 1 < sizeof ps; c++)
			ps[pl++] = *c == ' ' ? '_' : *c;
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
		const char *v = scalar_of(it, keys[k]);
		if (v)
			pl += (size_t)snprintf(ps + pl, pl < sizeof ps ? sizeof ps - pl : 0, "%s%s",
					       pl ? "_" : "", v);
	}
	ps[sizeof ps - 1] = 0;
	snprintf(name, nlen, "Perf_%s%s%s.csv", op, ps[0] ? ":" : "", ps);
	snprintf(path, len, "%s/%s", detail, name);
	if (access(path, R_OK) && ps[0]) {
		char alt[PATH_MAX];
		snprintf(alt, sizeof alt, "%s/Perf_%s.csv", detail, op);
		if (!access(alt, R_OK)) {
			snprintf(name, nlen, "Perf_%s.csv", op);
			snprintf(path, len, "%s", alt);
		}
	}
}

/* Reads a measurement's samples: "duration,duration_extra,return_code" in
 * seconds; a row whose return code is not 0 failed and is not a latency.
 * Returns how many samples were added (0: no such file), or -errno with err
 * naming path:line. */
static int ts_read_csv(const char *path, struct ts_item *t, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[512];
	unsigned ln = 0;
	int added = 0, col_d = -1, col_rc = -1;
	if (!f)
		return errno == ENOENT
			   ? 0
			   : (snprintf(err, errlen, "%s: %s", path, strerror(errno)), -EIO);
	while (fgets(line, sizeof line, f)) {
		ln++;
		line[strcspn(line, "\r\n")] = 0;
		char *save = NULL, *tok;
		int col = 0;
		if (ln == 1) {
			for (tok = strtok_r(line, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save), col++) {
				if (!strcmp(tok, "duration"))
					col_d = col;
				else if (!strcmp(tok, "return_code"))
					col_rc = col;
			}
			if (col_d < 0 || col_rc < 0) {
				snprintf(err, errlen,
					 "%s:1: expected a header with duration and return_code",
					 path);
				fclose(f);
				return -EINVAL;
			}
			continue;
		}
		if (!line[0])
			continue;
		double d = NAN;
		int okrc = -1;
		for (tok = strtok_r(line, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save), col++) {
			char *e;
			if (col == col_d) {
				errno = 0;
				d = strtod(tok, &e);
				if (*e || e == tok || errno || !isfinite(d) || d < 0)
					d = NAN;
			} else if (col == col_rc) {
				unsigned long rc = strtoul(tok, &e, 16);
				okrc = *e || e == tok ? -1 : rc == 0;
			}
		}
		if (isnan(d) || okrc < 0) {
			snprintf(
			    err, errlen,
			    "%s:%u: not 'duration,duration_extra,return_code' (seconds, hex code)",
			    path, ln);
			fclose(f);
			return -EINVAL;
		}
		if (!okrc)
			continue;
		if (ts_push(t, d * 1000.0)) {
			fclose(f);
			return -ENOMEM;
		}
		added++;
	}
	fclose(f);
	return added ? added : -ENODATA;
}

static void ts_note_failed(struct ts_import *x, const char *fmt, const char *a, const char *b,
			   unsigned line, const char *er)
{
	size_t fl = strlen(x->failed);
	snprintf(x->failed + fl, sizeof x->failed - fl, fmt, fl ? "; " : "", a, b, line,
		 er ? ", error " : "", er ? er : "");
}

/* One measurement (it, of operation opname) of run number run: its entry
 * added to the import, its samples read from detail/ when there. Returns 0
 * (a measurement that failed on the chip is noted, not an error) or -errno
 * with err set. */
static int ts_measurement(struct ts_import *x, const char *path, const char *detail,
			  const char *opname, const struct ynode *it, unsigned run,
			  unsigned *with_csv, char *err, size_t errlen)
{
	int rc;
	struct prof_entry e = {0};
	double avg, mn, mx, ok;
	const char *kp = NULL;
	if (it->kind != YDOC_MAP) {
		return ts_bad(err, errlen, path, it->line, "expected a mapping per measurement",
			      NULL);
	}
	const struct ynode *stats = import_ydoc_get(it, "operation stats (ms/op)");
	const struct ynode *info = import_ydoc_get(it, "operation info");
	if (!stats || stats->kind != YDOC_MAP || !info || info->kind != YDOC_MAP) {
		return ts_bad(err, errlen, path, it->line,
			      "measurement without 'operation stats (ms/op)' and "
			      "'operation info'",
			      NULL);
	}
	if ((rc = ts_number(stats, "avg op", &avg, path, err, errlen)) ||
	    (rc = ts_number(stats, "min op", &mn, path, err, errlen)) ||
	    (rc = ts_number(stats, "max op", &mx, path, err, errlen)) ||
	    (rc = ts_number(info, "successful", &ok, path, err, errlen)))
		return rc;
	/* Command code: ECDH splits by its key parameters. */
	kp = scalar_of(it, "key parameters");
	if (!strcmp(opname, "ECDH"))
		e.cc = kp && !strncmp(kp, "ZGen", 4) ? TPM_CC_ECDH_ZGen : TPM_CC_ECDH_KeyGen;
	else if (!strcmp(opname, "ZGen"))
		e.cc = TPM_CC_ZGen_2Phase;
	else
		e.cc = tpm_cc_from_name(opname);
	if (!e.cc) {
		size_t fl = strlen(x->failed);
		snprintf(x->failed + fl, sizeof x->failed - fl, "%sline %u: unknown operation %s",
			 fl ? "; " : "", it->line, opname);
		return 0;
	}
	ts_variant(it, kp, e.variant, sizeof e.variant);
	/* tpm2-algtest authorizes with password sessions. */
	const struct tpm_cc_info *ci = tpm_cc_lookup(e.cc);
	e.auth = ci && ci->auth_handles ? TPM_AUTH_PASSWORD : TPM_AUTH_NONE;
	profile_entry_clear(&e);
	e.mean_ms = avg;
	e.min_ms = mn;
	e.max_ms = mx;
	e.n = ok > 0 ? (uint64_t)ok : 0;
	e.line = it->line;
	char msg[200];
	if (ok <= 0 || profile_check_entry(&e, msg, sizeof msg)) {
		/* Failed on the chip (all iterations erred) or no usable
		 * figure: not a latency. */
		ts_note_failed(x, "%s%s %s (line %u%s%s)", tpm_cc_name(e.cc), e.variant, it->line,
			       scalar_of(info, "error"));
		return 0;
	}
	struct ts_item *t = ts_find(x, &e);
	if (!t) {
		return -ENOMEM;
	}
	if (t->run == run) {
		/* NPCT75x lists ECDH KeyGen twice (TPM2_ECDH and
		 * TPM2_ECDH_KeyGen): the first one is kept. */
		x->dup++;
		return 0;
	}
	t->run = run;
	t->runs++;
	t->sum_ms += avg * ok;
	t->n += (uint64_t)ok;
	t->e.min_ms = isnan(t->e.min_ms) || mn < t->e.min_ms ? mn : t->e.min_ms;
	t->e.max_ms = isnan(t->e.max_ms) || mx > t->e.max_ms ? mx : t->e.max_ms;
	snprintf(t->where, sizeof t->where, "%s line %u", base_name(path), it->line);
	int got = 0;
	if (detail) {
		char cpath[PATH_MAX];
		ts_csv_name(it, opname, detail, cpath, sizeof cpath, t->csv, sizeof t->csv);
		got = ts_read_csv(cpath, t, err, errlen);
		if (got == -ENODATA) {
			snprintf(err, errlen,
				 "%s: no successful sample, the yaml "
				 "(line %u) has %.0f",
				 cpath, it->line, ok);
			return -EINVAL;
		}
		if (got < 0) {
			return got;
		}
		*with_csv += got > 0;
	}
	if (!got)
		t->partial = 1;
	const char *cn = tpm_cc_name(e.cc);
	if (!strstr(x->covers, cn)) {
		size_t cl = strlen(x->covers);
		snprintf(x->covers + cl, sizeof x->covers - cl, "%s%s", cl ? " " : "", cn);
	}
	return 0;
}

/* One run: its yaml (path) and detail directory (NULL: none). */
static int ts_run(struct ts_import *x, const char *path, const char *detail, char *err,
		  size_t errlen)
{
	char *buf = NULL;
	size_t len;
	struct ynode *root = NULL;
	int rc;
	unsigned run = ++x->runs, with_csv = 0;

	if ((rc = read_all(path, &buf, &len, err, errlen)))
		return rc;
	if ((rc = import_ydoc_parse(buf, len, path, &root, err, errlen)))
		goto out;
	if (root->kind != YDOC_MAP) {
		rc = ts_bad(err, errlen, path, root->line, "expected a mapping at the top", NULL);
		goto out;
	}
	const char *manu = scalar_of(root, "Manufacturer");
	const char *fw = scalar_of(root, "Firmware version");
	const char *chip = scalar_of(root, "Vendor string");
	if (!manu || !fw) {
		rc = ts_bad(err, errlen, path, 1,
			    "not a tpm2-algtest performance.yaml (no Manufacturer or Firmware "
			    "version)",
			    NULL);
		goto out;
	}
	if (run == 1) {
		snprintf(x->manu, sizeof x->manu, "%s", manu);
		snprintf(x->fw, sizeof x->fw, "%s", fw);
		snprintf(x->chip, sizeof x->chip, "%s", chip ? chip : "");
		const char *dt = scalar_of(root, "Execution date/time");
		const char *dev = scalar_of(root, "Device name");
		const char *sys = scalar_of(root, "System information");
		snprintf(x->date, sizeof x->date, "%s", dt ? dt : "");
		if (dev || sys)
			snprintf(x->host, sizeof x->host, "host: %s%s%s", dev ? dev : "",
				 dev && sys ? "; " : "", sys ? sys : "");
	} else if (strcmp(x->manu, manu) || strcmp(x->fw, fw)) {
		snprintf(err, errlen,
			 "%s: manufacturer '%s' firmware %s, the first run's are '%s' %s: only "
			 "runs of one chip and firmware merge",
			 path, manu, fw, x->manu, x->fw);
		rc = -EINVAL;
		goto out;
	}
	for (const struct ynode *op = root->child; op; op = op->next) {
		if (strncmp(op->key, "TPM2_", 5))
			continue;
		if (op->kind != YDOC_SEQ) {
			rc = ts_bad(err, errlen, path, op->line, "expected a list of measurements",
				    op->key);
			goto out;
		}
		const char *opname = op->key + 5;
		for (const struct ynode *it = op->child; it; it = it->next)
			if ((rc = ts_measurement(x, path, detail, opname, it, run, &with_csv, err,
						 errlen)))
				goto out;
	}
	x->runs_csv += with_csv > 0;
	rc = 0;
out:
	import_ydoc_free(root);
	free(buf);
	return rc;
}

/* The entries and the header of a finished import. */
static int ts_finish(struct ts_import *x, const char *path, struct profile *p, char *err,
		     size_t errlen)
{
	char tmp[1024];
	char name[160];
	if (!x->n)
		return ts_bad(err, errlen, path, 1, "no usable measurements (no TPM2_* operation)",
			      NULL);
	for (size_t i = 0; i < x->n; i++) {
		struct ts_item *t = &x->it[i];
		struct prof_entry e = t->e;
		if (!t->partial && t->nv) {
			profile_entry_stats(&e, t->v, t->nv);
			if (x->runs == 1)
				snprintf(tmp, sizeof tmp, "%s, %zu samples (%s)", t->csv, t->nv,
					 t->where);
			else
				snprintf(tmp, sizeof tmp, "%s of %u runs, %zu samples", t->csv,
					 t->runs, t->nv);
		} else {
			e.n = t->n;
			e.mean_ms = t->sum_ms / (double)t->n;
			if (x->runs == 1)
				snprintf(tmp, sizeof tmp, "%s", t->where);
			else
				snprintf(tmp, sizeof tmp,
					 "yaml avg/min/max of %u runs, %llu "
					 "iterations (a run without the CSV)",
					 t->runs, (unsigned long long)t->n);
		}
		e.comment = tmp;
		int rc = profile_add(p, &e);
		if (rc)
			return rc;
	}
	/* Derived entries (docs/profiles.md, "Derived entries"): the commands
	 * of a boot and of tpm2-tools that tpm2-algtest does not time. */
	char derived[512];
	int nd = profile_derive(p, derived, sizeof derived);
	if (nd < 0)
		return nd;
	ts_name(name, sizeof name, x->manu, x->chip, x->fw);
	profile_set(p, "name", name);
	/* Manufacturer is the 4-character TPM_PT_MANUFACTURER ("STM " has a blank). */
	snprintf(tmp, sizeof tmp, "%s", x->manu);
	for (size_t l = strlen(tmp); l && tmp[l - 1] == ' ';)
		tmp[--l] = 0;
	profile_set(p, "vendor", tmp);
	snprintf(tmp, sizeof tmp, "%s", x->chip);
	for (size_t l = strlen(tmp); l && tmp[l - 1] == ' ';)
		tmp[--l] = 0;
	if (tmp[0])
		profile_set(p, "chip", tmp);
	profile_set(p, "firmware", x->fw);
	if (x->date[0])
		profile_set(p, "date", x->date);
	profile_set(p, "measured-by", "TPMScan dataset (tpm2-algtest), CHES 2024");
	snprintf(tmp, sizeof tmp, "crocs-muni/tpmscan-dataset, %s", x->ids);
	profile_set(p, "source", tmp);
	if (nd) {
		char cov[sizeof x->covers + sizeof derived + 64];
		snprintf(cov, sizeof cov, "%s; derived (docs/profiles.md, Derived entries): %s",
			 x->covers, derived);
		profile_set(p, "covers", cov);
	} else {
		profile_set(p, "covers", x->covers);
	}
	/* What a boot with the kernel's sessions sends that neither a
	 * measurement nor a rule gives (a rule's source was not timed). */
	char missing[256];
	if (profile_boot_missing(p, missing, sizeof missing))
		snprintf(tmp, sizeof tmp,
			 "%s; and of a boot's sessions: %s (their rules' sources not timed)",
			 profile_derive_never, missing);
	else
		snprintf(tmp, sizeof tmp, "%s", profile_derive_never);
	profile_set(p, "lacks", tmp);
	profile_set(p, "note",
		    x->runs_csv ? "n, mean, p50/p90/p95/p99 (nearest rank), stdev, min and max "
				  "of the samples of detail/Perf_*.csv (return code 0), through "
				  "tpm2-tss with password authorization; bus and driver included, "
				  "so transport-ms is 0."
				: "avg/min/max over the listed iterations through tpm2-tss with "
				  "password authorization; bus and driver included, so "
				  "transport-ms is 0.");
	if (x->host[0])
		profile_set(p, "note", x->host);
	if (x->runs > 1) {
		snprintf(tmp, sizeof tmp,
			 "%u runs of this chip and firmware merged: their samples pooled, min "
			 "and max over all",
			 x->runs);
		profile_set(p, "note", tmp);
	}
	if (x->failed[0]) {
		char *all = malloc(strlen(x->failed) + 64);
		if (all) {
			sprintf(all, "not imported (failed on the chip or unusable): %s",
				x->failed);
			profile_set(p, "note", all);
			free(all);
		}
	}
	if (x->dup) {
		snprintf(tmp, sizeof tmp, "%u duplicate measurements skipped (first kept)", x->dup);
		profile_set(p, "note", tmp);
	}
	return 0;
}

static int ts_cmp_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* A TPMScan path: a performance.yaml (detail/ beside it read when present),
 * a run's directory, or a directory of runs (one chip and firmware: merged). */
static int profile_import_tpmscan(const char *path, struct profile *p, char *err, size_t errlen)
{
	struct ts_import x;
	struct stat st;
	char y[PATH_MAX], d[PATH_MAX];
	int rc = 0;
	memset(&x, 0, sizeof x);
	profile_init(p);
	if (stat(path, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(st.st_mode)) {
		const char *sl = strrchr(path, '/');
		snprintf(d, sizeof d, "%.*s%sdetail", sl ? (int)(sl - path) : 0, path,
			 sl ? "/" : "");
		snprintf(x.ids, sizeof x.ids, "%s", base_name(path));
		rc = ts_run(&x, path, stat(d, &st) == 0 && S_ISDIR(st.st_mode) ? d : NULL, err,
			    errlen);
	} else {
		snprintf(y, sizeof y, "%s/performance.yaml", path);
		if (!access(y, R_OK)) {
			snprintf(d, sizeof d, "%s/detail", path);
			snprintf(x.ids, sizeof x.ids, "%s", base_name(path));
			rc = ts_run(&x, y, stat(d, &st) == 0 && S_ISDIR(st.st_mode) ? d : NULL, err,
				    errlen);
		} else {
			struct dirent **ents = NULL;
			int ne = scandir(path, &ents, NULL, ts_cmp_name);
			if (ne < 0) {
				snprintf(err, errlen, "%s: %s", path, strerror(errno));
				return -errno;
			}
			for (int i = 0; i < ne; i++) {
				if (!rc && ents[i]->d_name[0] != '.') {
					snprintf(y, sizeof y, "%s/%s/performance.yaml", path,
						 ents[i]->d_name);
					snprintf(d, sizeof d, "%s/%s/detail", path,
						 ents[i]->d_name);
					if (!access(y, R_OK)) {
						size_t il = strlen(x.ids);
						snprintf(x.ids + il, sizeof x.ids - il, "%s%s",
							 il ? " " : "", ents[i]->d_name);
						rc = ts_run(&x, y,
							    stat(d, &st) == 0 && S_ISDIR(st.st_mode)
								? d
								: NULL,
							    err, errlen);
					}
				}
				free(ents[i]);
			}
			free(ents);
			if (!rc && !x.runs) {
				snprintf(
				    err, errlen,
				    "%s: no performance.yaml in it nor in a directory under it",
				    path);
				rc = -ENOENT;
			}
		}
	}
	if (!rc)
		rc = ts_finish(&x, path, p, err, errlen);
	for (size_t i = 0; i < x.n; i++)
		free(x.it[i].v);
	free(x.it);
	if (rc)
		profile_release(p);
	return rc;
}

int import_profile_file(const char *format, const char *path, struct profile *p, char *err,
			size_t errlen)
{
	if (!strcmp(format, "profile"))
		return profile_load_file(path, p, err, errlen);
	if (!strcmp(format, "ftrace"))
		return import_profile_ftrace(path, p, err, errlen);
	if (!strcmp(format, "tpmscan"))
		return profile_import_tpmscan(path, p, err, errlen);
	snprintf(err, errlen, "unknown format '%s' (profile, ftrace, tpmscan)", format);
	return -ENOTSUP;
}
