// SPDX-License-Identifier: GPL-2.0
/*
 * npa: the multiply-accumulate kernels of the simulated NPU.
 */

/**
 * DOC: convolutions and fully connected layers
 *
 * CONV2D, DWCONV2D and FC sum weights times inputs in s64 accumulators,
 * starting from the bias, and requantize each sum to int8.  A convolution
 * that is not 1x1 with stride 1 builds its im2col patch matrix in
 * scratch[0], whole or in tiles of as many output pixels as fit, and
 * reads it back from there, so that scratch which overlaps a live tensor
 * gives wrong results instead of going unnoticed.  Weights go through the
 * weight staging scratch in chunks of whole filters, in the loop order
 * over tiles and chunks that moves fewer bytes
 * (npa_exec_weight_stationary(), which the cost model charges too), and
 * the sums through the accumulator scratch when the op has one
 * (npa_exec_roles() says which scratch buffer does what).
 */

#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/string.h>

#include "npa_exec_int.h"

/* Accumulator entries kept in registers when the op has no accumulator. */
#define NPA_EXEC_REGS	4

/* Bias @i: int32 in CPU byte order, possibly unaligned. */
static s64 npa_exec_bias(const void *bias, u64 i)
{
	s32 v;

	if (!bias)
		return 0;
	memcpy(&v, (const u8 *)bias + i * sizeof(v), sizeof(v));
	return v;
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
int npa_exec_conv(const struct npa_exec_args *a, const s8 *x,
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

int npa_exec_fc(const struct npa_exec_args *a, const s8 *x,
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
