// SPDX-License-Identifier: GPL-2.0-only
/*
 * npactl plan: run the arena planner on a MiniMalloc CSV file, check the
 * plan with the independent verifier, print a summary or JSON and
 * optionally write the offsets as CSV.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "npactl.h"
#include "graph.h"
#include "npa_graph.h"

static void plan_usage(FILE *fp)
{
	fprintf(fp,
		"usage: npactl plan [--json] [--out FILE.csv] [--budget N]\n"
		"                   [--algo greedy|npa] INPUT.csv\n"
		"       npactl plan [--json] [--out FILE.csv] [--budget N]\n"
		"                   [--svg FILE] [--size N | --input WxH] [--im2col M]\n"
		"                   [--scratch-growth PCT]\n"
		"                   FILE.json|FILE.cfg\n"
		"\n"
		"Plan the buffers of INPUT (MiniMalloc CSV: id,lower,upper,size[,alignment],\n"
		"lifetimes half-open [lower, upper); '-' reads stdin) into one arena.\n"
		"\n"
		"  --json         print one JSON object instead of a summary\n"
		"  --out FILE     write id,lower,upper,size,offset to FILE ('-': stdout)\n"
		"  --budget N     planner work budget in units (default 2^21; larger never worse)\n"
		"  --algo ALGO    CSV: 'npa' (default) or 'greedy' (the TFLite baseline)\n"
		"\n"
		"INPUT may also be a model graph, FILE.json (Documentation/graph-json.rst)\n"
		"or a Darknet FILE.cfg (Documentation/graphs.rst): it is validated and\n"
		"planned with its scratch as NPA_IOCTL_MODEL_CREATE would.\n"
		"  --svg FILE     draw the layout (time across, address up) as SVG\n"
		"  --size N       Darknet: use an N x N input instead of the cfg's\n"
		"  --input WxH    Darknet: use a W x H input instead of the cfg's\n"
		"  --im2col M     Darknet: im2col scratch by 'tile' (default), 'row' or 'full'\n"
		"  --scratch-growth PCT  graphs: how much variable scratch may grow the\n"
		"                 arena to save cycles, in %% of the tensors' arena (default %d)\n",
		NPA_GRAPH_SCRATCH_GROWTH_PCT);
}

static double pct_over(u64 v, u64 lb)
{
	return lb ? 100.0 * ((double)v - (double)lb) / (double)lb : 0.0;
}

/*
 * The TFLite baseline's peak on a copy of @bufs, for the report: 0 when it
 * could not run (no memory), printed as null.
 */
static u64 plan_greedy_peak(const struct npa_plan_buf *bufs, u32 n)
{
	struct npa_plan_result res;
	struct npa_plan_buf *copy;
	u64 peak = 0;

	copy = malloc((size_t)n * sizeof(*copy) + 1);
	if (!copy)
		return 0;
	memcpy(copy, bufs, (size_t)n * sizeof(*copy));
	if (!npa_plan_greedy(copy, n, &res))
		peak = res.peak;
	free(copy);
	return peak;
}

static int plan_print_json(const char *input, u32 n,
			   const struct npa_plan_result *res, u64 greedy,
			   int verify)
{
	struct json_object *o = json_object_new_object();
	int ret = 0;

	if (!o)
		return -ENOMEM;
	json_object_object_add(o, "input", json_object_new_string(input));
	json_object_object_add(o, "buffers", json_object_new_int64(n));
	json_object_object_add(o, "peak_bytes",
			       json_object_new_uint64(res->peak));
	json_object_object_add(o, "lower_bound_bytes",
			       json_object_new_uint64(res->lower_bound));
	json_object_object_add(o, "naive_bytes",
			       json_object_new_uint64(res->naive));
	json_object_object_add(o, "greedy_peak_bytes", greedy ?
			       json_object_new_uint64(greedy) : NULL);
	json_object_object_add(o, "plan_ns", json_object_new_uint64(res->plan_ns));
	json_object_object_add(o, "work", json_object_new_uint64(res->work));
	json_object_object_add(o, "algorithm",
			       json_object_new_string(npa_plan_algo_name(res->algo)));
	json_object_object_add(o, "over_lower_bound_pct",
			       json_object_new_double(pct_over(res->peak,
							       res->lower_bound)));
	json_object_object_add(o, "verified", json_object_new_boolean(!verify));
	if (puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN)) < 0)
		ret = -EIO;
	json_object_put(o);
	return ret;
}

static void plan_print_text(const char *input, u32 n,
			    const struct npa_plan_result *res, u64 greedy,
			    int verify)
{
	printf("input:       %s\n", input);
	printf("buffers:     %u\n", n);
	printf("lower bound: %llu bytes\n", res->lower_bound);
	printf("peak:        %llu bytes (%+.3f%% over the lower bound)\n",
	       res->peak, pct_over(res->peak, res->lower_bound));
	if (greedy)
		printf("greedy:      %llu bytes (%+.3f%%)\n", greedy,
		       pct_over(greedy, res->lower_bound));
	printf("naive:       %llu bytes (no reuse)\n", res->naive);
	printf("algorithm:   %s\n", npa_plan_algo_name(res->algo));
	printf("work:        %llu placements\n", res->work);
	printf("time:        %.3f ms\n", res->plan_ns / 1e6);
	printf("verified:    %s\n", verify ? strerror(-verify) : "ok");
}

int npactl_cmd_plan(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "out", required_argument, NULL, 'o' },
		{ "budget", required_argument, NULL, 'b' },
		{ "algo", required_argument, NULL, 'a' },
		{ "svg", required_argument, NULL, 'S' },
		{ "size", required_argument, NULL, 's' },
		{ "input", required_argument, NULL, 'i' },
		{ "im2col", required_argument, NULL, 'I' },
		{ "scratch-growth", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct npa_plan_params params = { };
	struct npa_plan_result res;
	const char *out = NULL, *input;
	struct npactl_csv csv;
	struct npactl_graph_opts gopts = { };
	const char *svg = NULL;
	bool json = false, greedy = false;
	u64 greedy_peak, growth = NPA_GRAPH_SCRATCH_GROWTH_PCT;
	int c, ret, verify;

	optind = 1;
	while ((c = getopt_long(argc, argv, "jo:b:a:S:s:i:I:g:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'o':
			out = optarg;
			break;
		case 'b':
			if (!npactl_parse_u64(optarg, &params.budget)) {
				fprintf(stderr, "npactl plan: bad --budget '%s'\n",
					optarg);
				return NPACTL_EXIT_USAGE;
			}
			break;
		case 'a':
			if (!strcmp(optarg, "greedy")) {
				greedy = true;
			} else if (!strcmp(optarg, "npa")) {
				greedy = false;
			} else {
				fprintf(stderr,
					"npactl plan: unknown --algo '%s' (greedy, npa)\n",
					optarg);
				return NPACTL_EXIT_USAGE;
			}
			break;
		case 'S':
			svg = optarg;
			break;
		case 's':
		case 'i':
			if (!npactl_graph_parse_size(optarg, c == 'i', &gopts)) {
				fprintf(stderr, "npactl plan: bad --%s '%s'\n",
					c == 'i' ? "input" : "size", optarg);
				return NPACTL_EXIT_USAGE;
			}
			break;
		case 'I':
			if (!npactl_graph_parse_im2col(optarg, &gopts)) {
				fprintf(stderr, "npactl plan: bad --im2col '%s' (%s)\n",
					optarg, NPACTL_IM2COL_NAMES);
				return NPACTL_EXIT_USAGE;
			}
			break;
		case 'g':
			if (!npactl_parse_u64(optarg, &growth) || growth > 1000) {
				fprintf(stderr, "npactl plan: bad --scratch-growth '%s' (0 to 1000)\n",
					optarg);
				return NPACTL_EXIT_USAGE;
			}
			break;
		case 'h':
			plan_usage(stdout);
			return NPACTL_EXIT_OK;
		default:
			plan_usage(stderr);
			return NPACTL_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		plan_usage(stderr);
		return NPACTL_EXIT_USAGE;
	}
	input = argv[optind];
	if (npactl_graph_is_graph(input)) {
		struct npactl_graph_out gout = {
			.json = json, .csv = out, .svg = svg,
			.budget = params.budget,
			.scratch_growth_pct = growth,
		};

		if (greedy) {
			fprintf(stderr, "npactl plan: --algo greedy is for CSV input\n");
			return NPACTL_EXIT_USAGE;
		}
		return npactl_graph_plan(input, &gopts, &gout);
	}
	if (svg || gopts.width) {
		fprintf(stderr, "npactl plan: --svg, --size and --input are for graph input\n");
		return NPACTL_EXIT_USAGE;
	}

	ret = npactl_csv_read(input, &csv);
	if (ret)
		return NPACTL_EXIT_FAIL;
	/* --algo greedy: the plan is the baseline, no second run for it. */
	if (greedy)
		ret = npa_plan_greedy(csv.bufs, csv.n, &res);
	else
		ret = npa_plan(csv.bufs, csv.n, &params, &res);
	greedy_peak = greedy ? res.peak : plan_greedy_peak(csv.bufs, csv.n);
	if (ret) {
		fprintf(stderr, "%s: planning failed: %s\n", input,
			strerror(-ret));
		goto err_free;
	}
	verify = npa_plan_verify(csv.bufs, csv.n, res.peak);
	if (verify)
		fprintf(stderr, "%s: INVALID PLAN: verifier says %s\n", input,
			strerror(-verify));

	if (json)
		ret = plan_print_json(input, csv.n, &res, greedy_peak, verify);
	else
		plan_print_text(input, csv.n, &res, greedy_peak, verify);
	if (!ret && out)
		ret = npactl_csv_write(out, &csv);
	if (!ret && verify)
		ret = verify;
err_free:
	npactl_csv_free(&csv);
	return ret ? NPACTL_EXIT_FAIL : NPACTL_EXIT_OK;
}
