// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (C) 2025 The npa authors
 */

/**
 * DOC: npa planner exact search schedule
 *
 * What the exact search (npa_plan_search.c) searches, in which order and
 * for how long. The instance splits at the steps no lifetime crosses;
 * each part is searched alone, the smaller ones first. Two runs search
 * each part for each ranking of its buffers (the order in which a level
 * tries them): one with the cap at what is proven (at first the lower
 * bound; when it has searched everything, the cap is proven too low and
 * goes up), one a step below the best plan so far (at most halfway down
 * to what is proven; the step doubles when the run finds a plan and
 * halves when it restarts without one; it starts again from the root
 * under each better plan). Every run but one starts again after a number
 * of levels that follows the Luby sequence (8 n, 8 n, 16 n, ...) with its
 * ranking perturbed at random: a depth-first search that went wrong near
 * the root does not search that subtree to the end. The one, the prover
 * (the first ranking's run at what is proven), never starts again, so
 * that a part whose tree is larger than any restart limit still gets
 * proven; and it branches first on points that cannot be left empty:
 * leaving a point empty hardly changes what is left to place, so that
 * child's tree is nearly as large as its parent's. Their deep partial
 * plans are completed from the bottom up and by first fit. The runs take
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
#include "npa_plan_search.h"

/*
 * Rankings of the buffers (keys compared in turn, larger first; each
 * ranking has two runs): T is the most bytes live at one time during a
 * buffer's lifetime, W its length, A its area, S its size.
 */
static const char npa_rankings[NPA_RANK_COUNT][4] = {
	"TAW", "WAT", "TWA", "SWA",
};

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

/*
 * The cap of a run below the best plan: @step below it, at most halfway
 * down to what is proven. The step doubles each time the run finds a plan
 * under its cap and halves each time it restarts without one.
 */
u64 npa_run_below(struct npa_srch *s, struct npa_run *d)
{
	u64 half = (s->best - s->proven) / 2;

	d->step = max(s->g, min(d->step, half));
	return max(s->best - d->step, s->proven);
}

/* Is buffer @i before buffer @j in the heap of npa_run_rise()? */
static bool npa_rise_less(const struct npa_srch *s, const struct npa_run *d,
			  u32 i, u32 j)
{
	if (s->pos[i] != s->pos[j])
		return s->pos[i] < s->pos[j];
	return d->rank[i] < d->rank[j];
}

/* Move the heap entry at @x of @nh entries down to its place. */
static void npa_rise_down(struct npa_srch *s, const struct npa_run *d,
			  u32 x, u32 nh)
{
	u32 *h = s->heap, c;

	for (; (c = 2 * x + 1) < nh; x = c) {
		if (c + 1 < nh && npa_rise_less(s, d, h[c + 1], h[c]))
			c++;
		if (!npa_rise_less(s, d, h[c], h[x]))
			break;
		swap(h[c], h[x]);
		s->hat[h[x]] = x;
		s->hat[h[c]] = c;
		s->steps++;
	}
}

/*
 * Complete the partial plan of @d from the bottom up: of the unplaced
 * buffers, the one that can go lowest (on the tops of the buffers placed
 * during its lifetime), the first in the ranking on a tie, goes there,
 * until all are placed or the plan is no better than the best; kept if
 * it is better. A heap of the buffers by their lowest offset, which only
 * rises. Returns whether it was kept.
 */
static bool npa_run_rise(struct npa_srch *s, struct npa_run *d)
{
	u64 *pos = s->pos, *fo = s->fo, peak = 0;
	u32 i, j, nh = 0, *h = s->heap, lg = ilog2(s->n) + 1;

	for (i = 0; i < s->n; i++) {
		fo[i] = d->off[i];
		s->hat[i] = U32_MAX;
		if (d->placed[i]) {
			peak = max(peak, d->off[i] + s->size[i]);
			continue;
		}
		pos[i] = npa_align(d->f[i], s->amask[i]);
		s->hat[i] = nh;
		h[nh++] = i;
	}
	/* What it looks at, counted as it goes: it stops where that ends. */
	if (!npa_srch_room(s, (u64)s->n * (lg + 2)))
		return false;
	for (i = nh / 2; i--; )
		npa_rise_down(s, d, i, nh);
	s->steps += 2 * s->n;
	while (nh && peak < s->best) {
		u32 k = h[0];
		u64 top = pos[k] + s->size[k];

		/* Each buffer it meets moves down the heap at most lg. */
		if (!npa_srch_room(s, (u64)(s->first[s->b[k]] -
					    s->reach[s->a[k]] + 2) * (lg + 1)))
			return false;

		fo[k] = pos[k];
		peak = max(peak, top);
		s->hat[k] = U32_MAX;
		h[0] = h[--nh];
		s->hat[h[0]] = 0;
		npa_rise_down(s, d, 0, nh);
		/*
		 * The buffers it meets start no earlier than this; those the
		 * run placed are off its list.
		 */
		for (j = npa_run_next(s, d, s->reach[s->a[k]]);
		     j < s->first[s->b[k]]; j = d->nx[j], s->steps++) {
			u64 p;

			if (s->hat[j] == U32_MAX || s->b[j] <= s->a[k])
				continue;
			p = npa_align(top, s->amask[j]);
			if (p > pos[j]) {
				pos[j] = p;
				npa_rise_down(s, d, s->hat[j], nh);
			}
		}
		s->steps += lg;
	}
	if (nh || peak >= s->best)
		return false;
	s->best = peak;
	memcpy(s->best_off, fo, s->n * sizeof(*fo));
	return true;
}

/*
 * Complete the partial plan of @d (its current path) by first fit in the
 * order of its ranking, each buffer at the lowest address clear of the
 * placed buffers it meets (holes below the floors included), with the
 * occupancy index of the passes (npa_plan_fit.c), and keep it if it is
 * the best plan of the part.
 */
static void npa_run_first_fit(struct npa_srch *s, struct npa_run *d)
{
	struct npa_pctx *c = s->c;
	u64 peak = 0;
	u32 i, k;

	if (!npa_srch_room(s, 2 * s->ns + s->n))
		return;
	s->steps += 2 * s->ns + s->n;
	npa_fit_forget(c, s->s0, s->s0 + s->ns);
	for (i = 0; i < s->n; i++) {
		if (!d->placed[i])
			continue;
		npa_fit_put(c, s->ids[i], d->off[i]);
		peak = max(peak, d->off[i] + s->size[i]);
	}
	for (k = 0; k < s->n && peak < s->best; k++) {
		u32 x = d->byrank[k];
		u64 off, room;

		if (d->placed[x])
			continue;
		/*
		 * A placement: a unit, and the list entries it looks at
		 * as in a pass; only one whose bound fits starts.
		 */
		if (!npa_srch_room(s, NPA_SEARCH_STEPS_PER_UNIT + 1))
			return;
		room = s->hard - s->steps - NPA_SEARCH_STEPS_PER_UNIT - 1;
		c->tree.steps = 0;
		off = npa_fit_put_within(c, s->ids[x], U64_MAX, room /
					 NPA_SEARCH_STEPS_PER_UNIT *
					 NPA_PLAN_STEPS_PER_UNIT);
		if (off == U64_MAX) {
			s->out = true;
			return;
		}
		peak = max(peak, off + s->size[x]);
		s->steps += NPA_SEARCH_STEPS_PER_UNIT +
			    DIV_ROUND_UP(c->tree.steps * NPA_SEARCH_STEPS_PER_UNIT,
					 NPA_PLAN_STEPS_PER_UNIT);
	}
	if (peak < s->best) {
		s->best = peak;
		for (i = 0; i < s->n; i++)
			s->best_off[i] = c->off[s->ids[i]];
	}
}

/*
 * Complete the partial plan of @d both ways: from the bottom up, which
 * keeps the tight packing the search made, and by first fit, which fills
 * holes below the floors. On strips of 1000-2000 rectangles the first
 * alone is worst at +29-43%, both at +23-26%.
 */
void npa_run_fill(struct npa_srch *s, struct npa_run *d)
{
	npa_run_rise(s, d);
	npa_run_first_fit(s, d);
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

/*
 * Start @d again from the root after its limit of levels: the next limit
 * follows the Luby sequence, the ranking is perturbed again, and a run
 * below the best plan that found none aims closer to it.
 */
void npa_run_restart(struct npa_srch *s, struct npa_run *d)
{
	d->restarts++;
	d->nodes = 0;
	d->limit = NPA_SEARCH_RESTART * (u64)s->n * npa_luby(d->restarts + 1);
	npa_run_shuffle(s, d);
	if (!d->at_bound)
		d->step = max(s->g, d->step / 2);
	npa_run_reset(s, d, d->at_bound ? d->cap : npa_run_below(s, d));
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
	d->nx = npa_carve(mem, &o, n + 1, sizeof(*d->nx));
	d->pv = npa_carve(mem, &o, n + 1, sizeof(*d->pv));
	d->fr = npa_carve(mem, &o, d->maxdepth + 2, sizeof(*d->fr));
	d->pe = npa_carve(mem, &o, 2 * (size_t)s->ns + 2, sizeof(*d->pe));
	/* A placement saves at most 4 nodes a level of the floor tree. */
	d->tr = npa_carve(mem, &o, n * 4 * (ilog2(s->tsize) + 1),
			  sizeof(*d->tr));
	return o;
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
	s->load = npa_carve(mem, &o, 2 * (size_t)s->tsize, sizeof(*s->load));
	s->low = npa_carve(mem, &o, n, sizeof(*s->low));
	s->cnt = npa_carve(mem, &o, ns + 1, sizeof(*s->cnt));
	s->qs = npa_carve(mem, &o, n, sizeof(*s->qs));
	s->cs = npa_carve(mem, &o, 2 * n, sizeof(*s->cs));
	s->first = npa_carve(mem, &o, ns + 1, sizeof(*s->first));
	s->reach = npa_carve(mem, &o, ns + 1, sizeof(*s->reach));
	s->fo = npa_carve(mem, &o, n, sizeof(*s->fo));
	s->heap = npa_carve(mem, &o, n, sizeof(*s->heap));
	s->hat = npa_carve(mem, &o, n, sizeof(*s->hat));
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
	/*
	 * The earliest start of the buffers that live in section j or later
	 * (in s->cnt first), as the first of them by start.
	 */
	for (j = 0; j <= ns; j++)
		s->cnt[j] = ns;
	for (i = 0; i < n; i++)
		s->cnt[s->b[i] - 1] = min_t(s32, s->cnt[s->b[i] - 1], s->a[i]);
	for (j = ns; j--; )
		s->cnt[j] = min(s->cnt[j], s->cnt[j + 1]);
	for (j = 0; j <= ns; j++)
		s->reach[j] = s->first[s->cnt[j]];
	memset(s->cnt, 0, (ns + 1) * sizeof(*s->cnt));
	/*
	 * The bytes live in each section (as differences, then summed) in
	 * the leaves of a max tree, then the most in each lifetime.
	 */
	memset(s->load, 0, 2 * s->tsize * sizeof(*s->load));
	for (i = 0; i < n; i++) {
		s->load[s->tsize + s->a[i]] += s->size[i];
		if (s->b[i] < ns)
			s->load[s->tsize + s->b[i]] -= s->size[i];
	}
	for (j = 1; j < ns; j++)
		s->load[s->tsize + j] += s->load[s->tsize + j - 1];
	for (j = s->tsize; --j; )
		s->load[j] = max(s->load[2 * j], s->load[2 * j + 1]);
	for (i = 0; i < n; i++)
		s->tl[i] = npa_tree_max(s->load, s->tsize, s->a[i], s->b[i]);
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

	u64 sumlen = 0, lg = ilog2(roundup_pow_of_two(max(ns, 1U))) + 1;
	u64 reserve, hard = npa_sat_mul(given, NPA_SEARCH_STEPS_PER_UNIT);

	/*
	 * A step of a run, a child and a level and a level undone, looks at
	 * most at each buffer 5 lg + 10 times and each section 5 lg + 10
	 * times (npa_run_place(), npa_run_pos(), npa_run_bound(), ...), and
	 * a restart at each buffer's sections once more: the part starts
	 * only if its share holds its setup (a restart of each run) and a
	 * step.
	 */
	for (i = 0; i < n; i++)
		sumlen += c->r[ids[i]].b - c->r[ids[i]].a;
	reserve = sumlen + ((u64)n + ns) * (5 * lg + 10);
	if (hard / (NPA_SEARCH_RUNS + 1) < reserve)
		return 0;
	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return 0;
	if (npa_srch_init(s, c, off, ids, n, s0, ns)) {
		kfree(s);
		return 0;
	}
	s->hard = hard;
	s->reserve = reserve;
	s->undo = (u64)n * (2 * lg + 2) + ns + lg;
	start = s->best;
	for (round = 0, live = 1; live && !stop && spent < given &&
	     s->best > s->proven; round++) {
		for (k = 0, live = 0; k < NPA_SEARCH_RUNS && !stop &&
		     spent < given && s->best > s->proven; k++) {
			struct npa_run *d = &s->run[k];
			u64 q = min_t(u64, (u64)NPA_SEARCH_QUANTUM << min(round, 30U),
				      given - spent), units;

			/* npa_srch_cap() may start the run again. */
			if (!npa_srch_room(s, s->reserve)) {
				stop = true;
				break;
			}
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
				if (!npa_plan_spend(c, units) || s->out) {
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
		pt[np++] = (struct npa_part){ i, j - i, c->r[ids[i]].a,
					      end - c->r[ids[i]].a };
		if (j - i > NPA_SEARCH_MAX)
			*big += j - i;
		else
			total += j - i;
	}
	/*
	 * The smaller parts first: what they leave of their share goes to
	 * the larger ones after them.
	 */
	sort(pt, np, sizeof(*pt), npa_part_cmp, NULL);
	for (k = 0; k < np && budget && !c->err; k++) {
		if (pt[k].n > NPA_SEARCH_MAX)
			continue;
		given += budget / total * pt[k].n +
			 budget % total * pt[k].n / total;
		given -= npa_search_part(c, off, ids + pt[k].i, pt[k].n,
					 pt[k].s0, pt[k].ns, given);
	}
	kvfree(pt);
	kvfree(ids);
	return c->err;
}
