/* Profile importers: ftrace function_graph text of the kernel's TPM functions
 * and tpm2-algtest / TPMScan performance.yaml. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The profile's header fields from the file's top level (root, already
 * checked to name a manufacturer and a firmware) and what the import made of
 * it: the commands covered, the measurements left out and why. */
static void ts_describe(struct profile *p, const struct ynode *root, const char *path,
			const char *covers, const char *failed, unsigned skipped_dup)
{
	const char *manu = scalar_of(root, "Manufacturer");
	const char *chip = scalar_of(root, "Vendor string");
	const char *fw = scalar_of(root, "Firmware version");
	char tmp[512];

	/* Name: tpmscan-<manufacturer>-<chip>-<firmware>, lower case. */
	char name[160];
	size_t nl = 0;
	snprintf(tmp, sizeof tmp, "tpmscan %s %s %s", manu, chip ? chip : "", fw);
	for (const char *c = tmp; *c && nl + 1 < sizeof name; c++) {
		if (isalnum((unsigned char)*c) || *c == '.')
			name[nl++] = (char)tolower((unsigned char)*c);
		else if (*c == ' ' && nl && name[nl - 1] != '-')
			name[nl++] = '-';
	}
	name[nl] = 0;
	profile_set(p, "name", name);
	/* Manufacturer is the 4-character TPM_PT_MANUFACTURER ("STM " has a blank). */
	snprintf(tmp, sizeof tmp, "%s", manu);
	for (size_t l = strlen(tmp); l && tmp[l - 1] == ' ';)
		tmp[--l] = 0;
	profile_set(p, "vendor", tmp);
	if (chip)
		profile_set(p, "chip", chip);
	profile_set(p, "firmware", fw);
	if (scalar_of(root, "Execution date/time"))
		profile_set(p, "date", scalar_of(root, "Execution date/time"));
	profile_set(p, "measured-by", "TPMScan dataset (tpm2-algtest), CHES 2024");
	snprintf(tmp, sizeof tmp, "crocs-muni/tpmscan-dataset, %s", base_name(path));
	profile_set(p, "source", tmp);
	profile_set(p, "covers", covers);
	profile_set(p, "lacks",
		    "PCR_Extend StartAuthSession ContextLoad ContextSave FlushContext "
		    "CreatePrimary ReadPublic (not measured by tpm2-algtest)");
	profile_set(p, "note",
		    "avg/min/max over the listed iterations through tpm2-tss with password "
		    "authorization; bus and driver included, so transport-ms is 0.");
	const char *dev = scalar_of(root, "Device name");
	const char *sys = scalar_of(root, "System information");
	if (dev || sys) {
		snprintf(tmp, sizeof tmp, "host: %s%s%s", dev ? dev : "", dev && sys ? "; " : "",
			 sys ? sys : "");
		profile_set(p, "note", tmp);
	}
	if (failed[0]) {
		snprintf(tmp, sizeof tmp, "not imported (failed on the chip or unusable): ");
		char *all = malloc(strlen(tmp) + strlen(failed) + 1);
		if (all) {
			strcpy(all, tmp);
			strcat(all, failed);
			profile_set(p, "note", all);
			free(all);
		}
	}
	if (skipped_dup) {
		snprintf(tmp, sizeof tmp, "%u duplicate measurements skipped (first kept)",
			 skipped_dup);
		profile_set(p, "note", tmp);
	}
}

static int profile_import_tpmscan(const char *path, struct profile *p, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len;
	struct ynode *root = NULL;
	char covers[2048] = "", failed[4096] = "", tmp[512];
	unsigned skipped_dup = 0;
	int rc;

	profile_init(p);
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
	if (!manu || !fw) {
		rc = ts_bad(err, errlen, path, 1,
			    "not a tpm2-algtest performance.yaml (no Manufacturer or Firmware "
			    "version)",
			    NULL);
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
		for (const struct ynode *it = op->child; it; it = it->next) {
			struct prof_entry e = {0};
			double avg, mn, mx, ok;
			const char *kp = NULL;
			if (it->kind != YDOC_MAP) {
				rc = ts_bad(err, errlen, path, it->line,
					    "expected a mapping per measurement", NULL);
				goto out;
			}
			const struct ynode *stats = import_ydoc_get(it, "operation stats (ms/op)");
			const struct ynode *info = import_ydoc_get(it, "operation info");
			if (!stats || stats->kind != YDOC_MAP || !info || info->kind != YDOC_MAP) {
				rc = ts_bad(err, errlen, path, it->line,
					    "measurement without 'operation stats (ms/op)' and "
					    "'operation info'",
					    NULL);
				goto out;
			}
			if ((rc = ts_number(stats, "avg op", &avg, path, err, errlen)) ||
			    (rc = ts_number(stats, "min op", &mn, path, err, errlen)) ||
			    (rc = ts_number(stats, "max op", &mx, path, err, errlen)) ||
			    (rc = ts_number(info, "successful", &ok, path, err, errlen)))
				goto out;
			/* Command code: ECDH splits by its key parameters. */
			kp = scalar_of(it, "key parameters");
			if (!strcmp(opname, "ECDH"))
				e.cc = kp && !strncmp(kp, "ZGen", 4) ? TPM_CC_ECDH_ZGen
								     : TPM_CC_ECDH_KeyGen;
			else if (!strcmp(opname, "ZGen"))
				e.cc = TPM_CC_ZGen_2Phase;
			else
				e.cc = tpm_cc_from_name(opname);
			if (!e.cc) {
				size_t fl = strlen(failed);
				snprintf(failed + fl, sizeof failed - fl,
					 "%sline %u: unknown operation %s", fl ? "; " : "",
					 it->line, op->key);
				continue;
			}
			ts_variant(it, kp, e.variant, sizeof e.variant);
			/* tpm2-algtest authorizes with password sessions. */
			const struct tpm_cc_info *ci = tpm_cc_lookup(e.cc);
			e.auth = ci && ci->auth_handles ? TPM_AUTH_PASSWORD : TPM_AUTH_NONE;
			e.mean_ms = avg;
			e.min_ms = mn;
			e.max_ms = mx;
			e.p50_ms = e.p95_ms = e.stdev_ms = NAN;
			e.n = ok > 0 ? (uint64_t)ok : 0;
			e.line = it->line;
			char msg[200];
			if (ok <= 0 || profile_check_entry(&e, msg, sizeof msg)) {
				/* Failed on the chip (all iterations erred) or no usable
				 * figure: not a latency. */
				const char *er = scalar_of(info, "error");
				size_t fl = strlen(failed);
				snprintf(failed + fl, sizeof failed - fl, "%s%s %s (line %u%s%s)",
					 fl ? "; " : "", tpm_cc_name(e.cc), e.variant, it->line,
					 er ? ", error " : "", er ? er : "");
				continue;
			}
			snprintf(tmp, sizeof tmp, "%s line %u", base_name(path), it->line);
			e.comment = tmp;
			rc = profile_add(p, &e);
			if (rc == -EEXIST) {
				/* NPCT75x lists ECDH KeyGen twice (TPM2_ECDH and
				 * TPM2_ECDH_KeyGen): the first one is kept. */
				skipped_dup++;
				rc = 0;
				continue;
			}
			if (rc)
				goto out;
			const char *cn = tpm_cc_name(e.cc);
			if (!strstr(covers, cn)) {
				size_t cl = strlen(covers);
				snprintf(covers + cl, sizeof covers - cl, "%s%s", cl ? " " : "",
					 cn);
			}
		}
	}
	if (!p->n) {
		rc = ts_bad(err, errlen, path, 1, "no usable measurements (no TPM2_* operation)",
			    NULL);
		goto out;
	}
	ts_describe(p, root, path, covers, failed, skipped_dup);
	rc = 0;
out:
	if (rc)
		profile_release(p);
	import_ydoc_free(root);
	free(buf);
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
