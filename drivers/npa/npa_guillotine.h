/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npa planner, internal: the guillotine step (npa_guillotine.c) and the
 * entry back into npa_plan.c it plans stalled instances with. Not uAPI.
 */
#ifndef _NPA_GUILLOTINE_H_
#define _NPA_GUILLOTINE_H_

#include <linux/types.h>

#include "npa_plan.h"

/*
 * Units of the step's work (subset sums built, candidates looked at, one
 * per time scanned) that cost about as long as one placement.
 */
#define NPA_GUILLO_UNITS	160

/**
 * struct npa_guillo_params - limits and results of one guillotine run
 * @budget: placements the step may spend (its own and the nested plan's)
 * @spare: placements the plan of the stalled pieces one match down may
 *	spend on top of @budget (what the run leaves to the steps after)
 * @t0: ktime_get_ns() at the start of the planning run
 * @cap_ns: the planning run's wall-clock cap
 * @work: output: placements spent
 * @peak: output: peak of the plan written to the offsets
 */
struct npa_guillo_params {
	u64 budget, spare;
	u64 t0, cap_ns;
	u64 work;
	u64 peak;
};

int npa_guillotine(struct npa_plan_buf *bufs, u32 n, u32 nt, u64 load,
		   struct npa_guillo_params *gp);
int npa_plan_nested(struct npa_plan_buf *bufs, u32 n,
		    const struct npa_plan_params *p,
		    struct npa_plan_result *res);

#endif /* _NPA_GUILLOTINE_H_ */
