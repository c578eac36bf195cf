/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npactl graphs: a growable in-memory model graph made of the uAPI arrays
 * (struct npa_tensor_desc, npa_op_desc, __u32 operands, npa_scratch_desc),
 * plus a name per tensor and per operator for messages, and the readers
 * that fill one from a file (graph_json.c, darknet.c).
 */
#ifndef _NPACTL_GRAPH_H_
#define _NPACTL_GRAPH_H_

#include <stdio.h>
#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/npa.h>

#include "npa_graph.h"

#ifndef __printf
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#endif

/* Names of the uAPI's enum values, index = value. */
extern const char *const npactl_act_names[NPA_ACT_COUNT];
extern const char *const npactl_op_kind_names[NPA_OP_KIND_COUNT];
extern const char *const npactl_unit_names[NPA_UNIT_COUNT];
extern const char *const npactl_dtype_names[NPA_DTYPE_COUNT];

/* Lookup in one of the tables above; -1 when @name is not there. */
int npactl_name_index(const char *const *names, unsigned int n,
		      const char *name);

/**
 * struct npactl_graph - a model graph being built
 * @tensors: tensor descriptors, @num_tensors of them.
 * @tensor_names: a name per tensor (for messages and output files).
 * @ops: operators in execution order, @num_ops of them.
 * @op_names: a name per operator.
 * @operands: tensor ids the operators index into.
 * @scratch: scratch requests; an operator's requests are consecutive.
 * @num_tensors: entries in @tensors.
 * @num_ops: entries in @ops.
 * @num_operands: entries in @operands.
 * @num_scratch: entries in @scratch.
 * @cap_tensors: allocated room in @tensors and @tensor_names.
 * @cap_ops: allocated room in @ops and @op_names.
 * @cap_operands: allocated room in @operands.
 * @cap_scratch: allocated room in @scratch.
 * @note: what the reader changed, e.g. the input resolution, or NULL.
 */
struct npactl_graph {
	struct npa_tensor_desc *tensors;
	char **tensor_names;
	struct npa_op_desc *ops;
	char **op_names;
	u32 *operands;
	struct npa_scratch_desc *scratch;
	u32 num_tensors;
	u32 num_ops;
	u32 num_operands;
	u32 num_scratch;
	u32 cap_tensors;
	u32 cap_ops;
	u32 cap_operands;
	u32 cap_scratch;
	char *note;
};

/**
 * struct npactl_op - an operator to add with npactl_graph_add_op()
 * @kind: enum npa_op_kind.
 * @unit: enum npa_unit.
 * @flags: NPA_OP_* bits.
 * @in: @num_in input tensor ids.
 * @out: @num_out output tensor ids.
 * @num_in: entries in @in.
 * @num_out: entries in @out.
 * @params: @num_params parameters, the rest are zero.
 * @num_params: at most NPA_OP_MAX_PARAMS.
 */
struct npactl_op {
	u32 kind;
	u32 unit;
	u32 flags;
	const u32 *in;
	const u32 *out;
	u32 num_in;
	u32 num_out;
	const s32 *params;
	u32 num_params;
};

void npactl_graph_init(struct npactl_graph *g);
void npactl_graph_free(struct npactl_graph *g);
int npactl_graph_add_tensor(struct npactl_graph *g, const char *name,
			    const struct npa_tensor_desc *t, u32 *id);
int npactl_graph_add_op(struct npactl_graph *g, const char *name,
			const struct npactl_op *op, u32 *id);
int npactl_graph_add_scratch(struct npactl_graph *g,
			     const struct npa_scratch_desc *s);
__printf(2, 3)
int npactl_graph_add_note(struct npactl_graph *g, const char *fmt, ...);
const char *npactl_graph_strerror(const struct npactl_graph *g, int err);
void npactl_graph_view(const struct npactl_graph *g, struct npa_graph *view);
/*
 * Print what npa_graph_validate() or the kernel refused in @g (a
 * &struct npa_error and the errno @ret) as one line on stderr.
 */
void npactl_graph_refused(const char *path, const struct npactl_graph *g,
			  const struct npa_error *err, int ret);

/* Bytes of one element of @dtype, 0 for NPA_DTYPE_NONE or unknown. */
u32 npactl_dtype_bytes(u32 dtype);
/* Bytes of @t: @t->size, or the product of its dims times the element. */
u64 npactl_tensor_bytes(const struct npa_tensor_desc *t);

/*
 * The im2col scratch a Darknet convolution asks for: a variable buffer of
 * at least one tile of output pixels or one output row, or the whole patch
 * matrix as one fixed buffer (Documentation/graphs.rst).
 */
enum npactl_im2col {
	NPACTL_IM2COL_TILE,
	NPACTL_IM2COL_ROW,
	NPACTL_IM2COL_FULL,
};

/* The --im2col values, for messages. */
#define NPACTL_IM2COL_NAMES	"tile, row, full"

/**
 * struct npactl_graph_opts - how to read a graph file
 * @width: input width to use instead of the file's, 0 to keep it.
 * @height: input height to use instead of the file's, 0 to keep it.
 * @im2col: Darknet: enum npactl_im2col.
 */
struct npactl_graph_opts {
	u32 width;
	u32 height;
	u32 im2col;
};

/* Parse an --im2col argument (NPACTL_IM2COL_NAMES) into @o. */
bool npactl_graph_parse_im2col(const char *s, struct npactl_graph_opts *o);

/* True when @path names a graph file (.json or .cfg) rather than a CSV. */
bool npactl_graph_is_graph(const char *path);

/*
 * Read @path into @g (initialised here).  Errors go to stderr as
 * "npactl: FILE: ..." and return a negative errno; @g is then empty.
 */
int npactl_graph_read(const char *path, const struct npactl_graph_opts *o,
		      struct npactl_graph *g);
int npactl_graph_read_json(const char *path, const struct npactl_graph_opts *o,
			   struct npactl_graph *g);
int npactl_graph_read_darknet(const char *path,
			      const struct npactl_graph_opts *o,
			      struct npactl_graph *g);

/**
 * struct npactl_graph_out - what `npactl plan` should produce for a graph
 * @json: print one JSON object instead of a summary.
 * @csv: write tensor placements as CSV to this file, or NULL.
 * @svg: draw the layout as SVG into this file, or NULL.
 * @budget: planner work budget, 0 for the default.
 * @scratch_growth_pct: &npa_graph_limits.scratch_growth_pct.
 */
struct npactl_graph_out {
	bool json;
	const char *csv;
	const char *svg;
	u64 budget;
	u32 scratch_growth_pct;
};

/* npactl graph: show a graph file or convert it to JSON. */
int npactl_cmd_graph(int argc, char **argv);

/* npactl plan on a graph file; returns an NPACTL_EXIT_* status. */
int npactl_graph_plan(const char *path, const struct npactl_graph_opts *o,
		      const struct npactl_graph_out *out);

/* Write @g as a JSON graph (Documentation/graph-json.rst). */
int npactl_graph_write_json(FILE *fp, const struct npactl_graph *g,
			    const char *name);

/* Draw @plan of @g, read from @input, as SVG into @path ('-': stdout). */
int npactl_svg_write(const char *path, const char *input,
		     const struct npactl_graph *g,
		     const struct npa_layout *plan,
		     const struct npa_graph_limits *lim);

/* Parse "N" or "WxH" into @o; false on junk. */
bool npactl_graph_parse_size(const char *s, bool wxh,
			     struct npactl_graph_opts *o);

#endif /* _NPACTL_GRAPH_H_ */
