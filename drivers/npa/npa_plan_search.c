// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (C) 2025 The npa authors
 */

/**
 * DOC: npa planner exact search
 *
 * A branch and bound over canonical plans. Drop every buffer of a plan as
 * low as it goes: each then sits at offset 0 or directly on top of a
 * buffer whose lifetime overlaps its own, and the peak is no higher. Take
 * the buffers of such a plan by (offset, rank) for any fixed ranking: the
 * next one sits exactly on the floor of its lifetime, the highest top of
 * the buffers placed so far that live during it. The search builds plans
 * in that order: at each level it places, at its floor, an unplaced buffer
 * whose (floor, rank) comes after that of the last one placed; every
 * optimal plan is one of the leaves, and no plan is reached twice.
 *
 * Pruning, all of it O(n log n) a level (npa_run_bound()):
 *
 * - the per-section bound: the buffers still to place that live in a
 *   section stack up above the lowest position any of them can still take
 *   (its floor, or above the last offset placed if the floor is lower: it
 *   can then only sit on a buffer placed later; above the offset placed
 *   for those of a lower rank at the same floor); that plus their bytes
 *   must stay within the cap. The test only gets harder as the offset
 *   grows, so the first candidate that fails it ends the level;
 * - inference: a buffer whose floor plus size is above the cap ends the
 *   level at once;
 * - symmetry: of two buffers of the same size, alignment and lifetime the
 *   one with the lower index goes first.
 *
 * The floors are a segment tree; a placement saves the O(log n) nodes it
 * changes on a trail and is undone from it, never copied. The instance
 * splits at the steps no lifetime crosses; each part is searched alone.
 * Two runs search each part for each ranking of its buffers (by size, by
 * lifetime, by area, by start): one with the lower bound as its cap, one
 * halfway between what is proven and the best plan so far (npa_srch_cap()).
 * Their deep partial plans are completed by first fit. They take turns on
 * one thread, each resuming where it stopped, in quanta that double every
 * round. The schedule does not depend on the budget, so a larger budget
 * only runs it further: the plan never gets worse. The search stops at
 * the lower bound or at a proof that the part's plan is optimal.
 */

#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/types.h>

#include "npa_plan_int.h"

/* Rankings of the buffers; each ranking has two runs. */
enum npa_rankby {
	NPA_RANK_SIZE,		/* size, then lifetime length */
	NPA_RANK_LENGTH,	/* lifetime length, then size */
	NPA_RANK_AREA,		/* size x length, then size */
	NPA_RANK_START,		/* start, then size x length */
	NPA_RANK_COUNT,
};

/* Runs: for each ranking one at the bound, one halfway (npa_srch_cap()). */
#define NPA_SEARCH_RUNS		(2 * NPA_RANK_COUNT)
/* Largest part searched; a level of the search costs O(its buffers). */
#define NPA_SEARCH_MAX		2048
/*
 * Steps (a buffer or a section looked at) per unit of work: about the
 * time of a placement of a first-fit pass.
 */
#define NPA_SEARCH_STEPS_PER_UNIT	96
/* First quantum of a run, in units; it doubles every round. */
#define NPA_SEARCH_QUANTUM	32

/* One level of a run. */
struct npa_frame {
	u64 cq;			/* the last candidate tried here: its floor, */
	u32 crank;		/* and its rank + 1 (0: none yet) */
	u32 id;			/* the buffer placed at this level, or U32_MAX */
	u32 tr;			/* trail mark before that placement */
	u64 peak;		/* top of the plan before it */
};

/* A node of the floor tree before a placement changed it. */
struct npa_trail {
	u32 node;
	u64 mx, tag;
};

/* One run: a depth-first search in one ranking, under one cap. */
struct npa_run {
	u32 *rank;		/* of each buffer */
	u32 *byrank;		/* the buffers in the order of their rank */
	u32 deep;		/* depth of the last partial plan completed */
	u64 *f;			/* floor of each unplaced buffer at this level */
	u64 *off;
	/*
	 * The floors of the sections (the top of the placed buffers live
	 * there), a segment tree of s->tsize leaves: @tag is a floor over a
	 * node's whole range, @mx the highest floor in it.
	 */
	u64 *mx, *tag;
	u64 *u;			/* unplaced bytes live in each section */
	u8 *placed;
	struct npa_frame *fr;	/* n + 1 levels */
	struct npa_trail *tr;	/* n * 4 * (log2(tsize) + 1) */
	u32 ntr, depth;
	u64 cap;		/* the lower bound, or halfway (npa_srch_cap()) */
	bool done;		/* searched to the end */
};

/* The search of one part of the instance (buffers @ids[0, @n)). */
struct npa_srch {
	struct npa_pctx *c;
	const u32 *ids;
	u32 n, ns;
	u32 *a, *b;		/* lifetimes in sections of the part */
	u64 *size, *amask;
	u32 *twin;		/* same size and lifetime, lower index, or U32_MAX */
	u64 proven;		/* no plan of the part is lower */
	u64 best;		/* peak of the best plan of the part */
	u64 *best_off;
	u64 *low, *soft;	/* scratch of npa_run_bound(): 2 * tsize */
	u32 tsize;		/* leaves of their trees, a power of two */
	u64 *cmp_off;		/* scratch of npa_run_fill() */
	u8 *cmp_in;
	struct npa_iv *ivs;
	u64 steps;		/* buffers and sections looked at */
	u64 spent;		/* of them, charged as units already */
	struct npa_run run[NPA_SEARCH_RUNS];
};

static u64 npa_align(u64 x, u64 amask)
{
	return (x + amask) & ~amask;
}

static bool npa_run_overlap(const struct npa_srch *s, u32 i, u32 j)
{
	return s->a[j] < s->b[i] && s->a[i] < s->b[j];
}

/* Save floor tree node @x of @d on the trail. */
static void npa_run_save(struct npa_run *d, u32 x)
{
	d->tr[d->ntr++] = (struct npa_trail){ x, d->mx[x], d->tag[x] };
}

/* The highest floor over sections [@a, @b) in @d. */
static u64 npa_run_floor(const struct npa_srch *s, const struct npa_run *d,
			 u32 a, u32 b)
{
	u32 l = a + s->tsize, r = b + s->tsize, x;
	u64 h = 0;

	/* The nodes that tile the range, and the tags above its two ends. */
	for (x = l >> 1; x; x >>= 1)
		h = max(h, d->tag[x]);
	for (x = (r - 1) >> 1; x; x >>= 1)
		h = max(h, d->tag[x]);
	for (; l < r; l >>= 1, r >>= 1) {
		if (l & 1)
			h = max(h, d->mx[l++]);
		if (r & 1)
			h = max(h, d->mx[--r]);
	}
	return h;
}

/*
 * Place buffer @i at @q in run @d at its current level: the floors of its
 * sections become its top, higher than any floor there (@q is at least
 * their highest).
 */
static void npa_run_place(struct npa_srch *s, struct npa_run *d, u32 i, u64 q)
{
	struct npa_frame *fr = &d->fr[d->depth];
	u32 l = s->a[i] + s->tsize, r = s->b[i] + s->tsize, j, x;
	u64 top = q + s->size[i];

	fr->id = i;
	fr->tr = d->ntr;
	fr->peak = d->depth ? max(fr[-1].peak, d->off[fr[-1].id] +
				  s->size[fr[-1].id]) : 0;
	for (x = l >> 1; x; x >>= 1)
		npa_run_save(d, x);
	for (x = (r - 1) >> 1; x; x >>= 1)
		npa_run_save(d, x);
	for (; l < r; l >>= 1, r >>= 1) {
		if (l & 1) {
			npa_run_save(d, l);
			d->tag[l] = top;
			d->mx[l++] = top;
		}
		if (r & 1) {
			npa_run_save(d, --r);
			d->tag[r] = top;
			d->mx[r] = top;
		}
	}
	/* The highest floor of each node on the paths up from both ends. */
	for (x = (s->a[i] + s->tsize) >> 1; x; x >>= 1)
		d->mx[x] = max(d->mx[x], top);
	for (x = (s->b[i] - 1 + s->tsize) >> 1; x; x >>= 1)
		d->mx[x] = max(d->mx[x], top);
	for (j = s->a[i]; j < s->b[i]; j++)
		d->u[j] -= s->size[i];
	d->placed[i] = 1;
	d->off[i] = q;
	for (j = 0; j < s->n; j++)
		if (!d->placed[j] && npa_run_overlap(s, i, j))
			d->f[j] = max(d->f[j], top);
	s->steps += s->n + 4 * ilog2(s->tsize) + 4 + s->b[i] - s->a[i];
}

/*
 * The per-section bound for a placement at @q: every buffer still to
 * place goes at or above its floor and at or above @q, above @q if its
 * floor is lower (it can then only sit on a buffer placed later), and
 * those live in one section stack up; so every section must
 * hold its unplaced bytes above max(@q, its floor) under @cap. Whichever
 * buffer goes at @q, the test is the same (it lives only in sections
 * whose floor is at most @q, and its bytes move from above the floor to
 * on it), and it only gets harder as @q grows: the first candidate that
 * fails it ends the level (NPA_BOUND_LEVEL). Buffer @id at @q also puts
 * every unplaced buffer of a lower rank whose floor is at most @q above
 * @q (the order of the search); if that breaks the bound, only @id fails
 * (NPA_BOUND_BUFFER).
 */
enum { NPA_BOUND_OK, NPA_BOUND_BUFFER, NPA_BOUND_LEVEL };

static int npa_run_bound(struct npa_srch *s, struct npa_run *d, u32 id,
			 u64 q, u64 cap)
{
	u64 *low = s->low, *soft = s->soft;
	u32 i, j, sz = s->tsize;
	int ret = 0;

	/*
	 * low[], soft[]: segment trees over the sections; a buffer sets the
	 * O(log) nodes that tile its lifetime to the least of what they hold
	 * and its floor, and pushing the nodes down to the leaves gives each
	 * section the least floor of the buffers live in it.
	 */
	for (j = 1; j < 2 * sz; j++) {
		low[j] = U64_MAX;
		soft[j] = U64_MAX;
	}
	for (i = 0; i < s->n; i++) {
		u64 x, y;
		u32 l, r;

		if (d->placed[i])
			continue;
		x = npa_align(d->f[i], s->amask[i]);
		if (x < q)	/* only on top of a buffer placed later */
			x = npa_align(q + 1, s->amask[i]);
		y = x;
		if (x == q && i != id && d->rank[i] < d->rank[id])
			y = npa_align(q + 1, s->amask[i]);
		for (l = s->a[i] + sz, r = s->b[i] + sz; l < r; l >>= 1, r >>= 1) {
			if (l & 1) {
				low[l] = min(low[l], x);
				soft[l] = min(soft[l], y);
				l++;
			}
			if (r & 1) {
				r--;
				low[r] = min(low[r], x);
				soft[r] = min(soft[r], y);
			}
			s->steps++;
		}
	}
	for (j = 2; j < sz + s->ns; j++) {
		low[j] = min(low[j], low[j / 2]);
		soft[j] = min(soft[j], soft[j / 2]);
	}
	s->steps += s->n + 2 * sz;
	for (j = 0; j < s->ns; j++) {
		if (!d->u[j])
			continue;
		if (low[sz + j] + d->u[j] > cap)
			return NPA_BOUND_LEVEL;
		if (soft[sz + j] + d->u[j] > cap)
			ret = NPA_BOUND_BUFFER;
	}
	return ret;
}

/* Undo the placement at the current level of @d. */
static void npa_run_undo(struct npa_srch *s, struct npa_run *d)
{
	struct npa_frame *fr = &d->fr[d->depth];
	u32 i = fr->id, j;

	while (d->ntr > fr->tr) {
		const struct npa_trail *t = &d->tr[--d->ntr];

		d->mx[t->node] = t->mx;
		d->tag[t->node] = t->tag;
	}
	for (j = s->a[i]; j < s->b[i]; j++)
		d->u[j] += s->size[i];
	d->placed[i] = 0;
	fr->id = U32_MAX;
	/* The floors it raised, from the tree: no trail per buffer. */
	for (j = 0; j < s->n; j++) {
		if (d->placed[j] || !npa_run_overlap(s, i, j))
			continue;
		d->f[j] = npa_run_floor(s, d, s->a[j], s->b[j]);
		s->steps += 2 * ilog2(s->tsize) + 2;
	}
	s->steps += s->n + s->b[i] - s->a[i];
}

/*
 * The next buffer to try at the current level of @d: the least (floor,
 * rank) after the level's cursor, among the unplaced buffers whose twin
 * (if any) is placed. U32_MAX when there is none, or when a buffer cannot
 * fit under @cap anywhere (the level is dead).
 */
static u32 npa_run_next(struct npa_srch *s, struct npa_run *d, u64 cap,
			u64 *qp)
{
	const struct npa_frame *fr = &d->fr[d->depth];
	u32 j, best = U32_MAX, br = 0;
	u64 bq = 0;

	s->steps += s->n;
	for (j = 0; j < s->n; j++) {
		u64 q;

		if (d->placed[j])
			continue;
		q = npa_align(d->f[j], s->amask[j]);
		if (q + s->size[j] > cap)
			return U32_MAX;
		if (s->twin[j] != U32_MAX && !d->placed[s->twin[j]])
			continue;
		if (q < fr->cq || (q == fr->cq && d->rank[j] < fr->crank))
			continue;
		if (best == U32_MAX || q < bq || (q == bq && d->rank[j] < br)) {
			best = j;
			bq = q;
			br = d->rank[j];
		}
	}
	*qp = bq;
	return best;
}

/* A leaf: a plan of the whole part. */
static void npa_run_leaf(struct npa_srch *s, struct npa_run *d)
{
	const struct npa_frame *fr = &d->fr[d->depth - 1];
	u64 peak = max(fr->peak, d->off[fr->id] + s->size[fr->id]);

	if (peak < s->best) {
		s->best = peak;
		memcpy(s->best_off, d->off, s->n * sizeof(*d->off));
	}
}

/* Address ranges by start, for npa_run_fill(). */
static int npa_iv_cmp(const void *x, const void *y)
{
	const struct npa_iv *a = x, *b = y;

	return a->off < b->off ? -1 : a->off > b->off;
}

/*
 * Complete the partial plan of @d (its current path) by first fit in the
 * order of its ranking, each buffer at the lowest address clear of the
 * placed buffers it meets (holes below the floors included), and keep it
 * if it is the best plan of the part.
 */
static void npa_run_fill(struct npa_srch *s, struct npa_run *d)
{
	u64 *off = s->cmp_off, peak = 0;
	u8 *in = s->cmp_in;
	u32 i, j, k;

	for (i = 0; i < s->n; i++) {
		in[i] = d->placed[i];
		off[i] = d->off[i];
		if (in[i])
			peak = max(peak, off[i] + s->size[i]);
	}
	for (k = 0; k < s->n && peak < s->best; k++) {
		u32 x = d->byrank[k], cnt = 0;
		u64 at = 0;

		if (in[x])
			continue;
		for (j = 0; j < s->n; j++)
			if (in[j] && npa_run_overlap(s, x, j))
				s->ivs[cnt++] = (struct npa_iv){ off[j],
								 off[j] + s->size[j] };
		sort(s->ivs, cnt, sizeof(*s->ivs), npa_iv_cmp, NULL);
		for (j = 0; j < cnt; j++) {
			at = npa_align(at, s->amask[x]);
			if (s->ivs[j].off >= at + s->size[x])
				break;
			at = max(at, s->ivs[j].end);
		}
		off[x] = npa_align(at, s->amask[x]);
		in[x] = 1;
		peak = max(peak, off[x] + s->size[x]);
		s->steps += s->n + cnt * (ilog2(cnt + 1) + 1);
	}
	if (peak < s->best) {
		s->best = peak;
		memcpy(s->best_off, off, s->n * sizeof(*off));
	}
}

/* Run @d for @units of work, or until it is done or the part is. */
static void npa_run_go(struct npa_srch *s, struct npa_run *d, u64 units)
{
	u64 end = s->steps + units * NPA_SEARCH_STEPS_PER_UNIT;

	while (!d->done && s->best > s->proven && s->steps < end) {
		u64 cap = min(d->cap, s->best - 1), q;
		struct npa_frame *fr;
		int bound;
		u32 i;

		i = npa_run_next(s, d, cap, &q);
		bound = i != U32_MAX ? npa_run_bound(s, d, i, q, cap) : 0;
		if (i == U32_MAX || bound == NPA_BOUND_LEVEL) {
			if (!d->depth) {
				d->done = true;
				break;
			}
			d->depth--;
			npa_run_undo(s, d);
			continue;
		}
		fr = &d->fr[d->depth];
		fr->cq = q;
		fr->crank = d->rank[i] + 1;
		if (bound == NPA_BOUND_BUFFER)
			continue;
		npa_run_place(s, d, i, q);
		fr[1] = (struct npa_frame){ .cq = q, .crank = fr->crank,
					    .id = U32_MAX };
		/* A leaf backtracks at once: no buffer is left to try. */
		if (++d->depth == s->n) {
			npa_run_leaf(s, d);
			continue;
		}
		/*
		 * Each time a run gets 1/16 of the part deeper than before, its
		 * partial plan (most of a good plan), completed.
		 */
		if (d->depth >= d->deep + s->n / 16 + 1) {
			d->deep = d->depth;
			npa_run_fill(s, d);
		}
	}
}

/* The rank of each buffer of the part under @by. */
static void npa_srch_rank(struct npa_srch *s, u32 by, u32 *rank, u32 *order)
{
	struct npa_key *keys = s->c->keys;
	u32 i;

	for (i = 0; i < s->n; i++) {
		u64 len = s->b[i] - s->a[i], area = s->size[i] * len;

		keys[i].id = i;
		switch (by) {
		case NPA_RANK_SIZE:
			keys[i].k1 = s->size[i];
			keys[i].k2 = len;
			break;
		case NPA_RANK_LENGTH:
			keys[i].k1 = len;
			keys[i].k2 = s->size[i];
			break;
		case NPA_RANK_AREA:
			keys[i].k1 = area;
			keys[i].k2 = s->size[i];
			break;
		default:
			keys[i].k1 = U32_MAX - s->a[i];
			keys[i].k2 = area;
			break;
		}
	}
	npa_plan_order_by_keys(keys, s->n, order);
	for (i = 0; i < s->n; i++)
		rank[order[i]] = i;
}

static void npa_run_free(struct npa_run *d)
{
	kvfree(d->rank);
	kvfree(d->byrank);
	kvfree(d->f);
	kvfree(d->off);
	kvfree(d->mx);
	kvfree(d->tag);
	kvfree(d->u);
	kvfree(d->placed);
	kvfree(d->fr);
	kvfree(d->tr);
}

/* Put @d back at the root, under @cap. */
static void npa_run_reset(struct npa_srch *s, struct npa_run *d, u64 cap)
{
	u32 i, j;

	memset(d->placed, 0, s->n * sizeof(*d->placed));
	memset(d->f, 0, s->n * sizeof(*d->f));
	memset(d->mx, 0, 2 * s->tsize * sizeof(*d->mx));
	memset(d->tag, 0, 2 * s->tsize * sizeof(*d->tag));
	memset(d->u, 0, s->ns * sizeof(*d->u));
	for (i = 0; i < s->n; i++) {
		for (j = s->a[i]; j < s->b[i]; j++)
			d->u[j] += s->size[i];
		s->steps += s->b[i] - s->a[i];
	}
	memset(&d->fr[0], 0, sizeof(d->fr[0]));
	d->fr[0].id = U32_MAX;
	d->ntr = 0;
	d->depth = 0;
	d->deep = 0;
	d->done = false;
	d->cap = cap;
}

static int npa_run_init(struct npa_srch *s, struct npa_run *d, u32 by,
			u64 cap)
{
	u32 n = s->n;

	memset(d, 0, sizeof(*d));
	d->rank = kvmalloc_array(n, sizeof(*d->rank), GFP_KERNEL_ACCOUNT);
	d->byrank = kvmalloc_array(n, sizeof(*d->byrank), GFP_KERNEL_ACCOUNT);
	d->f = kvcalloc(n, sizeof(*d->f), GFP_KERNEL_ACCOUNT);
	d->off = kvcalloc(n, sizeof(*d->off), GFP_KERNEL_ACCOUNT);
	d->mx = kvmalloc_array(2 * (size_t)s->tsize, sizeof(*d->mx),
			       GFP_KERNEL_ACCOUNT);
	d->tag = kvmalloc_array(2 * (size_t)s->tsize, sizeof(*d->tag),
				GFP_KERNEL_ACCOUNT);
	d->u = kvcalloc(s->ns, sizeof(*d->u), GFP_KERNEL_ACCOUNT);
	d->placed = kvcalloc(n, sizeof(*d->placed), GFP_KERNEL_ACCOUNT);
	d->fr = kvcalloc((size_t)n + 1, sizeof(*d->fr), GFP_KERNEL_ACCOUNT);
	/* A placement saves at most 4 nodes a level of the floor tree. */
	d->tr = kvmalloc_array((size_t)n * 4 * (ilog2(s->tsize) + 1),
			       sizeof(*d->tr), GFP_KERNEL_ACCOUNT);
	if (!d->rank || !d->byrank || !d->f || !d->off || !d->mx || !d->tag ||
	    !d->u || !d->placed || !d->fr || !d->tr) {
		npa_run_free(d);
		return -ENOMEM;
	}
	npa_srch_rank(s, by, d->rank, d->byrank);
	npa_run_reset(s, d, cap);
	return 0;
}

/* Buffers of equal size, alignment and lifetime: the lower index first. */
static int npa_twin_cmp(const void *x, const void *y, const void *priv)
{
	const struct npa_srch *s = priv;
	u32 i = *(const u32 *)x, j = *(const u32 *)y;

	if (s->a[i] != s->a[j])
		return s->a[i] < s->a[j] ? -1 : 1;
	if (s->b[i] != s->b[j])
		return s->b[i] < s->b[j] ? -1 : 1;
	if (s->size[i] != s->size[j])
		return s->size[i] < s->size[j] ? -1 : 1;
	if (s->amask[i] != s->amask[j])
		return s->amask[i] < s->amask[j] ? -1 : 1;
	return i < j ? -1 : i > j;
}

static void npa_srch_free(struct npa_srch *s)
{
	u32 k;

	for (k = 0; k < NPA_SEARCH_RUNS; k++)
		npa_run_free(&s->run[k]);
	kvfree(s->a);
	kvfree(s->b);
	kvfree(s->size);
	kvfree(s->amask);
	kvfree(s->twin);
	kvfree(s->best_off);
	kvfree(s->low);
	kvfree(s->soft);
	kvfree(s->cmp_off);
	kvfree(s->cmp_in);
	kvfree(s->ivs);
}

/*
 * Set up the search of the part @ids[0, @n) of c->r, whose @ns sections
 * start at @s0, from its plan in @off: its buffers in local numbering,
 * their twins and the runs. 0 or -ENOMEM.
 */
static int npa_srch_init(struct npa_srch *s, struct npa_pctx *c,
			 const u64 *off, const u32 *ids, u32 n, u32 s0, u32 ns)
{
	u32 i, k, *by = c->cand;

	memset(s, 0, sizeof(*s));
	s->c = c;
	s->ids = ids;
	s->n = n;
	s->ns = ns;
	s->proven = c->lb;
	s->a = kvmalloc_array(n, sizeof(*s->a), GFP_KERNEL_ACCOUNT);
	s->b = kvmalloc_array(n, sizeof(*s->b), GFP_KERNEL_ACCOUNT);
	s->size = kvmalloc_array(n, sizeof(*s->size), GFP_KERNEL_ACCOUNT);
	s->amask = kvmalloc_array(n, sizeof(*s->amask), GFP_KERNEL_ACCOUNT);
	s->twin = kvmalloc_array(n, sizeof(*s->twin), GFP_KERNEL_ACCOUNT);
	s->best_off = kvmalloc_array(n, sizeof(*s->best_off), GFP_KERNEL_ACCOUNT);
	s->tsize = roundup_pow_of_two(max(ns, 1U));
	s->low = kvmalloc_array(2 * (size_t)s->tsize, sizeof(*s->low),
				GFP_KERNEL_ACCOUNT);
	s->soft = kvmalloc_array(2 * (size_t)s->tsize, sizeof(*s->soft),
				 GFP_KERNEL_ACCOUNT);
	s->cmp_off = kvmalloc_array(n, sizeof(*s->cmp_off), GFP_KERNEL_ACCOUNT);
	s->cmp_in = kvmalloc_array(n, sizeof(*s->cmp_in), GFP_KERNEL_ACCOUNT);
	s->ivs = kvmalloc_array(n, sizeof(*s->ivs), GFP_KERNEL_ACCOUNT);
	if (!s->a || !s->b || !s->size || !s->amask || !s->twin ||
	    !s->best_off || !s->low || !s->soft || !s->cmp_off ||
	    !s->cmp_in || !s->ivs)
		goto err_nomem;
	for (i = 0; i < n; i++) {
		const struct npa_rect *r = &c->r[ids[i]];

		s->a[i] = r->a - s0;
		s->b[i] = r->b - s0;
		s->size[i] = r->size;
		s->amask[i] = r->amask;
		s->best_off[i] = off[ids[i]];
		s->best = max(s->best, s->best_off[i] + r->size);
		by[i] = i;
	}
	/* Twins are next to each other in this order. */
	sort_r(by, n, sizeof(*by), npa_twin_cmp, NULL, s);
	for (i = 0; i < n; i++) {
		u32 x = by[i], y = i ? by[i - 1] : U32_MAX;

		s->twin[x] = U32_MAX;
		if (i && s->a[y] == s->a[x] && s->b[y] == s->b[x] &&
		    s->size[y] == s->size[x] && s->amask[y] == s->amask[x])
			s->twin[x] = y;
	}
	for (k = 0; k < NPA_SEARCH_RUNS; k++)
		if (npa_run_init(s, &s->run[k], k / 2, k & 1 ? U64_MAX : c->lb))
			goto err_nomem;
	return 0;

err_nomem:
	npa_srch_free(s);
	return -ENOMEM;
}

/*
 * The cap of run @d before its next quantum. A run that searched to the end
 * under a cap proved that no plan of the part is that low. The runs at the
 * bound (@mid false) stop there; the others then start again from the
 * root, halfway between what is proven and the best plan so far, and while
 * they run their cap follows the best plan down. Returns false when @d has
 * nothing left to do.
 */
static bool npa_srch_cap(struct npa_srch *s, struct npa_run *d, bool mid)
{
	if (d->done)
		s->proven = max(s->proven, d->cap + 1);
	if (s->best <= s->proven || (d->done && !mid))
		return false;
	if (mid) {
		u64 half = s->proven + (s->best - 1 - s->proven) / 2;

		if (d->done)
			npa_run_reset(s, d, half);
		else
			d->cap = min(d->cap, half);
	}
	return true;
}

/*
 * Search the part @ids[0, @n) (sections [@s0, @s0 + @ns)) within @given
 * units, from the plan @off: the runs take turns, the quanta doubling
 * every round, until the part is at the bound, every run is done or the
 * units are spent. A better plan of the part goes into @off. Returns the
 * units spent.
 */
static u64 npa_search_part(struct npa_pctx *c, u64 *off, const u32 *ids,
			   u32 n, u32 s0, u32 ns, u64 given)
{
	struct npa_srch *s;
	u64 spent = 0, start;
	u32 round, k, i, live;

	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return 0;
	if (npa_srch_init(s, c, off, ids, n, s0, ns)) {
		kfree(s);
		return 0;
	}
	start = s->best;
	for (round = 0, live = 1; live && spent < given &&
	     s->best > s->proven && !c->err; round++) {
		for (k = 0, live = 0; k < NPA_SEARCH_RUNS && spent < given; k++) {
			u64 q = min_t(u64, (u64)NPA_SEARCH_QUANTUM << min(round, 30U),
				      given - spent), units;

			if (!npa_srch_cap(s, &s->run[k], k & 1))
				continue;
			live++;
			npa_run_go(s, &s->run[k], q);
			units = (s->steps - s->spent) / NPA_SEARCH_STEPS_PER_UNIT;
			s->spent += units * NPA_SEARCH_STEPS_PER_UNIT;
			spent += units;
			if (!npa_plan_spend(c, units) || s->best <= s->proven)
				break;
		}
	}
	if (s->best < start)
		for (i = 0; i < n; i++)
			off[ids[i]] = s->best_off[i];
	npa_srch_free(s);
	kfree(s);
	return spent;
}

/* Buffers by first section. */
static void npa_search_by_start(struct npa_pctx *c, u32 *ids)
{
	struct npa_key *keys = c->keys;
	u32 i;

	for (i = 0; i < c->m; i++) {
		keys[i].k1 = U32_MAX - c->r[i].a;
		keys[i].k2 = 0;
		keys[i].id = i;
	}
	npa_plan_order_by_keys(keys, c->m, ids);
}

/*
 * The exact search from the plan @off (c->m offsets, improved in place),
 * within @budget units:
 * split the buffers at the sections no lifetime crosses and search each
 * part whose plan is above the lower bound and that is small enough,
 * giving each a share of @budget by its number of buffers plus what the
 * parts before it left. @big gets the buffers of the parts above the
 * bound too large to search; with a @budget of 0 only that is done.
 *
 * Return: 0, or -EINTR when stopped (the plan is then not to be used).
 */
int npa_search(struct npa_pctx *c, u64 *off, u64 budget, u32 *big)
{
	u32 *ids, i, j, pass, total = 0;
	u64 given = 0;

	ids = kvmalloc_array(c->m, sizeof(*ids), GFP_KERNEL_ACCOUNT);
	if (!ids)
		return -ENOMEM;
	npa_search_by_start(c, ids);
	*big = 0;
	/* Pass 0 counts the buffers of the parts to search, pass 1 searches. */
	for (pass = 0; pass < (budget ? 2 : 1) && !c->err; pass++) {
		u32 end = 0;

		for (i = 0; i < c->m; i = j) {
			u64 top = 0;

			end = c->r[ids[i]].b;
			for (j = i; j < c->m && c->r[ids[j]].a < end; j++) {
				end = max(end, c->r[ids[j]].b);
				top = max(top, off[ids[j]] +
					  c->r[ids[j]].size);
			}
			if (top <= c->lb)
				continue;
			if (j - i > NPA_SEARCH_MAX) {
				*big += pass ? 0 : j - i;
				continue;
			}
			if (!pass) {
				total += j - i;
				continue;
			}
			given += budget / total * (j - i) +
				 budget % total * (j - i) / total;
			given -= npa_search_part(c, off, ids + i, j - i,
						 c->r[ids[i]].a,
						 end - c->r[ids[i]].a, given);
			if (c->err)
				break;
		}
	}
	kvfree(ids);
	return c->err;
}
