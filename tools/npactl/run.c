// SPDX-License-Identifier: GPL-2.0-only
/*
 * npactl info, stats and run: talk to /dev/npa0 through libnpa.
 *
 * `npactl run` creates a model per network, fills its inputs and weights
 * with seeded random data, runs it as a job on the (simulated) NPU and,
 * with --verify, runs the same graph through a reference executor that
 * gives every tensor and every scratch buffer its own allocation, and
 * compares the outputs bit for bit.  Both use the operator kernels of
 * drivers/npa/npa_exec*.c, so a mismatch means the arena plan, the scratch
 * placement or the driver's binding of buffers is wrong, not the maths.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npactl.h"
#include "graph.h"
#include "npa_exec.h"
#include "npa_graph.h"
#include "../lib/libnpa.h"

#define NPACTL_MAX_NETS		16

static u64 npactl_rng(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void npactl_fill(void *p, u64 bytes, const struct npa_tensor_desc *t,
			u64 *seed)
{
	u64 i;

	if (t->dtype == NPA_DTYPE_INT32) {
		int32_t *v = p;

		for (i = 0; i < bytes / 4; i++)
			v[i] = (int32_t)(npactl_rng(seed) % 2001) - 1000;
		return;
	}
	for (i = 0; i < bytes; i++)
		((u8 *)p)[i] = (u8)npactl_rng(seed);
}

/*
 * A model's or a buffer's creation failed with @err: in words.  EDQUOT is
 * the file's limit on @what (Documentation/uapi.rst), no disk's quota as
 * strerror() says; ENOSPC is memory that does not fit.
 */
static const char *npactl_create_strerror(int err, const char *what)
{
	static char buf[80];

	if (err == -ENOSPC)
		return "no room in the carveout (ENOSPC)";
	if (err != -EDQUOT)
		return strerror(-err);
	snprintf(buf, sizeof(buf), "the device fd holds all the %s it may (EDQUOT)",
		 what);
	return buf;
}

static int npactl_open(const char *dev)
{
	int fd = npa_open(dev);

	if (fd < 0)
		fprintf(stderr, "npactl: %s: %s\n", dev ? dev : NPA_DEFAULT_PATH,
			strerror(-fd));
	return fd;
}

/* NPA_IOCTL_QUERY on @dev (NULL: the default node); -1 after saying why. */
static int npactl_query(const char *dev, struct npa_query *q)
{
	int fd, ret;

	fd = npactl_open(dev);
	if (fd < 0)
		return -1;
	ret = npa_query(fd, q);
	npa_close(fd);
	if (ret) {
		fprintf(stderr, "npactl: NPA_IOCTL_QUERY: %s\n", strerror(-ret));
		return -1;
	}
	return 0;
}

/*
 * 'info' and 'stats': parse [--help] [DEV] and query DEV (default: the
 * default node).  Returns -1 with @q filled to go on, else the exit status.
 */
static int npactl_query_args(int argc, char **argv, struct npa_query *q)
{
	FILE *fp = stderr;
	int ret = NPACTL_EXIT_USAGE;

	if (argc <= 2 && (argc < 2 || argv[1][0] != '-'))
		return npactl_query(argc > 1 ? argv[1] : NULL, q) ?
			NPACTL_EXIT_FAIL : -1;
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fp = stdout;
		ret = NPACTL_EXIT_OK;
	}
	fprintf(fp, "usage: npactl %s [DEV]\n\n%s\nof DEV (default /dev/npa0).\n",
		argv[0], !strcmp(argv[0], "info") ?
		"Print the driver version, capabilities, carveout and limits" :
		"Print the job counters and carveout and arena use");
	return ret;
}

int npactl_cmd_info(int argc, char **argv)
{
	struct npa_query q;
	int ret = npactl_query_args(argc, argv, &q);

	if (ret >= 0)
		return ret;
	printf("driver version   %u.%u.%u\n", q.version_major, q.version_minor,
	       q.version_patch);
	printf("capabilities     %s%s%s\n", q.caps & NPA_CAP_PLAN ? "plan " : "",
	       q.caps & NPA_CAP_MODEL ? "model " : "",
	       q.caps & NPA_CAP_JOBS ? "jobs" : "");
	printf("carveout         %llu MiB (%llu KiB in use)\n",
	       (unsigned long long)q.carveout_bytes >> 20,
	       (unsigned long long)q.carveout_used_bytes >> 10);
	printf("limits           %u tensors, %u ops, %u operands, %u scratch, %llu MiB per tensor\n",
	       q.max_tensors, q.max_ops, q.max_operands, q.max_scratch,
	       (unsigned long long)q.max_tensor_bytes >> 20);
	printf("unit alignment   npu %u, dma %u, cpu %u bytes\n",
	       q.unit_align[NPA_UNIT_NPU], q.unit_align[NPA_UNIT_DMA],
	       q.unit_align[NPA_UNIT_CPU]);
	printf("fast window      %llu KiB\n",
	       (unsigned long long)q.fast_window_bytes >> 10);
	return NPACTL_EXIT_OK;
}

static void npactl_print_stats(const struct npa_query *q)
{
	printf("jobs             %llu done, %llu failed\n",
	       (unsigned long long)q->jobs_done, (unsigned long long)q->jobs_failed);
	printf("carveout in use  %llu KiB of %llu KiB\n",
	       (unsigned long long)q->carveout_used_bytes >> 10,
	       (unsigned long long)q->carveout_bytes >> 10);
	printf("arenas           shared %llu KiB + private %llu KiB; a private arena per model would take %llu KiB\n",
	       (unsigned long long)q->shared_arena_bytes >> 10,
	       (unsigned long long)q->private_arena_bytes >> 10,
	       (unsigned long long)q->arena_need_private_bytes >> 10);
}

int npactl_cmd_stats(int argc, char **argv)
{
	struct npa_query q;
	int ret = npactl_query_args(argc, argv, &q);

	if (ret >= 0)
		return ret;
	npactl_print_stats(&q);
	return NPACTL_EXIT_OK;
}

/* One network being run. */
struct npactl_net {
	const char *path;
	struct npactl_graph g;
	struct npa_graph view;
	struct npa_model_create rep;
	int model;
	struct npa_binding *binds;
	struct npa_bound_tensor *info;	/* the kernel's list of what binds */
	u32 num_binds;
	int *buf_fds;		/* one per binding; weights share one */
	void **maps;		/* CPU mapping per binding, at its offset */
	size_t *map_sizes;
	u8 **bound;		/* host copy of each bound tensor's contents */
	u8 **expect;		/* per binding: the reference's output, or NULL */
	int weights_fd;
	void *weights_map;
	u64 weights_bytes;
};

/*
 * A plan made elsewhere (npactl plan --out FILE): one placement per tensor
 * and per scratch request, for NPA_MODEL_SUPPLIED_PLAN.  Rows name a
 * tensor or "scratchN"; tensors not named (outside the arena) keep 0.
 */
static int npactl_read_plan(const char *path, const struct npactl_graph *g,
			    struct npa_placement **pt, struct npa_placement **ps)
{
	struct npactl_csv csv;
	u32 i, t, j;
	char end;
	int ret;

	ret = npactl_csv_read(path, &csv);
	if (ret)
		return ret;
	ret = -EINVAL;
	if (!csv.has_offset) {
		fprintf(stderr, "npactl: %s: not a plan: no offset column\n", path);
		goto out;
	}
	*pt = calloc(g->num_tensors, sizeof(**pt));
	*ps = calloc(g->num_scratch + 1, sizeof(**ps));
	if (!*pt || !*ps) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < csv.n; i++) {
		for (t = 0; t < g->num_tensors; t++)
			if (!strcmp(csv.ids[i], g->tensor_names[t]))
				break;
		if (t < g->num_tensors) {
			(*pt)[t].offset = csv.bufs[i].offset;
			continue;
		}
		if (sscanf(csv.ids[i], "scratch%u%c", &j, &end) == 1 &&
		    j < g->num_scratch) {
			(*ps)[j].offset = csv.bufs[i].offset;
			(*ps)[j].size = csv.bufs[i].size;
			continue;
		}
		fprintf(stderr, "npactl: %s: '%s' is neither a tensor of the graph nor one of its scratch requests\n",
			path, csv.ids[i]);
		goto out;
	}
	ret = 0;
out:
	npactl_csv_free(&csv);
	return ret;
}

static bool npactl_bound(const struct npa_tensor_desc *t)
{
	return t->flags & (NPA_TENSOR_INPUT | NPA_TENSOR_OUTPUT |
			   NPA_TENSOR_CONST | NPA_TENSOR_PERSISTENT);
}

static size_t npactl_page(u64 bytes)
{
	long ps = sysconf(_SC_PAGESIZE);

	return (bytes + ps - 1) / ps * ps;
}

/* "input", "output+persistent", ...: a bound tensor's direction. */
static const char *npactl_bound_kind(__u32 flags, char *buf, size_t len)
{
	static const char *const names[] = {
		"input", "output", "const", "persistent",
	};
	size_t i, n = 0;

	buf[0] = 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (flags & (1U << i))
			n += snprintf(buf + n, n < len ? len - n : 0, "%s%s",
				      n ? "+" : "", names[i]);
	return buf;
}

/* What npa_model_bindings() says @n's jobs bind, one "#" line each. */
static void npactl_print_bindings(const struct npactl_net *n, const char *name)
{
	char kind[64];
	u32 b;

	for (b = 0; b < n->num_binds; b++) {
		const struct npa_bound_tensor *i = &n->info[b];

		printf("# %s: binding %u: tensor %u '%s', %s, %llu bytes at an offset aligned to %u\n",
		       name, b, i->tensor, n->g.tensor_names[i->tensor],
		       npactl_bound_kind(i->flags, kind, sizeof(kind)),
		       (unsigned long long)i->size, i->align);
	}
}

/*
 * Buffers for every tensor the kernel says a job binds
 * (npa_model_bindings()): weights packed into one buffer, each at the
 * alignment the kernel asks of its offset.
 */
static int npactl_bind(int fd, struct npactl_net *n, u64 seed)
{
	const struct npactl_graph *g = &n->g;
	u64 off = 0;
	u32 t, b, nb = 0;
	int ret;

	ret = npa_model_bindings(fd, n->model, NULL, &nb);
	if (ret)
		return ret;
	n->num_binds = nb;
	n->info = calloc(nb, sizeof(*n->info));
	n->binds = calloc(nb, sizeof(*n->binds));
	n->buf_fds = calloc(nb, sizeof(*n->buf_fds));
	n->maps = calloc(nb, sizeof(*n->maps));
	n->map_sizes = calloc(nb, sizeof(*n->map_sizes));
	n->bound = calloc(nb, sizeof(*n->bound));
	n->expect = calloc(nb, sizeof(*n->expect));
	/* Before any return: npactl_unbind() closes every fd that is >= 0. */
	for (b = 0; n->buf_fds && b < nb; b++)
		n->buf_fds[b] = -1;
	if (nb && (!n->info || !n->binds || !n->buf_fds || !n->maps ||
		   !n->map_sizes || !n->bound || !n->expect))
		return -ENOMEM;
	ret = npa_model_bindings(fd, n->model, n->info, &nb);
	if (ret)
		return ret;
	/* The kernel's list is the graph's flagged tensors, in id order. */
	for (b = 0, t = 0; b < nb; b++, t++) {
		while (t < g->num_tensors && !npactl_bound(&g->tensors[t]))
			t++;
		if (t != n->info[b].tensor || !n->info[b].align ||
		    n->info[b].size != npactl_tensor_bytes(&g->tensors[t]))
			return -EPROTO;
		if (g->tensors[t].flags & NPA_TENSOR_CONST)
			off = (off + n->info[b].align - 1) / n->info[b].align *
			      n->info[b].align + n->info[b].size;
	}
	n->weights_bytes = off;
	n->weights_fd = -1;
	if (off) {
		n->weights_fd = npa_buffer_create(fd, off);
		if (n->weights_fd < 0)
			return n->weights_fd;
		n->weights_map = npa_buffer_map(n->weights_fd, npactl_page(off));
		if (!n->weights_map)
			return -errno;
		npa_buffer_sync(n->weights_fd, 1);
	}

	for (b = 0, off = 0; b < nb; b++) {
		const struct npa_tensor_desc *td = &g->tensors[n->info[b].tensor];
		u64 bytes = n->info[b].size, align = n->info[b].align;

		n->bound[b] = malloc(bytes);
		if (!n->bound[b])
			return -ENOMEM;
		if (td->flags & NPA_TENSOR_CONST) {
			off = (off + align - 1) / align * align;
			n->binds[b] = (struct npa_binding){ .fd = n->weights_fd,
							    .offset = off };
			n->maps[b] = (u8 *)n->weights_map + off;
			off += bytes;
		} else {
			int bfd = npa_buffer_create(fd, bytes);

			if (bfd < 0)
				return bfd;
			n->buf_fds[b] = bfd;
			n->binds[b] = (struct npa_binding){ .fd = bfd };
			n->map_sizes[b] = npactl_page(bytes);
			n->maps[b] = npa_buffer_map(bfd, n->map_sizes[b]);
			if (!n->maps[b])
				return -errno;
		}
		if (td->flags & NPA_TENSOR_OUTPUT) {
			memset(n->bound[b], 0, bytes);
		} else {
			npactl_fill(n->bound[b], bytes, td, &seed);
			if (n->buf_fds[b] >= 0)
				npa_buffer_sync(n->buf_fds[b], 1);
			memcpy(n->maps[b], n->bound[b], bytes);
			if (n->buf_fds[b] >= 0)
				npa_buffer_sync(n->buf_fds[b], 0);
		}
	}
	if (n->weights_fd >= 0)
		npa_buffer_sync(n->weights_fd, 0);
	return 0;
}

static void npactl_unbind(struct npactl_net *n)
{
	u32 b;

	for (b = 0; b < n->num_binds; b++) {
		if (n->buf_fds && n->buf_fds[b] >= 0) {
			if (n->maps[b])
				npa_buffer_unmap(n->maps[b], n->map_sizes[b]);
			close(n->buf_fds[b]);
		}
		if (n->bound)
			free(n->bound[b]);
		if (n->expect)
			free(n->expect[b]);
	}
	if (n->weights_map)
		npa_buffer_unmap(n->weights_map, npactl_page(n->weights_bytes));
	if (n->weights_fd >= 0)
		close(n->weights_fd);
	free(n->binds);
	free(n->info);
	free(n->buf_fds);
	free(n->maps);
	free(n->map_sizes);
	free(n->bound);
	free(n->expect);
}

/*
 * The reference: every tensor and scratch buffer its own allocation, the
 * scratch sizes the plan granted, scratch poisoned like the NPU does.
 * Keeps each output in @n->expect; returns 0 or < 0.
 */
static int npactl_reference(int fd, struct npactl_net *n)
{
	const struct npactl_graph *g = &n->g;
	struct npa_placement *sp = NULL;
	struct npa_exec_operand *ops = NULL;
	struct npa_error err;
	struct npa_ir ir = { };
	u32 ns = g->num_scratch, t, b, i, k, most = 1;
	u8 **mem = calloc(g->num_tensors, sizeof(*mem));
	int ret = -ENOMEM;

	if (!mem)
		return -ENOMEM;
	if (ns) {
		sp = calloc(ns, sizeof(*sp));
		if (!sp)
			goto out;
		ret = npa_model_plan(fd, n->model, NULL, NULL, sp, &ns);
		if (ret)
			goto out;
		ret = -ENOMEM;
	}
	for (t = 0, b = 0; t < g->num_tensors; t++) {
		mem[t] = calloc(1, npactl_tensor_bytes(&g->tensors[t]) + 1);
		if (!mem[t])
			goto out;
		if (npactl_bound(&g->tensors[t]))
			memcpy(mem[t], n->bound[b++], npactl_tensor_bytes(&g->tensors[t]));
	}
	/* The kernel validated the same graph: this only builds its model. */
	ret = npa_graph_build(&n->view, &npa_graph_default_limits, &ir, &err);
	if (ret)
		goto out;
	ret = -ENOMEM;
	for (i = 0; i < ir.num_ops; i++) {
		u32 m = ir.ops[i].num_in + ir.ops[i].num_out + ir.ops[i].num_scratch;

		most = m > most ? m : most;
	}
	ops = calloc(most, sizeof(*ops));
	if (!ops)
		goto out;

	for (i = 0; i < ir.num_ops; i++) {
		const struct npa_ir_op *op = &ir.ops[i];
		struct npa_exec_operand *in = ops, *out = ops + op->num_in;
		struct npa_exec_operand *sc = out + op->num_out;
		int r;

		for (k = 0; k < op->num_in + op->num_out; k++) {
			u32 id = ir.operands[op->first + k];

			in[k] = (struct npa_exec_operand){
				.ptr = mem[id], .desc = &ir.tensors[id],
				.size = ir.tensors[id].size };
		}
		for (k = 0; k < op->num_scratch; k++) {
			u64 size = sp[op->first_scratch + k].size;

			sc[k] = (struct npa_exec_operand){ .ptr = malloc(size ? size : 1),
							   .size = size };
			if (sc[k].ptr)
				memset(sc[k].ptr, 0xa5, size);
		}
		r = npa_exec_op(op, in, op->num_in, out, op->num_out,
				sc, op->num_scratch);
		for (k = 0; k < op->num_scratch; k++)
			free(sc[k].ptr);
		if (r) {
			fprintf(stderr, "npactl: %s: reference: op %u (%s): %s\n",
				n->path, i, g->op_names[i], strerror(-r));
			ret = r;
			goto out;
		}
	}

	for (t = 0, b = 0; t < g->num_tensors; t++) {
		if (!npactl_bound(&g->tensors[t]))
			continue;
		if (g->tensors[t].flags & NPA_TENSOR_OUTPUT) {
			n->expect[b] = mem[t];
			mem[t] = NULL;
		}
		b++;
	}
	ret = 0;
out:
	for (t = 0; t < g->num_tensors; t++)
		free(mem[t]);
	free(mem);
	free(ops);
	free(sp);
	npa_ir_free(&ir);
	return ret;
}

/*
 * Zero the outputs before a run (@clear), or count the output bytes that
 * differ from the reference after it.
 */
static long npactl_outputs(struct npactl_net *n, bool clear)
{
	long diff = 0;
	u32 b;
	u64 j;

	for (b = 0; b < n->num_binds; b++) {
		u8 *out = n->maps[b];

		if (!n->expect[b])
			continue;
		if (n->buf_fds[b] >= 0)
			npa_buffer_sync(n->buf_fds[b], 1);
		if (clear)
			memset(out, 0, n->info[b].size);
		for (j = 0; j < n->info[b].size && !clear; j++)
			diff += n->expect[b][j] != out[j];
		if (n->buf_fds[b] >= 0)
			npa_buffer_sync(n->buf_fds[b], 0);
	}
	return diff;
}

/* Say why a job of @n could not be submitted or did not end DONE. */
static void npactl_job_failed(struct npactl_net *n, int job, int ret,
			      const struct npa_job_wait *w,
			      const struct npa_error *err)
{
	char where[64] = "";

	if (job < 0 && err->reason != NPA_ERR_NONE) {
		npactl_graph_refused(n->path, &n->g, err, job);
		return;
	}
	if (job < 0 || ret) {
		fprintf(stderr, "npactl: %s: job: %s\n", n->path,
			strerror(-(job < 0 ? job : ret)));
		return;
	}
	if (w->op != NPA_JOB_OP_NONE)
		snprintf(where, sizeof(where), " in operator %u", w->op);
	if (w->status == NPA_JOB_FAULT)
		snprintf(where + strlen(where), sizeof(where) - strlen(where),
			 " at %#llx", (unsigned long long)w->fault_addr);
	if (w->op < n->g.num_ops)
		fprintf(stderr, "npactl: %s: job: status %s%s [op '%s']\n",
			n->path, npa_job_status_name(w->status), where,
			n->g.op_names[w->op]);
	else
		fprintf(stderr, "npactl: %s: job: status %s%s\n", n->path,
			npa_job_status_name(w->status), where);
}

/*
 * The width of the network column: 22, or more for the longest name, with
 * " #K" after it when each network runs K times.
 */
static int npactl_name_width(char *const *paths, int n, u64 repeat)
{
	int width = 22, i, len;
	char num[24];

	for (i = 0; i < n; i++) {
		const char *base = strrchr(paths[i], '/'), *at;

		base = base ? base + 1 : paths[i];
		at = strrchr(base, '@');
		len = at ? at - base : (int)strlen(base);
		if (repeat > 1)
			len += snprintf(num, sizeof(num), " #%llu",
					(unsigned long long)repeat);
		if (len > width)
			width = len;
	}
	return width;
}

static void npactl_run_usage(FILE *fp)
{
	fprintf(fp,
		"usage: npactl run [--device DEV] [--size N] [--verify] [--private]\n"
		"                  [--seed S] [--repeat K] [--plan FILE.csv] [--bindings]\n"
		"                  NETWORK...\n\n"
		"Runs each NETWORK (.cfg Darknet or .json graph) as a job on the NPU\n"
		"with seeded random inputs and weights.  --size N sets the input\n"
		"resolution to N x N, NETWORK@N for one network; --verify\n"
		"compares the outputs bit for bit with a reference that gives every\n"
		"tensor its own buffer; --private asks for private activation\n"
		"arenas; --plan FILE.csv (one NETWORK) gives the kernel a plan made\n"
		"elsewhere, e.g. by npactl plan --out, which it verifies instead of\n"
		"planning.  --bindings lists what each job binds, as the kernel says\n"
		"(tensor, direction, bytes, offset alignment).  --repeat K runs each\n"
		"network K times and prints one line per run (NAME #1 .. NAME #K),\n"
		"each with its own job time and, with --verify, its own check (the\n"
		"outputs are cleared before each run).\n"
		"A graph the kernel refuses is reported in the words npactl plan\n"
		"uses for it; once a network has failed, the carveout summary at the\n"
		"end is left out and the exit status is 1.  'job' is the job's time\n"
		"on the simulated NPU, 'cycles' what it would take on the NPU its\n"
		"cost model stands for (npactl plan --json's sim_cycles for the\n"
		"same graph and plan).\n");
}

int npactl_cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "size", required_argument, NULL, 's' },
		{ "verify", no_argument, NULL, 'v' },
		{ "private", no_argument, NULL, 'p' },
		{ "seed", required_argument, NULL, 'S' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "plan", required_argument, NULL, 'P' },
		{ "bindings", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct npa_placement *plan_t = NULL, *plan_s = NULL;
	const char *plan = NULL;
	struct npactl_graph_opts gopts = { 0 };
	struct npactl_net nets[NPACTL_MAX_NETS];
	const char *dev = NULL;
	bool verify = false, private = false, header = false, list = false;
	u64 seed = 1, val, repeat = 1;
	int c, fd, i, nnets, width, status = NPACTL_EXIT_OK;
	struct npa_query q;

	while ((c = getopt_long(argc, argv, "d:s:vpS:r:P:bh", opts, NULL)) != -1) {
		switch (c) {
		case 'P':
			plan = optarg;
			break;
		case 'b':
			list = true;
			break;
		case 'd':
			dev = optarg;
			break;
		case 's':
			if (!npactl_parse_u64(optarg, &val) || !val || val > 4096) {
				fprintf(stderr, "npactl: bad --size '%s'\n", optarg);
				return NPACTL_EXIT_USAGE;
			}
			gopts.width = gopts.height = val;
			break;
		case 'v':
			verify = true;
			break;
		case 'p':
			private = true;
			break;
		case 'S':
			if (!npactl_parse_u64(optarg, &seed) || !seed) {
				fprintf(stderr, "npactl: bad --seed '%s' (1 or more)\n", optarg);
				return NPACTL_EXIT_USAGE;
			}
			break;
		case 'r':
			if (!npactl_parse_u64(optarg, &repeat) || !repeat) {
				fprintf(stderr, "npactl: bad --repeat '%s' (1 or more)\n", optarg);
				return NPACTL_EXIT_USAGE;
			}
			break;
		case 'h':
			npactl_run_usage(stdout);
			return NPACTL_EXIT_OK;
		default:
			npactl_run_usage(stderr);
			return NPACTL_EXIT_USAGE;
		}
	}
	nnets = argc - optind;
	if (nnets < 1 || nnets > NPACTL_MAX_NETS || (plan && nnets != 1)) {
		npactl_run_usage(stderr);
		return NPACTL_EXIT_USAGE;
	}
	fd = npactl_open(dev);
	if (fd < 0)
		return NPACTL_EXIT_FAIL;
	memset(nets, 0, sizeof(nets));
	width = npactl_name_width(argv + optind, nnets, repeat);

	for (i = 0; i < nnets; i++) {
		struct npactl_net *n = &nets[i];
		const char *name;
		struct npa_job_wait w = { 0 };
		struct npa_error err = { 0 };
		char label[512];
		long diff = 0;
		u64 k;
		int ret, job = -1;

		struct npactl_graph_opts nopts = gopts;
		char *at;

		n->path = argv[optind + i];
		n->model = -1;
		n->weights_fd = -1;
		/* NETWORK@SIZE: this network at SIZE x SIZE. */
		at = strrchr(n->path, '@');
		if (at) {
			*at = 0;
			if (!npactl_parse_u64(at + 1, &val) || !val || val > 4096) {
				fprintf(stderr, "npactl: bad size in '%s@%s'\n", n->path, at + 1);
				status = NPACTL_EXIT_USAGE;
				continue;
			}
			nopts.width = nopts.height = val;
		}
		name = strrchr(n->path, '/');
		name = name ? name + 1 : n->path;
		ret = npactl_graph_read(n->path, &nopts, &n->g);
		if (ret) {
			status = NPACTL_EXIT_FAIL;
			continue;
		}
		if (n->g.note)
			printf("# %s: %s\n", name, n->g.note);
		npactl_graph_view(&n->g, &n->view);
		{
			struct npa_graph_desc d = {
				n->view.tensors, n->view.ops, n->view.operands,
				n->view.scratch, n->view.num_tensors,
				n->view.num_ops, n->view.num_operands,
				n->view.num_scratch,
			};

			if (plan && npactl_read_plan(plan, &n->g, &plan_t,
						     &plan_s)) {
				status = NPACTL_EXIT_FAIL;
				continue;
			}
			n->model = npa_model_create_planned(fd, &d,
							    private ? NPA_MODEL_PRIVATE_ARENA : 0,
							    0, plan_t, plan_s,
							    &n->rep, &err);
		}
		if (n->model < 0) {
			/* What npactl plan says of the same graph. */
			if (err.reason != NPA_ERR_NONE)
				npactl_graph_refused(n->path, &n->g, &err, n->model);
			else
				fprintf(stderr, "npactl: %s: model create: %s\n",
					n->path, npactl_create_strerror(n->model, "models"));
			status = NPACTL_EXIT_FAIL;
			continue;
		}
		ret = npactl_bind(fd, n, seed + i);
		if (!ret && list)
			npactl_print_bindings(n, name);
		if (!ret && verify)
			ret = npactl_reference(fd, n);
		if (ret) {
			fprintf(stderr, "npactl: %s: %s: %s\n", n->path,
				verify ? "buffers or reference" : "buffers",
				npactl_create_strerror(ret, "buffers"));
			status = NPACTL_EXIT_FAIL;
			continue;
		}
		/* One line per run; each run's outputs are its own. */
		for (k = 0; k < repeat; k++) {
			if (verify)
				npactl_outputs(n, true);
			job = npa_job_submit_err(fd, n->model, n->binds, n->num_binds,
						 0, NULL, &err);
			ret = 0;
			if (job >= 0) {
				ret = npa_job_wait(fd, job, npa_now_ns() + 600LL * 1000000000LL, &w);
				close(job);
			}
			if (job < 0 || ret || w.status != NPA_JOB_DONE) {
				npactl_job_failed(n, job, ret, &w, &err);
				status = NPACTL_EXIT_FAIL;
				break;
			}
			if (verify)
				diff = npactl_outputs(n, false);
			if (!header) {
				printf("%-*s %9s %10s %10s %10s %9s %9s %9s %10s %12s %s\n",
				       width, "network", "tensors", "arena", "lower-bd",
				       "naive", "scratch", "growth", "naive-gr",
				       "job", "cycles", "verify");
				header = true;
			}
			if (repeat > 1)
				snprintf(label, sizeof(label), "%s #%llu", name,
					 (unsigned long long)k + 1);
			else
				snprintf(label, sizeof(label), "%s", name);
			printf("%-*s %9u %8lluKB %8lluKB %8lluKB %7lluKB %7lluKB %7lluKB %8.1fms %12llu %s\n",
			       width, label, n->g.num_tensors,
			       (unsigned long long)n->rep.arena_bytes >> 10,
			       (unsigned long long)n->rep.lower_bound_bytes >> 10,
			       (unsigned long long)n->rep.naive_bytes >> 10,
			       (unsigned long long)n->rep.scratch_requested_bytes >> 10,
			       (unsigned long long)n->rep.scratch_growth_bytes >> 10,
			       (unsigned long long)n->rep.scratch_growth_naive_bytes >> 10,
			       (w.end_ns - w.start_ns) / 1e6,
			       (unsigned long long)w.cycles,
			       !verify ? "-" : diff == 0 ? "bit-exact" : "MISMATCH");
			if (diff) {
				fprintf(stderr, "npactl: %s: %ld output bytes differ from the reference\n",
					n->path, diff);
				status = NPACTL_EXIT_FAIL;
			}
		}
	}

	/* The arenas the networks took: of no use once one has failed. */
	if (status == NPACTL_EXIT_OK && !npa_query(fd, &q)) {
		printf("carveout: shared arena %llu KiB + IO/weights; with a private arena per model the arenas would take %llu KiB\n",
		       (unsigned long long)q.shared_arena_bytes >> 10,
		       (unsigned long long)q.arena_need_private_bytes >> 10);
		npactl_print_stats(&q);
	}
	for (i = 0; i < nnets; i++) {
		npactl_unbind(&nets[i]);
		if (nets[i].model > 0)
			npa_model_destroy(fd, nets[i].model);
		npactl_graph_free(&nets[i].g);
	}
	free(plan_t);
	free(plan_s);
	npa_close(fd);
	return status;
}
