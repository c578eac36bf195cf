/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npa: scratch-in-gap placement.  Pure code (no device, no locking, no
 * uAPI types): builds in the kernel, in KUnit and in npactl.
 */
#ifndef __NPA_SCRATCH_H__
#define __NPA_SCRATCH_H__

#include <linux/bits.h>
#include <linux/types.h>

#include "npa_plan.h"

/* &npa_scratch_req.flags */
#define NPA_SCRATCH_REQ_VARIABLE	BIT(0)
#define NPA_SCRATCH_REQ_LATENCY		BIT(1)

/* &npa_scratch_req.placed_flags */
#define NPA_SCRATCH_PLACED_FAST		BIT(0)
#define NPA_SCRATCH_PLACED_GROWN	BIT(1)
#define NPA_SCRATCH_PLACED_STACKED	BIT(2)
/*
 * Set once @offset and @granted are: while placement runs, a cost callback
 * may read the grants of the requests already placed (and, by
 * NPA_SCRATCH_PLACED_FAST, whether they are in the fast window so far).
 */
#define NPA_SCRATCH_PLACED		BIT(3)

/**
 * struct npa_scratch_req - one scratch buffer an operator needs
 * @size: bytes wanted; for a variable request the most it can use.
 * @min_size: variable requests: the least it can work with.
 * @align: alignment, a power of two (0 or 1: none).
 * @step: the operator's step; the buffer is live over [@step, @step + 1).
 * @flags: NPA_SCRATCH_REQ_* bits.
 * @offset: output: offset in the final arena.
 * @granted: output: bytes granted (@size for fixed requests).
 * @placed_flags: output: NPA_SCRATCH_PLACED_* bits.
 */
struct npa_scratch_req {
	u64 size;
	u64 min_size;
	u64 align;
	u32 step;
	u32 flags;
	u64 offset;
	u64 granted;
	u32 placed_flags;
};

/**
 * struct npa_scratch_stats - what scratch placement did to the arena
 * @requested: sum of granted sizes.
 * @growth: arena growth caused by scratch.
 * @growth_naive: growth if every operator's scratch were stacked above the
 *	tensors: max over steps of that step's summed (aligned) request sizes,
 *	variable requests at their minimum.
 * @shift: bytes the arena grew at the bottom; already added to the
 *	buffers' offsets.
 * @work: active buffers visited; past the budget the rest is stacked.
 */
struct npa_scratch_stats {
	u64 requested;
	u64 growth;
	u64 growth_naive;
	u64 shift;
	u64 work;
};

/**
 * struct npa_scratch_cost - what variable scratch is worth, in cycles
 * @cycles: the cycles the operator of request @idx takes when the request
 *	is granted @bytes, in the fast window or not, its operator's other
 *	requests as they are now (&npa_scratch_req.placed_flags); NULL:
 *	every grant is worth the same.
 * @priv: @cycles' first argument.
 * @headroom: bytes the arena may grow at the top for variable requests to
 *	use beyond their minimums (on top of what their minimums need).
 */
struct npa_scratch_cost {
	u64 (*cycles)(void *priv, u32 idx, u64 bytes, bool fast);
	void *priv;
	u64 headroom;
};

int npa_scratch_place(struct npa_plan_buf *bufs, u32 nbufs, u64 *arena,
		      struct npa_scratch_req *reqs, u32 nreqs,
		      u64 fast_window, struct npa_scratch_stats *stats);
int npa_scratch_place_cost(struct npa_plan_buf *bufs, u32 nbufs, u64 *arena,
			   struct npa_scratch_req *reqs, u32 nreqs,
			   u64 fast_window, const struct npa_scratch_cost *cost,
			   struct npa_scratch_stats *stats);

#endif /* __NPA_SCRATCH_H__ */
