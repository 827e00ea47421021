/* Latency profiles (model/profile.h, format in docs/profiles.md): profile_parse
 * and profile_load_file read the text format (header keys, one line per
 * command, authorization kind and variant, errors naming file:line),
 * profile_write writes it back, profile_add, profile_set and profile_check
 * build and validate one in memory, and profile_lookup finds the entry that
 * prices a command - exact variant first, then the generic entry, then another
 * of the same command, saying how it matched - with profile_fallback for
 * commands the profile lacks. profile_entry_range gives an entry's range (p95,
 * else mean + 1.645 stdev, else max; the low end likewise) and profile_entry_stats
 * fills an entry from raw measurements. Command names come from the command
 * table (model/tpm/tpm_cc.h). */
#include "model/profile.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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
int profile_auth_parse(const char *s)
{
	if (!strcmp(s, "*"))
		return PROFILE_AUTH_ANY;
	for (int i = TPM_AUTH_NONE; i <= TPM_AUTH_POLICY_ENC; i++)
		if (!strcmp(s, tpm_auth_kind_str(i)))
			return i;
	return -1;
}

const char *profile_auth_str(int auth)
{
	if (auth == PROFILE_AUTH_ANY)
		return "*";
	return tpm_auth_kind_str(auth);
}

const char *profile_match_str(int m)
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

/* The figures of an entry, in the text format's order. */
#define STAT(f)                                                                                    \
	{                                                                                          \
#f, offsetof(struct prof_entry, f##_ms)                                            \
	}
static const struct {
	const char *name;
	size_t off;
} stat_fields[] = {STAT(mean), STAT(p50),   STAT(p90), STAT(p95),
		   STAT(p99),  STAT(stdev), STAT(min), STAT(max)};
#undef STAT
#define N_STATS		(sizeof stat_fields / sizeof stat_fields[0])
#define STAT_OF(e, i)	(*(double *)((char *)(e) + stat_fields[i].off))
#define STAT_OF_C(e, i) (*(const double *)((const char *)(e) + stat_fields[i].off))

void profile_entry_clear(struct prof_entry *e)
{
	for (size_t i = 0; i < N_STATS; i++)
		STAT_OF(e, i) = NAN;
}

void profile_entry_floor(struct prof_entry *e, double floor_ms)
{
	for (size_t i = 0; i < N_STATS; i++)
		if (strcmp(stat_fields[i].name, "stdev") && !isnan(STAT_OF(e, i)) &&
		    STAT_OF(e, i) < floor_ms)
			STAT_OF(e, i) = floor_ms;
}

int profile_check_entry(const struct prof_entry *e, char *err, size_t errlen)
{
	if (isnan(e->mean_ms)) {
		snprintf(err, errlen, "mean= is required");
		return -EINVAL;
	}
	for (size_t i = 0; i < N_STATS; i++) {
		double v = STAT_OF_C(e, i);
		int stdev = !strcmp(stat_fields[i].name, "stdev"); /* may be 0 */
		if (isnan(v))
			continue;
		if (isinf(v) || v < 0 || (v == 0 && !stdev)) {
			snprintf(err, errlen, "%s=%g ms: a latency must be positive and finite",
				 stat_fields[i].name, v);
			return -EINVAL;
		}
		if (v > PROFILE_MAX_MS) {
			snprintf(err, errlen, "%s=%g ms is absurd (more than %g ms)",
				 stat_fields[i].name, v, PROFILE_MAX_MS);
			return -EINVAL;
		}
	}
	/* min <= p50 <= p90 <= p95 <= p99 <= max and min <= mean <= max, where known. */
	double order[] = {e->min_ms, e->p50_ms, e->p90_ms, e->p95_ms, e->p99_ms, e->max_ms};
	const char *on[] = {"min", "p50", "p90", "p95", "p99", "max"};
	for (int i = 0; i < 6; i++)
		for (int j = i + 1; j < 6; j++)
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

int profile_check(const struct profile *p, char *err, size_t errlen)
{
	char why[1024];
	for (size_t i = 0; i < p->n; i++)
		if (profile_check_entry(&p->e[i], why, sizeof why)) {
			snprintf(err, errlen, "entry %zu: %s", i + 1, why);
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
	profile_entry_clear(e);
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
	int a = profile_auth_parse(auth);
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
		if (!strcmp(tok, "derived")) {
			if (!(e->derived_from = parse_cc(eq + 1))) {
				snprintf(err, errlen,
					 "derived=%s: the command whose figures these are (a TPM2 "
					 "command name or 0x code)",
					 eq + 1);
				return -EINVAL;
			}
			continue;
		}
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
		double *f = NULL;
		for (size_t i = 0; i < N_STATS && !f; i++)
			if (!strcmp(tok, stat_fields[i].name))
				f = &STAT_OF(e, i);
		if (!f) {
			snprintf(
			    err, errlen,
			    "unknown field '%s' (n, mean, p50, p90, p95, p99, stdev, min, max)",
			    tok);
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
				 profile_auth_str(e.auth), e.variant, first);
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
			fprintf(f, "%-18s %-10s %-14s", nm, profile_auth_str(e->auth), e->variant);
		else
			fprintf(f, "0x%08X %-10s %-14s", e->cc, profile_auth_str(e->auth),
				e->variant);
		if (e->derived_from) {
			const char *dn = tpm_cc_name(e->derived_from);
			if (dn)
				fprintf(f, " derived=%s", dn);
			else
				fprintf(f, " derived=0x%08X", e->derived_from);
		}
		if (e->n)
			fprintf(f, " n=%llu", (unsigned long long)e->n);
		for (size_t k = 0; k < N_STATS; k++) {
			if (isnan(STAT_OF_C(e, k)))
				continue;
			fmt_num(b, sizeof b, STAT_OF_C(e, k));
			fprintf(f, " %s=%s", stat_fields[k].name, b);
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

int profile_entry_range(const struct prof_entry *e, double *lo, double *hi)
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

void profile_entry_stats(struct prof_entry *e, double *v, size_t n)
{
	double sum = 0, sq = 0;
	e->n = n;
	profile_entry_clear(e);
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
	e->p90_ms = v[db_nearest_rank(n, 90) - 1];
	e->p95_ms = v[db_nearest_rank(n, 95) - 1];
	e->p99_ms = v[db_nearest_rank(n, 99) - 1];
	e->min_ms = v[0];
	e->max_ms = v[n - 1];
	if (n > 1)
		e->stdev_ms = sqrt(sq / (double)(n - 1));
}

unsigned profile_commands(const struct profile *p)
{
	unsigned n = 0;
	for (size_t i = 0; i < p->n; i++) {
		size_t j = 0;
		while (j < i && p->e[j].cc != p->e[i].cc)
			j++;
		n += j == i;
	}
	return n;
}

unsigned profile_derived(const struct profile *p)
{
	unsigned n = 0;
	for (size_t i = 0; i < p->n; i++)
		n += p->e[i].derived_from != 0;
	return n;
}

/* The commands a Linux boot with the kernel's HMAC sessions sends. */
static const uint32_t boot_cmds[] = {
    TPM_CC_PCR_Extend,	 TPM_CC_StartAuthSession, TPM_CC_ContextLoad,  TPM_CC_ContextSave,
    TPM_CC_FlushContext, TPM_CC_GetRandom,	  TPM_CC_CreatePrimary};
#define N_BOOT (sizeof boot_cmds / sizeof boot_cmds[0])

/* Whether p has an entry of cc (1: measured among them, 2: derived only). */
static int has_cc(const struct profile *p, uint32_t cc)
{
	int have = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->e[i].cc == cc) {
			if (!p->e[i].derived_from)
				return 1;
			have = 2;
		}
	return have;
}

unsigned profile_boot_covered(const struct profile *p, unsigned *derived, unsigned *total)
{
	unsigned n = 0;
	*total = N_BOOT;
	*derived = 0;
	for (unsigned k = 0; k < N_BOOT; k++) {
		int h = has_cc(p, boot_cmds[k]);
		n += h != 0;
		*derived += h == 2;
	}
	return n;
}

unsigned profile_boot_missing(const struct profile *p, char *names, size_t len)
{
	unsigned n = 0;
	size_t l = 0;
	if (len)
		names[0] = 0;
	for (unsigned k = 0; k < N_BOOT; k++)
		if (!has_cc(p, boot_cmds[k])) {
			if (l < len)
				l += (size_t)snprintf(names + l, len - l, "%s%s", n ? " " : "",
						      tpm_cc_name(boot_cmds[k]));
			n++;
		}
	return n;
}

double profile_spread_share(const struct profile *p)
{
	unsigned n = 0;
	double lo, hi;
	for (size_t i = 0; i < p->n; i++)
		n += profile_entry_range(&p->e[i], &lo, &hi) != 0;
	return p->n ? (double)n / (double)p->n : 0;
}

const struct prof_entry *profile_lookup_exact(const struct profile *p, uint32_t cc, int auth,
					      const char *variant)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->e[i].cc == cc && p->e[i].auth == auth && !strcmp(p->e[i].variant, variant))
			return &p->e[i];
	return NULL;
}

int profile_vendor_is(const struct profile *p, const char *prefix)
{
	return !prefix || (p->vendor && !strncasecmp(p->vendor, prefix, strlen(prefix)));
}
