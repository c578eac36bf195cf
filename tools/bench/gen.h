/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Instance generators for the planner's host tests and benchmark. All are
 * deterministic functions of their seed.
 */
#ifndef _NPA_GEN_H_
#define _NPA_GEN_H_

#include <linux/types.h>

#include "npa_plan.h"
/* npa_gen_next(), npa_gen_below(), npa_gen_random(), npa_gen_guillotine() */
#include "../../kunit/npa_plan_gen.h"

/*
 * Cut a full strip of @width bytes x @steps steps into @n rectangles by
 * random guillotine cuts (always splitting the largest piece). Every byte
 * of the strip is used at every step, so the optimum is exactly @width,
 * which is also the lower bound. The buffers' offsets are the cut (a plan
 * at the optimum). Returns the number of buffers written (fewer than @n
 * when pieces become too small to cut).
 */
u32 npa_gen_strip(struct npa_plan_buf *b, u32 n, u64 width, u32 steps,
		  u64 seed);

/*
 * The same with each cut across time or across the addresses at random,
 * whatever the shape of the piece (as the KUnit suite
 * cuts): longer and thinner pieces, harder to plan.
 */
u32 npa_gen_cut(struct npa_plan_buf *b, u32 n, u64 width, u32 steps,
		u64 seed);

/*
 * Another full strip, not guillotine: sweep over the steps and, at each,
 * end a few random rectangles and refill every run of adjacent ended ones
 * with 1-3 new rectangles cut at random points, so that new boundaries
 * rarely line up with old ones. The buffers' offsets are that plan (at
 * the optimum, @width). Returns the number of buffers written, at most @n.
 */
u32 npa_gen_sweep(struct npa_plan_buf *b, u32 n, u64 width, u32 steps,
		  u64 seed);

/*
 * A trace-like instance: a chain of layers where each step allocates a few
 * outputs that die a few steps later, plus some long-lived buffers.
 */
void npa_gen_trace(struct npa_plan_buf *b, u32 n, u64 seed);

#endif /* _NPA_GEN_H_ */
