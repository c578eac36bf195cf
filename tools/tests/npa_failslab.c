// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures on every ioctl path: for each call, fail its first
 * allocation, then its second, and so on (/proc/thread-self/fail-nth with
 * failslab) until a run completes without reaching the injected failure.
 * Every failed call must return an error and leave the file's state and
 * the carveout exactly as before; kmemleak (checked by the QEMU runner)
 * must find nothing.  Runs in QEMU on the test kernel; TAP out.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libnpa.h"
#include "tap.h"
#include "testgraph.h"

#define MAX_NTH 3000

static int nth_fd;

static void arm(int n)
{
	char b[16];
	int l = snprintf(b, sizeof(b), "%d", n);

	if (pwrite(nth_fd, b, l, 0) != l)
		perror("fail-nth");
}

/* Disarm; true if the n-th allocation was reached (and failed). */
static int fired(void)
{
	char b[16] = "";
	int left;

	if (pread(nth_fd, b, sizeof(b) - 1, 0) < 0)
		return 0;
	left = atoi(b);
	arm(0);
	return left == 0;
}

static void knob(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		perror(path);
	if (fd >= 0)
		close(fd);
}

/* What a failed call must not change. */
struct state {
	char fdinfo[256];
	long carveout_used;
};

static void snapshot(int fd, struct state *s)
{
	char path[64], line[128];
	FILE *f;

	memset(s, 0, sizeof(*s));
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "npa-", 4))
			strncat(s->fdinfo, line, sizeof(s->fdinfo) - strlen(s->fdinfo) - 1);
	if (f)
		fclose(f);
	f = fopen("/sys/bus/platform/devices/npa-sim/carveout_used", "r");
	if (f) {
		if (fscanf(f, "%ld", &s->carveout_used) != 1)
			s->carveout_used = -1;
		fclose(f);
	}
}

static void graph_init(void)
{
	graph_init_opts(true, true);
}

struct ctx {
	int fd, model, in, out;
};

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

	job = npa_job_submit(c->fd, c->model, b, 2, 0, &fence);
	if (job < 0)
		return job;
	ret = npa_job_wait(c->fd, job, npa_now_ns() + 20000000000LL, &w);
	close(job);
	close(fence);
	return ret ? ret : w.status == NPA_JOB_DONE ? 0 : -EIO;
}

static void sweep(struct ctx *c, const char *name, int (*fn)(struct ctx *c))
{
	struct state before, after;
	int n, failed = 0, changed = 0, bad_ret = 0, ret;

	for (n = 1; n <= MAX_NTH; n++) {
		snapshot(c->fd, &before);
		arm(n);
		ret = fn(c);
		if (!fired()) {
			if (ret)
				bad_ret++;	/* failed without an injected failure */
			break;
		}
		if (ret) {
			failed++;
			snapshot(c->fd, &after);
			if (memcmp(&before, &after, sizeof(before))) {
				changed++;
				fprintf(stderr, "%s: failure %d changed the state:\n%s%ld\n--\n%s%ld\n",
					name, n, before.fdinfo, before.carveout_used,
					after.fdinfo, after.carveout_used);
			}
		}
	}
	tap_ok(n <= MAX_NTH && !changed && !bad_ret,
	       "failslab: %s: %d allocations failed one at a time, %d calls failed cleanly, %d changed state",
	       name, n - 1, failed, changed);
}

int main(void)
{
	struct ctx c;

	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	tap_ok(nth_fd >= 0, "fail-nth is available");
	if (nth_fd < 0)
		return 1;
	knob("/sys/kernel/debug/failslab/ignore-gfp-wait", "N");
	knob("/sys/kernel/debug/failslab/verbose", "0");
	knob("/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait", "N");
	knob("/sys/kernel/debug/fail_page_alloc/verbose", "0");

	graph_init();
	c.fd = npa_open(NULL);
	c.model = npa_model_create(c.fd, &graph, 0, 0, NULL);
	c.in = npa_buffer_create(c.fd, 256);
	c.out = npa_buffer_create(c.fd, 256);
	tap_ok(c.fd >= 0 && c.model > 0 && c.in >= 0 && c.out >= 0, "setup");

	sweep(&c, "open", do_open);
	sweep(&c, "query", do_query);
	sweep(&c, "model create", do_model_create);
	sweep(&c, "model create, private arena", do_model_private);
	sweep(&c, "model plan", do_model_plan);
	sweep(&c, "buffer create", do_buffer_create);
	sweep(&c, "job submit and wait", do_job);

	close(c.in);
	close(c.out);
	npa_model_destroy(c.fd, c.model);
	close(c.fd);
	return tap_failed;
}
