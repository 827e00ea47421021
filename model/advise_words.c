/* advise's words for each finding (model/advise_words.h). */
#include "model/advise_words.h"

#include <stdio.h>
#include <string.h>

#include "model/policy.h"

/* The words of each finding: what, and the change by who makes it. */
struct kind_text {
	const char *what;
	const char *who_kernel, *change_kernel;
	const char *who_app, *change_app;
};

static const struct kind_text texts[ADVISE__COUNT] = {
    [ADVISE_REPEATED_PRIMARY] =
	{"the same primary key re-created: CreatePrimary with the same hierarchy and template",
	 "kernel", "create the null key once and keep it (the persistent-key design)",
	 "application",
	 "create the primary once and keep it: make it persistent once (tpm2_evictcontrol -C o "
	 "-c primary.ctx 0x81000001) and use the handle (-c 0x81000001) instead of creating it "
	 "again; or keep the first one loaded"},
    [ADVISE_SESSION_PER_CMD] =
	{"a session set up for every command: StartAuthSession (with its salt key's load and "
	 "flush) for one use, then ended",
	 "kernel",
	 "use Linux 6.12 or later, which keeps its session (lazy flush, preset linux-6.12), or "
	 "build with CONFIG_TCG_TPM2_HMAC=n (the default since 6.18, preset password)",
	 "application (TSS user)",
	 "start the session once with continueSession set and use it for every command "
	 "(ESYS: Esys_TRSess_SetAttributes with TPMA_SESSION_CONTINUESESSION)"},
    [ADVISE_USER_INTERLEAVE] =
	{"the kernel's session re-created after user space used the TPM (a user-space write to "
	 "/dev/tpm* ends it)",
	 "kernel",
	 "build with CONFIG_TCG_TPM2_HMAC=n (the default since 6.18), or keep the session "
	 "across user-space access (policy knob user-flush=off); user space: do its TPM work "
	 "before or after the kernel's",
	 "user space", "do the TPM work before or after the kernel's, not between its commands"},
    [ADVISE_POLICY_REBUILT] =
	{"policy sessions rebuilt with the same policy: a new StartAuthSession and FlushContext "
	 "for each use",
	 "kernel", "keep the policy session (continueSession) and run its assertions again",
	 "application",
	 "keep one policy session (continueSession set) and run its assertions again before each "
	 "use (the TPM resets a used policy session) instead of starting a new one"},
    [ADVISE_HWRNG_SESSION] = {"reads of the kernel's TPM hwrng ending the kernel's HMAC session",
			      "kernel",
			      "build without CONFIG_HW_RANDOM_TPM (policy knob hwrng=off), or with "
			      "CONFIG_TCG_TPM2_HMAC=n (the default since 6.18)",
			      "kernel",
			      "build without CONFIG_HW_RANDOM_TPM (policy knob hwrng=off)"},
    [ADVISE_OUTLIERS] =
	{"commands far above their kind's p95 in this trace, and retries (TPM_RC_RETRY, "
	 "YIELDED, TESTING)",
	 "firmware or driver",
	 "find what delays them: a self-test not started early (TPM2_SelfTest), a retry loop, "
	 "a stall of the bus; the saving is each one's time above its kind's median",
	 "firmware or driver",
	 "find what delays them: a self-test not started early (TPM2_SelfTest), a retry loop, "
	 "a stall of the bus; the saving is each one's time above its kind's median"},
    [ADVISE_CONTEXT_CHURN] =
	{"objects and sessions swapped by a resource manager: saved (ContextSave, FlushContext) "
	 "after a command and loaded again (ContextLoad) before the next",
	 "application (behind the resource manager)",
	 "keep fewer objects and sessions loaded across commands, each flushed as soon as it is "
	 "not needed: the resource manager (/dev/tpmrm0, tpm2-abrmd) saves and reloads every one "
	 "it holds around each command; make a key used again and again persistent "
	 "(tpm2_evictcontrol); as the TPM's only user, /dev/tpm0 instead (nothing swapped; "
	 "assumes no other program uses the TPM meanwhile)",
	 "application",
	 "flush each object and session as soon as it is not needed (tpm2_flushcontext; ESYS: "
	 "Esys_FlushContext) and keep few loaded across commands: the resource manager "
	 "(tpm2-abrmd, /dev/tpmrm0) saves and reloads every one it holds for you around each "
	 "command; make a "
	 "key used again and again persistent (tpm2_evictcontrol); as the TPM's only user, open "
	 "/dev/tpm0 (TCTI device:/dev/tpm0) instead, where nothing is swapped (assumes no other "
	 "program uses the TPM meanwhile, and that yours fit its few object slots)"},
    [ADVISE_FAILED_REDONE] =
	{"work lost to failures: a policy session's use answered TPM_RC_PCR_CHANGED (a PCR "
	 "extended after its PolicyPCR), the session set up and asserted for nothing; an "
	 "NV_DefineSpace answered TPM_RC_NV_DEFINED",
	 "kernel or boot order",
	 "extend the PCRs before a policy session asserts them (order the measurements and the "
	 "unlock), and look an NV index up (NV_ReadPublic) before defining it",
	 "application",
	 "build the policy session after the PCR extends it depends on (order the measuring "
	 "services before the unlock: systemd #42615), and look an NV index up (NV_ReadPublic) "
	 "before defining it (systemd #41268)"},
};

/* The change is an application's when user space sent most of the
 * finding's commands, or when nothing names the kernel and every client
 * has a pid (a recording through a proxy: programs, not the kernel). */
static int by_app(const struct advise_finding *f, const struct advise_client *cn)
{
	if (f->by_origin[POL_ORIGIN_USER] >
	    f->by_origin[POL_ORIGIN_KERNEL] + f->by_origin[POL_ORIGIN_UNKNOWN])
		return 1;
	if (f->by_origin[POL_ORIGIN_KERNEL] || !f->n_clients)
		return 0;
	for (unsigned k = 0; k < f->n_clients; k++)
		if (!cn[k].has_pid)
			return 0;
	return 1;
}

void advise_clients_load(sqlite3 *db, int64_t id, const struct advise_finding *f,
			 struct advise_client *out)
{
	sqlite3_stmt *st;
	memset(out, 0, sizeof *out * ADVISE_MAX_CLIENTS);
	/* a replay has no clients of its own: its source's (advise_load) */
	if (sqlite3_prepare_v2(db,
			       "SELECT comm, peer, pid FROM client WHERE id=?2 AND trace_id = CASE"
			       " WHEN EXISTS (SELECT 1 FROM client WHERE trace_id=?1) THEN ?1"
			       " ELSE (SELECT parent_id FROM trace WHERE id=?1) END",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	for (unsigned k = 0; k < f->n_clients; k++) {
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, f->clients[k]);
		if (sqlite3_step(st) == SQLITE_ROW) {
			const char *c = (const char *)sqlite3_column_text(st, 0);
			const char *p = (const char *)sqlite3_column_text(st, 1);
			snprintf(out[k].comm, sizeof out[k].comm, "%s", c ? c : "?");
			snprintf(out[k].peer, sizeof out[k].peer, "%s", p ? p : "");
			out[k].has_pid = sqlite3_column_type(st, 2) != SQLITE_NULL;
			out[k].pid = sqlite3_column_int64(st, 2);
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
}

void advise_words_of(const struct advise_finding *f, const struct advise_client *cn,
		     struct advise_words *out)
{
	const struct kind_text *t = &texts[f->kind];
	int app = by_app(f, cn);
	out->what = t->what;
	out->who = app ? t->who_app : t->who_kernel;
	out->change = app ? t->change_app : t->change_kernel;
}

void advise_words(sqlite3 *db, int64_t id, const struct advise_finding *f, struct advise_words *out)
{
	struct advise_client cn[ADVISE_MAX_CLIENTS];
	advise_clients_load(db, id, f, cn);
	advise_words_of(f, cn, out);
}
