// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host self-test of the arena planner (drivers/npa/npa_plan.c built
 * against tools/include): edge cases, the verifier, random property tests
 * and tightly packed instances whose optimum is known. Prints one TAP line
 * ("ok - ..." / "not ok - ...") per check; run.sh numbers them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/minmax.h>

#include "baselines.h"
#include "gen.h"
#include "npa_guillotine.h"
#include "npa_plan.h"

static int failures;

static void tap(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!ok)
		failures++;
}

static struct npa_plan_buf B(u64 size, u32 lo, u32 hi, u64 align)
{
	return (struct npa_plan_buf){ .size = size, .lo = lo, .hi = hi,
				      .align = align };
}

/*
 * Plan with @plan (npa_plan(), or npa_plan_nested(): without the guillotine
 * step, for the tests of the steps after it), verify, and return the peak
 * (U64_MAX on any failure).
 */
static u64 plan_with(int (*plan)(struct npa_plan_buf *, u32,
				 const struct npa_plan_params *,
				 struct npa_plan_result *),
		     struct npa_plan_buf *b, u32 n, u64 budget,
		     struct npa_plan_result *res)
{
	struct npa_plan_params p = { .budget = budget };

	if (plan(b, n, &p, res))
		return U64_MAX;
	if (npa_plan_verify(b, n, res->peak))
		return U64_MAX;
	return res->peak;
}

static u64 plan_ok(struct npa_plan_buf *b, u32 n, u64 budget,
		   struct npa_plan_result *res)
{
	return plan_with(npa_plan, b, n, budget, res);
}

static u64 plan_nested_ok(struct npa_plan_buf *b, u32 n, u64 budget,
			  struct npa_plan_result *res)
{
	return plan_with(npa_plan_nested, b, n, budget, res);
}

static void test_edges(void)
{
	struct npa_plan_result res;
	struct npa_plan_buf b[8];
	int ret;

	ret = npa_plan(NULL, 0, NULL, &res);
	tap(!ret && res.peak == 0, "no buffers: peak 0");

	b[0] = B(100, 0, 1, 0);
	tap(plan_ok(b, 1, 0, &res) == 100 && b[0].offset == 0,
	    "one buffer at offset 0");

	b[0] = B(0, 0, 5, 0);
	b[1] = B(10, 0, 5, 0);
	b[2] = B(0, 2, 3, 64);
	tap(plan_ok(b, 3, 0, &res) == 10 && !b[0].offset && !b[2].offset,
	    "zero-size buffers get offset 0 and cost nothing");

	b[0] = B(8, 3, 7, 0);
	b[1] = B(16, 3, 7, 0);
	b[2] = B(32, 3, 7, 0);
	tap(plan_ok(b, 3, 0, &res) == 56 && res.lower_bound == 56,
	    "identical lifetimes stack up to the sum");

	b[0] = B(8, 0, 2, 0);
	b[1] = B(8, 2, 4, 0);
	tap(plan_ok(b, 2, 0, &res) == 8,
	    "half-open lifetimes: [0,2) and [2,4) share an address");

	b[0] = B(10, 1, 1, 0);
	tap(npa_plan(b, 1, NULL, &res) == -EINVAL, "empty lifetime -> -EINVAL");
	b[0] = B(10, 2, 1, 0);
	tap(npa_plan(b, 1, NULL, &res) == -EINVAL,
	    "reversed lifetime -> -EINVAL");
	b[0] = B(10, 0, 1, 3);
	tap(npa_plan(b, 1, NULL, &res) == -EINVAL,
	    "alignment not a power of two -> -EINVAL");
	b[0] = B(10, 0, 1, 2 * NPA_PLAN_MAX_ALIGN);
	tap(npa_plan(b, 1, NULL, &res) == -EINVAL,
	    "alignment above 1 MiB -> -EINVAL");
	b[0] = B(10, 0, 1, 0);
	b[0].flags = 1;
	tap(npa_plan(b, 1, NULL, &res) == -EINVAL, "unknown flag -> -EINVAL");
	b[0] = B(U64_MAX - 5, 0, 1, 0);
	b[1] = B(10, 5, 6, 0);
	tap(npa_plan(b, 2, NULL, &res) == -EOVERFLOW,
	    "sizes overflowing u64 -> -EOVERFLOW");
	b[0] = B(U64_MAX, 0, 1, 0);
	b[1] = B(1, 0, 1, 2);
	tap(npa_plan(b, 2, NULL, &res) == -EOVERFLOW,
	    "alignment slack overflowing u64 -> -EOVERFLOW");
	tap(npa_plan(b, NPA_PLAN_MAX_BUFS + 1, NULL, &res) == -E2BIG,
	    "too many buffers -> -E2BIG");
	b[0] = B(U64_MAX / 2, 0, 1, 0);
	b[1] = B(U64_MAX / 2, 0, 1, 0);
	tap(plan_ok(b, 2, 0, &res) == U64_MAX / 2 * 2,
	    "huge sizes that fit in u64 are planned");

	b[0] = B(3, 0, 4, 0);
	b[1] = B(5, 1, 3, NPA_PLAN_MAX_ALIGN);
	b[2] = B(7, 2, 6, 4096);
	tap(plan_ok(b, 3, 0, &res) != U64_MAX &&
	    !(b[1].offset % NPA_PLAN_MAX_ALIGN) && !(b[2].offset % 4096),
	    "alignments up to 1 MiB are honoured");

	b[0] = B(10, 0, 4, 0);
	b[1] = B(20, 2, 6, 0);
	b[2] = B(30, 5, 9, 0);
	tap(npa_plan_lower_bound(b, 3) == 50, "lower bound of a chain");
	b[0] = B(U64_MAX, 0, 4, 0);
	tap(npa_plan_lower_bound(b, 3) == U64_MAX,
	    "lower bound overflow -> U64_MAX");
}

static void test_verifier(void)
{
	struct npa_plan_buf b[3];

	b[0] = B(10, 0, 4, 0);
	b[1] = B(10, 3, 6, 0);
	b[2] = B(10, 4, 8, 0);
	b[0].offset = 0;
	b[1].offset = 10;
	b[2].offset = 0;
	tap(npa_plan_verify(b, 3, 20) == 0, "verifier accepts a valid plan");
	b[1].offset = 5;
	tap(npa_plan_verify(b, 3, 20) == -EEXIST,
	    "verifier catches an address overlap");
	b[1].offset = 10;
	tap(npa_plan_verify(b, 3, 19) == -ERANGE,
	    "verifier catches a buffer above the peak");
	b[1].align = 4;
	tap(npa_plan_verify(b, 3, 20) == -EINVAL,
	    "verifier catches a misaligned offset");
	b[1].align = 0;
	b[2].offset = 5;
	tap(npa_plan_verify(b, 3, 20) == -EEXIST,
	    "verifier catches an overlap with a later buffer");
}

static void test_random(void)
{
	struct npa_plan_buf *b = calloc(300, sizeof(*b));
	struct npa_plan_buf *g = calloc(300, sizeof(*g));
	int i, bad_valid = 0, bad_lb = 0, bad_greedy = 0, bad_det = 0;

	for (i = 0; i < 200; i++) {
		struct npa_plan_result res, gres, res2;
		u32 n = 1 + i % 97 * 3;
		u64 peak;

		npa_gen_random(b, n, 1 + i % 40, i % 3 ? 1000 : 1ULL << 40,
			       i + 1);
		if (i % 5 == 0)
			b[i % n].align = 1U << (i % 21);
		memcpy(g, b, n * sizeof(*b));
		peak = plan_ok(b, n, 20000, &res);
		if (peak == U64_MAX) {
			bad_valid++;
			continue;
		}
		if (peak < res.lower_bound ||
		    res.lower_bound != npa_plan_lower_bound(b, n))
			bad_lb++;
		if (npa_plan_greedy(g, n, &gres) ||
		    npa_plan_verify(g, n, gres.peak) || gres.peak < peak)
			bad_greedy++;
		memcpy(g, b, n * sizeof(*b));
		if (plan_ok(g, n, 20000, &res2) != peak ||
		    memcmp(g, b, n * sizeof(*b)))
			bad_det++;
	}
	tap(!bad_valid, "random: 200 plans valid (%d bad)", bad_valid);
	tap(!bad_lb, "random: peak >= lower bound (%d bad)", bad_lb);
	tap(!bad_greedy, "random: npa never worse than greedy (%d bad)",
	    bad_greedy);
	tap(!bad_det, "random: same input and budget, same plan (%d bad)",
	    bad_det);
	free(b);
	free(g);
}

/* Sizes near 2^56 and big alignments: no arithmetic may wrap anywhere. */
static void test_huge(void)
{
	struct npa_plan_buf *b = calloc(100, sizeof(*b));
	struct npa_plan_result res;
	int i, bad = 0;

	for (i = 0; i < 10; i++) {
		u32 j;

		npa_gen_random(b, 100, 20, 1ULL << 55, 77 + i);
		for (j = 0; j < 100; j++) {
			b[j].size += 1ULL << 55;
			b[j].align = j % 7 ? 0 : NPA_PLAN_MAX_ALIGN;
		}
		if (plan_ok(b, 100, 30000, &res) == U64_MAX)
			bad++;
	}
	tap(!bad, "huge sizes (2^55..2^56, 1 MiB alignments): plans valid (%d bad)",
	    bad);
	free(b);
}

/* Tightly packed strips: optimum == lower bound == width by construction. */
static void test_strips(void)
{
	static const u32 sizes[] = { 10, 20, 50, 100, 200 };
	struct npa_plan_buf *b = calloc(200, sizeof(*b));
	unsigned int i, s;

	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		double worst = 0, gworst = 0;

		for (i = 0; i < 3; i++) {
			struct npa_plan_result res, gres;
			u32 n = npa_gen_strip(b, sizes[s], 1000000, 1000,
					      1000 * s + i);

			npa_plan_greedy(b, n, &gres);
			if (plan_ok(b, n, 0, &res) == U64_MAX ||
			    res.lower_bound != 1000000) {
				worst = 1e9;
				continue;
			}
			worst = max_t(double, worst, (res.peak - 1e6) / 1e4);
			gworst = max_t(double, gworst, (gres.peak - 1e6) / 1e4);
		}
		tap(worst <= 5.0,
		    "strip n=%u: npa within 5%% of the optimum (worst +%.1f%%, greedy +%.1f%%)",
		    sizes[s], worst, gworst);
	}
	free(b);
}

/* The three generators of npa-bench's strip tables. */
enum strip_gen { GEN_STRIP, GEN_CUT, GEN_SWEEP };

/* A 10^6-byte x 1000-step strip of npa-bench's tables, of kind @gen. */
static u32 bench_strip(struct npa_plan_buf *b, u32 n, enum strip_gen gen,
		       u64 seed)
{
	static u32 (*const fn[])(struct npa_plan_buf *, u32, u64, u32, u64) = {
		[GEN_STRIP] = npa_gen_strip,
		[GEN_CUT] = npa_gen_cut,
		[GEN_SWEEP] = npa_gen_sweep,
	};

	return fn[gen](b, n, 1000000, 1000, seed);
}

static const char *strip_kind(enum strip_gen gen)
{
	static const char *const name[] = {
		[GEN_STRIP] = "strip", [GEN_CUT] = "cut", [GEN_SWEEP] = "sweep",
	};

	return name[gen];
}

/*
 * The three strip generators hand back their cut as the offsets: a plan at
 * the optimum, the width (the oracle that host experiments compare the
 * planner's partial plans with).
 */
static void test_gen_plans(void)
{
	static u32 (*const gen[])(struct npa_plan_buf *b, u32 n, u64 width,
				  u32 steps, u64 seed) = {
		npa_gen_strip, npa_gen_sweep, npa_gen_cut,
	};
	struct npa_plan_buf *b = calloc(500, sizeof(*b));
	unsigned int i, bad = 0;

	for (i = 0; i < 60; i++) {
		u32 n = gen[i % 3](b, 500, 1000000, 1000, i + 1);

		if (n < 400 || npa_plan_verify(b, n, 1000000))
			bad++;
	}
	tap(!bad, "strip generators: their offsets are plans at the width (%u bad of 60)",
	    bad);
	free(b);
}

/*
 * Strips of 1000 rects (seeds of npa-bench's tables) where the exact
 * search finds no plan at the bound with the default budget: the
 * completion of its deepest partial plan (then the skyline passes and
 * the local search) end within 5%, where the orders end 35-45% over
 * (unless the exact search solves them one day). Sizes are doubled and
 * one rect asks for an alignment of 2: the optimum stays the strip (all
 * its offsets are even), and the tiling search, which solves these
 * strips, stays out of it.
 */
static void test_complete(void)
{
	static const struct {
		enum strip_gen gen;
		u64 seed;
	} cases[] = {
		{ GEN_STRIP, 2 * 7919 + 1000 },	/* npa-bench: strip 1000 / 2 */
		{ GEN_STRIP, 28 * 7919 + 1000 },	/* strip 1000 / 28 */
		{ GEN_SWEEP, 12 * 7919 + 1000 },	/* sweep 1000 / 12 */
	};
	struct npa_plan_buf *b = calloc(1000, sizeof(*b));
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct npa_plan_result res, gres;
		u32 n = bench_strip(b, 1000, cases[i].gen, cases[i].seed), j;
		u64 peak;

		for (j = 0; j < n; j++)
			b[j].size *= 2;
		b[0].align = 2;
		npa_plan_greedy(b, n, &gres);
		peak = plan_ok(b, n, 0, &res);
		tap(peak <= res.lower_bound + res.lower_bound / 20,
		    "%s 1000 (seed %llu): %s, +%.2f%% (greedy +%.1f%%)",
		    strip_kind(cases[i].gen),
		    (unsigned long long)cases[i].seed,
		    npa_plan_algo_name(res.algo),
		    (peak - 2e6) / 2e4, (gres.peak - 2e6) / 2e4);
	}
	free(b);
}

/*
 * Strips of 2000 rects (seeds of npa-bench's tables). The tiling search
 * finds the optimum of the first two, where no other step gets within
 * 20% (20-29% guillotine, 5-25% sweep). It does not solve the other two.
 * On the guillotine strip no completion gets close (no exact search
 * finishes there, the orders end 37-46% over, the skyline passes and the
 * local search 20-25%), but the merge step does: the rects merged back
 * into 75 rectangles are tiled at once. On the sweep, the partial tilings
 * kept (bounds 83 and 63 of 397) completed end 5.56% over, the other
 * steps 17%; the relaxed run (holes where a decision is stuck, in order
 * 2; 1.24% over in order 0) ends a few bytes over. The
 * last two sweeps the tiling search solves only by trading twins (rects
 * of one size started at one bound, traded when every candidate of a
 * decision fails): without it, their deepest partial tilings are
 * completed, 0.004% over and at the optimum. The guillotine step, which
 * solves the first two first, is left out (npa_plan_nested()).
 */
static void test_strips_2000(void)
{
	static const struct {
		enum strip_gen gen;
		u64 seed;
		u32 algo, also;		/* the step expected, or a later one */
		unsigned int pct;	/* at most this far over */
	} cases[] = {
		/* npa-bench: strip 2000 / 2, sweep 2000 / 1, ... */
		{ GEN_STRIP, 2 * 7919 + 2000, NPA_PLAN_ALGO_TILE, 0, 0 },
		{ GEN_SWEEP, 1 * 7919 + 2000, NPA_PLAN_ALGO_TILE, 0, 0 },
		{ GEN_STRIP, 16 * 7919 + 2000, NPA_PLAN_ALGO_MERGE, 0, 0 },
		{ GEN_SWEEP, 53 * 7919 + 2000, NPA_PLAN_ALGO_TILE_FIT, 0, 1 },
		{ GEN_SWEEP, 25 * 7919 + 2000, NPA_PLAN_ALGO_TILE, 0, 0 },
		{ GEN_SWEEP, 28 * 7919 + 2000, NPA_PLAN_ALGO_TILE, 0, 0 },
	};
	struct npa_plan_buf *b = calloc(2000, sizeof(*b));
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct npa_plan_result res;
		u32 n = bench_strip(b, 2000, cases[i].gen, cases[i].seed);
		u64 peak = plan_nested_ok(b, n, 0, &res);
		u64 cap = res.lower_bound + res.lower_bound / 100 * cases[i].pct;
		u32 want = cases[i].algo;

		tap(peak <= cap && (res.algo == want ||
				    (cases[i].also && res.algo == cases[i].also)),
		    "%s 2000 (seed %llu): %s, +%.2f%% (at most +%u%%, %s)",
		    strip_kind(cases[i].gen),
		    (unsigned long long)cases[i].seed,
		    npa_plan_algo_name(res.algo), (peak - 1e6) / 1e4,
		    cases[i].pct, npa_plan_algo_name(want));
	}
	free(b);
}

/*
 * Sweep strips (npa-bench seeds) whose restarts get stuck among
 * thousands of rects of a few bytes: the deepest partial tiling,
 * completed, is within 5% when the copy is taken each 1/256 of the
 * bounds (bounds 166 of 664 for 8000 / 18, 0.55% over). With a copy each
 * 1/64, up to 13 bounds a restart tiled were lost, and the first three
 * ended 8.58%, 8.19% and 6.31% over. The last gets there by a pair trade
 * of the tiling search (npa_treduce_pairs(): two rects of a few bytes
 * taken for the wrong block of their bound); without it, 11.2% over.
 */
static void test_sweeps_deep(void)
{
	static const struct {
		u32 n;
		u64 seed;
	} cases[] = {
		{ 8000, 18 * 7919 + 8000 },
		{ 8000, 13 * 7919 + 8000 },
		{ 6000, 31 * 7919 + 6000 },
		{ 4000, 25 * 7919 + 4000 },
	};
	struct npa_plan_buf *b = calloc(8000, sizeof(*b));
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct npa_plan_result res;
		u32 n = bench_strip(b, cases[i].n, GEN_SWEEP, cases[i].seed);
		u64 peak = plan_ok(b, n, 0, &res);

		tap(peak <= res.lower_bound + res.lower_bound / 20 &&
		    res.algo == NPA_PLAN_ALGO_TILE_FIT,
		    "sweep %u (seed %llu): %s, +%.3f%% (within 5%%, tiling-completed)",
		    cases[i].n, (unsigned long long)cases[i].seed,
		    npa_plan_algo_name(res.algo),
		    (double)(peak - res.lower_bound) * 100 / res.lower_bound);
	}
	free(b);
}

/*
 * Strips of 2000-8000 rects that only the merge step plans at the optimum
 * (or close to it), and only with its later ranks: the guillotine strip of
 * 3000 (npa-bench's seed 8) ended 15.7% over while every stack that no
 * size confirms was ranked alike, the strip of 3000 cut in random
 * directions (seed 18) 7.2% over before the column rank, and the cut strip
 * of 4000 (seed 1) 6.2% over while the last rank merged stacks nothing
 * confirms. The guillotine strip of 4000 (seed 8) and the cut strips of
 * 4000 (seed 10) and 2000 (seed 98) ended 0.78%, 0.97% and 0.23% over
 * while the repairs split only the merged pieces above the bound, not
 * those around the holes of the plan. The cut strip of 2000 (seed 89)
 * ended 2.9% over while the tiling search's restarts with random
 * tie-breaks drew new keys each time they came back to a decision (and so
 * skipped or repeated some of its candidates). With the default budget,
 * cut 4000 / 10 and 2000 / 89 end 0.83% and 2.9% over since the merge
 * rounds keep the keys of stacked pairs (the same merges for less work,
 * which changes what the levels and repairs get, and so their paths); with
 * the budgets here (800000 and 700000) they end at the optimum, where the
 * planner before each fix ends 0.83% and 2.9% over. The guillotine strip
 * of 8000 (seed 1) ended 27.2% over while the plans of the levels ran six
 * short restarts of the tiling search, and the cut strip of 8000 (seed 1)
 * 22.7% over while the merge rounds searched the keys of every stacked
 * pair again each round. The cut strip of 8000 (seed 6) ended 22.6% over
 * while, above 4096 rects, the tiling search after the merge step took
 * five eighths of what was left and the plans of the levels ran every
 * metric order and the baseline. These plans are made without the
 * guillotine step (npa_plan_nested()); with it (npa_plan()), the step
 * plans each of them at the optimum first.
 */
static void test_strips_large(void)
{
	/* @budget: 0 for the default. */
	static const struct {
		enum strip_gen gen;
		u32 n;
		u64 seed;
		u64 budget;
	} strips[] = {
		{ GEN_STRIP, 3000, 8 * 7919 + 3000, 0 },
		{ GEN_CUT, 3000, 18 * 7919 + 3000, 0 },
		{ GEN_CUT, 4000, 1 * 7919 + 4000, 0 },
		{ GEN_STRIP, 4000, 8 * 7919 + 4000, 0 },
		{ GEN_CUT, 4000, 10 * 7919 + 4000, 800000 },
		{ GEN_CUT, 2000, 98 * 7919 + 2000, 0 },
		{ GEN_CUT, 2000, 89 * 7919 + 2000, 700000 },
		{ GEN_STRIP, 8000, 1 * 7919 + 8000, 0 },
		{ GEN_CUT, 8000, 1 * 7919 + 8000, 0 },
		{ GEN_CUT, 8000, 6 * 7919 + 8000, 0 },
	};
	struct npa_plan_buf *b = calloc(8000, sizeof(*b));
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(strips); i++) {
		struct npa_plan_result res;
		const char *kind = strip_kind(strips[i].gen);
		u32 n;
		u64 peak;

		n = bench_strip(b, strips[i].n, strips[i].gen, strips[i].seed);
		peak = plan_nested_ok(b, n, strips[i].budget, &res);

		tap(peak == res.lower_bound && res.algo == NPA_PLAN_ALGO_MERGE,
		    "%s %u (seed %llu): %s, +%.2f%% (the optimum, merged)",
		    kind, strips[i].n, (unsigned long long)strips[i].seed,
		    npa_plan_algo_name(res.algo), (peak - 1e6) / 1e4);
		if (strips[i].budget)
			continue;
		peak = plan_ok(b, n, 0, &res);
		tap(peak == res.lower_bound &&
		    res.algo == NPA_PLAN_ALGO_GUILLOTINE,
		    "%s %u (seed %llu): %s, +%.2f%% (the optimum, guillotine)",
		    kind, strips[i].n, (unsigned long long)strips[i].seed,
		    npa_plan_algo_name(res.algo), (peak - 1e6) / 1e4);
	}
	free(b);
}

/*
 * Strips the guillotine step plans at the optimum only with deep repairs,
 * the plan of the pieces one match down, or no check of its first pass's
 * progress (npa-bench's seeds):
 * - guillotine strips 8000 / 11 and 13 stall the step with 69 and 27
 *   pieces, where no undo of a match that made an unmerged piece lets its
 *   greedy go further, only an undo of a chain further down (a deep
 *   repair). Without deep repairs 11 ended 1.55% over (the plan of the
 *   stalled pieces) and 13 was planned at the optimum only by the merge
 *   step, in 0.7 s.
 * - cut strips 8000 / 11 and 9 stall it with wrong merges among the last
 *   made: the plan of the stalled pieces is 0.34% and 12.8% over, the
 *   plan of the pieces one match down at the optimum (9 only with the
 *   spare budget: with the rest of the step's share alone it was 6.8%
 *   over). Before, 11 ended 0.34% over (at the optimum only by the merge
 *   step, with the budget grown back) and 9 12.8% over.
 * - the cut strip 6000 / 5: the step's first pass still had 71% of the
 *   rects unmerged at 640 units a rect, where a check gave the strip back
 *   as no guillotine tiling (the other steps ended it 2.4% over in 1.4-2.2
 *   s). Without the check the step plans it at the optimum in about 0.2 s.
 */
static void test_guillotine_fixes(void)
{
	static const struct {
		enum strip_gen gen;
		u32 n;
		u64 seed;
		const char *why;
	} strips[] = {
		{ GEN_STRIP, 8000, 11 * 7919 + 8000, "deep repairs" },
		{ GEN_STRIP, 8000, 13 * 7919 + 8000, "deep repairs" },
		{ GEN_CUT, 8000, 11 * 7919 + 8000, "pieces one match down" },
		{ GEN_CUT, 8000, 9 * 7919 + 8000, "pieces one match down" },
		{ GEN_CUT, 6000, 5 * 7919 + 6000, "slow first pass" },
	};
	struct npa_plan_buf *b = calloc(8000, sizeof(*b));
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(strips); i++) {
		struct npa_plan_result res;
		const char *kind = strip_kind(strips[i].gen);
		u32 n;
		u64 peak;

		n = bench_strip(b, strips[i].n, strips[i].gen, strips[i].seed);
		peak = plan_ok(b, n, 0, &res);
		tap(peak == res.lower_bound &&
		    res.algo == NPA_PLAN_ALGO_GUILLOTINE,
		    "%s %u (seed %llu): %s, +%.2f%% (the optimum, guillotine, %s)",
		    kind, strips[i].n, (unsigned long long)strips[i].seed,
		    npa_plan_algo_name(res.algo), (peak - 1e6) / 1e4,
		    strips[i].why);
	}
	free(b);
}

/* xorshift64, for test_tiny_strips(). */
static u64 tiny_rand(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * A @width x @steps strip cut into at most @want rects (each cut across
 * time or address at random), shuffled: the plan in the offsets.
 */
static u32 tiny_strip(struct npa_plan_buf *b, u32 want, u64 width, u32 steps,
		      u64 *s)
{
	u32 n = 1, i, big;

	b[0] = B(width, 0, steps, 0);
	while (n < want) {
		struct npa_plan_buf *q;

		for (big = 0, i = 1; i < n; i++)
			if (b[i].size * (b[i].hi - b[i].lo) >
			    b[big].size * (b[big].hi - b[big].lo))
				big = i;
		q = &b[big];
		if (q->size < 2 && q->hi - q->lo < 2)
			break;
		b[n] = *q;
		if (q->hi - q->lo > 1 && (q->size < 2 || tiny_rand(s) & 1)) {
			u32 cut = q->lo + 1 + tiny_rand(s) % (q->hi - q->lo - 1);

			q->hi = cut;
			b[n].lo = cut;
		} else {
			u64 cut = 1 + tiny_rand(s) % (q->size - 1);

			b[n].offset = q->offset + cut;
			b[n].size = q->size - cut;
			q->size = cut;
		}
		n++;
	}
	for (i = n; i > 1; i--) {
		u32 j = tiny_rand(s) % i;
		struct npa_plan_buf t = b[i - 1];

		b[i - 1] = b[j];
		b[j] = t;
	}
	return n;
}

/*
 * Thousands of small strips (up to 12 bytes x 31 steps, so that sizes
 * repeat, sometimes with one rect twice): every plan valid, and every run
 * ends. The tiling search's undo trail overflows on some of these; it
 * used to drop the writes then and loop for ever moving nodes that did
 * not move (instance 6725 of this sequence).
 */
static void test_tiny_strips(void)
{
	struct npa_plan_buf b[200];
	u64 s = 88172645463325252ULL;
	unsigned int it, bad = 0, tiled = 0;

	for (it = 0; it < 8000; it++) {
		u32 want = 2 + tiny_rand(&s) % 180, steps = 2 + tiny_rand(&s) % 30;
		u64 width = 2 + tiny_rand(&s) % 12;
		u32 n = tiny_strip(b, want, width, steps, &s);
		struct npa_plan_params p = { .budget = 1 + tiny_rand(&s) % 5000 };
		struct npa_plan_result res;

		if (tiny_rand(&s) % 4 == 0) {
			u32 k = tiny_rand(&s) % n;

			if (n < 190)
				b[n++] = b[k];
		}
		if (npa_plan(b, n, tiny_rand(&s) & 1 ? &p : NULL, &res) ||
		    npa_plan_verify(b, n, res.peak))
			bad++;
		tiled += res.algo == NPA_PLAN_ALGO_TILE;
	}
	tap(!bad && tiled, "8000 small strips with repeated sizes: all valid (%u bad, %u tiled)",
	    bad, tiled);
}

/* Plan with baseline @a, verify, and return the peak (U64_MAX on failure). */
static u64 bl_ok(enum npa_bl_algo a, struct npa_plan_buf *b, u32 n, u64 cap)
{
	struct npa_bl_result res;

	if (npa_bl_plan(a, b, n, NULL, cap, &res))
		return U64_MAX;
	if (npa_plan_verify(b, n, res.peak))
		return U64_MAX;
	return res.peak;
}

/*
 * The other projects' planners of npa-bench --baselines: a hand-made
 * instance with a known result, random ones (valid, never below the
 * bound, deterministic) and strips.
 */
static void test_baselines(void)
{
	struct npa_plan_buf *b = calloc(300, sizeof(*b));
	struct npa_plan_buf *g = calloc(300, sizeof(*g));
	int a, i, bad_valid = 0, bad_lb = 0, bad_det = 0;

	/*
	 * P [0,2) and Q [1,4) of 100 bytes, R [3,4) of 50, Z of 0 bytes.
	 * By size Q goes first (same size, more conflicts), then P above
	 * it, then R above Q: peak 200, the bound. Linear: the sum, 250.
	 */
	for (a = 0; a < NPA_BL_COUNT; a++) {
		u64 want = a == NPA_BL_VELA_LINEAR ? 250 : 200, peak;

		b[0] = B(100, 0, 2, 0);
		b[1] = B(100, 1, 4, 0);
		b[2] = B(50, 3, 4, 0);
		b[3] = B(0, 0, 4, 0);
		peak = bl_ok(a, b, 4, 0);
		tap(peak == want && !b[3].offset,
		    "baseline %s: hand-made instance, peak %llu (want %llu)",
		    npa_bl_name(a), peak, want);
	}
	tap(!npa_bl_plan(NPA_BL_TVM_SIZE, b, 4, NULL, 0,
			 &(struct npa_bl_result){ }) &&
	    b[1].offset == 0 && b[0].offset == 100 && b[2].offset == 100,
	    "baseline TVM greedy_by_size: size, then conflicts, then first fit");
	/*
	 * A gap below the top: R [2,4) goes under Q, which sits on P
	 * (first fit, as TVM since greedy.cc's re-sort; older TVM put R
	 * above Q).
	 */
	b[0] = B(100, 0, 2, 0);
	b[1] = B(50, 1, 3, 0);
	b[2] = B(40, 2, 4, 0);
	tap(bl_ok(NPA_BL_TVM_SIZE, b, 3, 0) == 150 && b[1].offset == 100 &&
	    !b[2].offset,
	    "baseline TVM greedy_by_size reuses the gap under a conflict");

	for (i = 0; i < 120; i++) {
		u32 n = 1 + i % 61 * 4;
		u64 lb, peak;

		npa_gen_random(b, n, 1 + i % 40, i % 3 ? 1000 : 1ULL << 40,
			       i + 1);
		if (i % 4 == 0)
			b[i % n].align = 1U << (i % 21);
		if (i % 7 == 0)
			b[(i / 7) % n].size = 0;
		lb = npa_plan_lower_bound(b, n);
		for (a = 0; a < NPA_BL_COUNT; a++) {
			memcpy(g, b, n * sizeof(*b));
			peak = bl_ok(a, g, n, 200000);
			if (peak == U64_MAX) {
				bad_valid++;
				continue;
			}
			bad_lb += peak < lb;
			if (bl_ok(a, b, n, 200000) != peak ||
			    memcmp(g, b, n * sizeof(*b)))
				bad_det++;
		}
	}
	tap(!bad_valid, "baselines: %d random plans valid (%d bad)",
	    120 * NPA_BL_COUNT, bad_valid);
	tap(!bad_lb, "baselines: peak >= lower bound (%d bad)", bad_lb);
	tap(!bad_det, "baselines: same input, same plan (%d bad)", bad_det);

	bad_valid = 0;
	bad_lb = 0;
	for (i = 0; i < 4; i++) {
		u32 n = i & 1 ? npa_gen_sweep(b, 200, 1000000, 1000, i + 1) :
				npa_gen_strip(b, 200, 1000000, 1000, i + 1);

		for (a = 0; a < NPA_BL_COUNT; a++) {
			u64 peak;

			memcpy(g, b, n * sizeof(*b));
			peak = bl_ok(a, g, n, 200000);
			bad_valid += peak == U64_MAX;
			bad_lb += peak < 1000000;
		}
	}
	tap(!bad_valid && !bad_lb,
	    "baselines: strips of 200 valid, never below the optimum (%d, %d bad)",
	    bad_valid, bad_lb);
	free(b);
	free(g);
}

int main(void)
{
	test_edges();
	test_verifier();
	test_random();
	test_huge();
	test_gen_plans();
	test_strips();
	test_strips_2000();
	test_sweeps_deep();
	test_strips_large();
	test_guillotine_fixes();
	test_tiny_strips();
	test_complete();
	test_baselines();
	return failures ? 1 : 0;
}
