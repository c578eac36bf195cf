// SPDX-License-Identifier: GPL-2.0-only
/*
 * Other projects' arena planners, re-implemented from their sources (as
 * the author knows them; no upstream code is copied) for npa-bench:
 *
 * TVM, src/tir/usmp/algo/greedy.cc:
 *   GreedyBySize::PlanMemory(), GreedyByConflicts::PlanMemory() and
 *   GreedyBase::PostSortAllocation(): sort, then put each buffer at the
 *   lowest offset that fits among its already placed conflicts, scanned in
 *   offset order (first fit with gap reuse, as greedy.cc does since the
 *   "extra sorting for pool offsets"; older TVM put a buffer above all of
 *   its placed conflicts, with no gap reuse).
 * TVM, src/tir/usmp/algo/hill_climb.cc:
 *   HillClimbAllocator::PlanMemory(): greedy_by_size's order, then
 *   _max_attempts = 500 rounds of: re-run the greedy, accept if smaller
 *   (or, rarely, if larger: TVM's probabilistic rule), else undo the last
 *   swap; pick a buffer at the peak, collect its earlier conflicts (first
 *   level) and their earlier conflicts (second level), swap one of each.
 *   Random numbers from rand_r() with seed 0, as TVM on Linux. Stops at
 *   the memory pressure (the lower bound), returns the last accepted plan.
 * Vela, ethosu/vela/hillclimb_allocation.py:
 *   HillClimbAllocator.allocate(): order by (urgency, size) descending
 *   (urgency: the largest live-byte total over the buffer's lifetime),
 *   first fit; then search(): up to MAX_ITERATIONS = 99999 rounds of
 *   attempt_bottleneck_fix() (swap two of the turns that placed the peak
 *   buffer, its neighbours and their predecessor chains; a non-neighbour
 *   with probability 30/101; widened by the neighbours after 50 rounds
 *   without improvement) and allocate_indices() (which gives up as soon as
 *   it exceeds the best size), keeping the best order; stops at the lower
 *   bound. Vela seeds Python's Mersenne Twister with 1; this uses
 *   splitmix64 with seed 1 (same probabilities, another random stream).
 *   Vela is given no memory limit above the lower bound.
 * Vela, ethosu/vela/tensor_allocation.py: linear_allocate_live_ranges():
 *   every buffer at the next free address, no reuse.
 *
 * Simplifications common to all: one pool of unbounded size (TVM's pool
 * candidates and size checks, Vela's memory areas do not apply); each
 * buffer's offset is rounded up to its own alignment (TVM rounds to the
 * conflicting buffer's alignment, Vela to its allocation granularity);
 * zero-size buffers go to offset 0 and take part in nothing. Where
 * upstream iterates a hash map or set (TVM's buffers at the peak, Vela's
 * neighbours) the order here is by index (buffers at the peak) or by
 * lifetime start (conflicts). The two hill climbs can be capped by the
 * conflicts they visit (@work_cap), because a single greedy pass over the
 * largest trace visits 360 million.
 *
 * Conflicts are not stored (Y_1 has 180 million pairs): a buffer's are
 * enumerated from the buffers sorted by start (those starting inside its
 * lifetime) and a segment tree over steps (those live at its start).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/minmax.h>

#include "baselines.h"
#include "gen.h"

#define BL_NONE	U64_MAX		/* not placed */
#define BL_NOID	U32_MAX

struct bl_span {
	u64 off, end;
	u32 id;
};

struct bl_inst {
	const struct npa_plan_buf *b;
	const char * const *names;
	u32 n;		/* all buffers */
	u32 m;		/* of non-zero size */
	u32 *ids;	/* the m non-zero ones, by index */
	u32 *by_lo;	/* the m non-zero ones, by start */
	u32 *lo;	/* start of by_lo[] */
	u32 leaves;	/* of the segment tree, a power of two */
	u32 *seg_first;	/* 2 * leaves + 1: CSR of the segment tree */
	u32 *seg_item;
	u32 *deg;	/* conflicts of each buffer */
	u32 *nb;	/* scratch: one buffer's conflicts */
	struct bl_span *span;	/* scratch: its placed conflicts */
	u64 work;
	u64 cap;
};

static int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

static const struct npa_plan_buf *sort_bufs;

static int cmp_by_lo(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;
	u32 lx = sort_bufs[x].lo, ly = sort_bufs[y].lo;

	if (lx != ly)
		return lx < ly ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Number of entries of sorted @a[0..@n) that are < @v. */
static u32 count_below(const u32 *a, u32 n, u32 v)
{
	u32 l = 0, r = n;

	while (l < r) {
		u32 mid = l + (r - l) / 2;

		if (a[mid] < v)
			l = mid + 1;
		else
			r = mid;
	}
	return l;
}

static void bl_free(struct bl_inst *in)
{
	free(in->ids);
	free(in->by_lo);
	free(in->lo);
	free(in->seg_first);
	free(in->seg_item);
	free(in->deg);
	free(in->nb);
	free(in->span);
}

static int bl_init(struct bl_inst *in, const struct npa_plan_buf *b, u32 n,
		   const char * const *names, u64 cap)
{
	u32 i, j, steps = 1, *his = NULL, *fill = NULL;
	int ret = -ENOMEM;

	memset(in, 0, sizeof(*in));
	in->b = b;
	in->n = n;
	in->names = names;
	in->cap = cap;
	for (i = 0; i < n; i++) {
		if (!b[i].size)
			continue;
		in->m++;
		steps = max(steps, b[i].hi);
	}
	in->ids = calloc(in->m + 1, sizeof(u32));
	in->by_lo = calloc(in->m + 1, sizeof(u32));
	in->lo = calloc(in->m + 1, sizeof(u32));
	his = calloc(in->m + 1, sizeof(u32));
	in->deg = calloc(n + 1, sizeof(u32));
	in->nb = calloc(n + 1, sizeof(u32));
	in->span = calloc(n + 1, sizeof(*in->span));
	for (in->leaves = 1; in->leaves < steps; in->leaves *= 2)
		;
	in->seg_first = calloc(2 * (size_t)in->leaves + 1, sizeof(u32));
	fill = calloc(2 * (size_t)in->leaves + 1, sizeof(u32));
	if (!in->ids || !in->by_lo || !in->lo || !his || !in->deg ||
	    !in->nb || !in->span || !in->seg_first || !fill)
		goto out;

	for (i = 0, j = 0; i < n; i++)
		if (b[i].size)
			in->ids[j++] = i;
	memcpy(in->by_lo, in->ids, in->m * sizeof(u32));
	sort_bufs = b;
	qsort(in->by_lo, in->m, sizeof(u32), cmp_by_lo);
	for (i = 0; i < in->m; i++) {
		in->lo[i] = b[in->by_lo[i]].lo;
		his[i] = b[in->by_lo[i]].hi;
	}
	qsort(his, in->m, sizeof(u32), cmp_u32);
	/* Conflicts: start before my end, minus end at or before my start. */
	for (i = 0; i < in->m; i++) {
		const struct npa_plan_buf *x = &b[in->ids[i]];

		in->deg[in->ids[i]] = count_below(in->lo, in->m, x->hi) -
				      count_below(his, in->m, x->lo + 1) - 1;
	}

	/* Segment tree over steps, each lifetime in its canonical nodes. */
	for (j = 0; j < 2; j++) {
		for (i = 0; i < in->m; i++) {
			u32 id = in->ids[i];
			u32 l = b[id].lo + in->leaves, r = b[id].hi + in->leaves;

			for (; l < r; l /= 2, r /= 2) {
				if (l & 1) {
					if (j)
						in->seg_item[fill[l]++] = id;
					else
						in->seg_first[l + 1]++;
					l++;
				}
				if (r & 1) {
					r--;
					if (j)
						in->seg_item[fill[r]++] = id;
					else
						in->seg_first[r + 1]++;
				}
			}
		}
		if (j)
			break;
		for (i = 1; i <= 2 * in->leaves; i++)
			in->seg_first[i] += in->seg_first[i - 1];
		memcpy(fill, in->seg_first, 2 * in->leaves * sizeof(u32));
		in->seg_item = calloc(in->seg_first[2 * in->leaves] + 1,
				      sizeof(u32));
		if (!in->seg_item)
			goto out;
	}
	ret = 0;
out:
	free(his);
	free(fill);
	if (ret)
		bl_free(in);
	return ret;
}

/*
 * All conflicts of non-zero buffer @x into @out (by start, then those live
 * at x's start from the segment tree); returns their number.
 */
static u32 bl_conflicts(struct bl_inst *in, u32 x, u32 *out)
{
	const struct npa_plan_buf *bx = &in->b[x];
	u32 k = 0, i, node;

	i = count_below(in->lo, in->m, bx->lo);
	for (; i < in->m && in->lo[i] < bx->hi; i++)
		if (in->by_lo[i] != x)
			out[k++] = in->by_lo[i];
	for (node = bx->lo + in->leaves; node; node /= 2) {
		for (i = in->seg_first[node]; i < in->seg_first[node + 1]; i++) {
			u32 y = in->seg_item[i];

			if (in->b[y].lo < bx->lo)
				out[k++] = y;
		}
	}
	in->work += k;
	return k;
}

static int cmp_span(const void *a, const void *b)
{
	const struct bl_span *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static u64 align_up(u64 v, u64 align)
{
	return align > 1 ? (v + align - 1) & ~(align - 1) : v;
}

/*
 * First fit of @x among its placed conflicts (@off[] != BL_NONE), as TVM's
 * PostSortAllocation() does it: conflicts by offset, bump the candidate
 * over each one it overlaps. @pred (may be NULL): the conflict bumped over
 * last (Vela's predecessor) or BL_NOID; @nplaced: placed conflicts.
 */
static u64 bl_first_fit(struct bl_inst *in, u32 x, const u64 *off, u32 *pred,
			u32 *nplaced)
{
	const struct npa_plan_buf *bx = &in->b[x];
	u32 k = bl_conflicts(in, x, in->nb), i, s = 0, last = BL_NOID;
	u64 cand = 0;

	for (i = 0; i < k; i++) {
		u32 y = in->nb[i];

		if (off[y] == BL_NONE)
			continue;
		in->span[s++] = (struct bl_span){ off[y], off[y] + in->b[y].size,
						  y };
	}
	qsort(in->span, s, sizeof(*in->span), cmp_span);
	for (i = 0; i < s; i++) {
		if (cand + bx->size <= in->span[i].off)
			break;
		if (in->span[i].end > cand) {
			cand = align_up(in->span[i].end, bx->align);
			last = in->span[i].id;
		}
	}
	if (pred)
		*pred = last;
	if (nplaced)
		*nplaced = s;
	return cand;
}

static void bl_write(struct bl_inst *in, struct npa_plan_buf *bufs,
		     const u64 *off)
{
	u32 i;

	for (i = 0; i < in->n; i++)
		bufs[i].offset = bufs[i].size ? off[i] : 0;
}

/* ---- TVM USMP ---- */

static struct bl_inst *sort_inst;

/* std::string(a->name_hint) > std::string(b->name_hint) */
static int tvm_name_cmp(u32 a, u32 b)
{
	char na[16], nb[16];
	const char *sa = na, *sb = nb;

	if (sort_inst->names) {
		sa = sort_inst->names[a];
		sb = sort_inst->names[b];
	} else {
		snprintf(na, sizeof(na), "%u", a);
		snprintf(nb, sizeof(nb), "%u", b);
	}
	return -strcmp(sa, sb);
}

/* greedy.cc GreedyBySize: size desc, conflicts desc, name desc. */
static int tvm_cmp_size(const void *pa, const void *pb)
{
	u32 a = *(const u32 *)pa, b = *(const u32 *)pb;
	const struct npa_plan_buf *x = &sort_inst->b[a], *y = &sort_inst->b[b];

	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	if (sort_inst->deg[a] != sort_inst->deg[b])
		return sort_inst->deg[a] > sort_inst->deg[b] ? -1 : 1;
	return tvm_name_cmp(a, b);
}

/* greedy.cc GreedyByConflicts: conflicts desc, size desc, name desc. */
static int tvm_cmp_conflicts(const void *pa, const void *pb)
{
	u32 a = *(const u32 *)pa, b = *(const u32 *)pb;
	const struct npa_plan_buf *x = &sort_inst->b[a], *y = &sort_inst->b[b];

	if (sort_inst->deg[a] != sort_inst->deg[b])
		return sort_inst->deg[a] > sort_inst->deg[b] ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return tvm_name_cmp(a, b);
}

/*
 * PostSortAllocation() / HillClimbAllocator::greedy(): first fit in
 * @order. @earlier (may be NULL): per buffer, its conflicts placed before
 * it. Returns the peak (find_highest()).
 */
static u64 tvm_greedy(struct bl_inst *in, const u32 *order, u64 *off,
		      u32 *earlier)
{
	u64 peak = 0;
	u32 p, i;

	for (i = 0; i < in->n; i++)
		off[i] = BL_NONE;
	for (p = 0; p < in->m; p++) {
		u32 x = order[p];

		off[x] = bl_first_fit(in, x, off, NULL,
				      earlier ? &earlier[x] : NULL);
		peak = max(peak, off[x] + in->b[x].size);
	}
	return peak;
}

struct tvm_hill {
	u32 *order, *pos;
	u32 *first, *second_of;	/* first level; its owner per entry */
	u32 nfirst;
	u64 nsecond;
};

static void tvm_swap(struct tvm_hill *h, int i1, int i2)
{
	u32 b1, b2;

	if (i1 == i2)
		return;
	b1 = h->order[i1];
	b2 = h->order[i2];
	h->order[i1] = b2;
	h->order[i2] = b1;
	h->pos[b1] = i2;
	h->pos[b2] = i1;
}

/*
 * The @r-th entry of collect_neighbor_lists()'s second level: for each
 * conflict c1 of the node, the conflicts c2 of c1 earlier than c1. @cnt[c1]
 * is how many c1 has (counted by the greedy pass that made the plan, or
 * recounted when the order changed since).
 */
static u32 tvm_second(struct bl_inst *in, struct tvm_hill *h, u32 node,
		      const u32 *cnt, u64 r, u32 *c1s, u32 nc1)
{
	u32 i, k, j;

	for (i = 0; i < nc1; i++) {
		u32 c1 = c1s[i];

		if (r >= cnt[c1]) {
			r -= cnt[c1];
			continue;
		}
		k = bl_conflicts(in, c1, in->nb);
		for (j = 0; j < k; j++)
			if (h->pos[in->nb[j]] < h->pos[c1] && !r--)
				return in->nb[j];
	}
	return node;	/* not reached when @cnt is right */
}

static u64 tvm_hill_climb(struct bl_inst *in, u64 lower_bound, u64 *best,
			  struct npa_bl_result *res)
{
	u64 *cur = calloc(in->n + 1, sizeof(u64));
	u64 *prev = calloc(in->n + 1, sizeof(u64));
	u32 *cnt = calloc(in->n + 1, sizeof(u32));
	u32 *pcnt = calloc(in->n + 1, sizeof(u32));
	u32 *c1s = calloc(in->n + 1, sizeof(u32));
	u32 *atpeak = calloc(in->m + 1, sizeof(u32));
	struct tvm_hill h = {
		.order = calloc(in->m + 1, sizeof(u32)),
		.pos = calloc(in->n + 1, sizeof(u32)),
		.first = calloc(in->n + 1, sizeof(u32)),
	};
	unsigned int seed = 0;
	u64 total_size = 0, pool_size = 0;
	int attempts, swap_i1 = -1, swap_i2 = -1;
	bool fresh = false, have_prev = false, swapped = false;
	u32 i;

	if (!cur || !prev || !cnt || !pcnt || !c1s || !atpeak || !h.order ||
	    !h.pos || !h.first) {
		total_size = 0;
		goto out;
	}
	memcpy(h.order, in->ids, in->m * sizeof(u32));
	sort_inst = in;
	qsort(h.order, in->m, sizeof(u32), tvm_cmp_size);
	for (i = 0; i < in->m; i++)
		h.pos[h.order[i]] = i;

	for (attempts = 0; attempts < NPA_BL_TVM_HILL_ATTEMPTS; attempts++) {
		u32 node, nat = 0, nc1, buf1, buf2, tries;
		bool swapped_last = swapped;
		u64 total;

		if (in->cap && in->work >= in->cap) {
			res->capped = true;
			break;
		}
		res->iterations++;
		swapped = false;
		/* rollback = pool_allocations; pool_allocations = greedy() */
		swap(prev, cur);
		swap(cnt, pcnt);
		have_prev = attempts > 0;
		total = tvm_greedy(in, h.order, cur, cnt);
		fresh = true;
		if (!total_size || total_size > total ||
		    (u64)(rand_r(&seed) % 100) <
		    50 * (total - total_size) / total / attempts) {
			memcpy(best, cur, in->n * sizeof(u64));
			total_size = total;
			pool_size = total;
			if (total_size <= lower_bound)
				break;
		} else {
			tvm_swap(&h, swap_i2, swap_i1);
			if (have_prev) {
				swap(prev, cur);
				swap(cnt, pcnt);
			}
			/*
			 * The counts are of the order before the last swap,
			 * which is undone: stale when that swap is older.
			 */
			fresh = swapped_last || swap_i1 == swap_i2;
			pool_size = 0;
			for (i = 0; i < in->m; i++)
				pool_size = max(pool_size, cur[in->ids[i]] +
						in->b[in->ids[i]].size);
		}
		if (!fresh) {
			/* A stale swap was undone again: recount. */
			for (i = 0; i < in->m; i++) {
				u32 x = in->ids[i], k, j;

				k = bl_conflicts(in, x, in->nb);
				cnt[x] = 0;
				for (j = 0; j < k; j++)
					cnt[x] += h.pos[in->nb[j]] < h.pos[x];
			}
		}

		/* max_pool_buf: the buffers ending at the pool size. */
		for (i = 0; i < in->m; i++)
			if (cur[in->ids[i]] + in->b[in->ids[i]].size == pool_size)
				atpeak[nat++] = in->ids[i];
		node = atpeak[rand_r(&seed) % nat];

		/* collect_neighbor_lists() */
		nc1 = bl_conflicts(in, node, c1s);
		h.nfirst = 0;
		h.nsecond = 0;
		for (i = 0; i < nc1; i++) {
			if (h.pos[node] > h.pos[c1s[i]])
				h.first[h.nfirst++] = c1s[i];
			h.nsecond += cnt[c1s[i]];
		}
		if (!h.nfirst)
			continue;

		buf1 = h.first[rand_r(&seed) % h.nfirst];
		buf2 = buf1;
		/* TVM loops until it differs; bounded here. */
		for (tries = 0; buf2 == buf1 && tries < 1000; tries++) {
			if (h.nsecond && rand_r(&seed) % 100 > 25)
				buf2 = tvm_second(in, &h, node, cnt,
						  rand_r(&seed) % h.nsecond,
						  c1s, nc1);
			else
				buf2 = h.first[rand_r(&seed) % h.nfirst];
			if (h.nsecond < 2 && h.nfirst < 2)
				break;
		}
		if (buf1 == buf2)
			continue;
		swap_i1 = h.pos[buf1];
		swap_i2 = h.pos[buf2];
		tvm_swap(&h, swap_i1, swap_i2);
		swapped = true;
	}
	if (res->capped && total_size <= lower_bound)
		res->capped = false;
out:
	free(cur);
	free(prev);
	free(cnt);
	free(pcnt);
	free(c1s);
	free(atpeak);
	free(h.order);
	free(h.pos);
	free(h.first);
	return total_size;
}

/* ---- Vela ---- */

struct vela {
	struct bl_inst *in;
	u64 *addr;	/* lr.address, BL_NONE when NOT_ALLOCATED */
	u64 *end;	/* lr.end_address (kept when not allocated) */
	u32 *pred;	/* lr.predecessor */
	u32 *turn;	/* lr.turn (kept when not allocated) */
	u32 *turns;	/* turn_list */
	u32 *non_nb;	/* non_nb_turn_list */
	u8 *in_set;	/* turn_set, by turn */
	u32 *nb2;	/* scratch: a neighbour's neighbours */
	u64 best_size, min_required;
	u64 rng;
};

/* allocate_indices(): first fit in order, give up above best_size. */
static u64 vela_allocate(struct vela *v, const u32 *indices)
{
	struct bl_inst *in = v->in;
	u64 size = 0;
	u32 t, i;

	for (i = 0; i < in->n; i++)
		v->addr[i] = BL_NONE;
	for (t = 0; t < in->m; t++) {
		u32 x = indices[t];

		v->addr[x] = bl_first_fit(in, x, v->addr, &v->pred[x], NULL);
		v->end[x] = v->addr[x] + in->b[x].size;
		v->turn[x] = t;
		size = max(size, v->end[x]);
		if (size > v->best_size)
			break;
	}
	return size;
}

static void vela_add_turn(struct vela *v, u32 *nt, u32 turn)
{
	if (v->in_set[turn])
		return;
	v->in_set[turn] = 1;
	v->turns[(*nt)++] = turn;
}

/* add_predecessor_turns(); the walk is bounded against stale cycles. */
static void vela_add_pred_turns(struct vela *v, u32 *nt, u32 x)
{
	u32 steps = 0;

	vela_add_turn(v, nt, v->turn[x]);
	while (v->pred[x] != BL_NOID && steps++ < v->in->m) {
		x = v->pred[x];
		vela_add_turn(v, nt, v->turn[x]);
	}
	v->in->work += steps;
}

static bool vela_is_neighbour(const struct npa_plan_buf *a,
			      const struct npa_plan_buf *b)
{
	return a->lo < b->hi && b->lo < a->hi;
}

static u32 vela_randint(struct vela *v, u32 lo, u32 hi)
{
	return lo + npa_gen_below(&v->rng, (u64)hi - lo + 1);
}

static void vela_bottleneck_fix(struct vela *v, u32 *indices, u32 stuck)
{
	struct bl_inst *in = v->in;
	u32 max_lr = in->ids[0], nt = 0, nn = 0, k, i, j, ix1, ix2, tmp;

	for (i = 1; i < in->m; i++)
		if (v->end[in->ids[i]] > v->end[max_lr])
			max_lr = in->ids[i];

	vela_add_pred_turns(v, &nt, max_lr);
	k = bl_conflicts(in, max_lr, in->nb);
	for (i = 0; i < k; i++)
		vela_add_pred_turns(v, &nt, in->nb[i]);

	for (i = 0; i < nt; i++)
		if (!vela_is_neighbour(&in->b[max_lr],
				       &in->b[indices[v->turns[i]]]))
			v->non_nb[nn++] = v->turns[i];
	if (vela_randint(v, 0, 100) < 30 && nn)
		ix1 = v->non_nb[vela_randint(v, 0, nn - 1)];
	else
		ix1 = v->turns[vela_randint(v, 0, nt - 1)];
	/* Python raises on randint(0, -1); keep ix1 then. */
	ix2 = nt > 1 ? v->turns[vela_randint(v, 0, nt - 2)] : ix1;
	if (ix1 == ix2)
		ix2 = v->turns[nt - 1];
	tmp = indices[ix1];
	indices[ix1] = indices[ix2];
	indices[ix2] = tmp;

	if (stuck > 50) {
		/* MAX_ITERATIONS_STUCK: add the neighbours, swap once more. */
		u32 n0 = nt;

		for (i = 0; i < n0; i++) {
			k = bl_conflicts(in, indices[v->turns[i]], v->nb2);
			for (j = 0; j < k; j++)
				vela_add_turn(v, &nt, v->turn[v->nb2[j]]);
		}
		ix1 = v->turns[vela_randint(v, 0, nt - 1)];
		ix2 = v->turns[vela_randint(v, 0, nt - 1)];
		tmp = indices[ix1];
		indices[ix1] = indices[ix2];
		indices[ix2] = tmp;
	}
	for (i = 0; i < nt; i++)
		v->in_set[v->turns[i]] = 0;
}

static struct vela *sort_vela;
static u64 *sort_urgency;

/* indices.sort(key=(urgency, size), reverse=True): stable, ties by id. */
static int vela_cmp_prio(const void *pa, const void *pb)
{
	u32 a = *(const u32 *)pa, b = *(const u32 *)pb;
	const struct npa_plan_buf *x = &sort_vela->in->b[a];
	const struct npa_plan_buf *y = &sort_vela->in->b[b];

	if (sort_urgency[a] != sort_urgency[b])
		return sort_urgency[a] > sort_urgency[b] ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Live bytes per step and each buffer's maximum of it (lr_urgency). */
static int vela_urgency(struct bl_inst *in, u64 *urg)
{
	u32 steps = in->leaves, lg = 1, l, i;
	u64 *t;

	while ((1U << lg) <= steps)
		lg++;
	t = calloc((size_t)lg * (steps + 1), sizeof(u64));
	if (!t)
		return -ENOMEM;
	for (i = 0; i < in->m; i++) {
		const struct npa_plan_buf *x = &in->b[in->ids[i]];

		t[x->lo] += x->size;
		t[x->hi] -= x->size;
	}
	for (i = 1; i < steps; i++)
		t[i] += t[i - 1];
	/* Sparse table of range maxima. */
	for (l = 1; l < lg; l++)
		for (i = 0; i + (1U << l) <= steps; i++)
			t[(size_t)l * (steps + 1) + i] =
				max(t[(size_t)(l - 1) * (steps + 1) + i],
				    t[(size_t)(l - 1) * (steps + 1) + i +
				      (1U << (l - 1))]);
	for (i = 0; i < in->m; i++) {
		const struct npa_plan_buf *x = &in->b[in->ids[i]];
		u32 len = x->hi - x->lo, k = 0;

		while ((2U << k) <= len)
			k++;
		urg[in->ids[i]] = max(t[(size_t)k * (steps + 1) + x->lo],
				      t[(size_t)k * (steps + 1) + x->hi -
					(1U << k)]);
	}
	free(t);
	return 0;
}

static u64 vela_hill_climb(struct bl_inst *in, u64 lower_bound, u64 *best,
			   struct npa_bl_result *res)
{
	struct vela v = {
		.in = in,
		.addr = calloc(in->n + 1, sizeof(u64)),
		.end = calloc(in->n + 1, sizeof(u64)),
		.pred = calloc(in->n + 1, sizeof(u32)),
		.turn = calloc(in->n + 1, sizeof(u32)),
		.turns = calloc(in->m + 1, sizeof(u32)),
		.non_nb = calloc(in->m + 1, sizeof(u32)),
		.in_set = calloc(in->m + 1, 1),
		.nb2 = calloc(in->n + 1, sizeof(u32)),
		.best_size = U64_MAX,
		.min_required = lower_bound,
		.rng = 1,
	};
	u32 *indices = calloc(in->m + 1, sizeof(u32));
	u32 *best_indices = calloc(in->m + 1, sizeof(u32));
	u64 *urg = calloc(in->n + 1, sizeof(u64));
	u32 i, last_improvement = 0;
	u64 size = 0;

	if (!v.addr || !v.end || !v.pred || !v.turn || !v.turns ||
	    !v.non_nb || !v.in_set || !v.nb2 || !indices || !best_indices ||
	    !urg || vela_urgency(in, urg))
		goto out;
	memcpy(indices, in->ids, in->m * sizeof(u32));
	sort_vela = &v;
	sort_urgency = urg;
	qsort(indices, in->m, sizeof(u32), vela_cmp_prio);

	v.best_size = vela_allocate(&v, indices);
	memcpy(best, v.addr, in->n * sizeof(u64));
	memcpy(best_indices, indices, in->m * sizeof(u32));
	for (i = 0; i < NPA_BL_VELA_HILL_ITERATIONS &&
	     v.best_size > v.min_required; i++) {
		if (in->cap && in->work >= in->cap) {
			res->capped = true;
			break;
		}
		res->iterations++;
		vela_bottleneck_fix(&v, indices, i - last_improvement);
		size = vela_allocate(&v, indices);
		if (size <= v.best_size) {
			if (size < v.best_size)
				last_improvement = i;
			v.best_size = size;
			memcpy(best_indices, indices, in->m * sizeof(u32));
			memcpy(best, v.addr, in->n * sizeof(u64));
		} else {
			memcpy(indices, best_indices, in->m * sizeof(u32));
		}
	}
	size = v.best_size;
out:
	free(v.addr);
	free(v.end);
	free(v.pred);
	free(v.turn);
	free(v.turns);
	free(v.non_nb);
	free(v.in_set);
	free(v.nb2);
	free(indices);
	free(best_indices);
	free(urg);
	return size;
}

/* linear_allocate_live_ranges(): one after another, no reuse. */
static u64 vela_linear(struct bl_inst *in, u64 *off)
{
	u64 total = 0;
	u32 i;

	for (i = 0; i < in->m; i++) {
		u32 x = in->ids[i];

		off[x] = align_up(total, in->b[x].align);
		total = off[x] + in->b[x].size;
	}
	return total;
}

int npa_bl_plan(enum npa_bl_algo algo, struct npa_plan_buf *bufs, u32 n,
		const char * const *names, u64 work_cap,
		struct npa_bl_result *res)
{
	u64 t0 = ktime_get_ns(), lb, *off;
	struct bl_inst in;
	u32 *order = NULL;
	int ret;

	memset(res, 0, sizeof(*res));
	if (algo >= NPA_BL_COUNT || (n && !bufs))
		return -EINVAL;
	ret = bl_init(&in, bufs, n, names, work_cap);
	if (ret)
		return ret;
	off = calloc(n + 1, sizeof(u64));
	if (algo <= NPA_BL_TVM_CONFLICTS)
		order = calloc(in.m + 1, sizeof(u32));
	if (!off || (algo <= NPA_BL_TVM_CONFLICTS && !order)) {
		ret = -ENOMEM;
		goto out;
	}
	lb = npa_plan_lower_bound(bufs, n);
	switch (algo) {
	case NPA_BL_TVM_SIZE:
	case NPA_BL_TVM_CONFLICTS:
		memcpy(order, in.ids, in.m * sizeof(u32));
		sort_inst = &in;
		qsort(order, in.m, sizeof(u32), algo == NPA_BL_TVM_SIZE ?
		      tvm_cmp_size : tvm_cmp_conflicts);
		res->peak = tvm_greedy(&in, order, off, NULL);
		break;
	case NPA_BL_TVM_HILL:
		res->peak = tvm_hill_climb(&in, lb, off, res);
		break;
	case NPA_BL_VELA_HILL:
		res->peak = vela_hill_climb(&in, lb, off, res);
		break;
	default:
		res->peak = vela_linear(&in, off);
		break;
	}
	if (in.m && !res->peak)
		ret = -ENOMEM;
	else
		bl_write(&in, bufs, off);
out:
	res->work = in.work;
	res->plan_ns = ktime_get_ns() - t0;
	free(order);
	free(off);
	bl_free(&in);
	return ret;
}

const char *npa_bl_name(enum npa_bl_algo algo)
{
	static const char * const names[NPA_BL_COUNT] = {
		[NPA_BL_TVM_SIZE] = "TVM greedy_by_size",
		[NPA_BL_TVM_CONFLICTS] = "TVM greedy_by_conflicts",
		[NPA_BL_TVM_HILL] = "TVM hill_climb",
		[NPA_BL_VELA_HILL] = "Vela HillClimb",
		[NPA_BL_VELA_LINEAR] = "Vela LinearAlloc",
	};

	return algo < NPA_BL_COUNT ? names[algo] : "?";
}
