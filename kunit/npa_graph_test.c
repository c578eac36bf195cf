// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for graph validation and lowering (in-place, concat, split,
 * per-unit alignment).
 */

#include <kunit/test.h>
#include <linux/npa.h>

#include "npa_graph.h"
#include "npa_plan.h"

/*
 * The base graph: x (input) -conv(w)-> a -relu in place-> b -conv(w)-> y
 * (output), with one fixed scratch buffer on the first conv.
 */
struct npa_tg {
	struct npa_tensor_desc t[6];
	struct npa_op_desc ops[3];
	u32 opnd[8];
	struct npa_scratch_desc sc[1];
	struct npa_graph g;
};

static void npa_tg_init(struct npa_tg *tg)
{
	static const u32 opnd[] = { 0, 1, 2, 2, 3, 3, 1, 4 };

	memset(tg, 0, sizeof(*tg));
	tg->t[0] = (struct npa_tensor_desc){ .size = 1024, .flags = NPA_TENSOR_INPUT };
	tg->t[1] = (struct npa_tensor_desc){ .size = 256, .flags = NPA_TENSOR_CONST };
	tg->t[2] = (struct npa_tensor_desc){ .dims = { 1, 8, 8, 16 },
					     .dtype = NPA_DTYPE_INT8 };
	tg->t[3] = (struct npa_tensor_desc){ .size = 1024 };
	tg->t[4] = (struct npa_tensor_desc){ .size = 1024, .flags = NPA_TENSOR_OUTPUT };
	tg->ops[0] = (struct npa_op_desc){ .kind = NPA_OP_CONV2D,
		.first_input = 0, .num_inputs = 2, .first_output = 2,
		.num_outputs = 1, .first_scratch = 0, .num_scratch = 1 };
	tg->ops[1] = (struct npa_op_desc){ .kind = NPA_OP_ACTIVATION,
		.flags = NPA_OP_INPLACE, .first_input = 3, .num_inputs = 1,
		.first_output = 4, .num_outputs = 1 };
	tg->ops[2] = (struct npa_op_desc){ .kind = NPA_OP_CONV2D,
		.first_input = 5, .num_inputs = 2, .first_output = 7,
		.num_outputs = 1 };
	memcpy(tg->opnd, opnd, sizeof(opnd));
	tg->sc[0] = (struct npa_scratch_desc){ .size = 512 };
	tg->g = (struct npa_graph){ tg->t, tg->ops, tg->opnd, tg->sc,
				    5, 3, 8, 1 };
}

struct npa_graph_bad {
	const char *desc;
	void (*mutate)(struct npa_tg *tg);
	int err;
	u32 array, field, reason;
	u32 dim;	/* the report's dim: NPA_ERR_NO_INDEX but for dims */
};

/* A mutation of the base graph that makes it invalid. */
#define BAD(name, ...)							\
	static void npa_bad_##name(struct npa_tg *tg) { __VA_ARGS__; }

BAD(no_tensors, tg->g.num_tensors = 0)
BAD(no_ops, tg->g.num_ops = 0)
BAD(many_tensors, tg->g.num_tensors = npa_graph_default_limits.max_tensors + 1)
BAD(many_ops, tg->g.num_ops = npa_graph_default_limits.max_ops + 1)
BAD(many_operands, tg->g.num_operands = npa_graph_default_limits.max_operands + 1)
BAD(many_scratch, tg->g.num_scratch = npa_graph_default_limits.max_scratch + 1)
BAD(tensor_flags, tg->t[3].flags = BIT(31))
BAD(tensor_const_input, tg->t[1].flags |= NPA_TENSOR_INPUT)
BAD(tensor_pad, tg->t[3].pad = 1)
BAD(tensor_dtype, tg->t[2].dtype = NPA_DTYPE_COUNT)
BAD(tensor_align_npot, tg->t[3].align = 48)
BAD(tensor_align_huge, tg->t[3].align = 2 << 20)
BAD(tensor_dims_gap, tg->t[2].dims[1] = 0)
BAD(tensor_dims_first, tg->t[2].dims[0] = 0)
static void npa_bad_tensor_dims_gaps(struct npa_tg *tg)
{
	tg->t[2].dims[0] = 0;
	tg->t[2].dims[1] = 0;
	tg->t[2].dims[2] = 0;
}

/* A size-only tensor has no dims at all, not only no first one. */
BAD(tensor_dims_no_dtype, tg->t[3].dims[2] = 7)
static void npa_bad_tensor_dims_overflow(struct npa_tg *tg)
{
	tg->t[2].dims[0] = U32_MAX;
	tg->t[2].dims[1] = U32_MAX;
	tg->t[2].dims[2] = U32_MAX;
	tg->t[2].dtype = NPA_DTYPE_INT32;
}

BAD(tensor_no_size, tg->t[3].size = 0)
BAD(tensor_size_shape, tg->t[2].size = 1000)
BAD(tensor_too_big, tg->t[3].size = 1ULL << 41)
BAD(scratch_flags, tg->sc[0].flags = BIT(7))
BAD(scratch_zero, tg->sc[0].size = 0)
BAD(scratch_align, tg->sc[0].align = 3)
BAD(scratch_fixed_min, tg->sc[0].min_size = 4)
static void npa_bad_scratch_var_min(struct npa_tg *tg)
{
	tg->sc[0].flags = NPA_SCRATCH_VARIABLE;
	tg->sc[0].min_size = 513;
}

BAD(scratch_too_big, tg->sc[0].size = 1ULL << 41)
BAD(op_kind_zero, tg->ops[1].kind = 0)
BAD(op_kind_big, tg->ops[1].kind = NPA_OP_KIND_COUNT)
BAD(op_unit, tg->ops[1].unit = NPA_UNIT_COUNT)
BAD(op_flags, tg->ops[1].flags = BIT(9))
BAD(op_pad, tg->ops[1].pad = 1)
BAD(op_arity_in, tg->ops[1].num_inputs = 2)
/* ops[1] as a kind that only moves bytes: it defines no params. */
BAD(op_params_concat, tg->ops[1].kind = NPA_OP_CONCAT; tg->ops[1].params[7] = 1)
BAD(op_params_split, tg->ops[1].kind = NPA_OP_SPLIT; tg->ops[1].params[0] = 1)
BAD(op_params_reshape, tg->ops[1].kind = NPA_OP_RESHAPE; tg->ops[1].params[3] = -1)
BAD(op_params_copy, tg->ops[1].kind = NPA_OP_COPY; tg->ops[1].params[0] = S32_MIN)
/* Size-only tensors: the params the kind does not define are still 0. */
BAD(op_params_act, tg->ops[1].params[NPA_P_SHIFT] = 1)
static void npa_bad_op_params_maxpool_shift(struct npa_tg *tg)
{
	tg->ops[0].kind = NPA_OP_MAXPOOL;
	tg->ops[0].num_inputs = 1;
	tg->ops[0].params[NPA_P_SHIFT] = 2;
}

BAD(op_arity_out, tg->ops[2].num_outputs = 0)
BAD(op_input_range, tg->ops[2].first_input = 7)
BAD(op_input_wrap, tg->ops[2].first_input = U32_MAX)
BAD(op_output_range, tg->ops[2].first_output = 8)
BAD(op_scratch_range, tg->ops[2].first_scratch = 1; tg->ops[2].num_scratch = 1)
BAD(operand_id, tg->opnd[6] = 5)
BAD(scratch_shared, tg->ops[2].num_scratch = 1)
BAD(scratch_unowned, tg->ops[0].num_scratch = 0)
BAD(inplace_size, tg->t[3].size = 512)
BAD(writes_input, tg->opnd[7] = 0)
BAD(writes_const, tg->opnd[7] = 1)
BAD(produced_twice, tg->opnd[7] = 3)
BAD(never_produced, tg->t[1].flags = 0)
BAD(cycle, tg->opnd[0] = 3)
BAD(self_loop, tg->opnd[3] = 3)
static void npa_bad_output_unproduced(struct npa_tg *tg)
{
	tg->g.num_tensors = 6;
	tg->t[5] = (struct npa_tensor_desc){ .size = 64, .flags = NPA_TENSOR_OUTPUT };
}

#define CASE_DIM(name, e, a, f, r, d) \
	{ #name, npa_bad_##name, e, NPA_ERR_ARRAY_##a, NPA_ERR_FIELD_##f, \
	  NPA_ERR_##r, d }
#define CASE(name, e, a, f, r) CASE_DIM(name, e, a, f, r, NPA_ERR_NO_INDEX)

static const struct npa_graph_bad npa_graph_bads[] = {
	CASE(no_tensors, -EINVAL, ARGS, NUM_TENSORS, BAD_VALUE),
	CASE(no_ops, -EINVAL, ARGS, NUM_OPS, BAD_VALUE),
	CASE(many_tensors, -E2BIG, ARGS, NUM_TENSORS, TOO_BIG),
	CASE(many_ops, -E2BIG, ARGS, NUM_OPS, TOO_BIG),
	CASE(many_operands, -E2BIG, ARGS, NUM_OPERANDS, TOO_BIG),
	CASE(many_scratch, -E2BIG, ARGS, NUM_SCRATCH, TOO_BIG),
	CASE(tensor_flags, -EINVAL, TENSORS, FLAGS, UNKNOWN_FLAGS),
	CASE(tensor_const_input, -EINVAL, TENSORS, FLAGS, FLAG_CONFLICT),
	CASE(tensor_pad, -EINVAL, TENSORS, PAD, NOT_ZERO),
	CASE(tensor_dtype, -EINVAL, TENSORS, DTYPE, BAD_VALUE),
	CASE(tensor_align_npot, -EINVAL, TENSORS, ALIGN, BAD_ALIGN),
	CASE(tensor_align_huge, -EINVAL, TENSORS, ALIGN, BAD_ALIGN),
	/* [1, 0, 8, 16]: the 0 is blamed; [0, 8, 8, 16], [0, 0, 0, 16]: the first. */
	CASE_DIM(tensor_dims_gap, -EINVAL, TENSORS, DIMS, BAD_SHAPE, 1),
	CASE_DIM(tensor_dims_first, -EINVAL, TENSORS, DIMS, BAD_SHAPE, 0),
	CASE_DIM(tensor_dims_gaps, -EINVAL, TENSORS, DIMS, BAD_SHAPE, 0),
	/* No dtype: the dim that should be 0. */
	CASE_DIM(tensor_dims_no_dtype, -EINVAL, TENSORS, DIMS, BAD_SHAPE, 2),
	/* 4 * (2^32 - 1) bytes fit, times 2^32 - 1 again do not. */
	CASE_DIM(tensor_dims_overflow, -EOVERFLOW, TENSORS, DIMS, OVERFLOW, 1),
	CASE(tensor_no_size, -EINVAL, TENSORS, SIZE, NO_SIZE),
	CASE(tensor_size_shape, -EINVAL, TENSORS, SIZE, SIZE_MISMATCH),
	CASE(tensor_too_big, -E2BIG, TENSORS, SIZE, TOO_BIG),
	CASE(scratch_flags, -EINVAL, SCRATCH, FLAGS, UNKNOWN_FLAGS),
	CASE(scratch_zero, -EINVAL, SCRATCH, SIZE, BAD_VALUE),
	CASE(scratch_align, -EINVAL, SCRATCH, ALIGN, BAD_ALIGN),
	CASE(scratch_fixed_min, -EINVAL, SCRATCH, MIN_SIZE, BAD_VALUE),
	CASE(scratch_var_min, -EINVAL, SCRATCH, MIN_SIZE, BAD_VALUE),
	CASE(scratch_too_big, -E2BIG, SCRATCH, SIZE, TOO_BIG),
	CASE(op_kind_zero, -EINVAL, OPS, KIND, BAD_VALUE),
	CASE(op_kind_big, -EINVAL, OPS, KIND, BAD_VALUE),
	CASE(op_unit, -EINVAL, OPS, UNIT, BAD_VALUE),
	CASE(op_flags, -EINVAL, OPS, FLAGS, UNKNOWN_FLAGS),
	CASE(op_pad, -EINVAL, OPS, PAD, NOT_ZERO),
	CASE(op_arity_in, -EINVAL, OPS, NUM_INPUTS, ARITY),
	CASE(op_params_concat, -EINVAL, OPS, PARAMS, NOT_ZERO),
	CASE(op_params_split, -EINVAL, OPS, PARAMS, NOT_ZERO),
	CASE(op_params_reshape, -EINVAL, OPS, PARAMS, NOT_ZERO),
	CASE(op_params_copy, -EINVAL, OPS, PARAMS, NOT_ZERO),
	CASE(op_params_act, -EINVAL, OPS, PARAMS, NOT_ZERO),
	CASE(op_params_maxpool_shift, -EINVAL, OPS, PARAMS, NOT_ZERO),
	CASE(op_arity_out, -EINVAL, OPS, NUM_OUTPUTS, ARITY),
	CASE(op_input_range, -EINVAL, OPS, FIRST_INPUT, OUT_OF_RANGE),
	CASE(op_input_wrap, -EINVAL, OPS, FIRST_INPUT, OUT_OF_RANGE),
	CASE(op_output_range, -EINVAL, OPS, FIRST_OUTPUT, OUT_OF_RANGE),
	CASE(op_scratch_range, -EINVAL, OPS, FIRST_SCRATCH, OUT_OF_RANGE),
	CASE(operand_id, -EINVAL, OPERANDS, ID, OUT_OF_RANGE),
	CASE(scratch_shared, -EINVAL, OPS, FIRST_SCRATCH, SCRATCH_SHARED),
	CASE(scratch_unowned, -EINVAL, SCRATCH, NONE, SCRATCH_UNOWNED),
	CASE(inplace_size, -EINVAL, OPS, FLAGS, SIZE_MISMATCH),
	CASE(writes_input, -EINVAL, OPERANDS, ID, WRITES_INPUT),
	CASE(writes_const, -EINVAL, OPERANDS, ID, WRITES_INPUT),
	CASE(produced_twice, -EINVAL, OPERANDS, ID, TWO_PRODUCERS),
	CASE(never_produced, -EINVAL, OPERANDS, ID, NOT_PRODUCED),
	CASE(cycle, -EINVAL, OPERANDS, ID, CYCLE),
	CASE(self_loop, -EINVAL, OPERANDS, ID, CYCLE),
	CASE(output_unproduced, -EINVAL, TENSORS, FLAGS, NOT_PRODUCED),
};

static void npa_graph_bad_desc(const struct npa_graph_bad *b, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s: %d", b->desc, b->err);
}

KUNIT_ARRAY_PARAM(npa_graph_bad, npa_graph_bads, npa_graph_bad_desc);

static void npa_graph_test_valid(struct kunit *test)
{
	struct npa_tg *tg = kunit_kzalloc(test, sizeof(*tg), GFP_KERNEL);
	struct npa_error err = { };

	KUNIT_ASSERT_NOT_NULL(test, tg);
	npa_tg_init(tg);
	KUNIT_EXPECT_EQ(test, npa_graph_validate(&tg->g, &npa_graph_default_limits,
						 &err), 0);
}

/*
 * The params an op's kind defines are free on size-only tensors (nothing
 * can check them without shapes); the move kinds with all params 0 are
 * valid.  The op_params_* cases above refuse the rest.
 */
static void npa_graph_test_params_defined(struct kunit *test)
{
	struct npa_tg *tg = kunit_kzalloc(test, sizeof(*tg), GFP_KERNEL);
	static const u32 moves[] = {
		NPA_OP_CONCAT, NPA_OP_SPLIT, NPA_OP_RESHAPE, NPA_OP_COPY,
	};
	struct npa_error err = { };
	u32 k;

	KUNIT_ASSERT_NOT_NULL(test, tg);
	for (k = 0; k < ARRAY_SIZE(moves); k++) {
		int ret;

		npa_tg_init(tg);
		tg->ops[1].kind = moves[k];
		ret = npa_graph_validate(&tg->g, &npa_graph_default_limits, &err);
		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "kind %u", moves[k]);
	}
	npa_tg_init(tg);
	for (k = 0; k < NPA_OP_MAX_PARAMS; k++)
		tg->ops[0].params[k] = k + 1;
	tg->ops[1].params[NPA_P_ACT] = NPA_ACT_LEAKY;
	KUNIT_EXPECT_EQ(test, npa_graph_validate(&tg->g, &npa_graph_default_limits,
						 &err), 0);
	tg->ops[0].kind = NPA_OP_MAXPOOL;
	tg->ops[0].num_inputs = 1;
	tg->ops[0].params[NPA_P_GROUPS] = 0;
	tg->ops[0].params[NPA_P_SHIFT] = 0;
	KUNIT_EXPECT_EQ(test, npa_graph_validate(&tg->g, &npa_graph_default_limits,
						 &err), 0);
}

static void npa_graph_test_invalid(struct kunit *test)
{
	const struct npa_graph_bad *b = test->param_value;
	struct npa_tg *tg = kunit_kzalloc(test, sizeof(*tg), GFP_KERNEL);
	struct npa_error err = { };
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, tg);
	npa_tg_init(tg);
	b->mutate(tg);
	ret = npa_graph_validate(&tg->g, &npa_graph_default_limits, &err);
	KUNIT_EXPECT_EQ(test, ret, b->err);
	KUNIT_EXPECT_EQ(test, err.array, b->array);
	KUNIT_EXPECT_EQ(test, err.field, b->field);
	KUNIT_EXPECT_EQ(test, err.reason, b->reason);
	KUNIT_EXPECT_EQ(test, err.dim, b->dim);
	KUNIT_EXPECT_EQ(test, err.pad, 0U);
}

static int npa_plan_res_init(struct kunit_resource *res, void *context)
{
	res->data = context;
	return 0;
}

static void npa_plan_res_free(struct kunit_resource *res)
{
	npa_layout_free(res->data);
}

static void npa_ir_res_free(struct kunit_resource *res)
{
	npa_ir_free(res->data);
}

/* The internal model of a valid @g, freed when the test ends. */
static struct npa_ir *npa_ir_built(struct kunit *test,
				   const struct npa_graph *g)
{
	struct npa_ir *ir = kunit_kzalloc(test, sizeof(*ir), GFP_KERNEL);
	struct npa_error err = { };

	KUNIT_ASSERT_NOT_NULL(test, ir);
	KUNIT_ASSERT_EQ(test, npa_graph_build(g, &npa_graph_default_limits,
					      ir, &err), 0);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, npa_plan_res_init,
							 npa_ir_res_free,
							 GFP_KERNEL, ir));
	return ir;
}

/*
 * Plan @g and check the plan: every arena tensor and scratch buffer inside
 * the arena and aligned; no two live at the same step overlap unless they
 * share a planner buffer (which is the point of sharing).
 */
static struct npa_layout *npa_plan_checked(struct kunit *test,
					   const struct npa_graph *g)
{
	struct npa_layout *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct npa_ir *ir = npa_ir_built(test, g);
	u32 n = g->num_tensors + g->num_scratch, i, j;

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, npa_layout_plan(ir, npa_graph_default_limits.fast_window,
					      npa_graph_default_limits.scratch_growth_pct,
					      0, p), 0);
	/* Freed when the test ends, even after a failed assertion. */
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, npa_plan_res_init,
							 npa_plan_res_free,
							 GFP_KERNEL, p));

	for (i = 0; i < n; i++) {
		const struct npa_ir_place *a = i < g->num_tensors ?
			&p->tensors[i] : &p->scratch[i - g->num_tensors];

		if (!(a->flags & NPA_IR_ARENA))
			continue;
		KUNIT_EXPECT_LE_MSG(test, a->offset + a->size, p->arena_bytes,
				    "buffer %u at %llu+%llu", i, a->offset, a->size);
		for (j = i + 1; j < n; j++) {
			const struct npa_ir_place *b = j < g->num_tensors ?
				&p->tensors[j] : &p->scratch[j - g->num_tensors];
			bool time = a->lo < b->hi && b->lo < a->hi;
			bool space = a->offset < b->offset + b->size &&
				     b->offset < a->offset + a->size;

			if (!(b->flags & NPA_IR_ARENA))
				continue;
			if (a->buffer != U32_MAX && a->buffer == b->buffer)
				continue;
			KUNIT_EXPECT_FALSE_MSG(test, time && space,
					       "%u [%u,%u)@%llu+%llu overlaps %u [%u,%u)@%llu+%llu",
					       i, a->lo, a->hi, a->offset, a->size,
					       j, b->lo, b->hi, b->offset, b->size);
		}
	}
	KUNIT_EXPECT_GE(test, p->tensor_bytes, p->lower_bound);
	KUNIT_EXPECT_EQ(test, p->arena_bytes, p->tensor_bytes + p->scratch_growth);
	return p;
}

static void npa_graph_test_inplace(struct kunit *test)
{
	struct npa_tg *tg = kunit_kzalloc(test, sizeof(*tg), GFP_KERNEL);
	struct npa_layout *p;

	KUNIT_ASSERT_NOT_NULL(test, tg);
	npa_tg_init(tg);
	p = npa_plan_checked(test, &tg->g);
	/* b overwrites a, which dies at the relu. */
	KUNIT_EXPECT_EQ(test, p->tensors[3].offset, p->tensors[2].offset);
	KUNIT_EXPECT_EQ(test, p->tensors[3].buffer, p->tensors[2].buffer);
	KUNIT_EXPECT_EQ(test, p->num_buffers, 1U);
	/* Inputs, outputs and constants are not in the arena. */
	KUNIT_EXPECT_FALSE(test, p->tensors[0].flags & NPA_IR_ARENA);
	KUNIT_EXPECT_FALSE(test, p->tensors[1].flags & NPA_IR_ARENA);
	KUNIT_EXPECT_FALSE(test, p->tensors[4].flags & NPA_IR_ARENA);
	KUNIT_EXPECT_EQ(test, p->naive_bytes, 2048ULL);
}

static void npa_graph_test_inplace_refused(struct kunit *test)
{
	struct npa_tg *tg = kunit_kzalloc(test, sizeof(*tg), GFP_KERNEL);
	struct npa_layout *p;

	KUNIT_ASSERT_NOT_NULL(test, tg);
	npa_tg_init(tg);
	/* The last conv reads a as well: a is still needed after the relu. */
	tg->opnd[6] = 2;
	p = npa_plan_checked(test, &tg->g);
	KUNIT_EXPECT_NE(test, p->tensors[3].buffer, p->tensors[2].buffer);
	KUNIT_EXPECT_EQ(test, p->num_buffers, 2U);
}

/*
 * relu(x) -> a, split(a) -> b, c; add(a, b) in place -> d: b lies inside
 * a, so writing d over a would change b before the add reads all of it.
 */
static void npa_graph_test_inplace_aliased(struct kunit *test)
{
	static const u32 opnd[] = { 0, 1, 1, 2, 3, 1, 2, 4, 4, 5 };
	struct npa_tensor_desc t[] = {
		{ .size = 2048, .flags = NPA_TENSOR_INPUT },
		{ .size = 2048 }, { .size = 1024 }, { .size = 1024 },
		{ .size = 2048 },
		{ .size = 2048, .flags = NPA_TENSOR_OUTPUT },
	};
	struct npa_op_desc ops[] = {
		{ .kind = NPA_OP_ACTIVATION, .first_input = 0, .num_inputs = 1,
		  .first_output = 1, .num_outputs = 1 },
		{ .kind = NPA_OP_SPLIT, .first_input = 2, .num_inputs = 1,
		  .first_output = 3, .num_outputs = 2 },
		{ .kind = NPA_OP_ADD, .flags = NPA_OP_INPLACE, .first_input = 5,
		  .num_inputs = 2, .first_output = 7, .num_outputs = 1 },
		{ .kind = NPA_OP_COPY, .first_input = 8, .num_inputs = 1,
		  .first_output = 9, .num_outputs = 1 },
	};
	struct npa_graph g = { t, ops, opnd, NULL, 6, 4, 10, 0 };
	struct npa_layout *p = npa_plan_checked(test, &g);
	const struct npa_ir_place *b = &p->tensors[2], *d = &p->tensors[4];

	KUNIT_EXPECT_NE(test, d->buffer, p->tensors[1].buffer);
	KUNIT_EXPECT_TRUE_MSG(test, d->offset >= b->offset + b->size ||
			      b->offset >= d->offset + d->size,
			      "d at %llu+%llu, b at %llu+%llu",
			      d->offset, d->size, b->offset, b->size);
}

/* An in-place concat still adds up: its inputs fill the output. */
static void npa_graph_test_concat_inplace(struct kunit *test)
{
	static const u32 opnd[] = { 0, 1, 0, 2, 0, 3, 1, 2, 3, 4, 4, 5 };
	struct npa_tensor_desc t[] = {
		{ .size = 64, .flags = NPA_TENSOR_INPUT },
		{ .size = 64 }, { .size = 64 }, { .size = 64 }, { .size = 64 },
		{ .size = 64, .flags = NPA_TENSOR_OUTPUT },
	};
	struct npa_op_desc ops[] = {
		{ .kind = NPA_OP_COPY, .first_input = 0, .num_inputs = 1,
		  .first_output = 1, .num_outputs = 1 },
		{ .kind = NPA_OP_COPY, .first_input = 2, .num_inputs = 1,
		  .first_output = 3, .num_outputs = 1 },
		{ .kind = NPA_OP_COPY, .first_input = 4, .num_inputs = 1,
		  .first_output = 5, .num_outputs = 1 },
		{ .kind = NPA_OP_CONCAT, .flags = NPA_OP_INPLACE, .first_input = 6,
		  .num_inputs = 3, .first_output = 9, .num_outputs = 1 },
		{ .kind = NPA_OP_COPY, .first_input = 10, .num_inputs = 1,
		  .first_output = 11, .num_outputs = 1 },
	};
	struct npa_graph g = { t, ops, opnd, NULL, 6, 5, 12, 0 };
	struct npa_error err = { };

	KUNIT_EXPECT_EQ(test, npa_graph_validate(&g, &npa_graph_default_limits, &err),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, err.array, (u32)NPA_ERR_ARRAY_OPS);
	KUNIT_EXPECT_EQ(test, err.field, (u32)NPA_ERR_FIELD_NUM_OUTPUTS);
	KUNIT_EXPECT_EQ(test, err.reason, (u32)NPA_ERR_SIZE_MISMATCH);
	KUNIT_EXPECT_EQ(test, err.index, 3U);
	KUNIT_EXPECT_EQ(test, err.op, 3U);
}

/* x -conv-> a, x -conv-> b, concat(a, b) -> c, c -conv-> y */
static void npa_graph_test_concat(struct kunit *test)
{
	static const u32 opnd[] = { 0, 1, 2, 0, 1, 3, 2, 3, 4, 4, 1, 5 };
	struct npa_tensor_desc t[] = {
		{ .size = 1024, .flags = NPA_TENSOR_INPUT },
		{ .size = 64, .flags = NPA_TENSOR_CONST },
		{ .size = 1024 }, { .size = 512 }, { .size = 1536 },
		{ .size = 256, .flags = NPA_TENSOR_OUTPUT },
	};
	struct npa_op_desc ops[] = {
		{ .kind = NPA_OP_CONV2D, .first_input = 0, .num_inputs = 2,
		  .first_output = 2, .num_outputs = 1 },
		{ .kind = NPA_OP_CONV2D, .first_input = 3, .num_inputs = 2,
		  .first_output = 5, .num_outputs = 1 },
		{ .kind = NPA_OP_CONCAT, .first_input = 6, .num_inputs = 2,
		  .first_output = 8, .num_outputs = 1 },
		{ .kind = NPA_OP_CONV2D, .first_input = 9, .num_inputs = 2,
		  .first_output = 11, .num_outputs = 1 },
	};
	struct npa_graph g = { t, ops, opnd, NULL, 6, 4, 12, 0 };
	struct npa_layout *p = npa_plan_checked(test, &g);

	KUNIT_EXPECT_EQ(test, p->tensors[2].offset, p->tensors[4].offset);
	KUNIT_EXPECT_EQ(test, p->tensors[3].offset, p->tensors[4].offset + 1024);
	KUNIT_EXPECT_EQ(test, p->num_buffers, 1U);
	KUNIT_EXPECT_EQ(test, p->tensor_bytes, 1536ULL);
}

/* A concat whose input is a model input must copy it: no sharing. */
static void npa_graph_test_concat_input(struct kunit *test)
{
	static const u32 opnd[] = { 0, 1, 2, 0, 2, 3, 3, 1, 4 };
	struct npa_tensor_desc t[] = {
		{ .size = 1024, .flags = NPA_TENSOR_INPUT },
		{ .size = 64, .flags = NPA_TENSOR_CONST },
		{ .size = 512 }, { .size = 1536 },
		{ .size = 256, .flags = NPA_TENSOR_OUTPUT },
	};
	struct npa_op_desc ops[] = {
		{ .kind = NPA_OP_CONV2D, .first_input = 0, .num_inputs = 2,
		  .first_output = 2, .num_outputs = 1 },
		{ .kind = NPA_OP_CONCAT, .first_input = 3, .num_inputs = 2,
		  .first_output = 5, .num_outputs = 1 },
		{ .kind = NPA_OP_CONV2D, .first_input = 6, .num_inputs = 2,
		  .first_output = 8, .num_outputs = 1 },
	};
	struct npa_graph g = { t, ops, opnd, NULL, 5, 3, 9, 0 };
	struct npa_layout *p = npa_plan_checked(test, &g);

	/* The conv output still goes into its slot after the input's bytes. */
	KUNIT_EXPECT_EQ(test, p->tensors[2].offset, p->tensors[3].offset + 1024);
	KUNIT_EXPECT_EQ(test, p->num_buffers, 1U);
}

/* x -conv-> a, split(a) -> b, c; conv(b), conv(c) */
static void npa_graph_test_split(struct kunit *test)
{
	static const u32 opnd[] = { 0, 1, 2, 2, 3, 4, 3, 1, 5, 4, 1, 6 };
	struct npa_tensor_desc t[] = {
		{ .size = 1024, .flags = NPA_TENSOR_INPUT },
		{ .size = 64, .flags = NPA_TENSOR_CONST },
		{ .size = 2048 }, { .size = 1024 }, { .size = 1024 },
		{ .size = 256, .flags = NPA_TENSOR_OUTPUT },
		{ .size = 256, .flags = NPA_TENSOR_OUTPUT },
	};
	struct npa_op_desc ops[] = {
		{ .kind = NPA_OP_CONV2D, .first_input = 0, .num_inputs = 2,
		  .first_output = 2, .num_outputs = 1 },
		{ .kind = NPA_OP_SPLIT, .first_input = 3, .num_inputs = 1,
		  .first_output = 4, .num_outputs = 2 },
		{ .kind = NPA_OP_CONV2D, .first_input = 6, .num_inputs = 2,
		  .first_output = 8, .num_outputs = 1 },
		{ .kind = NPA_OP_CONV2D, .first_input = 9, .num_inputs = 2,
		  .first_output = 11, .num_outputs = 1 },
	};
	struct npa_graph g = { t, ops, opnd, NULL, 7, 4, 12, 0 };
	struct npa_layout *p = npa_plan_checked(test, &g);

	KUNIT_EXPECT_EQ(test, p->tensors[3].offset, p->tensors[2].offset);
	KUNIT_EXPECT_EQ(test, p->tensors[4].offset, p->tensors[2].offset + 1024);
	KUNIT_EXPECT_EQ(test, p->tensor_bytes, 2048ULL);
}

/* Alignment: the strictest of the tensor's own and its units'. */
static void npa_graph_test_unit_align(struct kunit *test)
{
	struct npa_tg *tg = kunit_kzalloc(test, sizeof(*tg), GFP_KERNEL);
	struct npa_layout *p;

	KUNIT_ASSERT_NOT_NULL(test, tg);
	npa_tg_init(tg);
	tg->t[2].dims[3] = 15;		/* 960 bytes, made by the NPU */
	tg->t[3].size = 960;
	tg->ops[1].flags = 0;		/* no in-place: two buffers */
	tg->ops[1].unit = NPA_UNIT_CPU;
	tg->t[3].align = 4096;
	p = npa_plan_checked(test, &tg->g);
	/* Rounded up to the NPU's 64 bytes. */
	KUNIT_EXPECT_EQ(test, p->tensors[2].size, 960ULL);
	KUNIT_EXPECT_EQ(test, p->tensors[2].offset % 64, 0ULL);
	KUNIT_EXPECT_EQ(test, p->tensors[3].offset % 4096, 0ULL);
	KUNIT_EXPECT_EQ(test, p->tensors[3].size, 4096ULL);
}

/* A tensor read by several ops stays live until the last one. */
static void npa_graph_test_refcount(struct kunit *test)
{
	struct npa_tg *tg = kunit_kzalloc(test, sizeof(*tg), GFP_KERNEL);
	struct npa_layout *p;

	KUNIT_ASSERT_NOT_NULL(test, tg);
	npa_tg_init(tg);
	tg->ops[1].flags = 0;
	p = npa_plan_checked(test, &tg->g);
	KUNIT_EXPECT_EQ(test, p->tensors[2].lo, 0U);
	KUNIT_EXPECT_EQ(test, p->tensors[2].hi, 2U);
	KUNIT_EXPECT_EQ(test, p->tensors[3].lo, 1U);
	KUNIT_EXPECT_EQ(test, p->tensors[3].hi, 3U);
	/* Read once more by the last op: a lives until then. */
	tg->opnd[6] = 2;
	p = npa_plan_checked(test, &tg->g);
	KUNIT_EXPECT_EQ(test, p->tensors[2].hi, 3U);
}

/* Shaped operators must be executable: an unknown activation is refused. */
static void npa_graph_test_exec_check(struct kunit *test)
{
	static const u32 opnd[] = { 0, 1 };
	struct npa_tensor_desc t[] = {
		{ .dims = { 1, 4, 8, 8 }, .dtype = NPA_DTYPE_INT8,
		  .flags = NPA_TENSOR_INPUT },
		{ .dims = { 1, 4, 8, 8 }, .dtype = NPA_DTYPE_INT8,
		  .flags = NPA_TENSOR_OUTPUT },
	};
	struct npa_op_desc ops[] = {
		{ .kind = NPA_OP_ACTIVATION, .first_input = 0, .num_inputs = 1,
		  .first_output = 1, .num_outputs = 1,
		  .params = { [NPA_P_ACT] = NPA_ACT_RELU } },
	};
	struct npa_graph g = { t, ops, opnd, NULL, 2, 1, 2, 0 };
	struct npa_error err = { };

	KUNIT_EXPECT_TRUE(test, npa_ir_built(test, &g)->runnable);
	ops[0].params[NPA_P_ACT] = NPA_ACT_COUNT;
	KUNIT_EXPECT_EQ(test, npa_graph_validate(&g, &npa_graph_default_limits, &err),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, err.reason, (u32)NPA_ERR_NOT_EXECUTABLE);
	/* A shape the op cannot produce: the output is blamed. */
	ops[0].params[NPA_P_ACT] = NPA_ACT_RELU;
	t[1].dims[1] = 5;
	KUNIT_EXPECT_EQ(test, npa_graph_validate(&g, &npa_graph_default_limits, &err),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, err.array, (u32)NPA_ERR_ARRAY_OPERANDS);
	KUNIT_EXPECT_EQ(test, err.index, 1U);
	KUNIT_EXPECT_EQ(test, err.reason, (u32)NPA_ERR_SIZE_MISMATCH);
	KUNIT_EXPECT_EQ(test, err.value, 320ULL);
	KUNIT_EXPECT_EQ(test, err.expected, 256ULL);
	/* Sizes only: plannable, not runnable, not exec-checked. */
	t[1] = (struct npa_tensor_desc){ .size = 200, .flags = NPA_TENSOR_OUTPUT };
	KUNIT_EXPECT_FALSE(test, npa_ir_built(test, &g)->runnable);
}

/*
 * A 3x3 convolution x [1, 3, 8, 8] * w [4, 3, 3, 3] + b [4] -> y [1, 4, 8,
 * 8] (padding 1), its output named first in the operands array so that
 * an operand's index there differs from its position within the op.
 */
struct npa_cg {
	struct npa_tensor_desc t[4];
	struct npa_op_desc op;
	u32 opnd[4];
	struct npa_graph g;
};

static void npa_cg_init(struct npa_cg *cg)
{
	static const u32 opnd[] = { 3, 0, 1, 2 };

	memset(cg, 0, sizeof(*cg));
	cg->t[0] = (struct npa_tensor_desc){ .dims = { 1, 3, 8, 8 },
		.dtype = NPA_DTYPE_INT8, .flags = NPA_TENSOR_INPUT };
	cg->t[1] = (struct npa_tensor_desc){ .dims = { 4, 3, 3, 3 },
		.dtype = NPA_DTYPE_INT8, .flags = NPA_TENSOR_CONST };
	cg->t[2] = (struct npa_tensor_desc){ .dims = { 4 },
		.dtype = NPA_DTYPE_INT32, .flags = NPA_TENSOR_CONST };
	cg->t[3] = (struct npa_tensor_desc){ .dims = { 1, 4, 8, 8 },
		.dtype = NPA_DTYPE_INT8, .flags = NPA_TENSOR_OUTPUT };
	cg->op = (struct npa_op_desc){ .kind = NPA_OP_CONV2D,
		.first_input = 1, .num_inputs = 3, .first_output = 0,
		.num_outputs = 1,
		.params = { [NPA_P_KH] = 3, [NPA_P_KW] = 3, [NPA_P_SH] = 1,
			    [NPA_P_SW] = 1, [NPA_P_PAD_T] = 1,
			    [NPA_P_PAD_L] = 1, [NPA_P_SHIFT] = 7 } };
	memcpy(cg->opnd, opnd, sizeof(opnd));
	cg->g = (struct npa_graph){ cg->t, &cg->op, cg->opnd, NULL, 4, 1, 4, 0 };
}

/*
 * struct npa_exec_blamed - a conv npa_exec_check() refuses, and the report
 * @desc: what is wrong.
 * @mutate: makes it so in npa_cg_init()'s graph.
 * @array: the report's array, @index its element, @field, @reason.
 * @value: what the report says the element has, @expected what it needs.
 * @dim: the dim of its dims the report blames, or %NPA_ERR_NO_INDEX.
 */
struct npa_exec_blamed {
	const char *desc;
	void (*mutate)(struct npa_cg *cg);
	u32 array, index, field, reason;
	u64 value, expected;
	u32 dim;
};

#define CONV_BAD(name, ...)						\
	static void npa_cg_##name(struct npa_cg *cg) { __VA_ARGS__; }
CONV_BAD(weights_small, cg->t[1].dims[3] = 2)
CONV_BAD(weights_big, cg->t[1].dims[2] = 5; cg->t[1].dims[3] = 5)
CONV_BAD(weights_dtype, cg->t[1].dtype = NPA_DTYPE_UINT8)
CONV_BAD(weights_dims, cg->t[1].dims[2] = 1; cg->t[1].dims[3] = 9)
CONV_BAD(output_cout, cg->t[1].dims[0] = 8)
static void npa_cg_dw_weights_cout(struct npa_cg *cg)
{
	cg->op.kind = NPA_OP_DWCONV2D;
	cg->t[0].dims[1] = 4;
	cg->t[1].dims[0] = 2;
	cg->t[1].dims[1] = 2;
}

CONV_BAD(bias_small, cg->t[2].dims[0] = 2)
CONV_BAD(output_small, cg->t[3].dims[2] = 6; cg->t[3].dims[3] = 6)
CONV_BAD(output_dims, cg->t[3].dims[2] = 16; cg->t[3].dims[3] = 4)
CONV_BAD(input_dtype, cg->t[0].dtype = NPA_DTYPE_UINT8)
CONV_BAD(stride_zero, cg->op.params[NPA_P_SH] = 0)
CONV_BAD(kernel_too_big, cg->op.params[NPA_P_KH] = 11)
CONV_BAD(groups, cg->op.params[NPA_P_GROUPS] = 2)

#define BLAMED_DIM(name, a, i, f, r, v, e, d) \
	{ #name, npa_cg_##name, NPA_ERR_ARRAY_##a, i, NPA_ERR_FIELD_##f, \
	  NPA_ERR_##r, v, e, d }
#define BLAMED(name, a, i, f, r, v, e) \
	BLAMED_DIM(name, a, i, f, r, v, e, NPA_ERR_NO_INDEX)

static const struct npa_exec_blamed npa_exec_blames[] = {
	/* 4 * 3 * 3 * 2 bytes where 4 * 3 * 3 * 3 are needed. */
	BLAMED(weights_small, OPERANDS, 2, SIZE, SIZE_MISMATCH, 72, 108),
	BLAMED(weights_big, OPERANDS, 2, SIZE, SIZE_MISMATCH, 300, 108),
	BLAMED(weights_dtype, OPERANDS, 2, DTYPE, OPERAND_MISMATCH,
	       NPA_DTYPE_UINT8, NPA_DTYPE_INT8),
	/* Weights [4, 3, 1, 9]: dims[2], the kernel's height, is wrong. */
	BLAMED_DIM(weights_dims, OPERANDS, 2, DIMS, OPERAND_MISMATCH, 1, 3, 2),
	/* Weights [8, 3, 3, 3]: Cout is 8, and the output has 4 channels. */
	BLAMED(output_cout, OPERANDS, 0, SIZE, SIZE_MISMATCH, 256, 512),
	/* A DWCONV2D's Cout is its input's 4: weights [2, 2, 3, 3]. */
	BLAMED_DIM(dw_weights_cout, OPERANDS, 2, DIMS, OPERAND_MISMATCH, 2, 4, 0),
	BLAMED(bias_small, OPERANDS, 3, SIZE, SIZE_MISMATCH, 8, 16),
	BLAMED(output_small, OPERANDS, 0, SIZE, SIZE_MISMATCH, 144, 256),
	BLAMED_DIM(output_dims, OPERANDS, 0, DIMS, OPERAND_MISMATCH, 16, 8, 2),
	BLAMED(input_dtype, OPERANDS, 1, DTYPE, OPERAND_MISMATCH,
	       NPA_DTYPE_UINT8, NPA_DTYPE_INT8),
	BLAMED(stride_zero, OPS, 0, PARAMS, NOT_EXECUTABLE, 0, 0),
	BLAMED(kernel_too_big, OPS, 0, PARAMS, NOT_EXECUTABLE, 0, 0),
	BLAMED(groups, OPS, 0, PARAMS, NOT_EXECUTABLE, 0, 0),
};

static void npa_exec_blamed_desc(const struct npa_exec_blamed *b, char *desc)
{
	strscpy(desc, b->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(npa_exec_blamed, npa_exec_blames, npa_exec_blamed_desc);

/*
 * A wrong operand is blamed, with the bytes (or dtype, or dim) it has and
 * needs, and the op and tensor it concerns; wrong params blame the params.
 */
static void npa_graph_test_exec_blame(struct kunit *test)
{
	const struct npa_exec_blamed *b = test->param_value;
	struct npa_cg *cg = kunit_kzalloc(test, sizeof(*cg), GFP_KERNEL);
	struct npa_error err;

	KUNIT_ASSERT_NOT_NULL(test, cg);
	npa_cg_init(cg);
	memset(&err, 0, sizeof(err));
	KUNIT_ASSERT_EQ(test, npa_graph_validate(&cg->g, &npa_graph_default_limits,
						 &err), 0);
	b->mutate(cg);
	KUNIT_ASSERT_EQ(test, npa_graph_validate(&cg->g, &npa_graph_default_limits,
						 &err), -EINVAL);
	KUNIT_EXPECT_EQ(test, err.array, b->array);
	KUNIT_EXPECT_EQ(test, err.index, b->index);
	KUNIT_EXPECT_EQ(test, err.field, b->field);
	KUNIT_EXPECT_EQ(test, err.reason, b->reason);
	KUNIT_EXPECT_EQ(test, err.value, b->value);
	KUNIT_EXPECT_EQ(test, err.expected, b->expected);
	KUNIT_EXPECT_EQ(test, err.op, 0U);
	KUNIT_EXPECT_EQ(test, err.tensor, b->array == NPA_ERR_ARRAY_OPS ?
			NPA_ERR_NO_INDEX : cg->opnd[b->index]);
	KUNIT_EXPECT_EQ(test, err.dim, b->dim);
}

/*
 * A supplied plan: the base graph's own plan, given back, is taken as it
 * is; each mutation of it is refused with its reason.  In the base graph,
 * t2 and t3 share memory (ReLU in place) and scratch 0 lives with t2.
 */
struct npa_supplied_case {
	const char *desc;
	void (*mutate)(struct npa_ir_place *pt, struct npa_ir_place *ps);
	int err;
	u32 array, index, reason;
};

static void npa_sup_none(struct npa_ir_place *pt, struct npa_ir_place *ps) { }

static void npa_sup_unshared(struct npa_ir_place *pt, struct npa_ir_place *ps)
{
	pt[3].offset += 64;
}

static void npa_sup_misaligned(struct npa_ir_place *pt,
			       struct npa_ir_place *ps)
{
	pt[2].offset += 1;
	pt[3].offset += 1;
}

static void npa_sup_overlap(struct npa_ir_place *pt, struct npa_ir_place *ps)
{
	ps[0].offset = pt[2].offset;
}

static void npa_sup_scratch_size(struct npa_ir_place *pt,
				 struct npa_ir_place *ps)
{
	ps[0].size = 256;
}

static void npa_sup_scratch_align(struct npa_ir_place *pt,
				  struct npa_ir_place *ps)
{
	ps[0].offset += 16;
}

static const struct npa_supplied_case npa_supplied_cases[] = {
	{ "its own plan", npa_sup_none, 0 },
	{ "t3 away from t2, which it shares", npa_sup_unshared, -EINVAL,
	  NPA_ERR_ARRAY_PLAN_TENSORS, 3, NPA_ERR_NOT_SHARED },
	{ "t2 (and t3) one byte off", npa_sup_misaligned, -EINVAL,
	  NPA_ERR_ARRAY_PLAN_TENSORS, 2, NPA_ERR_MISALIGNED },
	{ "scratch 0 on t2", npa_sup_overlap, -EINVAL,
	  NPA_ERR_ARRAY_PLAN_SCRATCH, 0, NPA_ERR_OVERLAP },
	{ "scratch 0 granted 256 of a fixed 512", npa_sup_scratch_size, -EINVAL,
	  NPA_ERR_ARRAY_PLAN_SCRATCH, 0, NPA_ERR_BAD_VALUE },
	{ "scratch 0 16 bytes off its unit's 64", npa_sup_scratch_align,
	  -EINVAL, NPA_ERR_ARRAY_PLAN_SCRATCH, 0, NPA_ERR_MISALIGNED },
};

static void npa_supplied_case_desc(const struct npa_supplied_case *c,
				   char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(npa_supplied, npa_supplied_cases, npa_supplied_case_desc);

static void npa_graph_test_supplied(struct kunit *test)
{
	const struct npa_supplied_case *c = test->param_value;
	struct npa_tg *tg = kunit_kzalloc(test, sizeof(*tg), GFP_KERNEL);
	struct npa_ir_place pt[5], ps[1];
	struct npa_layout *p, *q;
	struct npa_error err = { };
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, tg);
	npa_tg_init(tg);
	p = npa_plan_checked(test, &tg->g);
	memcpy(pt, p->tensors, sizeof(pt));
	memcpy(ps, p->scratch, sizeof(ps));
	c->mutate(pt, ps);
	q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q);
	ret = npa_graph_plan_supplied(npa_ir_built(test, &tg->g),
				      &npa_graph_default_limits, pt, ps, q, &err);
	KUNIT_EXPECT_EQ(test, ret, c->err);
	if (ret) {
		KUNIT_EXPECT_EQ(test, err.array, c->array);
		KUNIT_EXPECT_EQ(test, err.index, c->index);
		KUNIT_EXPECT_EQ(test, err.reason, c->reason);
		return;
	}
	KUNIT_EXPECT_TRUE(test, q->supplied);
	KUNIT_EXPECT_EQ(test, q->arena_bytes, p->arena_bytes);
	KUNIT_EXPECT_EQ(test, q->tensor_bytes, p->tensor_bytes);
	KUNIT_EXPECT_EQ(test, memcmp(q->tensors, p->tensors, sizeof(pt)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(q->scratch, p->scratch, sizeof(ps)), 0);
	npa_layout_free(q);
}

static struct kunit_case npa_graph_test_cases[] = {
	KUNIT_CASE(npa_graph_test_valid),
	KUNIT_CASE_PARAM(npa_graph_test_invalid, npa_graph_bad_gen_params),
	KUNIT_CASE(npa_graph_test_params_defined),
	KUNIT_CASE(npa_graph_test_inplace),
	KUNIT_CASE(npa_graph_test_inplace_refused),
	KUNIT_CASE(npa_graph_test_inplace_aliased),
	KUNIT_CASE(npa_graph_test_concat_inplace),
	KUNIT_CASE(npa_graph_test_concat),
	KUNIT_CASE(npa_graph_test_concat_input),
	KUNIT_CASE(npa_graph_test_split),
	KUNIT_CASE(npa_graph_test_unit_align),
	KUNIT_CASE(npa_graph_test_refcount),
	KUNIT_CASE(npa_graph_test_exec_check),
	KUNIT_CASE_PARAM(npa_graph_test_exec_blame, npa_exec_blamed_gen_params),
	KUNIT_CASE_PARAM(npa_graph_test_supplied, npa_supplied_gen_params),
	{}
};

static struct kunit_suite npa_graph_test_suite = {
	.name = "npa_graph",
	.test_cases = npa_graph_test_cases,
};

kunit_test_suite(npa_graph_test_suite);
