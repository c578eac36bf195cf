/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npa: what the files of the operator kernels share: an op's checked
 * shapes and parameters, and the small helpers every kernel uses.  Not
 * for use outside npa_exec*.c.
 */
#ifndef __NPA_EXEC_INT_H__
#define __NPA_EXEC_INT_H__

#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/types.h>

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

static inline const struct npa_ir_tensor *npa_dl(const struct npa_exec_dl *l, u32 i)
{
	return l->d ? l->d[i] : l->o[i].desc;
}

static inline s8 npa_exec_sat(s64 v)
{
	return clamp_t(s64, v, -128, 127);
}

/* The int8 result of an accumulator: an arithmetic (floor) shift. */
static inline s8 npa_exec_requant(s64 acc, u32 shift)
{
	return npa_exec_sat(acc >> shift);
}

/*
 * Count @work units (multiply-adds, taps or bytes) done; every
 * %NPA_EXEC_STOP_WORK of them, yield and ask the stop hook.  True once the
 * op must stop.
 */
static inline bool npa_exec_tick(const struct npa_exec_args *a, u64 work)
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

/* Taps [*lo, *hi) of a @k wide window starting at @start inside [0, @n). */
static inline void npa_exec_taps(s64 start, u32 k, u32 n, u32 *lo, u32 *hi)
{
	s64 l = start < 0 ? -start : 0;
	s64 h = (s64)n - start;

	l = min_t(s64, l, k);
	h = clamp_t(s64, h, l, k);
	*lo = l;
	*hi = h;
}

u64 npa_exec_bytes(const struct npa_ir_tensor *t);
bool npa_exec_act(const struct npa_ir_tensor *t, struct npa_exec_shape *s);
int npa_exec_parse(const struct npa_ir_op *op, const struct npa_exec_dl *in,
		   const struct npa_exec_dl *out, struct npa_exec_args *a);
int npa_exec_conv(const struct npa_exec_args *a, const s8 *x, const s8 *wt,
		  const void *bias, s8 *y, s8 *col, u64 col_size);
int npa_exec_fc(const struct npa_exec_args *a, const s8 *x, const s8 *wt,
		const void *bias, s8 *y);

#endif /* __NPA_EXEC_INT_H__ */
