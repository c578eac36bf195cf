// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (C) 2025 The npa authors
 */

/**
 * DOC: npa planner exact search
 *
 * A branch and bound over canonical plans under a cap. Drop every buffer
 * of a plan as low as it goes: each then sits at offset 0 or directly on
 * top of a buffer whose lifetime overlaps its own, and the peak is no
 * higher. The search builds such plans by offset, from the bottom up. At
 * each level, the height is the lowest offset at which an unplaced buffer
 * can still go (its floor: the highest top of the placed buffers that
 * live during it), and the level takes a point at that height, one
 * section of time: each child puts there one of the buffers that can
 * cover it, the last one leaves it empty (its section then only holds
 * buffers that sit higher, on buffers placed later). The children split
 * the plans below the level: every canonical plan under the cap is one
 * leaf, and no plan is reached twice. The point is the one with the
 * fewest children (first fail): where the cap leaves no room to waste,
 * a point only one buffer can cover costs no choice.
 *
 * Pruning, O(n log n) a level (npa_run_bound()): the buffers still to
 * place that live in a section stack up above the lowest offset any of
 * them can still take; that plus their bytes must stay within the cap,
 * and so must each buffer's own lowest offset plus its size (inference:
 * a buffer aligned to a large power of two may have no room left).
 * Where no unplaced buffer crosses from one section to the next, the
 * unplaced buffers form independent components: the search finishes one
 * before it starts the next, and a component that has no plan under the
 * cap fails the level that split them, whatever the others did (no
 * search through their choices again). Of two buffers of the same size,
 * alignment and lifetime, the one with the lower index goes first.
 *
 * The floors are a segment tree; a placement saves the O(log n) nodes it
 * changes on a trail and is undone from it, never copied. The instance
 * splits at the steps no lifetime crosses; each part is searched alone,
 * the smaller ones first. Two runs search each part for each ranking of
 * its buffers (the order in which a level tries them): one with the cap
 * at what is proven (at first the lower bound; when it has searched
 * everything, the cap is proven too low and goes up), one a step below
 * the best plan so far (at most halfway down to what is proven; the step
 * doubles when the run finds a plan and halves when it restarts without
 * one; it starts again from the root under each better plan). Every run
 * but one starts again after a number of levels that follows the Luby
 * sequence (8 n, 8 n, 16 n, ...) with its ranking perturbed at random: a
 * depth-first search that went wrong near the root does not search that
 * subtree to the end. The one, the prover (the first ranking's run at
 * what is proven), never starts again, so that a part whose tree is
 * larger than any restart limit still gets proven; and it branches first
 * on points that cannot be left empty: leaving a point empty hardly
 * changes what is left to place, so that child's tree is nearly as large
 * as its parent's. Their deep partial plans are completed by first fit. The runs take
 * turns on one thread, each resuming where it stopped, in quanta that
 * double every round. The schedule does not depend on the budget, so a
 * larger budget only runs it further: the plan never gets worse. The
 * search stops at the lower bound or at a proof that the part's plan is
 * optimal.
 */

#include <linux/align.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/types.h>

#include "npa_plan_int.h"

/*
 * Rankings of the buffers (keys compared in turn, larger first; each
 * ranking has two runs): T is the most bytes live at one time during a
 * buffer's lifetime, W its length, A its area, S its size.
 */
static const char npa_rankings[][4] = { "TAW", "WAT", "TWA", "SWA" };
#define NPA_RANK_COUNT	ARRAY_SIZE(npa_rankings)

/* Runs: for each ranking one at the bound, one below the best plan. */
#define NPA_SEARCH_RUNS		(2 * NPA_RANK_COUNT)
/* Largest part searched; a level of the search costs O(its buffers). */
#define NPA_SEARCH_MAX		2048
/*
 * Steps (a buffer or a section looked at) per unit of work: about the
 * time of a placement of a first-fit pass.
 */
#define NPA_SEARCH_STEPS_PER_UNIT	96
/* Levels of a run before its first restart, per buffer of the part. */
#define NPA_SEARCH_RESTART	8
/* Most units a run goes on without a look at the safety stop. */
#define NPA_SEARCH_CHUNK	1024
/* First quantum of a run, in units; it doubles every round. */
#define NPA_SEARCH_QUANTUM	32

/* npa_frame.last: the point left empty; the level has no child left. */
#define NPA_EMPTY		U32_MAX
#define NPA_DONE		(U32_MAX - 1)
/* No pending component. */
#define NPA_NONE		U32_MAX

/*
 * One level of a run: a point (section @j at height @q) and which of the
 * buffers that can cover it does, or that none does; the component of the
 * instance the point is in, and the ones left for later.
 */
struct npa_frame {
	u64 q;			/* height of the point */
	u64 peak;		/* top of the plan at this level */
	u64 prev;		/* the point left empty: the mark of @j before */
	u32 j;			/* section of the point */
	u32 last;		/* rank + 1 of the last buffer tried, or NPA_EMPTY */
	u32 id;			/* the buffer placed at the point, or U32_MAX */
	u32 tr;			/* trail mark before that placement */
	u32 x, y;		/* the component: sections [x, y) */
	u32 pend, alloc;	/* pending components: list head, entries used */
	u32 own;		/* first level of a pending component: its owner */
};

/*
 * A component of the unplaced buffers left for later by level @own: the
 * sections [@x, @y), to be searched from height @q. A list linked by
 * @next, entries allocated in the order of the levels.
 */
struct npa_pend {
	u64 q;
	u32 x, y, own, next;
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
	u64 *f;			/* floor of each unplaced buffer at this level */
	u64 *off;
	/*
	 * The floors of the sections (the top of the placed buffers live
	 * there), a segment tree of s->tsize leaves: @tag is a floor over a
	 * node's whole range, @mx the highest floor in it.
	 */
	u64 *mx, *tag;
	/*
	 * The points left empty: a max tree over the sections of the height
	 * + 1 of the last one in each (0: none).
	 */
	u64 *mk;
	u64 *u;			/* unplaced bytes live in each section */
	u8 *placed;
	struct npa_frame *fr;	/* @maxdepth + 2 levels */
	void *mem;		/* the block the arrays are carved from */
	struct npa_pend *pe;	/* 2 * ns + 2 */
	struct npa_trail *tr;	/* n * 4 * (log2(tsize) + 1) */
	u32 ntr, depth, maxdepth;
	u32 np;			/* buffers placed */
	u32 by;			/* the ranking */
	u32 restarts;		/* restarts from the root so far */
	u64 nodes, limit;	/* levels since the last restart, and its limit */
	u64 rng;		/* state of the perturbation of the ranking */
	u64 step;		/* not at the bound: the cap is that below the best */
	u32 deep;		/* @np of the last partial plan completed */
	u64 cap;		/* plans above it are cut off */
	bool at_bound;		/* the cap follows what is proven */
	bool prover;		/* never restarts: searches its tree to the end */
	bool done;		/* searched to the end */
	bool cut;		/* some level was cut off for lack of frames */
};

/* The search of one part of the instance (buffers @ids[0, @n)). */
struct npa_srch {
	struct npa_pctx *c;
	const u32 *ids;
	u32 n, ns, s0;		/* buffers, sections, the first section */
	u32 *a, *b;		/* lifetimes in sections of the part */
	u64 *size, *amask;
	u32 *twin;		/* same size and lifetime, lower index, or U32_MAX */
	u64 *tl;		/* most bytes live at one time in each lifetime */
	u64 g;			/* every offset and size is a multiple of it */
	u64 proven;		/* no plan of the part is lower (or need be) */
	u64 best;		/* peak of the best plan of the part */
	u64 *best_off;
	u64 *pos;		/* scratch of a level: lowest offset of a buffer */
	u64 *low;		/* scratch of a level: 2 * tsize */
	s32 *cnt, *cross;	/* scratch of a level: ns + 1 each */
	u32 *first;		/* ns + 1: the first buffer that starts there or later */
	u32 tsize;		/* leaves of the trees, a power of two */
	void *mem;		/* the block the arrays are carved from */
	u64 steps;		/* buffers and sections looked at */
	u64 spent;		/* of them, charged as units already */
	struct npa_run run[NPA_SEARCH_RUNS];
};

static u64 npa_align(u64 x, u64 amask)
{
	return (x + amask) & ~amask;
}

static u64 npa_gcd(u64 x, u64 y)
{
	while (y) {
		u64 t = x - div64_u64(x, y) * y;

		x = y;
		y = t;
	}
	return x;
}

/*
 * @cnt elements of @size bytes at *@used in the block @mem, 8-byte aligned;
 * with @mem NULL, only what they take is counted.
 */
static void *npa_carve(void *mem, size_t *used, size_t cnt, size_t size)
{
	void *p = mem ? (char *)mem + *used : NULL;

	*used += ALIGN(cnt * size, 8);
	return p;
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

/* The highest value of the nodes of @t (@size leaves) tiling [@a, @b). */
static u64 npa_tree_max(const u64 *t, u32 size, u32 a, u32 b)
{
	u32 l = a + size, r = b + size;
	u64 h = 0;

	for (; l < r; l >>= 1, r >>= 1) {
		if (l & 1)
			h = max(h, t[l++]);
		if (r & 1)
			h = max(h, t[--r]);
	}
	return h;
}

/* The highest floor over sections [@a, @b) in @d. */
static u64 npa_run_floor(const struct npa_srch *s, const struct npa_run *d,
			 u32 a, u32 b)
{
	u64 h = npa_tree_max(d->mx, s->tsize, a, b);
	u32 x;

	/* The tags above the two ends of the range. */
	for (x = (a + s->tsize) >> 1; x; x >>= 1)
		h = max(h, d->tag[x]);
	for (x = (b - 1 + s->tsize) >> 1; x; x >>= 1)
		h = max(h, d->tag[x]);
	return h;
}

/* The highest mark over sections [@a, @b) in @d (a plain max tree). */
static u64 npa_run_mark(const struct npa_srch *s, const struct npa_run *d,
			u32 a, u32 b)
{
	return npa_tree_max(d->mk, s->tsize, a, b);
}

/* Set the mark of section @j of @d to @v. */
static void npa_run_set_mark(struct npa_srch *s, struct npa_run *d, u32 j,
			     u64 v)
{
	u32 x = j + s->tsize;

	d->mk[x] = v;
	for (x >>= 1; x; x >>= 1)
		d->mk[x] = max(d->mk[2 * x], d->mk[2 * x + 1]);
	s->steps += ilog2(s->tsize) + 1;
}

/*
 * Place buffer @i at @q in run @d: the floors of its sections become its
 * top, higher than any floor there (@q is at least their highest).
 */
static void npa_run_place(struct npa_srch *s, struct npa_run *d, u32 i, u64 q)
{
	struct npa_frame *fr = &d->fr[d->depth];
	u32 l = s->a[i] + s->tsize, r = s->b[i] + s->tsize, j, x;
	u64 top = q + s->size[i];

	fr->id = i;
	fr->tr = d->ntr;
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
	d->np++;
	d->off[i] = q;
	/* The unplaced buffers it meets are in its component, from @x. */
	for (j = s->first[fr->x]; j < s->first[s->b[i]]; j++)
		if (!d->placed[j] && npa_run_overlap(s, i, j))
			d->f[j] = max(d->f[j], top);
	s->steps += s->first[s->b[i]] - s->first[fr->x] + 4 * ilog2(s->tsize) +
		    4 + s->b[i] - s->a[i];
}

/* Undo the placement of the child of level @fr of @d. */
static void npa_run_unplace(struct npa_srch *s, struct npa_run *d,
			    struct npa_frame *fr)
{
	u32 i = fr->id, j;

	while (d->ntr > fr->tr) {
		const struct npa_trail *t = &d->tr[--d->ntr];

		d->mx[t->node] = t->mx;
		d->tag[t->node] = t->tag;
	}
	for (j = s->a[i]; j < s->b[i]; j++)
		d->u[j] += s->size[i];
	d->placed[i] = 0;
	d->np--;
	fr->id = U32_MAX;
	/* The floors it raised, from the tree: no trail per buffer. */
	for (j = s->first[fr->x]; j < s->first[s->b[i]]; j++) {
		if (d->placed[j] || !npa_run_overlap(s, i, j))
			continue;
		d->f[j] = npa_run_floor(s, d, s->a[j], s->b[j]);
		s->steps += 2 * ilog2(s->tsize) + 2;
	}
	s->steps += s->first[s->b[i]] - s->first[fr->x] + s->b[i] - s->a[i];
}

/*
 * Can unplaced buffer @i go at height @q, the height of the level, in
 * @d? Only at its floor, and not over a point left empty at @q.
 */
static bool npa_run_fits(struct npa_srch *s, const struct npa_run *d, u32 i,
			 u64 q)
{
	if (npa_align(d->f[i], s->amask[i]) != q)
		return false;
	s->steps += ilog2(s->tsize) + 1;
	return npa_run_mark(s, d, s->a[i], s->b[i]) <= q;
}

/*
 * The lowest offset at which each unplaced buffer of the component
 * [@x, @y) of @d can go, in s->pos (U64_MAX: above @qp, the height of the
 * parent level: the search places the buffers of a component by offset,
 * so a buffer below it, or at it over a point left empty there, can only
 * go on top of a buffer placed later). Returns the least of them: the
 * height of the level; U64_MAX if every buffer is above @qp, 0 with *@none
 * set if the component has no unplaced buffer.
 */
static u64 npa_run_pos(struct npa_srch *s, const struct npa_run *d, u32 x,
		       u32 y, u64 qp, bool *none)
{
	u64 q = U64_MAX;
	u32 i;

	*none = true;
	for (i = s->first[x]; i < s->first[y]; i++) {
		u64 p;

		if (d->placed[i])
			continue;
		*none = false;
		p = npa_align(d->f[i], s->amask[i]);
		if (p < qp || (p == qp && !npa_run_fits(s, d, i, qp)))
			p = U64_MAX;
		s->pos[i] = p;
		q = min(q, p);
	}
	s->steps += s->first[y] - s->first[x];
	return *none ? 0 : q;
}

/*
 * The bound at height @q in the component [@x, @y): every unplaced buffer
 * goes at or above s->pos (above @q where that is U64_MAX), and those
 * live in one section stack up: the least lowest offset of a section's
 * buffers plus their bytes must stay within @cap. The same pass over the
 * buffers counts, for npa_run_point(), in s->cnt the buffers that can go
 * at @q and in s->cross the lifetimes, both as differences by section.
 */
static bool npa_run_bound(struct npa_srch *s, const struct npa_run *d, u32 x,
			  u32 y, u64 q, u64 cap)
{
	u32 i, j, sz = roundup_pow_of_two(y - x);
	s32 *cnt = s->cnt, *cross = s->cross;
	u64 *low = s->low;

	/* A tree of the component's sections alone. */
	for (j = 1; j < 2 * sz; j++)
		low[j] = U64_MAX;
	memset(cnt + x, 0, (y - x + 1) * sizeof(*cnt));
	memset(cross + x, 0, (y - x + 1) * sizeof(*cross));
	for (i = s->first[x]; i < s->first[y]; i++) {
		u64 p = s->pos[i];
		u32 l, r;

		if (d->placed[i])
			continue;
		cross[s->a[i] + 1]++;
		cross[s->b[i]]--;
		if (p == q && (s->twin[i] == U32_MAX || d->placed[s->twin[i]])) {
			cnt[s->a[i]]++;
			cnt[s->b[i]]--;
		}
		if (p == U64_MAX)
			p = npa_align(q + s->g, s->amask[i]);
		/* Inference: a buffer that cannot go under the cap. */
		if (p + s->size[i] > cap)
			return false;
		for (l = s->a[i] - x + sz, r = s->b[i] - x + sz; l < r;
		     l >>= 1, r >>= 1) {
			if (l & 1) {
				low[l] = min(low[l], p);
				l++;
			}
			if (r & 1) {
				r--;
				low[r] = min(low[r], p);
			}
			s->steps++;
		}
	}
	for (j = 2; j < sz + y - x; j++)
		low[j] = min(low[j], low[j / 2]);
	s->steps += 2 * sz + s->first[y] - s->first[x];
	for (j = x; j < y; j++)
		if (d->u[j] && low[sz + j - x] + d->u[j] > cap)
			return false;
	return true;
}

/*
 * Choose the point of a level at height @q in the component [@x, @y) of
 * @d: the section that the fewest buffers can cover (first fail; the
 * lowest such section on a tie). Split the component where no unplaced
 * buffer crosses from one section to the next: *@px, *@py get the part
 * with the point, the others go on the pending list @head from @alloc,
 * owned by this level. Returns the section, or U32_MAX if none.
 */
static u32 npa_run_point(struct npa_srch *s, struct npa_run *d, u32 x, u32 y,
			 u64 q, u64 cap, u32 *px, u32 *py, u32 *head,
			 u32 *alloc)
{
	s32 *cnt = s->cnt, *cross = s->cross, c, k;
	u32 j, pick = U32_MAX, from;
	u64 best = U64_MAX;

	for (j = x, c = 0; j < y; j++) {
		u64 ways;

		c += cnt[j];
		if (c <= 0)
			continue;
		/*
		 * The point can also be left empty if the bytes still fit: a
		 * weak child, which the prover takes last of all.
		 */
		ways = c;
		if (q + s->g + d->u[j] <= cap)
			ways += d->prover ? s->n : 1;
		if (ways < best) {
			best = ways;
			pick = j;
		}
	}
	s->steps += 2 * (y - x);
	if (pick == U32_MAX)
		return pick;
	/* Components: runs of sections with unplaced bytes, crossed. */
	for (j = x, k = 0, from = x; j <= y; j++) {
		k += j > x ? cross[j] : 0;
		if (j < y && (j == from || k > 0))
			continue;
		if (j > from && d->u[from]) {
			if (pick >= from && pick < j) {
				*px = from;
				*py = j;
			} else {
				struct npa_pend *pe = &d->pe[(*alloc)++];

				*pe = (struct npa_pend){ q, from, j,
							 d->depth, *head };
				*head = pe - d->pe;
			}
		}
		from = j;
	}
	return pick;
}

enum { NPA_LEVEL_OK, NPA_LEVEL_LEAF, NPA_LEVEL_FAIL };

/*
 * A new level of @d: its height, the bound, its point. When the
 * component of the parent level is complete, the level goes on with the
 * next pending one (or is a leaf: a plan of the whole part).
 */
static int npa_run_level(struct npa_srch *s, struct npa_run *d, u64 cap)
{
	struct npa_frame *fr = &d->fr[d->depth], *up = fr - 1;
	u32 x = 0, y = s->ns, head = NPA_NONE, alloc = 0;
	u64 qp = 0, q;
	bool none;

	if (d->depth) {
		x = up->x;
		y = up->y;
		head = up->pend;
		alloc = up->alloc;
		qp = up->q;
	}
	fr->own = U32_MAX;
	for (;;) {
		q = npa_run_pos(s, d, x, y, qp, &none);
		if (!none)
			break;
		if (head == NPA_NONE)
			return NPA_LEVEL_LEAF;
		x = d->pe[head].x;
		y = d->pe[head].y;
		qp = d->pe[head].q;
		fr->own = d->pe[head].own;
		head = d->pe[head].next;
	}
	if (q == U64_MAX || !npa_run_bound(s, d, x, y, q, cap))
		return NPA_LEVEL_FAIL;
	fr->j = npa_run_point(s, d, x, y, q, cap, &fr->x, &fr->y, &head,
			      &alloc);
	fr->q = q;
	fr->pend = head;
	fr->alloc = alloc;
	fr->last = 0;
	fr->id = U32_MAX;
	return fr->j == U32_MAX ? NPA_LEVEL_FAIL : NPA_LEVEL_OK;
}

/*
 * The next child of the current level of @d: the next buffer in the
 * order of the ranking that covers the level's point, else leaving the
 * point empty (once). False when the level has no child left.
 */
static bool npa_run_child(struct npa_srch *s, struct npa_run *d, u64 cap)
{
	struct npa_frame *fr = &d->fr[d->depth];
	u32 i, next = U32_MAX;

	if (fr->last == NPA_EMPTY || fr->last == NPA_DONE)
		return false;
	/* The least rank from @last on of the buffers that cover the point. */
	for (i = s->first[fr->x]; i < s->first[fr->j + 1]; i++) {
		if (d->placed[i] || s->b[i] <= fr->j || d->rank[i] < fr->last)
			continue;
		if (next != U32_MAX && d->rank[i] > d->rank[next])
			continue;
		if (s->twin[i] != U32_MAX && !d->placed[s->twin[i]])
			continue;
		if (npa_run_fits(s, d, i, fr->q))
			next = i;
	}
	s->steps += s->first[fr->j + 1] - s->first[fr->x];
	if (next != U32_MAX) {
		fr->last = d->rank[next] + 1;
		npa_run_place(s, d, next, fr->q);
		fr[1].peak = max(fr->peak, fr->q + s->size[next]);
		return true;
	}
	fr->last = NPA_EMPTY;
	if (fr->q + s->g + d->u[fr->j] > cap)
		return false;
	fr->prev = d->mk[fr->j + s->tsize];
	npa_run_set_mark(s, d, fr->j, fr->q + 1);
	fr[1].peak = fr->peak;
	return true;
}

/* Undo the child of the current level of @d. */
static void npa_run_undo(struct npa_srch *s, struct npa_run *d)
{
	struct npa_frame *fr = &d->fr[d->depth];

	if (fr->id != U32_MAX)
		npa_run_unplace(s, d, fr);
	else if (fr->last == NPA_EMPTY)
		npa_run_set_mark(s, d, fr->j, fr->prev);
}

/* A leaf: a plan of the whole part. */
static void npa_run_leaf(struct npa_srch *s, struct npa_run *d)
{
	u64 peak = d->fr[d->depth].peak;

	if (peak < s->best) {
		s->best = peak;
		memcpy(s->best_off, d->off, s->n * sizeof(*d->off));
	}
	d->step *= 2;
}

/*
 * The cap of a run below the best plan: @step below it, at most halfway
 * down to what is proven. The step doubles each time the run finds a plan
 * under its cap and halves each time it restarts without one.
 */
static u64 npa_run_below(struct npa_srch *s, struct npa_run *d)
{
	u64 half = (s->best - s->proven) / 2;

	d->step = max(s->g, min(d->step, half));
	return max(s->best - d->step, s->proven);
}

/*
 * Complete the partial plan of @d (its current path) by first fit in the
 * order of its ranking, each buffer at the lowest address clear of the
 * placed buffers it meets (holes below the floors included), with the
 * occupancy index of the passes (npa_plan_fit.c), and keep it if it is
 * the best plan of the part.
 */
static void npa_run_fill(struct npa_srch *s, struct npa_run *d)
{
	struct npa_pctx *c = s->c;
	u64 peak = 0;
	u32 i, k;

	npa_fit_forget(c, s->s0, s->s0 + s->ns);
	for (i = 0; i < s->n; i++) {
		if (!d->placed[i])
			continue;
		npa_fit_put(c, s->ids[i], d->off[i]);
		peak = max(peak, d->off[i] + s->size[i]);
	}
	c->tree.steps = 0;
	for (k = 0; k < s->n && peak < s->best; k++) {
		u32 x = d->byrank[k];

		if (d->placed[x])
			continue;
		peak = max(peak, npa_fit_put(c, s->ids[x], U64_MAX) + s->size[x]);
		s->steps += NPA_SEARCH_STEPS_PER_UNIT;
	}
	s->steps += 2 * s->ns + s->n + c->tree.steps *
		    NPA_SEARCH_STEPS_PER_UNIT / NPA_PLAN_STEPS_PER_UNIT;
	if (peak < s->best) {
		s->best = peak;
		for (i = 0; i < s->n; i++)
			s->best_off[i] = c->off[s->ids[i]];
	}
}

/* A key of buffer @i of @s for a ranking. */
static u64 npa_rank_key(const struct npa_srch *s, char k, u32 i)
{
	u64 len = s->b[i] - s->a[i];

	switch (k) {
	case 'T':
		return s->tl[i];
	case 'W':
		return len;
	case 'A':
		return s->size[i] * len;
	default:
		return s->size[i];
	}
}

struct npa_rank_ctx {
	const struct npa_srch *s;
	const char *by;
};

static int npa_rank_cmp(const void *x, const void *y, const void *priv)
{
	const struct npa_rank_ctx *rc = priv;
	u32 i = *(const u32 *)x, j = *(const u32 *)y, k;

	for (k = 0; k < 3; k++) {
		u64 p = npa_rank_key(rc->s, rc->by[k], i);
		u64 q = npa_rank_key(rc->s, rc->by[k], j);

		if (p != q)
			return p > q ? -1 : 1;
	}
	return i < j ? -1 : i > j;
}

/* The rank of each buffer of the part under ranking @by. */
static void npa_srch_rank(struct npa_srch *s, u32 by, u32 *rank, u32 *order)
{
	struct npa_rank_ctx rc = { s, npa_rankings[by] };
	u32 i;

	for (i = 0; i < s->n; i++)
		order[i] = i;
	sort_r(order, s->n, sizeof(*order), npa_rank_cmp, NULL, &rc);
	for (i = 0; i < s->n; i++)
		rank[order[i]] = i;
}

/* The @i-th term (from 1) of the Luby sequence: 1 1 2 1 1 2 4 1 ... */
static u64 npa_luby(u64 i)
{
	u32 k;

	for (;;) {
		for (k = 1; (1ULL << k) - 1 < i; k++)
			;
		if (i == (1ULL << k) - 1)
			return 1ULL << (k - 1);
		i -= (1ULL << (k - 1)) - 1;
	}
}

/*
 * The ranking of @d for its next restart: its own at first, then
 * perturbed: each buffer moves down by a pseudo-random number of places
 * below the number of buffers, a random order that leans to the ranking.
 */
static void npa_run_shuffle(struct npa_srch *s, struct npa_run *d)
{
	struct npa_key *keys = s->c->keys;
	u32 i;

	npa_srch_rank(s, d->by, d->rank, d->byrank);
	if (!d->restarts)
		return;
	for (i = 0; i < s->n; i++) {
		d->rng = d->rng * 6364136223846793005ULL + 1442695040888963407ULL;
		keys[i].k1 = 2ULL * s->n - d->rank[i] -
			     (u32)(d->rng >> 33) % (s->n + 1);
		keys[i].k2 = 0;
		keys[i].id = i;
	}
	npa_plan_order_by_keys(keys, s->n, d->byrank);
	for (i = 0; i < s->n; i++)
		d->rank[d->byrank[i]] = i;
}

/* Carve the arrays of @d from @mem; returns the bytes they take. */
static size_t npa_run_carve(struct npa_srch *s, struct npa_run *d, void *mem)
{
	size_t n = s->n, t = 2 * (size_t)s->tsize, o = 0;

	d->rank = npa_carve(mem, &o, n, sizeof(*d->rank));
	d->byrank = npa_carve(mem, &o, n, sizeof(*d->byrank));
	d->f = npa_carve(mem, &o, n, sizeof(*d->f));
	d->off = npa_carve(mem, &o, n, sizeof(*d->off));
	d->mx = npa_carve(mem, &o, t, sizeof(*d->mx));
	d->tag = npa_carve(mem, &o, t, sizeof(*d->tag));
	d->mk = npa_carve(mem, &o, t, sizeof(*d->mk));
	d->u = npa_carve(mem, &o, s->ns, sizeof(*d->u));
	d->placed = npa_carve(mem, &o, n, sizeof(*d->placed));
	d->fr = npa_carve(mem, &o, d->maxdepth + 2, sizeof(*d->fr));
	d->pe = npa_carve(mem, &o, 2 * (size_t)s->ns + 2, sizeof(*d->pe));
	/* A placement saves at most 4 nodes a level of the floor tree. */
	d->tr = npa_carve(mem, &o, n * 4 * (ilog2(s->tsize) + 1),
			  sizeof(*d->tr));
	return o;
}

/* Put @d back at the root, under @cap. */
static void npa_run_reset(struct npa_srch *s, struct npa_run *d, u64 cap)
{
	u32 i, j;

	memset(d->placed, 0, s->n * sizeof(*d->placed));
	memset(d->f, 0, s->n * sizeof(*d->f));
	memset(d->mx, 0, 2 * s->tsize * sizeof(*d->mx));
	memset(d->tag, 0, 2 * s->tsize * sizeof(*d->tag));
	memset(d->mk, 0, 2 * s->tsize * sizeof(*d->mk));
	memset(d->u, 0, s->ns * sizeof(*d->u));
	for (i = 0; i < s->n; i++) {
		for (j = s->a[i]; j < s->b[i]; j++)
			d->u[j] += s->size[i];
		s->steps += s->b[i] - s->a[i];
	}
	memset(&d->fr[0], 0, sizeof(d->fr[0]));
	d->ntr = 0;
	d->depth = 0;
	d->np = 0;
	/* A restart under the same cap completes only deeper plans. */
	if (cap != d->cap)
		d->deep = 0;
	d->cut = false;
	d->cap = cap;
	d->done = npa_run_level(s, d, cap) != NPA_LEVEL_OK;
}

static int npa_run_init(struct npa_srch *s, struct npa_run *d, u32 by,
			bool at_bound, bool prover)
{
	u32 n = s->n;

	memset(d, 0, sizeof(*d));
	/* A level places a buffer or leaves a point empty. */
	d->maxdepth = 2 * n + s->ns;
	d->mem = kvzalloc(npa_run_carve(s, d, NULL), GFP_KERNEL_ACCOUNT);
	if (!d->mem)
		return -ENOMEM;
	npa_run_carve(s, d, d->mem);
	d->at_bound = at_bound;
	d->prover = prover;
	d->by = by;
	d->rng = by * 2 + at_bound;
	d->limit = NPA_SEARCH_RESTART * (u64)n;
	npa_run_shuffle(s, d);
	d->step = max(s->g, (s->best - s->proven) / 2);
	npa_run_reset(s, d, at_bound ? s->proven : npa_run_below(s, d));
	return 0;
}

/*
 * Leave the current level of @d, which has no child left: back to its
 * parent; from the first level of a pending component, back to the level
 * that left it for later, which then has no child left either (the
 * components do not meet: the others cannot make this one fit).
 */
static void npa_run_back(struct npa_srch *s, struct npa_run *d)
{
	u32 own = d->fr[d->depth].own;

	if (!d->depth) {
		d->done = true;
		return;
	}
	if (own == U32_MAX) {
		d->depth--;
		npa_run_undo(s, d);
		return;
	}
	while (d->depth > own) {
		d->depth--;
		npa_run_undo(s, d);
	}
	d->fr[own].last = NPA_DONE;
}

/*
 * Run @d for @units of work, or until it is done or the part is. A run
 * keeps its cap until it ends: below the best plan (it then starts
 * again from the root under the new best), or at what is proven.
 */
static void npa_run_go(struct npa_srch *s, struct npa_run *d, u64 units)
{
	u64 end = s->steps + units * NPA_SEARCH_STEPS_PER_UNIT;

	while (!d->done && s->best > s->proven && s->steps < end) {
		int r = NPA_LEVEL_FAIL;

		if (d->cap >= s->best) {
			/* A better plan: the next one as far below it. */
			d->nodes = 0;
			npa_run_reset(s, d, npa_run_below(s, d));
			continue;
		}
		if (++d->nodes > d->limit && !d->prover) {
			d->restarts++;
			d->nodes = 0;
			d->limit = NPA_SEARCH_RESTART * (u64)s->n *
				   npa_luby(d->restarts + 1);
			npa_run_shuffle(s, d);
			/* None found: aim closer to the best plan. */
			if (!d->at_bound)
				d->step = max(s->g, d->step / 2);
			npa_run_reset(s, d, d->at_bound ? d->cap :
				      npa_run_below(s, d));
			continue;
		}
		if (!npa_run_child(s, d, d->cap)) {
			npa_run_back(s, d);
			continue;
		}
		d->depth++;
		if (d->depth > d->maxdepth) {
			d->cut = true;
			d->fr[d->depth].own = U32_MAX;
		} else {
			r = npa_run_level(s, d, d->cap);
		}
		if (r == NPA_LEVEL_LEAF) {
			npa_run_leaf(s, d);
		} else if (r == NPA_LEVEL_FAIL) {
			npa_run_back(s, d);
		} else if (d->np >= d->deep + s->n / 16 + 1) {
			/*
			 * Each time a run gets 1/16 of the part deeper than
			 * before, its partial plan (most of a good plan),
			 * completed.
			 */
			d->deep = d->np;
			npa_run_fill(s, d);
		}
	}
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
		kvfree(s->run[k].mem);
	kvfree(s->mem);
}

/* Carve the arrays of @s from @mem; returns the bytes they take. */
static size_t npa_srch_carve(struct npa_srch *s, void *mem)
{
	size_t n = s->n, ns = s->ns, o = 0;

	s->a = npa_carve(mem, &o, n, sizeof(*s->a));
	s->b = npa_carve(mem, &o, n, sizeof(*s->b));
	s->size = npa_carve(mem, &o, n, sizeof(*s->size));
	s->amask = npa_carve(mem, &o, n, sizeof(*s->amask));
	s->twin = npa_carve(mem, &o, n, sizeof(*s->twin));
	s->tl = npa_carve(mem, &o, n, sizeof(*s->tl));
	s->best_off = npa_carve(mem, &o, n, sizeof(*s->best_off));
	s->pos = npa_carve(mem, &o, n, sizeof(*s->pos));
	s->low = npa_carve(mem, &o, 2 * (size_t)s->tsize, sizeof(*s->low));
	s->cnt = npa_carve(mem, &o, ns + 1, sizeof(*s->cnt));
	s->cross = npa_carve(mem, &o, ns + 1, sizeof(*s->cross));
	s->first = npa_carve(mem, &o, ns + 1, sizeof(*s->first));
	return o;
}

/*
 * Set up the search of the part @ids[0, @n) of c->r, whose @ns sections
 * start at @s0, from its plan in @off: its buffers in local numbering,
 * their twins and the runs. 0 or -ENOMEM.
 */
static int npa_srch_init(struct npa_srch *s, struct npa_pctx *c,
			 const u64 *off, const u32 *ids, u32 n, u32 s0, u32 ns)
{
	u32 i, j, k, *by = c->cand;

	memset(s, 0, sizeof(*s));
	s->c = c;
	s->ids = ids;
	s->n = n;
	s->ns = ns;
	s->s0 = s0;
	s->proven = c->lb;
	s->tsize = roundup_pow_of_two(max(ns, 1U));
	s->mem = kvzalloc(npa_srch_carve(s, NULL), GFP_KERNEL_ACCOUNT);
	if (!s->mem)
		return -ENOMEM;
	npa_srch_carve(s, s->mem);
	for (i = 0; i < n; i++) {
		const struct npa_rect *r = &c->r[ids[i]];

		s->a[i] = r->a - s0;
		s->b[i] = r->b - s0;
		s->size[i] = r->size;
		s->amask[i] = r->amask;
		s->best_off[i] = off[ids[i]];
		s->best = max(s->best, s->best_off[i] + r->size);
		by[i] = i;
		s->g = npa_gcd(s->g, r->size);
		if (r->amask)
			s->g = npa_gcd(s->g, r->amask + 1);
	}
	/* Peaks of canonical plans are multiples of g. */
	s->proven = div64_u64(s->proven + s->g - 1, s->g) * s->g;
	/* Twins are next to each other in this order. */
	sort_r(by, n, sizeof(*by), npa_twin_cmp, NULL, s);
	for (i = 0; i < n; i++) {
		u32 x = by[i], y = i ? by[i - 1] : U32_MAX;

		s->twin[x] = U32_MAX;
		if (i && s->a[y] == s->a[x] && s->b[y] == s->b[x] &&
		    s->size[y] == s->size[x] && s->amask[y] == s->amask[x])
			s->twin[x] = y;
	}
	/* The buffers come by start (npa_search_by_start()). */
	for (i = 0, j = 0; j <= ns; j++) {
		while (i < n && s->a[i] < j)
			i++;
		s->first[j] = i;
	}
	/* The bytes live in each section, then the most in each lifetime. */
	memset(s->low, 0, s->ns * sizeof(*s->low));
	for (i = 0; i < n; i++)
		for (j = s->a[i]; j < s->b[i]; j++)
			s->low[j] += s->size[i];
	for (i = 0; i < n; i++)
		for (j = s->a[i]; j < s->b[i]; j++)
			s->tl[i] = max(s->tl[i], s->low[j]);
	for (k = 0; k < NPA_SEARCH_RUNS; k++)
		if (npa_run_init(s, &s->run[k], k / 2, !(k & 1), !k))
			goto err_nomem;
	return 0;

err_nomem:
	npa_srch_free(s);
	return -ENOMEM;
}

/*
 * Before the next quantum of run @d. A run that searched to the end under
 * its cap proved that no plan of the part is that low (peaks are
 * multiples of s->g). It then starts again from the root: at what is now
 * proven for a run at the bound, below the best plan for the others
 * (npa_run_below()); so does a run at the bound when another one proved
 * its cap too low. Returns false when @d has nothing left to do.
 */
static bool npa_srch_cap(struct npa_srch *s, struct npa_run *d)
{
	if (d->done && !d->cut) {
		u64 c = d->cap + 1;

		s->proven = max(s->proven, div64_u64(c + s->g - 1, s->g) * s->g);
	}
	if (s->best <= s->proven || (d->done && d->cut))
		return false;
	if (d->done || (d->at_bound && d->cap < s->proven))
		npa_run_reset(s, d, d->at_bound ? s->proven :
			      npa_run_below(s, d));
	return !d->done;
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
	bool stop = false;

	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return 0;
	if (npa_srch_init(s, c, off, ids, n, s0, ns)) {
		kfree(s);
		return 0;
	}
	start = s->best;
	for (round = 0, live = 1; live && !stop && spent < given &&
	     s->best > s->proven; round++) {
		for (k = 0, live = 0; k < NPA_SEARCH_RUNS && !stop &&
		     spent < given && s->best > s->proven; k++) {
			struct npa_run *d = &s->run[k];
			u64 q = min_t(u64, (u64)NPA_SEARCH_QUANTUM << min(round, 30U),
				      given - spent), units;

			if (!npa_srch_cap(s, d))
				continue;
			live++;
			/* In chunks: the safety stop is looked at in between. */
			while (q && !d->done && s->best > s->proven) {
				npa_run_go(s, d, min_t(u64, q, NPA_SEARCH_CHUNK));
				units = (s->steps - s->spent) /
					NPA_SEARCH_STEPS_PER_UNIT;
				s->spent += units * NPA_SEARCH_STEPS_PER_UNIT;
				spent += units;
				q -= min(q, max_t(u64, units, 1));
				if (!npa_plan_spend(c, units)) {
					stop = true;
					break;
				}
			}
		}
	}
	if (s->best < start)
		for (i = 0; i < n; i++)
			off[ids[i]] = s->best_off[i];
	npa_srch_free(s);
	kfree(s);
	return spent;
}

/* A part of the instance: buffers ids[@i, @i + @n), sections from @s0. */
struct npa_part {
	u32 i, n, s0, ns;
};

/* Parts by number of buffers, then by start. */
static int npa_part_cmp(const void *x, const void *y)
{
	const struct npa_part *p = x, *q = y;

	if (p->n != q->n)
		return p->n < q->n ? -1 : 1;
	return p->i < q->i ? -1 : p->i > q->i;
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
 * parts before it left (the smaller parts go first). @big gets the buffers of the parts above the
 * bound too large to search; with a @budget of 0 only that is done.
 *
 * Return: 0, or -EINTR when stopped (the plan is then not to be used).
 */
int npa_search(struct npa_pctx *c, u64 *off, u64 budget, u32 *big)
{
	struct npa_part *pt;
	u32 *ids, i, j, k, np = 0, total = 0;
	u64 given = 0;

	ids = kvmalloc_array(c->m, sizeof(*ids), GFP_KERNEL_ACCOUNT);
	pt = kvmalloc_array(c->m, sizeof(*pt), GFP_KERNEL_ACCOUNT);
	if (!ids || !pt) {
		kvfree(ids);
		kvfree(pt);
		return -ENOMEM;
	}
	npa_search_by_start(c, ids);
	*big = 0;
	for (i = 0; i < c->m; i = j) {
		u32 end = c->r[ids[i]].b;
		u64 top = 0;

		for (j = i; j < c->m && c->r[ids[j]].a < end; j++) {
			end = max(end, c->r[ids[j]].b);
			top = max(top, off[ids[j]] + c->r[ids[j]].size);
		}
		if (top <= c->lb)
			continue;
		if (j - i > NPA_SEARCH_MAX) {
			*big += j - i;
			continue;
		}
		pt[np++] = (struct npa_part){ i, j - i, c->r[ids[i]].a,
					      end - c->r[ids[i]].a };
		total += j - i;
	}
	/*
	 * The smaller parts first: what they leave of their share goes to
	 * the larger ones after them.
	 */
	sort(pt, np, sizeof(*pt), npa_part_cmp, NULL);
	for (k = 0; k < np && budget && !c->err; k++) {
		given += budget / total * pt[k].n +
			 budget % total * pt[k].n / total;
		given -= npa_search_part(c, off, ids + pt[k].i, pt[k].n,
					 pt[k].s0, pt[k].ns, given);
	}
	kvfree(pt);
	kvfree(ids);
	return c->err;
}
