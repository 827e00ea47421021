/* Derived profile entries: figures for commands a source did not time, made
 * from commands it did by a documented rule (docs/profiles.md, "Derived
 * entries"), each entry marked derived (derived_from: the rule's first
 * source command) with the rule in its comment. */
#ifndef TPMTRACE_PROFILE_DERIVE_H
#define TPMTRACE_PROFILE_DERIVE_H

#include <stddef.h>

#include "model/profile.h"

/* Adds to p every derived entry whose sources p has and whose (command,
 * authorization, variant) it lacks; measured entries are never replaced.
 * names (if not NULL) gets the derived commands' names, space-separated, in
 * the rules' order, each once. Returns how many entries were added, or
 * -ENOMEM. */
int profile_derive(struct profile *p, char *names, size_t len);

/* The commands no rule derives although a Linux boot or a tpm2-tools
 * workload sends them (NV writes, Startup, SelfTest: no timed operation
 * says what they cost), for a profile's lacks line. */
extern const char profile_derive_never[];

#endif
