/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npa fuzzers: input decoding shared by the targets.
 *
 * A fuzz input is read through a cursor that yields zeros past its end, so
 * that every input decodes to something and short inputs stay cheap.
 */
#ifndef _NPA_FUZZ_H
#define _NPA_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fz {
	const uint8_t *p;
	size_t n, off;
};

static inline uint8_t fz_u8(struct fz *f)
{
	return f->off < f->n ? f->p[f->off++] : 0;
}

static inline uint16_t fz_u16(struct fz *f)
{
	uint16_t lo = fz_u8(f);

	return lo | (uint16_t)fz_u8(f) << 8;
}

static inline void fz_bytes(struct fz *f, void *dst, size_t len)
{
	size_t have = f->off < f->n ? f->n - f->off : 0;

	if (have > len)
		have = len;
	memcpy(dst, f->p + f->off, have);
	memset((uint8_t *)dst + have, 0, len - have);
	f->off += have;
}

/*
 * A 16-bit code for a 64-bit size: small values as they are, the top
 * quarter of the codes as powers of two plus or minus up to 128, so that
 * sizes near every overflow boundary are a single mutation away.
 */
static inline uint64_t fz_wide(uint16_t v)
{
	if (v < 0xc000)
		return v;
	return (1ULL << ((v >> 8) & 0x3f)) + (uint64_t)(v & 0xff) - 128;
}

/* An alignment code: 0 is 0, 255 is 3 (not a power of two), else 2^(v-1). */
static inline uint64_t fz_align(uint8_t v)
{
	if (!v)
		return 0;
	if (v == 255)
		return 3;
	return 1ULL << ((v - 1) % 23);
}

/* A 32-bit id or count: 255 is U32_MAX, else the value. */
static inline uint32_t fz_idx(uint8_t v)
{
	return v == 255 ? UINT32_MAX : v;
}

/* NPA_FUZZ_VERBOSE=1: say what each input decoded to (corpus checks). */
static inline int fz_verbose(void)
{
	static int v = -1;

	if (v < 0)
		v = getenv("NPA_FUZZ_VERBOSE") != NULL;
	return v;
}

#define fz_log(...) do {						\
	if (fz_verbose())						\
		fprintf(stderr, "npa fuzz: " __VA_ARGS__);		\
} while (0)

#define fz_fail(...) do {						\
	fprintf(stderr, "npa fuzz: invariant violated: " __VA_ARGS__);	\
	fputc('\n', stderr);						\
	abort();							\
} while (0)

#define fz_assert(cond, ...) do {					\
	if (!(cond))							\
		fz_fail(__VA_ARGS__);					\
} while (0)

#endif /* _NPA_FUZZ_H */
