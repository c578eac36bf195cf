// SPDX-License-Identifier: GPL-2.0
/*
 * End-to-end tests of the model ioctls (create, plan, destroy) from
 * userspace, run inside QEMU.  TAP out; exit status = failures.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chaingraph.h"
#include "libnpa.h"
#include "procstate.h"
#include "tap.h"

/* x (input) -conv(w)-> a -relu in place-> b -conv(w)-> y (output) */
static struct npa_tensor_desc tensors[5];
static struct npa_op_desc ops[3];
static __u32 operands[] = { 0, 1, 2, 2, 3, 3, 1, 4 };
static struct npa_scratch_desc scratch[1];

static struct npa_graph_desc graph = {
	tensors, ops, operands, scratch, 5, 3, 8, 1,
};

static void graph_init(void)
{
	memset(tensors, 0, sizeof(tensors));
	memset(ops, 0, sizeof(ops));
	tensors[0] = (struct npa_tensor_desc){ .size = 4096, .flags = NPA_TENSOR_INPUT };
	tensors[1] = (struct npa_tensor_desc){ .size = 256, .flags = NPA_TENSOR_CONST };
	tensors[2] = (struct npa_tensor_desc){ .dims = { 1, 16, 16, 16 },
					       .dtype = NPA_DTYPE_INT8 };
	tensors[3] = (struct npa_tensor_desc){ .size = 4096 };
	tensors[4] = (struct npa_tensor_desc){ .size = 4096, .flags = NPA_TENSOR_OUTPUT };
	ops[0] = (struct npa_op_desc){ .kind = NPA_OP_CONV2D, .first_input = 0,
		.num_inputs = 2, .first_output = 2, .num_outputs = 1,
		.first_scratch = 0, .num_scratch = 1 };
	ops[1] = (struct npa_op_desc){ .kind = NPA_OP_ACTIVATION,
		.flags = NPA_OP_INPLACE, .first_input = 3, .num_inputs = 1,
		.first_output = 4, .num_outputs = 1 };
	ops[2] = (struct npa_op_desc){ .kind = NPA_OP_CONV2D, .first_input = 5,
		.num_inputs = 2, .first_output = 7, .num_outputs = 1 };
	scratch[0] = (struct npa_scratch_desc){ .size = 1024 };
	graph.num_tensors = 5;
}

static void fill_args(struct npa_model_create *a)
{
	memset(a, 0, sizeof(*a));
	a->tensors = (uintptr_t)tensors;
	a->ops = (uintptr_t)ops;
	a->operands = (uintptr_t)operands;
	a->scratch = (uintptr_t)scratch;
	a->num_tensors = 5;
	a->tensor_size = sizeof(tensors[0]);
	a->num_ops = 3;
	a->op_size = sizeof(ops[0]);
	a->num_operands = 8;
	a->num_scratch = 1;
	a->scratch_size = sizeof(scratch[0]);
}

static void test_create_plan_destroy(int fd, int fd2)
{
	struct npa_placement t[5], s[1];
	struct npa_model_create rep;
	__u32 nt = 5, ns = 1;
	int h, ret;

	graph_init();
	h = npa_model_create(fd, &graph, 0, 0, &rep);
	tap_ok(h > 0, "model create returns a handle (%d)", h);
	if (h <= 0)
		return;
	tap_ok(rep.tensor_bytes == 4096 && rep.lower_bound_bytes == 4096,
	       "tensor arena %llu bytes at the lower bound %llu",
	       (unsigned long long)rep.tensor_bytes,
	       (unsigned long long)rep.lower_bound_bytes);
	tap_ok(rep.plan_kind == NPA_PLAN_KIND_AT_BOUND,
	       "a plan at the lower bound reports NPA_PLAN_KIND_AT_BOUND (%u)",
	       rep.plan_kind);
	tap_ok(rep.naive_bytes == 8192, "naive sum %llu", (unsigned long long)rep.naive_bytes);
	tap_ok(rep.scratch_requested_bytes == 1024 &&
	       rep.scratch_growth_bytes <= rep.scratch_growth_naive_bytes &&
	       rep.arena_bytes == rep.tensor_bytes + rep.scratch_growth_bytes,
	       "scratch report: requested %llu growth %llu naive %llu",
	       (unsigned long long)rep.scratch_requested_bytes,
	       (unsigned long long)rep.scratch_growth_bytes,
	       (unsigned long long)rep.scratch_growth_naive_bytes);
	tap_ok(rep.num_buffers == 1, "in-place relu shares one buffer (%u)", rep.num_buffers);

	ret = npa_model_plan(fd, h, NULL, &nt, NULL, &ns);
	tap_ok(ret == 0 && nt == 5 && ns == 1, "plan read-back reports counts (%d %u %u)", ret, nt, ns);
	memset(t, 0xff, sizeof(t));
	ret = npa_model_plan(fd, h, t, &nt, s, &ns);
	tap_ok(ret == 0, "plan read-back (%d)", ret);
	tap_ok(t[2].offset == t[3].offset && (t[2].flags & NPA_PLACEMENT_ARENA),
	       "in-place output at its input's offset (%llu, %llu)",
	       (unsigned long long)t[2].offset, (unsigned long long)t[3].offset);
	tap_ok(!(t[0].flags & NPA_PLACEMENT_ARENA) && t[0].offset == ~0ULL,
	       "model input is not in the arena");
	tap_ok((s[0].flags & NPA_PLACEMENT_SCRATCH) && s[0].size == 1024 &&
	       s[0].lo == 0 && s[0].hi == 1, "scratch placement read back");

	ret = npa_model_plan(fd2, h, t, &nt, s, &ns);
	tap_ok(ret == -ENOENT, "another file cannot read the model (%d)", ret);
	ret = npa_model_destroy(fd2, h);
	tap_ok(ret == -ENOENT, "another file cannot destroy the model (%d)", ret);

	ret = npa_model_plan(fd, h, (void *)16, &nt, NULL, NULL);
	tap_ok(ret == -EFAULT, "plan read-back to a bad pointer fails with EFAULT (%d)", ret);

	ret = npa_model_destroy(fd, h);
	tap_ok(ret == 0, "destroy (%d)", ret);
	ret = npa_model_destroy(fd, h);
	tap_ok(ret == -ENOENT, "second destroy fails with ENOENT (%d)", ret);
	ret = npa_model_plan(fd, h, t, &nt, s, &ns);
	tap_ok(ret == -ENOENT, "plan of a destroyed model fails with ENOENT (%d)", ret);
}

struct bad_case {
	const char *desc;
	void (*mutate)(struct npa_model_create *a);
	int err;
	__u32 reason;	/* what the error report says */
	__u64 value;	/* and its value, where not 0 */
};

static void m_flags(struct npa_model_create *a) { a->flags = 1U << 30; }
static void m_reserved(struct npa_model_create *a) { a->reserved = 7; }
static void m_reserved2(struct npa_model_create *a) { a->reserved2 = 9; }
static void m_no_tensors(struct npa_model_create *a) { a->num_tensors = 0; }
static void m_many_tensors(struct npa_model_create *a) { a->num_tensors = 1U << 30; }
static void m_many_ops(struct npa_model_create *a) { a->num_ops = ~0U; }
static void m_tsize_zero(struct npa_model_create *a) { a->tensor_size = 0; }
static void m_tsize_huge(struct npa_model_create *a) { a->tensor_size = 1U << 20; }
static void m_ssize_zero(struct npa_model_create *a) { a->scratch_size = 0; }
static void m_bad_tensors(struct npa_model_create *a) { a->tensors = 16; }
static void m_bad_ops(struct npa_model_create *a) { a->ops = ~0ULL; }
static void m_bad_operands(struct npa_model_create *a) { a->operands = 4096; }
static void m_bad_scratch(struct npa_model_create *a) { a->scratch = 8; }
static void m_cycle(struct npa_model_create *a) { (void)a; operands[0] = 3; }
static void m_inplace(struct npa_model_create *a) { (void)a; tensors[3].size = 8; }
static void m_pad(struct npa_model_create *a) { (void)a; ops[1].pad = 7; }

static const struct bad_case bad_cases[] = {
	{ "unknown flag", m_flags, -EINVAL, NPA_ERR_UNKNOWN_FLAGS, 0 },
	{ "reserved field set", m_reserved, -EINVAL, NPA_ERR_NOT_ZERO, 7 },
	{ "reserved2 field set", m_reserved2, -EINVAL, NPA_ERR_NOT_ZERO, 9 },
	{ "no tensors", m_no_tensors, -EINVAL, NPA_ERR_BAD_VALUE, 0 },
	{ "too many tensors", m_many_tensors, -E2BIG, NPA_ERR_TOO_BIG, 0 },
	{ "too many ops", m_many_ops, -E2BIG, NPA_ERR_TOO_BIG, 0 },
	{ "tensor element size 0", m_tsize_zero, -EINVAL, NPA_ERR_BAD_VALUE, 0 },
	{ "tensor element size 1 MiB", m_tsize_huge, -EINVAL, NPA_ERR_BAD_VALUE, 0 },
	{ "scratch element size 0", m_ssize_zero, -EINVAL, NPA_ERR_BAD_VALUE, 0 },
	{ "bad tensors pointer", m_bad_tensors, -EFAULT, NPA_ERR_NONE, 0 },
	{ "bad ops pointer", m_bad_ops, -EFAULT, NPA_ERR_NONE, 0 },
	{ "bad operands pointer", m_bad_operands, -EFAULT, NPA_ERR_NONE, 0 },
	{ "bad scratch pointer", m_bad_scratch, -EFAULT, NPA_ERR_NONE, 0 },
	{ "cycle in the graph", m_cycle, -EINVAL, NPA_ERR_CYCLE, 0 },
	{ "in-place sizes differ", m_inplace, -EINVAL, NPA_ERR_SIZE_MISMATCH, 0 },
	{ "op pad set", m_pad, -EINVAL, NPA_ERR_NOT_ZERO, 0 },
};

static void test_create_invalid(int fd)
{
	struct npa_model_create a;
	size_t i;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		struct npa_error e;
		char why[256];
		int ret;

		graph_init();
		operands[0] = 0;
		fill_args(&a);
		memset(&e, 0xa5, sizeof(e));
		a.error = (__u64)(uintptr_t)&e;
		a.error_size = sizeof(e);
		bad_cases[i].mutate(&a);
		ret = npa_ioctl(fd, NPA_IOCTL_MODEL_CREATE, &a);
		tap_ok(ret == bad_cases[i].err && e.reason == bad_cases[i].reason &&
		       e.dim == NPA_ERR_NO_INDEX && !e.pad &&
		       (!bad_cases[i].value || e.value == bad_cases[i].value),
		       "create with %s fails with %d, reason %u, no dim (%d, %u, dim %#x: %s)",
		       bad_cases[i].desc, bad_cases[i].err, bad_cases[i].reason,
		       ret, e.reason, e.dim, npa_error_str(&e, why, sizeof(why)));
	}
	operands[0] = 0;
	graph_init();
}

/*
 * A plan made elsewhere: the model's own plan, read back, is taken as it
 * is; moved so that scratch lands on a live tensor, it is refused with
 * the report and no model is made.
 */
static void test_supplied_plan(int fd)
{
	struct npa_placement t[5], s[1];
	struct npa_model_create rep, rep2;
	__u32 nt = 5, ns = 1;
	struct npa_error e;
	char why[256];
	int h, h2, ret;

	graph_init();
	h = npa_model_create(fd, &graph, 0, 0, &rep);
	ret = npa_model_plan(fd, h, t, &nt, s, &ns);
	tap_ok(h > 0 && !ret, "supplied plan: a model to take the plan of (%d %d)", h, ret);
	h2 = npa_model_create_planned(fd, &graph, 0, 0, t, s, &rep2, &e);
	tap_ok(h2 > 0 && rep2.plan_kind == NPA_PLAN_KIND_SUPPLIED &&
	       rep2.arena_bytes == rep.arena_bytes &&
	       rep2.tensor_bytes == rep.tensor_bytes,
	       "supplied plan: the model's own plan is verified and taken (%d, kind %u, %llu bytes)",
	       h2, rep2.plan_kind, (unsigned long long)rep2.arena_bytes);
	if (h2 > 0)
		npa_model_destroy(fd, h2);
	s[0].offset = t[2].offset;
	h2 = npa_model_create_planned(fd, &graph, 0, 0, t, s, NULL, &e);
	npa_error_str(&e, why, sizeof(why));
	tap_ok(h2 == -EINVAL && e.array == NPA_ERR_ARRAY_PLAN_SCRATCH &&
	       e.index == 0 && e.reason == NPA_ERR_OVERLAP && e.value == 2,
	       "supplied plan: scratch on a live tensor is refused: \"%s\" (%d)",
	       why, h2);
	if (h2 > 0)
		npa_model_destroy(fd, h2);
	npa_model_destroy(fd, h);
}

/*
 * A supplied plan may put a tensor just below 2^64: what QUERY and fdinfo
 * add up for such a model must not wrap (PAGE_ALIGN() of its arena was 0,
 * and the file's sum came out below its own arena).
 */
static void test_supplied_huge_arena(int fd)
{
	struct npa_placement t[5], s[1];
	struct npa_model_create rep, big;
	unsigned long long arena = 0;
	__u32 nt = 5, ns = 1;
	struct npa_query q;
	struct npa_error e;
	char info[256] = "";
	int h, h2, ret;

	graph_init();
	h = npa_model_create(fd, &graph, 0, 0, &rep);
	ret = npa_model_plan(fd, h, t, &nt, s, &ns);
	tap_ok(h > 0 && !ret, "huge supplied arena: a plan to move (%d %d)", h, ret);
	/* The relu runs in place: both at one offset, 2 KiB below 2^64. */
	t[2].offset = t[3].offset = 0ULL - 6144;
	h2 = npa_model_create_planned(fd, &graph, 0, 0, t, s, &big, &e);
	tap_ok(h2 > 0 && big.arena_bytes == 0ULL - 2048,
	       "huge supplied arena: taken (%d, %llu bytes)", h2,
	       (unsigned long long)big.arena_bytes);
	ret = npa_query(fd, &q);
	tap_ok(!ret && q.arena_need_private_bytes >= big.arena_bytes,
	       "huge supplied arena: QUERY's private need does not wrap (%llu)",
	       (unsigned long long)q.arena_need_private_bytes);
	read_fdinfo(fd, "npa-arena-bytes:", info, sizeof(info));
	sscanf(info, "npa-arena-bytes: %llu", &arena);
	tap_ok(arena >= big.arena_bytes,
	       "huge supplied arena: fdinfo's sum does not wrap (%llu)", arena);
	if (h2 > 0)
		npa_model_destroy(fd, h2);
	if (h > 0)
		npa_model_destroy(fd, h);
}

/* libnpa puts the kernel's report in words. */
static void test_error_words(int fd)
{
	static const struct {
		unsigned int operand0;
		__u64 size3;
		const char *words;
	} cases[] = {
		{ 3, 4096, "op 0, operand 0: tensor 3 is read at or before op 1, which writes it" },
		{ 0, 8, "op 1: flags is 8 bytes, needs 4096" },
	};
	struct npa_error e;
	char why[256];
	size_t i;
	int ret;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		graph_init();
		operands[0] = cases[i].operand0;
		tensors[3].size = cases[i].size3;
		ret = npa_model_create_err(fd, &graph, 0, 0, NULL, &e);
		npa_error_str(&e, why, sizeof(why));
		tap_ok(ret == -EINVAL && !strcmp(why, cases[i].words),
		       "the report in words: \"%s\" (%d)", why, ret);
	}
	operands[0] = 0;
	graph_init();
}

/*
 * x [1, 3, 8, 8] * w [4, 3, 3, 3] + b [4] -> y [1, 4, 8, 8], padding 1,
 * with the output named first in the operands array: an operand's index
 * there is not its position within the op.
 */
struct conv_graph {
	struct npa_tensor_desc t[4];
	struct npa_op_desc op;
	__u32 opnd[4];
	struct npa_graph_desc g;
};

static void conv_graph_init(struct conv_graph *d)
{
	static const __u32 opnd[] = { 3, 0, 1, 2 };

	memset(d, 0, sizeof(*d));
	d->t[0] = (struct npa_tensor_desc){ .dims = { 1, 3, 8, 8 },
		.dtype = NPA_DTYPE_INT8, .flags = NPA_TENSOR_INPUT };
	d->t[1] = (struct npa_tensor_desc){ .dims = { 4, 3, 3, 3 },
		.dtype = NPA_DTYPE_INT8, .flags = NPA_TENSOR_CONST };
	d->t[2] = (struct npa_tensor_desc){ .dims = { 4 },
		.dtype = NPA_DTYPE_INT32, .flags = NPA_TENSOR_CONST };
	d->t[3] = (struct npa_tensor_desc){ .dims = { 1, 4, 8, 8 },
		.dtype = NPA_DTYPE_INT8, .flags = NPA_TENSOR_OUTPUT };
	d->op = (struct npa_op_desc){ .kind = NPA_OP_CONV2D,
		.first_input = 1, .num_inputs = 3, .first_output = 0,
		.num_outputs = 1,
		.params = { [NPA_P_KH] = 3, [NPA_P_KW] = 3, [NPA_P_SH] = 1,
			    [NPA_P_SW] = 1, [NPA_P_PAD_T] = 1,
			    [NPA_P_PAD_L] = 1, [NPA_P_SHIFT] = 7 } };
	memcpy(d->opnd, opnd, sizeof(opnd));
	d->g = (struct npa_graph_desc){ d->t, &d->op, d->opnd, NULL, 4, 1, 4, 0 };
}

/*
 * A conv whose weights, bias or output do not fit its input and params:
 * the kernel's report blames that operand, with its size and the size it
 * needs, and libnpa says so with the graph (uAPI 3.4).  The output is
 * named first in the operands array: an operand's index there is not its
 * position within the op.
 */
static void test_operand_blame(int fd)
{
	static const struct {
		const char *what;
		unsigned int tensor, dim;
		__u32 value;
		__u32 index;
		__u64 has, needs;
	} cases[] = {
		{ "weights 3x5 for a 3x3 conv", 1, 3, 5, 2, 180, 108 },
		{ "bias per input channel", 2, 0, 3, 3, 12, 16 },
		{ "output without padding", 3, 2, 6, 0, 192, 256 },
	};
	static const char *const roles[] = { "input", "weights", "bias", "output" };
	struct conv_graph d;
	char why[256], want[256];
	struct npa_error e;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		conv_graph_init(&d);
		d.t[cases[i].tensor].dims[cases[i].dim] = cases[i].value;
		ret = npa_model_create_err(fd, &d.g, 0, 0, NULL, &e);
		npa_error_str_graph(&e, &d.g, why, sizeof(why));
		snprintf(want, sizeof(want),
			 "op 0 (conv2d): operand %u (%s) is %llu bytes, needs %llu",
			 cases[i].tensor, roles[cases[i].tensor],
			 (unsigned long long)cases[i].has,
			 (unsigned long long)cases[i].needs);
		tap_ok(ret == -EINVAL && e.array == NPA_ERR_ARRAY_OPERANDS &&
		       e.index == cases[i].index &&
		       e.field == NPA_ERR_FIELD_SIZE &&
		       e.reason == NPA_ERR_SIZE_MISMATCH &&
		       e.value == cases[i].has && e.expected == cases[i].needs &&
		       e.op == 0 && e.tensor == cases[i].tensor &&
		       e.dim == NPA_ERR_NO_INDEX && !strcmp(why, want),
		       "%s: the operand is blamed, no dim: \"%s\" (%d)",
		       cases[i].what, why, ret);
		if (ret > 0)
			npa_model_destroy(fd, ret);
	}
	/* Params the NPU cannot run (stride 0) still blame the params. */
	conv_graph_init(&d);
	d.op.params[NPA_P_SH] = 0;
	ret = npa_model_create_err(fd, &d.g, 0, 0, NULL, &e);
	tap_ok(ret == -EINVAL && e.array == NPA_ERR_ARRAY_OPS && e.index == 0 &&
	       e.field == NPA_ERR_FIELD_PARAMS &&
	       e.reason == NPA_ERR_NOT_EXECUTABLE && e.dim == NPA_ERR_NO_INDEX,
	       "stride 0: the params are blamed (%d, array %u field %u reason %u dim %d)",
	       ret, e.array, e.field, e.reason, (int)e.dim);
	if (ret > 0)
		npa_model_destroy(fd, ret);
}

/* Weights [4, 3, 1, 9]: the kernel's height, dims[2], is wrong. */
static void d_weights_kh(struct conv_graph *d)
{
	d->t[1].dims[2] = 1;
	d->t[1].dims[3] = 9;
}

/* Output [1, 4, 16, 4]: of the right size, its rows are not 8. */
static void d_output_rows(struct conv_graph *d)
{
	d->t[3].dims[2] = 16;
	d->t[3].dims[3] = 4;
}

/* A depthwise conv of 4 channels given weights [2, 2, 3, 3]. */
static void d_dw_cout(struct conv_graph *d)
{
	d->op.kind = NPA_OP_DWCONV2D;
	d->t[0].dims[1] = 4;
	d->t[1].dims[0] = 2;
	d->t[1].dims[1] = 2;
}

/* Weights [8, 3, 3, 3]: Cout 8, the output's 4: its size is blamed. */
static void d_conv_cout(struct conv_graph *d) { d->t[1].dims[0] = 8; }

/* The input [1, 0, 8, 8]: a 0 before a non-zero dim. */
static void d_input_gap(struct conv_graph *d) { d->t[0].dims[1] = 0; }

/* The bias [2^32 - 1, 2^32 - 1, 2^32 - 1] of int32: 2^66 bytes. */
static void d_bias_overflow(struct conv_graph *d)
{
	d->t[2].dims[0] = 0xffffffffU;
	d->t[2].dims[1] = 0xffffffffU;
	d->t[2].dims[2] = 0xffffffffU;
}

/*
 * Refusals of a dims field name the dim (uAPI 3.6): the operand checks of
 * the NPU (an operand whose bytes are right but not its shape) and graph
 * validation's own (a shape with a gap, a shape that overflows), in the
 * report and in libnpa's words; a refusal of another field names none.
 */
static void test_dim_blame(int fd)
{
	static const struct {
		const char *what;
		void (*mutate)(struct conv_graph *d);
		int err;
		__u32 array, index, field, reason, dim;
		__u64 value, expected;
		const char *words;
	} cases[] = {
		{ "weights of the wrong kernel height", d_weights_kh, -EINVAL,
		  NPA_ERR_ARRAY_OPERANDS, 2, NPA_ERR_FIELD_DIMS,
		  NPA_ERR_OPERAND_MISMATCH, 2, 1, 3,
		  "op 0 (conv2d): operand 1 (weights) has 1 in dims[2] where 3 is needed" },
		{ "an output of the right size and the wrong rows", d_output_rows,
		  -EINVAL, NPA_ERR_ARRAY_OPERANDS, 0, NPA_ERR_FIELD_DIMS,
		  NPA_ERR_OPERAND_MISMATCH, 2, 16, 8,
		  "op 0 (conv2d): operand 3 (output) has 16 in dims[2] where 8 is needed" },
		{ "depthwise weights of another Cout", d_dw_cout, -EINVAL,
		  NPA_ERR_ARRAY_OPERANDS, 2, NPA_ERR_FIELD_DIMS,
		  NPA_ERR_OPERAND_MISMATCH, 0, 2, 4,
		  "op 0 (dwconv2d): operand 1 (weights) has 2 in dims[0] where 4 is needed" },
		{ "weights of another Cout than the output's", d_conv_cout,
		  -EINVAL, NPA_ERR_ARRAY_OPERANDS, 0, NPA_ERR_FIELD_SIZE,
		  NPA_ERR_SIZE_MISMATCH, NPA_ERR_NO_INDEX, 256, 512,
		  "op 0 (conv2d): operand 3 (output) is 256 bytes, needs 512" },
		{ "an input with a 0 dim", d_input_gap, -EINVAL,
		  NPA_ERR_ARRAY_TENSORS, 0, NPA_ERR_FIELD_DIMS,
		  NPA_ERR_BAD_SHAPE, 1, 0, 0,
		  "tensor 0: dims[1] has a 0 before a non-zero dim, or dims without a dtype" },
		{ "a bias whose shape overflows", d_bias_overflow, -EOVERFLOW,
		  NPA_ERR_ARRAY_TENSORS, 2, NPA_ERR_FIELD_DIMS,
		  NPA_ERR_OVERFLOW, 1, 0, 0,
		  "tensor 2: dims[1] overflows 64 bits" },
	};
	struct conv_graph d;
	char why[256];
	struct npa_error e;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		conv_graph_init(&d);
		cases[i].mutate(&d);
		ret = npa_model_create_err(fd, &d.g, 0, 0, NULL, &e);
		npa_error_str_graph(&e, &d.g, why, sizeof(why));
		tap_ok(ret == cases[i].err && e.array == cases[i].array &&
		       e.index == cases[i].index && e.field == cases[i].field &&
		       e.reason == cases[i].reason && e.dim == cases[i].dim &&
		       e.value == cases[i].value &&
		       e.expected == cases[i].expected && !e.pad &&
		       !strcmp(why, cases[i].words),
		       "%s: dim %d blamed: \"%s\" (%d, dim %d)", cases[i].what,
		       (int)cases[i].dim, why, ret, (int)e.dim);
		if (ret > 0)
			npa_model_destroy(fd, ret);
	}
}

/* MODEL_CREATE @a with a report of @size bytes in @buf, 0xa5 before. */
static int create_report(int fd, struct npa_model_create *a,
			 unsigned char *buf, size_t len, __u32 size)
{
	memset(buf, 0xa5, len);
	a->error = (uintptr_t)buf;
	a->error_size = size;
	return npa_ioctl(fd, NPA_IOCTL_MODEL_CREATE, a);
}

/* Bytes of @buf from @from to @to that are not @c. */
static size_t bytes_not(const unsigned char *buf, size_t from, size_t to,
			unsigned char c)
{
	size_t n = 0;

	for (; from < to; from++)
		n += buf[from] != c;
	return n;
}

/*
 * The report grows like an array element: of a 40-byte report (3.5's
 * struct) the kernel writes 40 bytes and nothing after them; of a 48-byte
 * one all of it; of a longer one, zeroes after its own.
 */
static void test_error_size(int fd)
{
	unsigned char buf[64], full[64];
	struct npa_model_create a;
	struct conv_graph d;
	struct npa_error e;
	size_t bad;
	int ret;

	conv_graph_init(&d);
	d_weights_kh(&d);
	memset(&a, 0, sizeof(a));
	a.tensors = (uintptr_t)d.t;
	a.ops = (uintptr_t)&d.op;
	a.operands = (uintptr_t)d.opnd;
	a.num_tensors = 4;
	a.tensor_size = sizeof(d.t[0]);
	a.num_ops = 1;
	a.op_size = sizeof(d.op);
	a.num_operands = 4;
	a.scratch_size = sizeof(struct npa_scratch_desc);

	ret = create_report(fd, &a, full, sizeof(full), sizeof(e));
	memcpy(&e, full, sizeof(e));
	bad = bytes_not(full, sizeof(e), sizeof(full), 0xa5);
	tap_ok(ret == -EINVAL && sizeof(e) == 48 && e.dim == 2 && !e.pad &&
	       e.field == NPA_ERR_FIELD_DIMS && !bad,
	       "error_size 48: the whole report, dim 2, nothing after it (%d, dim %u, %zu bytes after)",
	       ret, e.dim, bad);

	ret = create_report(fd, &a, buf, sizeof(buf), 40);
	bad = bytes_not(buf, 40, sizeof(buf), 0xa5);
	tap_ok(ret == -EINVAL && !memcmp(buf, full, 40) && !bad,
	       "error_size 40 (3.5's struct): the same 40 bytes, nothing written after them (%d, %zu bytes)",
	       ret, bad);

	ret = create_report(fd, &a, buf, sizeof(buf), 56);
	bad = bytes_not(buf, 48, 56, 0) + bytes_not(buf, 56, sizeof(buf), 0xa5);
	tap_ok(ret == -EINVAL && !memcmp(buf, full, 48) && !bad,
	       "error_size 56: the report, then zeroes up to 56 and nothing after (%d, %zu bytes wrong)",
	       ret, bad);

	ret = create_report(fd, &a, buf, sizeof(buf), 257);
	tap_ok(ret == -EINVAL && bytes_not(buf, 0, sizeof(buf), 0xa5) == 0,
	       "error_size 257 fails with EINVAL, the report untouched (%d)", ret);
}

/* Element sizes from older and newer userspace. */
static void test_element_sizes(int fd)
{
	struct npa_op_desc_big {
		struct npa_op_desc op;
		__u64 future;
	} big[3];
	const size_t old = offsetof(struct npa_op_desc, params);
	unsigned char small[3 * sizeof(struct npa_op_desc)];
	struct npa_model_create a;
	int ret, i;

	graph_init();
	/* Older userspace: ops without params (all zero anyway). */
	for (i = 0; i < 3; i++)
		memcpy(small + i * old, &ops[i], old);
	fill_args(&a);
	a.ops = (uintptr_t)small;
	a.op_size = old;
	ret = npa_ioctl(fd, NPA_IOCTL_MODEL_CREATE, &a);
	tap_ok(ret == 0 && a.handle > 0, "shorter op elements work (%d)", ret);
	if (!ret)
		npa_model_destroy(fd, a.handle);

	/* Newer userspace: a longer op element with a zero tail. */
	for (i = 0; i < 3; i++) {
		big[i].op = ops[i];
		big[i].future = 0;
	}
	fill_args(&a);
	a.ops = (uintptr_t)big;
	a.op_size = sizeof(big[0]);
	ret = npa_ioctl(fd, NPA_IOCTL_MODEL_CREATE, &a);
	tap_ok(ret == 0, "longer op elements with a zero tail work (%d)", ret);
	if (!ret)
		npa_model_destroy(fd, a.handle);

	big[1].future = 1;
	fill_args(&a);
	a.ops = (uintptr_t)big;
	a.op_size = sizeof(big[0]);
	ret = npa_ioctl(fd, NPA_IOCTL_MODEL_CREATE, &a);
	tap_ok(ret == -E2BIG, "longer op elements with a non-zero tail fail with E2BIG (%d)", ret);
}

/*
 * Two ops may name the same operands, but not more of them in all than
 * max_operands: two CONCATs of 2^17 copies of one input would otherwise
 * be walked op by op, 2^18 ids at a time (a graph of 65535 such ops took
 * 47 s of kernel time to refuse).
 */
static void test_operand_refs(int fd)
{
	const __u32 n = 1U << 17;
	struct npa_tensor_desc t[3] = {
		{ .size = 1, .flags = NPA_TENSOR_INPUT },
		{ .size = n, .flags = NPA_TENSOR_OUTPUT },
		{ .size = n, .flags = NPA_TENSOR_OUTPUT },
	};
	struct npa_op_desc o[2] = {
		{ .kind = NPA_OP_CONCAT, .first_input = 0, .num_inputs = n,
		  .first_output = n, .num_outputs = 1 },
		{ .kind = NPA_OP_CONCAT, .first_input = 0, .num_inputs = n,
		  .first_output = n + 1, .num_outputs = 1 },
	};
	__u32 *ids = calloc(n + 2, sizeof(*ids));
	struct npa_model_create a;
	int ret;

	if (!ids) {
		tap_ok(0, "operand references: no memory");
		return;
	}
	ids[n] = 1;
	ids[n + 1] = 2;
	memset(&a, 0, sizeof(a));
	a.tensors = (uintptr_t)t;
	a.ops = (uintptr_t)o;
	a.operands = (uintptr_t)ids;
	a.num_tensors = 3;
	a.tensor_size = sizeof(t[0]);
	a.num_ops = 2;
	a.op_size = sizeof(o[0]);
	a.num_operands = n + 2;
	a.scratch_size = sizeof(struct npa_scratch_desc);
	ret = npa_ioctl(fd, NPA_IOCTL_MODEL_CREATE, &a);
	tap_ok(ret == -E2BIG,
	       "ops naming 2^18 + 2 operand ids in all (2^17 + 2 in the array) fail with E2BIG (%d)",
	       ret);
	free(ids);
}

/* 64 models per file; the 65th is refused; closing frees them all. */
static void test_model_limit(void)
{
	int fd = npa_open(NULL), i, h = 0, n = 0;

	graph_init();
	for (i = 0; i < 64; i++) {
		h = npa_model_create(fd, &graph, 0, 0, NULL);
		n += h > 0;
	}
	tap_ok(n == 64, "64 models on one file (%d)", n);
	h = npa_model_create(fd, &graph, 0, 0, NULL);
	tap_ok(h == -EDQUOT, "the 65th fails with EDQUOT (%d)", h);
	npa_model_destroy(fd, 7);
	h = npa_model_create(fd, &graph, 0, 0, NULL);
	tap_ok(h == 7, "a freed handle is reused (%d)", h);
	tap_ok(npa_close(fd) == 0, "close a file holding 64 models");
}

/* npa_model_bindings(): the kernel's list of what every job binds. */
static void test_bindings(int fd)
{
	struct npa_bound_tensor b[4];
	__u32 n = 0;
	int h, ret;

	graph_init();
	tensors[1].align = 256;
	h = npa_model_create(fd, &graph, 0, 0, NULL);
	ret = npa_model_bindings(fd, h, NULL, &n);
	tap_ok(h > 0 && ret == 0 && n == 3,
	       "bindings: the count alone: 3 (%d, %d, %u)", h, ret, n);
	memset(b, 0xff, sizeof(b));
	n = 4;
	ret = npa_model_bindings(fd, h, b, &n);
	tap_ok(ret == 0 && n == 3 && b[0].tensor == 0 &&
	       b[0].flags == NPA_TENSOR_INPUT && b[0].size == 4096 &&
	       b[0].align == 64 && b[1].tensor == 1 &&
	       b[1].flags == NPA_TENSOR_CONST && b[1].size == 256 &&
	       b[1].align == 256 && b[2].tensor == 4 &&
	       b[2].flags == NPA_TENSOR_OUTPUT && b[2].size == 4096 &&
	       b[2].align == 64 && !b[0].reserved && !b[1].reserved &&
	       !b[2].reserved && b[3].tensor == 0xffffffffU,
	       "bindings: input, weights and output in id order, with bytes and alignment (the NPU's 64, the weights' own 256)");
	memset(b, 0xff, sizeof(b));
	n = 1;
	ret = npa_model_bindings(fd, h, b, &n);
	tap_ok(ret == 0 && n == 3 && b[0].tensor == 0 &&
	       b[1].tensor == 0xffffffffU,
	       "bindings: room for one fills one and returns the count 3 (%d, %u)",
	       ret, n);
	npa_model_destroy(fd, h);
	ret = npa_model_bindings(fd, h, b, &n);
	tap_ok(ret == -ENOENT, "bindings of a destroyed model: ENOENT (%d)", ret);
}

/*
 * debugfs models is made a step at a time (a model's header, then its
 * tensors a chunk at a time), each step under the device lock only as
 * long as it takes: a model created after the first read() shows up in
 * the rest.  Before, the first read() printed every tensor of every model
 * under the lock, and later reads returned that snapshot.
 */
#define CHAIN 1024
static struct npa_tensor_desc ch_tensors[CHAIN];
static struct npa_op_desc ch_ops[CHAIN - 1];
static __u32 ch_operands[2 * (CHAIN - 1)];

static void test_debugfs_models(int fd)
{
	struct npa_graph_desc g = chain_graph(ch_tensors, ch_ops, ch_operands,
					      CHAIN);
	static char text[1 << 20];
	char want[64], *line;
	size_t len = 0;
	ssize_t n;
	int h, h2 = -1, dfd, lines = 0, tlines = 0, found = 0;

	h = npa_model_create(fd, &g, 0, 0, NULL);
	dfd = open("/sys/kernel/debug/npa0/models", O_RDONLY);
	n = dfd < 0 || h <= 0 ? -1 : read(dfd, text, 4096);
	if (n > 0) {
		len = n;
		graph_init();
		h2 = npa_model_create(fd, &graph, 0, 0, NULL);
	}
	read_rest(dfd, text, len, sizeof(text));
	snprintf(want, sizeof(want), "model %d: 5 tensors", h2);
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		lines++;
		tlines += !strncmp(line, "  t", 3);
		found += !strncmp(line, want, strlen(want));
	}
	tap_ok(h > 0 && h2 > 0 && tlines >= CHAIN - 2,
	       "debugfs models: %d lines, %d of them tensors of a %d-tensor chain (%d, %d)",
	       lines, tlines, CHAIN, h, h2);
	tap_ok(found == 1,
	       "debugfs models: a model created after the first read() is in the rest (%d)",
	       found);
	npa_model_destroy(fd, h2);
	npa_model_destroy(fd, h);
}

/*
 * debugfs models keeps its place by model: a model destroyed between two
 * read()s, before the reader's place, makes the rest skip and repeat
 * nothing.  Before, the place was a count of the steps before it, and the
 * rest skipped the destroyed model's two steps (128 tensor lines).
 */
static void test_debugfs_models_stable(int fd)
{
	struct npa_graph_desc g = chain_graph(ch_tensors, ch_ops, ch_operands,
					      CHAIN);
	static char text[1 << 20];
	static unsigned char seen[CHAIN];
	int a, h, dfd, mine = 0, twice = 0, distinct = 0, first = 0;
	char want[64], *line;
	size_t len = 0;
	ssize_t n;

	graph_init();
	a = npa_model_create(fd, &graph, 0, 0, NULL);
	h = npa_model_create(fd, &g, 0, 0, NULL);
	snprintf(want, sizeof(want), "model %d: %d tensors", h, CHAIN);
	dfd = open("/sys/kernel/debug/npa0/models", O_RDONLY);
	n = dfd < 0 || a <= 0 || h <= 0 ? -1 : read(dfd, text, 4096);
	if (n > 0) {
		text[n] = 0;
		/* The place is inside h's tensors, after a. */
		first = !!strstr(text, want);
		len = n;
		npa_model_destroy(fd, a);
	}
	read_rest(dfd, text, len, sizeof(text));
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long t;

		if (!strncmp(line, "model ", 6)) {
			mine = !strncmp(line, want, strlen(want));
		} else if (mine && !strncmp(line, "  t", 3)) {
			t = strtoul(line + 3, NULL, 10);
			if (t < CHAIN && seen[t]++)
				twice++;
			else if (t < CHAIN)
				distinct++;
		}
	}
	tap_ok(first && distinct == CHAIN - 2 && !twice,
	       "debugfs models: a model destroyed between two read()s, before the reader's place: %d of %d tensors, %d twice (%d)",
	       distinct, CHAIN - 2, twice, first);
	npa_model_destroy(fd, h);
}

int main(void)
{
	int fd = npa_open(NULL), fd2 = npa_open(NULL);

	tap_ok(fd >= 0 && fd2 >= 0, "open /dev/npa0 twice");
	if (fd < 0 || fd2 < 0)
		return 1;
	test_create_plan_destroy(fd, fd2);
	test_create_invalid(fd);
	test_error_words(fd);
	test_operand_blame(fd);
	test_dim_blame(fd);
	test_error_size(fd);
	test_supplied_plan(fd);
	test_supplied_huge_arena(fd);
	test_bindings(fd);
	test_element_sizes(fd);
	test_operand_refs(fd);
	test_model_limit();
	test_debugfs_models(fd);
	test_debugfs_models_stable(fd);
	npa_close(fd2);
	npa_close(fd);
	return tap_failed;
}
