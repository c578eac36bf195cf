// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (C) 2025 The npa authors
 */

/**
 * DOC: npa planner exact search
 *
 * One run of the exact search: a depth-first branch and bound over
 * canonical plans of a part of the instance, under a cap. Drop every
 * buffer of a plan as low as it goes: each then sits at offset 0 or
 * directly on top of a buffer whose lifetime overlaps its own, and the
 * peak is no higher. The search builds such plans by offset, from the
 * bottom up. At each level, the height is the lowest offset at which an
 * unplaced buffer can still go (its floor: the highest top of the placed
 * buffers that live during it), and the level takes a point at that
 * height, one section of time: each child puts there one of the buffers
 * that can cover it, the last one leaves it empty (its section then only
 * holds buffers that sit higher, on buffers placed later). The children
 * split the plans below the level: every canonical plan under the cap is
 * one leaf, and no plan is reached twice. The point is the one with the
 * fewest children (first fail): where the cap leaves no room to waste, a
 * point only one buffer can cover costs no choice.
 *
 * Pruning, one sweep over the sections of the component a level
 * (npa_run_bound(), a heap of the buffers live in the section): the
 * buffers still to place that live in a section stack up above the
 * lowest offset any of them can still take; that plus their bytes must
 * stay within the cap,
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
 * changes on a trail and is undone from it, never copied. The unplaced
 * buffers are a list in the order of their starts, which a placement
 * leaves and its undo joins again: a level looks at those alone. Which runs
 * search which part, in which order and for how long is
 * npa_plan_sched.c's.
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
#include "npa_plan_search.h"

static bool npa_run_overlap(const struct npa_srch *s, u32 i, u32 j)
{
	return s->a[j] < s->b[i] && s->a[i] < s->b[j];
}

/*
 * The first buffer (by start) of the component from section @x that may
 * live in section @j or later: the buffers before it all end earlier.
 */
static u32 npa_run_from(const struct npa_srch *s, u32 x, u32 j)
{
	return max(s->first[x], s->reach[j]);
}

/*
 * The first unplaced buffer of @d from @i on (s->n if none), on the list
 * of the unplaced buffers: a placed buffer still points to the one that
 * followed it when it was placed, and the ones between stay placed as
 * long as it does (placements are undone in the reverse order).
 */
u32 npa_run_next(struct npa_srch *s, const struct npa_run *d, u32 i)
{
	for (; i < s->n && d->placed[i]; i = d->nx[i])
		s->steps++;
	return i;
}

/* Take buffer @i of @d off the list of the unplaced, or with @in back. */
static void npa_run_link(struct npa_run *d, u32 i, bool in)
{
	d->placed[i] = !in;
	d->nx[d->pv[i]] = in ? i : d->nx[i];
	d->pv[d->nx[i]] = in ? i : d->pv[i];
}

/* Save floor tree node @x of @d on the trail. */
static void npa_run_save(struct npa_run *d, u32 x)
{
	d->tr[d->ntr++] = (struct npa_trail){ x, d->mx[x], d->tag[x] };
}

/* The highest value of the nodes of @t (@size leaves) tiling [@a, @b). */
u64 npa_tree_max(const u64 *t, u32 size, u32 a, u32 b)
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
	npa_run_link(d, i, false);
	d->np++;
	d->off[i] = q;
	/* The unplaced buffers it meets are in its component, from @x. */
	for (j = npa_run_next(s, d, npa_run_from(s, fr->x, s->a[i]));
	     j < s->first[s->b[i]]; j = d->nx[j], s->steps++)
		if (npa_run_overlap(s, i, j))
			d->f[j] = max(d->f[j], top);
	s->steps += 4 * ilog2(s->tsize) + 4 + s->b[i] - s->a[i];
}

/* Undo the placement of the child of level @fr of @d. */
static void npa_run_unplace(struct npa_srch *s, struct npa_run *d,
			    struct npa_frame *fr)
{
	u32 i = fr->id, j;
	u64 top = d->off[i] + s->size[i];

	while (d->ntr > fr->tr) {
		const struct npa_trail *t = &d->tr[--d->ntr];

		d->mx[t->node] = t->mx;
		d->tag[t->node] = t->tag;
	}
	for (j = s->a[i]; j < s->b[i]; j++)
		d->u[j] += s->size[i];
	npa_run_link(d, i, true);
	d->np--;
	fr->id = U32_MAX;
	/*
	 * The floors it raised, from the tree: no trail per buffer. It made
	 * them its top: one that is higher it did not change.
	 */
	for (j = npa_run_next(s, d, npa_run_from(s, fr->x, s->a[i]));
	     j < s->first[s->b[i]]; j = d->nx[j], s->steps++) {
		if (!npa_run_overlap(s, i, j) || d->f[j] > top)
			continue;
		d->f[j] = npa_run_floor(s, d, s->a[j], s->b[j]);
		s->steps += 2 * ilog2(s->tsize) + 2;
	}
	s->steps += s->b[i] - s->a[i];
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
	for (i = npa_run_next(s, d, s->first[x]); i < s->first[y];
	     i = d->nx[i], s->steps++) {
		u64 p;

		*none = false;
		p = npa_align(d->f[i], s->amask[i]);
		if (p < qp || (p == qp && !npa_run_fits(s, d, i, qp)))
			p = U64_MAX;
		s->pos[i] = p;
		q = min(q, p);
	}
	return *none ? 0 : q;
}

/*
 * A heap of lowest offsets and the sections where their buffers end,
 * s->low[0, *@nh): add @v, or with @v NULL take the least away. Counts the
 * levels it moves through.
 */
static void npa_low_heap(struct npa_srch *s, u32 *nh, const struct npa_low *v)
{
	struct npa_low *h = s->low, t;
	u32 x, c;

	if (v) {
		for (x = (*nh)++; x && h[(x - 1) / 2].p > v->p;
		     x = (x - 1) / 2, s->steps++)
			h[x] = h[(x - 1) / 2];
		h[x] = *v;
		return;
	}
	t = h[--*nh];
	s->steps++;
	for (x = 0; (c = 2 * x + 1) < *nh; x = c, s->steps++) {
		if (c + 1 < *nh && h[c + 1].p < h[c].p)
			c++;
		if (h[c].p >= t.p)
			break;
		h[x] = h[c];
	}
	h[x] = t;
}

/*
 * The bound at height @q in the component [@x, @y): every unplaced buffer
 * goes at or above s->pos (above @q where that is U64_MAX), and those
 * live in one section stack up: the least lowest offset of a section's
 * buffers plus their bytes must stay within @cap. A sweep over the
 * sections, the buffers live there in a heap by their lowest offset
 * (those that ended leave it once on top). The same pass over the
 * buffers lists, for npa_run_point(), in s->qs the buffers that can go at
 * @q and in s->cs the components: the sections [from, to) of the
 * lifetimes that meet, one after the other.
 */
static bool npa_run_bound(struct npa_srch *s, const struct npa_run *d, u32 x,
			  u32 y, u64 q, u64 cap)
{
	u32 i = npa_run_next(s, d, s->first[x]), j, nh = 0, *cs = s->cs;

	s->nq = 0;
	s->ncs = 0;
	s->steps += y - x;
	for (j = x; j < y; j++) {
		for (; i < s->first[j + 1]; i = d->nx[i]) {
			u64 p = s->pos[i];

			s->steps++;
			if (!s->ncs || s->a[i] >= cs[2 * s->ncs - 1]) {
				cs[2 * s->ncs] = s->a[i];
				cs[2 * s->ncs++ + 1] = s->b[i];
			}
			cs[2 * s->ncs - 1] = max(cs[2 * s->ncs - 1], s->b[i]);
			if (p == q && (s->twin[i] == U32_MAX ||
				       d->placed[s->twin[i]]))
				s->qs[s->nq++] = i;
			if (p == U64_MAX)
				p = npa_align(q + s->g, s->amask[i]);
			/* Inference: a buffer that cannot go under the cap. */
			if (p + s->size[i] > cap)
				return false;
			npa_low_heap(s, &nh, &(struct npa_low){ p, s->b[i] });
		}
		while (nh && s->low[0].b <= j)
			npa_low_heap(s, &nh, NULL);
		if (d->u[j] && s->low[0].p + d->u[j] > cap)
			return false;
	}
	return true;
}

/*
 * Choose the point of a level at height @q in the component of @d that
 * npa_run_bound() looked at: the section that the fewest buffers can cover (first fail; the
 * lowest such section on a tie), among the sections of the lifetimes of
 * the buffers that can go at @q (s->qs, by start). Split the component
 * where no unplaced buffer crosses from one section to the next (s->cs):
 * *@px, *@py get the part with the point, the others go on the pending
 * list @head from @alloc, owned by this level. Returns the section, or
 * U32_MAX if none.
 */
static u32 npa_run_point(struct npa_srch *s, struct npa_run *d, u64 q,
			 u64 cap, u32 *px, u32 *py, u32 *head, u32 *alloc)
{
	u32 j, k, i, pick = U32_MAX, e = 0, *cs = s->cs;
	s32 *cnt = s->cnt, c = 0;
	u64 best = U64_MAX;

	for (k = 0; k < s->nq; k++) {
		cnt[s->a[s->qs[k]]]++;
		cnt[s->b[s->qs[k]]]--;
	}
	/* Their lifetimes one after the other: each section once. */
	for (k = 0; k < s->nq; k++) {
		i = s->qs[k];
		if (s->b[i] <= e)
			continue;
		if (s->a[i] > e)
			c = 0;
		for (j = max(e, s->a[i]); j < s->b[i]; j++) {
			u64 ways;

			c += cnt[j];
			/*
			 * The point can also be left empty if the bytes still
			 * fit: a weak child, which the prover takes last of all.
			 */
			ways = c;
			if (q + s->g + d->u[j] <= cap)
				ways += d->prover ? s->n : 1;
			if (ways < best) {
				best = ways;
				pick = j;
			}
			s->steps += 2;
		}
		e = s->b[i];
	}
	for (k = 0; k < s->nq; k++) {
		cnt[s->a[s->qs[k]]] = 0;
		cnt[s->b[s->qs[k]]] = 0;
	}
	s->steps += 3 * s->nq + s->ncs;
	if (pick == U32_MAX)
		return pick;
	for (k = 0; k < s->ncs; k++) {
		if (pick >= cs[2 * k] && pick < cs[2 * k + 1]) {
			*px = cs[2 * k];
			*py = cs[2 * k + 1];
		} else {
			struct npa_pend *pe = &d->pe[(*alloc)++];

			*pe = (struct npa_pend){ q, cs[2 * k], cs[2 * k + 1],
						 d->depth, *head };
			*head = pe - d->pe;
		}
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
	fr->j = npa_run_point(s, d, q, cap, &fr->x, &fr->y, &head, &alloc);
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
	for (i = npa_run_next(s, d, npa_run_from(s, fr->x, fr->j));
	     i < s->first[fr->j + 1]; i = d->nx[i], s->steps++) {
		if (s->b[i] <= fr->j || d->rank[i] < fr->last)
			continue;
		if (next != U32_MAX && d->rank[i] > d->rank[next])
			continue;
		if (s->twin[i] != U32_MAX && !d->placed[s->twin[i]])
			continue;
		if (npa_run_fits(s, d, i, fr->q))
			next = i;
	}
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
	/* Not within the reserve of a step: left as it is if it does not fit. */
	if (!npa_srch_room(s, npa_sat_mul(d->depth - own, s->undo)))
		return;
	while (d->depth > own) {
		d->depth--;
		npa_run_undo(s, d);
	}
	d->fr[own].last = NPA_DONE;
}

/* Put @d back at the root, under @cap. */
void npa_run_reset(struct npa_srch *s, struct npa_run *d, u64 cap)
{
	u32 i, j;

	memset(d->placed, 0, s->n * sizeof(*d->placed));
	/* The list of the unplaced buffers, all of them, s->n its head. */
	for (i = 0; i <= s->n; i++) {
		d->nx[i] = i < s->n ? i + 1 : 0;
		d->pv[i] = i ? i - 1 : s->n;
	}
	s->steps += s->n;
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

/*
 * Run @d for @units of work, or until it is done or the part is. A run
 * keeps its cap until it ends: below the best plan (it then starts
 * again from the root under the new best), or at what is proven.
 */
void npa_run_go(struct npa_srch *s, struct npa_run *d, u64 units)
{
	u64 end = s->steps + units * NPA_SEARCH_STEPS_PER_UNIT;

	while (!d->done && s->best > s->proven && s->steps < end &&
	       npa_srch_room(s, s->reserve)) {
		int r = NPA_LEVEL_FAIL;

		if (d->cap >= s->best) {
			/* A better plan: the next one as far below it. */
			d->nodes = 0;
			npa_run_reset(s, d, npa_run_below(s, d));
			continue;
		}
		if (++d->nodes > d->limit && !d->prover) {
			npa_run_restart(s, d);
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
