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

#endif
