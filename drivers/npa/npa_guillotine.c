// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (C) 2025 The npa authors
 */

/**
 * DOC: npa planner, guillotine step
 *
 * For instances whose live load is the lower bound at every step, this
 * step rebuilds a guillotine tiling from the sizes and lifetimes alone,
 * bottom up. A guillotine tiling is a tree of address stacks (children of
 * one lifetime, sizes add up) and time chains (children of one size,
 * lifetimes back to back). Two pieces adjacent in time at bound c, made
 * of subsets X of the live rects of lifetime [l, c) (a "group") and Y of
 * group [c, h) with sum(X) = sum(Y), are stacked and chained into one
 * rect [l, h): a "match". Matches are found by meet in the middle over
 * the signed sizes of both groups (at most NPA_G_MITM rects) and scored
 * by the log2 of the expected number of chance matches of that shape, in
 * 1/256 bit. Candidates one of whose rects is in no rival candidate go
 * first, then the best score. When no match is left short of the end, a
 * repair undoes one made match (or two made at one bound), never makes it
 * again, and keeps the undo after which the greedy gets furthest. A deep
 * repair undoes a chain up to NPA_G_DEEP levels below an alive one, with
 * the chains above it, and is kept only when the greedy gets further
 * still and ends with fewer pieces than the stall (on strip 8000 / 11 of
 * npa-bench no shallow undo helps, two deep ones end it); deep repairs
 * stop after a quarter of the budget (on the strips they do not help
 * they took all of it). Phases of settings bound the repairs. When still
 * stalled, the live pieces are a small tight instance: it is planned by
 * npa_plan_nested() (and, when that plan is above the bound, so are the
 * pieces one match down) and each piece's tiling is placed at the
 * piece's offset.
 *
 * Instances that are no guillotine tiling are given back early: a first
 * greedy pass above NPA_G_FIRST_UNITS a rect, or more than n / 32 + 32
 * pieces left when it stalls.
 *
 * Memory, all in one context (no n x n anywhere): NPA_G_NODES nodes (40
 * bytes), groups (32) and hash slots per rect, NPA_G_TC candidates per
 * bound (1.1 KiB, at most 2 bounds a rect), a pair cache of 2-4 entries
 * per rect (216 bytes each): at most about 4 KiB per rect, 1-2 KiB on
 * strips, plus 0.8 MiB of meet-in-the-middle scratch and 22 KiB of
 * deep-repair paths.
 */

#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/types.h>

#include "npa_guillotine.h"

/* Most rects of a match (both groups): 2^(NPA_G_MITM / 2) sums a half. */
#define NPA_G_MITM	28
#define NPA_G_HALF	(1U << (NPA_G_MITM / 2))
/* Zero-sum subsets looked at per pair of groups. */
#define NPA_G_ZMAX	256
/* Candidates kept per pair of groups, and per bound. */
#define NPA_G_PC	8
#define NPA_G_TC	8
/* Nodes per rect: the rects, what matches make, and repairs leave. */
#define NPA_G_NODES	8
/* Matches a repair may forbid, in all. */
#define NPA_G_FORBID	1024
/* Deep repairs: chains down from an alive one, and paths looked at. */
#define NPA_G_DEEP	10
#define NPA_G_DMAX	512
/* Keys of a look: per alive piece; a pair undone, a deep undo a level. */
#define NPA_G_KALIVE	64
#define NPA_G_KPAIR	16
/* Deep repairs stop when they have spent this part of the budget. */
#define NPA_G_DEEP_SHARE	4
/* Scores (1/256 bit): below AMB a rival, below SPLIT a piece of its own. */
#define NPA_G_AMB	(-3 * 256)
#define NPA_G_SPLIT	(-6 * 256)
#define NPA_G_NONE	U32_MAX

enum { NPA_G_LEAF, NPA_G_STACK, NPA_G_CHAIN };

/* A rect (leaf) or a piece made of two (a stack: l below r, or a chain). */
struct npa_gnode {
	u64 size;
	u32 lo, hi;		/* compressed time */
	u32 l, r;
	u32 grp;		/* its group, while alive */
	u32 prev, next;		/* in the group, while alive */
	u8 kind;
};

/* The alive pieces of one lifetime, in the order they joined. */
struct npa_ggroup {
	u32 lo, hi;
	u32 head, tail, cnt;
	u32 ver;		/* bumped on every change */
	u32 next_end, next_start;	/* lists per bound */
};

/* A zero-sum subset of two groups: g1's members, then g2's, by mask. */
struct npa_gmatch {
	u64 mask;
	u32 g1, g2;
	s32 score;
};

/* The candidates of a pair of groups, at their versions. */
struct npa_gpc {
	u32 g1, g2, v1, v2;	/* g1 + 1: 0 is an empty slot */
	u32 n;
	struct npa_gmatch m[NPA_G_PC];
};

/* A candidate at one bound, with its rects (for the rival counts). */
struct npa_gtc {
	struct npa_gmatch m;
	u32 n;
	u32 ids[NPA_G_MITM];
};

struct npa_ghalf {
	s64 sum;
	u32 mask;
};

struct npa_gctx {
	struct npa_gnode *nd;
	u32 nn, ncap, n;
	struct npa_ggroup *g;
	u32 ng;
	u32 *hash, hmask;	/* (lo, hi) -> group + 1 */
	u32 *ends, *starts;	/* per bound: first group */
	u32 nt;
	u32 alive;		/* pieces in the groups */
	u32 *deg;		/* per node: rival candidates it is in */
	u8 *checked;		/* per bound: tc[] is up to date */
	struct npa_gtc *tc;	/* per bound: NPA_G_TC candidates */
	u32 *ntc;
	struct npa_gpc *pc;
	u32 pcmask;
	u32 *tmp;		/* ncap: ids of undone matches, offsets stack */
	u64 *forbid;		/* NPA_G_FORBID set hashes */
	u32 nforbid;
	u32 *dpath;		/* NPA_G_DMAX paths of NPA_G_DEEP chains */
	u8 *dlen;
	u32 *dmem;		/* NPA_G_DEEP x NPA_G_MITM: the walk's members */
	struct npa_ghalf *ha, *hb, *ht;	/* NPA_G_HALF each */
	u64 *zm;		/* NPA_G_ZMAX */
	bool excl, deep;
	u64 work, budget;
	u64 deep_work, deep_cap;	/* spent on deep repairs, and the most */
	u64 next_check;
	const struct npa_guillo_params *gp;
	bool out_of_time;
};

/*
 * Phases of repairs: exclusive candidates first or not, deep repairs or
 * not, and how many.
 */
static const struct {
	bool excl, deep;
	u32 repairs;
} npa_g_phases[] = {
	{ true, true, 8 }, { true, false, 16 }, { false, true, 8 },
};

/* log2(k!) in 1/256 bit, k <= NPA_G_MITM. */
static const u16 npa_g_lfact[NPA_G_MITM + 1] = {
	0, 0, 256, 662, 1174, 1768, 2430, 3149, 3917, 4728, 5579, 6464, 7382,
	8329, 9304, 10304, 11328, 12374, 13442, 14529, 15636, 16760, 17902,
	19060, 20234, 21422, 22626, 23843, 25074,
};

/* log2(@x) in 1/256 bit, by squaring the mantissa; 0 for 0. */
static s32 npa_g_log2(u64 x)
{
	u32 k, i, frac = 0;
	u64 y;

	if (!x)
		return 0;
	k = ilog2(x);
	y = (x << (63 - k)) >> 32;	/* 1.31 fixed point, in [1, 2) */
	for (i = 0; i < 8; i++) {
		y = (y * y) >> 31;
		frac <<= 1;
		if (y >= 1ULL << 32) {
			frac |= 1;
			y >>= 1;
		}
	}
	return (s32)(k << 8 | frac);
}

static s32 npa_g_lbin(u32 m, u32 k)
{
	return npa_g_lfact[m] - npa_g_lfact[k] - npa_g_lfact[m - k];
}

/*
 * How likely a random pair of subsets of these shapes has equal sums: the
 * log2 of the expected number of such pairs, lower is more certain.
 */
static s32 npa_g_score(u32 m1, u32 p, u32 m2, u32 q, u64 sum)
{
	return npa_g_lbin(m1, p) + npa_g_lbin(m2, q) - npa_g_log2(sum);
}

/* True when the wall-clock cap is hit or the caller is being killed. */
static bool npa_g_stop(struct npa_gctx *x)
{
	if (x->work >= x->budget || x->out_of_time)
		return true;
	if (x->work >= x->next_check) {
		x->next_check = x->work + 64 * NPA_GUILLO_UNITS;
		cond_resched();
		if (ktime_get_ns() - x->gp->t0 > x->gp->cap_ns ||
		    fatal_signal_pending(current))
			x->out_of_time = true;
	}
	return x->out_of_time;
}

static u32 npa_g_hkey(u32 a, u32 b)
{
	return (u32)((((u64)a << 32) | b) * 0x9e3779b97f4a7c15ULL >> 32);
}

/* The splitmix64 finalizer, for the hashes of sets of rects. */
static u64 npa_g_mix(u64 z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static u64 npa_g_ids_hash(const u32 *ids, u32 k)
{
	u64 h = 0;
	u32 i;

	for (i = 0; i < k; i++)
		h += npa_g_mix(ids[i]);
	return h;
}

/* The group of lifetime [@lo, @hi), made if new; NPA_G_NONE if full. */
static u32 npa_g_group(struct npa_gctx *x, u32 lo, u32 hi)
{
	u32 h = npa_g_hkey(lo, hi) & x->hmask;
	struct npa_ggroup *g;

	for (; x->hash[h]; h = (h + 1) & x->hmask) {
		g = &x->g[x->hash[h] - 1];
		if (g->lo == lo && g->hi == hi)
			return x->hash[h] - 1;
	}
	if (x->ng == x->ncap)
		return NPA_G_NONE;
	g = &x->g[x->ng];
	memset(g, 0, sizeof(*g));
	g->lo = lo;
	g->hi = hi;
	g->head = NPA_G_NONE;
	g->tail = NPA_G_NONE;
	g->next_end = x->ends[hi];
	x->ends[hi] = x->ng;
	g->next_start = x->starts[lo];
	x->starts[lo] = x->ng;
	x->hash[h] = x->ng + 1;
	return x->ng++;
}

/*
 * Node @id joins its group, last. The groups are made before they fill
 * (one per node at most, ncap of each), so this cannot fail.
 */
static void npa_g_add(struct npa_gctx *x, u32 id)
{
	struct npa_gnode *v = &x->nd[id];
	struct npa_ggroup *g = &x->g[v->grp];

	v->prev = g->tail;
	v->next = NPA_G_NONE;
	if (g->tail != NPA_G_NONE)
		x->nd[g->tail].next = id;
	else
		g->head = id;
	g->tail = id;
	g->cnt++;
	g->ver++;
	x->alive++;
}

static void npa_g_del(struct npa_gctx *x, u32 id)
{
	struct npa_gnode *v = &x->nd[id];
	struct npa_ggroup *g = &x->g[v->grp];

	if (v->prev != NPA_G_NONE)
		x->nd[v->prev].next = v->next;
	else
		g->head = v->next;
	if (v->next != NPA_G_NONE)
		x->nd[v->next].prev = v->prev;
	else
		g->tail = v->prev;
	g->cnt--;
	g->ver++;
	x->alive--;
}

/* A new node, not in a group yet; NPA_G_NONE when out of nodes. */
static u32 npa_g_node(struct npa_gctx *x, u64 size, u32 lo, u32 hi, u32 l,
		      u32 r, u8 kind)
{
	struct npa_gnode *v;
	u32 grp;

	if (x->nn == x->ncap)
		return NPA_G_NONE;
	grp = npa_g_group(x, lo, hi);
	if (grp == NPA_G_NONE)
		return NPA_G_NONE;
	v = &x->nd[x->nn];
	v->size = size;
	v->lo = lo;
	v->hi = hi;
	v->l = l;
	v->r = r;
	v->kind = kind;
	v->grp = grp;
	x->deg[x->nn] = 0;
	return x->nn++;
}

/* Members of group @gi, into @out; their number. */
static u32 npa_g_members(const struct npa_gctx *x, u32 gi, u32 *out)
{
	u32 id, k = 0;

	for (id = x->g[gi].head; id != NPA_G_NONE; id = x->nd[id].next)
		out[k++] = id;
	return k;
}

/* The members of group @gi chosen by @mask, into @out; their number. */
static u32 npa_g_mask_members(const struct npa_gctx *x, u32 gi, u64 mask,
			      u32 *out)
{
	u32 id, k = 0;

	for (id = x->g[gi].head; id != NPA_G_NONE; id = x->nd[id].next) {
		if (mask & 1)
			out[k++] = id;
		mask >>= 1;
	}
	return k;
}

/* Sorted subset sums of @v[0, @k) with their masks, by merging. */
static u32 npa_g_sums(const s64 *v, u32 k, struct npa_ghalf *out,
		      struct npa_ghalf *tmp)
{
	u32 n = 1, i;

	out[0] = (struct npa_ghalf){ 0, 0 };
	for (i = 0; i < k; i++) {
		u32 p = 0, q = 0, o = 0;

		while (p < n || q < n) {
			s64 sq = q < n ? out[q].sum + v[i] : 0;

			if (q >= n || (p < n && out[p].sum <= sq)) {
				tmp[o++] = out[p++];
			} else {
				tmp[o].sum = sq;
				tmp[o].mask = out[q++].mask | 1U << i;
				o++;
			}
		}
		memcpy(out, tmp, o * sizeof(*out));
		n = o;
	}
	return n;
}

static s32 npa_g_mask_score(const s64 *v, u32 m, u32 m1, u64 mk)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < m1; i++)
		if (mk >> i & 1)
			sum += v[i];
	return npa_g_score(m1, hweight64(mk & (BIT_ULL(m1) - 1)), m - m1,
			   hweight64(mk >> m1), sum);
}

static bool npa_g_forbidden(const struct npa_gctx *x, const u32 *ids, u64 mk)
{
	u64 h = 0;
	u32 i;

	if (!x->nforbid)
		return false;
	for (i = 0; mk; i++, mk >>= 1)
		if (mk & 1)
			h += npa_g_mix(ids[i]);
	for (i = 0; i < x->nforbid; i++)
		if (x->forbid[i] == h)
			return true;
	return false;
}

/*
 * The best NPA_G_PC candidates of groups @g1 (ending at a bound) and @g2
 * (starting there), by score, into @out; their number. Of the zero-sum
 * subsets of the signed sizes, found by meet in the middle, the ones that
 * split into two plausible pieces side by side are skipped. Sizes are at
 * most the load, which fits in s64, and so does every sum of a group.
 */
static u32 npa_g_pair_eval(struct npa_gctx *x, u32 g1, u32 g2,
			   struct npa_gmatch *out)
{
	u32 m1 = x->g[g1].cnt, m = m1 + x->g[g2].cnt, i, na, nb, sa, sb;
	u32 p, q, nz = 0, nout = 0, z, y, at;
	u32 ids[NPA_G_MITM];
	s64 v[NPA_G_MITM], nv[NPA_G_MITM];

	if (m > NPA_G_MITM)
		return 0;
	npa_g_members(x, g1, ids);
	npa_g_members(x, g2, ids + m1);
	for (i = 0; i < m; i++)
		v[i] = i < m1 ? (s64)x->nd[ids[i]].size :
				-(s64)x->nd[ids[i]].size;
	na = m / 2;
	nb = m - na;
	for (i = 0; i < nb; i++)
		nv[i] = -v[na + i];	/* the second half negated: equal sums */
	sa = npa_g_sums(v, na, x->ha, x->ht);
	sb = npa_g_sums(nv, nb, x->hb, x->ht);
	x->work += sa + sb;
	for (p = 0, q = 0; p < sa && q < sb;) {
		s64 s = x->ha[p].sum;
		u32 q0;

		if (s < x->hb[q].sum) {
			p++;
			continue;
		}
		if (s > x->hb[q].sum) {
			q++;
			continue;
		}
		/*
		 * Equal sizes make runs of equal sums: their product is
		 * bounded by the zero-sum subsets kept, and the forbidden.
		 */
		for (q0 = q; p < sa && x->ha[p].sum == s; p++) {
			for (q = q0; q < sb && x->hb[q].sum == s; q++) {
				u64 mk = x->ha[p].mask |
					 (u64)x->hb[q].mask << na;

				if (mk && !npa_g_forbidden(x, ids, mk))
					x->zm[nz++] = mk;
				if (nz == NPA_G_ZMAX)
					goto full;
			}
		}
		while (q < sb && x->hb[q].sum == s)
			q++;
	}
full:
	x->work += nz;
	for (z = 0; z < nz; z++) {
		u64 mk = x->zm[z];
		s32 sc = npa_g_mask_score(v, m, m1, mk);

		if (nout == NPA_G_PC && sc >= out[nout - 1].score)
			continue;
		for (y = 0; y < nz; y++)
			if (y != z && (x->zm[y] & mk) == x->zm[y] &&
			    npa_g_mask_score(v, m, m1, x->zm[y]) < NPA_G_SPLIT &&
			    npa_g_mask_score(v, m, m1, mk & ~x->zm[y]) <
			    NPA_G_SPLIT)
				break;
		x->work += y;
		if (y < nz)
			continue;
		if (nout < NPA_G_PC)
			nout++;
		for (at = nout - 1; at && out[at - 1].score > sc; at--)
			out[at] = out[at - 1];
		out[at] = (struct npa_gmatch){
			.mask = mk, .g1 = g1, .g2 = g2, .score = sc,
		};
	}
	return nout;
}

/* The candidates of @g1, @g2 from the cache, evaluated if stale. */
static const struct npa_gpc *npa_g_pair(struct npa_gctx *x, u32 g1, u32 g2)
{
	struct npa_gpc *e = &x->pc[npa_g_hkey(g1, g2) & x->pcmask];

	if (e->g1 != g1 + 1 || e->g2 != g2 || e->v1 != x->g[g1].ver ||
	    e->v2 != x->g[g2].ver) {
		e->g1 = g1 + 1;
		e->g2 = g2;
		e->v1 = x->g[g1].ver;
		e->v2 = x->g[g2].ver;
		e->n = npa_g_pair_eval(x, g1, g2, e->m);
	}
	return e;
}

/* The rects of match @m, into @out; their number. */
static u32 npa_g_match_members(const struct npa_gctx *x,
			       const struct npa_gmatch *m, u32 *out)
{
	u32 k = npa_g_mask_members(x, m->g1, m->mask, out);

	return k + npa_g_mask_members(x, m->g2, m->mask >> x->g[m->g1].cnt,
				      out + k);
}

static void npa_g_deg(struct npa_gctx *x, const struct npa_gtc *t, int d)
{
	u32 i;

	if (t->m.score >= NPA_G_AMB)
		return;
	for (i = 0; i < t->n; i++)
		x->deg[t->ids[i]] += d;
}

/* The NPA_G_TC best candidates at bound @c, by score (ties: first seen). */
static void npa_g_time_cands(struct npa_gctx *x, u32 c)
{
	struct npa_gtc *tc = x->tc + (size_t)c * NPA_G_TC;
	u32 n = 0, i, at, g1, g2;

	for (i = 0; i < x->ntc[c]; i++)
		npa_g_deg(x, &tc[i], -1);
	for (g1 = x->ends[c]; g1 != NPA_G_NONE; g1 = x->g[g1].next_end) {
		if (!x->g[g1].cnt)
			continue;
		for (g2 = x->starts[c]; g2 != NPA_G_NONE;
		     g2 = x->g[g2].next_start) {
			const struct npa_gpc *e;

			/* Many groups at one bound: the budget ends it. */
			if (x->work >= x->budget)
				goto out;
			if (!x->g[g2].cnt)
				continue;
			e = npa_g_pair(x, g1, g2);
			x->work += 1 + e->n;
			for (i = 0; i < e->n; i++) {
				const struct npa_gmatch *m = &e->m[i];

				if (n == NPA_G_TC && m->score >= tc[n - 1].m.score)
					break;
				if (n < NPA_G_TC)
					n++;
				for (at = n - 1; at && tc[at - 1].m.score > m->score; at--)
					tc[at] = tc[at - 1];
				tc[at].m = *m;
				tc[at].n = npa_g_match_members(x, m, tc[at].ids);
			}
		}
	}
out:
	x->ntc[c] = n;
	for (i = 0; i < n; i++)
		npa_g_deg(x, &tc[i], 1);
}

/* Stack @cnt alive rects of one lifetime into one; NPA_G_NONE if full. */
static u32 npa_g_stack(struct npa_gctx *x, const u32 *ids, u32 cnt)
{
	u32 acc = ids[0], i;

	for (i = 1; i < cnt; i++) {
		acc = npa_g_node(x, x->nd[acc].size + x->nd[ids[i]].size,
				 x->nd[acc].lo, x->nd[acc].hi, acc, ids[i],
				 NPA_G_STACK);
		if (acc == NPA_G_NONE)
			return acc;
	}
	return acc;
}

/*
 * Make match @m: stack X, stack Y, chain the two. False (nothing changed)
 * when out of nodes.
 */
static bool npa_g_apply(struct npa_gctx *x, const struct npa_gmatch *m)
{
	u32 ids[NPA_G_MITM], k1, k2, a, b, t, i, from = x->nn;

	k1 = npa_g_mask_members(x, m->g1, m->mask, ids);
	k2 = npa_g_mask_members(x, m->g2, m->mask >> x->g[m->g1].cnt,
				ids + k1);
	a = npa_g_stack(x, ids, k1);
	b = a == NPA_G_NONE ? a : npa_g_stack(x, ids + k1, k2);
	t = b == NPA_G_NONE ? b :
	    npa_g_node(x, x->nd[a].size, x->nd[a].lo, x->nd[b].hi, a, b,
		       NPA_G_CHAIN);
	if (t == NPA_G_NONE) {
		x->nn = from;
		return false;
	}
	for (i = 0; i < k1 + k2; i++)
		npa_g_del(x, ids[i]);
	npa_g_add(x, t);
	return true;
}

/* All alive pieces span the whole time. */
static bool npa_g_done(const struct npa_gctx *x)
{
	u32 i;

	for (i = 0; i < x->ng; i++)
		if (x->g[i].cnt && (x->g[i].lo || x->g[i].hi != x->nt - 1))
			return false;
	return true;
}

/*
 * The members of the stack @v (stack nodes down to the others), appended
 * to @out at @k; the new count. A stack holds at most NPA_G_MITM members
 * and is left-deep, so the explicit stack stays small.
 */
static u32 npa_g_stack_members(const struct npa_gctx *x, u32 v, u32 *out,
			       u32 k)
{
	u32 st[2 * NPA_G_MITM + 2], sp = 0;

	st[sp++] = v;
	while (sp) {
		v = st[--sp];
		if (x->nd[v].kind != NPA_G_STACK || sp + 2 > ARRAY_SIZE(st)) {
			out[k++] = v;
			continue;
		}
		st[sp++] = x->nd[v].r;
		st[sp++] = x->nd[v].l;
	}
	return k;
}

/* The members of both stacks of chain @v into @out[@k...]; the new count. */
static u32 npa_g_chain_members(const struct npa_gctx *x, u32 v, u32 *out,
			       u32 k)
{
	k = npa_g_stack_members(x, x->nd[v].l, out, k);
	return npa_g_stack_members(x, x->nd[v].r, out, k);
}

/* Undo the match that made the alive chain @r: its rects back in groups. */
static u32 npa_g_unmake(struct npa_gctx *x, u32 r, u32 *ids)
{
	u32 k = npa_g_chain_members(x, r, ids, 0), i;

	npa_g_del(x, r);
	for (i = 0; i < k; i++)
		npa_g_add(x, ids[i]);
	return k;
}

static void npa_g_remake(struct npa_gctx *x, u32 r, const u32 *ids, u32 k)
{
	u32 i;

	for (i = 0; i < k; i++)
		npa_g_del(x, ids[i]);
	npa_g_add(x, r);
}

/*
 * Make the most certain match while there is one: exclusive candidates
 * (one of their rects is in no rival) first when x->excl, else the best
 * score. Each pick costs a scan of the bounds; the bounds a match touches
 * are looked at again.
 */
static void npa_g_greedy(struct npa_gctx *x)
{
	u32 c, i, j;

	while (!npa_g_stop(x)) {
		const struct npa_gtc *pick = NULL;
		s32 be = S32_MAX, bs = S32_MAX;
		u32 bc = 0, t;

		for (c = 1; c + 1 < x->nt; c++) {
			const struct npa_gtc *tc = x->tc + (size_t)c * NPA_G_TC;

			if (!x->checked[c]) {
				npa_g_time_cands(x, c);
				x->checked[c] = 1;
			}
			if (!x->ntc[c])
				continue;
			if (tc[0].m.score < bs) {
				bs = tc[0].m.score;
				if (!pick || !x->excl || be == S32_MAX) {
					pick = &tc[0];
					bc = c;
				}
			}
			for (i = 0; x->excl && i < x->ntc[c]; i++) {
				if (tc[i].m.score >= NPA_G_AMB ||
				    tc[i].m.score >= be)
					break;
				for (j = 0; j < tc[i].n; j++) {
					if (x->deg[tc[i].ids[j]] == 1) {
						be = tc[i].m.score;
						pick = &tc[i];
						bc = c;
						break;
					}
				}
			}
		}
		x->work += x->nt;
		if (!pick || !npa_g_apply(x, &pick->m))
			break;
		t = x->nn - 1;
		x->checked[x->nd[t].lo] = 0;
		x->checked[x->nd[t].hi] = 0;
		x->checked[bc] = 0;
	}
}

/*
 * Undo the matches made from node @from on (a chain made later is undone
 * first, so each is alive when undone) and reuse their nodes. The rival
 * counts of the candidates of every bound go first: they may name them.
 */
static void npa_g_rollback(struct npa_gctx *x, u32 from, u32 *tmp)
{
	u32 v, c, i;

	for (c = 0; c < x->nt; c++) {
		for (i = 0; i < x->ntc[c]; i++)
			npa_g_deg(x, &x->tc[(size_t)c * NPA_G_TC + i], -1);
		x->ntc[c] = 0;
	}
	x->work += x->nt;
	for (v = x->nn; v-- > from;)
		if (x->nd[v].kind == NPA_G_CHAIN)
			npa_g_unmake(x, v, tmp);
	x->nn = from;
	memset(x->checked, 0, x->nt);
}

/*
 * How far the greedy gets from here, rolled back after: 0 to the end,
 * else NPA_G_KALIVE x the alive pieces (U64_MAX if it made no match).
 */
static u64 npa_g_look(struct npa_gctx *x, u32 *tmp)
{
	u32 from = x->nn;
	u64 key;

	memset(x->checked, 0, x->nt);
	npa_g_greedy(x);
	key = npa_g_done(x) ? 0 : (u64)NPA_G_KALIVE * x->alive;
	if (key && x->nn == from)
		key = U64_MAX;
	npa_g_rollback(x, from, tmp);
	return key;
}

/*
 * The chains under the alive chains @cand[0, @nc), down to NPA_G_DEEP
 * levels: each path from an alive chain to one below it (two chains or
 * more), depth first, into x->dpath; their number, at most NPA_G_DMAX.
 * The walk keeps each level's members and the next one to look at.
 */
static u32 npa_g_deep_collect(struct npa_gctx *x, const u32 *cand, u32 nc)
{
	u32 path[NPA_G_DEEP], nmem[NPA_G_DEEP], pos[NPA_G_DEEP];
	u32 ci, len, nd = 0, v, *mem;

	for (ci = 0; ci < nc && nd < NPA_G_DMAX; ci++) {
		v = cand[ci];
		len = 1;
		path[0] = v;
		mem = x->dmem;
		nmem[0] = npa_g_chain_members(x, v, mem, 0);
		pos[0] = 0;
		x->work += nmem[0];
		while (len && nd < NPA_G_DMAX) {
			u32 lv = len - 1;

			if (pos[lv] == nmem[lv]) {
				len--;
				continue;
			}
			v = x->dmem[lv * NPA_G_MITM + pos[lv]++];
			if (x->nd[v].kind != NPA_G_CHAIN)
				continue;
			path[len] = v;
			nmem[len] = 0;
			pos[len] = 0;
			len++;
			memcpy(x->dpath + nd * NPA_G_DEEP, path,
			       len * sizeof(*path));
			x->dlen[nd++] = len;
			if (len == NPA_G_DEEP)
				continue;
			mem = x->dmem + lv * NPA_G_MITM + NPA_G_MITM;
			nmem[len - 1] = npa_g_chain_members(x, v, mem, 0);
			x->work += nmem[len - 1];
		}
	}
	return nd;
}

/* Undo the chains of path @d, top down; their rects' counts in @ks. */
static u32 npa_g_deep_unmake(struct npa_gctx *x, u32 d, u32 *ids, u32 *ks)
{
	const u32 *path = x->dpath + d * NPA_G_DEEP;
	u32 i, off = 0;

	for (i = 0; i < x->dlen[d]; i++) {
		ks[i] = npa_g_unmake(x, path[i], ids + off);
		off += ks[i];
	}
	return off;
}

static void npa_g_deep_remake(struct npa_gctx *x, u32 d, const u32 *ids,
			      const u32 *ks, u32 off)
{
	const u32 *path = x->dpath + d * NPA_G_DEEP;
	u32 i;

	for (i = x->dlen[d]; i-- > 0;) {
		off -= ks[i];
		npa_g_remake(x, path[i], ids + off, ks[i]);
	}
}

/*
 * No single undo helps enough: undo a chain deeper down, with the ones
 * above it, and never make the deepest again; of the paths, the one after
 * which the greedy gets furthest (the shorter on a tie), if its key is
 * below @bound. False if none is.
 */
static bool npa_g_repair_deep(struct npa_gctx *x, const u32 *cand, u32 nc,
			      u64 bound)
{
	u32 nd, d, off, best = NPA_G_NONE, ks[NPA_G_DEEP], *ids = x->tmp;
	u32 last;
	u64 bkey = bound, key;

	if (x->nforbid + 1 > NPA_G_FORBID)
		return false;
	nd = npa_g_deep_collect(x, cand, nc);
	for (d = 0; d < nd && !npa_g_stop(x); d++) {
		off = npa_g_deep_unmake(x, d, ids, ks);
		last = ks[x->dlen[d] - 1];
		x->forbid[x->nforbid++] = npa_g_ids_hash(ids + off - last, last);
		key = npa_g_look(x, ids + off);
		if (key != U64_MAX)
			key += x->dlen[d];	/* below NPA_G_KPAIR */
		x->nforbid--;
		npa_g_deep_remake(x, d, ids, ks, off);
		if (key < bkey) {
			bkey = key;
			best = d;
		}
	}
	if (best == NPA_G_NONE)
		return false;
	off = npa_g_deep_unmake(x, best, ids, ks);
	last = ks[x->dlen[best] - 1];
	x->forbid[x->nforbid++] = npa_g_ids_hash(ids + off - last, last);
	return true;
}

/*
 * Stalled: of the alive pieces a match made, undo the one (or two made at
 * one bound: a crossed pairing of equal sizes) after which the greedy
 * gets furthest, and never make that match again. False if none helps.
 */
static bool npa_g_repair(struct npa_gctx *x)
{
	u32 cand[64], nc = 0, gi, id, ci, cj, k, k2, best = NPA_G_NONE;
	u32 best2 = NPA_G_NONE, *ids = x->tmp;
	u64 bkey = U64_MAX, key;

	if (x->nforbid + 2 > NPA_G_FORBID)
		return false;
	for (gi = 0; gi < x->ng && nc < ARRAY_SIZE(cand); gi++)
		for (id = x->g[gi].head; id != NPA_G_NONE && nc < ARRAY_SIZE(cand);
		     id = x->nd[id].next)
			if (x->nd[id].kind == NPA_G_CHAIN)
				cand[nc++] = id;
	for (ci = 0; ci < nc && !npa_g_stop(x); ci++) {
		u32 r = cand[ci];

		k = npa_g_unmake(x, r, ids);
		x->forbid[x->nforbid++] = npa_g_ids_hash(ids, k);
		key = npa_g_look(x, ids + k);
		x->nforbid--;
		npa_g_remake(x, r, ids, k);
		if (key < bkey) {
			bkey = key;
			best = r;
		}
	}
	for (ci = 0; ci < nc; ci++) {
		for (cj = ci + 1; cj < nc && !npa_g_stop(x); cj++) {
			u32 r = cand[ci], r2 = cand[cj];

			if (x->nd[x->nd[r].l].hi != x->nd[x->nd[r2].l].hi)
				continue;
			k = npa_g_unmake(x, r, ids);
			x->forbid[x->nforbid++] = npa_g_ids_hash(ids, k);
			k2 = npa_g_unmake(x, r2, ids + k);
			x->forbid[x->nforbid++] = npa_g_ids_hash(ids + k, k2);
			key = npa_g_look(x, ids + k + k2);
			if (key != U64_MAX)
				key += NPA_G_KPAIR;	/* two: only if better */
			x->nforbid -= 2;
			npa_g_remake(x, r2, ids + k, k2);
			npa_g_remake(x, r, ids, k);
			if (key < bkey) {
				bkey = key;
				best = r;
				best2 = r2;
			}
		}
	}
	/*
	 * A deep key is above 0: none beats an undo that gets to the end. A
	 * deep undo must also leave fewer pieces than the stall it repairs
	 * (sweep strips of 2000 that no shallow undo helps took deep undos
	 * that left more, 18 times the work of the step, for the same plan),
	 * and deep repairs get a share of the budget with a limit of their
	 * own (on cut strips of 8000 they are never kept, and took all of it).
	 */
	if (x->deep && bkey && x->deep_work < x->deep_cap) {
		u64 budget = x->budget, w0 = x->work;
		bool ok;

		x->budget = min(budget, w0 + x->deep_cap - x->deep_work);
		ok = npa_g_repair_deep(x, cand, nc,
				       min_t(u64, bkey,
					     (u64)NPA_G_KALIVE * x->alive));
		x->budget = budget;
		x->deep_work += x->work - w0;
		if (ok)
			return true;
	}
	if (best == NPA_G_NONE)
		return false;
	k = npa_g_unmake(x, best, ids);
	x->forbid[x->nforbid++] = npa_g_ids_hash(ids, k);
	if (best2 != NPA_G_NONE) {
		k = npa_g_unmake(x, best2, ids);
		x->forbid[x->nforbid++] = npa_g_ids_hash(ids, k);
	}
	return true;
}

static void npa_g_free(struct npa_gctx *x)
{
	kvfree(x->nd);
	kvfree(x->g);
	kvfree(x->hash);
	kvfree(x->ends);
	kvfree(x->starts);
	kvfree(x->deg);
	kvfree(x->checked);
	kvfree(x->tc);
	kvfree(x->ntc);
	kvfree(x->pc);
	kvfree(x->tmp);
	kvfree(x->forbid);
	kvfree(x->dpath);
	kvfree(x->dlen);
	kvfree(x->dmem);
	kvfree(x->ha);
	kvfree(x->hb);
	kvfree(x->ht);
	kvfree(x->zm);
}

static int npa_g_init(struct npa_gctx *x, const struct npa_plan_buf *bufs,
		      u32 n, u32 nt)
{
	u32 i, hsize, psize;

	x->n = n;
	x->nt = nt;
	x->ncap = NPA_G_NODES * n;
	hsize = roundup_pow_of_two(2 * x->ncap);
	psize = roundup_pow_of_two(2 * n);
	x->hmask = hsize - 1;
	x->pcmask = psize - 1;
	x->nd = kvmalloc_array(x->ncap, sizeof(*x->nd), GFP_KERNEL_ACCOUNT);
	x->g = kvmalloc_array(x->ncap, sizeof(*x->g), GFP_KERNEL_ACCOUNT);
	x->hash = kvcalloc(hsize, sizeof(*x->hash), GFP_KERNEL_ACCOUNT);
	x->ends = kvmalloc_array(nt, sizeof(*x->ends), GFP_KERNEL_ACCOUNT);
	x->starts = kvmalloc_array(nt, sizeof(*x->starts), GFP_KERNEL_ACCOUNT);
	x->deg = kvcalloc(x->ncap, sizeof(*x->deg), GFP_KERNEL_ACCOUNT);
	x->checked = kvcalloc(nt, sizeof(*x->checked), GFP_KERNEL_ACCOUNT);
	x->tc = kvmalloc_array(nt, NPA_G_TC * sizeof(*x->tc),
			       GFP_KERNEL_ACCOUNT);
	x->ntc = kvcalloc(nt, sizeof(*x->ntc), GFP_KERNEL_ACCOUNT);
	x->pc = kvcalloc(psize, sizeof(*x->pc), GFP_KERNEL_ACCOUNT);
	x->tmp = kvmalloc_array(x->ncap, sizeof(*x->tmp), GFP_KERNEL_ACCOUNT);
	x->forbid = kvmalloc_array(NPA_G_FORBID, sizeof(*x->forbid),
				   GFP_KERNEL_ACCOUNT);
	x->dpath = kvmalloc_array(NPA_G_DMAX * NPA_G_DEEP, sizeof(*x->dpath),
				  GFP_KERNEL_ACCOUNT);
	x->dlen = kvmalloc_array(NPA_G_DMAX, sizeof(*x->dlen),
				 GFP_KERNEL_ACCOUNT);
	x->dmem = kvmalloc_array(NPA_G_DEEP * NPA_G_MITM, sizeof(*x->dmem),
				 GFP_KERNEL_ACCOUNT);
	x->ha = kvmalloc_array(NPA_G_HALF, sizeof(*x->ha), GFP_KERNEL_ACCOUNT);
	x->hb = kvmalloc_array(NPA_G_HALF, sizeof(*x->hb), GFP_KERNEL_ACCOUNT);
	x->ht = kvmalloc_array(NPA_G_HALF, sizeof(*x->ht), GFP_KERNEL_ACCOUNT);
	x->zm = kvmalloc_array(NPA_G_ZMAX, sizeof(*x->zm), GFP_KERNEL_ACCOUNT);
	if (!x->nd || !x->g || !x->hash || !x->ends || !x->starts ||
	    !x->deg || !x->checked || !x->tc || !x->ntc || !x->pc ||
	    !x->tmp || !x->forbid || !x->dpath || !x->dlen || !x->dmem ||
	    !x->ha || !x->hb || !x->ht || !x->zm)
		return -ENOMEM;
	memset(x->ends, 0xff, nt * sizeof(*x->ends));
	memset(x->starts, 0xff, nt * sizeof(*x->starts));
	for (i = 0; i < n; i++) {
		u32 id = npa_g_node(x, bufs[i].size, bufs[i].lo, bufs[i].hi,
				    NPA_G_NONE, NPA_G_NONE, NPA_G_LEAF);

		npa_g_add(x, id);
	}
	return 0;
}

/*
 * The stalled alive pieces @roots[0, @na) are a small tight instance:
 * plan it with half of what is left of the budget (@down: with all of
 * it and the spare), the offsets into @off.
 */
static int npa_g_fallback(struct npa_gctx *x, const u32 *roots, u32 na,
			  u64 *off, u64 *peak, bool down)
{
	const struct npa_guillo_params *gp = x->gp;
	u64 spent = ktime_get_ns() - gp->t0, used, limit = gp->budget;
	struct npa_plan_params prm = { 0 };
	struct npa_plan_result res;
	struct npa_plan_buf *sb;
	u32 j;
	int ret;

	if (down)
		limit += min(gp->spare, U64_MAX - limit);
	used = div_u64(x->work, NPA_GUILLO_UNITS);
	if (spent >= gp->cap_ns || used >= limit)
		return -ETIME;
	prm.budget = down ? limit - used : (limit - used) / 2;
	if (!prm.budget)
		return -ETIME;
	prm.time_cap_ns = gp->cap_ns - spent;
	sb = kvcalloc(na, sizeof(*sb), GFP_KERNEL_ACCOUNT);
	if (!sb)
		return -ENOMEM;
	for (j = 0; j < na; j++) {
		sb[j].size = x->nd[roots[j]].size;
		sb[j].lo = x->nd[roots[j]].lo;
		sb[j].hi = x->nd[roots[j]].hi;
	}
	ret = npa_plan_nested(sb, na, &prm, &res);
	if (!ret) {
		for (j = 0; j < na; j++)
			off[roots[j]] = sb[j].offset;
		*peak = res.peak;
		x->work += res.work * NPA_GUILLO_UNITS;
	}
	kvfree(sb);
	return ret;
}

/* The offsets of the leaves under @roots[0, @na), top down. */
static void npa_g_offsets(struct npa_gctx *x, const u32 *roots, u32 na,
			  u64 *off, struct npa_plan_buf *bufs)
{
	u32 sp = 0, j, *st = x->tmp;

	for (j = 0; j < na; j++)
		st[sp++] = roots[j];
	while (sp) {
		u32 v = st[--sp];
		const struct npa_gnode *d = &x->nd[v];

		if (d->kind == NPA_G_LEAF) {
			bufs[v].offset = off[v];
			continue;
		}
		off[d->l] = off[v];
		off[d->r] = off[v] + (d->kind == NPA_G_STACK ?
				      x->nd[d->l].size : 0);
		st[sp++] = d->l;
		st[sp++] = d->r;
	}
}

/*
 * Plan the stalled pieces @roots[0, @na) with half of what is left, and
 * when that plan is above @load, the pieces one match down (each alive
 * chain's rects and pieces back) with the rest and the spare: keep the
 * better plan in @bufs. The wrong merges are often in the last matches
 * made: of the cut strips of 8000 that npa-bench's seeds 1-32 stall on,
 * 11 and 9 end at the optimum that way instead of 0.34% and 12.8% over
 * (9 needs the spare: the tiling search plans its 258 pieces in 33k
 * placements, and the rest of the share was 32k). More levels down did
 * no better.
 */
static int npa_g_fallback_down(struct npa_gctx *x, const u32 *roots,
			       u32 na, u64 *off, struct npa_plan_buf *bufs,
			       u64 *peak, u64 load)
{
	u32 nb = 0, j, *down;
	u64 peak2;
	int ret;

	ret = npa_g_fallback(x, roots, na, off, peak, false);
	if (ret)
		return ret;
	npa_g_offsets(x, roots, na, off, bufs);
	if (*peak <= load)
		return 0;
	/* Each piece's members are disjoint subtrees: at most n of them. */
	down = kvmalloc_array(x->n, sizeof(*down), GFP_KERNEL_ACCOUNT);
	if (!down)
		return 0;
	for (j = 0; j < na; j++) {
		u32 v = roots[j];

		if (x->nd[v].kind != NPA_G_CHAIN)
			down[nb++] = v;
		else
			nb = npa_g_chain_members(x, v, down, nb);
	}
	if (nb > na && !npa_g_fallback(x, down, nb, off, &peak2, true) &&
	    peak2 < *peak) {
		*peak = peak2;
		npa_g_offsets(x, down, nb, off, bufs);
	}
	kvfree(down);
	return 0;
}

/* Place the alive pieces (stacked, or by the fallback) and expand. */
static int npa_g_finish(struct npa_gctx *x, struct npa_plan_buf *bufs,
			u64 *peak, u64 load)
{
	u32 na = 0, gi, id, *roots;
	u64 *off, at = 0;
	int ret = 0;

	roots = kvmalloc_array(x->n, sizeof(*roots), GFP_KERNEL_ACCOUNT);
	off = kvmalloc_array(x->nn, sizeof(*off), GFP_KERNEL_ACCOUNT);
	if (!roots || !off) {
		ret = -ENOMEM;
		goto out;
	}
	for (gi = 0; gi < x->ng; gi++)
		for (id = x->g[gi].head; id != NPA_G_NONE; id = x->nd[id].next)
			roots[na++] = id;
	if (npa_g_done(x)) {
		for (id = 0; id < na; id++) {
			off[roots[id]] = at;
			at += x->nd[roots[id]].size;
		}
		*peak = at;
		npa_g_offsets(x, roots, na, off, bufs);
	} else {
		ret = npa_g_fallback_down(x, roots, na, off, bufs, peak, load);
	}
out:
	kvfree(off);
	kvfree(roots);
	return ret;
}

/*
 * The first greedy pass spends 700-2100 units a rect on the rects cut
 * from a strip (one of 48 up to 6100); a pass far above that is on no
 * guillotine tiling. No check of its progress on the way: more than 5/8
 * of the rects still unmerged at 640 units a rect gave back about half
 * of the sweep strips of 8000 20k placements sooner (those that are not
 * given back stall with too many pieces), and the cut strip 6000 / 5 of
 * npa-bench (0.71 left there), which the step plans at the optimum in
 * 0.16 s, to the other steps: 2.4% over, in 1.4-2.2 s.
 */
#define NPA_G_FIRST_UNITS	4096

/**
 * npa_guillotine() - rebuild a guillotine tiling of a tight instance
 * @bufs: rects of non-zero size, lifetimes in compressed time [0, @nt);
 *	@offset is written on success
 * @n: number of rects, at least 1
 * @nt: number of distinct bounds
 * @load: the live load, the same at every step
 * @gp: budget and clock in, work and peak out
 *
 * Context: Process context; may sleep.
 * Return: 0 when @bufs hold a tiling at @load; 1 when they hold a plan
 * found by planning the pieces it stalled with (peak in @gp); -ENOENT
 * when the instance looks like no guillotine tiling or the budget ran
 * out; -ENOMEM.
 */
int npa_guillotine(struct npa_plan_buf *bufs, u32 n, u32 nt, u64 load,
		   struct npa_guillo_params *gp)
{
	struct npa_gctx *x;
	u32 phase = 0, reps = 0;
	u64 peak = 0, first;
	bool first_pass = true;
	int ret = -ENOENT;

	gp->work = 0;
	gp->peak = 0;
	/* Signed sums of one bound's pieces are within +-load. */
	if (!n || nt < 2 || load > S64_MAX || n > U32_MAX / NPA_G_NODES / 2)
		return -ENOENT;
	x = kzalloc(sizeof(*x), GFP_KERNEL_ACCOUNT);
	if (!x)
		return -ENOMEM;
	x->gp = gp;
	/* A quarter of the share is left to the plan of the fallback. */
	x->budget = gp->budget - gp->budget / 4;
	x->budget = x->budget > div_u64(U64_MAX, NPA_GUILLO_UNITS) ?
		    U64_MAX : x->budget * NPA_GUILLO_UNITS;
	if (npa_g_init(x, bufs, n, nt)) {
		ret = -ENOMEM;
		goto out;
	}
	x->deep_cap = x->budget / NPA_G_DEEP_SHARE;
	x->excl = npa_g_phases[0].excl;
	x->deep = npa_g_phases[0].deep;
	first = min_t(u64, x->budget, (u64)n * NPA_G_FIRST_UNITS);
	for (;;) {
		u64 budget = x->budget;

		if (first_pass)
			x->budget = first;
		npa_g_greedy(x);
		x->budget = budget;
		if (npa_g_done(x))
			break;
		/* Stalls with more than a few dozen pieces: no tiling. */
		if (x->out_of_time ||
		    (first_pass && (x->work >= first ||
				    x->alive > n / 32 + 32)))
			goto out;
		if (x->work >= x->budget)
			break;
		first_pass = false;
		if (reps < npa_g_phases[phase].repairs && npa_g_repair(x)) {
			reps++;
		} else {
			if (++phase == ARRAY_SIZE(npa_g_phases))
				break;
			x->excl = npa_g_phases[phase].excl;
			x->deep = npa_g_phases[phase].deep;
			reps = 0;
		}
		memset(x->checked, 0, nt);
	}
	/* All pieces of the whole time are stacked, however many. */
	if (!npa_g_done(x) && x->alive > n / 32 + 32)
		goto out;
	ret = npa_g_finish(x, bufs, &peak, load);
	if (!ret)
		ret = peak > load;
	else if (ret != -ENOMEM)
		ret = -ENOENT;
out:
	gp->work = div_u64(x->work + NPA_GUILLO_UNITS - 1, NPA_GUILLO_UNITS);
	gp->peak = peak;
	npa_g_free(x);
	kfree(x);
	return ret;
}
