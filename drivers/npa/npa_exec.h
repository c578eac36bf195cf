/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npa: operator kernels of the simulated NPU.
 *
 * Pure code, like the planner: no device and no locking, so that npactl's
 * reference executor builds the same file on the host.  See
 * Documentation/npu.rst for the exact semantics of every operator.
 */
#ifndef __NPA_EXEC_H__
#define __NPA_EXEC_H__

#include <linux/bits.h>
#include <linux/limits.h>
#include <linux/types.h>
#include "npa_ir.h"

/* Largest kernel size, stride, padding and upsample/reorg factor. */
#define NPA_EXEC_MAX_WINDOW	65535
/* Largest requantization shift (NPA_IR_P_SHIFT). */
#define NPA_EXEC_MAX_SHIFT	31
/* Work (multiply-adds, taps) between two calls of a stop hook. */
#define NPA_EXEC_STOP_WORK	BIT_ULL(18)

/**
 * struct npa_exec_operand - one tensor or scratch buffer of a running op
 * @ptr: its bytes; may be NULL only when @size is 0.
 * @size: bytes reachable at @ptr; at least the tensor's size.
 * @desc: the tensor's descriptor; NULL for scratch buffers.
 */
struct npa_exec_operand {
	void *ptr;
	u64 size;
	const struct npa_ir_tensor *desc;
};

/* &npa_exec_roles: no such scratch buffer. */
#define NPA_EXEC_NO_SCRATCH	U32_MAX

/**
 * struct npa_exec_roles - which scratch buffer of an operator does what
 * @col: the im2col buffer.
 * @stage: the weight staging buffer.
 * @acc: the accumulator.
 */
struct npa_exec_roles {
	u32 col;
	u32 stage;
	u32 acc;
};

/**
 * enum npa_exec_blame - what npa_exec_check_why() found wrong
 * @NPA_EXEC_BLAME_PARAMS: the params (a value out of range, or one the
 *	op's input cannot take, e.g. a kernel larger than the padded input).
 * @NPA_EXEC_BLAME_FLAGS: the flags (in place on a kind that cannot be).
 * @NPA_EXEC_BLAME_SIZE: the operand's bytes: @value, it needs @expected.
 * @NPA_EXEC_BLAME_DTYPE: the operand's dtype (bytes right): @value, it
 *	needs @expected.
 * @NPA_EXEC_BLAME_DIMS: the operand's dims (bytes and dtype right): the
 *	first one that differs, dims[@dim], is @value, it needs @expected.
 *
 * The first input and the params are taken as given; the other operands
 * must fit them (Documentation/uapi.rst, "Error reports").
 */
enum npa_exec_blame {
	NPA_EXEC_BLAME_PARAMS,
	NPA_EXEC_BLAME_FLAGS,
	NPA_EXEC_BLAME_SIZE,
	NPA_EXEC_BLAME_DTYPE,
	NPA_EXEC_BLAME_DIMS,
};

/**
 * struct npa_exec_fault - why npa_exec_check_why() refused an operator
 * @blame: enum npa_exec_blame.
 * @operand: the operand blamed, inputs then outputs (0 is the first
 *	input, nin the first output); 0 for the params and flags.
 * @dim: for %NPA_EXEC_BLAME_DIMS, the index of the dim blamed; else 0.
 * @value: what it is (see enum npa_exec_blame).
 * @expected: what it needs to be.
 */
struct npa_exec_fault {
	u32 blame;
	u32 operand;
	u32 dim;
	u64 value;
	u64 expected;
};

/**
 * struct npa_exec_stop - how a running operator learns it must stop
 * @stop: returns true to stop the operator; called in process context.
 * @priv: its argument.
 */
struct npa_exec_stop {
	bool (*stop)(void *priv);
	void *priv;
};

int npa_exec_check(const struct npa_ir_op *op,
		   const struct npa_ir_tensor *const *in, u32 nin,
		   const struct npa_ir_tensor *const *out, u32 nout);
int npa_exec_check_why(const struct npa_ir_op *op,
		       const struct npa_ir_tensor *const *in, u32 nin,
		       const struct npa_ir_tensor *const *out, u32 nout,
		       struct npa_exec_fault *fault);
int npa_exec_op(const struct npa_ir_op *op,
		const struct npa_exec_operand *in, u32 nin,
		const struct npa_exec_operand *out, u32 nout,
		const struct npa_exec_operand *scratch, u32 nscratch);
int npa_exec_run(const struct npa_ir_op *op,
		 const struct npa_exec_operand *in, u32 nin,
		 const struct npa_exec_operand *out, u32 nout,
		 const struct npa_exec_operand *scratch, u32 nscratch,
		 const struct npa_exec_stop *stop);
bool npa_exec_weight_stationary(u64 pixels, u64 tile, u64 filters,
				u64 chunk);
void npa_exec_roles(const struct npa_ir_op *op, bool im2col, u32 nscratch,
		    struct npa_exec_roles *r);
void npa_exec_im2col_bytes(const struct npa_ir_op *op,
			   const struct npa_ir_tensor *x,
			   const struct npa_ir_tensor *y,
			   u64 *full, u64 *pixel);

#endif /* __NPA_EXEC_H__ */
