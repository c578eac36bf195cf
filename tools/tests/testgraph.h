/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The small runnable graph the QEMU tests share:
 * x (input) -relu-> a -leaky (in place if asked)-> b; y (output) = add(b, x),
 * all [1, 4, 8, 8] int8, so y = clamp(max(x, 0) + x).  Optionally the relu
 * asks for a fixed and a variable scratch buffer.
 */
#ifndef NPA_TESTGRAPH_H
#define NPA_TESTGRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "libnpa.h"

#define N 256		/* bytes of each tensor */

static struct npa_tensor_desc tensors[4];
static struct npa_op_desc ops[3];
static __u32 operands[] = { 0, 1, 1, 2, 2, 0, 3 };
static struct npa_scratch_desc scratch[] = {
	{ .size = 4096 },
	{ .size = 8192, .min_size = 64, .flags = NPA_SCRATCH_VARIABLE },
};
static struct npa_graph_desc graph = { tensors, ops, operands, scratch, 4, 3, 7, 0 };

static inline void graph_init_opts(bool inplace, bool with_scratch)
{
	int i;

	for (i = 0; i < 4; i++)
		tensors[i] = (struct npa_tensor_desc){ .dims = { 1, 4, 8, 8 },
						       .dtype = NPA_DTYPE_INT8 };
	tensors[0].flags = NPA_TENSOR_INPUT;
	tensors[3].flags = NPA_TENSOR_OUTPUT;
	ops[0] = (struct npa_op_desc){ .kind = NPA_OP_ACTIVATION, .num_inputs = 1,
		.first_output = 1, .num_outputs = 1,
		.num_scratch = with_scratch ? 2 : 0,
		.params = { [NPA_P_ACT] = NPA_ACT_RELU } };
	ops[1] = (struct npa_op_desc){ .kind = NPA_OP_ACTIVATION,
		.flags = inplace ? NPA_OP_INPLACE : 0, .first_input = 2,
		.num_inputs = 1, .first_output = 3, .num_outputs = 1,
		.params = { [NPA_P_ACT] = NPA_ACT_LEAKY } };
	ops[2] = (struct npa_op_desc){ .kind = NPA_OP_ADD, .first_input = 4,
		.num_inputs = 2, .first_output = 6, .num_outputs = 1 };
	graph.num_scratch = with_scratch ? 2 : 0;
}

/* What the graph computes for one input byte. */
static inline int graph_expect(int8_t x)
{
	int v = (x > 0 ? x : 0) + x;

	return v > 127 ? 127 : v < -128 ? -128 : v;
}

#endif
