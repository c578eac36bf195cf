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
 *
 * Simplifications: one pool of unbounded size (TVM's pool candidates and
 * size checks do not apply); each buffer's offset is rounded up to its own
 * alignment (TVM rounds to the conflicting buffer's alignment); zero-size
 * buffers go to offset 0 and take part in nothing. Where upstream iterates
 * a hash map (TVM's buffers at the peak) the order here is by index, and
 * conflicts are listed by lifetime start. The hill climb can be capped by
 * the conflicts it visits (@work_cap), because a single greedy pass over
 * the largest trace visits 360 million.
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
 * last or BL_NOID; @nplaced: placed conflicts.
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
	default:
		res->peak = tvm_hill_climb(&in, lb, off, res);
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
	};

	return algo < NPA_BL_COUNT ? names[algo] : "?";
}
