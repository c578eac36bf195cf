// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctls that hand out a number (MODEL_CREATE's handle, BUFFER_CREATE's
 * dma-buf fd, JOB_SUBMIT's job and fence fds) must copy their result to
 * userspace before the number means anything, so that a caller who cannot
 * receive it is left with nothing.  Two tests, in QEMU on the test kernel;
 * TAP out:
 *
 * copy-out: with fail_usercopy through /proc/thread-self/fail-nth
 *   (failslab and fail_page_alloc filtered off, so that only copies from
 *   and to user memory count), count the copies a successful call makes,
 *   then fail the last one, which is the copy of the result.  The call
 *   must fail with -EFAULT and leave everything as it was: the file's
 *   fdinfo, the carveout in use, the jobs run, the debugfs model and
 *   carveout maps, the process's fds.  A model's handle must be free
 *   again, and a job must never run.
 *
 * race: one thread issues the ioctl again and again on an argument in a
 *   page that a second thread write-protects and unprotects.  The argument
 *   reads fine either way, so every -EFAULT is a failed copy of the result.
 *   Each call that succeeded made one object, which the test frees; after
 *   the run nothing else may be left, and exactly as many jobs may have
 *   run as submissions succeeded.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "libnpa.h"
#include "failnth.h"
#include "procstate.h"
#include "tap.h"
#include "testgraph.h"

#define PAGE		4096
#define SYSFS		"/sys/bus/platform/devices/npa-sim/"
#define DBG		"/sys/kernel/debug/npa0/"
#define FI		"/sys/kernel/debug/"
#define ARMED		1000

static struct {
	int fd, in, out;
	struct npa_binding b[2];
	int nth;		/* /proc/thread-self/fail-nth */
} env;

union arg {
	struct npa_model_create mc;
	struct npa_buffer_create bc;
	struct npa_job_submit js;
};

/* ------------------------------------------------------------ state */

struct state {
	char fdinfo[256];
	long carveout_used, jobs_done, jobs_failed;
	int models_lines, carveout_lines, nfds;
};

static long read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static void snapshot(struct state *s)
{
	memset(s, 0, sizeof(*s));
	read_fdinfo(env.fd, "npa-", s->fdinfo, sizeof(s->fdinfo));
	s->carveout_used = read_long(SYSFS "carveout_used");
	s->jobs_done = read_long(SYSFS "jobs_done");
	s->jobs_failed = read_long(SYSFS "jobs_failed");
	s->models_lines = count_lines(DBG "models");
	s->carveout_lines = count_lines(DBG "carveout");
	s->nfds = count_fds();
}

/* What differs, for the TAP line; "" if nothing.  @jobs: jobs expected to run. */
static void state_diff(const struct state *a, const struct state *b, long jobs,
		       char *out, size_t size)
{
	out[0] = 0;
	if (strcmp(a->fdinfo, b->fdinfo)) {
		snprintf(out + strlen(out), size - strlen(out), " [fdinfo changed]");
		fprintf(stderr, "fdinfo before:\n%sfdinfo after:\n%s", a->fdinfo,
			b->fdinfo);
	}
	if (a->carveout_used != b->carveout_used)
		snprintf(out + strlen(out), size - strlen(out), " [carveout_used %ld -> %ld]",
			 a->carveout_used, b->carveout_used);
	if (b->jobs_done - a->jobs_done != jobs || a->jobs_failed != b->jobs_failed)
		snprintf(out + strlen(out), size - strlen(out),
			 " [jobs done +%ld, failed +%ld; expected +%ld, +0]",
			 b->jobs_done - a->jobs_done, b->jobs_failed - a->jobs_failed,
			 jobs);
	if (a->models_lines != b->models_lines)
		snprintf(out + strlen(out), size - strlen(out), " [debugfs models %d -> %d lines]",
			 a->models_lines, b->models_lines);
	if (a->carveout_lines != b->carveout_lines)
		snprintf(out + strlen(out), size - strlen(out), " [debugfs carveout %d -> %d lines]",
			 a->carveout_lines, b->carveout_lines);
	if (a->nfds != b->nfds)
		snprintf(out + strlen(out), size - strlen(out), " [open fds %d -> %d]",
			 a->nfds, b->nfds);
}

/* ------------------------------------------------------------ fail-nth */

/* ------------------------------------------------------------ paths */

struct path {
	const char *name;
	unsigned long cmd;
	void (*fill)(union arg *a);
	/* Free what a successful call made. */
	void (*undo)(const union arg *a);
	bool job;
	bool model;
};

static void fill_model(union arg *a)
{
	memset(a, 0, sizeof(*a));
	a->mc.tensors = (uintptr_t)tensors;
	a->mc.ops = (uintptr_t)ops;
	a->mc.operands = (uintptr_t)operands;
	a->mc.scratch = (uintptr_t)scratch;
	a->mc.num_tensors = 4;
	a->mc.tensor_size = sizeof(tensors[0]);
	a->mc.num_ops = 3;
	a->mc.op_size = sizeof(ops[0]);
	a->mc.num_operands = 7;
	a->mc.num_scratch = 2;
	a->mc.scratch_size = sizeof(scratch[0]);
}

static void fill_model_private(union arg *a)
{
	fill_model(a);
	a->mc.flags = NPA_MODEL_PRIVATE_ARENA;
}

static void undo_model(const union arg *a)
{
	npa_model_destroy(env.fd, a->mc.handle);
}

static void fill_buffer(union arg *a)
{
	memset(a, 0, sizeof(*a));
	a->bc.size = 2 * PAGE;
}

static void undo_buffer(const union arg *a)
{
	close(a->bc.fd);
}

static void fill_job(union arg *a)
{
	memset(a, 0, sizeof(*a));
	a->js.model = 1;
	a->js.bindings = (uintptr_t)env.b;
	a->js.num_bindings = 2;
	a->js.binding_size = sizeof(env.b[0]);
}

static void fill_job_fence(union arg *a)
{
	fill_job(a);
	a->js.flags = NPA_JOB_FENCE;
}

static void undo_job(const union arg *a)
{
	struct npa_job_wait w;

	if (npa_job_wait(env.fd, a->js.job_fd, npa_now_ns() + 20000000000LL, &w) ||
	    w.status != NPA_JOB_DONE)
		fprintf(stderr, "job %d did not end DONE\n", a->js.job_fd);
	close(a->js.job_fd);
	if (a->js.fence_fd >= 0)
		close(a->js.fence_fd);
}

#define PATH(_name, _cmd, _fill, _undo, _job, _model)			\
	{ .name = _name, .cmd = _cmd, .fill = _fill, .undo = _undo,	\
	  .job = _job, .model = _model }

static const struct path paths[] = {
	PATH("MODEL_CREATE", NPA_IOCTL_MODEL_CREATE, fill_model, undo_model,
	     false, true),
	PATH("MODEL_CREATE, private arena", NPA_IOCTL_MODEL_CREATE,
	     fill_model_private, undo_model, false, true),
	PATH("BUFFER_CREATE", NPA_IOCTL_BUFFER_CREATE, fill_buffer, undo_buffer,
	     false, false),
	PATH("JOB_SUBMIT", NPA_IOCTL_JOB_SUBMIT, fill_job, undo_job, true, false),
	PATH("JOB_SUBMIT with a fence", NPA_IOCTL_JOB_SUBMIT, fill_job_fence,
	     undo_job, true, false),
};

static int call(const struct path *p, union arg *a)
{
	return ioctl(env.fd, p->cmd, a) < 0 ? -errno : 0;
}

/* ------------------------------------------------------------ copy-out */

static void test_copy_out(const struct path *p)
{
	struct state before, after;
	union arg a;
	int sites, ret, fired, h = 0;
	char diff[512] = "";

	/* A call without failures, and the user copies it makes. */
	p->fill(&a);
	fail_nth_arm(env.nth, ARMED);
	ret = call(p, &a);
	sites = ARMED - fail_nth_left(env.nth);
	if (ret) {
		tap_ok(0, "copy-out: %s: a call without failures returned %d", p->name, ret);
		return;
	}
	if (p->model)
		h = a.mc.handle;
	p->undo(&a);

	/* The same call with the last of them, the result's, failed. */
	p->fill(&a);
	snapshot(&before);
	fail_nth_arm(env.nth, sites);
	ret = call(p, &a);
	fired = !fail_nth_left(env.nth);
	if (!ret)
		p->undo(&a);
	snapshot(&after);
	state_diff(&before, &after, 0, diff, sizeof(diff));
	tap_ok(ret == -EFAULT && fired && !diff[0],
	       "copy-out: %s: copy %d of %d (the result) fails: %s%s, nothing left%s",
	       p->name, sites, sites, ret == -EFAULT ? "EFAULT" : ret ? strerror(-ret) : "success",
	       fired ? "" : " (not reached)", diff);

	if (p->model) {
		/* The handle it had reserved is free again. */
		p->fill(&a);
		ret = call(p, &a);
		tap_ok(!ret && (int)a.mc.handle == h,
		       "copy-out: %s: the next model gets handle %d again (got %d, %d)",
		       p->name, h, ret ? -1 : (int)a.mc.handle, ret);
		if (!ret)
			p->undo(&a);
	}
	if (p->job) {
		/*
		 * The NPU runs jobs in order: had the failed one been queued,
		 * it would end before this one.
		 */
		snapshot(&before);
		fill_job(&a);
		ret = call(p, &a);
		if (!ret)
			p->undo(&a);
		snapshot(&after);
		state_diff(&before, &after, 1, diff, sizeof(diff));
		tap_ok(!ret && !diff[0],
		       "copy-out: %s: the next job is the only one that runs%s",
		       p->name, diff);
	}
}

/* ------------------------------------------------------------ race */

static atomic_int stop;

/* As fast as it can, so that a call rarely runs without a change. */
static void *toggler(void *page)
{
	while (!atomic_load(&stop)) {
		mprotect(page, PAGE, PROT_READ);
		mprotect(page, PAGE, PROT_READ | PROT_WRITE);
	}
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_race(const struct path *p)
{
	struct state before, after;
	union arg *a;
	pthread_t thr;
	long ok = 0, efault = 0, other = 0, calls = 0;
	double end;
	char diff[512];
	int ret;

	a = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED) {
		tap_ok(0, "race: %s: mmap", p->name);
		return;
	}
	/* The inputs never change: the kernel writes back only results. */
	p->fill(a);
	snapshot(&before);
	atomic_store(&stop, 0);
	if (pthread_create(&thr, NULL, toggler, a)) {
		tap_ok(0, "race: %s: pthread_create", p->name);
		munmap(a, PAGE);
		return;
	}
	end = now_s() + 3;
	while (calls < 5000 && (ok < 100 || efault < 100) && now_s() < end) {
		ret = call(p, a);
		calls++;
		if (!ret) {
			ok++;
			p->undo(a);
		} else if (ret == -EFAULT) {
			efault++;
		} else {
			other++;
			fprintf(stderr, "race: %s: %s\n", p->name, strerror(-ret));
		}
	}
	atomic_store(&stop, 1);
	pthread_join(thr, NULL);
	munmap(a, PAGE);
	snapshot(&after);
	state_diff(&before, &after, p->job ? ok : 0, diff, sizeof(diff));
	tap_ok(ok && efault && !other && !diff[0],
	       "race: %s under mprotect: %ld calls, %ld succeeded, %ld EFAULT, %ld other; nothing left%s",
	       p->name, calls, ok, efault, other, diff);
}

int main(void)
{
	size_t i;
	int model;

	graph_init_opts(true, true);
	env.nth = open("/proc/thread-self/fail-nth", O_RDWR);
	env.fd = npa_open(NULL);
	model = env.fd < 0 ? -1 : npa_model_create(env.fd, &graph, 0, 0, NULL);
	env.in = npa_buffer_create(env.fd, N);
	env.out = npa_buffer_create(env.fd, N);
	env.b[0].fd = env.in;
	env.b[1].fd = env.out;
	tap_ok(env.nth >= 0 && model == 1 && env.in >= 0 && env.out >= 0,
	       "copy-out: setup (fail-nth, model 1, two buffers)");
	if (env.nth < 0 || model != 1 || env.in < 0 || env.out < 0)
		return 1;

	/* Only copies from and to user memory count. */
	knob(FI "fail_usercopy/verbose", "0");
	knob(FI "failslab/cache-filter", "Y");
	knob(FI "fail_page_alloc/min-order", "64");
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		test_copy_out(&paths[i]);
	knob(FI "failslab/cache-filter", "N");
	knob(FI "fail_page_alloc/min-order", "1");

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		test_race(&paths[i]);

	close(env.in);
	close(env.out);
	npa_model_destroy(env.fd, model);
	close(env.fd);
	return tap_failed;
}
