#include "model/profile.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/db.h"
#include "model/tpm/decode.h"
#include "model/tpm/tpm_cc.h"

void profile_init(struct profile *p)
{
	memset(p, 0, sizeof *p);
	p->fallback_ms = NAN;
}

void profile_release(struct profile *p)
{
	char **fields[] = {&p->name, &p->vendor, &p->chip, &p->firmware, &p->bus,  &p->measured_by,
			   &p->date, &p->source, &p->note, &p->covers,	 &p->lacks};
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
		free(*fields[i]);
	for (size_t i = 0; i < p->n; i++)
		free(p->e[i].comment);
	free(p->e);
	profile_init(p);
}

/* The authorization kinds are spelled as the decoder names them. */
int prof_auth_parse(const char *s)
{
	if (!strcmp(s, "*"))
		return PROFILE_AUTH_ANY;
	for (int i = TPM_AUTH_NONE; i <= TPM_AUTH_POLICY_ENC; i++)
		if (!strcmp(s, tpm_auth_kind_str(i)))
			return i;
	return -1;
}

const char *prof_auth_str(int auth)
{
	if (auth == PROFILE_AUTH_ANY)
		return "*";
	return tpm_auth_kind_str(auth);
}

const char *prof_match_str(int m)
{
	switch (m) {
	case PROF_EXACT:
		return "exact";
	case PROF_OTHER_VARIANT:
		return "other variant";
	case PROF_OTHER_AUTH:
		return "other authorization";
	}
	return "missing";
}

/* Header keys and the field each one fills. */
static char **field_of(struct profile *p, const char *key)
{
	static const char *const keys[] = {"name", "vendor",	  "chip", "firmware",
					   "bus",  "measured-by", "date", "source",
					   "note", "covers",	  "lacks"};
	char **fields[] = {&p->name, &p->vendor, &p->chip, &p->firmware, &p->bus,  &p->measured_by,
			   &p->date, &p->source, &p->note, &p->covers,	 &p->lacks};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (!strcmp(key, keys[i]))
			return fields[i];
	return NULL;
}

int profile_set(struct profile *p, const char *key, const char *value)
{
	char **f = field_of(p, key);
	if (!f)
		return -EINVAL;
	int append = (!strcmp(key, "source") || !strcmp(key, "note")) && *f;
	char *nv;
	if (append) {
		size_t a = strlen(*f), b = strlen(value);
		nv = malloc(a + b + 2);
		if (!nv)
			return -ENOMEM;
		memcpy(nv, *f, a);
		nv[a] = '\n';
		memcpy(nv + a + 1, value, b + 1);
	} else {
		nv = strdup(value);
		if (!nv)
			return -ENOMEM;
	}
	free(*f);
	*f = nv;
	return 0;
}

int profile_check_entry(const struct prof_entry *e, char *err, size_t errlen)
{
	const char *names[] = {"mean", "p50", "p95", "stdev", "min", "max"};
	double v[] = {e->mean_ms, e->p50_ms, e->p95_ms, e->stdev_ms, e->min_ms, e->max_ms};
	if (isnan(e->mean_ms)) {
		snprintf(err, errlen, "mean= is required");
		return -EINVAL;
	}
	for (int i = 0; i < 6; i++) {
		if (isnan(v[i]))
			continue;
		if (isinf(v[i]) || v[i] < 0 || (v[i] == 0 && i != 3)) {
			snprintf(err, errlen, "%s=%g ms: a latency must be positive and finite",
				 names[i], v[i]);
			return -EINVAL;
		}
		if (v[i] > PROFILE_MAX_MS) {
			snprintf(err, errlen, "%s=%g ms is absurd (more than %g ms)", names[i],
				 v[i], PROFILE_MAX_MS);
			return -EINVAL;
		}
	}
	/* min <= p50 <= p95 <= max and min <= mean <= max, where known. */
	double order[] = {e->min_ms, e->p50_ms, e->p95_ms, e->max_ms};
	const char *on[] = {"min", "p50", "p95", "max"};
	for (int i = 0; i < 4; i++)
		for (int j = i + 1; j < 4; j++)
			if (!isnan(order[i]) && !isnan(order[j]) && order[i] > order[j]) {
				snprintf(err, errlen, "%s=%g ms is above %s=%g ms", on[i], order[i],
					 on[j], order[j]);
				return -EINVAL;
			}
	/* Allow rounding in published figures (one decimal of a ms). */
	if ((!isnan(e->min_ms) && e->mean_ms < e->min_ms - 0.05) ||
	    (!isnan(e->max_ms) && e->mean_ms > e->max_ms + 0.05)) {
		snprintf(err, errlen, "mean=%g ms lies outside min..max", e->mean_ms);
		return -EINVAL;
	}
	return 0;
}

static int same_key(const struct prof_entry *a, const struct prof_entry *b)
{
	return a->cc == b->cc && a->auth == b->auth && !strcmp(a->variant, b->variant);
}

int profile_add(struct profile *p, const struct prof_entry *e)
{
	for (size_t i = 0; i < p->n; i++)
		if (same_key(&p->e[i], e))
			return -EEXIST;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 32;
		struct prof_entry *ne = realloc(p->e, cap * sizeof *ne);
		if (!ne)
			return -ENOMEM;
		p->e = ne;
		p->cap = cap;
	}
	p->e[p->n] = *e;
	p->e[p->n].comment = NULL;
	if (e->comment && !(p->e[p->n].comment = strdup(e->comment)))
		return -ENOMEM;
	p->n++;
	return 0;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	return s;
}

/* A strict decimal number; returns 0 or -1. */
static int parse_num(const char *s, double *out)
{
	char *end;
	if (!*s)
		return -1;
	errno = 0;
	double v = strtod(s, &end);
	if (*end || errno || isnan(v))
		return -1;
	*out = v;
	return 0;
}

static uint32_t parse_cc(const char *s)
{
	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2)) {
		char *end;
		unsigned long v = strtoul(s, &end, 16);
		return *end || v == 0 || v > 0xffffffffu ? 0 : (uint32_t)v;
	}
	return tpm_cc_from_name(s);
}

static int parse_entry(char *line, struct prof_entry *e, char *err, size_t errlen)
{
	char *comment = strchr(line, '#');
	char *save = NULL, *tok;
	memset(e, 0, sizeof *e);
	e->mean_ms = e->p50_ms = e->p95_ms = e->stdev_ms = e->min_ms = e->max_ms = NAN;
	if (comment) {
		*comment++ = 0;
		comment = trim(comment);
		e->comment = *comment ? comment : NULL;
	}
	char *cc = strtok_r(line, " \t", &save);
	char *auth = strtok_r(NULL, " \t", &save);
	char *var = strtok_r(NULL, " \t", &save);
	if (!cc || !auth || !var) {
		snprintf(err, errlen, "an entry is 'COMMAND AUTH VARIANT mean=MS ...'");
		return -EINVAL;
	}
	if (!(e->cc = parse_cc(cc))) {
		snprintf(err, errlen, "unknown command '%s' (a TPM2 command name or 0x code)", cc);
		return -EINVAL;
	}
	int a = prof_auth_parse(auth);
	if (a < 0) {
		snprintf(err, errlen,
			 "unknown authorization '%s' (none, password, hmac, hmac+enc, policy, "
			 "policy+enc, *)",
			 auth);
		return -EINVAL;
	}
	e->auth = (uint8_t)a;
	if (strlen(var) >= sizeof e->variant) {
		snprintf(err, errlen, "variant '%s' is too long", var);
		return -EINVAL;
	}
	for (const char *c = var; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("-_.+", *c)) {
			snprintf(err, errlen, "variant '%s': only letters, digits and -_.+", var);
			return -EINVAL;
		}
	strcpy(e->variant, var);
	while ((tok = strtok_r(NULL, " \t", &save))) {
		char *eq = strchr(tok, '=');
		double v;
		if (!eq) {
			snprintf(err, errlen, "'%s' is not field=value", tok);
			return -EINVAL;
		}
		*eq = 0;
		if (!strcmp(tok, "n")) {
			char *end;
			errno = 0;
			long long n = strtoll(eq + 1, &end, 10);
			if (*end || !eq[1] || errno || n < 1) {
				snprintf(err, errlen, "n=%s: a sample count is a positive integer",
					 eq + 1);
				return -EINVAL;
			}
			e->n = (uint64_t)n;
			continue;
		}
		double *f = !strcmp(tok, "mean")    ? &e->mean_ms
			    : !strcmp(tok, "p50")   ? &e->p50_ms
			    : !strcmp(tok, "p95")   ? &e->p95_ms
			    : !strcmp(tok, "stdev") ? &e->stdev_ms
			    : !strcmp(tok, "min")   ? &e->min_ms
			    : !strcmp(tok, "max")   ? &e->max_ms
						    : NULL;
		if (!f) {
			snprintf(err, errlen,
				 "unknown field '%s' (n, mean, p50, p95, stdev, min, max)", tok);
			return -EINVAL;
		}
		if (!isnan(*f)) {
			snprintf(err, errlen, "field '%s' given twice", tok);
			return -EINVAL;
		}
		if (parse_num(eq + 1, &v)) {
			snprintf(err, errlen, "%s=%s is not a number (milliseconds)", tok, eq + 1);
			return -EINVAL;
		}
		*f = v;
	}
	return profile_check_entry(e, err, errlen);
}

int profile_parse(const char *text, size_t len, const char *name, struct profile *p, char *err,
		  size_t errlen)
{
	char *buf = malloc(len + 1);
	char msg[256];
	unsigned lineno = 0;
	int rc = 0, seen_magic = 0;

	profile_init(p);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, text, len);
	buf[len] = 0;
	if (memchr(text, 0, len)) {
		snprintf(err, errlen, "%s: binary data (NUL byte), not a profile", name);
		rc = -EINVAL;
		goto out;
	}
	for (char *line = buf, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		lineno++;
		char *s = trim(line);
		if (!*s || (*s == '#'))
			continue;
		if (!seen_magic) {
			if (strcmp(s, "tpmtrace-profile 1")) {
				snprintf(err, errlen,
					 "%s:%u: not a tpmtrace profile (the first line must be "
					 "'tpmtrace-profile 1')",
					 name, lineno);
				rc = -EINVAL;
				goto out;
			}
			seen_magic = 1;
			continue;
		}
		/* "key: value" is a header line; anything else is an entry. */
		char *colon = strchr(s, ':');
		size_t klen = strcspn(s, " \t:");
		if (colon && (size_t)(colon - s) == klen) {
			*colon = 0;
			char *val = trim(colon + 1);
			if (!strcmp(s, "transport-ms") || !strcmp(s, "fallback-ms")) {
				double v;
				if (parse_num(val, &v) || v < 0 || v > PROFILE_MAX_MS ||
				    (v == 0 && s[0] == 'f')) {
					snprintf(err, errlen,
						 "%s:%u: %s: '%s' is not a latency in ms (0..%g)",
						 name, lineno, s, val, PROFILE_MAX_MS);
					rc = -EINVAL;
					goto out;
				}
				if (s[0] == 't')
					p->transport_ms = v;
				else
					p->fallback_ms = v;
				continue;
			}
			rc = profile_set(p, s, val);
			if (rc == -EINVAL)
				snprintf(
				    err, errlen,
				    "%s:%u: unknown header '%s' (name, vendor, chip, firmware, "
				    "bus, measured-by, date, source, note, covers, lacks, "
				    "transport-ms, fallback-ms)",
				    name, lineno, s);
			if (rc)
				goto out;
			continue;
		}
		struct prof_entry e;
		if (parse_entry(s, &e, msg, sizeof msg)) {
			snprintf(err, errlen, "%s:%u: %s", name, lineno, msg);
			rc = -EINVAL;
			goto out;
		}
		e.line = lineno;
		rc = profile_add(p, &e);
		if (rc == -EEXIST) {
			unsigned first = 0;
			for (size_t i = 0; i < p->n; i++)
				if (same_key(&p->e[i], &e))
					first = p->e[i].line;
			snprintf(err, errlen, "%s:%u: %s %s %s is already given on line %u", name,
				 lineno, tpm_cc_name(e.cc) ? tpm_cc_name(e.cc) : "command",
				 prof_auth_str(e.auth), e.variant, first);
			rc = -EINVAL;
		}
		if (rc)
			goto out;
	}
	if (!seen_magic) {
		snprintf(err, errlen, "%s: empty file, not a tpmtrace profile", name);
		rc = -EINVAL;
	} else if (!p->name || !*p->name) {
		snprintf(err, errlen, "%s: the profile has no 'name:' line", name);
		rc = -EINVAL;
	} else if (!p->n) {
		snprintf(err, errlen, "%s: the profile has no entries", name);
		rc = -EINVAL;
	}
out:
	free(buf);
	if (rc)
		profile_release(p);
	return rc;
}

int profile_load_file(const char *path, struct profile *p, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0;
	int rc;

	profile_init(p);
	if (!f) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return rc;
	}
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 8192;
			if (cap > (64u << 20)) {
				snprintf(err, errlen, "%s: larger than 64 MiB, not a profile",
					 path);
				rc = -EFBIG;
				goto out;
			}
			char *nb = realloc(buf, cap);
			if (!nb) {
				rc = -ENOMEM;
				goto out;
			}
			buf = nb;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		if (!got)
			break;
		n += got;
	}
	if (ferror(f)) {
		rc = -EIO;
		snprintf(err, errlen, "%s: read error", path);
		goto out;
	}
	rc = profile_parse(buf ? buf : "", n, path, p, err, errlen);
out:
	fclose(f);
	free(buf);
	return rc;
}

/* The shortest decimal that reads back as the same double, after rounding
 * to the nanosecond (figures are in ms and measured in ns at best: a mean
 * of ns values divided out prints as 0.28338475, not 0.28338474999999996). */
static void fmt_num(char *out, size_t len, double v)
{
	if (fabs(v) < 1e9)
		v = nearbyint(v * 1e6) / 1e6;
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(out, len, "%.*g", prec, v);
		if (strtod(out, NULL) == v)
			return;
	}
}

static void write_multi(FILE *f, const char *key, const char *val)
{
	if (!val)
		return;
	const char *s = val;
	while (*s) {
		size_t l = strcspn(s, "\n");
		fprintf(f, "%s: %.*s\n", key, (int)l, s);
		s += l;
		if (*s)
			s++;
	}
}

int profile_write(FILE *f, const struct profile *p)
{
	char b[64];
	fprintf(f, "tpmtrace-profile 1\n");
	write_multi(f, "name", p->name);
	write_multi(f, "vendor", p->vendor);
	write_multi(f, "chip", p->chip);
	write_multi(f, "firmware", p->firmware);
	write_multi(f, "bus", p->bus);
	write_multi(f, "measured-by", p->measured_by);
	write_multi(f, "date", p->date);
	write_multi(f, "source", p->source);
	write_multi(f, "covers", p->covers);
	write_multi(f, "lacks", p->lacks);
	write_multi(f, "note", p->note);
	fmt_num(b, sizeof b, p->transport_ms);
	fprintf(f, "transport-ms: %s\n", b);
	if (!isnan(p->fallback_ms)) {
		fmt_num(b, sizeof b, p->fallback_ms);
		fprintf(f, "fallback-ms: %s\n", b);
	}
	fprintf(f, "# command  authorization  variant  figures in ms\n");
	for (size_t i = 0; i < p->n; i++) {
		const struct prof_entry *e = &p->e[i];
		const char *nm = tpm_cc_name(e->cc);
		if (nm)
			fprintf(f, "%-18s %-10s %-14s", nm, prof_auth_str(e->auth), e->variant);
		else
			fprintf(f, "0x%08X %-10s %-14s", e->cc, prof_auth_str(e->auth), e->variant);
		if (e->n)
			fprintf(f, " n=%llu", (unsigned long long)e->n);
		const char *fn[] = {"mean", "p50", "p95", "stdev", "min", "max"};
		double fv[] = {e->mean_ms, e->p50_ms, e->p95_ms, e->stdev_ms, e->min_ms, e->max_ms};
		for (int k = 0; k < 6; k++) {
			if (isnan(fv[k]))
				continue;
			fmt_num(b, sizeof b, fv[k]);
			fprintf(f, " %s=%s", fn[k], b);
		}
		if (e->comment) {
			/* A comment runs to the end of the line: keep it on one. */
			fputs("  # ", f);
			for (const char *c = e->comment; *c; c++)
				fputc(*c == '\n' ? ' ' : *c, f);
		}
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}

/* Nearest authorization kinds to try, in order, when a command is only in the
 * profile under other kinds: session kinds fall back to each other before
 * password; password and none to each other. */
static const uint8_t auth_fallback[6][6] = {
    [TPM_AUTH_NONE] = {TPM_AUTH_PASSWORD, TPM_AUTH_HMAC, TPM_AUTH_HMAC_ENC, TPM_AUTH_POLICY,
		       TPM_AUTH_POLICY_ENC, 0xff},
    [TPM_AUTH_PASSWORD] = {TPM_AUTH_NONE, TPM_AUTH_HMAC, TPM_AUTH_HMAC_ENC, TPM_AUTH_POLICY,
			   TPM_AUTH_POLICY_ENC, 0xff},
    [TPM_AUTH_HMAC] = {TPM_AUTH_HMAC_ENC, TPM_AUTH_POLICY, TPM_AUTH_POLICY_ENC, TPM_AUTH_PASSWORD,
		       TPM_AUTH_NONE, 0xff},
    [TPM_AUTH_HMAC_ENC] = {TPM_AUTH_HMAC, TPM_AUTH_POLICY_ENC, TPM_AUTH_POLICY, TPM_AUTH_PASSWORD,
			   TPM_AUTH_NONE, 0xff},
    [TPM_AUTH_POLICY] = {TPM_AUTH_POLICY_ENC, TPM_AUTH_HMAC, TPM_AUTH_HMAC_ENC, TPM_AUTH_PASSWORD,
			 TPM_AUTH_NONE, 0xff},
    [TPM_AUTH_POLICY_ENC] = {TPM_AUTH_POLICY, TPM_AUTH_HMAC_ENC, TPM_AUTH_HMAC, TPM_AUTH_PASSWORD,
			     TPM_AUTH_NONE, 0xff},
};

/* Best entry of (cc, auth): exact variant, then "-", then the first other. */
static const struct prof_entry *find_auth(const struct profile *p, uint32_t cc, int auth,
					  const char *variant, int *exact_variant)
{
	const struct prof_entry *generic = NULL, *other = NULL;
	for (size_t i = 0; i < p->n; i++) {
		const struct prof_entry *e = &p->e[i];
		if (e->cc != cc || (e->auth != auth && e->auth != PROFILE_AUTH_ANY))
			continue;
		if (!strcmp(e->variant, variant)) {
			*exact_variant = 1;
			return e;
		}
		if (!strcmp(e->variant, "-")) {
			if (!generic)
				generic = e;
		} else if (!other) {
			other = e;
		}
	}
	*exact_variant = 0;
	return generic ? generic : other;
}

const struct prof_entry *profile_lookup(const struct profile *p, uint32_t cc, int auth,
					const char *variant, enum prof_match *how)
{
	int exact = 0;
	const struct prof_entry *e;
	if (!variant)
		variant = "-";
	if (auth < 0 || auth > 5)
		auth = TPM_AUTH_NONE;
	if ((e = find_auth(p, cc, auth, variant, &exact))) {
		*how = exact || !strcmp(variant, "-") ? PROF_EXACT : PROF_OTHER_VARIANT;
		return e;
	}
	for (int i = 0; i < 6 && auth_fallback[auth][i] != 0xff; i++) {
		if ((e = find_auth(p, cc, auth_fallback[auth][i], variant, &exact))) {
			*how = PROF_OTHER_AUTH;
			return e;
		}
	}
	*how = PROF_MISSING;
	return NULL;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double profile_fallback(const struct profile *p)
{
	if (!isnan(p->fallback_ms))
		return p->fallback_ms;
	if (!p->n)
		return 0;
	double *v = malloc(p->n * sizeof *v), med;
	if (!v)
		return p->e[0].mean_ms;
	for (size_t i = 0; i < p->n; i++)
		v[i] = p->e[i].mean_ms;
	qsort(v, p->n, sizeof *v, cmp_dbl);
	med = p->n % 2 ? v[p->n / 2] : (v[p->n / 2 - 1] + v[p->n / 2]) / 2;
	free(v);
	return med;
}

int prof_entry_range(const struct prof_entry *e, double *lo, double *hi)
{
	int spread = 0;
	/* High end: p95, else mean + 1.645 stdev (one-sided 95% of a normal), else max. */
	if (!isnan(e->p95_ms)) {
		*hi = e->p95_ms;
		spread = 1;
	} else if (!isnan(e->stdev_ms)) {
		*hi = e->mean_ms + 1.645 * e->stdev_ms;
		spread = 1;
	} else if (!isnan(e->max_ms)) {
		*hi = e->max_ms;
		spread = 1;
	} else {
		*hi = e->mean_ms;
	}
	/* Low end: mean - 1.645 stdev clamped to min, else min. */
	if (!isnan(e->stdev_ms)) {
		*lo = e->mean_ms - 1.645 * e->stdev_ms;
		if (!isnan(e->min_ms) && *lo < e->min_ms)
			*lo = e->min_ms;
		if (*lo < 0)
			*lo = 0;
		spread = 1;
	} else if (!isnan(e->min_ms)) {
		*lo = e->min_ms;
		spread = 1;
	} else {
		*lo = e->mean_ms;
	}
	if (*hi < e->mean_ms)
		*hi = e->mean_ms; /* p95 below a mean pulled up by outliers */
	if (*lo > e->mean_ms)
		*lo = e->mean_ms;
	return spread;
}

void prof_entry_stats(struct prof_entry *e, double *v, size_t n)
{
	double sum = 0, sq = 0;
	e->n = n;
	e->mean_ms = e->p50_ms = e->p95_ms = e->stdev_ms = e->min_ms = e->max_ms = NAN;
	if (!n)
		return;
	qsort(v, n, sizeof *v, cmp_dbl);
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	e->mean_ms = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += (v[i] - e->mean_ms) * (v[i] - e->mean_ms);
	/* Nearest rank, as the command_stats view and percentile() do. */
	e->p50_ms = v[db_nearest_rank(n, 50) - 1];
	e->p95_ms = v[db_nearest_rank(n, 95) - 1];
	e->min_ms = v[0];
	e->max_ms = v[n - 1];
	if (n > 1)
		e->stdev_ms = sqrt(sq / (double)(n - 1));
}

/* ---- database ---- */

static int have_tables(sqlite3 *db, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int n = 0;
	if (sqlite3_prepare_v2(db,
			       "SELECT count(*) FROM sqlite_schema WHERE type='table' AND name IN "
			       "('profile','profile_entry')",
			       -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		return -EIO;
	}
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (n != 2) {
		snprintf(err, errlen,
			 "the database has no profile tables (created by an older tpmtrace); "
			 "store profiles in a new database");
		return -ENOENT;
	}
	return 0;
}

static void bind_ms(sqlite3_stmt *st, int i, double ms)
{
	if (isnan(ms))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, llround(ms * 1e6));
}

int profile_db_store(sqlite3 *db, const struct profile *p, int replace, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc = have_tables(db, err, errlen);
	int64_t id = 0;
	if (rc)
		return rc;
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		return -EIO;
	}
	if (sqlite3_prepare_v2(db, "SELECT id FROM profile WHERE name=?", -1, &st, NULL))
		goto dberr;
	sqlite3_bind_text(st, 1, p->name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (id && !replace) {
		snprintf(err, errlen, "a profile named '%s' is already stored (use --replace)",
			 p->name);
		rc = -EEXIST;
		goto out;
	}
	if (id) {
		char sql[128];
		snprintf(sql, sizeof sql,
			 "DELETE FROM profile_entry WHERE profile_id=%lld;"
			 "DELETE FROM profile WHERE id=%lld",
			 (long long)id, (long long)id);
		if (sqlite3_exec(db, sql, NULL, NULL, NULL))
			goto dberr;
	}
	if (sqlite3_prepare_v2(
		db,
		"INSERT INTO profile (name, vendor, chip, firmware, bus, measured_by,"
		" date, source, note, covers, lacks, transport_ns, fallback_ns,"
		" created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,"
		" strftime('%Y-%m-%dT%H:%M:%SZ','now'))",
		-1, &st, NULL))
		goto dberr;
	const char *txt[] = {p->name, p->vendor, p->chip, p->firmware, p->bus,	p->measured_by,
			     p->date, p->source, p->note, p->covers,   p->lacks};
	for (int i = 0; i < 11; i++)
		sqlite3_bind_text(st, i + 1, txt[i], -1, SQLITE_STATIC);
	bind_ms(st, 12, p->transport_ms);
	bind_ms(st, 13, p->fallback_ms);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto dberr;
	id = sqlite3_last_insert_rowid(db);
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db,
			       "INSERT INTO profile_entry (profile_id, seq, cc, auth, variant, n,"
			       " mean_ns, p50_ns, p95_ns, stdev_ns, min_ns, max_ns, comment)"
			       " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &st, NULL))
		goto dberr;
	for (size_t i = 0; i < p->n; i++) {
		const struct prof_entry *e = &p->e[i];
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, (int64_t)i);
		sqlite3_bind_int64(st, 3, e->cc);
		sqlite3_bind_text(st, 4, prof_auth_str(e->auth), -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, e->variant, -1, SQLITE_STATIC);
		if (e->n)
			sqlite3_bind_int64(st, 6, (int64_t)e->n);
		else
			sqlite3_bind_null(st, 6);
		bind_ms(st, 7, e->mean_ms);
		bind_ms(st, 8, e->p50_ms);
		bind_ms(st, 9, e->p95_ms);
		bind_ms(st, 10, e->stdev_ms);
		bind_ms(st, 11, e->min_ms);
		bind_ms(st, 12, e->max_ms);
		sqlite3_bind_text(st, 13, e->comment, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto dberr;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL))
		goto dberr;
	return 0;
dberr:
	snprintf(err, errlen, "storing profile '%s': %s", p->name, sqlite3_errmsg(db));
	rc = -EIO;
out:
	sqlite3_finalize(st);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

static double col_ms(sqlite3_stmt *st, int i)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return NAN;
	return (double)sqlite3_column_int64(st, i) / 1e6;
}

int profile_db_load(sqlite3 *db, const char *name, struct profile *p, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int64_t id = 0;
	int rc = have_tables(db, err, errlen);
	profile_init(p);
	if (rc)
		return rc;
	if (sqlite3_prepare_v2(db,
			       "SELECT id, name, vendor, chip, firmware, bus, measured_by, date,"
			       " source, note, covers, lacks, transport_ns, fallback_ns"
			       " FROM profile WHERE name=?",
			       -1, &st, NULL))
		goto dberr;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW) {
		snprintf(err, errlen, "no profile named '%s' in the database", name);
		rc = -ENOENT;
		goto out;
	}
	id = sqlite3_column_int64(st, 0);
	static const char *const keys[] = {"name", "vendor",	  "chip", "firmware",
					   "bus",  "measured-by", "date", "source",
					   "note", "covers",	  "lacks"};
	for (int i = 0; i < 11; i++) {
		const char *v = (const char *)sqlite3_column_text(st, i + 1);
		if (v && (rc = profile_set(p, keys[i], v)))
			goto out;
	}
	p->transport_ms = col_ms(st, 12);
	if (isnan(p->transport_ms))
		p->transport_ms = 0;
	p->fallback_ms = col_ms(st, 13);
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db,
			       "SELECT cc, auth, variant, n, mean_ns, p50_ns, p95_ns, stdev_ns,"
			       " min_ns, max_ns, comment FROM profile_entry WHERE profile_id=?"
			       " ORDER BY seq",
			       -1, &st, NULL))
		goto dberr;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct prof_entry e = {0};
		char msg[200];
		const char *a = (const char *)sqlite3_column_text(st, 1);
		const char *v = (const char *)sqlite3_column_text(st, 2);
		int ak = a ? prof_auth_parse(a) : -1;
		e.cc = (uint32_t)sqlite3_column_int64(st, 0);
		e.n = (uint64_t)sqlite3_column_int64(st, 3);
		e.mean_ms = col_ms(st, 4);
		e.p50_ms = col_ms(st, 5);
		e.p95_ms = col_ms(st, 6);
		e.stdev_ms = col_ms(st, 7);
		e.min_ms = col_ms(st, 8);
		e.max_ms = col_ms(st, 9);
		e.comment = (char *)sqlite3_column_text(st, 10);
		if (ak < 0 || !v || strlen(v) >= sizeof e.variant ||
		    profile_check_entry(&e, msg, sizeof msg)) {
			snprintf(err, errlen, "profile '%s' in the database: entry %zu is corrupt",
				 name, p->n + 1);
			rc = -EINVAL;
			goto out;
		}
		e.auth = (uint8_t)ak;
		strcpy(e.variant, v);
		if ((rc = profile_add(p, &e)))
			goto out;
	}
	if (rc != SQLITE_DONE)
		goto dberr;
	rc = 0;
	goto out;
dberr:
	snprintf(err, errlen, "loading profile '%s': %s", name, sqlite3_errmsg(db));
	rc = -EIO;
out:
	sqlite3_finalize(st);
	if (rc)
		profile_release(p);
	return rc;
}

int profile_db_list(sqlite3 *db,
		    void (*fn)(void *ctx, const char *name, const char *chip, const char *source,
			       int64_t entries),
		    void *ctx, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc = have_tables(db, err, errlen);
	if (rc)
		return rc;
	if (sqlite3_prepare_v2(db,
			       "SELECT name, chip, source, (SELECT count(*) FROM profile_entry e"
			       " WHERE e.profile_id = p.id) FROM profile p ORDER BY name",
			       -1, &st, NULL)) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		return -EIO;
	}
	while (sqlite3_step(st) == SQLITE_ROW)
		fn(ctx, (const char *)sqlite3_column_text(st, 0),
		   (const char *)sqlite3_column_text(st, 1),
		   (const char *)sqlite3_column_text(st, 2), sqlite3_column_int64(st, 3));
	sqlite3_finalize(st);
	return 0;
}

int profile_learn(sqlite3 *db, int64_t trace_id, struct profile *p, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	double *v = NULL;
	size_t n = 0, cap = 0;
	int64_t cur_cc = -1, cur_auth = -1;
	int rc = 0, step;
	char buf[256];

	profile_init(p);
	/* Sorted by group so that each group's samples are contiguous; the
	 * sample array is reused across groups. */
	if (sqlite3_prepare_v2(db,
			       "SELECT cc, coalesce(auth_kind, 0), latency_ns FROM command"
			       " WHERE trace_id=? AND latency_ns IS NOT NULL AND cc IS NOT NULL"
			       " AND (flags & 10) = 0 ORDER BY cc, 2",
			       -1, &st, NULL)) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, trace_id);
	for (;;) {
		step = sqlite3_step(st);
		int64_t cc = -2, auth = -2;
		if (step == SQLITE_ROW) {
			cc = sqlite3_column_int64(st, 0);
			auth = sqlite3_column_int64(st, 1);
		} else if (step != SQLITE_DONE) {
			snprintf(err, errlen, "reading trace %lld: %s", (long long)trace_id,
				 sqlite3_errmsg(db));
			rc = -EIO;
			goto out;
		}
		if ((cc != cur_cc || auth != cur_auth) && n) {
			struct prof_entry e = {0};
			e.cc = (uint32_t)cur_cc;
			e.auth = cur_auth >= 0 && cur_auth <= 5 ? (uint8_t)cur_auth : 0;
			strcpy(e.variant, "-");
			prof_entry_stats(&e, v, n);
			/* A command answered in under a microsecond is a cached or
			 * synthetic time, not a latency: clamp to 1 us. */
			if (e.min_ms <= 0)
				e.min_ms = 0.001;
			if (e.p50_ms <= 0)
				e.p50_ms = 0.001;
			if (e.p95_ms <= 0)
				e.p95_ms = 0.001;
			if (e.mean_ms <= 0)
				e.mean_ms = 0.001;
			if (profile_check_entry(&e, buf, sizeof buf) == 0)
				rc = profile_add(p, &e);
			if (rc == -EEXIST)
				rc = 0;
			if (rc)
				goto out;
			n = 0;
		}
		if (step == SQLITE_DONE)
			break;
		cur_cc = cc;
		cur_auth = auth;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			double *nv = realloc(v, cap * sizeof *v);
			if (!nv) {
				rc = -ENOMEM;
				goto out;
			}
			v = nv;
		}
		v[n++] = (double)sqlite3_column_int64(st, 2) / 1e6;
	}
	if (!p->n) {
		snprintf(err, errlen, "trace %lld has no commands with a latency to learn from",
			 (long long)trace_id);
		rc = -ENOENT;
		goto out;
	}
	snprintf(buf, sizeof buf, "learned-trace-%lld", (long long)trace_id);
	profile_set(p, "name", buf);
	snprintf(buf, sizeof buf, "tpmtrace profile learn, trace %lld", (long long)trace_id);
	profile_set(p, "source", buf);
	profile_set(p, "measured-by", "tpmtrace (recorded latencies)");
	profile_set(p, "covers",
		    "the commands of the trace, as recorded (variants not told apart)");
	profile_set(p, "note",
		    "Latencies as seen by the recorder include its transport; transport-ms is 0.");
out:
	sqlite3_finalize(st);
	free(v);
	if (rc)
		profile_release(p);
	return rc;
}
