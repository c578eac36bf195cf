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
int npa_exec_op(const struct npa_ir_op *op,
		const struct npa_exec_operand *in, u32 nin,
		const struct npa_exec_operand *out, u32 nout,
		const struct npa_exec_operand *scratch, u32 nscratch);
int npa_exec_run(const struct npa_ir_op *op,
		 const struct npa_exec_operand *in, u32 nin,
		 const struct npa_exec_operand *out, u32 nout,
		 const struct npa_exec_operand *scratch, u32 nscratch,
		 const struct npa_exec_stop *stop);
void npa_exec_im2col_bytes(const struct npa_ir_op *op,
			   const struct npa_ir_tensor *x,
			   const struct npa_ir_tensor *y,
			   u64 *full, u64 *pixel);

#endif /* __NPA_EXEC_H__ */
