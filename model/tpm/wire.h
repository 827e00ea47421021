/* Bounds-checked big-endian reader and writer for TPM wire data.
 *
 * Bytes from outside are only ever read through these accessors. A read past
 * the end sets a sticky error flag and returns zero, so a parser can read a
 * whole structure and check the flag once (TPM 2.0 Part 1 section 18: all
 * integers on the wire are big-endian). */
#ifndef TPMTRACE_WIRE_H
#define TPMTRACE_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct wire_rd {
	const uint8_t *p;
	size_t len;
	size_t off;
	int err;
};

static inline void wire_rd_init(struct wire_rd *r, const uint8_t *p, size_t len)
{
	r->p = p;
	r->len = len;
	r->off = 0;
	r->err = 0;
}

static inline size_t wire_left(const struct wire_rd *r)
{
	return r->err ? 0 : r->len - r->off;
}

static inline int wire_need(struct wire_rd *r, size_t n)
{
	if (r->err || r->len - r->off < n) {
		r->err = 1;
		return 0;
	}
	return 1;
}

static inline uint8_t wire_u8(struct wire_rd *r)
{
	if (!wire_need(r, 1))
		return 0;
	return r->p[r->off++];
}

static inline uint16_t wire_u16(struct wire_rd *r)
{
	if (!wire_need(r, 2))
		return 0;
	uint16_t v = (uint16_t)(r->p[r->off] << 8 | r->p[r->off + 1]);
	r->off += 2;
	return v;
}

static inline uint32_t wire_u32(struct wire_rd *r)
{
	if (!wire_need(r, 4))
		return 0;
	const uint8_t *b = r->p + r->off;
	r->off += 4;
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static inline uint64_t wire_u64(struct wire_rd *r)
{
	uint64_t hi = wire_u32(r);
	return hi << 32 | wire_u32(r);
}

/* Skips n bytes; returns a pointer to them (NULL and error if short). */
static inline const uint8_t *wire_skip(struct wire_rd *r, size_t n)
{
	if (!wire_need(r, n))
		return NULL;
	const uint8_t *b = r->p + r->off;
	r->off += n;
	return b;
}

/* A TPM2B: u16 size followed by that many bytes. */
static inline const uint8_t *wire_tpm2b(struct wire_rd *r, uint16_t *size)
{
	uint16_t n = wire_u16(r);
	const uint8_t *b = wire_skip(r, n);
	if (size)
		*size = r->err ? 0 : n;
	return b;
}

static inline uint32_t wire_get_u32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static inline uint16_t wire_get_u16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static inline void wire_put_u32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

static inline void wire_put_u16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

/* Writer with the same sticky-error convention. */
struct wire_wr {
	uint8_t *p;
	size_t cap;
	size_t off;
	int err;
};

static inline void wire_wr_init(struct wire_wr *w, uint8_t *p, size_t cap)
{
	w->p = p;
	w->cap = cap;
	w->off = 0;
	w->err = 0;
}

static inline uint8_t *wire_wr_reserve(struct wire_wr *w, size_t n)
{
	if (w->err || w->cap - w->off < n) {
		w->err = 1;
		return NULL;
	}
	uint8_t *b = w->p + w->off;
	w->off += n;
	return b;
}

static inline void wire_wr_u8(struct wire_wr *w, uint8_t v)
{
	uint8_t *b = wire_wr_reserve(w, 1);
	if (b)
		b[0] = v;
}

static inline void wire_wr_u16(struct wire_wr *w, uint16_t v)
{
	uint8_t *b = wire_wr_reserve(w, 2);
	if (b)
		wire_put_u16(b, v);
}

static inline void wire_wr_u32(struct wire_wr *w, uint32_t v)
{
	uint8_t *b = wire_wr_reserve(w, 4);
	if (b)
		wire_put_u32(b, v);
}

static inline void wire_wr_bytes(struct wire_wr *w, const void *src, size_t n)
{
	uint8_t *b = wire_wr_reserve(w, n);
	if (b && n)
		memcpy(b, src, n);
}

static inline void wire_wr_tpm2b(struct wire_wr *w, const void *src, uint16_t n)
{
	wire_wr_u16(w, n);
	wire_wr_bytes(w, src, n);
}

#endif
