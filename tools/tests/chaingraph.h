/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A chain of @n int8 tensors of [1, 4, 8, 8] joined by n - 1 ReLUs, the
 * first an input and the last an output: a graph as long as a test needs,
 * whose every other tensor is in the arena.
 */
#ifndef NPA_CHAINGRAPH_H
#define NPA_CHAINGRAPH_H

#include "libnpa.h"

/* @t: @n tensors; @o: n - 1 ops; @ids: 2 * (n - 1) operand ids. */
static inline struct npa_graph_desc chain_graph(struct npa_tensor_desc *t,
						struct npa_op_desc *o,
						__u32 *ids, __u32 n)
{
	__u32 i;

	for (i = 0; i < n; i++)
		t[i] = (struct npa_tensor_desc){ .dims = { 1, 4, 8, 8 },
						 .dtype = NPA_DTYPE_INT8 };
	t[0].flags = NPA_TENSOR_INPUT;
	t[n - 1].flags = NPA_TENSOR_OUTPUT;
	for (i = 0; i < n - 1; i++) {
		ids[2 * i] = i;
		ids[2 * i + 1] = i + 1;
		o[i] = (struct npa_op_desc){ .kind = NPA_OP_ACTIVATION,
			.first_input = 2 * i, .num_inputs = 1,
			.first_output = 2 * i + 1, .num_outputs = 1,
			.params = { [NPA_P_ACT] = NPA_ACT_RELU } };
	}
	return (struct npa_graph_desc){ t, o, ids, NULL, n, n - 1, 2 * (n - 1), 0 };
}

#endif
