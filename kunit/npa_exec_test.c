// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the operator kernels: a hand-computed case per kind and
 * feature, im2col in scratch against the direct path, the sharing the
 * planner creates, and npa_exec_check() refusing inconsistent operators.
 */

#include <kunit/test.h>
#include "npa_ir.h"
#include <linux/string.h>

#include "npa_exec.h"

#define NPA_GUARD	16
#define NPA_GUARD_BYTE	0xa5

#define ACT(c, h, w)	{ .dims = { 1, c, h, w }, .dtype = NPA_IR_INT8 }
#define W8(a, b, c, d)	{ .dims = { a, b, c, d }, .dtype = NPA_IR_INT8 }
#define B32(n)		{ .dims = { n }, .dtype = NPA_IR_INT32 }
#define BYTES(n)	{ .size = n }
#define S8(...)		((const s8[]){ __VA_ARGS__ })
#define S32(...)	((const s32[]){ __VA_ARGS__ })

/* Window parameters of CONV2D, DWCONV2D, MAXPOOL and AVGPOOL. */
#define WIN(kh, kw, sh, sw, pt, pl, g, shift)				\
	.params = { [NPA_IR_P_KH] = kh, [NPA_IR_P_KW] = kw, [NPA_IR_P_SH] = sh,	\
		    [NPA_IR_P_SW] = sw, [NPA_IR_P_PAD_T] = pt, [NPA_IR_P_PAD_L] = pl, \
		    [NPA_IR_P_GROUPS] = g, [NPA_IR_P_SHIFT] = shift }

/**
 * struct npa_exec_case - one operator on separate buffers
 * @desc: what it tests.
 * @op: the operator.
 * @nin: inputs.
 * @in: input descriptors.
 * @data: input bytes (int8, or int32 for a bias).
 * @out: the output descriptor (one output).
 * @want: the expected output bytes.
 */
struct npa_exec_case {
	const char *desc;
	struct npa_ir_op op;
	u32 nin;
	struct npa_ir_tensor in[3];
	const void *data[3];
	struct npa_ir_tensor out;
	const s8 *want;
};

static const struct npa_exec_case npa_exec_cases[] = {
	{
		.desc = "conv 1x1, two channels, bias, shift 1",
		.op = { .kind = NPA_IR_CONV2D, WIN(1, 1, 1, 1, 0, 0, 0, 1) },
		.nin = 3,
		.in = { ACT(2, 2, 2), W8(1, 2, 1, 1), B32(1) },
		.data = { S8(1, 2, 3, 4, 5, 6, 7, 8), S8(2, -1), S32(4) },
		.out = ACT(1, 2, 2),
		/* 2a - b + 4 = 1, 2, 3, 4, then >> 1 */
		.want = S8(0, 1, 1, 2),
	},
	{
		.desc = "conv 3x3, padding 1: neighbourhood sums",
		.op = { .kind = NPA_IR_CONV2D, WIN(3, 3, 1, 1, 1, 1, 0, 0) },
		.nin = 2,
		.in = { ACT(1, 3, 3), W8(1, 1, 3, 3) },
		.data = { S8(1, 2, 3, 4, 5, 6, 7, 8, 9),
			  S8(1, 1, 1, 1, 1, 1, 1, 1, 1) },
		.out = ACT(1, 3, 3),
		.want = S8(12, 21, 16, 27, 45, 33, 24, 39, 28),
	},
	{
		.desc = "conv 2x2, stride 2",
		.op = { .kind = NPA_IR_CONV2D, WIN(2, 2, 2, 2, 0, 0, 0, 0) },
		.nin = 2,
		.in = { ACT(1, 4, 4), W8(1, 1, 2, 2) },
		.data = { S8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
			  S8(1, 2, 0, 0) },
		.out = ACT(1, 2, 2),
		.want = S8(2, 8, 26, 32),
	},
	{
		.desc = "conv 2 groups",
		.op = { .kind = NPA_IR_CONV2D, WIN(1, 1, 1, 1, 0, 0, 2, 0) },
		.nin = 2,
		.in = { ACT(2, 1, 2), W8(2, 1, 1, 1) },
		.data = { S8(1, 2, 3, 4), S8(3, -2) },
		.out = ACT(2, 1, 2),
		.want = S8(3, 6, -6, -8),
	},
	{
		.desc = "conv saturates at 127 and -128",
		.op = { .kind = NPA_IR_CONV2D, WIN(1, 1, 1, 1, 0, 0, 0, 0) },
		.nin = 2,
		.in = { ACT(1, 1, 2), W8(1, 1, 1, 1) },
		.data = { S8(100, -100), S8(100) },
		.out = ACT(1, 1, 2),
		.want = S8(127, -128),
	},
	{
		.desc = "conv shift is arithmetic (floor)",
		.op = { .kind = NPA_IR_CONV2D, WIN(1, 1, 1, 1, 0, 0, 0, 7) },
		.nin = 3,
		.in = { ACT(1, 1, 3), W8(1, 1, 1, 1), B32(1) },
		.data = { S8(100, -100, 0), S8(100), S32(-1) },
		.out = ACT(1, 1, 3),
		/* 9999 >> 7 = 78, -10001 >> 7 = -79, -1 >> 7 = -1 */
		.want = S8(78, -79, -1),
	},
	{
		.desc = "dwconv 1x3, padding left 1, bias",
		.op = { .kind = NPA_IR_DWCONV2D, WIN(1, 3, 1, 1, 0, 1, 0, 0) },
		.nin = 3,
		.in = { ACT(2, 1, 3), W8(2, 1, 1, 3), B32(2) },
		.data = { S8(1, 2, 3, 4, 5, 6), S8(1, 1, 1, 0, 1, -1),
			  S32(10, -10) },
		.out = ACT(2, 1, 3),
		.want = S8(13, 16, 15, -11, -11, -4),
	},
	{
		.desc = "maxpool 2x2, stride 2",
		.op = { .kind = NPA_IR_MAXPOOL, WIN(2, 2, 2, 2, 0, 0, 0, 0) },
		.nin = 1,
		.in = { ACT(1, 4, 4) },
		.data = { S8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) },
		.out = ACT(1, 2, 2),
		.want = S8(5, 7, 13, 15),
	},
	{
		.desc = "maxpool 2x2, stride 1, Darknet's padding below/right",
		.op = { .kind = NPA_IR_MAXPOOL, WIN(2, 2, 1, 1, 0, 0, 0, 0) },
		.nin = 1,
		.in = { ACT(1, 2, 2) },
		.data = { S8(-5, -7, -9, -30) },
		.out = ACT(1, 2, 2),
		/* the padding is -128, never 0 */
		.want = S8(-5, -7, -9, -30),
	},
	{
		.desc = "maxpool window all padding gives -128",
		.op = { .kind = NPA_IR_MAXPOOL, WIN(1, 1, 1, 1, 1, 1, 0, 0) },
		.nin = 1,
		.in = { ACT(1, 1, 1) },
		.data = { S8(5) },
		.out = ACT(1, 3, 3),
		.want = S8(-128, -128, -128, -128, 5, -128, -128, -128, -128),
	},
	{
		.desc = "avgpool global, rounded, negative floors",
		.op = { .kind = NPA_IR_AVGPOOL, WIN(2, 2, 2, 2, 0, 0, 0, 0) },
		.nin = 1,
		.in = { ACT(2, 2, 2) },
		.data = { S8(1, 2, 3, 5, -1, -2, -3, -5) },
		.out = ACT(2, 1, 1),
		/* floor((11 + 2) / 4), floor((-11 + 2) / 4) */
		.want = S8(3, -3),
	},
	{
		.desc = "avgpool shift 1 divides by 8",
		.op = { .kind = NPA_IR_AVGPOOL, WIN(2, 2, 2, 2, 0, 0, 0, 1) },
		.nin = 1,
		.in = { ACT(2, 2, 2) },
		.data = { S8(1, 2, 3, 5, -1, -2, -3, -5) },
		.out = ACT(2, 1, 1),
		.want = S8(1, -1),
	},
	{
		.desc = "avgpool padding counts as zeros",
		.op = { .kind = NPA_IR_AVGPOOL, WIN(2, 2, 2, 2, 1, 1, 0, 0) },
		.nin = 1,
		.in = { ACT(1, 2, 2) },
		.data = { S8(4, 8, -4, 7) },
		.out = ACT(1, 2, 2),
		.want = S8(1, 2, -1, 2),
	},
	{
		.desc = "add saturates",
		.op = { .kind = NPA_IR_ADD },
		.nin = 2,
		.in = { ACT(1, 1, 4), ACT(1, 1, 4) },
		.data = { S8(100, -100, 5, -5), S8(100, -100, 3, 2) },
		.out = ACT(1, 1, 4),
		.want = S8(127, -128, 8, -3),
	},
	{
		.desc = "add shift 1",
		.op = { .kind = NPA_IR_ADD, .params = { [NPA_IR_P_SHIFT] = 1 } },
		.nin = 2,
		.in = { ACT(1, 1, 4), ACT(1, 1, 4) },
		.data = { S8(100, -100, 5, -5), S8(100, -100, 3, 2) },
		.out = ACT(1, 1, 4),
		.want = S8(100, -100, 4, -2),
	},
	{
		.desc = "add shortcut: fewer channels in b, a's rest copied",
		.op = { .kind = NPA_IR_ADD },
		.nin = 2,
		.in = { ACT(2, 1, 2), ACT(1, 1, 2) },
		.data = { S8(1, 2, 3, 4), S8(10, 20) },
		.out = ACT(2, 1, 2),
		.want = S8(11, 22, 3, 4),
	},
	{
		.desc = "add shortcut: b twice as large, strided",
		.op = { .kind = NPA_IR_ADD },
		.nin = 2,
		.in = { ACT(1, 1, 2), ACT(1, 2, 4) },
		.data = { S8(1, 2), S8(10, 11, 20, 21, 30, 31, 40, 41) },
		.out = ACT(1, 1, 2),
		.want = S8(11, 22),
	},
	{
		.desc = "mul saturates, shift 4 floors",
		.op = { .kind = NPA_IR_MUL, .params = { [NPA_IR_P_SHIFT] = 4 } },
		.nin = 2,
		.in = { ACT(1, 1, 4), ACT(1, 1, 4) },
		.data = { S8(16, -16, 100, -3), S8(8, 8, 100, 3) },
		.out = ACT(1, 1, 4),
		.want = S8(8, -8, 127, -1),
	},
	{
		.desc = "activation linear",
		.op = { .kind = NPA_IR_ACTIVATION,
			.params = { [NPA_IR_P_ACT] = NPA_IR_ACT_LINEAR } },
		.nin = 1,
		.in = { ACT(1, 1, 4) },
		.data = { S8(-128, -1, 0, 127) },
		.out = ACT(1, 1, 4),
		.want = S8(-128, -1, 0, 127),
	},
	{
		.desc = "activation relu",
		.op = { .kind = NPA_IR_ACTIVATION,
			.params = { [NPA_IR_P_ACT] = NPA_IR_ACT_RELU } },
		.nin = 1,
		.in = { ACT(1, 1, 4) },
		.data = { S8(-128, -1, 0, 127) },
		.out = ACT(1, 1, 4),
		.want = S8(0, 0, 0, 127),
	},
	{
		.desc = "activation leaky: x >> 3 below zero",
		.op = { .kind = NPA_IR_ACTIVATION,
			.params = { [NPA_IR_P_ACT] = NPA_IR_ACT_LEAKY } },
		.nin = 1,
		.in = { ACT(1, 1, 6) },
		.data = { S8(-128, -9, -8, -1, 0, 7) },
		.out = ACT(1, 1, 6),
		.want = S8(-16, -2, -1, -1, 0, 7),
	},
	{
		.desc = "activation logistic: 128 / (1 + exp(-x / 16))",
		.op = { .kind = NPA_IR_ACTIVATION,
			.params = { [NPA_IR_P_ACT] = NPA_IR_ACT_LOGISTIC } },
		.nin = 1,
		.in = { BYTES(6) },
		.data = { S8(-128, -16, 0, 16, 64, 127) },
		.out = BYTES(6),
		.want = S8(0, 34, 64, 94, 126, 127),
	},
	{
		.desc = "concat of separate inputs",
		.op = { .kind = NPA_IR_CONCAT },
		.nin = 3,
		.in = { ACT(1, 1, 2), ACT(2, 1, 2), BYTES(1) },
		.data = { S8(1, 2), S8(3, 4, 5, 6), S8(7) },
		.out = BYTES(7),
		.want = S8(1, 2, 3, 4, 5, 6, 7),
	},
	{
		.desc = "reshape to a separate buffer copies",
		.op = { .kind = NPA_IR_RESHAPE },
		.nin = 1,
		.in = { ACT(2, 1, 2) },
		.data = { S8(1, 2, 3, 4) },
		.out = ACT(1, 2, 2),
		.want = S8(1, 2, 3, 4),
	},
	{
		.desc = "upsample nearest, stride 2",
		.op = { .kind = NPA_IR_UPSAMPLE, .params = { [NPA_IR_P_STRIDE] = 2 } },
		.nin = 1,
		.in = { ACT(1, 2, 2) },
		.data = { S8(1, 2, 3, 4) },
		.out = ACT(1, 4, 4),
		.want = S8(1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4),
	},
	{
		.desc = "reorg stride 2: channel (dy * 2 + dx) * C + c",
		.op = { .kind = NPA_IR_REORG, .params = { [NPA_IR_P_STRIDE] = 2 } },
		.nin = 1,
		.in = { ACT(1, 2, 4) },
		.data = { S8(0, 1, 2, 3, 4, 5, 6, 7) },
		.out = ACT(4, 1, 2),
		.want = S8(0, 2, 1, 3, 4, 6, 5, 7),
	},
	{
		.desc = "fc with bias",
		.op = { .kind = NPA_IR_FC },
		.nin = 3,
		.in = { ACT(3, 1, 1), { .dims = { 2, 3 }, .dtype = NPA_IR_INT8 },
			B32(2) },
		.data = { S8(1, 2, 3), S8(1, 1, 1, 1, -1, 2), S32(0, 100) },
		.out = ACT(2, 1, 1),
		.want = S8(6, 105),
	},
};

static void npa_exec_case_desc(const struct npa_exec_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(npa_exec_case, npa_exec_cases, npa_exec_case_desc);

static u64 npa_desc_bytes(const struct npa_ir_tensor *t)
{
	u64 n = t->dtype == NPA_IR_INT32 ? 4 : 1;
	int i;

	if (!t->dims[0])
		return t->size;
	for (i = 0; i < NPA_IR_MAX_DIMS && t->dims[i]; i++)
		n *= t->dims[i];
	return n;
}

/* A buffer of @size bytes between guard bytes; @fill for its contents. */
static u8 *npa_buf(struct kunit *test, u64 size, int fill)
{
	u8 *p = kunit_kzalloc(test, size + 2 * NPA_GUARD, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	memset(p, NPA_GUARD_BYTE, size + 2 * NPA_GUARD);
	memset(p + NPA_GUARD, fill, size);
	return p + NPA_GUARD;
}

static void assert_guards(struct kunit *test, const u8 *buf, u64 size,
			  const char *what)
{
	int i;

	for (i = 0; i < NPA_GUARD; i++) {
		KUNIT_EXPECT_EQ_MSG(test, buf[i - NPA_GUARD], NPA_GUARD_BYTE,
				    "%s: byte %d before the buffer written", what,
				    NPA_GUARD - i);
		KUNIT_EXPECT_EQ_MSG(test, buf[size + i], NPA_GUARD_BYTE,
				    "%s: byte %d after the buffer written", what, i);
	}
}

static void assert_bytes(struct kunit *test, const s8 *got, const s8 *want,
			 u64 n, const char *what)
{
	u64 i;

	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, got[i], want[i], "%s: byte %llu", what, i);
		if (got[i] != want[i])
			return;
	}
}

static void npa_exec_test_case(struct kunit *test)
{
	const struct npa_exec_case *c = test->param_value;
	struct npa_exec_operand in[3], out;
	u64 n;
	u32 i;

	for (i = 0; i < c->nin; i++) {
		n = npa_desc_bytes(&c->in[i]);
		in[i] = (struct npa_exec_operand){ npa_buf(test, n, 0), n, &c->in[i] };
		memcpy(in[i].ptr, c->data[i], n);
	}
	n = npa_desc_bytes(&c->out);
	out = (struct npa_exec_operand){ npa_buf(test, n, 0x77), n, &c->out };
	KUNIT_ASSERT_EQ(test, npa_exec_op(&c->op, in, c->nin, &out, 1, NULL, 0), 0);
	assert_bytes(test, out.ptr, c->want, n, "output");
	assert_guards(test, out.ptr, n, "output");
	for (i = 0; i < c->nin; i++) {
		assert_guards(test, in[i].ptr, in[i].size, "input");
		KUNIT_EXPECT_EQ(test, memcmp(in[i].ptr, c->data[i], in[i].size), 0);
	}
}

/* A 3x3 convolution, stride 2, padding 1: 2 -> 5 channels, 5x5 -> 3x3. */
struct npa_conv_fixture {
	struct npa_ir_op op;
	struct npa_ir_tensor xd, wd, bd, yd;
	struct npa_exec_operand in[3], out;
	s8 want[45];
};

static void npa_conv_fixture_init(struct kunit *test, struct npa_conv_fixture *f)
{
	s8 *x, *w;
	s32 *b;
	int i;

	*f = (struct npa_conv_fixture){
		.op = { .kind = NPA_IR_CONV2D, WIN(3, 3, 2, 2, 1, 1, 0, 2) },
		.xd = ACT(2, 5, 5), .wd = W8(5, 2, 3, 3), .bd = B32(5),
		.yd = ACT(5, 3, 3),
	};
	x = (s8 *)npa_buf(test, 50, 0);
	w = (s8 *)npa_buf(test, 90, 0);
	b = (s32 *)npa_buf(test, 20, 0);
	for (i = 0; i < 50; i++)
		x[i] = i * 37 % 251 - 125;
	for (i = 0; i < 90; i++)
		w[i] = i * 29 % 23 - 11;
	for (i = 0; i < 5; i++)
		b[i] = i * 1000 - 2000;
	f->in[0] = (struct npa_exec_operand){ x, 50, &f->xd };
	f->in[1] = (struct npa_exec_operand){ w, 90, &f->wd };
	f->in[2] = (struct npa_exec_operand){ b, 20, &f->bd };
	f->out = (struct npa_exec_operand){ npa_buf(test, 45, 0x77), 45, &f->yd };
	/* The direct path (no scratch) is the reference here. */
	KUNIT_ASSERT_EQ(test, npa_exec_op(&f->op, f->in, 3, &f->out, 1, NULL, 0), 0);
	memcpy(f->want, f->out.ptr, 45);
}

static void npa_exec_test_im2col(struct kunit *test)
{
	/* im2col: 2 * 3 * 3 bytes per pixel, 9 pixels. */
	static const u64 sizes[] = { 162, 200, 18, 36, 54, 60, 17, 1 };
	struct npa_conv_fixture f;
	struct npa_exec_operand sc;
	u64 full, pixel;
	size_t i;
	u8 *s;

	npa_conv_fixture_init(test, &f);
	npa_exec_im2col_bytes(&f.op, &f.xd, &f.yd, &full, &pixel);
	KUNIT_EXPECT_EQ(test, full, 162ULL);
	KUNIT_EXPECT_EQ(test, pixel, 18ULL);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		s = npa_buf(test, sizes[i], 0x5a);
		sc = (struct npa_exec_operand){ s, sizes[i], NULL };
		memset(f.out.ptr, 0x77, 45);
		KUNIT_ASSERT_EQ(test, npa_exec_op(&f.op, f.in, 3, &f.out, 1, &sc, 1), 0);
		assert_bytes(test, f.out.ptr, f.want, 45, "with scratch");
		assert_guards(test, s, sizes[i], "scratch");
		/* Scratch for a pixel or more is written; smaller is not. */
		if (sizes[i] >= pixel)
			KUNIT_EXPECT_NOT_NULL(test, memchr_inv(s, 0x5a, pixel));
		else
			KUNIT_EXPECT_NULL(test, memchr_inv(s, 0x5a, sizes[i]));
	}
}

/* Scratch over a live tensor must show up: here, over the input. */
static void npa_exec_test_scratch_overlap(struct kunit *test)
{
	struct npa_conv_fixture f;
	struct npa_exec_operand sc;
	u8 *s = npa_buf(test, 162, 0);

	npa_conv_fixture_init(test, &f);
	/* The input lives at the start of the full im2col buffer. */
	memcpy(s, f.in[0].ptr, 50);
	f.in[0].ptr = s;
	sc = (struct npa_exec_operand){ s, 162, NULL };
	KUNIT_ASSERT_EQ(test, npa_exec_op(&f.op, f.in, 3, &f.out, 1, &sc, 1), 0);
	KUNIT_EXPECT_NE(test, memcmp(f.out.ptr, f.want, 45), 0);
	assert_guards(test, s, 162, "input used as scratch");
}

/*
 * Weight staging and the accumulator: the fixture's weights are 5 filters of
 * 18 bytes.  Staging of one filter up to all of them (and more), or too
 * small to be used; accumulators of one entry up to all five, or too small.
 */
static void npa_exec_test_staging(struct kunit *test)
{
	static const u64 stages[] = { 18, 36, 54, 89, 90, 200, 17, 0 };
	static const u64 accs[] = { 8, 16, 40, 100, 7 };
	struct npa_conv_fixture f;
	struct npa_exec_operand sc[3];
	const s8 *w;
	u64 rows, c0;
	size_t i, j;
	u8 *st, *ac;

	npa_conv_fixture_init(test, &f);
	w = f.in[1].ptr;
	for (i = 0; i < ARRAY_SIZE(stages); i++) {
		for (j = 0; j < ARRAY_SIZE(accs); j++) {
			sc[0] = (struct npa_exec_operand){ npa_buf(test, 162, 0x5a), 162, NULL };
			st = npa_buf(test, stages[i], 0x5a);
			ac = npa_buf(test, accs[j], 0x5a);
			sc[1] = (struct npa_exec_operand){ st, stages[i], NULL };
			sc[2] = (struct npa_exec_operand){ ac, accs[j], NULL };
			memset(f.out.ptr, 0x77, 45);
			KUNIT_ASSERT_EQ(test, npa_exec_op(&f.op, f.in, 3, &f.out, 1, sc, 3), 0);
			assert_bytes(test, f.out.ptr, f.want, 45, "staged");
			assert_guards(test, st, stages[i], "staging");
			assert_guards(test, ac, accs[j], "accumulator");
			/* What the kernel read last: the last chunk of filters. */
			rows = min_t(u64, stages[i] / 18, 5);
			if (rows) {
				c0 = (5 - 1) / rows * rows;
				KUNIT_EXPECT_EQ_MSG(test, memcmp(st, w + c0 * 18,
								 (5 - c0) * 18), 0,
						    "staging %llu bytes", stages[i]);
			} else {
				KUNIT_EXPECT_NULL(test, memchr_inv(st, 0x5a, stages[i]));
			}
			/* The accumulator held sums, unless it is too small. */
			if (accs[j] >= 8)
				KUNIT_EXPECT_NOT_NULL(test, memchr_inv(ac, 0x5a, 8));
			else
				KUNIT_EXPECT_NULL(test, memchr_inv(ac, 0x5a, accs[j]));
		}
	}
}

/*
 * Stale staging must not matter: it holds another operator's weights of
 * the same shape (what it would hold if the NPU did not poison scratch
 * and the kernel skipped the copy), and the result is still this one's.
 */
static void npa_exec_test_staging_stale(struct kunit *test)
{
	struct npa_conv_fixture f;
	struct npa_exec_operand sc[3];
	const s8 *w;
	u8 *st;
	int i;

	npa_conv_fixture_init(test, &f);
	w = f.in[1].ptr;
	st = npa_buf(test, 90, 0);
	for (i = 0; i < 90; i++)
		st[i] = w[89 - i] ^ 0x11;
	sc[0] = (struct npa_exec_operand){ npa_buf(test, 162, 0), 162, NULL };
	sc[1] = (struct npa_exec_operand){ st, 90, NULL };
	sc[2] = (struct npa_exec_operand){ npa_buf(test, 40, 0), 40, NULL };
	KUNIT_ASSERT_EQ(test, npa_exec_op(&f.op, f.in, 3, &f.out, 1, sc, 3), 0);
	assert_bytes(test, f.out.ptr, f.want, 45, "stale staging");
	KUNIT_EXPECT_EQ(test, memcmp(st, w, 90), 0);
}

/*
 * The loop order through im2col: the fixture's 9 pixels in tiles of one
 * and its 5 filters staged one at a time move fewer bytes weight-stationary
 * (8 more weight copies against 4 more gathers of 9 patches); in tiles of
 * two, input-stationary.  Either way the result is the same.
 */
static void npa_exec_test_order(struct kunit *test)
{
	static const u64 cols[] = { 18, 36, 54, 162 };
	static const u64 stages[] = { 18, 36, 90 };
	struct npa_conv_fixture f;
	struct npa_exec_operand sc[3];
	size_t i, j;

	KUNIT_EXPECT_TRUE(test, npa_exec_weight_stationary(9, 1, 5, 1));
	KUNIT_EXPECT_FALSE(test, npa_exec_weight_stationary(9, 2, 5, 1));
	KUNIT_EXPECT_TRUE(test, npa_exec_weight_stationary(9, 1, 5, 2));
	/* A tie, one tile, one chunk: input-stationary. */
	KUNIT_EXPECT_FALSE(test, npa_exec_weight_stationary(10, 2, 10, 2));
	KUNIT_EXPECT_FALSE(test, npa_exec_weight_stationary(9, 9, 5, 1));
	KUNIT_EXPECT_FALSE(test, npa_exec_weight_stationary(9, 1, 5, 5));
	KUNIT_EXPECT_FALSE(test, npa_exec_weight_stationary(U64_MAX, 1, U64_MAX, 1));

	npa_conv_fixture_init(test, &f);
	for (i = 0; i < ARRAY_SIZE(cols); i++) {
		for (j = 0; j < ARRAY_SIZE(stages); j++) {
			sc[0] = (struct npa_exec_operand){ npa_buf(test, cols[i], 0x5a),
							   cols[i], NULL };
			sc[1] = (struct npa_exec_operand){ npa_buf(test, stages[j], 0x5a),
							   stages[j], NULL };
			sc[2] = (struct npa_exec_operand){ npa_buf(test, 16, 0x5a), 16, NULL };
			memset(f.out.ptr, 0x77, 45);
			KUNIT_ASSERT_EQ(test, npa_exec_op(&f.op, f.in, 3, &f.out, 1, sc, 3), 0);
			assert_bytes(test, f.out.ptr, f.want, 45, "in either order");
		}
	}
}

/* An accumulator over the output (a planning error) must show up. */
static void npa_exec_test_acc_overlap(struct kunit *test)
{
	struct npa_conv_fixture f;
	struct npa_exec_operand sc[3];

	npa_conv_fixture_init(test, &f);
	sc[0] = (struct npa_exec_operand){ npa_buf(test, 162, 0), 162, NULL };
	sc[1] = (struct npa_exec_operand){ npa_buf(test, 90, 0), 90, NULL };
	sc[2] = (struct npa_exec_operand){ f.out.ptr, 40, NULL };
	KUNIT_ASSERT_EQ(test, npa_exec_op(&f.op, f.in, 3, &f.out, 1, sc, 3), 0);
	KUNIT_EXPECT_NE(test, memcmp(f.out.ptr, f.want, 45), 0);
}

/* Which scratch buffer does what: Documentation/npu.rst, "Scratch". */
static void npa_exec_test_roles(struct kunit *test)
{
	struct npa_ir_op conv = { .kind = NPA_IR_CONV2D };
	struct npa_ir_op fc = { .kind = NPA_IR_FC };
	struct npa_ir_op pool = { .kind = NPA_IR_MAXPOOL };
	struct npa_exec_roles r;

	npa_exec_roles(&conv, true, 3, &r);
	KUNIT_EXPECT_EQ(test, r.col, 0);
	KUNIT_EXPECT_EQ(test, r.stage, 1);
	KUNIT_EXPECT_EQ(test, r.acc, 2);
	npa_exec_roles(&conv, true, 2, &r);
	KUNIT_EXPECT_EQ(test, r.col, 0);
	KUNIT_EXPECT_EQ(test, r.stage, NPA_EXEC_NO_SCRATCH);
	KUNIT_EXPECT_EQ(test, r.acc, 1);
	npa_exec_roles(&conv, false, 2, &r);
	KUNIT_EXPECT_EQ(test, r.col, NPA_EXEC_NO_SCRATCH);
	KUNIT_EXPECT_EQ(test, r.stage, 0);
	KUNIT_EXPECT_EQ(test, r.acc, 1);
	npa_exec_roles(&fc, false, 1, &r);
	KUNIT_EXPECT_EQ(test, r.stage, NPA_EXEC_NO_SCRATCH);
	KUNIT_EXPECT_EQ(test, r.acc, 0);
	npa_exec_roles(&pool, false, 1, &r);
	KUNIT_EXPECT_EQ(test, r.acc, NPA_EXEC_NO_SCRATCH);
}

/* Element-wise ops write over their first input. */
static void npa_exec_test_inplace(struct kunit *test)
{
	struct npa_ir_tensor d = ACT(1, 1, 4);
	struct npa_ir_op add = { .kind = NPA_IR_ADD, .flags = NPA_IR_INPLACE };
	struct npa_ir_op relu = { .kind = NPA_IR_ACTIVATION,
				    .flags = NPA_IR_INPLACE,
				    .params = { [NPA_IR_P_ACT] = NPA_IR_ACT_RELU } };
	struct npa_exec_operand in[2], out;
	s8 *a = (s8 *)npa_buf(test, 4, 0), *b = (s8 *)npa_buf(test, 4, 0);

	memcpy(a, S8(1, -20, 3, 4), 4);
	memcpy(b, S8(10, 10, -10, 10), 4);
	in[0] = (struct npa_exec_operand){ a, 4, &d };
	in[1] = (struct npa_exec_operand){ b, 4, &d };
	out = in[0];
	KUNIT_ASSERT_EQ(test, npa_exec_op(&add, in, 2, &out, 1, NULL, 0), 0);
	assert_bytes(test, a, S8(11, -10, -7, 14), 4, "add in place");
	KUNIT_ASSERT_EQ(test, npa_exec_op(&relu, in, 1, &out, 1, NULL, 0), 0);
	assert_bytes(test, a, S8(11, 0, 0, 14), 4, "relu in place");
	/* x + x written over x */
	in[1] = in[0];
	KUNIT_ASSERT_EQ(test, npa_exec_op(&add, in, 2, &out, 1, NULL, 0), 0);
	assert_bytes(test, a, S8(22, 0, 0, 28), 4, "x + x in place");
	assert_guards(test, a, 4, "a");
}

/* CONCAT inputs already inside the output, or one of them elsewhere. */
static void npa_exec_test_concat_alias(struct kunit *test)
{
	struct npa_ir_tensor d0 = ACT(1, 1, 3), d1 = ACT(2, 1, 3), dy = ACT(3, 1, 3);
	struct npa_ir_op op = { .kind = NPA_IR_CONCAT };
	struct npa_exec_operand in[2], out;
	s8 *y = (s8 *)npa_buf(test, 9, 0), *x1 = (s8 *)npa_buf(test, 6, 0);

	memcpy(y, S8(1, 2, 3, 4, 5, 6, 7, 8, 9), 9);
	in[0] = (struct npa_exec_operand){ y, 3, &d0 };
	in[1] = (struct npa_exec_operand){ y + 3, 6, &d1 };
	out = (struct npa_exec_operand){ y, 9, &dy };
	KUNIT_ASSERT_EQ(test, npa_exec_op(&op, in, 2, &out, 1, NULL, 0), 0);
	assert_bytes(test, y, S8(1, 2, 3, 4, 5, 6, 7, 8, 9), 9, "all in place");
	/* The second input lives elsewhere: only it is copied. */
	memcpy(x1, S8(-4, -5, -6, -7, -8, -9), 6);
	in[1].ptr = x1;
	KUNIT_ASSERT_EQ(test, npa_exec_op(&op, in, 2, &out, 1, NULL, 0), 0);
	assert_bytes(test, y, S8(1, 2, 3, -4, -5, -6, -7, -8, -9), 9, "one copied");
	assert_guards(test, y, 9, "output");
	assert_guards(test, x1, 6, "input");
}

/* SPLIT outputs inside the input, or one of them elsewhere. */
static void npa_exec_test_split_alias(struct kunit *test)
{
	struct npa_ir_tensor dx = BYTES(6), d0 = BYTES(2), d1 = BYTES(4);
	struct npa_ir_op op = { .kind = NPA_IR_SPLIT };
	struct npa_exec_operand in, out[2];
	s8 *x = (s8 *)npa_buf(test, 6, 0), *y0 = (s8 *)npa_buf(test, 2, 0);

	memcpy(x, S8(1, 2, 3, 4, 5, 6), 6);
	in = (struct npa_exec_operand){ x, 6, &dx };
	out[0] = (struct npa_exec_operand){ x, 2, &d0 };
	out[1] = (struct npa_exec_operand){ x + 2, 4, &d1 };
	KUNIT_ASSERT_EQ(test, npa_exec_op(&op, &in, 1, out, 2, NULL, 0), 0);
	assert_bytes(test, x, S8(1, 2, 3, 4, 5, 6), 6, "all in place");
	out[0].ptr = y0;
	KUNIT_ASSERT_EQ(test, npa_exec_op(&op, &in, 1, out, 2, NULL, 0), 0);
	assert_bytes(test, y0, S8(1, 2), 2, "first part copied");
	assert_bytes(test, x, S8(1, 2, 3, 4, 5, 6), 6, "input unchanged");
	assert_guards(test, y0, 2, "output");
}

/* RESHAPE onto its input's memory moves nothing. */
static void npa_exec_test_reshape_alias(struct kunit *test)
{
	struct npa_ir_tensor dx = ACT(2, 2, 1), dy = BYTES(4);
	struct npa_ir_op op = { .kind = NPA_IR_RESHAPE };
	struct npa_exec_operand in, out;
	s8 *x = (s8 *)npa_buf(test, 4, 0);

	memcpy(x, S8(1, 2, 3, 4), 4);
	in = (struct npa_exec_operand){ x, 4, &dx };
	out = (struct npa_exec_operand){ x, 4, &dy };
	KUNIT_ASSERT_EQ(test, npa_exec_op(&op, &in, 1, &out, 1, NULL, 0), 0);
	assert_bytes(test, x, S8(1, 2, 3, 4), 4, "in place");
}

/* An operand smaller than its descriptor is refused before any access. */
static void npa_exec_test_short_operand(struct kunit *test)
{
	struct npa_ir_tensor d = ACT(1, 1, 4);
	struct npa_ir_op op = { .kind = NPA_IR_COPY };
	struct npa_exec_operand in, out;
	s8 *x = (s8 *)npa_buf(test, 4, 1), *y = (s8 *)npa_buf(test, 4, 2);

	in = (struct npa_exec_operand){ x, 4, &d };
	out = (struct npa_exec_operand){ y, 3, &d };
	KUNIT_EXPECT_EQ(test, npa_exec_op(&op, &in, 1, &out, 1, NULL, 0), -ERANGE);
	KUNIT_EXPECT_NULL(test, memchr_inv(y, 2, 4));
	out.size = 4;
	out.ptr = NULL;
	KUNIT_EXPECT_EQ(test, npa_exec_op(&op, &in, 1, &out, 1, NULL, 0), -ERANGE);
	out.ptr = y;
	out.desc = NULL;
	KUNIT_EXPECT_EQ(test, npa_exec_op(&op, &in, 1, &out, 1, NULL, 0), -EINVAL);
}

/**
 * struct npa_exec_heavy - an operator with several stop hook periods of work
 * @desc: what it is.
 * @op: the operator.
 * @nin: inputs.
 * @t: input descriptors, then the output's.
 * @scratch: bytes of scratch[0], or 0 for none.
 */
struct npa_exec_heavy {
	const char *desc;
	struct npa_ir_op op;
	u32 nin;
	struct npa_ir_tensor t[4];
	u64 scratch;
};

static const struct npa_exec_heavy npa_exec_heavies[] = {
	{ "maxpool 64x64 window over 64x64",
	  { .kind = NPA_IR_MAXPOOL, WIN(64, 64, 1, 1, 32, 32, 0, 0) }, 1,
	  { ACT(1, 64, 64), ACT(1, 65, 65) } },
	{ "avgpool 64x64 window over 64x64",
	  { .kind = NPA_IR_AVGPOOL, WIN(64, 64, 1, 1, 32, 32, 0, 0) }, 1,
	  { ACT(1, 64, 64), ACT(1, 65, 65) } },
	{ "conv 9x9, direct",
	  { .kind = NPA_IR_CONV2D, WIN(9, 9, 1, 1, 4, 4, 0, 0) }, 3,
	  { ACT(4, 32, 32), W8(4, 4, 9, 9), B32(4), ACT(4, 32, 32) } },
	{ "conv 9x9, im2col tiles",
	  { .kind = NPA_IR_CONV2D, WIN(9, 9, 1, 1, 4, 4, 0, 0) }, 3,
	  { ACT(4, 32, 32), W8(4, 4, 9, 9), B32(4), ACT(4, 32, 32) },
	  4 * 81 * 256 },
	{ "conv 1x1, 64 channels",
	  { .kind = NPA_IR_CONV2D, WIN(1, 1, 1, 1, 0, 0, 0, 0) }, 2,
	  { ACT(64, 32, 32), W8(64, 64, 1, 1), ACT(64, 32, 32) } },
	/*
	 * All but the middle pixel in the padding: each is the bias alone,
	 * 256 units; they were counted 1, so the hook was never asked while
	 * the loops over the channels ran (minutes at 4096 channels).
	 */
	{ "conv 1x1, 256 channels, 2048 pixels of padding",
	  { .kind = NPA_IR_CONV2D, WIN(1, 1, 1, 1, 0, 1024, 0, 0) }, 2,
	  { ACT(256, 1, 1), W8(256, 256, 1, 1), ACT(256, 1, 2049) } },
	{ "fc 512 to 1024", { .kind = NPA_IR_FC }, 2,
	  { ACT(512, 1, 1), { .dims = { 1024, 512 }, .dtype = NPA_IR_INT8 },
	    ACT(1024, 1, 1) } },
	/*
	 * Operators that only move bytes or work element by element: they
	 * never asked the hook, so a copy of gigabytes ran to its end after
	 * a cancel or a timeout.
	 */
	{ "copy 1 MiB", { .kind = NPA_IR_COPY }, 1,
	  { ACT(16, 256, 256), ACT(16, 256, 256) } },
	{ "concat 2 x 512 KiB", { .kind = NPA_IR_CONCAT }, 2,
	  { ACT(8, 256, 256), ACT(8, 256, 256), ACT(16, 256, 256) } },
	{ "add 1 MiB", { .kind = NPA_IR_ADD }, 2,
	  { ACT(16, 256, 256), ACT(16, 256, 256), ACT(16, 256, 256) } },
	{ "leaky 1 MiB",
	  { .kind = NPA_IR_ACTIVATION,
	    .params = { [NPA_IR_P_ACT] = NPA_IR_ACT_LEAKY } }, 1,
	  { ACT(16, 256, 256), ACT(16, 256, 256) } },
};

static void npa_exec_heavy_desc(const struct npa_exec_heavy *h, char *desc)
{
	strscpy(desc, h->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(npa_exec_heavy, npa_exec_heavies, npa_exec_heavy_desc);

/* A stop hook that counts its calls and stops at call @stop_at. */
struct npa_exec_stopper {
	u32 calls;
	u32 stop_at;
};

static bool npa_exec_test_stop(void *priv)
{
	struct npa_exec_stopper *s = priv;

	return ++s->calls == s->stop_at;
}

/*
 * A stop hook is asked part way through one long operator: stopping at
 * its first call ends the operator there with -ECANCELED; a hook that
 * never stops changes nothing in the result.
 */
static void npa_exec_test_stop_hook(struct kunit *test)
{
	const struct npa_exec_heavy *h = test->param_value;
	struct npa_exec_stopper st = { .stop_at = 1 };
	struct npa_exec_stop stop = { npa_exec_test_stop, &st };
	struct npa_exec_operand in[3], out, ref, sc = { 0 };
	u64 n = npa_desc_bytes(&h->t[h->nin]), k;
	u32 i;

	for (i = 0; i < h->nin; i++) {
		u64 bytes = npa_desc_bytes(&h->t[i]);
		u8 *p = npa_buf(test, bytes, 0);

		for (k = 0; k < bytes; k++)
			p[k] = (k * 37 + i * 11) & 0xff;
		in[i] = (struct npa_exec_operand){ p, bytes, &h->t[i] };
	}
	out = (struct npa_exec_operand){ npa_buf(test, n, 0), n, &h->t[h->nin] };
	ref = (struct npa_exec_operand){ npa_buf(test, n, 0), n, &h->t[h->nin] };
	if (h->scratch)
		sc = (struct npa_exec_operand){ npa_buf(test, h->scratch, 0),
						h->scratch, NULL };

	KUNIT_EXPECT_EQ(test, npa_exec_run(&h->op, in, h->nin, &out, 1, &sc,
					   h->scratch ? 1 : 0, &stop),
			-ECANCELED);
	KUNIT_EXPECT_EQ(test, st.calls, 1);

	st = (struct npa_exec_stopper){ .stop_at = 0 };
	KUNIT_ASSERT_EQ(test, npa_exec_run(&h->op, in, h->nin, &out, 1, &sc,
					   h->scratch ? 1 : 0, &stop), 0);
	KUNIT_EXPECT_GT(test, st.calls, 1);
	KUNIT_ASSERT_EQ(test, npa_exec_op(&h->op, in, h->nin, &ref, 1, &sc,
					  h->scratch ? 1 : 0), 0);
	KUNIT_EXPECT_EQ(test, memcmp(out.ptr, ref.ptr, n), 0);
	assert_guards(test, out.ptr, n, "output");
}

/**
 * struct npa_exec_bad - an operator npa_exec_check() must refuse
 * @desc: what is wrong.
 * @op: the operator.
 * @nin: inputs.
 * @nout: outputs.
 * @t: input descriptors, then output descriptors.
 */
struct npa_exec_bad {
	const char *desc;
	struct npa_ir_op op;
	u32 nin, nout;
	struct npa_ir_tensor t[4];
};

#define CONV(...)	{ .kind = NPA_IR_CONV2D, WIN(__VA_ARGS__) }
#define CONV_T(y)	{ ACT(2, 4, 4), W8(3, 2, 3, 3), B32(3), y }

static const struct npa_exec_bad npa_exec_bads[] = {
	{ "conv output one row short", CONV(3, 3, 1, 1, 1, 1, 0, 0), 3, 1,
	  CONV_T(ACT(3, 3, 4)) },
	{ "conv output two rows long", CONV(3, 3, 1, 1, 1, 1, 0, 0), 3, 1,
	  CONV_T(ACT(3, 6, 4)) },
	{ "conv output channels", CONV(3, 3, 1, 1, 1, 1, 0, 0), 3, 1,
	  CONV_T(ACT(2, 4, 4)) },
	{ "conv weights OHWI", CONV(3, 3, 1, 1, 1, 1, 0, 0), 3, 1,
	  { ACT(2, 4, 4), W8(3, 3, 3, 2), B32(3), ACT(3, 4, 4) } },
	{ "conv weights int32", CONV(3, 3, 1, 1, 1, 1, 0, 0), 3, 1,
	  { ACT(2, 4, 4), { .dims = { 3, 2, 3, 3 }, .dtype = NPA_IR_INT32 },
	    B32(3), ACT(3, 4, 4) } },
	{ "conv bias length", CONV(3, 3, 1, 1, 1, 1, 0, 0), 3, 1,
	  { ACT(2, 4, 4), W8(3, 2, 3, 3), B32(2), ACT(3, 4, 4) } },
	{ "conv bias int8", CONV(3, 3, 1, 1, 1, 1, 0, 0), 3, 1,
	  { ACT(2, 4, 4), W8(3, 2, 3, 3), ACT(3, 0, 0), ACT(3, 4, 4) } },
	{ "conv groups do not divide", CONV(3, 3, 1, 1, 1, 1, 2, 0), 3, 1,
	  CONV_T(ACT(3, 4, 4)) },
	{ "conv negative groups", CONV(3, 3, 1, 1, 1, 1, -1, 0), 3, 1,
	  CONV_T(ACT(3, 4, 4)) },
	{ "conv kernel 0", CONV(0, 3, 1, 1, 1, 1, 0, 0), 3, 1,
	  CONV_T(ACT(3, 4, 4)) },
	{ "conv stride 0", CONV(3, 3, 0, 1, 1, 1, 0, 0), 3, 1,
	  CONV_T(ACT(3, 4, 4)) },
	{ "conv negative padding", CONV(3, 3, 1, 1, -1, 1, 0, 0), 3, 1,
	  CONV_T(ACT(3, 4, 4)) },
	{ "conv shift 32", CONV(3, 3, 1, 1, 1, 1, 0, 32), 3, 1,
	  CONV_T(ACT(3, 4, 4)) },
	{ "conv one input", CONV(3, 3, 1, 1, 1, 1, 0, 0), 1, 1,
	  { ACT(2, 4, 4), ACT(3, 4, 4) } },
	{ "conv batch of 2", CONV(3, 3, 1, 1, 1, 1, 0, 0), 3, 1,
	  { { .dims = { 2, 2, 4, 4 }, .dtype = NPA_IR_INT8 }, W8(3, 2, 3, 3),
	    B32(3), { .dims = { 2, 3, 4, 4 }, .dtype = NPA_IR_INT8 } } },
	{ "conv int16 activations", CONV(3, 3, 1, 1, 1, 1, 0, 0), 3, 1,
	  { { .dims = { 1, 2, 4, 4 }, .dtype = NPA_IR_INT16 }, W8(3, 2, 3, 3),
	    B32(3), ACT(3, 4, 4) } },
	{ "conv in place",
	  { .kind = NPA_IR_CONV2D, .flags = NPA_IR_INPLACE,
	    WIN(3, 3, 1, 1, 1, 1, 0, 0) }, 3, 1, CONV_T(ACT(3, 4, 4)) },
	{ "dwconv output channels",
	  { .kind = NPA_IR_DWCONV2D, WIN(3, 3, 1, 1, 1, 1, 0, 0) }, 2, 1,
	  { ACT(2, 4, 4), W8(4, 1, 3, 3), ACT(4, 4, 4) } },
	{ "dwconv groups not C",
	  { .kind = NPA_IR_DWCONV2D, WIN(3, 3, 1, 1, 1, 1, 1, 0) }, 2, 1,
	  { ACT(2, 4, 4), W8(2, 1, 3, 3), ACT(2, 4, 4) } },
	{ "maxpool with shift",
	  { .kind = NPA_IR_MAXPOOL, WIN(2, 2, 2, 2, 0, 0, 0, 1) }, 1, 1,
	  { ACT(2, 4, 4), ACT(2, 2, 2) } },
	{ "maxpool with groups",
	  { .kind = NPA_IR_MAXPOOL, WIN(2, 2, 2, 2, 0, 0, 1, 0) }, 1, 1,
	  { ACT(2, 4, 4), ACT(2, 2, 2) } },
	{ "maxpool channels",
	  { .kind = NPA_IR_MAXPOOL, WIN(2, 2, 2, 2, 0, 0, 0, 0) }, 1, 1,
	  { ACT(2, 4, 4), ACT(1, 2, 2) } },
	{ "maxpool output two beyond symmetric",
	  { .kind = NPA_IR_MAXPOOL, WIN(2, 2, 1, 1, 0, 0, 0, 0) }, 1, 1,
	  { ACT(1, 4, 4), ACT(1, 5, 5) } },
	{ "avgpool window larger than the padded input",
	  { .kind = NPA_IR_AVGPOOL, WIN(6, 6, 1, 1, 0, 0, 0, 0) }, 1, 1,
	  { ACT(1, 4, 4), ACT(1, 1, 1) } },
	{ "add b not a multiple",
	  { .kind = NPA_IR_ADD }, 2, 1, { ACT(1, 2, 2), ACT(1, 3, 3), ACT(1, 2, 2) } },
	{ "add ratios differ",
	  { .kind = NPA_IR_ADD }, 2, 1, { ACT(1, 2, 2), ACT(1, 4, 6), ACT(1, 2, 2) } },
	{ "add output not a's shape",
	  { .kind = NPA_IR_ADD }, 2, 1, { ACT(2, 2, 2), ACT(1, 2, 2), ACT(1, 2, 2) } },
	{ "add unused parameter",
	  { .kind = NPA_IR_ADD, .params = { 1 } }, 2, 1,
	  { ACT(1, 2, 2), ACT(1, 2, 2), ACT(1, 2, 2) } },
	{ "mul three inputs",
	  { .kind = NPA_IR_MUL }, 3, 1,
	  { ACT(1, 2, 2), ACT(1, 2, 2), ACT(1, 2, 2), ACT(1, 2, 2) } },
	{ "activation unknown function",
	  { .kind = NPA_IR_ACTIVATION, .params = { NPA_IR_ACT_COUNT } }, 1, 1,
	  { ACT(1, 2, 2), ACT(1, 2, 2) } },
	{ "activation unused parameter (softmax groups)",
	  { .kind = NPA_IR_ACTIVATION, .params = { NPA_IR_ACT_RELU, 2 } }, 1, 1,
	  { ACT(1, 2, 2), ACT(1, 2, 2) } },
	{ "activation sizes differ",
	  { .kind = NPA_IR_ACTIVATION }, 1, 1, { ACT(1, 2, 2), ACT(1, 2, 3) } },
	{ "activation int32",
	  { .kind = NPA_IR_ACTIVATION }, 1, 1, { B32(4), B32(4) } },
	{ "concat sizes do not add up",
	  { .kind = NPA_IR_CONCAT }, 2, 1, { BYTES(3), BYTES(4), BYTES(8) } },
	{ "concat two outputs",
	  { .kind = NPA_IR_CONCAT }, 1, 2, { BYTES(4), BYTES(2), BYTES(2) } },
	{ "split sizes do not add up",
	  { .kind = NPA_IR_SPLIT }, 1, 2, { BYTES(8), BYTES(3), BYTES(4) } },
	{ "reshape sizes differ",
	  { .kind = NPA_IR_RESHAPE }, 1, 1, { ACT(1, 2, 2), ACT(1, 1, 3) } },
	{ "copy inconsistent descriptor",
	  { .kind = NPA_IR_COPY }, 1, 1,
	  { { .size = 5, .dims = { 1, 1, 2, 2 }, .dtype = NPA_IR_INT8 },
	    BYTES(5) } },
	{ "upsample output size",
	  { .kind = NPA_IR_UPSAMPLE, .params = { 2 } }, 1, 1,
	  { ACT(1, 2, 2), ACT(1, 4, 3) } },
	{ "upsample stride 0",
	  { .kind = NPA_IR_UPSAMPLE }, 1, 1, { ACT(1, 2, 2), ACT(1, 2, 2) } },
	{ "upsample negative stride (Darknet's downsample)",
	  { .kind = NPA_IR_UPSAMPLE, .params = { -2 } }, 1, 1,
	  { ACT(1, 4, 4), ACT(1, 2, 2) } },
	{ "reorg height not a multiple",
	  { .kind = NPA_IR_REORG, .params = { 2 } }, 1, 1,
	  { ACT(1, 3, 4), ACT(4, 1, 2) } },
	{ "reorg reverse (Darknet)",
	  { .kind = NPA_IR_REORG, .params = { 2, 1 } }, 1, 1,
	  { ACT(1, 2, 4), ACT(4, 1, 2) } },
	{ "fc weights transposed",
	  { .kind = NPA_IR_FC }, 2, 1,
	  { ACT(3, 1, 1), { .dims = { 3, 2 }, .dtype = NPA_IR_INT8 },
	    ACT(2, 1, 1) } },
	{ "fc window parameter",
	  { .kind = NPA_IR_FC, .params = { 1 } }, 2, 1,
	  { ACT(3, 1, 1), { .dims = { 2, 3 }, .dtype = NPA_IR_INT8 },
	    ACT(2, 1, 1) } },
	{ "unknown kind", { .kind = NPA_IR_KIND_COUNT }, 1, 1,
	  { BYTES(4), BYTES(4) } },
};

static void npa_exec_bad_desc(const struct npa_exec_bad *b, char *desc)
{
	strscpy(desc, b->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(npa_exec_bad, npa_exec_bads, npa_exec_bad_desc);

/* npa_exec_check_why() on @b: its errno, and in @fault what it blamed. */
static int npa_exec_bad_why(const struct npa_exec_bad *b,
			    struct npa_exec_fault *fault)
{
	const struct npa_ir_tensor *in[3], *out[2];
	u32 i;

	for (i = 0; i < b->nin; i++)
		in[i] = &b->t[i];
	for (i = 0; i < b->nout; i++)
		out[i] = &b->t[b->nin + i];
	memset(fault, 0, sizeof(*fault));
	return npa_exec_check_why(&b->op, in, b->nin, out, b->nout, fault);
}

static void npa_exec_test_check(struct kunit *test)
{
	const struct npa_exec_bad *b = test->param_value;
	struct npa_exec_fault fault;

	KUNIT_EXPECT_EQ(test, npa_exec_bad_why(b, &fault), -EINVAL);
}

/**
 * struct npa_exec_blamed - a refused operator and what must be blamed
 * @bad: the operator.
 * @fault: the blame, the operand (inputs then outputs), the dim, the
 *	value it has and the one it needs.
 */
struct npa_exec_blamed {
	struct npa_exec_bad bad;
	struct npa_exec_fault fault;
};

#define DIMS(k, d, v, e)	{ NPA_EXEC_BLAME_DIMS, k, d, v, e }
#define SIZE(k, v, e)		{ NPA_EXEC_BLAME_SIZE, k, 0, v, e }

static const struct npa_exec_blamed npa_exec_blameds[] = {
	{ { "conv output rows and columns swapped",
	    CONV(3, 3, 1, 1, 1, 1, 0, 0), 3, 1, CONV_T(ACT(3, 2, 8)) },
	  DIMS(3, 2, 2, 4) },
	{ { "conv input batch of 2", CONV(3, 3, 1, 1, 1, 1, 0, 0), 3, 1,
	    { { .dims = { 2, 2, 4, 4 }, .dtype = NPA_IR_INT8 },
	      W8(3, 2, 3, 3), B32(3), ACT(3, 4, 4) } },
	  DIMS(0, 0, 2, 1) },
	{ { "conv weights with kernel rows and columns swapped",
	    { .kind = NPA_IR_CONV2D, WIN(1, 3, 1, 1, 0, 1, 0, 0) }, 3, 1,
	    { ACT(2, 4, 4), W8(3, 2, 3, 1), B32(3), ACT(3, 4, 4) } },
	  DIMS(1, 2, 3, 1) },
	{ { "fc weights transposed", { .kind = NPA_IR_FC }, 2, 1,
	    { ACT(3, 1, 1), { .dims = { 3, 2 }, .dtype = NPA_IR_INT8 },
	      ACT(2, 1, 1) } },
	  DIMS(1, 0, 3, 2) },
	{ { "add b's rows not a multiple", { .kind = NPA_IR_ADD }, 2, 1,
	    { ACT(1, 2, 2), ACT(1, 3, 3), ACT(1, 2, 2) } },
	  DIMS(1, 2, 3, 2) },
	{ { "add b's columns not a multiple", { .kind = NPA_IR_ADD }, 2, 1,
	    { ACT(1, 2, 2), ACT(1, 2, 3), ACT(1, 2, 2) } },
	  DIMS(1, 3, 3, 2) },
	{ { "upsample output channels and rows swapped",
	    { .kind = NPA_IR_UPSAMPLE, .params = { 2 } }, 1, 1,
	    { ACT(2, 2, 2), ACT(4, 2, 4) } },
	  DIMS(1, 1, 4, 2) },
	/* The weights say Cout is 3: the output of 2 channels is wrong. */
	{ { "conv output channels not the weights'",
	    CONV(3, 3, 1, 1, 1, 1, 0, 0), 3, 1, CONV_T(ACT(2, 4, 4)) },
	  SIZE(3, 32, 48) },
	{ { "conv weights of another Cout than the bias",
	    CONV(3, 3, 1, 1, 1, 1, 0, 0), 3, 1,
	    { ACT(2, 4, 4), W8(3, 2, 3, 3), B32(2), ACT(3, 4, 4) } },
	  SIZE(2, 8, 12) },
};

static void npa_exec_blamed_desc(const struct npa_exec_blamed *b, char *desc)
{
	strscpy(desc, b->bad.desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(npa_exec_blamed, npa_exec_blameds, npa_exec_blamed_desc);

/* A wrong dim is blamed by its index, with what it has and needs. */
static void npa_exec_test_blame_dim(struct kunit *test)
{
	const struct npa_exec_blamed *b = test->param_value;
	struct npa_exec_fault fault;

	KUNIT_ASSERT_EQ(test, npa_exec_bad_why(&b->bad, &fault), -EINVAL);
	KUNIT_EXPECT_EQ(test, fault.blame, b->fault.blame);
	KUNIT_EXPECT_EQ(test, fault.operand, b->fault.operand);
	KUNIT_EXPECT_EQ(test, fault.dim, b->fault.dim);
	KUNIT_EXPECT_EQ(test, fault.value, b->fault.value);
	KUNIT_EXPECT_EQ(test, fault.expected, b->fault.expected);
}

/* The descriptors of the hand-computed cases all pass the check. */
static void npa_exec_test_check_ok(struct kunit *test)
{
	const struct npa_ir_tensor *in[3], *out[1];
	size_t k;
	u32 i;

	for (k = 0; k < ARRAY_SIZE(npa_exec_cases); k++) {
		const struct npa_exec_case *c = &npa_exec_cases[k];

		for (i = 0; i < c->nin; i++)
			in[i] = &c->in[i];
		out[0] = &c->out;
		KUNIT_EXPECT_EQ_MSG(test, npa_exec_check(&c->op, in, c->nin, out, 1),
				    0, "%s", c->desc);
	}
}

static struct kunit_case npa_exec_test_cases[] = {
	KUNIT_CASE_PARAM(npa_exec_test_case, npa_exec_case_gen_params),
	KUNIT_CASE(npa_exec_test_im2col),
	KUNIT_CASE(npa_exec_test_scratch_overlap),
	KUNIT_CASE(npa_exec_test_staging),
	KUNIT_CASE(npa_exec_test_staging_stale),
	KUNIT_CASE(npa_exec_test_order),
	KUNIT_CASE(npa_exec_test_acc_overlap),
	KUNIT_CASE(npa_exec_test_roles),
	KUNIT_CASE(npa_exec_test_inplace),
	KUNIT_CASE(npa_exec_test_concat_alias),
	KUNIT_CASE(npa_exec_test_split_alias),
	KUNIT_CASE(npa_exec_test_reshape_alias),
	KUNIT_CASE(npa_exec_test_short_operand),
	KUNIT_CASE_PARAM(npa_exec_test_stop_hook, npa_exec_heavy_gen_params),
	KUNIT_CASE_PARAM(npa_exec_test_check, npa_exec_bad_gen_params),
	KUNIT_CASE_PARAM(npa_exec_test_blame_dim, npa_exec_blamed_gen_params),
	KUNIT_CASE(npa_exec_test_check_ok),
	{}
};

static struct kunit_suite npa_exec_test_suite = {
	.name = "npa_exec",
	.test_cases = npa_exec_test_cases,
};

kunit_test_suite(npa_exec_test_suite);
