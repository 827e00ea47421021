/* db_rec_fill_decoded (db/rec_fill.h): the columns of a command record that come
 * from the decoder (model/tpm/decode.h) - code, tag, handles, the first session
 * and the packed session attributes, authorization kind, PCR, response code and
 * handle, malformed reason and the MALFORMED / NO_RESPONSE flags - set in one
 * place for the live recorders and the importers alike; db_rec_fill_payload,
 * their stored bytes, redacted unless asked otherwise. */
#include "db/rec_fill.h"

#include <string.h>

#include "model/tpm/redact.h"

void db_rec_fill_decoded(struct rec *r, const struct tpm_cmd *c, size_t cmd_len,
			 const struct tpm_rsp *rsp, size_t rsp_len)
{
	r->cc = c->cc;
	r->tag = c->tag;
	r->cmd_size = (uint32_t)cmd_len;
	r->n_handles = c->n_handles;
	for (unsigned i = 0; i < c->n_handles && i < 3; i++)
		r->handles[i] = c->handles[i];
	r->n_sessions = c->n_sessions;
	if (c->n_sessions) {
		r->sess_handle = c->sess[0].handle;
		r->sess_attrs = tpm_pack_attrs(c->sess_attrs, c->n_sessions);
	}
	r->auth_kind = c->auth_kind;
	r->pcr = c->pcr;
	r->malformed = (uint8_t)c->malformed;
	if (rsp) {
		r->has_rsp = 1;
		r->rc = rsp->rc;
		r->rsp_size = (uint32_t)rsp_len;
		if (rsp->n_handles) {
			r->has_rsp_handle = 1;
			r->rsp_handle = rsp->handle;
		}
		if (!r->malformed)
			r->malformed = (uint8_t)rsp->malformed;
	} else {
		r->flags |= REC_F_NO_RESPONSE;
	}
	if (r->malformed)
		r->flags |= REC_F_MALFORMED;
}

uint32_t db_rec_payload_len(int payloads, size_t cmd_len, size_t rsp_len)
{
	return payloads == PAYLOADS_NONE ? 0 : (uint32_t)(cmd_len + rsp_len);
}

void db_rec_fill_payload(struct rec *r, int payloads, const uint8_t *cmd, size_t cmd_len,
			 const struct tpm_cmd *c, const uint8_t *rsp, size_t rsp_len,
			 const struct tpm_rsp *p)
{
	if (payloads == PAYLOADS_NONE)
		return;
	if (!rsp)
		rsp_len = 0;
	r->cmd_len = (uint32_t)cmd_len;
	r->rsp_len = (uint32_t)rsp_len;
	if (cmd_len)
		memcpy(r->payload, cmd, cmd_len);
	if (rsp_len)
		memcpy(r->payload + cmd_len, rsp, rsp_len);
	if (payloads == PAYLOADS_FULL)
		return;
	if (cmd_len && redact_command(r->payload, cmd_len, c))
		r->flags |= REC_F_REDACTED;
	if (rsp_len && redact_response(r->payload + cmd_len, rsp_len, c, p))
		r->flags |= REC_F_REDACTED;
}
