/* Latency profiles from other tools' files (docs/profiles.md): ftrace
 * captures and tpmscan/wolfTPM result files; errors name path:line. */
#ifndef TPMTRACE_PROFILE_IMPORT_H
#define TPMTRACE_PROFILE_IMPORT_H

#include <stddef.h>

#include "model/profile.h"

int import_profile_ftrace(const char *path, struct profile *p, char *err, size_t errlen);
/* Reads path in format "profile" (the text format), "ftrace" or "tpmscan"
 * (the importers above). Returns 0, -ENOTSUP for another format (err:
 * "unknown format ..."), or the loader's error. */
int import_profile_file(const char *format, const char *path, struct profile *p, char *err,
			size_t errlen);

#endif
