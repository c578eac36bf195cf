// SPDX-License-Identifier: GPL-2.0-only
/*
 * DOC: npactl graph
 *
 * A model graph held as the uAPI arrays that NPA_IOCTL_MODEL_CREATE and
 * npa_graph_validate() take, grown one tensor, operator or scratch request
 * at a time by the file readers, with a name per tensor and operator so
 * that messages can say which one is meant.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/libnpa.h"
#include "npactl.h"
#include "graph.h"

const char *const npactl_act_names[NPA_ACT_COUNT] = {
	[NPA_ACT_LINEAR] = "linear",
	[NPA_ACT_RELU] = "relu",
	[NPA_ACT_LEAKY] = "leaky",
	[NPA_ACT_LOGISTIC] = "logistic",
};

const char *const npactl_op_kind_names[NPA_OP_KIND_COUNT] = {
	[NPA_OP_CONV2D] = "conv2d",
	[NPA_OP_DWCONV2D] = "dwconv2d",
	[NPA_OP_MAXPOOL] = "maxpool",
	[NPA_OP_AVGPOOL] = "avgpool",
	[NPA_OP_ADD] = "add",
	[NPA_OP_MUL] = "mul",
	[NPA_OP_ACTIVATION] = "activation",
	[NPA_OP_CONCAT] = "concat",
	[NPA_OP_RESHAPE] = "reshape",
	[NPA_OP_SPLIT] = "split",
	[NPA_OP_UPSAMPLE] = "upsample",
	[NPA_OP_COPY] = "copy",
	[NPA_OP_FC] = "fc",
	[NPA_OP_REORG] = "reorg",
};

const char *const npactl_unit_names[NPA_UNIT_COUNT] = {
	[NPA_UNIT_NPU] = "npu",
	[NPA_UNIT_DMA] = "dma",
	[NPA_UNIT_CPU] = "cpu",
};

const char *const npactl_dtype_names[NPA_DTYPE_COUNT] = {
	[NPA_DTYPE_NONE] = "none",
	[NPA_DTYPE_INT8] = "int8",
	[NPA_DTYPE_UINT8] = "uint8",
	[NPA_DTYPE_INT16] = "int16",
	[NPA_DTYPE_INT32] = "int32",
};

int npactl_name_index(const char *const *names, unsigned int n,
		      const char *name)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], name))
			return i;
	return -1;
}

u32 npactl_dtype_bytes(u32 dtype)
{
	switch (dtype) {
	case NPA_DTYPE_INT8:
	case NPA_DTYPE_UINT8:
		return 1;
	case NPA_DTYPE_INT16:
		return 2;
	case NPA_DTYPE_INT32:
		return 4;
	default:
		return 0;
	}
}

u64 npactl_tensor_bytes(const struct npa_tensor_desc *t)
{
	u64 n = npactl_dtype_bytes(t->dtype);
	int i;

	if (t->size || !n)
		return t->size;
	for (i = 0; i < NPA_MAX_DIMS && t->dims[i]; i++)
		if (__builtin_mul_overflow(n, t->dims[i], &n))
			return 0;
	return i ? n : 0;
}

void npactl_graph_init(struct npactl_graph *g)
{
	memset(g, 0, sizeof(*g));
}

static void free_names(char **names, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

void npactl_graph_free(struct npactl_graph *g)
{
	free(g->tensors);
	free_names(g->tensor_names, g->num_tensors);
	free(g->ops);
	free_names(g->op_names, g->num_ops);
	free(g->operands);
	free(g->scratch);
	free(g->note);
	npactl_graph_init(g);
}

/*
 * Make room for @more entries of @size bytes after @n in *@arr, up to
 * @max: the kernel's limit for the array (npa_graph_default_limits), which
 * npa_graph_validate() applies anyway, so that a small file cannot make the
 * reader build a graph that big first.
 */
static int grow(void **arr, size_t size, u32 n, u32 more, u32 max, u32 *cap)
{
	u32 want, ncap;
	void *p;

	if (__builtin_add_overflow(n, more, &want) || want > max)
		return -E2BIG;
	if (want <= *cap)
		return 0;
	ncap = *cap ? *cap : 16;
	while (ncap < want)
		ncap = ncap > max / 2 ? max : ncap * 2;
	p = realloc(*arr, (size_t)ncap * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

/*
 * Tensors and their names grow together; the names array is grown first
 * with a private capacity so that a failure leaves both consistent.
 */
static int grow_named(void **arr, size_t size, char ***names, u32 n, u32 max,
		      u32 *cap)
{
	u32 ncap = *cap;
	int ret;

	ret = grow((void **)names, sizeof(**names), n, 1, max, &ncap);
	if (ret)
		return ret;
	ncap = *cap;
	ret = grow(arr, size, n, 1, max, &ncap);
	if (ret)
		return ret;
	*cap = ncap;
	return 0;
}

int npactl_graph_add_tensor(struct npactl_graph *g, const char *name,
			    const struct npa_tensor_desc *t, u32 *id)
{
	char *dup;
	int ret;

	ret = grow_named((void **)&g->tensors, sizeof(*g->tensors),
			 &g->tensor_names, g->num_tensors,
			 npa_graph_default_limits.max_tensors, &g->cap_tensors);
	if (ret)
		return ret;
	dup = strdup(name ? name : "");
	if (!dup)
		return -ENOMEM;
	g->tensors[g->num_tensors] = *t;
	g->tensor_names[g->num_tensors] = dup;
	if (id)
		*id = g->num_tensors;
	g->num_tensors++;
	return 0;
}

int npactl_graph_add_op(struct npactl_graph *g, const char *name,
			const struct npactl_op *op, u32 *id)
{
	struct npa_op_desc *d;
	u32 operands;
	char *dup;
	int ret;

	if (op->num_params > NPA_OP_MAX_PARAMS)
		return -EINVAL;
	if (__builtin_add_overflow(op->num_in, op->num_out, &operands))
		return -E2BIG;
	ret = grow((void **)&g->operands, sizeof(*g->operands),
		   g->num_operands, operands,
		   npa_graph_default_limits.max_operands, &g->cap_operands);
	if (ret)
		return ret;
	ret = grow_named((void **)&g->ops, sizeof(*g->ops), &g->op_names,
			 g->num_ops, npa_graph_default_limits.max_ops,
			 &g->cap_ops);
	if (ret)
		return ret;
	dup = strdup(name ? name : "");
	if (!dup)
		return -ENOMEM;

	d = &g->ops[g->num_ops];
	memset(d, 0, sizeof(*d));
	d->kind = op->kind;
	d->unit = op->unit;
	d->flags = op->flags;
	d->first_input = g->num_operands;
	d->num_inputs = op->num_in;
	if (op->num_in)
		memcpy(&g->operands[g->num_operands], op->in,
		       op->num_in * sizeof(*op->in));
	g->num_operands += op->num_in;
	d->first_output = g->num_operands;
	d->num_outputs = op->num_out;
	if (op->num_out)
		memcpy(&g->operands[g->num_operands], op->out,
		       op->num_out * sizeof(*op->out));
	g->num_operands += op->num_out;
	d->first_scratch = g->num_scratch;
	if (op->num_params)
		memcpy(d->params, op->params,
		       op->num_params * sizeof(*op->params));
	g->op_names[g->num_ops] = dup;
	if (id)
		*id = g->num_ops;
	g->num_ops++;
	return 0;
}

/* Adds @s to the scratch requests of the last operator added. */
int npactl_graph_add_scratch(struct npactl_graph *g,
			     const struct npa_scratch_desc *s)
{
	struct npa_op_desc *d;
	int ret;

	if (!g->num_ops)
		return -EINVAL;
	d = &g->ops[g->num_ops - 1];
	ret = grow((void **)&g->scratch, sizeof(*g->scratch), g->num_scratch,
		   1, npa_graph_default_limits.max_scratch, &g->cap_scratch);
	if (ret)
		return ret;
	g->scratch[g->num_scratch++] = *s;
	d->num_scratch++;
	return 0;
}

/*
 * What a failed npactl_graph_add_*() call's @err means: -E2BIG says which
 * of the kernel's graph limits the graph would have gone past.
 */
const char *npactl_graph_strerror(const struct npactl_graph *g, int err)
{
	const struct npa_graph_limits *lim = &npa_graph_default_limits;
	const struct {
		unsigned int count, max;
		const char *what;
	} full[] = {
		{ g->num_tensors, lim->max_tensors, "tensors" },
		{ g->num_ops, lim->max_ops, "operators" },
		{ g->num_scratch, lim->max_scratch, "scratch requests" },
		{ g->num_operands, lim->max_operands, "operands" },
	};
	static char buf[96];
	size_t i;

	if (err != -E2BIG)
		return strerror(-err);
	/* The last row is what is left when no other limit was reached. */
	for (i = 0; i < ARRAY_SIZE(full) - 1; i++)
		if (full[i].count >= full[i].max)
			break;
	snprintf(buf, sizeof(buf), "more than the kernel's %u %s in one graph",
		 full[i].max, full[i].what);
	return buf;
}

/* Appends a sentence to the note that says what the reader changed. */
int npactl_graph_add_note(struct npactl_graph *g, const char *fmt, ...)
{
	va_list ap;
	char *s, *n;
	int ret;

	va_start(ap, fmt);
	ret = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (ret < 0)
		return -ENOMEM;
	if (g->note) {
		ret = asprintf(&n, "%s; %s", g->note, s);
		free(s);
		if (ret < 0)
			return -ENOMEM;
		s = n;
	}
	free(g->note);
	g->note = s;
	return 0;
}

void npactl_graph_view(const struct npactl_graph *g, struct npa_graph *view)
{
	view->tensors = g->tensors;
	view->ops = g->ops;
	view->operands = g->operands;
	view->scratch = g->scratch;
	view->num_tensors = g->num_tensors;
	view->num_ops = g->num_ops;
	view->num_operands = g->num_operands;
	view->num_scratch = g->num_scratch;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcasecmp(s + n - m, suffix);
}

bool npactl_graph_is_graph(const char *path)
{
	return ends_with(path, ".json") || ends_with(path, ".cfg");
}

int npactl_graph_read(const char *path, const struct npactl_graph_opts *o,
		      struct npactl_graph *g)
{
	if (ends_with(path, ".json"))
		return npactl_graph_read_json(path, o, g);
	if (ends_with(path, ".cfg"))
		return npactl_graph_read_darknet(path, o, g);
	fprintf(stderr, "npactl: %s: not a .json or .cfg graph\n", path);
	return -EINVAL;
}

bool npactl_graph_parse_im2col(const char *s, struct npactl_graph_opts *o)
{
	static const char *const names[] = {
		[NPACTL_IM2COL_TILE] = "tile",
		[NPACTL_IM2COL_ROW] = "row",
		[NPACTL_IM2COL_FULL] = "full",
	};
	int i = npactl_name_index(names, ARRAY_SIZE(names), s);

	if (i < 0)
		return false;
	o->im2col = i;
	return true;
}

bool npactl_graph_parse_size(const char *s, bool wxh,
			     struct npactl_graph_opts *o)
{
	unsigned long w, h;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	w = strtoul(s, &end, 10);
	if (wxh) {
		if (*end != 'x' || end[1] < '0' || end[1] > '9')
			return false;
		h = strtoul(end + 1, &end, 10);
	} else {
		h = w;
	}
	if (*end || !w || !h || w > 65536 || h > 65536)
		return false;
	o->width = w;
	o->height = h;
	return true;
}

/* The operator that owns scratch request @idx, or NPA_ERR_NO_INDEX. */
static u32 npactl_scratch_owner(const struct npactl_graph *g, u32 idx)
{
	u32 i;

	for (i = 0; i < g->num_ops; i++)
		if (idx >= g->ops[i].first_scratch &&
		    idx - g->ops[i].first_scratch < g->ops[i].num_scratch)
			return i;
	return NPA_ERR_NO_INDEX;
}

/*
 * "npactl: FILE: invalid graph: what is wrong, in libnpa's words [op
 * 'name', tensor 'name'] (ERRNO)": npactl plan prints npa_graph_validate()'s
 * report with it, npactl run the kernel's (from the same code), so that
 * one bad graph gets one sentence on the host and on the device.
 */
void npactl_graph_refused(const char *path, const struct npactl_graph *g,
			  const struct npa_error *err, int ret)
{
	struct npa_graph_desc gd = {
		.tensors = g->tensors, .ops = g->ops, .operands = g->operands,
		.scratch = g->scratch, .num_tensors = g->num_tensors,
		.num_ops = g->num_ops, .num_operands = g->num_operands,
		.num_scratch = g->num_scratch,
	};
	struct npa_error e = *err;
	const char *what = "invalid graph";
	char why[256];

	if (e.array == NPA_ERR_ARRAY_PLAN_TENSORS ||
	    e.array == NPA_ERR_ARRAY_PLAN_SCRATCH)
		what = "invalid plan";
	else if (e.array == NPA_ERR_ARRAY_BINDINGS)
		what = "job refused";
	if (e.array == NPA_ERR_ARRAY_SCRATCH && e.index < g->num_scratch)
		e.op = npactl_scratch_owner(g, e.index);
	fprintf(stderr, "npactl: %s: %s: %s", path, what,
		npa_error_str_graph(&e, &gd, why, sizeof(why)));
	if (e.op < g->num_ops && e.tensor < g->num_tensors)
		fprintf(stderr, " [op '%s', tensor '%s']", g->op_names[e.op],
			g->tensor_names[e.tensor]);
	else if (e.op < g->num_ops)
		fprintf(stderr, " [op '%s']", g->op_names[e.op]);
	else if (e.tensor < g->num_tensors)
		fprintf(stderr, " [tensor '%s']", g->tensor_names[e.tensor]);
	fprintf(stderr, " (%s)\n", strerrorname_np(-ret) ?: strerror(-ret));
}
