// SPDX-License-Identifier: GPL-2.0-only
/*
 * DOC: Darknet networks
 *
 * Reads a Darknet network description (.cfg, as shipped in Debian's darknet
 * package) and builds the graph an NPU would run for one image: int8 NCHW
 * activations, int8 weights and int32 biases (batch normalisation folded
 * into them), one operator per layer plus an in-place ACTIVATION operator
 * where the layer has a non-linear activation, and the scratch buffers the
 * operators would ask for.  Output shapes follow Darknet's own parser
 * (src/parser.c and the make_*_layer() functions).  The mapping and the
 * scratch model are described in Documentation/graphs.rst.
 *
 * Layers are numbered from 0 after the [net] section, as Darknet does.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "npactl.h"
#include "graph.h"

/* Scratch model, see Documentation/graphs.rst. */
/* im2col and weight staging buffers are read by the MAC array in bursts. */
#define DN_SCRATCH_ALIGN	64
/* Output pixels the MAC array computes at once: the least im2col work. */
#define DN_TILE_PIXELS		16
/*
 * Convolutions through a variable im2col buffer with at least this many
 * weight bytes stage them on chip: they read their weights once per tile.
 */
#define DN_WEIGHT_STAGING_MIN	(64 * 1024)
/* The NPU's accumulator: an int64 sum per output channel. */
#define DN_ACC_BYTES		8

struct dn_opt {
	char *key;
	char *val;
	unsigned int line;
};

struct dn_sect {
	char *type;		/* "[convolutional]", brackets included */
	unsigned int line;
	struct dn_opt *opts;
	u32 num_opts;
};

/* What a layer produced: its output tensor and its shape. */
struct dn_layer {
	u32 t;
	u32 h, w, c;
};

struct dn {
	const char *path;
	u32 im2col;		/* enum npactl_im2col */
	struct npactl_graph *g;
	struct dn_sect *sects;
	u32 num_sects;
	struct dn_layer *layers;
	u32 num_layers;		/* layers done so far */
	u32 index;		/* the layer being built */
	struct dn_sect *s;	/* its section */
	struct dn_layer in;	/* its input: the previous layer's output */
};

static __printf(2, 3) int dn_err(struct dn *d, const char *fmt, ...);

static int dn_err(struct dn *d, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "npactl: %s: ", d->path);
	if (d->s && d->s != d->sects)
		fprintf(stderr, "layer %u: ", d->index);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EINVAL;
}

static void dn_free_sects(struct dn *d)
{
	u32 i, j;

	for (i = 0; i < d->num_sects; i++) {
		for (j = 0; j < d->sects[i].num_opts; j++) {
			free(d->sects[i].opts[j].key);
			free(d->sects[i].opts[j].val);
		}
		free(d->sects[i].opts);
		free(d->sects[i].type);
	}
	free(d->sects);
}

/* Drops every blank, as Darknet's strip() does. */
static void dn_strip(char *s)
{
	char *o = s;

	for (; *s; s++)
		if (!isspace((unsigned char)*s))
			*o++ = *s;
	*o = '\0';
}

static int dn_add_sect(struct dn *d, const char *type, unsigned int line)
{
	struct dn_sect *p;

	p = reallocarray(d->sects, d->num_sects + 1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	d->sects = p;
	p = &d->sects[d->num_sects];
	memset(p, 0, sizeof(*p));
	p->line = line;
	p->type = strdup(type);
	if (!p->type)
		return -ENOMEM;
	d->num_sects++;
	return 0;
}

static int dn_add_opt(struct dn_sect *s, const char *key, const char *val,
		      unsigned int line)
{
	struct dn_opt *p;

	p = reallocarray(s->opts, s->num_opts + 1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	s->opts = p;
	p = &s->opts[s->num_opts];
	p->key = strdup(key);
	p->val = strdup(val);
	p->line = line;
	if (!p->key || !p->val) {
		free(p->key);
		free(p->val);
		return -ENOMEM;
	}
	s->num_opts++;
	return 0;
}

static int dn_read_file(struct dn *d)
{
	unsigned int lineno = 0;
	char *line = NULL, *eq;
	size_t len = 0;
	int ret = 0;
	FILE *fp;

	fp = fopen(d->path, "r");
	if (!fp) {
		ret = -errno;
		fprintf(stderr, "npactl: %s: %s\n", d->path, strerror(errno));
		return ret;
	}
	while (getline(&line, &len, fp) >= 0) {
		lineno++;
		dn_strip(line);
		if (!*line || *line == '#' || *line == ';')
			continue;
		if (*line == '[') {
			if (line[strlen(line) - 1] != ']') {
				ret = dn_err(d, "line %u: bad section header '%s'",
					     lineno, line);
				break;
			}
			ret = dn_add_sect(d, line, lineno);
		} else {
			eq = strchr(line, '=');
			if (!eq || eq == line) {
				ret = dn_err(d, "line %u: expected key=value, found '%s'",
					     lineno, line);
				break;
			}
			if (!d->num_sects) {
				ret = dn_err(d, "line %u: option before the first section",
					     lineno);
				break;
			}
			*eq = '\0';
			ret = dn_add_opt(&d->sects[d->num_sects - 1], line,
					 eq + 1, lineno);
		}
		if (ret)
			break;
	}
	if (!ret && ferror(fp))
		ret = dn_err(d, "read error");
	free(line);
	fclose(fp);
	return ret;
}

static const struct dn_opt *dn_find(struct dn *d, const char *key)
{
	u32 i;

	/* Darknet uses the first occurrence of a key. */
	for (i = 0; i < d->s->num_opts; i++)
		if (!strcmp(d->s->opts[i].key, key))
			return &d->s->opts[i];
	return NULL;
}

static int dn_int(struct dn *d, const char *key, int def, int *out)
{
	const struct dn_opt *o = dn_find(d, key);
	char *end;
	long v;

	if (!o) {
		*out = def;
		return 0;
	}
	errno = 0;
	v = strtol(o->val, &end, 10);
	/* Darknet reads integers with atoi(): "1.0" is 1. */
	if (end == o->val || errno || v < -(1L << 30) || v > (1L << 30) ||
	    (*end && *end != '.'))
		return dn_err(d, "line %u: %s=%s is not an integer", o->line,
			      key, o->val);
	*out = v;
	return 0;
}

/* An integer option that must be in [@min, @max]. */
static int dn_range(struct dn *d, const char *key, int def, int min, int max,
		    int *out)
{
	int ret = dn_int(d, key, def, out);

	if (ret)
		return ret;
	if (*out < min || *out > max)
		return dn_err(d, "%s=%d out of range [%d, %d]", key, *out, min,
			      max);
	return 0;
}

/* The layer's activation, one the NPU has (enum npa_act). */
static int dn_act(struct dn *d, const char *def, u32 *act)
{
	const struct dn_opt *o = dn_find(d, "activation");
	const char *name = o ? o->val : def;
	int i;

	i = npactl_name_index(npactl_act_names, NPA_ACT_COUNT, name);
	if (i < 0)
		return dn_err(d, "activation=%s has no NPU operator (linear, relu, leaky, logistic)",
			      name);
	*act = i;
	return 0;
}

/*
 * The requantization shift that keeps an output's spread close to its
 * input's with int8 weights: 6 + ceil(log2(@fan_in) / 2), see
 * Documentation/npu.rst.
 */
static s32 dn_shift(u64 fan_in)
{
	s32 k = 0;

	while (k < 25 && (1ULL << (2 * k)) < fan_in)
		k++;
	return 6 + k;
}

/* @a x @b bytes of @what, refused when that is past 64 bits. */
static int dn_mul(struct dn *d, const char *what, u64 a, u64 b, u64 *bytes)
{
	if (__builtin_mul_overflow(a, b, bytes))
		return dn_err(d, "%s of %llu x %llu bytes overflows 64 bits",
			      what, a, b);
	return 0;
}

static u64 dn_elems(const struct dn_layer *l)
{
	return (u64)l->h * l->w * l->c;
}

/* Adds a tensor of @dtype named after the layer and @what. */
static int dn_tensor(struct dn *d, const char *what, u32 dtype, u32 flags,
		     u32 d0, u32 d1, u32 d2, u32 d3, u32 *id)
{
	struct npa_tensor_desc t = {
		.dims = { d0, d1, d2, d3 },
		.dtype = dtype,
		.flags = flags,
	};
	char name[64];
	int ret;

	snprintf(name, sizeof(name), "l%u.%s", d->index, what);
	ret = npactl_graph_add_tensor(d->g, name, &t, id);
	if (ret)
		return dn_err(d, "%s", npactl_graph_strerror(d->g, ret));
	return 0;
}

/*
 * An output tensor of the layer being built: [1, c, h, w] int8 (NCHW).
 * The sizes are taken in 64 bits so that a layer that grows its input
 * past 32 bits is refused rather than wrapped.
 */
static int dn_output(struct dn *d, const char *what, u64 h, u64 w, u64 c,
		     struct dn_layer *out)
{
	u64 bytes;
	int ret;

	if (!h || !w || !c)
		return dn_err(d, "empty output %llux%llux%llu (input %ux%ux%u too small?)",
			      w, h, c, d->in.w, d->in.h, d->in.c);
	if (h > U32_MAX || w > U32_MAX || c > U32_MAX)
		return dn_err(d, "%s output %llux%llux%llu: a dimension above %u",
			      what, w, h, c, U32_MAX);
	ret = dn_mul(d, "output", h, w, &bytes);
	ret = ret ?: dn_mul(d, "output", bytes, c, &bytes);
	if (ret)
		return ret;
	out->h = h;
	out->w = w;
	out->c = c;
	return dn_tensor(d, what, NPA_DTYPE_INT8, 0, 1, c, h, w, &out->t);
}

static int dn_op(struct dn *d, const char *what, u32 kind, u32 unit,
		 u32 flags, const u32 *in, u32 num_in, const u32 *out,
		 u32 num_out, const s32 *params, u32 num_params)
{
	struct npactl_op op = {
		.kind = kind,
		.unit = unit,
		.flags = flags,
		.in = in,
		.num_in = num_in,
		.out = out,
		.num_out = num_out,
		.params = params,
		.num_params = num_params,
	};
	char name[80];
	int ret;

	snprintf(name, sizeof(name), "layer %u %s", d->index, what);
	ret = npactl_graph_add_op(d->g, name, &op, NULL);
	if (ret)
		return dn_err(d, "%s", npactl_graph_strerror(d->g, ret));
	return 0;
}

/* A scratch request of the operator added last. */
static int dn_scratch(struct dn *d, u64 size, u64 min_size, u32 align,
		      u32 flags)
{
	struct npa_scratch_desc s = {
		.size = size,
		.min_size = min_size,
		.align = align,
		.flags = flags,
	};
	int ret;

	if (!size)
		return 0;
	ret = npactl_graph_add_scratch(d->g, &s);
	if (ret)
		return dn_err(d, "%s", npactl_graph_strerror(d->g, ret));
	return 0;
}

/*
 * A non-linear activation runs as its own operator, in place: it reads the
 * layer's raw output and may write its result over it.
 */
static int dn_activation(struct dn *d, u32 act, u32 unit,
			 struct dn_layer *l)
{
	s32 param[NPA_P_ACT + 1] = { [NPA_P_ACT] = act };
	struct dn_layer out;
	int ret;

	if (act == NPA_ACT_LINEAR)
		return 0;
	ret = dn_output(d, npactl_act_names[act], l->h, l->w, l->c, &out);
	if (ret)
		return ret;
	ret = dn_op(d, npactl_act_names[act], NPA_OP_ACTIVATION, unit,
		    NPA_OP_INPLACE, &l->t, 1, &out.t, 1, param, ARRAY_SIZE(param));
	if (ret)
		return ret;
	*l = out;
	return 0;
}

/*
 * Weight staging: all weights at most, and at least one burst, less than a
 * filter, which the NPU does not use (it then reads the weights in place):
 * scratch placement grants staging only where it saves cycles, and staging
 * outside the fast window would cost some.  Asked for only where it can
 * save anything: a convolution through an im2col buffer that may hold
 * less than all its patches reads its weights once per tile, and staged
 * they are read from the fast window instead.  A 1x1 convolution, an FC
 * layer, or a convolution with its whole im2col matrix reads its weights
 * once, and staging would only copy them on the way.
 */
static int dn_weight_staging(struct dn *d, u64 weights, u64 one, bool tiled)
{
	if (!tiled || weights < DN_WEIGHT_STAGING_MIN)
		return 0;
	return dn_scratch(d, weights, min_t(u64, one, DN_SCRATCH_ALIGN),
			  DN_SCRATCH_ALIGN,
			  NPA_SCRATCH_VARIABLE | NPA_SCRATCH_LATENCY);
}

static int dn_convolutional(struct dn *d, struct dn_layer *l)
{
	int filters, size, stride, pad, padding, groups, bn;
	u64 weights, one, im2col, pixels, tile, ph, pw;
	s32 p[NPA_OP_MAX_PARAMS] = { };
	u32 act, kind, ids[3];
	struct dn_layer out;
	int ret;

	ret = dn_range(d, "filters", 1, 1, 1 << 20, &filters);
	ret = ret ?: dn_range(d, "size", 1, 1, 1 << 10, &size);
	ret = ret ?: dn_range(d, "stride", 1, 1, 1 << 10, &stride);
	ret = ret ?: dn_range(d, "pad", 0, 0, 1 << 10, &pad);
	ret = ret ?: dn_range(d, "padding", 0, 0, 1 << 10, &padding);
	ret = ret ?: dn_range(d, "groups", 1, 1, 1 << 20, &groups);
	ret = ret ?: dn_int(d, "batch_normalize", 0, &bn);
	ret = ret ?: dn_act(d, "logistic", &act);
	if (ret)
		return ret;
	if (pad)
		padding = size / 2;
	if (d->in.c % groups || filters % groups)
		return dn_err(d, "groups=%d does not divide %u channels and %d filters",
			      groups, d->in.c, filters);
	/* The padded input, in 64 bits: the input may be near U32_MAX. */
	ph = (u64)d->in.h + 2 * padding;
	pw = (u64)d->in.w + 2 * padding;
	if (ph < (u32)size || pw < (u32)size)
		return dn_err(d, "%dx%d kernel larger than the padded %ux%u input",
			      size, size, d->in.w, d->in.h);
	ret = dn_output(d, "conv", (ph - size) / stride + 1,
			(pw - size) / stride + 1, filters, &out);
	if (ret)
		return ret;

	/* Weights OIHW, batch normalisation folded into them and the bias. */
	kind = groups > 1 && (u32)groups == d->in.c && groups == filters ?
	       NPA_OP_DWCONV2D : NPA_OP_CONV2D;
	ids[0] = d->in.t;
	ret = dn_tensor(d, "weights", NPA_DTYPE_INT8, NPA_TENSOR_CONST, filters,
			d->in.c / groups, size, size, &ids[1]);
	ret = ret ?: dn_tensor(d, "bias", NPA_DTYPE_INT32, NPA_TENSOR_CONST,
			       filters, 0, 0, 0, &ids[2]);
	if (ret)
		return ret;
	p[NPA_P_KH] = size;
	p[NPA_P_KW] = size;
	p[NPA_P_SH] = stride;
	p[NPA_P_SW] = stride;
	p[NPA_P_PAD_T] = padding;
	p[NPA_P_PAD_L] = padding;
	p[NPA_P_GROUPS] = groups;
	p[NPA_P_SHIFT] = dn_shift((u64)size * size * (d->in.c / groups));
	ret = dn_op(d, "convolutional", kind, NPA_UNIT_NPU, 0, ids, 3, &out.t,
		    1, p, ARRAY_SIZE(p));
	if (ret)
		return ret;

	/*
	 * Scratch: first (the NPU uses scratch[0] so) the im2col patch matrix
	 * when a pixel is not its own patch, whole, or in pieces of any size
	 * from one tile of output pixels (or one output row) up; the weights
	 * staged on chip for big layers read once per tile; the accumulator row (an int64 sum per
	 * output channel).
	 */
	one = (u64)size * size * (d->in.c / groups);	/* below 2^52 */
	pixels = (u64)out.h * out.w;
	tile = min_t(u64, pixels, d->im2col == NPACTL_IM2COL_ROW ?
		     out.w : DN_TILE_PIXELS);
	im2col = 0;
	ret = dn_mul(d, "weight staging scratch", one, filters, &weights);
	if (size > 1 || stride > 1)
		ret = ret ?: dn_mul(d, "im2col scratch", one, pixels, &im2col);
	if (ret)
		return ret;
	/* No more than one * pixels, which did not overflow. */
	if (d->im2col == NPACTL_IM2COL_FULL)
		ret = dn_scratch(d, im2col, 0, DN_SCRATCH_ALIGN, 0);
	else
		ret = dn_scratch(d, im2col, im2col ? one * tile : 0,
				 DN_SCRATCH_ALIGN, NPA_SCRATCH_VARIABLE);
	ret = ret ?: dn_weight_staging(d, weights, one,
				       im2col && d->im2col != NPACTL_IM2COL_FULL);
	ret = ret ?: dn_scratch(d, DN_ACC_BYTES * out.c, 0, 0, 0);
	if (ret)
		return ret;

	*l = out;
	return dn_activation(d, act, NPA_UNIT_NPU, l);
}

static int dn_connected(struct dn *d, struct dn_layer *l)
{
	s32 p[NPA_OP_MAX_PARAMS] = { };
	struct dn_layer out;
	int outputs, bn;
	u32 act, ids[3];
	u64 inputs = dn_elems(&d->in);
	int ret;

	ret = dn_range(d, "output", 1, 1, 1 << 24, &outputs);
	ret = ret ?: dn_int(d, "batch_normalize", 0, &bn);
	ret = ret ?: dn_act(d, "logistic", &act);
	ret = ret ?: dn_output(d, "fc", 1, 1, outputs, &out);
	if (ret)
		return ret;
	if (inputs > U32_MAX)
		return dn_err(d, "%llu inputs are too many", inputs);
	ids[0] = d->in.t;
	ret = dn_tensor(d, "weights", NPA_DTYPE_INT8, NPA_TENSOR_CONST, outputs,
			inputs, 0, 0, &ids[1]);
	ret = ret ?: dn_tensor(d, "bias", NPA_DTYPE_INT32, NPA_TENSOR_CONST,
			       outputs, 0, 0, 0, &ids[2]);
	p[NPA_P_SHIFT] = dn_shift(inputs);
	ret = ret ?: dn_op(d, "connected", NPA_OP_FC, NPA_UNIT_NPU, 0, ids, 3,
			   &out.t, 1, p, ARRAY_SIZE(p));
	ret = ret ?: dn_scratch(d, DN_ACC_BYTES * (u64)outputs, 0, 0, 0);
	if (ret)
		return ret;
	*l = out;
	return dn_activation(d, act, NPA_UNIT_NPU, l);
}

static int dn_maxpool(struct dn *d, struct dn_layer *l)
{
	int stride, size, padding;
	s32 p[NPA_OP_MAX_PARAMS] = { };
	struct dn_layer out;
	u64 ph, pw;
	int ret;

	ret = dn_range(d, "stride", 1, 1, 1 << 10, &stride);
	ret = ret ?: dn_range(d, "size", stride, 1, 1 << 10, &size);
	ret = ret ?: dn_range(d, "padding", size - 1, 0, 1 << 10, &padding);
	if (ret)
		return ret;
	ph = (u64)d->in.h + padding;
	pw = (u64)d->in.w + padding;
	if (ph < (u32)size || pw < (u32)size)
		return dn_err(d, "%dx%d window larger than the padded %ux%u input",
			      size, size, d->in.w, d->in.h);
	ret = dn_output(d, "maxpool", (ph - size) / stride + 1,
			(pw - size) / stride + 1, d->in.c, &out);
	if (ret)
		return ret;
	/* Darknet pads padding / 2 above, the rest below: one more if odd. */
	p[NPA_P_KH] = size;
	p[NPA_P_KW] = size;
	p[NPA_P_SH] = stride;
	p[NPA_P_SW] = stride;
	p[NPA_P_PAD_T] = padding / 2;
	p[NPA_P_PAD_L] = padding / 2;
	/* No scratch: a window's largest tap needs no accumulator. */
	ret = dn_op(d, "maxpool", NPA_OP_MAXPOOL, NPA_UNIT_NPU, 0, &d->in.t,
		    1, &out.t, 1, p, ARRAY_SIZE(p));
	if (ret)
		return ret;
	*l = out;
	return 0;
}

/* Darknet's avgpool is global: one value per channel. */
static int dn_avgpool(struct dn *d, struct dn_layer *l)
{
	s32 p[NPA_OP_MAX_PARAMS] = {
		[NPA_P_KH] = d->in.h, [NPA_P_KW] = d->in.w,
		[NPA_P_SH] = d->in.h, [NPA_P_SW] = d->in.w,
	};
	struct dn_layer out;
	int ret;

	ret = dn_output(d, "avgpool", 1, 1, d->in.c, &out);
	/* No scratch: the NPU sums a window in its registers. */
	ret = ret ?: dn_op(d, "avgpool", NPA_OP_AVGPOOL, NPA_UNIT_NPU, 0,
			   &d->in.t, 1, &out.t, 1, p, ARRAY_SIZE(p));
	if (ret)
		return ret;
	*l = out;
	return 0;
}

/* A layer whose output is its input's memory (dropout at inference). */
static int dn_alias(struct dn *d, const char *what, const struct dn_layer *in,
		    struct dn_layer *l)
{
	struct dn_layer out;
	int ret;

	ret = dn_output(d, what, in->h, in->w, in->c, &out);
	ret = ret ?: dn_op(d, what, NPA_OP_RESHAPE, NPA_UNIT_NPU, 0, &in->t, 1,
			   &out.t, 1, NULL, 0);
	if (ret)
		return ret;
	*l = out;
	return 0;
}

/* Resolves a layer reference: negative is relative to this layer. */
static int dn_ref(struct dn *d, const char *key, const char *s,
		  struct dn_layer *l)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || errno || (*end && *end != ','))
		return dn_err(d, "%s: '%s' is not a layer number", key, s);
	if (v < 0)
		v += d->index;
	if (v < 0 || v >= d->index)
		return dn_err(d, "%s: '%s' is not an earlier layer", key, s);
	*l = d->layers[v];
	return 0;
}

static int dn_shortcut(struct dn *d, struct dn_layer *l)
{
	const struct dn_opt *from = dn_find(d, "from");
	struct dn_layer f, out;
	u32 act, ids[2];
	int ret;

	if (!from)
		return dn_err(d, "[shortcut] without from=");
	ret = dn_ref(d, "from", from->val, &f);
	ret = ret ?: dn_act(d, "linear", &act);
	if (ret)
		return ret;
	/*
	 * Darknet adds the overlapping part when the shapes differ (strided
	 * or repeated); the output has the previous layer's shape and may be
	 * written over it.
	 */
	ret = dn_output(d, "add", d->in.h, d->in.w, d->in.c, &out);
	if (ret)
		return ret;
	ids[0] = d->in.t;
	ids[1] = f.t;
	ret = dn_op(d, "shortcut", NPA_OP_ADD, NPA_UNIT_NPU, NPA_OP_INPLACE,
		    ids, 2, &out.t, 1, NULL, 0);
	if (ret)
		return ret;
	*l = out;
	return dn_activation(d, act, NPA_UNIT_NPU, l);
}

/* Channel group @id of @groups of @x, as an output of a SPLIT. */
static int dn_group(struct dn *d, const struct dn_layer *x, int groups,
		    int id, struct dn_layer *l)
{
	const struct dn_layer in[1] = { *x };	/* @l may be @x */
	u32 *outs;
	int i, ret = 0;

	if (in->c % groups)
		return dn_err(d, "groups=%d does not divide %u channels", groups,
			      in->c);
	outs = calloc(groups, sizeof(*outs));
	if (!outs)
		return dn_err(d, "%s", strerror(ENOMEM));
	for (i = 0; i < groups && !ret; i++) {
		struct dn_layer part;

		ret = dn_output(d, "group", in->h, in->w, in->c / groups, &part);
		outs[i] = part.t;
		if (i == id)
			*l = part;
	}
	ret = ret ?: dn_op(d, "route group", NPA_OP_SPLIT, NPA_UNIT_DMA, 0,
			   &in->t, 1, outs, groups, NULL, 0);
	free(outs);
	return ret;
}

static int dn_route(struct dn *d, struct dn_layer *l)
{
	const struct dn_opt *layers = dn_find(d, "layers");
	struct dn_layer *in = NULL, out;
	int groups, group_id, ret;
	u32 n = 1, i;
	u64 c = 0;	/* summed in 64 bits: dn_output() refuses above U32_MAX */
	u32 *ids = NULL;
	const char *s;

	if (!layers)
		return dn_err(d, "[route] without layers=");
	ret = dn_range(d, "groups", 1, 1, 1 << 20, &groups);
	ret = ret ?: dn_range(d, "group_id", 0, 0, groups - 1, &group_id);
	if (ret)
		return ret;
	for (s = layers->val; *s; s++)
		n += *s == ',';
	in = calloc(n, sizeof(*in));
	ids = calloc(n, sizeof(*ids));
	if (!in || !ids) {
		ret = dn_err(d, "%s", strerror(ENOMEM));
		goto out_free;
	}
	for (i = 0, s = layers->val; i < n; i++) {
		ret = dn_ref(d, "layers", s, &in[i]);
		s += strcspn(s, ",");
		s += *s == ',';
		if (!ret && groups > 1)
			ret = dn_group(d, &in[i], groups, group_id, &in[i]);
		if (ret)
			goto out_free;
		if (in[i].h != in[0].h || in[i].w != in[0].w) {
			ret = dn_err(d, "route inputs %ux%u and %ux%u differ in size",
				     in[0].w, in[0].h, in[i].w, in[i].h);
			goto out_free;
		}
		ids[i] = in[i].t;
		c += in[i].c;
	}
	if (n == 1) {
		if (groups > 1)
			*l = in[0];	/* the SPLIT output is the route */
		else
			ret = dn_alias(d, "route", &in[0], l);
		goto out_free;
	}
	/* Darknet keeps activations channel-planar: a contiguous concat. */
	ret = dn_output(d, "concat", in[0].h, in[0].w, c, &out);
	ret = ret ?: dn_op(d, "route", NPA_OP_CONCAT, NPA_UNIT_DMA, 0, ids, n,
			   &out.t, 1, NULL, 0);
	if (!ret)
		*l = out;
out_free:
	free(ids);
	free(in);
	return ret;
}

static int dn_upsample(struct dn *d, struct dn_layer *l)
{
	s32 p[NPA_P_STRIDE + 1] = { };
	struct dn_layer out;
	int stride, ret;

	ret = dn_range(d, "stride", 2, -1024, 1024, &stride);
	if (ret)
		return ret;
	if (stride <= 0)
		return dn_err(d, "stride=%d: the NPU only upsamples", stride);
	p[NPA_P_STRIDE] = stride;
	ret = dn_output(d, "upsample", (u64)d->in.h * stride,
			(u64)d->in.w * stride, d->in.c, &out);
	ret = ret ?: dn_op(d, "upsample", NPA_OP_UPSAMPLE, NPA_UNIT_NPU, 0,
			   &d->in.t, 1, &out.t, 1, p, ARRAY_SIZE(p));
	if (ret)
		return ret;
	*l = out;
	return 0;
}

/* Darknet's reorg with extra=N: a flat copy followed by N zero bytes. */
static int dn_reorg_extra(struct dn *d, int extra, struct dn_layer *l)
{
	u64 n = dn_elems(&d->in) + extra;
	struct dn_layer out;
	u32 ids[2];
	int ret;

	if (n > U32_MAX)
		return dn_err(d, "too many values");
	ids[0] = d->in.t;
	ret = dn_tensor(d, "extra", NPA_DTYPE_INT8, NPA_TENSOR_CONST, 1, extra,
			0, 0, &ids[1]);
	ret = ret ?: dn_output(d, "reorg", 1, 1, n, &out);
	ret = ret ?: dn_op(d, "reorg", NPA_OP_CONCAT, NPA_UNIT_DMA, 0, ids, 2,
			   &out.t, 1, NULL, 0);
	if (ret)
		return ret;
	*l = out;
	return 0;
}

/*
 * Darknet's reorg_cpu() is space to depth applied to the input read as
 * [1, C/(s*s), H*s, W*s], its result read as [1, C*s*s, H/s, W/s]: REORG
 * between two RESHAPEs, which the planner turns into views.
 */
static int dn_reorg(struct dn *d, struct dn_layer *l)
{
	s32 p[NPA_P_STRIDE + 1] = { };
	int stride, reverse, flatten, extra, ret;
	struct dn_layer a, b, out;
	u32 ss;

	ret = dn_range(d, "stride", 1, 1, 1 << 10, &stride);
	ret = ret ?: dn_int(d, "reverse", 0, &reverse);
	ret = ret ?: dn_int(d, "flatten", 0, &flatten);
	ret = ret ?: dn_range(d, "extra", 0, 0, 1 << 20, &extra);
	if (ret)
		return ret;
	if (extra)
		return dn_reorg_extra(d, extra, l);
	if (reverse || flatten)
		return dn_err(d, "[reorg] with %s has no NPU operator",
			      reverse ? "reverse=1" : "flatten=1");
	ss = stride * stride;
	if (d->in.c % ss || d->in.h % stride || d->in.w % stride)
		return dn_err(d, "stride %d does not divide %ux%ux%u", stride,
			      d->in.w, d->in.h, d->in.c);
	p[NPA_P_STRIDE] = stride;
	ret = dn_output(d, "reorg.in", (u64)d->in.h * stride,
			(u64)d->in.w * stride, d->in.c / ss, &a);
	ret = ret ?: dn_op(d, "reorg view", NPA_OP_RESHAPE, NPA_UNIT_NPU, 0,
			   &d->in.t, 1, &a.t, 1, NULL, 0);
	ret = ret ?: dn_output(d, "reorg.out", d->in.h, d->in.w, d->in.c, &b);
	ret = ret ?: dn_op(d, "reorg", NPA_OP_REORG, NPA_UNIT_NPU, 0, &a.t, 1,
			   &b.t, 1, p, ARRAY_SIZE(p));
	ret = ret ?: dn_output(d, "reorg", d->in.h / stride, d->in.w / stride,
			       (u64)d->in.c * ss, &out);
	ret = ret ?: dn_op(d, "reorg view", NPA_OP_RESHAPE, NPA_UNIT_NPU, 0,
			   &b.t, 1, &out.t, 1, NULL, 0);
	if (ret)
		return ret;
	*l = out;
	return 0;
}

/*
 * At inference Darknet's crop layer takes the centre of the image.  npa
 * has no crop operator (COPY keeps the size), but a crop of the network
 * input is just a smaller input: whoever fills the input buffer crops.
 */
static int dn_crop(struct dn *d, struct dn_layer *l)
{
	struct npa_tensor_desc *t = &d->g->tensors[d->in.t];
	int ch, cw, ret;

	ret = dn_range(d, "crop_height", 1, 1, 1 << 16, &ch);
	ret = ret ?: dn_range(d, "crop_width", 1, 1, 1 << 16, &cw);
	if (ret)
		return ret;
	/* The input tensor is cropped in place: no layer may have read it. */
	if (!(t->flags & NPA_TENSOR_INPUT) || d->index)
		return dn_err(d, "[crop] is only supported as the first layer");
	if ((u32)ch > d->in.h || (u32)cw > d->in.w)
		return dn_err(d, "crop %dx%d larger than the %ux%u input", cw, ch,
			      d->in.w, d->in.h);
	if ((u32)ch != d->in.h || (u32)cw != d->in.w) {
		ret = npactl_graph_add_note(d->g,
					    "[crop] folded into the input: %dx%d centre of %ux%u",
					    cw, ch, d->in.w, d->in.h);
		if (ret)
			return dn_err(d, "%s", strerror(-ret));
	}
	t->dims[2] = ch;
	t->dims[3] = cw;
	*l = d->in;
	l->h = ch;
	l->w = cw;
	return 0;
}

static u32 dn_count(const char *s)
{
	u32 n = 1;

	for (; *s; s++)
		n += *s == ',';
	return n;
}

/*
 * Softmax and the detection heads ([yolo], [region], [detection]) are not
 * NPU operators: the CPU runs them on the model's output after the job.
 * Their input becomes a model output, and the layer is that tensor.
 */
static int dn_cpu_tail(struct dn *d, struct dn_layer *l)
{
	const char *type = d->s->type;
	int classes, coords, num, side, groups;
	u64 want = dn_elems(&d->in);
	int ret;

	ret = dn_range(d, "classes", 20, 0, 1 << 20, &classes);
	ret = ret ?: dn_range(d, "coords", 4, 0, 1 << 10, &coords);
	ret = ret ?: dn_range(d, "num", 1, 1, 1 << 10, &num);
	ret = ret ?: dn_range(d, "side", 7, 1, 1 << 10, &side);
	ret = ret ?: dn_range(d, "groups", 1, 1, 1 << 24, &groups);
	if (ret)
		return ret;
	if (!strcmp(type, "[yolo]")) {
		const struct dn_opt *mask = dn_find(d, "mask");

		if (mask)
			num = dn_count(mask->val);
		want = (u64)d->in.h * d->in.w * num * (classes + 4 + 1);
	} else if (!strcmp(type, "[region]")) {
		want = (u64)d->in.h * d->in.w * num * (classes + coords + 1);
	} else if (!strcmp(type, "[detection]")) {
		want = (u64)side * side * ((1 + coords) * num + classes);
	} else if (dn_elems(&d->in) % groups) {
		return dn_err(d, "groups=%d does not divide %llu values", groups,
			      dn_elems(&d->in));
	}
	if (want != dn_elems(&d->in))
		return dn_err(d, "%s expects %llu inputs, the previous layer has %llu",
			      type, want, dn_elems(&d->in));
	if (d->g->tensors[d->in.t].flags & NPA_TENSOR_INPUT)
		return dn_err(d, "%s right on the network input", type);
	d->g->tensors[d->in.t].flags |= NPA_TENSOR_OUTPUT;
	*l = d->in;
	return 0;
}

static int dn_standalone_activation(struct dn *d, struct dn_layer *l)
{
	u32 act;
	int ret;

	ret = dn_act(d, strcmp(d->s->type, "[logistic]") ? "linear" : "logistic",
		     &act);
	if (ret)
		return ret;
	if (act == NPA_ACT_LINEAR)
		return dn_alias(d, "linear", &d->in, l);
	*l = d->in;
	return dn_activation(d, act, NPA_UNIT_NPU, l);
}

static int dn_cost(struct dn *d, struct dn_layer *l)
{
	/* A training loss: at inference Darknet skips it, and so do we. */
	*l = d->in;
	return 0;
}

static int dn_dropout(struct dn *d, struct dn_layer *l)
{
	return dn_alias(d, "dropout", &d->in, l);
}

static const struct {
	const char *type;
	int (*build)(struct dn *d, struct dn_layer *l);
} dn_types[] = {
	{ "[convolutional]", dn_convolutional },
	{ "[conv]", dn_convolutional },
	{ "[connected]", dn_connected },
	{ "[conn]", dn_connected },
	{ "[maxpool]", dn_maxpool },
	{ "[max]", dn_maxpool },
	{ "[avgpool]", dn_avgpool },
	{ "[avg]", dn_avgpool },
	{ "[route]", dn_route },
	{ "[shortcut]", dn_shortcut },
	{ "[upsample]", dn_upsample },
	{ "[reorg]", dn_reorg },
	{ "[crop]", dn_crop },
	{ "[dropout]", dn_dropout },
	{ "[softmax]", dn_cpu_tail },
	{ "[soft]", dn_cpu_tail },
	{ "[yolo]", dn_cpu_tail },
	{ "[region]", dn_cpu_tail },
	{ "[detection]", dn_cpu_tail },
	{ "[activation]", dn_standalone_activation },
	{ "[logistic]", dn_standalone_activation },
	{ "[cost]", dn_cost },
};

static int dn_net(struct dn *d, const struct npactl_graph_opts *o)
{
	int h, w, c, inputs, ret;
	struct dn_layer in = { };

	d->s = d->sects;
	if (strcmp(d->s->type, "[net]") && strcmp(d->s->type, "[network]"))
		return dn_err(d, "line %u: first section is %s, expected [net]",
			      d->s->line, d->s->type);
	ret = dn_range(d, "height", 0, 0, 1 << 16, &h);
	ret = ret ?: dn_range(d, "width", 0, 0, 1 << 16, &w);
	ret = ret ?: dn_range(d, "channels", 0, 0, 1 << 16, &c);
	ret = ret ?: dn_range(d, "inputs", 0, 0, 1 << 30, &inputs);
	if (ret)
		return ret;
	if (o && o->width) {
		if (!h || !w || !c)
			return dn_err(d, "--size needs an image input (width, height, channels)");
		if ((u32)w != o->width || (u32)h != o->height) {
			ret = npactl_graph_add_note(d->g,
						    "input resolution %ux%u (the cfg says %dx%d)",
						    o->width, o->height, w, h);
			if (ret)
				return dn_err(d, "%s", strerror(-ret));
		}
		w = o->width;
		h = o->height;
	}
	if (h && w && c) {
		in.h = h;
		in.w = w;
		in.c = c;
	} else if (inputs) {
		in.h = 1;
		in.w = 1;
		in.c = inputs;
	} else {
		return dn_err(d, "[net] needs width, height and channels, or inputs");
	}
	d->in = in;
	ret = dn_tensor(d, "input", NPA_DTYPE_INT8, NPA_TENSOR_INPUT, 1, in.c,
			in.h, in.w, &d->in.t);
	if (ret)
		return ret;
	/* The input tensor is not a layer's: call it plainly "input". */
	free(d->g->tensor_names[d->in.t]);
	d->g->tensor_names[d->in.t] = strdup("input");
	return d->g->tensor_names[d->in.t] ? 0 : dn_err(d, "%s", strerror(ENOMEM));
}

int npactl_graph_read_darknet(const char *path,
			      const struct npactl_graph_opts *o,
			      struct npactl_graph *g)
{
	struct dn d = { .path = path, .g = g };
	u32 i, k, last;
	int ret;

	npactl_graph_init(g);
	if (o)
		d.im2col = o->im2col;
	ret = dn_read_file(&d);
	if (ret)
		goto out;
	if (!d.num_sects) {
		ret = dn_err(&d, "no [net] section");
		goto out;
	}
	ret = dn_net(&d, o);
	if (ret)
		goto out;
	d.layers = calloc(d.num_sects, sizeof(*d.layers));
	if (!d.layers) {
		ret = dn_err(&d, "%s", strerror(ENOMEM));
		goto out;
	}
	last = d.in.t;
	for (i = 1; i < d.num_sects; i++) {
		d.index = i - 1;
		d.s = &d.sects[i];
		for (k = 0; k < ARRAY_SIZE(dn_types); k++)
			if (!strcmp(d.s->type, dn_types[k].type))
				break;
		if (k == ARRAY_SIZE(dn_types)) {
			ret = dn_err(&d, "unsupported layer type %s", d.s->type);
			goto out;
		}
		ret = dn_types[k].build(&d, &d.layers[d.index]);
		if (ret)
			goto out;
		d.in = d.layers[d.index];
		if (dn_types[k].build != dn_cost)
			last = d.in.t;
	}
	if (d.num_sects < 2) {
		ret = dn_err(&d, "no layers");
		goto out;
	}
	/* The network's output: the last layer that is not a cost layer. */
	g->tensors[last].flags |= NPA_TENSOR_OUTPUT;
out:
	free(d.layers);
	dn_free_sects(&d);
	if (ret)
		npactl_graph_free(g);
	return ret;
}
