/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Other projects' arena planners, re-implemented for the host benchmark
 * (npa-bench --baselines) so that npa can be compared with them on the
 * same instances: TVM's Unified Static Memory Planner (greedy_by_size,
 * greedy_by_conflicts, hill_climb) and Arm's Vela (HillClimb and
 * LinearAlloc tensor allocators). TFLite's greedy by size is
 * npa_plan_greedy() itself. Host-only code; see baselines.c for which
 * upstream function each one follows and what was simplified.
 */
#ifndef _NPA_BASELINES_H_
#define _NPA_BASELINES_H_

#include <linux/types.h>

#include "npa_plan.h"

enum npa_bl_algo {
	NPA_BL_TVM_SIZE,	/* TVM USMP greedy_by_size */
	NPA_BL_TVM_CONFLICTS,	/* TVM USMP greedy_by_conflicts */
	NPA_BL_TVM_HILL,	/* TVM USMP hill_climb */
	NPA_BL_VELA_HILL,	/* Vela HillClimb tensor allocator */
	NPA_BL_VELA_LINEAR,	/* Vela LinearAlloc tensor allocator */
	NPA_BL_COUNT,
};

/* Upstream iteration counts of the two hill climbs. */
#define NPA_BL_TVM_HILL_ATTEMPTS	500	/* hill_climb.cc _max_attempts */
#define NPA_BL_VELA_HILL_ITERATIONS	99999	/* HillClimbAllocator.MAX_ITERATIONS */

/**
 * struct npa_bl_result - what one baseline run found
 * @peak: arena size of the plan (max of offset + size)
 * @iterations: hill climb iterations run (0 for the one-pass planners)
 * @work: conflicts visited (the cost measure the cap counts)
 * @plan_ns: wall-clock time of the run
 * @capped: the hill climb stopped at the work cap, before its upstream
 *	iteration count and before reaching the lower bound
 */
struct npa_bl_result {
	u64 peak;
	u64 iterations;
	u64 work;
	u64 plan_ns;
	bool capped;
};

/*
 * Plan @bufs (offsets written) with @algo. @names are the buffers' names
 * (TVM breaks ties of its sort by them) or NULL for their decimal indices.
 * @work_cap bounds the conflicts the hill climbs visit (0: no cap, run the
 * upstream iteration count). Returns 0 or a negative errno.
 */
int npa_bl_plan(enum npa_bl_algo algo, struct npa_plan_buf *bufs, u32 n,
		const char * const *names, u64 work_cap,
		struct npa_bl_result *res);
const char *npa_bl_name(enum npa_bl_algo algo);

#endif /* _NPA_BASELINES_H_ */
