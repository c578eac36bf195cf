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
 * is O(n); there is never an n x n conflict matrix.
 *
 * npa_plan() runs, within a work budget counted in placements:
 *
 * 1. the max-load lower bound by a sweep over lifetimes;
 * 2. greedy by size with best-fit gaps (the TFLite rule), the baseline;
 * 3. first fit (lowest free address) in several metric orders;
 * 4. peak suppression: classify buffers by risk against the lower bound,
 *    group the risky ones by time overlap, reorder and re-place them first;
 * 5. a randomized local search over placement orders, for instances that
 *    are tightly packed;
 *
 * and returns the best plan seen, stopping early when it meets the lower
 * bound. The result is deterministic for a given input and budget (own
 * PRNG, fixed seed); the wall-clock cap is a safety net only.
 *
 * npa_plan_verify() is an independent O(n log n) sweep that checks a plan.
 */

#include <linux/align.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/types.h>

#include "npa_plan.h"

#if defined(DEBUG) || defined(CONFIG_NPA_DEBUG)
#define NPA_PLAN_SELFCHECK	1
#else
#define NPA_PLAN_SELFCHECK	0
#endif

/* Placements between wall-clock checks and cond_resched() calls. */
#define NPA_PLAN_CHECK_EVERY	1024

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
};

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
	u64 t0, cap_ns;
	bool out_of_time;

	u64 *best_off;		/* per rect */
	u64 best_peak;
	u32 best_algo;
	bool have_best;
	u64 greedy_peak;

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
 * Context: Process context; may sleep (allocates with GFP_KERNEL).
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
	ev = kvmalloc_array(n, 2 * sizeof(*ev), GFP_KERNEL);
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

static void npa_tree_free(struct npa_tree *t)
{
	kvfree(t->full);
	kvfree(t->part);
	kvfree(t->pool);
}

/* Size every list for the most ranges it can ever hold, in one pool. */
static int npa_tree_init(struct npa_ctx *c)
{
	struct npa_tree *t = &c->tree;
	u32 tile[NPA_PLAN_MAX_NODES], over[NPA_PLAN_MAX_NODES];
	u32 i, j, ntile, nover, leaves = max_t(u32, c->nt - 1, 1);
	u64 total = 0;

	t->size = roundup_pow_of_two(leaves);
	t->full = kvcalloc(2 * (size_t)t->size, sizeof(*t->full), GFP_KERNEL);
	t->part = kvcalloc(2 * (size_t)t->size, sizeof(*t->part), GFP_KERNEL);
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
				 GFP_KERNEL);
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

/* Lowest aligned x >= @x with [x, x + size) clear of the ranges of @l. */
static u64 npa_list_fit(const struct npa_iv *pool, const struct npa_list *l,
			u64 x, u64 size, u64 amask)
{
	const struct npa_iv *v = pool + l->base;
	u32 i = npa_list_after(v, l->cnt, x);

	for (;;) {
		x = (x + amask) & ~amask;
		while (i < l->cnt && v[i].end <= x)
			i++;
		if (i == l->cnt || v[i].off >= x + size)
			return x;
		x = v[i++].end;
	}
}

/* Lowest aligned x >= @x clear of all @nq lists of the last query. */
static u64 npa_tree_fit(const struct npa_tree *t, u32 nq, u64 x, u64 size,
			u64 amask)
{
	u32 i = 0, ok = 0;

	x = (x + amask) & ~amask;
	while (ok < nq) {
		u64 y = npa_list_fit(t->pool, t->q[i], x, size, amask);

		if (y != x) {
			x = y;
			ok = 1;
		} else {
			ok++;
		}
		if (++i == nq)
			i = 0;
	}
	return x;
}

/* Start of the first range above the free address @x, or U64_MAX. */
static u64 npa_tree_next_used(const struct npa_tree *t, u32 nq, u64 x)
{
	u64 next = U64_MAX;
	u32 i;

	for (i = 0; i < nq; i++) {
		const struct npa_list *l = t->q[i];
		const struct npa_iv *v = t->pool + l->base;
		u32 j = npa_list_after(v, l->cnt, x);

		if (j < l->cnt)
			next = min(next, v[j].off);
	}
	return next;
}

/* First fit: the lowest free address, as the peak-suppression rule asks. */
static u64 npa_fit_lowest(struct npa_ctx *c, const struct npa_rect *r)
{
	u32 nq = npa_tree_query(&c->tree, r->a, r->b);

	return npa_tree_fit(&c->tree, nq, 0, r->size, r->amask);
}

/*
 * TFLite's best fit: among the gaps between the live buffers (in address
 * order), the smallest that holds the buffer; else on top of them.
 */
static u64 npa_fit_best(struct npa_ctx *c, const struct npa_rect *r)
{
	const struct npa_tree *t = &c->tree;
	u32 nq = npa_tree_query(&c->tree, r->a, r->b);
	u64 x, best = U64_MAX, best_gap = U64_MAX;

	x = npa_tree_fit(t, nq, 0, 1, 0);
	for (;;) {
		u64 next = npa_tree_next_used(t, nq, x);
		u64 y = (x + r->amask) & ~r->amask;

		if (next == U64_MAX)
			break;
		if (y <= next && next - y >= r->size && next - x < best_gap) {
			best_gap = next - x;
			best = y;
		}
		x = npa_tree_fit(t, nq, next, 1, 0);
	}
	return best != U64_MAX ? best : (x + r->amask) & ~r->amask;
}

/* ---------------------------------------------------------------------- */
/* Budget */

/* True when the wall-clock safety net has been hit. */
static bool npa_time_check(struct npa_ctx *c)
{
	cond_resched();
	if (!c->out_of_time && ktime_get_ns() - c->t0 > c->cap_ns)
		c->out_of_time = true;
	return c->out_of_time;
}

/* May another pass of @cost placements start? */
static bool npa_can_spend(struct npa_ctx *c, u64 cost)
{
	return !c->out_of_time && c->work + cost <= c->budget;
}

/*
 * Place the buffers of @order (all of them) from scratch. A non-zero
 * @cutoff stops the pass early once the peak reaches it (the plan cannot
 * win) or when the wall-clock cap is hit. Returns true when all buffers
 * were placed; the peak is then in c->peak.
 */
static bool npa_pass(struct npa_ctx *c, const u32 *order, bool bestfit,
		    u64 cutoff)
{
	u32 i;

	npa_tree_clear(c);
	for (i = 0; i < c->m; i++) {
		const struct npa_rect *r = &c->r[order[i]];
		u64 off;

		if (bestfit)
			off = npa_fit_best(c, r);
		else
			off = npa_fit_lowest(c, r);
		npa_tree_add(c, order[i], off);
		c->work++;
		if (cutoff && c->peak >= cutoff)
			return false;
		if (!(c->work % NPA_PLAN_CHECK_EVERY) && npa_time_check(c) &&
		    cutoff)
			return false;
	}
	return true;
}

/* Keep the placement in the index if it beats the best so far. */
static bool npa_keep(struct npa_ctx *c, u32 algo)
{
	u64 peak = c->peak;

	if (c->have_best && peak >= c->best_peak)
		return false;
	memcpy(c->best_off, c->off, c->m * sizeof(*c->off));
	c->best_peak = peak;
	c->best_algo = algo;
	c->have_best = true;
	return true;
}

/* ---------------------------------------------------------------------- */
/* Orders */

struct npa_key {
	u64 k1, k2;
	u32 id;
};

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

enum npa_metric {
	NPA_METRIC_SIZE,	/* size, then lifetime length */
	NPA_METRIC_PRESSURE,	/* max live bytes over the lifetime, size */
	NPA_METRIC_AREA,	/* size x lifetime length */
	NPA_METRIC_LENGTH,	/* lifetime length, then size */
	NPA_METRIC_OVERLAP,	/* live bytes summed over the lifetime */
	NPA_METRIC_COUNT,
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

struct npa_profile {
	u32 size;
	u64 *tree;
	u64 *psum;
};

static void npa_profile_free(struct npa_profile *p)
{
	kvfree(p->tree);
	kvfree(p->psum);
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
	p->tree = kvcalloc(2 * (size_t)p->size, sizeof(*p->tree), GFP_KERNEL);
	p->psum = kvcalloc((size_t)p->size + 1, sizeof(*p->psum), GFP_KERNEL);
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

static int npa_order_metric(struct npa_ctx *c, const struct npa_profile *p,
			    enum npa_metric metric, u32 *order)
{
	struct npa_key *keys;
	u32 i;

	keys = kvmalloc_array(c->m, sizeof(*keys), GFP_KERNEL);
	if (!keys)
		return -ENOMEM;
	for (i = 0; i < c->m; i++) {
		const struct npa_rect *r = &c->r[i];
		u64 len = r->hi - r->lo;
		u32 a = r->a, b = r->b;

		keys[i].id = i;
		switch (metric) {
		case NPA_METRIC_SIZE:
			keys[i].k1 = r->size;
			keys[i].k2 = len;
			break;
		case NPA_METRIC_PRESSURE:
			keys[i].k1 = npa_profile_max(p, a, b);
			keys[i].k2 = r->size;
			break;
		case NPA_METRIC_AREA:
			keys[i].k1 = npa_sat_mul(r->size, len);
			keys[i].k2 = r->size;
			break;
		case NPA_METRIC_LENGTH:
			keys[i].k1 = len;
			keys[i].k2 = r->size;
			break;
		default:
			keys[i].k1 = p->psum[b] - p->psum[a];
			keys[i].k2 = r->size;
			break;
		}
	}
	npa_order_by_keys(keys, c->m, order);
	kvfree(keys);
	return 0;
}

/* Greedy-by-size order: size descending, then caller's index (stable). */
static int npa_order_greedy(struct npa_ctx *c, u32 *order)
{
	struct npa_key *keys;
	u32 i;

	keys = kvmalloc_array(c->m, sizeof(*keys), GFP_KERNEL);
	if (!keys)
		return -ENOMEM;
	for (i = 0; i < c->m; i++) {
		keys[i].k1 = c->r[i].size;
		keys[i].k2 = 0;
		keys[i].id = i;	/* rect ids follow the caller's order */
	}
	npa_order_by_keys(keys, c->m, order);
	kvfree(keys);
	return 0;
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
}

static int npa_ctx_init(struct npa_ctx *c, const struct npa_plan_buf *bufs,
			u32 n, u32 m)
{
	struct npa_ev *ev;
	u32 i, j;

	memset(c, 0, sizeof(*c));
	c->m = m;
	c->best_peak = U64_MAX;
	c->r = kvmalloc_array(m, sizeof(*c->r), GFP_KERNEL);
	c->t = kvmalloc_array(m, 2 * sizeof(*c->t), GFP_KERNEL);
	c->off = kvcalloc(m, sizeof(*c->off), GFP_KERNEL);
	c->best_off = kvcalloc(m, sizeof(*c->best_off), GFP_KERNEL);
	if (!c->r || !c->t || !c->off || !c->best_off)
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
	if (npa_tree_init(c))
		goto err_free;

	/* The lower bound of the non-zero buffers. */
	ev = kvmalloc_array(m, 2 * sizeof(*ev), GFP_KERNEL);
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

static int npa_run_greedy(struct npa_ctx *c, u32 *order)
{
	int ret;

	ret = npa_order_greedy(c, order);
	if (ret)
		return ret;
	npa_pass(c, order, true, 0);
	c->greedy_peak = c->peak;
	npa_keep(c, NPA_PLAN_ALGO_GREEDY);
	return 0;
}

static int npa_run_orders(struct npa_ctx *c, const struct npa_profile *p,
			  u32 *order)
{
	u32 metric;
	int ret;

	for (metric = 0; metric < NPA_METRIC_COUNT; metric++) {
		if (c->best_peak <= c->lb || !npa_can_spend(c, c->m))
			break;
		ret = npa_order_metric(c, p, metric, order);
		if (ret)
			return ret;
		if (npa_pass(c, order, false, c->best_peak))
			npa_keep(c, NPA_PLAN_ALGO_ORDER);
	}
	return 0;
}

static u64 npa_default_budget(const struct npa_ctx *c)
{
	return max_t(u64, 64ULL * c->m, 1ULL << 20);
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
			struct npa_plan_result *res, bool greedy_only)
{
	struct npa_plan_result local;
	struct npa_profile prof;
	struct npa_ctx c;
	u64 t0 = ktime_get_ns(), naive;
	u32 *order, m;
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
	ret = npa_ctx_init(&c, bufs, n, m);
	if (ret)
		return ret;
	c.t0 = t0;
	c.cap_ns = p && p->time_cap_ns ? p->time_cap_ns :
		NPA_PLAN_DEFAULT_TIME_CAP_NS;
	c.budget = p && p->budget ? p->budget : npa_default_budget(&c);
	c.rng = 0x9e3779b97f4a7c15ULL;

	order = kvmalloc_array(m, sizeof(*order), GFP_KERNEL);
	if (!order) {
		ret = -ENOMEM;
		goto err_free_ctx;
	}
	ret = npa_run_greedy(&c, order);
	if (ret || greedy_only)
		goto out;

	ret = npa_profile_build(&c, &prof);
	if (ret)
		goto err_free_order;
	ret = npa_run_orders(&c, &prof, order);
	npa_profile_free(&prof);
	if (ret)
		goto err_free_order;
out:
	if (!ret) {
		npa_ctx_output(&c, bufs, n);
		npa_result_fill(&c, res, naive);
		if (NPA_PLAN_SELFCHECK)
			WARN_ON_ONCE(npa_plan_verify(bufs, n, res->peak));
	}
err_free_order:
	kvfree(order);
err_free_ctx:
	npa_ctx_free(&c);
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
 * Context: Process context; may sleep (allocates with GFP_KERNEL, calls
 * cond_resched()). No locking: the caller owns @bufs.
 * Return: 0 on success; -EINVAL for a bad lifetime (hi <= lo), alignment
 * or flags; -EOVERFLOW if the sizes (plus alignment slack) overflow u64;
 * -E2BIG if @n is too large; -ENOMEM.
 */
int npa_plan(struct npa_plan_buf *bufs, u32 n, const struct npa_plan_params *p,
	     struct npa_plan_result *res)
{
	return npa_plan_run(bufs, n, p, res, false);
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
	return npa_plan_run(bufs, n, NULL, res, true);
}

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

	rank = kvmalloc_array(m, sizeof(*rank), GFP_KERNEL);
	rank_of = kvmalloc_array(n, sizeof(*rank_of), GFP_KERNEL);
	ev = kvmalloc_array(m, 2 * sizeof(*ev), GFP_KERNEL);
	fw.t = kvcalloc((size_t)m + 1, sizeof(*fw.t), GFP_KERNEL);
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
