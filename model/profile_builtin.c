/* The shipped profiles, embedded from model/profiles/ at build time. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "builtin_profiles.h"
#include "model/profile.h"

unsigned profile_builtin_count(void)
{
	return (unsigned)(sizeof builtin_profiles / sizeof builtin_profiles[0]);
}

const char *profile_builtin_name(unsigned i, char *buf, size_t len)
{
	if (i >= profile_builtin_count())
		return NULL;
	const char *f = builtin_profiles[i].file;
	size_t l = strlen(f);
	if (l > 8 && !strcmp(f + l - 8, ".profile"))
		l -= 8;
	snprintf(buf, len, "%.*s", (int)l, f);
	return buf;
}

const char *profile_builtin_text(unsigned i)
{
	return i < profile_builtin_count() ? builtin_profiles[i].text : NULL;
}

int profile_load_builtin(const char *name, struct profile *p, char *err, size_t errlen)
{
	char buf[128], where[160];
	profile_init(p);
	for (unsigned i = 0; i < profile_builtin_count(); i++) {
		if (strcmp(profile_builtin_name(i, buf, sizeof buf), name))
			continue;
		snprintf(where, sizeof where, "shipped:%s", builtin_profiles[i].file);
		return profile_parse(builtin_profiles[i].text, strlen(builtin_profiles[i].text),
				     where, p, err, errlen);
	}
	snprintf(err, errlen, "no shipped profile named '%s'", name);
	return -ENOENT;
}

int profile_builtin_list(void (*fn)(void *ctx, const struct profile *p), void *ctx, char *err,
			 size_t errlen)
{
	char buf[128], why[1024];
	int rc = 0;
	for (unsigned i = 0; i < profile_builtin_count(); i++) {
		struct profile b;
		profile_builtin_name(i, buf, sizeof buf);
		if (profile_load_builtin(buf, &b, why, sizeof why)) {
			if (!rc)
				snprintf(err, errlen, "%s", why);
			rc = -EINVAL;
			continue;
		}
		fn(ctx, &b);
		profile_release(&b);
	}
	return rc;
}

int profile_resolve(sqlite3 *db, const char *arg, struct profile *p, const char **from, char *err,
		    size_t errlen)
{
	size_t l = strlen(arg);
	int looks_file = strchr(arg, '/') || (l > 8 && !strcmp(arg + l - 8, ".profile"));
	struct stat st;
	int rc;

	profile_init(p);
	if (looks_file || stat(arg, &st) == 0) {
		*from = "file";
		return profile_load_file(arg, p, err, errlen);
	}
	if (db) {
		rc = profile_db_load(db, arg, p, err, errlen);
		if (rc != -ENOENT) {
			*from = "database";
			return rc;
		}
	}
	*from = "shipped";
	rc = profile_load_builtin(arg, p, err, errlen);
	if (rc == -ENOENT)
		snprintf(err, errlen,
			 "no profile '%s': not a file, not in the database%s, not shipped (see "
			 "'tpmtrace profile list')",
			 arg, db ? "" : " (none given)");
	return rc;
}
