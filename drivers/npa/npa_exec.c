// SPDX-License-Identifier: GPL-2.0
/*
 * npa: operator kernels of the simulated NPU.
 */

/**
 * DOC: operator kernels
 *
 * One function runs one operator of a model graph on plain memory: the
 * simulated NPU calls it with translated, bounds-checked pointers into the
 * arena, npactl's reference executor with a separate buffer per tensor, and
 * both must agree bit for bit.  The arithmetic is integer only (int8
 * activations and weights, int32 bias, s64 accumulators, an arithmetic
 * right shift and a saturation to int8); Documentation/npu.rst gives the
 * exact semantics, index mappings and shape rules of every kind.
 *
 * npa_exec_check() checks that an operator's shapes and parameters make
 * sense (graph validation calls it); npa_exec_op() checks them again, then
 * checks that every operand is at least as large as its descriptor before
 * it touches any memory, and never reads or writes outside the operands.
 *
 * Inputs and outputs may share memory where the planner makes them: a
 * RESHAPE, an element-wise op writing over its first input, CONCAT inputs
 * already at their place in the output, SPLIT outputs inside the input.
 * Data is moved only when the addresses differ.  A convolution that is not
 * 1x1 with stride 1 builds its im2col patch matrix in scratch[0], whole or
 * in tiles of as many output pixels as fit, and reads it back from there,
 * so that scratch which overlaps a live tensor gives wrong results instead
 * of going unnoticed.  Weights go through the weight staging scratch in
 * chunks of whole filters, in the loop order over tiles and chunks that
 * moves fewer bytes (npa_exec_weight_stationary(), which the cost model
 * charges too).
 *
 * One operator can do a great deal of work (a pooling window as large as
 * its input costs the input's size squared), so npa_exec_run() counts it
 * as it goes and asks its caller's stop hook, about every
 * %NPA_EXEC_STOP_WORK multiply-adds, whether to give up: the simulated NPU
 * uses this to end a job at its timeout or on a cancel part way through an
 * operator.
 */

#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "npa_exec.h"

/* Descriptors of an op's inputs or outputs: an array of either kind. */
struct npa_exec_dl {
	const struct npa_ir_tensor *const *d;
	const struct npa_exec_operand *o;
	u32 n;
};

/* An int8 activation [1, C, H, W] of @n bytes. */
struct npa_exec_shape {
	u32 c, h, w;
	u64 n;
};

/* Work done since the stop hook was last asked, and its answer. */
struct npa_exec_meter {
	const struct npa_exec_stop *stop;
	u64 work;
	bool stopped;
};

/**
 * struct npa_exec_args - an op's checked shapes and parameters
 * @x: first input (activations).
 * @b: second input of ADD and MUL.
 * @y: output.
 * @kh: kernel height.
 * @kw: kernel width.
 * @sh: stride height.
 * @sw: stride width.
 * @pt: padding rows above.
 * @pl: padding columns left.
 * @groups: channel groups of a convolution.
 * @cg: input channels per group.
 * @cog: output channels per group.
 * @shift: requantization shift.
 * @k: convolution: bytes of one im2col row ((C / groups) * KH * KW);
 *	FC: inputs.
 * @outs: FC: outputs.
 * @stride: ADD/MUL: step in @b; UPSAMPLE, REORG: the factor.
 * @sample: ADD/MUL: step in @x and @y.
 * @act: enum npa_ir_act.
 * @bias: the op has a bias input.
 * @meter: counts the work of a running op; NULL when only checking it.
 * @fault: where a refusal says what it blames; NULL when not asked.
 * @stage: CONV2D, DWCONV2D, FC: the weight staging scratch the weights are
 *	copied into and read from, or NULL: they are read where they are.
 * @stage_rows: whole weight rows (@k bytes each) @stage holds, at least 1.
 * @acc: CONV2D, DWCONV2D, FC: the accumulator scratch, or NULL: the sums
 *	are kept in registers.
 * @acc_n: s64 entries @acc holds, at least 1.
 */
struct npa_exec_args {
	struct npa_exec_shape x, b, y;
	u32 kh, kw, sh, sw, pt, pl;
	u32 groups, cg, cog, shift;
	u64 k, outs;
	u32 stride, sample, act;
	bool bias;
	struct npa_exec_meter *meter;
	struct npa_exec_fault *fault;
	s8 *stage;
	u64 stage_rows;
	u8 *acc;
	u32 acc_n;
};

/* Accumulator entries kept in registers when the op has no accumulator. */
#define NPA_EXEC_REGS	4

static const u8 npa_exec_elem[NPA_IR_DTYPE_COUNT] = {
	[NPA_IR_INT8] = 1,
	[NPA_IR_UINT8] = 1,
	[NPA_IR_INT16] = 2,
	[NPA_IR_INT32] = 4,
};

/*
 * round(128 / (1 + exp(-x / 16))), at most 127, indexed by x + 128: the
 * input has 4 fractional bits, the output 7.
 */
static const s8 npa_exec_logistic[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2,
	2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 5, 5, 5, 6,
	6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 12, 12, 13, 14, 14,
	15, 16, 17, 18, 19, 20, 21, 22, 23, 25, 26, 27, 29, 30, 31, 33,
	34, 36, 38, 39, 41, 43, 45, 46, 48, 50, 52, 54, 56, 58, 60, 62,
	64, 66, 68, 70, 72, 74, 76, 78, 80, 82, 83, 85, 87, 89, 90, 92,
	94, 95, 97, 98, 99, 101, 102, 103, 105, 106, 107, 108, 109, 110, 111, 112,
	113, 114, 114, 115, 116, 116, 117, 118, 118, 119, 119, 120, 120, 121, 121, 122,
	122, 122, 123, 123, 123, 124, 124, 124, 124, 124, 125, 125, 125, 125, 125, 126,
	126, 126, 126, 126, 126, 126, 126, 127, 127, 127, 127, 127, 127, 127, 127, 127,
	127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127,
	127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127,
	127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127,
};

static const struct npa_ir_tensor *npa_dl(const struct npa_exec_dl *l, u32 i)
{
	return l->d ? l->d[i] : l->o[i].desc;
}

/* Bytes of a tensor, or 0 if its descriptor is inconsistent. */
static u64 npa_exec_bytes(const struct npa_ir_tensor *t)
{
	u64 bytes;
	int i;

	if (!t || t->dtype >= NPA_IR_DTYPE_COUNT)
		return 0;
	if (t->dtype == NPA_IR_DTYPE_NONE)
		return t->dims[0] ? 0 : t->size;
	if (!t->dims[0])
		return 0;
	bytes = npa_exec_elem[t->dtype];
	for (i = 0; i < NPA_IR_MAX_DIMS && t->dims[i]; i++) {
		if (check_mul_overflow(bytes, (u64)t->dims[i], &bytes))
			return 0;
	}
	for (; i < NPA_IR_MAX_DIMS; i++) {
		if (t->dims[i])
			return 0;
	}
	if (t->size && t->size != bytes)
		return 0;
	return bytes;
}

/* An int8 activation [1, C, H, W]; missing trailing dims count as 1. */
static bool npa_exec_act(const struct npa_ir_tensor *t,
			 struct npa_exec_shape *s)
{
	u64 n = npa_exec_bytes(t);

	if (!n || t->dtype != NPA_IR_INT8 || t->dims[0] != 1)
		return false;
	s->c = t->dims[1] ? t->dims[1] : 1;
	s->h = t->dims[2] ? t->dims[2] : 1;
	s->w = t->dims[3] ? t->dims[3] : 1;
	s->n = n;
	return true;
}

/* Parameters other than @keep are unused by the kind and must be zero. */
static bool npa_exec_unused(const struct npa_ir_op *op, int keep)
{
	int i;

	for (i = 0; i < NPA_IR_MAX_PARAMS; i++) {
		if (i != keep && op->params[i])
			return false;
	}
	return true;
}

static bool npa_exec_in(s32 v, s32 lo, s32 hi)
{
	return v >= lo && v <= hi;
}

/*
 * The output size of a window: out = (in + pad + pad_end - k) / s + 1 with
 * pad_end = pad (symmetric) or pad + 1 (one more row or column below or
 * right, as Darknet's maxpool with an odd total padding has).
 */
static bool npa_exec_out_ok(u32 in, u32 k, u32 s, u32 pad, u32 out)
{
	u64 span = (u64)in + 2ULL * pad;
	u64 extra;

	for (extra = 0; extra <= 1; extra++) {
		if (span + extra >= k && (span + extra - k) / s + 1 == out)
			return true;
	}
	return false;
}

/*
 * The output size of a window for @have: @have itself if it is one of the
 * two, else the symmetric one; false if the kernel is larger than the
 * padded input.
 */
static bool npa_exec_out_dim(u32 in, u32 k, u32 s, u32 pad, u32 have,
			     u64 *out)
{
	u64 span = (u64)in + 2ULL * pad;

	if (npa_exec_out_ok(in, k, s, pad, have))
		*out = have;
	else if (span >= k)
		*out = (span - k) / s + 1;
	else
		return false;
	return true;
}

/* Blame @blame of operand @k (enum npa_exec_blame); -EINVAL. */
static int npa_exec_blame(struct npa_exec_args *a, u32 blame, u32 k,
			  u64 value, u64 expected)
{
	if (a->fault)
		*a->fault = (struct npa_exec_fault){
			.blame = blame, .operand = k,
			.value = value, .expected = expected,
		};
	return -EINVAL;
}

/* Blame dims[@dim] of operand @k: it is @value, it needs @expected. */
static int npa_exec_blame_dim(struct npa_exec_args *a, u32 k, u32 dim,
			      u64 value, u64 expected)
{
	npa_exec_blame(a, NPA_EXEC_BLAME_DIMS, k, value, expected);
	if (a->fault)
		a->fault->dim = dim;
	return -EINVAL;
}

/*
 * Operand @k, @t, must be a tensor of @dtype with the dims @want; with
 * @act an activation [1, C, H, W], whose trailing dims may be left out.
 * Blames its bytes first, then its dtype, then its first wrong dim.
 */
static int npa_exec_want(struct npa_exec_args *a,
			 const struct npa_ir_tensor *t, u32 k, u32 dtype,
			 const u64 *want, bool act)
{
	u64 have = npa_exec_bytes(t), need = npa_exec_elem[dtype], dim;
	int i;

	for (i = 0; i < NPA_IR_MAX_DIMS && want[i]; i++) {
		if (check_mul_overflow(need, want[i], &need))
			need = U64_MAX;
	}
	if (have != need)
		return npa_exec_blame(a, NPA_EXEC_BLAME_SIZE, k,
				      have ? have : t->size, need);
	if (t->dtype != dtype)
		return npa_exec_blame(a, NPA_EXEC_BLAME_DTYPE, k, t->dtype,
				      dtype);
	for (i = 0; i < NPA_IR_MAX_DIMS; i++) {
		dim = t->dims[i];
		if (act && i && !dim)
			dim = 1;
		if (dim != want[i])
			return npa_exec_blame_dim(a, k, i, dim, want[i]);
	}
	return 0;
}

/* Operand @k, @t, must be the int8 activation [1, @c, @h, @w]. */
static int npa_exec_want_act(struct npa_exec_args *a,
			     const struct npa_ir_tensor *t, u32 k, u64 c,
			     u64 h, u64 w, struct npa_exec_shape *s)
{
	u64 want[NPA_IR_MAX_DIMS] = { 1, c, h, w };
	int ret = npa_exec_want(a, t, k, NPA_IR_INT8, want, true);

	if (!ret)
		npa_exec_act(t, s);
	return ret;
}

/* Operand @k, @t, must be an int8 activation [1, C, H, W] of any size. */
static int npa_exec_act_of(struct npa_exec_args *a,
			   const struct npa_ir_tensor *t, u32 k,
			   struct npa_exec_shape *s)
{
	if (npa_exec_act(t, s))
		return 0;
	if (t->dtype != NPA_IR_INT8)
		return npa_exec_blame(a, NPA_EXEC_BLAME_DTYPE, k, t->dtype,
				      NPA_IR_INT8);
	return npa_exec_blame_dim(a, k, 0, t->dims[0], 1);
}

/*
 * CONV2D, DWCONV2D, MAXPOOL, AVGPOOL.  The input and the params are taken
 * as given; the output must be [1, Cout, OH, OW] with Cout its own for
 * CONV2D and the input's otherwise, then the weights [Cout, C / groups,
 * KH, KW] and the bias [Cout].  A CONV2D's weights say what Cout is: their
 * first dim is taken as given, and an output of another Cout is blamed.
 */
static int npa_exec_check_win(const struct npa_ir_op *op,
			      const struct npa_exec_dl *in,
			      const struct npa_exec_dl *out,
			      struct npa_exec_args *a)
{
	const s32 *p = op->params;
	bool conv = op->kind == NPA_IR_CONV2D || op->kind == NPA_IR_DWCONV2D;
	u64 taps, oh, ow, w[NPA_IR_MAX_DIMS];
	int ret;

	if (out->n != 1 || in->n < 1 || in->n > (conv ? 3 : 1) ||
	    (conv && in->n < 2))
		return -EINVAL;
	ret = npa_exec_act_of(a, npa_dl(in, 0), 0, &a->x);
	if (ret)
		return ret;
	if (!npa_exec_in(p[NPA_IR_P_KH], 1, NPA_EXEC_MAX_WINDOW) ||
	    !npa_exec_in(p[NPA_IR_P_KW], 1, NPA_EXEC_MAX_WINDOW) ||
	    !npa_exec_in(p[NPA_IR_P_SH], 1, NPA_EXEC_MAX_WINDOW) ||
	    !npa_exec_in(p[NPA_IR_P_SW], 1, NPA_EXEC_MAX_WINDOW) ||
	    !npa_exec_in(p[NPA_IR_P_PAD_T], 0, NPA_EXEC_MAX_WINDOW) ||
	    !npa_exec_in(p[NPA_IR_P_PAD_L], 0, NPA_EXEC_MAX_WINDOW) ||
	    !npa_exec_in(p[NPA_IR_P_SHIFT], 0, NPA_EXEC_MAX_SHIFT))
		return -EINVAL;
	a->kh = p[NPA_IR_P_KH];
	a->kw = p[NPA_IR_P_KW];
	a->sh = p[NPA_IR_P_SH];
	a->sw = p[NPA_IR_P_SW];
	a->pt = p[NPA_IR_P_PAD_T];
	a->pl = p[NPA_IR_P_PAD_L];
	a->shift = p[NPA_IR_P_SHIFT];
	ret = npa_exec_act_of(a, npa_dl(out, 0), in->n, &a->y);
	if (ret)
		return ret;
	if (!npa_exec_out_dim(a->x.h, a->kh, a->sh, a->pt, a->y.h, &oh) ||
	    !npa_exec_out_dim(a->x.w, a->kw, a->sw, a->pl, a->y.w, &ow))
		return -EINVAL;
	ret = npa_exec_want_act(a, npa_dl(out, 0), in->n,
				op->kind == NPA_IR_CONV2D ? a->y.c : a->x.c,
				oh, ow, &a->y);
	if (ret)
		return ret;

	switch (op->kind) {
	case NPA_IR_CONV2D:
		if (p[NPA_IR_P_GROUPS] < 0)
			return -EINVAL;
		a->groups = p[NPA_IR_P_GROUPS] ? p[NPA_IR_P_GROUPS] : 1;
		if (a->x.c % a->groups)
			return -EINVAL;
		break;
	case NPA_IR_DWCONV2D:
		if (p[NPA_IR_P_GROUPS] && (u32)p[NPA_IR_P_GROUPS] != a->x.c)
			return -EINVAL;
		a->groups = a->x.c;
		break;
	case NPA_IR_MAXPOOL:
		if (p[NPA_IR_P_SHIFT])
			return -EINVAL;
		fallthrough;
	default:
		if (p[NPA_IR_P_GROUPS])
			return -EINVAL;
		a->groups = a->x.c;
		break;
	}
	a->cg = a->x.c / a->groups;
	a->cog = a->y.c / a->groups;
	taps = (u64)a->kh * a->kw;
	if (check_mul_overflow(taps, (u64)a->cg, &a->k))
		return -EINVAL;
	if (!conv)
		return 0;
	/* A CONV2D's Cout is its weights' (a DWCONV2D's, its input's). */
	w[0] = op->kind == NPA_IR_CONV2D && npa_dl(in, 1)->dims[0] ?
		npa_dl(in, 1)->dims[0] : a->y.c;
	w[1] = a->cg;
	w[2] = a->kh;
	w[3] = a->kw;
	ret = npa_exec_want(a, npa_dl(in, 1), 1, NPA_IR_INT8, w, false);
	if (!ret && w[0] != a->y.c)
		ret = npa_exec_want_act(a, npa_dl(out, 0), in->n, w[0], oh, ow,
					&a->y);
	if (ret)
		return ret;
	if (a->y.c % a->groups)
		return -EINVAL;
	a->bias = in->n == 3;
	w[1] = 0;
	w[2] = 0;
	w[3] = 0;
	if (a->bias)
		return npa_exec_want(a, npa_dl(in, 2), 2, NPA_IR_INT32, w,
				     false);
	return 0;
}

/* The only parameter is NPA_IR_P_SHIFT. */
static bool npa_exec_shift_ok(const struct npa_ir_op *op,
			      struct npa_exec_args *a)
{
	if (!npa_exec_unused(op, NPA_IR_P_SHIFT) ||
	    !npa_exec_in(op->params[NPA_IR_P_SHIFT], 0, NPA_EXEC_MAX_SHIFT))
		return false;
	a->shift = op->params[NPA_IR_P_SHIFT];
	return true;
}

/* FC: the input and output are taken as given, weights and bias must fit. */
static int npa_exec_check_fc(const struct npa_ir_op *op,
			     const struct npa_exec_dl *in,
			     const struct npa_exec_dl *out,
			     struct npa_exec_args *a)
{
	const struct npa_ir_tensor *x, *y;
	u64 w[NPA_IR_MAX_DIMS] = { };
	int ret;

	if (in->n < 2 || in->n > 3 || out->n != 1 || !npa_exec_shift_ok(op, a))
		return -EINVAL;
	x = npa_dl(in, 0);
	y = npa_dl(out, 0);
	a->k = npa_exec_bytes(x);
	a->outs = npa_exec_bytes(y);
	if (!a->k || x->dtype != NPA_IR_INT8)
		return npa_exec_blame(a, NPA_EXEC_BLAME_DTYPE, 0, x->dtype,
				      NPA_IR_INT8);
	if (!a->outs || y->dtype != NPA_IR_INT8)
		return npa_exec_blame(a, NPA_EXEC_BLAME_DTYPE, in->n, y->dtype,
				      NPA_IR_INT8);
	w[0] = a->outs;
	w[1] = a->k;
	ret = npa_exec_want(a, npa_dl(in, 1), 1, NPA_IR_INT8, w, false);
	if (ret)
		return ret;
	a->bias = in->n == 3;
	w[1] = 0;
	if (a->bias)
		return npa_exec_want(a, npa_dl(in, 2), 2, NPA_IR_INT32, w,
				     false);
	return 0;
}

/*
 * ADD, MUL: same shapes or Darknet's shortcut; see npu.rst.  The output
 * must have the first input's shape.
 */
static int npa_exec_check_elt(const struct npa_ir_op *op,
			      const struct npa_exec_dl *in,
			      const struct npa_exec_dl *out,
			      struct npa_exec_args *a)
{
	struct npa_exec_shape *x = &a->x, *b = &a->b;
	int ret;

	if (in->n != 2 || out->n != 1 || !npa_exec_shift_ok(op, a))
		return -EINVAL;
	ret = npa_exec_act_of(a, npa_dl(in, 0), 0, x);
	if (!ret)
		ret = npa_exec_act_of(a, npa_dl(in, 1), 1, b);
	if (!ret)
		ret = npa_exec_want_act(a, npa_dl(out, 0), 2, x->c, x->h,
					x->w, &a->y);
	if (ret)
		return ret;
	a->stride = 1;
	a->sample = 1;
	if (b->h == x->h && b->w == x->w)
		return 0;
	if (b->h > x->h && !(b->h % x->h) && !(b->w % x->w) &&
	    b->h / x->h == b->w / x->w) {
		a->stride = b->h / x->h;
		return 0;
	}
	if (x->h > b->h && !(x->h % b->h) && !(x->w % b->w) &&
	    x->h / b->h == x->w / b->w) {
		a->sample = x->h / b->h;
		return 0;
	}
	if (b->h != x->h)
		return npa_exec_blame_dim(a, 1, 2, b->h, x->h);
	return npa_exec_blame_dim(a, 1, 3, b->w, x->w);
}

/* ACTIVATION: the output has the input's bytes. */
static int npa_exec_check_act(const struct npa_ir_op *op,
			      const struct npa_exec_dl *in,
			      const struct npa_exec_dl *out,
			      struct npa_exec_args *a)
{
	const struct npa_ir_tensor *x, *y;
	u64 n, m;

	if (in->n != 1 || out->n != 1 || !npa_exec_unused(op, NPA_IR_P_ACT) ||
	    !npa_exec_in(op->params[NPA_IR_P_ACT], 0, NPA_IR_ACT_COUNT - 1))
		return -EINVAL;
	x = npa_dl(in, 0);
	y = npa_dl(out, 0);
	n = npa_exec_bytes(x);
	if (!n || (x->dtype != NPA_IR_INT8 && x->dtype != NPA_IR_DTYPE_NONE))
		return npa_exec_blame(a, NPA_EXEC_BLAME_DTYPE, 0, x->dtype,
				      NPA_IR_INT8);
	m = npa_exec_bytes(y);
	if (m != n)
		return npa_exec_blame(a, NPA_EXEC_BLAME_SIZE, 1,
				      m ? m : y->size, n);
	if (y->dtype != NPA_IR_INT8 && y->dtype != NPA_IR_DTYPE_NONE)
		return npa_exec_blame(a, NPA_EXEC_BLAME_DTYPE, 1, y->dtype,
				      NPA_IR_INT8);
	a->act = op->params[NPA_IR_P_ACT];
	a->x.n = n;
	return 0;
}

/* Sum of the sizes of @l's tensors; 0 if one is invalid or on overflow. */
static u64 npa_exec_sum(const struct npa_exec_dl *l)
{
	u64 sum = 0, n;
	u32 i;

	for (i = 0; i < l->n; i++) {
		n = npa_exec_bytes(npa_dl(l, i));
		if (!n || check_add_overflow(sum, n, &sum))
			return 0;
	}
	return sum;
}

/*
 * CONCAT, SPLIT, RESHAPE, COPY move bytes; they define no params (graph
 * validation refuses non-zero ones).
 */
static int npa_exec_check_move(const struct npa_ir_op *op,
			       const struct npa_exec_dl *in,
			       const struct npa_exec_dl *out)
{
	u64 n;

	if (!in->n || !out->n)
		return -EINVAL;
	if ((op->kind == NPA_IR_CONCAT && out->n != 1) ||
	    (op->kind == NPA_IR_SPLIT && in->n != 1) ||
	    ((op->kind == NPA_IR_RESHAPE || op->kind == NPA_IR_COPY) &&
	     (in->n != 1 || out->n != 1)))
		return -EINVAL;
	n = npa_exec_sum(in);
	if (!n || n != npa_exec_sum(out))
		return -EINVAL;
	return 0;
}

/* UPSAMPLE, REORG: the output's shape follows from the input and factor. */
static int npa_exec_check_resize(const struct npa_ir_op *op,
				 const struct npa_exec_dl *in,
				 const struct npa_exec_dl *out,
				 struct npa_exec_args *a)
{
	const struct npa_exec_shape *x = &a->x;
	u64 s;
	int ret;

	if (in->n != 1 || out->n != 1 || !npa_exec_unused(op, NPA_IR_P_STRIDE) ||
	    !npa_exec_in(op->params[NPA_IR_P_STRIDE], 1, NPA_EXEC_MAX_WINDOW))
		return -EINVAL;
	ret = npa_exec_act_of(a, npa_dl(in, 0), 0, &a->x);
	if (ret)
		return ret;
	a->stride = op->params[NPA_IR_P_STRIDE];
	s = a->stride;
	if (op->kind == NPA_IR_UPSAMPLE)
		return npa_exec_want_act(a, npa_dl(out, 0), 1, x->c, x->h * s,
					 x->w * s, &a->y);
	if (x->h % s || x->w % s)
		return -EINVAL;
	return npa_exec_want_act(a, npa_dl(out, 0), 1, x->c * s * s, x->h / s,
				 x->w / s, &a->y);
}

/* Kinds that cannot write their output over their input. */
static bool npa_exec_no_inplace(u32 kind)
{
	switch (kind) {
	case NPA_IR_CONV2D:
	case NPA_IR_DWCONV2D:
	case NPA_IR_MAXPOOL:
	case NPA_IR_AVGPOOL:
	case NPA_IR_FC:
	case NPA_IR_UPSAMPLE:
	case NPA_IR_REORG:
		return true;
	default:
		return false;
	}
}

/* Parses @op into @a; on failure, says why in @fault (if not NULL). */
static int npa_exec_parse_why(const struct npa_ir_op *op,
			      const struct npa_exec_dl *in,
			      const struct npa_exec_dl *out,
			      struct npa_exec_args *a,
			      struct npa_exec_fault *fault)
{
	memset(a, 0, sizeof(*a));
	a->fault = fault;
	/* What is not blamed on an operand is blamed on the params. */
	npa_exec_blame(a, NPA_EXEC_BLAME_PARAMS, 0, 0, 0);
	if ((op->flags & NPA_IR_INPLACE) && npa_exec_no_inplace(op->kind))
		return npa_exec_blame(a, NPA_EXEC_BLAME_FLAGS, 0, op->flags, 0);
	switch (op->kind) {
	case NPA_IR_CONV2D:
	case NPA_IR_DWCONV2D:
	case NPA_IR_MAXPOOL:
	case NPA_IR_AVGPOOL:
		return npa_exec_check_win(op, in, out, a);
	case NPA_IR_FC:
		return npa_exec_check_fc(op, in, out, a);
	case NPA_IR_ADD:
	case NPA_IR_MUL:
		return npa_exec_check_elt(op, in, out, a);
	case NPA_IR_ACTIVATION:
		return npa_exec_check_act(op, in, out, a);
	case NPA_IR_CONCAT:
	case NPA_IR_SPLIT:
	case NPA_IR_RESHAPE:
	case NPA_IR_COPY:
		return npa_exec_check_move(op, in, out);
	case NPA_IR_UPSAMPLE:
	case NPA_IR_REORG:
		return npa_exec_check_resize(op, in, out, a);
	default:
		return -EINVAL;
	}
}

static int npa_exec_parse(const struct npa_ir_op *op,
			  const struct npa_exec_dl *in,
			  const struct npa_exec_dl *out,
			  struct npa_exec_args *a)
{
	return npa_exec_parse_why(op, in, out, a, NULL);
}

/**
 * npa_exec_check_why() - check that an operator can be executed, and say
 *	what is wrong
 * @op: the operator; its kind, flags and params are used.
 * @in: descriptors of its inputs, in operand order.
 * @nin: entries in @in.
 * @out: descriptors of its outputs.
 * @nout: entries in @out.
 * @fault: if not NULL, on failure: what is blamed (the params, the flags
 *	or one operand, with what it is and what it needs).
 *
 * Checks the number of operands, their element types and shapes against
 * each other and the parameters, following the rules of
 * Documentation/npu.rst.  @op->num_inputs and @op->num_outputs are not
 * looked at: @nin and @nout are.  The first input and the params are
 * taken as given and the other operands checked against them, so that a
 * weight tensor of the wrong shape is blamed, not the params.
 *
 * Context: Any context.
 * Return: 0 if npa_exec_op() can run the operator on such tensors, else
 * -EINVAL.
 */
int npa_exec_check_why(const struct npa_ir_op *op,
		       const struct npa_ir_tensor *const *in, u32 nin,
		       const struct npa_ir_tensor *const *out, u32 nout,
		       struct npa_exec_fault *fault)
{
	struct npa_exec_dl ind = { .d = in, .n = nin };
	struct npa_exec_dl outd = { .d = out, .n = nout };
	struct npa_exec_args a;

	return npa_exec_parse_why(op, &ind, &outd, &a, fault);
}
EXPORT_SYMBOL_IF_KUNIT(npa_exec_check_why);

/**
 * npa_exec_check() - check that an operator can be executed
 * @op: the operator.
 * @in: descriptors of its inputs, in operand order.
 * @nin: entries in @in.
 * @out: descriptors of its outputs.
 * @nout: entries in @out.
 *
 * npa_exec_check_why() without saying why.
 *
 * Context: Any context.
 * Return: 0 if npa_exec_op() can run the operator on such tensors, else
 * -EINVAL.
 */
int npa_exec_check(const struct npa_ir_op *op,
		   const struct npa_ir_tensor *const *in, u32 nin,
		   const struct npa_ir_tensor *const *out, u32 nout)
{
	return npa_exec_check_why(op, in, nin, out, nout, NULL);
}
EXPORT_SYMBOL_IF_KUNIT(npa_exec_check);

static s8 npa_exec_sat(s64 v)
{
	return clamp_t(s64, v, -128, 127);
}

/* The int8 result of an accumulator: an arithmetic (floor) shift. */
static s8 npa_exec_requant(s64 acc, u32 shift)
{
	return npa_exec_sat(acc >> shift);
}

/* Bias @i: int32 in CPU byte order, possibly unaligned. */
static s64 npa_exec_bias(const void *bias, u64 i)
{
	s32 v;

	if (!bias)
		return 0;
	memcpy(&v, (const u8 *)bias + i * sizeof(v), sizeof(v));
	return v;
}

/*
 * Count @work units (multiply-adds, taps or bytes) done; every
 * %NPA_EXEC_STOP_WORK of them, yield and ask the stop hook.  True once the
 * op must stop.
 */
static bool npa_exec_tick(const struct npa_exec_args *a, u64 work)
{
	struct npa_exec_meter *m = a->meter;

	m->work += work;
	if (m->work < NPA_EXEC_STOP_WORK)
		return m->stopped;
	m->work = 0;
	cond_resched();
	if (m->stop && m->stop->stop(m->stop->priv))
		m->stopped = true;
	return m->stopped;
}

/* Sum of @w[i] * @x[i * @step] for i in [0, @n). */
static s64 npa_exec_dot(const s8 *w, const s8 *x, u64 step, u64 n)
{
	s64 acc = 0;
	u64 i;

	for (i = 0; i < n; i++)
		acc += w[i] * x[i * step];
	return acc;
}

/* Four dot products at once: weight rows @w + j * @n, j in [0, 4). */
static void npa_exec_dot4(const s8 *w, const s8 *x, u64 step, u64 n,
			  s64 *acc)
{
	const s8 *w1 = w + n, *w2 = w1 + n, *w3 = w2 + n;
	s64 a0 = 0, a1 = 0, a2 = 0, a3 = 0;
	u64 i;
	int v;

	for (i = 0; i < n; i++) {
		v = x[i * step];
		a0 += w[i] * v;
		a1 += w1[i] * v;
		a2 += w2[i] * v;
		a3 += w3[i] * v;
	}
	acc[0] += a0;
	acc[1] += a1;
	acc[2] += a2;
	acc[3] += a3;
}

/* Accumulator entry @t: in the accumulator scratch, else in @reg. */
static s64 npa_exec_acc_get(const struct npa_exec_args *a, const s64 *reg,
			    u32 t)
{
	s64 v;

	if (!a->acc)
		return reg[t];
	memcpy(&v, a->acc + (u64)t * sizeof(v), sizeof(v));
	return v;
}

static void npa_exec_acc_set(const struct npa_exec_args *a, s64 *reg, u32 t,
			     s64 v)
{
	if (!a->acc)
		reg[t] = v;
	else
		memcpy(a->acc + (u64)t * sizeof(v), &v, sizeof(v));
}

static u32 npa_exec_acc_cap(const struct npa_exec_args *a)
{
	return a->acc ? a->acc_n : NPA_EXEC_REGS;
}

/*
 * Output channels [@c0, @c1) of one output pixel, @y[c * @ystride] for
 * channel c, from the a->k taps at @x[i * @step] and the weight rows @w
 * (row 0 is channel @c0's).  The sums are kept in the accumulator, as many
 * channels at a time as it holds: set to the bias, added to, requantized.
 */
static void npa_exec_dots(const struct npa_exec_args *a, const s8 *w,
			  const void *bias, u64 c0, u64 c1, const s8 *x,
			  u64 step, s8 *y, u64 ystride)
{
	u64 c, n;
	u32 t, u;
	s64 reg[NPA_EXEC_REGS], s[4];

	for (c = c0; c < c1; c += n) {
		n = min_t(u64, c1 - c, npa_exec_acc_cap(a));
		for (t = 0; t < n; t++)
			npa_exec_acc_set(a, reg, t, npa_exec_bias(bias, c + t));
		for (t = 0; t + 4 <= n; t += 4) {
			memset(s, 0, sizeof(s));
			npa_exec_dot4(w + (c + t - c0) * a->k, x, step,
				      a->k, s);
			for (u = 0; u < 4; u++)
				npa_exec_acc_set(a, reg, t + u,
						 npa_exec_acc_get(a, reg, t + u) + s[u]);
		}
		for (; t < n; t++)
			npa_exec_acc_set(a, reg, t, npa_exec_acc_get(a, reg, t) +
					 npa_exec_dot(w + (c + t - c0) * a->k,
						      x, step, a->k));
		for (t = 0; t < n; t++)
			y[(c + t) * ystride] =
				npa_exec_requant(npa_exec_acc_get(a, reg, t), a->shift);
	}
}

/*
 * Weight rows [@c0, @c1) of a->k bytes each, where the kernel reads them:
 * copied into the weight staging scratch when the op has one, else in
 * place in @wt.
 */
static const s8 *npa_exec_stage(const struct npa_exec_args *a, const s8 *wt,
				u64 c0, u64 c1)
{
	u64 n = (c1 - c0) * a->k;

	if (!a->stage)
		return wt + c0 * a->k;
	memcpy(a->stage, wt + c0 * a->k, n);
	/* A stop request is seen at the next tick that computes. */
	npa_exec_tick(a, n);
	return a->stage;
}

/* Weight rows per staging chunk, out of @rows. */
static u64 npa_exec_chunk(const struct npa_exec_args *a, u64 rows)
{
	return a->stage ? min(a->stage_rows, rows) : rows;
}

/* Taps [*lo, *hi) of a @k wide window starting at @start inside [0, @n). */
static void npa_exec_taps(s64 start, u32 k, u32 n, u32 *lo, u32 *hi)
{
	s64 l = start < 0 ? -start : 0;
	s64 h = (s64)n - start;

	l = min_t(s64, l, k);
	h = clamp_t(s64, h, l, k);
	*lo = l;
	*hi = h;
}

/* The a->k im2col bytes of output pixel (@oy, @ox) of group @g. */
static void npa_exec_patch(const struct npa_exec_args *a, const s8 *x,
			   u32 g, u32 oy, u32 ox, s8 *col)
{
	u64 plane = (u64)a->x.h * a->x.w;
	u32 ci, ky, ky0, ky1, kx0, kx1;
	s64 iy0 = (s64)oy * a->sh - a->pt, ix0 = (s64)ox * a->sw - a->pl;

	npa_exec_taps(iy0, a->kh, a->x.h, &ky0, &ky1);
	npa_exec_taps(ix0, a->kw, a->x.w, &kx0, &kx1);
	for (ci = 0; ci < a->cg; ci++) {
		const s8 *xc = x + ((u64)g * a->cg + ci) * plane;

		for (ky = 0; ky < a->kh; ky++, col += a->kw) {
			const s8 *xr;

			if (ky < ky0 || ky >= ky1 || kx0 == kx1) {
				memset(col, 0, a->kw);
				continue;
			}
			xr = xc + (iy0 + ky) * a->x.w;
			memset(col, 0, kx0);
			memcpy(col + kx0, xr + ix0 + kx0, kx1 - kx0);
			memset(col + kx1, 0, a->kw - kx1);
		}
	}
}

/*
 * The im2col patches of output pixels [@p0, @p0 + @n) of group @g, a->k
 * bytes each in the weights' order (ci, ky, kx) with zeros for the
 * padding, written to @col.
 */
static int npa_exec_gather(const struct npa_exec_args *a, const s8 *x, u32 g,
			   u64 p0, u64 n, s8 *col)
{
	u64 p;

	for (p = 0; p < n; p++) {
		npa_exec_patch(a, x, g, (p0 + p) / a->y.w, (p0 + p) % a->y.w,
			       col + p * a->k);
		if (npa_exec_tick(a, a->k))
			return -ECANCELED;
		if (!((p + 1) % a->y.w))
			cond_resched();
	}
	return 0;
}

/*
 * Output channels [@c0, @c1) of output pixels [@p0, @p0 + @n), from their
 * patches in @col and their weight rows @w (row 0 is channel @c0's).
 */
static int npa_exec_tile(const struct npa_exec_args *a, const s8 *w,
			 const void *bias, u32 c0, u32 c1, u64 p0, u64 n,
			 const s8 *col, s8 *y)
{
	u64 plane = (u64)a->y.h * a->y.w, p;

	for (p = 0; p < n; p++) {
		npa_exec_dots(a, w, bias, c0, c1, col + p * a->k, 1,
			      y + p0 + p, plane);
		if (npa_exec_tick(a, (u64)(c1 - c0) * a->k))
			return -ECANCELED;
		if (!((p + 1) % a->y.w))
			cond_resched();
	}
	return 0;
}

/*
 * Group @g through im2col in tiles of @tile output pixels, the weights a
 * staging chunk of output channels at a time, in the loop order
 * npa_exec_weight_stationary() picks: for each tile, its patches written
 * to @col once and every chunk staged (once for the whole group when its
 * filters all fit); or for each chunk, staged once and every tile's
 * patches written again.
 */
static int npa_exec_conv_col(const struct npa_exec_args *a, const s8 *x,
			     const s8 *wt, const void *bias, u32 g, u64 tile,
			     s8 *col, s8 *y)
{
	u64 pixels = (u64)a->y.h * a->y.w, chunk = npa_exec_chunk(a, a->cog);
	u32 first = g * a->cog, last = first + a->cog, c0, c1;
	const s8 *w = NULL;
	u64 p, n;
	int ret;

	if (npa_exec_weight_stationary(pixels, tile, a->cog, chunk)) {
		for (c0 = first; c0 < last; c0 = c1) {
			c1 = c0 + min_t(u64, chunk, last - c0);
			w = npa_exec_stage(a, wt, c0, c1);
			for (p = 0; p < pixels; p += n) {
				n = min(tile, pixels - p);
				ret = npa_exec_gather(a, x, g, p, n, col);
				ret = ret ?: npa_exec_tile(a, w, bias, c0, c1,
							   p, n, col, y);
				if (ret)
					return ret;
			}
		}
		return 0;
	}
	/* The group's filters staged once when they all fit. */
	if (chunk == a->cog)
		w = npa_exec_stage(a, wt, first, last);
	for (p = 0; p < pixels; p += n) {
		n = min(tile, pixels - p);
		ret = npa_exec_gather(a, x, g, p, n, col);
		if (ret)
			return ret;
		for (c0 = first; c0 < last; c0 = c1) {
			c1 = c0 + min_t(u64, chunk, last - c0);
			ret = npa_exec_tile(a, w ?: npa_exec_stage(a, wt, c0, c1),
					    bias, c0, c1, p, n, col, y);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * A 1x1 kernel, stride 1, no padding: the taps are a column of @x.  Output
 * channels [@c0, @c1) of group @g, from their weight rows @w.
 */
static int npa_exec_conv1x1(const struct npa_exec_args *a, const s8 *x,
			    const s8 *w, const void *bias, u32 g, u32 c0,
			    u32 c1, s8 *y)
{
	u64 plane = (u64)a->x.h * a->x.w, p;
	const s8 *xg = x + (u64)g * a->cg * plane;

	for (p = 0; p < plane; p++) {
		npa_exec_dots(a, w, bias, c0, c1, xg + p, plane, y + p, plane);
		if (npa_exec_tick(a, (u64)(c1 - c0) * a->cg))
			return -ECANCELED;
		if (!((p + 1) % a->y.w))
			cond_resched();
	}
	return 0;
}

/*
 * Output row @oy of group @g, straight from the input: output channels
 * [@c0, @c1), from their weight rows @w.
 */
static int npa_exec_conv_row(const struct npa_exec_args *a, const s8 *x,
			     const s8 *w, const void *bias, u32 g, u32 c0,
			     u32 c1, u32 oy, s8 *y)
{
	u64 plane = (u64)a->x.h * a->x.w, oplane = (u64)a->y.h * a->y.w;
	u32 cap = npa_exec_acc_cap(a), ox, co, ci, ky, kx, ky0, ky1, kx0, kx1, t;
	s64 iy0, ix0, sum, reg[NPA_EXEC_REGS];
	u64 taps;

	iy0 = (s64)oy * a->sh - a->pt;
	npa_exec_taps(iy0, a->kh, a->x.h, &ky0, &ky1);
	for (ox = 0; ox < a->y.w; ox++) {
		ix0 = (s64)ox * a->sw - a->pl;
		npa_exec_taps(ix0, a->kw, a->x.w, &kx0, &kx1);
		/* A window all in the padding is the bias alone. */
		taps = (u64)(ky1 - ky0) * (kx1 - kx0);
		for (co = c0; co < c1; co++) {
			t = (co - c0) % cap;
			npa_exec_acc_set(a, reg, t, npa_exec_bias(bias, co));
			for (ci = 0; taps && ci < a->cg; ci++) {
				const s8 *xc = x + ((u64)g * a->cg + ci) * plane;
				const s8 *wc = w + ((u64)(co - c0) * a->cg + ci) *
					       a->kh * a->kw;

				sum = 0;
				for (ky = ky0; ky < ky1; ky++) {
					const s8 *xr = xc + (iy0 + ky) * a->x.w;
					const s8 *wr = wc + ky * a->kw;

					for (kx = kx0; kx < kx1; kx++)
						sum += wr[kx] * xr[ix0 + kx];
				}
				npa_exec_acc_set(a, reg, t,
						 npa_exec_acc_get(a, reg, t) + sum);
			}
			y[co * oplane + (u64)oy * a->y.w + ox] =
				npa_exec_requant(npa_exec_acc_get(a, reg, t),
						 a->shift);
		}
		/*
		 * Every loop counted: a row of pixels all in the padding
		 * (taps 0) must reach the stop hook too.
		 */
		if (npa_exec_tick(a, (u64)(c1 - c0) * (a->cg * taps + 1)))
			return -ECANCELED;
	}
	return 0;
}

/*
 * CONV2D, DWCONV2D; @col is scratch[0] (or NULL) of @col_size bytes.  The
 * weights go through the staging scratch a chunk of output channels at a
 * time.
 */
static int npa_exec_conv(const struct npa_exec_args *a, const s8 *x,
			 const s8 *wt, const void *bias, s8 *y, s8 *col,
			 u64 col_size)
{
	u64 pixels = (u64)a->y.h * a->y.w, tile = 0;
	u32 g, oy, first, last, c0, c1;
	const s8 *w;
	int ret;

	if ((a->kh * a->kw > 1 || a->sh > 1 || a->sw > 1) && col)
		tile = min(col_size / a->k, pixels);

	for (g = 0; g < a->groups; g++) {
		if (tile) {
			ret = npa_exec_conv_col(a, x, wt, bias, g, tile, col, y);
			if (ret)
				return ret;
			continue;
		}
		first = g * a->cog;
		last = first + a->cog;
		for (c0 = first; c0 < last; c0 = c1) {
			c1 = c0 + npa_exec_chunk(a, last - c0);
			w = npa_exec_stage(a, wt, c0, c1);
			if (a->k == a->cg && a->sh == 1 && a->sw == 1 && !a->pt &&
			    !a->pl && a->y.h == a->x.h && a->y.w == a->x.w) {
				ret = npa_exec_conv1x1(a, x, w, bias, g, c0, c1, y);
				if (ret)
					return ret;
				continue;
			}
			for (oy = 0; oy < a->y.h; oy++) {
				ret = npa_exec_conv_row(a, x, w, bias, g, c0, c1,
							oy, y);
				if (ret)
					return ret;
				cond_resched();
			}
		}
	}
	return 0;
}

/* Rounded mean: floor((sum + d / 2) / d). */
static s8 npa_exec_mean(s64 sum, u64 d)
{
	s64 num = sum + (s64)(d / 2);

	if (num >= 0)
		return npa_exec_sat(num / d);
	return npa_exec_sat(-(s64)(((u64)-num + d - 1) / d));
}

static int npa_exec_pool(const struct npa_exec_args *a, bool avg,
			 const s8 *x, s8 *y)
{
	u64 plane = (u64)a->x.h * a->x.w;
	u64 d = ((u64)a->kh * a->kw) << a->shift;
	u32 c, oy, ox, ky, kx, ky0, ky1, kx0, kx1;
	s64 iy0, ix0, sum;
	int m;

	for (c = 0; c < a->x.c; c++) {
		const s8 *xc = x + c * plane;

		for (oy = 0; oy < a->y.h; oy++) {
			iy0 = (s64)oy * a->sh - a->pt;
			npa_exec_taps(iy0, a->kh, a->x.h, &ky0, &ky1);
			for (ox = 0; ox < a->y.w; ox++) {
				ix0 = (s64)ox * a->sw - a->pl;
				npa_exec_taps(ix0, a->kw, a->x.w, &kx0, &kx1);
				/* Padding is -128 for max, 0 for the sum. */
				sum = 0;
				m = -128;
				for (ky = ky0; kx0 < kx1 && ky < ky1; ky++) {
					const s8 *xr = xc + (iy0 + ky) * a->x.w;

					for (kx = kx0; kx < kx1; kx++) {
						sum += xr[ix0 + kx];
						m = max_t(int, m, xr[ix0 + kx]);
					}
				}
				*y++ = avg ? npa_exec_mean(sum, d) : m;
				if (npa_exec_tick(a, (u64)(ky1 - ky0) *
						  (kx1 - kx0) + 1))
					return -ECANCELED;
			}
			cond_resched();
		}
	}
	return 0;
}

static int npa_exec_fc(const struct npa_exec_args *a, const s8 *x,
		       const s8 *wt, const void *bias, s8 *y)
{
	u64 o0, o1, o;
	const s8 *w;

	for (o0 = 0; o0 < a->outs; o0 = o1) {
		o1 = o0 + npa_exec_chunk(a, a->outs - o0);
		w = npa_exec_stage(a, wt, o0, o1);
		for (o = o0; o < o1; o++) {
			npa_exec_dots(a, w + (o - o0) * a->k, bias, o, o + 1, x,
				      1, y + o, 0);
			if (npa_exec_tick(a, a->k))
				return -ECANCELED;
			cond_resched();
		}
	}
	return 0;
}

/*
 * Copy @n bytes unless they are already there, in pieces of
 * %NPA_EXEC_STOP_WORK bytes that each count as that much work: a copy of
 * gigabytes stops part way like any other operator. When the ranges
 * overlap, the pieces go in the direction memmove() would.
 */
static int npa_exec_move(const struct npa_exec_args *a, void *dst,
			 const void *src, u64 n)
{
	bool down = (uintptr_t)dst > (uintptr_t)src;
	u64 done, k;

	if (dst == src)
		return 0;
	for (done = 0; done < n; done += k) {
		u64 at;

		k = min_t(u64, n - done, NPA_EXEC_STOP_WORK);
		at = down ? n - done - k : done;
		memmove((u8 *)dst + at, (const u8 *)src + at, k);
		if (npa_exec_tick(a, k))
			return -ECANCELED;
	}
	return 0;
}

static s8 npa_exec_elt1(bool mul, int a, int b, u32 shift)
{
	return npa_exec_sat((mul ? a * b : a + b) >> shift);
}

static int npa_exec_elt(const struct npa_exec_args *a, bool mul,
			const s8 *x, const s8 *b, s8 *y)
{
	u64 plane = (u64)a->x.h * a->x.w, bplane = (u64)a->b.h * a->b.w, i;
	u32 minc = min(a->x.c, a->b.c), c, r, col;
	u32 minh = min(a->x.h, a->b.h), minw = min(a->x.w, a->b.w);

	if (a->stride == 1 && a->sample == 1) {
		/* Element by element: @y may be @x or @b itself. */
		for (c = 0; c < a->x.c; c++) {
			u64 base = c * plane;

			if (c >= minc) {
				if (npa_exec_move(a, y + base, x + base, plane))
					return -ECANCELED;
				continue;
			}
			for (i = base; i < base + plane; i++)
				y[i] = npa_exec_elt1(mul, x[i], b[i], a->shift);
			if (npa_exec_tick(a, plane))
				return -ECANCELED;
		}
		return 0;
	}
	if (npa_exec_move(a, y, x, a->x.n))
		return -ECANCELED;
	for (c = 0; c < minc; c++) {
		for (r = 0; r < minh; r++) {
			s8 *yr = y + c * plane + (u64)r * a->sample * a->x.w;
			const s8 *br = b + c * bplane + (u64)r * a->stride * a->b.w;

			for (col = 0; col < minw; col++) {
				s8 *o = &yr[(u64)col * a->sample];

				*o = npa_exec_elt1(mul, *o, br[(u64)col * a->stride],
						   a->shift);
			}
		}
		if (npa_exec_tick(a, (u64)minh * minw))
			return -ECANCELED;
	}
	return 0;
}

static s8 npa_exec_act1(u32 act, s8 v)
{
	switch (act) {
	case NPA_IR_ACT_RELU:
		return v < 0 ? 0 : v;
	case NPA_IR_ACT_LEAKY:
		return v < 0 ? v >> 3 : v;
	case NPA_IR_ACT_LOGISTIC:
		return npa_exec_logistic[v + 128];
	default:
		return v;
	}
}

static int npa_exec_activation(const struct npa_exec_args *a, const s8 *x,
			       s8 *y)
{
	u64 i;

	if (a->act == NPA_IR_ACT_LINEAR)
		return npa_exec_move(a, y, x, a->x.n);
	for (i = 0; i < a->x.n; i++) {
		y[i] = npa_exec_act1(a->act, x[i]);
		if (!((i + 1) & 0xffff) && npa_exec_tick(a, 0x10000))
			return -ECANCELED;
	}
	return 0;
}

static int npa_exec_upsample(const struct npa_exec_args *a, const s8 *x,
			     s8 *y)
{
	u32 s = a->stride, c, r, col, k;
	u64 ow = a->y.w;

	if (s == 1)
		return npa_exec_move(a, y, x, a->x.n);
	for (c = 0; c < a->x.c; c++) {
		for (r = 0; r < a->x.h; r++, x += a->x.w) {
			s8 *yr = y + ((u64)c * a->y.h + (u64)r * s) * ow;

			for (col = 0; col < a->x.w; col++)
				memset(yr + (u64)col * s, x[col], s);
			for (k = 1; k < s; k++)
				memcpy(yr + k * ow, yr, ow);
		}
		if (npa_exec_tick(a, (u64)a->y.h * ow))
			return -ECANCELED;
	}
	return 0;
}

/* y[(dy * s + dx) * C + c][oy][ox] = x[c][oy * s + dy][ox * s + dx] */
static int npa_exec_reorg(const struct npa_exec_args *a, const s8 *x, s8 *y)
{
	u32 s = a->stride, c, dy, dx, oy, ox;
	u64 plane = (u64)a->y.h * a->y.w;

	for (c = 0; c < a->x.c; c++) {
		const s8 *xc = x + (u64)c * a->x.h * a->x.w;

		for (dy = 0; dy < s; dy++) {
			for (dx = 0; dx < s; dx++) {
				s8 *yc = y + ((u64)(dy * s + dx) * a->x.c + c) * plane;

				for (oy = 0; oy < a->y.h; oy++) {
					const s8 *xr = xc + ((u64)oy * s + dy) * a->x.w + dx;

					for (ox = 0; ox < a->y.w; ox++)
						*yc++ = xr[(u64)ox * s];
				}
			}
		}
		if (npa_exec_tick(a, (u64)a->x.h * a->x.w))
			return -ECANCELED;
	}
	return 0;
}

/* Every operand is as large as its descriptor says, or larger. */
static int npa_exec_sized(const struct npa_exec_operand *o, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		if (o[i].size < npa_exec_bytes(o[i].desc) || !o[i].ptr)
			return -ERANGE;
	}
	return 0;
}

/* @a * @b, U64_MAX when it does not fit. */
static u64 npa_exec_mul_sat(u64 a, u64 b)
{
	u64 r;

	return check_mul_overflow(a, b, &r) ? U64_MAX : r;
}

/**
 * npa_exec_weight_stationary() - the loop order of a convolution through
 *	im2col
 * @pixels: output pixels per group.
 * @tile: output pixels per im2col tile, 1 to @pixels.
 * @filters: output channels (filters) per group.
 * @chunk: filters per weight staging chunk, 1 to @filters (@filters
 *	without weight staging).
 *
 * Input-stationary: for each tile, its patches are written to im2col once
 * and every chunk of filters is staged again (unless one chunk holds them
 * all).  Weight-stationary: for each chunk, staged once, every tile's
 * patches are written again (unless one tile holds them all).  Each
 * output channel's sum is complete within a chunk of whole filters, so
 * both give the same bytes; they move different ones: the first copies
 * the weights (tiles - 1) more times, the second gathers the patches
 * (chunks - 1) more times, k bytes per filter or patch both.  The order
 * that moves fewer is taken, input-stationary on a tie, and the cost
 * model charges what this picks (Documentation/npu.rst, "Scratch").
 *
 * Context: Any context.
 * Return: true for weight-stationary.
 */
bool npa_exec_weight_stationary(u64 pixels, u64 tile, u64 filters,
				u64 chunk)
{
	u64 tiles, chunks;

	if (!tile || !chunk || tile >= pixels || chunk >= filters)
		return false;
	tiles = div64_u64(pixels - 1, tile) + 1;
	chunks = div64_u64(filters - 1, chunk) + 1;
	return npa_exec_mul_sat(tiles - 1, filters) >
	       npa_exec_mul_sat(chunks - 1, pixels);
}
EXPORT_SYMBOL_IF_KUNIT(npa_exec_weight_stationary);

/**
 * npa_exec_roles() - what each scratch buffer of an operator is used for
 * @op: the operator.
 * @im2col: a CONV2D or DWCONV2D whose kernel is not 1x1 or whose stride is
 *	not 1 (npa_exec_im2col_bytes() gives a size).
 * @nscratch: its scratch buffers.
 * @r: out: their indexes, %NPA_EXEC_NO_SCRATCH for none.
 *
 * CONV2D, DWCONV2D and FC only: scratch[0] is the im2col buffer of a
 * convolution through im2col; of the buffers after it, the last is the
 * accumulator and the one before it, if any, the weight staging buffer
 * (Documentation/npu.rst, "Scratch").
 *
 * Context: Any context.
 */
void npa_exec_roles(const struct npa_ir_op *op, bool im2col, u32 nscratch,
		    struct npa_exec_roles *r)
{
	u32 first = 0;

	r->col = NPA_EXEC_NO_SCRATCH;
	r->stage = NPA_EXEC_NO_SCRATCH;
	r->acc = NPA_EXEC_NO_SCRATCH;
	switch (op->kind) {
	case NPA_IR_CONV2D:
	case NPA_IR_DWCONV2D:
		if (im2col && nscratch) {
			r->col = 0;
			first = 1;
		}
		break;
	case NPA_IR_FC:
		break;
	default:
		return;
	}
	if (nscratch > first)
		r->acc = nscratch - 1;
	if (nscratch > first + 1)
		r->stage = nscratch - 2;
}
EXPORT_SYMBOL_IF_KUNIT(npa_exec_roles);

/**
 * npa_exec_run() - run one operator unless told to stop
 * @op: the operator.
 * @in: its inputs, in operand order, each with its descriptor.
 * @nin: entries in @in.
 * @out: its outputs.
 * @nout: entries in @out.
 * @scratch: its scratch buffers (descriptors unused), or NULL.
 * @nscratch: entries in @scratch.
 * @stop: asked about every %NPA_EXEC_STOP_WORK units of work whether to
 *	give up; NULL to run to the end.
 *
 * Checks the operator as npa_exec_check() does and every operand's size
 * against its descriptor, then computes the outputs.  Only the bytes
 * [ptr, ptr + size) of each operand are accessed.  Inputs and outputs may
 * share memory as the planner shares it (see Documentation/npu.rst);
 * other overlaps, including scratch that overlaps a tensor, give wrong
 * results but no access outside the operands.
 *
 * Context: Process context; may sleep (calls cond_resched() and @stop).
 * Return: 0 on success, -EINVAL if the operator fails npa_exec_check(),
 * -ERANGE if an operand is smaller than its descriptor or has no memory,
 * -ECANCELED if @stop said to stop (the outputs are partly written).
 */
int npa_exec_run(const struct npa_ir_op *op,
		 const struct npa_exec_operand *in, u32 nin,
		 const struct npa_exec_operand *out, u32 nout,
		 const struct npa_exec_operand *scratch, u32 nscratch,
		 const struct npa_exec_stop *stop)
{
	struct npa_exec_dl ind = { .o = in, .n = nin };
	struct npa_exec_dl outd = { .o = out, .n = nout };
	struct npa_exec_meter meter = { .stop = stop };
	struct npa_exec_roles roles;
	const void *bias = NULL;
	struct npa_exec_args a;
	s8 *col = NULL;
	u64 col_size = 0, off;
	u32 i;
	int ret;

	ret = npa_exec_parse(op, &ind, &outd, &a);
	if (ret)
		return ret;
	a.meter = &meter;
	ret = npa_exec_sized(in, nin);
	if (!ret)
		ret = npa_exec_sized(out, nout);
	if (ret)
		return ret;
	if (!scratch)
		nscratch = 0;
	npa_exec_roles(op, a.kh * a.kw > 1 || a.sh > 1 || a.sw > 1, nscratch,
		       &roles);
	if (roles.col < nscratch && scratch[roles.col].ptr) {
		col = scratch[roles.col].ptr;
		col_size = scratch[roles.col].size;
	}
	if (roles.stage < nscratch && scratch[roles.stage].ptr &&
	    scratch[roles.stage].size >= a.k) {
		a.stage = scratch[roles.stage].ptr;
		a.stage_rows = div64_u64(scratch[roles.stage].size, a.k);
	}
	if (roles.acc < nscratch && scratch[roles.acc].ptr &&
	    scratch[roles.acc].size >= sizeof(s64)) {
		a.acc = scratch[roles.acc].ptr;
		a.acc_n = min_t(u64, scratch[roles.acc].size / sizeof(s64),
				U32_MAX);
	}
	if (a.bias)
		bias = in[2].ptr;

	switch (op->kind) {
	case NPA_IR_CONV2D:
	case NPA_IR_DWCONV2D:
		return npa_exec_conv(&a, in[0].ptr, in[1].ptr, bias, out[0].ptr,
				     col, col_size);
	case NPA_IR_MAXPOOL:
	case NPA_IR_AVGPOOL:
		return npa_exec_pool(&a, op->kind == NPA_IR_AVGPOOL, in[0].ptr,
				     out[0].ptr);
	case NPA_IR_FC:
		return npa_exec_fc(&a, in[0].ptr, in[1].ptr, bias, out[0].ptr);
	case NPA_IR_ADD:
	case NPA_IR_MUL:
		return npa_exec_elt(&a, op->kind == NPA_IR_MUL, in[0].ptr,
				    in[1].ptr, out[0].ptr);
	case NPA_IR_ACTIVATION:
		return npa_exec_activation(&a, in[0].ptr, out[0].ptr);
	case NPA_IR_CONCAT:
		for (i = 0, off = 0; i < nin; i++) {
			u64 n = npa_exec_bytes(in[i].desc);

			if (npa_exec_move(&a, (u8 *)out[0].ptr + off, in[i].ptr,
					  n))
				return -ECANCELED;
			off += n;
		}
		break;
	case NPA_IR_SPLIT:
		for (i = 0, off = 0; i < nout; i++) {
			u64 n = npa_exec_bytes(out[i].desc);

			if (npa_exec_move(&a, out[i].ptr, (u8 *)in[0].ptr + off,
					  n))
				return -ECANCELED;
			off += n;
		}
		break;
	case NPA_IR_RESHAPE:
	case NPA_IR_COPY:
		return npa_exec_move(&a, out[0].ptr, in[0].ptr,
				     npa_exec_bytes(in[0].desc));
	case NPA_IR_UPSAMPLE:
		return npa_exec_upsample(&a, in[0].ptr, out[0].ptr);
	case NPA_IR_REORG:
		return npa_exec_reorg(&a, in[0].ptr, out[0].ptr);
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(npa_exec_run);

/**
 * npa_exec_op() - run one operator to the end
 * @op: the operator.
 * @in: its inputs, in operand order, each with its descriptor.
 * @nin: entries in @in.
 * @out: its outputs.
 * @nout: entries in @out.
 * @scratch: its scratch buffers (descriptors unused), or NULL.
 * @nscratch: entries in @scratch.
 *
 * npa_exec_run() without a stop hook.
 *
 * Context: Process context; may sleep (calls cond_resched()).
 * Return: as npa_exec_run(), never -ECANCELED.
 */
int npa_exec_op(const struct npa_ir_op *op,
		const struct npa_exec_operand *in, u32 nin,
		const struct npa_exec_operand *out, u32 nout,
		const struct npa_exec_operand *scratch, u32 nscratch)
{
	return npa_exec_run(op, in, nin, out, nout, scratch, nscratch, NULL);
}
EXPORT_SYMBOL_IF_KUNIT(npa_exec_op);

/**
 * npa_exec_im2col_bytes() - the im2col scratch a convolution can use
 * @op: a CONV2D or DWCONV2D operator.
 * @x: its input.
 * @y: its output.
 * @full: out: bytes of the whole im2col buffer, 0 if the op does not use
 *	one (a 1x1 kernel with stride 1, or another kind).
 * @pixel: out: bytes for one output pixel: npa_exec_op() uses scratch[0]
 *	in tiles of whole pixels, so this is the least it uses.
 *
 * A front end requests scratch[0] of @full bytes, or a variable request
 * from a multiple of @pixel (one output row: @pixel times the output
 * width) to @full bytes.
 *
 * Context: Any context.
 */
void npa_exec_im2col_bytes(const struct npa_ir_op *op,
			   const struct npa_ir_tensor *x,
			   const struct npa_ir_tensor *y,
			   u64 *full, u64 *pixel)
{
	const s32 *p = op->params;
	struct npa_exec_shape xs, ys;
	u64 g = 1;

	*full = 0;
	*pixel = 0;
	if ((op->kind != NPA_IR_CONV2D && op->kind != NPA_IR_DWCONV2D) ||
	    !npa_exec_act(x, &xs) || !npa_exec_act(y, &ys))
		return;
	if (p[NPA_IR_P_KH] < 1 || p[NPA_IR_P_KW] < 1 || p[NPA_IR_P_SH] < 1 ||
	    p[NPA_IR_P_SW] < 1 || p[NPA_IR_P_GROUPS] < 0)
		return;
	if ((u64)p[NPA_IR_P_KH] * p[NPA_IR_P_KW] == 1 && p[NPA_IR_P_SH] == 1 &&
	    p[NPA_IR_P_SW] == 1)
		return;
	if (op->kind == NPA_IR_DWCONV2D)
		g = xs.c;
	else if (p[NPA_IR_P_GROUPS])
		g = p[NPA_IR_P_GROUPS];
	*pixel = (u64)p[NPA_IR_P_KH] * p[NPA_IR_P_KW] * (xs.c / g);
	if (check_mul_overflow(*pixel, (u64)ys.h * ys.w, full)) {
		*full = 0;
		*pixel = 0;
	}
}
EXPORT_SYMBOL_IF_KUNIT(npa_exec_im2col_bytes);
