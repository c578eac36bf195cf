/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npa: model graph validation and planning.
 *
 * Pure code, like the planner: no device and no locking, so that npactl
 * builds the same file on the host.  Validation reads the uAPI graph
 * types and builds the internal model (npa_ir.h), which is what planning
 * and every layer below take.
 */
#ifndef __NPA_GRAPH_H__
#define __NPA_GRAPH_H__

#include <linux/types.h>
#include <linux/npa.h>

/*
 * The default &npa_graph_limits.scratch_growth_pct: on the Darknet corpus,
 * 5% of each tensor arena brings the cost model's cycles within 5% of
 * unlimited scratch (Documentation/graphs.rst).
 */
#define NPA_GRAPH_SCRATCH_GROWTH_PCT	5

#include "npa_ir.h"
#include "npa_layout.h"

/**
 * struct npa_graph_limits - what the device accepts
 * @max_tensors: most tensors in one graph.
 * @max_ops: most operators in one graph.
 * @max_operands: most operand ids in one graph.
 * @max_scratch: most scratch requests in one graph.
 * @unit_align: alignment each compute unit needs of what it touches.
 * @fast_window: bytes at the start of the arena that are fast (SRAM).
 * @max_tensor_bytes: largest single tensor or scratch buffer.
 * @scratch_growth_pct: how much variable scratch may grow the arena to save
 *	cycles (the cost model's), in percent of the tensors' arena.
 */
struct npa_graph_limits {
	u32 max_tensors;
	u32 max_ops;
	u32 max_operands;
	u32 max_scratch;
	u32 unit_align[NPA_UNIT_COUNT];
	u64 fast_window;
	u64 max_tensor_bytes;
	u32 scratch_growth_pct;
};

/**
 * npa_error_set() - say what a request got wrong, as userspace reads it
 * @err: the report.
 * @array: enum npa_err_array.
 * @index: the element of @array.
 * @field: enum npa_err_field.
 * @reason: enum npa_err_reason.
 * @value: the value found.
 * @expected: what it needed (see enum npa_err_reason).
 * @ret: returned.
 *
 * The element's tensor or op is filled in when @array is tensors or ops;
 * no dim is blamed (the caller that blames one sets @err->dim).
 *
 * Context: Any context.
 * Return: @ret.
 */
static inline int npa_error_set(struct npa_error *err, u32 array, u32 index,
				u32 field, u32 reason, u64 value, u64 expected,
				int ret)
{
	*err = (struct npa_error){
		.array = array, .index = index, .field = field,
		.reason = reason, .value = value, .expected = expected,
		.op = array == NPA_ERR_ARRAY_OPS ? index : NPA_ERR_NO_INDEX,
		.tensor = array == NPA_ERR_ARRAY_TENSORS ? index :
			  NPA_ERR_NO_INDEX,
		.dim = NPA_ERR_NO_INDEX,
	};
	return ret;
}

/* The defaults npa.ko reports in NPA_IOCTL_QUERY. */
extern const struct npa_graph_limits npa_graph_default_limits;

/**
 * struct npa_graph - a graph as copied from userspace
 * @tensors: tensor descriptors.
 * @ops: operators in execution order.
 * @operands: tensor ids the operators index into.
 * @scratch: scratch requests the operators index into.
 * @num_tensors: entries in @tensors.
 * @num_ops: entries in @ops.
 * @num_operands: entries in @operands.
 * @num_scratch: entries in @scratch.
 */
struct npa_graph {
	const struct npa_tensor_desc *tensors;
	const struct npa_op_desc *ops;
	const u32 *operands;
	const struct npa_scratch_desc *scratch;
	u32 num_tensors;
	u32 num_ops;
	u32 num_operands;
	u32 num_scratch;
};

int npa_graph_check_counts(const struct npa_graph *g,
			   const struct npa_graph_limits *lim,
			   struct npa_error *err);
int npa_graph_build(const struct npa_graph *g,
		    const struct npa_graph_limits *lim, struct npa_ir *ir,
		    struct npa_error *err);
void npa_ir_free(struct npa_ir *ir);
int npa_graph_validate(const struct npa_graph *g,
		       const struct npa_graph_limits *lim,
		       struct npa_error *err);
int npa_graph_plan_supplied(const struct npa_ir *ir,
			    const struct npa_graph_limits *lim,
			    const struct npa_ir_place *pt,
			    const struct npa_ir_place *ps,
			    struct npa_layout *plan, struct npa_error *err);
u64 npa_tensor_bytes(const struct npa_tensor_desc *t);

#endif /* __NPA_GRAPH_H__ */
