/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npa arena planner: static placement of tensor buffers in one arena.
 *
 * Pure library: no device, no locking, no uAPI types. The same source
 * builds into npa.ko, into KUnit and into the host tool npactl.
 */
#ifndef _NPA_PLAN_H_
#define _NPA_PLAN_H_

#include <linux/bits.h>
#include <linux/types.h>

/*
 * Largest planner budget userspace may ask for (MODEL_CREATE), in units of
 * work: 8 times the default, so a plan stays bounded by its work.
 */
#define NPA_MAX_PLAN_BUDGET	BIT_ULL(24)

/* Largest alignment a buffer may ask for. */
#define NPA_PLAN_MAX_ALIGN	0x100000ULL	/* 1 MiB */
/* Largest number of buffers one plan may hold (-E2BIG above). */
#define NPA_PLAN_MAX_BUFS	0x1000000U	/* 16 Mi */
/* Valid bits of &npa_plan_buf.flags; none are defined yet. */
#define NPA_PLAN_BUF_FLAGS_MASK	0U

/**
 * struct npa_plan_buf - one buffer to place
 * @size: bytes; 0 is allowed (gets offset 0 and never conflicts)
 * @align: alignment of @offset, a power of two; 0 or 1 mean 1, at most
 *	%NPA_PLAN_MAX_ALIGN
 * @lo: first step the buffer is live
 * @hi: first step after the last one it is live; the lifetime is the
 *	HALF-OPEN interval [@lo, @hi) and @hi must be greater than @lo.
 *	Two buffers conflict when their lifetimes intersect:
 *	a.lo < b.hi && b.lo < a.hi.
 * @flags: reserved, must be 0 (see %NPA_PLAN_BUF_FLAGS_MASK)
 * @offset: output: byte offset of the buffer in the arena
 */
struct npa_plan_buf {
	u64 size;
	u64 align;
	u32 lo, hi;
	u32 flags;
	u64 offset;
};

/**
 * struct npa_plan_params - limits of one planning run
 * @budget: work budget in units (a placement, or about 64 elementary steps
 *	of a search: see Documentation/planner.rst); 0 picks the default.
 *	The plan is a deterministic function of the input and the budget,
 *	and twice the budget never gives a larger peak.
 */
struct npa_plan_params {
	u64 budget;
};

/**
 * enum npa_plan_algo - how the returned plan was found
 * @NPA_PLAN_ALGO_NONE: nothing to place (no buffer of non-zero size)
 * @NPA_PLAN_ALGO_GREEDY: greedy by size with best-fit gaps (TFLite rule)
 * @NPA_PLAN_ALGO_ORDER: first fit (lowest address) in a metric order
 * @NPA_PLAN_ALGO_SEARCH: randomized local search over placement orders
 * @NPA_PLAN_ALGO_EXACT: the exact search (branch and bound)
 * @NPA_PLAN_ALGO_MERGE: the plan of the buffers merged where their sums
 *	match (npa_plan_merge.c)
 * @NPA_PLAN_ALGO_COUNT: number of values
 */
enum npa_plan_algo {
	NPA_PLAN_ALGO_NONE,
	NPA_PLAN_ALGO_GREEDY,
	NPA_PLAN_ALGO_ORDER,
	NPA_PLAN_ALGO_SEARCH,
	NPA_PLAN_ALGO_EXACT,
	NPA_PLAN_ALGO_MERGE,
	NPA_PLAN_ALGO_COUNT,
};

/**
 * struct npa_plan_result - what a planning run found
 * @peak: arena size: max over buffers of offset + size
 * @lower_bound: max over time of the live bytes; no plan can be smaller
 * @naive: sum of all sizes (the arena without any reuse)
 * @work: units of work spent
 * @plan_ns: wall-clock time of the run, measured for the caller (the
 *	planner never reads it)
 * @algo: &enum npa_plan_algo of the plan returned
 * @greedy_peak: peak of the greedy baseline when it was computed, else 0
 */
struct npa_plan_result {
	u64 peak;
	u64 lower_bound;
	u64 naive;
	u64 work;
	u64 plan_ns;
	u32 algo;
	u64 greedy_peak;
};

int npa_plan(struct npa_plan_buf *bufs, u32 n,
	     const struct npa_plan_params *p, struct npa_plan_result *res);
int npa_plan_greedy(struct npa_plan_buf *bufs, u32 n,
		    struct npa_plan_result *res);
u64 npa_plan_lower_bound(const struct npa_plan_buf *bufs, u32 n);
int npa_plan_verify(const struct npa_plan_buf *bufs, u32 n, u64 peak);
const char *npa_plan_algo_name(u32 algo);

#endif /* _NPA_PLAN_H_ */
