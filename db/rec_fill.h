/* Filling a command record (db/writer.h) from a decoded command and response,
 * so that every producer (live recorders, importers) stores the same columns
 * the same way. */
#ifndef TPMTRACE_REC_FILL_H
#define TPMTRACE_REC_FILL_H

#include "db/writer.h"
#include "model/tpm/decode.h"

/* Sets cc, tag, handles, sessions, auth_kind, pcr, response code and handle,
 * malformed reason and the MALFORMED / NO_RESPONSE flags. rsp is NULL when no
 * response was seen. cmd_size/rsp_size are the byte counts received (not the
 * size fields). Payload, times, locality and client are the caller's. */
void db_rec_fill_decoded(struct rec *r, const struct tpm_cmd *c, size_t cmd_len,
			 const struct tpm_rsp *rsp, size_t rsp_len);

/* The payload bytes a record of this command and response keeps under
 * payloads (enum payload_mode): none for PAYLOADS_NONE, else cmd_len plus
 * rsp_len (0 when no response was seen). What db_writer_reserve takes. */
uint32_t db_rec_payload_len(int payloads, size_t cmd_len, size_t rsp_len);

/* The one place stored bytes are redacted: copies the command (decoded as c)
 * and its response (rsp NULL when none was seen, decoded as p) into r's
 * payload, reserved with db_rec_payload_len bytes, sets cmd_len and rsp_len,
 * and unless payloads is PAYLOADS_FULL zeroes their secrets
 * (model/tpm/redact.h: of a command the decoder or the layouts do not
 * accept, everything after the header), flagging REC_F_REDACTED. Every live
 * recorder and importer stores bytes through it. */
void db_rec_fill_payload(struct rec *r, int payloads, const uint8_t *cmd, size_t cmd_len,
			 const struct tpm_cmd *c, const uint8_t *rsp, size_t rsp_len,
			 const struct tpm_rsp *p);

#endif
