// SPDX-License-Identifier: GPL-2.0
/*
 * npa: model graph validation.
 */

/**
 * DOC: model graphs
 *
 * A graph is tensors, operators in execution order, the operand ids the
 * operators index into, and the scratch requests they make (see
 * include/uapi/linux/npa.h).  npa_graph_build() checks every field of an
 * untrusted graph; a failure has a conventional errno (the table is in
 * Documentation/uapi.rst) and a &struct npa_error that says which array,
 * element and field, why, and the values concerned.  A valid graph becomes
 * the internal model (npa_ir.h), which is all the layers below see.
 */

#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "npa_exec.h"
#include "npa_graph.h"
#include "npa_ir.h"
#include "npa_layout.h"
#include "npa_plan.h"

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

/* Tensor @i's dims[@dim], for @reason. */
static int npa_fail_dim(struct npa_error *err, u32 i, u32 dim, u32 reason,
			int ret)
{
	npa_fail(err, NPA_ERR_ARRAY_TENSORS, i, NPA_ERR_FIELD_DIMS, reason,
		 ret);
	err->dim = dim;
	return ret;
}

#define NPA_ARGS	NPA_ERR_ARRAY_ARGS
#define NPA_TENSORS	NPA_ERR_ARRAY_TENSORS
#define NPA_OPS		NPA_ERR_ARRAY_OPS
#define NPA_SCRATCH	NPA_ERR_ARRAY_SCRATCH

/*
 * Dimensions are given outermost first; unused trailing ones are 0, and a
 * tensor without a dtype has none.  Returns the dim that breaks this: of
 * a tensor with a dtype, the first 0 before a non-zero dim (dims[0] when
 * all are 0); of one without, its first non-zero dim; else
 * %NPA_ERR_NO_INDEX.
 */
static u32 npa_shape_bad_dim(const struct npa_tensor_desc *t)
{
	bool none = t->dtype == NPA_DTYPE_NONE;
	u32 i, zero = NPA_ERR_NO_INDEX;

	for (i = 0; i < NPA_MAX_DIMS; i++) {
		if (!t->dims[i]) {
			zero = min(zero, i);
			continue;
		}
		if (none)
			return i;
		if (zero != NPA_ERR_NO_INDEX)
			return zero;
	}
	return none || t->dims[0] ? NPA_ERR_NO_INDEX : 0;
}

/*
 * Bytes of a tensor from its shape, 0 if it has none, U64_MAX on overflow;
 * then, if @over is not NULL, *@over is the dim whose product overflowed.
 */
static u64 npa_shape_bytes(const struct npa_tensor_desc *t, u32 *over)
{
	u64 bytes;
	u32 i;

	if (t->dtype == NPA_DTYPE_NONE || t->dtype >= NPA_DTYPE_COUNT)
		return 0;
	bytes = npa_dtype_bytes[t->dtype];
	for (i = 0; i < NPA_MAX_DIMS && t->dims[i]; i++) {
		if (check_mul_overflow(bytes, (u64)t->dims[i], &bytes)) {
			if (over)
				*over = i;
			return U64_MAX;
		}
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
	return t->size ? t->size : npa_shape_bytes(t, NULL);
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
		u32 dim;
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
		dim = npa_shape_bad_dim(t);
		if (dim != NPA_ERR_NO_INDEX)
			return npa_fail_dim(err, i, dim, NPA_ERR_BAD_SHAPE,
					    -EINVAL);
		shape = npa_shape_bytes(t, &dim);
		if (shape == U64_MAX)
			return npa_fail_dim(err, i, dim, NPA_ERR_OVERFLOW,
					    -EOVERFLOW);
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

/*
 * Op @i refused by npa_exec_check_why(): the params or flags, or the
 * operand @f names, with its size, dtype or a dim (and which) and what it
 * needs.
 */
static int npa_fail_exec(const struct npa_graph *g, u32 i,
			 const struct npa_exec_fault *f, struct npa_error *err)
{
	const struct npa_op_desc *op = &g->ops[i];
	u32 idx, field = NPA_ERR_FIELD_DIMS;

	switch (f->blame) {
	case NPA_EXEC_BLAME_PARAMS:
		return npa_fail(err, NPA_OPS, i, NPA_ERR_FIELD_PARAMS,
				NPA_ERR_NOT_EXECUTABLE, -EINVAL);
	case NPA_EXEC_BLAME_FLAGS:
		return npa_fail(err, NPA_OPS, i, NPA_ERR_FIELD_FLAGS,
				NPA_ERR_NOT_EXECUTABLE, -EINVAL);
	case NPA_EXEC_BLAME_SIZE:
		field = NPA_ERR_FIELD_SIZE;
		break;
	case NPA_EXEC_BLAME_DTYPE:
		field = NPA_ERR_FIELD_DTYPE;
		break;
	}
	if (f->operand < op->num_inputs)
		idx = op->first_input + f->operand;
	else
		idx = op->first_output + (f->operand - op->num_inputs);
	npa_error_set(err, NPA_ERR_ARRAY_OPERANDS, idx, field,
		      field == NPA_ERR_FIELD_SIZE ? NPA_ERR_SIZE_MISMATCH :
						    NPA_ERR_OPERAND_MISMATCH,
		      f->value, f->expected, -EINVAL);
	err->op = i;
	err->tensor = g->operands[idx];
	if (f->blame == NPA_EXEC_BLAME_DIMS)
		err->dim = f->dim;
	return -EINVAL;
}

/* Operators whose tensors all have shapes must be executable as given. */
static int npa_validate_exec(const struct npa_graph *g,
			     const struct npa_ir *ir,
			     const struct npa_ir_tensor **d,
			     struct npa_error *err)
{
	struct npa_exec_fault fault;

	u32 i, k;
	int ret;

	for (i = 0; i < ir->num_ops; i++) {
		const struct npa_ir_op *op = &ir->ops[i];
		bool shaped = true;

		for (k = 0; k < op->num_in + op->num_out; k++) {
			d[k] = &ir->tensors[ir->operands[op->first + k]];
			shaped &= d[k]->dtype != NPA_IR_DTYPE_NONE;
		}
		if (!shaped)
			continue;
		ret = npa_exec_check_why(op, d, op->num_in, d + op->num_in,
					 op->num_out, &fault);
		if (ret)
			return npa_fail_exec(g, i, &fault, err);
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

/* The internal model's numbers are the uAPI's: building it copies them. */
#define NPA_IR_IS_UAPI(ir, uapi)	BUILD_BUG_ON((int)(ir) != (int)(uapi))

static void npa_ir_same_numbers(void)
{
	NPA_IR_IS_UAPI(NPA_IR_DTYPE_COUNT, NPA_DTYPE_COUNT);
	NPA_IR_IS_UAPI(NPA_IR_DTYPE_NONE, NPA_DTYPE_NONE);
	NPA_IR_IS_UAPI(NPA_IR_INT8, NPA_DTYPE_INT8);
	NPA_IR_IS_UAPI(NPA_IR_UINT8, NPA_DTYPE_UINT8);
	NPA_IR_IS_UAPI(NPA_IR_INT16, NPA_DTYPE_INT16);
	NPA_IR_IS_UAPI(NPA_IR_INT32, NPA_DTYPE_INT32);
	NPA_IR_IS_UAPI(NPA_IR_KIND_COUNT, NPA_OP_KIND_COUNT);
	NPA_IR_IS_UAPI(NPA_IR_CONV2D, NPA_OP_CONV2D);
	NPA_IR_IS_UAPI(NPA_IR_DWCONV2D, NPA_OP_DWCONV2D);
	NPA_IR_IS_UAPI(NPA_IR_MAXPOOL, NPA_OP_MAXPOOL);
	NPA_IR_IS_UAPI(NPA_IR_AVGPOOL, NPA_OP_AVGPOOL);
	NPA_IR_IS_UAPI(NPA_IR_ADD, NPA_OP_ADD);
	NPA_IR_IS_UAPI(NPA_IR_MUL, NPA_OP_MUL);
	NPA_IR_IS_UAPI(NPA_IR_ACTIVATION, NPA_OP_ACTIVATION);
	NPA_IR_IS_UAPI(NPA_IR_CONCAT, NPA_OP_CONCAT);
	NPA_IR_IS_UAPI(NPA_IR_RESHAPE, NPA_OP_RESHAPE);
	NPA_IR_IS_UAPI(NPA_IR_SPLIT, NPA_OP_SPLIT);
	NPA_IR_IS_UAPI(NPA_IR_UPSAMPLE, NPA_OP_UPSAMPLE);
	NPA_IR_IS_UAPI(NPA_IR_COPY, NPA_OP_COPY);
	NPA_IR_IS_UAPI(NPA_IR_FC, NPA_OP_FC);
	NPA_IR_IS_UAPI(NPA_IR_REORG, NPA_OP_REORG);
	NPA_IR_IS_UAPI(NPA_IR_ACT_COUNT, NPA_ACT_COUNT);
	NPA_IR_IS_UAPI(NPA_IR_ACT_LINEAR, NPA_ACT_LINEAR);
	NPA_IR_IS_UAPI(NPA_IR_ACT_RELU, NPA_ACT_RELU);
	NPA_IR_IS_UAPI(NPA_IR_ACT_LEAKY, NPA_ACT_LEAKY);
	NPA_IR_IS_UAPI(NPA_IR_ACT_LOGISTIC, NPA_ACT_LOGISTIC);
	NPA_IR_IS_UAPI(NPA_IR_MAX_DIMS, NPA_MAX_DIMS);
	NPA_IR_IS_UAPI(NPA_IR_MAX_PARAMS, NPA_OP_MAX_PARAMS);
	NPA_IR_IS_UAPI(NPA_IR_P_KH, NPA_P_KH);
	NPA_IR_IS_UAPI(NPA_IR_P_KW, NPA_P_KW);
	NPA_IR_IS_UAPI(NPA_IR_P_SH, NPA_P_SH);
	NPA_IR_IS_UAPI(NPA_IR_P_SW, NPA_P_SW);
	NPA_IR_IS_UAPI(NPA_IR_P_PAD_T, NPA_P_PAD_T);
	NPA_IR_IS_UAPI(NPA_IR_P_PAD_L, NPA_P_PAD_L);
	NPA_IR_IS_UAPI(NPA_IR_P_GROUPS, NPA_P_GROUPS);
	NPA_IR_IS_UAPI(NPA_IR_P_SHIFT, NPA_P_SHIFT);
	NPA_IR_IS_UAPI(NPA_IR_P_ACT, NPA_P_ACT);
	NPA_IR_IS_UAPI(NPA_IR_P_STRIDE, NPA_P_STRIDE);
	NPA_IR_IS_UAPI(NPA_IR_INPUT, NPA_TENSOR_INPUT);
	NPA_IR_IS_UAPI(NPA_IR_OUTPUT, NPA_TENSOR_OUTPUT);
	NPA_IR_IS_UAPI(NPA_IR_CONST, NPA_TENSOR_CONST);
	NPA_IR_IS_UAPI(NPA_IR_PERSISTENT, NPA_TENSOR_PERSISTENT);
	NPA_IR_IS_UAPI(NPA_IR_BOUND, NPA_TENSOR_FLAGS_ALL);
	NPA_IR_IS_UAPI(NPA_IR_INPLACE, NPA_OP_INPLACE);
	NPA_IR_IS_UAPI(NPA_OP_FLAGS_ALL, NPA_OP_INPLACE);
	NPA_IR_IS_UAPI(NPA_IR_VARIABLE, NPA_SCRATCH_VARIABLE);
	NPA_IR_IS_UAPI(NPA_IR_LATENCY, NPA_SCRATCH_LATENCY);
	NPA_IR_IS_UAPI(NPA_IR_VARIABLE | NPA_IR_LATENCY, NPA_SCRATCH_FLAGS_ALL);
}

/**
 * npa_ir_free() - free what npa_graph_build() allocated
 * @ir: the internal model; may be zeroed or already freed.
 *
 * Context: Process context.
 */
void npa_ir_free(struct npa_ir *ir)
{
	kvfree(ir->tensors);
	kvfree(ir->ops);
	kvfree(ir->operands);
	kvfree(ir->scratch);
	memset(ir, 0, sizeof(*ir));
}
EXPORT_SYMBOL_IF_KUNIT(npa_ir_free);

/*
 * The internal model of a graph whose fields passed the checks: sizes from
 * the shapes, alignments from the units that touch each tensor, and every
 * op's operands, inputs then outputs, in one array of their own.
 */
static int npa_ir_fill(const struct npa_graph *g,
		       const struct npa_graph_limits *lim, struct npa_ir *ir)
{
	u32 i, k, n = 0;

	npa_ir_same_numbers();
	for (i = 0; i < g->num_ops; i++)
		n += g->ops[i].num_inputs + g->ops[i].num_outputs;
	*ir = (struct npa_ir){
		.num_tensors = g->num_tensors, .num_ops = g->num_ops,
		.num_operands = n, .num_scratch = g->num_scratch,
	};
	ir->tensors = kvcalloc(g->num_tensors, sizeof(*ir->tensors),
			       GFP_KERNEL_ACCOUNT);
	ir->ops = kvcalloc(g->num_ops, sizeof(*ir->ops), GFP_KERNEL_ACCOUNT);
	ir->operands = kvcalloc(max(n, 1U), sizeof(*ir->operands),
				GFP_KERNEL_ACCOUNT);
	ir->scratch = kvcalloc(max(g->num_scratch, 1U), sizeof(*ir->scratch),
			       GFP_KERNEL_ACCOUNT);
	if (!ir->tensors || !ir->ops || !ir->operands || !ir->scratch) {
		npa_ir_free(ir);
		return -ENOMEM;
	}
	ir->runnable = true;
	for (i = 0; i < g->num_tensors; i++) {
		const struct npa_tensor_desc *t = &g->tensors[i];
		struct npa_ir_tensor *x = &ir->tensors[i];

		/* A tensor given by size only can be planned, not run. */
		ir->runnable &= t->dtype != NPA_DTYPE_NONE;
		x->size = npa_tensor_bytes(t);
		memcpy(x->dims, t->dims, sizeof(x->dims));
		x->dtype = t->dtype;
		x->align = max(t->align, 1U);
		x->flags = t->flags;
	}
	for (i = 0, n = 0; i < g->num_ops; i++) {
		const struct npa_op_desc *op = &g->ops[i];
		struct npa_ir_op *o = &ir->ops[i];
		u32 ua = max(lim->unit_align[op->unit], 1U);

		*o = (struct npa_ir_op){
			.kind = op->kind, .unit = op->unit, .flags = op->flags,
			.first = n, .num_in = op->num_inputs,
			.num_out = op->num_outputs,
			.first_scratch = op->first_scratch,
			.num_scratch = op->num_scratch,
		};
		memcpy(o->params, op->params, sizeof(o->params));
		for (k = 0; k < op->num_inputs; k++)
			ir->operands[n++] = g->operands[op->first_input + k];
		for (k = 0; k < op->num_outputs; k++)
			ir->operands[n++] = g->operands[op->first_output + k];
		for (k = o->first; k < n; k++) {
			struct npa_ir_tensor *x = &ir->tensors[ir->operands[k]];

			x->align = max(x->align, ua);
		}
		for (k = 0; k < op->num_scratch; k++) {
			const struct npa_scratch_desc *d =
				&g->scratch[op->first_scratch + k];

			ir->scratch[op->first_scratch + k] = (struct npa_ir_scratch){
				.size = d->size, .min_size = d->min_size,
				.align = d->align ? d->align : ua,
				.flags = d->flags,
			};
		}
	}
	for (i = 0; i < g->num_tensors; i++)
		ir->tensors[i].align = min_t(u32, ir->tensors[i].align,
					     NPA_PLAN_MAX_ALIGN);
	return 0;
}

/**
 * npa_graph_build() - check an untrusted graph and build its internal model
 * @g: the graph; its arrays hold @g->num_* elements.
 * @lim: the device's limits.
 * @ir: out: the internal model, which is all the layers below validation
 *	see of the graph; free it with npa_ir_free().  Zeroed on failure.
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
int npa_graph_build(const struct npa_graph *g,
		    const struct npa_graph_limits *lim, struct npa_ir *ir,
		    struct npa_error *err)
{
	const struct npa_ir_tensor **descs;
	u32 *producer, i, most;
	u64 refs;
	int ret;

	memset(ir, 0, sizeof(*ir));
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

	if (npa_ir_fill(g, lim, ir))
		return npa_fail(err, NPA_ARGS, 0, NPA_ERR_FIELD_NONE,
				NPA_ERR_NONE, -ENOMEM);
	/* An op's input and output windows may overlap: size by the op. */
	for (i = 0, most = 1; i < ir->num_ops; i++)
		most = max(most, ir->ops[i].num_in + ir->ops[i].num_out);
	descs = kvmalloc_array(most, sizeof(*descs), GFP_KERNEL_ACCOUNT);
	if (!descs)
		ret = npa_fail(err, NPA_ARGS, 0, NPA_ERR_FIELD_NONE,
			       NPA_ERR_NONE, -ENOMEM);
	else
		ret = npa_validate_exec(g, ir, descs, err);
	kvfree(descs);
	if (ret)
		npa_ir_free(ir);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(npa_graph_build);

/**
 * npa_graph_validate() - check an untrusted graph
 * @g: the graph; its arrays hold @g->num_* elements.
 * @lim: the device's limits.
 * @err: out: on failure, what npa_graph_build() says.
 *
 * npa_graph_build() without keeping the internal model.
 *
 * Context: Process context; may sleep.
 * Return: what npa_graph_build() returns.
 */
int npa_graph_validate(const struct npa_graph *g,
		       const struct npa_graph_limits *lim,
		       struct npa_error *err)
{
	struct npa_ir ir;
	int ret;

	ret = npa_graph_build(g, lim, &ir, err);
	npa_ir_free(&ir);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(npa_graph_validate);

/**
 * npa_graph_plan_supplied() - verify and take userspace's layout of a model
 * @ir: the internal model npa_graph_build() made of the graph.
 * @lim: the limits it was validated against.
 * @pt: one placement per tensor (see npa_layout_supplied()).
 * @ps: one placement per scratch request: offset and size granted.
 * @plan: out: the placements and the report, as npa_layout_plan() gives.
 * @err: out: on a refusal, what is wrong: array %NPA_ERR_ARRAY_PLAN_TENSORS
 *	or %NPA_ERR_ARRAY_PLAN_SCRATCH, the element, and the reason.
 *
 * Context: Process context; may sleep.
 * Return: 0, -EINVAL (a bad plan: @err says why), -EOVERFLOW, -ENOMEM.
 */
int npa_graph_plan_supplied(const struct npa_ir *ir,
			    const struct npa_graph_limits *lim,
			    const struct npa_ir_place *pt,
			    const struct npa_ir_place *ps,
			    struct npa_layout *plan, struct npa_error *err)
{
	static const u32 reason[] = {
		[NPA_LAYOUT_NOT_SHARED] = NPA_ERR_NOT_SHARED,
		[NPA_LAYOUT_MISALIGNED] = NPA_ERR_MISALIGNED,
		[NPA_LAYOUT_OVERFLOW] = NPA_ERR_OVERFLOW,
		[NPA_LAYOUT_BAD_SIZE] = NPA_ERR_BAD_VALUE,
		[NPA_LAYOUT_OVERLAP] = NPA_ERR_OVERLAP,
	};
	struct npa_layout_refusal why = { };
	u32 array, other;
	int ret;

	ret = npa_layout_supplied(ir, lim->fast_window, pt, ps, plan, &why);
	if (!ret || !why.reason || why.reason >= ARRAY_SIZE(reason))
		return ret;
	array = why.scratch ? NPA_ERR_ARRAY_PLAN_SCRATCH :
		NPA_ERR_ARRAY_PLAN_TENSORS;
	other = why.other_scratch ? NPA_ERR_ARRAY_PLAN_SCRATCH :
		NPA_ERR_ARRAY_PLAN_TENSORS;
	/* An overlap names the other element: its index, then its array. */
	return npa_error_set(err, array, why.index,
			     why.reason == NPA_LAYOUT_BAD_SIZE ?
			     NPA_ERR_FIELD_SIZE : NPA_ERR_FIELD_OFFSET,
			     reason[why.reason], why.value,
			     why.reason == NPA_LAYOUT_OVERLAP ? other :
			     why.expected, ret);
}
EXPORT_SYMBOL_IF_KUNIT(npa_graph_plan_supplied);
