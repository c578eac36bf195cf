// SPDX-License-Identifier: GPL-2.0-only
/*
 * DOC: JSON graphs
 *
 * Reads and writes model graphs in the JSON format of
 * Documentation/graph-json.rst with json-c.  The reader checks the
 * structure (types, names, ranges) and resolves tensor names to ids; what
 * the graph means (shapes, lifetimes, sharing) is left to
 * npa_graph_validate(), exactly as the driver would see it.  Errors name
 * the file and the JSON path of the offending value.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "npactl.h"
#include "graph.h"

/* Longest JSON path in a message. */
#define GJ_PATH_MAX	128

struct gj {
	const char *path;
	struct npactl_graph *g;
	struct json_object *names;	/* tensor name -> id */
};

static __printf(3, 4) int gj_err(struct gj *j, const char *where, const char *fmt, ...);

static int gj_err(struct gj *j, const char *where, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "npactl: %s: %s: ", j->path, where);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EINVAL;
}

/* @at = @where followed by the formatted suffix, cut at GJ_PATH_MAX. */
static __printf(3, 4) void gj_path(char *at, const char *where, const char *fmt, ...);

static void gj_path(char *at, const char *where, const char *fmt, ...)
{
	size_t n = strnlen(where, GJ_PATH_MAX - 1);
	va_list ap;

	memcpy(at, where, n);
	va_start(ap, fmt);
	vsnprintf(at + n, GJ_PATH_MAX - n, fmt, ap);
	va_end(ap);
}

static const char *gj_type(struct json_object *o)
{
	return json_type_to_name(json_object_get_type(o));
}

/* Every key of @o must be in @keys (NULL-terminated) or be "comment". */
static int gj_keys(struct gj *j, const char *where, struct json_object *o,
		   const char *const *keys)
{
	const char *const *k;

	json_object_object_foreach(o, key, val) {
		(void)val;
		if (!strcmp(key, "comment"))
			continue;
		for (k = keys; *k; k++)
			if (!strcmp(key, *k))
				break;
		if (!*k)
			return gj_err(j, where, "unknown key \"%s\"", key);
	}
	return 0;
}

static int gj_u64(struct gj *j, const char *where, struct json_object *v,
		  u64 max, u64 *out)
{
	if (!json_object_is_type(v, json_type_int))
		return gj_err(j, where, "expected an integer, found %s",
			      gj_type(v));
	/* json-c keeps non-negative integers above INT64_MAX as uint64. */
	if (json_object_get_int64(v) < 0)
		return gj_err(j, where, "negative value %lld",
			      (long long)json_object_get_int64(v));
	*out = json_object_get_uint64(v);
	if (*out > max)
		return gj_err(j, where, "%llu is above the maximum %llu", *out,
			      max);
	return 0;
}

static int gj_u32(struct gj *j, const char *where, struct json_object *v,
		  u32 *out)
{
	u64 x;
	int ret = gj_u64(j, where, v, U32_MAX, &x);

	*out = x;
	return ret;
}

/* Optional member @key of @o; *@v is NULL when it is absent. */
static void gj_get(struct json_object *o, const char *key,
		   struct json_object **v)
{
	if (!json_object_object_get_ex(o, key, v))
		*v = NULL;
}

/* A string from the table @names, stored as its index. */
static int gj_enum(struct gj *j, const char *where, struct json_object *v,
		   const char *const *names, unsigned int n, u32 *out)
{
	int i;

	if (!json_object_is_type(v, json_type_string))
		return gj_err(j, where, "expected a string, found %s",
			      gj_type(v));
	i = npactl_name_index(names, n, json_object_get_string(v));
	if (i < 0)
		return gj_err(j, where, "unknown value \"%s\"",
			      json_object_get_string(v));
	*out = i;
	return 0;
}

struct gj_flag {
	const char *name;
	u32 bit;
};

static const struct gj_flag gj_tensor_flags[] = {
	{ "input", NPA_TENSOR_INPUT },
	{ "output", NPA_TENSOR_OUTPUT },
	{ "const", NPA_TENSOR_CONST },
	{ "persistent", NPA_TENSOR_PERSISTENT },
	{ }
};

static const struct gj_flag gj_op_flags[] = {
	{ "inplace", NPA_OP_INPLACE },
	{ }
};

static const struct gj_flag gj_scratch_flags[] = {
	{ "variable", NPA_SCRATCH_VARIABLE },
	{ "latency", NPA_SCRATCH_LATENCY },
	{ }
};

/* An array of flag names from @tab, or-ed into *@out. */
static int gj_flags(struct gj *j, const char *where, struct json_object *v,
		    const struct gj_flag *tab, u32 *out)
{
	char at[GJ_PATH_MAX];
	const struct gj_flag *f;
	size_t i, n;

	*out = 0;
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_array))
		return gj_err(j, where, "expected an array of flag names, found %s",
			      gj_type(v));
	n = json_object_array_length(v);
	for (i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(v, i);

		gj_path(at, where, "[%zu]", i);
		if (!json_object_is_type(e, json_type_string))
			return gj_err(j, at, "expected a string, found %s",
				      gj_type(e));
		for (f = tab; f->name; f++)
			if (!strcmp(f->name, json_object_get_string(e)))
				break;
		if (!f->name)
			return gj_err(j, at, "unknown flag \"%s\"",
				      json_object_get_string(e));
		*out |= f->bit;
	}
	return 0;
}

/*
 * Names go into messages on the terminal and the SVG of npactl plan --svg
 * (XML), a tensor's also unquoted into the CSV of --out: no control
 * character (C0 or DEL; a NUL would cut the name short) and none of @also.
 */
static bool gj_name_ok(struct json_object *v, const char *also)
{
	const char *s = json_object_get_string(v);
	int i, len = json_object_get_string_len(v);

	for (i = 0; i < len; i++) {
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f ||
		    strchr(also, s[i]))
			return false;
	}
	return true;
}

static const char *const gj_tensor_keys[] = {
	"name", "dims", "dtype", "size", "align", "flags", NULL
};

static int gj_tensor(struct gj *j, size_t idx, struct json_object *o)
{
	struct npa_tensor_desc t = { };
	char where[GJ_PATH_MAX], at[GJ_PATH_MAX], autoname[32];
	struct json_object *v, *old;
	const char *name;
	size_t i, n;
	u32 id;
	int ret;

	snprintf(where, sizeof(where), "$.tensors[%zu]", idx);
	if (!json_object_is_type(o, json_type_object))
		return gj_err(j, where, "expected an object, found %s",
			      gj_type(o));
	ret = gj_keys(j, where, o, gj_tensor_keys);
	if (ret)
		return ret;

	gj_get(o, "name", &v);
	if (v && (!json_object_is_type(v, json_type_string) ||
		  !*json_object_get_string(v))) {
		gj_path(at, where, ".name");
		return gj_err(j, at, "expected a non-empty string");
	}
	/* Names go unquoted into the CSV of npactl plan --out. */
	if (v && !gj_name_ok(v, ",\"")) {
		gj_path(at, where, ".name");
		return gj_err(j, at,
			      "a tensor name may not hold a comma, a double quote or a control character");
	}
	snprintf(autoname, sizeof(autoname), "t%zu", idx);
	name = v ? json_object_get_string(v) : autoname;
	/* An automatic name must not meet a given one either way round. */
	if (!v && json_object_object_get_ex(j->names, name, &old))
		return gj_err(j, where,
			      "a tensor without a name is called \"%s\", but $.tensors[%d] has that name",
			      name, json_object_get_int(old));
	if (v && json_object_object_get_ex(j->names, name, &old)) {
		snprintf(autoname, sizeof(autoname), "t%d",
			 json_object_get_int(old));
		gj_path(at, where, ".name");
		return gj_err(j, at, "tensor \"%s\" already defined at $.tensors[%d]%s",
			      name, json_object_get_int(old),
			      strcmp(name, autoname) ? "" :
			      " (a tensor without a name is called t<index>)");
	}

	gj_get(o, "dims", &v);
	if (v) {
		gj_path(at, where, ".dims");
		if (!json_object_is_type(v, json_type_array))
			return gj_err(j, at, "expected an array, found %s",
				      gj_type(v));
		n = json_object_array_length(v);
		if (!n || n > NPA_MAX_DIMS)
			return gj_err(j, at, "expected 1 to %d dimensions, found %zu",
				      NPA_MAX_DIMS, n);
		for (i = 0; i < n; i++) {
			gj_path(at, where, ".dims[%zu]", i);
			ret = gj_u32(j, at, json_object_array_get_idx(v, i),
				     &t.dims[i]);
			if (ret)
				return ret;
			if (!t.dims[i])
				return gj_err(j, at, "a dimension must be at least 1");
		}
	}
	gj_get(o, "dtype", &v);
	if (v) {
		gj_path(at, where, ".dtype");
		ret = gj_enum(j, at, v, npactl_dtype_names, NPA_DTYPE_COUNT,
			      &t.dtype);
		if (ret)
			return ret;
	} else if (t.dims[0]) {
		t.dtype = NPA_DTYPE_INT8;
	}
	gj_get(o, "size", &v);
	if (v) {
		gj_path(at, where, ".size");
		ret = gj_u64(j, at, v, U64_MAX, &t.size);
		if (ret)
			return ret;
	}
	if (!t.size && !t.dims[0])
		return gj_err(j, where, "needs \"size\" or \"dims\"");
	gj_get(o, "align", &v);
	if (v) {
		gj_path(at, where, ".align");
		ret = gj_u32(j, at, v, &t.align);
		if (ret)
			return ret;
	}
	gj_get(o, "flags", &v);
	gj_path(at, where, ".flags");
	ret = gj_flags(j, at, v, gj_tensor_flags, &t.flags);
	if (ret)
		return ret;

	ret = npactl_graph_add_tensor(j->g, name, &t, &id);
	if (ret)
		return gj_err(j, where, "%s", npactl_graph_strerror(j->g, ret));
	if (json_object_object_add(j->names, name, json_object_new_int(id)))
		return gj_err(j, where, "%s", strerror(ENOMEM));
	return 0;
}

/* A list of tensor references (names or ids) into a new array. */
static int gj_refs(struct gj *j, const char *where, struct json_object *v,
		   u32 **ids, u32 *num)
{
	char at[GJ_PATH_MAX];
	struct json_object *id;
	size_t i, n;
	int ret;

	*ids = NULL;
	*num = 0;
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_array))
		return gj_err(j, where, "expected an array of tensor names, found %s",
			      gj_type(v));
	n = json_object_array_length(v);
	if (n > npa_graph_default_limits.max_operands)
		return gj_err(j, where, "more than the kernel's %u operands",
			      npa_graph_default_limits.max_operands);
	*ids = calloc(n ? n : 1, sizeof(**ids));
	if (!*ids)
		return gj_err(j, where, "%s", strerror(ENOMEM));
	for (i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(v, i);

		gj_path(at, where, "[%zu]", i);
		if (json_object_is_type(e, json_type_string)) {
			if (!json_object_object_get_ex(j->names,
						       json_object_get_string(e),
						       &id))
				return gj_err(j, at, "unknown tensor \"%s\"",
					      json_object_get_string(e));
			(*ids)[i] = json_object_get_int(id);
		} else {
			/* An id: checked against the count by validation. */
			ret = gj_u32(j, at, e, &(*ids)[i]);
			if (ret)
				return ret;
		}
	}
	*num = n;
	return 0;
}

static const char *const gj_scratch_keys[] = {
	"size", "min_size", "align", "flags", NULL
};

static int gj_scratch(struct gj *j, const char *where, struct json_object *o)
{
	struct npa_scratch_desc s = { };
	char at[GJ_PATH_MAX];
	struct json_object *v;
	int ret;

	if (!json_object_is_type(o, json_type_object))
		return gj_err(j, where, "expected an object, found %s",
			      gj_type(o));
	ret = gj_keys(j, where, o, gj_scratch_keys);
	if (ret)
		return ret;
	gj_get(o, "size", &v);
	if (!v)
		return gj_err(j, where, "needs \"size\"");
	gj_path(at, where, ".size");
	ret = gj_u64(j, at, v, U64_MAX, &s.size);
	gj_get(o, "min_size", &v);
	if (!ret && v) {
		gj_path(at, where, ".min_size");
		ret = gj_u64(j, at, v, U64_MAX, &s.min_size);
	}
	gj_get(o, "align", &v);
	if (!ret && v) {
		gj_path(at, where, ".align");
		ret = gj_u32(j, at, v, &s.align);
	}
	gj_get(o, "flags", &v);
	gj_path(at, where, ".flags");
	ret = ret ?: gj_flags(j, at, v, gj_scratch_flags, &s.flags);
	if (ret)
		return ret;
	ret = npactl_graph_add_scratch(j->g, &s);
	if (ret)
		return gj_err(j, where, "%s", npactl_graph_strerror(j->g, ret));
	return 0;
}

static int gj_params(struct gj *j, const char *where, struct json_object *v,
		     u32 kind, s32 *params, u32 *num)
{
	char at[GJ_PATH_MAX];
	size_t i, n;

	*num = 0;
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_array))
		return gj_err(j, where, "expected an array, found %s",
			      gj_type(v));
	n = json_object_array_length(v);
	if (n > NPA_OP_MAX_PARAMS)
		return gj_err(j, where, "at most %d parameters, found %zu",
			      NPA_OP_MAX_PARAMS, n);
	for (i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(v, i);
		int64_t x;

		gj_path(at, where, "[%zu]", i);
		/* An activation's function may be given by name. */
		if (i == NPA_P_ACT && kind == NPA_OP_ACTIVATION &&
		    json_object_is_type(e, json_type_string)) {
			u32 act;
			int ret = gj_enum(j, at, e, npactl_act_names,
					  NPA_ACT_COUNT, &act);

			if (ret)
				return ret;
			params[i] = act;
			continue;
		}
		if (!json_object_is_type(e, json_type_int))
			return gj_err(j, at, "expected an integer, found %s",
				      gj_type(e));
		x = json_object_get_int64(e);
		if (x < INT32_MIN || x > INT32_MAX)
			return gj_err(j, at, "%lld does not fit in 32 bits",
				      (long long)x);
		params[i] = x;
	}
	*num = n;
	return 0;
}

static const char *const gj_op_keys[] = {
	"name", "kind", "unit", "flags", "inputs", "outputs", "params",
	"scratch", NULL
};

static int gj_op(struct gj *j, size_t idx, struct json_object *o)
{
	char where[GJ_PATH_MAX], at[GJ_PATH_MAX], autoname[32];
	s32 params[NPA_OP_MAX_PARAMS] = { };
	struct npactl_op op = { };
	u32 *in = NULL, *out = NULL;
	struct json_object *v;
	const char *name;
	size_t i, n;
	int ret;

	snprintf(where, sizeof(where), "$.ops[%zu]", idx);
	if (!json_object_is_type(o, json_type_object))
		return gj_err(j, where, "expected an object, found %s",
			      gj_type(o));
	ret = gj_keys(j, where, o, gj_op_keys);
	if (ret)
		return ret;

	gj_get(o, "name", &v);
	snprintf(autoname, sizeof(autoname), "op%zu", idx);
	name = autoname;
	if (v) {
		gj_path(at, where, ".name");
		if (!json_object_is_type(v, json_type_string))
			return gj_err(j, at, "expected a string, found %s",
				      gj_type(v));
		if (!gj_name_ok(v, ""))
			return gj_err(j, at,
				      "an operator name may not hold a control character");
		name = json_object_get_string(v);
	}
	gj_get(o, "kind", &v);
	if (!v)
		return gj_err(j, where, "needs \"kind\"");
	gj_path(at, where, ".kind");
	ret = gj_enum(j, at, v, npactl_op_kind_names, NPA_OP_KIND_COUNT,
		      &op.kind);
	if (ret)
		return ret;
	gj_get(o, "unit", &v);
	if (v) {
		gj_path(at, where, ".unit");
		ret = gj_enum(j, at, v, npactl_unit_names, NPA_UNIT_COUNT,
			      &op.unit);
		if (ret)
			return ret;
	}
	gj_get(o, "flags", &v);
	gj_path(at, where, ".flags");
	ret = gj_flags(j, at, v, gj_op_flags, &op.flags);
	if (ret)
		return ret;
	gj_get(o, "params", &v);
	gj_path(at, where, ".params");
	ret = gj_params(j, at, v, op.kind, params, &op.num_params);
	if (ret)
		return ret;
	op.params = params;

	gj_get(o, "inputs", &v);
	gj_path(at, where, ".inputs");
	ret = gj_refs(j, at, v, &in, &op.num_in);
	if (ret)
		goto out_free;
	gj_get(o, "outputs", &v);
	gj_path(at, where, ".outputs");
	ret = gj_refs(j, at, v, &out, &op.num_out);
	if (ret)
		goto out_free;
	op.in = in;
	op.out = out;
	ret = npactl_graph_add_op(j->g, name, &op, NULL);
	if (ret) {
		ret = gj_err(j, where, "%s", npactl_graph_strerror(j->g, ret));
		goto out_free;
	}

	gj_get(o, "scratch", &v);
	if (v) {
		gj_path(at, where, ".scratch");
		if (!json_object_is_type(v, json_type_array)) {
			ret = gj_err(j, at, "expected an array, found %s",
				     gj_type(v));
			goto out_free;
		}
		n = json_object_array_length(v);
		for (i = 0; i < n && !ret; i++) {
			gj_path(at, where, ".scratch[%zu]", i);
			ret = gj_scratch(j, at, json_object_array_get_idx(v, i));
		}
	}
out_free:
	free(out);
	free(in);
	return ret;
}

/* Reads all of @path (or stdin for "-") into a NUL-terminated buffer. */
static char *gj_slurp(const char *path, size_t *len)
{
	FILE *fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
	size_t cap = 0, n = 0, got;
	char *buf = NULL, *p;

	if (!fp)
		return NULL;
	for (;;) {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 65536;
			p = realloc(buf, cap);
			if (!p)
				goto err;
			buf = p;
		}
		got = fread(buf + n, 1, cap - n - 1, fp);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(fp))
		goto err;
	if (fp != stdin)
		fclose(fp);
	buf[n] = '\0';
	*len = n;
	return buf;
err:
	free(buf);
	if (fp != stdin)
		fclose(fp);
	errno = errno ? errno : EIO;
	return NULL;
}

static struct json_object *gj_parse(struct gj *j)
{
	struct json_tokener *tok;
	struct json_object *root;
	enum json_tokener_error jerr;
	size_t len, off, line = 1, col = 1, i;
	char *text;

	text = gj_slurp(j->path, &len);
	if (!text) {
		fprintf(stderr, "npactl: %s: %s\n", j->path, strerror(errno));
		return NULL;
	}
	tok = json_tokener_new();
	if (!tok) {
		free(text);
		fprintf(stderr, "npactl: %s: %s\n", j->path, strerror(ENOMEM));
		return NULL;
	}
	root = json_tokener_parse_ex(tok, text, len);
	jerr = json_tokener_get_error(tok);
	off = json_tokener_get_parse_end(tok);
	if (jerr == json_tokener_continue) {
		jerr = json_tokener_error_parse_eof;
	} else if (jerr == json_tokener_success && off < len) {
		/* Only blanks may follow the value. */
		for (i = off; i < len && text[i] && strchr(" \t\r\n", text[i]);
		     i++)
			;
		if (i < len) {
			jerr = json_tokener_error_parse_unexpected;
			off = i;
		}
	}
	if (jerr != json_tokener_success) {
		for (i = 0; i < off && i < len; i++) {
			if (text[i] == '\n') {
				line++;
				col = 1;
			} else {
				col++;
			}
		}
		fprintf(stderr, "npactl: %s:%zu:%zu: invalid JSON: %s\n",
			j->path, line, col, json_tokener_error_desc(jerr));
		json_object_put(root);
		root = NULL;
	}
	json_tokener_free(tok);
	free(text);
	return root;
}

static const char *const gj_top_keys[] = {
	"version", "name", "tensors", "ops", NULL
};

int npactl_graph_read_json(const char *path, const struct npactl_graph_opts *o,
			   struct npactl_graph *g)
{
	struct gj j = { .path = path, .g = g };
	struct json_object *root, *v;
	size_t i, n;
	int ret;

	npactl_graph_init(g);
	if (o && o->width) {
		fprintf(stderr, "npactl: %s: --size and --input apply to .cfg networks only\n",
			path);
		return -EINVAL;
	}
	root = gj_parse(&j);
	if (!root)
		return -EINVAL;
	j.names = json_object_new_object();
	if (!j.names) {
		ret = gj_err(&j, "$", "%s", strerror(ENOMEM));
		goto out_put;
	}
	if (!json_object_is_type(root, json_type_object)) {
		ret = gj_err(&j, "$", "expected an object, found %s",
			     gj_type(root));
		goto out_put;
	}
	ret = gj_keys(&j, "$", root, gj_top_keys);
	if (ret)
		goto out_put;
	gj_get(root, "version", &v);
	if (v && (!json_object_is_type(v, json_type_int) ||
		  json_object_get_int64(v) != 1)) {
		ret = gj_err(&j, "$.version", "only version 1 is known");
		goto out_put;
	}
	gj_get(root, "name", &v);
	if (v && !json_object_is_type(v, json_type_string)) {
		ret = gj_err(&j, "$.name", "expected a string, found %s",
			     gj_type(v));
		goto out_put;
	}
	if (v && !gj_name_ok(v, "")) {
		ret = gj_err(&j, "$.name", "a control character in the name");
		goto out_put;
	}

	gj_get(root, "tensors", &v);
	if (!v || !json_object_is_type(v, json_type_array)) {
		ret = gj_err(&j, "$.tensors", "expected an array of tensors, found %s",
			     v ? gj_type(v) : "nothing");
		goto out_put;
	}
	n = json_object_array_length(v);
	for (i = 0; i < n && !ret; i++)
		ret = gj_tensor(&j, i, json_object_array_get_idx(v, i));
	if (ret)
		goto out_put;

	gj_get(root, "ops", &v);
	if (!v || !json_object_is_type(v, json_type_array)) {
		ret = gj_err(&j, "$.ops", "expected an array of operators, found %s",
			     v ? gj_type(v) : "nothing");
		goto out_put;
	}
	n = json_object_array_length(v);
	for (i = 0; i < n && !ret; i++)
		ret = gj_op(&j, i, json_object_array_get_idx(v, i));
out_put:
	json_object_put(j.names);
	json_object_put(root);
	if (ret)
		npactl_graph_free(g);
	return ret;
}

/* Flag names of @flags as a JSON array, NULL when there are none. */
static struct json_object *gj_flag_array(const struct gj_flag *tab, u32 flags)
{
	struct json_object *a;

	if (!flags)
		return NULL;
	a = json_object_new_array();
	for (; a && tab->name; tab++)
		if (flags & tab->bit)
			json_object_array_add(a, json_object_new_string(tab->name));
	return a;
}

static void gj_add(struct json_object *o, const char *key,
		   struct json_object *v)
{
	if (v)
		json_object_object_add(o, key, v);
}

static struct json_object *gj_tensor_json(const struct npactl_graph *g, u32 i)
{
	const struct npa_tensor_desc *t = &g->tensors[i];
	struct json_object *o = json_object_new_object(), *dims;
	int k;

	if (!o)
		return NULL;
	gj_add(o, "name", json_object_new_string(g->tensor_names[i]));
	/* Dims read back as int8 without a dtype: "none" is then written. */
	if (t->dims[0]) {
		dims = json_object_new_array();
		for (k = 0; dims && k < NPA_MAX_DIMS && t->dims[k]; k++)
			json_object_array_add(dims,
					      json_object_new_int64(t->dims[k]));
		gj_add(o, "dims", dims);
	}
	if ((t->dtype != NPA_DTYPE_NONE || t->dims[0]) &&
	    t->dtype < NPA_DTYPE_COUNT)
		gj_add(o, "dtype",
		       json_object_new_string(npactl_dtype_names[t->dtype]));
	if (t->size)
		gj_add(o, "size", json_object_new_uint64(t->size));
	if (t->align)
		gj_add(o, "align", json_object_new_int64(t->align));
	gj_add(o, "flags", gj_flag_array(gj_tensor_flags, t->flags));
	return o;
}

static struct json_object *gj_ref_array(const struct npactl_graph *g,
					u32 first, u32 n)
{
	struct json_object *a = json_object_new_array();
	u32 i, t;

	/*
	 * An id out of range (the graph is not validated here) is written
	 * as the number it is, which reads back the same.
	 */
	for (i = 0; a && i < n; i++) {
		t = g->operands[first + i];
		json_object_array_add(a, t < g->num_tensors ?
				      json_object_new_string(g->tensor_names[t]) :
				      json_object_new_int64(t));
	}
	return a;
}

static struct json_object *gj_op_json(const struct npactl_graph *g, u32 i)
{
	const struct npa_op_desc *d = &g->ops[i];
	struct json_object *o = json_object_new_object(), *a;
	int k, np;
	u32 s;

	if (!o)
		return NULL;
	gj_add(o, "name", json_object_new_string(g->op_names[i]));
	gj_add(o, "kind", json_object_new_string(npactl_op_kind_names[d->kind]));
	gj_add(o, "unit", json_object_new_string(npactl_unit_names[d->unit]));
	gj_add(o, "flags", gj_flag_array(gj_op_flags, d->flags));
	gj_add(o, "inputs", gj_ref_array(g, d->first_input, d->num_inputs));
	gj_add(o, "outputs", gj_ref_array(g, d->first_output, d->num_outputs));
	for (np = NPA_OP_MAX_PARAMS; np > 0 && !d->params[np - 1]; np--)
		;
	if (np) {
		a = json_object_new_array();
		for (k = 0; a && k < np; k++) {
			struct json_object *p;

			/* An activation's function by name. */
			if (k == NPA_P_ACT && d->kind == NPA_OP_ACTIVATION &&
			    d->params[0] >= 0 && d->params[0] < NPA_ACT_COUNT)
				p = json_object_new_string(npactl_act_names[d->params[0]]);
			else
				p = json_object_new_int(d->params[k]);
			json_object_array_add(a, p);
		}
		gj_add(o, "params", a);
	}
	if (d->num_scratch) {
		a = json_object_new_array();
		for (s = d->first_scratch;
		     a && s < d->first_scratch + d->num_scratch; s++) {
			const struct npa_scratch_desc *sd = &g->scratch[s];
			struct json_object *so = json_object_new_object();

			if (!so)
				break;
			gj_add(so, "size", json_object_new_uint64(sd->size));
			if (sd->min_size)
				gj_add(so, "min_size",
				       json_object_new_uint64(sd->min_size));
			if (sd->align)
				gj_add(so, "align",
				       json_object_new_int64(sd->align));
			gj_add(so, "flags",
			       gj_flag_array(gj_scratch_flags, sd->flags));
			json_object_array_add(a, so);
		}
		gj_add(o, "scratch", a);
	}
	return o;
}

/* Writes @g in the JSON graph format; tensor names must be unique. */
int npactl_graph_write_json(FILE *fp, const struct npactl_graph *g,
			    const char *name)
{
	struct json_object *root, *tensors, *ops, *o;
	int ret = -ENOMEM;
	u32 i;

	root = json_object_new_object();
	tensors = json_object_new_array();
	ops = json_object_new_array();
	if (!root || !tensors || !ops)
		goto out_put;
	gj_add(root, "version", json_object_new_int(1));
	if (name)
		gj_add(root, "name", json_object_new_string(name));
	for (i = 0; i < g->num_tensors; i++) {
		o = gj_tensor_json(g, i);
		if (!o)
			goto out_put;
		json_object_array_add(tensors, o);
	}
	for (i = 0; i < g->num_ops; i++) {
		o = gj_op_json(g, i);
		if (!o)
			goto out_put;
		json_object_array_add(ops, o);
	}
	json_object_object_add(root, "tensors", tensors);
	json_object_object_add(root, "ops", ops);
	tensors = NULL;
	ops = NULL;
	ret = 0;
	if (fputs(json_object_to_json_string_ext(root,
						 JSON_C_TO_STRING_PRETTY |
						 JSON_C_TO_STRING_SPACED), fp) < 0 ||
	    fputc('\n', fp) == EOF)
		ret = -EIO;
out_put:
	json_object_put(ops);
	json_object_put(tensors);
	json_object_put(root);
	return ret;
}
