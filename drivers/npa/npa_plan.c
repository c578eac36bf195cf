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
 * time overlap, and tries to make the arena (the peak, max of offset + size)
 * as small as possible. Lifetimes are HALF-OPEN everywhere: a buffer with
 * lo = 3, hi = 5 is live in steps 3 and 4, and does not conflict with a
 * buffer that starts at step 5.
 *
 * The planner is a pure function of its input: no device, no locking, no
 * uAPI types, no global state. It builds unchanged in the kernel, in KUnit
 * and, through the shims in tools/include, in the host tool npactl. Memory
 * is O(n log n) at most (the occupancy index); there is never an n x n
 * conflict matrix.
 *
 * npa_plan() runs, within a work budget counted in placements:
 *
 * 1. the max-load lower bound by a sweep over lifetimes;
 * 2. first fit (lowest free address) in several metric orders;
 * 3. greedy by size with best-fit gaps (the TFLite rule), the baseline;
 * 4. for instances of up to 16384 buffers whose load is the lower bound
 *    at every step (and no alignment), first (before 2. and 3.) the
 *    guillotine step (npa_guillotine.c): a guillotine tiling rebuilt bottom
 *    up from the sizes and lifetimes, which ends the run at the bound;
 *    then the tiling search: a time sweep over the orders of the
 *    live buffers that are still possible (a PQ-tree) for a plan without
 *    a free byte; and the merge step: buffers merged back into the
 *    rectangles they may have been cut from, whose plans are plans of the
 *    buffers (above 4096 buffers, before the tiling search);
 * 5. for tightly packed instances of up to 4096 buffers, an exact search
 *    for a plan without holes at the lower bound; if it finds none, the
 *    completion of its deepest partial plan a little above the bound, and
 *    greedy skyline passes;
 * 6. peak suppression: classify buffers by risk against the lower bound,
 *    group the risky ones by time overlap, reorder and re-place them first;
 * 7. for the other instances, the exact search with a quarter of what is
 *    left;
 * 8. a randomized local search over placement orders;
 *
 * and returns the best plan seen, stopping early when it meets the lower
 * bound. The result is deterministic for a given input and budget (own
 * PRNG, fixed seed); the wall-clock cap is a safety net only.
 *
 * npa_plan_verify() is an independent O(n log n) sweep that checks a plan.
 */

#include <kunit/visibility.h>
#include <linux/align.h>
#include <linux/bitops.h>
#include <linux/bsearch.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/types.h>

#include "npa_guillotine.h"
#include "npa_plan.h"

#ifdef DEBUG
#define NPA_PLAN_SELFCHECK	1
#else
#define NPA_PLAN_SELFCHECK	0
#endif

/* Placements between wall-clock checks and cond_resched() calls. */
#define NPA_PLAN_CHECK_EVERY	1024
/* Largest instance the exact search is tried on. */
#define NPA_PLAN_EXACT_MAX	4096
/*
 * Modes of npa_plan_run(): the baseline only; no merge step; one metric
 * order and no baseline (the merge step's plans of the pieces of an
 * instance above NPA_PLAN_EXACT_MAX, see npa_merge_plan()); no guillotine
 * step (see npa_run_guillotine()).
 */
#define NPA_RUN_GREEDY		1U
#define NPA_RUN_NO_MERGE	2U
#define NPA_RUN_LEAN		4U
/* No guillotine step: the plans it makes itself, and the merge step's. */
#define NPA_RUN_NO_GUILLO	8U

/* A buffer of non-zero size, as the planner sees it. */
struct npa_rect {
	u64 size;
	u64 amask;		/* alignment - 1 */
	u32 lo, hi;		/* half-open lifetime in steps */
	u32 a, b;		/* the same as a range of time-tree leaves */
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
 * The occupancy index. A segment tree over compressed time: leaf i is the
 * span between the i-th and (i+1)-th distinct lifetime bound. A placed
 * buffer adds its address range to the "full" list of the O(log n) nodes
 * that tile its lifetime and to the "part" list of the O(log n) nodes that
 * its lifetime only partly covers. The buffers live at some time of a
 * range R are then exactly those in the full lists of the nodes tiling R
 * and of their ancestors, plus those in the part lists of the tiling nodes.
 * Each list keeps the union of its ranges (merged, sorted), so a query
 * walks few ranges even when thousands of buffers are live.
 */
struct npa_tree {
	u32 size;		/* leaves, a power of two */
	struct npa_list *full;	/* 2 * size */
	struct npa_list *part;	/* 2 * size */
	struct npa_iv *pool;
	const struct npa_list *q[3 * NPA_PLAN_MAX_NODES];
	u32 cur[3 * NPA_PLAN_MAX_NODES];
	u64 steps;		/* lists looked at by npa_tree_fit() */
};

/* Live bytes over time (see npa_profile_build()). */
struct npa_profile {
	u32 size;
	u64 *tree;
	u64 *psum;
};

/* Sort key of an order: descending k1, k2, then ascending id. */
struct npa_key {
	u64 k1, k2;
	u32 id;
};

/* A union of lifetimes, as a range of time-tree leaves. */
struct npa_seg {
	u32 a, b;
};

/*
 * Sort key of the suppression order: ascending k0 (the class and group),
 * then descending k1 and k2 (the metric), then ascending id.
 */
struct npa_skey {
	u64 k0, k1, k2;
	u32 id;
};

struct npa_frame;
struct npa_tt;

struct npa_ctx {
	struct npa_rect *r;
	u32 m;
	u32 *t;			/* distinct lifetime bounds */
	u32 nt;
	struct npa_tree tree;
	u64 *off;		/* offset of each rect in the current pass */
	u64 peak;		/* of the placement in progress */

	u64 lb;
	u64 work, budget;
	u64 next_check;		/* work at which npa_check_due() is next */
	u64 t0, cap_ns;
	bool out_of_time;
	bool piece_plan;	/* of the merge step's pieces */

	u64 *best_off;		/* per rect */
	u64 best_peak;
	u64 best_excess;	/* area above the lower bound */
	u32 best_algo;
	bool have_best;
	u64 greedy_peak;
	u32 *best_order;

	/* Scratch of the searches, m entries each unless noted. */
	struct npa_profile prof;
	u32 *order, *cand;	/* placement orders */
	u64 *cur_off;		/* local search: the current plan */
	u32 *by_a;		/* rects by first leaf */
	u8 *risk;		/* enum npa_risk */
	struct npa_seg *seg;	/* unions of lifetimes */
	struct npa_key *keys, *gkeys;
	struct npa_skey *skeys;
	u32 *grank;		/* rank of each group */

	/* Exact search (allocated on demand). */
	struct npa_frame *frames;
	u32 nframes;
	u64 *sky;		/* skyline height per leaf */
	u64 *rem;		/* bytes of unplaced rects live per leaf */
	u32 *live;		/* unplaced rects live per leaf */
	u32 *span;		/* unplaced rects across each bound */
	u64 *rem_s, *rem_e;	/* unplaced bytes starting, ending per bound */
	bool *placed;
	u32 *start, *bucket;	/* rects by first leaf */
	bool dfs_random;	/* restarts scan candidates at random */
	u32 *estart, *ebucket;	/* rects by end bound */
	u64 cap;		/* of the exact search in progress */
	u64 zkey;		/* hash of the search state */
	struct npa_tt *tt;	/* states known to fail at tt_cap */
	u32 tt_mask;
	u64 tt_cap;
	u64 *zs, *ze;		/* XOR Fenwick trees of the keys by first, last leaf */
	u32 *ng;		/* per leaf: NPA_NG_WAYS nogood ranges, lo << 16 | len */
	u8 *reach;		/* per bound: scratch of npa_dfs_floor_ok() */
	u64 dfs_steps;		/* leaves and candidates looked at, this placement */
	u64 *deep_off;		/* deepest partial plan: offsets, U64_MAX if out */
	u32 deep_n;		/* rects it places */
	u32 done_n;		/* rects placed before this search (parts, @deep_off) */
	bool dfs_pre;		/* start from the plan in @deep_off */

	u64 rng;
};

/* ---------------------------------------------------------------------- */
/* Input checking */

static int npa_plan_check_buf(const struct npa_plan_buf *b)
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

/* ---------------------------------------------------------------------- */
/* Lower bound */

/* Sweep event: key is (time << 1) | is_start, so ends sort before starts. */
struct npa_ev {
	u64 key;
	u64 size;
};

static int npa_ev_cmp(const void *a, const void *b)
{
	const struct npa_ev *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return 0;
}

/* Max over time of the live bytes of @ev (2 events per buffer, unsorted). */
static u64 npa_sweep_max(struct npa_ev *ev, u32 nev)
{
	u64 live = 0, best = 0;
	u32 i;

	sort(ev, nev, sizeof(*ev), npa_ev_cmp, NULL);
	for (i = 0; i < nev; i++) {
		if (ev[i].key & 1) {
			if (check_add_overflow(live, ev[i].size, &live))
				return U64_MAX;
			best = max(best, live);
		} else {
			live -= ev[i].size;
		}
	}
	return best;
}

/**
 * npa_plan_lower_bound() - max-load lower bound of a set of buffers
 * @bufs: buffers; lifetimes are half-open [lo, hi)
 * @n: number of buffers
 *
 * The largest number of bytes live at one time: no plan can have a smaller
 * peak. Buffers of size 0 or with an empty lifetime (hi <= lo) count for
 * nothing; alignment is not taken into account. O(n log n) time, O(n)
 * memory.
 *
 * Context: Process context; may sleep (allocates with GFP_KERNEL_ACCOUNT).
 * Return: the bound, or U64_MAX if the live bytes overflow u64 or the sweep
 * could not allocate its memory.
 */
u64 npa_plan_lower_bound(const struct npa_plan_buf *bufs, u32 n)
{
	struct npa_ev *ev;
	u32 i, nev = 0;
	u64 lb;

	if (!n || !bufs)
		return 0;
	ev = kvmalloc_array(n, 2 * sizeof(*ev), GFP_KERNEL_ACCOUNT);
	if (!ev)
		return U64_MAX;
	for (i = 0; i < n; i++) {
		if (!bufs[i].size || bufs[i].hi <= bufs[i].lo)
			continue;
		ev[nev].key = (u64)bufs[i].lo << 1 | 1;
		ev[nev++].size = bufs[i].size;
		ev[nev].key = (u64)bufs[i].hi << 1;
		ev[nev++].size = bufs[i].size;
	}
	lb = npa_sweep_max(ev, nev);
	kvfree(ev);
	return lb;
}
EXPORT_SYMBOL_IF_KUNIT(npa_plan_lower_bound);

/* ---------------------------------------------------------------------- */
/* Occupancy index */

static int npa_u32_cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* Index of @t in the sorted distinct bounds c->t. */
static u32 npa_time_rank(const struct npa_ctx *c, u32 t)
{
	u32 a = 0, b = c->nt;

	while (a < b) {
		u32 mid = a + (b - a) / 2;

		if (c->t[mid] < t)
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

/*
 * The nodes of the time tree for leaves [a, b): @tile gets the nodes that
 * tile the range, @over the nodes that contain part of it and part of
 * something else (the strict ancestors of the tiling nodes).
 */
static void npa_tree_nodes(const struct npa_tree *t, u32 a, u32 b,
			   u32 *tile, u32 *ntile, u32 *over, u32 *nover)
{
	u32 l = a + t->size, r = b + t->size, nt = 0, no = 0, h;
	u32 ul = a + t->size, ur = b - 1 + t->size;

	for (; l < r; l >>= 1, r >>= 1) {
		if (l & 1)
			tile[nt++] = l++;
		if (r & 1)
			tile[nt++] = --r;
	}
	/* Walk both boundary paths up; keep nodes not inside [a, b). */
	for (h = 0; ul; h++, ul >>= 1, ur >>= 1) {
		u64 lo = ((u64)ul << h) - t->size, hi = lo + (1ULL << h);

		if (lo < a || hi > b)
			over[no++] = ul;
		if (ur == ul)
			continue;
		lo = ((u64)ur << h) - t->size;
		hi = lo + (1ULL << h);
		if (lo < a || hi > b)
			over[no++] = ur;
	}
	*ntile = nt;
	*nover = no;
}

/* Leaves @t empty: npa_tree_init() and npa_ctx_free() both call it. */
static void npa_tree_free(struct npa_tree *t)
{
	kvfree(t->full);
	kvfree(t->part);
	kvfree(t->pool);
	t->full = NULL;
	t->part = NULL;
	t->pool = NULL;
}

/* Size every list for the most ranges it can ever hold, in one pool. */
static int npa_tree_init(struct npa_ctx *c)
{
	struct npa_tree *t = &c->tree;
	u32 tile[NPA_PLAN_MAX_NODES], over[NPA_PLAN_MAX_NODES];
	u32 i, j, ntile, nover, leaves = max_t(u32, c->nt - 1, 1);
	u64 total = 0;

	t->size = roundup_pow_of_two(leaves);
	t->full = kvcalloc(2 * (size_t)t->size, sizeof(*t->full), GFP_KERNEL_ACCOUNT);
	t->part = kvcalloc(2 * (size_t)t->size, sizeof(*t->part), GFP_KERNEL_ACCOUNT);
	if (!t->full || !t->part)
		goto err_free;
	/* Count into .cnt first, then turn the counts into bases. */
	for (i = 0; i < c->m; i++) {
		npa_tree_nodes(t, c->r[i].a, c->r[i].b, tile, &ntile, over,
			       &nover);
		for (j = 0; j < ntile; j++)
			t->full[tile[j]].cnt++;
		for (j = 0; j < nover; j++)
			t->part[over[j]].cnt++;
	}
	for (i = 1; i < 2 * t->size; i++) {
		t->full[i].base = total;
		total += t->full[i].cnt;
		t->part[i].base = total;
		total += t->part[i].cnt;
		t->full[i].cnt = 0;
		t->part[i].cnt = 0;
	}
	if (total > U32_MAX)
		goto err_free;
	t->pool = kvmalloc_array(max_t(u64, total, 1), sizeof(*t->pool),
				 GFP_KERNEL_ACCOUNT);
	if (!t->pool)
		goto err_free;
	return 0;

err_free:
	npa_tree_free(t);
	return -ENOMEM;
}

static void npa_tree_clear(struct npa_ctx *c)
{
	struct npa_tree *t = &c->tree;
	u32 i;

	for (i = 1; i < 2 * t->size; i++) {
		t->full[i].cnt = 0;
		t->part[i].cnt = 0;
	}
	c->peak = 0;
}

/* First range of @l that ends after @x. */
static u32 npa_list_after(const struct npa_iv *v, u32 cnt, u64 x)
{
	u32 a = 0, b = cnt;

	while (a < b) {
		u32 mid = a + (b - a) / 2;

		if (v[mid].end <= x)
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

/* Add [off, end) to a list, merging it with the ranges it overlaps or touches. */
static void npa_list_add(struct npa_iv *pool, struct npa_list *l, u64 off,
			 u64 end)
{
	struct npa_iv *v = pool + l->base;
	u32 i, j;

	/* v[i..] end at or after off; merge those that start by end. */
	i = npa_list_after(v, l->cnt, off ? off - 1 : 0);
	for (j = i; j < l->cnt && v[j].off <= end; j++)
		;
	if (i == j) {
		memmove(v + i + 1, v + i, (l->cnt - i) * sizeof(*v));
		v[i].off = off;
		v[i].end = end;
		l->cnt++;
		return;
	}
	v[i].off = min(v[i].off, off);
	v[i].end = max(v[j - 1].end, end);
	if (j - i > 1) {
		memmove(v + i + 1, v + j, (l->cnt - j) * sizeof(*v));
		l->cnt -= j - i - 1;
	}
}

static void npa_tree_add(struct npa_ctx *c, u32 id, u64 off)
{
	struct npa_tree *t = &c->tree;
	const struct npa_rect *r = &c->r[id];
	u32 tile[NPA_PLAN_MAX_NODES], over[NPA_PLAN_MAX_NODES];
	u32 j, ntile, nover;
	u64 end = off + r->size;

	npa_tree_nodes(t, r->a, r->b, tile, &ntile, over, &nover);
	for (j = 0; j < ntile; j++)
		npa_list_add(t->pool, &t->full[tile[j]], off, end);
	for (j = 0; j < nover; j++)
		npa_list_add(t->pool, &t->part[over[j]], off, end);
	c->off[id] = off;
	c->peak = max(c->peak, end);
}

/* Collect the non-empty lists that hold the buffers live during [a, b). */
static u32 npa_tree_query(struct npa_tree *t, u32 a, u32 b)
{
	u32 tile[NPA_PLAN_MAX_NODES], over[NPA_PLAN_MAX_NODES];
	u32 j, ntile, nover, nq = 0;

	npa_tree_nodes(t, a, b, tile, &ntile, over, &nover);
	for (j = 0; j < ntile; j++) {
		if (t->full[tile[j]].cnt)
			t->q[nq++] = &t->full[tile[j]];
		if (t->part[tile[j]].cnt)
			t->q[nq++] = &t->part[tile[j]];
	}
	for (j = 0; j < nover; j++)
		if (t->full[over[j]].cnt)
			t->q[nq++] = &t->full[over[j]];
	return nq;
}

/* First range at or after @j in @v[0, cnt) that ends after @x (galloping). */
static u32 npa_list_skip(const struct npa_iv *v, u32 cnt, u32 j, u64 x)
{
	u32 step = 1, lo, hi;

	if (j >= cnt || v[j].end > x)
		return j;
	lo = j + 1;
	while (lo + step - 1 < cnt && v[lo + step - 1].end <= x) {
		lo += step;
		step <<= 1;
	}
	hi = min_t(u32, lo + step - 1, cnt);
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (v[mid].end <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Lowest aligned x >= @x with [x, x + size) clear of all @nq lists of the
 * last query, each from its cursor in t->cur[] (no range before it ends
 * after @x). x only grows, so each list keeps its cursor; the scan stops
 * when a full round over the lists leaves x where it is, and each cursor
 * is then at the first range of its list that ends after x.
 */
static u64 npa_tree_skip(struct npa_tree *t, u32 nq, u64 x, u64 size,
			 u64 amask)
{
	u32 i = 0, ok = 0;

	x = (x + amask) & ~amask;
	while (ok < nq) {
		const struct npa_list *l = t->q[i];
		const struct npa_iv *v = t->pool + l->base;
		u32 j = npa_list_skip(v, l->cnt, t->cur[i], x);
		bool moved = false;

		while (j < l->cnt && v[j].off < x + size) {
			x = (v[j].end + amask) & ~amask;
			j = npa_list_skip(v, l->cnt, j + 1, x);
			moved = true;
			t->steps++;
		}
		t->steps++;
		t->cur[i] = j;
		ok = moved ? 1 : ok + 1;
		if (++i == nq)
			i = 0;
	}
	return x;
}

/* npa_tree_skip() over the lists of the last query from their start. */
static u64 npa_tree_fit(struct npa_tree *t, u32 nq, u64 x, u64 size,
			u64 amask)
{
	memset(t->cur, 0, nq * sizeof(*t->cur));
	return npa_tree_skip(t, nq, x, size, amask);
}

/*
 * List steps a first fit takes as part of its placement (the real traces
 * take 80-220 on average), and how many more cost a unit of work.
 */
#define NPA_FIT_FREE	1024
#define NPA_FIT_STEPS	64

/* First fit: the lowest free address, as the peak-suppression rule asks. */
static u64 npa_fit_lowest(struct npa_ctx *c, const struct npa_rect *r)
{
	u32 nq = npa_tree_query(&c->tree, r->a, r->b);
	u64 x;

	c->tree.steps = 0;
	x = npa_tree_fit(&c->tree, nq, 0, r->size, r->amask);
	/*
	 * A placement is a unit of work, but with thousands of buffers live
	 * a first fit can look at thousands of lists: charge the steps past
	 * NPA_FIT_FREE too, a unit per NPA_FIT_STEPS (about what a unit
	 * costs), so that the budget, not the time cap, ends such a plan.
	 */
	if (c->tree.steps > NPA_FIT_FREE)
		c->work += (c->tree.steps - NPA_FIT_FREE) / NPA_FIT_STEPS;
	return x;
}

/*
 * The free gaps between the buffers live during [@a, @b), in address
 * order: npa_gaps_begin() queries the lists, each npa_gaps_next() returns
 * the next gap [*lo, *hi), and when none is left g->prev is the top of the
 * buffers. A gap starts where a run of ranges that touch or overlap ends
 * (npa_tree_skip() for one free byte, which gallops over the ranges of a
 * list that end before it) and ends at the first range of any list after
 * that: best fit on a sweep strip of 4000 has ~880 ranges in ~18 lists to
 * look at for each rect but only ~34 gaps, and a pass took 120 ms with a
 * heap merge of the lists that looked at every range, 80 ms this way.
 */
struct npa_gaps {
	struct npa_tree *t;
	u32 n;
	u64 prev;
};

static void npa_gaps_begin(struct npa_ctx *c, u32 a, u32 b,
			   struct npa_gaps *g)
{
	g->t = &c->tree;
	g->n = npa_tree_query(g->t, a, b);
	g->prev = 0;
	memset(g->t->cur, 0, g->n * sizeof(*g->t->cur));
}

static bool npa_gaps_next(struct npa_gaps *g, u64 *lo, u64 *hi)
{
	struct npa_tree *t = g->t;
	u64 x = npa_tree_skip(t, g->n, g->prev, 1, 0), next = U64_MAX;
	u32 i;

	for (i = 0; i < g->n; i++) {
		const struct npa_list *l = t->q[i];

		if (t->cur[i] < l->cnt)
			next = min(next, t->pool[l->base + t->cur[i]].off);
	}
	if (next == U64_MAX) {
		g->prev = x;
		return false;
	}
	*lo = x;
	*hi = next;
	g->prev = next;
	return true;
}

/*
 * TFLite's best fit: among the gaps between the live buffers (in address
 * order), the smallest that holds the buffer; else on top of them.
 */
static u64 npa_fit_best(struct npa_ctx *c, const struct npa_rect *r)
{
	u64 lo, hi, best = U64_MAX, best_gap = U64_MAX;
	struct npa_gaps g;

	npa_gaps_begin(c, r->a, r->b, &g);
	while (npa_gaps_next(&g, &lo, &hi)) {
		u64 x = (lo + r->amask) & ~r->amask;

		if (x + r->size <= hi && hi - lo < best_gap) {
			best_gap = hi - lo;
			best = x;
		}
	}
	return best != U64_MAX ? best : (g.prev + r->amask) & ~r->amask;
}

/* ---------------------------------------------------------------------- */
/* Budget */

/*
 * True when the wall-clock safety net has been hit, or the caller is being
 * killed: the rest of the plan is then the quickest valid one.
 */
static bool npa_time_check(struct npa_ctx *c)
{
	cond_resched();
	if (!c->out_of_time && (ktime_get_ns() - c->t0 > c->cap_ns ||
				fatal_signal_pending(current)))
		c->out_of_time = true;
	return c->out_of_time;
}

/*
 * Time for npa_time_check()? Every NPA_PLAN_CHECK_EVERY units of work
 * however they were counted: a fit charges the steps it scanned, so work
 * jumps, and a test of work % NPA_PLAN_CHECK_EVERY missed most checks (5 s
 * without one on 65536 random lifetimes).
 */
static bool npa_check_due(struct npa_ctx *c)
{
	if (c->work < c->next_check)
		return false;
	c->next_check = c->work + NPA_PLAN_CHECK_EVERY;
	return true;
}

/* May another pass of @cost placements start? */
static bool npa_can_spend(struct npa_ctx *c, u64 cost)
{
	return !c->out_of_time && c->work + cost <= c->budget;
}

/*
 * Place the buffers of @order (all of them) from scratch. A non-zero
 * @cutoff stops the pass early once the peak reaches it (the plan cannot
 * win) or when the wall-clock cap is hit; with none, the buffers left
 * at the cap go on top. Returns true when all buffers were placed; the
 * peak is then in c->peak.
 */
static bool npa_pass(struct npa_ctx *c, const u32 *order, bool bestfit,
		     u64 cutoff)
{
	u32 i;

	npa_tree_clear(c);
	for (i = 0; i < c->m; i++) {
		const struct npa_rect *r = &c->r[order[i]];
		u64 off;

		/*
		 * Past the time cap, a pass that must finish (no plan to beat
		 * yet) puts the rest on top: valid, and no scan of the live
		 * buffers, which can cost thousands of steps a buffer.
		 */
		if (c->out_of_time)
			off = (c->peak + r->amask) & ~r->amask;
		else if (bestfit)
			off = npa_fit_best(c, r);
		else
			off = npa_fit_lowest(c, r);
		npa_tree_add(c, order[i], off);
		c->work++;
		if (cutoff && c->peak >= cutoff)
			return false;
		if (npa_check_due(c) && npa_time_check(c) && cutoff)
			return false;
	}
	return true;
}

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
 * Secondary cost of the placement in c->off, to break ties between plans
 * of equal peak: the area (bytes x steps) above the lower bound.
 */
static u64 npa_excess(const struct npa_ctx *c)
{
	u64 ex = 0;
	u32 i;

	for (i = 0; i < c->m; i++) {
		u64 end = c->off[i] + c->r[i].size;

		if (end > c->lb)
			ex = npa_sat_add(ex, npa_sat_mul(end - c->lb,
							 c->r[i].hi - c->r[i].lo));
	}
	return ex;
}

/*
 * Keep the placement in c->off if it beats the best so far: a lower peak,
 * or the same peak with less area above the lower bound (a better start
 * for the searches that follow).
 */
static bool npa_keep(struct npa_ctx *c, u32 algo)
{
	u64 peak = c->peak, ex;

	if (c->have_best && peak > c->best_peak)
		return false;
	ex = npa_excess(c);
	if (c->have_best && peak == c->best_peak && ex >= c->best_excess)
		return false;
	pr_debug("npa_plan: %s: peak %llu (lb %llu) after %llu placements\n",
		 npa_plan_algo_name(algo), peak, c->lb, c->work);
	memcpy(c->best_off, c->off, c->m * sizeof(*c->off));
	c->best_peak = peak;
	c->best_excess = ex;
	c->best_algo = algo;
	c->have_best = true;
	return true;
}

/* ---------------------------------------------------------------------- */
/* Orders */

/* Descending k1, then descending k2, then ascending id. */
static int npa_key_cmp(const void *a, const void *b)
{
	const struct npa_key *x = a, *y = b;

	if (x->k1 != y->k1)
		return x->k1 > y->k1 ? -1 : 1;
	if (x->k2 != y->k2)
		return x->k2 > y->k2 ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return 0;
}

static void npa_order_by_keys(struct npa_key *keys, u32 n, u32 *order)
{
	u32 i;

	sort(keys, n, sizeof(*keys), npa_key_cmp, NULL);
	for (i = 0; i < n; i++)
		order[i] = keys[i].id;
}

/*
 * The rects of a plan in c->off by offset (@placed NULL: all of them),
 * then the others, biggest first, in @order. First fit in that order puts
 * each rect at or below its offset in the plan: every rect before it that
 * lives at the same time lies below it there. Uses c->keys.
 */
static void npa_order_by_off(struct npa_ctx *c, const bool *placed,
			     u32 *order)
{
	u32 i;

	for (i = 0; i < c->m; i++) {
		c->keys[i].id = i;
		c->keys[i].k1 = !placed || placed[i] ? U64_MAX - c->off[i] : 0;
		c->keys[i].k2 = c->r[i].size;
	}
	npa_order_by_keys(c->keys, c->m, order);
}

/* c->peak: the top of the plan in c->off. */
static void npa_off_peak(struct npa_ctx *c)
{
	u32 i;

	c->peak = 0;
	for (i = 0; i < c->m; i++)
		c->peak = max(c->peak, c->off[i] + c->r[i].size);
}

/*
 * Keep a plan made as offsets (c->off, its peak in c->peak), not by a
 * pass over an order: if it is kept, its rects by offset are the order
 * the local search starts from.
 */
static void npa_keep_off(struct npa_ctx *c, u32 algo)
{
	if (npa_keep(c, algo))
		npa_order_by_off(c, NULL, c->best_order);
}

enum npa_metric {
	NPA_METRIC_SIZE_PRESSURE, /* size x (max live bytes / bound)^8 */
	NPA_METRIC_PRESSURE,	/* max live bytes over the lifetime, size */
	NPA_METRIC_SIZE_LOGLEN,	/* size x log2(lifetime length + 1) */
	NPA_METRIC_OVERLAP,	/* live bytes summed over the lifetime */
	NPA_METRIC_SIZE,	/* size, then lifetime length */
	NPA_METRIC_LENGTH,	/* lifetime length, then size */
	NPA_METRIC_AREA,	/* size x lifetime length */
	NPA_METRIC_COUNT,
};

/* Leaves @p empty: npa_profile_build() and npa_ctx_free() both call it. */
static void npa_profile_free(struct npa_profile *p)
{
	kvfree(p->tree);
	kvfree(p->psum);
	p->tree = NULL;
	p->psum = NULL;
}

/*
 * Live-load profile over the time-tree leaves: a max segment tree of the
 * live bytes of each leaf and prefix sums of live bytes x duration.
 */
static int npa_profile_build(struct npa_ctx *c, struct npa_profile *p)
{
	u32 i, leaves = c->nt - 1;
	u64 *load, live;

	p->size = c->tree.size;
	p->tree = kvcalloc(2 * (size_t)p->size, sizeof(*p->tree), GFP_KERNEL_ACCOUNT);
	p->psum = kvcalloc((size_t)p->size + 1, sizeof(*p->psum), GFP_KERNEL_ACCOUNT);
	if (!p->tree || !p->psum) {
		npa_profile_free(p);
		return -ENOMEM;
	}
	/* Load deltas: starts in the leaves, ends in psum as scratch. */
	load = p->tree + p->size;
	for (i = 0; i < c->m; i++) {
		load[c->r[i].a] += c->r[i].size;
		p->psum[c->r[i].b] += c->r[i].size;
	}
	live = 0;
	for (i = 0; i < leaves; i++) {
		live = live + load[i] - p->psum[i];
		load[i] = live;
	}
	for (i = p->size - 1; i >= 1; i--)
		p->tree[i] = max(p->tree[2 * i], p->tree[2 * i + 1]);
	p->psum[0] = 0;
	for (i = 0; i < leaves; i++)
		p->psum[i + 1] = npa_sat_add(p->psum[i],
					     npa_sat_mul(load[i],
							 c->t[i + 1] - c->t[i]));
	return 0;
}

/* Max of the load over leaves [a, b). */
static u64 npa_profile_max(const struct npa_profile *p, u32 a, u32 b)
{
	u64 m = 0;

	for (a += p->size, b += p->size; a < b; a >>= 1, b >>= 1) {
		if (a & 1)
			m = max(m, p->tree[a++]);
		if (b & 1)
			m = max(m, p->tree[--b]);
	}
	return m;
}

/* log2(@x) in 4.4 fixed point, the fraction interpolated linearly. */
static u32 npa_log2_fp(u64 x)
{
	u32 k = ilog2(x);

	return k << 4 | (u32)(k >= 4 ? (x >> (k - 4)) & 15 : (x << (4 - k)) & 15);
}

/* @x * @q / 2^16 for q <= 2^16, without overflow. */
static u64 npa_scale16(u64 x, u64 q)
{
	return (x >> 16) * q + (((x & 0xffff) * q) >> 16);
}

/*
 * Pressure of rect @id in 16.16 fixed point: the most bytes live at one
 * time during its lifetime over the lower bound, raised to the 8th power.
 * Rects live around the tightest moment come first under this key.
 */
static u64 npa_pressure8(const struct npa_ctx *c, u32 id)
{
	u64 load = npa_profile_max(&c->prof, c->r[id].a, c->r[id].b);
	u64 q = min_t(u64, div64_u64(load, max_t(u64, c->lb >> 16, 1)),
		      1 << 16);

	q = q * q >> 16;
	q = q * q >> 16;
	return q * q >> 16;
}

/* The two sort keys (both descending) of rect @id under @metric. */
static void npa_metric_keys(const struct npa_ctx *c, u32 metric, u32 id,
			    u64 *k1, u64 *k2)
{
	const struct npa_rect *r = &c->r[id];
	const struct npa_profile *p = &c->prof;
	u64 len = r->hi - r->lo;

	*k2 = r->size;
	switch (metric) {
	case NPA_METRIC_SIZE_PRESSURE:
		*k1 = npa_scale16(r->size, npa_pressure8(c, id));
		break;
	case NPA_METRIC_SIZE_LOGLEN:
		*k1 = npa_sat_mul(r->size >> 8, npa_log2_fp(len + 1));
		break;
	case NPA_METRIC_SIZE:
		*k1 = r->size;
		*k2 = len;
		break;
	case NPA_METRIC_PRESSURE:
		*k1 = npa_profile_max(p, r->a, r->b);
		break;
	case NPA_METRIC_AREA:
		*k1 = npa_sat_mul(r->size, len);
		break;
	case NPA_METRIC_LENGTH:
		*k1 = len;
		break;
	default:
		*k1 = p->psum[r->b] - p->psum[r->a];
		break;
	}
}

/* All rects in the order of @metric; uses c->keys. */
static void npa_order_metric(struct npa_ctx *c, u32 metric, u32 *order)
{
	struct npa_key *keys = c->keys;
	u32 i;

	for (i = 0; i < c->m; i++) {
		npa_metric_keys(c, metric, i, &keys[i].k1, &keys[i].k2);
		keys[i].id = i;
	}
	npa_order_by_keys(keys, c->m, order);
}

/* Greedy-by-size order: size descending, then caller's index (stable). */
static void npa_order_greedy(struct npa_ctx *c, u32 *order)
{
	struct npa_key *keys = c->keys;
	u32 i;

	for (i = 0; i < c->m; i++) {
		keys[i].k1 = c->r[i].size;
		keys[i].k2 = 0;
		keys[i].id = i;	/* rect ids follow the caller's order */
	}
	npa_order_by_keys(keys, c->m, order);
}

/* Rects by first leaf, for the unions of lifetimes. */
static void npa_order_by_a(struct npa_ctx *c)
{
	struct npa_key *keys = c->keys;
	u32 i;

	for (i = 0; i < c->m; i++) {
		keys[i].k1 = U32_MAX - c->r[i].a;
		keys[i].k2 = 0;
		keys[i].id = i;
	}
	npa_order_by_keys(keys, c->m, c->by_a);
}

/* ---------------------------------------------------------------------- */
/* Context */

static void npa_ctx_free(struct npa_ctx *c)
{
	npa_tree_free(&c->tree);
	kvfree(c->r);
	kvfree(c->t);
	kvfree(c->off);
	kvfree(c->best_off);
	kvfree(c->best_order);
	npa_profile_free(&c->prof);
	kvfree(c->order);
	kvfree(c->cand);
	kvfree(c->cur_off);
	kvfree(c->by_a);
	kvfree(c->risk);
	kvfree(c->seg);
	kvfree(c->keys);
	kvfree(c->gkeys);
	kvfree(c->skeys);
	kvfree(c->grank);
	kvfree(c->frames);
	kvfree(c->sky);
	kvfree(c->rem);
	kvfree(c->live);
	kvfree(c->span);
	kvfree(c->tt);
	kvfree(c->zs);
	kvfree(c->ze);
	kvfree(c->ng);
	kvfree(c->reach);
	kvfree(c->deep_off);
	kvfree(c->rem_s);
	kvfree(c->rem_e);
	kvfree(c->placed);
	kvfree(c->start);
	kvfree(c->bucket);
	kvfree(c->estart);
	kvfree(c->ebucket);
}

static int npa_ctx_init(struct npa_ctx *c, const struct npa_plan_buf *bufs,
			u32 n, u32 m)
{
	struct npa_ev *ev;
	u32 i, j;

	memset(c, 0, sizeof(*c));
	c->m = m;
	c->best_peak = U64_MAX;
	c->r = kvmalloc_array(m, sizeof(*c->r), GFP_KERNEL_ACCOUNT);
	c->t = kvmalloc_array(m, 2 * sizeof(*c->t), GFP_KERNEL_ACCOUNT);
	c->off = kvcalloc(m, sizeof(*c->off), GFP_KERNEL_ACCOUNT);
	c->best_off = kvcalloc(m, sizeof(*c->best_off), GFP_KERNEL_ACCOUNT);
	c->best_order = kvmalloc_array(m, sizeof(*c->best_order), GFP_KERNEL_ACCOUNT);
	c->order = kvmalloc_array(m, sizeof(*c->order), GFP_KERNEL_ACCOUNT);
	c->cand = kvmalloc_array(m, sizeof(*c->cand), GFP_KERNEL_ACCOUNT);
	c->cur_off = kvmalloc_array(m, sizeof(*c->cur_off), GFP_KERNEL_ACCOUNT);
	c->by_a = kvmalloc_array(m, sizeof(*c->by_a), GFP_KERNEL_ACCOUNT);
	c->risk = kvmalloc_array(m, sizeof(*c->risk), GFP_KERNEL_ACCOUNT);
	c->seg = kvmalloc_array(m, sizeof(*c->seg), GFP_KERNEL_ACCOUNT);
	c->keys = kvmalloc_array(m, sizeof(*c->keys), GFP_KERNEL_ACCOUNT);
	c->gkeys = kvmalloc_array(m, sizeof(*c->gkeys), GFP_KERNEL_ACCOUNT);
	c->skeys = kvmalloc_array(m, sizeof(*c->skeys), GFP_KERNEL_ACCOUNT);
	c->grank = kvmalloc_array(m, sizeof(*c->grank), GFP_KERNEL_ACCOUNT);
	if (!c->r || !c->t || !c->off || !c->best_off || !c->best_order ||
	    !c->order || !c->cand || !c->cur_off || !c->by_a || !c->risk ||
	    !c->seg || !c->keys || !c->gkeys || !c->skeys || !c->grank)
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

	/* Compress time to the distinct bounds; leaves are the gaps. */
	sort(c->t, 2 * (size_t)m, sizeof(*c->t), npa_u32_cmp, NULL);
	for (i = 0, j = 0; i < 2 * m; i++)
		if (!j || c->t[j - 1] != c->t[i])
			c->t[j++] = c->t[i];
	c->nt = j;
	for (i = 0; i < m; i++) {
		c->r[i].a = npa_time_rank(c, c->r[i].lo);
		c->r[i].b = npa_time_rank(c, c->r[i].hi);
	}
	if (npa_tree_init(c) || npa_profile_build(c, &c->prof))
		goto err_free;
	npa_order_by_a(c);

	/* The lower bound of the non-zero buffers. */
	ev = kvmalloc_array(m, 2 * sizeof(*ev), GFP_KERNEL_ACCOUNT);
	if (!ev)
		goto err_free;
	for (i = 0; i < m; i++) {
		ev[2 * i].key = (u64)c->r[i].lo << 1 | 1;
		ev[2 * i].size = c->r[i].size;
		ev[2 * i + 1].key = (u64)c->r[i].hi << 1;
		ev[2 * i + 1].size = c->r[i].size;
	}
	c->lb = npa_sweep_max(ev, 2 * m);
	kvfree(ev);
	return 0;

err_free:
	npa_ctx_free(c);
	return -ENOMEM;
}

static void npa_ctx_output(const struct npa_ctx *c, struct npa_plan_buf *bufs,
			   u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		bufs[i].offset = 0;
	for (i = 0; i < c->m; i++)
		bufs[c->r[i].idx].offset = c->best_off[i];
}

/* ---------------------------------------------------------------------- */
/* Searches */

/* The splitmix64 finalizer: a 64-bit mix (hashes, random keys). */
static u64 npa_mix64(u64 z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* splitmix64: the planner's own PRNG, so plans are reproducible. */
static u64 npa_rand(struct npa_ctx *c)
{
	return npa_mix64(c->rng += 0x9e3779b97f4a7c15ULL);
}

static u32 npa_rand_below(struct npa_ctx *c, u32 n)
{
	return (u32)(((npa_rand(c) >> 32) * n) >> 32);
}

/* Place @order and keep it if it is the best plan so far. */
static bool npa_try(struct npa_ctx *c, const u32 *order, u64 cutoff, u32 algo)
{
	if (!npa_pass(c, order, false, cutoff))
		return false;
	if (npa_keep(c, algo))
		memcpy(c->best_order, order, c->m * sizeof(*order));
	return true;
}

/*
 * The baseline. For npa_plan() it runs after the metric orders and stops
 * as soon as it cannot win, so it costs little; it is there so that the
 * result is never worse than the baseline.
 */
static void npa_run_greedy(struct npa_ctx *c)
{
	if (c->have_best && c->best_peak <= c->lb)
		return;
	npa_order_greedy(c, c->order);
	if (!npa_pass(c, c->order, true, c->have_best ? c->best_peak + 1 : 0))
		return;
	c->greedy_peak = c->peak;
	if (npa_keep(c, NPA_PLAN_ALGO_GREEDY))
		memcpy(c->best_order, c->order, c->m * sizeof(*c->order));
}

/*
 * First fit in each of the first @orders metric orders: the first three
 * as the budget allows, the others within half of it.
 */
static void npa_run_orders(struct npa_ctx *c, u32 orders)
{
	u32 metric;

	for (metric = 0; metric < orders; metric++) {
		if (c->have_best && (c->best_peak <= c->lb ||
				     (metric >= 3 &&
				      c->work + c->m > c->budget / 2) ||
				     !npa_can_spend(c, c->m)))
			break;
		npa_order_metric(c, metric, c->order);
		npa_try(c, c->order, c->have_best ? c->best_peak + 1 : 0,
			NPA_PLAN_ALGO_ORDER);
	}
}

/* ---------------------------------------------------------------------- */
/* Peak suppression */

enum npa_risk {
	NPA_RISK_HIGH,
	NPA_RISK_MEDIUM,
	NPA_RISK_LOW,
	NPA_RISK_NONE,
};

/*
 * Merge the lifetimes of the rects whose risk class is in @mask into
 * disjoint segments (sorted). Lifetimes are half-open, so [a, b) and
 * [b, c) stay apart: they do not overlap in time.
 */
static u32 npa_segments(struct npa_ctx *c, u32 mask)
{
	struct npa_seg *seg = c->seg;
	u32 i, ns = 0;

	for (i = 0; i < c->m; i++) {
		u32 id = c->by_a[i];
		const struct npa_rect *r = &c->r[id];

		if (!(mask & (1U << c->risk[id])))
			continue;
		if (ns && r->a < seg[ns - 1].b)
			seg[ns - 1].b = max(seg[ns - 1].b, r->b);
		else
			seg[ns++] = (struct npa_seg){ r->a, r->b };
	}
	return ns;
}

/* Index of the segment that leaves [a, b) intersect, or U32_MAX. */
static u32 npa_seg_find(const struct npa_seg *seg, u32 ns, u32 a, u32 b)
{
	u32 lo = 0, hi = ns;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (seg[mid].b <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ns && seg[lo].a < b ? lo : U32_MAX;
}

/* Give class @to to every rect of class @from that meets @mask's union. */
static void npa_spread(struct npa_ctx *c, u32 mask, u8 from, u8 to)
{
	u32 i, ns = npa_segments(c, mask);

	for (i = 0; i < c->m; i++)
		if (c->risk[i] == from &&
		    npa_seg_find(c->seg, ns, c->r[i].a, c->r[i].b) != U32_MAX)
			c->risk[i] = to;
}

/*
 * Classify the rects of the placement in c->off by risk: high are those
 * ending above the lower bound and those overlapping them in time; medium
 * those ending exactly at it and their overlaps; low those overlapping a
 * high or medium one; none the rest. Returns false if nothing ends above
 * the bound.
 */
static bool npa_classify(struct npa_ctx *c)
{
	bool any = false;
	u32 i;

	for (i = 0; i < c->m; i++) {
		u64 end = c->off[i] + c->r[i].size;

		if (end > c->lb) {
			c->risk[i] = NPA_RISK_HIGH;
			any = true;
		} else {
			c->risk[i] = end == c->lb ? NPA_RISK_MEDIUM : NPA_RISK_NONE;
		}
	}
	if (!any)
		return false;
	npa_spread(c, 1U << NPA_RISK_HIGH, NPA_RISK_MEDIUM, NPA_RISK_HIGH);
	npa_spread(c, 1U << NPA_RISK_HIGH, NPA_RISK_NONE, NPA_RISK_HIGH);
	npa_spread(c, 1U << NPA_RISK_MEDIUM, NPA_RISK_NONE, NPA_RISK_MEDIUM);
	npa_spread(c, 1U << NPA_RISK_HIGH | 1U << NPA_RISK_MEDIUM,
		   NPA_RISK_NONE, NPA_RISK_LOW);
	return true;
}

static int npa_skey_cmp(const void *a, const void *b)
{
	const struct npa_skey *x = a, *y = b;

	if (x->k0 != y->k0)
		return x->k0 < y->k0 ? -1 : 1;
	if (x->k1 != y->k1)
		return x->k1 > y->k1 ? -1 : 1;
	if (x->k2 != y->k2)
		return x->k2 > y->k2 ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Rank the time-overlap groups of class @cls (the segments of its union)
 * by how far their members stick out, worst first; writes a k0 per rect.
 */
static u32 npa_group(struct npa_ctx *c, u8 cls, u64 base, struct npa_skey *sk)
{
	u32 i, ns = npa_segments(c, 1U << cls);
	struct npa_key *gk = c->gkeys;

	for (i = 0; i < ns; i++) {
		gk[i].k1 = 0;
		gk[i].k2 = 0;
		gk[i].id = i;
	}
	for (i = 0; i < c->m; i++) {
		u32 g;

		if (c->risk[i] != cls)
			continue;
		g = npa_seg_find(c->seg, ns, c->r[i].a, c->r[i].b);
		gk[g].k1 = max(gk[g].k1, c->off[i] + c->r[i].size);
		sk[i].k0 = g;
	}
	sort(gk, ns, sizeof(*gk), npa_key_cmp, NULL);
	for (i = 0; i < ns; i++)
		c->grank[gk[i].id] = i;
	for (i = 0; i < c->m; i++)
		if (c->risk[i] == cls)
			sk[i].k0 = base + c->grank[sk[i].k0];
	return ns;
}

static u64 npa_order_hash(const u32 *order, u32 m)
{
	u64 h = 0xcbf29ce484222325ULL;
	u32 i;

	for (i = 0; i < m; i++)
		h = (h ^ order[i]) * 0x100000001b3ULL;
	return h;
}

/*
 * The patent's peak suppression, from the plan in c->off placed in
 * @order: classify by risk, group the high and medium rects by time
 * overlap, reorder each group by @metric, and merge the classes back in
 * risk order (high groups, medium groups, then low and none in their old
 * relative order). Writes the new order to @out.
 */
static void npa_suppress_order(struct npa_ctx *c, const u32 *order,
			       u32 metric, u32 *out)
{
	struct npa_skey *sk = c->skeys;
	u32 i, nh, nm;
	u64 k1, k2;

	for (i = 0; i < c->m; i++) {
		u32 id = order[i];

		sk[id].id = id;
		sk[id].k0 = 0;
		if (c->risk[id] <= NPA_RISK_MEDIUM) {
			npa_metric_keys(c, metric, id, &k1, &k2);
			sk[id].k1 = k1;
			sk[id].k2 = k2;
		} else {
			sk[id].k1 = ~(u64)i;	/* keep the old order */
			sk[id].k2 = 0;
		}
	}
	nh = npa_group(c, NPA_RISK_HIGH, 0, sk);
	nm = npa_group(c, NPA_RISK_MEDIUM, nh, sk);
	for (i = 0; i < c->m; i++) {
		if (c->risk[i] == NPA_RISK_LOW)
			sk[i].k0 = (u64)nh + nm;
		else if (c->risk[i] == NPA_RISK_NONE)
			sk[i].k0 = (u64)nh + nm + 1;
	}
	sort(sk, c->m, sizeof(*sk), npa_skey_cmp, NULL);
	for (i = 0; i < c->m; i++)
		out[i] = sk[i].id;
}

#define NPA_SUPPRESS_SEEN	64

static void npa_run_suppress(struct npa_ctx *c)
{
	u64 seen[NPA_SUPPRESS_SEEN], stop;
	u32 nseen = 0, metric = 0, repeats = 0, i;

	/* At most half of what is left, so the later searches get a share. */
	stop = c->work + (c->budget > c->work ? c->budget - c->work : 0) / 2;
	memcpy(c->order, c->best_order, c->m * sizeof(*c->order));
	memcpy(c->off, c->best_off, c->m * sizeof(*c->off));
	while (c->best_peak > c->lb && npa_can_spend(c, c->m) &&
	       c->work + c->m <= stop && repeats < NPA_METRIC_COUNT) {
		u64 h;

		if (!npa_classify(c))
			break;
		npa_suppress_order(c, c->order, metric, c->cand);
		h = npa_order_hash(c->cand, c->m);
		for (i = 0; i < min_t(u32, nseen, NPA_SUPPRESS_SEEN); i++)
			if (seen[i] == h)
				break;
		if (i < min_t(u32, nseen, NPA_SUPPRESS_SEEN)) {
			/* Fixed point for this metric: try the next one. */
			repeats++;
			metric = (metric + 1) % NPA_METRIC_COUNT;
			continue;
		}
		seen[nseen++ % NPA_SUPPRESS_SEEN] = h;
		repeats = 0;
		swap(c->order, c->cand);
		if (!npa_try(c, c->order, 0, NPA_PLAN_ALGO_SUPPRESS))
			break;
	}
}

/* ---------------------------------------------------------------------- */
/* Local search */

/* Move order[from] to position @to, shifting the ones between. */
static void npa_move(u32 *order, u32 from, u32 to)
{
	u32 id = order[from];

	if (from > to)
		memmove(order + to + 1, order + to, (from - to) * sizeof(*order));
	else
		memmove(order + from, order + from + 1,
			(to - from) * sizeof(*order));
	order[to] = id;
}

/*
 * Randomized local search over placement orders, for tightly packed
 * instances where every order the metrics give leaves holes. A move takes
 * a rect that sticks out above the lower bound and places it earlier, or
 * swaps two rects; a candidate is kept when neither its peak nor its area
 * above the bound is worse. After a long stall the search restarts from a
 * perturbed best plan.
 */
static void npa_run_search(struct npa_ctx *c)
{
	u64 cur_peak, cur_ex, stall = 0, stall_max = 64 + 4ULL * c->m;
	u32 m = c->m, i;

	memcpy(c->order, c->best_order, m * sizeof(*c->order));
	memcpy(c->cur_off, c->best_off, m * sizeof(*c->cur_off));
	memcpy(c->off, c->best_off, m * sizeof(*c->off));
	cur_peak = c->best_peak;
	cur_ex = npa_excess(c);

	while (c->best_peak > c->lb && npa_can_spend(c, m) && m > 1) {
		u32 kind = npa_rand_below(c, 4), a, b;
		u64 peak, ex;

		memcpy(c->cand, c->order, m * sizeof(*c->cand));
		if (kind < 2) {
			/* A rect above the bound, earlier in the order. */
			u32 start = npa_rand_below(c, m);

			for (i = 0; i < m; i++) {
				a = (start + i) % m;
				if (c->cur_off[c->cand[a]] +
				    c->r[c->cand[a]].size > c->lb)
					break;
			}
			b = kind ? 0 : npa_rand_below(c, a + 1);
			npa_move(c->cand, a, b);
		} else if (kind == 2) {
			a = npa_rand_below(c, m);
			b = npa_rand_below(c, m);
			swap(c->cand[a], c->cand[b]);
		} else {
			a = npa_rand_below(c, m);
			b = npa_rand_below(c, m);
			npa_move(c->cand, a, b);
		}
		if (!npa_pass(c, c->cand, false, cur_peak + 1)) {
			stall++;
		} else {
			peak = c->peak;
			ex = npa_excess(c);
			if (npa_keep(c, NPA_PLAN_ALGO_SEARCH))
				memcpy(c->best_order, c->cand,
				       m * sizeof(*c->cand));
			if (peak < cur_peak || ex < cur_ex)
				stall = 0;
			else
				stall++;
			if (peak < cur_peak || (peak == cur_peak && ex <= cur_ex)) {
				cur_peak = peak;
				cur_ex = ex;
				swap(c->order, c->cand);
				memcpy(c->cur_off, c->off, m * sizeof(*c->off));
			}
		}
		if (stall > stall_max) {
			/* Restart: the best order with a few random swaps. */
			memcpy(c->order, c->best_order, m * sizeof(*c->order));
			for (i = 0; i < 1 + npa_rand_below(c, 4); i++) {
				a = npa_rand_below(c, m);
				b = npa_rand_below(c, m);
				swap(c->order[a], c->order[b]);
			}
			if (!npa_pass(c, c->order, false, 0))
				break;
			cur_peak = c->peak;
			cur_ex = npa_excess(c);
			memcpy(c->cur_off, c->off, m * sizeof(*c->off));
			stall = 0;
		}
	}
}

/* ---------------------------------------------------------------------- */
/* Exact search for waste-free plans */

/*
 * One level of the depth-first search: the valley being filled (its first
 * leaf @t, height @x and end leaf @vend) and its corner (@side 0: the
 * left one, where the candidates start at @t; 1: the right one, where
 * they end at @vend), where the scan of the candidates stands (@phase 0:
 * those whose top is flush with a wall, 1: the rest; @k of them scanned,
 * starting at @rot) and the rect placed at this level. @rim is the height
 * of the lower of the valley's two walls. [@clo, @chi] are the leaves
 * whose contents the failures seen at this level depended on.
 */
struct npa_frame {
	u32 t, vend;
	u64 x, rim;
	u32 phase, k, rot;
	u32 id;
	u32 clo, chi;
	u32 side;
};

/* Failing leaf ranges remembered per leaf (see npa_ng_put()). */
#define NPA_NG_WAYS	4

/* npa_frame.id of a level that wasted its valley instead of filling it. */
#define NPA_DFS_WASTE	(U32_MAX - 1)

/*
 * Leaves and candidates a placement of the exact search looks at as part
 * of its unit of work (strips of 1000 steps: 100-800 on average, a few
 * thousand at most), and how many more cost another unit (about what a
 * unit costs). Wide flat valleys make the walks along the skyline long:
 * 4096 rects over 4000 leaves take 10000 a placement.
 */
#define NPA_DFS_FREE	4096
#define NPA_DFS_STEPS	1024

/*
 * Does @r fit at @x? If a leaf is in the way, widen [*lo, *hi] to the
 * one nearest to its start (or with @right, to its end).
 */
static bool npa_dfs_fits(const struct npa_ctx *c, const struct npa_rect *r,
			 u64 x, u64 cap, bool right, u32 *lo, u32 *hi)
{
	u32 i;

	if (x & r->amask || r->size > cap - x)
		return false;
	if (right) {
		for (i = r->b; i-- > r->a; ) {
			if (c->sky[i] != x) {
				*lo = min(*lo, i);
				return false;
			}
		}
		return true;
	}
	for (i = r->a; i < r->b; i++) {
		if (c->sky[i] != x) {
			*hi = max(*hi, i);
			return false;
		}
	}
	return true;
}

/* Set the skyline under rect @id to @h and (un)count it as unplaced. */
static void npa_dfs_set(struct npa_ctx *c, u32 id, u64 h, int live)
{
	const struct npa_rect *r = &c->r[id];
	u32 i;

	c->dfs_steps += r->b - r->a;
	for (i = r->a; i < r->b; i++) {
		c->sky[i] = h;
		c->live[i] += live;
		if (i > r->a)
			c->span[i] += live;
		if (live > 0)
			c->rem[i] += r->size;
		else
			c->rem[i] -= r->size;
	}
	if (live > 0) {
		c->rem_s[r->a] += r->size;
		c->rem_e[r->b] += r->size;
	} else {
		c->rem_s[r->a] -= r->size;
		c->rem_e[r->b] -= r->size;
	}
}

/* Bytes leaf @i can still leave empty below @cap. */
static u64 npa_dfs_slack(const struct npa_ctx *c, u32 i, u64 cap)
{
	return cap - c->sky[i] - c->rem[i];
}

/*
 * Can the step of the skyline at bound @t (between leaves t - 1 and t)
 * still be filled? Below the higher side nothing more can be placed, so
 * the lower side must be covered up to it by rects that end (left side)
 * or start (right side) at @t, or be left empty.
 */
static bool npa_dfs_step_ok(const struct npa_ctx *c, u32 t, u64 cap)
{
	u64 l, r;

	if (!t || t + 1 >= c->nt)
		return true;
	l = c->sky[t - 1];
	r = c->sky[t];
	if (l < r)
		return c->rem_e[t] + npa_dfs_slack(c, t - 1, cap) >= r - l;
	if (l > r)
		return c->rem_s[t] + npa_dfs_slack(c, t, cap) >= l - r;
	return true;
}

static void npa_dfs_fill(struct npa_ctx *c, u32 a, u32 b, u64 h)
{
	for (; a < b; a++)
		c->sky[a] = h;
}

/*
 * May the valley of @f be raised to its rim? Every leaf must still hold
 * the bytes of its unplaced rects below @cap.
 */
static bool npa_dfs_waste_ok(const struct npa_ctx *c, struct npa_frame *f,
			     u64 cap)
{
	u32 i;

	if (f->rim <= cap) {
		for (i = f->t; i < f->vend; i++) {
			if (c->rem[i] <= cap - f->rim)
				continue;
			/* A full leaf refuses any waste, whatever the walls. */
			if (c->rem[i] >= cap - f->x) {
				f->clo = min(f->clo, i);
				f->chi = max(f->chi, i);
				return false;
			}
			break;
		}
		if (i == f->vend)
			return true;
	}
	/* The rim came from the walls. */
	f->clo = min(f->clo, f->t ? f->t - 1 : 0);
	f->chi = max(f->chi, min(f->vend, c->nt - 2));
	return false;
}

/*
 * Next candidate of frame @f, or U32_MAX when none is left. Rects whose
 * top would be flush with the left wall (or with the right one, when they
 * end with the valley) come first: where a plan without holes has a rect
 * edge, its neighbours tend to have one too, and on generated strips such
 * a candidate is nearly always right. Then the rest, longest first (the
 * right one more often than not). The scan of a bucket may start at a
 * rotation (restarts); it still tries every rect, and skips a rect whose
 * twin just before it in the bucket is unplaced: that twin is tried in
 * this frame, before or after.
 */
static u32 npa_dfs_next(struct npa_ctx *c, struct npa_frame *f, u64 cap)
{
	const u32 *bucket = f->side ? c->ebucket : c->bucket;
	u32 first = f->side ? c->estart[f->vend] : c->start[f->t];
	u32 cnt = (f->side ? c->estart[f->vend + 1] : c->start[f->t + 1]) - first;
	u64 lw = f->t ? c->sky[f->t - 1] : U64_MAX;
	u64 rw = f->vend + 1 < c->nt ? c->sky[f->vend] : U64_MAX;

	for (; f->phase < 2; f->phase++, f->k = 0) {
		for (; f->k < cnt; f->k++) {
			u32 i = first + (f->rot + f->k) % cnt;
			u32 id = bucket[i];
			const struct npa_rect *r = &c->r[id];
			u64 top = f->x + r->size;
			bool flush;

			c->dfs_steps++;
			if (c->placed[id])
				continue;
			flush = (r->a == f->t && top == lw) ||
				(r->b == f->vend && top == rw);
			if (flush == !!f->phase)
				continue;
			if (i > first) {
				const struct npa_rect *q = &c->r[bucket[i - 1]];

				if (!c->placed[bucket[i - 1]] && q->a == r->a &&
				    q->size == r->size && q->b == r->b &&
				    q->amask == r->amask)
					continue;
			}
			if (npa_dfs_fits(c, r, f->x, cap, f->side, &f->clo,
					 &f->chi)) {
				f->k++;
				return id;
			}
		}
	}
	/* Last resort: leave the valley empty up to its lower wall. */
	if (f->phase == 2) {
		f->phase++;
		if (npa_dfs_waste_ok(c, f, cap)) {
			/* Its height came from the walls. */
			f->clo = min(f->clo, f->t ? f->t - 1 : 0);
			f->chi = max(f->chi, min(f->vend, c->nt - 2));
			return NPA_DFS_WASTE;
		}
	}
	return U32_MAX;
}

/*
 * Can the corner at leaf @t still be filled? A leaf that is higher on its
 * left keeps that until it is the lowest valley (only the lowest valley
 * grows), so then some rect has to start at @t on top of it, fit below
 * @cap, and end before the first leaf to the right that is higher already;
 * or the corner is wasted, which needs room above it for all the bytes
 * still to be placed at @t.
 */
static bool npa_dfs_corner_ok(struct npa_ctx *c, u32 t, u64 cap,
			      u32 *seen)
{
	u32 i, end, wall;
	u64 x;

	*seen = t;
	if (t + 1 >= c->nt || !c->live[t] || (t && c->sky[t - 1] <= c->sky[t]))
		return true;
	x = c->sky[t];
	if (c->rem[t] < cap - x)
		return true;
	for (wall = t + 1; wall + 1 < c->nt && c->sky[wall] <= x; wall++)
		;
	*seen = wall;
	end = c->start[t + 1];
	c->dfs_steps += wall - t + end - c->start[t];
	for (i = c->start[t]; i < end; i++) {
		const struct npa_rect *r = &c->r[c->bucket[i]];

		if (!c->placed[c->bucket[i]] && !(x & r->amask) &&
		    r->size <= cap - x && r->b <= wall)
			return true;
	}
	return false;
}

/*
 * Candidates that fit at the left (@side 0) or right corner of @f,
 * counted up to @stop.
 */
static u32 npa_dfs_count(struct npa_ctx *c, const struct npa_frame *f,
			 u32 side, u32 stop)
{
	const u32 *bucket = side ? c->ebucket : c->bucket;
	u32 i = side ? c->estart[f->vend] : c->start[f->t];
	u32 end = side ? c->estart[f->vend + 1] : c->start[f->t + 1], n = 0;
	u64 room = c->cap - f->x;

	for (; i < end && n < stop; i++) {
		const struct npa_rect *r = &c->r[bucket[i]];

		c->dfs_steps++;
		if (!c->placed[bucket[i]] && r->size <= room &&
		    !(f->x & r->amask) && r->a >= f->t && r->b <= f->vend)
			n++;
	}
	return n;
}

/* Is leaf @i (of the skyline) a wall for a valley at height @x? */
static bool npa_dfs_wall(const struct npa_ctx *c, u32 i, u64 x)
{
	return i + 1 >= c->nt || !c->live[i] || c->sky[i] > x;
}

/*
 * The valley and corner to branch at: of all valleys (runs of leaves at
 * one height with walls on both sides, and something left to place), the
 * corner with the fewest candidates (fail first); ties go to the lowest,
 * leftmost valley. Any of them is complete: in a plan without holes the
 * bottom corner of a valley is covered by a rect that starts (or ends)
 * there on its floor.
 */
static u32 npa_dfs_pick(struct npa_ctx *c, struct npa_frame *f, u32 *end)
{
	u32 i = 0, j, k, best = U32_MAX, bn = U32_MAX, side = 0;

	while (i + 1 < c->nt && bn) {
		u64 x = c->sky[i];

		c->dfs_steps++;
		if (!c->live[i]) {
			i++;
			continue;
		}
		/* A leaf with nothing left to place is a wall at any height. */
		for (j = i; j + 1 < c->nt && c->live[j] && c->sky[j] == x; j++)
			;
		c->dfs_steps += j - i;
		if ((!i || npa_dfs_wall(c, i - 1, x)) && npa_dfs_wall(c, j, x)) {
			f->t = i;
			f->vend = j;
			f->x = x;
			for (k = 0; k < 2; k++) {
				/* Ties go to the lower valley. */
				u32 stop = best == U32_MAX ? U32_MAX :
					   bn + (x < c->sky[best]);
				u32 n = npa_dfs_count(c, f, k, stop);

				if (n < stop) {
					bn = n;
					best = i;
					*end = j;
					side = k;
				}
			}
		}
		i = j;
	}
	f->side = side;
	return best;
}

/* Set up frame @f at the valley to branch at; false if none is left. */
static bool npa_dfs_frame(struct npa_ctx *c, struct npa_frame *f)
{
	u32 t, e;

	t = npa_dfs_pick(c, f, &e);
	if (t == U32_MAX)
		return false;
	f->t = t;
	f->vend = e;
	f->x = c->sky[t];
	/* A leaf with nothing left to place may be lower: not a wall. */
	f->rim = U64_MAX;
	if (t && c->sky[t - 1] > f->x)
		f->rim = c->sky[t - 1];
	if (e + 1 < c->nt && c->sky[e] > f->x)
		f->rim = min(f->rim, c->sky[e]);
	f->phase = 0;
	f->k = 0;
	f->rot = c->dfs_random ? npa_rand(c) >> 33 : 0;
	f->id = U32_MAX;
	/*
	 * What its failure depends on: its corner leaf, and the wall next to
	 * it unless no unplaced rect crosses into that (then the rects at the
	 * corner start or end there whatever the wall is).
	 */
	if (f->side) {
		f->clo = e - 1;
		f->chi = e + 1 < c->nt && c->span[e] ? e : e - 1;
	} else {
		f->clo = t && c->span[t] ? t - 1 : t;
		f->chi = t;
	}
	return true;
}

/*
 * The mirror image of npa_dfs_corner_ok(): can the corner at the right end
 * of leaf t - 1, lower than leaf @t, still be filled? By a rect that ends
 * at @t on top of it and starts after the first leaf to the left that is
 * higher already, or by waste. *@seen gets the leftmost leaf looked at.
 */
static bool npa_dfs_rcorner_ok(struct npa_ctx *c, u32 t, u64 cap,
			       u32 *seen)
{
	u32 i, wall;
	u64 x;

	*seen = t ? t - 1 : 0;
	if (!t || t + 1 >= c->nt || !c->live[t - 1] ||
	    c->sky[t] <= c->sky[t - 1])
		return true;
	x = c->sky[t - 1];
	if (c->rem[t - 1] < cap - x)
		return true;
	for (wall = t - 1; wall && c->sky[wall - 1] <= x; wall--)
		;
	*seen = wall ? wall - 1 : 0;
	c->dfs_steps += t - wall + c->estart[t + 1] - c->estart[t];
	for (i = c->estart[t]; i < c->estart[t + 1]; i++) {
		const struct npa_rect *r = &c->r[c->ebucket[i]];

		if (!c->placed[c->ebucket[i]] && !(x & r->amask) &&
		    r->size <= cap - x && r->a >= wall)
			return true;
	}
	return false;
}

/*
 * Can the floor of the valley around leaf @i be covered? A valley (a run
 * of leaves at one height x with walls on both sides) none of whose
 * leaves has room to waste must get a rect with its bottom at x on every
 * leaf, and such a rect lives within the valley: so the lifetimes of the
 * unplaced rects that fit there must tile the valley end to end. That is
 * reachability over its bounds, linear in the rects starting in it. On
 * failure widens [*lo, *hi] to the valley and its walls.
 */
static bool npa_dfs_floor_ok(struct npa_ctx *c, u32 i, u64 cap, u32 *lo,
			     u32 *hi)
{
	u32 p, q, b, k;
	u64 x;

	if (i + 1 >= c->nt || !c->live[i])
		return true;
	x = c->sky[i];
	for (p = i; p && c->live[p - 1] && c->sky[p - 1] == x; p--)
		;
	for (q = i + 1; q + 1 < c->nt && c->live[q] && c->sky[q] == x; q++)
		;
	c->dfs_steps += q - p;
	if ((p && !npa_dfs_wall(c, p - 1, x)) || !npa_dfs_wall(c, q, x))
		return true;
	for (k = p; k < q; k++)
		if (npa_dfs_slack(c, k, cap))
			return true;
	memset(c->reach + p, 0, q + 1 - p);
	c->reach[p] = 1;
	for (b = p; b < q && !c->reach[q]; b++) {
		if (!c->reach[b])
			continue;
		c->dfs_steps += c->start[b + 1] - c->start[b];
		for (k = c->start[b]; k < c->start[b + 1]; k++) {
			const struct npa_rect *r = &c->r[c->bucket[k]];

			if (!c->placed[c->bucket[k]] && r->b <= q &&
			    !(x & r->amask) && r->size <= cap - x)
				c->reach[r->b] = 1;
		}
	}
	if (c->reach[q])
		return true;
	*lo = min(*lo, p ? p - 1 : 0);
	*hi = max(*hi, min(q, c->nt - 2));
	return false;
}

/*
 * Checks at bound @t after a placement there; on failure widens [*lo, *hi]
 * to the leaves the check looked at.
 */
static bool npa_dfs_bound_ok(struct npa_ctx *c, u32 t, u64 cap,
			     u32 *lo, u32 *hi)
{
	u32 seen, rseen = t;

	if (npa_dfs_corner_ok(c, t, cap, &seen) && npa_dfs_step_ok(c, t, cap) &&
	    npa_dfs_rcorner_ok(c, t, cap, &rseen))
		return true;
	*lo = min(*lo, min(t ? t - 1 : 0, rseen));
	*hi = max(*hi, min(max(seen, t), c->nt - 2));
	return false;
}

/* Leaves [*lo, *hi] the decision of frame @f covers; false if none. */
static bool npa_dfs_span(const struct npa_ctx *c, const struct npa_frame *f,
			 u32 *lo, u32 *hi)
{
	*lo = 0;
	*hi = 0;
	if (f->id == U32_MAX)
		return false;
	if (f->id == NPA_DFS_WASTE) {
		*lo = f->t;
		*hi = f->vend - 1;
	} else {
		*lo = c->r[f->id].a;
		*hi = c->r[f->id].b - 1;
	}
	return true;
}

/*
 * A table of search states known to fail (a transposition table): in a
 * state the set of placed rects and wasted valleys fixes the skyline, so a
 * 64-bit hash of that set (Zobrist: the XOR of a random key per decision)
 * names it. Stacking the same rects in another order, or reaching a
 * state again in a later restart, is then cut at once. Each entry keeps
 * the leaves its failure depended on, for backjumping.
 */
struct npa_tt {
	u64 key;
	u32 lo, hi;
};

/* Hash key of the decision of frame @f. */
static u64 npa_dfs_zob(const struct npa_frame *f)
{
	if (f->id == NPA_DFS_WASTE)
		return npa_mix64(((u64)f->t << 32 | f->vend) ^
				 npa_mix64(f->rim));
	return npa_mix64((u64)f->id + 0x9e3779b97f4a7c15ULL);
}

static void npa_tt_put(struct npa_ctx *c, u32 lo, u32 hi)
{
	struct npa_tt *e = &c->tt[c->zkey & c->tt_mask];

	e->key = c->zkey;
	e->lo = lo;
	e->hi = hi;
}

static const struct npa_tt *npa_tt_get(const struct npa_ctx *c)
{
	const struct npa_tt *e = &c->tt[c->zkey & c->tt_mask];

	return e->key == c->zkey ? e : NULL;
}

static void npa_zfw_add(u64 *fw, u32 n, u32 i, u64 z)
{
	for (i++; i <= n; i += i & -i)
		fw[i] ^= z;
}

static u64 npa_zfw_prefix(const u64 *fw, u32 i)
{
	u64 z = 0;

	for (; i; i -= i & -i)
		z ^= fw[i];
	return z;
}

/*
 * Hash of the decisions that cover a leaf of [lo, hi]: those are all of
 * them but the ones that end before @lo or start after @hi, and the keys
 * XOR out.
 */
static u64 npa_zrange(const struct npa_ctx *c, u32 lo, u32 hi)
{
	return npa_zfw_prefix(c->ze, lo) ^ npa_zfw_prefix(c->zs, hi + 1);
}

/* Toggle the decision of @f in the hashes. */
static void npa_dfs_toggle(struct npa_ctx *c, const struct npa_frame *f)
{
	u64 z = npa_dfs_zob(f);
	u32 lo, hi;

	npa_dfs_span(c, f, &lo, &hi);
	c->zkey ^= z;
	npa_zfw_add(c->zs, c->nt, lo, z);
	npa_zfw_add(c->ze, c->nt, hi, z);
}

/* Key of the nogood "these decisions on leaves [lo, hi] fail". */
static u64 npa_ng_key(const struct npa_ctx *c, u32 lo, u32 hi)
{
	return npa_mix64(npa_zrange(c, lo, hi) ^ ((u64)lo << 32 | hi)) | 1;
}

/*
 * Remember that the decisions on leaves [lo, hi] fail, whatever else is
 * placed: in the table, and in the short lists of its end leaves, so that
 * placements there check it.
 */
static void npa_ng_put(struct npa_ctx *c, u32 lo, u32 hi)
{
	u64 key = npa_ng_key(c, lo, hi);
	struct npa_tt *e = &c->tt[key & c->tt_mask];
	u32 v, *l;
	int k;

	if (hi - lo > 0xffff || lo > 0xffff)
		return;
	e->key = key;
	e->lo = lo;
	e->hi = hi;
	v = lo << 16 | (hi - lo);
	for (k = 0; k < 2; k++) {
		l = &c->ng[(k ? hi : lo) * NPA_NG_WAYS];
		if (l[0] == v)
			continue;
		memmove(l + 1, l, (NPA_NG_WAYS - 1) * sizeof(*l));
		l[0] = v;
	}
}

/* Does a remembered failing range at leaf @t match now? */
static bool npa_ng_hit(const struct npa_ctx *c, u32 t, u32 *lo, u32 *hi)
{
	const u32 *l = &c->ng[t * NPA_NG_WAYS];
	u32 k;

	for (k = 0; k < NPA_NG_WAYS && l[k] != U32_MAX; k++) {
		u32 a = l[k] >> 16, b = a + (l[k] & 0xffff);
		u64 key = npa_ng_key(c, a, b);
		const struct npa_tt *e = &c->tt[key & c->tt_mask];

		if (e->key == key && e->lo == a && e->hi == b) {
			*lo = min(*lo, a);
			*hi = max(*hi, b);
			return true;
		}
	}
	return false;
}

/* Take back the decision of frame @f. */
static void npa_dfs_undo(struct npa_ctx *c, struct npa_frame *f)
{
	if (f->id != U32_MAX)
		npa_dfs_toggle(c, f);
	if (f->id == NPA_DFS_WASTE) {
		npa_dfs_fill(c, f->t, f->vend, f->x);
	} else if (f->id != U32_MAX) {
		npa_dfs_set(c, f->id, f->x, 1);
		c->placed[f->id] = false;
	}
	f->id = U32_MAX;
}

/*
 * Remember the state of the search at the lower bound (or on from a
 * remembered one, in npa_run_complete()) when it places at least 1/256
 * of the rects more than the deepest state remembered: the rects placed
 * before this search (the parts before @lo) and the ones placed in this
 * one. At most 256 copies of O(m) per search.
 */
static void npa_dfs_snap(struct npa_ctx *c, u32 lo, u32 hi, u32 placed)
{
	u32 i, n = c->done_n + placed;

	if ((c->cap != c->lb && !c->dfs_pre) ||
	    n < c->deep_n + max_t(u32, 1, c->m / 256))
		return;
	for (i = 0; i < c->m; i++) {
		const struct npa_rect *r = &c->r[i];

		if (r->b <= lo || (r->a >= lo && r->b <= hi && c->placed[i]))
			c->deep_off[i] = c->off[i];
		else
			c->deep_off[i] = U64_MAX;
	}
	c->deep_n = n;
}

/*
 * Start a skyline from nothing, with the rects that live within bounds
 * [@part_lo, @part_hi] to place, or with @pre, from the partial plan in
 * c->deep_off: those rects stay where they are, the skyline is their top.
 * Returns the number of rects to place.
 */
static u32 npa_sky_start(struct npa_ctx *c, u32 part_lo, u32 part_hi,
			 bool pre)
{
	u32 i, k, want = 0;

	memset(c->sky, 0, c->nt * sizeof(*c->sky));
	memset(c->live, 0, c->nt * sizeof(*c->live));
	memset(c->span, 0, c->nt * sizeof(*c->span));
	memset(c->rem, 0, c->nt * sizeof(*c->rem));
	memset(c->rem_s, 0, c->nt * sizeof(*c->rem_s));
	memset(c->rem_e, 0, c->nt * sizeof(*c->rem_e));
	memset(c->placed, 0, c->m * sizeof(*c->placed));
	for (i = 0; i < c->m; i++) {
		const struct npa_rect *r = &c->r[i];

		if (r->a < part_lo || r->b > part_hi) {
			c->placed[i] = true;	/* not this part's */
			continue;
		}
		if (pre && c->deep_off[i] != U64_MAX) {
			c->placed[i] = true;
			c->off[i] = c->deep_off[i];
			continue;
		}
		npa_dfs_set(c, i, 0, 1);
		want++;
	}
	/* After npa_dfs_set(), which sets the skyline under a rect. */
	for (i = 0; pre && i < c->m; i++) {
		const struct npa_rect *r = &c->r[i];

		if (c->deep_off[i] == U64_MAX)
			continue;
		for (k = r->a; k < r->b; k++)
			c->sky[k] = max(c->sky[k], c->off[i] + r->size);
	}
	return want;
}

/*
 * Depth-first search for a plan with peak at most @cap and no holes, of
 * the rects that live within bounds [@lo, @hi]: each rect goes on the flat
 * floor of a valley of the skyline (everything below it is decided), into
 * one of its bottom corners. In a plan without holes the rect covering
 * such a corner has to start (or end) there, so the search only branches
 * over those rects: MiniMalloc's canonical solutions, with the corner
 * picked as the one with the fewest candidates (npa_dfs_pick()). Twins
 * (same lifetime, size and alignment) are tried once.
 *
 * Backtracking jumps over decisions that cannot have caused a failure
 * (conflict-directed backjumping): whether a valley can be filled depends
 * only on what was placed on its leaves and on its walls, so each level
 * keeps the range of leaves its failures looked at, and a level that runs
 * out of candidates goes back to the latest decision that covers a leaf
 * of that range, undoing the ones in between without retrying them. A
 * valley of the left half of an instance no longer retries every choice
 * made meanwhile in the right half. The failures are remembered too
 * (npa_tt_put(), npa_ng_put()), across restarts at the same cap.
 *
 * With c->dfs_pre it starts from the partial plan in c->deep_off instead
 * of from nothing: those rects stay where they are, the skyline is their
 * top, and the search places the others.
 *
 * Costs one unit of work per placement, and one per NPA_DFS_STEPS of the
 * leaves and candidates it looked at for it past NPA_DFS_FREE. Returns 1
 * if a plan was found (in c->off), 0 if none exists, -1 if the budget ran
 * out first.
 */
static int npa_dfs(struct npa_ctx *c, u64 cap, u64 budget, u32 part_lo,
		   u32 part_hi)
{
	struct npa_frame *stack = c->frames;
	u32 depth = 0, placed = 0, want;
	int found = -1;
	u64 spent = 0, check = 0;

	want = npa_sky_start(c, part_lo, part_hi, c->dfs_pre);
	c->cap = cap;
	c->zkey = 0;
	memset(c->zs, 0, (c->nt + 1) * sizeof(*c->zs));
	memset(c->ze, 0, (c->nt + 1) * sizeof(*c->ze));
	if (c->tt_cap != cap) {
		memset(c->tt, 0, (c->tt_mask + 1) * sizeof(*c->tt));
		memset(c->ng, 0xff, c->nt * NPA_NG_WAYS * sizeof(*c->ng));
		c->tt_cap = cap;
	}
	if (!want)
		return 1;
	c->dfs_steps = 0;
	if (!npa_dfs_frame(c, &stack[0]))
		return 0;

	for (;;) {
		struct npa_frame *f = &stack[depth];
		const struct npa_tt *tte;
		u32 id, lo, hi;

		if (f->id != U32_MAX) {
			if (f->id != NPA_DFS_WASTE)
				placed--;
			npa_dfs_undo(c, f);
		}
		id = npa_dfs_next(c, f, cap);
		if (id == U32_MAX) {
			npa_dfs_snap(c, part_lo, part_hi, placed);
			/*
			 * Back to the latest decision on the leaves seen;
			 * every state on the way fails for the same reason.
			 */
			lo = f->clo;
			hi = f->chi;
			npa_tt_put(c, lo, hi);
			npa_ng_put(c, lo, hi);
			for (;;) {
				u32 dlo, dhi;

				if (!depth) {
					f = NULL;
					break;
				}
				f = &stack[--depth];
				if (npa_dfs_span(c, f, &dlo, &dhi) &&
				    dlo <= hi && lo <= dhi)
					break;
				if (f->id != NPA_DFS_WASTE)
					placed--;
				npa_dfs_undo(c, f);
				npa_tt_put(c, lo, hi);
			}
			if (!f) {
				found = 0;
				break;
			}
			f->clo = min(f->clo, lo);
			f->chi = max(f->chi, hi);
			continue;
		}
		if (spent >= budget ||
		    (spent >= check && npa_time_check(c))) {
			npa_dfs_snap(c, part_lo, part_hi, placed);
			break;
		}
		if (spent >= check)
			check = spent + NPA_PLAN_CHECK_EVERY;
		spent++;
		if (c->dfs_steps > NPA_DFS_FREE)
			spent += (c->dfs_steps - NPA_DFS_FREE) / NPA_DFS_STEPS;
		c->dfs_steps = 0;
		f->id = id;
		npa_dfs_toggle(c, f);
		if (id == NPA_DFS_WASTE) {
			npa_dfs_fill(c, f->t, f->vend, f->rim);
			if (!npa_dfs_bound_ok(c, f->t, cap, &f->clo, &f->chi) ||
			    !npa_dfs_bound_ok(c, f->vend, cap, &f->clo, &f->chi))
				continue;
		} else {
			const struct npa_rect *r = &c->r[id];
			u64 top;

			c->placed[id] = true;
			c->off[id] = f->x;
			placed++;
			npa_dfs_set(c, id, f->x + r->size, -1);
			/*
			 * Prune when a corner this rect made, or the floor of
			 * a valley next to it or on top of it, cannot be
			 * filled.
			 */
			top = f->x + r->size;
			if (!npa_dfs_bound_ok(c, r->a, cap, &f->clo, &f->chi) ||
			    !npa_dfs_bound_ok(c, r->b, cap, &f->clo, &f->chi) ||
			    !npa_dfs_floor_ok(c, r->a, cap, &f->clo, &f->chi) ||
			    (r->a && c->sky[r->a - 1] < top &&
			     !npa_dfs_floor_ok(c, r->a - 1, cap, &f->clo,
					       &f->chi)) ||
			    (r->b + 1 < c->nt && c->sky[r->b] < top &&
			     !npa_dfs_floor_ok(c, r->b, cap, &f->clo, &f->chi)))
				continue;
		}
		/* A state, or the state of some leaves, known to fail. */
		tte = npa_tt_get(c);
		if (tte) {
			f->clo = min(f->clo, tte->lo);
			f->chi = max(f->chi, tte->hi);
			continue;
		}
		npa_dfs_span(c, f, &lo, &hi);
		if (npa_ng_hit(c, lo, &f->clo, &f->chi) ||
		    (hi != lo && npa_ng_hit(c, hi, &f->clo, &f->chi)))
			continue;
		if (placed == want) {
			found = 1;
			break;
		}
		if (WARN_ON_ONCE(depth + 1 >= c->nframes) ||
		    WARN_ON_ONCE(!npa_dfs_frame(c, &stack[depth + 1])))
			break;
		depth++;
	}
	c->work += spent;
	return found;
}

/* Rects grouped by first leaf; in a group longer, then bigger, first. */
static int npa_dfs_init(struct npa_ctx *c)
{
	struct npa_skey *sk = c->skeys;
	u32 i;

	/* Each rect makes at most two walls, each waste removes one. */
	c->nframes = 3 * c->m + 2;
	c->frames = kvmalloc_array(c->nframes, sizeof(*c->frames), GFP_KERNEL_ACCOUNT);
	c->sky = kvmalloc_array(c->nt, sizeof(*c->sky), GFP_KERNEL_ACCOUNT);
	c->rem = kvmalloc_array(c->nt, sizeof(*c->rem), GFP_KERNEL_ACCOUNT);
	c->live = kvmalloc_array(c->nt, sizeof(*c->live), GFP_KERNEL_ACCOUNT);
	c->span = kvmalloc_array(c->nt, sizeof(*c->span), GFP_KERNEL_ACCOUNT);
	/* A power of two, about 4 entries per rect, at most 2^16. */
	c->tt_mask = roundup_pow_of_two(clamp_t(u32, 4 * c->m, 64, 1 << 16)) - 1;
	c->tt = kvcalloc((size_t)c->tt_mask + 1, sizeof(*c->tt), GFP_KERNEL_ACCOUNT);
	c->tt_cap = 0;
	c->zs = kvmalloc_array(c->nt + 1, sizeof(*c->zs), GFP_KERNEL_ACCOUNT);
	c->ze = kvmalloc_array(c->nt + 1, sizeof(*c->ze), GFP_KERNEL_ACCOUNT);
	c->ng = kvmalloc_array(c->nt, NPA_NG_WAYS * sizeof(*c->ng), GFP_KERNEL_ACCOUNT);
	c->reach = kvmalloc_array(c->nt, sizeof(*c->reach), GFP_KERNEL_ACCOUNT);
	c->deep_off = kvmalloc_array(c->m, sizeof(*c->deep_off), GFP_KERNEL_ACCOUNT);
	c->rem_s = kvmalloc_array(c->nt, sizeof(*c->rem_s), GFP_KERNEL_ACCOUNT);
	c->rem_e = kvmalloc_array(c->nt, sizeof(*c->rem_e), GFP_KERNEL_ACCOUNT);
	c->placed = kvmalloc_array(c->m, sizeof(*c->placed), GFP_KERNEL_ACCOUNT);
	c->start = kvcalloc((size_t)c->nt + 1, sizeof(*c->start), GFP_KERNEL_ACCOUNT);
	c->bucket = kvmalloc_array(c->m, sizeof(*c->bucket), GFP_KERNEL_ACCOUNT);
	c->estart = kvcalloc((size_t)c->nt + 1, sizeof(*c->estart), GFP_KERNEL_ACCOUNT);
	c->ebucket = kvmalloc_array(c->m, sizeof(*c->ebucket), GFP_KERNEL_ACCOUNT);
	if (!c->frames || !c->sky || !c->rem || !c->live || !c->span || !c->tt ||
	    !c->zs || !c->ze || !c->ng || !c->reach || !c->deep_off ||
	    !c->placed ||
	    !c->rem_s || !c->rem_e || !c->start || !c->bucket ||
	    !c->estart || !c->ebucket) {
		/* npa_run_skyline() takes c->sky for a search set up. */
		kvfree(c->sky);
		c->sky = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < c->m; i++) {
		const struct npa_rect *r = &c->r[i];

		sk[i].k0 = r->a;
		sk[i].k1 = (u64)r->b << 32 | (U32_MAX - (u32)r->amask);
		sk[i].k2 = r->size;
		sk[i].id = i;
		c->start[r->a + 1]++;
	}
	sort(sk, c->m, sizeof(*sk), npa_skey_cmp, NULL);
	c->deep_n = 0;
	for (i = 0; i < c->m; i++) {
		c->bucket[i] = sk[i].id;
		c->deep_off[i] = U64_MAX;
	}
	for (i = 0; i < c->nt; i++)
		c->start[i + 1] += c->start[i];
	/* And by end bound, longer (earlier start), then bigger, first. */
	for (i = 0; i < c->m; i++) {
		const struct npa_rect *r = &c->r[i];

		sk[i].k0 = r->b;
		sk[i].k1 = (u64)(U32_MAX - r->a) << 32 |
			   (U32_MAX - (u32)r->amask);
		sk[i].k2 = r->size;
		sk[i].id = i;
		c->estart[r->b + 1]++;
	}
	sort(sk, c->m, sizeof(*sk), npa_skey_cmp, NULL);
	for (i = 0; i < c->m; i++)
		c->ebucket[i] = sk[i].id;
	for (i = 0; i < c->nt; i++)
		c->estart[i + 1] += c->estart[i];
	return 0;
}

/* Is the live load at the lower bound for at least 7/8 of the time? */
static bool npa_tight(const struct npa_ctx *c)
{
	u64 at = 0, all = 0;
	u32 i;

	for (i = 0; i + 1 < c->nt; i++) {
		u64 d = c->t[i + 1] - c->t[i];

		all += d;
		if (c->prof.tree[c->prof.size + i] == c->lb)
			at += d;
	}
	return at >= all - all / 8;
}

/*
 * One round of restarts at @cap until @stop; true if a plan was found.
 * Where no lifetime crosses a bound, the instance falls apart into parts
 * that do not interact: each is searched (and restarted) on its own, so
 * that a hard part does not throw away the plans of the easy ones.
 */
static bool npa_exact_at(struct npa_ctx *c, u64 cap, u64 stop, int *proof)
{
	u32 lo = 0, hi, cross;

	*proof = 0;
	c->dfs_random = false;
	c->done_n = 0;
	while (lo + 1 < c->nt) {
		u64 limit;
		u32 cnt;
		int ret;

		/* The part: up to the next bound no lifetime crosses. */
		cross = 0;
		for (hi = lo + 1; hi + 1 < c->nt; hi++) {
			cross += c->start[hi] - c->start[hi - 1];
			cross -= c->estart[hi + 1] - c->estart[hi];
			if (!cross)
				break;
		}
		cnt = c->start[hi] - c->start[lo];
		if (!cnt) {
			lo = hi;
			continue;
		}
		limit = max_t(u64, 16ULL * cnt, 1024);
		do {
			if (c->work >= stop || c->out_of_time)
				return false;
			ret = npa_dfs(c, cap, min(limit, stop - c->work), lo, hi);
			c->dfs_random = true;
		} while (ret < 0);
		if (!ret) {
			*proof = 1;	/* no plan of this shape under cap */
			return false;
		}
		c->done_n += cnt;
		lo = hi;
	}
	npa_off_peak(c);
	npa_keep_off(c, NPA_PLAN_ALGO_EXACT);
	return true;
}

/*
 * Branch and bound over canonical skyline plans for moderate n: restarts
 * of npa_dfs() with a node limit of a few placements per rect, the first
 * scanning candidates in their preferred order, later ones at random
 * (short random restarts beat one long search on these heavy-tailed
 * trees). First at the lower bound; then, if that fails, a bisection of
 * the cap between the lower bound and the best peak. Tightly packed
 * instances, where this is the search that works, get most of the
 * remaining budget, all of it at the lower bound: with any slack the
 * search prunes little: on 60 strips of 1000 rects the bisection found
 * one plan (12% over) where its share, given to the bound, solved 4
 * more. Others get a quarter, three quarters of it at the bound.
 */
static void npa_run_exact(struct npa_ctx *c, bool tight)
{
	u64 left = c->budget > c->work ? c->budget - c->work : 0;
	u64 share, lo, stop;
	int proof;

	if (c->best_peak <= c->lb || c->m > NPA_PLAN_EXACT_MAX || !left)
		return;
	if (npa_dfs_init(c))
		return;
	share = tight ? left - left / 8 : left / 4;
	stop = c->work + share;
	if (npa_exact_at(c, c->lb, tight ? stop : stop - share / 4, &proof) ||
	    proof)
		return;
	lo = c->lb;
	while (c->work < stop && !c->out_of_time && c->best_peak - lo > 1) {
		u64 cap = lo + (c->best_peak - lo) / 2;
		u64 slice = max_t(u64, (stop - c->work) / 4, 1);

		if (!npa_exact_at(c, cap, c->work + slice, &proof))
			lo = cap;
	}
}

/* The lower bound plus @permille thousandths of it: a cap above it. */
static u64 npa_lb_permille(const struct npa_ctx *c, u32 permille)
{
	return npa_sat_add(c->lb, div64_u64(c->lb, 1000) * permille);
}

/*
 * When the exact search found no plan at the lower bound of a tight
 * instance, complete the deepest partial plan it reached (it has no
 * holes) with the same search under caps a little above the bound: 1%,
 * then 2%, 3%, 5%, 7.5%, 10%, 15% and 20%, each time from the deepest
 * partial plan reached so far, also by the searches under the lower
 * caps. The rects left then need little room: on strips of 1000 rects
 * this ends 1-9% over where the orders end 35-45% over. It gets half of
 * the budget left, in restarts of 1/64 of that.
 */
static void npa_run_complete(struct npa_ctx *c)
{
	static const u16 permille[] = { 10, 20, 30, 50, 75, 100, 150, 200 };
	u64 left = c->budget > c->work ? c->budget - c->work : 0;
	u64 stop = c->work + left / 2, limit = max_t(u64, left / 64, 1);
	u32 k;

	if (!c->deep_n || c->best_peak <= c->lb)
		return;
	for (k = 0; k < ARRAY_SIZE(permille); k++) {
		u64 cap = npa_lb_permille(c, permille[k]);
		u32 round;

		if (cap >= c->best_peak)
			return;
		/* A deeper start found under this cap is tried under it too. */
		for (round = 0; round < 4; round++) {
			u32 start = c->deep_n, tries;
			int ret = -1;

			c->dfs_pre = true;
			c->done_n = c->deep_n;
			c->tt_cap = 0;	/* another start: forget its failures */
			c->dfs_random = false;
			for (tries = 0; tries < 8 && ret < 0; tries++) {
				if (c->work >= stop || c->out_of_time)
					break;
				ret = npa_dfs(c, cap, min(limit, stop - c->work),
					      0, c->nt - 1);
				c->dfs_random = true;
			}
			c->dfs_pre = false;
			if (ret > 0) {
				npa_off_peak(c);
				npa_keep_off(c, NPA_PLAN_ALGO_COMPLETE);
				return;
			}
			if (c->work >= stop || c->out_of_time)
				return;
			if (!ret || c->deep_n == start)
				break;
		}
	}
}

/*
 * One greedy skyline pass under @cap, from nothing or (@deep) from the
 * deepest partial plan: fill the lowest valley (the leftmost, of the
 * leaves with rects left) with the unplaced rect that fits in it best:
 * one that touches a corner of the valley before one that does not, one
 * as wide as the valley before a narrower one, one whose top is flush
 * with a wall before one that is not, then the bigger. When none fits,
 * the valley is wasted up to its lower wall (or given up at @cap). The
 * pass leaves an order in c->order: its rects by offset, then the ones it
 * could not place, biggest first. First fit in that order puts each rect
 * of the pass at or below its offset there.
 */
static void npa_sky_pass(struct npa_ctx *c, u64 cap, bool deep)
{
	u32 i, t = 0, e;

	npa_sky_start(c, 0, c->nt - 1, deep);
	for (;;) {
		u64 x = U64_MAX, lw, rw, h, best_key = 0;
		u32 best = U32_MAX, k;

		for (i = 0; i + 1 < c->nt; i++) {
			if (c->live[i] && c->sky[i] < x) {
				x = c->sky[i];
				t = i;
			}
		}
		if (x == U64_MAX)
			break;
		for (e = t; e + 1 < c->nt && c->live[e] && c->sky[e] == x; e++)
			;
		lw = t && c->live[t - 1] ? c->sky[t - 1] : U64_MAX;
		rw = e + 1 < c->nt && c->live[e] ? c->sky[e] : U64_MAX;
		for (k = c->start[t]; x < cap && k < c->start[e]; k++) {
			const struct npa_rect *r = &c->r[c->bucket[k]];
			u64 key, top;

			if (c->placed[c->bucket[k]] || r->b > e ||
			    r->size > cap - x || (x & r->amask))
				continue;
			top = x + r->size;
			key = (u64)(8 * (r->a == t || r->b == e) +
				    4 * (r->a == t && r->b == e) +
				    2 * ((r->a == t && top == lw) ||
					 (r->b == e && top == rw))) << 56 |
			      min_t(u64, r->size, (1ULL << 56) - 1);
			if (key > best_key) {
				best_key = key;
				best = c->bucket[k];
			}
		}
		c->work++;
		if (npa_check_due(c))
			npa_time_check(c);
		if (best != U32_MAX) {
			c->placed[best] = true;
			c->off[best] = x;
			npa_dfs_set(c, best, x + c->r[best].size, -1);
			continue;
		}
		h = min(min(lw, rw), cap);
		if (h > x) {
			npa_dfs_fill(c, t, e, h);
			continue;
		}
		for (i = t; i < e; i++)
			c->live[i] = 0;
	}
	npa_order_by_off(c, c->placed, c->order);
}

/*
 * When neither the exact search nor the completion brought a tight
 * instance to its lower bound, greedy skyline passes (npa_sky_pass()),
 * from nothing and from the deepest partial plan, under caps of 0%, 5%,
 * 10%, 15%, 20%, 30% and 100% above the bound, each placed by first fit
 * in its order. No search, so they waste where the exact search would
 * backtrack, but they keep the skyline's structure that orders lose: on
 * strips of 2000 rects they end 20-29% over where the orders end 37-46%
 * over, and they start the local search from there. Each pair costs
 * about 4n units of work.
 */
static void npa_run_skyline(struct npa_ctx *c)
{
	static const u16 permille[] = { 0, 50, 100, 150, 200, 300, 1000 };
	u32 k, pass;

	if (!c->sky || c->best_peak <= c->lb)
		return;
	for (k = 0; k < ARRAY_SIZE(permille); k++) {
		u64 cap = npa_lb_permille(c, permille[k]);

		for (pass = 0; pass < (c->deep_n ? 2 : 1); pass++) {
			if (cap >= c->best_peak || !npa_can_spend(c, 4 * c->m))
				return;
			npa_sky_pass(c, cap, pass);
			npa_try(c, c->order, c->best_peak + 1,
				NPA_PLAN_ALGO_SKYLINE);
		}
	}
}

/* ---------------------------------------------------------------------- */
/* Perfect tilings */

/*
 * When the live load equals the lower bound at every step, a plan at the
 * bound has no free byte anywhere: at every bound, the rects ending there
 * leave exactly the addresses that the rects starting there take. The
 * tiling search sweeps the bounds in time order and keeps, instead of an
 * address for each live rect, every left-to-right order of the live rects
 * that is still possible, as a PQ-tree (Booth and Lueker, 1976): a P-node
 * lets its children come in any order, a Q-node in the order given or its
 * mirror. At each bound it splits the ending and the starting rects into
 * blocks of equal sums; the ending rects of a block must be next to each
 * other (a PQ-tree reduction, which fails when earlier choices rule it
 * out), and the starting rects of the block replace them as one P-node,
 * in any order. A depth-first search over the blocks backtracks when a
 * reduction fails. The address of each rect is only fixed at the end,
 * sweeping back in time from one order of the last live rects.
 *
 * Which split is right is a guess: the block of one ending rect is tried
 * among the small equal-sum pairs (most likely the smallest), the rest of
 * the bound minus a small pair, the ending rects under one node of the
 * tree with starting rects of the same sum, and everything left. A pair
 * of equal sums that many other subsets of the same sizes could match by
 * chance is weak evidence and goes after "everything left" in two of the
 * three orders used. The orders: (0) the first ending rect left, with the
 * tree's blocks; (1) the ending rect with the smallest pair, with the
 * tree's blocks; (2) that rect, without them, every pair before
 * "everything left". The search restarts with the orders in turn, on the
 * instance and on its mirror in time, with a limit that doubles every six
 * restarts and, after twelve, random tie-breaks.
 *
 * Rects of the same size that start at the same bound in different
 * blocks could have taken each other's places: which one took which is a
 * guess the search need not make until one of them ends. When every
 * candidate of a decision fails (at the top level: not in the plans of
 * the merge step's pieces), they are tried again with one ending rect
 * traded for such a twin that lives on (npa_treduce_twins()).
 *
 * A wrong block is often found out only hundreds of bounds later, when
 * the tree has become tight enough to refute it; the search keeps the
 * deepest tiling of the time before some bound it got to in each
 * direction, and an earlier one. If no restart finishes, each is
 * completed by going on with its sweep, the rects starting at each bound
 * filling the gaps there by exact sums where they can and by best fit
 * where not; and one more run goes on where a decision is stuck, leaving
 * holes (npa_thole(); above NPA_PLAN_EXACT_MAX rects only for a plan
 * more than 5% over, see npa_run_relaxed()).
 */

#define NPA_TN_NONE	U32_MAX
/* Largest instance the tiling search is tried on (about 600 bytes a rect). */
#define NPA_TILE_MAX	16384
/* Candidate blocks per decision, and what enumerating them may cost. */
#define NPA_TILE_CANDS	48
#define NPA_TILE_PAIR	12	/* largest small pair, in rects */
#define NPA_TILE_COMP	8	/* largest pair left out of the rest */
#define NPA_TILE_PROBE	4	/* largest pair looked for to pick the rect */
#define NPA_TILE_COMBOS	20000	/* subsets enumerated per kind */
#define NPA_TILE_SUBSET	24	/* most starting rects for a full subset sum */
#define NPA_TILE_TWINS	8	/* twins traded for one candidate, at most */
#define NPA_TILE_TWIN_SCAN	32	/* rects of its size looked at, for one */
#define NPA_TILE_PAIRS	8	/* pair trades for one candidate, at most */
#define NPA_TILE_SNAPS	256	/* partial tilings kept a direction, at most */
#define NPA_TILE_STALL	4096	/* relaxed: work a failure may take to mend */
#define NPA_RELAX_RESCUE	128	/* relaxed, above 4096 rects: units a rect */
/* -16 log2(e^-4): a pair this unlikely by chance is believed. */
#define NPA_TILE_CHANCE	92

enum npa_tn_type { NPA_TN_LEAF, NPA_TN_P, NPA_TN_Q };
enum npa_tn_label { NPA_TL_EMPTY, NPA_TL_FULL, NPA_TL_PARTIAL };

/* A node of the PQ-tree; nodes 0 .. m - 1 are the leaves (the rects). */
struct npa_tn {
	u32 parent, first, last, prev, next;
	u32 type;
	u32 cnt, label;		/* scratch of one reduction */
};

/* An undo record: *p was v. */
struct npa_ttrail {
	u32 *p;
	u32 v;
};

/*
 * One block applied: the starting rects s[s_at, + s_cnt) took the place
 * of the ending rects f[f_at, + f_cnt), which were in that order (or its
 * mirror, see @anchor) at the time.
 */
struct npa_trec {
	u32 s_at, s_cnt, f_at, f_cnt;
	u32 anchor;		/* a live rect beside the run, or NPA_TN_NONE */
	u32 left;		/* @anchor was on the left of the run */
};

/* One decision: the block of one ending rect at bound @bi. */
struct npa_tframe {
	u32 bi, k;		/* bound, candidate tried */
	u64 erem, srem;		/* ending, starting rects not in a block yet */
	u32 mark;		/* trail length before candidate k */
	bool full;		/* every candidate listed, not the first few */
	bool twins;		/* trying them again, trading twins */
	bool relaxed;		/* a hole for a rect, or none ending: kept */
	u64 seed;		/* of the random tie-breaks (t->rng) */
};

/* Where a reduction put the rects: one node, or a run of a Q-node. */
struct npa_tfull {
	u32 node;
	u32 q, from, to;
	u32 anchor, left;
};

struct npa_tile {
	struct npa_ctx *c;
	u32 m, nt;
	u32 *base[2], *list[2];	/* rects by end [0], start [1] bound */
	bool mirror;		/* search the instance mirrored in time */
	struct npa_tn *n;
	u32 ncap, ntop, root;
	struct npa_ttrail *tr;
	u32 trcap, ntr;
	bool overflow;
	struct npa_trec *rec;
	u32 nrec, s_top, f_top;
	u32 *sids, *fids;
	u32 *spos;		/* per rect: where it is in @sids */
	bool twins;		/* the block being applied trades twins */
	struct npa_tframe *fr;
	u32 *stk, *touched, *cls[3];
	u32 ntouched;
	/* Candidates of the decision at hand. */
	u64 cand_e[NPA_TILE_CANDS], cand_s[NPA_TILE_CANDS];
	u64 cand_key[NPA_TILE_CANDS];
	u32 ncand;
	u32 cand_depth;		/* decision the list is for, or U32_MAX */
	u64 cand_seed;		/* the decision's random tie-breaks */
	bool cand_first;	/* the list stops at the first candidates */
	u32 combos, combo_max;	/* subsets enumerated, allowed */
	bool dyn, anc, chance;	/* the three orders */
	u64 rng;
	/* The enumeration in progress. */
	const u32 *el, *sl;
	u64 erem, srem;
	u32 eo[64], neo, so[64], nso, e0;
	u64 esz[64], ssz[64];	/* the sizes of eo[] and so[] */
	bool sdup[64];		/* so[k] is alike in all to so[k - 1] */
	u64 spre[65];		/* spre[k]: the sizes of so[0, k) summed */
	bool comp;
	u32 be[64], bs[64];	/* the block being applied */
	/*
	 * Partial tilings of each direction (U64_MAX: not placed): the
	 * deepest [0] and an earlier one [1], and their bounds.
	 */
	u64 *part[2][2];
	u32 part_bi[2][2];
	/* For npa_tile_complete(): rects placed, prefix sums of sizes. */
	u8 *mark;
	u64 *pre;
	/*
	 * The free gaps of the column being filled, in address order, the
	 * top of the buffers live there, and whether a rect placed since
	 * went somewhere else (see npa_tfit()).
	 */
	struct npa_iv *gap;
	u32 ngap;
	u64 top;
	bool gstale;
	/*
	 * The relaxed run (npa_trelaxed()): the size of each hole (a leaf
	 * that is no rect, node m and up), the holes in the tree, the rects
	 * left out of it, and when the search last got further or relaxed.
	 */
	bool relax;
	u64 *hsz;
	u32 *holes, nholes;
	u32 *gone;
	u32 front_bi;
	u64 front_work, stop;	/* ... and where the run in progress stops */
	u64 *xoff;
	u32 *xnxt, *xprv;
};

/* The size of leaf @x of the tree: a rect's, or a hole's. */
static u64 npa_tsz(const struct npa_tile *t, u32 x)
{
	return x < t->m ? t->c->r[x].size : t->hsz[x];
}

/*
 * Set *@p to @v, remembering the old value. With the trail full the write
 * still happens (the loops that move nodes rely on it) but cannot be
 * undone: t->overflow ends the search, which throws the tree away.
 */
static void npa_tset(struct npa_tile *t, u32 *p, u32 v)
{
	if (*p == v)
		return;
	if (t->ntr == t->trcap) {
		t->overflow = true;
	} else {
		t->tr[t->ntr].p = p;
		t->tr[t->ntr].v = *p;
		t->ntr++;
	}
	*p = v;
}

static void npa_tunwind(struct npa_tile *t, u32 mark)
{
	while (t->ntr > mark) {
		t->ntr--;
		*t->tr[t->ntr].p = t->tr[t->ntr].v;
	}
}

static void npa_tinit(struct npa_tn *nd, u32 type)
{
	nd->parent = NPA_TN_NONE;
	nd->first = NPA_TN_NONE;
	nd->last = NPA_TN_NONE;
	nd->prev = NPA_TN_NONE;
	nd->next = NPA_TN_NONE;
	nd->type = type;
	nd->cnt = 0;
	nd->label = NPA_TL_EMPTY;
}

static u32 npa_tnew(struct npa_tile *t, u32 type)
{
	u32 x = t->ntop;

	if (x == t->ncap) {
		t->overflow = true;
		return NPA_TN_NONE;
	}
	/* Above every trail mark: only the top needs undoing. */
	npa_tset(t, &t->ntop, x + 1);
	npa_tinit(&t->n[x], type);
	return x;
}

static void npa_tdetach(struct npa_tile *t, u32 x)
{
	struct npa_tn *nd = &t->n[x];
	u32 p = nd->parent;

	if (p == NPA_TN_NONE)
		return;
	if (nd->prev != NPA_TN_NONE)
		npa_tset(t, &t->n[nd->prev].next, nd->next);
	else
		npa_tset(t, &t->n[p].first, nd->next);
	if (nd->next != NPA_TN_NONE)
		npa_tset(t, &t->n[nd->next].prev, nd->prev);
	else
		npa_tset(t, &t->n[p].last, nd->prev);
	npa_tset(t, &nd->parent, NPA_TN_NONE);
	npa_tset(t, &nd->prev, NPA_TN_NONE);
	npa_tset(t, &nd->next, NPA_TN_NONE);
}

/* Insert detached @x into @p before @at (NPA_TN_NONE: at the end). */
static void npa_tinsert(struct npa_tile *t, u32 p, u32 x, u32 at)
{
	u32 before = at == NPA_TN_NONE ? t->n[p].last : t->n[at].prev;

	npa_tset(t, &t->n[x].parent, p);
	npa_tset(t, &t->n[x].prev, before);
	npa_tset(t, &t->n[x].next, at);
	if (before != NPA_TN_NONE)
		npa_tset(t, &t->n[before].next, x);
	else
		npa_tset(t, &t->n[p].first, x);
	if (at != NPA_TN_NONE)
		npa_tset(t, &t->n[at].prev, x);
	else
		npa_tset(t, &t->n[p].last, x);
}

/* Put detached @y where @x is; @x ends up detached. */
static void npa_treplace(struct npa_tile *t, u32 x, u32 y)
{
	u32 p = t->n[x].parent, at = t->n[x].next;

	npa_tdetach(t, x);
	if (p == NPA_TN_NONE)
		npa_tset(t, &t->root, y);
	else
		npa_tinsert(t, p, y, at);
}

static void npa_treverse(struct npa_tile *t, u32 x)
{
	u32 ch = t->n[x].first, first = ch;

	while (ch != NPA_TN_NONE) {
		u32 nx = t->n[ch].next;

		npa_tset(t, &t->n[ch].next, t->n[ch].prev);
		npa_tset(t, &t->n[ch].prev, nx);
		ch = nx;
	}
	npa_tset(t, &t->n[x].first, t->n[x].last);
	npa_tset(t, &t->n[x].last, first);
}

/* Move the children of @x, in order or mirrored, into @p before @at. */
static void npa_tsplice(struct npa_tile *t, u32 x, u32 p, u32 at, bool rev)
{
	u32 ch;

	while ((ch = rev ? t->n[x].last : t->n[x].first) != NPA_TN_NONE) {
		npa_tdetach(t, ch);
		npa_tinsert(t, p, ch, at);
	}
}

/* The nodes @ch[0, cnt) under one new P-node (or the only one), detached. */
static u32 npa_tgroup(struct npa_tile *t, const u32 *ch, u32 cnt, bool full)
{
	u32 x, i;

	if (!cnt)
		return NPA_TN_NONE;
	if (cnt == 1) {
		npa_tdetach(t, ch[0]);
		return ch[0];
	}
	x = npa_tnew(t, NPA_TN_P);
	if (x == NPA_TN_NONE)
		return NPA_TN_NONE;
	for (i = 0; i < cnt; i++) {
		npa_tdetach(t, ch[i]);
		npa_tinsert(t, x, ch[i], NPA_TN_NONE);
	}
	if (full) {
		t->n[x].cnt = 1;
		t->n[x].label = NPA_TL_FULL;
		t->touched[t->ntouched++] = x;
	}
	return x;
}

static u32 npa_tleaf(const struct npa_tile *t, u32 x)
{
	while (t->n[x].type != NPA_TN_LEAF)
		x = t->n[x].first;
	return x;
}

static u32 npa_tlabel(const struct npa_tile *t, u32 x)
{
	return t->n[x].cnt ? t->n[x].label : NPA_TL_EMPTY;
}

/*
 * Do the children of Q-node @x read E* [P] F* (@root: E* [P] F* [P] E*),
 * E empty, F full and P partial?
 */
static bool npa_tq_pattern(const struct npa_tile *t, u32 x, bool root)
{
	u32 ch = t->n[x].first;

	while (ch != NPA_TN_NONE && npa_tlabel(t, ch) == NPA_TL_EMPTY)
		ch = t->n[ch].next;
	if (ch != NPA_TN_NONE && npa_tlabel(t, ch) == NPA_TL_PARTIAL)
		ch = t->n[ch].next;
	while (ch != NPA_TN_NONE && npa_tlabel(t, ch) == NPA_TL_FULL)
		ch = t->n[ch].next;
	if (!root)
		return ch == NPA_TN_NONE;
	if (ch != NPA_TN_NONE && npa_tlabel(t, ch) == NPA_TL_PARTIAL)
		ch = t->n[ch].next;
	while (ch != NPA_TN_NONE && npa_tlabel(t, ch) == NPA_TL_EMPTY)
		ch = t->n[ch].next;
	return ch == NPA_TN_NONE;
}

/* Sort the children of @x by label into t->cls[]; returns the counts. */
static void npa_tclassify(struct npa_tile *t, u32 x, u32 *cnt)
{
	u32 ch;

	cnt[0] = 0;
	cnt[1] = 0;
	cnt[2] = 0;
	for (ch = t->n[x].first; ch != NPA_TN_NONE; ch = t->n[ch].next) {
		u32 l = npa_tlabel(t, ch);

		t->cls[l][cnt[l]++] = ch;
	}
}

/*
 * Are all the leaves under @x full? Unless @x is a leaf, its children are
 * sorted by label into t->cls[] and counted in @cnt on the way.
 */
static bool npa_tall_full(struct npa_tile *t, u32 x, u32 *cnt)
{
	if (t->n[x].type == NPA_TN_LEAF)
		return true;
	npa_tclassify(t, x, cnt);
	return !cnt[NPA_TL_EMPTY] && !cnt[NPA_TL_PARTIAL];
}

/*
 * A node below the pertinent root with some of the rects: label it FULL,
 * or make it a Q-node ordered [empty ..., full ...] and label it PARTIAL.
 * False when its children cannot be put so.
 */
static bool npa_tpartial(struct npa_tile *t, u32 x)
{
	struct npa_tn *nd = &t->n[x];
	u32 cnt[3], ch;

	if (npa_tall_full(t, x, cnt)) {
		nd->label = NPA_TL_FULL;
		return true;
	}
	nd->label = NPA_TL_PARTIAL;
	if (cnt[NPA_TL_PARTIAL] > 1)
		return false;
	if (nd->type == NPA_TN_P) {
		u32 pc = cnt[NPA_TL_PARTIAL] ? t->cls[NPA_TL_PARTIAL][0] :
					       NPA_TN_NONE;
		u32 ge = npa_tgroup(t, t->cls[NPA_TL_EMPTY], cnt[NPA_TL_EMPTY],
				    false);
		u32 gf = npa_tgroup(t, t->cls[NPA_TL_FULL], cnt[NPA_TL_FULL],
				    true);

		if (t->overflow)
			return false;
		/* Left in x: the partial child at most. */
		npa_tset(t, &nd->type, NPA_TN_Q);
		if (ge != NPA_TN_NONE)
			npa_tinsert(t, x, ge, nd->first);
		if (gf != NPA_TN_NONE)
			npa_tinsert(t, x, gf, NPA_TN_NONE);
		if (pc != NPA_TN_NONE) {
			npa_tsplice(t, pc, x, pc, false);
			npa_tdetach(t, pc);
		}
		return true;
	}
	if (!npa_tq_pattern(t, x, false)) {
		npa_treverse(t, x);
		if (!npa_tq_pattern(t, x, false))
			return false;
	}
	for (ch = nd->first; ch != NPA_TN_NONE; ch = t->n[ch].next) {
		if (npa_tlabel(t, ch) == NPA_TL_PARTIAL) {
			npa_tsplice(t, ch, x, ch, false);
			npa_tdetach(t, ch);
			break;
		}
	}
	return true;
}

/* The pertinent root @r: make its full leaves one run; say where in @out. */
static bool npa_troot(struct npa_tile *t, u32 r, struct npa_tfull *out)
{
	u32 cnt[3], ch, first = NPA_TN_NONE, last = NPA_TN_NONE;

	out->node = NPA_TN_NONE;
	out->anchor = NPA_TN_NONE;
	out->left = 0;
	if (npa_tall_full(t, r, cnt)) {
		out->node = r;
		return true;
	}
	if (t->n[r].type == NPA_TN_P) {
		u32 p1 = cnt[NPA_TL_PARTIAL] > 0 ? t->cls[NPA_TL_PARTIAL][0] :
						   NPA_TN_NONE;
		u32 p2 = cnt[NPA_TL_PARTIAL] > 1 ? t->cls[NPA_TL_PARTIAL][1] :
						   NPA_TN_NONE;
		u32 gf, q;

		if (cnt[NPA_TL_PARTIAL] > 2)
			return false;
		gf = npa_tgroup(t, t->cls[NPA_TL_FULL], cnt[NPA_TL_FULL], true);
		if (t->overflow)
			return false;
		if (p1 == NPA_TN_NONE) {
			/* Two or more full children among empty ones. */
			npa_tinsert(t, r, gf, NPA_TN_NONE);
			out->node = gf;
			return true;
		}
		npa_tdetach(t, p1);
		if (p2 != NPA_TN_NONE)
			npa_tdetach(t, p2);
		if (!cnt[NPA_TL_EMPTY]) {
			q = r;
			npa_tset(t, &t->n[r].type, NPA_TN_Q);
		} else {
			q = npa_tnew(t, NPA_TN_Q);
			if (q == NPA_TN_NONE)
				return false;
			npa_tinsert(t, r, q, NPA_TN_NONE);
		}
		/* q: [p1: empty ... full] [full] [p2: full ... empty] */
		npa_tsplice(t, p1, q, NPA_TN_NONE, false);
		if (gf != NPA_TN_NONE)
			npa_tinsert(t, q, gf, NPA_TN_NONE);
		if (p2 != NPA_TN_NONE)
			npa_tsplice(t, p2, q, NPA_TN_NONE, true);
		r = q;
	} else {
		u32 pl = NPA_TN_NONE, pr = NPA_TN_NONE;
		bool full = false;

		if (!npa_tq_pattern(t, r, true))
			return false;
		for (ch = t->n[r].first; ch != NPA_TN_NONE; ch = t->n[ch].next) {
			if (npa_tlabel(t, ch) == NPA_TL_FULL)
				full = true;
			else if (npa_tlabel(t, ch) != NPA_TL_PARTIAL)
				continue;
			else if (pl == NPA_TN_NONE && !full)
				pl = ch;
			else
				pr = ch;
		}
		if (pl != NPA_TN_NONE) {
			npa_tsplice(t, pl, r, pl, false);
			npa_tdetach(t, pl);
		}
		if (pr != NPA_TN_NONE) {
			npa_tsplice(t, pr, r, pr, true);
			npa_tdetach(t, pr);
		}
	}
	for (ch = t->n[r].first; ch != NPA_TN_NONE; ch = t->n[ch].next) {
		if (npa_tlabel(t, ch) == NPA_TL_FULL) {
			if (first == NPA_TN_NONE)
				first = ch;
			last = ch;
		}
	}
	if (first == NPA_TN_NONE)
		return false;
	out->q = r;
	out->from = first;
	out->to = last;
	if (t->n[first].prev != NPA_TN_NONE) {
		out->anchor = npa_tleaf(t, t->n[first].prev);
		out->left = 1;
	} else if (t->n[last].next != NPA_TN_NONE) {
		out->anchor = npa_tleaf(t, t->n[last].next);
	} else {
		out->node = r;
	}
	return true;
}

/* Make the leaves @ids[0, cnt) consecutive; @out says where they are. */
static bool npa_treduce(struct npa_tile *t, const u32 *ids, u32 cnt,
			struct npa_tfull *out)
{
	u32 i, x, pr = NPA_TN_NONE, sp = 0, no = 0;
	u32 *order = t->stk + t->ncap;
	bool ok = true;

	for (i = 0; i < cnt; i++) {
		for (x = ids[i]; x != NPA_TN_NONE; x = t->n[x].parent) {
			if (!t->n[x].cnt++)
				t->touched[t->ntouched++] = x;
			t->c->work++;
		}
	}
	for (x = ids[0]; x != NPA_TN_NONE; x = t->n[x].parent) {
		if (t->n[x].cnt == cnt) {
			pr = x;
			break;
		}
	}
	/* Children before parents: the pre-order of the pertinent subtree, backwards. */
	t->stk[sp++] = pr;
	while (sp) {
		u32 ch;

		x = t->stk[--sp];
		order[no++] = x;
		for (ch = t->n[x].first; ch != NPA_TN_NONE; ch = t->n[ch].next)
			if (t->n[ch].cnt)
				t->stk[sp++] = ch;
	}
	while (no > 1 && ok)
		ok = npa_tpartial(t, order[--no]);
	if (ok)
		ok = npa_troot(t, pr, out);
	for (i = 0; i < t->ntouched; i++) {
		t->n[t->touched[i]].cnt = 0;
		t->n[t->touched[i]].label = NPA_TL_EMPTY;
	}
	t->ntouched = 0;
	return ok && !t->overflow;
}

/* Append the leaves of @x, left to right, to @out[*cnt ...]. */
static void npa_tlinear(struct npa_tile *t, u32 x, u32 *out, u32 *cnt)
{
	u32 sp = 0;

	t->stk[sp++] = x;
	while (sp) {
		u32 ch;

		x = t->stk[--sp];
		if (t->n[x].type == NPA_TN_LEAF) {
			out[(*cnt)++] = x;
			continue;
		}
		for (ch = t->n[x].last; ch != NPA_TN_NONE; ch = t->n[ch].prev)
			t->stk[sp++] = ch;
	}
}

/* The rects ending (@starts false) or starting at bound @bi of the view. */
static const u32 *npa_tbound(const struct npa_tile *t, u32 bi, bool starts,
			     u32 *cnt)
{
	u32 b = t->mirror ? t->nt - 1 - bi : bi, k = starts != t->mirror;

	*cnt = t->base[k][b + 1] - t->base[k][b];
	return t->list[k] + t->base[k][b];
}

/* The bounds of the view where rect @x starts and ends. */
static u32 npa_tvstart(const struct npa_tile *t, u32 x)
{
	return t->mirror ? t->nt - 1 - t->c->r[x].b : t->c->r[x].a;
}

static u32 npa_tvend(const struct npa_tile *t, u32 x)
{
	return t->mirror ? t->nt - 1 - t->c->r[x].a : t->c->r[x].b;
}

/*
 * Live rects @x and @y of the same size, started at the same bound, trade
 * places: in the tree, in the records of the blocks that started them,
 * and as the anchors of records (a rect beside a run stands for its
 * place).
 */
static void npa_tswap(struct npa_tile *t, u32 x, u32 y)
{
	u32 px = t->n[x].parent, nx = t->n[x].next;
	u32 py = t->n[y].parent, ny = t->n[y].next;
	u32 sx = t->spos[x], sy = t->spos[y], i;

	if (nx == y) {
		npa_tdetach(t, y);
		npa_tinsert(t, px, y, x);
	} else if (ny == x) {
		npa_tdetach(t, x);
		npa_tinsert(t, py, x, y);
	} else {
		npa_tdetach(t, x);
		npa_tdetach(t, y);
		npa_tinsert(t, px, y, nx);
		npa_tinsert(t, py, x, ny);
	}
	npa_tset(t, &t->sids[sx], y);
	npa_tset(t, &t->sids[sy], x);
	npa_tset(t, &t->spos[x], sy);
	npa_tset(t, &t->spos[y], sx);
	for (i = 0; i < t->nrec; i++) {
		if (t->rec[i].anchor == x)
			npa_tset(t, &t->rec[i].anchor, y);
		else if (t->rec[i].anchor == y)
			npa_tset(t, &t->rec[i].anchor, x);
	}
	t->c->work += t->nrec / 64 + 1;
}

static bool npa_tin(const u32 *ids, u32 n, u32 x)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (ids[i] == x)
			return true;
	return false;
}

/* bsearch() of a place in t->sids among the records' runs there. */
static int npa_trec_cmp(const void *key, const void *elt)
{
	u32 p = *(const u32 *)key;
	const struct npa_trec *r = elt;

	if (p < r->s_at)
		return -1;
	return p >= r->s_at + r->s_cnt;
}

/* The record of the block that started rect @x; U32_MAX: the first bound. */
static u32 npa_trec_of(const struct npa_tile *t, u32 x)
{
	const struct npa_trec *r = bsearch(&t->spos[x], t->rec, t->nrec,
					   sizeof(*t->rec), npa_trec_cmp);

	return r ? r - t->rec : U32_MAX;
}

/*
 * @xyzw[0] and [1] trade places, then [2] and [3]: 1 when the block
 * reduces then, 0 when the trail or the pool ran out; else -1, undone
 * (the records say again which block started which rect).
 */
static int npa_ttrade2(struct npa_tile *t, const u32 *eids, u32 ne,
		       struct npa_tfull *out, u32 mark, const u32 *xyzw)
{
	npa_tswap(t, xyzw[0], xyzw[1]);
	npa_tswap(t, xyzw[2], xyzw[3]);
	if (npa_treduce(t, eids, ne, out))
		return 1;
	if (t->overflow)
		return 0;
	npa_tunwind(t, mark);
	return -1;
}

/*
 * Twins of a pair: ending rect @eids[@i] and a rect started with it in
 * the same block trade places with two rects of the same summed size,
 * started at that bound in one other block, that live on (each block
 * keeps its sum, so the tiling does too). A sweep strip's rects of a few
 * bytes match such sums by chance: the search took a pair for the wrong
 * block, found out bounds later. Two-pointer walks of the bound's list
 * (by size); NPA_TILE_PAIRS trades at most after the twins' (*@tries
 * counts both, a trade tried both ways).
 * Returns 1 when one reduces, 0 when the trail or the pool ran out, -1
 * when none does.
 */
static int npa_treduce_pairs(struct npa_tile *t, const u32 *eids, u32 ne,
			     u32 i, struct npa_tfull *out, u32 mark,
			     u32 *tries)
{
	u32 e = eids[i], bi = npa_tvend(t, e), re = npa_trec_of(t, e);
	u32 a, cnt;
	const u32 *l = npa_tbound(t, npa_tvstart(t, e), true, &cnt);
	const struct npa_trec *rr;

	if (re == U32_MAX)
		return -1;
	rr = &t->rec[re];
	for (a = 0; a < rr->s_cnt; a++) {
		u32 x = t->sids[rr->s_at + a], j = 0, k = cnt;
		u64 want;

		if (x == e ||
		    (npa_tvend(t, x) <= bi && !npa_tin(eids, ne, x)))
			continue;
		want = t->c->r[e].size + t->c->r[x].size;
		while (j + 1 < k) {
			u32 y = l[j], z = l[k - 1], ry;
			u64 sum = t->c->r[y].size + t->c->r[z].size;
			int ret;

			if (sum != want) {
				if (sum < want)
					j++;
				else
					k--;
				continue;
			}
			j++;
			ry = npa_trec_of(t, y);
			if (ry == re || ry == U32_MAX ||
			    ry != npa_trec_of(t, z) ||
			    npa_tvend(t, y) <= bi || npa_tvend(t, z) <= bi ||
			    npa_tin(eids, ne, y) || npa_tin(eids, ne, z))
				continue;
			if (++*tries > NPA_TILE_TWINS + NPA_TILE_PAIRS)
				return -1;
			ret = npa_ttrade2(t, eids, ne, out, mark,
					  (u32 []){ e, y, x, z });
			if (ret < 0)
				ret = npa_ttrade2(t, eids, ne, out, mark,
						  (u32 []){ e, z, x, y });
			if (ret >= 0)
				return ret;
		}
	}
	return -1;
}

/*
 * npa_treduce() of the ending rects @eids[0, @ne) with one of them traded
 * for a twin: a rect of its size, started at the same bound, that lives
 * on past this one (it is in the tree) and is not in the block. Looks
 * at the first NPA_TILE_TWIN_SCAN rects of its size that started with
 * it, tries NPA_TILE_TWINS trades at most (each a swap, which scans the
 * records, and a reduction), then, unless the twins took all of those,
 * pair trades (npa_treduce_pairs()), and keeps the first that reduces.
 */
static bool npa_treduce_twins(struct npa_tile *t, const u32 *eids, u32 ne,
			      struct npa_tfull *out)
{
	u32 mark = t->ntr, tries = 0, i, j, k, cnt;

	for (i = 0; i < ne; i++) {
		u32 e = eids[i], bi = npa_tvend(t, e), a = 0;
		u64 size = t->c->r[e].size;
		const u32 *l = npa_tbound(t, npa_tvstart(t, e), true, &cnt);

		/* The bound's list is by size: the first of @e's size. */
		j = cnt;
		while (a < j) {
			u32 mid = a + (j - a) / 2;

			if (t->c->r[l[mid]].size < size)
				a = mid + 1;
			else
				j = mid;
		}
		for (k = a; k < cnt && k - a < NPA_TILE_TWIN_SCAN &&
		     t->c->r[l[k]].size == size; k++) {
			u32 d = l[k];

			if (d == e || npa_tvend(t, d) <= bi ||
			    npa_tin(eids, ne, d))
				continue;
			if (++tries > NPA_TILE_TWINS)
				goto fail;
			npa_tunwind(t, mark);
			npa_tswap(t, e, d);
			if (npa_treduce(t, eids, ne, out))
				return true;
			if (t->overflow)
				return false;
		}
	}
	npa_tunwind(t, mark);
	for (i = 0; i < ne; i++) {
		int ret = npa_treduce_pairs(t, eids, ne, i, out, mark, &tries);

		if (ret >= 0)
			return ret;
	}
fail:
	npa_tunwind(t, mark);
	return false;
}

/* The block @eids -> @sids: reduce, record, replace. */
static bool npa_tapply(struct npa_tile *t, const u32 *eids, u32 ne,
		       const u32 *sids, u32 ns)
{
	struct npa_trec *r = &t->rec[t->nrec];
	struct npa_tfull f;
	u32 nn, i, x;

	if (!(t->twins ? npa_treduce_twins(t, eids, ne, &f) :
			 npa_treduce(t, eids, ne, &f)))
		return false;
	r->s_at = t->s_top;
	r->s_cnt = ns;
	r->f_at = t->f_top;
	r->f_cnt = 0;
	r->anchor = f.anchor;
	r->left = f.left;
	if (f.node != NPA_TN_NONE) {
		npa_tlinear(t, f.node, t->fids + t->f_top, &r->f_cnt);
	} else {
		for (x = f.from; ; x = t->n[x].next) {
			npa_tlinear(t, x, t->fids + t->f_top, &r->f_cnt);
			if (x == f.to)
				break;
		}
	}
	if (WARN_ON_ONCE(r->f_cnt != ne))
		return false;
	if (ns == 1) {
		nn = sids[0];
	} else {
		nn = npa_tnew(t, NPA_TN_P);
		if (nn == NPA_TN_NONE)
			return false;
		for (i = 0; i < ns; i++)
			npa_tinsert(t, nn, sids[i], NPA_TN_NONE);
	}
	if (f.node != NPA_TN_NONE) {
		npa_treplace(t, f.node, nn);
	} else {
		u32 at = t->n[f.to].next, q = f.q;

		for (x = f.from; ; ) {
			u32 nx = t->n[x].next;
			bool end = x == f.to;

			npa_tdetach(t, x);
			if (end)
				break;
			x = nx;
		}
		npa_tinsert(t, q, nn, at);
		/* A Q-node of one child is that child. */
		if (t->n[q].first == t->n[q].last) {
			u32 only = t->n[q].first;

			npa_tdetach(t, only);
			npa_treplace(t, q, only);
		}
	}
	memcpy(t->sids + t->s_top, sids, ns * sizeof(*sids));
	for (i = 0; i < ns; i++)
		t->spos[sids[i]] = t->s_top + i;
	npa_tset(t, &t->s_top, t->s_top + ns);
	npa_tset(t, &t->f_top, t->f_top + ne);
	npa_tset(t, &t->nrec, t->nrec + 1);
	return !t->overflow;
}

/* 16 log2 of C(@n, @k). */
static u32 npa_tlog_choose(u32 n, u32 k)
{
	u32 i, up = 0, down = 0;

	for (i = 0; i < k; i++) {
		up += npa_log2_fp(n - i);
		down += npa_log2_fp(i + 1);
	}
	return up > down ? up - down : 0;
}

/*
 * Is the pair of ending rects @pe and starting rects @ps (masks) of equal
 * sums unlikely to be a coincidence: do fewer than e^-4 of the subsets of
 * the same sizes match that sum on average? @e0 says @pe holds the rect
 * the block is for, @free that @pe was not chosen by its sum.
 */
static bool npa_tbelieve(const struct npa_tile *t, u64 pe, u64 ps, bool e0,
			 bool free)
{
	u32 ne = hweight64(t->erem), ns = hweight64(t->srem);
	u32 a = hweight64(pe), b = hweight64(ps), i, comb;
	u64 sum = 0;

	for (i = 0; i < 64; i++)
		if (ps >> i & 1)
			sum += t->c->r[t->sl[i]].size;
	comb = npa_tlog_choose(ns, b);
	if (!free)
		comb += e0 ? npa_tlog_choose(ne - 1, a - 1) :
			     npa_tlog_choose(ne - 1, a);
	return sum && comb + NPA_TILE_CHANCE <= npa_log2_fp(sum);
}

/* Add candidate (@em, @sm) unless known; @tier orders it (0 first). */
static void npa_tcand(struct npa_tile *t, u64 em, u64 sm, u32 tier)
{
	bool rest = em == t->erem && sm == t->srem;
	u32 i;

	for (i = 0; i < t->ncand; i++)
		if (t->cand_e[i] == em && t->cand_s[i] == sm)
			return;
	/* The last slot is kept for the rest. */
	if (t->ncand >= NPA_TILE_CANDS - 1 && !rest)
		return;
	if (rest)
		tier = 1;
	else if (!t->chance)
		tier = 0;
	t->cand_e[t->ncand] = em;
	t->cand_s[t->ncand] = sm;
	t->cand_key[t->ncand] = (u64)tier << 48 |
		(t->rng ? (u64)(hweight64(em) + hweight64(sm)) << 32 |
			  (npa_mix64(t->cand_seed + t->ncand) & 0xffffffff) :
			  t->ncand);
	t->ncand++;
}

static bool npa_tcombo(struct npa_tile *t)
{
	if (t->ncand >= NPA_TILE_CANDS - 1 || ++t->combos > t->combo_max)
		return false;
	if (!(t->combos & 127))
		t->c->work++;
	return true;
}

static bool npa_tsame(const struct npa_tile *t, u32 a, u32 b)
{
	const struct npa_rect *x = &t->c->r[a], *y = &t->c->r[b];

	return x->size == y->size && x->lo == y->lo && x->hi == y->hi;
}

/*
 * The most @k of the starting rects t->so[] can sum to: their sizes
 * ascend, so the last @k. The enumerations below stop where even that
 * falls short of the target: what they would try there counts against
 * the allowance of subsets and the budget and cannot give a candidate.
 */
/*
 * @k subsets enumerated that add no candidate: what @k calls of
 * npa_tcombo() would count and charge, at once.
 */
static bool npa_tcombos(struct npa_tile *t, u32 k)
{
	u32 room, now;

	if (!k)
		return true;
	if (t->ncand >= NPA_TILE_CANDS - 1)
		return false;
	room = t->combo_max > t->combos ? t->combo_max - t->combos : 0;
	now = min(k, room);
	t->c->work += (t->combos + now) / 128 - t->combos / 128;
	t->combos += now;
	if (k <= room)
		return true;
	t->combos++;	/* the one over the cap */
	return false;
}

static u64 npa_tso_most(const struct npa_tile *t, u32 k)
{
	return t->spre[t->nso] - t->spre[t->nso - k];
}

/*
 * @left more starting rects from t->so[@i ...] to reach @target; rects
 * alike in all are interchangeable, so only the first of a run is taken.
 */
static void npa_tfind_s(struct npa_tile *t, u32 i, u32 left, u64 target,
			u64 sm, u64 em)
{
	u64 most;
	u32 j = i;

	if (left && (t->nso - i < left || npa_tso_most(t, left) < target))
		return;
	if (!left) {
		if (target)
			return;
		if (t->comp)
			npa_tcand(t, t->erem & ~em, t->srem & ~sm,
				  npa_tbelieve(t, em, sm, false, false) ? 0 : 2);
		else
			npa_tcand(t, em, sm,
				  npa_tbelieve(t, em, sm, true, false) ? 0 : 2);
		return;
	}
	most = div64_u64(target, left);
	if (left == 1) {
		/*
		 * Only a rect of size @target ends the subset: skip those
		 * smaller (sizes ascend), counted as the loop would.
		 */
		u32 b = t->nso;

		while (j < b) {
			u32 mid = j + (b - j) / 2;

			if (t->ssz[mid] < target)
				j = mid + 1;
			else
				b = mid;
		}
		if (!npa_tcombos(t, j - i))
			return;
	}
	for (; j < t->nso; j++) {
		u64 sz = t->ssz[j];

		if (!npa_tcombo(t))
			return;
		if (sz > most)
			break;	/* sizes ascend */
		if (j > i && t->sdup[j])
			continue;
		npa_tfind_s(t, j + 1, left - 1, target - sz,
			    sm | 1ULL << t->so[j], em);
	}
}

/* @left more ending rects from t->eo[@i ...], then @b starting ones. */
static void npa_tfind_e(struct npa_tile *t, u32 i, u32 left, u64 sum, u64 em,
			u32 b)
{
	u32 j;

	if (!left) {
		/* The least @b starting rects sum to is the first @b. */
		if (b <= t->nso && t->spre[b] <= sum &&
		    npa_tso_most(t, b) >= sum)
			npa_tfind_s(t, 0, b, sum, 0, em);
		return;
	}
	for (j = i; j < t->neo; j++) {
		if (!npa_tcombo(t))
			return;
		npa_tfind_e(t, j + 1, left - 1, sum + t->esz[j],
			    em | 1ULL << t->eo[j], b);
	}
}

/* Pairs of @k rects with the chosen ending rect (without: t->comp). */
static void npa_tpairs(struct npa_tile *t, u32 k)
{
	u32 a;

	for (a = 1; a < k; a++) {
		if (t->comp) {
			if (a <= t->neo && k - a <= t->nso)
				npa_tfind_e(t, 0, a, 0, 0, k - a);
		} else if (a - 1 <= t->neo && k - a <= t->nso) {
			npa_tfind_e(t, 0, a - 1, t->c->r[t->el[t->e0]].size,
				    1ULL << t->e0, k - a);
		}
	}
}

/* Every subset of the starting rects from t->so[@j ...] summing to @target. */
static void npa_tsubset(struct npa_tile *t, u32 j, u64 target, u64 sm, u64 em)
{
	if (!target) {
		npa_tcand(t, em, sm, npa_tbelieve(t, em, sm, true, true) ? 0 : 2);
		return;
	}
	if (npa_tso_most(t, t->nso - j) < target)
		return;
	for (; j < t->nso; j++) {
		u64 sz = t->ssz[j];

		if (!npa_tcombo(t))
			return;
		if (sz > target)
			break;
		npa_tsubset(t, j + 1, target - sz, sm | 1ULL << t->so[j], em);
	}
}

/*
 * The ending rects under each ancestor of the chosen one, with the
 * starting rects of the same sum: blocks the tree already suggests.
 */
static void npa_tancestors(struct npa_tile *t, u32 ne)
{
	u64 prev = 0;
	u32 x, y, i;

	if (t->nso > NPA_TILE_SUBSET)
		return;
	/* One allowance of subsets for all the ancestors. */
	t->combos = 0;
	t->combo_max = 4 * NPA_TILE_COMBOS;
	for (x = t->n[t->el[t->e0]].parent; x != NPA_TN_NONE; x = t->n[x].parent) {
		u64 em = 0, sum = 0;

		for (i = 0; i < ne; i++) {
			if (!(t->erem >> i & 1))
				continue;
			for (y = t->el[i]; y != NPA_TN_NONE; y = t->n[y].parent) {
				if (y == x) {
					em |= 1ULL << i;
					sum += t->c->r[t->el[i]].size;
					break;
				}
			}
		}
		if (em == t->erem)
			break;
		if (em == prev)
			continue;
		prev = em;
		npa_tsubset(t, 0, sum, 0, em);
	}
}

/* The ending rects left other than @e into t->eo. */
static void npa_tothers(struct npa_tile *t, u32 ne, u32 e)
{
	u32 i;

	t->e0 = e;
	t->neo = 0;
	for (i = 0; i < ne; i++) {
		if (i != e && t->erem >> i & 1) {
			t->esz[t->neo] = t->c->r[t->el[i]].size;
			t->eo[t->neo++] = i;
		}
	}
}

/*
 * Only the candidates of tier 0 of the list so far, in the order they
 * came: with no random tie-breaks, the first ones of the whole list.
 */
static bool npa_tfirst(struct npa_tile *t)
{
	u32 i, n = 0;

	for (i = 0; i < t->ncand; i++) {
		if (t->cand_key[i] >> 48)
			continue;
		t->cand_e[n] = t->cand_e[i];
		t->cand_s[n] = t->cand_s[i];
		t->cand_key[n++] = t->cand_key[i];
	}
	if (!n)
		return false;
	t->ncand = n;
	return true;
}

/*
 * The candidate blocks of decision @f, in the order to try them. The
 * block is for one ending rect: the first left, or (t->dyn) the one with
 * the smallest pair. Most decisions take their first candidate, and most
 * of the subsets are enumerated for the later ones: unless @f->full (or
 * with random tie-breaks), the list stops at the smallest pairs of tier 0
 * when there are some, and npa_tsearch() asks for the whole list when
 * those fail. It begins with the same candidates.
 */
static void npa_tcands_list(struct npa_tile *t, const struct npa_tframe *f)
{
	u32 ne, ns, i, k, e, best = U32_MAX, bestn = 0;

	t->ncand = 0;
	t->cand_first = false;
	t->cand_seed = f->seed;
	t->el = npa_tbound(t, f->bi, false, &ne);
	t->sl = npa_tbound(t, f->bi, true, &ns);
	t->erem = f->erem;
	t->srem = f->srem;
	if (ne > 64 || ns > 64) {
		npa_tcand(t, f->erem, f->srem, 1);
		return;
	}
	t->nso = 0;
	t->spre[0] = 0;
	for (i = 0; i < ns; i++) {
		if (!(t->srem >> i & 1))
			continue;
		k = t->nso++;
		t->so[k] = i;
		t->ssz[k] = t->c->r[t->sl[i]].size;
		t->sdup[k] = k && npa_tsame(t, t->sl[i], t->sl[t->so[k - 1]]);
		t->spre[k + 1] = t->spre[k] + t->ssz[k];
	}
	t->comp = false;
	e = __ffs64(t->erem);
	/* One allowance of subsets for all the probes. */
	t->combos = 0;
	t->combo_max = 4 * NPA_TILE_COMBOS;
	for (i = e; t->dyn && i < ne; i++) {
		if (!(t->erem >> i & 1))
			continue;
		npa_tothers(t, ne, i);
		t->ncand = 0;
		for (k = 2; k <= NPA_TILE_PROBE && k < best && !t->ncand; k++)
			npa_tpairs(t, k);
		if (t->ncand && (k - 1 < best ||
				 (k - 1 == best && t->ncand < bestn))) {
			best = k - 1;
			bestn = t->ncand;
			e = i;
		}
	}
	t->ncand = 0;
	t->combos = 0;
	t->combo_max = NPA_TILE_COMBOS;
	npa_tothers(t, ne, e);
	for (k = 2; k <= NPA_TILE_PAIR && k <= t->neo + 1 + t->nso; k++) {
		npa_tpairs(t, k);
		if (!f->full && !t->rng && npa_tfirst(t)) {
			t->cand_first = true;
			return;
		}
	}
	if (t->anc)
		npa_tancestors(t, ne);
	t->comp = true;
	t->combos = 0;
	t->combo_max = NPA_TILE_COMBOS;
	for (k = 2; k <= NPA_TILE_COMP && k < t->neo + 1 + t->nso; k++)
		npa_tpairs(t, k);
	npa_tcand(t, t->erem, t->srem, 1);
	/* Insertion sort by key: at most NPA_TILE_CANDS. */
	for (i = 1; i < t->ncand; i++) {
		u64 key = t->cand_key[i], em = t->cand_e[i], sm = t->cand_s[i];

		for (k = i; k && t->cand_key[k - 1] > key; k--) {
			t->cand_key[k] = t->cand_key[k - 1];
			t->cand_e[k] = t->cand_e[k - 1];
			t->cand_s[k] = t->cand_s[k - 1];
		}
		t->cand_key[k] = key;
		t->cand_e[k] = em;
		t->cand_s[k] = sm;
	}
}

/*
 * A decision not taken yet: no candidate tried, its list not made, and
 * (with random tie-breaks) the seed of its keys.
 */
static void npa_tframe_new(struct npa_tile *t, struct npa_tframe *f)
{
	f->k = 0;
	f->full = false;
	f->twins = false;
	f->relaxed = false;
	f->seed = t->rng ? npa_rand(t->c) : 0;
}

/* A decision at bound @bi with all its rects left. */
static void npa_tframe_at(struct npa_tile *t, struct npa_tframe *f, u32 bi)
{
	u32 ne, ns, i;
	const u32 *el = npa_tbound(t, bi, false, &ne);

	npa_tbound(t, bi, true, &ns);
	f->bi = bi;
	f->erem = ne >= 64 ? ~0ULL : (1ULL << ne) - 1;
	f->srem = ns >= 64 ? ~0ULL : (1ULL << ns) - 1;
	if (t->relax && ne <= 64) {
		for (i = 0; i < ne; i++)
			if (t->gone[el[i]])
				f->erem &= ~(1ULL << i);
	}
	npa_tframe_new(t, f);
}

static void npa_toffsets(struct npa_tile *t, u64 *off, u32 *nxt, u32 *prv);

/*
 * The search got to bound @bi of the view: if that is past the deepest
 * point of this direction so far by 1/NPA_TILE_SNAPS of the bounds, keep
 * the offsets of the rects placed (a tiling of the time before @bi) for
 * npa_tile_fit(). The copy it replaces becomes the earlier one when that
 * is less than half as deep as @bi, so the earlier copy is mostly at least
 * half as deep. At most NPA_TILE_SNAPS copies of m offsets per direction,
 * so the work is not counted.
 */
static void npa_tsnap(struct npa_tile *t, u32 bi)
{
	u64 **part = t->part[t->mirror], *off = t->c->off;
	u32 *pbi = t->part_bi[t->mirror], i;

	if (bi < pbi[0] + max(1U, t->nt / NPA_TILE_SNAPS))
		return;
	if (pbi[1] < bi / 2) {
		swap(part[0], part[1]);
		swap(pbi[0], pbi[1]);
	}
	for (i = 0; i < t->m; i++)
		off[i] = U64_MAX;
	npa_toffsets(t, off, t->c->order, t->c->cand);
	memcpy(part[0], off, t->m * sizeof(*off));
	pbi[0] = bi;
}

/*
 * The relaxed run: when no block of a decision reduces, the decision's
 * ending rect leaves a hole of its size instead of being replaced by
 * starting rects, and the starting rects of a bound left over when its
 * ending rects are all done go into the holes, each into the smallest
 * that holds it (what is left of the hole stays one) or of a few holes
 * next to each other, or out of the tree when none does: npa_trelaxed()
 * puts those by best fit at the end. A rect out of the tree leaves no
 * place when it ends, so the sums of a bound need not match: only blocks
 * of equal sums are tried. A stuck decision backs up as in the search
 * until NPA_TILE_STALL was spent since it last got to a new bound or
 * relaxed, and never past a relaxed decision: those empty the trail.
 */

/* A new hole of @size (NPA_TN_NONE: no node left). */
static u32 npa_thole(struct npa_tile *t, u64 size)
{
	u32 x = npa_tnew(t, NPA_TN_LEAF);

	if (x == NPA_TN_NONE)
		return x;
	t->hsz[x] = size;
	npa_tset(t, &t->holes[t->nholes], x);
	npa_tset(t, &t->nholes, t->nholes + 1);
	return x;
}

/* Ending rect @e of the decision at hand leaves a hole. */
static bool npa_trelax(struct npa_tile *t, u32 e)
{
	u32 h = npa_thole(t, t->c->r[e].size);

	t->twins = false;
	return h != NPA_TN_NONE && npa_tapply(t, &e, 1, &h, 1);
}

/* Hole @k of t->holes[] is gone. */
static void npa_thole_drop(struct npa_tile *t, u32 k)
{
	npa_tset(t, &t->holes[k], t->holes[t->nholes - 1]);
	npa_tset(t, &t->nholes, t->nholes - 1);
}

#define NPA_THOLE_SET	4	/* most holes one rect takes the place of */
#define NPA_THOLE_TRIES	4096	/* sets of holes looked at, for one rect */
#define NPA_THOLE_SLACK	3	/* a set may be 1/8 bigger than the rect */

/*
 * Rect @s takes the place of holes next to each other whose sizes sum to
 * its size or up to 1/8 more (the rest stays a hole): sets of up to
 * NPA_THOLE_SET holes from t->holes[@k] on, with @left of the size to
 * go, the @n chosen in @set, at most *@tries looked at.
 */
static bool npa_thole_set(struct npa_tile *t, u32 s, u32 k, s64 left,
			  u32 *set, u32 n, u32 *tries)
{
	u32 mark, i, j, ids[2] = { s }, ns = 1;

	if (left <= 0 && n < 2)
		return false;
	if (left <= 0) {
		mark = t->ntr;
		t->c->work += n;
		if (left < 0) {
			ids[1] = npa_thole(t, -left);
			if (ids[1] == NPA_TN_NONE)
				return false;
			ns = 2;
		}
		if (npa_tapply(t, set, n, ids, ns)) {
			/* Drop them from the list, the last first. */
			for (i = t->nholes; i-- > 0; )
				for (j = 0; j < n; j++)
					if (t->holes[i] == set[j])
						npa_thole_drop(t, i);
			return true;
		}
		/* With the trail full, what it failed on cannot be undone. */
		if (!t->overflow)
			npa_tunwind(t, mark);
		return false;
	}
	if (n == NPA_THOLE_SET)
		return false;
	for (; k < t->nholes && *tries && !t->overflow; k++) {
		u64 hs = t->hsz[t->holes[k]];

		/* Each set may cost a reduction: the run's limit holds here. */
		if (t->c->work >= t->stop ||
		    (npa_check_due(t->c) && npa_time_check(t->c)))
			return false;
		--*tries;
		if ((s64)hs > left + (s64)(t->c->r[s].size >> NPA_THOLE_SLACK))
			continue;
		set[n] = t->holes[k];
		if (npa_thole_set(t, s, k + 1, left - hs, set, n + 1, tries))
			return true;
	}
	return false;
}

/* The starting rects @sm of bound @bi left over: into holes, biggest first. */
static bool npa_tleftover(struct npa_tile *t, u32 bi, u64 sm)
{
	u32 ns, i, k, best, h, ids[2], n;
	const u32 *sl = npa_tbound(t, bi, true, &ns);

	t->twins = false;
	for (i = ns; i-- > 0; ) {
		u64 sz = t->c->r[sl[i]].size;

		if (!(sm >> i & 1))
			continue;
		best = U32_MAX;
		for (k = 0; k < t->nholes; k++) {
			u64 hs = t->hsz[t->holes[k]];

			if (hs >= sz && (best == U32_MAX ||
					 hs < t->hsz[t->holes[best]]))
				best = k;
		}
		t->c->work += 1 + t->nholes / 8;
		if (best == U32_MAX || t->hsz[t->holes[best]] > sz) {
			u32 set[NPA_THOLE_SET], tries = NPA_THOLE_TRIES;

			bool ok = npa_thole_set(t, sl[i], 0, sz, set, 0, &tries);

			t->c->work += (NPA_THOLE_TRIES - tries) / 64;
			if (ok)
				continue;
			if (t->overflow)
				return false;
		}
		if (best == U32_MAX) {
			npa_tset(t, &t->gone[sl[i]], 1);
			continue;
		}
		h = t->holes[best];
		npa_thole_drop(t, best);
		ids[0] = sl[i];
		n = 1;
		if (t->hsz[h] > sz) {
			ids[1] = npa_thole(t, t->hsz[h] - sz);
			if (ids[1] == NPA_TN_NONE)
				return false;
			n = 2;
		}
		if (!npa_tapply(t, &h, 1, ids, n))
			return false;
	}
	return !t->overflow;
}

/* The sizes of the rects @mask of @l summed. */
static u64 npa_tmask_sum(const struct npa_tile *t, const u32 *l, u64 mask)
{
	u64 sum = 0;

	for (; mask; mask &= mask - 1)
		sum += t->c->r[l[__ffs64(mask)]].size;
	return sum;
}

/* Relaxed: drop the candidates whose sums do not match. */
static void npa_tcands_equal(struct npa_tile *t)
{
	u32 i, n = 0;

	for (i = 0; i < t->ncand; i++) {
		if (npa_tmask_sum(t, t->el, t->cand_e[i]) !=
		    npa_tmask_sum(t, t->sl, t->cand_s[i]))
			continue;
		t->cand_e[n] = t->cand_e[i];
		t->cand_s[n] = t->cand_s[i];
		t->cand_key[n++] = t->cand_key[i];
	}
	t->ncand = n;
}

/* The candidates of decision @f (npa_tcands_list()); relaxed, of equal sums. */
static void npa_tcands(struct npa_tile *t, const struct npa_tframe *f)
{
	npa_tcands_list(t, f);
	if (t->relax)
		npa_tcands_equal(t);
}

/*
 * One run of the search from the first bound, spending at most @limit.
 * Returns 0 with every bound done, -ETIME past @limit (or the clock),
 * -ENOENT when no candidate is left, -ENOSPC when the trail or the node
 * pool ran out.
 */
static int npa_tsearch(struct npa_tile *t, u64 limit)
{
	struct npa_ctx *c = t->c;
	u64 stop = c->work + limit, check = c->work + NPA_PLAN_CHECK_EVERY;
	u32 ns, i, depth = 0;
	const u32 *sl;

	/* The rects of the first bound, in any order. */
	t->ntr = 0;
	t->overflow = false;
	t->ntop = t->m;
	for (i = 0; i < t->m; i++)
		npa_tinit(&t->n[i], NPA_TN_LEAF);
	sl = npa_tbound(t, 0, true, &ns);
	if (ns == 1) {
		t->root = sl[0];
	} else {
		t->root = npa_tnew(t, NPA_TN_P);
		for (i = 0; i < ns; i++)
			npa_tinsert(t, t->root, sl[i], NPA_TN_NONE);
	}
	memcpy(t->sids, sl, ns * sizeof(*sl));
	t->s_top = ns;
	for (i = 0; i < ns; i++)
		t->spos[sl[i]] = i;
	t->f_top = 0;
	t->nrec = 0;
	t->ntr = 0;
	t->nholes = 0;
	t->front_bi = 0;
	t->front_work = c->work;
	t->stop = stop;
	if (t->relax)
		memset(t->gone, 0, t->m * sizeof(*t->gone));
	if (t->nt <= 2)
		return 0;
	npa_tframe_at(t, &t->fr[0], 1);
	t->cand_depth = U32_MAX;
	for (;;) {
		struct npa_tframe *f = &t->fr[depth];
		u32 *eids = t->be, *sids = t->bs, ne = 0, nbe, nbs;
		const u32 *el = npa_tbound(t, f->bi, false, &nbe);
		const u32 *sl2 = npa_tbound(t, f->bi, true, &nbs);
		const u32 *ep = eids, *sp = sids;
		u64 em, sm;

		if (c->work >= check) {
			check = c->work + NPA_PLAN_CHECK_EVERY;
			if (npa_time_check(c))
				return -ETIME;
		}
		if (c->work >= stop)
			return -ETIME;
		if (t->overflow)
			return -ENOSPC;
		if (t->relax && (nbe > 64 || nbs > 64))
			return -ENOENT;
		if (t->relax && !f->erem) {
			/* Every rect ending here is out of the tree. */
			t->ntr = 0;
			f->mark = 0;
			f->relaxed = true;
			em = 0;
			sm = 0;
			goto applied;
		}
		/* After a failed block the list of this decision still holds. */
		if (t->cand_depth != depth) {
			npa_tcands(t, f);
			t->cand_depth = depth;
			f->full |= !t->cand_first;
		}
		if (f->k >= t->ncand && !f->full) {
			/* The first candidates failed: list them all. */
			f->full = true;
			npa_tcands(t, f);
		}
		if (f->k >= t->ncand && !f->twins && !c->piece_plan &&
		    !t->relax) {
			/* Again, trading twins. */
			f->twins = true;
			f->k = 0;
		}
		if (f->k >= t->ncand && t->relax &&
		    (!depth || t->fr[depth - 1].relaxed ||
		     c->work - t->front_work > NPA_TILE_STALL)) {
			/*
			 * Stuck: the rect leaves a hole. No decision up to
			 * this one is undone from now on: nor is the trail.
			 */
			t->ntr = 0;
			f->mark = 0;
			f->relaxed = true;
			em = 1ULL << t->e0;
			sm = 0;
			if (!npa_trelax(t, el[t->e0]))
				return -ENOSPC;
			t->front_work = c->work;
			goto applied;
		}
		if (f->k >= t->ncand) {
			if (!depth)
				return -ENOENT;
			f = &t->fr[--depth];
			npa_tunwind(t, f->mark);
			f->k++;
			t->cand_depth = U32_MAX;
			continue;
		}
		em = t->cand_e[f->k];
		sm = t->cand_s[f->k];
		f->mark = t->ntr;
		if (nbe > 64 || nbs > 64) {
			/* Too many to split: all in one block. */
			ep = el;
			sp = sl2;
			ne = nbe;
			ns = nbs;
			em = f->erem;
			sm = f->srem;
		} else {
			ns = 0;
			for (i = 0; i < nbe; i++)
				if (em >> i & 1)
					eids[ne++] = el[i];
			for (i = 0; i < nbs; i++)
				if (sm >> i & 1)
					sids[ns++] = sl2[i];
		}
		t->twins = f->twins;
		if (!npa_tapply(t, ep, ne, sp, ns)) {
			npa_tunwind(t, f->mark);
			f->k++;
			continue;
		}
applied:
		if (!t->relax) {
			npa_tsnap(t, f->bi);
		} else if (f->bi > t->front_bi) {
			t->front_bi = f->bi;
			t->front_work = c->work;
		}
		if (f->erem & ~em) {
			t->fr[depth + 1] = *f;
			t->fr[depth + 1].erem &= ~em;
			t->fr[depth + 1].srem &= ~sm;
			npa_tframe_new(t, &t->fr[depth + 1]);
		} else if (t->relax && (f->srem & ~sm) &&
			   !npa_tleftover(t, f->bi, f->srem & ~sm)) {
			return -ENOSPC;
		} else if (f->bi + 2 < t->nt) {
			npa_tframe_at(t, &t->fr[depth + 1], f->bi + 1);
		} else {
			return 0;
		}
		depth++;
		t->cand_depth = U32_MAX;
	}
}

/*
 * Offsets from a finished search, into c->off: one order of the last
 * live rects, then back in time, each block's ending rects in the place
 * its starting rects leave, in their recorded order or its mirror.
 */
static void npa_toffsets(struct npa_tile *t, u64 *off, u32 *nxt, u32 *prv)
{
	u64 at = 0;
	u32 *lin = t->stk + t->ncap, cnt = 0, i, j;
	int ri;

	npa_tlinear(t, t->root, lin, &cnt);
	for (i = 0; i < cnt; i++) {
		off[lin[i]] = at;
		at += npa_tsz(t, lin[i]);
		prv[lin[i]] = i ? lin[i - 1] : NPA_TN_NONE;
		nxt[lin[i]] = i + 1 < cnt ? lin[i + 1] : NPA_TN_NONE;
	}
	for (ri = (int)t->nrec - 1; ri >= 0; ri--) {
		const struct npa_trec *r = &t->rec[ri];
		const u32 *s = t->sids + r->s_at, *f = t->fids + r->f_at;
		u32 first = s[0], last, before, after, id, prev;
		bool fwd = true;

		for (j = 1; j < r->s_cnt; j++)
			if (off[s[j]] < off[first])
				first = s[j];
		last = first;
		for (j = 1; j < r->s_cnt; j++)
			last = nxt[last];
		before = prv[first];
		after = nxt[last];
		if (r->anchor != NPA_TN_NONE)
			fwd = (off[r->anchor] < off[first]) == !!r->left;
		at = off[first];
		prev = before;
		for (j = 0; j < r->f_cnt; j++) {
			id = f[fwd ? j : r->f_cnt - 1 - j];
			off[id] = at;
			at += npa_tsz(t, id);
			prv[id] = prev;
			if (prev != NPA_TN_NONE)
				nxt[prev] = id;
			prev = id;
		}
		nxt[prev] = after;
		if (after != NPA_TN_NONE)
			prv[after] = prev;
	}
}

static void npa_tile_free(struct npa_tile *t)
{
	kvfree(t->base[0]);
	kvfree(t->base[1]);
	kvfree(t->list[0]);
	kvfree(t->list[1]);
	kvfree(t->n);
	kvfree(t->tr);
	kvfree(t->rec);
	kvfree(t->sids);
	kvfree(t->spos);
	kvfree(t->fids);
	kvfree(t->fr);
	kvfree(t->stk);
	kvfree(t->touched);
	kvfree(t->cls[0]);
	kvfree(t->cls[1]);
	kvfree(t->cls[2]);
	kvfree(t->part[0][0]);
	kvfree(t->part[0][1]);
	kvfree(t->part[1][0]);
	kvfree(t->part[1][1]);
	kvfree(t->mark);
	kvfree(t->pre);
	kvfree(t->gap);
	kvfree(t->hsz);
	kvfree(t->holes);
	kvfree(t->gone);
	kvfree(t->xoff);
	kvfree(t->xnxt);
	kvfree(t->xprv);
}

/* Rects by size, then index, within each bound's list. */
static int npa_tsize_cmp(const void *a, const void *b, const void *priv)
{
	const struct npa_rect *r = priv;
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	if (r[x].size != r[y].size)
		return r[x].size < r[y].size ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * The search's state for instance @c; with @relax, for the relaxed run
 * too (npa_trelaxed()).
 */
static int npa_tile_init(struct npa_tile *t, struct npa_ctx *c, bool relax)
{
	u32 m = c->m, i, k, nids;

	memset(t, 0, sizeof(*t));
	t->c = c;
	t->m = m;
	t->nt = c->nt;
	t->ncap = 4 * m + 64;
	t->trcap = 16 * m + 1024;
	for (k = 0; k < 2; k++) {
		t->base[k] = kvcalloc(c->nt + 1, sizeof(u32), GFP_KERNEL_ACCOUNT);
		t->list[k] = kvmalloc_array(m, sizeof(u32), GFP_KERNEL_ACCOUNT);
	}
	t->n = kvmalloc_array(t->ncap, sizeof(*t->n), GFP_KERNEL_ACCOUNT);
	t->tr = kvmalloc_array(t->trcap, sizeof(*t->tr), GFP_KERNEL_ACCOUNT);
	/*
	 * Relaxed, holes are nodes: at most t->ncap leaves start or end in
	 * blocks, and a bound with every ending rect out of the tree is one
	 * more decision.
	 */
	nids = relax ? t->ncap : m;
	t->rec = kvmalloc_array(nids + 1, sizeof(*t->rec), GFP_KERNEL_ACCOUNT);
	t->sids = kvmalloc_array(nids, sizeof(u32), GFP_KERNEL_ACCOUNT);
	t->spos = kvmalloc_array(nids, sizeof(u32), GFP_KERNEL_ACCOUNT);
	t->fids = kvmalloc_array(nids, sizeof(u32), GFP_KERNEL_ACCOUNT);
	t->fr = kvmalloc_array((relax ? 2 * m : m) + 2, sizeof(*t->fr),
			       GFP_KERNEL_ACCOUNT);
	if (relax) {
		t->hsz = kvmalloc_array(t->ncap, sizeof(u64),
					GFP_KERNEL_ACCOUNT);
		/* Zeroed: npa_tset() reads what it overwrites. */
		t->holes = kvcalloc(t->ncap, sizeof(u32), GFP_KERNEL_ACCOUNT);
		t->gone = kvcalloc(m, sizeof(u32), GFP_KERNEL_ACCOUNT);
		t->xoff = kvmalloc_array(t->ncap, sizeof(u64),
					 GFP_KERNEL_ACCOUNT);
		t->xnxt = kvmalloc_array(t->ncap, sizeof(u32),
					 GFP_KERNEL_ACCOUNT);
		t->xprv = kvmalloc_array(t->ncap, sizeof(u32),
					 GFP_KERNEL_ACCOUNT);
		if (!t->hsz || !t->holes || !t->gone || !t->xoff ||
		    !t->xnxt || !t->xprv)
			return -ENOMEM;
	}
	t->stk = kvmalloc_array(2 * t->ncap, sizeof(u32), GFP_KERNEL_ACCOUNT);
	t->touched = kvmalloc_array(t->ncap, sizeof(u32), GFP_KERNEL_ACCOUNT);
	for (k = 0; k < 3; k++)
		t->cls[k] = kvmalloc_array(t->ncap, sizeof(u32),
					   GFP_KERNEL_ACCOUNT);
	for (k = 0; k < 4; k++)
		t->part[k / 2][k % 2] = kvmalloc_array(m, sizeof(u64),
						       GFP_KERNEL_ACCOUNT);
	t->mark = kvmalloc(m, GFP_KERNEL_ACCOUNT);
	t->pre = kvmalloc_array(m + 1, sizeof(u64), GFP_KERNEL_ACCOUNT);
	t->gap = kvmalloc_array(m, sizeof(*t->gap), GFP_KERNEL_ACCOUNT);
	if (!t->base[0] || !t->base[1] || !t->list[0] || !t->list[1] ||
	    !t->n || !t->tr || !t->rec || !t->sids || !t->spos || !t->fids ||
	    !t->fr || !t->stk || !t->touched || !t->cls[0] || !t->cls[1] ||
	    !t->cls[2] ||
	    !t->part[0][0] || !t->part[0][1] || !t->part[1][0] ||
	    !t->part[1][1] || !t->mark || !t->pre || !t->gap)
		return -ENOMEM;
	/* Counting sort of the rects by end and by start bound. */
	for (i = 0; i < m; i++) {
		t->base[0][c->r[i].b + 1]++;
		t->base[1][c->r[i].a + 1]++;
	}
	for (k = 0; k < 2; k++) {
		for (i = 0; i < c->nt; i++)
			t->base[k][i + 1] += t->base[k][i];
		for (i = 0; i < m; i++) {
			u32 b = k ? c->r[i].a : c->r[i].b;

			t->list[k][t->base[k][b]++] = i;
		}
		/* Undo the bumps: base[b] is the start of bound b again. */
		for (i = c->nt; i; i--)
			t->base[k][i] = t->base[k][i - 1];
		t->base[k][0] = 0;
		for (i = 0; i < c->nt; i++)
			sort_r(t->list[k] + t->base[k][i],
			       t->base[k][i + 1] - t->base[k][i], sizeof(u32),
			       npa_tsize_cmp, NULL, c->r);
	}
	return 0;
}

/* Does every step between the first and the last bound hold the bound? */
static bool npa_tile_fits(const struct npa_ctx *c)
{
	u32 i;

	if (c->m > NPA_TILE_MAX || c->nt < 2)
		return false;
	for (i = 0; i < c->m; i++)
		if (c->r[i].amask)
			return false;
	for (i = 0; i + 1 < c->nt; i++)
		if (c->prof.tree[c->prof.size + i] != c->lb)
			return false;
	return true;
}

/*
 * Keep the plan in c->off (found by @algo) if it checks out: a plan of
 * the tiling search must pass the verifier with a peak of at most @cap.
 */
static void npa_tile_keep(struct npa_ctx *c, u32 algo, u64 cap)
{
	struct npa_plan_buf *bufs;
	u32 i;

	npa_off_peak(c);
	if (c->peak > cap || c->peak >= c->best_peak)
		return;
	bufs = kvmalloc_array(c->m, sizeof(*bufs), GFP_KERNEL_ACCOUNT);
	if (!bufs)
		return;
	for (i = 0; i < c->m; i++)
		bufs[i] = (struct npa_plan_buf){
			.size = c->r[i].size, .lo = c->r[i].lo,
			.hi = c->r[i].hi, .offset = c->off[i],
		};
	if (!WARN_ON_ONCE(npa_plan_verify(bufs, c->m, cap)))
		npa_keep_off(c, algo);
	kvfree(bufs);
}

/* Most rects npa_tsum() puts in one gap, and looks among. */
#define NPA_TSUM_MAX	16
#define NPA_TSUM_SPAN	256

/*
 * t->pre[i]: the summed size of the rects of @ids[0, @n) (sizes ascending)
 * not placed yet. Returns the smallest of those sizes (U64_MAX: none).
 */
static u64 npa_tsum_pre(struct npa_tile *t, const u32 *ids, u32 n)
{
	u64 least = U64_MAX;
	u32 i;

	t->pre[0] = 0;
	for (i = 0; i < n; i++) {
		u64 size = t->mark[ids[i]] ? 0 : t->c->r[ids[i]].size;

		t->pre[i + 1] = t->pre[i] + size;
		if (size && least == U64_MAX)
			least = size;
	}
	return least;
}

/*
 * Rects of @ids[0, @n) (sizes ascending) not placed yet whose sizes sum
 * to @want, at most NPA_TSUM_MAX of them, into @pick (*@np of them): a
 * depth-first search, the biggest first, of at most *@nodes steps
 * (counted down, one per rect looked at). A level gives up when the free
 * rects below it cannot make up the rest (t->pre, from npa_tsum_pre()),
 * and after a size fails skips the rects of that size.
 */
static bool npa_tsum(struct npa_tile *t, const u32 *ids, u32 n, u64 want,
		     u32 *pick, u32 *np, u64 *nodes)
{
	const struct npa_rect *r = t->c->r;
	const u64 *pre = t->pre;
	u32 d = 0, j = n, i;

	for (;;) {
		if (j && want <= pre[j] && d < NPA_TSUM_MAX && *nodes) {
			u32 id = ids[--j];

			(*nodes)--;
			if (t->mark[id] || r[id].size > want)
				continue;
			pick[d++] = j;
			want -= r[id].size;
			if (want)
				continue;
			for (i = 0; i < d; i++)
				pick[i] = ids[pick[i]];
			*np = d;
			return true;
		}
		if (!d || !*nodes)
			return false;
		j = pick[--d];
		want += r[ids[j]].size;
		while (j && r[ids[j - 1]].size == r[ids[j]].size)
			j--;
	}
}

static void npa_tplace(struct npa_tile *t, u32 id, u64 off)
{
	struct npa_ctx *c = t->c;

	npa_tree_add(c, id, off);
	t->mark[id] = 1;
	c->work++;
	if (npa_check_due(c))
		npa_time_check(c);
}

/* How far rect @id lives on in the view's time (its end, mirrored start). */
static u32 npa_treach(const struct npa_tile *t, u32 id)
{
	return t->mirror ? t->nt - t->c->r[id].a : t->c->r[id].b;
}

/*
 * Best fit for @r, which starts at the column of t->gap[]: the smallest
 * gap there that holds it, the lowest of those, else on top, where
 * npa_fit_best() would put it (a gap of the column is free for the
 * lifetime of a rect starting there, see npa_tile_complete()), but in a
 * walk of the few gaps, not of every buffer live there. Checked all the
 * same: where it does not fit, and for the rest of the column, by
 * npa_fit_best().
 */
static u64 npa_tfit(struct npa_tile *t, const struct npa_rect *r)
{
	struct npa_ctx *c = t->c;
	u64 best = U64_MAX, off;
	u32 i, at = t->ngap, nq;

	if (t->gstale)
		return npa_fit_best(c, r);
	for (i = 0; i < t->ngap; i++) {
		u64 w = t->gap[i].end - t->gap[i].off;

		if (w >= r->size && w < best) {
			best = w;
			at = i;
		}
	}
	off = at < t->ngap ? t->gap[at].off : t->top;
	nq = npa_tree_query(&c->tree, r->a, r->b);
	if (r->amask || npa_tree_fit(&c->tree, nq, off, r->size, 0) != off) {
		t->gstale = true;
		return npa_fit_best(c, r);
	}
	if (at < t->ngap)
		t->gap[at].off += r->size;
	else
		t->top += r->size;
	return off;
}

/*
 * Place the rects @sl[0, @ns) (sizes ascending) that start at time bound
 * @x in the view's sweep (@x is not mirrored: the rects end there when
 * t->mirror), whose earlier rects are all placed: the free gaps of
 * the column there are filled, the smallest first, each with rects whose
 * sizes sum to it (npa_tsum(), *@nodes), stacked from the longest-lived
 * up; the rest go by best fit, the biggest first. Every rect placed so
 * far that lives on past the bound is live at it, so a gap of the column
 * is free for the lifetime of a rect starting there (checked all the
 * same: a rect that does not fit goes by best fit).
 */
static void npa_tfill(struct npa_tile *t, u32 x, const u32 *sl, u32 ns,
		      u64 *nodes)
{
	struct npa_ctx *c = t->c;
	u32 ng = 0, np, i, j, k, pick[NPA_TSUM_MAX];
	u64 lo, hi, least, left = *nodes;
	struct npa_gaps g;

	/* The column of the first leaf of their lifetimes (mirrored: last). */
	npa_gaps_begin(c, t->mirror ? x - 1 : x, t->mirror ? x : x + 1, &g);
	while (ng < c->m && npa_gaps_next(&g, &lo, &hi)) {
		t->gap[ng].off = lo;
		t->gap[ng].end = hi;
		ng++;
	}
	t->ngap = ng;
	t->top = g.prev;
	t->gstale = false;
	if (ns > NPA_TSUM_SPAN || !*nodes)
		goto rest;
	for (k = 0; k < ng; k++) {
		c->keys[k].k1 = t->gap[k].end - t->gap[k].off;
		c->keys[k].k2 = t->gap[k].off;
		c->keys[k].id = k;
	}
	/* Descending size, then offset: taken from the end. */
	sort(c->keys, ng, sizeof(*c->keys), npa_key_cmp, NULL);
	least = npa_tsum_pre(t, sl, ns);
	for (k = ng; k-- > 0 && *nodes; ) {
		u64 off = c->keys[k].k2, size = c->keys[k].k1;

		/* Too small for any rect left, or bigger than all of them. */
		if (size < least || size > t->pre[ns] ||
		    !npa_tsum(t, sl, ns, size, pick, &np, nodes))
			continue;
		for (i = 1; i < np; i++) {
			u32 id = pick[i], reach = npa_treach(t, id);

			for (j = i; j && npa_treach(t, pick[j - 1]) < reach; j--)
				pick[j] = pick[j - 1];
			pick[j] = id;
		}
		for (i = 0; i < np; i++) {
			const struct npa_rect *r = &c->r[pick[i]];
			u32 nq = npa_tree_query(&c->tree, r->a, r->b);

			if (npa_tree_fit(&c->tree, nq, off, r->size,
					 r->amask) == off) {
				npa_tplace(t, pick[i], off);
				off += r->size;
				t->gap[c->keys[k].id].off = off;
			} else {
				t->gstale = true;
				npa_tplace(t, pick[i], npa_fit_best(c, r));
			}
		}
		least = npa_tsum_pre(t, sl, ns);
	}
	c->work += left - *nodes;
rest:
	for (k = ns; k-- > 0; )
		if (!t->mark[sl[k]])
			npa_tplace(t, sl[k], npa_tfit(t, &c->r[sl[k]]));
}

/*
 * Complete the partial tiling @part by going on with the sweep of
 * direction @d, bound by bound (npa_tfill(); with @sums false, by best
 * fit only), and keep the plan if it beats the best so far.
 */
static void npa_tile_complete(struct npa_tile *t, u32 d, const u64 *part,
			      bool sums)
{
	struct npa_ctx *c = t->c;
	u64 nodes = sums ? 2ULL * t->m : 0;
	u32 bi, i, k;

	npa_tree_clear(c);
	for (i = 0; i < t->m; i++) {
		t->mark[i] = part[i] != U64_MAX;
		if (t->mark[i]) {
			npa_tree_add(c, i, part[i]);
			c->work++;
		}
	}
	t->mirror = d;
	for (bi = 0; bi < t->nt; bi++) {
		u32 ns;
		const u32 *sl = npa_tbound(t, bi, true, &ns);

		for (k = 0; k < ns && t->mark[sl[k]]; k++)
			;
		if (k < ns)
			npa_tfill(t, d ? t->nt - 1 - bi : bi, sl, ns, &nodes);
	}
	npa_tile_keep(c, NPA_PLAN_ALGO_TILE_FIT, U64_MAX);
}

/*
 * No tiling found: a wrong early block is often found out only hundreds
 * of bounds later, and the tiling before that point is still a good
 * start. Complete the two partial tilings of each direction, by best fit
 * only and with exact sums (each wins on some instances), while the
 * budget allows (a completion costs a unit per rect, and with exact sums
 * up to two more) and until one is at the lower bound.
 */
static void npa_tile_fit(struct npa_tile *t)
{
	struct npa_ctx *c = t->c;
	u32 d, k;

	for (d = 0; d < 2; d++) {
		for (k = 0; k < 4; k++) {
			if (!t->part_bi[d][k / 2])
				continue;
			if (c->best_peak <= c->lb ||
			    !npa_can_spend(c, (k & 1 ? 3ULL : 1ULL) * t->m))
				return;
			npa_tile_complete(t, d, t->part[d][k / 2], k & 1);
		}
	}
}

/*
 * Restart @r searches the instance (even @r) or its mirror in time (odd)
 * in order (@r / 2) % 3, with random tie-breaks from the twelfth.
 */
static void npa_trestart(struct npa_tile *t, u32 r)
{
	u32 order = (r / 2) % 3;

	t->mirror = r & 1;
	t->dyn = order != 0;
	t->anc = order != 2;
	t->chance = order != 2;
	t->rng = r >= 12;
}

/*
 * The relaxed run (see npa_thole()), when no restart found a tiling: one
 * search from the first bound in order 2 (restart 4: with it, sweep strips
 * of 6000 and 8000 that order 0 left 5.2-18.6% over end within 0.25%),
 * spending at most @limit. The
 * rects it left out of the tree go by best fit, in index order. Sizes
 * are summed signed in npa_thole_set(): not on arenas near 2^63.
 */
static void npa_trelaxed(struct npa_tile *t, u64 limit)
{
	struct npa_ctx *c = t->c;
	u32 i;
	int ret;

	if (c->lb > U64_MAX / 8)
		return;
	npa_trestart(t, 4);
	t->relax = true;
	ret = npa_tsearch(t, limit);
	t->relax = false;
	if (ret)
		return;
	for (i = 0; i < t->m; i++)
		t->xoff[i] = U64_MAX;
	npa_toffsets(t, t->xoff, t->xnxt, t->xprv);
	npa_tree_clear(c);
	for (i = 0; i < t->m; i++) {
		c->off[i] = t->xoff[i];
		if (c->off[i] != U64_MAX)
			npa_tplace(t, i, c->off[i]);
	}
	for (i = 0; i < t->m; i++) {
		if (c->off[i] == U64_MAX) {
			c->off[i] = npa_fit_best(c, &c->r[i]);
			npa_tplace(t, i, c->off[i]);
		}
	}
	npa_tile_keep(c, NPA_PLAN_ALGO_TILE_FIT, U64_MAX);
}

/*
 * The tiling search, for instances whose load is the lower bound at every
 * step (and no alignment), with five eighths of the budget (its work is
 * cheaper than the other steps', and on these instances it is the one that
 * counts): restart r searches the instance (even r) or its mirror in time
 * (odd r) in order (r / 2) % 3, for 16 units per rect (above 4096 rects,
 * fewer if six would not fit in the share; in a plan of the merge step's
 * pieces, all of the share if six would not), doubled every six restarts.
 * A plan it finds is at the bound; without one, its partial tilings are
 * completed. Plans are checked by npa_plan_verify() before they are kept.
 */
static noinline_for_stack void npa_run_tile(struct npa_ctx *c)
{
	u64 left = c->budget > c->work ? c->budget - c->work : 0;
	u64 share = left / 8 * 5, stop = c->work + share;
	u64 first = 16ULL * c->m;
	struct npa_tile *t;
	u32 r;
	int ret = -ETIME;

	if (c->best_peak <= c->lb || !npa_tile_fits(c))
		return;
	t = kzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);
	if (!t)
		return;
	if (npa_tile_init(t, c, false))
		goto out;
	/*
	 * Above the exact search's limit, six restarts (each order both
	 * ways) must fit in the share. Not below it: the plans of the merge
	 * step's pieces do better with fewer, longer restarts, and with one
	 * when the share is less than six: the plans of pieces it solves
	 * take 11-31 m in the first restart, or about 120 m (in the seventh,
	 * the first of 32 m), and the pieces of 6000 rects and more mostly
	 * get less than 96 m.
	 */
	if (c->m > NPA_PLAN_EXACT_MAX)
		first = clamp_t(u64, share / 6, 1, first);
	else if (c->piece_plan && share < 6 * first)
		first = max(share, 1ULL);
	for (r = 0; ret && ret != -ENOSPC && c->work < stop &&
	     !c->out_of_time; r++) {
		npa_trestart(t, r);
		ret = npa_tsearch(t, min(first << min(r / 6, 32U),
					 stop - c->work));
	}
	if (ret) {
		npa_tile_fit(t);
	} else {
		npa_toffsets(t, c->off, c->order, c->cand);
		npa_tile_keep(c, NPA_PLAN_ALGO_TILE, c->lb);
	}
out:
	npa_tile_free(t);
	kfree(t);
}

/*
 * Is @peak more than 5% over the bound? A plan within that is not worth
 * growing a default budget for (the guillotine step, the relaxed run).
 */
static bool npa_far_over(const struct npa_ctx *c, u64 peak)
{
	return peak - c->lb > div64_u64(c->lb, 20);
}

/*
 * The relaxed run of the tiling search (npa_trelaxed()) on a tight
 * instance no step before got to the bound (not in the plans of the
 * merge step's pieces). Up to the exact search's limit one run costs
 * about 15 units a rect (2000: 20-28k of 790k) and gets half the budget
 * left. Above it (where a run in order 0 cost 40-110 units a rect, most
 * of the default budget; in order 2 the sweep strips of 6000 and 8000
 * that need it took 10-33) it is a rescue: only for a plan more than 5%
 * over the bound, with a default budget (@refund), which grows by what
 * it spent (as for the guillotine step), up to NPA_RELAX_RESCUE units a
 * rect.
 */
static noinline_for_stack void npa_run_relaxed(struct npa_ctx *c, bool refund)
{
	bool rescue = c->m > NPA_PLAN_EXACT_MAX;
	struct npa_tile *t;
	u64 limit, w0 = c->work;

	if (c->best_peak <= c->lb || c->piece_plan || c->out_of_time ||
	    !npa_tile_fits(c))
		return;
	if (rescue) {
		if (!refund || !npa_far_over(c, c->best_peak))
			return;
		limit = (u64)NPA_RELAX_RESCUE * c->m;
	} else {
		if (c->budget <= c->work)
			return;
		limit = (c->budget - c->work) / 2;
	}
	t = kzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);
	if (!t)
		return;
	if (!npa_tile_init(t, c, true))
		npa_trelaxed(t, limit);
	npa_tile_free(t);
	kfree(t);
	if (rescue)
		c->budget = npa_sat_add(c->budget, c->work - w0);
}

/* ---------------------------------------------------------------------- */
/* Merging rects into bigger rectangles */

/*
 * The merge step (for instances the tiling search may run on): two rects
 * of the same lifetime, stacked, make one rectangle of their summed size;
 * two of the same size, one ending where the other starts, make one of
 * their joined lifetime. A plan of the merged rectangles is a plan of the
 * rects. Strips cut by guillotine cuts merge back into a few rectangles,
 * and the coincidences that mislead the tiling search (equal sums at a
 * bound) mostly disappear inside them. Merges are made in rounds: first
 * every pair of pieces that can only merge with each other, and when
 * there is none, the pairs that npa_merge_key() ranks first (never two
 * stacked pieces that nothing around them confirms), until none is left.
 * Some of those are wrong, so the pieces are planned (by npa_plan_run()
 * without this step) as they were when the first kind ran out, each time
 * they were halved since, and at the end; and when the best of those
 * plans is over the bound, the pieces that end above it are split back
 * into the two they were made of and planned again, a few times.
 */

/* Most levels kept: the first, one per halving, the last. */
#define NPA_MERGE_LEVELS	34
/* Most repairs of the best plan of a level. */
#define NPA_MERGE_REPAIRS	8
/*
 * Levels planned above the exact search's limit: the two with the fewest
 * pieces. At 8000 rects the plans of the others (1600-7300 pieces, with a
 * few thousand units) ended 26-51% over and never gave the plan that was
 * kept or repaired into the optimum; their share goes to the repairs.
 */
#define NPA_MERGE_PLANNED	2

/* Pieces 0 .. m - 1 are the rects; @a, @b the two a merge made it of. */
struct npa_mpiece {
	u64 w;
	u32 lo, hi;
	u32 ta, tb;		/* @lo and @hi as indices of c->t */
	u32 a, b;
	bool stack;		/* @b on top of @a, else @b after @a in time */
};

/*
 * The key of a stacked pair, from an earlier round: npa_merge_key(@x,
 * @y, @bound) was @key in round @round.
 */
struct npa_mcache {
	u32 y, key, bound, round;
};

struct npa_mkey {
	u64 w;
	u32 lo, hi, id;
};

struct npa_merge {
	struct npa_ctx *c;
	struct npa_mpiece *p;
	u32 np;			/* pieces made */
	u32 *alive, na;		/* pieces not merged yet */
	/*
	 * The live pieces by lifetime (start, then end), by size and start,
	 * by size and end, and by end then start, kept sorted from round to
	 * round; @kn and @kt take the new pieces.
	 */
	struct npa_mkey *k[4], *kn, *kt;
	u64 *sums;		/* npa_merge_column()'s */
	u32 *deg, *mate;	/* merges open to a piece; the one if just one */
	/* The pieces of a piece's size that start at its end: k[1][@after..]. */
	u32 *after, *nafter;
	bool *gone;
	u64 *off;
	u32 *pkey;		/* the keys of the stacked pairs of a round */
	u64 ops;		/* searches and sums of a round's keys */
	/*
	 * Per piece, the key of its pair with the next piece of its lifetime
	 * (in k[0]); per bound of c->t, the last round that made or merged a
	 * piece starting or ending there. The key of a stacked pair depends
	 * on the pieces starting at its start or end and those ending at its
	 * start: while none of them changed, it still holds.
	 */
	struct npa_mcache *kc;
	u32 *tround, round;
	/* Levels: the live pieces at lv[lv_at[l], + lv_na[l]). */
	u32 *lv, nlv;
	u32 lv_at[NPA_MERGE_LEVELS], lv_na[NPA_MERGE_LEVELS];
	/* The plan repairs start from, and the pieces of the next one. */
	u64 *rep_off;
	u32 *rep, nrep, *nxt;
	bool *have;		/* per piece: its offset is known */
	bool *hole;		/* per piece of g->rep: next to a free byte */
};

/* Merges open to one piece that are counted; more count as this many. */
#define NPA_MERGE_DEG	8

static int npa_mkey_life(const void *a, const void *b)
{
	const struct npa_mkey *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* By size, then by @lo (npa_mkey_start) or by @hi (npa_mkey_end). */
static int npa_mkey_at(const struct npa_mkey *x, const struct npa_mkey *y,
		       u32 xt, u32 yt)
{
	if (x->w != y->w)
		return x->w < y->w ? -1 : 1;
	if (xt != yt)
		return xt < yt ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int npa_mkey_start(const void *a, const void *b)
{
	const struct npa_mkey *x = a, *y = b;

	return npa_mkey_at(x, y, x->lo, y->lo);
}

static int npa_mkey_end(const void *a, const void *b)
{
	const struct npa_mkey *x = a, *y = b;

	return npa_mkey_at(x, y, x->hi, y->hi);
}

static int npa_mkey_life_end(const void *a, const void *b)
{
	const struct npa_mkey *x = a, *y = b;

	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return npa_mkey_life(a, b);
}

/* The order of each of struct npa_merge's lists k[]. */
static const cmp_func_t npa_mkey_cmp[] = {
	npa_mkey_life, npa_mkey_start, npa_mkey_end, npa_mkey_life_end,
};

/*
 * Keep the four lists of live pieces sorted after a round that merged
 * pieces and made pieces @first .. g->np - 1 (@old were live before it):
 * drop the ones that are gone, sort the new ones and merge them in. The
 * lists are sorted once, by npa_merge_init(); a round then costs O(n + k
 * log k) for k new pieces, not O(n log n).
 */
static void npa_merge_resort(struct npa_merge *g, u32 first, u32 old)
{
	u32 nn = g->np - first, i, j, a, b, n;

	for (i = 0; i < ARRAY_SIZE(g->k); i++) {
		struct npa_mkey *k = g->k[i];

		for (j = 0, n = 0; j < old; j++)
			if (!g->gone[k[j].id])
				k[n++] = k[j];
		for (j = 0; j < nn; j++) {
			const struct npa_mpiece *x = &g->p[first + j];

			g->kn[j] = (struct npa_mkey){ x->w, x->lo, x->hi,
						      first + j };
		}
		sort(g->kn, nn, sizeof(*g->kn), npa_mkey_cmp[i], NULL);
		for (a = 0, b = 0, j = 0; a < n || b < nn; j++)
			g->kt[j] = b == nn || (a < n &&
				   npa_mkey_cmp[i](&k[a], &g->kn[b]) < 0) ?
				   k[a++] : g->kn[b++];
		g->k[i] = g->kt;
		g->kt = k;
	}
}

/*
 * The merges open to each live piece, and the one where there is one:
 * the pieces of its lifetime, and of its size back to back with it in
 * time (pieces ending where pieces of their size start, walking the two
 * lists sorted by size and end and by size and start side by side).
 */
static void npa_merge_degrees(struct npa_merge *g)
{
	const struct npa_mkey *s = g->k[0], *st = g->k[1], *en = g->k[2];
	u32 i, j, l, b, e, n = g->na;

	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && s[j].lo == s[i].lo && s[j].hi == s[i].hi;
		     j++)
			;
		for (l = i; l < j; l++) {
			g->deg[s[l].id] = min(j - i - 1, (u32)NPA_MERGE_DEG);
			g->mate[s[l].id] = j - i == 2 ? s[l == i ? j - 1 : i].id :
						       NPA_TN_NONE;
			g->nafter[s[l].id] = 0;
		}
	}
	for (i = 0, b = 0; i < n; i = j) {
		u64 w = en[i].w;
		u32 t = en[i].hi, ns, ne;

		for (j = i + 1; j < n && en[j].w == w && en[j].hi == t; j++)
			;
		while (b < n && (st[b].w < w || (st[b].w == w && st[b].lo < t)))
			b++;
		for (e = b; e < n && st[e].w == w && st[e].lo == t; e++)
			;
		ns = min(e - b, (u32)NPA_MERGE_DEG);
		ne = min(j - i, (u32)NPA_MERGE_DEG);
		if (!ns)
			continue;
		for (l = i; l < j; l++) {
			g->deg[en[l].id] += ns;
			g->mate[en[l].id] = st[b].id;
			g->after[en[l].id] = b;
			g->nafter[en[l].id] = ns;
		}
		for (l = b; l < e; l++) {
			g->deg[st[l].id] += ne;
			g->mate[st[l].id] = en[i].id;
		}
	}
}

/* Merge pieces @x and @y (stacked, or back to back in time). */
static void npa_merge_pair(struct npa_merge *g, u32 x, u32 y)
{
	struct npa_mpiece *a = &g->p[x], *b = &g->p[y];
	bool stack = a->lo == b->lo && a->hi == b->hi;

	if (!stack && b->hi == a->lo) {
		swap(x, y);
		swap(a, b);
	}
	g->p[g->np] = (struct npa_mpiece){
		.w = stack ? a->w + b->w : a->w,
		.lo = a->lo, .hi = stack ? a->hi : b->hi,
		.ta = a->ta, .tb = stack ? a->tb : b->tb,
		.a = x, .b = y, .stack = stack,
	};
	/* Every bound where a piece starts or ends changed (some twice). */
	g->tround[a->ta] = g->round;
	g->tround[a->tb] = g->round;
	g->tround[b->ta] = g->round;
	g->tround[b->tb] = g->round;
	g->gone[x] = true;
	g->gone[y] = true;
	g->gone[g->np] = false;
	g->np++;
}

/* The first live piece in k[@i] that npa_mkey_cmp[@i] puts at or after @at. */
static u32 npa_merge_find(struct npa_merge *g, u32 i,
			  const struct npa_mkey *at)
{
	const struct npa_mkey *k = g->k[i];
	u32 lo = 0, hi = g->na;

	g->ops++;
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (npa_mkey_cmp[i](&k[mid], at) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Is a live piece of size @w in k[@i] (1: by start, 2: by end) at @t? */
static bool npa_merge_has(struct npa_merge *g, u32 i, u64 w, u32 t)
{
	struct npa_mkey at = { .w = w, .lo = t, .hi = t };
	u32 j = npa_merge_find(g, i, &at);

	return j < g->na && g->k[i][j].w == w &&
	       (i == 2 ? g->k[i][j].hi : g->k[i][j].lo) == t;
}

/* Has a live piece of size @w a lifetime back to back with @x's? */
static bool npa_merge_next(struct npa_merge *g,
			   const struct npa_mpiece *x, u64 w)
{
	return npa_merge_has(g, 1, w, x->hi) || npa_merge_has(g, 2, w, x->lo);
}

/*
 * First in k[@i] (0: by start then end, 3: by end then start) at or
 * after (@t, @u).
 */
static u32 npa_merge_life_at(struct npa_merge *g, u32 i, u32 t, u32 u)
{
	struct npa_mkey at = { .lo = i ? u : t, .hi = i ? t : u };

	return npa_merge_find(g, i, &at);
}

/*
 * Is there a third piece of the lifetime of @x and @y with which they
 * make a piece that has a piece of its size back to back with it? Looks
 * at the first NPA_MERGE_DEG others of the lifetime.
 */
static bool npa_merge_third(struct npa_merge *g, u32 x, u32 y)
{
	const struct npa_mpiece *a = &g->p[x];
	const struct npa_mkey *k = g->k[0];
	u64 w = a->w + g->p[y].w;
	u32 lo = npa_merge_life_at(g, 0, a->lo, a->hi), cnt = 0;

	for (; lo < g->na && k[lo].lo == a->lo && k[lo].hi == a->hi &&
	     cnt < NPA_MERGE_DEG; lo++) {
		if (k[lo].id == x || k[lo].id == y || g->gone[k[lo].id])
			continue;
		cnt++;
		if (npa_merge_next(g, a, w + k[lo].w))
			return true;
	}
	return false;
}

/* Most pieces of one lifetime, and lifetimes a side, a column looks at. */
#define NPA_MERGE_COL	6

static int npa_u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Some pieces of the lifetime that starts at @t (@i 0) or ends there (@i
 * 3), all of one lifetime: does what they sum to make one of @sums?
 */
static bool npa_merge_side(struct npa_merge *g, u32 i, u32 t,
			   const u64 *sums, u32 ns)
{
	const struct npa_mkey *k = g->k[i];
	u32 at = npa_merge_life_at(g, i, t, 0), lives = 0, mem, nm, j;
	u64 w[NPA_MERGE_COL];

	while (at < g->na && (i ? k[at].hi : k[at].lo) == t &&
	       lives++ < NPA_MERGE_COL) {
		u32 lo = k[at].lo, hi = k[at].hi;

		for (nm = 0; at < g->na && k[at].lo == lo && k[at].hi == hi;
		     at++)
			if (!g->gone[k[at].id] && nm < NPA_MERGE_COL)
				w[nm++] = k[at].w;
		g->ops += 1U << nm;
		for (mem = 1; mem < 1U << nm; mem++) {
			u64 sum = 0;

			for (j = 0; j < nm; j++)
				if (mem >> j & 1)
					sum += w[j];
			if (bsearch(&sum, sums, ns, sizeof(*sums),
				    npa_u64_cmp))
				return true;
		}
	}
	return false;
}

/*
 * Do @x and @y, with some of the other pieces of their lifetime, make a
 * column as wide as some pieces of one lifetime make right before or
 * right after theirs? Then the two are likely in that column, cut from
 * one piece with the others' partner.
 */
static bool npa_merge_column(struct npa_merge *g, u32 x, u32 y)
{
	const struct npa_mpiece *a = &g->p[x];
	const struct npa_mkey *k = g->k[0];
	u32 at = npa_merge_life_at(g, 0, a->lo, a->hi), nm = 0, ns, i, j;
	u64 w[NPA_MERGE_COL];

	for (; at < g->na && k[at].lo == a->lo && k[at].hi == a->hi &&
	     nm < NPA_MERGE_COL; at++)
		if (k[at].id != x && k[at].id != y && !g->gone[k[at].id])
			w[nm++] = k[at].w;
	ns = 1U << nm;
	g->ops += ns;
	for (i = 0; i < ns; i++) {
		g->sums[i] = a->w + g->p[y].w;
		for (j = 0; j < nm; j++)
			if (i >> j & 1)
				g->sums[i] += w[j];
	}
	sort(g->sums, ns, sizeof(*g->sums), npa_u64_cmp, NULL);
	return npa_merge_side(g, 0, a->hi, g->sums, ns) ||
	       npa_merge_side(g, 3, a->lo, g->sums, ns);
}

/*
 * How likely a merge is wrong, least first: back to back in time (two
 * sizes rarely match by chance, two lifetimes often do); stacked, where
 * the piece the two make has a piece of its size back to back with it
 * (the same: the two were cut from it, or from its twin); stacked, where
 * that holds with a third piece of their lifetime; stacked, in a column
 * that npa_merge_column() finds. Then the pairs where the piece with
 * fewer merges open to it has the fewest, then the fewest in all. Any
 * other stacked pair is never merged (U32_MAX): nearly half of those
 * were wrong, and leaving them to the plan of the pieces costs less. A
 * key above @bound may come back as U32_MAX too.
 */
static u32 npa_merge_key(struct npa_merge *g, u32 x, u32 y, u32 bound)
{
	const struct npa_mpiece *a = &g->p[x], *b = &g->p[y];
	u32 deg = min(g->deg[x], g->deg[y]) << 8 | (g->deg[x] + g->deg[y]);
	u32 risk;

	if (a->lo != b->lo || a->hi != b->hi)
		return deg;
	/* The searches only where the key could still be at most @bound. */
	for (risk = 1; risk < 4; risk++) {
		if ((risk << 16 | deg) > bound)
			return U32_MAX;
		if (risk == 1 ? npa_merge_next(g, a, a->w + b->w) :
		    risk == 2 ? npa_merge_third(g, x, y) :
				npa_merge_column(g, x, y))
			return risk << 16 | deg;
	}
	return U32_MAX;
}

/*
 * npa_merge_key() of the stacked pair @x, @y (@y next after @x in k[0]),
 * from g->kc[@x] when that still holds: the same pair, none of the pieces
 * its key depends on changed since, and known for @bound (a key is only
 * known up to the bound it was computed with).
 */
static u32 npa_merge_stack_key(struct npa_merge *g, u32 x, u32 y, u32 bound)
{
	struct npa_mcache *e = &g->kc[x];
	const struct npa_mpiece *a = &g->p[x];

	if (e->y == y && e->round > g->tround[a->ta] &&
	    e->round > g->tround[a->tb] &&
	    (e->key != U32_MAX || bound <= e->bound))
		return e->key <= bound ? e->key : U32_MAX;
	*e = (struct npa_mcache){
		.y = y, .key = npa_merge_key(g, x, y, bound), .bound = bound,
		.round = g->round,
	};
	return e->key;
}

/*
 * A round that is not sure: merge the pairs npa_merge_key() ranks first,
 * the stacked ones (neighbours by lifetime) before the ones back to back
 * in time. The least key is looked for among the pairs back to back
 * first, which need no search: while there is one, no stacked pair is
 * searched for. The keys of the stacked pairs are kept for the merges.
 */
static void npa_merge_unsure(struct npa_merge *g)
{
	const struct npa_mkey *s = g->k[0];
	u32 i, j, x, y, kmin = U32_MAX;

	for (i = 0; i < g->na; i++) {
		x = s[i].id;
		for (j = 0; j < g->nafter[x]; j++) {
			y = g->k[1][g->after[x] + j].id;
			kmin = min(kmin, npa_merge_key(g, x, y, kmin));
		}
	}
	for (i = 0; i + 1 < g->na; i++) {
		g->pkey[i] = U32_MAX;
		if (s[i].lo == s[i + 1].lo && s[i].hi == s[i + 1].hi) {
			g->pkey[i] = npa_merge_stack_key(g, s[i].id,
							 s[i + 1].id, kmin);
			kmin = min(kmin, g->pkey[i]);
		}
	}
	if (kmin == U32_MAX)
		return;
	for (i = 0; i + 1 < g->na; i++) {
		x = s[i].id;
		y = s[i + 1].id;
		if (g->pkey[i] == kmin && !g->gone[x] && !g->gone[y])
			npa_merge_pair(g, x, y);
	}
	for (i = 0; i < g->na; i++) {
		x = s[i].id;
		for (j = 0; j < g->nafter[x]; j++) {
			y = g->k[1][g->after[x] + j].id;
			if (!g->gone[x] && !g->gone[y] &&
			    npa_merge_key(g, x, y, kmin) == kmin)
				npa_merge_pair(g, x, y);
		}
	}
}

/* Can @x only merge with its mate, and the mate only with @x? */
static bool npa_merge_mutual(const struct npa_merge *g, u32 x)
{
	u32 y = g->mate[x];

	return g->deg[x] == 1 && x < y && g->deg[y] == 1 && g->mate[y] == x;
}

/*
 * The pairs of pieces that can only merge with each other but were left
 * to the rounds that are not sure (stacks no size confirms), right after
 * a sure round that merged nothing.
 */
static u32 npa_merge_held(const struct npa_merge *g)
{
	u32 i, cnt = 0;

	for (i = 0; i < g->na; i++)
		cnt += npa_merge_mutual(g, g->alive[i]);
	return cnt;
}

/*
 * One round: merge every pair of pieces that can only merge with each
 * other, unless it is stacked and nothing of its size would be next to
 * it in time (a quarter of those are wrong: the true partner of each is
 * not made yet; of the others, hardly any), or (@sure false) the pairs
 * npa_merge_key() ranks first. A round that is not sure comes right after
 * a sure one that merged nothing: the merges open to each piece are still
 * those it counted.
 * Returns the pieces merged.
 */
static u32 npa_merge_round(struct npa_merge *g, bool sure)
{
	u32 first = g->np, i, na = 0, x, y;

	g->round++;
	if (sure) {
		npa_merge_degrees(g);
		for (i = 0; i < g->na; i++) {
			x = g->alive[i];
			y = g->mate[x];
			if (npa_merge_mutual(g, x) && !g->gone[x] && !g->gone[y] &&
			    npa_merge_key(g, x, y, (2 << 16) - 1) >> 16 < 2)
				npa_merge_pair(g, x, y);
		}
	} else {
		npa_merge_unsure(g);
	}
	for (i = 0; i < g->na; i++)
		if (!g->gone[g->alive[i]])
			g->alive[na++] = g->alive[i];
	for (i = first; i < g->np; i++)
		g->alive[na++] = i;
	npa_merge_resort(g, first, g->na);
	g->na = na;
	return g->np - first;
}

static int npa_plan_run(struct npa_plan_buf *bufs, u32 n,
			const struct npa_plan_params *p,
			struct npa_plan_result *res, u32 mode);

/*
 * Above the exact search's limit the merge step comes before the tiling
 * search and, on cut rectangles, has the budget to itself: it takes all
 * of it, plans only NPA_MERGE_PLANNED levels, and their plans are lean.
 */
static bool npa_merge_first(const struct npa_ctx *c)
{
	return c->m > NPA_PLAN_EXACT_MAX;
}

/*
 * Plan the pieces @ids[0, @n) as an instance of their own with @budget,
 * and keep the plan of the rects it makes if it is better. The offsets
 * of the pieces (and of the pieces they were made of) go to g->off[];
 * returns the peak, or U64_MAX when that could not run (no memory, no
 * time left).
 */
static u64 npa_merge_plan(struct npa_merge *g, const u32 *ids, u32 n,
			  u64 budget)
{
	struct npa_ctx *c = g->c;
	/*
	 * A placement among fewer pieces costs less: the level gets m / n
	 * (at most 8) of its own placements for each of the budget's.
	 */
	u32 scale = clamp(c->m / max(n, 1U), 1U, 8U), i, x;
	struct npa_plan_params prm = { .budget = max(budget, 1ULL) * scale };
	struct npa_plan_result res;
	struct npa_plan_buf *bufs;
	u64 spent = ktime_get_ns() - c->t0;
	int ret;

	if (spent >= c->cap_ns)
		return U64_MAX;
	prm.time_cap_ns = c->cap_ns - spent;
	bufs = kvmalloc_array(n, sizeof(*bufs), GFP_KERNEL_ACCOUNT);
	if (!bufs)
		return U64_MAX;
	for (i = 0; i < n; i++) {
		const struct npa_mpiece *p = &g->p[ids[i]];

		bufs[i] = (struct npa_plan_buf){
			.size = p->w, .lo = p->lo, .hi = p->hi,
		};
	}
	/*
	 * The scale holds for the tiling search, not for first fit and
	 * best fit, whose index is over the bounds of the time: in the plans
	 * of the pieces of a cut strip of 8000 the metric orders and the
	 * baseline took 3-6 us a placement, 400 of its 1250 ms (timed step
	 * by step, which slows it) for 4% of its budget. Above the exact
	 * search's limit those plans run one order and no baseline (the
	 * tiling search is what solves a level).
	 */
	ret = npa_plan_run(bufs, n, &prm, &res,
			   NPA_RUN_NO_MERGE | NPA_RUN_NO_GUILLO |
			   (npa_merge_first(c) ? NPA_RUN_LEAN : 0));
	c->work += div_u64(res.work + scale - 1, scale);
	if (ret) {
		kvfree(bufs);
		return U64_MAX;
	}
	memset(g->have, 0, g->np * sizeof(*g->have));
	for (i = 0; i < n; i++) {
		g->off[ids[i]] = bufs[i].offset;
		g->have[ids[i]] = true;
	}
	kvfree(bufs);
	/* A piece is made after the two it is made of: down from the last. */
	for (x = g->np; x-- > c->m; ) {
		const struct npa_mpiece *p = &g->p[x];

		if (!g->have[x])
			continue;
		g->off[p->a] = g->off[x];
		g->off[p->b] = g->off[x] + (p->stack ? g->p[p->a].w : 0);
		g->have[p->a] = true;
		g->have[p->b] = true;
	}
	memcpy(c->off, g->off, c->m * sizeof(*c->off));
	npa_tile_keep(c, NPA_PLAN_ALGO_MERGE, U64_MAX);
	return res.peak;
}

/*
 * Keep the plan of @ids[0, @n) just made (offsets in g->off[]) as the one
 * npa_merge_repair() starts from.
 */
static void npa_merge_note_plan(struct npa_merge *g, const u32 *ids, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		g->rep[i] = ids[i];
		g->rep_off[i] = g->off[ids[i]];
	}
	g->nrep = n;
}

/*
 * Do the pieces in @k (by address, then start) at address @at cover the
 * steps [@lo, @hi)? Pieces at one address do not overlap in time, so
 * they come in the order of their ends too.
 */
static bool npa_merge_covered(const struct npa_mkey *k, u32 n, u64 at,
			      u32 lo, u32 hi)
{
	u32 a = 0, b = n, t = lo;

	/* The first piece at @at that ends after @lo. */
	while (a < b) {
		u32 mid = a + (b - a) / 2;

		if (k[mid].w < at || (k[mid].w == at && k[mid].hi <= lo))
			a = mid + 1;
		else
			b = mid;
	}
	for (; a < n && k[a].w == at && k[a].lo <= t && t < hi; a++)
		t = max(t, k[a].hi);
	return t >= hi;
}

/*
 * Mark in g->hole[] the pieces of the plan in g->rep that are next to a
 * free byte under the bound. In a plan at the bound, the pieces right on
 * top of a piece (starting at its end) cover its whole lifetime, and so do
 * the pieces right under it; where they do not, there is a hole, and the
 * pieces around a hole are where a wrong merge mostly is. Uses g->k[0]
 * and g->k[1], which the rounds no longer need.
 */
static void npa_merge_holes(struct npa_merge *g)
{
	struct npa_mkey *start = g->k[0], *end = g->k[1];
	struct npa_ctx *c = g->c;
	u32 i, n = g->nrep;

	for (i = 0; i < n; i++) {
		const struct npa_mpiece *p = &g->p[g->rep[i]];

		start[i] = (struct npa_mkey){ g->rep_off[i], p->lo, p->hi, i };
		end[i] = (struct npa_mkey){ g->rep_off[i] + p->w, p->lo, p->hi,
					    i };
	}
	sort(start, n, sizeof(*start), npa_mkey_start, NULL);
	sort(end, n, sizeof(*end), npa_mkey_start, NULL);
	for (i = 0; i < n; i++) {
		const struct npa_mpiece *p = &g->p[g->rep[i]];
		u64 off = g->rep_off[i];

		g->hole[i] = (off + p->w < c->lb &&
			      !npa_merge_covered(start, n, off + p->w, p->lo,
						 p->hi)) ||
			     (off && !npa_merge_covered(end, n, off, p->lo,
							p->hi));
	}
	/* Two sorts and a search a piece: a placement is about 16 of them. */
	c->work += n / 8 + 1;
}

/*
 * The plan of the pieces in g->rep is over the bound: wrong merges made
 * pieces that do not fit together. Split each piece that ends above the
 * bound or lies next to a hole into the two it was made of and plan again,
 * @rounds times at most, each from the last plan.
 */
static void npa_merge_repair(struct npa_merge *g, u64 stop, u32 rounds)
{
	struct npa_ctx *c = g->c;
	u32 r, i, n, split;

	for (r = 0; r < rounds && c->best_peak > c->lb && c->work < stop;
	     r++) {
		n = 0;
		split = 0;
		npa_merge_holes(g);
		for (i = 0; i < g->nrep; i++) {
			u32 x = g->rep[i];

			if (x >= c->m && (g->hole[i] ||
					  g->rep_off[i] + g->p[x].w > c->lb)) {
				g->nxt[n++] = g->p[x].a;
				g->nxt[n++] = g->p[x].b;
				split++;
			} else {
				g->nxt[n++] = x;
			}
		}
		/* npa_merge_holes() spent some: @stop may be past. */
		if (!split || c->work >= stop)
			break;
		if (npa_merge_plan(g, g->nxt, n, (stop - c->work) / 2) == U64_MAX)
			break;
		npa_merge_note_plan(g, g->nxt, n);
	}
}

/* Remember the pieces as level g->nlv. */
static void npa_merge_level(struct npa_merge *g)
{
	u32 l = g->nlv++, at = l ? g->lv_at[l - 1] + g->lv_na[l - 1] : 0;

	g->lv_at[l] = at;
	g->lv_na[l] = g->na;
	memcpy(g->lv + at, g->alive, g->na * sizeof(*g->alive));
}

static void npa_merge_free(struct npa_merge *g)
{
	u32 i;

	kvfree(g->p);
	kvfree(g->alive);
	for (i = 0; i < ARRAY_SIZE(g->k); i++)
		kvfree(g->k[i]);
	kfree(g->sums);
	kvfree(g->kn);
	kvfree(g->pkey);
	kvfree(g->kt);
	kvfree(g->after);
	kvfree(g->nafter);
	kvfree(g->deg);
	kvfree(g->mate);
	kvfree(g->gone);
	kvfree(g->off);
	kvfree(g->lv);
	kvfree(g->rep_off);
	kvfree(g->rep);
	kvfree(g->nxt);
	kvfree(g->have);
	kvfree(g->hole);
	kvfree(g->kc);
	kvfree(g->tround);
}

static int npa_merge_init(struct npa_merge *g, struct npa_ctx *c)
{
	u32 m = c->m, i;

	g->c = c;
	g->p = kvmalloc_array(m, 2 * sizeof(*g->p), GFP_KERNEL_ACCOUNT);
	g->alive = kvmalloc_array(m, sizeof(*g->alive), GFP_KERNEL_ACCOUNT);
	BUILD_BUG_ON(ARRAY_SIZE(npa_mkey_cmp) != ARRAY_SIZE(g->k));
	for (i = 0; i < ARRAY_SIZE(g->k); i++)
		g->k[i] = kvmalloc_array(m, sizeof(*g->k[i]),
					 GFP_KERNEL_ACCOUNT);
	g->sums = kmalloc_array(1U << NPA_MERGE_COL, sizeof(*g->sums),
				GFP_KERNEL_ACCOUNT);
	/* A round makes at most half as many pieces as there are live. */
	g->kn = kvmalloc_array(m / 2 + 1, sizeof(*g->kn), GFP_KERNEL_ACCOUNT);
	g->kt = kvmalloc_array(m, sizeof(*g->kt), GFP_KERNEL_ACCOUNT);
	g->pkey = kvmalloc_array(m, sizeof(*g->pkey), GFP_KERNEL_ACCOUNT);
	g->after = kvmalloc_array(m, 2 * sizeof(*g->after), GFP_KERNEL_ACCOUNT);
	g->nafter = kvmalloc_array(m, 2 * sizeof(*g->nafter),
				   GFP_KERNEL_ACCOUNT);
	g->deg = kvmalloc_array(m, 2 * sizeof(*g->deg), GFP_KERNEL_ACCOUNT);
	g->mate = kvmalloc_array(m, 2 * sizeof(*g->mate), GFP_KERNEL_ACCOUNT);
	g->gone = kvcalloc(m, 2 * sizeof(*g->gone), GFP_KERNEL_ACCOUNT);
	g->off = kvmalloc_array(m, 2 * sizeof(*g->off), GFP_KERNEL_ACCOUNT);
	/* Each level after the first has at most half the pieces of the last. */
	g->lv = kvmalloc_array(m, 2 * sizeof(*g->lv), GFP_KERNEL_ACCOUNT);
	g->rep_off = kvmalloc_array(m, sizeof(*g->rep_off), GFP_KERNEL_ACCOUNT);
	g->rep = kvmalloc_array(m, sizeof(*g->rep), GFP_KERNEL_ACCOUNT);
	g->nxt = kvmalloc_array(m, sizeof(*g->nxt), GFP_KERNEL_ACCOUNT);
	g->have = kvmalloc_array(m, 2 * sizeof(*g->have), GFP_KERNEL_ACCOUNT);
	g->hole = kvmalloc_array(m, sizeof(*g->hole), GFP_KERNEL_ACCOUNT);
	g->kc = kvcalloc(m, 2 * sizeof(*g->kc), GFP_KERNEL_ACCOUNT);
	g->tround = kvcalloc(c->nt, sizeof(*g->tround), GFP_KERNEL_ACCOUNT);
	if (!g->p || !g->alive || !g->k[0] || !g->k[1] || !g->k[2] ||
	    !g->k[3] || !g->sums || !g->pkey || !g->kn || !g->kt ||
	    !g->after || !g->nafter || !g->deg || !g->mate || !g->gone ||
	    !g->off || !g->lv || !g->rep_off || !g->rep || !g->nxt ||
	    !g->have || !g->hole || !g->kc || !g->tround)
		return -ENOMEM;
	for (i = 0; i < m; i++) {
		g->p[i] = (struct npa_mpiece){
			.w = c->r[i].size, .lo = c->r[i].lo, .hi = c->r[i].hi,
			.ta = c->r[i].a, .tb = c->r[i].b,
			.a = NPA_TN_NONE, .b = NPA_TN_NONE,
		};
		g->alive[i] = i;
		g->k[0][i] = (struct npa_mkey){ g->p[i].w, g->p[i].lo,
						g->p[i].hi, i };
	}
	g->np = m;
	g->na = m;
	for (i = 1; i < ARRAY_SIZE(g->k); i++)
		memcpy(g->k[i], g->k[0], m * sizeof(*g->k[0]));
	for (i = 0; i < ARRAY_SIZE(g->k); i++)
		sort(g->k[i], m, sizeof(*g->k[i]), npa_mkey_cmp[i], NULL);
	return 0;
}

/*
 * The merge step, for an instance the tiling search runs on (whose plan at
 * the bound leaves no byte free) and has not solved (above the exact
 * search's limit: before the tiling search): three quarters of the budget
 * left (the steps after it hardly ever improve on it where it runs; its
 * rounds cost a few percent of the budget at 2000 rects and half of its
 * share at 4000), and above the exact search's limit all of it (when the
 * rounds run to the end, npa_plan_run() does not run the tiling search
 * after it). The pieces are kept as a level when no sure merge is left the
 * first time, then each time they are down to half of the last level, and
 * at the end. The levels are planned smallest first (the cheapest, and the
 * merges make the plan of a few pieces easy; above the exact search's
 * limit only NPA_MERGE_PLANNED of them), each with half of what is left of
 * half the step's budget; the best of those plans is repaired with the
 * rest. Not inlined, so that npa_plan_run(), which the plans of the levels
 * run again, keeps a small frame. Returns false when the step did not run
 * or stopped the first time no sure merge was left, with more than 29/32
 * of the rects still there, or above the exact search's limit ran its
 * rounds to the end with more than a quarter left (not cut rectangles),
 * else true (also when the budget or the clock ended the rounds: a tiling
 * search after them would get nothing either).
 */
static noinline_for_stack bool npa_run_merge(struct npa_ctx *c)
{
	u64 left = c->budget > c->work ? c->budget - c->work : 0;
	u64 stop, best = U64_MAX, lstop;
	struct npa_merge *g;
	bool cut = false;
	u32 l, planned;

	if (c->best_peak <= c->lb || !npa_tile_fits(c))
		return false;
	stop = c->work + (npa_merge_first(c) ? left : left / 4 * 3);
	g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);
	if (!g)
		return false;
	if (npa_merge_init(g, c))
		goto out;
	while (g->na > 1 && c->work < stop && !npa_time_check(c)) {
		u32 merged;

		/*
		 * A few walks of the sorted lists, 1/32 placement a piece,
		 * and the searches and sums of the last round's keys, 1/32
		 * placement each (about 40 ns).
		 */
		c->work += g->na / 32 + 1 + div_u64(g->ops, 32);
		g->ops = 0;
		merged = npa_merge_round(g, true);
		if (!merged) {
			/*
			 * Hardly any sure merge (the rects cut from a strip
			 * leave at most 0.88 of the rects at 6000, sweep
			 * strips 0.91-0.96): not an instance of cut rects.
			 */
			if (!g->nlv && g->na - npa_merge_held(g) > c->m / 32 * 29)
				goto out;
			if (!g->nlv)
				npa_merge_level(g);
			merged = npa_merge_round(g, false);
		}
		if (!merged)
			break;
		if (g->nlv && g->na <= g->lv_na[g->nlv - 1] / 2 &&
		    g->nlv < NPA_MERGE_LEVELS - 1)
			npa_merge_level(g);
	}
	c->work += div_u64(g->ops, 32);
	/*
	 * Rects cut from a strip merge back into a tenth as many pieces or
	 * so (0.05-0.16 of the rects in the plans of cut strips of 6000 and
	 * 8000 without the guillotine step, seeds 1-16); the sweep strips
	 * 6000 / 15 and 23 (4650 and 4281 rects), which got past the stop
	 * at 29/32, end with a third of theirs (0.36 and 0.33), and no plan
	 * of their levels got to the bound. Above the exact search's limit,
	 * rounds that ran to the end with more than a quarter of the rects
	 * left say the instance is not made of cut rects either: the tiling
	 * search gets the rest of the budget. Below it the levels are planned
	 * anyway: the step runs after the tiling search there, and its plans
	 * are what is left to try (the best plan of sweep 8000 / 26, 4032
	 * rects, 0.27 left, is a merged one).
	 */
	if (npa_merge_first(c) && g->na > c->m / 4 && c->work < stop &&
	    !c->out_of_time)
		goto out;
	cut = true;
	if (!g->nlv || g->na < g->lv_na[g->nlv - 1])
		npa_merge_level(g);
	lstop = c->work < stop ? c->work + (stop - c->work) / 2 : stop;
	planned = npa_merge_first(c) ? NPA_MERGE_PLANNED : g->nlv;
	l = g->nlv;
	while (l-- && g->nlv - l <= planned && c->best_peak > c->lb &&
	       c->work < lstop) {
		const u32 *ids = g->lv + g->lv_at[l];
		u64 peak = npa_merge_plan(g, ids, g->lv_na[l],
					  l ? (lstop - c->work) / 2 :
					      lstop - c->work);

		if (peak == U64_MAX)
			break;
		if (peak < best) {
			best = peak;
			npa_merge_note_plan(g, ids, g->lv_na[l]);
		}
	}
	if (g->nrep)
		npa_merge_repair(g, stop, NPA_MERGE_REPAIRS);
out:
	npa_merge_free(g);
	kfree(g);
	return cut;
}

/* ---------------------------------------------------------------------- */
/* Guillotine step */

/*
 * The guillotine step (npa_guillotine.c) on a tight instance, before any
 * other: it rebuilds the rects cut from a strip from their sizes and
 * lifetimes in a fraction of the budget (strips of 8000 at the bound in
 * 0.1-0.2 s, where the other steps were up to 30% above it after 1 s).
 * It gets three quarters of the budget; a plan at the bound ends the run.
 * Else (no guillotine tiling: it gives up after up to a sixth of the
 * budget on sweep strips of 8000; or a plan more than 5% above the
 * bound) a default budget grows by what it spent: the other steps then
 * get the budget they had without it and make the plans they made, none
 * worse than before, for up to 0.6 s more. A plan within 5% of the bound
 * is not worth twice the time: the steps after it get what is left (of
 * 384 strips of 3000-8000, three generators, the cut strips 8000 / 24,
 * 26 and 29 of npa-bench change: the step's plan, 0.37-3.8% over, in
 * 0.25-0.6 s instead of 1.0-1.7 s). A budget the caller gave is not
 * grown. The plan of the stalled pieces one match down may spend what
 * the run leaves to the steps after (gp.spare).
 */
static noinline_for_stack void npa_run_guillotine(struct npa_ctx *c,
						  bool refund)
{
	struct npa_guillo_params gp = {
		.budget = c->budget - c->budget / 4,
		.spare = c->budget / 4,
		.t0 = c->t0,
		.cap_ns = c->cap_ns,
	};
	struct npa_plan_buf *bufs;
	u32 i;
	int ret;

	if (!npa_tile_fits(c))
		return;
	bufs = kvcalloc(c->m, sizeof(*bufs), GFP_KERNEL_ACCOUNT);
	if (!bufs)
		return;
	for (i = 0; i < c->m; i++) {
		bufs[i].size = c->r[i].size;
		bufs[i].lo = c->r[i].a;
		bufs[i].hi = c->r[i].b;
	}
	ret = npa_guillotine(bufs, c->m, c->nt, c->lb, &gp);
	c->work += gp.work;
	if (ret >= 0) {
		for (i = 0; i < c->m; i++)
			c->off[i] = bufs[i].offset;
		npa_tile_keep(c, NPA_PLAN_ALGO_GUILLOTINE,
			      ret ? U64_MAX : c->lb);
	}
	if (ret && refund &&
	    (ret < 0 || npa_far_over(c, gp.peak)))
		c->budget = npa_sat_add(c->budget, gp.work);
	kvfree(bufs);
}

/* ---------------------------------------------------------------------- */
/* Entry points */

/*
 * The default budget: 2^12 placements per rect for small instances, at
 * most 2^19, fewer as placements get dearer with n (2^31 / n), but always
 * enough for the baseline and a few metric orders (4 n). That keeps a
 * default plan well under a second up to 30k buffers and under two
 * seconds at 62k on a desktop core (see Documentation/planner.rst).
 * Tightly packed instances small enough for the tiling search get up to
 * twice as much: the work of the steps for them is cheaper than a pass's,
 * but the exact search's corner search grows with the number of leaves,
 * so the extra shrinks above 1024 rects.
 */
static u64 npa_default_budget(const struct npa_ctx *c, bool tight)
{
	u64 b = min_t(u64, 1ULL << 19, div64_u64(1ULL << 31, c->m));

	b = max_t(u64, 4ULL * c->m, min_t(u64, b, (u64)c->m << 12));
	if (tight)
		b += div64_u64(b << 10, max_t(u32, c->m, 1024));
	return b;
}

static void npa_result_fill(const struct npa_ctx *c, struct npa_plan_result *res,
			    u64 naive)
{
	res->peak = c->best_peak;
	res->lower_bound = c->lb;
	res->naive = naive;
	res->work = c->work;
	res->plan_ns = ktime_get_ns() - c->t0;
	res->algo = c->best_algo;
	res->greedy_peak = c->greedy_peak;
}

static int npa_plan_run(struct npa_plan_buf *bufs, u32 n,
			const struct npa_plan_params *p,
			struct npa_plan_result *res, u32 mode)
{
	struct npa_plan_result local;
	u64 t0 = ktime_get_ns(), naive;
	struct npa_ctx *c;
	bool tight, refund;
	u32 m;
	int ret;

	if (!res)
		res = &local;
	memset(res, 0, sizeof(*res));
	ret = npa_plan_check(bufs, n, &naive, &m);
	if (ret)
		return ret;
	if (!m) {
		u32 i;

		for (i = 0; i < n; i++)
			bufs[i].offset = 0;
		res->naive = naive;
		res->algo = NPA_PLAN_ALGO_NONE;
		res->plan_ns = ktime_get_ns() - t0;
		return 0;
	}
	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		return -ENOMEM;
	ret = npa_ctx_init(c, bufs, n, m);
	if (ret)
		goto err_free;
	c->t0 = t0;
	c->piece_plan = mode & NPA_RUN_NO_MERGE;
	c->cap_ns = p && p->time_cap_ns ? p->time_cap_ns :
		NPA_PLAN_DEFAULT_TIME_CAP_NS;
	tight = m <= NPA_TILE_MAX && npa_tight(c);
	/* A default budget may grow by what a step gives up on (refund). */
	refund = !(p && p->budget);
	c->budget = refund ? npa_default_budget(c, tight) : p->budget;
	c->rng = 0x9e3779b97f4a7c15ULL;

	if (tight && !(mode & (NPA_RUN_GREEDY | NPA_RUN_NO_GUILLO))) {
		npa_run_guillotine(c, refund);
		if (c->have_best && c->best_peak <= c->lb)
			goto out;
	}
	/*
	 * A tight instance above the exact search's limit runs one metric
	 * order (and the baseline), as the plans of the merge step's pieces
	 * there do: on its sweep strips the other orders cost 4-7 us a
	 * placement and no plan of theirs was kept; with their units left to
	 * the tiling search, 5 of the sweep strips of 6000 and 8000 (seeds
	 * 1-32) end a little lower, none higher.
	 */
	if (!(mode & NPA_RUN_GREEDY))
		npa_run_orders(c, mode & NPA_RUN_LEAN ||
			       (tight && npa_merge_first(c)) ? 1 :
			       NPA_METRIC_COUNT);
	if (!(mode & NPA_RUN_LEAN))
		npa_run_greedy(c);
	if (!(mode & NPA_RUN_GREEDY)) {
		/* Tightly packed: only the exact search does any good. */
		if (tight) {
			bool cut = false;

			/*
			 * Above the exact search's limit the tiling search
			 * hardly ever finishes, and its share would leave the
			 * merge step too little: the merge step goes first,
			 * and on rects cut from a strip, where the tiling
			 * search after it never gave the best plan, it takes
			 * the whole budget.
			 */
			if (npa_merge_first(c) && !(mode & NPA_RUN_NO_MERGE))
				cut = npa_run_merge(c);
			if (!cut)
				npa_run_tile(c);
			if (!npa_merge_first(c) && !(mode & NPA_RUN_NO_MERGE))
				npa_run_merge(c);
			npa_run_relaxed(c, refund);
			npa_run_exact(c, true);
			npa_run_complete(c);
			npa_run_skyline(c);
		}
		npa_run_suppress(c);
		if (!tight)
			npa_run_exact(c, false);
		npa_run_search(c);
	}
out:
	npa_ctx_output(c, bufs, n);
	npa_result_fill(c, res, naive);
	if (NPA_PLAN_SELFCHECK)
		WARN_ON_ONCE(npa_plan_verify(bufs, n, res->peak));
	npa_ctx_free(c);
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
 * Runs the baseline, then the better searches while budget is left, and
 * returns the best plan seen; stops early at the lower bound.
 *
 * Context: Process context; may sleep (allocates with GFP_KERNEL_ACCOUNT,
 * charged to the caller's memory cgroup; calls cond_resched()). No locking:
 * the caller owns @bufs.
 * Return: 0 on success; -EINVAL for a bad lifetime (hi <= lo), alignment
 * or flags; -EOVERFLOW if the sizes (plus alignment slack) overflow u64;
 * -E2BIG if @n is too large; -ENOMEM.
 */
int npa_plan(struct npa_plan_buf *bufs, u32 n, const struct npa_plan_params *p,
	     struct npa_plan_result *res)
{
	return npa_plan_run(bufs, n, p, res, 0);
}
EXPORT_SYMBOL_IF_KUNIT(npa_plan);

/**
 * npa_plan_nested() - npa_plan() without the guillotine step
 * @bufs: buffers, as for npa_plan()
 * @n: number of buffers
 * @p: limits, or NULL for the defaults
 * @res: results, or NULL
 *
 * The guillotine step plans the pieces it stalled with by this entry: it
 * must not come back into the step.
 *
 * Context: Process context; may sleep.
 * Return: as npa_plan().
 */
int npa_plan_nested(struct npa_plan_buf *bufs, u32 n,
		    const struct npa_plan_params *p,
		    struct npa_plan_result *res)
{
	return npa_plan_run(bufs, n, p, res, NPA_RUN_NO_GUILLO);
}
EXPORT_SYMBOL_IF_KUNIT(npa_plan_nested);

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
		[NPA_PLAN_ALGO_SUPPRESS] = "peak-suppression",
		[NPA_PLAN_ALGO_SEARCH] = "local-search",
		[NPA_PLAN_ALGO_EXACT] = "exact",
		[NPA_PLAN_ALGO_COMPLETE] = "exact-completed",
		[NPA_PLAN_ALGO_SKYLINE] = "skyline",
		[NPA_PLAN_ALGO_TILE] = "tiling",
		[NPA_PLAN_ALGO_TILE_FIT] = "tiling-completed",
		[NPA_PLAN_ALGO_MERGE] = "merged",
		[NPA_PLAN_ALGO_GUILLOTINE] = "guillotine",
	};

	return algo < NPA_PLAN_ALGO_COUNT ? names[algo] : "unknown";
}

/* ---------------------------------------------------------------------- */
/* Verifier */

/*
 * The verifier shares no code with the placement paths above: it sweeps
 * over time keeping the live buffers in a Fenwick tree over their rank in
 * address order. Live buffers are pairwise disjoint, so a buffer that
 * overlaps any of them overlaps its predecessor or successor in address
 * order; checking those two on every start is enough.
 */
struct npa_vrank {
	u64 off;
	u32 id;
};

static int npa_vrank_cmp(const void *a, const void *b)
{
	const struct npa_vrank *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

struct npa_fenwick {
	u32 *t;
	u32 n, top;
};

static void npa_fw_add(struct npa_fenwick *f, u32 i, int d)
{
	for (i++; i <= f->n; i += i & -i)
		f->t[i] += d;
}

/* Number of live ranks < @i. */
static u32 npa_fw_count(const struct npa_fenwick *f, u32 i)
{
	u32 s = 0;

	for (; i; i -= i & -i)
		s += f->t[i];
	return s;
}

/* Rank of the @k-th (1-based) live element. */
static u32 npa_fw_kth(const struct npa_fenwick *f, u32 k)
{
	u32 pos = 0, step;

	for (step = f->top; step; step >>= 1) {
		if (pos + step <= f->n && f->t[pos + step] < k) {
			pos += step;
			k -= f->t[pos];
		}
	}
	return pos;
}

/**
 * npa_plan_verify() - check a plan independently of the planner
 * @bufs: buffers with their offsets; lifetimes are half-open [lo, hi)
 * @n: number of buffers
 * @peak: arena size the plan claims
 *
 * Checks that every buffer is valid (as npa_plan() requires), every offset
 * is aligned, every buffer ends at or below @peak, and no two buffers whose
 * lifetimes intersect overlap in address. Buffers of size 0 only need a
 * valid lifetime and alignment. O(n log n) time, O(n) memory.
 *
 * Context: Process context; may sleep.
 * Return: 0 if the plan is valid; -EINVAL for an invalid buffer or a
 * misaligned offset; -ERANGE if a buffer ends above @peak (or its end
 * overflows); -EEXIST if two live buffers overlap; -E2BIG; -ENOMEM.
 */
int npa_plan_verify(const struct npa_plan_buf *bufs, u32 n, u64 peak)
{
	struct npa_vrank *rank = NULL;
	struct npa_fenwick fw = { };
	struct npa_ev *ev = NULL;
	u32 *rank_of = NULL;
	u32 i, m = 0, nev = 0;
	int ret = 0;

	if (n > NPA_PLAN_MAX_BUFS)
		return -E2BIG;
	if (n && !bufs)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		const struct npa_plan_buf *b = &bufs[i];
		u64 align = b->align ? b->align : 1;
		u64 end;

		ret = npa_plan_check_buf(b);
		if (ret)
			return ret;
		if (b->offset & (align - 1))
			return -EINVAL;
		if (check_add_overflow(b->offset, b->size, &end) || end > peak)
			return -ERANGE;
		if (b->size)
			m++;
	}
	if (!m)
		return 0;

	rank = kvmalloc_array(m, sizeof(*rank), GFP_KERNEL_ACCOUNT);
	rank_of = kvmalloc_array(n, sizeof(*rank_of), GFP_KERNEL_ACCOUNT);
	ev = kvmalloc_array(m, 2 * sizeof(*ev), GFP_KERNEL_ACCOUNT);
	fw.t = kvcalloc((size_t)m + 1, sizeof(*fw.t), GFP_KERNEL_ACCOUNT);
	if (!rank || !rank_of || !ev || !fw.t) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (i = 0, m = 0; i < n; i++) {
		if (!bufs[i].size)
			continue;
		rank[m].off = bufs[i].offset;
		rank[m++].id = i;
		/* Events carry the buffer index in place of a size. */
		ev[nev].key = (u64)bufs[i].lo << 1 | 1;
		ev[nev++].size = i;
		ev[nev].key = (u64)bufs[i].hi << 1;
		ev[nev++].size = i;
	}
	sort(rank, m, sizeof(*rank), npa_vrank_cmp, NULL);
	for (i = 0; i < m; i++)
		rank_of[rank[i].id] = i;
	sort(ev, nev, sizeof(*ev), npa_ev_cmp, NULL);
	fw.n = m;
	fw.top = rounddown_pow_of_two(m);

	for (i = 0; i < nev; i++) {
		u32 id = ev[i].size, r = rank_of[id], below, live;
		const struct npa_plan_buf *b = &bufs[id];

		if (!(ev[i].key & 1)) {
			npa_fw_add(&fw, r, -1);
			continue;
		}
		below = npa_fw_count(&fw, r);
		live = npa_fw_count(&fw, m);
		if (below) {
			const struct npa_plan_buf *p =
				&bufs[rank[npa_fw_kth(&fw, below)].id];

			if (p->offset + p->size > b->offset) {
				ret = -EEXIST;
				break;
			}
		}
		if (below < live) {
			const struct npa_plan_buf *s =
				&bufs[rank[npa_fw_kth(&fw, below + 1)].id];

			if (s->offset < b->offset + b->size) {
				ret = -EEXIST;
				break;
			}
		}
		npa_fw_add(&fw, r, 1);
	}

out_free:
	kvfree(fw.t);
	kvfree(ev);
	kvfree(rank_of);
	kvfree(rank);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(npa_plan_verify);
