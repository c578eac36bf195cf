// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the cost model: the properties placement relies on.
 * More tiles never cost less, the fast window is never slower, more MACs
 * never cost less, weight staging pays only where the weights are read
 * again, and a whole-graph estimate is the sum of its operators.
 */

#include <kunit/test.h>

#include "npa_cost.h"

/* vgg-16's second layer: 3x3, 64 to 64 channels, 224x224. */
static const struct npa_cost_conv npa_cost_vgg2 = {
	.groups = 1, .pixels = 224 * 224, .k = 9 * 64, .filters = 64,
	.ifm_bytes = 64 * 224 * 224, .ofm_bytes = 64 * 224 * 224,
	.im2col = true,
};

/* A 3x3 depthwise layer, and one 1x1 layer that needs no im2col. */
static const struct npa_cost_conv npa_cost_dw = {
	.groups = 32, .pixels = 56 * 56, .k = 9, .filters = 1,
	.ifm_bytes = 32 * 56 * 56, .ofm_bytes = 32 * 56 * 56, .im2col = true,
};

static u64 npa_cost_conv_cycles(const struct npa_cost_conv *cv, u64 col,
				bool fast)
{
	struct npa_cost_work w;

	npa_cost_conv(cv, col, fast, &w);
	return npa_cost_cycles(&w);
}

static void npa_cost_test_tiles_monotone(struct kunit *test)
{
	const struct npa_cost_conv *cvs[] = { &npa_cost_vgg2, &npa_cost_dw };
	u32 i;

	for (i = 0; i < ARRAY_SIZE(cvs); i++) {
		const struct npa_cost_conv *cv = cvs[i];
		u64 full = cv->k * cv->pixels, prev = U64_MAX, col;

		/* From no scratch up to the whole buffer and beyond. */
		for (col = 0; col <= 2 * full; col += max_t(u64, full / 97, 1)) {
			u64 now = npa_cost_conv_cycles(cv, col, false);

			KUNIT_EXPECT_LE_MSG(test, now, prev, "conv %u, %llu bytes",
					    i, col);
			prev = now;
		}
		KUNIT_EXPECT_LE(test, npa_cost_conv_cycles(cv, full, false), prev);
	}
}

static void npa_cost_test_tiles_cost(struct kunit *test)
{
	const struct npa_cost_conv *cv = &npa_cost_vgg2;
	u64 full = cv->k * cv->pixels;
	struct npa_cost_work one, many;

	npa_cost_conv(cv, full, false, &one);
	npa_cost_conv(cv, 16 * cv->k, false, &many);
	KUNIT_EXPECT_EQ(test, one.passes, 1);
	KUNIT_EXPECT_EQ(test, many.passes, 3136);
	KUNIT_EXPECT_EQ(test, one.macs, many.macs);
	/* Every pass reads the weights again and pays a latency. */
	KUNIT_EXPECT_GT(test, npa_cost_cycles(&many), 2 * npa_cost_cycles(&one));
}

static void npa_cost_test_fast_never_slower(struct kunit *test)
{
	const struct npa_cost_conv *cv = &npa_cost_vgg2;
	u64 full = cv->k * cv->pixels, col;
	struct npa_cost_conv f = *cv;

	for (col = 0; col <= full; col += full / 31) {
		KUNIT_EXPECT_LE_MSG(test, npa_cost_conv_cycles(cv, col, true),
				    npa_cost_conv_cycles(cv, col, false),
				    "%llu bytes", col);
	}
	KUNIT_EXPECT_LT(test, npa_cost_conv_cycles(cv, 64 * cv->k, true),
			npa_cost_conv_cycles(cv, 64 * cv->k, false));
	f.ifm_fast = true;
	f.ofm_fast = true;
	f.weights_fast = true;
	KUNIT_EXPECT_LT(test, npa_cost_conv_cycles(&f, full, true),
			npa_cost_conv_cycles(cv, full, true));
}

static u64 npa_cost_staged(u64 col, u64 stage, bool stage_fast)
{
	struct npa_cost_conv cv = npa_cost_vgg2;

	cv.stage = stage;
	cv.stage_fast = stage_fast;
	return npa_cost_conv_cycles(&cv, col, false);
}

static void npa_cost_test_staging(struct kunit *test)
{
	const struct npa_cost_conv *cv = &npa_cost_vgg2;
	u64 full = cv->k * cv->pixels, all = cv->k * cv->filters;
	struct npa_cost_conv s = *cv;
	struct npa_cost_work w;

	/* Below one filter staging is not used. */
	KUNIT_EXPECT_EQ(test, npa_cost_staged(16 * cv->k, cv->k - 1, true),
			npa_cost_staged(16 * cv->k, 0, true));
	/* 3,136 tiles: the weights staged once in the window, read there. */
	KUNIT_EXPECT_LT(test, npa_cost_staged(16 * cv->k, all, true),
			npa_cost_staged(16 * cv->k, 0, false));
	s.stage = all;
	s.stage_fast = true;
	npa_cost_conv(&s, 16 * cv->k, false, &w);
	KUNIT_EXPECT_EQ(test, w.chunks, 1);
	/* Out of the window, or with one tile, staging only copies them. */
	KUNIT_EXPECT_GT(test, npa_cost_staged(16 * cv->k, all, false),
			npa_cost_staged(16 * cv->k, 0, false));
	KUNIT_EXPECT_GT(test, npa_cost_staged(full, all, true),
			npa_cost_staged(full, 0, false));
	/* A filter at a time: chunks copied per tile, or gathers per chunk. */
	s.stage = cv->k;
	npa_cost_conv(&s, 16 * cv->k, false, &w);
	KUNIT_EXPECT_GT(test, w.chunks, 64);
	KUNIT_EXPECT_GT(test, npa_cost_staged(16 * cv->k, cv->k, true),
			npa_cost_staged(16 * cv->k, all, true));
}

static void npa_cost_test_macs_monotone(struct kunit *test)
{
	struct npa_cost_work w = { .passes = 1, .slow_bytes = 1000 };
	u64 prev = 0, macs;

	for (macs = 0; macs < (1ULL << 24); macs = macs * 3 + 1) {
		u64 now;

		w.macs = macs;
		now = npa_cost_cycles(&w);
		KUNIT_EXPECT_GE_MSG(test, now, prev, "%llu MACs", macs);
		prev = now;
	}
	/* Compute-bound: exactly MACs over the array's width plus latency. */
	w.macs = 256ULL << 20;
	KUNIT_EXPECT_EQ(test, npa_cost_cycles(&w),
			(1ULL << 20) + NPA_COST_SLOW_LATENCY);
}

static void npa_cost_test_bandwidth(struct kunit *test)
{
	struct npa_cost_work slow = { .slow_bytes = 15 * 1000 };
	struct npa_cost_work fast = { .fast_bytes = 8 * 1000, .fast_passes = true };

	/* 1.875 and 8 bytes per cycle, no pass: no latency. */
	KUNIT_EXPECT_EQ(test, npa_cost_cycles(&slow), 8 * 1000);
	KUNIT_EXPECT_EQ(test, npa_cost_cycles(&fast), 1000);
}

static void npa_cost_test_saturates(struct kunit *test)
{
	struct npa_cost_work w = {
		.macs = U64_MAX, .passes = U64_MAX, .slow_bytes = U64_MAX,
		.fast_bytes = U64_MAX,
	};

	KUNIT_EXPECT_EQ(test, npa_cost_cycles(&w), U64_MAX);
}

#define ACT(c, h, w)	{ .dims = { 1, c, h, w }, .dtype = NPA_IR_INT8 }

static void npa_cost_test_graph_sum(struct kunit *test)
{
	/* x -> conv 3x3 -> y -> relu -> z; the im2col buffer in scratch. */
	static struct npa_ir_tensor t[] = {
		ACT(4, 8, 8),
		{ .size = 144, .dims = { 4, 4, 3, 3 }, .dtype = NPA_IR_INT8,
		  .flags = NPA_IR_CONST },
		ACT(4, 8, 8),
		ACT(4, 8, 8),
	};
	static u32 operands[] = { 0, 1, 2, 2, 3 };
	static struct npa_ir_op ops[] = {
		{ .kind = NPA_IR_CONV2D, .num_in = 2, .num_out = 1,
		  .num_scratch = 1,
		  .params = { [NPA_IR_P_KH] = 3, [NPA_IR_P_KW] = 3,
			      [NPA_IR_P_SH] = 1, [NPA_IR_P_SW] = 1,
			      [NPA_IR_P_PAD_T] = 1, [NPA_IR_P_PAD_L] = 1 } },
		{ .kind = NPA_IR_ACTIVATION, .first = 3, .num_in = 1,
		  .num_out = 1 },
	};
	struct npa_ir_place tp[] = {
		{ .offset = 0, .size = 256, .flags = NPA_IR_ARENA },
		{ .offset = U64_MAX, .size = 144 },
		{ .offset = 256, .size = 256, .flags = NPA_IR_ARENA },
		{ .offset = 0, .size = 256, .flags = NPA_IR_ARENA },
	};
	struct npa_ir_place sp = {
		.offset = 512, .size = 36 * 64,
		.flags = NPA_IR_ARENA | NPA_IR_SCRATCH,
	};
	struct npa_ir g = {
		.tensors = t, .ops = ops, .operands = operands, .num_tensors = 4,
		.num_ops = 2, .num_operands = 5, .num_scratch = 1,
	};
	u64 a = npa_cost_op(&g, &ops[0], tp, &sp, 0);
	u64 b = npa_cost_op(&g, &ops[1], tp, &sp, 0);
	u64 slow = npa_cost_graph(&g, tp, &sp, 0);
	u64 fast = npa_cost_graph(&g, tp, &sp, 1 << 20);

	KUNIT_EXPECT_GT(test, a, 0);
	KUNIT_EXPECT_GT(test, b, 0);
	KUNIT_EXPECT_EQ(test, slow, a + b);
	KUNIT_EXPECT_LT(test, fast, slow);
	/* A quarter of the im2col buffer: four passes, dearer. */
	sp.size /= 4;
	KUNIT_EXPECT_GT(test, npa_cost_graph(&g, tp, &sp, 0), slow);
}

static struct kunit_case npa_cost_test_cases[] = {
	KUNIT_CASE(npa_cost_test_tiles_monotone),
	KUNIT_CASE(npa_cost_test_tiles_cost),
	KUNIT_CASE(npa_cost_test_fast_never_slower),
	KUNIT_CASE(npa_cost_test_staging),
	KUNIT_CASE(npa_cost_test_macs_monotone),
	KUNIT_CASE(npa_cost_test_bandwidth),
	KUNIT_CASE(npa_cost_test_saturates),
	KUNIT_CASE(npa_cost_test_graph_sum),
	{}
};

static struct kunit_suite npa_cost_test_suite = {
	.name = "npa_cost",
	.test_cases = npa_cost_test_cases,
};

kunit_test_suite(npa_cost_test_suite);
