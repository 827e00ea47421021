/* The recording core shared by every live recorder (socket proxy, CUSE proxy,
 * QEMU interposer): time a command's round trip through a transport, decode
 * both directions, hand a record to the writer. Logging never blocks the TPM
 * path; a failed transport yields a TPM_RC_FAILURE response, never a hang. */
#ifndef TPMTRACE_RECORDER_H
#define TPMTRACE_RECORDER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "db/writer.h"
#include "recorder/peer_proc.h"
#include "model/tpm/redact.h"
#include "recorder/transport/transport.h"

#define RECORDER_MAX_CLIENTS 256

struct recorder_client_key {
	int is_pid;
	pid_t pid;
	char comm[RECORDER_NAME_MAX]; /* the program, read once (recorder_proc_name) */
	char peer[64];
	uint32_t id;
	int pending; /* its client row could not be queued yet */
	uid_t uid;
	uint64_t t_first; /* the row's time; 0: when it is queued */
};

struct emulator;

struct recorder {
	struct writer *w;     /* NULL: forward only, record nothing */
	struct emulator *emu; /* latency injection (model/emulate.h), or NULL */
	struct transport *backend;
	int payloads; /* enum payload_mode */
	uint32_t next_client;
	unsigned unstored; /* clients whose row could not be queued yet */
	unsigned n_keys;
	struct recorder_client_key keys[RECORDER_MAX_CLIENTS];
	uint64_t forwarded;  /* commands forwarded */
	uint64_t own;	     /* of them sent by tpmtrace itself (recorder_own_command) */
	uint32_t own_client; /* the client id of those, 0 until the first */
	uint64_t backend_errors;
	int backend_down; /* an event was logged for the current outage */
};

void recorder_init(struct recorder *r, struct writer *w, struct transport *backend, int payloads);

struct rec_timing {
	uint64_t t_submit;
	uint64_t t_done;
	int rc;		/* transport result */
	uint32_t flags; /* extra REC_F_* flags (emulated latency) */
	/* The backend went away (REC_BACKEND_LOST) or came back
	 * (REC_BACKEND_BACK) with this command: recorder_log stores the event,
	 * so that recorder_forward never touches the writer. */
	int8_t backend_change;
	uint32_t stale;	  /* unasked bytes dropped before this command (transport.h) */
	uint32_t refused; /* the transport answered this TPM_RC itself (positive rc) */
};
enum { REC_BACKEND_LOST = 1, REC_BACKEND_BACK = 2 };

/* A command in two halves, so that a recorder can answer its client before
 * spending anything on the record: forward (timed; it touches only the
 * backend and the recorder's counters, never the writer), then log. The
 * response (or a TPM_RC_FAILURE response when the backend failed) is in rsp;
 * recorder_forward returns 0 or the backend's -errno (the response is still
 * valid to send). */
int recorder_forward(struct recorder *r, uint32_t client, uint8_t locality, const uint8_t *cmd,
		     size_t len, uint8_t *rsp, size_t cap, size_t *rsp_len, struct rec_timing *tm);
void recorder_log(struct recorder *r, uint32_t client, uint8_t locality, const uint8_t *cmd,
		  size_t len, const uint8_t *rsp, size_t rsp_len, const struct rec_timing *tm);

/* TPM2_Startup(TPM_SU_CLEAR), sent as tpmtrace's own command to a swtpm
 * tpmtrace spawned, before any client: a fresh swtpm is powered on but not
 * started, as a TPM after power-on whose firmware has not run. Answered
 * TPM_RC_INITIALIZE (started already: a kept --swtpm-state) is success.
 * 0, or -errno with err set. */
int recorder_startup(struct recorder *r, char *err, size_t errlen);
/* A command tpmtrace sends itself, not a client (the Startup of a swtpm it
 * spawned, the resource manager's flushes): forwarded and recorded like a
 * client's, with flag REC_F_OWN and a client of its own (comm "tpmtrace"),
 * so that a reader tells them apart. Returns as recorder_forward. */
int recorder_own_command(struct recorder *r, const uint8_t *cmd, size_t len, uint8_t *rsp,
			 size_t cap, size_t *rsp_len);

/* The id of that client of tpmtrace's own, its row stored at the first call
 * (own_client set beforehand: that one, a replay's copy of its source's). */
uint32_t recorder_own_client(struct recorder *r);

/* Records bytes that could not be framed as a command (never forwarded):
 * what arrived of it (buf, len; its header is never zeroed) and, as the
 * row's cmd_size, the size its header declared (declared; 0: len). */
void recorder_malformed(struct recorder *r, uint32_t client, uint8_t locality, const uint8_t *buf,
			size_t len, int reason, uint32_t declared);

/* Records a control event (INIT, SET_LOCALITY, POWER_ON, backend-lost, ...). */
void recorder_event(struct recorder *r, const char *kind, const char *detail, uint32_t client);
/* The last event of a recording (record-stop), once no more TPM traffic
 * comes: waits for the queue to drain first, so that it is stored and every
 * record dropped before it is a gap in seq (trace.dropped = the gaps). */
void recorder_stop_event(struct recorder *r, const char *kind, const char *detail);

/* Client ids: the same process (pid) or peer address keeps its id. A
 * process's name is its full program name (recorder_proc_name), read when
 * its id is made. */
uint32_t recorder_client_pid(struct recorder *r, pid_t pid, uid_t uid);
uint32_t recorder_client_peer(struct recorder *r, const char *peer);
/* A client numbered by the caller (an importer that tells its clients apart
 * itself): its row, at time t_first (0: now), queued or kept pending like
 * the others. */
void recorder_client_add(struct recorder *r, uint32_t id, const char *peer, uint64_t t_first);
/* A new client with the process (pid > 0, else none), program and peer a
 * recorder learnt itself (record --kernel: comm from the kernel, made whole
 * from /proc by recorder_proc_name while the process lives); the caller
 * keeps its id. Queued or kept pending like the others. */
uint32_t recorder_client_proc(struct recorder *r, pid_t pid, const char *comm, const char *peer,
			      uint64_t t_first);

#endif
