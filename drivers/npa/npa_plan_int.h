/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npa planner, internal: what the planner's files share (npa_plan.c the
 * entry, npa_plan_bound.c the bounds and the verifier, npa_plan_fit.c the
 * constructive plans, npa_plan_search.c and npa_plan_sched.c the exact
 * search, npa_plan_merge.c the merged buffers). Not uAPI.
 */
#ifndef _NPA_PLAN_INT_H_
#define _NPA_PLAN_INT_H_

#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/types.h>

#include "npa_plan.h"

/* A buffer of non-zero size, as the planner sees it. */
struct npa_rect {
	u64 size;
	u64 amask;		/* alignment - 1 */
	u32 lo, hi;		/* half-open lifetime in steps */
	u32 a, b;		/* lifetime as a range of sections [a, b) */
	u32 idx;		/* index into the caller's array */
};

/* An occupied address range [off, end). */
struct npa_iv {
	u64 off, end;
};

/* Disjoint, sorted, merged ranges: pool[base, base + cnt). */
struct npa_list {
	u32 base, cnt;
};

/* Max number of time-tree nodes one lifetime touches (2 per level). */
#define NPA_PLAN_MAX_NODES	(2 * 32)

/*
 * The occupancy index of the constructive plans (npa_plan_fit.c): a
 * segment tree over the sections whose nodes keep the merged address
 * ranges of the buffers placed over them.
 */
struct npa_tree {
	u32 size;		/* leaves, a power of two */
	struct npa_list *full;	/* 2 * size */
	struct npa_list *part;	/* 2 * size */
	struct npa_iv *pool;
	const struct npa_list *q[3 * NPA_PLAN_MAX_NODES];
	u32 cur[3 * NPA_PLAN_MAX_NODES];
	u64 steps;		/* list entries looked at */
};

/* Live bytes over the sections: a max segment tree and prefix sums. */
struct npa_profile {
	u32 size;
	u64 *tree;	/* 2 * size: max of the live bytes */
	u64 *psum;	/* size + 1: live bytes x steps up to a section */
};

/* Sort key of an order: descending k1, k2, then ascending id. */
struct npa_key {
	u64 k1, k2;
	u32 id;
};

/*
 * Elementary steps (a list entry, a section or a buffer looked at) that
 * make a unit of work on top of the one unit each placement costs.
 */
#define NPA_PLAN_STEPS_PER_UNIT	64

/**
 * struct npa_pctx - one planning run
 * @r: the buffers of non-zero size
 * @m: their number
 * @t: the distinct lifetime bounds; section i is [@t[i], @t[i + 1])
 * @ns: number of sections (spans between distinct lifetime bounds)
 * @lb: max-load lower bound
 * @work: units spent; @budget: units allowed
 * @next_check: @work at which the safety stop is looked at next
 * @err: -EINTR once the caller is being killed; the run then fails
 * @out: a placement of a pass did not fit in what is left of the budget
 * @tree: occupancy index of the passes
 * @prof: live bytes over the sections, for the metric orders
 * @off: offsets of the plan in progress; @peak: its top
 * @best_off: best plan so far; @best_peak, @best_ex, @best_algo: its peak,
 *	its area above the bound (npa_plan_excess()), where it came from
 * @greedy_peak: peak of the greedy-by-size plan
 * @pass_units: the most units a complete first-fit pass took
 * @order, @cand: placement orders (m each); @best_order: the first-fit
 *	order of the best plan when it came from one (NPA_PLAN_ALGO_ORDER)
 * @keys: sort scratch (m)
 * @rng: the local search's pseudo-random state
 */
struct npa_pctx {
	struct npa_rect *r;
	u32 *t;
	u32 m, ns;
	u64 lb;
	u64 work, budget, next_check;
	int err;
	bool out;
	struct npa_tree tree;
	struct npa_profile prof;
	u64 *off, peak;
	u64 *best_off, best_peak, best_ex;
	u32 best_algo;
	u64 greedy_peak;
	u64 pass_units;
	u32 *order, *cand, *best_order;
	struct npa_key *keys;
	u64 rng;
};

static inline u64 npa_sat_mul(u64 a, u64 b)
{
	u64 r;

	return check_mul_overflow(a, b, &r) ? U64_MAX : r;
}

static inline u64 npa_sat_add(u64 a, u64 b)
{
	u64 r;

	return check_add_overflow(a, b, &r) ? U64_MAX : r;
}

/*
 * Is there room for @more steps past the @taken ones within @most? If
 * not, *@out is set: what would not fit is not started, and the work it
 * belongs to stops.
 */
static inline bool npa_plan_room(bool *out, u64 taken, u64 most, u64 more)
{
	if (!*out && taken <= most && more <= most - taken)
		return true;
	*out = true;
	return false;
}

/* Is @b a buffer npa_plan() accepts? 0 or -EINVAL. */
static inline int npa_plan_check_buf(const struct npa_plan_buf *b)
{
	u64 align = b->align ? b->align : 1;

	if (b->flags & ~NPA_PLAN_BUF_FLAGS_MASK)
		return -EINVAL;
	if (b->hi <= b->lo)
		return -EINVAL;
	if (!is_power_of_2(align) || align > NPA_PLAN_MAX_ALIGN)
		return -EINVAL;
	return 0;
}

/* npa_plan.c */
bool npa_plan_spend(struct npa_pctx *c, u64 units);
u64 npa_plan_excess(const struct npa_pctx *c, const u64 *off);
bool npa_plan_keep(struct npa_pctx *c, const u64 *off, u64 peak, u32 algo);
u64 npa_plan_cutoff(const struct npa_pctx *c);
void npa_plan_order_by_keys(struct npa_key *keys, u32 n, u32 *order);
int npa_plan_inner(struct npa_plan_buf *bufs, u32 n,
		   const struct npa_plan_params *p, struct npa_plan_result *res);

/* npa_plan_bound.c */
u64 npa_plan_sweep_max(const struct npa_rect *r, u32 m, u32 ns);

/* npa_plan_fit.c */
int npa_fit_init(struct npa_pctx *c);
void npa_fit_free(struct npa_pctx *c);
void npa_fit_greedy(struct npa_pctx *c);
void npa_fit_orders(struct npa_pctx *c);
int npa_fit_local(struct npa_pctx *c, u64 budget);
void npa_fit_forget(struct npa_pctx *c, u32 a, u32 b);
u64 npa_fit_put(struct npa_pctx *c, u32 id, u64 off);
u64 npa_fit_put_within(struct npa_pctx *c, u32 id, u64 off, u64 most);

/* npa_plan_merge.c */
int npa_merge(struct npa_pctx *c, u64 budget, u64 *off, u64 *peak);

/* npa_plan_sched.c */
int npa_search(struct npa_pctx *c, u64 *off, u64 budget, u32 *big);

#endif /* _NPA_PLAN_INT_H_ */
