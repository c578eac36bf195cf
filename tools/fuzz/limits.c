// SPDX-License-Identifier: GPL-2.0
/*
 * npa-limits: time npa_graph_validate() and npa_layout_plan() on the host
 * for the largest graphs npa_graph_default_limits allow and for graphs
 * just over them; prints the reStructuredText table of
 * Documentation/hardening.rst.  make -C tools/fuzz limits
 *
 * Graphs (N = max_tensors = max_ops = 65536):
 *   chain       N-1 ops in a line over shaped int8 tensors (exec-checked)
 *   random      N-1 ADDs, each of the last tensor and a random one of the
 *               2048 before it: lifetimes of random length, sizes 64 B..1 MiB
 *   nested      N/2 tensors produced one after the other and consumed in
 *               reverse order: every one live with every other (the most
 *               pressure, sizes 64 B..1 MiB, shape-less)
 *   nested+s    nested, and a scratch request on every op (max_scratch)
 *   concat      one CONCAT of N-2 inputs (a wide operand list)
 *   1tib        nested with every tensor at max_tensor_bytes
 *   overlap     N-1 CONCATs that all name one range of 3 * 2^16 operand
 *               ids: refused once the ids named pass max_operands
 *   over-*      one count above its limit: refused before any allocation
 * Budgets: 0 (the default), and the largest MODEL_CREATE accepts
 * (NPA_MAX_PLAN_BUDGET, 2^24 units of work).
 */
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/npa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "npa_graph.h"
#include "npa_plan.h"

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct gb {
	struct npa_tensor_desc *t;
	struct npa_op_desc *op;
	u32 *opd;
	struct npa_scratch_desc *s;
	struct npa_graph g;
};

static void gb_alloc(struct gb *b, u32 nt, u32 no, u32 nopd, u32 ns)
{
	b->t = calloc(nt ? nt : 1, sizeof(*b->t));
	b->op = calloc(no ? no : 1, sizeof(*b->op));
	b->opd = calloc(nopd ? nopd : 1, sizeof(*b->opd));
	b->s = calloc(ns ? ns : 1, sizeof(*b->s));
	if (!b->t || !b->op || !b->opd || !b->s)
		exit(1);
	b->g = (struct npa_graph){ b->t, b->op, b->opd, b->s, nt, no, 0, ns };
}

static void gb_free(struct gb *b)
{
	free(b->t);
	free(b->op);
	free(b->opd);
	free(b->s);
}

static void gb_op(struct gb *b, u32 i, u32 kind, u32 unit, const u32 *in,
		  u32 nin, u32 out, u32 scratch)
{
	struct npa_op_desc *op = &b->op[i];
	u32 k;

	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->unit = unit;
	op->first_input = b->g.num_operands;
	op->num_inputs = nin;
	for (k = 0; k < nin; k++)
		b->opd[b->g.num_operands++] = in[k];
	op->first_output = b->g.num_operands;
	op->num_outputs = 1;
	b->opd[b->g.num_operands++] = out;
	if (scratch != UINT32_MAX) {
		op->first_scratch = scratch;
		op->num_scratch = 1;
	}
	if (kind == NPA_OP_ACTIVATION)
		op->params[NPA_P_ACT] = NPA_ACT_RELU;
}

static u32 rnd(u64 *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

/* A line of ACTIVATION ops over [1, C, 1, 1] int8 tensors. */
static void build_chain(struct gb *b, u32 n)
{
	u32 i;

	gb_alloc(b, n, n - 1, 2 * n, 0);
	for (i = 0; i < n; i++) {
		b->t[i].dtype = NPA_DTYPE_INT8;
		b->t[i].dims[0] = 1;
		b->t[i].dims[1] = 4096;
	}
	b->t[0].flags = NPA_TENSOR_INPUT;
	b->t[n - 1].flags = NPA_TENSOR_OUTPUT;
	for (i = 0; i + 1 < n; i++)
		gb_op(b, i, i % 3 == 2 ? NPA_OP_COPY : NPA_OP_ACTIVATION,
		      i % NPA_UNIT_COUNT, &i, 1, i + 1, UINT32_MAX);
}

/*
 * Input x; ops 0..m-1 read x into t_1..t_m; ops m..2m-1 read t_m..t_1 into
 * outputs: nested lifetimes, all of t_1..t_m live at step m.  Shape-less
 * tensors (planned, never executed) so that the sizes can differ.
 */
static void build_nested(struct gb *b, u32 n, bool scratch, u64 size)
{
	u32 m = (n - 1) / 2, i, in, no = 2 * m;
	u64 seed = 1;

	gb_alloc(b, 1 + 2 * m, no, 2 * no, scratch ? no : 0);
	b->t[0] = (struct npa_tensor_desc){ .size = 64, .flags = NPA_TENSOR_INPUT };
	for (i = 0; i < m; i++) {
		in = 0;
		b->t[1 + i].size = size ? size : 64ULL << (rnd(&seed) % 15);
		gb_op(b, i, NPA_OP_ACTIVATION, i % NPA_UNIT_COUNT, &in, 1, 1 + i,
		      scratch ? i : UINT32_MAX);
	}
	for (i = 0; i < m; i++) {
		in = m - i;
		b->t[1 + m + i] = (struct npa_tensor_desc){
			.size = b->t[in].size, .flags = NPA_TENSOR_OUTPUT };
		gb_op(b, m + i, NPA_OP_ACTIVATION, i % NPA_UNIT_COUNT, &in, 1,
		      1 + m + i, scratch ? m + i : UINT32_MAX);
	}
	for (i = 0; i < b->g.num_scratch; i++) {
		b->s[i].size = 256ULL << (i % 9);
		if (i % 4 == 1) {
			b->s[i].flags = NPA_SCRATCH_VARIABLE;
			b->s[i].min_size = b->s[i].size / 4;
		}
		if (i % 4 == 2)
			b->s[i].flags = NPA_SCRATCH_LATENCY;
	}
}

/*
 * Op i adds t_i and a random earlier t_(i-d), d up to 8 or 2048, into t_(i+1):
 * lifetimes of random length and sizes 64 B..1 MiB, the hard case.
 */
static void build_random(struct gb *b, u32 n)
{
	u32 i, in[2];
	u64 seed = 7;

	gb_alloc(b, n, n - 1, 3 * (n - 1), 0);
	for (i = 0; i < n; i++)
		b->t[i].size = 64ULL << (rnd(&seed) % 15);
	b->t[0].flags = NPA_TENSOR_INPUT;
	b->t[n - 1].flags = NPA_TENSOR_OUTPUT;
	for (i = 0; i + 1 < n; i++) {
		u32 d = 1 + rnd(&seed) % (rnd(&seed) % 2 ? 8 : 2048);

		in[0] = i;
		in[1] = i >= d ? i - d : 0;
		gb_op(b, i, NPA_OP_ADD, i % NPA_UNIT_COUNT, in, 2, i + 1,
		      UINT32_MAX);
	}
}

/* One CONCAT of n-2 inputs of 64 B each, fed by COPYs from the input. */
static void build_concat(struct gb *b, u32 n)
{
	u32 m = n - 2, i, *in = malloc(m * sizeof(u32)), x = 0;

	gb_alloc(b, n, m + 1, 2 * m + m + 1, 0);
	b->t[0] = (struct npa_tensor_desc){ .size = 64, .flags = NPA_TENSOR_INPUT };
	for (i = 0; i < m; i++) {
		b->t[1 + i] = (struct npa_tensor_desc){ .size = 64 };
		gb_op(b, i, NPA_OP_COPY, i % NPA_UNIT_COUNT, &x, 1, 1 + i, UINT32_MAX);
		in[i] = 1 + i;
	}
	b->t[n - 1] = (struct npa_tensor_desc){ .size = 64ULL * m,
					       .flags = NPA_TENSOR_OUTPUT };
	gb_op(b, m, NPA_OP_CONCAT, NPA_UNIT_DMA, in, m, n - 1, UINT32_MAX);
	free(in);
}

/* n-1 CONCATs of one input, each naming the same 3 * 2^16 operand ids. */
static void build_overlap(struct gb *b, u32 n)
{
	u32 w = 3U << 16, i;

	gb_alloc(b, n, n - 1, w + n - 1, 0);
	b->g.num_operands = w + n - 1;
	b->t[0] = (struct npa_tensor_desc){ .size = 1, .flags = NPA_TENSOR_INPUT };
	for (i = 0; i + 1 < n; i++) {
		b->t[1 + i] = (struct npa_tensor_desc){ .size = w,
			.flags = NPA_TENSOR_OUTPUT };
		b->op[i] = (struct npa_op_desc){ .kind = NPA_OP_CONCAT,
			.unit = NPA_UNIT_DMA, .num_inputs = w,
			.first_output = w + i, .num_outputs = 1 };
		b->opd[w + i] = 1 + i;
	}
}

static void run(const char *name, struct gb *b, u64 budget)
{
	const struct npa_graph_limits *lim = &npa_graph_default_limits;
	struct npa_error err = { };
	struct npa_layout plan;
	struct npa_ir ir;
	u64 t0, t1, t2;
	int ret;

	t0 = now_ns();
	ret = npa_graph_build(&b->g, lim, &ir, &err);
	t1 = now_ns();
	if (ret) {
		printf("   %-12s %7u %7u %8u %7u  %-8s %9.3f %-28s %s\n", name,
		       b->g.num_tensors, b->g.num_ops, b->g.num_operands,
		       b->g.num_scratch, budget == NPA_MAX_PLAN_BUDGET ? "max" : "default",
		       (t1 - t0) / 1e6, "-", "refused");
		fprintf(stderr, "%s: %d array %u[%u] field %u reason %u\n", name,
			ret, err.array, err.index, err.field, err.reason);
		return;
	}
	ret = npa_layout_plan(&ir, lim->fast_window, lim->scratch_growth_pct,
			      budget, &plan);
	t2 = now_ns();
	if (ret) {
		printf("%s: plan failed %d\n", name, ret);
		npa_ir_free(&ir);
		return;
	}
	printf("   %-12s %7u %7u %8u %7u  %-8s %9.3f %9.1f  %-17s %s\n", name,
	       b->g.num_tensors, b->g.num_ops, b->g.num_operands,
	       b->g.num_scratch, budget == NPA_MAX_PLAN_BUDGET ? "max" : "default",
	       (t1 - t0) / 1e6, (t2 - t1) / 1e6,
	       npa_plan_algo_name(plan.algorithm),
	       plan.tensor_bytes == plan.lower_bound ? "(at lower bound)" : "");
	fprintf(stderr, "%s: arena %llu tensors %llu lb %llu buffers %u\n", name,
		(unsigned long long)plan.arena_bytes,
		(unsigned long long)plan.tensor_bytes,
		(unsigned long long)plan.lower_bound, plan.num_buffers);
	npa_layout_free(&plan);
	npa_ir_free(&ir);
}

static void over(const char *name, u32 nt, u32 no, u32 nopd, u32 ns)
{
	struct gb b;

	/* The arrays are not even read: the counts are refused first. */
	b.g = (struct npa_graph){ NULL, NULL, NULL, NULL, nt, no, nopd, ns };
	run(name, &b, 0);
}

int main(int argc, char **argv)
{
	const struct npa_graph_limits *lim = &npa_graph_default_limits;
	u32 n = lim->max_tensors;
	bool quick = argc > 1 && !strcmp(argv[1], "--quick");
	struct gb b;

	printf("   %-12s %7s %7s %8s %7s  %-8s %9s %9s  %s\n", "graph", "tensors",
	       "ops", "operands", "scratch", "budget", "valid ms", "plan ms",
	       "algorithm");
	build_chain(&b, n);
	run("chain", &b, 0);
	gb_free(&b);
	build_random(&b, n);
	run("random", &b, 0);
	if (!quick)
		run("random", &b, NPA_MAX_PLAN_BUDGET);
	gb_free(&b);
	build_nested(&b, n, false, 0);
	run("nested", &b, 0);
	gb_free(&b);
	build_nested(&b, n, true, 0);
	run("nested+s", &b, 0);
	gb_free(&b);
	build_concat(&b, n);
	run("concat", &b, 0);
	gb_free(&b);
	build_nested(&b, n, false, lim->max_tensor_bytes);
	run("1tib", &b, 0);
	gb_free(&b);
	build_overlap(&b, n);
	run("overlap", &b, 0);
	gb_free(&b);
	over("over-tensors", n + 1, 1, 2, 0);
	over("over-ops", 2, lim->max_ops + 1, 2, 0);
	over("over-opds", 2, 1, lim->max_operands + 1, 0);
	over("over-scratch", 2, 1, 2, lim->max_scratch + 1);
	over("over-all", UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX);
	return 0;
}
