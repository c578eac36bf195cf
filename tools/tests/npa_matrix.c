// SPDX-License-Identifier: GPL-2.0
/*
 * The bad-input matrix: every ioctl, every field of its argument and of
 * the arrays it points to, each invalid value in a table row with the
 * errno Documentation/uapi.rst promises.  Each row starts from a valid
 * request, changes one thing, runs the ioctl once and checks the errno
 * and that the observable state (this file's and another file's fdinfo,
 * the carveout in use, job counters, debugfs models and carveout maps,
 * the process's open fds) is exactly what it was before.  A few rows are
 * controls that must succeed without changing anything.  Runs in QEMU on
 * the test kernel; one TAP line per row.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libnpa.h"
#include "procstate.h"
#include "tap.h"
#include "../../kunit/npa_query_cases.h"
#include "testgraph.h"

#define PAGE		4096
#define U32_MAX		0xffffffffU
#define U64_MAX		0xffffffffffffffffULL
#define KERNEL_PTR	0xffff888000000000ULL
#define SYSFS		"/sys/bus/platform/devices/npa-sim/"
#define DBG		"/sys/kernel/debug/npa0/"

/* The ioctls, in the order of their numbers. */
enum ioc { Q, MC, MP, MD, BC, JS, JW, JC, NIOC };

static const struct {
	const char *name;
	unsigned long cmd;
	/* A shorter struct (older userspace) and what it gives. */
	unsigned int short_size;
	int short_err;
} iocs[NIOC] = {
	[Q] = { "QUERY", NPA_IOCTL_QUERY, 4, 0 },
	[MC] = { "MODEL_CREATE", NPA_IOCTL_MODEL_CREATE, 32, -EINVAL },
	[MP] = { "MODEL_PLAN", NPA_IOCTL_MODEL_PLAN, 8, 0 },
	[MD] = { "MODEL_DESTROY", NPA_IOCTL_MODEL_DESTROY, 0, -ENOENT },
	[BC] = { "BUFFER_CREATE", NPA_IOCTL_BUFFER_CREATE, 0, -EINVAL },
	[JS] = { "JOB_SUBMIT", NPA_IOCTL_JOB_SUBMIT, 4, -EINVAL },
	[JW] = { "JOB_WAIT", NPA_IOCTL_JOB_WAIT, 0, -EINVAL },
	[JC] = { "JOB_CANCEL", NPA_IOCTL_JOB_CANCEL, 0, -EINVAL },
};

/* What a row's value is written into. */
enum tgt { ARG, TENSOR, OP, OPERAND, SCRATCH, BINDING };

static const char *const tgt_name[] = {
	[TENSOR] = "tensors", [OP] = "ops", [OPERAND] = "operands",
	[SCRATCH] = "scratch", [BINDING] = "bindings",
};

/* Values that only exist at run time. */
enum special {
	LIT,
	P_NULL, P_KERNEL, P_UNMAPPED, P_NONE, P_CROSS, P_RDONLY,
	FD_NEG, FD_CLOSED, FD_MAX, FD_PIPE, FD_DEVNULL, FD_EVENTFD, FD_NPA,
	FD_DMABUF, FD_JOB, FD_FENCE, FD_OTHER_JOB,
	H_OTHER, H_UNUSED, H_DESTROYED,
	CARVEOUT_PLUS1,
};

static const char *const special_name[] = {
	[P_NULL] = "NULL",
	[P_KERNEL] = "a kernel address",
	[P_UNMAPPED] = "an unmapped page",
	[P_NONE] = "a PROT_NONE page",
	[P_CROSS] = "a range crossing into an unmapped page",
	[P_RDONLY] = "a read-only page",
	[FD_NEG] = "-1",
	[FD_CLOSED] = "a closed fd",
	[FD_MAX] = "INT_MAX",
	[FD_PIPE] = "a pipe",
	[FD_DEVNULL] = "/dev/null",
	[FD_EVENTFD] = "an eventfd",
	[FD_NPA] = "the /dev/npa0 fd",
	[FD_DMABUF] = "a dma-buf",
	[FD_JOB] = "a job fd",
	[FD_FENCE] = "a sync_file fence",
	[FD_OTHER_JOB] = "a job fd of another open file",
	[H_OTHER] = "another file's handle",
	[H_UNUSED] = "an unused handle",
	[H_DESTROYED] = "a destroyed handle",
	[CARVEOUT_PLUS1] = "carveout_bytes + 1",
};

/* How the argument itself is passed. */
enum argmode { ARG_OK, ARG_NULL, ARG_KERNEL, ARG_UNMAPPED, ARG_NONE,
	       ARG_CROSS, ARG_RDONLY };

struct req {
	enum ioc ioc;
	int fd;			/* the file the ioctl is issued on */
	unsigned long cmd;
	enum argmode argmode;
	void *arg;
	union {
		struct npa_query q;
		struct npa_model_create mc;
		struct npa_model_plan mp;
		struct npa_model_destroy md;
		struct npa_buffer_create bc;
		struct npa_job_submit js;
		struct npa_job_wait jw;
		struct npa_job_cancel jc;
		unsigned char raw[2 * PAGE];
	} a;
	struct npa_placement pt[4], ps[2];
	struct npa_bound_tensor bt[2];
	struct npa_binding b[2];
	int made[300];		/* what a row's setup made, for teardown */
	int nmade;
};

struct row {
	enum ioc ioc;
	enum tgt tgt;
	int idx;
	const char *field;
	size_t off, len;
	enum special sp;
	__u64 val;
	const char *vstr;
	const char *desc;			/* rows that are not one field */
	void (*mutate)(struct req *r);
	int (*setup)(struct req *r);
	void (*teardown)(struct req *r);
	int err;
};

/* The fixture every row works against. */
static struct {
	int fd, fd2;		/* two opens of /dev/npa0 */
	int model;		/* the runnable test graph, on fd */
	int other;		/* a handle fd2 has and fd has not */
	int in, out;		/* 256-byte buffers of fd */
	int job, fence;		/* an ended job of fd, with its fence */
	int job2;		/* an ended job of fd2 */
	int pipe[2], devnull, efd;
	__u64 carveout;
	unsigned char *edge;	/* first byte of an unmapped page after 4 mapped ones */
	unsigned char *unmapped, *none, *rdonly;
} env;

/* testgraph.h's arrays that graph_init_opts() does not reset. */
static __u32 operands0[7];
static struct npa_scratch_desc scratch0[2];

/* ------------------------------------------------------------ state */

struct state {
	char fdinfo[2][256];
	char sysfs[128];
	int models_lines, carveout_lines, nfds;
};

static void snapshot(struct state *s)
{
	static const char *const attrs[] = {
		"carveout_used", "jobs_done", "jobs_failed", "resets",
	};
	char path[64];
	size_t i;

	memset(s, 0, sizeof(*s));
	read_fdinfo(env.fd, "npa-", s->fdinfo[0], sizeof(s->fdinfo[0]));
	read_fdinfo(env.fd2, "npa-", s->fdinfo[1], sizeof(s->fdinfo[1]));
	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		snprintf(path, sizeof(path), SYSFS "%s", attrs[i]);
		read_lines(path, NULL, s->sysfs, sizeof(s->sysfs));
	}
	s->models_lines = count_lines(DBG "models");
	s->carveout_lines = count_lines(DBG "carveout");
	s->nfds = count_fds();
}

/* What differs, for the TAP line; "" if nothing. */
static void state_diff(const struct state *a, const struct state *b,
		       char *out, size_t size)
{
	out[0] = 0;
	if (strcmp(a->fdinfo[0], b->fdinfo[0]))
		strncat(out, " [fdinfo changed]", size - strlen(out) - 1);
	if (strcmp(a->fdinfo[1], b->fdinfo[1]))
		strncat(out, " [other file's fdinfo changed]", size - strlen(out) - 1);
	if (strcmp(a->sysfs, b->sysfs))
		strncat(out, " [carveout_used/jobs changed]", size - strlen(out) - 1);
	if (a->models_lines != b->models_lines)
		strncat(out, " [debugfs models changed]", size - strlen(out) - 1);
	if (a->carveout_lines != b->carveout_lines)
		strncat(out, " [debugfs carveout changed]", size - strlen(out) - 1);
	if (a->nfds != b->nfds)
		strncat(out, " [open fds changed]", size - strlen(out) - 1);
}

/* ------------------------------------------------------------ requests */

static void base(struct req *r, enum ioc ioc)
{
	memset(r, 0, sizeof(*r));
	r->ioc = ioc;
	r->fd = env.fd;
	r->cmd = iocs[ioc].cmd;
	r->arg = &r->a;
	graph_init_opts(true, true);
	memcpy(operands, operands0, sizeof(operands));
	memcpy(scratch, scratch0, sizeof(scratch));
	switch (ioc) {
	case Q:
		break;
	case MC:
		r->a.mc.tensors = (uintptr_t)tensors;
		r->a.mc.ops = (uintptr_t)ops;
		r->a.mc.operands = (uintptr_t)operands;
		r->a.mc.scratch = (uintptr_t)scratch;
		r->a.mc.num_tensors = 4;
		r->a.mc.tensor_size = sizeof(tensors[0]);
		r->a.mc.num_ops = 3;
		r->a.mc.op_size = sizeof(ops[0]);
		r->a.mc.num_operands = 7;
		r->a.mc.num_scratch = 2;
		r->a.mc.scratch_size = sizeof(scratch[0]);
		break;
	case MP:
		r->a.mp.handle = env.model;
		r->a.mp.num_tensors = 4;
		r->a.mp.tensors = (uintptr_t)r->pt;
		r->a.mp.num_scratch = 2;
		r->a.mp.scratch = (uintptr_t)r->ps;
		r->a.mp.placement_size = sizeof(r->pt[0]);
		r->a.mp.bound = (uintptr_t)r->bt;
		r->a.mp.num_bound = 2;
		r->a.mp.bound_size = sizeof(r->bt[0]);
		break;
	case MD:
		r->a.md.handle = env.model;
		break;
	case BC:
		r->a.bc.size = PAGE;
		break;
	case JS:
		r->b[0].fd = env.in;
		r->b[1].fd = env.out;
		r->a.js.model = env.model;
		r->a.js.bindings = (uintptr_t)r->b;
		r->a.js.num_bindings = 2;
		r->a.js.binding_size = sizeof(r->b[0]);
		break;
	case JW:
		r->a.jw.job_fd = env.job;
		break;
	case JC:
		r->a.jc.job_fd = env.job;
		break;
	default:
		break;
	}
}

/* Where a row's target lives in the request. */
static unsigned char *target(struct req *r, enum tgt tgt, int i)
{
	switch (tgt) {
	case TENSOR:
		return (unsigned char *)&tensors[i];
	case OP:
		return (unsigned char *)&ops[i];
	case OPERAND:
		return (unsigned char *)&operands[i];
	case SCRATCH:
		return (unsigned char *)&scratch[i];
	case BINDING:
		return (unsigned char *)&r->b[i];
	default:
		return r->a.raw;
	}
}

/* @len bytes of @src placed so that they end at the unmapped page. */
static void *at_edge(const void *src, size_t len)
{
	memcpy(env.edge - len, src, len);
	return env.edge - len;
}

/* @len bytes of @src placed so that their last 8 bytes are unmapped. */
static void *crossing(const void *src, size_t len)
{
	unsigned char *p = env.edge - len + 8;

	memcpy(p, src, len - 8);
	return p;
}

/* Bytes of the array a pointer field of @r points to. */
static size_t array_bytes(const struct req *r, size_t off)
{
	switch (r->ioc) {
	case MC:
		if (off == offsetof(struct npa_model_create, tensors))
			return sizeof(tensors);
		if (off == offsetof(struct npa_model_create, ops))
			return sizeof(ops);
		if (off == offsetof(struct npa_model_create, operands))
			return sizeof(operands);
		return sizeof(scratch);
	case MP:
		if (off == offsetof(struct npa_model_plan, tensors))
			return sizeof(r->pt);
		if (off == offsetof(struct npa_model_plan, bound))
			return sizeof(r->bt);
		return sizeof(r->ps);
	default:
		return sizeof(r->b);
	}
}

static __u64 resolve(struct req *r, const struct row *rw)
{
	__u64 cur = 0;
	size_t n;

	switch (rw->sp) {
	case LIT:
		return rw->val;
	case P_NULL:
		return 0;
	case P_KERNEL:
		return KERNEL_PTR;
	case P_UNMAPPED:
		return (uintptr_t)env.unmapped;
	case P_NONE:
		return (uintptr_t)env.none;
	case P_CROSS:
		memcpy(&cur, r->a.raw + rw->off, sizeof(cur));
		n = array_bytes(r, rw->off);
		return (uintptr_t)crossing((void *)(uintptr_t)cur, n);
	case P_RDONLY:
		return (uintptr_t)env.rdonly;
	case FD_NEG:
		return (__u64)-1;
	case FD_CLOSED:
		return 1000;
	case FD_MAX:
		return INT_MAX;
	case FD_PIPE:
		return env.pipe[0];
	case FD_DEVNULL:
		return env.devnull;
	case FD_EVENTFD:
		return env.efd;
	case FD_NPA:
		return env.fd;
	case FD_DMABUF:
		return env.in;
	case FD_JOB:
		return env.job;
	case FD_FENCE:
		return env.fence;
	case FD_OTHER_JOB:
		return env.job2;
	case H_OTHER:
		return env.other;
	case H_UNUSED:
		return 64;
	case H_DESTROYED:
		return env.model + 1;
	case CARVEOUT_PLUS1:
		return env.carveout + 1;
	}
	return 0;
}

static void apply(struct req *r, const struct row *rw)
{
	__u64 v;

	if (rw->mutate) {
		rw->mutate(r);
		return;
	}
	v = resolve(r, rw);
	memcpy(target(r, rw->tgt, rw->idx) + rw->off, &v, rw->len);
}

/* Put the argument where the row wants it. */
static void place_arg(struct req *r)
{
	size_t size = _IOC_SIZE(r->cmd);

	switch (r->argmode) {
	case ARG_OK:
		break;
	case ARG_NULL:
		r->arg = NULL;
		break;
	case ARG_KERNEL:
		r->arg = (void *)(uintptr_t)KERNEL_PTR;
		break;
	case ARG_UNMAPPED:
		r->arg = env.unmapped;
		break;
	case ARG_NONE:
		r->arg = env.none;
		break;
	case ARG_CROSS:
		r->arg = crossing(r->a.raw, size);
		break;
	case ARG_RDONLY:
		mprotect(env.rdonly, PAGE, PROT_READ | PROT_WRITE);
		memcpy(env.rdonly, r->a.raw, size);
		mprotect(env.rdonly, PAGE, PROT_READ);
		r->arg = env.rdonly;
		break;
	}
}

/* ------------------------------------------------------------ rows */

static void m_null_arg(struct req *r) { r->argmode = ARG_NULL; }
static void m_kernel_arg(struct req *r) { r->argmode = ARG_KERNEL; }
static void m_unmapped_arg(struct req *r) { r->argmode = ARG_UNMAPPED; }
static void m_none_arg(struct req *r) { r->argmode = ARG_NONE; }
static void m_cross_arg(struct req *r) { r->argmode = ARG_CROSS; }
static void m_rdonly_arg(struct req *r) { r->argmode = ARG_RDONLY; }

static void resize(struct req *r, unsigned int size)
{
	r->cmd = _IOC(_IOC_DIR(r->cmd), _IOC_TYPE(r->cmd), _IOC_NR(r->cmd), size);
}

static void m_short(struct req *r) { resize(r, iocs[r->ioc].short_size); }

static void m_long_tail(struct req *r)
{
	unsigned int ks = _IOC_SIZE(r->cmd);

	r->a.raw[ks + 3] = 1;
	resize(r, ks + 8);
}

static void m_page_tail(struct req *r)
{
	unsigned int ks = _IOC_SIZE(r->cmd);

	r->a.raw[ks + PAGE - 1] = 0x80;
	resize(r, ks + PAGE);
}

/* The largest size the ioctl number holds; the zero tail runs off the map. */
static void m_max_size(struct req *r)
{
	unsigned int ks = _IOC_SIZE(r->cmd);

	memset(env.edge - 4 * PAGE, 0, 4 * PAGE);
	r->arg = env.edge - 2 * PAGE;
	memcpy(r->arg, r->a.raw, ks);
	resize(r, _IOC_SIZEMASK);
}

static void redir(struct req *r, unsigned int dir)
{
	r->cmd = _IOC(dir, _IOC_TYPE(r->cmd), _IOC_NR(r->cmd), _IOC_SIZE(r->cmd));
}

static void m_dir_none(struct req *r) { redir(r, _IOC_NONE); }
static void m_dir_read(struct req *r) { redir(r, _IOC_READ); }
static void m_dir_write(struct req *r) { redir(r, _IOC_WRITE); }
static void m_dir_rw(struct req *r) { redir(r, _IOC_READ | _IOC_WRITE); }

static void m_type(struct req *r)
{
	r->cmd = _IOC(_IOC_DIR(r->cmd), 'X', _IOC_NR(r->cmd), _IOC_SIZE(r->cmd));
}

static void m_on_pipe(struct req *r) { r->fd = env.pipe[0]; }
static void m_on_devnull(struct req *r) { r->fd = env.devnull; }
static void m_on_eventfd(struct req *r) { r->fd = env.efd; }
static void m_on_dmabuf(struct req *r) { r->fd = env.in; }
static void m_on_job(struct req *r) { r->fd = env.job; }

/* Rows generated for every ioctl: the argument as a whole. */
static const struct {
	const char *desc;
	void (*mutate)(struct req *r);
	int err;		/* 1: iocs[].short_err */
	int only_rw;		/* only for _IOWR ioctls */
} generic[] = {
	{ "argument NULL", m_null_arg, -EFAULT, 0 },
	{ "argument at a kernel address", m_kernel_arg, -EFAULT, 0 },
	{ "argument in an unmapped page", m_unmapped_arg, -EFAULT, 0 },
	{ "argument in a PROT_NONE page", m_none_arg, -EFAULT, 0 },
	{ "argument crossing into an unmapped page", m_cross_arg, -EFAULT, 0 },
	{ "argument in a read-only page", m_rdonly_arg, -EFAULT, 1 },
	{ "struct size shorter (older userspace)", m_short, 1, 0 },
	{ "struct size +8 with a non-zero tail", m_long_tail, -E2BIG, 0 },
	{ "struct size +4096 with a non-zero last byte", m_page_tail, -E2BIG, 0 },
	{ "struct size 16383, zero tail running into an unmapped page", m_max_size, -EFAULT, 0 },
	{ "direction bits _IOC_NONE", m_dir_none, -ENOTTY, 0 },
	{ "direction bits _IOC_READ", m_dir_read, -ENOTTY, 0 },
	{ "direction bits _IOC_WRITE", m_dir_write, -ENOTTY, 0 },
	{ "direction bits _IOC_READ|_IOC_WRITE", m_dir_rw, -ENOTTY, 0 },
	{ "ioctl type 'X'", m_type, -ENOTTY, 0 },
	{ "issued on a pipe", m_on_pipe, -ENOTTY, 0 },
	{ "issued on /dev/null", m_on_devnull, -ENOTTY, 0 },
	{ "issued on an eventfd", m_on_eventfd, -ENOTTY, 0 },
	{ "issued on an npa dma-buf", m_on_dmabuf, -ENOTTY, 0 },
	{ "issued on a job fd", m_on_job, -ENOTTY, 0 },
};

/* MODEL_CREATE with one array placed so that it ends at an unmapped page. */
static void m_tensors_edge5(struct req *r)
{
	r->a.mc.tensors = (uintptr_t)at_edge(tensors, sizeof(tensors));
	r->a.mc.num_tensors = 5;
}

static void m_tensors_edge_max(struct req *r)
{
	r->a.mc.tensors = (uintptr_t)at_edge(tensors, sizeof(tensors));
	r->a.mc.num_tensors = 1U << 16;
}

static void m_ops_edge4(struct req *r)
{
	r->a.mc.ops = (uintptr_t)at_edge(ops, sizeof(ops));
	r->a.mc.num_ops = 4;
}

static void m_operands_edge8(struct req *r)
{
	r->a.mc.operands = (uintptr_t)at_edge(operands, sizeof(operands));
	r->a.mc.num_operands = 8;
}

static void m_operands_edge_max(struct req *r)
{
	r->a.mc.operands = (uintptr_t)at_edge(operands, sizeof(operands));
	r->a.mc.num_operands = 1U << 18;
}

static void m_scratch_edge3(struct req *r)
{
	r->a.mc.scratch = (uintptr_t)at_edge(scratch, sizeof(scratch));
	r->a.mc.num_scratch = 3;
}

/* Newer userspace's longer elements, with a non-zero unknown tail. */
static unsigned char wide[4096];

static void widen(const void *src, size_t n, size_t ksize, size_t usize,
		  int bad)
{
	size_t i;

	memset(wide, 0, sizeof(wide));
	for (i = 0; i < n; i++)
		memcpy(wide + i * usize, (const unsigned char *)src + i * ksize, ksize);
	wide[bad * usize + ksize] = 1;
}

static void m_tensors_wide(struct req *r)
{
	widen(tensors, 4, sizeof(tensors[0]), 48, 3);
	r->a.mc.tensors = (uintptr_t)wide;
	r->a.mc.tensor_size = 48;
}

static void m_ops_wide(struct req *r)
{
	widen(ops, 3, sizeof(ops[0]), 80, 1);
	r->a.mc.ops = (uintptr_t)wide;
	r->a.mc.op_size = 80;
}

static void m_scratch_wide(struct req *r)
{
	widen(scratch, 2, sizeof(scratch[0]), 32, 0);
	r->a.mc.scratch = (uintptr_t)wide;
	r->a.mc.scratch_size = 32;
}

static void m_bindings_wide(struct req *r)
{
	widen(r->b, 2, sizeof(r->b[0]), 24, 1);
	r->a.js.bindings = (uintptr_t)wide;
	r->a.js.binding_size = 24;
}

static void m_t1_sized(struct req *r, __u64 size)
{
	(void)r;
	tensors[1] = (struct npa_tensor_desc){ .size = size };
}

static void m_t1_size0(struct req *r) { m_t1_sized(r, 0); }
static void m_t1_efbig(struct req *r) { m_t1_sized(r, (1ULL << 40) + 1); }

static void m_t2_dims_efbig(struct req *r)
{
	static const __u32 d[4] = { 1U << 16, 1U << 16, 1U << 9, 1 };

	(void)r;
	memcpy(tensors[2].dims, d, sizeof(d));
}

static void m_t2_dims_overflow(struct req *r)
{
	(void)r;
	memset(tensors[2].dims, 0xff, sizeof(tensors[2].dims));
}

/* The graph by sizes only, 128 MiB a tensor: a private arena too large. */
static void m_private_too_big(struct req *r)
{
	int i;

	for (i = 0; i < 4; i++)
		tensors[i] = (struct npa_tensor_desc){ .size = 128ULL << 20,
			.flags = tensors[i].flags };
	r->a.mc.flags = NPA_MODEL_PRIVATE_ARENA;
}

static int setup_64_models(struct req *r)
{
	int h;

	while (r->nmade < 63) {
		h = npa_model_create(env.fd, &graph, 0, 0, NULL);
		if (h < 0)
			return h;
		r->made[r->nmade++] = h;
	}
	graph_init_opts(true, true);
	return 0;
}

static void teardown_models(struct req *r)
{
	while (r->nmade)
		npa_model_destroy(env.fd, r->made[--r->nmade]);
}

static int fdinfo_value(int fd, const char *key)
{
	char buf[512] = "", *p;

	read_fdinfo(fd, key, buf, sizeof(buf));
	p = strchr(buf, ':');
	return p ? atoi(p + 1) : -1;
}

static int setup_256_buffers(struct req *r)
{
	int n = fdinfo_value(env.fd, "npa-buffers"), b;

	while (n++ < 256) {
		b = npa_buffer_create(env.fd, PAGE);
		if (b < 0)
			return b;
		r->made[r->nmade++] = b;
	}
	return 0;
}

static void teardown_fds(struct req *r)
{
	while (r->nmade)
		close(r->made[--r->nmade]);
}

static void m_carveout_size(struct req *r) { r->a.bc.size = env.carveout; }

/* A model whose tensors have no shapes: it plans but cannot run. */
static int setup_sized_model(struct req *r)
{
	int i, h;

	for (i = 0; i < 4; i++)
		tensors[i] = (struct npa_tensor_desc){ .size = N,
			.flags = tensors[i].flags };
	h = npa_model_create(env.fd, &graph, 0, 0, NULL);
	graph_init_opts(true, true);
	if (h < 0)
		return h;
	r->made[r->nmade++] = h;
	r->a.js.model = h;
	return 0;
}

/* MODEL_PLAN writing more than the arrays hold before an unmapped page. */
static void m_plan_tensors_short(struct req *r)
{
	r->a.mp.tensors = (uintptr_t)(env.edge - 3 * sizeof(r->pt[0]));
}

static void m_plan_scratch_short(struct req *r)
{
	r->a.mp.scratch = (uintptr_t)(env.edge - sizeof(r->ps[0]));
}

static void m_plan_wide(struct req *r)
{
	r->a.mp.tensors = (uintptr_t)(env.edge - 4 * sizeof(r->pt[0]));
	r->a.mp.placement_size = sizeof(r->pt[0]) + 8;
}

static void m_plan_counts(struct req *r)
{
	r->a.mp.tensors = 0;
	r->a.mp.scratch = 0;
	r->a.mp.bound = 0;
	r->a.mp.placement_size = 0;
	r->a.mp.bound_size = 0;
}

static void m_plan_room_max(struct req *r)
{
	r->a.mp.num_tensors = U32_MAX;
	r->a.mp.num_scratch = U32_MAX;
	r->a.mp.num_bound = U32_MAX;
}

static void m_wait_past(struct req *r) { r->a.jw.deadline_ns = -1; }

/*
 * A struct that ends just before the handle or fd the ioctl returns: it
 * would make an object whose number the copy-out cuts off.
 */
static void m_cut_handle(struct req *r)
{
	resize(r, offsetof(struct npa_model_create, handle));
}

static void m_cut_fd(struct req *r)
{
	resize(r, offsetof(struct npa_buffer_create, fd));
}

static void m_cut_fence_fd(struct req *r)
{
	r->a.js.flags = NPA_JOB_FENCE;
	resize(r, offsetof(struct npa_job_submit, fence_fd));
}

typedef struct npa_query q_t;
typedef struct npa_model_create mc_t;
typedef struct npa_model_plan mp_t;
typedef struct npa_model_destroy md_t;
typedef struct npa_buffer_create bc_t;
typedef struct npa_job_submit js_t;
typedef struct npa_job_wait jw_t;
typedef struct npa_job_cancel jc_t;
typedef struct npa_tensor_desc t_t;
typedef struct npa_op_desc o_t;
typedef struct npa_scratch_desc s_t;
typedef struct npa_binding b_t;

#define FSZ(type, f)	sizeof(((type *)0)->f)
#define ROW(_ioc, _tgt, _i, _type, _f, _sp, _v, _vs, _e)		\
	{ .ioc = _ioc, .tgt = _tgt, .idx = _i, .field = #_f,		\
	  .off = offsetof(_type, _f), .len = FSZ(_type, _f), .sp = _sp,	\
	  .val = (__u64)(_v), .vstr = _vs, .err = _e }
/* One field of the argument set to a literal, or to a run-time value. */
#define A(_ioc, _type, _f, _v, _e)	ROW(_ioc, ARG, 0, _type, _f, LIT, _v, #_v, _e)
#define AX(_ioc, _type, _f, _sp, _e)	ROW(_ioc, ARG, 0, _type, _f, _sp, 0, NULL, _e)
/* One field of an array element. */
#define T(_i, _f, _v, _e)	ROW(MC, TENSOR, _i, t_t, _f, LIT, _v, #_v, _e)
#define O(_i, _f, _v, _e)	ROW(MC, OP, _i, o_t, _f, LIT, _v, #_v, _e)
#define S(_i, _f, _v, _e)	ROW(MC, SCRATCH, _i, s_t, _f, LIT, _v, #_v, _e)
#define OPD(_i, _v, _e)							\
	{ .ioc = MC, .tgt = OPERAND, .idx = _i, .field = "", .len = 4,	\
	  .val = (__u64)(_v), .vstr = #_v, .err = _e }
#define B(_i, _f, _v, _e)	ROW(JS, BINDING, _i, b_t, _f, LIT, _v, #_v, _e)
#define BX(_i, _f, _sp, _e)	ROW(JS, BINDING, _i, b_t, _f, _sp, 0, NULL, _e)
/* Anything else: a description and a function. */
#define M(_ioc, _desc, _fn, _e) { .ioc = _ioc, .desc = _desc, .mutate = _fn, .err = _e }
#define MS(_ioc, _desc, _fn, _setup, _teardown, _e)			\
	{ .ioc = _ioc, .desc = _desc, .mutate = _fn, .setup = _setup,	\
	  .teardown = _teardown, .err = _e }

static const struct row rows[] = {
	/* QUERY: flags and reserved, its only inputs: npa_query_bad_cases. */

	/* MODEL_CREATE: the argument. */
	AX(MC, mc_t, tensors, P_NULL, -EFAULT),
	AX(MC, mc_t, tensors, P_KERNEL, -EFAULT),
	AX(MC, mc_t, tensors, P_UNMAPPED, -EFAULT),
	AX(MC, mc_t, tensors, P_NONE, -EFAULT),
	AX(MC, mc_t, tensors, P_CROSS, -EFAULT),
	AX(MC, mc_t, ops, P_NULL, -EFAULT),
	AX(MC, mc_t, ops, P_KERNEL, -EFAULT),
	AX(MC, mc_t, ops, P_UNMAPPED, -EFAULT),
	AX(MC, mc_t, ops, P_CROSS, -EFAULT),
	AX(MC, mc_t, operands, P_NULL, -EFAULT),
	AX(MC, mc_t, operands, P_KERNEL, -EFAULT),
	AX(MC, mc_t, operands, P_UNMAPPED, -EFAULT),
	AX(MC, mc_t, operands, P_CROSS, -EFAULT),
	AX(MC, mc_t, scratch, P_NULL, -EFAULT),
	AX(MC, mc_t, scratch, P_KERNEL, -EFAULT),
	AX(MC, mc_t, scratch, P_UNMAPPED, -EFAULT),
	AX(MC, mc_t, scratch, P_CROSS, -EFAULT),
	A(MC, mc_t, num_tensors, 0, -EINVAL),
	A(MC, mc_t, num_tensors, 3, -EINVAL),
	A(MC, mc_t, num_tensors, (1U << 16) + 1, -E2BIG),
	A(MC, mc_t, num_tensors, U32_MAX, -E2BIG),
	M(MC, "num_tensors = 5, the 4 tensors end at an unmapped page", m_tensors_edge5, -EFAULT),
	M(MC, "num_tensors = 65536 (the limit), the 4 tensors end at an unmapped page", m_tensors_edge_max, -EFAULT),
	A(MC, mc_t, tensor_size, 0, -EINVAL),
	A(MC, mc_t, tensor_size, 8, -EINVAL),
	A(MC, mc_t, tensor_size, 257, -EINVAL),
	A(MC, mc_t, tensor_size, U32_MAX, -EINVAL),
	M(MC, "tensor_size = 48 with a non-zero tail in tensors[3]", m_tensors_wide, -E2BIG),
	A(MC, mc_t, num_ops, 0, -EINVAL),
	A(MC, mc_t, num_ops, 2, -EINVAL),
	A(MC, mc_t, num_ops, (1U << 16) + 1, -E2BIG),
	A(MC, mc_t, num_ops, U32_MAX, -E2BIG),
	M(MC, "num_ops = 4, the 3 ops end at an unmapped page", m_ops_edge4, -EFAULT),
	A(MC, mc_t, op_size, 0, -EINVAL),
	A(MC, mc_t, op_size, 4, -EINVAL),
	A(MC, mc_t, op_size, 257, -EINVAL),
	A(MC, mc_t, op_size, U32_MAX, -EINVAL),
	M(MC, "op_size = 80 with a non-zero tail in ops[1]", m_ops_wide, -E2BIG),
	A(MC, mc_t, num_operands, 0, -EINVAL),
	A(MC, mc_t, num_operands, 6, -EINVAL),
	A(MC, mc_t, num_operands, (1U << 18) + 1, -E2BIG),
	A(MC, mc_t, num_operands, U32_MAX, -E2BIG),
	M(MC, "num_operands = 8, the 7 operands end at an unmapped page", m_operands_edge8, -EFAULT),
	M(MC, "num_operands = 262144 (the limit), the 7 operands end at an unmapped page", m_operands_edge_max, -EFAULT),
	A(MC, mc_t, num_scratch, 0, -EINVAL),
	A(MC, mc_t, num_scratch, 1, -EINVAL),
	A(MC, mc_t, num_scratch, (1U << 16) + 1, -E2BIG),
	A(MC, mc_t, num_scratch, U32_MAX, -E2BIG),
	M(MC, "num_scratch = 3, the 2 requests end at an unmapped page", m_scratch_edge3, -EFAULT),
	A(MC, mc_t, scratch_size, 0, -EINVAL),
	A(MC, mc_t, scratch_size, 8, -EINVAL),
	A(MC, mc_t, scratch_size, 257, -EINVAL),
	A(MC, mc_t, scratch_size, U32_MAX, -EINVAL),
	M(MC, "scratch_size = 32 with a non-zero tail in scratch[0]", m_scratch_wide, -E2BIG),
	A(MC, mc_t, flags, 2, -EINVAL),
	A(MC, mc_t, flags, 0x80000000, -EINVAL),
	A(MC, mc_t, flags, U32_MAX, -EINVAL),
	A(MC, mc_t, budget, (1ULL << 24) + 1, -EINVAL),
	A(MC, mc_t, budget, 1ULL << 63, -EINVAL),
	A(MC, mc_t, budget, U64_MAX, -EINVAL),
	A(MC, mc_t, reserved, 1, -EINVAL),
	A(MC, mc_t, reserved, U32_MAX, -EINVAL),
	A(MC, mc_t, pad, 1, -EINVAL),
	A(MC, mc_t, pad, U32_MAX, -EINVAL),
	A(MC, mc_t, reserved2, 1, -EINVAL),
	A(MC, mc_t, plan_size, sizeof(struct npa_placement), -EINVAL),
	A(MC, mc_t, plan_tensors, 4096, -EINVAL),
	MS(MC, "a 65th model on the file", NULL, setup_64_models, teardown_models, -EDQUOT),
	M(MC, "PRIVATE_ARENA with a 128 MiB arena, larger than the carveout", m_private_too_big, -ENOSPC),
	M(MC, "struct size 72, ending before handle", m_cut_handle, -EINVAL),

	/* MODEL_CREATE: tensors[] (t0 input, t1, t2 = t1 in place, t3 output). */
	T(0, size, 1, -EINVAL),
	T(1, size, 257, -EINVAL),
	T(2, size, 1ULL << 41, -EINVAL),
	T(3, size, U64_MAX, -EINVAL),
	M(MC, "tensors[1] = { .size = 0 } (no shape, no size)", m_t1_size0, -EINVAL),
	M(MC, "tensors[1] = { .size = 2^40 + 1 } (above max_tensor_bytes)", m_t1_efbig, -E2BIG),
	T(0, dims[0], 0, -EINVAL),
	T(1, dims[1], 0, -EINVAL),
	T(2, dims[3], 0, -EINVAL),
	T(0, dims[0], U32_MAX, -EINVAL),
	T(3, dims[1], U32_MAX, -EINVAL),
	M(MC, "tensors[2].dims = { 2^16, 2^16, 2^9, 1 } (2^41 bytes)", m_t2_dims_efbig, -E2BIG),
	M(MC, "tensors[2].dims = { U32_MAX x 4 } (product overflows)", m_t2_dims_overflow, -EOVERFLOW),
	T(0, dtype, NPA_DTYPE_COUNT, -EINVAL),
	T(1, dtype, U32_MAX, -EINVAL),
	T(2, dtype, NPA_DTYPE_NONE, -EINVAL),
	T(1, dtype, NPA_DTYPE_INT16, -EINVAL),
	T(3, dtype, NPA_DTYPE_INT32, -EINVAL),
	T(0, align, 3, -EINVAL),
	T(1, align, 1U << 21, -EINVAL),
	T(2, align, 0x80000000, -EINVAL),
	T(3, align, U32_MAX, -EINVAL),
	T(0, flags, 0x10, -EINVAL),
	T(1, flags, U32_MAX, -EINVAL),
	T(0, flags, NPA_TENSOR_INPUT | NPA_TENSOR_CONST, -EINVAL),
	T(3, flags, NPA_TENSOR_OUTPUT | NPA_TENSOR_CONST, -EINVAL),
	T(0, flags, 0, -EINVAL),
	T(1, flags, NPA_TENSOR_INPUT, -EINVAL),
	T(2, flags, NPA_TENSOR_CONST, -EINVAL),
	T(3, flags, NPA_TENSOR_INPUT, -EINVAL),
	T(0, pad, 1, -EINVAL),
	T(3, pad, U32_MAX, -EINVAL),

	/* MODEL_CREATE: ops[] (relu t0->t1 with 2 scratch, leaky in place t1->t2, add t2+t0->t3). */
	O(0, kind, 0, -EINVAL),
	O(1, kind, NPA_OP_KIND_COUNT, -EINVAL),
	O(2, kind, U32_MAX, -EINVAL),
	O(0, kind, NPA_OP_CONV2D, -EINVAL),
	O(0, unit, NPA_UNIT_COUNT, -EINVAL),
	O(2, unit, U32_MAX, -EINVAL),
	O(0, flags, 2, -EINVAL),
	O(1, flags, U32_MAX, -EINVAL),
	O(0, first_input, 7, -EINVAL),
	O(0, first_input, U32_MAX, -EINVAL),
	O(2, first_input, 6, -EINVAL),
	O(0, first_input, 6, -EINVAL),
	O(0, num_inputs, 0, -EINVAL),
	O(0, num_inputs, 2, -EINVAL),
	O(2, num_inputs, 1, -EINVAL),
	O(2, num_inputs, 3, -EINVAL),
	O(1, num_inputs, U32_MAX, -EINVAL),
	O(0, first_output, 7, -EINVAL),
	O(2, first_output, U32_MAX, -EINVAL),
	O(0, first_output, 0, -EINVAL),
	O(1, first_output, 6, -EINVAL),
	O(0, num_outputs, 0, -EINVAL),
	O(0, num_outputs, 2, -EINVAL),
	O(2, num_outputs, U32_MAX, -EINVAL),
	O(0, first_scratch, 1, -EINVAL),
	O(0, first_scratch, U32_MAX, -EINVAL),
	O(1, first_scratch, 3, -EINVAL),
	O(0, num_scratch, 3, -EINVAL),
	O(0, num_scratch, U32_MAX, -EINVAL),
	O(0, num_scratch, 1, -EINVAL),
	O(0, num_scratch, 0, -EINVAL),
	O(1, num_scratch, 1, -EINVAL),
	O(0, pad, 1, -EINVAL),
	O(2, pad, U32_MAX, -EINVAL),
	O(0, params[NPA_P_ACT], NPA_ACT_COUNT, -EINVAL),
	O(0, params[NPA_P_ACT], -1, -EINVAL),
	O(1, params[NPA_P_ACT], INT32_MIN, -EINVAL),
	O(0, params[3], 1, -EINVAL),
	O(2, params[NPA_P_SHIFT], -1, -EINVAL),
	O(2, params[NPA_P_SHIFT], 32, -EINVAL),
	O(2, params[0], 1, -EINVAL),
	O(1, params[NPA_P_SHIFT], INT32_MAX, -EINVAL),

	/* MODEL_CREATE: operands[] = { 0, 1, 1, 2, 2, 0, 3 }. */
	OPD(0, 4, -EINVAL),
	OPD(3, U32_MAX, -EINVAL),
	OPD(6, 4, -EINVAL),
	OPD(0, 3, -EINVAL),
	OPD(4, 3, -EINVAL),
	OPD(6, 0, -EINVAL),
	OPD(1, 3, -EINVAL),

	/* MODEL_CREATE: scratch[] (0: fixed 4096, 1: variable 64..8192). */
	S(0, size, 0, -EINVAL),
	S(1, size, 0, -EINVAL),
	S(1, size, 32, -EINVAL),
	S(0, size, (1ULL << 40) + 1, -E2BIG),
	S(1, size, U64_MAX, -E2BIG),
	S(0, min_size, 1, -EINVAL),
	S(1, min_size, 0, -EINVAL),
	S(1, min_size, 8193, -EINVAL),
	S(1, min_size, U64_MAX, -EINVAL),
	S(0, align, 3, -EINVAL),
	S(1, align, 1U << 21, -EINVAL),
	S(0, align, U32_MAX, -EINVAL),
	S(0, flags, 4, -EINVAL),
	S(1, flags, U32_MAX, -EINVAL),
	S(0, flags, NPA_SCRATCH_VARIABLE, -EINVAL),

	/* MODEL_PLAN */
	A(MP, mp_t, handle, 0, -ENOENT),
	AX(MP, mp_t, handle, H_UNUSED, -ENOENT),
	AX(MP, mp_t, handle, H_OTHER, -ENOENT),
	AX(MP, mp_t, handle, H_DESTROYED, -ENOENT),
	A(MP, mp_t, handle, U32_MAX, -ENOENT),
	AX(MP, mp_t, tensors, P_KERNEL, -EFAULT),
	AX(MP, mp_t, tensors, P_UNMAPPED, -EFAULT),
	AX(MP, mp_t, tensors, P_NONE, -EFAULT),
	AX(MP, mp_t, tensors, P_CROSS, -EFAULT),
	AX(MP, mp_t, tensors, P_RDONLY, -EFAULT),
	AX(MP, mp_t, scratch, P_KERNEL, -EFAULT),
	AX(MP, mp_t, scratch, P_UNMAPPED, -EFAULT),
	AX(MP, mp_t, scratch, P_CROSS, -EFAULT),
	AX(MP, mp_t, scratch, P_RDONLY, -EFAULT),
	A(MP, mp_t, placement_size, 0, -EINVAL),
	A(MP, mp_t, placement_size, 257, -EINVAL),
	A(MP, mp_t, placement_size, U32_MAX, -EINVAL),
	AX(MP, mp_t, bound, P_KERNEL, -EFAULT),
	AX(MP, mp_t, bound, P_UNMAPPED, -EFAULT),
	AX(MP, mp_t, bound, P_CROSS, -EFAULT),
	AX(MP, mp_t, bound, P_RDONLY, -EFAULT),
	A(MP, mp_t, bound_size, 0, -EINVAL),
	A(MP, mp_t, bound_size, 257, -EINVAL),
	A(MP, mp_t, bound_size, U32_MAX, -EINVAL),
	A(MP, mp_t, flags, 1, -EINVAL),
	A(MP, mp_t, flags, U32_MAX, -EINVAL),
	A(MP, mp_t, pad, 1, -EINVAL),
	A(MP, mp_t, pad, U32_MAX, -EINVAL),
	M(MP, "num_tensors = 4, room for 3 before an unmapped page", m_plan_tensors_short, -EFAULT),
	M(MP, "num_scratch = 2, room for 1 before an unmapped page", m_plan_scratch_short, -EFAULT),
	M(MP, "placement_size = 40, 4 x 32 bytes before an unmapped page", m_plan_wide, -EFAULT),
	M(MP, "control: tensors = scratch = bound = 0, placement_size = bound_size = 0 (counts only)", m_plan_counts, 0),
	M(MP, "control: num_tensors = num_scratch = num_bound = U32_MAX (room above the counts)", m_plan_room_max, 0),

	/* MODEL_DESTROY */
	A(MD, md_t, handle, 0, -ENOENT),
	AX(MD, md_t, handle, H_UNUSED, -ENOENT),
	AX(MD, md_t, handle, H_OTHER, -ENOENT),
	AX(MD, md_t, handle, H_DESTROYED, -ENOENT),
	A(MD, md_t, handle, U32_MAX, -ENOENT),
	A(MD, md_t, flags, 1, -EINVAL),
	A(MD, md_t, flags, U32_MAX, -EINVAL),

	/* BUFFER_CREATE */
	A(BC, bc_t, size, 0, -EINVAL),
	AX(BC, bc_t, size, CARVEOUT_PLUS1, -EINVAL),
	A(BC, bc_t, size, 1ULL << 63, -EINVAL),
	A(BC, bc_t, size, U64_MAX, -EINVAL),
	M(BC, "size = carveout_bytes while buffers are in use", m_carveout_size, -ENOSPC),
	MS(BC, "a 257th buffer on the file", NULL, setup_256_buffers, teardown_fds, -EDQUOT),
	A(BC, bc_t, flags, 1, -EINVAL),
	A(BC, bc_t, flags, U32_MAX, -EINVAL),
	A(BC, bc_t, reserved, 1, -EINVAL),
	A(BC, bc_t, reserved, U64_MAX, -EINVAL),
	M(BC, "struct size 12, ending before fd", m_cut_fd, -EINVAL),

	/* JOB_SUBMIT */
	A(JS, js_t, model, 0, -ENOENT),
	AX(JS, js_t, model, H_UNUSED, -ENOENT),
	AX(JS, js_t, model, H_OTHER, -ENOENT),
	AX(JS, js_t, model, H_DESTROYED, -ENOENT),
	A(JS, js_t, model, U32_MAX, -ENOENT),
	MS(JS, "model = a model whose tensors have no shapes", NULL, setup_sized_model, teardown_models, -EINVAL),
	A(JS, js_t, flags, 2, -EINVAL),
	A(JS, js_t, flags, U32_MAX, -EINVAL),
	A(JS, js_t, reserved, 1, -EINVAL),
	A(JS, js_t, reserved, U64_MAX, -EINVAL),
	A(JS, js_t, pad, 1, -EINVAL),
	A(JS, js_t, pad, U32_MAX, -EINVAL),
	AX(JS, js_t, bindings, P_NULL, -EFAULT),
	AX(JS, js_t, bindings, P_KERNEL, -EFAULT),
	AX(JS, js_t, bindings, P_UNMAPPED, -EFAULT),
	AX(JS, js_t, bindings, P_NONE, -EFAULT),
	AX(JS, js_t, bindings, P_CROSS, -EFAULT),
	A(JS, js_t, num_bindings, 0, -EINVAL),
	A(JS, js_t, num_bindings, 1, -EINVAL),
	A(JS, js_t, num_bindings, 3, -EINVAL),
	A(JS, js_t, num_bindings, U32_MAX, -EINVAL),
	A(JS, js_t, binding_size, 0, -EINVAL),
	A(JS, js_t, binding_size, 8, -EBADF),
	A(JS, js_t, binding_size, 257, -EINVAL),
	A(JS, js_t, binding_size, U32_MAX, -EINVAL),
	M(JS, "binding_size = 24 with a non-zero tail in bindings[1]", m_bindings_wide, -E2BIG),
	BX(0, fd, FD_NEG, -EBADF),
	BX(1, fd, FD_NEG, -EBADF),
	BX(0, fd, FD_CLOSED, -EBADF),
	BX(1, fd, FD_MAX, -EBADF),
	BX(0, fd, FD_PIPE, -EBADF),
	BX(1, fd, FD_DEVNULL, -EBADF),
	BX(0, fd, FD_EVENTFD, -EBADF),
	BX(1, fd, FD_NPA, -EBADF),
	BX(0, fd, FD_JOB, -EBADF),
	BX(1, fd, FD_FENCE, -EBADF),
	B(0, pad, 1, -EINVAL),
	B(1, pad, U32_MAX, -EINVAL),
	B(0, offset, 1, -EINVAL),
	B(1, offset, 32, -EINVAL),
	B(0, offset, 3904, -EINVAL),
	B(1, offset, 4096, -EINVAL),
	B(0, offset, 1ULL << 63, -EINVAL),
	B(1, offset, U64_MAX, -EINVAL),
	B(0, offset, U64_MAX - 63, -EINVAL),
	M(JS, "flags = FENCE, struct size 36, ending before fence_fd", m_cut_fence_fd, -EINVAL),

	/* JOB_WAIT (on an ended job) */
	AX(JW, jw_t, job_fd, FD_NEG, -EBADF),
	AX(JW, jw_t, job_fd, FD_CLOSED, -EBADF),
	AX(JW, jw_t, job_fd, FD_MAX, -EBADF),
	AX(JW, jw_t, job_fd, FD_PIPE, -EINVAL),
	AX(JW, jw_t, job_fd, FD_DEVNULL, -EINVAL),
	AX(JW, jw_t, job_fd, FD_EVENTFD, -EINVAL),
	AX(JW, jw_t, job_fd, FD_NPA, -EINVAL),
	AX(JW, jw_t, job_fd, FD_DMABUF, -EINVAL),
	AX(JW, jw_t, job_fd, FD_FENCE, -EINVAL),
	AX(JW, jw_t, job_fd, FD_OTHER_JOB, -EPERM),
	A(JW, jw_t, flags, 1, -EINVAL),
	A(JW, jw_t, flags, U32_MAX, -EINVAL),
	M(JW, "control: deadline_ns = -1 (in the past: polls)", m_wait_past, 0),

	/* JOB_CANCEL (of an ended job) */
	AX(JC, jc_t, job_fd, FD_NEG, -EBADF),
	AX(JC, jc_t, job_fd, FD_CLOSED, -EBADF),
	AX(JC, jc_t, job_fd, FD_MAX, -EBADF),
	AX(JC, jc_t, job_fd, FD_PIPE, -EINVAL),
	AX(JC, jc_t, job_fd, FD_DEVNULL, -EINVAL),
	AX(JC, jc_t, job_fd, FD_EVENTFD, -EINVAL),
	AX(JC, jc_t, job_fd, FD_NPA, -EINVAL),
	AX(JC, jc_t, job_fd, FD_DMABUF, -EINVAL),
	AX(JC, jc_t, job_fd, FD_FENCE, -EINVAL),
	AX(JC, jc_t, job_fd, FD_OTHER_JOB, -EPERM),
	A(JC, jc_t, flags, 1, -EINVAL),
	A(JC, jc_t, flags, U32_MAX, -EINVAL),
	M(JC, "control: cancel an ended job", NULL, 0),
};

/* ------------------------------------------------------------ running */

static const char *errname(int err)
{
	static char buf[16];
	static const struct { int err; const char *name; } names[] = {
		{ 0, "0" }, { -EINVAL, "EINVAL" }, { -E2BIG, "E2BIG" },
		{ -EFBIG, "EFBIG" }, { -EOVERFLOW, "EOVERFLOW" },
		{ -EMSGSIZE, "EMSGSIZE" }, { -ERANGE, "ERANGE" },
		{ -EEXIST, "EEXIST" }, { -EPERM, "EPERM" },
		{ -ENODATA, "ENODATA" }, { -ELOOP, "ELOOP" },
		{ -EFAULT, "EFAULT" }, { -ENOSPC, "ENOSPC" },
		{ -ENOMEM, "ENOMEM" }, { -ENOENT, "ENOENT" },
		{ -ENOEXEC, "ENOEXEC" }, { -EBADF, "EBADF" },
		{ -EXDEV, "EXDEV" }, { -EAGAIN, "EAGAIN" }, { -ETIME, "ETIME" },
		{ -ENODEV, "ENODEV" }, { -ENOTTY, "ENOTTY" },
		{ -EMFILE, "EMFILE" }, { -EDQUOT, "EDQUOT" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].err == err)
			return names[i].name;
	snprintf(buf, sizeof(buf), "%d", err);
	return buf;
}

static void describe(const struct row *rw, char *out, size_t size)
{
	const char *v = rw->vstr ? rw->vstr : special_name[rw->sp];

	if (rw->desc)
		snprintf(out, size, "%s %s", iocs[rw->ioc].name, rw->desc);
	else if (rw->tgt == ARG)
		snprintf(out, size, "%s %s = %s", iocs[rw->ioc].name, rw->field, v);
	else
		snprintf(out, size, "%s %s[%d]%s%s = %s", iocs[rw->ioc].name,
			 tgt_name[rw->tgt], rw->idx, *rw->field ? "." : "",
			 rw->field, v);
}

/*
 * A row that wrongly succeeded or changed the state: undo what it made so
 * that later rows still hold.
 */
static void undo(const struct state *before)
{
	struct state now;
	int h, fd;

	for (h = 2; h <= 64; h++)
		if (h != env.model)
			npa_model_destroy(env.fd, h);
	snapshot(&now);
	for (fd = 3; fd < 1000 && now.nfds > before->nfds; fd++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char link[64], path[32];
		ssize_t n;

		if (fd == env.fd || fd == env.fd2 || fd == env.in ||
		    fd == env.out || fd == env.job || fd == env.fence ||
		    fd == env.job2 || fd == env.pipe[0] || fd == env.pipe[1] ||
		    fd == env.devnull || fd == env.efd)
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, link, sizeof(link) - 1);
		if (n < 0)
			continue;
		link[n] = 0;
		if (strstr(link, "npa-job") || strstr(link, "sync_file"))
			poll(&p, 1, 10000);
		close(fd);
		now.nfds--;
	}
	if (npa_model_plan(env.fd, env.model, NULL, &(__u32){ 0 }, NULL,
			   &(__u32){ 0 }))
		env.model = npa_model_create(env.fd, &graph, 0, 0, NULL);
}

static void run(const struct row *rw)
{
	struct state before, after;
	char desc[200], diff[200];
	struct req r;
	int ret, setup = 0;

	describe(rw, desc, sizeof(desc));
	base(&r, rw->ioc);
	if (rw->setup)
		setup = rw->setup(&r);
	if (setup) {
		tap_ok(0, "%s: setup failed (%s)", desc, errname(setup));
		if (rw->teardown)
			rw->teardown(&r);
		return;
	}
	apply(&r, rw);
	place_arg(&r);

	snapshot(&before);
	ret = ioctl(r.fd, r.cmd, r.arg) < 0 ? -errno : 0;
	snapshot(&after);
	state_diff(&before, &after, diff, sizeof(diff));
	if ((ret == 0 && rw->err) || diff[0])
		undo(&before);
	if (rw->teardown)
		rw->teardown(&r);

	if (ret == rw->err)
		tap_ok(!diff[0], "%s -> %s%s", desc, errname(rw->err), diff);
	else
		tap_ok(0, "%s -> %s, got %s%s", desc, errname(rw->err),
		       errname(ret), diff);
}

static void run_generic(enum ioc ioc, size_t g)
{
	struct row rw = {
		.ioc = ioc, .mutate = generic[g].mutate, .err = generic[g].err,
	};
	unsigned int dir = _IOC_DIR(iocs[ioc].cmd);
	char desc[128];

	if (generic[g].only_rw && dir != (_IOC_READ | _IOC_WRITE))
		return;
	/* The ioctl's own direction bits are not a bad value. */
	if ((generic[g].mutate == m_dir_none && dir == _IOC_NONE) ||
	    (generic[g].mutate == m_dir_read && dir == _IOC_READ) ||
	    (generic[g].mutate == m_dir_write && dir == _IOC_WRITE) ||
	    (generic[g].mutate == m_dir_rw && dir == (_IOC_READ | _IOC_WRITE)))
		return;
	if (rw.err == 1) {
		rw.err = iocs[ioc].short_err;
		snprintf(desc, sizeof(desc), "struct size %u (older userspace)%s",
			 iocs[ioc].short_size, rw.err ? "" : ", control");
		rw.desc = desc;
	} else {
		rw.desc = generic[g].desc;
	}
	run(&rw);
}

/* Unknown ioctl numbers on the device. */
static void run_unknown(void)
{
	static const struct { unsigned long cmd; const char *desc; } cmds[] = {
		{ _IOWR(NPA_IOCTL_BASE, 0x08, struct npa_query), "number 0x08 (one past the last)" },
		{ _IOWR(NPA_IOCTL_BASE, 0xff, struct npa_query), "number 0xff" },
		{ _IO(NPA_IOCTL_BASE, 0x00), "_IO(base, 0)" },
		{ 0, "cmd 0" },
		{ 0xffffffff, "cmd 0xffffffff" },
		{ FIONREAD, "FIONREAD" },
	};
	struct state before, after;
	char diff[200];
	unsigned char buf[PAGE] = { 0 };
	size_t i;
	int ret;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		snapshot(&before);
		ret = ioctl(env.fd, cmds[i].cmd, buf) < 0 ? -errno : 0;
		snapshot(&after);
		state_diff(&before, &after, diff, sizeof(diff));
		if (ret == -ENOTTY)
			tap_ok(!diff[0], "ioctl %s -> ENOTTY%s", cmds[i].desc, diff);
		else
			tap_ok(0, "ioctl %s -> ENOTTY, got %s%s", cmds[i].desc,
			       errname(ret), diff);
	}
}

static void *map_pages(int n, int prot)
{
	void *p = mmap(NULL, (size_t)n * PAGE, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int submit_ended(int fd, int model, int in, int out, int *fence)
{
	struct npa_binding b[2] = { { .fd = in }, { .fd = out } };
	struct npa_job_wait w;
	int job = npa_job_submit(fd, model, b, 2, 0, fence);

	if (job < 0)
		return job;
	if (npa_job_wait(fd, job, npa_now_ns() + 20000000000LL, &w) ||
	    w.status != NPA_JOB_DONE)
		return -EIO;
	return job;
}

static int setup_env(void)
{
	struct npa_query q;
	unsigned char *p;
	int in2, out2, h;

	memcpy(operands0, operands, sizeof(operands0));
	memcpy(scratch0, scratch, sizeof(scratch0));
	graph_init_opts(true, true);
	env.devnull = open("/dev/null", O_RDWR);
	/* fd 0 is /dev/null, so that a zeroed job_fd is a wrong-type fd. */
	dup2(env.devnull, 0);
	if (pipe(env.pipe))
		return -errno;
	env.efd = eventfd(0, 0);
	env.fd = npa_open(NULL);
	env.fd2 = npa_open(NULL);
	if (env.fd < 0 || env.fd2 < 0 || env.efd < 0)
		return -ENODEV;
	if (npa_query(env.fd, &q))
		return -EIO;
	env.carveout = q.carveout_bytes;

	env.model = npa_model_create(env.fd, &graph, 0, 0, NULL);
	/* Handles 1 to 3 on the other file; this one holds only 1. */
	for (h = 0; h < 3; h++)
		env.other = npa_model_create(env.fd2, &graph, 0, 0, NULL);
	env.in = npa_buffer_create(env.fd, N);
	env.out = npa_buffer_create(env.fd, N);
	in2 = npa_buffer_create(env.fd2, N);
	out2 = npa_buffer_create(env.fd2, N);
	if (env.model != 1 || env.other != 3 || env.in < 0 || env.out < 0 ||
	    in2 < 0 || out2 < 0)
		return -EIO;
	env.job = submit_ended(env.fd, env.model, env.in, env.out, &env.fence);
	env.job2 = submit_ended(env.fd2, 1, in2, out2, NULL);
	close(in2);
	close(out2);
	if (env.job < 0 || env.job2 < 0)
		return -EIO;
	/* A handle that was destroyed: 2, the next one this file gets. */
	h = npa_model_create(env.fd, &graph, 0, 0, NULL);
	if (h != env.model + 1 || npa_model_destroy(env.fd, h))
		return -EIO;

	/*
	 * 4 mapped pages, an unmapped one, a PROT_NONE one and a read-only
	 * one; the hole is made last and nothing is mapped after it, so that
	 * no later mapping fills it (checked at the end).
	 */
	p = map_pages(7, PROT_READ | PROT_WRITE);
	if (!p)
		return -ENOMEM;
	mprotect(p + 5 * PAGE, PAGE, PROT_NONE);
	mprotect(p + 6 * PAGE, PAGE, PROT_READ);
	munmap(p + 4 * PAGE, PAGE);
	env.edge = p + 4 * PAGE;
	env.unmapped = env.edge;
	env.none = p + 5 * PAGE;
	env.rdonly = p + 6 * PAGE;
	return 0;
}

int main(void)
{
	size_t i, g;
	int ret, ioc;

	ret = setup_env();
	tap_ok(!ret, "matrix: set up two files, models, buffers and ended jobs (%s)",
	       errname(ret));
	if (ret)
		return 1;

	for (ioc = 0; ioc < NIOC; ioc++)
		for (g = 0; g < sizeof(generic) / sizeof(generic[0]); g++)
			run_generic(ioc, g);
	run_unknown();
	for (i = 0; i < sizeof(npa_query_bad_cases) / sizeof(npa_query_bad_cases[0]); i++) {
		const struct npa_query_case *c = &npa_query_bad_cases[i];
		struct row q = {
			.ioc = Q, .tgt = ARG, .field = c->field, .off = c->off,
			.len = c->len, .sp = LIT, .val = c->val, .vstr = c->value,
			.err = -EINVAL,
		};

		run(&q);
	}
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		run(&rows[i]);

	tap_ok(msync(env.unmapped, PAGE, MS_ASYNC) && errno == ENOMEM,
	       "matrix: the unmapped page stayed unmapped");
	close(env.job);
	close(env.fence);
	close(env.job2);
	close(env.in);
	close(env.out);
	npa_close(env.fd2);
	npa_close(env.fd);
	return tap_failed;
}
