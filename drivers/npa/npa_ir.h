/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npa: the internal model of a graph, as validation produces it.
 *
 * Graph validation (npa_graph.c) checks what userspace sent in the uAPI's
 * descriptors and builds this form; everything below it (the planner, the
 * operator kernels, the cost model, the NPU's commands and the simulated
 * NPU) reads only this, never include/uapi/linux/npa.h.  Pure types: no
 * device and no locking, so that the host tools build the same files.
 *
 * The numbers of the kinds, element types, activations and parameter
 * slots are the uAPI's (validation asserts it at build time), so that
 * building the model copies them; the uAPI may grow values this form
 * does not have only through validation.
 */
#ifndef __NPA_IR_H__
#define __NPA_IR_H__

#include <linux/bits.h>
#include <linux/limits.h>
#include <linux/types.h>

/* Element types of &npa_ir_tensor.dtype. */
enum npa_ir_dtype {
	NPA_IR_DTYPE_NONE,	/* bytes without a shape */
	NPA_IR_INT8,
	NPA_IR_UINT8,
	NPA_IR_INT16,
	NPA_IR_INT32,
	NPA_IR_DTYPE_COUNT,
};

/* Operator kinds of &npa_ir_op.kind (Documentation/npu.rst). */
enum npa_ir_kind {
	NPA_IR_CONV2D = 1,
	NPA_IR_DWCONV2D,
	NPA_IR_MAXPOOL,
	NPA_IR_AVGPOOL,
	NPA_IR_ADD,
	NPA_IR_MUL,
	NPA_IR_ACTIVATION,
	NPA_IR_CONCAT,
	NPA_IR_RESHAPE,
	NPA_IR_SPLIT,
	NPA_IR_UPSAMPLE,
	NPA_IR_COPY,
	NPA_IR_FC,
	NPA_IR_REORG,
	NPA_IR_KIND_COUNT,
};

/* Activation functions, in &npa_ir_op.params[%NPA_IR_P_ACT]. */
enum npa_ir_act {
	NPA_IR_ACT_LINEAR,
	NPA_IR_ACT_RELU,
	NPA_IR_ACT_LEAKY,
	NPA_IR_ACT_LOGISTIC,
	NPA_IR_ACT_COUNT,
};

#define NPA_IR_MAX_DIMS		4
#define NPA_IR_MAX_PARAMS	8

/* Slots of &npa_ir_op.params, by kind. */
#define NPA_IR_P_KH		0	/* kernel height */
#define NPA_IR_P_KW		1	/* kernel width */
#define NPA_IR_P_SH		2	/* stride height */
#define NPA_IR_P_SW		3	/* stride width */
#define NPA_IR_P_PAD_T		4	/* padding rows above */
#define NPA_IR_P_PAD_L		5	/* padding columns left */
#define NPA_IR_P_GROUPS		6	/* CONV2D: channel groups (0 means 1) */
#define NPA_IR_P_SHIFT		7	/* requantization shift */
#define NPA_IR_P_ACT		0	/* ACTIVATION: enum npa_ir_act */
#define NPA_IR_P_STRIDE		0	/* UPSAMPLE, REORG: the factor */

/* &npa_ir_tensor.flags */
#define NPA_IR_INPUT		BIT(0)	/* a model input */
#define NPA_IR_OUTPUT		BIT(1)	/* a model output */
#define NPA_IR_CONST		BIT(2)	/* constant: no op writes it */
#define NPA_IR_PERSISTENT	BIT(3)	/* state kept from job to job */
/* Bound to a buffer at every submit, not in the arena. */
#define NPA_IR_BOUND \
	(NPA_IR_INPUT | NPA_IR_OUTPUT | NPA_IR_CONST | NPA_IR_PERSISTENT)

/* &npa_ir_op.flags */
#define NPA_IR_INPLACE		BIT(0)	/* may write its first input over */

/* &npa_ir_scratch.flags */
#define NPA_IR_VARIABLE		BIT(0)	/* any size from @min_size up will do */
#define NPA_IR_LATENCY		BIT(1)	/* prefers the fast window */

/* &npa_ir_place.flags */
#define NPA_IR_ARENA		BIT(0)	/* in the activation arena */
#define NPA_IR_SCRATCH		BIT(1)	/* a scratch buffer */
#define NPA_IR_FAST		BIT(2)	/* inside the fast window */

/* &npa_ir_place.offset of a tensor that has no place in the arena. */
#define NPA_IR_NO_OFFSET	U64_MAX
/* &npa_ir_place.buffer of one that shares no arena buffer. */
#define NPA_IR_NO_BUFFER	U32_MAX

/**
 * struct npa_ir_tensor - one tensor of the internal model
 * @size: bytes, from the shape or as given (never 0).
 * @dims: shape, outermost first; unused trailing dims are 0.
 * @dtype: enum npa_ir_dtype; %NPA_IR_DTYPE_NONE has no dims.
 * @align: the alignment its place needs: its own and that of every
 *	compute unit that touches it, a power of two.
 * @flags: NPA_IR_* tensor flags.
 */
struct npa_ir_tensor {
	u64 size;
	u32 dims[NPA_IR_MAX_DIMS];
	u32 dtype;
	u32 align;
	u32 flags;
};

/**
 * struct npa_ir_op - one operator, with its operands resolved
 * @kind: enum npa_ir_kind.
 * @unit: the compute unit that runs it.
 * @flags: NPA_IR_INPLACE.
 * @first: index in &npa_ir.operands of its first input; its @num_in
 *	inputs and then its @num_out outputs follow.
 * @num_in: inputs.
 * @num_out: outputs.
 * @first_scratch: index of its first scratch request.
 * @num_scratch: scratch requests.
 * @params: per-kind parameters, NPA_IR_P_*.
 */
struct npa_ir_op {
	u32 kind;
	u32 unit;
	u32 flags;
	u32 first;
	u32 num_in;
	u32 num_out;
	u32 first_scratch;
	u32 num_scratch;
	s32 params[NPA_IR_MAX_PARAMS];
};

/**
 * struct npa_ir_scratch - a scratch buffer an operator asks for
 * @size: bytes wanted; for a variable request the most it can use.
 * @min_size: variable requests: the least it can work with, else 0.
 * @align: the alignment it needs: its own, else its op's unit's.
 * @flags: NPA_IR_VARIABLE, NPA_IR_LATENCY.
 */
struct npa_ir_scratch {
	u64 size;
	u64 min_size;
	u32 align;
	u32 flags;
};

/**
 * struct npa_ir_place - where a planned tensor or scratch buffer lives
 * @offset: bytes into the arena, %NPA_IR_NO_OFFSET for a tensor bound to
 *	a buffer of its own at submit.
 * @size: bytes (a tensor's rounded up to its alignment; the grant of a
 *	scratch request).
 * @lo: first op step at which it is live.
 * @hi: first op step after the last one it is live (half-open).
 * @buffer: the arena buffer it shares with others, %NPA_IR_NO_BUFFER if
 *	none.
 * @flags: NPA_IR_ARENA, NPA_IR_SCRATCH, NPA_IR_FAST.
 */
struct npa_ir_place {
	u64 offset;
	u64 size;
	u32 lo;
	u32 hi;
	u32 buffer;
	u32 flags;
};

/**
 * struct npa_ir - a validated graph
 * @tensors: the tensors, by id.
 * @ops: the operators, in execution order.
 * @operands: tensor ids: every op's inputs, then its outputs, op after op.
 * @scratch: the scratch requests; each op's are consecutive.
 * @num_tensors: entries in @tensors.
 * @num_ops: entries in @ops.
 * @num_operands: entries in @operands.
 * @num_scratch: entries in @scratch.
 * @runnable: every tensor has a shape, so every op can run on the NPU.
 */
struct npa_ir {
	struct npa_ir_tensor *tensors;
	struct npa_ir_op *ops;
	u32 *operands;
	struct npa_ir_scratch *scratch;
	u32 num_tensors;
	u32 num_ops;
	u32 num_operands;
	u32 num_scratch;
	bool runnable;
};

/* Input @k of @op. */
static inline u32 npa_ir_in(const struct npa_ir *ir, const struct npa_ir_op *op,
			    u32 k)
{
	return ir->operands[op->first + k];
}

/* Output @k of @op. */
static inline u32 npa_ir_out(const struct npa_ir *ir,
			     const struct npa_ir_op *op, u32 k)
{
	return ir->operands[op->first + op->num_in + k];
}

#endif /* __NPA_IR_H__ */
