/* The one session-policy expansion that `predict` and `replay` share lives in
 * model/policy.h. Until that file is merged, replayer/policy_interim.h stands
 * in for it with the same names and types (presets only); the interim files
 * compile to nothing once model/policy.h exists, and are then deleted. */
#ifndef TPMTRACE_POLICY_API_H
#define TPMTRACE_POLICY_API_H

#if __has_include("model/policy.h")
#include "model/policy.h"
#else
#include "replayer/policy_interim.h"
#endif

#endif
