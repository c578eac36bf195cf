/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npa planner, internal: what the exact search (npa_plan_search.c, one
 * run) and its schedule (npa_plan_sched.c, the runs of each part) share.
 * Not uAPI.
 */
#ifndef _NPA_PLAN_SEARCH_H_
#define _NPA_PLAN_SEARCH_H_

#include <linux/types.h>

#include "npa_plan_int.h"

/* Rankings of the buffers (npa_plan_sched.c). */
#define NPA_RANK_COUNT		4

/* Runs: for each ranking one at the bound, one below the best plan. */
#define NPA_SEARCH_RUNS		(2 * NPA_RANK_COUNT)
/* Largest part searched; a level of the search costs O(its buffers). */
#define NPA_SEARCH_MAX		2048
/*
 * Steps (a buffer or a section looked at) per unit of work: about the
 * time of a placement of a first-fit pass.
 */
#define NPA_SEARCH_STEPS_PER_UNIT	64
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

/* A lowest offset of a buffer and the section where it ends. */
struct npa_low {
	u64 p;
	u32 b;
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
	u32 *nx, *pv;		/* n + 1: the list of the unplaced buffers */
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
	u64 *load;		/* scratch of the setup: 2 * tsize */
	struct npa_low *low;	/* scratch of a level: n, a heap */
	s32 *cnt;		/* scratch of a level: ns + 1, zero between */
	u32 *qs, nq;		/* scratch of a level: its buffers at the height */
	u32 *cs, ncs;		/* scratch of a level: 2 n, its components */
	u32 *first;		/* ns + 1: the first buffer that starts there or later */
	u32 *reach;		/* ns: the first buffer that lives there or later */
	/* Scratch of a completion: its offsets, a heap and where each is. */
	u64 *fo;
	u32 *heap, *hat;
	u32 tsize;		/* leaves of the trees, a power of two */
	void *mem;		/* the block the arrays are carved from */
	u64 steps;		/* buffers and sections looked at */
	u64 spent;		/* of them, charged as units already */
	/*
	 * The part's share of the budget, in steps: nothing starts that
	 * could end above it (npa_srch_room()). @reserve bounds one step of
	 * a run (npa_run_go()) but for completions and an unwind, @undo one
	 * level undone; @out is set once something did not fit.
	 */
	u64 hard, reserve, undo;
	bool out;
	struct npa_run run[NPA_SEARCH_RUNS];
};

static inline u64 npa_align(u64 x, u64 amask)
{
	return (x + amask) & ~amask;
}

/*
 * Is there room in the part's share for @steps more steps? If not, the
 * part is out of budget: what would not fit is not started, and the part
 * stops.
 */
static inline bool npa_srch_room(struct npa_srch *s, u64 steps)
{
	return npa_plan_room(&s->out, s->steps, s->hard, steps);
}

/* npa_plan_search.c */
u64 npa_tree_max(const u64 *t, u32 size, u32 a, u32 b);
u32 npa_run_next(struct npa_srch *s, const struct npa_run *d, u32 i);
void npa_run_reset(struct npa_srch *s, struct npa_run *d, u64 cap);
void npa_run_go(struct npa_srch *s, struct npa_run *d, u64 units);

/* npa_plan_sched.c */
u64 npa_run_below(struct npa_srch *s, struct npa_run *d);
void npa_run_fill(struct npa_srch *s, struct npa_run *d);
void npa_run_restart(struct npa_srch *s, struct npa_run *d);

#endif /* _NPA_PLAN_SEARCH_H_ */
