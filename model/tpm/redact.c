/* Redaction (model/tpm/redact.h, table in docs/security.md): redact_command
 * zeroes password and policy-session HMAC fields and the secret parameters the
 * command layouts mark (tpm_cc_layout.def, found by the walker of walk.h), or
 * everything after the header of a command that is malformed or whose
 * parameters do not parse by its layout; redact_response zeroes
 * the secret response parameters, or everything after the header of an error
 * response, a malformed one or one to a command the table does not know. Sizes
 * are kept, only bytes are zeroed. Also tpm_payload_mode_parse and tpm_payload_mode_str for
 * --payloads none|redacted|full. */
#include "model/tpm/redact.h"

#include <string.h>

#include "model/tpm/tpm_ht.h"
#include "model/tpm/walk.h"
#include "model/tpm/wire.h"

int tpm_payload_mode_parse(const char *s)
{
	if (!strcmp(s, "none"))
		return PAYLOADS_NONE;
	if (!strcmp(s, "redacted"))
		return PAYLOADS_REDACTED;
	if (!strcmp(s, "full"))
		return PAYLOADS_FULL;
	return -1;
}

const char *tpm_payload_mode_str(int mode)
{
	switch (mode) {
	case PAYLOADS_NONE:
		return "none";
	case PAYLOADS_FULL:
		return "full";
	}
	return "redacted";
}

/* Zeroes the secret parameters the walker yields (model/tpm/walk.h, the
 * layouts of tpm_cc_layout.def): a TPM2B's bytes (its size kept), an
 * integer whole. A parameter that runs past the end stops the walk: nothing
 * beyond it can be located (the message is malformed; its bytes are the
 * decoder's business). Not deep: a TPM2B holding a structure is zeroed
 * whatever its contents. */
struct zero {
	uint8_t *buf;
	size_t len;
	int did;
};

static int zero_secret(void *ctx, const struct tpm_walk_field *f)
{
	struct zero *z = ctx;
	if (f->event == TPM_WE_FIELD && f->area == TPM_WA_PARAM && f->secret && f->data_len &&
	    f->data_off + f->data_len <= z->len) {
		memset(z->buf + f->data_off, 0, f->data_len);
		z->did = 1;
	}
	return 0;
}

/* Unparsed bytes may hold anything: keep only the header. */
static int header_only(uint8_t *buf, size_t len)
{
	if (len <= TPM_HEADER_SIZE)
		return 0;
	memset(buf + TPM_HEADER_SIZE, 0, len - TPM_HEADER_SIZE);
	return 1;
}

int redact_command(uint8_t *buf, size_t len, const struct tpm_cmd *c)
{
	int did = 0;
	if (c->malformed != TPM_MAL_NONE)
		return header_only(buf, len);
	/* The walk first: a command whose parameters do not parse by its
	 * layout, or leave bytes over (a size field that understates, cutting
	 * a secret in two: the rest comes as the "next command"), is not
	 * accepted either, and the secret it carries cannot be located. */
	struct zero z = {buf, len, 0};
	if (tpm_walk_cmd(buf, len, c, 0, zero_secret, &z) == -1)
		return header_only(buf, len);
	/* Password sessions carry the password in the hmac field (Part 1 19.8.4);
	 * a policy session may too (PolicyPassword). */
	for (unsigned i = 0; i < c->n_sessions; i++) {
		const struct tpm_session *s = &c->sess[i];
		if ((s->handle == TPM_RS_PW || tpm_ht_of(s->handle) == TPM_HT_POLICY_SESSION) &&
		    s->hmac_size && s->hmac_off + s->hmac_size <= len) {
			memset(buf + s->hmac_off, 0, s->hmac_size);
			did = 1;
		}
	}
	return did | z.did;
}

int redact_response(uint8_t *buf, size_t len, const struct tpm_cmd *c, const struct tpm_rsp *r)
{
	if (r->malformed || r->rc != 0 || c->malformed != TPM_MAL_NONE || !c->info) {
		/* An error response is its header (Part 1 18.4); anything else
		 * in one, in a response that does not parse, or in the response
		 * to a command whose layout is unknown (a code the table lacks:
		 * a vendor's, or one newer than the table; a command that does
		 * not parse) is unknown, so it may be a secret. */
		return header_only(buf, len);
	}
	/* The parameters end where parameterSize says (the sessions follow). */
	struct zero z = {buf, len, 0};
	tpm_walk_rsp(buf, len, c, r, 0, zero_secret, &z);
	return z.did;
}
