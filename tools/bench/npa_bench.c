// SPDX-License-Identifier: GPL-2.0-only
/*
 * npa-bench: the planner's benchmark (not a timed test). Prints the
 * benchmark traces, generated tightly packed strips of three kinds
 * (optimum known), and plan time and memory for n = 100 .. 100k. Each
 * plan's units of work are printed beside its time: they do not depend
 * on the machine or its load.
 *
 * usage: npa-bench [TRACES-DIR] [--quick] [--strips] [--strip-n N]
 *                  [--seeds K] [--budget N]
 *        npa-bench --baselines [TRACES-DIR] [--bl-work N]
 *
 * --baselines compares npa with other projects' planners (baselines.c) on
 * the traces and on generated strips; --bl-work caps the conflicts each
 * hill climb visits (default %NPA_BENCH_BL_WORK, 0: no cap).
 *
 * TRACES-DIR defaults to $NPA_BENCH_DIR/traces, else to the copy the
 * repository carries in tools/bench/data/traces (its README says where
 * each file comes from).
 */
#include <dirent.h>
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/limits.h>

#include "baselines.h"
#include "gen.h"
#include "npa_plan.h"
#include "../npactl/npactl.h"

static double pct(u64 v, u64 lb)
{
	return lb ? 100.0 * ((double)v - (double)lb) / (double)lb : 0.0;
}

struct row {
	u64 lb, greedy, npa, greedy_ns, npa_ns, work;
	u32 algo;
	int valid;
};

static int run(const struct npa_plan_buf *in, u32 n, u64 budget, struct row *r)
{
	struct npa_plan_buf *b = malloc((n ? n : 1) * sizeof(*b));
	struct npa_plan_params p = { .budget = budget };
	struct npa_plan_result res;
	int ret;

	memcpy(b, in, n * sizeof(*b));
	ret = npa_plan_greedy(b, n, &res);
	if (ret)
		goto out;
	r->greedy = res.peak;
	r->greedy_ns = res.plan_ns;
	memcpy(b, in, n * sizeof(*b));
	ret = npa_plan(b, n, &p, &res);
	if (ret)
		goto out;
	r->lb = res.lower_bound;
	r->npa = res.peak;
	r->npa_ns = res.plan_ns;
	r->work = res.work;
	r->algo = res.algo;
	r->valid = !npa_plan_verify(b, n, res.peak);
out:
	free(b);
	return ret;
}

static void header(const char *first)
{
	printf("| %-20s | %7s | %15s | %8s | %8s | %9s | %9s | %9s | %-16s |\n",
	       first, "buffers", "lower bound", "greedy", "npa", "greedy ms",
	       "npa ms", "npa units", "found by");
	printf("|%.22s|%.9s|%.17s|%.10s|%.10s|%.11s|%.11s|%.11s|%.18s|\n",
	       "------------------------", "-----------", "-------------------",
	       "------------", "------------", "-------------", "-------------",
	       "-------------", "--------------------");
}

static void line(const char *name, u32 n, const struct row *r)
{
	printf("| %-20s | %7u | %15llu | %+7.2f%% | %+7.3f%% | %9.1f | %9.1f | %9llu | %-16s |%s\n",
	       name, n, r->lb, pct(r->greedy, r->lb), pct(r->npa, r->lb),
	       r->greedy_ns / 1e6, r->npa_ns / 1e6,
	       (unsigned long long)r->work, npa_plan_algo_name(r->algo),
	       r->valid ? "" : " INVALID");
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

static u32 strip_only;	/* --strip-n: only this n */
static u32 strip_seeds;	/* --seeds: seeds per n */
static u64 strip_budget;	/* --budget: work budget (default: the planner's) */

static void bench_traces(const char *dir, const char *what)
{
	char *names[256];
	struct dirent *e;
	int nn = 0, i;
	DIR *d = opendir(dir);

	if (!d) {
		perror(dir);
		return;
	}
	while ((e = readdir(d)) && nn < 256)
		if (strstr(e->d_name, ".csv"))
			names[nn++] = strdup(e->d_name);
	closedir(d);
	qsort(names, nn, sizeof(*names), by_name);
	printf("%s (%s), budget %s; percentages are over the lower bound.\n\n",
	       what, dir, strip_budget ? "--budget" : "default");
	header("trace");
	for (i = 0; i < nn; i++) {
		char path[8192];
		struct npactl_csv csv;
		struct row r = { 0 };

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (npactl_csv_read(path, &csv))
			continue;
		if (!run(csv.bufs, csv.n, strip_budget, &r))
			line(names[i], csv.n, &r);
		npactl_csv_free(&csv);
		free(names[i]);
	}
	printf("\n");
}


/*
 * The real traces in @dir and MiniMalloc's challenging instances in the
 * minimalloc/ folder beside it (posed at a capacity of 1048576 bytes).
 */
static void bench_real(const char *dir)
{
	char mm[8192];

	bench_traces(dir, "Benchmark traces");
	snprintf(mm, sizeof(mm), "%s/../minimalloc", dir);
	bench_traces(mm, "MiniMalloc challenging instances (capacity 1048576)");
}

/* The worst seed of one n: the summary line of the strip tables. */
struct worst {
	u32 n, solved, seeds;
	u32 min_n, max_n;	/* rectangles the generator made */
	double greedy, npa, ms;
	u64 work;		/* the most units of a seed */
};

typedef u32 (*strip_gen)(struct npa_plan_buf *b, u32 n, u64 width, u32 steps,
			 u64 seed);

static void bench_strip_kind(const char *what, const char *tag, strip_gen gen,
			     bool quick)
{
	static const u32 sizes[] = { 20, 50, 100, 150, 200, 300, 500, 1000, 2000,
				     3000, 4000, 6000, 8000 };
	struct npa_plan_buf *b = calloc(sizes[ARRAY_SIZE(sizes) - 1],
					sizeof(*b));
	struct worst w[ARRAY_SIZE(sizes)] = { 0 };
	unsigned int s, seed, seeds = quick ? 2 : 5, nw = 0;

	if (strip_seeds)
		seeds = strip_seeds;

	printf("Tightly packed strips: a 1000000 x 1000 strip cut into n rectangles\n"
	       "%s; optimum = lower bound. ", what);
	if (strip_budget)
		printf("Budget %llu.\n\n", (unsigned long long)strip_budget);
	else
		printf("Default budget.\n\n");
	header("strip n / seed");
	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		if (strip_only && sizes[s] != strip_only)
			continue;
		w[nw].n = sizes[s];
		for (seed = 1; seed <= seeds; seed++) {
			struct row r = { 0 };
			char name[64];
			u32 n = gen(b, sizes[s], 1000000, 1000,
				    seed * 7919 + sizes[s]);

			snprintf(name, sizeof(name), "%s %u / %u", tag,
				 sizes[s], seed);
			if (run(b, n, strip_budget, &r))
				continue;
			line(name, n, &r);
			if (!w[nw].seeds || n < w[nw].min_n)
				w[nw].min_n = n;
			w[nw].max_n = max(w[nw].max_n, n);
			w[nw].seeds++;
			w[nw].solved += r.npa == r.lb;
			w[nw].greedy = max(w[nw].greedy, pct(r.greedy, r.lb));
			w[nw].npa = max(w[nw].npa, pct(r.npa, r.lb));
			w[nw].ms = max(w[nw].ms, r.npa_ns / 1e6);
			w[nw].work = max(w[nw].work, r.work);
		}
		nw++;
	}
	/* n: what was asked for; rects: what the generator made. */
	printf("\n| %5s | %11s | %12s | %9s | %11s | %11s | %11s |\n", "n",
	       "rects", "greedy worst", "npa worst", "at optimum", "npa ms max",
	       "units max");
	printf("|-------|-------------|--------------|-----------|-------------|-------------|-------------|\n");
	for (s = 0; s < nw; s++)
		printf("| %5u | %5u-%-5u | %+11.2f%% | %+8.3f%% | %4u of %-3u | %11.1f | %11llu |\n",
		       w[s].n, w[s].min_n, w[s].max_n, w[s].greedy, w[s].npa,
		       w[s].solved, w[s].seeds, w[s].ms,
		       (unsigned long long)w[s].work);
	printf("\n");
	free(b);
}

static void bench_strips(bool quick)
{
	bench_strip_kind("by random guillotine cuts", "strip", npa_gen_strip,
			 quick);
	bench_strip_kind("by guillotine cuts of random direction", "cut",
			 npa_gen_cut, quick);
	bench_strip_kind("by a sweep that refills ended runs (not guillotine)",
			 "sweep", npa_gen_sweep, quick);
}

/* Peak resident set of this process (VmHWM), in KiB. */
static unsigned long vm_hwm_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long kib = 0;
	char line[256];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %lu kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/* Child side of the scaling table: plan one generated trace, print a row. */
static int scale_child(u32 n)
{
	struct npa_plan_buf *b = calloc(n, sizeof(*b));
	struct row r = { 0 };

	npa_gen_trace(b, n, n);
	if (run(b, n, 8ULL * n, &r))
		return 1;
	printf("| %7u | %9.1f | %+7.3f%% | %9.1f | %9llu | %8.1f |%s\n", n,
	       r.greedy_ns / 1e6, pct(r.npa, r.lb), r.npa_ns / 1e6, r.work,
	       vm_hwm_kib() / 1024.0, r.valid ? "" : " INVALID");
	return r.valid ? 0 : 1;
}

/*
 * Run the child in a fresh process (posix_spawn(), which copies nothing)
 * so that its peak memory is its own.
 */
static void scale_one(const char *self, u32 n)
{
	char arg[32], *argv[] = { (char *)self, "--scale-one", arg, NULL };
	int status;
	pid_t pid;

	snprintf(arg, sizeof(arg), "%u", n);
	fflush(stdout);
	if (posix_spawn(&pid, self, NULL, NULL, argv, environ) ||
	    waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		printf("| %7u | FAILED |\n", n);
}

static void bench_scaling(const char *self, bool quick)
{
	static const u32 sizes[] = { 100, 300, 1000, 3000, 10000, 30000, 100000 };
	unsigned int i, cnt = ARRAY_SIZE(sizes);

	printf("Scaling: generated trace-like instances (npa_gen_trace), budget 8 n\n"
	       "placements; peak RSS (VmHWM) of a fresh process that generates the\n"
	       "instance and plans it once with greedy and once with npa.\n\n");
	printf("| %7s | %9s | %8s | %9s | %9s | %8s |\n", "buffers",
	       "greedy ms", "npa", "npa ms", "work", "RSS MiB");
	printf("|---------|-----------|----------|-----------|-----------|----------|\n");
	for (i = 0; i < cnt - (quick ? 2 : 0); i++)
		scale_one(self, sizes[i]);
	printf("\n");
}

/* Default work cap of the hill climbs of --baselines: conflicts visited. */
#define NPA_BENCH_BL_WORK	300000000ULL

/* Columns of --baselines: TFLite, the baselines.c ones, npa. */
#define BL_COLS		(NPA_BL_COUNT + 2)

struct bl_row {
	u64 lb;
	u64 peak[BL_COLS], ns[BL_COLS], iters[BL_COLS];
	bool capped[BL_COLS], bad[BL_COLS];
};

static const char * const bl_head[BL_COLS] = {
	"TFLite", "TVM size", "TVM confl", "TVM hill", "Vela hill",
	"Vela lin", "npa",
};

/* Plan @in with every planner, verify each plan. */
static int bl_run(const struct npa_plan_buf *in, u32 n,
		  const char * const *names, u64 cap, struct bl_row *r)
{
	struct npa_plan_buf *b = malloc((n ? n : 1) * sizeof(*b));
	struct npa_plan_params p = { 0 };
	struct npa_plan_result res;
	struct npa_bl_result br;
	int c, ret = 0;

	if (!b)
		return -ENOMEM;
	memset(r, 0, sizeof(*r));
	r->lb = npa_plan_lower_bound(in, n);
	for (c = 0; c < BL_COLS; c++) {
		memcpy(b, in, n * sizeof(*b));
		if (!c) {
			ret = npa_plan_greedy(b, n, &res);
			br.peak = res.peak;
			br.plan_ns = res.plan_ns;
			br.iterations = 0;
			br.capped = false;
		} else if (c == BL_COLS - 1) {
			ret = npa_plan(b, n, &p, &res);
			br.peak = res.peak;
			br.plan_ns = res.plan_ns;
			br.iterations = 0;
			br.capped = false;
		} else {
			ret = npa_bl_plan(c - 1, b, n, names, cap, &br);
		}
		r->bad[c] = ret || npa_plan_verify(b, n, br.peak) ||
			    br.peak < r->lb;
		if (r->bad[c])
			fprintf(stderr, "error: %s: %s plan invalid (%d)\n",
				names ? "trace" : "strip", bl_head[c], ret);
		r->peak[c] = br.peak;
		r->ns[c] = br.plan_ns;
		r->iters[c] = br.iterations;
		r->capped[c] = br.capped;
	}
	free(b);
	return 0;
}

static void bl_header(const char *what)
{
	int c;

	printf("| %-20s | %7s | %15s |", what, "buffers", "lower bound");
	for (c = 0; c < BL_COLS; c++)
		printf(" %9s |", bl_head[c]);
	printf("\n|----------------------|---------|-----------------|");
	for (c = 0; c < BL_COLS; c++)
		printf("-----------|");
	printf("\n");
}

static void bl_line(const char *name, u32 n, const struct bl_row *r)
{
	int c;

	printf("| %-20s | %7u | %15llu |", name, n, r->lb);
	for (c = 0; c < BL_COLS; c++) {
		if (r->bad[c])
			printf(" %9s |", "INVALID");
		else
			printf(" %+8.3f%% |", pct(r->peak[c], r->lb));
	}
	printf("\n");
}

static void bl_time_header(void)
{
	int c;

	printf("| %-20s |", "plan ms (iterations)");
	for (c = 0; c < BL_COLS; c++)
		printf(" %15s |", bl_head[c]);
	printf("\n|----------------------|");
	for (c = 0; c < BL_COLS; c++)
		printf("-----------------|");
	printf("\n");
}

static void bl_time_line(const char *name, const struct bl_row *r)
{
	char cell[64];
	int c;

	printf("| %-20s |", name);
	for (c = 0; c < BL_COLS; c++) {
		int len = snprintf(cell, sizeof(cell), "%.1f", r->ns[c] / 1e6);

		if (c == 1 + NPA_BL_TVM_HILL || c == 1 + NPA_BL_VELA_HILL)
			snprintf(cell + len, sizeof(cell) - len, " (%llu%s)",
				 r->iters[c], r->capped[c] ? "*" : "");
		printf(" %15s |", cell);
	}
	printf("\n");
}

struct bl_case {
	char name[64];
	u32 n;
	struct bl_row r;
};

static void bench_baselines(const char *dir, u64 cap)
{
	static const u32 strip_n[] = { 100, 500, 1000 };
	struct bl_case *cs = calloc(256 + 2 * ARRAY_SIZE(strip_n), sizeof(*cs));
	struct npa_plan_buf *b = calloc(1000, sizeof(*b));
	char *names[256];
	struct dirent *e;
	int nn = 0, nc = 0, i, k;
	DIR *d = opendir(dir);

	if (!d || !cs || !b) {
		perror(dir);
		goto out;
	}
	while ((e = readdir(d)) && nn < 256)
		if (strstr(e->d_name, ".csv"))
			names[nn++] = strdup(e->d_name);
	closedir(d);
	qsort(names, nn, sizeof(*names), by_name);
	for (i = 0; i < nn; i++) {
		char path[8192];
		struct npactl_csv csv;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (!npactl_csv_read(path, &csv)) {
			snprintf(cs[nc].name, sizeof(cs[nc].name), "%s",
				 names[i]);
			cs[nc].n = csv.n;
			if (!bl_run(csv.bufs, csv.n,
				    (const char * const *)csv.ids, cap,
				    &cs[nc].r))
				nc++;
			npactl_csv_free(&csv);
		}
		free(names[i]);
	}
	for (k = 0; k < 2; k++) {
		for (i = 0; i < (int)ARRAY_SIZE(strip_n); i++) {
			u32 n = (k ? npa_gen_sweep : npa_gen_strip)(b,
					strip_n[i], 1000000, 1000,
					7919 + strip_n[i]);

			snprintf(cs[nc].name, sizeof(cs[nc].name), "%s %u",
				 k ? "sweep" : "strip", strip_n[i]);
			cs[nc].n = n;
			if (!bl_run(b, n, NULL, cap, &cs[nc].r))
				nc++;
		}
	}

	printf("Baselines: peak over the lower bound (TFLite greedy by size,\n"
	       "TVM USMP greedy_by_size / greedy_by_conflicts / hill_climb,\n"
	       "Vela HillClimb / LinearAlloc, npa with its default budget).\n\n");
	bl_header("trace");
	for (i = 0; i < nc; i++)
		bl_line(cs[i].name, cs[i].n, &cs[i].r);
	printf("\n");
	bl_time_header();
	for (i = 0; i < nc; i++)
		bl_time_line(cs[i].name, &cs[i].r);
	printf("\n(iterations) of the hill climbs; * = stopped at the work cap of %llu\n"
	       "conflicts visited, before the upstream count (TVM %u, Vela %u).\n\n",
	       (unsigned long long)cap, NPA_BL_TVM_HILL_ATTEMPTS,
	       NPA_BL_VELA_HILL_ITERATIONS);
out:
	free(cs);
	free(b);
}

static int print_usage(FILE *f, int ret)
{
	fprintf(f,
		"usage: npa-bench [TRACES-DIR] [--quick] [--strips] [--strip-n N]\n"
		"                 [--seeds K] [--budget N]\n"
		"       npa-bench --baselines [TRACES-DIR] [--bl-work N]\n"
		"Prints the planner's benchmark tables (traces, tightly packed\n"
		"strips, scaling); see Documentation/planner.rst.\n");
	return ret;
}

int main(int argc, char **argv)
{
	const char *dir = getenv("NPA_BENCH_DIR");
	bool quick = false, only_strips = false, baselines = false;
	bool only_real = false;
	u64 bl_work = NPA_BENCH_BL_WORK;
	char buf[4096];
	int i;

	/* $NPA_BENCH_DIR/traces, else the copy in tools/bench/data. */
	snprintf(buf, sizeof(buf), "%s/traces", dir ? dir : NPA_BENCH_DATA);
	dir = buf;

	if (argc == 3 && !strcmp(argv[1], "--scale-one"))
		return scale_child(strtoul(argv[2], NULL, 0));
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "--real"))
			only_real = true;
		else if (!strcmp(argv[i], "--strips"))
			only_strips = true;
		else if (!strcmp(argv[i], "--baselines"))
			baselines = true;
		else if (!strcmp(argv[i], "--bl-work") && i + 1 < argc)
			bl_work = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--strip-n") && i + 1 < argc)
			strip_only = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seeds") && i + 1 < argc)
			strip_seeds = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--budget") && i + 1 < argc)
			strip_budget = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return print_usage(stdout, 0);
		else if (argv[i][0] != '-')
			dir = argv[i];
		else
			return print_usage(stderr, 2);
	}
	if (baselines) {
		bench_baselines(dir, bl_work);
		return 0;
	}
	if (only_strips) {
		bench_strips(quick);
		return 0;
	}
	bench_real(dir);
	if (only_real)
		return 0;
	bench_strips(quick);
	bench_scaling(argv[0], quick);
	return 0;
}
