// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (C) 2026 The npa authors
 */

/**
 * DOC: npa planner time sweep
 *
 * A plan generator for the parts of an instance that leave no room to
 * waste: every section holds exactly the lower bound's bytes, so a plan
 * at the bound fills every byte at every step. The exact search builds
 * plans in offset order, where a flat stretch must be covered in time by
 * lifetimes that chain up by chance; here the plan is built in time
 * order, where the buffers that start at a step must fill exactly the
 * gaps the buffers that end there leave, and subset sums of sizes rarely
 * match by chance.
 *
 * The sweep goes over the steps at which buffers start. At each, the
 * buffers that ended leave gaps; from the lowest gap up, a level puts one
 * of the buffers that start there at the bottom of the gap. Pruning:
 *
 * * exact fill: what is left of a gap must be a subset sum of the
 *   buffers still to place at this step;
 * * boxes: the buffers that end at a step in one gap must be filled by
 *   buffers that start there, so a buffer whose size is no subset sum of
 *   those starters belongs to a group of enders that must lie together
 *   (the intersection of all groups whose sum is); once a neighbour that
 *   lives longer pins one side of such a buffer, its group's box is
 *   known, and no buffer that outlives the group may cross it;
 * * symmetry: buffers that start and end together and lie side by side
 *   come in one order; of twins (same size and lifetime) the first.
 *
 * A wrong order in a gap is often found only when its buffers end, many
 * steps later, so the search jumps back (conflict-directed backjumping):
 * each failure names the levels that placed the buffers it looked at,
 * and a level whose children all failed returns to the latest level
 * named, over the levels that had no part in it. The conflict sets are
 * windows of the last NPA_SWEEP_WIN levels (older levels count as all
 * named: a jump is never too far). The search starts again after a
 * number of levels that follows the Luby sequence, with the buffers of
 * each step tried in a pseudo-random order: a function of the restart
 * and the level, so the plan is one of the input and the budget.
 *
 * The layout at the current step is a list of the live buffers by
 * offset, with links that are undone (dancing links), never copied.
 * Memory is O(n). A plan found is at the bound: the part is done.
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
#include "npa_plan_search.h"

/* Levels a conflict set names one by one (a multiple of 64). */
#define NPA_SWEEP_WIN		256
#define NPA_SWEEP_WORDS		(NPA_SWEEP_WIN / 64)
/* Most enders and starters of one step whose groups are worked out. */
#define NPA_SWEEP_GROUP_END	12
#define NPA_SWEEP_GROUP_START	14
/* Most candidates, and steps, of one exact fill test. */
#define NPA_SWEEP_FILL_MAX	32
#define NPA_SWEEP_FILL_STEPS	256
/* Most buffers a box test walks over. */
#define NPA_SWEEP_WALK		32
/* Steps one level costs besides the buffers it looks at. */
#define NPA_SWEEP_LEVEL		16

/* One level: a buffer put at the bottom of the lowest gap of step @k. */
struct npa_swf {
	u64 key;		/* sort key of the last buffer tried */
	u64 seed;		/* of the order in which they are tried */
	u64 cw[NPA_SWEEP_WORDS];	/* conflict set: levels from base */
	u32 k;			/* the step (index of the event) */
	u32 cur;		/* the buffer below the gap */
	u32 left;		/* buffers of step @k still to place */
	u32 gi;			/* rem[]: the lowest ender of the gap */
	u32 x;			/* the buffer placed, or U32_MAX */
	u32 remtop;		/* rem[] entries before this level */
	u32 remst;		/* rem[]: the first ender of step @k */
	u32 evf;		/* first level of step @k */
	bool below;		/* and every level below the window */
};

struct npa_swp {
	struct npa_pctx *c;
	u32 n, ne, bot, top;
	u64 cap;
	u64 *size, *grp, *off;
	u32 *a, *b;		/* lifetime in sections of the part */
	u32 *st;		/* by start, size (larger first), end, index */
	u32 *pos;		/* place in @st */
	u32 *sst, *evt;		/* ne + 1: starters of event k, its section */
	u32 *en, *sen;		/* by end; ne: enders up to event k */
	u32 *evof;		/* event of a section, or U32_MAX */
	u32 *nx, *pv, *lev, *rem;
	u8 *used;
	struct npa_swf *fr;
	u64 *sums;		/* 1 << NPA_SWEEP_GROUP_START */
	u64 fill[NPA_SWEEP_FILL_MAX + 1];
	u64 fs[NPA_SWEEP_WORDS];	/* conflict set of a failure */
	bool fs_below;
	u32 lc;			/* the level being tried */
	u32 nrem;
	u64 rseed;
	u64 steps, hard, fill_steps;
	u64 spent;		/* units charged */
	bool stop;		/* npa_plan_spend() said so */
	void *mem;		/* the block the arrays are carved from */
	/* The state of the level being built. */
	u32 k, cur, left, gi, remst, evf;
};

static u64 npa_swp_hash(u64 z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static u64 npa_swp_end(const struct npa_swp *p, u32 x)
{
	return p->off[x] + p->size[x];
}

static u32 npa_swp_base(u32 level)
{
	return level > NPA_SWEEP_WIN ? level - NPA_SWEEP_WIN : 1;
}

/* Name level @l in the conflict set of the failure being tried. */
static void npa_swp_name(struct npa_swp *p, u32 l)
{
	u32 base = npa_swp_base(p->lc);

	if (!l || l >= p->lc)
		return;
	if (l < base) {
		p->fs_below = true;
		return;
	}
	p->fs[(l - base) / 64] |= 1ULL << ((l - base) % 64);
}

/* Name every level below the one being tried. */
static void npa_swp_name_all(struct npa_swp *p)
{
	u32 l;

	p->fs_below = true;
	for (l = npa_swp_base(p->lc); l < p->lc; l++)
		npa_swp_name(p, l);
}

static void npa_swp_name_buf(struct npa_swp *p, u32 x)
{
	if (x < p->n)
		npa_swp_name(p, p->lev[x]);
}

static void npa_swp_unlink(struct npa_swp *p, u32 x)
{
	p->nx[p->pv[x]] = p->nx[x];
	p->pv[p->nx[x]] = p->pv[x];
}

static void npa_swp_relink(struct npa_swp *p, u32 x)
{
	p->nx[p->pv[x]] = x;
	p->pv[p->nx[x]] = x;
}

/* Is there a subset of p->fill[i, cnt) (larger first) of @sum bytes? */
static bool npa_swp_subset(struct npa_swp *p, u32 i, u32 cnt, u64 sum,
			   u64 rest)
{
	if (!sum)
		return true;
	if (i == cnt || rest < sum)
		return false;
	if (++p->fill_steps > NPA_SWEEP_FILL_STEPS)
		return true;
	if (p->fill[i] <= sum &&
	    npa_swp_subset(p, i + 1, cnt, sum - p->fill[i], rest - p->fill[i]))
		return true;
	return npa_swp_subset(p, i + 1, cnt, sum, rest - p->fill[i]);
}

/* Can the buffers of step p->k still to place fill @gap bytes exactly? */
static bool npa_swp_fills(struct npa_swp *p, u64 gap)
{
	u32 i, cnt = 0;
	u64 rest = 0;

	for (i = p->sst[p->k]; i < p->sst[p->k + 1]; i++) {
		u32 x = p->st[i];

		p->steps++;
		if (p->used[x] || p->size[x] > gap)
			continue;
		if (cnt == NPA_SWEEP_FILL_MAX)
			return true;
		p->fill[cnt++] = p->size[x];
		rest += p->size[x];
	}
	p->fill_steps = 0;
	return npa_swp_subset(p, 0, cnt, gap, rest);
}

/*
 * Buffer @u lies directly below @v: the one that ends first has its box
 * pinned on that side; no buffer that outlives it may cross the box.
 */
static bool npa_swp_pair(struct npa_swp *p, u32 u, u32 v)
{
	u32 w = p->top, i;

	if ((u == p->bot ? 0 : npa_swp_end(p, u)) != p->off[v])
		return true;
	if (u != p->bot && p->b[v] > p->b[u] && p->grp[u] > p->size[u]) {
		if (p->grp[u] > npa_swp_end(p, u))
			goto fail;
		for (w = p->pv[u], i = 0; w != p->bot && i < NPA_SWEEP_WALK &&
		     npa_swp_end(p, w) > npa_swp_end(p, u) - p->grp[u];
		     w = p->pv[w], i++) {
			p->steps++;
			if (p->b[w] > p->b[u])
				goto fail;
		}
	}
	if (v != p->top && p->b[u] > p->b[v] && p->grp[v] > p->size[v]) {
		u64 hi = p->off[v] + p->grp[v];

		w = p->top;
		if (hi > p->cap)
			goto fail;
		for (w = p->nx[v], i = 0; w != p->top && i < NPA_SWEEP_WALK &&
		     p->off[w] < hi; w = p->nx[w], i++) {
			p->steps++;
			if (p->b[w] > p->b[v])
				goto fail;
		}
	}
	return true;
fail:
	/* Only where these three lie makes it fail. */
	npa_swp_name_buf(p, u);
	npa_swp_name_buf(p, v);
	npa_swp_name_buf(p, w);
	return false;
}

/* Does @x, just placed, cross a pinned box of a buffer near it? */
static bool npa_swp_cross(struct npa_swp *p, u32 x)
{
	u32 y, i;

	for (y = p->pv[x], i = 0; y != p->bot && i < NPA_SWEEP_WALK;
	     y = p->pv[y], i++) {
		u32 z = p->pv[y];

		p->steps++;
		if (p->grp[y] > p->size[y] && p->b[x] > p->b[y] &&
		    p->b[z] > p->b[y] &&
		    (z == p->bot ? 0 : npa_swp_end(p, z)) == p->off[y] &&
		    p->off[y] + p->grp[y] > p->off[x]) {
			npa_swp_name_buf(p, x);
			npa_swp_name_buf(p, y);
			npa_swp_name_buf(p, z);
			return false;
		}
	}
	for (y = p->nx[x], i = 0; y != p->top && i < NPA_SWEEP_WALK;
	     y = p->nx[y], i++) {
		u32 z = p->nx[y];

		p->steps++;
		if (p->grp[y] > p->size[y] && p->b[x] > p->b[y] &&
		    p->b[z] > p->b[y] && p->off[z] == npa_swp_end(p, y) &&
		    npa_swp_end(p, y) < npa_swp_end(p, x) + p->grp[y]) {
			npa_swp_name_buf(p, x);
			npa_swp_name_buf(p, y);
			npa_swp_name_buf(p, z);
			return false;
		}
	}
	return true;
}

/*
 * Name what the gap above p->cur depends on: the levels of this step
 * (which buffers are left), and those that placed the buffers around
 * and in the gap when it opened.
 */
static void npa_swp_name_gap(struct npa_swp *p)
{
	u32 l, j, r, g0;
	u64 at;

	for (l = p->evf; l < p->lc; l++)
		npa_swp_name(p, l);
	if (p->gi >= p->nrem) {
		npa_swp_name_all(p);
		return;
	}
	g0 = p->pv[p->rem[p->gi]];
	npa_swp_name_buf(p, g0);
	at = g0 == p->bot ? 0 : npa_swp_end(p, g0);
	for (j = p->gi; j < p->nrem; j++) {
		r = p->rem[j];
		p->steps++;
		if (p->off[r] != at)
			break;
		npa_swp_name_buf(p, r);
		at = npa_swp_end(p, r);
	}
	npa_swp_name_buf(p, p->nx[p->cur]);
}

static int npa_swp_rem_cmp(const void *x, const void *y, const void *priv)
{
	const struct npa_swp *p = priv;
	u32 i = *(const u32 *)x, j = *(const u32 *)y;

	return p->off[i] < p->off[j] ? -1 : p->off[i] > p->off[j];
}

enum { NPA_SWP_FAIL, NPA_SWP_LEVEL, NPA_SWP_DONE };

/*
 * From the state after a placement to the next gap to fill: the next
 * step when this one is done (its enders leave, lowest first), then its
 * lowest gap not yet filled, checking the boxes each filled gap pins.
 */
static int npa_swp_next(struct npa_swp *p)
{
	for (;;) {
		u32 n2, i;

		p->steps++;
		if (!p->left) {
			if (p->a[p->cur] == p->evt[p->k] &&
			    !npa_swp_pair(p, p->cur, p->nx[p->cur]))
				return NPA_SWP_FAIL;
			if (++p->k == p->ne)
				return NPA_SWP_DONE;
			p->remst = p->nrem;
			p->evf = p->lc + 1;
			for (i = p->sen[p->k - 1]; i < p->sen[p->k]; i++)
				p->rem[p->nrem++] = p->en[i];
			sort_r(p->rem + p->remst, p->nrem - p->remst,
			       sizeof(*p->rem), npa_swp_rem_cmp, NULL, p);
			for (i = p->remst; i < p->nrem; i++)
				npa_swp_unlink(p, p->rem[i]);
			p->steps += 2 * (p->nrem - p->remst) *
				    (ilog2(p->nrem - p->remst + 1) + 1);
			p->left = p->sst[p->k + 1] - p->sst[p->k];
			p->gi = p->remst;
			if (p->gi == p->nrem) {
				npa_swp_name_all(p);
				return NPA_SWP_FAIL;
			}
			p->cur = p->pv[p->rem[p->gi]];
			continue;
		}
		n2 = p->nx[p->cur];
		if (p->cur != p->top &&
		    p->off[n2] > (p->cur == p->bot ? 0 : npa_swp_end(p, p->cur))) {
			u64 at = p->cur == p->bot ? 0 : npa_swp_end(p, p->cur);

			if (!npa_swp_fills(p, p->off[n2] - at)) {
				npa_swp_name_gap(p);
				return NPA_SWP_FAIL;
			}
			return NPA_SWP_LEVEL;
		}
		/* The gap is full: on to the next one. */
		if (p->cur != p->top && p->a[p->cur] == p->evt[p->k] &&
		    !npa_swp_pair(p, p->cur, n2))
			return NPA_SWP_FAIL;
		while (p->gi < p->nrem && p->off[p->rem[p->gi]] <
		       (p->cur == p->bot ? 0 : npa_swp_end(p, p->cur))) {
			p->gi++;
			p->steps++;
		}
		if (p->gi == p->nrem || p->cur == p->top) {
			npa_swp_name_all(p);
			return NPA_SWP_FAIL;
		}
		p->cur = p->pv[p->rem[p->gi]];
	}
}

/* The key of buffer @x (its place @i in st[]) in the order of level @f. */
static u64 npa_swp_key(const struct npa_swp *p, const struct npa_swf *f, u32 i)
{
	u64 h = p->rseed ? npa_swp_hash(f->seed ^ (i * 0x9e3779b1ULL)) >> 24 : 0;

	return ((h << 24) | i) + 1;
}

static void npa_swp_save(struct npa_swp *p, struct npa_swf *f, u32 d)
{
	memset(f, 0, sizeof(*f));
	f->k = p->k;
	f->cur = p->cur;
	f->left = p->left;
	f->gi = p->gi;
	f->x = U32_MAX;
	f->remtop = p->nrem;
	f->remst = p->remst;
	f->evf = p->evf;
	f->seed = npa_swp_hash(p->rseed * 0x100000001b3ULL + d * 31 + p->k);
}

/* Undo level @f: the enders of later steps come back, its buffer goes. */
static void npa_swp_undo(struct npa_swp *p, struct npa_swf *f)
{
	while (p->nrem > f->remtop)
		npa_swp_relink(p, p->rem[--p->nrem]);
	if (f->x != U32_MAX) {
		npa_swp_unlink(p, f->x);
		p->used[f->x] = 0;
		p->lev[f->x] = 0;
		f->x = U32_MAX;
	}
}

/* Fold the conflict set of a failure into level @f (level @lc). */
static void npa_swp_fold(struct npa_swp *p, struct npa_swf *f)
{
	u32 w;

	for (w = 0; w < NPA_SWEEP_WORDS; w++)
		f->cw[w] |= p->fs[w];
	f->below |= p->fs_below;
}

static void npa_swp_clear(struct npa_swp *p)
{
	memset(p->fs, 0, sizeof(p->fs));
	p->fs_below = false;
}

/*
 * Level @d (index into p->fr) has no child left: the latest level its
 * conflict set names, which gets the rest of the set; -1 when none.
 */
static int npa_swp_jump(struct npa_swp *p, int d)
{
	struct npa_swf *f = &p->fr[d], *t;
	u32 base = npa_swp_base(d + 1), tgt = 0, tb, l;
	int w, j;

	for (w = NPA_SWEEP_WORDS - 1; w >= 0 && !tgt; w--)
		if (f->cw[w])
			tgt = base + w * 64 + ilog2(f->cw[w]);
	if (!tgt && f->below && base > 1) {
		tgt = base - 1;
		f->below = true;
	}
	if (!tgt)
		return -1;
	for (j = d; j >= (int)tgt; j--)
		npa_swp_undo(p, &p->fr[j]);
	t = &p->fr[tgt - 1];
	tb = npa_swp_base(tgt);
	/* The levels named below tgt, one by one, then those below base. */
	for (w = 0; w < NPA_SWEEP_WORDS; w++) {
		u64 m = f->cw[w];

		while (m) {
			l = base + w * 64 + ilog2(m & -m);
			m &= m - 1;
			if (l < tgt)
				t->cw[(l - tb) / 64] |= 1ULL << ((l - tb) % 64);
			p->steps++;
		}
	}
	if (f->below) {
		for (l = tb; l < min(base, tgt); l++)
			t->cw[(l - tb) / 64] |= 1ULL << ((l - tb) % 64);
		t->below = true;
		p->steps += NPA_SWEEP_WORDS;
	}
	return tgt - 1;
}

/* Try the next child of level @d. Returns a NPA_SWP_* result. */
static int npa_swp_child(struct npa_swp *p, int d, bool *none)
{
	struct npa_swf *f = &p->fr[d];
	u32 e = p->sst[f->k + 1], i, x = U32_MAX;
	u64 gap, bk = U64_MAX;

	*none = false;
	npa_swp_undo(p, f);
	p->k = f->k;
	p->cur = f->cur;
	p->left = f->left;
	p->gi = f->gi;
	p->remst = f->remst;
	p->evf = f->evf;
	p->lc = d + 1;
	npa_swp_clear(p);
	gap = p->off[p->nx[p->cur]] -
	      (p->cur == p->bot ? 0 : npa_swp_end(p, p->cur));
	for (;;) {
		u32 y, q;

		for (i = p->sst[p->k], bk = U64_MAX, x = U32_MAX; i < e; i++) {
			u64 key;

			if (p->used[p->st[i]])
				continue;
			key = npa_swp_key(p, f, i);
			if (key > f->key && key < bk) {
				bk = key;
				x = p->st[i];
			}
		}
		p->steps += e - p->sst[p->k];
		if (x == U32_MAX) {
			*none = true;
			npa_swp_name_gap(p);
			npa_swp_fold(p, f);
			return NPA_SWP_FAIL;
		}
		f->key = bk;
		if (p->size[x] > gap)
			continue;
		/* Side by side with the same lifetime: one order. */
		y = p->cur;
		if (y != p->bot && p->a[y] == p->a[x] && p->b[y] == p->b[x] &&
		    p->pos[y] > p->pos[x])
			continue;
		q = p->pos[x];
		if (q > p->sst[p->k]) {
			y = p->st[q - 1];
			if (!p->used[y] && p->size[y] == p->size[x] &&
			    p->b[y] == p->b[x])
				continue;
		}
		break;
	}
	p->off[x] = p->cur == p->bot ? 0 : npa_swp_end(p, p->cur);
	p->pv[x] = p->cur;
	p->nx[x] = p->nx[p->cur];
	npa_swp_relink(p, x);
	p->used[x] = 1;
	p->lev[x] = p->lc;
	f->x = x;
	p->cur = x;
	p->left--;
	if (!npa_swp_pair(p, p->pv[x], x) || !npa_swp_cross(p, x)) {
		npa_swp_fold(p, f);
		return NPA_SWP_FAIL;
	}
	return NPA_SWP_LEVEL;
}

/* Charge the steps taken as units; false when the planner must stop. */
static bool npa_swp_charge(struct npa_swp *p)
{
	u64 units = (p->steps - p->spent * NPA_SEARCH_STEPS_PER_UNIT) /
		    NPA_SEARCH_STEPS_PER_UNIT;

	p->spent += units;
	if (!npa_plan_spend(p->c, units))
		p->stop = true;
	return !p->stop;
}

/* Most steps one level may take: nothing starts that could end above. */
static u64 npa_swp_room(const struct npa_swp *p)
{
	return NPA_SWEEP_LEVEL + 4ULL * p->n + 8 * NPA_SWEEP_WALK +
	       NPA_SWEEP_FILL_STEPS + NPA_SWEEP_WIN;
}

/*
 * Search from the root until a plan, the end of the tree, @limit levels
 * or the end of the share. Returns NPA_SWP_DONE with a plan, else
 * NPA_SWP_FAIL (@over: the share or the tree ended).
 */
static int npa_swp_run(struct npa_swp *p, u64 limit, bool *over)
{
	u64 levels = 0;
	int d = 0, r;
	u32 i;

	for (i = 0; i < p->n; i++) {
		p->used[i] = 0;
		p->lev[i] = 0;
	}
	p->nx[p->bot] = p->top;
	p->pv[p->top] = p->bot;
	p->nrem = 0;
	p->k = 0;
	p->cur = p->bot;
	p->left = p->sst[1];
	p->gi = 0;
	p->remst = 0;
	p->evf = 1;
	p->lc = 0;
	p->steps += p->n;
	npa_swp_save(p, &p->fr[0], 0);
	*over = false;
	while (levels++ < limit) {
		bool none;

		if (p->steps > p->hard || npa_swp_room(p) > p->hard - p->steps) {
			*over = true;
			return NPA_SWP_FAIL;
		}
		p->steps += NPA_SWEEP_LEVEL;
		r = npa_swp_child(p, d, &none);
		if (none) {
			d = npa_swp_jump(p, d);
			if (d < 0) {
				*over = true;
				return NPA_SWP_FAIL;
			}
			continue;
		}
		if (r == NPA_SWP_LEVEL) {
			r = npa_swp_next(p);
			if (r == NPA_SWP_FAIL)
				npa_swp_fold(p, &p->fr[d]);
		}
		if (r == NPA_SWP_DONE)
			return NPA_SWP_DONE;
		if (r == NPA_SWP_LEVEL) {
			d++;
			npa_swp_save(p, &p->fr[d], d);
		}
		/* In chunks: the safety stop is looked at in between. */
		if (p->steps - p->spent * NPA_SEARCH_STEPS_PER_UNIT >=
		    NPA_SEARCH_CHUNK * NPA_SEARCH_STEPS_PER_UNIT &&
		    !npa_swp_charge(p)) {
			*over = true;
			return NPA_SWP_FAIL;
		}
	}
	return NPA_SWP_FAIL;
}

static int npa_swp_st_cmp(const void *x, const void *y, const void *priv)
{
	const struct npa_swp *p = priv;
	u32 i = *(const u32 *)x, j = *(const u32 *)y;

	if (p->a[i] != p->a[j])
		return p->a[i] < p->a[j] ? -1 : 1;
	if (p->size[i] != p->size[j])
		return p->size[i] > p->size[j] ? -1 : 1;
	if (p->b[i] != p->b[j])
		return p->b[i] > p->b[j] ? -1 : 1;
	return i < j ? -1 : i > j;
}

static int npa_swp_en_cmp(const void *x, const void *y, const void *priv)
{
	const struct npa_swp *p = priv;
	u32 i = *(const u32 *)x, j = *(const u32 *)y;

	if (p->b[i] != p->b[j])
		return p->b[i] < p->b[j] ? -1 : 1;
	return i < j ? -1 : i > j;
}

static int npa_swp_u64_cmp(const void *x, const void *y)
{
	u64 i = *(const u64 *)x, j = *(const u64 *)y;

	return i < j ? -1 : i > j;
}

/*
 * The group of each buffer that ends at a step where others start: the
 * enders of one gap are filled by a subset of the starters, so a set of
 * enders that can be one gap has a subset sum of the starters. The bytes
 * of the intersection of all such sets that hold a buffer go to p->grp.
 */
static void npa_swp_groups(struct npa_swp *p)
{
	u32 i, j, q, s, m, k, ke, set, sets[NPA_SWEEP_GROUP_END];

	for (i = 0; i < p->n; i++)
		p->grp[i] = p->size[i];
	for (i = 0; i < p->n; i = j) {
		u32 e = p->b[p->en[i]];

		for (j = i; j < p->n && p->b[p->en[j]] == e; j++)
			;
		k = j - i;
		ke = p->evof[e];
		if (k < 2 || k > NPA_SWEEP_GROUP_END || ke == U32_MAX)
			continue;
		m = p->sst[ke + 1] - p->sst[ke];
		/* Only what fits in the share: a group not made prunes less. */
		if (m > NPA_SWEEP_GROUP_START || p->steps > p->hard ||
		    ((1ULL << m) * (m + 2) + (1ULL << k) * (k + m + 2)) >
		    p->hard - p->steps)
			continue;
		for (s = 0; s < 1U << m; s++) {
			u64 t = 0;

			for (q = 0; q < m; q++)
				if (s >> q & 1)
					t += p->size[p->st[p->sst[ke] + q]];
			p->sums[s] = t;
		}
		sort(p->sums, 1U << m, sizeof(*p->sums), npa_swp_u64_cmp, NULL);
		p->steps += (1U << m) * (m + 2);
		for (q = 0; q < k; q++)
			sets[q] = (1U << k) - 1;
		for (set = 1; set < 1U << k; set++) {
			u32 lo = 0, hi = 1U << m;
			u64 t = 0;

			for (q = 0; q < k; q++)
				if (set >> q & 1)
					t += p->size[p->en[i + q]];
			while (lo < hi) {
				u32 mid = lo + (hi - lo) / 2;

				if (p->sums[mid] < t)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < 1U << m && p->sums[lo] == t)
				for (q = 0; q < k; q++)
					if (set >> q & 1)
						sets[q] &= set;
		}
		p->steps += (1U << k) * (k + m + 2);
		for (q = 0; q < k; q++) {
			u64 t = 0;

			for (s = 0; s < k; s++)
				if (sets[q] >> s & 1)
					t += p->size[p->en[i + s]];
			p->grp[p->en[i + q]] = t;
		}
	}
}

static size_t npa_swp_layout(struct npa_swp *p, void *mem, u32 ns)
{
	size_t n = p->n, o = 0;

	p->size = npa_carve(mem, &o, n + 2, sizeof(*p->size));
	p->grp = npa_carve(mem, &o, n, sizeof(*p->grp));
	p->off = npa_carve(mem, &o, n + 2, sizeof(*p->off));
	p->a = npa_carve(mem, &o, n + 2, sizeof(*p->a));
	p->b = npa_carve(mem, &o, n + 2, sizeof(*p->b));
	p->st = npa_carve(mem, &o, n, sizeof(*p->st));
	p->pos = npa_carve(mem, &o, n, sizeof(*p->pos));
	p->sst = npa_carve(mem, &o, n + 1, sizeof(*p->sst));
	p->evt = npa_carve(mem, &o, n + 1, sizeof(*p->evt));
	p->en = npa_carve(mem, &o, n, sizeof(*p->en));
	p->sen = npa_carve(mem, &o, n + 1, sizeof(*p->sen));
	p->evof = npa_carve(mem, &o, ns + 1, sizeof(*p->evof));
	p->nx = npa_carve(mem, &o, n + 2, sizeof(*p->nx));
	p->pv = npa_carve(mem, &o, n + 2, sizeof(*p->pv));
	p->lev = npa_carve(mem, &o, n + 2, sizeof(*p->lev));
	p->rem = npa_carve(mem, &o, n, sizeof(*p->rem));
	p->used = npa_carve(mem, &o, n, sizeof(*p->used));
	p->fr = npa_carve(mem, &o, n + 1, sizeof(*p->fr));
	p->sums = npa_carve(mem, &o, 1U << NPA_SWEEP_GROUP_START,
			    sizeof(*p->sums));
	return o;
}

/*
 * Is the part one for the sweep: every section holds the lower bound's
 * bytes, so that a plan at the bound has no free byte; no buffer needs an
 * alignment; and no step starts more buffers than its groups are worked
 * out for (npa_swp_groups()): without boxes, the orders of a step that
 * starts many buffers in one gap fail only much later, and the share is
 * better left to the exact search.
 */
static bool npa_swp_tight(struct npa_pctx *c, const u32 *ids, u32 n, u32 s0,
			  u32 ns)
{
	u64 *d = kvcalloc(ns + 1, sizeof(*d), GFP_KERNEL_ACCOUNT), load = 0;
	bool tight = !!d;
	u32 i, run = 0;

	for (i = 0; i < n && tight; i++) {
		const struct npa_rect *r = &c->r[ids[i]];

		/* @ids come by start: count the starters of each section. */
		run = i && r->a == c->r[ids[i - 1]].a ? run + 1 : 1;
		if (r->amask || run > NPA_SWEEP_GROUP_START)
			tight = false;
		d[r->a - s0] += r->size;
		d[r->b - s0] -= r->size;
	}
	for (i = 0; i < ns && tight; i++) {
		load += d[i];
		tight = load == c->lb;
	}
	kvfree(d);
	return tight;
}

/**
 * npa_sweep_part() - plan a tight part at the lower bound by a time sweep
 * @c: the planning run
 * @off: the plan (c->m offsets); the part's get the plan found
 * @ids: the buffers of the part, by start
 * @n: their number
 * @s0: the first section of the part
 * @ns: its sections
 * @given: units it may spend
 *
 * Only a part whose every section holds the lower bound's bytes (no
 * aligned buffer, no step that starts more than NPA_SWEEP_GROUP_START
 * buffers) is searched; a plan found is at the bound.
 *
 * Context: Process context; may sleep.
 * Return: the units spent.
 */
u64 npa_sweep_part(struct npa_pctx *c, u64 *off, const u32 *ids, u32 n,
		   u32 s0, u32 ns, u64 given)
{
	u64 restart = 0, hard, spent, setup;
	struct npa_swp *p;
	bool over = false;
	u32 i, j, k;
	int r = NPA_SWP_FAIL;

	hard = npa_sat_mul(given, NPA_SEARCH_STEPS_PER_UNIT);
	/* Only if the share holds the setup (two sorts) and a level. */
	setup = 4ULL * n * (ilog2(n + 1) + 2) + ns;
	if (!n || hard < setup + n + 4ULL * n + 8 * NPA_SWEEP_WALK +
	    NPA_SWEEP_LEVEL + NPA_SWEEP_FILL_STEPS + NPA_SWEEP_WIN ||
	    !npa_swp_tight(c, ids, n, s0, ns))
		return 0;
	p = kzalloc(sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p)
		return 0;
	p->n = n;
	p->mem = kvzalloc(npa_swp_layout(p, NULL, ns), GFP_KERNEL_ACCOUNT);
	if (!p->mem)
		goto err_free;
	npa_swp_layout(p, p->mem, ns);
	p->c = c;
	p->bot = n;
	p->top = n + 1;
	p->cap = c->lb;
	p->hard = hard;
	for (i = 0; i < n; i++) {
		const struct npa_rect *rc = &c->r[ids[i]];

		p->size[i] = rc->size;
		p->a[i] = rc->a - s0;
		p->b[i] = rc->b - s0;
		p->st[i] = i;
		p->en[i] = i;
	}
	p->off[p->top] = p->cap;
	p->a[p->bot] = U32_MAX;
	p->a[p->top] = U32_MAX;
	p->b[p->bot] = U32_MAX;
	p->b[p->top] = U32_MAX;
	sort_r(p->st, n, sizeof(*p->st), npa_swp_st_cmp, NULL, p);
	sort_r(p->en, n, sizeof(*p->en), npa_swp_en_cmp, NULL, p);
	for (i = 0; i <= ns; i++)
		p->evof[i] = U32_MAX;
	for (i = 0, k = 0; i < n; i++) {
		p->pos[p->st[i]] = i;
		if (!i || p->a[p->st[i]] != p->a[p->st[i - 1]]) {
			p->evt[k] = p->a[p->st[i]];
			p->evof[p->evt[k]] = k;
			p->sst[k++] = i;
		}
	}
	p->ne = k;
	p->sst[k] = n;
	/* sen[k]: the buffers that end at or before event k. */
	for (k = 0, j = 0; k < p->ne; k++) {
		while (j < n && p->b[p->en[j]] <= p->evt[k])
			j++;
		p->sen[k] = j;
	}
	p->steps = setup;
	npa_swp_groups(p);
	/* Restarts after n, n, 2n, n, n, 2n, 4n, ... levels. */
	while (!over && !p->stop && r != NPA_SWP_DONE) {
		p->rseed = restart++;
		r = npa_swp_run(p, (u64)n * npa_luby(restart), &over);
	}
	npa_swp_charge(p);
	if (r == NPA_SWP_DONE && !c->err)
		for (i = 0; i < n; i++)
			off[ids[i]] = p->off[i];
	kvfree(p->mem);
err_free:
	spent = p->spent;
	kfree(p);
	return spent;
}
