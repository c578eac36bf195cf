// SPDX-License-Identifier: GPL-2.0
/*
 * npa: what the simulated NPU can execute.
 */

/**
 * DOC: operator checks
 *
 * npa_exec_check() checks that an operator's shapes and parameters make
 * sense, following the rules of Documentation/npu.rst: graph validation
 * calls it, and npa_exec_run() calls it again before it touches any
 * memory.  npa_exec_check_why() also says what it refused: the op's first
 * input and its params are taken as given and the other operands checked
 * against them, so that the operand that does not fit is blamed.  It
 * leaves the op's shapes and parameters in &struct npa_exec_args for the
 * kernels (npa_exec_parse()).
 */

#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/string.h>

#include "npa_exec_int.h"

static const u8 npa_exec_elem[NPA_IR_DTYPE_COUNT] = {
	[NPA_IR_INT8] = 1,
	[NPA_IR_UINT8] = 1,
	[NPA_IR_INT16] = 2,
	[NPA_IR_INT32] = 4,
};

/* Bytes of a tensor, or 0 if its descriptor is inconsistent. */
u64 npa_exec_bytes(const struct npa_ir_tensor *t)
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
bool npa_exec_act(const struct npa_ir_tensor *t,
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

int npa_exec_parse(const struct npa_ir_op *op,
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
