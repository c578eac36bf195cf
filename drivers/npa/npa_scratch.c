// SPDX-License-Identifier: GPL-2.0
/*
 * npa: scratch-in-gap placement.
 */

/**
 * DOC: scratch in the gaps
 *
 * Operators need scratch buffers only while they run.  Once the tensors have
 * their offsets, the arena has free areas at every step: the address ranges
 * that no tensor live at that step occupies.  npa_scratch_place() puts each
 * operator's scratch into those areas, step by step:
 *
 * - fixed-size requests first, largest first: the smallest free area that
 *   fits, at its bottom, or at its top when that stacks the buffer on
 *   another scratch buffer of the same operator; when none fits, the arena
 *   grows at the top or the bottom, whichever needs less, by only what the
 *   area touching that end is missing;
 * - variable-size requests after them: the largest free areas, one each;
 *   with more requests than areas, the largest areas are shared evenly; a
 *   request whose minimum exceeds what it can get grows the arena by what
 *   its minimum is missing;
 * - latency-critical requests prefer areas in the fast window at the start
 *   of the arena.
 *
 * With a cost model (npa_scratch_place_cost()), the free part of the fast
 * window goes first to the variable requests that save the most cycles per
 * byte there, shrunk to fit if that still beats their largest grant out of
 * it; of the other variable requests, those whose bytes save nothing out of
 * the window get their minimum, the rest share the largest areas, the most
 * cycles per byte first; and once a step is placed, buffers outside the
 * window move into whatever of it is left, again by cycles per byte.
 *
 * The free-area list of a step is built from the tensors live at that step,
 * kept sorted by offset as the sweep moves through time, and updated after
 * every placement.  Growing at the bottom moves every buffer up; that is
 * done once at the end, by an amount that keeps every alignment.  The work
 * (active buffers visited) is bounded; past the bound the remaining scratch
 * is stacked above the arena, which is always correct.
 *
 * Memory is O(n); time O(sum over steps with scratch of the live buffers).
 */

#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "npa_scratch.h"

/* Active-buffer visits before the rest of the scratch is simply stacked. */
#define NPA_SCRATCH_WORK_MAX	BIT_ULL(26)

struct npa_gap {
	s64 lo, hi;
	bool lo_scratch;	/* the bottom borders this op's scratch */
	bool hi_scratch;	/* the top borders this op's scratch */
};

struct npa_scratch_ctx {
	struct npa_plan_buf *bufs;
	struct npa_scratch_req *reqs;
	u32 *active;		/* live buffers, sorted by offset */
	u32 nactive;
	struct npa_gap *gaps;
	u32 ngaps;
	s64 floor;		/* arena bottom; goes below 0 when it grows */
	s64 top;		/* arena top */
	u64 max_align;		/* every alignment divides it */
	u64 fast_window;
	const struct npa_scratch_cost *cost;
};

static u64 npa_align_of(u64 align)
{
	return align > 1 ? align : 1;
}

static s64 npa_align_down_s64(s64 v, u64 a)
{
	s64 r = v % (s64)a;

	return r < 0 ? v - r - (s64)a : v - r;
}

static s64 npa_align_up_s64(s64 v, u64 a)
{
	return -npa_align_down_s64(-v, a);
}

/* Position of the first active buffer with offset >= @off. */
static u32 npa_active_pos(const struct npa_scratch_ctx *c, u64 off)
{
	u32 lo = 0, hi = c->nactive;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (c->bufs[c->active[mid]].offset < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void npa_active_add(struct npa_scratch_ctx *c, u32 b)
{
	u32 pos = npa_active_pos(c, c->bufs[b].offset);

	memmove(&c->active[pos + 1], &c->active[pos],
		(c->nactive - pos) * sizeof(*c->active));
	c->active[pos] = b;
	c->nactive++;
}

static void npa_active_del(struct npa_scratch_ctx *c, u32 b)
{
	u32 pos = npa_active_pos(c, c->bufs[b].offset);

	while (pos < c->nactive && c->active[pos] != b)
		pos++;
	if (WARN_ON_ONCE(pos == c->nactive))
		return;
	memmove(&c->active[pos], &c->active[pos + 1],
		(c->nactive - pos - 1) * sizeof(*c->active));
	c->nactive--;
}

/* The free areas of the current step, from the live tensors. */
static void npa_gaps_build(struct npa_scratch_ctx *c)
{
	s64 cur = c->floor;
	u32 i;

	c->ngaps = 0;
	for (i = 0; i < c->nactive; i++) {
		const struct npa_plan_buf *b = &c->bufs[c->active[i]];
		s64 lo = b->offset, hi = b->offset + b->size;

		if (lo > cur)
			c->gaps[c->ngaps++] = (struct npa_gap){ .lo = cur, .hi = lo };
		cur = max(cur, hi);
	}
	if (c->top > cur)
		c->gaps[c->ngaps++] = (struct npa_gap){ .lo = cur, .hi = c->top };
}

/* Carve [start, start + size) out of gap @g; keeps the list sorted. */
static void npa_gap_take(struct npa_scratch_ctx *c, u32 g, s64 start, u64 size)
{
	struct npa_gap old = c->gaps[g];
	struct npa_gap below = { old.lo, start, old.lo_scratch, true };
	struct npa_gap above = { start + (s64)size, old.hi, true, old.hi_scratch };
	u32 n = 0;
	struct npa_gap parts[2];

	if (below.hi > below.lo)
		parts[n++] = below;
	if (above.hi > above.lo)
		parts[n++] = above;
	memmove(&c->gaps[g + n], &c->gaps[g + 1],
		(c->ngaps - g - 1) * sizeof(*c->gaps));
	memcpy(&c->gaps[g], parts, n * sizeof(*parts));
	c->ngaps = c->ngaps - 1 + n;
}

/*
 * Where @size bytes aligned to @a go in gap @g, or false if they do not fit.
 * The top is chosen only to stack on a scratch buffer above.
 */
static bool npa_gap_fit(const struct npa_gap *g, u64 size, u64 a, s64 *start,
			bool *stacked)
{
	s64 bottom = npa_align_up_s64(g->lo, a);
	s64 top = npa_align_down_s64(g->hi - (s64)size, a);

	if (bottom + (s64)size > g->hi)
		return false;
	if (g->hi_scratch && !g->lo_scratch) {
		*start = top;
		*stacked = true;
	} else {
		*start = bottom;
		*stacked = g->lo_scratch && bottom == g->lo;
	}
	return true;
}

static bool npa_in_fast(const struct npa_scratch_ctx *c, s64 start)
{
	return c->fast_window && start < c->floor + (s64)c->fast_window;
}

/*
 * @r gets @size bytes at @start.  Whether they are in the fast window is
 * known for sure only at the end (the arena may still grow at the bottom);
 * until then the flag says where they are so far, for the cost callback.
 */
static void npa_req_put(struct npa_scratch_ctx *c, struct npa_scratch_req *r,
			s64 start, u64 size)
{
	r->offset = start;
	r->granted = size;
	r->placed_flags |= NPA_SCRATCH_PLACED;
	r->placed_flags &= ~NPA_SCRATCH_PLACED_FAST;
	if (c->fast_window &&
	    start + (s64)size <= c->floor + (s64)c->fast_window)
		r->placed_flags |= NPA_SCRATCH_PLACED_FAST;
}

/* Index of the gap whose bottom (@at_top false) or top is the arena's end. */
static int npa_gap_at_end(const struct npa_scratch_ctx *c, bool at_top)
{
	u32 g;

	for (g = 0; g < c->ngaps; g++) {
		if (at_top ? c->gaps[g].hi == c->top : c->gaps[g].lo == c->floor)
			return g;
	}
	return -1;
}

/* Grow the arena at the cheaper end so that @size bytes fit; place them. */
static s64 npa_grow_place(struct npa_scratch_ctx *c, u64 size, u64 a)
{
	int tg = npa_gap_at_end(c, true), bg = npa_gap_at_end(c, false);
	s64 tlo = tg >= 0 ? c->gaps[tg].lo : c->top;
	s64 bhi = bg >= 0 ? c->gaps[bg].hi : c->floor;
	s64 tstart = npa_align_up_s64(tlo, a);
	s64 bstart = npa_align_down_s64(bhi - (s64)size, a);
	s64 nfloor = min(c->floor, npa_align_down_s64(bstart, c->max_align));
	u64 gtop = max_t(s64, tstart + (s64)size - c->top, 0);
	u64 gbottom = c->floor - nfloor;

	if (gtop <= gbottom) {
		if (tg >= 0) {
			c->gaps[tg].hi = max(c->gaps[tg].hi, tstart + (s64)size);
			npa_gap_take(c, tg, tstart, size);
		}
		c->top = max(c->top, tstart + (s64)size);
		return tstart;
	}
	if (bg >= 0) {
		c->gaps[bg].lo = nfloor;
		npa_gap_take(c, bg, bstart, size);
	} else if (bstart > nfloor) {
		c->gaps[c->ngaps++] = (struct npa_gap){ nfloor, bstart, false, true };
	}
	c->floor = nfloor;
	return bstart;
}

static void npa_place_fixed(struct npa_scratch_ctx *c, struct npa_scratch_req *r)
{
	u64 a = npa_align_of(r->align);
	bool fast = (r->flags & NPA_SCRATCH_REQ_LATENCY) && c->fast_window;
	s64 best_start = 0, start;
	u64 best_size = U64_MAX;
	bool best_fast = false, best_stacked = false, stacked;
	int best = -1;
	u32 g;

	for (g = 0; g < c->ngaps; g++) {
		u64 gsize = c->gaps[g].hi - c->gaps[g].lo;
		bool gfast;

		if (!npa_gap_fit(&c->gaps[g], r->size, a, &start, &stacked))
			continue;
		gfast = fast && npa_in_fast(c, start);
		/* Fast areas first for latency-critical requests, then best fit. */
		if (best >= 0 && (best_fast > gfast ||
				  (best_fast == gfast && gsize >= best_size)))
			continue;
		best = g;
		best_size = gsize;
		best_start = start;
		best_fast = gfast;
		best_stacked = stacked;
	}
	if (best >= 0) {
		npa_gap_take(c, best, best_start, r->size);
		npa_req_put(c, r, best_start, r->size);
		if (best_stacked)
			r->placed_flags |= NPA_SCRATCH_PLACED_STACKED;
		return;
	}
	npa_req_put(c, r, npa_grow_place(c, r->size, a), r->size);
	r->placed_flags |= NPA_SCRATCH_PLACED_GROWN;
}

/* A variable request at its minimum, placed like a fixed one. */
static void npa_place_min(struct npa_scratch_ctx *c, struct npa_scratch_req *r)
{
	u64 size = r->size;

	r->size = r->min_size;
	npa_place_fixed(c, r);
	r->size = size;
}

static int npa_gap_cmp_size(const void *a, const void *b)
{
	const struct npa_gap *x = a, *y = b;
	u64 sx = x->hi - x->lo, sy = y->hi - y->lo;

	if (sx != sy)
		return sx > sy ? -1 : 1;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/*
 * The fewest bytes from @r's minimum up to @granted at which its operator
 * takes no more cycles than with @granted: the rest would buy nothing.
 * The minimum when it is enough; else a bisection, exact where the cycles
 * never grow with the bytes (an im2col buffer's), and never above
 * @granted's cycles where they may (weight staging in a few filters can
 * cost more than none).
 */
static u64 npa_req_least(const struct npa_scratch_ctx *c,
			 const struct npa_scratch_req *r, u64 granted, bool fast)
{
	const struct npa_scratch_cost *k = c->cost;
	u32 idx = r - c->reqs;
	u64 lo = r->min_size, hi = granted, want;

	if (!k || !k->cycles)
		return granted;
	want = k->cycles(k->priv, idx, granted, fast);
	if (k->cycles(k->priv, idx, lo, fast) <= want)
		return lo;
	while (lo < hi) {
		u64 mid = lo + (hi - lo) / 2;

		if (k->cycles(k->priv, idx, mid, fast) <= want)
			hi = mid;
		else
			lo = mid + 1;
	}
	return hi;
}

/*
 * Share the largest areas among variable requests @r[0..n): one each, or
 * evenly when there are more requests than areas.  With @commit false
 * nothing is placed; the return value is the index of the first request
 * whose share would be below its minimum, or -1 if every share is enough.
 * The gaps must already be sorted largest first.
 */
static int npa_share_areas(struct npa_scratch_ctx *c, struct npa_scratch_req **r,
			   u32 n, bool commit)
{
	u32 areas = c->ngaps, per = areas ? DIV_ROUND_UP(n, areas) : 0;
	u32 i = 0, g, k;

	for (g = 0; g < areas && i < n; g++) {
		struct npa_gap gap = c->gaps[g];
		u32 cnt = min(per, n - i);
		u64 share = (gap.hi - gap.lo) / cnt;

		for (k = 0; k < cnt; k++, i++) {
			struct npa_scratch_req *q = r[i];
			u64 a = npa_align_of(q->align);
			s64 start = npa_align_up_s64(gap.lo, a);
			s64 end = min_t(s64, gap.lo + (s64)share, gap.hi);
			u64 room = end > start ? end - start : 0;
			u64 granted = min(q->size, room);

			if (granted < q->min_size)
				return i;
			/* The dry run must see exactly what placing would. */
			if (commit) {
				granted = npa_req_least(c, q, granted,
							npa_in_fast(c, start));
				npa_req_put(c, q, start, granted);
				if (gap.lo_scratch && start == gap.lo)
					q->placed_flags |= NPA_SCRATCH_PLACED_STACKED;
			}
			gap.lo = start + granted;
			gap.lo_scratch = true;
			if (commit)
				c->gaps[g] = gap;
		}
	}
	return i < n ? (int)i : -1;
}

/*
 * Variable requests @r[0..n): the largest areas, one each, shared evenly
 * when there are more requests than areas.  A request whose share would
 * be below its minimum is placed first at its minimum, like a fixed
 * request (best fit, growing the arena by only what is missing), and the
 * others share what is left; this repeats until every share is enough.
 * So an operator grows the arena by at most the sum of its minimums, and
 * a variable request never takes the room another one's minimum needs.
 */
static void npa_place_variable(struct npa_scratch_ctx *c,
			       struct npa_scratch_req **r, u32 n)
{
	int short_one;

	for (;;) {
		sort(c->gaps, c->ngaps, sizeof(*c->gaps), npa_gap_cmp_size, NULL);
		short_one = npa_share_areas(c, r, n, false);
		if (short_one < 0)
			break;
		/* Its minimum first, as a fixed request; then the rest. */
		swap(r[short_one], r[0]);
		npa_place_min(c, r[0]);
		r++;
		if (!--n)
			return;
	}
	npa_share_areas(c, r, n, true);
}

/*
 * The best place for one of @r[0..n) in the free part of the fast window:
 * the most cycles saved per byte, a variable request shrunk to the room if
 * that still saves cycles.  @placed: against where they are, else (not
 * placed yet) against the most they could get out of the window.  False
 * when none would save any.
 */
static bool npa_fast_best(struct npa_scratch_ctx *c, struct npa_scratch_req **r,
			  u32 n, bool placed, u32 *best_r, u32 *best_g,
			  s64 *best_start, u64 *best_size)
{
	const struct npa_scratch_cost *k = c->cost;
	s64 end = c->floor + (s64)c->fast_window;
	u64 best = 0;
	u32 i, g;

	for (i = 0; i < n; i++) {
		struct npa_scratch_req *q = r[i];
		u32 idx = q - c->reqs;
		u64 a = npa_align_of(q->align), now, size, then, per;
		bool var = q->flags & NPA_SCRATCH_REQ_VARIABLE;

		if (placed && (s64)q->offset + (s64)q->granted <= end)
			continue;
		/* Not placed yet: against the most it could get elsewhere. */
		now = k->cycles(k->priv, idx, placed ? q->granted : q->size, false);
		if (!now)
			continue;
		/* The gaps may be sorted by size (npa_place_variable()). */
		for (g = 0; g < c->ngaps; g++) {
			s64 start = npa_align_up_s64(c->gaps[g].lo, a);
			s64 hi = min(c->gaps[g].hi, end);

			if (start >= hi)
				continue;
			size = min_t(u64, placed ? q->granted : q->size, hi - start);
			if (size < (placed ? q->granted : q->size) &&
			    (!var || size < q->min_size))
				continue;
			if (var)
				size = npa_req_least(c, q, size, true);
			then = k->cycles(k->priv, idx, size, true);
			if (then >= now)
				continue;
			per = div64_u64(min_t(u64, now - then, U64_MAX >> 10) << 10,
					size);
			if (per <= best)
				continue;
			best = per;
			*best_r = i;
			*best_g = g;
			*best_start = start;
			*best_size = size;
		}
	}
	return best;
}

/*
 * Scratch into the fast window where it saves the most cycles: of @r[0..n),
 * the one that saves the most cycles per byte there goes into the free part
 * of the fast window first, and so on until none saves any or there is no
 * room.  Returns how many are left, moved to the front of @r.  Placed
 * buffers that move leave their area unused.
 */
static u32 npa_fast_moves(struct npa_scratch_ctx *c, struct npa_scratch_req **r,
			  u32 n, bool placed)
{
	u32 i, g;
	s64 start;
	u64 size;

	if (!c->fast_window || !c->cost || !c->cost->cycles)
		return n;
	while (n && npa_fast_best(c, r, n, placed, &i, &g, &start, &size)) {
		struct npa_scratch_req *q = r[i];

		q->placed_flags &= ~(NPA_SCRATCH_PLACED_GROWN |
				     NPA_SCRATCH_PLACED_STACKED);
		npa_req_put(c, q, start, size);
		if (c->gaps[g].lo_scratch && start == c->gaps[g].lo)
			q->placed_flags |= NPA_SCRATCH_PLACED_STACKED;
		npa_gap_take(c, g, start, size);
		r[i] = r[--n];
	}
	return n;
}

/*
 * Once a step is placed, each variable request of @r[0..n) keeps only the
 * bytes that still save cycles beside its operator's other grants (valued
 * before these were known, an im2col buffer may have grown to hold every
 * patch, and weight staging then only copies the weights).  Shrinking in
 * place never overlaps anything.
 */
static void npa_trim(struct npa_scratch_ctx *c, struct npa_scratch_req **r,
		     u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		struct npa_scratch_req *q = r[i];

		if (q->flags & NPA_SCRATCH_REQ_VARIABLE)
			q->granted = npa_req_least(c, q, q->granted,
						   q->placed_flags & NPA_SCRATCH_PLACED_FAST);
	}
}

/*
 * A variable request whose operator takes as many cycles at its minimum as
 * at its size, in the fast window and out of it: more would buy nothing.
 */
static bool npa_req_flat(const struct npa_scratch_ctx *c,
			 const struct npa_scratch_req *r)
{
	const struct npa_scratch_cost *k = c->cost;
	u32 idx = r - c->reqs;

	return k && k->cycles &&
	       k->cycles(k->priv, idx, r->min_size, false) ==
	       k->cycles(k->priv, idx, r->size, false) &&
	       k->cycles(k->priv, idx, r->min_size, true) ==
	       k->cycles(k->priv, idx, r->size, true);
}

/*
 * A variable request whose operator takes no more cycles at its minimum
 * than at its size out of the fast window: once the window is handed out,
 * more bytes would buy nothing (or cost cycles: weight staging outside the
 * window copies the weights on their way to the array).
 */
static bool npa_req_worthless(const struct npa_scratch_ctx *c,
			      const struct npa_scratch_req *r)
{
	const struct npa_scratch_cost *k = c->cost;
	u32 idx = r - c->reqs;

	return k && k->cycles &&
	       k->cycles(k->priv, idx, r->min_size, false) <=
	       k->cycles(k->priv, idx, r->size, false);
}

/*
 * What a variable request's bytes above its minimum are worth: the cycles
 * its operator saves from its minimum to its size, out of the fast window,
 * per KiB of the difference; 0 without a cost model.
 */
static u64 npa_req_value(const struct npa_scratch_ctx *c,
			 const struct npa_scratch_req *r)
{
	const struct npa_scratch_cost *k = c->cost;
	u32 idx = r - c->reqs;
	u64 lo, hi, saved;

	if (!k || !k->cycles || r->size <= r->min_size)
		return 0;
	lo = k->cycles(k->priv, idx, r->min_size, false);
	hi = k->cycles(k->priv, idx, r->size, false);
	saved = lo > hi ? lo - hi : 0;
	if (saved > U64_MAX >> 10)
		return U64_MAX;
	return div64_u64(saved << 10, r->size - r->min_size);
}

/* Most valuable first (npa_req_value()); ties in request order. */
static void npa_vars_sort(const struct npa_scratch_ctx *c,
			  struct npa_scratch_req **r, u64 *value, u32 n)
{
	u32 i, j;

	for (i = 0; i < n; i++)
		value[i] = npa_req_value(c, r[i]);
	/* Insertion sort: an operator has a handful of requests. */
	for (i = 1; i < n; i++) {
		for (j = i; j && (value[j - 1] < value[j] ||
				  (value[j - 1] == value[j] && r[j - 1] > r[j])); j--) {
			swap(value[j - 1], value[j]);
			swap(r[j - 1], r[j]);
		}
	}
}

static int npa_req_cmp(const void *a, const void *b, const void *priv)
{
	const struct npa_scratch_req *reqs = priv;
	const struct npa_scratch_req *x = &reqs[*(const u32 *)a];
	const struct npa_scratch_req *y = &reqs[*(const u32 *)b];
	bool vx = x->flags & NPA_SCRATCH_REQ_VARIABLE;
	bool vy = y->flags & NPA_SCRATCH_REQ_VARIABLE;

	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	if (vx != vy)
		return vx ? 1 : -1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	/* A total order: the kernel's and the host's sort agree. */
	return (*(const u32 *)a > *(const u32 *)b) - (*(const u32 *)a < *(const u32 *)b);
}

static int npa_buf_cmp_lo(const void *a, const void *b, const void *priv)
{
	const struct npa_plan_buf *bufs = priv;
	u32 x = bufs[*(const u32 *)a].lo, y = bufs[*(const u32 *)b].lo;

	if (x != y)
		return x < y ? -1 : 1;
	return (*(const u32 *)a > *(const u32 *)b) - (*(const u32 *)a < *(const u32 *)b);
}

static int npa_buf_cmp_hi(const void *a, const void *b, const void *priv)
{
	const struct npa_plan_buf *bufs = priv;
	u32 x = bufs[*(const u32 *)a].hi, y = bufs[*(const u32 *)b].hi;

	if (x != y)
		return x < y ? -1 : 1;
	return (*(const u32 *)a > *(const u32 *)b) - (*(const u32 *)a < *(const u32 *)b);
}

/* Naive growth: every step's scratch stacked above the tensors. */
static u64 npa_scratch_naive(const struct npa_scratch_req *reqs,
			     const u32 *order, u32 nreqs)
{
	u64 best = 0, cur = 0;
	u32 i;

	for (i = 0; i < nreqs; i++) {
		const struct npa_scratch_req *r = &reqs[order[i]];
		u64 size = r->flags & NPA_SCRATCH_REQ_VARIABLE ? r->min_size : r->size;

		if (i && reqs[order[i - 1]].step != r->step)
			cur = 0;
		cur = ALIGN(cur, npa_align_of(r->align)) + size;
		best = max(best, cur);
	}
	return best;
}

/* Past the work bound: stack the request above the arena. */
static void npa_place_stacked(struct npa_scratch_ctx *c, struct npa_scratch_req *r)
{
	s64 start = npa_align_up_s64(c->top, npa_align_of(r->align));

	npa_req_put(c, r, start, r->flags & NPA_SCRATCH_REQ_VARIABLE ?
		    r->min_size : r->size);
	r->placed_flags |= NPA_SCRATCH_PLACED_GROWN;
	c->top = start + r->granted;
}

static int npa_scratch_check(const struct npa_plan_buf *bufs, u32 nbufs,
			     u64 arena, const struct npa_scratch_req *reqs,
			     u32 nreqs, u64 *max_align)
{
	u64 total = arena;
	u32 i;

	*max_align = 1;
	for (i = 0; i < nbufs; i++)
		*max_align = max(*max_align, npa_align_of(bufs[i].align));
	for (i = 0; i < nreqs; i++) {
		const struct npa_scratch_req *r = &reqs[i];
		u64 a = npa_align_of(r->align);

		if (!is_power_of_2(a) || a > NPA_PLAN_MAX_ALIGN)
			return -EINVAL;
		if (!r->size || ((r->flags & NPA_SCRATCH_REQ_VARIABLE) &&
				 (!r->min_size || r->min_size > r->size)))
			return -EINVAL;
		*max_align = max(*max_align, a);
		/* Stacking everything must stay far from s64 overflow. */
		if (check_add_overflow(total, r->size + a, &total) ||
		    total > (U64_MAX >> 3))
			return -EOVERFLOW;
	}
	return 0;
}

/**
 * npa_scratch_place() - place operators' scratch in the arena's free areas
 * @bufs: placed tensor buffers (offsets from the planner); their offsets
 *	move up by @stats->shift when the arena grows at the bottom.
 * @nbufs: number of @bufs.
 * @arena: in: arena size of the tensors; out: arena size with scratch.
 * @reqs: scratch requests; @offset, @granted and @placed_flags are set.
 * @nreqs: number of @reqs.
 * @fast_window: bytes at the start of the arena that latency-critical
 *	requests prefer; 0 for none.
 * @stats: out: what was requested and how much the arena grew.
 *
 * Context: Process context; may sleep.  No locking: the caller owns the
 * arrays.
 * Return: 0, -EINVAL for a malformed request, -EOVERFLOW when sizes cannot
 * be added up, or -ENOMEM.
 */
int npa_scratch_place(struct npa_plan_buf *bufs, u32 nbufs, u64 *arena,
		      struct npa_scratch_req *reqs, u32 nreqs,
		      u64 fast_window, struct npa_scratch_stats *stats)
{
	return npa_scratch_place_cost(bufs, nbufs, arena, reqs, nreqs,
				      fast_window, NULL, stats);
}
EXPORT_SYMBOL_IF_KUNIT(npa_scratch_place);

/**
 * npa_scratch_place_cost() - place scratch, buying cycles with arena bytes
 * @bufs: as for npa_scratch_place().
 * @nbufs: number of @bufs.
 * @arena: in: arena size of the tensors; out: arena size with scratch.
 * @reqs: scratch requests; @offset, @granted and @placed_flags are set.
 * @nreqs: number of @reqs.
 * @fast_window: as for npa_scratch_place().
 * @cost: what variable scratch is worth, or NULL.
 * @stats: out: what was requested and how much the arena grew.
 *
 * As npa_scratch_place(), except that a variable request whose operator
 * takes no fewer cycles with more of it gets its minimum (placed like a
 * fixed request), leaving the free areas to the requests that save
 * cycles, and that the arena may grow by up to @cost->headroom bytes at the
 * top for variable requests: those bytes are free at every step, so every
 * step's variable scratch can use them.  The arena ends at the highest
 * byte used.
 *
 * Context: Process context; may sleep.  No locking: the caller owns the
 * arrays.
 * Return: as npa_scratch_place().
 */
int npa_scratch_place_cost(struct npa_plan_buf *bufs, u32 nbufs, u64 *arena,
			   struct npa_scratch_req *reqs, u32 nreqs,
			   u64 fast_window, const struct npa_scratch_cost *cost,
			   struct npa_scratch_stats *stats)
{
	struct npa_scratch_ctx c = { .bufs = bufs, .reqs = reqs,
				     .top = *arena, .fast_window = fast_window,
				     .cost = cost };
	s64 used;
	u32 *order, *by_lo, *by_hi, i, i0, j, k, ilo = 0, ihi = 0, nlive = 0;
	struct npa_scratch_req **var;
	u64 *value;
	u8 *live;
	int ret;

	memset(stats, 0, sizeof(*stats));
	ret = npa_scratch_check(bufs, nbufs, *arena, reqs, nreqs, &c.max_align);
	if (ret)
		return ret;
	/* As far from overflow as the stacked requests (npa_scratch_check()). */
	if (cost && cost->headroom) {
		if (cost->headroom > (U64_MAX >> 3) - *arena)
			return -EOVERFLOW;
		c.top += ALIGN_DOWN(cost->headroom, c.max_align);
	}
	if (!nreqs)
		return 0;

	ret = -ENOMEM;
	order = kvmalloc_array(nreqs, sizeof(*order), GFP_KERNEL_ACCOUNT);
	var = kvmalloc_array(nreqs, sizeof(*var), GFP_KERNEL_ACCOUNT);
	value = kvmalloc_array(nreqs, sizeof(*value), GFP_KERNEL_ACCOUNT);
	by_lo = kvmalloc_array(nbufs + 1, sizeof(*by_lo), GFP_KERNEL_ACCOUNT);
	by_hi = kvmalloc_array(nbufs + 1, sizeof(*by_hi), GFP_KERNEL_ACCOUNT);
	c.active = kvmalloc_array(nbufs + 1, sizeof(*c.active), GFP_KERNEL_ACCOUNT);
	c.gaps = kvmalloc_array(nbufs + 2 * nreqs + 2, sizeof(*c.gaps), GFP_KERNEL_ACCOUNT);
	live = kvzalloc(nbufs + 1, GFP_KERNEL_ACCOUNT);
	if (!order || !var || !value || !by_lo || !by_hi || !c.active || !c.gaps || !live)
		goto out_free;

	for (i = 0; i < nreqs; i++) {
		order[i] = i;
		reqs[i].placed_flags = 0;
	}
	sort_r(order, nreqs, sizeof(*order), npa_req_cmp, NULL, reqs);
	for (i = 0; i < nbufs; i++) {
		if (!bufs[i].size)
			continue;
		by_lo[nlive] = i;
		by_hi[nlive++] = i;
	}
	sort_r(by_lo, nlive, sizeof(*by_lo), npa_buf_cmp_lo, NULL, bufs);
	sort_r(by_hi, nlive, sizeof(*by_hi), npa_buf_cmp_hi, NULL, bufs);
	stats->growth_naive = npa_scratch_naive(reqs, order, nreqs);

	for (i = 0; i < nreqs; i = j) {
		u32 step = reqs[order[i]].step, nvar = 0;
		bool stack = stats->work > NPA_SCRATCH_WORK_MAX;

		for (j = i; j < nreqs && reqs[order[j]].step == step; j++)
			;
		i0 = i;
		/* Move the live set to this step. */
		for (; ihi < nlive && bufs[by_hi[ihi]].hi <= step; ihi++) {
			if (live[by_hi[ihi]]) {
				npa_active_del(&c, by_hi[ihi]);
				live[by_hi[ihi]] = 0;
			}
		}
		for (; ilo < nlive && bufs[by_lo[ilo]].lo <= step; ilo++) {
			if (bufs[by_lo[ilo]].hi > step) {
				npa_active_add(&c, by_lo[ilo]);
				live[by_lo[ilo]] = 1;
			}
		}
		stats->work += c.nactive + 1;
		cond_resched();

		if (stack) {
			for (; i < j; i++)
				npa_place_stacked(&c, &reqs[order[i]]);
			continue;
		}
		npa_gaps_build(&c);
		for (; i < j; i++) {
			struct npa_scratch_req *r = &reqs[order[i]];

			if (!(r->flags & NPA_SCRATCH_REQ_VARIABLE))
				npa_place_fixed(&c, r);
			else if (npa_req_flat(&c, r))
				npa_place_min(&c, r);
			else
				var[nvar++] = r;
		}
		nvar = npa_fast_moves(&c, var, nvar, false);
		for (k = 0; k < nvar; ) {
			if (!npa_req_worthless(&c, var[k])) {
				k++;
				continue;
			}
			npa_place_min(&c, var[k]);
			var[k] = var[--nvar];
		}
		if (nvar) {
			npa_vars_sort(&c, var, value, nvar);
			npa_place_variable(&c, var, nvar);
		}
		for (nvar = 0; i0 < j; i0++)
			var[nvar++] = &reqs[order[i0]];
		npa_fast_moves(&c, var, nvar, true);
		npa_trim(&c, var, nvar);
	}

	/* The headroom nobody used is not part of the arena. */
	used = *arena;
	for (i = 0; i < nreqs; i++)
		used = max_t(s64, used, reqs[i].offset + reqs[i].granted);
	c.top = min(c.top, used);

	/* Growing at the bottom moved the arena's start to c.floor. */
	stats->shift = -c.floor;
	for (i = 0; i < nbufs; i++)
		bufs[i].offset += stats->shift;
	for (i = 0; i < nreqs; i++) {
		struct npa_scratch_req *r = &reqs[i];

		r->offset += stats->shift;
		stats->requested += r->granted;
		r->placed_flags &= ~NPA_SCRATCH_PLACED_FAST;
		if (fast_window && r->offset + r->granted <= fast_window)
			r->placed_flags |= NPA_SCRATCH_PLACED_FAST;
	}
	stats->growth = (c.top - c.floor) - *arena;
	*arena = c.top - c.floor;
	ret = 0;

out_free:
	kvfree(live);
	kvfree(c.gaps);
	kvfree(c.active);
	kvfree(by_hi);
	kvfree(by_lo);
	kvfree(value);
	kvfree(var);
	kvfree(order);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(npa_scratch_place_cost);
