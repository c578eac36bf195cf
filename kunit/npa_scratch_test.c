// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for scratch-in-gap placement: one scenario per case.
 */

#include <kunit/test.h>

#include "npa_scratch.h"

#define B(off, sz, l, h) { .size = (sz), .align = 1, .lo = (l), .hi = (h), .offset = (off) }
#define FIXED(sz, st) { .size = (sz), .align = 1, .step = (st) }
#define VAR(sz, min, st) { .size = (sz), .min_size = (min), .align = 1, \
			   .step = (st), .flags = NPA_SCRATCH_REQ_VARIABLE }

/* Place and check that no scratch overlaps a live tensor or another one. */
static void npa_place(struct kunit *test, struct npa_plan_buf *b, u32 nb,
		      u64 *arena, struct npa_scratch_req *r, u32 nr, u64 fast,
		      struct npa_scratch_stats *st)
{
	u32 i, j;

	KUNIT_ASSERT_EQ(test, npa_scratch_place(b, nb, arena, r, nr, fast, st), 0);
	for (i = 0; i < nr; i++) {
		KUNIT_EXPECT_LE(test, r[i].offset + r[i].granted, *arena);
		for (j = 0; j < nb; j++) {
			bool live = b[j].lo <= r[i].step && r[i].step < b[j].hi;
			bool space = r[i].offset < b[j].offset + b[j].size &&
				     b[j].offset < r[i].offset + r[i].granted;

			KUNIT_EXPECT_FALSE_MSG(test, live && space,
					       "scratch %u @%llu+%llu hits buffer %u @%llu+%llu",
					       i, r[i].offset, r[i].granted, j,
					       b[j].offset, b[j].size);
		}
		for (j = i + 1; j < nr; j++) {
			bool space = r[i].offset < r[j].offset + r[j].granted &&
				     r[j].offset < r[i].offset + r[i].granted;

			KUNIT_EXPECT_FALSE_MSG(test, r[i].step == r[j].step && space,
					       "scratch %u and %u overlap", i, j);
		}
	}
}

/* Bottom of the only gap; the arena does not grow. */
static void npa_scratch_test_gap_bottom(struct kunit *test)
{
	struct npa_plan_buf b[] = { B(0, 100, 0, 2), B(300, 100, 0, 2) };
	struct npa_scratch_req r[] = { FIXED(64, 1) };
	struct npa_scratch_stats st;
	u64 arena = 400;

	npa_place(test, b, 2, &arena, r, 1, 0, &st);
	KUNIT_EXPECT_EQ(test, r[0].offset, 100ULL);
	KUNIT_EXPECT_EQ(test, arena, 400ULL);
	KUNIT_EXPECT_EQ(test, st.growth, 0ULL);
	KUNIT_EXPECT_EQ(test, st.growth_naive, 64ULL);
}

/* Smallest gap that fits, not the first or the largest. */
static void npa_scratch_test_best_fit(struct kunit *test)
{
	struct npa_plan_buf b[] = { B(0, 100, 0, 1), B(400, 100, 0, 1),
				    B(560, 100, 0, 1) };
	struct npa_scratch_req r[] = { FIXED(50, 0) };
	struct npa_scratch_stats st;
	u64 arena = 1000;

	npa_place(test, b, 3, &arena, r, 1, 0, &st);
	KUNIT_EXPECT_EQ(test, r[0].offset, 500ULL);
}

/* The second buffer of an op stacks on the first. */
static void npa_scratch_test_stacked(struct kunit *test)
{
	struct npa_plan_buf b[] = { B(0, 100, 0, 2), B(300, 100, 0, 2) };
	struct npa_scratch_req r[] = { FIXED(150, 1), FIXED(40, 1) };
	struct npa_scratch_stats st;
	u64 arena = 400;

	npa_place(test, b, 2, &arena, r, 2, 0, &st);
	KUNIT_EXPECT_EQ(test, r[0].offset, 100ULL);
	KUNIT_EXPECT_EQ(test, r[1].offset, 250ULL);
	KUNIT_EXPECT_TRUE(test, r[1].placed_flags & NPA_SCRATCH_PLACED_STACKED);
	KUNIT_EXPECT_EQ(test, st.growth, 0ULL);
	KUNIT_EXPECT_EQ(test, st.growth_naive, 190ULL);
}

/* Top of a gap: under a scratch buffer of the same op, not at the bottom. */
static void npa_scratch_test_gap_top(struct kunit *test)
{
	struct npa_plan_buf b[] = { B(0, 100, 0, 2), B(300, 100, 0, 2) };
	struct npa_scratch_req r[] = { FIXED(64, 1), FIXED(20, 1) };
	struct npa_scratch_stats st;
	u64 arena = 400;

	r[0].align = 64;
	npa_place(test, b, 2, &arena, r, 2, 0, &st);
	KUNIT_EXPECT_EQ(test, r[0].offset, 128ULL);
	/* The 28-byte gap below it is the best fit; its top touches r[0]. */
	KUNIT_EXPECT_EQ(test, r[1].offset, 108ULL);
	KUNIT_EXPECT_TRUE(test, r[1].placed_flags & NPA_SCRATCH_PLACED_STACKED);
}

/* No gap: the arena grows at the top by only what is missing. */
static void npa_scratch_test_grow_top(struct kunit *test)
{
	struct npa_plan_buf b[] = { B(0, 350, 0, 1) };
	struct npa_scratch_req r[] = { FIXED(100, 0) };
	struct npa_scratch_stats st;
	u64 arena = 400;

	npa_place(test, b, 1, &arena, r, 1, 0, &st);
	KUNIT_EXPECT_EQ(test, r[0].offset, 350ULL);
	KUNIT_EXPECT_EQ(test, arena, 450ULL);
	KUNIT_EXPECT_EQ(test, st.growth, 50ULL);
	KUNIT_EXPECT_TRUE(test, r[0].placed_flags & NPA_SCRATCH_PLACED_GROWN);
}

/* Less is missing at the bottom: grow there and move the tensors up. */
static void npa_scratch_test_grow_bottom(struct kunit *test)
{
	struct npa_plan_buf b[] = { B(60, 340, 0, 1), B(0, 60, 1, 2) };
	struct npa_scratch_req r[] = { FIXED(100, 0) };
	struct npa_scratch_stats st;
	u64 arena = 400;

	npa_place(test, b, 2, &arena, r, 1, 0, &st);
	KUNIT_EXPECT_EQ(test, st.growth, 40ULL);
	KUNIT_EXPECT_EQ(test, st.shift, 40ULL);
	KUNIT_EXPECT_EQ(test, arena, 440ULL);
	KUNIT_EXPECT_EQ(test, r[0].offset, 0ULL);
	KUNIT_EXPECT_EQ(test, b[0].offset, 100ULL);
	KUNIT_EXPECT_EQ(test, b[1].offset, 40ULL);
}

/* Bottom growth keeps the strictest alignment of everything placed. */
static void npa_scratch_test_grow_bottom_aligned(struct kunit *test)
{
	struct npa_plan_buf b[] = { B(64, 256, 0, 1) };
	struct npa_scratch_req r[] = { FIXED(100, 0) };
	struct npa_scratch_stats st;
	u64 arena = 1024;

	b[0].align = 64;
	npa_place(test, b, 1, &arena, r, 1, 0, &st);
	/* Top is free from 320: no growth needed at all. */
	KUNIT_EXPECT_EQ(test, st.growth, 0ULL);
	b[0] = (struct npa_plan_buf)B(64, 960, 0, 1);
	b[0].align = 64;
	arena = 1024;
	npa_place(test, b, 1, &arena, r, 1, 0, &st);
	KUNIT_EXPECT_EQ(test, st.shift % 64, 0ULL);
	KUNIT_EXPECT_EQ(test, b[0].offset % 64, 0ULL);
	KUNIT_EXPECT_EQ(test, st.growth, 64ULL);
}

/* Variable requests: one area each while there are enough. */
static void npa_scratch_test_variable_each(struct kunit *test)
{
	struct npa_plan_buf b[] = { B(0, 100, 0, 1), B(200, 100, 0, 1),
				    B(350, 50, 0, 1) };
	struct npa_scratch_req r[] = { VAR(1000, 10, 0), VAR(1000, 10, 0) };
	struct npa_scratch_stats st;
	u64 arena = 400;

	npa_place(test, b, 3, &arena, r, 2, 0, &st);
	KUNIT_EXPECT_EQ(test, r[0].granted, 100ULL);
	KUNIT_EXPECT_EQ(test, r[1].granted, 50ULL);
	KUNIT_EXPECT_EQ(test, st.growth, 0ULL);
	KUNIT_EXPECT_EQ(test, st.requested, 150ULL);
}

/* More variable requests than areas: the largest areas are shared evenly. */
static void npa_scratch_test_variable_shared(struct kunit *test)
{
	struct npa_plan_buf b[] = { B(0, 100, 0, 1), B(200, 100, 0, 1),
				    B(400, 100, 0, 1) };
	struct npa_scratch_req r[] = { VAR(1000, 10, 0), VAR(1000, 10, 0),
				       VAR(1000, 10, 0) };
	struct npa_scratch_stats st;
	u64 arena = 500;

	npa_place(test, b, 3, &arena, r, 3, 0, &st);
	KUNIT_EXPECT_EQ(test, r[0].granted, 50ULL);
	KUNIT_EXPECT_EQ(test, r[1].granted, 50ULL);
	KUNIT_EXPECT_EQ(test, r[2].granted, 100ULL);
	KUNIT_EXPECT_EQ(test, st.growth, 0ULL);
}

/* A minimum above every area grows the arena to that minimum. */
static void npa_scratch_test_variable_grow(struct kunit *test)
{
	struct npa_plan_buf b[] = { B(0, 100, 0, 1), B(200, 100, 0, 1) };
	struct npa_scratch_req r[] = { VAR(1000, 300, 0) };
	struct npa_scratch_stats st;
	u64 arena = 300;

	npa_place(test, b, 2, &arena, r, 1, 0, &st);
	KUNIT_EXPECT_EQ(test, r[0].granted, 300ULL);
	KUNIT_EXPECT_EQ(test, st.growth, 300ULL);
	KUNIT_EXPECT_TRUE(test, r[0].placed_flags & NPA_SCRATCH_PLACED_GROWN);
}

/* Latency-critical scratch prefers the fast window over a better fit. */
static void npa_scratch_test_fast_window(struct kunit *test)
{
	struct npa_plan_buf b[] = { B(100, 400, 0, 1), B(540, 460, 0, 1) };
	struct npa_scratch_req r[] = { FIXED(32, 0), FIXED(32, 0) };
	struct npa_scratch_stats st;
	u64 arena = 1000;

	r[0].flags = NPA_SCRATCH_REQ_LATENCY;
	npa_place(test, b, 2, &arena, r, 1, 128, &st);
	KUNIT_EXPECT_EQ(test, r[0].offset, 0ULL);
	KUNIT_EXPECT_TRUE(test, r[0].placed_flags & NPA_SCRATCH_PLACED_FAST);
	/* Without the flag, best fit wins: the 40-byte gap. */
	npa_place(test, b, 2, &arena, &r[1], 1, 128, &st);
	KUNIT_EXPECT_EQ(test, r[1].offset, 500ULL);
	KUNIT_EXPECT_FALSE(test, r[1].placed_flags & NPA_SCRATCH_PLACED_FAST);
}

/* Scratch of different steps reuses the same bytes. */
static void npa_scratch_test_steps_share(struct kunit *test)
{
	struct npa_plan_buf b[] = { B(0, 100, 0, 3) };
	struct npa_scratch_req r[] = { FIXED(64, 0), FIXED(64, 1), FIXED(64, 2) };
	struct npa_scratch_stats st;
	u64 arena = 100;

	npa_place(test, b, 1, &arena, r, 3, 0, &st);
	KUNIT_EXPECT_EQ(test, st.growth, 64ULL);
	KUNIT_EXPECT_EQ(test, st.growth_naive, 64ULL);
	KUNIT_EXPECT_EQ(test, r[0].offset, r[2].offset);
}

static void npa_scratch_test_invalid(struct kunit *test)
{
	struct npa_plan_buf b[] = { B(0, 100, 0, 1) };
	struct npa_scratch_req r[] = { VAR(100, 200, 0) };
	struct npa_scratch_stats st;
	u64 arena = 100;

	KUNIT_EXPECT_EQ(test, npa_scratch_place(b, 1, &arena, r, 1, 0, &st), -EINVAL);
	r[0] = (struct npa_scratch_req)FIXED(64, 0);
	r[0].align = 3;
	KUNIT_EXPECT_EQ(test, npa_scratch_place(b, 1, &arena, r, 1, 0, &st), -EINVAL);
	r[0] = (struct npa_scratch_req)FIXED(U64_MAX - 8, 0);
	KUNIT_EXPECT_EQ(test, npa_scratch_place(b, 1, &arena, r, 1, 0, &st), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, arena, 100ULL);
}

/* Request 0 saves a cycle per byte; request 1 gains nothing from bytes. */
static u64 npa_scratch_test_cycles(void *priv, u32 idx, u64 bytes, bool fast)
{
	return idx == 0 ? 1000 - min_t(u64, bytes, 1000) : 7;
}

static void npa_scratch_test_cost_flat(struct kunit *test)
{
	struct npa_plan_buf b[] = { B(0, 100, 0, 1) };
	struct npa_scratch_req r[] = { VAR(100, 10, 0), VAR(100, 10, 0) };
	struct npa_scratch_cost cost = { .cycles = npa_scratch_test_cycles };
	struct npa_scratch_stats st;
	u64 arena = 200;

	/* Without a cost the two share the free 100 bytes evenly ... */
	npa_place(test, b, 1, &arena, r, 2, 0, &st);
	KUNIT_EXPECT_EQ(test, r[0].granted, 50);
	KUNIT_EXPECT_EQ(test, r[1].granted, 50);
	/* ... with one, the request that gains nothing gets its minimum. */
	arena = 200;
	KUNIT_ASSERT_EQ(test, npa_scratch_place_cost(b, 1, &arena, r, 2, 0,
						     &cost, &st), 0);
	KUNIT_EXPECT_EQ(test, arena, 200);
	KUNIT_EXPECT_EQ(test, r[1].granted, 10);
	KUNIT_EXPECT_EQ(test, r[0].granted, 90);
	KUNIT_EXPECT_GE(test, r[0].offset, 100);
	KUNIT_EXPECT_GE(test, r[1].offset, 100);
	KUNIT_EXPECT_TRUE(test, r[0].offset >= r[1].offset + 10 ||
			  r[1].offset >= r[0].offset + 90);
}

static void npa_scratch_test_cost_headroom(struct kunit *test)
{
	struct npa_plan_buf b[] = { B(0, 100, 0, 1) };
	struct npa_scratch_req r[] = { VAR(100, 10, 0), VAR(100, 10, 0) };
	struct npa_scratch_cost cost = {
		.cycles = npa_scratch_test_cycles, .headroom = 40,
	};
	struct npa_scratch_stats st;
	u64 arena = 200;

	/* 40 bytes of headroom: request 0 gets all it wants, 10 are unused. */
	KUNIT_ASSERT_EQ(test, npa_scratch_place_cost(b, 1, &arena, r, 2, 0,
						     &cost, &st), 0);
	KUNIT_EXPECT_EQ(test, r[0].granted, 100);
	KUNIT_EXPECT_EQ(test, r[1].granted, 10);
	KUNIT_EXPECT_EQ(test, arena, 210);
	KUNIT_EXPECT_EQ(test, st.growth, 10);
	KUNIT_EXPECT_LE(test, r[0].offset + 100, arena);
	KUNIT_EXPECT_LE(test, r[1].offset + 10, arena);
}

/*
 * Request 0 saves a cycle per byte; request 1 costs one (weight staging
 * out of the fast window), more while request 0 is not placed.
 */
static u64 npa_scratch_test_dearer(void *priv, u32 idx, u64 bytes, bool fast)
{
	const struct npa_scratch_req *r = priv;

	if (idx == 0)
		return 1000 - min_t(u64, bytes, 1000);
	return 500 + bytes + (r[0].placed_flags & NPA_SCRATCH_PLACED ? 0 : 1000);
}

/* Bytes that cost cycles go to the requests that save some. */
static void npa_scratch_test_cost_dearer(struct kunit *test)
{
	struct npa_plan_buf b[] = { B(0, 100, 0, 1) };
	struct npa_scratch_req r[] = { VAR(100, 10, 0), VAR(100, 10, 0) };
	struct npa_scratch_cost cost = {
		.cycles = npa_scratch_test_dearer, .priv = r,
	};
	struct npa_scratch_stats st;
	u64 arena = 200;

	KUNIT_ASSERT_EQ(test, npa_scratch_place_cost(b, 1, &arena, r, 2, 0,
						     &cost, &st), 0);
	KUNIT_EXPECT_EQ(test, arena, 200);
	KUNIT_EXPECT_EQ(test, r[1].granted, 10);
	KUNIT_EXPECT_EQ(test, r[0].granted, 90);
	KUNIT_EXPECT_TRUE(test, r[0].placed_flags & NPA_SCRATCH_PLACED);
	KUNIT_EXPECT_TRUE(test, r[1].placed_flags & NPA_SCRATCH_PLACED);
}

/* Request 1 saves three cycles per byte, request 0 one. */
static u64 npa_scratch_test_value(void *priv, u32 idx, u64 bytes, bool fast)
{
	return (idx + idx + 1) * (1000 - min_t(u64, bytes, 1000));
}

/* The largest area goes to the request that saves the most per byte. */
static void npa_scratch_test_cost_value(struct kunit *test)
{
	struct npa_plan_buf b[] = { B(0, 10, 0, 1), B(70, 10, 0, 1),
				    B(110, 10, 0, 1) };
	struct npa_scratch_req r[] = { VAR(100, 10, 0), VAR(100, 10, 0) };
	struct npa_scratch_cost cost = { .cycles = npa_scratch_test_value };
	struct npa_scratch_stats st;
	u64 arena = 120;

	/* Without a cost, in request order: request 0 gets the 60 bytes. */
	npa_place(test, b, 3, &arena, r, 2, 0, &st);
	KUNIT_EXPECT_EQ(test, r[0].granted, 60);
	KUNIT_EXPECT_EQ(test, r[1].granted, 30);
	arena = 120;
	KUNIT_ASSERT_EQ(test, npa_scratch_place_cost(b, 3, &arena, r, 2, 0,
						     &cost, &st), 0);
	KUNIT_EXPECT_EQ(test, r[1].granted, 60);
	KUNIT_EXPECT_EQ(test, r[1].offset, 10);
	KUNIT_EXPECT_EQ(test, r[0].granted, 30);
	KUNIT_EXPECT_EQ(test, r[0].offset, 80);
	KUNIT_EXPECT_EQ(test, arena, 120);
}

/* Four times cheaper in the fast window. */
static u64 npa_scratch_test_fastc(void *priv, u32 idx, u64 bytes, bool fast)
{
	u64 c = 1000 - min_t(u64, bytes, 1000);

	return fast ? c : 4 * c;
}

/*
 * The fast window's 30 free bytes beat the 160 out of it (970 cycles
 * against 3600), so the request takes them, shrunk.
 */
static void npa_scratch_test_cost_fast(struct kunit *test)
{
	struct npa_plan_buf b[] = { B(0, 10, 0, 1), B(40, 100, 0, 1) };
	struct npa_scratch_req r[] = { VAR(100, 10, 0) };
	struct npa_scratch_cost cost = { .cycles = npa_scratch_test_fastc };
	struct npa_scratch_stats st;
	u64 arena = 300;

	KUNIT_ASSERT_EQ(test, npa_scratch_place_cost(b, 2, &arena, r, 1, 64,
						     &cost, &st), 0);
	KUNIT_EXPECT_EQ(test, r[0].offset, 10);
	KUNIT_EXPECT_EQ(test, r[0].granted, 30);
	KUNIT_EXPECT_TRUE(test, r[0].placed_flags & NPA_SCRATCH_PLACED_FAST);
	/* Without a fast window it takes the larger area. */
	arena = 300;
	KUNIT_ASSERT_EQ(test, npa_scratch_place_cost(b, 2, &arena, r, 1, 0,
						     &cost, &st), 0);
	KUNIT_EXPECT_EQ(test, r[0].offset, 140);
	KUNIT_EXPECT_EQ(test, r[0].granted, 100);
}

/* A fixed buffer placed out of the window (best fit) moves into it. */
static void npa_scratch_test_cost_move(struct kunit *test)
{
	struct npa_plan_buf b[] = { B(0, 10, 0, 1), B(50, 50, 0, 1),
				    B(125, 75, 0, 1) };
	struct npa_scratch_req r[] = { FIXED(20, 0) };
	struct npa_scratch_cost cost = { .cycles = npa_scratch_test_fastc };
	struct npa_scratch_stats st;
	u64 arena = 300;

	npa_place(test, b, 3, &arena, r, 1, 64, &st);
	KUNIT_EXPECT_EQ(test, r[0].offset, 100);
	KUNIT_ASSERT_EQ(test, npa_scratch_place_cost(b, 3, &arena, r, 1, 64,
						     &cost, &st), 0);
	KUNIT_EXPECT_EQ(test, r[0].offset, 10);
	KUNIT_EXPECT_TRUE(test, r[0].placed_flags & NPA_SCRATCH_PLACED_FAST);
	KUNIT_EXPECT_EQ(test, st.growth, 0);
	KUNIT_EXPECT_EQ(test, arena, 300);
}

static struct kunit_case npa_scratch_test_cases[] = {
	KUNIT_CASE(npa_scratch_test_gap_bottom),
	KUNIT_CASE(npa_scratch_test_best_fit),
	KUNIT_CASE(npa_scratch_test_stacked),
	KUNIT_CASE(npa_scratch_test_gap_top),
	KUNIT_CASE(npa_scratch_test_grow_top),
	KUNIT_CASE(npa_scratch_test_grow_bottom),
	KUNIT_CASE(npa_scratch_test_grow_bottom_aligned),
	KUNIT_CASE(npa_scratch_test_variable_each),
	KUNIT_CASE(npa_scratch_test_variable_shared),
	KUNIT_CASE(npa_scratch_test_variable_grow),
	KUNIT_CASE(npa_scratch_test_fast_window),
	KUNIT_CASE(npa_scratch_test_steps_share),
	KUNIT_CASE(npa_scratch_test_invalid),
	KUNIT_CASE(npa_scratch_test_cost_flat),
	KUNIT_CASE(npa_scratch_test_cost_headroom),
	KUNIT_CASE(npa_scratch_test_cost_dearer),
	KUNIT_CASE(npa_scratch_test_cost_value),
	KUNIT_CASE(npa_scratch_test_cost_fast),
	KUNIT_CASE(npa_scratch_test_cost_move),
	{}
};

static struct kunit_suite npa_scratch_test_suite = {
	.name = "npa_scratch",
	.test_cases = npa_scratch_test_cases,
};

kunit_test_suite(npa_scratch_test_suite);
