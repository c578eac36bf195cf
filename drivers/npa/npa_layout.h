/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npa: the layout of a model in its arena.  Pure code on the internal
 * model (no device, no locking, no uAPI types): builds in the kernel, in
 * KUnit and in npactl.
 */
#ifndef __NPA_LAYOUT_H__
#define __NPA_LAYOUT_H__

#include <linux/types.h>

#include "npa_ir.h"

/**
 * struct npa_layout - a model's layout in its arena
 * @tensors: one placement per tensor.
 * @scratch: one placement per scratch request.
 * @arena_bytes: arena size including scratch.
 * @tensor_bytes: arena size of the tensors alone.
 * @lower_bound: max over time of the live tensor bytes.
 * @naive_bytes: sum of the sizes of the arena tensors.
 * @scratch_requested: bytes of scratch granted.
 * @scratch_growth: @arena_bytes - @tensor_bytes.
 * @scratch_growth_naive: growth with scratch stacked above the tensors.
 * @plan_ns: time spent planning.
 * @algorithm: enum npa_plan_algo of the tensor plan.
 * @num_buffers: arena buffers after in-place and concat sharing.
 * @supplied: made elsewhere and verified (npa_layout_supplied()).
 */
struct npa_layout {
	struct npa_ir_place *tensors;
	struct npa_ir_place *scratch;
	u64 arena_bytes;
	u64 tensor_bytes;
	u64 lower_bound;
	u64 naive_bytes;
	u64 scratch_requested;
	u64 scratch_growth;
	u64 scratch_growth_naive;
	u64 plan_ns;
	u32 algorithm;
	u32 num_buffers;
	bool supplied;
};

/* &npa_layout_refusal.reason: what is wrong with a supplied layout. */
enum npa_layout_reason {
	NPA_LAYOUT_NOT_SHARED = 1,	/* @value, but sharing puts it at @expected */
	NPA_LAYOUT_MISALIGNED,		/* @value is not a multiple of @expected */
	NPA_LAYOUT_OVERFLOW,		/* @value + size overflows 64 bits */
	NPA_LAYOUT_BAD_SIZE,		/* a grant of @value bytes; asked @expected */
	NPA_LAYOUT_OVERLAP,		/* overlaps element @value, both live */
};

/**
 * struct npa_layout_refusal - why npa_layout_supplied() refused a layout
 * @scratch: the element is a scratch placement, else a tensor's.
 * @index: the element.
 * @reason: enum npa_layout_reason.
 * @value: see enum npa_layout_reason.
 * @expected: see enum npa_layout_reason.
 * @other_scratch: %NPA_LAYOUT_OVERLAP: the other element is a scratch
 *	placement, else a tensor's.
 */
struct npa_layout_refusal {
	bool scratch;
	u32 index;
	u32 reason;
	u64 value;
	u64 expected;
	bool other_scratch;
};

int npa_layout_plan(const struct npa_ir *ir, u64 fast_window, u32 growth_pct,
		    u64 budget, struct npa_layout *plan);
int npa_layout_supplied(const struct npa_ir *ir, u64 fast_window,
			const struct npa_ir_place *pt,
			const struct npa_ir_place *ps, struct npa_layout *plan,
			struct npa_layout_refusal *why);
void npa_layout_free(struct npa_layout *plan);

#endif /* __NPA_LAYOUT_H__ */
