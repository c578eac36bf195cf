/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Instance generators of the planner's tests, one copy for the KUnit suite
 * (kunit/npa_plan_test.c) and the host tools (tools/bench/gen.c: the
 * self-test and npa-bench). Deterministic functions of their seed; no
 * allocation, so that they build in the kernel and, through the shims in
 * tools/include, on the host.
 */
#ifndef _NPA_PLAN_GEN_H_
#define _NPA_PLAN_GEN_H_

#include <linux/math64.h>
#include <linux/string.h>
#include <linux/types.h>

#include "npa_plan.h"

/* splitmix64: the next pseudo-random number of @state. */
static inline u64 npa_gen_next(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, @n) (@n > 0, up to a bias of n / 2^64). */
static inline u64 npa_gen_below(u64 *state, u64 n)
{
	u64 x = npa_gen_next(state);

	return x - div64_u64(x, n) * n;
}

/* @n buffers with random lifetimes in [0, @steps) and sizes in [1, @max]. */
static inline void npa_gen_random(struct npa_plan_buf *b, u32 n, u32 steps,
				  u64 max, u64 seed)
{
	u64 st = seed;
	u32 i;

	for (i = 0; i < n; i++) {
		u32 lo = npa_gen_below(&st, steps);
		u32 len = 1 + npa_gen_below(&st, steps - lo);

		memset(&b[i], 0, sizeof(b[i]));
		b[i].lo = lo;
		b[i].hi = lo + len;
		b[i].size = 1 + npa_gen_below(&st, max);
	}
}

static inline u64 npa_gen_area(const struct npa_plan_buf *b)
{
	return b->size * (u64)(b->hi - b->lo);
}

/*
 * Cut a full strip of @width bytes x @steps steps into @n rectangles by
 * guillotine cuts of the largest piece; @any: each cut across time or
 * across the addresses at random, else also across time whenever the
 * piece is longer in time than wide (relative to the strip). Every byte
 * is used at every step, so the optimum and the lower bound are @width;
 * the offsets are the cut, a plan at the optimum. The buffers come in a
 * random order. Returns how many were written: fewer than @n when the
 * pieces became too small to cut.
 */
static inline u32 npa_gen_guillotine(struct npa_plan_buf *b, u32 n, u64 width,
				     u32 steps, u64 seed, bool any)
{
	u64 st = seed;
	u32 cnt = 1, i;

	if (!n)
		return 0;
	memset(b, 0, sizeof(*b));
	b[0].size = width;
	b[0].hi = steps;
	while (cnt < n) {
		struct npa_plan_buf *q;
		u32 big = 0, len;
		u64 w;

		for (i = 1; i < cnt; i++)
			if (npa_gen_area(&b[i]) > npa_gen_area(&b[big]))
				big = i;
		q = &b[big];
		w = q->size;
		len = q->hi - q->lo;
		if (w < 2 && len < 2)
			break;
		b[cnt] = *q;
		if (len >= 2 && (w < 2 || npa_gen_below(&st, 2) ||
				 (!any && (u64)len * width > w * steps * 2))) {
			u32 cut = q->lo + 1 + npa_gen_below(&st, len - 1);

			b[cnt].lo = cut;
			q->hi = cut;
		} else {
			u64 cut = 1 + npa_gen_below(&st, w - 1);

			b[cnt].offset = q->offset + cut;
			b[cnt].size = w - cut;
			q->size = cut;
		}
		cnt++;
	}
	/* Shuffle, so that the input order tells nothing. */
	for (i = cnt; i > 1; i--) {
		u32 j = npa_gen_below(&st, i);
		struct npa_plan_buf tmp = b[i - 1];

		b[i - 1] = b[j];
		b[j] = tmp;
	}
	return cnt;
}

#endif /* _NPA_PLAN_GEN_H_ */
