// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (C) 2025 The npa authors
 */

/**
 * DOC: npa arena planner
 *
 * Every tensor of a compiled network lives over a known range of execution
 * steps and needs a known number of bytes. The planner gives each buffer a
 * byte offset in one arena so that no two buffers that are live at the same
 * time overlap, and makes the arena (the peak, max of offset + size) as
 * small as it can. Lifetimes are HALF-OPEN everywhere: a buffer with
 * lo = 3, hi = 5 is live in steps 3 and 4, and does not conflict with a
 * buffer that starts at step 5.
 *
 * The planner is a pure function of its input and its work budget: no
 * device, no locking, no uAPI types, no global state, no clock. It builds
 * unchanged in the kernel, in KUnit and, through the shims in
 * tools/include, in the host tool npactl. Memory is O(n log n).
 *
 * npa_plan() computes the max-load lower bound (npa_plan_bound.c), makes
 * the constructive plans (npa_plan_fit.c: first fit in a few orders, and
 * greedy by size with best fit, the baseline), then spends its budget on
 * the exact search (npa_plan_sched.c, npa_plan_search.c) over the parts of
 * the instance it can search and on a local search over placement orders
 * for the others, each from the best constructive plan, and returns the
 * best plan, checked by npa_plan_verify(). It stops at the lower bound.
 * Twice the budget never gives a larger peak. A fatal signal stops it with
 * -EINTR, never with a different plan. See Documentation/planner.rst.
 */

#include <kunit/visibility.h>
#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/types.h>

#include "npa_plan_int.h"

/* Units of work between looks at the safety stop and cond_resched(). */
#define NPA_PLAN_CHECK_EVERY	1024

/*
 * The default budget, in units of work (about 0.15 us each on a 2020s
 * x86 core): enough for the exact search to plan MiniMalloc's instances
 * within their capacity (F needs 1.15 * 2^20) and for the local search to
 * take the real traces within 0.5% of the bound (Documentation/planner.rst).
 */
#define NPA_PLAN_DEFAULT_BUDGET	BIT_ULL(21)

/* ---------------------------------------------------------------------- */
/* Shared with the other files of the planner */

/*
 * Spend @units of work. Returns false once the budget is spent or the run
 * has been stopped (c->err).
 */
bool npa_plan_spend(struct npa_pctx *c, u64 units)
{
	c->work += units;
	if (c->work >= c->next_check) {
		c->next_check = c->work + NPA_PLAN_CHECK_EVERY;
		cond_resched();
		if (fatal_signal_pending(current))
			c->err = -EINTR;
	}
	return !c->err && c->work < c->budget;
}

/*
 * The area (bytes x steps) of the plan @off above the lower bound: what
 * ranks plans of the same peak. Of two such plans the one with less of
 * its bytes above the bound is the better start for a search.
 */
u64 npa_plan_excess(const struct npa_pctx *c, const u64 *off)
{
	u64 ex = 0;
	u32 i;

	for (i = 0; i < c->m; i++) {
		u64 end = off[i] + c->r[i].size;

		if (end > c->lb)
			ex = npa_sat_add(ex, npa_sat_mul(end - c->lb,
							 c->r[i].hi - c->r[i].lo));
	}
	return ex;
}

/*
 * Keep the plan @off (peak @peak) if it beats the best so far: a lower
 * peak, or the same peak and less area above the bound.
 */
bool npa_plan_keep(struct npa_pctx *c, const u64 *off, u64 peak, u32 algo)
{
	u64 ex;

	if (peak > c->best_peak)
		return false;
	ex = npa_plan_excess(c, off);
	if (peak == c->best_peak && ex >= c->best_ex)
		return false;
	if (off != c->best_off)
		memcpy(c->best_off, off, c->m * sizeof(*off));
	c->best_peak = peak;
	c->best_ex = ex;
	c->best_algo = algo;
	return true;
}

/*
 * Cutoff of a constructive pass (see npa_pass()): once its peak is above
 * the best plan's, it cannot be kept.
 */
u64 npa_plan_cutoff(const struct npa_pctx *c)
{
	return c->best_peak != U64_MAX ? c->best_peak + 1 : 0;
}

/* Descending k1, then descending k2, then ascending id. */
static int npa_key_cmp(const void *a, const void *b)
{
	const struct npa_key *x = a, *y = b;

	if (x->k1 != y->k1)
		return x->k1 > y->k1 ? -1 : 1;
	if (x->k2 != y->k2)
		return x->k2 > y->k2 ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Sort @keys[0, @n) and write their ids in that order to @order. */
void npa_plan_order_by_keys(struct npa_key *keys, u32 n, u32 *order)
{
	u32 i;

	sort(keys, n, sizeof(*keys), npa_key_cmp, NULL);
	for (i = 0; i < n; i++)
		order[i] = keys[i].id;
}

/* ---------------------------------------------------------------------- */
/* Setup */

/*
 * Check every buffer and the arithmetic bound of any plan the planner can
 * produce: each buffer lands at most at the aligned top of the buffers
 * placed before it, so every offset + size stays below the sum of
 * size + align - 1. When that sum fits in u64 no later addition can wrap.
 */
static int npa_plan_check(const struct npa_plan_buf *bufs, u32 n, u64 *naive,
			  u32 *nonzero)
{
	u64 sum = 0, slack = 0;
	u32 i, nz = 0;
	int ret;

	if (n > NPA_PLAN_MAX_BUFS)
		return -E2BIG;
	if (n && !bufs)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		ret = npa_plan_check_buf(&bufs[i]);
		if (ret)
			return ret;
	}
	for (i = 0; i < n; i++) {
		u64 align = bufs[i].align ? bufs[i].align : 1;

		if (!bufs[i].size)
			continue;
		nz++;
		if (check_add_overflow(sum, bufs[i].size, &sum))
			return -EOVERFLOW;
		if (check_add_overflow(slack, align - 1, &slack))
			return -EOVERFLOW;
	}
	if (check_add_overflow(sum, slack, &slack))
		return -EOVERFLOW;
	*naive = sum;
	*nonzero = nz;
	return 0;
}

static int npa_u32_cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* Index of @t in the sorted distinct bounds c->t[0, c->ns + 1). */
static u32 npa_section_of(const struct npa_pctx *c, u32 t)
{
	u32 a = 0, b = c->ns + 1;

	while (a < b) {
		u32 mid = a + (b - a) / 2;

		if (c->t[mid] < t)
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

static void npa_pctx_free(struct npa_pctx *c)
{
	npa_fit_free(c);
	kvfree(c->r);
	kvfree(c->t);
	kvfree(c->off);
	kvfree(c->best_off);
	kvfree(c->order);
	kvfree(c->cand);
	kvfree(c->best_order);
	kvfree(c->keys);
}

/* The @m buffers of non-zero size of @bufs, in sections; the bound. */
static int npa_pctx_init(struct npa_pctx *c, const struct npa_plan_buf *bufs,
			 u32 n, u32 m)
{
	u32 i, j;

	c->m = m;
	c->best_peak = U64_MAX;
	c->best_ex = U64_MAX;
	c->next_check = NPA_PLAN_CHECK_EVERY;
	c->rng = 0x9e3779b97f4a7c15ULL;
	c->r = kvmalloc_array(m, sizeof(*c->r), GFP_KERNEL_ACCOUNT);
	c->t = kvmalloc_array(m, 2 * sizeof(*c->t), GFP_KERNEL_ACCOUNT);
	c->off = kvcalloc(m, sizeof(*c->off), GFP_KERNEL_ACCOUNT);
	c->best_off = kvcalloc(m, sizeof(*c->best_off), GFP_KERNEL_ACCOUNT);
	c->order = kvmalloc_array(m, sizeof(*c->order), GFP_KERNEL_ACCOUNT);
	c->cand = kvmalloc_array(m, sizeof(*c->cand), GFP_KERNEL_ACCOUNT);
	c->best_order = kvmalloc_array(m, sizeof(*c->best_order),
				       GFP_KERNEL_ACCOUNT);
	c->keys = kvmalloc_array(m, sizeof(*c->keys), GFP_KERNEL_ACCOUNT);
	if (!c->r || !c->t || !c->off || !c->best_off || !c->order ||
	    !c->cand || !c->best_order || !c->keys)
		goto err_free;
	for (i = 0, j = 0; i < n; i++) {
		const struct npa_plan_buf *b = &bufs[i];

		if (!b->size)
			continue;
		c->r[j].size = b->size;
		c->r[j].amask = (b->align ? b->align : 1) - 1;
		c->r[j].lo = b->lo;
		c->r[j].hi = b->hi;
		c->r[j].idx = i;
		c->t[2 * j] = b->lo;
		c->t[2 * j + 1] = b->hi;
		j++;
	}
	/* Sections: the spans between the distinct lifetime bounds. */
	sort(c->t, 2 * (size_t)m, sizeof(*c->t), npa_u32_cmp, NULL);
	for (i = 0, j = 0; i < 2 * m; i++)
		if (!j || c->t[j - 1] != c->t[i])
			c->t[j++] = c->t[i];
	c->ns = j - 1;
	for (i = 0; i < m; i++) {
		c->r[i].a = npa_section_of(c, c->r[i].lo);
		c->r[i].b = npa_section_of(c, c->r[i].hi);
	}
	c->lb = npa_plan_sweep_max(c->r, m, c->ns);
	if (c->lb == U64_MAX || npa_fit_init(c))
		goto err_free;
	return 0;

err_free:
	npa_pctx_free(c);
	return -ENOMEM;
}

/* ---------------------------------------------------------------------- */
/* Entry */

/*
 * The searches. First, unless this is the plan of merged buffers, the
 * merged buffers (npa_plan_merge.c) in half of the budget left: a plan of
 * them at the bound ends the run. Then, from the best constructive plan,
 * the exact search on a copy of it, over the parts of the instance small
 * enough for it; when some part above the bound is too large for it, the
 * local search on the best plan itself, and each gets half of what the
 * merge left. The better plan is kept. Each search only improves as its
 * share grows, and the shares depend on the instance and the budget
 * alone, so the result does too.
 */
static int npa_plan_search(struct npa_pctx *c, bool merge)
{
	u64 left = c->budget > c->work ? c->budget - c->work : 0, local;
	u64 *start, peak = 0, merged = U64_MAX, *moff = NULL;
	u32 i, big;
	int ret;

	if (c->best_peak <= c->lb || !left)
		return 0;
	start = kvmalloc_array(c->m, sizeof(*start), GFP_KERNEL_ACCOUNT);
	if (merge && start)
		moff = kvmalloc_array(c->m, sizeof(*moff), GFP_KERNEL_ACCOUNT);
	ret = -ENOMEM;
	if (!start || (merge && !moff))
		goto out;
	if (merge) {
		u64 work = c->work;

		ret = npa_merge(c, left / 2, moff, &merged);
		if (ret)
			goto out;
		if (merged <= c->lb) {
			npa_plan_keep(c, moff, merged, NPA_PLAN_ALGO_MERGE);
			goto out;
		}
		/* At least half is left, even if the merge spent more. */
		left -= min(left / 2, c->work - work);
	}
	memcpy(start, c->best_off, c->m * sizeof(*start));
	ret = npa_search(c, start, 0, &big);
	local = big ? left / 2 : 0;
	if (!ret)
		ret = npa_search(c, start, left - local, &big);
	if (!ret && local)
		ret = npa_fit_local(c, local);
	if (ret)
		goto out;
	for (i = 0; i < c->m; i++)
		peak = max(peak, start[i] + c->r[i].size);
	npa_plan_keep(c, start, peak, NPA_PLAN_ALGO_EXACT);
	if (merged != U64_MAX)
		npa_plan_keep(c, moff, merged, NPA_PLAN_ALGO_MERGE);
out:
	kvfree(moff);
	kvfree(start);
	return ret;
}

/* What a run does: all of it, the baseline alone, or all but the merge. */
enum { NPA_RUN_ALL, NPA_RUN_GREEDY, NPA_RUN_INNER };

static int npa_plan_run(struct npa_plan_buf *bufs, u32 n,
			const struct npa_plan_params *p,
			struct npa_plan_result *res, int what)
{
	struct npa_plan_result local;
	u64 t0 = ktime_get_ns(), naive;
	struct npa_pctx *c;
	u32 m, i;
	int ret;

	if (!res)
		res = &local;
	memset(res, 0, sizeof(*res));
	ret = npa_plan_check(bufs, n, &naive, &m);
	if (ret)
		return ret;
	res->naive = naive;
	if (!m) {
		for (i = 0; i < n; i++)
			bufs[i].offset = 0;
		res->algo = NPA_PLAN_ALGO_NONE;
		res->plan_ns = ktime_get_ns() - t0;
		return 0;
	}
	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		return -ENOMEM;
	ret = npa_pctx_init(c, bufs, n, m);
	if (ret)
		goto err_free;
	c->budget = p && p->budget ? p->budget : NPA_PLAN_DEFAULT_BUDGET;

	if (what != NPA_RUN_GREEDY)
		npa_fit_orders(c);
	npa_fit_greedy(c);
	if (what != NPA_RUN_GREEDY)
		ret = npa_plan_search(c, what == NPA_RUN_ALL);
	if (!ret)
		ret = c->err;
	if (ret)
		goto err_ctx;

	for (i = 0; i < n; i++)
		bufs[i].offset = 0;
	for (i = 0; i < m; i++)
		bufs[c->r[i].idx].offset = c->best_off[i];
	/* The verifier allocates: only a plan it rejects is a bug. */
	ret = npa_plan_verify(bufs, n, c->best_peak);
	if (ret == -ENOMEM || WARN_ON_ONCE(ret))
		goto err_ctx;
	res->peak = c->best_peak;
	res->lower_bound = c->lb;
	res->work = c->work;
	res->algo = c->best_algo;
	res->greedy_peak = c->greedy_peak;
	res->plan_ns = ktime_get_ns() - t0;
err_ctx:
	npa_pctx_free(c);
err_free:
	kfree(c);
	return ret;
}

/**
 * npa_plan() - place buffers in one arena, as small as the budget allows
 * @bufs: buffers; lifetimes are half-open [lo, hi). On success the
 *	@offset of every buffer is set (0 for buffers of size 0).
 * @n: number of buffers, at most %NPA_PLAN_MAX_BUFS
 * @p: limits, or NULL for the defaults
 * @res: results, or NULL
 *
 * Makes the constructive plans, then searches for a better one within the
 * budget, and returns the best plan found; stops early at the lower bound.
 * The plan is a function of @bufs and the budget alone.
 *
 * Context: Process context; may sleep (allocates with GFP_KERNEL_ACCOUNT,
 * charged to the caller's memory cgroup; calls cond_resched()). No locking:
 * the caller owns @bufs.
 * Return: 0 on success; -EINVAL for a bad lifetime (hi <= lo), alignment
 * or flags; -EOVERFLOW if the sizes (plus alignment slack) overflow u64;
 * -E2BIG if @n is too large; -ENOMEM; -EINTR if a fatal signal stopped it
 * (the offsets are then undefined).
 */
int npa_plan(struct npa_plan_buf *bufs, u32 n, const struct npa_plan_params *p,
	     struct npa_plan_result *res)
{
	return npa_plan_run(bufs, n, p, res, NPA_RUN_ALL);
}
EXPORT_SYMBOL_IF_KUNIT(npa_plan);

/* npa_plan() but for the merge: the plan of merged buffers (npa_merge()). */
int npa_plan_inner(struct npa_plan_buf *bufs, u32 n,
		   const struct npa_plan_params *p, struct npa_plan_result *res)
{
	return npa_plan_run(bufs, n, p, res, NPA_RUN_INNER);
}

/**
 * npa_plan_greedy() - the baseline: greedy by size with best-fit gaps
 * @bufs: buffers, as for npa_plan()
 * @n: number of buffers
 * @res: results, or NULL
 *
 * Buffers in order of decreasing size (ties: array order) each go to the
 * smallest gap between the live buffers already placed that holds them,
 * else on top of them: the rule of TFLite's GreedyBySize planner.
 *
 * Context: Process context; may sleep.
 * Return: as npa_plan().
 */
int npa_plan_greedy(struct npa_plan_buf *bufs, u32 n,
		    struct npa_plan_result *res)
{
	return npa_plan_run(bufs, n, NULL, res, NPA_RUN_GREEDY);
}
EXPORT_SYMBOL_IF_KUNIT(npa_plan_greedy);

/**
 * npa_plan_algo_name() - name of an &enum npa_plan_algo value
 * @algo: the value
 *
 * Context: Any context.
 * Return: a static string; "unknown" for values out of range.
 */
const char *npa_plan_algo_name(u32 algo)
{
	static const char * const names[NPA_PLAN_ALGO_COUNT] = {
		[NPA_PLAN_ALGO_NONE] = "none",
		[NPA_PLAN_ALGO_GREEDY] = "greedy-by-size",
		[NPA_PLAN_ALGO_ORDER] = "first-fit-order",
		[NPA_PLAN_ALGO_SEARCH] = "local-search",
		[NPA_PLAN_ALGO_EXACT] = "exact",
		[NPA_PLAN_ALGO_MERGE] = "merged",
	};

	return algo < NPA_PLAN_ALGO_COUNT ? names[algo] : "unknown";
}
EXPORT_SYMBOL_IF_KUNIT(npa_plan_algo_name);
