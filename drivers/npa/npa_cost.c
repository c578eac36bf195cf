// SPDX-License-Identifier: GPL-2.0
/*
 * npa: the simulated NPU's cost model.
 */

/**
 * DOC: cost model
 *
 * The simulated NPU computes exact results but takes no time that means
 * anything; this model says how many cycles a small real NPU would need for
 * the same plan, so that scratch placement and the fast window have a
 * price.  It follows Arm's Vela performance estimate for an Ethos-U55 with
 * 256 MACs: per operator, the larger of the compute cycles (MACs over the
 * array's width) and the memory cycles (bytes over the bandwidth of the
 * memory they are in: the fast window's SRAM or slow DRAM), since the DMA
 * and the MAC array overlap, plus, for every pass over the array, the read
 * latency of the memory that pass starts from.
 *
 * A convolution through im2col runs as many passes as its scratch[0] holds
 * tiles of output pixels, each reading its tile's patches while the
 * weights stream past them.  Weights that go through a weight staging
 * scratch are copied there in chunks of whole filters, each chunk paying a
 * setup: once when a group's filters fit, else as often as the loop order
 * the executor takes (npa_exec_weight_stationary()) copies them, or it
 * gathers the patches again, a pass per tile per chunk.  So a tiny im2col
 * or staging grant costs traffic and latency, and scratch in the fast
 * window costs less than in DRAM.
 *
 * Everything saturates at U64_MAX instead of wrapping.  The functions are
 * pure: the simulated NPU and npactl compute the same numbers from the
 * same plan.
 */

#include <kunit/visibility.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>

#include "npa_cost.h"
#include "npa_exec.h"

static u64 npa_cost_add(u64 a, u64 b)
{
	u64 r;

	return check_add_overflow(a, b, &r) ? U64_MAX : r;
}

static u64 npa_cost_mul(u64 a, u64 b)
{
	u64 r;

	return check_mul_overflow(a, b, &r) ? U64_MAX : r;
}

/* a / b rounded up, for any a. */
static u64 npa_cost_div_up(u64 a, u64 b)
{
	u64 q = div64_u64(a, b);

	return q + (q * b != a);
}

/* Cycles to move @bytes at @bw_x8 eighths of a byte per cycle. */
static u64 npa_cost_move(u64 bytes, u64 bw_x8)
{
	return npa_cost_div_up(npa_cost_mul(bytes, 8), bw_x8);
}

static void npa_cost_bytes(struct npa_cost_work *w, u64 bytes, bool fast)
{
	if (fast)
		w->fast_bytes = npa_cost_add(w->fast_bytes, bytes);
	else
		w->slow_bytes = npa_cost_add(w->slow_bytes, bytes);
}

/**
 * npa_cost_cycles() - cycles an operator takes
 * @w: what it does.
 *
 * max(compute, memory) + passes * latency + chunks * setup, with compute
 * = @w->macs over %NPA_COST_MACS_PER_CYCLE, memory the bytes over their
 * bandwidths, latency the read latency of the memory a pass starts from
 * and setup the write latency of the memory weight chunks are staged in.
 *
 * Context: Any context.
 * Return: the cycles, U64_MAX when they do not fit.
 */
u64 npa_cost_cycles(const struct npa_cost_work *w)
{
	u64 compute = npa_cost_div_up(w->macs, NPA_COST_MACS_PER_CYCLE);
	u64 memory = npa_cost_add(npa_cost_move(w->slow_bytes, NPA_COST_SLOW_BW_X8),
				  npa_cost_move(w->fast_bytes, NPA_COST_FAST_BW_X8));
	u64 latency = w->fast_passes ? NPA_COST_FAST_LATENCY : NPA_COST_SLOW_LATENCY;
	u64 setup = w->fast_chunks ? NPA_COST_FAST_WRITE_LATENCY :
				     NPA_COST_SLOW_WRITE_LATENCY;

	return npa_cost_add(npa_cost_add(max(compute, memory),
					 npa_cost_mul(w->passes, latency)),
			    npa_cost_mul(w->chunks, setup));
}
EXPORT_SYMBOL_IF_KUNIT(npa_cost_cycles);

/**
 * npa_cost_conv() - the work of a convolution with given scratch grants
 * @cv: its geometry and weight staging grant.
 * @col_bytes: bytes of its scratch[0] (0: none).
 * @col_fast: scratch[0] is in the fast window.
 * @w: out: the work.
 *
 * As npa_exec_op() runs it.  Without im2col, one pass per group reading
 * the group's input.  With it, tiles of floor(@col_bytes / k) output
 * pixels, each gathered from the input, written to scratch[0] and read
 * back by a pass that reads the group's weights; a grant below one patch
 * (or none) gathers the patch of every pixel from the input: one pixel per
 * pass, the patch moving through slow memory.  The weights are read in
 * place, or with a staging grant of at least a filter, copied into it in
 * chunks of whole filters and read from there: once per group when its
 * filters fit; else input-stationary, once per tile, or weight-stationary,
 * once, every tile's patches gathered, written and read again for every
 * chunk (npa_exec_weight_stationary() decides, as for the executor).
 *
 * Context: Any context.
 */
void npa_cost_conv(const struct npa_cost_conv *cv, u64 col_bytes,
		   bool col_fast, struct npa_cost_work *w)
{
	u64 groups = max_t(u64, cv->groups, 1);
	u64 gweights = npa_cost_mul(cv->k, cv->filters);
	u64 chunk = cv->filters, chunks = 1, copies = 1, tiles = 1;
	u64 tile, gathers = 1, patches;
	bool staged = cv->k && cv->filters && cv->stage >= cv->k;

	*w = (struct npa_cost_work){
		.macs = npa_cost_mul(npa_cost_mul(cv->groups, cv->pixels), gweights),
	};
	npa_cost_bytes(w, cv->ofm_bytes, cv->ofm_fast);
	if (staged) {
		chunk = min(cv->stage / cv->k, cv->filters);
		chunks = npa_cost_div_up(cv->filters, chunk);
	}
	if (!cv->im2col || !cv->pixels || !cv->k) {
		npa_cost_bytes(w, cv->ifm_bytes, cv->ifm_fast);
		w->fast_passes = cv->ifm_fast;
	} else {
		if (col_bytes < cv->k)
			col_fast = false;
		tile = clamp_t(u64, col_bytes / cv->k, 1, cv->pixels);
		tiles = npa_cost_div_up(cv->pixels, tile);
		if (npa_exec_weight_stationary(cv->pixels, tile, cv->filters, chunk))
			gathers = chunks;
		else if (chunks > 1)
			copies = tiles;
		patches = npa_cost_mul(npa_cost_mul(groups, cv->pixels), cv->k);
		patches = npa_cost_mul(patches, gathers);
		/* Gathered from the input, written to scratch[0], read back. */
		npa_cost_bytes(w, patches, cv->ifm_fast);
		npa_cost_bytes(w, npa_cost_mul(patches, 2), col_fast);
		w->fast_passes = col_fast;
	}
	w->passes = npa_cost_mul(npa_cost_mul(groups, tiles), gathers);
	if (!staged) {
		npa_cost_bytes(w, npa_cost_mul(npa_cost_mul(groups, tiles), gweights),
			       cv->weights_fast);
		return;
	}
	copies = npa_cost_mul(groups, copies);
	w->chunks = npa_cost_mul(copies, chunks);
	w->fast_chunks = cv->stage_fast;
	/* Read from the weights, written to staging, read back per tile. */
	npa_cost_bytes(w, npa_cost_mul(copies, gweights), cv->weights_fast);
	npa_cost_bytes(w, npa_cost_mul(copies, gweights), cv->stage_fast);
	npa_cost_bytes(w, npa_cost_mul(npa_cost_mul(groups, tiles), gweights),
		       cv->stage_fast);
}
EXPORT_SYMBOL_IF_KUNIT(npa_cost_conv);

/*
 * FC with @rows rows of @k weight bytes and @stage bytes of weight staging
 * (@stage_fast: in the fast window): the rows are copied into staging a
 * chunk at a time, each chunk paying a setup, and read from there; none
 * without a row's room.  The weights, the input and the output are charged
 * once already.
 */
static void npa_cost_fc_stage(struct npa_cost_work *w, u64 k, u64 rows,
			      u64 stage, bool stage_fast)
{
	if (!k || !rows || stage < k)
		return;
	w->chunks = npa_cost_div_up(rows, min(stage / k, rows));
	w->fast_chunks = stage_fast;
	/* Written to staging, read back. */
	npa_cost_bytes(w, npa_cost_mul(npa_cost_mul(k, rows), 2), stage_fast);
}

/* An activation's [1, C, H, W]; false for a tensor without that shape. */
static bool npa_cost_chw(const struct npa_ir_tensor *t, u64 *c, u64 *pixels)
{
	if (t->dtype != NPA_IR_INT8 || t->dims[0] != 1)
		return false;
	*c = t->dims[1];
	*pixels = (u64)t->dims[2] * t->dims[3];
	return *c && *pixels;
}

/**
 * npa_cost_conv_geometry() - a convolution's geometry from its descriptors
 * @op: a CONV2D or DWCONV2D operator that passed npa_exec_check().
 * @x: its input.
 * @y: its output.
 * @cv: out: the geometry; the memory flags are false.
 *
 * Context: Any context.
 * Return: false when @op is not a convolution with shaped tensors.
 */
bool npa_cost_conv_geometry(const struct npa_ir_op *op,
			    const struct npa_ir_tensor *x,
			    const struct npa_ir_tensor *y,
			    struct npa_cost_conv *cv)
{
	const s32 *p = op->params;
	u64 xc, xpix, yc, ypix, full, pixel;

	if ((op->kind != NPA_IR_CONV2D && op->kind != NPA_IR_DWCONV2D) ||
	    !npa_cost_chw(x, &xc, &xpix) || !npa_cost_chw(y, &yc, &ypix) ||
	    p[NPA_IR_P_KH] < 1 || p[NPA_IR_P_KW] < 1 || p[NPA_IR_P_GROUPS] < 0)
		return false;
	*cv = (struct npa_cost_conv){
		.groups = op->kind == NPA_IR_DWCONV2D ? xc :
			  max_t(u64, p[NPA_IR_P_GROUPS], 1),
		.pixels = ypix,
		.ifm_bytes = xc * xpix,
		.ofm_bytes = yc * ypix,
	};
	if (cv->groups > xc || cv->groups > yc)
		return false;
	cv->k = xc / cv->groups * p[NPA_IR_P_KH] * p[NPA_IR_P_KW];
	cv->filters = yc / cv->groups;
	npa_exec_im2col_bytes(op, x, y, &full, &pixel);
	cv->im2col = full != 0;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(npa_cost_conv_geometry);

/**
 * npa_cost_fast() - whether a placed tensor or scratch buffer is fast
 * @p: its placement.
 * @fast_window: bytes at the start of the arena that are fast.
 *
 * A plan marks each scratch buffer it placed wholly in the fast window
 * %NPA_IR_FAST, and that mark decides for scratch: the same plan with its
 * scratch resized (npactl's ``sim_cycles_unlimited`` and
 * ``sim_cycles_minimum``) keeps each buffer where it was, fast or not.
 *
 * Context: Any context.
 * Return: true when @p lies wholly in the arena's fast window, or for
 * scratch, when the plan marked it so.
 */
bool npa_cost_fast(const struct npa_ir_place *p, u64 fast_window)
{
	if (!(p->flags & NPA_IR_ARENA))
		return false;
	if (p->flags & NPA_IR_SCRATCH)
		return p->flags & NPA_IR_FAST;
	return p->offset <= fast_window && p->size <= fast_window - p->offset;
}
EXPORT_SYMBOL_IF_KUNIT(npa_cost_fast);

/* @src copied to @dst: nothing when they share memory. */
static void npa_cost_moved(struct npa_cost_work *w,
			   const struct npa_ir_place *src,
			   const struct npa_ir_place *dst, u64 fast_window)
{
	if ((src->flags & dst->flags & NPA_IR_ARENA) &&
	    src->offset == dst->offset)
		return;
	if ((src->flags & dst->flags & NPA_IR_ARENA) &&
	    src->buffer == dst->buffer && src->buffer != NPA_IR_NO_BUFFER)
		return;
	npa_cost_bytes(w, src->size, npa_cost_fast(src, fast_window));
	npa_cost_bytes(w, src->size, npa_cost_fast(dst, fast_window));
}

/**
 * npa_cost_op() - cycles one operator of a planned graph takes
 * @ir: the graph's internal model.
 * @op: the operator, one of @ir's.
 * @tp: the tensors' placements.
 * @sp: the scratch placements (the whole array; @op indexes into it).
 * @fast_window: bytes at the start of the arena that are fast.
 *
 * Context: Any context.
 * Return: the cycles (Documentation/npu.rst, "Cost model").
 */
u64 npa_cost_op(const struct npa_ir *ir, const struct npa_ir_op *op,
		const struct npa_ir_place *tp, const struct npa_ir_place *sp,
		u64 fast_window)
{
	const u32 *in = &ir->operands[op->first];
	const u32 *out = in + op->num_in;
	const struct npa_ir_tensor *tensors = ir->tensors;
	struct npa_cost_work w = { .passes = 1 };
	struct npa_exec_roles r;
	struct npa_cost_conv cv;
	u64 c, pix;
	u32 i;

	if (!op->num_in || !op->num_out)
		return npa_cost_cycles(&w);
	w.fast_passes = npa_cost_fast(&tp[in[0]], fast_window);
	switch (op->kind) {
	case NPA_IR_CONV2D:
	case NPA_IR_DWCONV2D:
		if (op->num_in < 2 ||
		    !npa_cost_conv_geometry(op, &tensors[in[0]], &tensors[out[0]], &cv))
			break;
		cv.ifm_fast = w.fast_passes;
		cv.ofm_fast = npa_cost_fast(&tp[out[0]], fast_window);
		cv.weights_fast = npa_cost_fast(&tp[in[1]], fast_window);
		npa_exec_roles(op, cv.im2col, op->num_scratch, &r);
		if (r.stage != NPA_EXEC_NO_SCRATCH) {
			cv.stage = sp[op->first_scratch + r.stage].size;
			cv.stage_fast = npa_cost_fast(&sp[op->first_scratch + r.stage],
						      fast_window);
		}
		if (r.col != NPA_EXEC_NO_SCRATCH)
			npa_cost_conv(&cv, sp[op->first_scratch + r.col].size,
				      npa_cost_fast(&sp[op->first_scratch + r.col],
						    fast_window), &w);
		else
			npa_cost_conv(&cv, 0, false, &w);
		return npa_cost_cycles(&w);
	case NPA_IR_CONCAT:
		for (i = 0; i < op->num_in; i++)
			npa_cost_moved(&w, &tp[in[i]], &tp[out[0]], fast_window);
		return npa_cost_cycles(&w);
	case NPA_IR_SPLIT:
		for (i = 0; i < op->num_out; i++)
			npa_cost_moved(&w, &tp[in[0]], &tp[out[i]], fast_window);
		return npa_cost_cycles(&w);
	case NPA_IR_RESHAPE:
		npa_cost_moved(&w, &tp[in[0]], &tp[out[0]], fast_window);
		return npa_cost_cycles(&w);
	case NPA_IR_FC:
		if (op->num_in < 2)
			break;
		w.macs = tp[in[1]].size;
		npa_exec_roles(op, false, op->num_scratch, &r);
		if (r.stage != NPA_EXEC_NO_SCRATCH)
			npa_cost_fc_stage(&w, tensors[in[0]].size,
					  tensors[out[0]].size,
					  sp[op->first_scratch + r.stage].size,
					  npa_cost_fast(&sp[op->first_scratch + r.stage],
							fast_window));
		break;
	case NPA_IR_MAXPOOL:
	case NPA_IR_AVGPOOL:
		if (npa_cost_chw(&tensors[out[0]], &c, &pix) &&
		    op->params[NPA_IR_P_KH] > 0 && op->params[NPA_IR_P_KW] > 0)
			w.macs = npa_cost_mul(npa_cost_mul(c, pix),
					      (u64)op->params[NPA_IR_P_KH] *
					      op->params[NPA_IR_P_KW]);
		break;
	case NPA_IR_ADD:
	case NPA_IR_MUL:
	case NPA_IR_ACTIVATION:
		w.macs = tp[out[0]].size;
		break;
	default:
		break;
	}
	/* Every input read once, every output written once. */
	for (i = 0; i < op->num_in; i++)
		npa_cost_bytes(&w, tp[in[i]].size, npa_cost_fast(&tp[in[i]], fast_window));
	for (i = 0; i < op->num_out; i++)
		npa_cost_bytes(&w, tp[out[i]].size, npa_cost_fast(&tp[out[i]], fast_window));
	return npa_cost_cycles(&w);
}
EXPORT_SYMBOL_IF_KUNIT(npa_cost_op);

/*
 * Request @role of @o, valuing request @rel at @bytes and @fast: itself, or
 * what @grants says the other has; one not placed yet counts at its size
 * when it is the im2col buffer (@col) and as absent when it is weight
 * staging.  So staging is worth only what it saves beside the im2col grant
 * the operator gets, and an im2col buffer what it saves without staging.
 */
static u64 npa_cost_grant(const struct npa_ir *ir, const struct npa_ir_op *o,
			  u32 role, u32 rel, bool col, u64 bytes, bool fast,
			  const struct npa_cost_grants *grants, bool *is_fast)
{
	u64 got;

	*is_fast = false;
	if (role == NPA_EXEC_NO_SCRATCH)
		return 0;
	if (role == rel) {
		*is_fast = fast;
		return bytes;
	}
	got = grants->bytes(grants->priv, o->first_scratch + role, is_fast);
	if (got != NPA_COST_NOT_PLACED)
		return got;
	*is_fast = false;
	return col ? ir->scratch[o->first_scratch + role].size : 0;
}

/**
 * npa_cost_scratch() - cycles an operator takes with a given scratch grant
 * @ir: the graph's internal model.
 * @op: the operator's index.
 * @idx: the index of one of its scratch requests.
 * @bytes: bytes granted to it.
 * @fast: the grant is in the fast window.
 * @grants: what the operator's other scratch requests have now.
 *
 * The tensors count as slow: what matters to scratch placement is how the
 * cycles change with @bytes and @fast.  A convolution's im2col buffer and
 * its weight staging are valued together, each with the grant @grants
 * gives the other: what one is worth depends on the other's size and
 * memory (staging saves nothing when one tile holds every patch, and a
 * tile costs a weight copy or a gather more when staging holds a few
 * filters).  Before the other has a grant, staging counts as absent and an
 * im2col buffer at its size: neither is valued for what the other might
 * not get.
 *
 * Context: Any context.
 * Return: the cycles, or 0 for scratch whose size changes nothing (all
 * but a convolution's im2col buffer and the weight staging of a
 * convolution or FC, npa_exec_roles()).
 */
u64 npa_cost_scratch(const struct npa_ir *ir, u32 op, u32 idx, u64 bytes,
		     bool fast, const struct npa_cost_grants *grants)
{
	const struct npa_ir_op *o = &ir->ops[op];
	const struct npa_ir_tensor *x, *y;
	struct npa_exec_roles r;
	struct npa_cost_work w;
	struct npa_cost_conv cv;
	u32 rel = idx - o->first_scratch;
	bool col_fast;
	u64 col;

	if (idx < o->first_scratch || rel >= o->num_scratch || o->num_in < 2 ||
	    !o->num_out)
		return 0;
	x = &ir->tensors[npa_ir_in(ir, o, 0)];
	y = &ir->tensors[npa_ir_out(ir, o, 0)];
	if (o->kind == NPA_IR_FC) {
		npa_exec_roles(o, false, o->num_scratch, &r);
		if (rel != r.stage)
			return 0;
		w = (struct npa_cost_work){
			.macs = ir->tensors[npa_ir_in(ir, o, 1)].size,
			.passes = 1,
			.slow_bytes = y->size,
		};
		for (rel = 0; rel < o->num_in; rel++)
			npa_cost_bytes(&w, ir->tensors[npa_ir_in(ir, o, rel)].size,
				       false);
		npa_cost_fc_stage(&w, x->size, y->size, bytes, fast);
		return npa_cost_cycles(&w);
	}
	if (!npa_cost_conv_geometry(o, x, y, &cv))
		return 0;
	npa_exec_roles(o, cv.im2col, o->num_scratch, &r);
	if (rel != r.col && rel != r.stage)
		return 0;
	col = npa_cost_grant(ir, o, r.col, rel, true, bytes, fast, grants,
			     &col_fast);
	cv.stage = npa_cost_grant(ir, o, r.stage, rel, false, bytes, fast,
				  grants, &cv.stage_fast);
	npa_cost_conv(&cv, col, col_fast, &w);
	return npa_cost_cycles(&w);
}
EXPORT_SYMBOL_IF_KUNIT(npa_cost_scratch);

/**
 * npa_cost_graph_best() - cycles of a planned graph with the best scratch
 *	sizes
 * @ir: the graph's internal model.
 * @tp: its tensors' placements.
 * @sp: its scratch placements, every variable request at its largest size
 *	(modified: each ends at the size used).
 * @min_sizes: every scratch request's least size (fixed ones: their size).
 * @fast_window: bytes at the start of the arena that are fast.
 *
 * More bytes do not always cost fewer cycles: weight staging in slow
 * memory, or beside an im2col buffer that holds every patch, copies the
 * weights for nothing.  So each operator's requests start at their largest
 * size, and each in turn drops to its least size where that costs its
 * operator fewer cycles.  This is npactl plan's ``sim_cycles_unlimited``.
 *
 * Context: Any context.
 * Return: the sum over the operators, saturated.
 */
u64 npa_cost_graph_best(const struct npa_ir *ir, const struct npa_ir_place *tp,
			struct npa_ir_place *sp, const u64 *min_sizes,
			u64 fast_window)
{
	u64 total = 0, best, c, max;
	u32 i, k, j;

	for (i = 0; i < ir->num_ops; i++) {
		const struct npa_ir_op *op = &ir->ops[i];

		best = npa_cost_op(ir, op, tp, sp, fast_window);
		for (k = 0; k < op->num_scratch; k++) {
			j = op->first_scratch + k;
			if (sp[j].size == min_sizes[j])
				continue;
			max = sp[j].size;
			sp[j].size = min_sizes[j];
			c = npa_cost_op(ir, op, tp, sp, fast_window);
			if (c < best)
				best = c;
			else
				sp[j].size = max;
		}
		total = npa_cost_add(total, best);
	}
	return total;
}
EXPORT_SYMBOL_IF_KUNIT(npa_cost_graph_best);

/**
 * npa_cost_graph() - cycles one run of a planned graph takes
 * @ir: the graph's internal model.
 * @tp: its tensors' placements.
 * @sp: its scratch placements.
 * @fast_window: bytes at the start of the arena that are fast.
 *
 * Context: Any context.
 * Return: the sum of npa_cost_op() over the operators, saturated.
 */
u64 npa_cost_graph(const struct npa_ir *ir, const struct npa_ir_place *tp,
		   const struct npa_ir_place *sp, u64 fast_window)
{
	u64 total = 0;
	u32 i;

	for (i = 0; i < ir->num_ops; i++)
		total = npa_cost_add(total, npa_cost_op(ir, &ir->ops[i], tp, sp,
							fast_window));
	return total;
}
EXPORT_SYMBOL_IF_KUNIT(npa_cost_graph);
