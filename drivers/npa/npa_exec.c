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
 * npa_exec_run() checks the operator's shapes and parameters as
 * npa_exec_check() does (npa_exec_check.c), then checks that every operand
 * is at least as large as its descriptor before it touches any memory, and
 * never reads or writes outside the operands.  It runs the pooling,
 * element-wise, activation and data movement kernels of this file, and the
 * convolutions and FC of npa_exec_mac.c.
 *
 * Inputs and outputs may share memory where the planner makes them: a
 * RESHAPE, an element-wise op writing over its first input, CONCAT inputs
 * already at their place in the output, SPLIT outputs inside the input.
 * Data is moved only when the addresses differ.
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
#include <linux/string.h>

#include "npa_exec_int.h"

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
