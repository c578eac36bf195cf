/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npa: the simulated NPU's cost model.
 *
 * Pure code, like the planner: no device and no locking, so that npactl
 * builds the same file on the host and prints the same estimate the
 * simulated NPU reports.  Documentation/npu.rst gives every parameter and
 * its source.
 */
#ifndef __NPA_COST_H__
#define __NPA_COST_H__

#include <linux/types.h>

#include "npa_ir.h"

/* Arm Ethos-U55-256: 256 int8 multiply-accumulates per cycle. */
#define NPA_COST_MACS_PER_CYCLE		256
/*
 * Bandwidths in eighths of a byte per cycle: the fast window is SRAM on
 * the U55's 64-bit AXI port at the core clock (8 bytes per cycle); slow
 * memory is DRAM at Vela's Dram_clock_scale 0.234375 on that port
 * (1.875 bytes per cycle).
 */
#define NPA_COST_FAST_BW_X8		64
#define NPA_COST_SLOW_BW_X8		15
/* Cycles before a pass's first read arrives: Vela's read latencies. */
#define NPA_COST_FAST_LATENCY		32
#define NPA_COST_SLOW_LATENCY		500
/*
 * Cycles before a weight chunk copied into staging can be read: Vela's
 * write latencies.
 */
#define NPA_COST_FAST_WRITE_LATENCY	32
#define NPA_COST_SLOW_WRITE_LATENCY	250

/**
 * struct npa_cost_work - what one operator does, in the model's terms
 * @macs: multiply-accumulates (taps for pooling, elements for
 *	element-wise operators).
 * @passes: passes over the array; each pays the latency of its first read.
 * @slow_bytes: bytes read or written in slow memory (DRAM).
 * @fast_bytes: bytes read or written in the fast window (SRAM).
 * @fast_passes: true when each pass starts with a read from the fast
 *	window.
 * @chunks: weight chunks copied into the staging scratch; each pays the
 *	write latency of the memory staging is in.
 * @fast_chunks: the staging scratch is in the fast window.
 */
struct npa_cost_work {
	u64 macs;
	u64 passes;
	u64 slow_bytes;
	u64 fast_bytes;
	bool fast_passes;
	u64 chunks;
	bool fast_chunks;
};

/**
 * struct npa_cost_conv - a convolution's geometry, for npa_cost_conv()
 * @groups: channel groups (input channels for a depthwise convolution).
 * @pixels: output pixels per group.
 * @k: bytes of one output pixel's patch (input channels per group times
 *	the kernel's taps).
 * @filters: output channels per group.
 * @ifm_bytes: bytes of the input.
 * @ofm_bytes: bytes of the output.
 * @im2col: the convolution goes through an im2col buffer (its kernel is
 *	not 1x1 or its stride not 1).
 * @ifm_fast: the input is in the fast window.
 * @ofm_fast: the output is in the fast window.
 * @weights_fast: the weights are in the fast window.
 * @stage: bytes of its weight staging scratch (0: none).
 * @stage_fast: the weight staging scratch is in the fast window.
 */
struct npa_cost_conv {
	u64 groups;
	u64 pixels;
	u64 k;
	u64 filters;
	u64 ifm_bytes;
	u64 ofm_bytes;
	bool im2col;
	bool ifm_fast;
	bool ofm_fast;
	bool weights_fast;
	u64 stage;
	bool stage_fast;
};

/* &npa_cost_grants.bytes: the request has no grant yet. */
#define NPA_COST_NOT_PLACED	U64_MAX

/**
 * struct npa_cost_grants - the grants of a graph's scratch requests, as a
 *	placement in progress has them
 * @bytes: the bytes request @idx (an index into the graph's scratch) has
 *	now, and in *@fast whether they are in the fast window;
 *	%NPA_COST_NOT_PLACED when it has none yet.
 * @priv: @bytes' first argument.
 */
struct npa_cost_grants {
	u64 (*bytes)(const void *priv, u32 idx, bool *fast);
	const void *priv;
};

u64 npa_cost_cycles(const struct npa_cost_work *w);
void npa_cost_conv(const struct npa_cost_conv *cv, u64 col_bytes,
		   bool col_fast, struct npa_cost_work *w);
bool npa_cost_conv_geometry(const struct npa_ir_op *op,
			    const struct npa_ir_tensor *x,
			    const struct npa_ir_tensor *y,
			    struct npa_cost_conv *cv);
bool npa_cost_fast(const struct npa_ir_place *p, u64 fast_window);
u64 npa_cost_op(const struct npa_ir *ir, const struct npa_ir_op *op,
		const struct npa_ir_place *tp, const struct npa_ir_place *sp,
		u64 fast_window);
u64 npa_cost_scratch(const struct npa_ir *ir, u32 op, u32 idx, u64 bytes,
		     bool fast, const struct npa_cost_grants *grants);
u64 npa_cost_graph(const struct npa_ir *ir, const struct npa_ir_place *tp,
		   const struct npa_ir_place *sp, u64 fast_window);
u64 npa_cost_graph_best(const struct npa_ir *ir, const struct npa_ir_place *tp,
			struct npa_ir_place *sp, const u64 *min_sizes,
			u64 fast_window);

#endif /* __NPA_COST_H__ */
