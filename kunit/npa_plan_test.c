// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the npa arena planner (drivers/npa/npa_plan*.c):
 * properties (valid, at or above the bound, never worse than the baseline,
 * deterministic, monotone in the budget) and known optima.
 *
 * Every plan is checked with npa_plan_verify(); a failed check prints the
 * buffers with their offsets. Lifetimes are half-open [lo, hi) throughout.
 * Sizes are kept small so that the suite runs in seconds under QEMU TCG
 * with KASAN. The host self-test (tools/npactl/tests/plan_selftest.c) runs
 * this same suite through the shim tools/include/kunit/test.h; the
 * instances come from the generators the benchmark uses (npa_plan_gen.h).
 */

#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "npa_plan.h"
#include "npa_plan_gen.h"

#define NPA_TEST_MAX_BUFS	8

/* ---------------------------------------------------------------------- */
/* Helpers */

static void npa_test_dump(struct kunit *test, const struct npa_plan_buf *b,
			  u32 n)
{
	u32 i;

	for (i = 0; i < n && i < 64; i++)
		kunit_info(test, "  buf %u: size %llu align %llu [%u, %u) -> offset %llu\n",
			   i, b[i].size, b[i].align, b[i].lo, b[i].hi,
			   b[i].offset);
}

/* The plan must pass the independent verifier and respect the bound. */
static void assert_plan_valid(struct kunit *test, const struct npa_plan_buf *b,
			      u32 n, const struct npa_plan_result *res)
{
	int ret = npa_plan_verify(b, n, res->peak);

	if (ret || res->peak < res->lower_bound)
		npa_test_dump(test, b, n);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "verifier rejects the plan (peak %llu)",
			    res->peak);
	KUNIT_ASSERT_GE_MSG(test, res->peak, res->lower_bound,
			    "peak below the lower bound");
}

static struct npa_plan_buf *npa_test_copy(struct kunit *test,
					  const struct npa_plan_buf *b, u32 n)
{
	struct npa_plan_buf *c = kunit_kcalloc(test, max_t(u32, n, 1),
					       sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c);
	memcpy(c, b, n * sizeof(*c));
	return c;
}

/* ---------------------------------------------------------------------- */
/* Edge cases */

struct npa_plan_case {
	const char *name;
	struct npa_plan_buf bufs[NPA_TEST_MAX_BUFS];
	u32 n;
	int ret;
	u64 peak;		/* expected peak when ret == 0, or ANY */
};

#define NPA_TEST_ANY	U64_MAX

#define BUF(s, l, h, a) { .size = (s), .lo = (l), .hi = (h), .align = (a) }

static const struct npa_plan_case npa_plan_cases[] = {
	{
		.name = "no buffers",
		.n = 0, .ret = 0, .peak = 0,
	},
	{
		.name = "one buffer at offset 0",
		.bufs = { BUF(100, 0, 1, 0) },
		.n = 1, .ret = 0, .peak = 100,
	},
	{
		.name = "zero-size buffers cost nothing",
		.bufs = { BUF(0, 0, 5, 0), BUF(10, 0, 5, 0), BUF(0, 2, 3, 64) },
		.n = 3, .ret = 0, .peak = 10,
	},
	{
		.name = "identical lifetimes stack up",
		.bufs = { BUF(8, 3, 7, 0), BUF(16, 3, 7, 0), BUF(32, 3, 7, 0) },
		.n = 3, .ret = 0, .peak = 56,
	},
	{
		.name = "half-open lifetimes: [0,2) and [2,4) share",
		.bufs = { BUF(8, 0, 2, 0), BUF(8, 2, 4, 0) },
		.n = 2, .ret = 0, .peak = 8,
	},
	{
		.name = "alignment up to 1 MiB is honoured",
		.bufs = { BUF(3, 0, 4, 0), BUF(5, 1, 3, NPA_PLAN_MAX_ALIGN),
			  BUF(7, 2, 6, 4096) },
		.n = 3, .ret = 0, .peak = NPA_TEST_ANY,
	},
	{
		.name = "huge sizes that fit in u64",
		.bufs = { BUF(U64_MAX / 2, 0, 1, 0), BUF(U64_MAX / 2, 0, 1, 0) },
		.n = 2, .ret = 0, .peak = U64_MAX / 2 * 2,
	},
	{
		.name = "empty lifetime is refused",
		.bufs = { BUF(10, 1, 1, 0) },
		.n = 1, .ret = -EINVAL,
	},
	{
		.name = "reversed lifetime is refused",
		.bufs = { BUF(10, 0, 1, 0), BUF(10, 5, 2, 0) },
		.n = 2, .ret = -EINVAL,
	},
	{
		.name = "alignment not a power of two is refused",
		.bufs = { BUF(10, 0, 1, 3) },
		.n = 1, .ret = -EINVAL,
	},
	{
		.name = "alignment above 1 MiB is refused",
		.bufs = { BUF(10, 0, 1, 2 * NPA_PLAN_MAX_ALIGN) },
		.n = 1, .ret = -EINVAL,
	},
	{
		.name = "unknown flags are refused",
		.bufs = { { .size = 10, .lo = 0, .hi = 1, .flags = 1 } },
		.n = 1, .ret = -EINVAL,
	},
	{
		.name = "sizes overflowing u64 are refused",
		.bufs = { BUF(U64_MAX - 5, 0, 1, 0), BUF(10, 5, 6, 0) },
		.n = 2, .ret = -EOVERFLOW,
	},
	{
		.name = "alignment slack overflowing u64 is refused",
		.bufs = { BUF(U64_MAX, 0, 1, 0), BUF(1, 0, 1, 2) },
		.n = 2, .ret = -EOVERFLOW,
	},
};

static void npa_plan_case_desc(const struct npa_plan_case *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(npa_plan_edge, npa_plan_cases, npa_plan_case_desc);

static void npa_plan_test_edge(struct kunit *test)
{
	const struct npa_plan_case *t = test->param_value;
	struct npa_plan_buf *b = npa_test_copy(test, t->bufs, t->n);
	const struct npa_plan_params p = { .budget = 5000 };
	struct npa_plan_result res;
	u32 i;

	KUNIT_ASSERT_EQ(test, npa_plan(b, t->n, &p, &res), t->ret);
	if (t->ret)
		return;
	assert_plan_valid(test, b, t->n, &res);
	if (t->peak != NPA_TEST_ANY)
		KUNIT_EXPECT_EQ(test, res.peak, t->peak);
	for (i = 0; i < t->n; i++)
		if (!b[i].size)
			KUNIT_EXPECT_EQ(test, b[i].offset, 0ULL);

	/* The baseline must accept and refuse exactly the same inputs. */
	b = npa_test_copy(test, t->bufs, t->n);
	KUNIT_ASSERT_EQ(test, npa_plan_greedy(b, t->n, &res), 0);
	assert_plan_valid(test, b, t->n, &res);
}

static void npa_plan_test_too_many(struct kunit *test)
{
	struct npa_plan_buf b = BUF(1, 0, 1, 0);

	/* The count is checked before the array is touched. */
	KUNIT_EXPECT_EQ(test, npa_plan(&b, NPA_PLAN_MAX_BUFS + 1, NULL, NULL),
			-E2BIG);
	KUNIT_EXPECT_EQ(test, npa_plan_greedy(&b, NPA_PLAN_MAX_BUFS + 1, NULL),
			-E2BIG);
	KUNIT_EXPECT_EQ(test, npa_plan_verify(&b, NPA_PLAN_MAX_BUFS + 1, 1),
			-E2BIG);
}

static void npa_plan_test_lower_bound(struct kunit *test)
{
	struct npa_plan_buf b[] = {
		BUF(10, 0, 4, 0), BUF(20, 2, 6, 0), BUF(30, 5, 9, 0),
		BUF(0, 0, 9, 0),
	};

	/* Half-open: [0,4) ends before [4,..) would start; 20 + 30 at 5. */
	KUNIT_EXPECT_EQ(test, npa_plan_lower_bound(b, ARRAY_SIZE(b)), 50ULL);
	KUNIT_EXPECT_EQ(test, npa_plan_lower_bound(b, 0), 0ULL);
	b[0].size = U64_MAX;
	KUNIT_EXPECT_EQ(test, npa_plan_lower_bound(b, ARRAY_SIZE(b)), U64_MAX);
}

/* ---------------------------------------------------------------------- */
/* Verifier */

static void npa_plan_test_verify(struct kunit *test)
{
	struct npa_plan_buf b[] = {
		BUF(10, 0, 4, 0), BUF(10, 3, 6, 0), BUF(10, 4, 8, 0),
	};

	b[1].offset = 10;
	KUNIT_EXPECT_EQ(test, npa_plan_verify(b, 3, 20), 0);
	b[1].offset = 5;
	KUNIT_EXPECT_EQ(test, npa_plan_verify(b, 3, 20), -EEXIST);
	b[1].offset = 10;
	KUNIT_EXPECT_EQ(test, npa_plan_verify(b, 3, 19), -ERANGE);
	b[1].align = 4;
	KUNIT_EXPECT_EQ(test, npa_plan_verify(b, 3, 20), -EINVAL);
	b[1].align = 0;
	b[2].offset = 5;
	KUNIT_EXPECT_EQ(test, npa_plan_verify(b, 3, 20), -EEXIST);
	b[2].offset = U64_MAX;
	KUNIT_EXPECT_EQ(test, npa_plan_verify(b, 3, U64_MAX), -ERANGE);
}

/* ---------------------------------------------------------------------- */
/* Known optima that greedy by size misses */

struct npa_plan_known {
	const char *name;
	struct npa_plan_buf bufs[NPA_TEST_MAX_BUFS];
	u32 n;
	u64 optimum;
	u64 greedy;
};

/*
 * A 100-byte x 10-step strip cut into rectangles: every byte is used at
 * every step, so the optimum is 100. Greedy by size puts the big ones
 * first and leaves holes that the rest cannot use.
 */
static const struct npa_plan_known npa_plan_knowns[] = {
	{
		.name = "strip of 8, greedy +37%",
		.bufs = { BUF(24, 3, 9, 0), BUF(100, 2, 3, 0), BUF(31, 3, 9, 0),
			  BUF(32, 7, 10, 0), BUF(100, 0, 2, 0), BUF(32, 3, 7, 0),
			  BUF(68, 9, 10, 0), BUF(13, 3, 9, 0) },
		.n = 8, .optimum = 100, .greedy = 137,
	},
	{
		.name = "strip of 8, greedy +44%",
		.bufs = { BUF(44, 0, 3, 0), BUF(30, 4, 10, 0), BUF(30, 0, 4, 0),
			  BUF(30, 3, 5, 0), BUF(20, 0, 10, 0), BUF(14, 3, 10, 0),
			  BUF(30, 5, 10, 0), BUF(6, 0, 10, 0) },
		.n = 8, .optimum = 100, .greedy = 144,
	},
	{
		.name = "strip of 6, greedy +49%",
		.bufs = { BUF(18, 1, 10, 0), BUF(51, 9, 10, 0), BUF(31, 1, 10, 0),
			  BUF(44, 0, 9, 0), BUF(7, 0, 9, 0), BUF(49, 0, 1, 0) },
		.n = 6, .optimum = 100, .greedy = 149,
	},
	{
		.name = "strip of 6, greedy +54%",
		.bufs = { BUF(18, 0, 9, 0), BUF(36, 2, 9, 0), BUF(46, 6, 10, 0),
			  BUF(46, 0, 6, 0), BUF(36, 0, 2, 0), BUF(54, 9, 10, 0) },
		.n = 6, .optimum = 100, .greedy = 154,
	},
};

static void npa_plan_known_desc(const struct npa_plan_known *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(npa_plan_known, npa_plan_knowns, npa_plan_known_desc);

static void npa_plan_test_known(struct kunit *test)
{
	const struct npa_plan_known *t = test->param_value;
	struct npa_plan_buf *b = npa_test_copy(test, t->bufs, t->n);
	struct npa_plan_result res;

	KUNIT_ASSERT_EQ(test, npa_plan_greedy(b, t->n, &res), 0);
	assert_plan_valid(test, b, t->n, &res);
	KUNIT_EXPECT_EQ(test, res.peak, t->greedy);
	KUNIT_EXPECT_EQ(test, res.lower_bound, t->optimum);

	b = npa_test_copy(test, t->bufs, t->n);
	KUNIT_ASSERT_EQ(test, npa_plan(b, t->n, NULL, &res), 0);
	assert_plan_valid(test, b, t->n, &res);
	KUNIT_EXPECT_EQ(test, res.peak, t->optimum);
}

/*
 * Graphs of the fuzz corpus (tools/fuzz/corpus/graph, the planner's input
 * as npa_layout_plan() passes it): a staircase of lifetimes with one
 * buffer aligned to its own large size. The exact search must reach the
 * optimum and stop there (at the bound, or having proven that no lower
 * plan exists) on a sixteenth of the default budget: a part this small
 * must never take the whole budget.
 */
#define NPA_TEST_PROOF_BUDGET	BIT_ULL(17)

struct npa_plan_proof {
	const char *name;
	struct npa_plan_buf bufs[12];
	u32 n;
	u64 optimum;
};

static const struct npa_plan_proof npa_plan_proofs[] = {
	{
		.name = "fuzz 71bf2130: 12 buffers, at the bound",
		.bufs = { BUF(256, 0, 11, 64), BUF(288, 1, 12, 32),
			  BUF(384, 2, 13, 128), BUF(2048, 3, 14, 2048),
			  BUF(512, 4, 16, 64), BUF(512, 5, 15, 16),
			  BUF(512, 6, 17, 64), BUF(448, 7, 18, 32),
			  BUF(768, 8, 19, 64), BUF(768, 9, 20, 64),
			  BUF(320, 12, 13, 64), BUF(768, 18, 19, 64) },
		.n = 12, .optimum = 6496,
	},
	{
		.name = "fuzz 727d40d5: 12 buffers, at the bound",
		.bufs = { BUF(256, 0, 11, 64), BUF(288, 1, 12, 32),
			  BUF(384, 2, 13, 128), BUF(320, 3, 14, 64),
			  BUF(512, 4, 15, 32), BUF(512, 5, 16, 64),
			  BUF(512, 6, 17, 64), BUF(65536, 7, 18, 65536),
			  BUF(768, 8, 19, 64), BUF(768, 9, 20, 64),
			  BUF(256, 10, 11, 32), BUF(448, 17, 18, 16) },
		.n = 12, .optimum = 70112,
	},
	{
		.name = "fuzz 2d269022: 11 buffers, optimum above the bound",
		.bufs = { BUF(256, 0, 11, 64), BUF(320, 1, 12, 64),
			  BUF(384, 2, 13, 128), BUF(16384, 3, 14, 16384),
			  BUF(512, 4, 16, 64), BUF(32768, 5, 15, 32768),
			  BUF(512, 6, 17, 64), BUF(512, 7, 18, 256),
			  BUF(768, 8, 19, 64), BUF(1024, 9, 20, 512),
			  BUF(512, 12, 13, 256) },
		.n = 11, .optimum = 53504,
	},
};

static void npa_plan_proof_desc(const struct npa_plan_proof *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(npa_plan_proof, npa_plan_proofs, npa_plan_proof_desc);

static void npa_plan_test_proof(struct kunit *test)
{
	const struct npa_plan_proof *t = test->param_value;
	struct npa_plan_buf *b = npa_test_copy(test, t->bufs, t->n);
	struct npa_plan_params p = { .budget = NPA_TEST_PROOF_BUDGET };
	struct npa_plan_result res;

	KUNIT_ASSERT_EQ(test, npa_plan(b, t->n, &p, &res), 0);
	assert_plan_valid(test, b, t->n, &res);
	KUNIT_EXPECT_EQ(test, res.peak, t->optimum);
	/* It stopped there: the budget was not spent. */
	KUNIT_EXPECT_LE_MSG(test, res.work, NPA_TEST_PROOF_BUDGET - 1,
			    "the search did not stop at the optimum");
}

/* ---------------------------------------------------------------------- */
/* Properties on random instances */

/*
 * @n random buffers (npa_gen_random()); one in 8 of size 0, one in 6
 * aligned to up to 4 KiB, or, with @huge, each 2^55 bytes larger and one
 * in 7 aligned to 1 MiB, so that no sum or alignment in the planner may
 * wrap.
 */
static void npa_test_random_bufs(struct npa_plan_buf *b, u32 n, u32 steps,
				 u64 max, bool huge, u64 *s)
{
	u32 i;

	npa_gen_random(b, n, steps, max, npa_gen_next(s));
	for (i = 0; i < n; i++) {
		if (huge) {
			b[i].size += 1ULL << 55;
			b[i].align = i % 7 ? 0 : NPA_PLAN_MAX_ALIGN;
			continue;
		}
		if (!npa_gen_below(s, 8))
			b[i].size = 0;
		if (!npa_gen_below(s, 6))
			b[i].align = 1ULL << npa_gen_below(s, 13);
	}
}

/*
 * Random instances, some with sizes near 2^56: the plan is valid, at or
 * above the lower bound (which npa_plan_lower_bound() agrees with), never
 * worse than the baseline, and the same input with the same budget gives
 * the same plan.
 */
static void npa_plan_test_random(struct kunit *test)
{
	const struct npa_plan_params p = { .budget = 4000 };
	struct npa_plan_buf *b, *g, *d;
	struct npa_plan_result res, gres, dres;
	u64 seed = 0x12345678;
	u32 round;

	b = kunit_kcalloc(test, 40, sizeof(*b), GFP_KERNEL);
	g = kunit_kcalloc(test, 40, sizeof(*g), GFP_KERNEL);
	d = kunit_kcalloc(test, 40, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, g);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, d);

	for (round = 0; round < 24; round++) {
		u32 n = 1 + npa_gen_below(&seed, 40);

		npa_test_random_bufs(b, n, 2 + round % 16,
				     round % 3 ? 1000 : 1ULL << 40, round % 6 == 5,
				     &seed);
		memcpy(g, b, n * sizeof(*b));
		memcpy(d, b, n * sizeof(*b));

		KUNIT_ASSERT_EQ(test, npa_plan(b, n, &p, &res), 0);
		assert_plan_valid(test, b, n, &res);
		KUNIT_EXPECT_EQ(test, res.lower_bound, npa_plan_lower_bound(b, n));

		KUNIT_ASSERT_EQ(test, npa_plan_greedy(g, n, &gres), 0);
		assert_plan_valid(test, g, n, &gres);
		KUNIT_EXPECT_LE_MSG(test, res.peak, gres.peak,
				    "round %u: npa worse than greedy", round);

		KUNIT_ASSERT_EQ(test, npa_plan(d, n, &p, &dres), 0);
		KUNIT_EXPECT_EQ(test, dres.peak, res.peak);
		KUNIT_EXPECT_EQ(test, memcmp(d, b, n * sizeof(*b)), 0);
	}
}

/*
 * A 2^20-byte x 64-step strip cut into 24 rectangles by guillotine cuts
 * (npa_gen_guillotine()): the optimum is the strip width, and npa finds
 * it.
 */
static void npa_plan_test_strip(struct kunit *test)
{
	const struct npa_plan_params p = { .budget = 200000 };
	const u64 width = 1 << 20;
	struct npa_plan_result res;
	struct npa_plan_buf *b;
	u32 n;

	b = kunit_kcalloc(test, 24, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);
	n = npa_gen_guillotine(b, 24, width, 64, 0xfeedf00d, true);
	/* The cut itself is a valid plan at the optimum. */
	KUNIT_ASSERT_EQ(test, npa_plan_verify(b, n, width), 0);

	KUNIT_ASSERT_EQ(test, npa_plan(b, n, &p, &res), 0);
	assert_plan_valid(test, b, n, &res);
	KUNIT_EXPECT_EQ(test, res.lower_bound, width);
	KUNIT_EXPECT_EQ(test, res.peak, width);
}

/*
 * Twice the budget never gives a larger peak: random instances and a
 * strip, over a ladder of budgets (starting below what the constructive
 * plans alone cost, so that the searches are cut at every point).
 */
static void npa_plan_test_monotone(struct kunit *test)
{
	struct npa_plan_buf *b, *w;
	u64 seed = 0x9abcdef1;
	u32 round;

	b = kunit_kcalloc(test, 60, sizeof(*b), GFP_KERNEL);
	w = kunit_kcalloc(test, 60, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, w);
	for (round = 0; round < 8; round++) {
		u32 n = 20 + npa_gen_below(&seed, 40);
		u64 budget, last = U64_MAX;

		if (round & 1)
			n = npa_gen_guillotine(b, n, 1 << 16, 32,
					       npa_gen_next(&seed), true);
		else
			npa_test_random_bufs(b, n, 24, 1000, false, &seed);
		for (budget = 16; budget <= 1 << 16; budget *= 2) {
			const struct npa_plan_params p = { .budget = budget };
			struct npa_plan_result res;

			memcpy(w, b, n * sizeof(*b));
			KUNIT_ASSERT_EQ(test, npa_plan(w, n, &p, &res), 0);
			assert_plan_valid(test, w, n, &res);
			KUNIT_EXPECT_LE_MSG(test, res.peak, last,
					    "round %u: budget %llu gives a larger peak",
					    round, budget);
			last = res.peak;
		}
	}
}

/*
 * Small hand-made tight instances, 12-16 rectangles cut from a strip in
 * both directions: every byte is used at every step, and the exact search
 * finds that optimum within the default budget.
 */
static void npa_plan_test_tight(struct kunit *test)
{
	struct npa_plan_buf *b;
	u64 seed = 0x5eed;
	u32 round;

	b = kunit_kcalloc(test, 16, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);
	for (round = 0; round < 16; round++) {
		u32 n = 12 + round % 5;
		struct npa_plan_result res;

		n = npa_gen_guillotine(b, n, 4096, 16, npa_gen_next(&seed), true);
		KUNIT_ASSERT_EQ(test, npa_plan_verify(b, n, 4096), 0);
		KUNIT_ASSERT_EQ(test, npa_plan(b, n, NULL, &res), 0);
		assert_plan_valid(test, b, n, &res);
		KUNIT_EXPECT_EQ_MSG(test, res.peak, 4096ULL, "round %u", round);
	}
}

/*
 * Tight strips of 300 rectangles cut on 4 KiB lines, each aligned to 1,
 * 64 or 4096 bytes: every byte is used at every step. The plan is valid
 * (the verifier checks alignment too) and at the optimum; in the last
 * rounds (a smaller budget) a tenth of the buffers need 8 KiB alignment
 * their sizes do not have (they cannot be merged), and the plan is still
 * valid.
 */
static void npa_plan_test_tight_aligned(struct kunit *test)
{
	const u64 width = 1 << 16, unit = 4096;
	struct npa_plan_buf *b;
	u64 seed = 0xa119;
	u32 round, i;

	b = kunit_kcalloc(test, 300, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);
	for (round = 0; round < 4; round++) {
		struct npa_plan_params p = { .budget = round < 2 ? 0 : 1 << 16 };
		struct npa_plan_result res;
		u32 n = npa_gen_guillotine(b, 300, width, 128,
					   npa_gen_next(&seed), round & 1);
		bool odd = false;

		for (i = 0; i < n; i++) {
			static const u64 align[] = { 1, 64, 4096 };

			b[i].size *= unit;
			b[i].offset *= unit;
			b[i].align = align[npa_gen_below(&seed, 3)];
			if (round >= 2 && !npa_gen_below(&seed, 10) &&
			    b[i].size % (2 * unit)) {
				b[i].align = 2 * unit;
				odd = true;
			}
		}
		KUNIT_ASSERT_EQ(test, npa_plan(b, n, &p, &res), 0);
		assert_plan_valid(test, b, n, &res);
		if (!odd)
			KUNIT_EXPECT_EQ_MSG(test, res.peak, width * unit,
					    "round %u", round);
	}
}

static struct kunit_case npa_plan_test_cases[] = {
	KUNIT_CASE_PARAM(npa_plan_test_edge, npa_plan_edge_gen_params),
	KUNIT_CASE(npa_plan_test_too_many),
	KUNIT_CASE(npa_plan_test_lower_bound),
	KUNIT_CASE(npa_plan_test_verify),
	KUNIT_CASE_PARAM(npa_plan_test_known, npa_plan_known_gen_params),
	KUNIT_CASE_PARAM(npa_plan_test_proof, npa_plan_proof_gen_params),
	KUNIT_CASE(npa_plan_test_random),
	KUNIT_CASE(npa_plan_test_monotone),
	KUNIT_CASE(npa_plan_test_strip),
	KUNIT_CASE(npa_plan_test_tight),
	KUNIT_CASE(npa_plan_test_tight_aligned),
	{}
};

static struct kunit_suite npa_plan_test_suite = {
	.name = "npa_plan",
	.test_cases = npa_plan_test_cases,
};

kunit_test_suite(npa_plan_test_suite);
