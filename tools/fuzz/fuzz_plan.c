// SPDX-License-Identifier: GPL-2.0
/*
 * npa fuzz target "plan": the raw arena planner, npa_plan() and
 * npa_plan_greedy(), checked by npa_plan_verify() and by a quadratic
 * check here; the verifier itself is checked on a corrupted plan.
 *
 * Input: a 4-byte header
 *
 *   [0] buffers (at most 96)  [1] budget: 255 the default (0), else
 *   (v + 1) * 8 placements  [2] bit 0: greedy only  [3] unused
 *
 * then 7 bytes per buffer: size (16-bit code, see fz_wide()), alignment
 * code, lo, lifetime length (hi = lo + length; 0 is invalid), flags
 * (bit 7 sets an undefined flag).
 */
#include <linux/types.h>
#include <linux/errno.h>

#include "npa_plan.h"
#include "fuzz.h"

#define FZ_MAX_BUFS	96

static bool fz_overlap(u64 a, u64 an, u64 b, u64 bn)
{
	return an && bn && a < b + bn && b < a + an;
}

/* The errno npa_plan() must return for these buffers, or 0. */
static int fz_expect(const struct npa_plan_buf *b, u32 n, u64 *naive,
		     u64 *bound)
{
	u64 sum = 0, slack = 0;
	u32 i;

	for (i = 0; i < n; i++) {
		u64 a = b[i].align ? b[i].align : 1;

		if (b[i].flags || b[i].hi <= b[i].lo || (a & (a - 1)) ||
		    a > NPA_PLAN_MAX_ALIGN)
			return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		u64 a = b[i].align ? b[i].align : 1;

		if (!b[i].size)
			continue;
		if (__builtin_add_overflow(sum, b[i].size, &sum) ||
		    __builtin_add_overflow(slack, a - 1, &slack))
			return -EOVERFLOW;
	}
	if (__builtin_add_overflow(sum, slack, &slack))
		return -EOVERFLOW;
	*naive = sum;
	*bound = slack;
	return 0;
}

static u64 fz_lower_bound(const struct npa_plan_buf *b, u32 n)
{
	u64 best = 0;
	u32 i, j;

	/* The live bytes peak at some buffer's start. */
	for (i = 0; i < n; i++) {
		u64 live = 0;

		for (j = 0; j < n; j++)
			if (b[j].lo <= b[i].lo && b[i].lo < b[j].hi)
				live += b[j].size;
		if (live > best)
			best = live;
	}
	return best;
}

static void fz_check(const struct npa_plan_buf *b, u32 n,
		     const struct npa_plan_result *res, u64 naive, u64 bound)
{
	u64 top = 0, lb = fz_lower_bound(b, n);
	u32 i, j;

	fz_assert(res->naive == naive, "naive %llu != %llu",
		  (unsigned long long)res->naive, (unsigned long long)naive);
	fz_assert(res->lower_bound == lb, "lower bound %llu != %llu",
		  (unsigned long long)res->lower_bound, (unsigned long long)lb);
	fz_assert(res->peak >= lb, "peak %llu below the lower bound %llu",
		  (unsigned long long)res->peak, (unsigned long long)lb);
	fz_assert(res->peak <= bound, "peak %llu above sizes plus slack %llu",
		  (unsigned long long)res->peak, (unsigned long long)bound);
	fz_assert(res->algo < NPA_PLAN_ALGO_COUNT, "algo %u", res->algo);
	for (i = 0; i < n; i++) {
		u64 a = b[i].align ? b[i].align : 1;

		if (!b[i].size)
			continue;
		fz_assert(!(b[i].offset & (a - 1)), "buf %u offset %llu align %llu", i,
			  (unsigned long long)b[i].offset, (unsigned long long)a);
		fz_assert(b[i].offset + b[i].size >= b[i].offset &&
			  b[i].offset + b[i].size <= res->peak,
			  "buf %u [%llu,+%llu) above peak %llu", i,
			  (unsigned long long)b[i].offset,
			  (unsigned long long)b[i].size,
			  (unsigned long long)res->peak);
		if (b[i].offset + b[i].size > top)
			top = b[i].offset + b[i].size;
		for (j = 0; j < i; j++) {
			if (b[i].lo >= b[j].hi || b[j].lo >= b[i].hi)
				continue;
			fz_assert(!fz_overlap(b[i].offset, b[i].size, b[j].offset,
					      b[j].size),
				  "bufs %u and %u overlap", j, i);
		}
	}
	fz_assert(top == res->peak, "peak %llu, buffers reach %llu",
		  (unsigned long long)res->peak, (unsigned long long)top);
	fz_assert(!npa_plan_verify(b, n, res->peak), "npa_plan_verify() refuses a valid plan");
	if (res->greedy_peak)
		fz_assert(res->peak <= res->greedy_peak, "peak %llu above greedy %llu",
			  (unsigned long long)res->peak,
			  (unsigned long long)res->greedy_peak);
}

/* Move one buffer onto another it shares time with: the verifier must see it. */
static void fz_corrupt(struct npa_plan_buf *b, u32 n, u64 peak)
{
	u32 i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++) {
			if (i == j || !b[i].size || !b[j].size ||
			    b[i].lo >= b[j].hi || b[j].lo >= b[i].hi)
				continue;
			b[i].offset = b[j].offset;
			fz_assert(npa_plan_verify(b, n, peak),
				  "npa_plan_verify() accepts bufs %u and %u at %llu",
				  i, j, (unsigned long long)b[j].offset);
			return;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct npa_plan_buf b[FZ_MAX_BUFS];
	struct fz f = { .p = data, .n = size };
	struct npa_plan_params params = { };
	struct npa_plan_result res;
	u8 nb = fz_u8(&f), budget = fz_u8(&f), mode = fz_u8(&f);
	u32 n = nb % (FZ_MAX_BUFS + 1), i;
	u64 naive = 0, bound = 0;
	int want, ret;

	fz_u8(&f);
	params.budget = budget == 255 ? 0 : (budget + 1) * 8ULL;
	for (i = 0; i < n; i++) {
		u16 sz = fz_u16(&f);
		u8 al = fz_u8(&f), lo = fz_u8(&f), len = fz_u8(&f);
		u8 fl = fz_u8(&f);

		b[i] = (struct npa_plan_buf){
			.size = fz_wide(sz), .align = fz_align(al),
			.lo = lo, .hi = (u32)lo + len,
			.flags = fl & 0x80 ? 1U << (fl & 31) : 0,
			.offset = 0xdead,
		};
		/* Lifetimes up to U32_MAX. */
		if (fl & 0x40)
			b[i].hi = UINT32_MAX - (fl & 0x3f);
	}
	want = fz_expect(b, n, &naive, &bound);
	if (mode & 1)
		ret = npa_plan_greedy(b, n, &res);
	else
		ret = npa_plan(b, n, &params, &res);
	fz_log("plan %u bufs: %d, peak %llu lb %llu algo %u\n", n, ret,
	       (unsigned long long)res.peak, (unsigned long long)res.lower_bound,
	       res.algo);
	fz_assert(ret == want, "npa_plan() returned %d, expected %d", ret, want);
	if (ret)
		return 0;
	fz_check(b, n, &res, naive, bound);
	fz_corrupt(b, n, res.peak);
	return 0;
}
