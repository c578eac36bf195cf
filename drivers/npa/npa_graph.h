/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npa: model graph validation and planning.
 *
 * Pure code, like the planner: no device and no locking, so that npactl
 * builds the same file on the host.  It does use the uAPI graph types,
 * which are what it validates.
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
 * The element's tensor or op is filled in when @array is tensors or ops.
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

/**
 * struct npa_graph_plan - the plan of a graph
 * @tensors: one placement per tensor.
 * @scratch: one placement per scratch request.
 * @align: per tensor, the alignment it needs: its own and that of every
 *	compute unit that touches it (what a bound tensor's offset in its
 *	buffer must be a multiple of).
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
 * @supplied: userspace supplied the plan (npa_graph_plan_supplied()).
 */
struct npa_graph_plan {
	struct npa_placement *tensors;
	struct npa_placement *scratch;
	u32 *align;
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

int npa_graph_check_counts(const struct npa_graph *g,
			   const struct npa_graph_limits *lim,
			   struct npa_error *err);
int npa_graph_validate(const struct npa_graph *g,
		       const struct npa_graph_limits *lim,
		       struct npa_error *err);
/*
 * The planner's wall-clock safety net for a graph (an ioctl): its work
 * budget bounds the searches, but a first-fit pass over 65536 buffers with
 * long random lifetimes must finish and took 10-14 s under the planner's
 * default 10 s cap. Past it the rest of the pass goes on top.
 */
#define NPA_GRAPH_PLAN_TIME_CAP_NS	(2ULL * 1000 * 1000 * 1000)

int npa_graph_plan(const struct npa_graph *g,
		   const struct npa_graph_limits *lim, u64 budget,
		   struct npa_graph_plan *plan);
int npa_graph_plan_supplied(const struct npa_graph *g,
			    const struct npa_graph_limits *lim,
			    const struct npa_placement *pt,
			    const struct npa_placement *ps,
			    struct npa_graph_plan *plan, struct npa_error *err);
void npa_graph_plan_free(struct npa_graph_plan *plan);
u64 npa_tensor_bytes(const struct npa_tensor_desc *t);
bool npa_graph_runnable(const struct npa_graph *g);

#endif /* __NPA_GRAPH_H__ */
