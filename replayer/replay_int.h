/* The replay engine's private header (replayer/ only; the interface is
 * replay.h): the state of one run (struct rp), the maps it keeps, and the
 * functions its files share. See docs/replay.md. */
#ifndef TPMTRACE_REPLAY_INT_H
#define TPMTRACE_REPLAY_INT_H

#include "replayer/replay.h"

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "db/db.h"
#include "db/writer.h"
#include "model/emulate.h"
#include "model/policy.h"
#include "model/tpm/constants.h"
#include "model/tpm/decode.h"
#include "model/tpm/redact.h"
#include "model/tpm/session.h"
#include "model/tpm/tpm_cc_effects.h"
#include "model/tpm/tpm_ht.h"
#include "model/tpm/variant.h"
#include "model/tpm/wire.h"
#include "model/trace_stream.h"
#include "recorder/recorder.h"
#include "recorder/transport/swtpm_spawn.h"
#include "recorder/transport/tpmconn.h"

#define PUB_MAX	  1200
#define MAX_OBJS  64
#define MAX_SESS  32
#define CLEAN_MAX 256 /* handles of one kind listed on a target */
#define MADE_MAX  32

/* Handles of one kind (GetCapability TPM_CAP_HANDLES) on the target. */
struct handle_set {
	unsigned n;
	uint32_t h[CLEAN_MAX];
};
/* The kinds of handle a run may leave behind (clean_kinds[] in replay_clean.c). */
#define N_CLEAN_KINDS 5

/* An entity the replay knows: recorded handle, the target's handle, its Name
 * and (objects) its public area, for salts and Names without extra commands. */
struct obj {
	uint32_t rec, rep;
	uint8_t used, has_name;
	uint8_t created; /* by a command of the replay, for client (rm_spaces) */
	uint32_t client;
	struct tpm_name name;
	uint16_t publen;
	uint8_t pub[PUB_MAX]; /* TPM2B_PUBLIC, size included */
};

/* A session the trace started, as re-created on the target. */
struct rsess {
	uint32_t rec, client;
	uint8_t used, type;
	uint8_t bound, pol_authvalue, pol_password;
	struct sess s;
	struct tpm_name bind_name;
};

/* ContextSave of the recording <-> ContextSave of the replay. */
struct ctxmap {
	uint8_t digest[32]; /* SHA-256 of the recorded TPMS_CONTEXT */
	uint8_t *blob;
	size_t len;
	uint32_t rec_handle;
	struct obj o; /* the object saved (not for sessions) */
	int is_obj;
};

/* outPrivate (and outPublic) of the recording <-> those the target made:
 * a private blob only loads on the TPM that wrapped it (Part 1 23.3). */
struct privmap {
	uint8_t digest[32];  /* SHA-256 of the recorded TPM2B_PRIVATE */
	uint8_t *priv, *pub; /* TPM2Bs, size included */
	size_t privlen, publen;
	int has_auth; /* the userAuth the replay's Create sent */
	struct replay_auth auth;
};

/* authValues the replay itself gave entities it created (rp_learn_auth). */
#define REPLAY_MAX_LEARNED 64

/* Resubmissions of one command the TPM answered with a retry-class warning
 * (tpm2-tss ESYS and the kernel's tpm_transmit resend such a command too):
 * enough for a busy TPM, bounded so that one stuck answer cannot hang a
 * run. */
#define REPLAY_MAX_RETRIES 16

/* A row of the source trace as the reader copied it (rp_src_next, replay_src.c):
 * a command (event 0) or an event (kind); its pointers stay valid until the
 * next rp_src_next. */
struct rp_src_row {
	int event;
	uint64_t seq;
	const uint8_t *cmd, *rsp; /* NULL when the column is NULL or empty */
	size_t len, rsp_len;
	const char *kind; /* an event's kind */
	uint32_t flags;
	int has_rc, has_cc, has_client;
	uint32_t rc, rsp_handle, cc;
	uint64_t latency_ns;
	int64_t client;
};
struct rp_src;
int rp_src_start(struct rp_src **out, sqlite3 *db, int64_t trace_id, char *err, size_t errlen);
const struct rp_src_row *rp_src_next(struct rp_src *s);
int rp_src_end(const struct rp_src *s, char *err, size_t errlen);
void rp_src_stop(struct rp_src *s);

struct src_cmd {
	uint64_t seq;
	uint32_t client; /* client_id */
	const uint8_t *cmd, *rsp;
	size_t len, rsp_len;
	uint32_t flags;
	int has_rc;
	uint32_t rc, rsp_handle;
	struct tpm_cmd c;
	struct pol_cmd pc;
	long load_priv; /* Load: the x->priv entry its blob maps to, or -1 */
};

/* The entity map: what the recording's handles, contexts and blobs are on
 * the target, the authValues the replay gave, what the run made. */
struct rp_entities {
	struct obj objs[MAX_OBJS];
	unsigned n_objs; /* objs[] below this index were used (rp_obj_add) */
	struct ctxmap *ctx;
	size_t n_ctx, cap_ctx;
	struct privmap *priv;
	size_t n_priv, cap_priv;
	struct replay_auth learned[REPLAY_MAX_LEARNED];
	unsigned n_learned;
	/* NV indices and persistent objects the run made itself (the
	 * destructive commands that remove them again are the run's own
	 * business). */
	uint32_t made_nv[MADE_MAX], made_persist[MADE_MAX];
	unsigned n_made_nv, n_made_persist;
};

/* The session table: the trace's sessions as re-created on the target, and
 * the kernel's null key and its session. */
struct rp_sessions {
	struct sess_crypto cr; /* the session cryptography's contexts */
	struct rsess sess[MAX_SESS];
	struct tpm_ecc_key nk;
	uint8_t nk_ctx[2048];
	size_t nk_ctx_len;
	uint32_t nk_loaded;
	struct sess ks;
	int ks_live;
	/* reuse=saved: the kept session's context, saved between its uses */
	int ks_saved;
	uint8_t ks_ctx[2048];
	size_t ks_ctx_len;
};

/* Resubmission state. A command the recording shows answered TPM_RC_RETRY
 * (or YIELDED, TESTING) and resubmitted, which the target here answered at
 * once: the recording's resubmission (the same bytes next) is not sent
 * again. When it succeeded: what the bookkeeping of a success needs (the
 * handles and the response it got, the parameters it sent), done again
 * with the resubmission's recorded response, which is the one later
 * commands refer to (a Create's outPrivate, a CreatePrimary's handle). */
struct rp_resub {
	int armed;
	uint64_t seq;
	size_t len;
	uint8_t cmd[TPM_MAX_MESSAGE];
	int ok;
	int outcome; /* the command's own outcome: its resubmission's too */
	char reason[200];
	uint32_t hs[3];
	long load_priv;
	size_t rsp_len, pl, sent_len;
	uint8_t rsp[TPM_MAX_MESSAGE], pp[TPM_MAX_MESSAGE], sent[TPM_MAX_MESSAGE];
};

/* What the notes and the transfers of the source command being replayed
 * know of it, kept by value: the command itself (struct src_cmd, one_command's)
 * is passed to the functions that work on it. */
struct rp_cur {
	int set;
	uint64_t seq;
	uint32_t flags;
	int has_rc;
	uint32_t rc;
	uint32_t client; /* its client_id: the stored client of what it sends */
};

/* The target of a run: the connection (and the latency emulation on it),
 * the swtpm it spawned, what a target that is not ours held before. */
struct rp_target {
	struct tpmconn t;
	struct emulator em;
	int have_em;
	struct swtpm_child sw;
	int spawned;
	/* On a target other than the spawned swtpm: what it held before the run
	 * (have_before: listed). */
	int have_before, before_due;
	struct handle_set before[N_CLEAN_KINDS];
	uint8_t buf[TPM_MAX_MESSAGE];
};

/* Where the run is stored: the writer and the recorder on the connection. */
struct rp_store {
	struct writer *w;
	struct recorder rec;
};

/* The policy the run applies and its state. */
struct rp_policy {
	struct policy pol;
	struct pol_state ps;
	/* The kernel registers its null key after TPM2_Startup: policy steps
	 * that come before the TPM is started wait for it. */
	int started;
	struct pol_out deferred[8];
	unsigned n_deferred;
};

/* The source command being replayed, what has become of it, and the run's
 * fatal error. */
struct rp_now {
	/* the source command being expanded by the policy (one_command's own),
	 * NULL between commands: its ORIGINAL step sends it */
	struct src_cmd *src;
	struct rp_cur cur;
	int cur_outcome; /* REPLAY_* of the current source command */
	char cur_reason[200];
	int cur_role;
	struct rp_resub resub;
	int fatal;
};

/* The trace's clients. It was recorded in front of a resource manager with
 * a space per client (tpm-cuse-proxy on /dev/tpmrmN) when rm_spaces: when a
 * client has sent its last command, its objects and sessions are flushed as
 * the resource manager does (objects after each command, sessions when the
 * client closes /dev/tpmrm0: tpm2_del_space), so that a multi-process trace
 * (clevis: one tpm2-tools process per step) fits the target's slots. */
struct rp_clients {
	int rm_spaces;
	uint64_t *cl_last; /* by client id: seq of its last command */
	size_t n_cl;
	uint8_t *origin; /* per client id (trace_origins_load) */
	/* By client id, below n_first: the t_submit of its first command
	 * stored in the run, 0 while none (rp_client_sent). */
	uint64_t *first_ns;
	size_t n_first;
};

struct rp {
	const struct replay_opts *o;
	struct replay_result *res;
	struct rp_policy policy;
	struct rp_target tg;
	struct rp_store st;
	struct rp_now now;
	struct rp_clients cl;
	struct rp_entities ent;
	struct rp_sessions sessions;
};

/* One entry of an authorization area (Part 1 18.5). */
struct authent {
	int is_sess;
	struct sess *s;
	struct rsess *rs; /* NULL for the kernel's session */
	uint8_t attrs;
	/* the authValue in the HMAC and CFB keys (Part 1 19.6.5, 21.2) */
	const uint8_t *key_auth;
	size_t key_auth_len;
	int inc_auth; /* the authValue is part of the keys (key_auth may be empty) */
	/* the authValue of the response HMAC key when the command changed it
	 * (auth_after); NULL: key_auth */
	const struct replay_auth *auth_after;
	/* password (TPM_RS_PW, or a policy session after PolicyPassword) */
	const uint8_t *pw;
	size_t pw_len;
	int pw_in_hmac;
};

/* replay_clients.c: the run's client rows, a client's space ended */
int rp_rm_spaces_init(struct rp *x, sqlite3 *db);
void rp_client_end(struct rp *x, uint32_t client);
int rp_clients_copy(struct rp *x, sqlite3 *db, int64_t id, uint32_t *last, uint32_t *own);
int rp_clients_finish(struct rp *x, sqlite3 *db, int64_t id, int exact);
/* A command of client stored with t_submit t0: its first one is noted. */
static inline void rp_client_sent(struct rp *x, uint32_t client, uint64_t t0)
{
	if (client < x->cl.n_first && !x->cl.first_ns[client])
		x->cl.first_ns[client] = t0;
}

/* replay.c: outcome bookkeeping and the exchange with the target */
void rp_note(struct rp *x, int outcome, uint32_t cc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
struct replay_cc_stat *rp_cc_stat(struct replay_result *r, uint32_t cc);
int rp_fail(struct rp *x, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void rp_on_xfer(void *arg, const uint8_t *cmd, size_t len, const uint8_t *rsp, size_t rsp_len,
		uint64_t t0, uint64_t t1, int rc);
int rp_xfer(struct rp *x, const uint8_t *cmd, size_t len);

/* replay_maps.c: entities (handles, sessions, authValues) and the context and private-blob maps */
struct obj *rp_obj_find(struct rp *x, uint32_t rec);
struct obj *rp_obj_add(struct rp *x, uint32_t rec, uint32_t rep);
void rp_obj_set_name(struct obj *o, const uint8_t *n, uint16_t len);
void rp_obj_set_pub(struct obj *o, const uint8_t *tpm2b, size_t len);
struct rsess *rp_sess_find(struct rp *x, uint32_t rec);
void rp_sess_give(struct rp *x, struct rsess *s, uint32_t client);
void rp_obj_give(struct rp *x, struct obj *o, uint32_t client);
void rp_sess_drop(struct rp *x, uint32_t rec);
int rp_map_handle(struct rp *x, uint32_t rec, uint32_t *rep);
const struct replay_auth *rp_auth_for(struct rp *x, uint32_t rec);
void rp_learn_auth(struct rp *x, uint32_t rec, const uint8_t *value, size_t len);
const uint8_t *rp_sensitive_create_auth(struct wire_rd *r, uint16_t *len);
int rp_ctx_add(struct rp *x, const uint8_t *rec_blob, size_t rec_len, const uint8_t *blob,
	       size_t len, uint32_t rec_handle);
struct privmap *rp_priv_find(struct rp *x, const uint8_t *tpm2b, size_t len);
int rp_priv_add(struct rp *x, const uint8_t *rec, size_t rec_len, const uint8_t *priv,
		size_t privlen, const uint8_t *pub, size_t publen);
int rp_rec_rsp_params(const struct src_cmd *sc, const uint8_t **p, size_t *len);
int rp_context_load(struct rp *x, struct src_cmd *sc);

/* replay_cmd.c: public areas, building commands and opening responses, Names, the trace's own
 * sessions */
void rp_crypto_time(struct rp *x, uint64_t t0, uint64_t tpm0);
int rp_auth_after(uint32_t cc, const uint8_t *params, size_t plen, struct replay_auth *out);
/* A command the replay sends with authorizations it computes (HMACs,
 * parameter encryption): code, handles and their Names, the sessions (a, na)
 * and the parameters (in clear; encrypted in place when a session asks). */
struct rp_auth_cmd {
	uint32_t cc;
	const uint32_t *handles;
	unsigned nh;
	const struct tpm_name *names;
	struct authent *a;
	unsigned na;
	uint8_t *params;
	size_t plen;
};
int rp_send_auth(struct rp *x, const struct rp_auth_cmd *k, uint8_t **pp, size_t *pl);
int rp_read_public(struct rp *x, uint32_t rep, struct obj *o);
int rp_name_of(struct rp *x, uint32_t rec, uint32_t rep, struct tpm_name *out);
/* A StartAuthSession the replay sends: tpmKey (key: its entity, NULL for
 * TPM_RH_NULL), bind and its authValue, the session's type, symmetric and
 * hash, the nonceCaller size. */
struct rp_sess_start {
	uint32_t tpm_key;
	struct obj *key;
	uint32_t bind;
	const uint8_t *bind_auth;
	size_t bind_len;
	uint8_t type;
	struct tpm_sym_def sym;
	uint16_t hash, nonce_len;
};
int rp_start_raw(struct rp *x, const struct rp_sess_start *q, struct sess *out, struct authent *a,
		 unsigned na, const struct tpm_name *names);
int rp_start_session(struct rp *x, const struct src_cmd *sc);

/* replay_learn.c: redacted bytes, authValues learnt, what a success leaves behind */
int rp_unredact(struct rp *x, const struct src_cmd *sc, uint8_t *p, size_t *plen, size_t cap);
void rp_auth_value(struct rp *x, const struct src_cmd *sc, unsigned i, const uint8_t **v,
		   size_t *len);
/* The NV index among a command's handles; 0 if none. */
uint32_t rp_nv_handle(const struct tpm_cmd *c);
int rp_in_list(const uint32_t *l, unsigned n, uint32_t h);
/* A command as the replay sent it and the target answered it: the handles
 * sent (hs), the response parameters (pp, pl; NULL when none), the
 * sessions, the parameters sent (sent, sent_len). */
struct rp_sent {
	const uint32_t *hs;
	const uint8_t *pp;
	size_t pl;
	struct authent *a;
	unsigned na;
	const uint8_t *sent;
	size_t sent_len;
};
void rp_capture(struct rp *x, struct src_cmd *sc, const struct rp_sent *s);

/* replay_step.c: a source command sent again, and the policy's kernel steps */
int rp_emit(void *ctx, const struct pol_out *o);

/* replay_clean.c: leaving an external target as it was */
void rp_snapshot(struct rp *x);
void rp_cleanup_target(struct rp *x);

#endif
