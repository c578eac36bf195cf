// SPDX-License-Identifier: GPL-2.0
/*
 * npa: the layout of a model in its arena.
 */

/**
 * DOC: layouts
 *
 * npa_layout_plan() turns the internal model of a graph into arena buffers
 * and places them:
 *
 * - Step i is the i-th operator.  A tensor is live from the step that
 *   produces it to the last step that reads it, half-open: [producer,
 *   last reader + 1), which is the reference count of the memory-tag scheme
 *   reaching zero.  A tensor nobody reads is live for its producer's step.
 *   Model inputs, outputs, constants and persistent tensors live in their
 *   own places, outside the arena.
 * - Size and alignment are the model's (&npa_ir_tensor.align: the tensor's
 *   own and that of every compute unit that touches it), with the size
 *   rounded up to that alignment.
 * - Sharing: a RESHAPE output is its input's memory; SPLIT outputs are
 *   consecutive parts of the input; an op flagged NPA_IR_INPLACE writes its
 *   output over its first input when nothing reads that memory afterwards;
 *   CONCAT inputs are placed at their offsets inside the output, so the
 *   concat moves nothing.  Tensors that share memory form a group with one
 *   root (a weighted union-find: every tensor keeps its offset from its
 *   parent), and each group becomes one planner buffer whose lifetime is
 *   the union of its members'.  Where sharing is not possible (a model
 *   input, a mismatched alignment, a tensor already inside another concat)
 *   the op copies instead, which the executor does whenever the addresses
 *   differ.
 * - The planner places the buffers; then npa_scratch_place() puts every
 *   operator's scratch into the gaps.
 *
 * npa_layout_supplied() instead takes a layout made elsewhere (an offline
 * compiler, ``npactl plan --out``) once it has verified it.  Pure code on
 * the internal model (npa_ir.h), like the planner: no device, no locking
 * and no uAPI types.
 */

#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "npa_cost.h"
#include "npa_ir.h"
#include "npa_layout.h"
#include "npa_plan.h"
#include "npa_scratch.h"

#define NPA_NONE	U32_MAX

/* Per-tensor state of the lowering; the g* fields are valid for roots. */
struct npa_lower {
	const struct npa_ir *ir;
	u32 *parent;	/* union-find parent; a root is its own parent */
	s64 *rel;	/* offset from the parent */
	u64 *size;	/* bytes, rounded up to @align */
	u64 *align;	/* for roots: the strictest alignment in the group */
	u32 *lo, *hi;	/* the tensor's own lifetime, [lo, hi) */
	u64 *gext;	/* roots: bytes the group spans from the root */
	u32 *glo, *ghi;	/* roots: the group's lifetime */
	u32 *bufidx;	/* roots: planner buffer index */
};

static bool npa_in_arena(const struct npa_ir *ir, u32 t)
{
	return !(ir->tensors[t].flags & NPA_IR_BOUND);
}

/* Root of @t's group and @t's offset from it; compresses the path. */
static u32 npa_find(struct npa_lower *l, u32 t, s64 *off)
{
	u32 r = t, next;
	s64 o = 0, acc, step;

	while (l->parent[r] != r) {
		o += l->rel[r];
		r = l->parent[r];
	}
	for (acc = o; l->parent[t] != r && t != r; t = next, acc -= step) {
		next = l->parent[t];
		step = l->rel[t];
		l->parent[t] = r;
		l->rel[t] = acc;
	}
	*off = o;
	return r;
}

/* Make root @r part of root @R at offset @at; the caller checked it fits. */
static void npa_union(struct npa_lower *l, u32 r, u32 R, s64 at)
{
	l->parent[r] = R;
	l->rel[r] = at;
	l->align[R] = max(l->align[R], l->align[r]);
	l->gext[R] = max_t(u64, l->gext[R], at + l->gext[r]);
	l->glo[R] = min(l->glo[R], l->glo[r]);
	l->ghi[R] = max(l->ghi[R], l->ghi[r]);
}

/*
 * May op @i write over group @R in place?  Not if a later op reads the
 * group, nor if another input of @i (than @in) lies in it: a split's
 * part, say, which the op would read after writing over it.
 */
static bool npa_may_write(struct npa_lower *l, u32 i, u32 in, u32 R)
{
	const struct npa_ir *ir = l->ir;
	const struct npa_ir_op *op = &ir->ops[i];
	s64 off;
	u32 k;

	if (l->ghi[R] > i + 1)
		return false;
	for (k = 0; k < op->num_in; k++) {
		u32 t = npa_ir_in(ir, op, k);

		if (t != in && npa_in_arena(ir, t) && npa_find(l, t, &off) == R)
			return false;
	}
	return true;
}

/*
 * Output @o of op @i becomes a view of input @in at @sub bytes into it.
 * @write: the op writes @o over @in (see npa_may_write()).
 */
static void npa_share_view(struct npa_lower *l, u32 i, u32 in, u32 o, u64 sub,
			   bool write)
{
	const struct npa_ir *ir = l->ir;
	s64 off, at;
	u32 R;

	if (!npa_in_arena(ir, in) || !npa_in_arena(ir, o) || l->parent[o] != o)
		return;
	R = npa_find(l, in, &off);
	at = off + sub;
	if (at % l->align[o])
		return;
	if (write && !npa_may_write(l, i, in, R))
		return;
	npa_union(l, o, R, at);
}

/* CONCAT op @i: place each input's group at its offset inside the output. */
static void npa_share_concat(struct npa_lower *l, u32 i)
{
	const struct npa_ir *ir = l->ir;
	const struct npa_ir_op *op = &ir->ops[i];
	u32 o = npa_ir_out(ir, op, 0), k, r;
	u64 at = 0, raw;
	s64 off;

	if (!npa_in_arena(ir, o))
		return;
	for (k = 0; k < op->num_in; k++, at += raw) {
		u32 in = npa_ir_in(ir, op, k);
		u64 room;

		raw = ir->tensors[in].size;
		if (!npa_in_arena(ir, in))
			continue;
		r = npa_find(l, in, &off);
		/* Already placed (e.g. the same tensor twice): copy instead. */
		if (r == o)
			continue;
		/* The group must lie inside the input and fit its slot. */
		room = k + 1 < op->num_in ? raw : l->size[o] - at;
		if (off != 0 || l->gext[r] > room)
			continue;
		if (at % l->align[r])
			continue;
		npa_union(l, r, o, at);
	}
}

static void npa_lower_share(struct npa_lower *l)
{
	const struct npa_ir *ir = l->ir;
	u32 i, k;
	u64 sub;

	for (i = 0; i < ir->num_ops; i++) {
		const struct npa_ir_op *op = &ir->ops[i];
		u32 in = npa_ir_in(ir, op, 0);
		u32 out = npa_ir_out(ir, op, 0);

		switch (op->kind) {
		case NPA_IR_RESHAPE:
			npa_share_view(l, i, in, out, 0, false);
			break;
		case NPA_IR_SPLIT:
			for (k = 0, sub = 0; k < op->num_out; k++) {
				out = npa_ir_out(ir, op, k);
				npa_share_view(l, i, in, out, sub, false);
				sub += ir->tensors[out].size;
			}
			break;
		case NPA_IR_CONCAT:
			npa_share_concat(l, i);
			break;
		default:
			if (op->flags & NPA_IR_INPLACE)
				npa_share_view(l, i, in, out, 0, true);
			break;
		}
		cond_resched();
	}
}

/* Size and lifetime of every tensor; every tensor its own group. */
static void npa_lower_init(struct npa_lower *l)
{
	const struct npa_ir *ir = l->ir;
	u32 i, k, t;

	for (t = 0; t < ir->num_tensors; t++) {
		l->parent[t] = t;
		l->rel[t] = 0;
		l->align[t] = ir->tensors[t].align;
		l->lo[t] = NPA_NONE;
		l->hi[t] = 0;
	}
	for (i = 0; i < ir->num_ops; i++) {
		const struct npa_ir_op *op = &ir->ops[i];

		for (k = 0; k < op->num_in + op->num_out; k++) {
			t = ir->operands[op->first + k];
			if (k >= op->num_in)
				l->lo[t] = i;
			l->hi[t] = max(l->hi[t], i + 1);
		}
	}
	for (t = 0; t < ir->num_tensors; t++) {
		/* Model inputs, constants and state exist from the start. */
		if (l->lo[t] == NPA_NONE)
			l->lo[t] = 0;
		if (ir->tensors[t].flags & NPA_IR_BOUND)
			l->hi[t] = max(l->hi[t], ir->num_ops);
		l->hi[t] = max(l->hi[t], l->lo[t] + 1);
		l->size[t] = ALIGN(ir->tensors[t].size, l->align[t]);
		l->gext[t] = l->size[t];
		l->glo[t] = l->lo[t];
		l->ghi[t] = l->hi[t];
	}
}

static void npa_lower_free(struct npa_lower *l)
{
	kvfree(l->parent);
	kvfree(l->rel);
	kvfree(l->size);
	kvfree(l->align);
	kvfree(l->lo);
	kvfree(l->hi);
	kvfree(l->gext);
	kvfree(l->glo);
	kvfree(l->ghi);
	kvfree(l->bufidx);
}

static int npa_lower_alloc(struct npa_lower *l, u32 n)
{
	l->parent = kvmalloc_array(n, sizeof(*l->parent), GFP_KERNEL_ACCOUNT);
	l->rel = kvmalloc_array(n, sizeof(*l->rel), GFP_KERNEL_ACCOUNT);
	l->size = kvmalloc_array(n, sizeof(*l->size), GFP_KERNEL_ACCOUNT);
	l->align = kvmalloc_array(n, sizeof(*l->align), GFP_KERNEL_ACCOUNT);
	l->lo = kvmalloc_array(n, sizeof(*l->lo), GFP_KERNEL_ACCOUNT);
	l->hi = kvmalloc_array(n, sizeof(*l->hi), GFP_KERNEL_ACCOUNT);
	l->gext = kvmalloc_array(n, sizeof(*l->gext), GFP_KERNEL_ACCOUNT);
	l->glo = kvmalloc_array(n, sizeof(*l->glo), GFP_KERNEL_ACCOUNT);
	l->ghi = kvmalloc_array(n, sizeof(*l->ghi), GFP_KERNEL_ACCOUNT);
	l->bufidx = kvmalloc_array(n, sizeof(*l->bufidx), GFP_KERNEL_ACCOUNT);
	if (!l->parent || !l->rel || !l->size || !l->align || !l->lo ||
	    !l->hi || !l->gext || !l->glo || !l->ghi || !l->bufidx) {
		npa_lower_free(l);
		return -ENOMEM;
	}
	return 0;
}

/* One planner buffer per group of arena tensors. */
static u32 npa_lower_buffers(struct npa_lower *l, struct npa_plan_buf *bufs,
			     u64 *naive)
{
	const struct npa_ir *ir = l->ir;
	u32 t, n = 0;
	s64 off;

	*naive = 0;
	for (t = 0; t < ir->num_tensors; t++) {
		l->bufidx[t] = NPA_NONE;
		if (!npa_in_arena(ir, t))
			continue;
		*naive += l->size[t];
		if (npa_find(l, t, &off) != t)
			continue;
		bufs[n] = (struct npa_plan_buf){
			.size = l->gext[t], .align = l->align[t],
			.lo = l->glo[t], .hi = l->ghi[t],
		};
		l->bufidx[t] = n++;
	}
	return n;
}

static void npa_lower_scratch(const struct npa_ir *ir,
			      struct npa_scratch_req *reqs)
{
	u32 i, k;

	for (i = 0; i < ir->num_ops; i++) {
		const struct npa_ir_op *op = &ir->ops[i];

		for (k = 0; k < op->num_scratch; k++) {
			const struct npa_ir_scratch *s = &ir->scratch[op->first_scratch + k];
			struct npa_scratch_req *r = &reqs[op->first_scratch + k];

			*r = (struct npa_scratch_req){
				.size = s->size,
				.min_size = s->min_size,
				.align = s->align,
				.step = i,
			};
			if (s->flags & NPA_IR_VARIABLE)
				r->flags |= NPA_SCRATCH_REQ_VARIABLE;
			if (s->flags & NPA_IR_LATENCY)
				r->flags |= NPA_SCRATCH_REQ_LATENCY;
		}
	}
}

/* What a scratch request's grant is worth: npa_scratch_cost.cycles. */
struct npa_scratch_worth {
	const struct npa_ir *ir;
	const struct npa_scratch_req *reqs;
};

/*
 * What request @idx has now, for the cost of its operator's other scratch:
 * its grant once placed (NPA_SCRATCH_PLACED), else NPA_COST_NOT_PLACED.
 */
static u64 npa_scratch_granted(const void *priv, u32 idx, bool *fast)
{
	const struct npa_scratch_worth *w = priv;
	const struct npa_scratch_req *r = &w->reqs[idx];

	*fast = r->placed_flags & NPA_SCRATCH_PLACED_FAST;
	if (r->placed_flags & NPA_SCRATCH_PLACED)
		return r->granted;
	return NPA_COST_NOT_PLACED;
}

static u64 npa_scratch_cycles(void *priv, u32 idx, u64 bytes, bool fast)
{
	const struct npa_scratch_worth *w = priv;
	const struct npa_cost_grants grants = {
		.bytes = npa_scratch_granted, .priv = w,
	};

	return npa_cost_scratch(w->ir, w->reqs[idx].step, idx, bytes, fast,
				&grants);
}

static void npa_fill_placements(struct npa_lower *l,
				const struct npa_plan_buf *bufs,
				const struct npa_scratch_req *reqs,
				struct npa_layout *plan)
{
	const struct npa_ir *ir = l->ir;
	u32 t, j;
	s64 off;

	for (t = 0; t < ir->num_tensors; t++) {
		struct npa_ir_place *p = &plan->tensors[t];

		*p = (struct npa_ir_place){
			.offset = NPA_IR_NO_OFFSET, .size = l->size[t],
			.lo = l->lo[t], .hi = l->hi[t], .buffer = NPA_IR_NO_BUFFER,
		};
		if (!npa_in_arena(ir, t))
			continue;
		p->buffer = l->bufidx[npa_find(l, t, &off)];
		p->offset = bufs[p->buffer].offset + off;
		p->flags = NPA_IR_ARENA;
	}
	for (j = 0; j < ir->num_scratch; j++) {
		const struct npa_scratch_req *r = &reqs[j];

		plan->scratch[j] = (struct npa_ir_place){
			.offset = r->offset, .size = r->granted, .lo = r->step,
			.hi = r->step + 1, .buffer = NPA_IR_NO_BUFFER,
			.flags = NPA_IR_ARENA | NPA_IR_SCRATCH,
		};
		if (r->placed_flags & NPA_SCRATCH_PLACED_FAST)
			plan->scratch[j].flags |= NPA_IR_FAST;
	}
}

/* Say why a supplied layout is refused. */
static int npa_refuse(struct npa_layout_refusal *why, bool scratch, u32 index,
		      u32 reason, u64 value, u64 expected, int ret)
{
	*why = (struct npa_layout_refusal){
		.scratch = scratch, .index = index, .reason = reason,
		.value = value, .expected = expected,
	};
	return ret;
}

/* Buffer @i of a supplied layout's verifier input: which element it is. */
static void npa_supplied_elem(const struct npa_lower *l, u32 nbufs, u32 i,
			      bool *scratch, u32 *index)
{
	u32 t;

	*scratch = i >= nbufs;
	if (*scratch) {
		*index = i - nbufs;
		return;
	}
	for (t = 0; t < l->ir->num_tensors; t++)
		if (l->bufidx[t] == i)
			break;
	*index = t;
}

/*
 * The verifier refused the plan: two buffers live at once overlap.  Find
 * one pair for the report: the shortest refused prefix ends with one of
 * them (refusal only grows with the prefix), the other is before it.
 * O(n log^2 n), and only for a plan that is refused anyway.
 */
static int npa_supplied_overlap(const struct npa_lower *l,
				const struct npa_plan_buf *all, u32 n,
				u32 nbufs, u64 peak,
				struct npa_layout_refusal *why)
{
	u32 lo = 1, hi = n, i, ia, ib;
	bool a, b;
	const struct npa_plan_buf *x, *y;
	int ret;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		ret = npa_plan_verify(all, mid, peak);
		if (ret && ret != -EEXIST)
			return ret;
		if (ret)
			hi = mid;
		else
			lo = mid + 1;
	}
	x = &all[lo - 1];
	for (i = 0; i + 1 < lo; i++) {
		y = &all[i];
		if (y->size && x->lo < y->hi && y->lo < x->hi &&
		    x->offset < y->offset + y->size &&
		    y->offset < x->offset + x->size)
			break;
	}
	npa_supplied_elem(l, nbufs, lo - 1, &a, &ia);
	npa_supplied_elem(l, nbufs, i, &b, &ib);
	npa_refuse(why, a, ia, NPA_LAYOUT_OVERLAP, ib, 0, -EINVAL);
	why->other_scratch = b;
	return -EINVAL;
}

/*
 * Take the offsets of a supplied plan: every group of tensors that share
 * memory at its root's offset, each member where the sharing puts it;
 * scratch as given, within what each request accepts.  Then the planner's
 * verifier checks every pair of buffers live at once.
 */
static int npa_supplied_place(struct npa_lower *l, u64 fast_window,
			      struct npa_plan_buf *bufs, u32 nbufs,
			      struct npa_scratch_req *reqs,
			      const struct npa_ir_place *pt,
			      const struct npa_ir_place *ps,
			      struct npa_layout *plan,
			      struct npa_layout_refusal *why)
{
	const struct npa_ir *ir = l->ir;
	struct npa_plan_buf *all;
	u64 end, peak = 0;
	u32 t, j, r;
	s64 off;
	int ret;

	for (t = 0; t < ir->num_tensors; t++) {
		if (!npa_in_arena(ir, t))
			continue;
		r = npa_find(l, t, &off);
		if (t != r && pt[t].offset != pt[r].offset + (u64)off)
			return npa_refuse(why, false, t, NPA_LAYOUT_NOT_SHARED,
					  pt[t].offset, pt[r].offset + (u64)off,
					  -EINVAL);
		if (t != r)
			continue;
		if (pt[r].offset & (l->align[r] - 1))
			return npa_refuse(why, false, r, NPA_LAYOUT_MISALIGNED,
					  pt[r].offset, l->align[r], -EINVAL);
		if (check_add_overflow(pt[r].offset, l->gext[r], &end))
			return npa_refuse(why, false, r, NPA_LAYOUT_OVERFLOW,
					  pt[r].offset, 0, -EOVERFLOW);
		bufs[l->bufidx[r]].offset = pt[r].offset;
		peak = max(peak, end);
	}
	plan->tensor_bytes = peak;

	npa_lower_scratch(ir, reqs);
	for (j = 0; j < ir->num_scratch; j++) {
		struct npa_scratch_req *q = &reqs[j];
		u64 sz = ps[j].size, align = max_t(u64, q->align, 1);
		bool var = q->flags & NPA_SCRATCH_REQ_VARIABLE;

		if (var ? sz < q->min_size || sz > q->size : sz != q->size)
			return npa_refuse(why, true, j, NPA_LAYOUT_BAD_SIZE, sz,
					  q->size, -EINVAL);
		if (ps[j].offset & (align - 1))
			return npa_refuse(why, true, j, NPA_LAYOUT_MISALIGNED,
					  ps[j].offset, align, -EINVAL);
		if (check_add_overflow(ps[j].offset, sz, &end))
			return npa_refuse(why, true, j, NPA_LAYOUT_OVERFLOW,
					  ps[j].offset, 0, -EOVERFLOW);
		q->offset = ps[j].offset;
		q->granted = sz;
		if (fast_window && end <= fast_window)
			q->placed_flags |= NPA_SCRATCH_PLACED_FAST;
		plan->scratch_requested += sz;
		peak = max(peak, end);
	}

	all = kvcalloc((size_t)nbufs + ir->num_scratch, sizeof(*all),
		       GFP_KERNEL_ACCOUNT);
	if (!all)
		return -ENOMEM;
	memcpy(all, bufs, array_size(nbufs, sizeof(*bufs)));
	for (j = 0; j < ir->num_scratch; j++)
		all[nbufs + j] = (struct npa_plan_buf){
			.size = reqs[j].granted, .align = reqs[j].align,
			.lo = reqs[j].step, .hi = reqs[j].step + 1,
			.offset = reqs[j].offset,
		};
	ret = npa_plan_verify(all, nbufs + ir->num_scratch, peak);
	if (ret == -EEXIST)
		ret = npa_supplied_overlap(l, all, nbufs + ir->num_scratch,
					   nbufs, peak, why);
	kvfree(all);
	if (ret)
		return ret;

	plan->arena_bytes = peak;
	plan->lower_bound = npa_plan_lower_bound(bufs, nbufs);
	plan->scratch_growth = peak - plan->tensor_bytes;
	plan->supplied = true;
	return 0;
}

/*
 * npa_layout_plan() and npa_layout_supplied(): plan the model, or verify
 * and take the layout @pt and @ps (then @why says what is wrong).
 */
static int npa_layout_place(const struct npa_ir *ir, u64 fast_window,
			    u32 growth_pct, u64 budget,
			    const struct npa_ir_place *pt,
			    const struct npa_ir_place *ps,
			    struct npa_layout *plan,
			    struct npa_layout_refusal *why)
{
	struct npa_plan_params params = { .budget = budget };
	struct npa_lower l = { .ir = ir };
	struct npa_scratch_stats st;
	struct npa_scratch_worth worth;
	struct npa_scratch_cost cost;
	struct npa_scratch_req *reqs = NULL;
	struct npa_plan_result res;
	struct npa_plan_buf *bufs;
	u64 start = ktime_get_ns();
	u32 nbufs;
	int ret;

	memset(plan, 0, sizeof(*plan));
	ret = npa_lower_alloc(&l, ir->num_tensors);
	if (ret)
		return ret;
	ret = -ENOMEM;
	bufs = kvcalloc(ir->num_tensors, sizeof(*bufs), GFP_KERNEL_ACCOUNT);
	if (ir->num_scratch)
		reqs = kvcalloc(ir->num_scratch, sizeof(*reqs), GFP_KERNEL_ACCOUNT);
	plan->tensors = kvcalloc(ir->num_tensors, sizeof(*plan->tensors), GFP_KERNEL_ACCOUNT);
	plan->scratch = kvcalloc(max(ir->num_scratch, 1U), sizeof(*plan->scratch),
				 GFP_KERNEL_ACCOUNT);
	if (!bufs || (ir->num_scratch && !reqs) || !plan->tensors || !plan->scratch)
		goto err_free;

	npa_lower_init(&l);
	npa_lower_share(&l);
	nbufs = npa_lower_buffers(&l, bufs, &plan->naive_bytes);
	plan->num_buffers = nbufs;

	if (pt) {
		ret = npa_supplied_place(&l, fast_window, bufs, nbufs, reqs, pt,
					 ps, plan, why);
		if (ret)
			goto err_free;
		goto out_fill;
	}

	ret = npa_plan(bufs, nbufs, &params, &res);
	if (ret)
		goto err_free;
	plan->tensor_bytes = res.peak;
	plan->lower_bound = res.lower_bound;
	plan->algorithm = res.algo;

	plan->arena_bytes = res.peak;
	npa_lower_scratch(ir, reqs);
	worth = (struct npa_scratch_worth){ .ir = ir, .reqs = reqs };
	cost = (struct npa_scratch_cost){
		.cycles = npa_scratch_cycles, .priv = &worth,
		.headroom = div_u64(res.peak, 100) * growth_pct,
	};
	ret = npa_scratch_place_cost(bufs, nbufs, &plan->arena_bytes, reqs,
				     ir->num_scratch, fast_window, &cost, &st);
	if (ret)
		goto err_free;
	plan->scratch_requested = st.requested;
	plan->scratch_growth = st.growth;
	plan->scratch_growth_naive = st.growth_naive;

out_fill:
	npa_fill_placements(&l, bufs, reqs, plan);
	plan->plan_ns = ktime_get_ns() - start;
	ret = 0;
	goto out;

err_free:
	npa_layout_free(plan);
out:
	kvfree(reqs);
	kvfree(bufs);
	npa_lower_free(&l);
	return ret;
}

/**
 * npa_layout_plan() - place a model's tensors and scratch in its arena
 * @ir: the internal model npa_graph_build() made of a graph.
 * @fast_window: bytes at the start of the arena that are fast.
 * @growth_pct: how much variable scratch may grow the arena to save the
 *	cost model's cycles, in percent of the tensors' arena.
 * @budget: planner work budget in placements, 0 for the default.
 * @plan: out: the placements and the report; free with npa_layout_free().
 *
 * Context: Process context; may sleep.
 * Return: 0, or -ENOMEM, or the planner's error.
 */
int npa_layout_plan(const struct npa_ir *ir, u64 fast_window, u32 growth_pct,
		    u64 budget, struct npa_layout *plan)
{
	return npa_layout_place(ir, fast_window, growth_pct, budget, NULL,
				NULL, plan, NULL);
}
EXPORT_SYMBOL_IF_KUNIT(npa_layout_plan);

/**
 * npa_layout_supplied() - take a layout made elsewhere, once verified
 * @ir: the internal model npa_graph_build() made of a graph.
 * @fast_window: bytes at the start of the arena that are fast.
 * @pt: one placement per tensor; the offsets of the arena tensors are
 *	read (tensors that share memory, as npa_layout_plan() shares it,
 *	must be where the sharing puts them), the rest ignored.
 * @ps: one placement per scratch request: offset and size granted.
 * @plan: out: the placements and the report, as npa_layout_plan() gives.
 * @why: out: on a refusal, the element and what is wrong with it.
 *
 * Every offset is checked for alignment, every scratch size against its
 * request, and every pair of buffers live at the same step for overlap, by
 * the planner's own verifier, npa_plan_verify(): O(n log n).
 *
 * Context: Process context; may sleep.
 * Return: 0, -EINVAL (a bad layout: @why says why), -EOVERFLOW, -ENOMEM.
 */
int npa_layout_supplied(const struct npa_ir *ir, u64 fast_window,
			const struct npa_ir_place *pt,
			const struct npa_ir_place *ps, struct npa_layout *plan,
			struct npa_layout_refusal *why)
{
	return npa_layout_place(ir, fast_window, 0, 0, pt, ps, plan, why);
}
EXPORT_SYMBOL_IF_KUNIT(npa_layout_supplied);

/**
 * npa_layout_free() - free what npa_layout_plan() allocated
 * @plan: the layout; may be zeroed or already freed.
 *
 * Context: Process context.
 */
void npa_layout_free(struct npa_layout *plan)
{
	kvfree(plan->tensors);
	kvfree(plan->scratch);
	plan->tensors = NULL;
	plan->scratch = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(npa_layout_free);
