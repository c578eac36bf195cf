// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (C) 2025 The npa authors
 */

/**
 * DOC: npa planner bounds and verifier
 *
 * The max-load lower bound: at any time the buffers live then are pairwise
 * in conflict, so they need as many bytes as they hold together, and no
 * plan has a smaller peak than the largest such sum. The exact search
 * (npa_plan_search.c) prunes with the same bound section by section.
 *
 * npa_plan_verify() checks a plan with an O(n log n) sweep that shares no
 * code with the placement paths: npa_plan() runs it on every plan it
 * returns.
 */

#include <kunit/visibility.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/types.h>

#include "npa_plan_int.h"

/* Sweep event: key is (time << 1) | is_start, so ends sort before starts. */
struct npa_ev {
	u64 key;
	u64 size;
};

static int npa_ev_cmp(const void *a, const void *b)
{
	const struct npa_ev *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return 0;
}

/* Max over time of the live bytes of @ev (2 events per buffer, unsorted). */
static u64 npa_sweep_max(struct npa_ev *ev, u32 nev)
{
	u64 live = 0, best = 0;
	u32 i;

	sort(ev, nev, sizeof(*ev), npa_ev_cmp, NULL);
	for (i = 0; i < nev; i++) {
		if (ev[i].key & 1) {
			if (check_add_overflow(live, ev[i].size, &live))
				return U64_MAX;
			best = max(best, live);
		} else {
			live -= ev[i].size;
		}
	}
	return best;
}

/**
 * npa_plan_lower_bound() - max-load lower bound of a set of buffers
 * @bufs: buffers; lifetimes are half-open [lo, hi)
 * @n: number of buffers
 *
 * The largest number of bytes live at one time: no plan can have a smaller
 * peak. Buffers of size 0 or with an empty lifetime (hi <= lo) count for
 * nothing; alignment is not taken into account. O(n log n) time, O(n)
 * memory.
 *
 * Context: Process context; may sleep (allocates with GFP_KERNEL_ACCOUNT).
 * Return: the bound, or U64_MAX if the live bytes overflow u64 or the sweep
 * could not allocate its memory.
 */
u64 npa_plan_lower_bound(const struct npa_plan_buf *bufs, u32 n)
{
	struct npa_ev *ev;
	u32 i, nev = 0;
	u64 lb;

	if (!n || !bufs)
		return 0;
	ev = kvmalloc_array(n, 2 * sizeof(*ev), GFP_KERNEL_ACCOUNT);
	if (!ev)
		return U64_MAX;
	for (i = 0; i < n; i++) {
		if (!bufs[i].size || bufs[i].hi <= bufs[i].lo)
			continue;
		ev[nev].key = (u64)bufs[i].lo << 1 | 1;
		ev[nev++].size = bufs[i].size;
		ev[nev].key = (u64)bufs[i].hi << 1;
		ev[nev++].size = bufs[i].size;
	}
	lb = npa_sweep_max(ev, nev);
	kvfree(ev);
	return lb;
}
EXPORT_SYMBOL_IF_KUNIT(npa_plan_lower_bound);

/*
 * Max over the sections of the bytes of @r[0, @m) live in them, by a
 * difference array over the sections (@ns of them). Returns U64_MAX when
 * the scratch cannot be allocated.
 */
u64 npa_plan_sweep_max(const struct npa_rect *r, u32 m, u32 ns)
{
	u64 *d, live = 0, best = 0;
	u32 i;

	d = kvcalloc((size_t)ns + 1, sizeof(*d), GFP_KERNEL_ACCOUNT);
	if (!d)
		return U64_MAX;
	for (i = 0; i < m; i++) {
		d[r[i].a] += r[i].size;
		d[r[i].b] -= r[i].size;
	}
	for (i = 0; i < ns; i++) {
		live += d[i];
		best = max(best, live);
	}
	kvfree(d);
	return best;
}

/*
 * The verifier shares no code with the placement paths: it sweeps
 * over time keeping the live buffers in a Fenwick tree over their rank in
 * address order. Live buffers are pairwise disjoint, so a buffer that
 * overlaps any of them overlaps its predecessor or successor in address
 * order; checking those two on every start is enough.
 */
struct npa_vrank {
	u64 off;
	u32 id;
};

static int npa_vrank_cmp(const void *a, const void *b)
{
	const struct npa_vrank *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

struct npa_fenwick {
	u32 *t;
	u32 n, top;
};

static void npa_fw_add(struct npa_fenwick *f, u32 i, int d)
{
	for (i++; i <= f->n; i += i & -i)
		f->t[i] += d;
}

/* Number of live ranks < @i. */
static u32 npa_fw_count(const struct npa_fenwick *f, u32 i)
{
	u32 s = 0;

	for (; i; i -= i & -i)
		s += f->t[i];
	return s;
}

/* Rank of the @k-th (1-based) live element. */
static u32 npa_fw_kth(const struct npa_fenwick *f, u32 k)
{
	u32 pos = 0, step;

	for (step = f->top; step; step >>= 1) {
		if (pos + step <= f->n && f->t[pos + step] < k) {
			pos += step;
			k -= f->t[pos];
		}
	}
	return pos;
}

/**
 * npa_plan_verify() - check a plan independently of the planner
 * @bufs: buffers with their offsets; lifetimes are half-open [lo, hi)
 * @n: number of buffers
 * @peak: arena size the plan claims
 *
 * Checks that every buffer is valid (as npa_plan() requires), every offset
 * is aligned, every buffer ends at or below @peak, and no two buffers whose
 * lifetimes intersect overlap in address. Buffers of size 0 only need a
 * valid lifetime and alignment. O(n log n) time, O(n) memory.
 *
 * Context: Process context; may sleep.
 * Return: 0 if the plan is valid; -EINVAL for an invalid buffer or a
 * misaligned offset; -ERANGE if a buffer ends above @peak (or its end
 * overflows); -EEXIST if two live buffers overlap; -E2BIG; -ENOMEM.
 */
int npa_plan_verify(const struct npa_plan_buf *bufs, u32 n, u64 peak)
{
	struct npa_vrank *rank = NULL;
	struct npa_fenwick fw = { };
	struct npa_ev *ev = NULL;
	u32 *rank_of = NULL;
	u32 i, m = 0, nev = 0;
	int ret = 0;

	if (n > NPA_PLAN_MAX_BUFS)
		return -E2BIG;
	if (n && !bufs)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		const struct npa_plan_buf *b = &bufs[i];
		u64 align = b->align ? b->align : 1;
		u64 end;

		ret = npa_plan_check_buf(b);
		if (ret)
			return ret;
		if (b->offset & (align - 1))
			return -EINVAL;
		if (check_add_overflow(b->offset, b->size, &end) || end > peak)
			return -ERANGE;
		if (b->size)
			m++;
	}
	if (!m)
		return 0;

	rank = kvmalloc_array(m, sizeof(*rank), GFP_KERNEL_ACCOUNT);
	rank_of = kvmalloc_array(n, sizeof(*rank_of), GFP_KERNEL_ACCOUNT);
	ev = kvmalloc_array(m, 2 * sizeof(*ev), GFP_KERNEL_ACCOUNT);
	fw.t = kvcalloc((size_t)m + 1, sizeof(*fw.t), GFP_KERNEL_ACCOUNT);
	if (!rank || !rank_of || !ev || !fw.t) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (i = 0, m = 0; i < n; i++) {
		if (!bufs[i].size)
			continue;
		rank[m].off = bufs[i].offset;
		rank[m++].id = i;
		/* Events carry the buffer index in place of a size. */
		ev[nev].key = (u64)bufs[i].lo << 1 | 1;
		ev[nev++].size = i;
		ev[nev].key = (u64)bufs[i].hi << 1;
		ev[nev++].size = i;
	}
	sort(rank, m, sizeof(*rank), npa_vrank_cmp, NULL);
	for (i = 0; i < m; i++)
		rank_of[rank[i].id] = i;
	sort(ev, nev, sizeof(*ev), npa_ev_cmp, NULL);
	fw.n = m;
	fw.top = rounddown_pow_of_two(m);

	for (i = 0; i < nev; i++) {
		u32 id = ev[i].size, r = rank_of[id], below, live;
		const struct npa_plan_buf *b = &bufs[id];

		if (!(ev[i].key & 1)) {
			npa_fw_add(&fw, r, -1);
			continue;
		}
		below = npa_fw_count(&fw, r);
		live = npa_fw_count(&fw, m);
		if (below) {
			const struct npa_plan_buf *p =
				&bufs[rank[npa_fw_kth(&fw, below)].id];

			if (p->offset + p->size > b->offset) {
				ret = -EEXIST;
				break;
			}
		}
		if (below < live) {
			const struct npa_plan_buf *s =
				&bufs[rank[npa_fw_kth(&fw, below + 1)].id];

			if (s->offset < b->offset + b->size) {
				ret = -EEXIST;
				break;
			}
		}
		npa_fw_add(&fw, r, 1);
	}

out_free:
	kvfree(fw.t);
	kvfree(ev);
	kvfree(rank_of);
	kvfree(rank);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(npa_plan_verify);
