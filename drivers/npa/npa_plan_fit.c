// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (C) 2025 The npa authors
 */

/**
 * DOC: npa planner constructive plans
 *
 * A pass places the buffers one by one in a given order, each at the
 * lowest free address over its lifetime (first fit) or in the smallest gap
 * that holds it (best fit). The occupancy index behind both is a segment
 * tree over the sections: a placed buffer adds its address range to the
 * merged lists of the O(log n) nodes that tile its lifetime ("full") and
 * of their ancestors ("part"); the buffers live during a range are those
 * in the full lists of its tiling nodes and their ancestors and in the
 * part lists of its tiling nodes. O(n log n) memory.
 *
 * npa_fit_greedy() is greedy by size with best fit, the rule of TFLite's
 * planner and the baseline; npa_fit_orders() is first fit in a few metric
 * orders; npa_fit_local() a randomized local search over placement
 * orders, for the instances too large for the exact search.
 */

#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/types.h>

#include "npa_plan_int.h"

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

/* Leaves @t empty: npa_tree_init() and npa_fit_free() both call it. */
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
static int npa_tree_init(struct npa_pctx *c)
{
	struct npa_tree *t = &c->tree;
	u32 tile[NPA_PLAN_MAX_NODES], over[NPA_PLAN_MAX_NODES];
	u32 i, j, ntile, nover, leaves = max_t(u32, c->ns, 1);
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

static void npa_tree_clear(struct npa_pctx *c)
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

static void npa_tree_add(struct npa_pctx *c, u32 id, u64 off)
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
 * Could @times scans of npa_tree_skip() over the @nq lists of the last
 * query, their cursors only moving on, look at more than @most entries?
 * Each entry is moved past at most once and the lists are gone round at
 * most once more per move and per scan: (entries + 1) x (nq + 2) x @times
 * bounds it.
 */
static bool npa_tree_over(const struct npa_tree *t, u32 nq, u64 times,
			  u64 most)
{
	u64 cnt = 1;
	u32 i;

	if (most == U64_MAX)
		return false;
	for (i = 0; i < nq; i++)
		cnt += t->q[i]->cnt;
	return cnt * (nq + 2) * times > most;
}

/*
 * First fit: the lowest free address over the buffer's lifetime; U64_MAX
 * if it could look at more than @most list entries.
 */
static u64 npa_fit_lowest(struct npa_pctx *c, const struct npa_rect *r,
			  u64 most)
{
	u32 nq = npa_tree_query(&c->tree, r->a, r->b);

	if (npa_tree_over(&c->tree, nq, 1, most))
		return U64_MAX;
	return npa_tree_fit(&c->tree, nq, 0, r->size, r->amask);
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

static void npa_gaps_begin(struct npa_pctx *c, u32 a, u32 b,
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
static u64 npa_fit_best(struct npa_pctx *c, const struct npa_rect *r,
			u64 most)
{
	u64 lo, hi, best = U64_MAX, best_gap = U64_MAX;
	struct npa_gaps g;

	npa_gaps_begin(c, r->a, r->b, &g);
	/* A scan a gap, and at most one gap more than the entries. */
	if (npa_tree_over(g.t, g.n, 2, most))
		return U64_MAX;
	while (npa_gaps_next(&g, &lo, &hi)) {
		u64 x = (lo + r->amask) & ~r->amask;

		if (x + r->size <= hi && hi - lo < best_gap) {
			best_gap = hi - lo;
			best = x;
		}
	}
	return best != U64_MAX ? best : (g.prev + r->amask) & ~r->amask;
}

/*
 * Place the buffers of @order (all of them) from scratch, first fit or
 * best fit; each placement costs a unit and the list entries it looked at
 * another per NPA_PLAN_STEPS_PER_UNIT. A non-zero @cutoff stops the pass
 * once the peak reaches it (the plan cannot win); so does the end of the
 * budget once there is a plan: a placement that could look at more than
 * what is left does not start (c->out). A run spends at most its budget,
 * or the first pass when that is more; a larger budget only lets more
 * passes end. Returns true
 * when all buffers were placed; the plan is then in c->off, its peak in
 * c->peak.
 */
static bool npa_pass(struct npa_pctx *c, const u32 *order, bool bestfit,
		     u64 cutoff)
{
	u32 i;

	if (c->out)
		return false;
	npa_tree_clear(c);
	for (i = 0; i < c->m; i++) {
		const struct npa_rect *r = &c->r[order[i]];
		u64 off, most = U64_MAX;

		/*
		 * Once there is a plan, a placement starts only if what it
		 * may look at fits in what is left of the budget.
		 */
		if (c->best_peak != U64_MAX) {
			if (c->work >= c->budget)
				return false;
			most = npa_sat_add(npa_sat_mul(c->budget - c->work - 1,
						       NPA_PLAN_STEPS_PER_UNIT),
					   NPA_PLAN_STEPS_PER_UNIT - 1);
		}
		c->tree.steps = 0;
		off = bestfit ? npa_fit_best(c, r, most) :
			npa_fit_lowest(c, r, most);
		if (off == U64_MAX) {
			c->out = true;
			return false;
		}
		npa_tree_add(c, order[i], off);
		if (!npa_plan_spend(c, 1 + c->tree.steps / NPA_PLAN_STEPS_PER_UNIT) &&
		    (c->err || c->best_peak != U64_MAX))
			return false;
		if (cutoff && c->peak >= cutoff)
			return false;
	}
	return true;
}

/*
 * Forget what was placed over sections [@a, @b): clear every node of the
 * index that meets them, so that the buffers living only there can be
 * placed again (npa_fit_put()) whatever the index held.
 */
void npa_fit_forget(struct npa_pctx *c, u32 a, u32 b)
{
	struct npa_tree *t = &c->tree;
	u32 l, r, x;

	for (l = a + t->size, r = b - 1 + t->size; l; l >>= 1, r >>= 1)
		for (x = l; x <= r; x++) {
			t->full[x].cnt = 0;
			t->part[x].cnt = 0;
		}
}

/*
 * Put buffer @id at @off in the index, or, with @off U64_MAX, at its
 * lowest free address (first fit; t->steps counts the list entries looked
 * at). Returns the offset; c->off[@id] gets it too.
 */
u64 npa_fit_put(struct npa_pctx *c, u32 id, u64 off)
{
	return npa_fit_put_within(c, id, off, U64_MAX);
}

/*
 * As npa_fit_put(), but a first-fit placement that could look at more
 * than @most list entries does not start: U64_MAX, nothing placed.
 */
u64 npa_fit_put_within(struct npa_pctx *c, u32 id, u64 off, u64 most)
{
	if (off == U64_MAX)
		off = npa_fit_lowest(c, &c->r[id], most);
	if (off != U64_MAX)
		npa_tree_add(c, id, off);
	return off;
}

/* ---------------------------------------------------------------------- */
/* Orders */

/*
 * The orders of the first-fit passes: each gave the lowest first-fit plan
 * on some of the real traces (tools/bench/data/traces) or the MiniMalloc
 * instances; size, lifetime length and area alone never did.
 */
enum npa_metric {
	NPA_METRIC_SIZE_PRESSURE, /* size x (max live bytes / bound)^8 */
	NPA_METRIC_PRESSURE,	/* max live bytes over the lifetime, size */
	NPA_METRIC_SIZE_LOGLEN,	/* size x log2(lifetime length + 1) */
	NPA_METRIC_OVERLAP,	/* live bytes summed over the lifetime */
	NPA_METRIC_COUNT,
};

/* Leaves @p empty: npa_profile_build() and npa_fit_free() both call it. */
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
static int npa_profile_build(struct npa_pctx *c, struct npa_profile *p)
{
	u32 i, leaves = c->ns;
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
static u64 npa_pressure8(const struct npa_pctx *c, u32 id)
{
	u64 load = npa_profile_max(&c->prof, c->r[id].a, c->r[id].b);
	u64 q = min_t(u64, div64_u64(load, max_t(u64, c->lb >> 16, 1)),
		      1 << 16);

	q = q * q >> 16;
	q = q * q >> 16;
	return q * q >> 16;
}

/* The two sort keys (both descending) of rect @id under @metric. */
static void npa_metric_keys(const struct npa_pctx *c, u32 metric, u32 id,
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
	case NPA_METRIC_PRESSURE:
		*k1 = npa_profile_max(p, r->a, r->b);
		break;
	default:
		*k1 = p->psum[r->b] - p->psum[r->a];
		break;
	}
}

/* All rects in the order of @metric; uses c->keys. */
static void npa_order_metric(struct npa_pctx *c, u32 metric, u32 *order)
{
	struct npa_key *keys = c->keys;
	u32 i;

	for (i = 0; i < c->m; i++) {
		npa_metric_keys(c, metric, i, &keys[i].k1, &keys[i].k2);
		keys[i].id = i;
	}
	npa_plan_order_by_keys(keys, c->m, order);
}

/* Greedy-by-size order: size descending, then caller's index (stable). */
static void npa_order_greedy(struct npa_pctx *c, u32 *order)
{
	struct npa_key *keys = c->keys;
	u32 i;

	for (i = 0; i < c->m; i++) {
		keys[i].k1 = c->r[i].size;
		keys[i].k2 = 0;
		keys[i].id = i;	/* rect ids follow the caller's order */
	}
	npa_plan_order_by_keys(keys, c->m, order);
}

/*
 * The rects of the best plan by offset: first fit in that order puts each
 * at or below its offset there (every rect before it that lives at the
 * same time lies below it), so it gives that plan or a better one.
 */
static void npa_order_by_best(struct npa_pctx *c, u32 *order)
{
	struct npa_key *keys = c->keys;
	u32 i;

	for (i = 0; i < c->m; i++) {
		keys[i].k1 = U64_MAX - c->best_off[i];
		keys[i].k2 = c->r[i].size;
		keys[i].id = i;
	}
	npa_plan_order_by_keys(keys, c->m, order);
}

/* ---------------------------------------------------------------------- */
/* Plans */

/*
 * The baseline: greedy by size, best fit; it stops as soon as it cannot
 * beat the best plan so far, and does not start when that is at the
 * bound (c->greedy_peak then stays 0).
 */
void npa_fit_greedy(struct npa_pctx *c)
{
	if (c->best_peak <= c->lb)
		return;
	npa_order_greedy(c, c->order);
	if (!npa_pass(c, c->order, true, npa_plan_cutoff(c)))
		return;
	c->greedy_peak = c->peak;
	npa_plan_keep(c, c->off, c->peak, NPA_PLAN_ALGO_GREEDY);
}

/* First fit in each metric order. */
void npa_fit_orders(struct npa_pctx *c)
{
	u32 metric;

	for (metric = 0; metric < NPA_METRIC_COUNT; metric++) {
		u64 work = c->work;

		if (c->best_peak <= c->lb)
			break;
		npa_order_metric(c, metric, c->order);
		if (!npa_pass(c, c->order, false, npa_plan_cutoff(c)))
			continue;
		c->pass_units = max(c->pass_units, c->work - work);
		if (npa_plan_keep(c, c->off, c->peak, NPA_PLAN_ALGO_ORDER))
			memcpy(c->best_order, c->order, c->m * sizeof(*c->order));
	}
}

/* splitmix64: the local search's own PRNG, so plans are reproducible. */
static u32 npa_rand_below(struct npa_pctx *c, u32 n)
{
	u64 z = c->rng += 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (u32)(((z >> 32) * n) >> 32);
}

/* Move @order[from] to position @to, shifting the ones between. */
static void npa_move(u32 *order, u32 from, u32 to)
{
	u32 x = order[from];

	if (from < to)
		memmove(order + from, order + from + 1, (to - from) * sizeof(*order));
	else
		memmove(order + to + 1, order + to, (from - to) * sizeof(*order));
	order[to] = x;
}

/*
 * Randomized local search over placement orders, from the best plan so
 * far, within @budget units: move a rect that ends above the bound to an
 * earlier place (or to the front), swap or move two at random, and keep
 * the new order if its first-fit plan is no worse (peak, then the area
 * above the bound); after a long stall restart from the best order with a
 * few random swaps. Anytime: the best plan only improves as it runs.
 */
int npa_fit_local(struct npa_pctx *c, u64 budget)
{
	u64 cur_peak, cur_ex, stall = 0, stall_max = 64 + 4ULL * c->m;
	u64 end = c->work + budget, *cur;
	u32 m = c->m, i, *best = c->best_order;

	/* Not even one pass would end within the budget. */
	if (m < 2 || budget < c->pass_units)
		return 0;
	cur = kvmalloc_array(m, sizeof(*cur), GFP_KERNEL_ACCOUNT);
	if (!cur)
		return -ENOMEM;
	if (c->best_algo == NPA_PLAN_ALGO_ORDER) {
		/* First fit in that order gives the best plan again. */
		memcpy(c->order, best, m * sizeof(*best));
		memcpy(cur, c->best_off, m * sizeof(*cur));
		cur_peak = c->best_peak;
		cur_ex = c->best_ex;
	} else {
		npa_order_by_best(c, c->order);
		if (!npa_pass(c, c->order, false, 0))
			goto out;
		memcpy(best, c->order, m * sizeof(*best));
		memcpy(cur, c->off, m * sizeof(*cur));
		cur_peak = c->peak;
		cur_ex = npa_plan_excess(c, c->off);
		npa_plan_keep(c, c->off, cur_peak, NPA_PLAN_ALGO_SEARCH);
	}

	while (c->best_peak > c->lb && c->work < end && !c->err && !c->out) {
		u32 kind = npa_rand_below(c, 4), a, b;
		u64 peak, ex;

		memcpy(c->cand, c->order, m * sizeof(*c->cand));
		if (kind < 2) {
			/* A rect above the bound, earlier in the order. */
			u32 start = npa_rand_below(c, m);

			for (i = 0; i < m; i++) {
				a = (start + i) % m;
				if (cur[c->cand[a]] + c->r[c->cand[a]].size > c->lb)
					break;
			}
			b = kind ? 0 : npa_rand_below(c, a + 1);
			npa_move(c->cand, a, b);
		} else {
			a = npa_rand_below(c, m);
			b = npa_rand_below(c, m);
			if (kind == 2)
				swap(c->cand[a], c->cand[b]);
			else
				npa_move(c->cand, a, b);
		}
		if (!npa_pass(c, c->cand, false, cur_peak + 1)) {
			stall++;
		} else {
			peak = c->peak;
			ex = npa_plan_excess(c, c->off);
			if (npa_plan_keep(c, c->off, peak, NPA_PLAN_ALGO_SEARCH))
				memcpy(best, c->cand, m * sizeof(*best));
			stall = peak < cur_peak || ex < cur_ex ? 0 : stall + 1;
			if (peak < cur_peak || (peak == cur_peak && ex <= cur_ex)) {
				cur_peak = peak;
				cur_ex = ex;
				swap(c->order, c->cand);
				memcpy(cur, c->off, m * sizeof(*cur));
			}
		}
		if (stall > stall_max) {
			/* Restart: the best order with a few random swaps. */
			memcpy(c->order, best, m * sizeof(*c->order));
			for (i = 0; i < 1 + npa_rand_below(c, 4); i++) {
				a = npa_rand_below(c, m);
				b = npa_rand_below(c, m);
				swap(c->order[a], c->order[b]);
			}
			if (!npa_pass(c, c->order, false, 0))
				break;
			cur_peak = c->peak;
			cur_ex = npa_plan_excess(c, c->off);
			memcpy(cur, c->off, m * sizeof(*cur));
			stall = 0;
		}
	}
out:
	kvfree(cur);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Setup */

int npa_fit_init(struct npa_pctx *c)
{
	if (npa_tree_init(c) || npa_profile_build(c, &c->prof)) {
		npa_fit_free(c);
		return -ENOMEM;
	}
	return 0;
}

void npa_fit_free(struct npa_pctx *c)
{
	npa_tree_free(&c->tree);
	npa_profile_free(&c->prof);
}
