// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (C) 2025 The npa authors
 */

/**
 * DOC: npa planner, merged buffers
 *
 * Where an arena is packed tight, the bytes that stop being live at a
 * step are taken again by the buffers that start there: some buffers that
 * end at the step and some that start there fill the same addresses, and
 * their sizes add up to the same sum. Sizes are fine-grained, so equal
 * sums rarely happen by chance, and a match is a strong hint of how a
 * tight plan goes. This file merges buffers along such matches into
 * larger ones and plans the smaller instance they make:
 *
 * * a *group* is the buffers of one lifetime; stacked one on top of the
 *   other, they act as one buffer of that lifetime;
 * * a *match* at section bound c is a subset X of a group of lifetime
 *   [l, c) and a subset Y of a group of lifetime [c, h) with the same sum
 *   of sizes: X stacked before c and Y stacked after it make one buffer
 *   of lifetime [l, h), which joins that group;
 * * of the subsets of a pair of groups (at most NPA_MERGE_SIDE buffers
 *   each, found by meet in the middle: all sums of one side, sorted, and
 *   each sum of the other looked up) the match with the fewest buffers
 *   is taken; the bounds are visited from a work list until no pair of
 *   groups matches;
 * * then each group is stacked into one buffer, and the instance of those
 *   is planned by npa_plan()'s strategies (not merged again).
 *
 * Any plan of the merged buffers is a plan of the buffers, of the same
 * peak: the members of a stack do not overlap, X and Y do not live at
 * the same time, and each takes its place in its merged buffer. Whether
 * it is a good one depends on the matches: the plan is kept only if it
 * is better than the others (npa_plan.c). A buffer takes part only if
 * its size is a multiple of its alignment; a stack puts the most aligned
 * first, at an offset aligned to the largest alignment, so each member
 * stays aligned.
 *
 * Work: a visit of a bound looks at most at NPA_MERGE_PAIRS pairs of
 * groups; its lists and sorts and each pair's sums are charged to the
 * budget, and none starts that could end past the merge's share.
 * Memory: O(n) and 2 x 2^NPA_MERGE_SIDE sums.
 */

#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/types.h>

#include "npa_plan_int.h"

/* Most buffers of one side of a match: 2^NPA_MERGE_SIDE sums a side. */
#define NPA_MERGE_SIDE		12
/* Most pairs of groups a visit of a bound looks at. */
#define NPA_MERGE_PAIRS		256

/* A buffer, merged or not; items [0, m) are the planner's buffers. */
struct npa_mitem {
	u64 size, amask;
	u64 rel;		/* offset in @up */
	u32 a, b;		/* lifetime in sections */
	u32 up;			/* the merged buffer it is in, or U32_MAX */
	u32 snext, enext;	/* lists of the items by start, by end */
};

/* A subset sum of one side of a pair of groups. */
struct npa_msum {
	u64 sum;
	u32 mask, w;		/* the subset, and how many it holds */
};

struct npa_merge {
	struct npa_pctx *c;
	struct npa_mitem *it;
	u32 n, cap;		/* items, room for them */
	u32 *shead, *ehead;	/* ns + 1: lists of the items by start, end */
	u32 *ends, *starts;	/* scratch of a visit */
	u32 *ge, *gs;		/* scratch of a visit: where their groups start */
	u32 *work, nwork;	/* bounds to visit, a stack */
	u8 *queued;		/* ns + 1 */
	struct npa_msum *s1, *s2;
	u64 steps, room;	/* steps taken, and allowed */
	u64 spent;		/* of @steps, charged as units already */
	bool out;		/* something did not fit in @room, or a stop */
};

/* Charge the whole units of the steps taken; false on a safety stop. */
static bool npa_merge_charge(struct npa_merge *g)
{
	u64 units = (g->steps - g->spent) / NPA_PLAN_STEPS_PER_UNIT;

	g->spent += units * NPA_PLAN_STEPS_PER_UNIT;
	npa_plan_spend(g->c, units);
	if (g->c->err)
		g->out = true;
	return !g->out;
}

/* Is there room for @steps more steps? If not, the merges stop. */
static bool npa_merge_room(struct npa_merge *g, u64 steps)
{
	return npa_plan_room(&g->out, g->steps, g->room, steps);
}

static bool npa_merge_alive(const struct npa_mitem *x)
{
	return x->up == U32_MAX && !(x->size & x->amask);
}

/* Sort key: by the other bound, then most aligned first, then index. */
static int npa_merge_cmp(const void *pa, const void *pb, const void *priv)
{
	const struct npa_mitem *it = priv;
	const struct npa_mitem *x = &it[*(const u32 *)pa];
	const struct npa_mitem *y = &it[*(const u32 *)pb];
	u32 kx = x->a, ky = y->a;

	if (kx == ky) {
		kx = x->b;
		ky = y->b;
	}
	if (kx != ky)
		return kx < ky ? -1 : 1;
	if (x->amask != y->amask)
		return x->amask > y->amask ? -1 : 1;
	return *(const u32 *)pa < *(const u32 *)pb ? -1 : 1;
}

static void npa_merge_sort(struct npa_merge *g, u32 *ids, u32 n)
{
	sort_r(ids, n, sizeof(*ids), npa_merge_cmp, NULL, g->it);
	g->steps += (u64)n * (ilog2(n + 1) + 1);
}

static int npa_msum_cmp(const void *pa, const void *pb)
{
	const struct npa_msum *x = pa, *y = pb;

	if (x->sum != y->sum)
		return x->sum < y->sum ? -1 : 1;
	if (x->w != y->w)
		return x->w < y->w ? -1 : 1;
	return x->mask < y->mask ? -1 : x->mask > y->mask;
}

/* The sums of the subsets of @ids[0, @n) in @s, in the order of masks. */
static u32 npa_merge_sums(struct npa_merge *g, const u32 *ids, u32 n,
			  struct npa_msum *s)
{
	u32 mask, k;

	s[0] = (struct npa_msum){ 0, 0, 0 };
	for (mask = 1; mask < (1U << n); mask++) {
		k = __ffs64(mask);
		s[mask].sum = s[mask & (mask - 1)].sum + g->it[ids[k]].size;
		s[mask].mask = mask;
		s[mask].w = s[mask & (mask - 1)].w + 1;
	}
	g->steps += 1U << n;
	return 1U << n;
}

/* Stack items @ids[0, @n) (most aligned first) into item @z. */
static void npa_merge_stack(struct npa_merge *g, const u32 *ids, u32 n, u32 z)
{
	u64 rel = 0;
	u32 k;

	for (k = 0; k < n; k++) {
		struct npa_mitem *x = &g->it[ids[k]];

		x->up = z;
		x->rel = rel;
		rel += x->size;
		g->it[z].amask = max(g->it[z].amask, x->amask);
	}
	g->it[z].size = rel;
}

/* A new item of lifetime [@a, @b) on the lists; returns it. */
static u32 npa_merge_new(struct npa_merge *g, u32 a, u32 b)
{
	u32 z = g->n++;

	g->it[z] = (struct npa_mitem){ .a = a, .b = b, .up = U32_MAX };
	g->it[z].snext = g->shead[a];
	g->shead[a] = z;
	g->it[z].enext = g->ehead[b];
	g->ehead[b] = z;
	return z;
}

static void npa_merge_queue(struct npa_merge *g, u32 x)
{
	if (x && x < g->c->ns && !g->queued[x]) {
		g->queued[x] = 1;
		g->work[g->nwork++] = x;
	}
}

/*
 * The pair of groups @e[0, @ne) (ending at the bound) and @s[0, @ns)
 * (starting there): merge their match with the fewest buffers, if any.
 */
static bool npa_merge_pair(struct npa_merge *g, const u32 *e, u32 ne,
			   const u32 *s, u32 ns)
{
	u32 n1 = npa_merge_sums(g, e, ne, g->s1);
	u32 n2 = npa_merge_sums(g, s, ns, g->s2);
	u32 i, lo, hi, best = U32_MAX, m1 = 0, m2 = 0, x[NPA_MERGE_SIDE];
	u32 nx = 0, k, z, w;

	sort(g->s2 + 1, n2 - 1, sizeof(*g->s2), npa_msum_cmp, NULL);
	g->steps += (u64)n2 * ns;
	for (i = 1; i < n1; i++) {
		lo = 1;
		hi = n2;
		while (lo < hi) {
			u32 mid = lo + (hi - lo) / 2;

			if (g->s2[mid].sum < g->s1[i].sum)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* The first of a sum has the fewest buffers. */
		w = g->s1[i].w + g->s2[lo < n2 ? lo : 0].w;
		if (lo < n2 && g->s2[lo].sum == g->s1[i].sum && w < best) {
			best = w;
			m1 = i;
			m2 = g->s2[lo].mask;
		}
		g->steps += ns;
	}
	if (!m1)
		return false;
	z = npa_merge_new(g, g->it[e[0]].a, g->it[s[0]].b);
	for (k = 0; k < ne; k++)
		if (m1 & BIT(k))
			x[nx++] = e[k];
	npa_merge_stack(g, x, nx, z);
	for (k = 0, nx = 0; k < ns; k++)
		if (m2 & BIT(k))
			x[nx++] = s[k];
	/* Both halves start at the merged buffer's offset. */
	npa_merge_stack(g, x, nx, z);
	npa_merge_queue(g, g->it[z].a);
	npa_merge_queue(g, g->it[z].b);
	return true;
}

/* The live items of list @head (by start or by end) in @out. */
static u32 npa_merge_list(struct npa_merge *g, u32 head, bool by_start,
			  u32 *out)
{
	u32 n = 0, x;

	for (x = head; x != U32_MAX;
	     x = by_start ? g->it[x].snext : g->it[x].enext) {
		g->steps++;
		if (npa_merge_alive(&g->it[x]))
			out[n++] = x;
	}
	return n;
}

/*
 * The groups of the sorted items @ids[0, @n) (runs of one start, or with
 * @by_end one end): their first indices in @out, and @n after the last.
 * Returns how many.
 */
static u32 npa_merge_bounds(struct npa_merge *g, const u32 *ids, u32 n,
			    bool by_end, u32 *out)
{
	u32 k, ng = 0;

	for (k = 0; k < n; k++)
		if (!k || (by_end ? g->it[ids[k]].b != g->it[ids[k - 1]].b :
				    g->it[ids[k]].a != g->it[ids[k - 1]].a))
			out[ng++] = k;
	out[ng] = n;
	g->steps += n;
	return ng;
}

/* Visit bound @x: merge matches there until no pair of groups has one. */
static void npa_merge_visit(struct npa_merge *g, u32 x)
{
	u32 ne, ns, nge, ngs, i, j, pairs;
	bool again = true;

	while (again) {
		again = false;
		/* The lists and their sorts look at each item a few times. */
		if (!npa_merge_room(g, 2 * (u64)g->n * (ilog2(g->n) + 3)))
			return;
		ne = npa_merge_list(g, g->ehead[x], false, g->ends);
		ns = npa_merge_list(g, g->shead[x], true, g->starts);
		if (!ne || !ns)
			return;
		npa_merge_sort(g, g->ends, ne);
		npa_merge_sort(g, g->starts, ns);
		/* Where each group starts, and each group's end, once. */
		nge = npa_merge_bounds(g, g->ends, ne, false, g->ge);
		ngs = npa_merge_bounds(g, g->starts, ns, true, g->gs);
		pairs = 0;
		for (i = 0; i < nge && !again; i++) {
			u32 e0 = g->ge[i], e1 = g->ge[i + 1];

			if (e1 - e0 > NPA_MERGE_SIDE)
				continue;
			for (j = 0; j < ngs && !again; j++) {
				u32 s0 = g->gs[j], s1 = g->gs[j + 1];

				if (++pairs > NPA_MERGE_PAIRS)
					return;
				if (s1 - s0 > NPA_MERGE_SIDE)
					continue;
				if (!npa_merge_room(g, ((1ULL << (e1 - e0)) +
							(1ULL << (s1 - s0))) *
						       (s1 - s0 + 2)))
					return;
				again = npa_merge_pair(g, g->ends + e0, e1 - e0,
						       g->starts + s0, s1 - s0);
				if (!npa_merge_charge(g))
					return;
			}
		}
	}
}

static void npa_merge_free(struct npa_merge *g)
{
	kvfree(g->it);
	kvfree(g->shead);
	kvfree(g->ehead);
	kvfree(g->ends);
	kvfree(g->starts);
	kvfree(g->ge);
	kvfree(g->gs);
	kvfree(g->work);
	kvfree(g->queued);
	kvfree(g->s1);
	kvfree(g->s2);
}

static int npa_merge_init(struct npa_merge *g, struct npa_pctx *c)
{
	u32 ns = c->ns + 1, i;

	/* Each merge takes two items or more: at most 2 m, and the stacks. */
	g->c = c;
	g->cap = 3 * c->m + 1;
	g->it = kvmalloc_array(g->cap, sizeof(*g->it), GFP_KERNEL_ACCOUNT);
	g->shead = kvmalloc_array(ns, sizeof(u32), GFP_KERNEL_ACCOUNT);
	g->ehead = kvmalloc_array(ns, sizeof(u32), GFP_KERNEL_ACCOUNT);
	g->ends = kvmalloc_array(g->cap, sizeof(u32), GFP_KERNEL_ACCOUNT);
	g->starts = kvmalloc_array(g->cap, sizeof(u32), GFP_KERNEL_ACCOUNT);
	g->ge = kvmalloc_array(g->cap + 1, sizeof(u32), GFP_KERNEL_ACCOUNT);
	g->gs = kvmalloc_array(g->cap + 1, sizeof(u32), GFP_KERNEL_ACCOUNT);
	g->work = kvmalloc_array(ns, sizeof(u32), GFP_KERNEL_ACCOUNT);
	g->queued = kvzalloc(ns, GFP_KERNEL_ACCOUNT);
	g->s1 = kvmalloc_array(1U << NPA_MERGE_SIDE, sizeof(*g->s1),
			       GFP_KERNEL_ACCOUNT);
	g->s2 = kvmalloc_array(1U << NPA_MERGE_SIDE, sizeof(*g->s2),
			       GFP_KERNEL_ACCOUNT);
	if (!g->it || !g->shead || !g->ehead || !g->ends || !g->starts ||
	    !g->ge || !g->gs || !g->work || !g->queued || !g->s1 || !g->s2) {
		npa_merge_free(g);
		return -ENOMEM;
	}
	memset(g->shead, 0xff, ns * sizeof(u32));
	memset(g->ehead, 0xff, ns * sizeof(u32));
	for (i = 0; i < c->m; i++) {
		u32 z = npa_merge_new(g, c->r[i].a, c->r[i].b);

		g->it[z].size = c->r[i].size;
		g->it[z].amask = c->r[i].amask;
	}
	for (i = c->ns; i > 0; i--)
		npa_merge_queue(g, i);
	return 0;
}

/*
 * Stack each group into one buffer of @bufs (the items after the merges
 * go up to them); returns how many.
 */
static u32 npa_merge_groups(struct npa_merge *g, struct npa_plan_buf *bufs)
{
	u32 n = 0, i, j, z, nb = 0, first = g->n;

	for (i = 0; i < first; i++)
		if (g->it[i].up == U32_MAX)
			g->ends[n++] = i;
	npa_merge_sort(g, g->ends, n);
	for (i = 0; i < n; i = j) {
		struct npa_mitem *x = &g->it[g->ends[i]];

		j = i + 1;
		if (npa_merge_alive(x))
			while (j < n && npa_merge_alive(&g->it[g->ends[j]]) &&
			       g->it[g->ends[j]].a == x->a &&
			       g->it[g->ends[j]].b == x->b)
				j++;
		z = g->n++;
		g->it[z] = (struct npa_mitem){ .a = x->a, .b = x->b,
					       .up = U32_MAX };
		npa_merge_stack(g, g->ends + i, j - i, z);
		bufs[nb++] = (struct npa_plan_buf){
			.size = g->it[z].size, .align = g->it[z].amask + 1,
			.lo = x->a, .hi = x->b,
		};
	}
	return nb;
}

/**
 * npa_merge() - plan the instance of the merged buffers
 * @c: the planning run
 * @budget: units for the merges and the merged instance's plan
 * @off: out: a plan of @c's buffers (m offsets)
 * @peak: out: its peak; U64_MAX if there is none: the merges did not fit
 *	in @budget, or they left more than half of the buffers
 *
 * Return: 0, -ENOMEM or -EINTR.
 */
int npa_merge(struct npa_pctx *c, u64 budget, u64 *off, u64 *peak)
{
	struct npa_plan_params p = { };
	struct npa_plan_result res;
	struct npa_plan_buf *bufs;
	struct npa_merge g = { };
	u32 nb = 0, i;
	u64 units;
	int ret;

	*peak = U64_MAX;
	/* Items in one array of at most INT_MAX bytes (kvmalloc()'s limit). */
	if (3 * (u64)c->m + 1 > (U32_MAX >> 1) / sizeof(struct npa_mitem))
		return 0;
	ret = npa_merge_init(&g, c);
	if (ret)
		return ret;
	g.room = npa_sat_mul(budget, NPA_PLAN_STEPS_PER_UNIT);
	while (g.nwork && npa_merge_charge(&g)) {
		u32 x = g.work[--g.nwork];

		g.queued[x] = 0;
		npa_merge_visit(&g, x);
	}
	ret = -ENOMEM;
	bufs = kvmalloc_array(g.n, sizeof(*bufs), GFP_KERNEL_ACCOUNT);
	if (!bufs)
		goto out;
	ret = 0;
	if (npa_merge_room(&g, 2 * (u64)g.n * (ilog2(g.n) + 3)))
		nb = npa_merge_groups(&g, bufs);
	units = DIV_ROUND_UP(g.steps - g.spent, NPA_PLAN_STEPS_PER_UNIT);
	npa_plan_spend(c, units);
	/* What did not fit in @budget is not done: no merged plan. */
	ret = c->err;
	if (g.out || ret || nb > c->m / 2)
		goto out_bufs;
	p.budget = budget - DIV_ROUND_UP(g.steps, NPA_PLAN_STEPS_PER_UNIT);
	if (!p.budget)
		goto out_bufs;
	ret = npa_plan_inner(bufs, nb, &p, &res);
	if (ret)
		goto out_bufs;
	npa_plan_spend(c, res.work);
	/* Down from the groups: an item's place is its merged buffer's. */
	for (i = g.n; i-- > 0;) {
		struct npa_mitem *x = &g.it[i];

		if (i >= g.n - nb)
			x->rel = bufs[i - (g.n - nb)].offset;
		else
			x->rel += g.it[x->up].rel;
	}
	*peak = 0;
	for (i = 0; i < c->m; i++) {
		off[i] = g.it[i].rel;
		*peak = max(*peak, off[i] + c->r[i].size);
	}
out_bufs:
	kvfree(bufs);
out:
	npa_merge_free(&g);
	return ret;
}
