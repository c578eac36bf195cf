// SPDX-License-Identifier: GPL-2.0
/*
 * npa: model graph validation and planning.
 */

/**
 * DOC: model graphs
 *
 * A graph is tensors, operators in execution order, the operand ids the
 * operators index into, and the scratch requests they make (see
 * include/uapi/linux/npa.h).  npa_graph_validate() checks every field of an
 * untrusted graph; a failure has a conventional errno (the table is in
 * Documentation/uapi.rst) and a &struct npa_error that says which array,
 * element and field, why, and the values concerned.
 *
 * npa_graph_plan() then turns the graph into arena buffers and places them:
 *
 * - Step i is the i-th operator.  A tensor is live from the step that
 *   produces it to the last step that reads it, half-open: [producer,
 *   last reader + 1), which is the reference count of the memory-tag scheme
 *   reaching zero.  A tensor nobody reads is live for its producer's step.
 *   Model inputs, outputs, constants and persistent tensors live in their
 *   own places, outside the arena.
 * - Size and alignment follow the compute units that touch a tensor: the
 *   strictest alignment among them (&npa_graph_limits.unit_align) and the
 *   tensor's own, with the size rounded up to that alignment.
 * - Sharing: a RESHAPE output is its input's memory; SPLIT outputs are
 *   consecutive parts of the input; an op flagged NPA_OP_INPLACE writes its
 *   output over its first input when nothing reads that memory afterwards;
 *   CONCAT inputs are placed at their offsets inside the output, so the
 *   concat moves nothing.  Tensors that share memory form a group with one
 *   root (a weighted union-find: every tensor keeps its offset from its
 *   parent), and each group becomes one planner buffer whose lifetime is
 *   the union of its members'.  Where sharing is not possible (a model
 *   input, a mismatched alignment, a tensor already inside another concat)
 *   the op copies instead, which the executor does whenever the addresses
 *   differ.
 * - The planner places the buffers; then npa_scratch_place() puts every
 *   operator's scratch into the gaps.
 */

#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "npa_cost.h"
#include "npa_exec.h"
#include "npa_graph.h"
#include "npa_plan.h"
#include "npa_scratch.h"

#define NPA_NONE	U32_MAX

const struct npa_graph_limits npa_graph_default_limits = {
	.max_tensors = 1U << 16,
	.max_ops = 1U << 16,
	.max_operands = 1U << 18,
	.max_scratch = 1U << 16,
	.unit_align = {
		[NPA_UNIT_NPU] = 64,
		[NPA_UNIT_DMA] = 32,
		[NPA_UNIT_CPU] = 16,
	},
	.fast_window = 256 * 1024,
	.max_tensor_bytes = 1ULL << 40,
	.scratch_growth_pct = NPA_GRAPH_SCRATCH_GROWTH_PCT,
};
EXPORT_SYMBOL_IF_KUNIT(npa_graph_default_limits);

/* Inputs and outputs each operator kind takes: min and max (0 = any). */
static const struct {
	u8 min_in, max_in, min_out, max_out;
} npa_op_arity[NPA_OP_KIND_COUNT] = {
	[NPA_OP_CONV2D] = { 2, 3, 1, 1 },
	[NPA_OP_DWCONV2D] = { 2, 3, 1, 1 },
	[NPA_OP_MAXPOOL] = { 1, 1, 1, 1 },
	[NPA_OP_AVGPOOL] = { 1, 1, 1, 1 },
	[NPA_OP_ADD] = { 2, 2, 1, 1 },
	[NPA_OP_MUL] = { 2, 2, 1, 1 },
	[NPA_OP_ACTIVATION] = { 1, 1, 1, 1 },
	[NPA_OP_CONCAT] = { 1, 0, 1, 1 },
	[NPA_OP_RESHAPE] = { 1, 1, 1, 1 },
	[NPA_OP_SPLIT] = { 1, 1, 1, 0 },
	[NPA_OP_UPSAMPLE] = { 1, 1, 1, 1 },
	[NPA_OP_COPY] = { 1, 1, 1, 1 },
	[NPA_OP_FC] = { 2, 3, 1, 1 },
	[NPA_OP_REORG] = { 1, 1, 1, 1 },
};

/*
 * The params each operator kind defines (bit n: params[n]); the others are
 * reserved and must be 0, whether or not the op's tensors have shapes.
 * The kinds that only move bytes (CONCAT, SPLIT, RESHAPE, COPY) define
 * none.
 */
#define NPA_P_BIT(p)		(1U << (p))
#define NPA_P_WINDOW \
	(NPA_P_BIT(NPA_P_KH) | NPA_P_BIT(NPA_P_KW) | NPA_P_BIT(NPA_P_SH) | \
	 NPA_P_BIT(NPA_P_SW) | NPA_P_BIT(NPA_P_PAD_T) | NPA_P_BIT(NPA_P_PAD_L))
static const u8 npa_op_params[NPA_OP_KIND_COUNT] = {
	[NPA_OP_CONV2D] = NPA_P_WINDOW | NPA_P_BIT(NPA_P_GROUPS) |
			  NPA_P_BIT(NPA_P_SHIFT),
	[NPA_OP_DWCONV2D] = NPA_P_WINDOW | NPA_P_BIT(NPA_P_GROUPS) |
			    NPA_P_BIT(NPA_P_SHIFT),
	[NPA_OP_MAXPOOL] = NPA_P_WINDOW,
	[NPA_OP_AVGPOOL] = NPA_P_WINDOW | NPA_P_BIT(NPA_P_SHIFT),
	[NPA_OP_ADD] = NPA_P_BIT(NPA_P_SHIFT),
	[NPA_OP_MUL] = NPA_P_BIT(NPA_P_SHIFT),
	[NPA_OP_ACTIVATION] = NPA_P_BIT(NPA_P_ACT),
	[NPA_OP_UPSAMPLE] = NPA_P_BIT(NPA_P_STRIDE),
	[NPA_OP_FC] = NPA_P_BIT(NPA_P_SHIFT),
	[NPA_OP_REORG] = NPA_P_BIT(NPA_P_STRIDE),
};

static const u8 npa_dtype_bytes[NPA_DTYPE_COUNT] = {
	[NPA_DTYPE_INT8] = 1,
	[NPA_DTYPE_UINT8] = 1,
	[NPA_DTYPE_INT16] = 2,
	[NPA_DTYPE_INT32] = 4,
};

#define NPA_TENSOR_OWN_PLACE \
	(NPA_TENSOR_INPUT | NPA_TENSOR_OUTPUT | NPA_TENSOR_CONST | \
	 NPA_TENSOR_PERSISTENT)

/* The same as npa_error_set() without values. */
static int npa_fail(struct npa_error *err, u32 array, u32 index, u32 field,
		    u32 reason, int ret)
{
	return npa_error_set(err, array, index, field, reason, 0, 0, ret);
}

/* Operand @idx, tensor id @t of op @op, for @reason about @value. */
static int npa_fail_operand(struct npa_error *err, u32 idx, u32 op, u32 t,
			    u32 reason, u64 value, int ret)
{
	npa_fail(err, NPA_ERR_ARRAY_OPERANDS, idx, NPA_ERR_FIELD_ID, reason,
		 ret);
	err->op = op;
	err->tensor = t;
	err->value = value;
	return ret;
}

#define NPA_ARGS	NPA_ERR_ARRAY_ARGS
#define NPA_TENSORS	NPA_ERR_ARRAY_TENSORS
#define NPA_OPS		NPA_ERR_ARRAY_OPS
#define NPA_SCRATCH	NPA_ERR_ARRAY_SCRATCH

/*
 * Dimensions are given outermost first; unused trailing ones are 0, and a
 * tensor without a dtype has none.
 */
static bool npa_shape_ok(const struct npa_tensor_desc *t)
{
	bool none = t->dtype == NPA_DTYPE_NONE;
	int i;

	for (i = 0; i < NPA_MAX_DIMS; i++) {
		if (t->dims[i] && (none || (i && !t->dims[i - 1])))
			return false;
	}
	return none || t->dims[0];
}

/* Bytes of a tensor from its shape, 0 if it has none, U64_MAX on overflow. */
static u64 npa_shape_bytes(const struct npa_tensor_desc *t)
{
	u64 bytes;
	int i;

	if (t->dtype == NPA_DTYPE_NONE || t->dtype >= NPA_DTYPE_COUNT)
		return 0;
	bytes = npa_dtype_bytes[t->dtype];
	for (i = 0; i < NPA_MAX_DIMS && t->dims[i]; i++) {
		if (check_mul_overflow(bytes, (u64)t->dims[i], &bytes))
			return U64_MAX;
	}
	return bytes;
}

/**
 * npa_tensor_bytes() - size of a validated tensor in bytes
 * @t: the tensor.
 *
 * Context: Any context.
 * Return: @t->size, or the size its shape gives when @t->size is 0.
 */
u64 npa_tensor_bytes(const struct npa_tensor_desc *t)
{
	return t->size ? t->size : npa_shape_bytes(t);
}

static bool npa_align_ok(u64 align)
{
	return !align || (is_power_of_2(align) && align <= NPA_PLAN_MAX_ALIGN);
}

static int npa_validate_tensors(const struct npa_graph *g,
				const struct npa_graph_limits *lim,
				struct npa_error *err)
{
	u32 i;

	for (i = 0; i < g->num_tensors; i++) {
		const struct npa_tensor_desc *t = &g->tensors[i];
		u64 shape;

		if (t->flags & ~NPA_TENSOR_FLAGS_ALL)
			return npa_error_set(err, NPA_TENSORS, i, NPA_ERR_FIELD_FLAGS,
					     NPA_ERR_UNKNOWN_FLAGS, t->flags,
					     NPA_TENSOR_FLAGS_ALL, -EINVAL);
		if ((t->flags & NPA_TENSOR_CONST) &&
		    (t->flags & (NPA_TENSOR_INPUT | NPA_TENSOR_OUTPUT)))
			return npa_error_set(err, NPA_TENSORS, i, NPA_ERR_FIELD_FLAGS,
					     NPA_ERR_FLAG_CONFLICT, t->flags, 0,
					     -EINVAL);
		if (t->pad)
			return npa_error_set(err, NPA_TENSORS, i, NPA_ERR_FIELD_PAD,
					     NPA_ERR_NOT_ZERO, t->pad, 0, -EINVAL);
		if (t->dtype >= NPA_DTYPE_COUNT)
			return npa_error_set(err, NPA_TENSORS, i, NPA_ERR_FIELD_DTYPE,
					     NPA_ERR_BAD_VALUE, t->dtype, 0, -EINVAL);
		if (!npa_align_ok(t->align))
			return npa_error_set(err, NPA_TENSORS, i, NPA_ERR_FIELD_ALIGN,
					     NPA_ERR_BAD_ALIGN, t->align,
					     NPA_PLAN_MAX_ALIGN, -EINVAL);
		if (!npa_shape_ok(t))
			return npa_fail(err, NPA_TENSORS, i, NPA_ERR_FIELD_DIMS,
					NPA_ERR_BAD_SHAPE, -EINVAL);
		shape = npa_shape_bytes(t);
		if (shape == U64_MAX)
			return npa_fail(err, NPA_TENSORS, i, NPA_ERR_FIELD_DIMS,
					NPA_ERR_OVERFLOW, -EOVERFLOW);
		if (!shape && !t->size)
			return npa_fail(err, NPA_TENSORS, i, NPA_ERR_FIELD_SIZE,
					NPA_ERR_NO_SIZE, -EINVAL);
		if (shape && t->size && shape != t->size)
			return npa_error_set(err, NPA_TENSORS, i, NPA_ERR_FIELD_SIZE,
					     NPA_ERR_SIZE_MISMATCH, t->size, shape,
					     -EINVAL);
		if (npa_tensor_bytes(t) > lim->max_tensor_bytes)
			return npa_error_set(err, NPA_TENSORS, i, NPA_ERR_FIELD_SIZE,
					     NPA_ERR_TOO_BIG, npa_tensor_bytes(t),
					     lim->max_tensor_bytes, -E2BIG);
	}
	return 0;
}

static int npa_validate_scratch(const struct npa_graph *g,
				const struct npa_graph_limits *lim,
				struct npa_error *err)
{
	u32 i;

	for (i = 0; i < g->num_scratch; i++) {
		const struct npa_scratch_desc *s = &g->scratch[i];
		bool var = s->flags & NPA_SCRATCH_VARIABLE;

		if (s->flags & ~NPA_SCRATCH_FLAGS_ALL)
			return npa_error_set(err, NPA_SCRATCH, i, NPA_ERR_FIELD_FLAGS,
					     NPA_ERR_UNKNOWN_FLAGS, s->flags,
					     NPA_SCRATCH_FLAGS_ALL, -EINVAL);
		if (!npa_align_ok(s->align))
			return npa_error_set(err, NPA_SCRATCH, i, NPA_ERR_FIELD_ALIGN,
					     NPA_ERR_BAD_ALIGN, s->align,
					     NPA_PLAN_MAX_ALIGN, -EINVAL);
		if (!s->size)
			return npa_fail(err, NPA_SCRATCH, i, NPA_ERR_FIELD_SIZE,
					NPA_ERR_BAD_VALUE, -EINVAL);
		if (var ? (!s->min_size || s->min_size > s->size) : s->min_size)
			return npa_error_set(err, NPA_SCRATCH, i,
					     NPA_ERR_FIELD_MIN_SIZE,
					     NPA_ERR_BAD_VALUE, s->min_size, 0,
					     -EINVAL);
		if (s->size > lim->max_tensor_bytes)
			return npa_error_set(err, NPA_SCRATCH, i, NPA_ERR_FIELD_SIZE,
					     NPA_ERR_TOO_BIG, s->size,
					     lim->max_tensor_bytes, -E2BIG);
	}
	return 0;
}

/* [first, first + num) must lie within [0, total). */
static bool npa_range_ok(u32 first, u32 num, u32 total)
{
	u32 end;

	return !check_add_overflow(first, num, &end) && end <= total;
}

/* Op @i's range [@first, @first + @num) of an array of @total ends past it. */
static int npa_fail_range(struct npa_error *err, u32 i, u32 field, u32 first,
			  u32 num, u32 total)
{
	return npa_error_set(err, NPA_OPS, i, field, NPA_ERR_OUT_OF_RANGE,
			     (u64)first + num, total, -EINVAL);
}

/* Op @i's own fields: kind, unit, flags, params, arity and ranges. */
static int npa_validate_op(const struct npa_graph *g, u32 i,
			   struct npa_error *err)
{
	const struct npa_op_desc *op = &g->ops[i];
	u32 k;

	if (!op->kind || op->kind >= NPA_OP_KIND_COUNT)
		return npa_error_set(err, NPA_OPS, i, NPA_ERR_FIELD_KIND,
				     NPA_ERR_BAD_VALUE, op->kind, 0, -EINVAL);
	if (op->unit >= NPA_UNIT_COUNT)
		return npa_error_set(err, NPA_OPS, i, NPA_ERR_FIELD_UNIT,
				     NPA_ERR_BAD_VALUE, op->unit, 0, -EINVAL);
	if (op->flags & ~NPA_OP_FLAGS_ALL)
		return npa_error_set(err, NPA_OPS, i, NPA_ERR_FIELD_FLAGS,
				     NPA_ERR_UNKNOWN_FLAGS, op->flags,
				     NPA_OP_FLAGS_ALL, -EINVAL);
	if (op->pad)
		return npa_error_set(err, NPA_OPS, i, NPA_ERR_FIELD_PAD,
				     NPA_ERR_NOT_ZERO, op->pad, 0, -EINVAL);
	for (k = 0; k < NPA_OP_MAX_PARAMS; k++) {
		/* @value: which param, as the kind does not define it. */
		if (op->params[k] && !(npa_op_params[op->kind] & NPA_P_BIT(k)))
			return npa_error_set(err, NPA_OPS, i, NPA_ERR_FIELD_PARAMS,
					     NPA_ERR_NOT_ZERO, k, 0, -EINVAL);
	}
	if (op->num_inputs < npa_op_arity[op->kind].min_in ||
	    (npa_op_arity[op->kind].max_in &&
	     op->num_inputs > npa_op_arity[op->kind].max_in))
		return npa_error_set(err, NPA_OPS, i, NPA_ERR_FIELD_NUM_INPUTS,
				     NPA_ERR_ARITY, op->num_inputs, 0, -EINVAL);
	if (op->num_outputs < npa_op_arity[op->kind].min_out ||
	    (npa_op_arity[op->kind].max_out &&
	     op->num_outputs > npa_op_arity[op->kind].max_out))
		return npa_error_set(err, NPA_OPS, i, NPA_ERR_FIELD_NUM_OUTPUTS,
				     NPA_ERR_ARITY, op->num_outputs, 0, -EINVAL);
	if (!npa_range_ok(op->first_input, op->num_inputs, g->num_operands))
		return npa_fail_range(err, i, NPA_ERR_FIELD_FIRST_INPUT,
				      op->first_input, op->num_inputs,
				      g->num_operands);
	if (!npa_range_ok(op->first_output, op->num_outputs, g->num_operands))
		return npa_fail_range(err, i, NPA_ERR_FIELD_FIRST_OUTPUT,
				      op->first_output, op->num_outputs,
				      g->num_operands);
	if (!npa_range_ok(op->first_scratch, op->num_scratch, g->num_scratch))
		return npa_fail_range(err, i, NPA_ERR_FIELD_FIRST_SCRATCH,
				      op->first_scratch, op->num_scratch,
				      g->num_scratch);
	return 0;
}

/* The tensor ids op @i names are in range. */
static int npa_validate_op_ids(const struct npa_graph *g, u32 i,
			       struct npa_error *err)
{
	const struct npa_op_desc *op = &g->ops[i];
	u32 k, idx;

	for (k = 0; k < op->num_inputs + op->num_outputs; k++) {
		idx = k < op->num_inputs ? op->first_input + k :
		      op->first_output + k - op->num_inputs;
		if (g->operands[idx] >= g->num_tensors) {
			npa_fail_operand(err, idx, i, NPA_ERR_NO_INDEX,
					 NPA_ERR_OUT_OF_RANGE, g->operands[idx],
					 -EINVAL);
			err->expected = g->num_tensors;
			return -EINVAL;
		}
	}
	return 0;
}

static u64 npa_sum_sizes(const struct npa_graph *g, u32 first, u32 num)
{
	u64 sum = 0;
	u32 k;

	for (k = 0; k < num; k++) {
		u32 t = g->operands[first + k];

		if (check_add_overflow(sum, npa_tensor_bytes(&g->tensors[t]), &sum))
			return U64_MAX;
	}
	return sum;
}

/* Sizes that sharing relies on must add up. */
static int npa_validate_sizes(const struct npa_graph *g, u32 i,
			      struct npa_error *err)
{
	const struct npa_op_desc *op = &g->ops[i];
	u64 in = npa_sum_sizes(g, op->first_input, op->num_inputs);
	u64 out = npa_sum_sizes(g, op->first_output, op->num_outputs);
	bool check;

	switch (op->kind) {
	case NPA_OP_RESHAPE:
	case NPA_OP_SPLIT:
	case NPA_OP_CONCAT:
	case NPA_OP_COPY:
		check = true;
		break;
	default:
		check = false;
		break;
	}
	if (in == U64_MAX || out == U64_MAX)
		return npa_fail(err, NPA_OPS, i, NPA_ERR_FIELD_NONE,
				NPA_ERR_OVERFLOW, -EOVERFLOW);
	/* @value: the outputs' bytes; @expected: the inputs'. */
	if (check && in != out)
		return npa_error_set(err, NPA_OPS, i, NPA_ERR_FIELD_NUM_OUTPUTS,
				     NPA_ERR_SIZE_MISMATCH, out, in, -EINVAL);
	/* In place: the first output takes the first input's bytes too. */
	in = npa_tensor_bytes(&g->tensors[g->operands[op->first_input]]);
	out = npa_tensor_bytes(&g->tensors[g->operands[op->first_output]]);
	if ((op->flags & NPA_OP_INPLACE) && in != out)
		return npa_error_set(err, NPA_OPS, i, NPA_ERR_FIELD_FLAGS,
				     NPA_ERR_SIZE_MISMATCH, out, in, -EINVAL);
	return 0;
}

/**
 * npa_graph_runnable() - whether every operator can run on the NPU
 * @g: a validated graph.
 *
 * Operators whose tensors all have shapes were checked for execution by
 * npa_graph_validate(); a tensor given only by its size can be planned
 * but not executed.
 *
 * Context: Any context.
 * Return: true if every tensor has a shape.
 */
bool npa_graph_runnable(const struct npa_graph *g)
{
	u32 t;

	for (t = 0; t < g->num_tensors; t++)
		if (g->tensors[t].dtype == NPA_DTYPE_NONE)
			return false;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(npa_graph_runnable);

/* Operators whose tensors all have shapes must be executable as given. */
static int npa_validate_exec(const struct npa_graph *g,
			     const struct npa_tensor_desc **d,
			     struct npa_error *err)
{
	u32 i, k;
	int ret;

	for (i = 0; i < g->num_ops; i++) {
		const struct npa_op_desc *op = &g->ops[i];
		u32 n = op->num_inputs + op->num_outputs;
		bool shaped = true;

		for (k = 0; k < n; k++) {
			u32 idx = k < op->num_inputs ? op->first_input + k :
				  op->first_output + k - op->num_inputs;

			d[k] = &g->tensors[g->operands[idx]];
			shaped &= d[k]->dtype != NPA_DTYPE_NONE;
		}
		if (!shaped)
			continue;
		ret = npa_exec_check(op, d, op->num_inputs, d + op->num_inputs,
				     op->num_outputs);
		if (ret)
			return npa_fail(err, NPA_OPS, i, NPA_ERR_FIELD_PARAMS,
					NPA_ERR_NOT_EXECUTABLE, ret);
	}
	return 0;
}

/* Producers: no tensor is written twice, nor a model input or constant. */
static int npa_validate_dataflow(const struct npa_graph *g, u32 *producer,
				 struct npa_error *err)
{
	u32 i, k;

	for (i = 0; i < g->num_tensors; i++)
		producer[i] = NPA_NONE;
	for (i = 0; i < g->num_ops; i++) {
		const struct npa_op_desc *op = &g->ops[i];

		for (k = 0; k < op->num_outputs; k++) {
			u32 idx = op->first_output + k;
			u32 t = g->operands[idx];

			if (g->tensors[t].flags & (NPA_TENSOR_INPUT | NPA_TENSOR_CONST))
				return npa_fail_operand(err, idx, i, t,
							NPA_ERR_WRITES_INPUT,
							g->tensors[t].flags,
							-EINVAL);
			if (producer[t] != NPA_NONE)
				return npa_fail_operand(err, idx, i, t,
							NPA_ERR_TWO_PRODUCERS,
							producer[t], -EINVAL);
			producer[t] = i;
		}
	}
	for (i = 0; i < g->num_ops; i++) {
		const struct npa_op_desc *op = &g->ops[i];

		for (k = 0; k < op->num_inputs; k++) {
			u32 idx = op->first_input + k;
			u32 t = g->operands[idx];

			if (g->tensors[t].flags & (NPA_TENSOR_INPUT |
						   NPA_TENSOR_CONST |
						   NPA_TENSOR_PERSISTENT))
				continue;
			if (producer[t] == NPA_NONE)
				return npa_fail_operand(err, idx, i, t,
							NPA_ERR_NOT_PRODUCED, 0,
							-EINVAL);
			/* Read at or before its producer: a cycle. */
			if (producer[t] >= i)
				return npa_fail_operand(err, idx, i, t,
							NPA_ERR_CYCLE,
							producer[t], -EINVAL);
		}
		cond_resched();
	}
	for (i = 0; i < g->num_tensors; i++) {
		if ((g->tensors[i].flags & NPA_TENSOR_OUTPUT) &&
		    producer[i] == NPA_NONE)
			return npa_fail(err, NPA_TENSORS, i, NPA_ERR_FIELD_FLAGS,
					NPA_ERR_NOT_PRODUCED, -EINVAL);
	}
	return 0;
}

/* Every scratch request belongs to exactly one op. */
static int npa_validate_scratch_owner(const struct npa_graph *g, u32 *owner,
				      struct npa_error *err)
{
	u32 i, k;

	for (i = 0; i < g->num_scratch; i++)
		owner[i] = NPA_NONE;
	for (i = 0; i < g->num_ops; i++) {
		const struct npa_op_desc *op = &g->ops[i];

		for (k = 0; k < op->num_scratch; k++) {
			if (owner[op->first_scratch + k] != NPA_NONE)
				return npa_error_set(err, NPA_OPS, i,
						     NPA_ERR_FIELD_FIRST_SCRATCH,
						     NPA_ERR_SCRATCH_SHARED,
						     owner[op->first_scratch + k],
						     0, -EINVAL);
			owner[op->first_scratch + k] = i;
		}
	}
	for (i = 0; i < g->num_scratch; i++) {
		if (owner[i] == NPA_NONE)
			return npa_fail(err, NPA_SCRATCH, i, NPA_ERR_FIELD_NONE,
					NPA_ERR_SCRATCH_UNOWNED, -EINVAL);
	}
	return 0;
}

/**
 * npa_graph_check_counts() - check a graph's counts against the limits
 * @g: the graph; only its counts are read, so they can be checked before
 *	the arrays are copied in.
 * @lim: the device's limits.
 * @err: out: on failure, the count that failed.
 *
 * Context: Any context.
 * Return: 0, -EINVAL (no tensors or no ops) or -E2BIG (above a limit).
 */
int npa_graph_check_counts(const struct npa_graph *g,
			   const struct npa_graph_limits *lim,
			   struct npa_error *err)
{
	if (!g->num_tensors)
		return npa_fail(err, NPA_ARGS, 0, NPA_ERR_FIELD_NUM_TENSORS,
				NPA_ERR_BAD_VALUE, -EINVAL);
	if (!g->num_ops)
		return npa_fail(err, NPA_ARGS, 0, NPA_ERR_FIELD_NUM_OPS,
				NPA_ERR_BAD_VALUE, -EINVAL);
	if (g->num_tensors > lim->max_tensors)
		return npa_error_set(err, NPA_ARGS, 0, NPA_ERR_FIELD_NUM_TENSORS,
				     NPA_ERR_TOO_BIG, g->num_tensors,
				     lim->max_tensors, -E2BIG);
	if (g->num_ops > lim->max_ops)
		return npa_error_set(err, NPA_ARGS, 0, NPA_ERR_FIELD_NUM_OPS,
				     NPA_ERR_TOO_BIG, g->num_ops, lim->max_ops,
				     -E2BIG);
	if (g->num_operands > lim->max_operands)
		return npa_error_set(err, NPA_ARGS, 0, NPA_ERR_FIELD_NUM_OPERANDS,
				     NPA_ERR_TOO_BIG, g->num_operands,
				     lim->max_operands, -E2BIG);
	if (g->num_scratch > lim->max_scratch)
		return npa_error_set(err, NPA_ARGS, 0, NPA_ERR_FIELD_NUM_SCRATCH,
				     NPA_ERR_TOO_BIG, g->num_scratch,
				     lim->max_scratch, -E2BIG);
	return 0;
}

/**
 * npa_graph_validate() - check an untrusted graph
 * @g: the graph; its arrays hold @g->num_* elements.
 * @lim: the device's limits.
 * @err: out: on failure, the first failure as MODEL_CREATE reports it:
 *	the array, element and field, the reason (enum npa_err_reason) and
 *	the values concerned.
 *
 * Context: Process context; may sleep.
 * Return: 0 if the graph is valid, else the errno of the first failure:
 * -E2BIG (a count, a size or the ops' operands, counted op by op, above
 * its limit), -EOVERFLOW (size arithmetic), -ENOMEM, or -EINVAL for
 * everything else, @err saying what.
 */
int npa_graph_validate(const struct npa_graph *g,
		       const struct npa_graph_limits *lim,
		       struct npa_error *err)
{
	const struct npa_tensor_desc **descs;
	u32 *producer, i, most;
	u64 refs;
	int ret;

	ret = npa_graph_check_counts(g, lim, err);
	if (ret)
		return ret;
	ret = npa_validate_tensors(g, lim, err);
	if (ret)
		return ret;
	ret = npa_validate_scratch(g, lim, err);
	if (ret)
		return ret;
	/*
	 * Ops may name overlapping operand ranges, but every walk below goes
	 * over each op's: bound what they name in all, as the array is.
	 */
	for (i = 0, refs = 0; i < g->num_ops; i++) {
		ret = npa_validate_op(g, i, err);
		if (ret)
			return ret;
		refs += (u64)g->ops[i].num_inputs + g->ops[i].num_outputs;
		if (refs > lim->max_operands)
			return npa_error_set(err, NPA_OPS, i,
					     NPA_ERR_FIELD_NUM_INPUTS,
					     NPA_ERR_TOO_BIG, refs,
					     lim->max_operands, -E2BIG);
	}
	for (i = 0; i < g->num_ops; i++) {
		ret = npa_validate_op_ids(g, i, err);
		if (ret)
			return ret;
		ret = npa_validate_sizes(g, i, err);
		if (ret)
			return ret;
	}

	producer = kvmalloc_array(max(g->num_tensors, g->num_scratch),
				  sizeof(*producer), GFP_KERNEL_ACCOUNT);
	if (!producer)
		return npa_fail(err, NPA_ARGS, 0, NPA_ERR_FIELD_NONE,
				NPA_ERR_NONE, -ENOMEM);
	ret = npa_validate_scratch_owner(g, producer, err);
	if (!ret)
		ret = npa_validate_dataflow(g, producer, err);
	kvfree(producer);
	if (ret)
		return ret;

	/* An op's input and output windows may overlap: size by the op. */
	for (i = 0, most = 1; i < g->num_ops; i++)
		most = max(most, g->ops[i].num_inputs + g->ops[i].num_outputs);
	descs = kvmalloc_array(most, sizeof(*descs), GFP_KERNEL_ACCOUNT);
	if (!descs)
		return npa_fail(err, NPA_ARGS, 0, NPA_ERR_FIELD_NONE,
				NPA_ERR_NONE, -ENOMEM);
	ret = npa_validate_exec(g, descs, err);
	kvfree(descs);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(npa_graph_validate);

/* Per-tensor state of the lowering; the g* fields are valid for roots. */
struct npa_lower {
	const struct npa_graph *g;
	u32 *parent;	/* union-find parent; a root is its own parent */
	s64 *rel;	/* offset from the parent */
	u64 *size;	/* bytes, rounded up to @align */
	u64 *align;	/* for roots: the strictest alignment in the group */
	u32 *lo, *hi;	/* the tensor's own lifetime, [lo, hi) */
	u64 *gext;	/* roots: bytes the group spans from the root */
	u32 *glo, *ghi;	/* roots: the group's lifetime */
	u32 *bufidx;	/* roots: planner buffer index */
};

static bool npa_in_arena(const struct npa_graph *g, u32 t)
{
	return !(g->tensors[t].flags & NPA_TENSOR_OWN_PLACE);
}

/* Root of @t's group and @t's offset from it; compresses the path. */
static u32 npa_find(struct npa_lower *l, u32 t, s64 *off)
{
	u32 r = t, next;
	s64 o = 0, acc, step;

	while (l->parent[r] != r) {
		o += l->rel[r];
		r = l->parent[r];
	}
	for (acc = o; l->parent[t] != r && t != r; t = next, acc -= step) {
		next = l->parent[t];
		step = l->rel[t];
		l->parent[t] = r;
		l->rel[t] = acc;
	}
	*off = o;
	return r;
}

/* Make root @r part of root @R at offset @at; the caller checked it fits. */
static void npa_union(struct npa_lower *l, u32 r, u32 R, s64 at)
{
	l->parent[r] = R;
	l->rel[r] = at;
	l->align[R] = max(l->align[R], l->align[r]);
	l->gext[R] = max_t(u64, l->gext[R], at + l->gext[r]);
	l->glo[R] = min(l->glo[R], l->glo[r]);
	l->ghi[R] = max(l->ghi[R], l->ghi[r]);
}

/*
 * May op @i write over group @R in place?  Not if a later op reads the
 * group, nor if another input of @i (than @in) lies in it: a split's
 * part, say, which the op would read after writing over it.
 */
static bool npa_may_write(struct npa_lower *l, u32 i, u32 in, u32 R)
{
	const struct npa_graph *g = l->g;
	const struct npa_op_desc *op = &g->ops[i];
	s64 off;
	u32 k;

	if (l->ghi[R] > i + 1)
		return false;
	for (k = 0; k < op->num_inputs; k++) {
		u32 t = g->operands[op->first_input + k];

		if (t != in && npa_in_arena(g, t) && npa_find(l, t, &off) == R)
			return false;
	}
	return true;
}

/*
 * Output @o of op @i becomes a view of input @in at @sub bytes into it.
 * @write: the op writes @o over @in (see npa_may_write()).
 */
static void npa_share_view(struct npa_lower *l, u32 i, u32 in, u32 o, u64 sub,
			   bool write)
{
	const struct npa_graph *g = l->g;
	s64 off, at;
	u32 R;

	if (!npa_in_arena(g, in) || !npa_in_arena(g, o) || l->parent[o] != o)
		return;
	R = npa_find(l, in, &off);
	at = off + sub;
	if (at % l->align[o])
		return;
	if (write && !npa_may_write(l, i, in, R))
		return;
	npa_union(l, o, R, at);
}

/* CONCAT op @i: place each input's group at its offset inside the output. */
static void npa_share_concat(struct npa_lower *l, u32 i)
{
	const struct npa_graph *g = l->g;
	const struct npa_op_desc *op = &g->ops[i];
	u32 o = g->operands[op->first_output], k, r;
	u64 at = 0, raw;
	s64 off;

	if (!npa_in_arena(g, o))
		return;
	for (k = 0; k < op->num_inputs; k++, at += raw) {
		u32 in = g->operands[op->first_input + k];
		u64 room;

		raw = npa_tensor_bytes(&g->tensors[in]);
		if (!npa_in_arena(g, in))
			continue;
		r = npa_find(l, in, &off);
		/* Already placed (e.g. the same tensor twice): copy instead. */
		if (r == o)
			continue;
		/* The group must lie inside the input and fit its slot. */
		room = k + 1 < op->num_inputs ? raw : l->size[o] - at;
		if (off != 0 || l->gext[r] > room)
			continue;
		if (at % l->align[r])
			continue;
		npa_union(l, r, o, at);
	}
}

static void npa_lower_share(struct npa_lower *l)
{
	const struct npa_graph *g = l->g;
	u32 i, k;
	u64 sub;

	for (i = 0; i < g->num_ops; i++) {
		const struct npa_op_desc *op = &g->ops[i];
		u32 in = g->operands[op->first_input];
		u32 out = g->operands[op->first_output];

		switch (op->kind) {
		case NPA_OP_RESHAPE:
			npa_share_view(l, i, in, out, 0, false);
			break;
		case NPA_OP_SPLIT:
			for (k = 0, sub = 0; k < op->num_outputs; k++) {
				out = g->operands[op->first_output + k];
				npa_share_view(l, i, in, out, sub, false);
				sub += npa_tensor_bytes(&g->tensors[out]);
			}
			break;
		case NPA_OP_CONCAT:
			npa_share_concat(l, i);
			break;
		default:
			if (op->flags & NPA_OP_INPLACE)
				npa_share_view(l, i, in, out, 0, true);
			break;
		}
		cond_resched();
	}
}

/* Alignment, size and lifetime of every tensor; every tensor its own group. */
static void npa_lower_init(struct npa_lower *l, const struct npa_graph_limits *lim)
{
	const struct npa_graph *g = l->g;
	u32 i, k, t;

	for (t = 0; t < g->num_tensors; t++) {
		l->parent[t] = t;
		l->rel[t] = 0;
		l->align[t] = max_t(u64, g->tensors[t].align, 1);
		l->lo[t] = NPA_NONE;
		l->hi[t] = 0;
	}
	for (i = 0; i < g->num_ops; i++) {
		const struct npa_op_desc *op = &g->ops[i];
		u64 ua = max_t(u64, lim->unit_align[op->unit], 1);

		for (k = 0; k < op->num_inputs; k++) {
			t = g->operands[op->first_input + k];
			l->align[t] = max(l->align[t], ua);
			l->hi[t] = max(l->hi[t], i + 1);
		}
		for (k = 0; k < op->num_outputs; k++) {
			t = g->operands[op->first_output + k];
			l->align[t] = max(l->align[t], ua);
			l->lo[t] = i;
			l->hi[t] = max(l->hi[t], i + 1);
		}
	}
	for (t = 0; t < g->num_tensors; t++) {
		/* Model inputs, constants and state exist from the start. */
		if (l->lo[t] == NPA_NONE)
			l->lo[t] = 0;
		if (g->tensors[t].flags & NPA_TENSOR_OWN_PLACE)
			l->hi[t] = max(l->hi[t], g->num_ops);
		l->hi[t] = max(l->hi[t], l->lo[t] + 1);
		l->align[t] = min_t(u64, l->align[t], NPA_PLAN_MAX_ALIGN);
		l->size[t] = ALIGN(npa_tensor_bytes(&g->tensors[t]), l->align[t]);
		l->gext[t] = l->size[t];
		l->glo[t] = l->lo[t];
		l->ghi[t] = l->hi[t];
	}
}

static void npa_lower_free(struct npa_lower *l)
{
	kvfree(l->parent);
	kvfree(l->rel);
	kvfree(l->size);
	kvfree(l->align);
	kvfree(l->lo);
	kvfree(l->hi);
	kvfree(l->gext);
	kvfree(l->glo);
	kvfree(l->ghi);
	kvfree(l->bufidx);
}

static int npa_lower_alloc(struct npa_lower *l, u32 n)
{
	l->parent = kvmalloc_array(n, sizeof(*l->parent), GFP_KERNEL_ACCOUNT);
	l->rel = kvmalloc_array(n, sizeof(*l->rel), GFP_KERNEL_ACCOUNT);
	l->size = kvmalloc_array(n, sizeof(*l->size), GFP_KERNEL_ACCOUNT);
	l->align = kvmalloc_array(n, sizeof(*l->align), GFP_KERNEL_ACCOUNT);
	l->lo = kvmalloc_array(n, sizeof(*l->lo), GFP_KERNEL_ACCOUNT);
	l->hi = kvmalloc_array(n, sizeof(*l->hi), GFP_KERNEL_ACCOUNT);
	l->gext = kvmalloc_array(n, sizeof(*l->gext), GFP_KERNEL_ACCOUNT);
	l->glo = kvmalloc_array(n, sizeof(*l->glo), GFP_KERNEL_ACCOUNT);
	l->ghi = kvmalloc_array(n, sizeof(*l->ghi), GFP_KERNEL_ACCOUNT);
	l->bufidx = kvmalloc_array(n, sizeof(*l->bufidx), GFP_KERNEL_ACCOUNT);
	if (!l->parent || !l->rel || !l->size || !l->align || !l->lo ||
	    !l->hi || !l->gext || !l->glo || !l->ghi || !l->bufidx) {
		npa_lower_free(l);
		return -ENOMEM;
	}
	return 0;
}

/* One planner buffer per group of arena tensors. */
static u32 npa_lower_buffers(struct npa_lower *l, struct npa_plan_buf *bufs,
			     u64 *naive)
{
	const struct npa_graph *g = l->g;
	u32 t, n = 0;
	s64 off;

	*naive = 0;
	for (t = 0; t < g->num_tensors; t++) {
		l->bufidx[t] = NPA_NONE;
		if (!npa_in_arena(g, t))
			continue;
		*naive += l->size[t];
		if (npa_find(l, t, &off) != t)
			continue;
		bufs[n] = (struct npa_plan_buf){
			.size = l->gext[t], .align = l->align[t],
			.lo = l->glo[t], .hi = l->ghi[t],
		};
		l->bufidx[t] = n++;
	}
	return n;
}

static void npa_lower_scratch(const struct npa_graph *g,
			      const struct npa_graph_limits *lim,
			      struct npa_scratch_req *reqs)
{
	u32 i, k;

	for (i = 0; i < g->num_ops; i++) {
		const struct npa_op_desc *op = &g->ops[i];

		for (k = 0; k < op->num_scratch; k++) {
			const struct npa_scratch_desc *s = &g->scratch[op->first_scratch + k];
			struct npa_scratch_req *r = &reqs[op->first_scratch + k];

			*r = (struct npa_scratch_req){
				.size = s->size,
				.min_size = s->min_size,
				.align = s->align ? s->align : lim->unit_align[op->unit],
				.step = i,
			};
			if (s->flags & NPA_SCRATCH_VARIABLE)
				r->flags |= NPA_SCRATCH_REQ_VARIABLE;
			if (s->flags & NPA_SCRATCH_LATENCY)
				r->flags |= NPA_SCRATCH_REQ_LATENCY;
		}
	}
}

/* What a scratch request's grant is worth: npa_scratch_cost.cycles. */
struct npa_scratch_worth {
	const struct npa_graph *g;
	const struct npa_scratch_req *reqs;
};

static u64 npa_scratch_cycles(void *priv, u32 idx, u64 bytes, bool fast)
{
	const struct npa_scratch_worth *w = priv;

	return npa_cost_scratch(w->g, w->reqs[idx].step, idx, bytes, fast);
}

static void npa_fill_placements(struct npa_lower *l,
				const struct npa_plan_buf *bufs,
				const struct npa_scratch_req *reqs,
				struct npa_graph_plan *plan)
{
	const struct npa_graph *g = l->g;
	u32 t, j;
	s64 off;

	for (t = 0; t < g->num_tensors; t++) {
		struct npa_placement *p = &plan->tensors[t];

		*p = (struct npa_placement){
			.offset = U64_MAX, .size = l->size[t],
			.lo = l->lo[t], .hi = l->hi[t], .buffer = NPA_NONE,
		};
		plan->align[t] = l->align[t];
		if (!npa_in_arena(g, t))
			continue;
		p->buffer = l->bufidx[npa_find(l, t, &off)];
		p->offset = bufs[p->buffer].offset + off;
		p->flags = NPA_PLACEMENT_ARENA;
	}
	for (j = 0; j < g->num_scratch; j++) {
		const struct npa_scratch_req *r = &reqs[j];

		plan->scratch[j] = (struct npa_placement){
			.offset = r->offset, .size = r->granted, .lo = r->step,
			.hi = r->step + 1, .buffer = NPA_NONE,
			.flags = NPA_PLACEMENT_ARENA | NPA_PLACEMENT_SCRATCH,
		};
		if (r->placed_flags & NPA_SCRATCH_PLACED_FAST)
			plan->scratch[j].flags |= NPA_PLACEMENT_FAST;
	}
}

/* Buffer @i of a supplied plan's verifier input: which element it is. */
static void npa_supplied_elem(const struct npa_lower *l, u32 nbufs, u32 i,
			      u32 *array, u32 *index)
{
	u32 t;

	if (i >= nbufs) {
		*array = NPA_ERR_ARRAY_PLAN_SCRATCH;
		*index = i - nbufs;
		return;
	}
	*array = NPA_ERR_ARRAY_PLAN_TENSORS;
	for (t = 0; t < l->g->num_tensors; t++)
		if (l->bufidx[t] == i)
			break;
	*index = t;
}

/*
 * The verifier refused the plan: two buffers live at once overlap.  Find
 * one pair for the report: the shortest refused prefix ends with one of
 * them (refusal only grows with the prefix), the other is before it.
 * O(n log^2 n), and only for a plan that is refused anyway.
 */
static int npa_supplied_overlap(const struct npa_lower *l,
				const struct npa_plan_buf *all, u32 n,
				u32 nbufs, u64 peak, struct npa_error *err)
{
	u32 lo = 1, hi = n, i, a, b, ia, ib;
	const struct npa_plan_buf *x, *y;
	int ret;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		ret = npa_plan_verify(all, mid, peak);
		if (ret && ret != -EEXIST)
			return ret;
		if (ret)
			hi = mid;
		else
			lo = mid + 1;
	}
	x = &all[lo - 1];
	for (i = 0; i + 1 < lo; i++) {
		y = &all[i];
		if (y->size && x->lo < y->hi && y->lo < x->hi &&
		    x->offset < y->offset + y->size &&
		    y->offset < x->offset + x->size)
			break;
	}
	npa_supplied_elem(l, nbufs, lo - 1, &a, &ia);
	npa_supplied_elem(l, nbufs, i, &b, &ib);
	return npa_error_set(err, a, ia, NPA_ERR_FIELD_OFFSET,
			     NPA_ERR_OVERLAP, ib, b, -EINVAL);
}

/*
 * Take the offsets of a supplied plan: every group of tensors that share
 * memory at its root's offset, each member where the sharing puts it;
 * scratch as given, within what each request accepts.  Then the planner's
 * verifier checks every pair of buffers live at once.
 */
static int npa_supplied_place(struct npa_lower *l,
			      const struct npa_graph_limits *lim,
			      struct npa_plan_buf *bufs, u32 nbufs,
			      struct npa_scratch_req *reqs,
			      const struct npa_placement *pt,
			      const struct npa_placement *ps,
			      struct npa_graph_plan *plan,
			      struct npa_error *err)
{
	const struct npa_graph *g = l->g;
	const u32 at = NPA_ERR_ARRAY_PLAN_TENSORS, as = NPA_ERR_ARRAY_PLAN_SCRATCH;
	struct npa_plan_buf *all;
	u64 end, peak = 0;
	u32 t, j, r;
	s64 off;
	int ret;

	for (t = 0; t < g->num_tensors; t++) {
		if (!npa_in_arena(g, t))
			continue;
		r = npa_find(l, t, &off);
		if (t != r && pt[t].offset != pt[r].offset + (u64)off)
			return npa_error_set(err, at, t, NPA_ERR_FIELD_OFFSET,
					     NPA_ERR_NOT_SHARED, pt[t].offset,
					     pt[r].offset + (u64)off, -EINVAL);
		if (t != r)
			continue;
		if (pt[r].offset & (l->align[r] - 1))
			return npa_error_set(err, at, r, NPA_ERR_FIELD_OFFSET,
					     NPA_ERR_MISALIGNED, pt[r].offset,
					     l->align[r], -EINVAL);
		if (check_add_overflow(pt[r].offset, l->gext[r], &end))
			return npa_error_set(err, at, r, NPA_ERR_FIELD_OFFSET,
					     NPA_ERR_OVERFLOW, pt[r].offset, 0,
					     -EOVERFLOW);
		bufs[l->bufidx[r]].offset = pt[r].offset;
		peak = max(peak, end);
	}
	plan->tensor_bytes = peak;

	npa_lower_scratch(g, lim, reqs);
	for (j = 0; j < g->num_scratch; j++) {
		struct npa_scratch_req *q = &reqs[j];
		u64 sz = ps[j].size, align = max_t(u64, q->align, 1);
		bool var = q->flags & NPA_SCRATCH_REQ_VARIABLE;

		if (var ? sz < q->min_size || sz > q->size : sz != q->size)
			return npa_error_set(err, as, j, NPA_ERR_FIELD_SIZE,
					     NPA_ERR_BAD_VALUE, sz, q->size,
					     -EINVAL);
		if (ps[j].offset & (align - 1))
			return npa_error_set(err, as, j, NPA_ERR_FIELD_OFFSET,
					     NPA_ERR_MISALIGNED, ps[j].offset,
					     align, -EINVAL);
		if (check_add_overflow(ps[j].offset, sz, &end))
			return npa_error_set(err, as, j, NPA_ERR_FIELD_OFFSET,
					     NPA_ERR_OVERFLOW, ps[j].offset, 0,
					     -EOVERFLOW);
		q->offset = ps[j].offset;
		q->granted = sz;
		if (lim->fast_window && end <= lim->fast_window)
			q->placed_flags |= NPA_SCRATCH_PLACED_FAST;
		plan->scratch_requested += sz;
		peak = max(peak, end);
	}

	all = kvcalloc((size_t)nbufs + g->num_scratch, sizeof(*all),
		       GFP_KERNEL_ACCOUNT);
	if (!all)
		return -ENOMEM;
	memcpy(all, bufs, array_size(nbufs, sizeof(*bufs)));
	for (j = 0; j < g->num_scratch; j++)
		all[nbufs + j] = (struct npa_plan_buf){
			.size = reqs[j].granted, .align = reqs[j].align,
			.lo = reqs[j].step, .hi = reqs[j].step + 1,
			.offset = reqs[j].offset,
		};
	ret = npa_plan_verify(all, nbufs + g->num_scratch, peak);
	if (ret == -EEXIST)
		ret = npa_supplied_overlap(l, all, nbufs + g->num_scratch,
					   nbufs, peak, err);
	kvfree(all);
	if (ret)
		return ret;

	plan->arena_bytes = peak;
	plan->lower_bound = npa_plan_lower_bound(bufs, nbufs);
	plan->scratch_growth = peak - plan->tensor_bytes;
	plan->supplied = true;
	return 0;
}

/*
 * npa_graph_plan() and npa_graph_plan_supplied(): plan the graph, or
 * verify and take the plan @pt and @ps (then @err says what is wrong).
 */
static int npa_graph_place(const struct npa_graph *g,
			   const struct npa_graph_limits *lim, u64 budget,
			   const struct npa_placement *pt,
			   const struct npa_placement *ps,
			   struct npa_graph_plan *plan, struct npa_error *err)
{
	struct npa_plan_params params = {
		.budget = budget,
		.time_cap_ns = NPA_GRAPH_PLAN_TIME_CAP_NS,
	};
	struct npa_lower l = { .g = g };
	struct npa_scratch_stats st;
	struct npa_scratch_worth worth;
	struct npa_scratch_cost cost;
	struct npa_scratch_req *reqs = NULL;
	struct npa_plan_result res;
	struct npa_plan_buf *bufs;
	u64 start = ktime_get_ns();
	u32 nbufs;
	int ret;

	memset(plan, 0, sizeof(*plan));
	ret = npa_lower_alloc(&l, g->num_tensors);
	if (ret)
		return ret;
	ret = -ENOMEM;
	bufs = kvcalloc(g->num_tensors, sizeof(*bufs), GFP_KERNEL_ACCOUNT);
	if (g->num_scratch)
		reqs = kvcalloc(g->num_scratch, sizeof(*reqs), GFP_KERNEL_ACCOUNT);
	plan->tensors = kvcalloc(g->num_tensors, sizeof(*plan->tensors), GFP_KERNEL_ACCOUNT);
	plan->scratch = kvcalloc(max(g->num_scratch, 1U), sizeof(*plan->scratch),
				 GFP_KERNEL_ACCOUNT);
	plan->align = kvcalloc(g->num_tensors, sizeof(*plan->align), GFP_KERNEL_ACCOUNT);
	if (!bufs || (g->num_scratch && !reqs) || !plan->tensors ||
	    !plan->scratch || !plan->align)
		goto err_free;

	npa_lower_init(&l, lim);
	npa_lower_share(&l);
	nbufs = npa_lower_buffers(&l, bufs, &plan->naive_bytes);
	plan->num_buffers = nbufs;

	if (pt) {
		ret = npa_supplied_place(&l, lim, bufs, nbufs, reqs, pt, ps,
					 plan, err);
		if (ret)
			goto err_free;
		goto out_fill;
	}

	ret = npa_plan(bufs, nbufs, &params, &res);
	if (ret)
		goto err_free;
	plan->tensor_bytes = res.peak;
	plan->lower_bound = res.lower_bound;
	plan->algorithm = res.algo;

	plan->arena_bytes = res.peak;
	npa_lower_scratch(g, lim, reqs);
	worth = (struct npa_scratch_worth){ .g = g, .reqs = reqs };
	cost = (struct npa_scratch_cost){
		.cycles = npa_scratch_cycles, .priv = &worth,
		.headroom = div_u64(res.peak, 100) * lim->scratch_growth_pct,
	};
	ret = npa_scratch_place_cost(bufs, nbufs, &plan->arena_bytes, reqs,
				     g->num_scratch, lim->fast_window, &cost, &st);
	if (ret)
		goto err_free;
	plan->scratch_requested = st.requested;
	plan->scratch_growth = st.growth;
	plan->scratch_growth_naive = st.growth_naive;

out_fill:
	npa_fill_placements(&l, bufs, reqs, plan);
	plan->plan_ns = ktime_get_ns() - start;
	ret = 0;
	goto out;

err_free:
	npa_graph_plan_free(plan);
out:
	kvfree(reqs);
	kvfree(bufs);
	npa_lower_free(&l);
	return ret;
}

/**
 * npa_graph_plan() - place a validated graph's tensors and scratch
 * @g: a graph that passed npa_graph_validate().
 * @lim: the limits it was validated against.
 * @budget: planner work budget in placements, 0 for the default.
 * @plan: out: the placements and the report; free with
 *	npa_graph_plan_free().
 *
 * Context: Process context; may sleep.
 * Return: 0, or -ENOMEM, or the planner's error.
 */
int npa_graph_plan(const struct npa_graph *g,
		   const struct npa_graph_limits *lim, u64 budget,
		   struct npa_graph_plan *plan)
{
	return npa_graph_place(g, lim, budget, NULL, NULL, plan, NULL);
}
EXPORT_SYMBOL_IF_KUNIT(npa_graph_plan);

/**
 * npa_graph_plan_supplied() - take a plan made elsewhere, once verified
 * @g: a graph that passed npa_graph_validate().
 * @lim: the limits it was validated against.
 * @pt: one placement per tensor; the offsets of the arena tensors are
 *	read (tensors that share memory, as npa_graph_plan() shares it, must
 *	be where the sharing puts them), the rest ignored.
 * @ps: one placement per scratch request: offset and size granted.
 * @plan: out: the placements and the report, as npa_graph_plan() gives.
 * @err: out: on a refusal, what is wrong: array %NPA_ERR_ARRAY_PLAN_TENSORS
 *	or %NPA_ERR_ARRAY_PLAN_SCRATCH, the element, and the reason.
 *
 * Every offset is checked for alignment, every scratch size against its
 * request, and every pair of buffers live at the same step for overlap, by
 * the planner's own verifier, npa_plan_verify(): O(n log n).
 *
 * Context: Process context; may sleep.
 * Return: 0, -EINVAL (a bad plan: @err says why), -EOVERFLOW, -ENOMEM.
 */
int npa_graph_plan_supplied(const struct npa_graph *g,
			    const struct npa_graph_limits *lim,
			    const struct npa_placement *pt,
			    const struct npa_placement *ps,
			    struct npa_graph_plan *plan, struct npa_error *err)
{
	return npa_graph_place(g, lim, 0, pt, ps, plan, err);
}
EXPORT_SYMBOL_IF_KUNIT(npa_graph_plan_supplied);

/**
 * npa_graph_plan_free() - free what npa_graph_plan() allocated
 * @plan: the plan; may be zeroed or already freed.
 *
 * Context: Process context.
 */
void npa_graph_plan_free(struct npa_graph_plan *plan)
{
	kvfree(plan->tensors);
	kvfree(plan->scratch);
	kvfree(plan->align);
	plan->tensors = NULL;
	plan->scratch = NULL;
	plan->align = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(npa_graph_plan_free);
