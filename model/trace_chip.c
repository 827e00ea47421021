/* The TPM a trace was recorded on, from its GetCapability answers
 * (model/trace_chip.h). */
#include "model/trace_chip.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/profile.h"
#include "model/tpm/constants.h"
#include "model/tpm/tpm_cc.h"
#include "model/tpm/wire.h"

/* The properties read, by TPM_PT_MANUFACTURER + i: manufacturer, vendor
 * strings 1-4, (6: TPM_PT_VENDOR_TPM_TYPE, unused), firmware 1 and 2. */
#define PT_FIRST TPM_PT_MANUFACTURER
#define PT_N	 (TPM_PT_FIRMWARE_VERSION_2 - TPM_PT_MANUFACTURER + 1)

/* The tagged properties of one GetCapability response (TPM 2.0 Part 3
 * 30.2: moreData, TPMS_CAPABILITY_DATA; TPML_TAGGED_TPM_PROPERTY). */
static void read_answer(const uint8_t *p, size_t n, uint32_t *v, unsigned *have)
{
	struct wire_rd r;
	wire_rd_init(&r, p, n);
	uint16_t tag = wire_u16(&r);
	wire_u32(&r); /* responseSize */
	if (wire_u32(&r) != 0 || r.err)
		return; /* not a success */
	if (tag == TPM_ST_SESSIONS)
		wire_u32(&r); /* parameterSize */
	wire_u8(&r);	      /* moreData */
	if (wire_u32(&r) != TPM_CAP_TPM_PROPERTIES)
		return;
	uint32_t count = wire_u32(&r);
	for (uint32_t i = 0; i < count && !r.err; i++) {
		uint32_t pt = wire_u32(&r), val = wire_u32(&r);
		if (!r.err && pt >= PT_FIRST && pt < PT_FIRST + PT_N) {
			v[pt - PT_FIRST] = val;
			*have |= 1u << (pt - PT_FIRST);
		}
	}
}

/* A property's four characters (big-endian) appended to s: NULs dropped, an
 * unprintable byte as a blank. */
static void chars_add(char *s, size_t len, uint32_t v)
{
	size_t l = strlen(s);
	for (int i = 0; i < 4 && l + 1 < len; i++) {
		char ch = (char)(v >> (24 - 8 * i));
		if (ch)
			s[l++] = isprint((unsigned char)ch) ? ch : ' ';
	}
	s[l] = 0;
}

static void trim_end(char *s)
{
	for (size_t l = strlen(s); l && s[l - 1] == ' ';)
		s[--l] = 0;
}

_Static_assert(PT_N == sizeof((struct trace_chip_reader *)0)->v / sizeof(uint32_t),
	       "trace_chip_reader holds the properties read");

void trace_chip_add(struct trace_chip_reader *r, uint32_t cc, const void *rsp, size_t n)
{
	if (cc != TPM_CC_GetCapability || !rsp)
		return;
	r->answers++;
	read_answer(rsp, n, r->v, &r->have);
}

void trace_chip_end(const struct trace_chip_reader *r, struct trace_chip *c)
{
	memset(c, 0, sizeof *c);
	c->answers = r->answers;
	if (r->have & 1) {
		chars_add(c->manufacturer, sizeof c->manufacturer, r->v[0]);
		trim_end(c->manufacturer);
	}
	for (unsigned i = 1; i <= 4; i++)
		if (r->have & (1u << i))
			chars_add(c->vendor, sizeof c->vendor, r->v[i]);
	trim_end(c->vendor);
	unsigned f1 = TPM_PT_FIRMWARE_VERSION_1 - PT_FIRST,
		 f2 = TPM_PT_FIRMWARE_VERSION_2 - PT_FIRST;
	if ((r->have & (1u << f1)) && (r->have & (1u << f2)))
		snprintf(c->firmware, sizeof c->firmware, "%u.%u.%u.%u", r->v[f1] >> 16,
			 r->v[f1] & 0xffff, r->v[f2] >> 16, r->v[f2] & 0xffff);
}

int trace_chip_load(sqlite3 *db, int64_t trace_id, struct trace_chip *c, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	struct trace_chip_reader rd = {0};
	int rc;
	memset(c, 0, sizeof *c);
	if (sqlite3_prepare_v2(db,
			       "SELECT rsp FROM command WHERE trace_id=? AND"
			       " cc = tpm_cc('GetCapability') AND rsp IS NOT NULL ORDER BY seq",
			       -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, trace_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const void *p = sqlite3_column_blob(st, 0); /* NULL when empty */
		trace_chip_add(&rd, TPM_CC_GetCapability, p ? p : "",
			       (size_t)sqlite3_column_bytes(st, 0));
	}
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		sqlite3_finalize(st);
		return -EIO;
	}
	sqlite3_finalize(st);
	trace_chip_end(&rd, c);
	return 0;
}

/* The shipped profiles' chips, read once per process (the shipped set is
 * built in and never changes; loading all of them costs milliseconds, which
 * push would otherwise pay for every trace): per profile its vendor,
 * firmware and entry count. */
struct chip_index {
	unsigned n;
	struct {
		char vendor[32], firmware[48], name[128];
		size_t entries;
	} * p;
};
static struct chip_index chips;
static pthread_once_t chips_once = PTHREAD_ONCE_INIT;

static void chips_load(void)
{
	unsigned n = profile_builtin_count();
	if (!(chips.p = calloc(n ? n : 1, sizeof *chips.p)))
		return;
	for (unsigned i = 0; i < n; i++) {
		char nm[128], why[256];
		struct profile p;
		profile_builtin_name(i, nm, sizeof nm);
		if (profile_load_builtin(nm, &p, why, sizeof why))
			continue;
		if (p.vendor && p.firmware) {
			snprintf(chips.p[chips.n].vendor, sizeof chips.p->vendor, "%s", p.vendor);
			snprintf(chips.p[chips.n].firmware, sizeof chips.p->firmware, "%s",
				 p.firmware);
			snprintf(chips.p[chips.n].name, sizeof chips.p->name, "%s", nm);
			chips.p[chips.n++].entries = p.n;
		}
		profile_release(&p);
	}
}

int trace_chip_profile(const struct trace_chip *c, char *name, size_t len)
{
	size_t best = 0;
	if (!c->manufacturer[0] || !c->firmware[0])
		return -ENOENT;
	pthread_once(&chips_once, chips_load);
	for (unsigned i = 0; i < chips.n; i++)
		if (!strcasecmp(chips.p[i].vendor, c->manufacturer) &&
		    !strcmp(chips.p[i].firmware, c->firmware) && chips.p[i].entries > best) {
			best = chips.p[i].entries;
			snprintf(name, len, "%s", chips.p[i].name);
		}
	return best ? 0 : -ENOENT;
}
