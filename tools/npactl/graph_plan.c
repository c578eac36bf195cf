// SPDX-License-Identifier: GPL-2.0-only
/*
 * DOC: npactl plan and npactl graph on model graphs
 *
 * `npactl plan FILE.json|FILE.cfg` reads a graph, validates it with
 * npa_graph_validate() and plans it with npa_layout_plan() against the
 * limits npa.ko reports, exactly as NPA_IOCTL_MODEL_CREATE would; then it
 * checks the plan with the planner's independent verifier and prints a
 * summary or JSON, and optionally writes the placements as CSV and draws
 * them as SVG.  `npactl graph FILE` shows the graph itself, or converts it
 * to the JSON graph format.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../lib/libnpa.h"
#include "npactl.h"
#include "graph.h"
#include "npa_cost.h"

/*
 * The arena as planner buffers: one per group of tensors that share memory
 * (spanning its members in space and time), one per scratch buffer.
 */
static int plan_arena_bufs(const struct npactl_graph *g,
			   const struct npa_layout *plan,
			   struct npa_plan_buf **out, u32 *n, u32 *ntensor)
{
	struct npa_plan_buf *b;
	u32 i, nb = 0, m;

	for (i = 0; i < g->num_tensors; i++)
		if ((plan->tensors[i].flags & NPA_IR_ARENA) &&
		    plan->tensors[i].buffer != U32_MAX)
			nb = max(nb, plan->tensors[i].buffer + 1);
	b = calloc((size_t)nb + g->num_scratch + 1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	for (i = 0; i < nb; i++) {
		b[i].offset = U64_MAX;
		b[i].lo = U32_MAX;
	}
	for (i = 0; i < g->num_tensors; i++) {
		const struct npa_ir_place *p = &plan->tensors[i];
		struct npa_plan_buf *x;
		u64 end;

		if (!(p->flags & NPA_IR_ARENA) || p->buffer >= nb)
			continue;
		x = &b[p->buffer];
		end = max(x->offset == U64_MAX ? 0 : x->offset + x->size,
			  p->offset + p->size);
		x->offset = min(x->offset, p->offset);
		x->size = end - x->offset;
		x->lo = min(x->lo, p->lo);
		x->hi = max(x->hi, p->hi);
	}
	/* Buffer indices no tensor uses become empty buffers. */
	for (i = 0; i < nb; i++) {
		if (b[i].offset == U64_MAX) {
			memset(&b[i], 0, sizeof(b[i]));
			b[i].hi = 1;
		}
	}
	m = nb;
	*ntensor = nb;
	for (i = 0; i < g->num_scratch; i++) {
		const struct npa_ir_place *p = &plan->scratch[i];

		if (!p->size)
			continue;
		b[m].offset = p->offset;
		b[m].size = p->size;
		b[m].lo = p->lo;
		b[m].hi = p->hi;
		m++;
	}
	*out = b;
	*n = m;
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const u64 *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/*
 * The least growth any scratch placement could reach with these tensor
 * offsets: at each step, the step's fixed requests and variable minimums
 * against the free bytes left below the tensors' arena top (ignoring
 * fragmentation and alignment, so a true lower bound).
 */
static u64 scratch_growth_bound(const struct npactl_graph *g,
				const struct npa_layout *plan,
				const struct npa_plan_buf *bufs, u32 nb)
{
	u64 (*r)[2], bound = 0;
	u32 i, k, n;

	r = calloc((size_t)nb + 1, sizeof(*r));
	if (!r)
		return 0;
	for (i = 0; i < g->num_ops; i++) {
		const struct npa_op_desc *op = &g->ops[i];
		u64 need = 0, used = 0, lo = 0, hi = 0;

		for (k = 0; k < op->num_scratch; k++) {
			const struct npa_scratch_desc *s =
				&g->scratch[op->first_scratch + k];

			need += s->flags & NPA_SCRATCH_VARIABLE ? s->min_size :
				s->size;
		}
		if (!need)
			continue;
		for (k = 0, n = 0; k < nb; k++) {
			if (bufs[k].size && bufs[k].lo <= i && i < bufs[k].hi) {
				r[n][0] = bufs[k].offset;
				r[n++][1] = bufs[k].offset + bufs[k].size;
			}
		}
		qsort(r, n, sizeof(*r), cmp_range);
		for (k = 0; k < n; k++) {
			if (!k || r[k][0] > hi) {
				used += hi - lo;
				lo = r[k][0];
				hi = r[k][1];
			} else {
				hi = max(hi, r[k][1]);
			}
		}
		used += hi - lo;
		if (need > plan->tensor_bytes - min(used, plan->tensor_bytes))
			bound = max(bound, need - (plan->tensor_bytes -
						   min(used, plan->tensor_bytes)));
	}
	free(r);
	return bound;
}

static u32 count_scratch(const struct npa_layout *plan, u32 n, u32 flag)
{
	u32 i, c = 0;

	for (i = 0; i < n; i++)
		c += !!(plan->scratch[i].flags & flag);
	return c;
}

/* The cost model's estimates: as planned, scratch at its most, at its least. */
struct plan_cycles {
	u64 planned;
	u64 unlimited;
	u64 minimum;
};

/*
 * Every variable scratch request granted @max (its size; or its minimum
 * where that costs its operator fewer cycles, npa_cost_graph_best()) or
 * else its minimum, at the offset the plan gave it, in the fast window
 * where the plan put it.
 */
static u64 cycles_resized(const struct npa_graph *view, const struct npa_ir *ir,
			  const struct npa_layout *plan, u64 fast_window,
			  bool max)
{
	struct npa_ir_place *sp;
	u64 cycles = 0, *least;
	u32 i;

	sp = calloc(view->num_scratch + 1, sizeof(*sp));
	least = calloc(view->num_scratch + 1, sizeof(*least));
	if (!sp || !least)
		goto out;
	for (i = 0; i < view->num_scratch; i++) {
		const struct npa_scratch_desc *d = &view->scratch[i];

		sp[i] = plan->scratch[i];
		least[i] = sp[i].size;
		if (d->flags & NPA_SCRATCH_VARIABLE) {
			sp[i].size = max ? d->size : d->min_size;
			least[i] = d->min_size;
		}
	}
	if (max)
		cycles = npa_cost_graph_best(ir, plan->tensors, sp, least,
					     fast_window);
	else
		cycles = npa_cost_graph(ir, plan->tensors, sp, fast_window);
out:
	free(least);
	free(sp);
	return cycles;
}

static void plan_cycles(const struct npa_graph *view, const struct npa_ir *ir,
			const struct npa_layout *plan, u64 fast_window,
			struct plan_cycles *c)
{
	c->planned = npa_cost_graph(ir, plan->tensors, plan->scratch,
				    fast_window);
	c->unlimited = cycles_resized(view, ir, plan, fast_window, true);
	c->minimum = cycles_resized(view, ir, plan, fast_window, false);
}

static double pct(u64 v, u64 of)
{
	return of ? 100.0 * (double)v / (double)of : 0.0;
}

static int print_json(const char *path, const struct npactl_graph *g,
		      const struct npa_layout *plan, u64 bound, int verify,
		      const struct plan_cycles *cyc)
{
	struct json_object *o = json_object_new_object();
	int ret = 0;

#define ADD(k, v)	json_object_object_add(o, k, v)
	if (!o)
		return -ENOMEM;
	ADD("input", json_object_new_string(path));
	if (g->note)
		ADD("note", json_object_new_string(g->note));
	ADD("tensors", json_object_new_int64(g->num_tensors));
	ADD("ops", json_object_new_int64(g->num_ops));
	ADD("scratch_requests", json_object_new_int64(g->num_scratch));
	ADD("buffers", json_object_new_int64(plan->num_buffers));
	ADD("peak_bytes", json_object_new_uint64(plan->arena_bytes));
	ADD("arena_bytes", json_object_new_uint64(plan->arena_bytes));
	ADD("tensor_bytes", json_object_new_uint64(plan->tensor_bytes));
	ADD("lower_bound_bytes", json_object_new_uint64(plan->lower_bound));
	ADD("naive_bytes", json_object_new_uint64(plan->naive_bytes));
	ADD("scratch_bytes_requested",
	    json_object_new_uint64(plan->scratch_requested));
	ADD("scratch_growth_bytes", json_object_new_uint64(plan->scratch_growth));
	ADD("scratch_growth_naive_bytes",
	    json_object_new_uint64(plan->scratch_growth_naive));
	ADD("scratch_growth_bound_bytes", json_object_new_uint64(bound));
	ADD("scratch_fast", json_object_new_int64(count_scratch(plan, g->num_scratch,
								NPA_IR_FAST)));
	ADD("sim_cycles", json_object_new_uint64(cyc->planned));
	ADD("sim_cycles_unlimited", json_object_new_uint64(cyc->unlimited));
	ADD("sim_cycles_minimum", json_object_new_uint64(cyc->minimum));
	ADD("plan_ns", json_object_new_uint64(plan->plan_ns));
	ADD("algorithm",
	    json_object_new_string(npa_plan_algo_name(plan->algorithm)));
	ADD("verified", json_object_new_boolean(!verify));
#undef ADD
	if (puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN)) < 0)
		ret = -EIO;
	json_object_put(o);
	return ret;
}

static void print_text(const char *path, const struct npactl_graph *g,
		       const struct npa_layout *plan, u64 bound, int verify,
		       const struct plan_cycles *cyc)
{
	printf("input:       %s\n", path);
	if (g->note)
		printf("changed:     %s\n", g->note);
	printf("graph:       %u tensors, %u ops, %u scratch requests\n",
	       g->num_tensors, g->num_ops, g->num_scratch);
	printf("buffers:     %u in the arena after sharing\n",
	       plan->num_buffers);
	printf("lower bound: %llu bytes\n", plan->lower_bound);
	printf("tensors:     %llu bytes (%+.3f%% over the lower bound)\n",
	       plan->tensor_bytes,
	       pct(plan->tensor_bytes - plan->lower_bound, plan->lower_bound));
	printf("naive:       %llu bytes (no reuse)\n", plan->naive_bytes);
	printf("scratch:     %llu bytes granted, %u in the fast window\n",
	       plan->scratch_requested,
	       count_scratch(plan, g->num_scratch, NPA_IR_FAST));
	printf("arena:       %llu bytes; scratch grew it by %llu\n",
	       plan->arena_bytes, plan->scratch_growth);
	printf("             (stacked: %llu, least possible: %llu)\n",
	       plan->scratch_growth_naive, bound);
	printf("cycles:      %llu estimated (%+.3f%% over unlimited scratch: %llu;\n"
	       "             least scratch: %llu)\n", cyc->planned,
	       pct(cyc->planned - min(cyc->planned, cyc->unlimited), cyc->unlimited),
	       cyc->unlimited, cyc->minimum);
	printf("algorithm:   %s\n", npa_plan_algo_name(plan->algorithm));
	printf("time:        %.3f ms\n", plan->plan_ns / 1e6);
	printf("verified:    %s\n", verify ? strerror(-verify) : "ok");
}

/* Tensor placements and scratch buffers as planner CSV with offsets. */
static int write_csv(const char *path, const struct npactl_graph *g,
		     const struct npa_layout *plan)
{
	struct npactl_csv csv = { };
	u32 i, n = 0;
	int ret = -ENOMEM;

	csv.bufs = calloc((size_t)g->num_tensors + g->num_scratch + 1,
			  sizeof(*csv.bufs));
	csv.ids = calloc((size_t)g->num_tensors + g->num_scratch + 1,
			 sizeof(*csv.ids));
	if (!csv.bufs || !csv.ids)
		goto out;
	for (i = 0; i < g->num_tensors; i++) {
		const struct npa_ir_place *p = &plan->tensors[i];

		if (!(p->flags & NPA_IR_ARENA))
			continue;
		csv.ids[n] = strdup(g->tensor_names[i]);
		if (!csv.ids[n])
			goto out;
		csv.bufs[n] = (struct npa_plan_buf){
			.size = p->size, .lo = p->lo, .hi = p->hi,
			.offset = p->offset,
		};
		csv.n = ++n;
	}
	for (i = 0; i < g->num_scratch; i++) {
		const struct npa_ir_place *p = &plan->scratch[i];

		if (asprintf(&csv.ids[n], "scratch%u", i) < 0) {
			csv.ids[n] = NULL;
			goto out;
		}
		csv.bufs[n] = (struct npa_plan_buf){
			.size = p->size, .lo = p->lo, .hi = p->hi,
			.offset = p->offset,
		};
		csv.n = ++n;
	}
	ret = npactl_csv_write(path, &csv);
out:
	if (ret == -ENOMEM)
		fprintf(stderr, "npactl: %s: %s\n", path, strerror(ENOMEM));
	npactl_csv_free(&csv);
	return ret;
}

int npactl_graph_plan(const char *path, const struct npactl_graph_opts *o,
		      const struct npactl_graph_out *out)
{
	struct npa_graph_limits limits = npa_graph_default_limits;
	const struct npa_graph_limits *lim = &limits;
	struct npa_layout plan = { };
	struct npa_error err = { };
	struct npa_plan_buf *bufs = NULL;
	struct plan_cycles cyc;
	struct npactl_graph g;
	struct npa_graph view;
	struct npa_ir ir = { };
	int ret, verify;
	u32 nbufs, ntensor;
	u64 bound;

	limits.scratch_growth_pct = out->scratch_growth_pct;
	ret = npactl_graph_read(path, o, &g);
	if (ret)
		return NPACTL_EXIT_FAIL;
	npactl_graph_view(&g, &view);
	ret = npa_graph_build(&view, lim, &ir, &err);
	if (ret) {
		npactl_graph_refused(path, &g, &err, ret);
		goto out_free;
	}
	ret = npa_layout_plan(&ir, lim->fast_window, lim->scratch_growth_pct,
			      out->budget, &plan);
	if (ret) {
		fprintf(stderr, "npactl: %s: planning failed: %s\n", path,
			strerror(-ret));
		goto out_free;
	}

	ret = plan_arena_bufs(&g, &plan, &bufs, &nbufs, &ntensor);
	if (ret)
		goto out_plan;
	bound = scratch_growth_bound(&g, &plan, bufs, ntensor);
	verify = npa_plan_verify(bufs, nbufs, plan.arena_bytes);
	if (verify)
		fprintf(stderr, "npactl: %s: INVALID PLAN: verifier says %s\n",
			path, strerror(-verify));

	plan_cycles(&view, &ir, &plan, lim->fast_window, &cyc);
	if (out->json)
		ret = print_json(path, &g, &plan, bound, verify, &cyc);
	else
		print_text(path, &g, &plan, bound, verify, &cyc);
	if (!ret && out->csv)
		ret = write_csv(out->csv, &g, &plan);
	if (!ret && out->svg)
		ret = npactl_svg_write(out->svg, path, &g, &plan, lim);
	if (!ret)
		ret = verify;
	free(bufs);
out_plan:
	npa_layout_free(&plan);
out_free:
	npa_ir_free(&ir);
	npactl_graph_free(&g);
	return ret ? NPACTL_EXIT_FAIL : NPACTL_EXIT_OK;
}

static void print_dims(const struct npa_tensor_desc *t)
{
	int k;

	if (t->dtype == NPA_DTYPE_NONE) {
		printf("%llu bytes", t->size);
		return;
	}
	for (k = 0; k < NPA_MAX_DIMS && t->dims[k]; k++)
		printf("%s%u", k ? "x" : "", t->dims[k]);
	printf(" %s", t->dtype < NPA_DTYPE_COUNT ?
	       npactl_dtype_names[t->dtype] : "?");
}

static const char *kind_name(u32 kind)
{
	return kind < NPA_OP_KIND_COUNT && npactl_op_kind_names[kind] ?
	       npactl_op_kind_names[kind] : "?";
}

/* One line per operator: its operands with their shapes, its scratch. */
static void graph_print(const struct npactl_graph *g)
{
	u32 i, k;

	if (g->note)
		printf("# %s\n", g->note);
	for (i = 0; i < g->num_ops; i++) {
		const struct npa_op_desc *op = &g->ops[i];

		printf("%u %s: %s/%s%s", i, g->op_names[i], kind_name(op->kind),
		       op->unit < NPA_UNIT_COUNT ? npactl_unit_names[op->unit] : "?",
		       op->flags & NPA_OP_INPLACE ? " inplace" : "");
		for (k = 0; k < op->num_inputs + op->num_outputs; k++) {
			u32 t = g->operands[op->first_input + k];

			if (k >= op->num_inputs)
				t = g->operands[op->first_output + k - op->num_inputs];
			printf("%s %s[", k == op->num_inputs ? " ->" : "",
			       t < g->num_tensors ? g->tensor_names[t] : "?");
			if (t < g->num_tensors)
				print_dims(&g->tensors[t]);
			printf("]");
		}
		for (k = 0; k < op->num_scratch; k++) {
			const struct npa_scratch_desc *s =
				&g->scratch[op->first_scratch + k];

			printf("%s %llu", k ? "," : " scratch", s->size);
			if (s->flags & NPA_SCRATCH_VARIABLE)
				printf("(min %llu)", s->min_size);
			if (s->flags & NPA_SCRATCH_LATENCY)
				printf("!");
		}
		printf("\n");
	}
}

static void graph_usage(FILE *fp)
{
	fprintf(fp,
		"usage: npactl graph [--json] [--size N | --input WxH] [--im2col M]\n"
		"                    FILE.json|FILE.cfg\n"
		"\n"
		"Show the graph npactl builds from FILE: one line per operator with its\n"
		"operands, their shapes and its scratch requests (size, '(min N)' for\n"
		"variable ones, '!' for latency-critical ones).\n"
		"\n"
		"  --json        write the graph in the JSON graph format instead\n"
		"  --size N      Darknet: use an N x N input instead of the cfg's\n"
		"  --input WxH   Darknet: use a W x H input instead of the cfg's\n"
		"  --im2col M    Darknet: im2col scratch from one 'tile' of output pixels\n"
		"                (default) or one output 'row' up, or the 'full' matrix\n"
		"                in one fixed buffer\n");
}

int npactl_cmd_graph(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "size", required_argument, NULL, 's' },
		{ "input", required_argument, NULL, 'i' },
		{ "im2col", required_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct npactl_graph_opts go = { };
	struct npactl_graph g;
	bool json = false;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "js:i:I:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 's':
		case 'i':
			if (!npactl_graph_parse_size(optarg, c == 'i', &go)) {
				fprintf(stderr, "npactl graph: bad --%s '%s'\n",
					c == 'i' ? "input" : "size", optarg);
				return NPACTL_EXIT_USAGE;
			}
			break;
		case 'I':
			if (!npactl_graph_parse_im2col(optarg, &go)) {
				fprintf(stderr, "npactl graph: bad --im2col '%s' (%s)\n",
					optarg, NPACTL_IM2COL_NAMES);
				return NPACTL_EXIT_USAGE;
			}
			break;
		case 'h':
			graph_usage(stdout);
			return NPACTL_EXIT_OK;
		default:
			graph_usage(stderr);
			return NPACTL_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		graph_usage(stderr);
		return NPACTL_EXIT_USAGE;
	}
	ret = npactl_graph_read(argv[optind], &go, &g);
	if (ret)
		return NPACTL_EXIT_FAIL;
	if (json)
		ret = npactl_graph_write_json(stdout, &g, argv[optind]);
	else
		graph_print(&g);
	npactl_graph_free(&g);
	return ret ? NPACTL_EXIT_FAIL : NPACTL_EXIT_OK;
}
