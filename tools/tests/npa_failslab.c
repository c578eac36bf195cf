// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation and user copy failures on every ioctl path: for each call,
 * fail its first allocation, then its second, and so on
 * (/proc/thread-self/fail-nth) until a run completes without reaching the
 * injected failure.  Four sweeps: slab allocations (failslab), page
 * allocations (fail_page_alloc down to order 0, including GFP_KERNEL and
 * highmem/user pages, with failslab filtered off), both, and neither.
 * fail_usercopy has no filter that fail-nth obeys, so every sweep also
 * fails each copy from and to user memory once, and the fourth fails only
 * those.  Every failed call must return an error and leave the file's
 * state, the carveout, the process's fds and mappings exactly as before; a
 * call that succeeds must have worked; kmemleak (checked by the QEMU
 * runner) must find nothing.  Runs in QEMU on the test kernel; TAP out.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libnpa.h"
#include "chaingraph.h"
#include "failnth.h"
#include "procstate.h"
#include "tap.h"
#include "testgraph.h"

#define MAX_NTH 3000

static int nth_fd;

/* What a failed call must not change. */
struct state {
	char fdinfo[256];
	long carveout_used;
	int nfds, nmaps;
};

static void snapshot(int fd, struct state *s)
{
	FILE *f;

	memset(s, 0, sizeof(*s));
	read_fdinfo(fd, "npa-", s->fdinfo, sizeof(s->fdinfo));
	f = fopen("/sys/bus/platform/devices/npa-sim/carveout_used", "r");
	if (f) {
		if (fscanf(f, "%ld", &s->carveout_used) != 1)
			s->carveout_used = -1;
		fclose(f);
	}
	s->nfds = count_fds();
	s->nmaps = count_lines("/proc/self/maps");
}

static void graph_init(void)
{
	graph_init_opts(true, true);
}

struct ctx {
	int fd, model, in, out;
};

/*
 * A chain of activations over 300 tensors: its arrays (12 KiB of
 * tensors, 21 KiB of ops) and the planner's are larger than a page, so
 * that creating it reaches the page allocator and kvmalloc()'s fallback.
 */
#define BIG 300
static struct npa_tensor_desc big_tensors[BIG];
static struct npa_op_desc big_ops[BIG - 1];
static __u32 big_operands[2 * (BIG - 1)];
static struct npa_graph_desc big_graph;

static void big_graph_init(void)
{
	big_graph = chain_graph(big_tensors, big_ops, big_operands, BIG);
}

/* Each returns the call's result; on success it undoes what it made. */
static int do_query(struct ctx *c)
{
	struct npa_query q;

	return npa_query(c->fd, &q);
}

static int do_open(struct ctx *c)
{
	int fd = npa_open(NULL);

	(void)c;
	if (fd >= 0)
		close(fd);
	return fd < 0 ? fd : 0;
}

static int do_model_create(struct ctx *c)
{
	int h = npa_model_create(c->fd, &graph, 0, 0, NULL);

	if (h > 0)
		npa_model_destroy(c->fd, h);
	return h < 0 ? h : 0;
}

static int do_model_private(struct ctx *c)
{
	int h = npa_model_create(c->fd, &graph, NPA_MODEL_PRIVATE_ARENA, 0, NULL);

	if (h > 0)
		npa_model_destroy(c->fd, h);
	return h < 0 ? h : 0;
}

static int do_model_big(struct ctx *c)
{
	int h = npa_model_create(c->fd, &big_graph, 0, 0, NULL);

	if (h > 0)
		npa_model_destroy(c->fd, h);
	return h < 0 ? h : 0;
}

static int do_model_plan(struct ctx *c)
{
	struct npa_placement t[4], s[2];
	__u32 nt = 4, ns = 2;

	return npa_model_plan(c->fd, c->model, t, &nt, s, &ns);
}

static int do_buffer_create(struct ctx *c)
{
	int b = npa_buffer_create(c->fd, 8192);

	if (b >= 0)
		close(b);
	return b < 0 ? b : 0;
}

static int do_job(struct ctx *c)
{
	struct npa_binding b[2] = { { .fd = c->in }, { .fd = c->out } };
	struct npa_job_wait w;
	int fence = -1, job, ret;
	struct pollfd p;

	job = npa_job_submit(c->fd, c->model, b, 2, 0, &fence);
	if (job < 0)
		return job;
	ret = npa_job_wait(c->fd, job, npa_now_ns() + 20000000000LL, &w);
	if (ret) {
		/* A failed wait: let the job end before the state is compared. */
		p = (struct pollfd){ .fd = job, .events = POLLIN };
		poll(&p, 1, 20000);
	}
	close(job);
	close(fence);
	return ret ? ret : w.status == NPA_JOB_DONE ? 0 : -EIO;
}

/* What each sweep turns on; fail-nth counts every site that passes. */
struct mode {
	const char *name;
	const char *slab_filter;	/* failslab/cache-filter: Y turns it off */
	const char *page_order;		/* fail_page_alloc/min-order */
};

static const struct mode modes[] = {
	{ "failslab", "N", "64" },
	{ "fail_page_alloc", "Y", "0" },
	{ "failslab+fail_page_alloc", "N", "0" },
	{ "fail_usercopy", "Y", "64" },
};

static void set_mode(const struct mode *m)
{
	knob("/sys/kernel/debug/failslab/ignore-gfp-wait", "N");
	knob("/sys/kernel/debug/failslab/verbose", "0");
	knob("/sys/kernel/debug/failslab/cache-filter", m->slab_filter);
	knob("/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait", "N");
	knob("/sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem", "N");
	knob("/sys/kernel/debug/fail_page_alloc/verbose", "0");
	knob("/sys/kernel/debug/fail_page_alloc/min-order", m->page_order);
	knob("/sys/kernel/debug/fail_usercopy/verbose", "0");
}

static void sweep(const struct mode *m, struct ctx *c, const char *name,
		  int (*fn)(struct ctx *c))
{
	struct state before, after;
	int n, failed = 0, changed = 0, bad_ret = 0, ret;

	for (n = 1; n <= MAX_NTH; n++) {
		snapshot(c->fd, &before);
		fail_nth_arm(nth_fd, n);
		ret = fn(c);
		if (fail_nth_left(nth_fd)) {
			if (ret)
				bad_ret++;	/* failed without an injected failure */
			break;
		}
		if (ret) {
			failed++;
			snapshot(c->fd, &after);
			if (memcmp(&before, &after, sizeof(before))) {
				changed++;
				fprintf(stderr, "%s: %s: failure %d changed the state:\n%s%ld %d fds %d maps\n--\n%s%ld %d fds %d maps\n",
					m->name, name, n, before.fdinfo,
					before.carveout_used, before.nfds,
					before.nmaps, after.fdinfo,
					after.carveout_used, after.nfds,
					after.nmaps);
			}
		}
	}
	tap_ok(n <= MAX_NTH && !changed && !bad_ret,
	       "%s: %s: %d sites failed one at a time, %d calls failed cleanly, %d changed state",
	       m->name, name, n - 1, failed, changed);
}

int main(void)
{
	struct ctx c;
	size_t i;

	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	tap_ok(nth_fd >= 0, "fail-nth is available");
	if (nth_fd < 0)
		return 1;

	graph_init();
	big_graph_init();
	c.fd = npa_open(NULL);
	c.model = npa_model_create(c.fd, &graph, 0, 0, NULL);
	c.in = npa_buffer_create(c.fd, 256);
	c.out = npa_buffer_create(c.fd, 256);
	tap_ok(c.fd >= 0 && c.model > 0 && c.in >= 0 && c.out >= 0, "setup");

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		const struct mode *m = &modes[i];

		set_mode(m);
		sweep(m, &c, "open", do_open);
		sweep(m, &c, "query", do_query);
		sweep(m, &c, "model create", do_model_create);
		sweep(m, &c, "model create, private arena", do_model_private);
		sweep(m, &c, "model create, 300 tensors", do_model_big);
		sweep(m, &c, "model plan", do_model_plan);
		sweep(m, &c, "buffer create", do_buffer_create);
		sweep(m, &c, "job submit and wait", do_job);
	}
	/* Back to the defaults: nothing else in the guest fails. */
	knob("/sys/kernel/debug/failslab/cache-filter", "N");
	knob("/sys/kernel/debug/fail_page_alloc/min-order", "1");
	knob("/sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem", "Y");

	close(c.in);
	close(c.out);
	npa_model_destroy(c.fd, c.model);
	close(c.fd);
	return tap_failed;
}
