// SPDX-License-Identifier: GPL-2.0
/*
 * End-to-end tests of buffers and jobs on the simulated NPU: dma-buf
 * export and import (udmabuf), submit, wait, poll, fences, cancel,
 * timeouts, faults, resets, limits and several processes at once.  Runs
 * inside QEMU on the test kernel; TAP out; exit status = failures.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/dma-heap.h>
#include <linux/sync_file.h>
#include <linux/udmabuf.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libnpa.h"
#include "procstate.h"
#include "tap.h"
#include "testgraph.h"

#define DBG "/sys/kernel/debug/npa0/"
#define RESETS "/sys/bus/platform/devices/npa-sim/resets"
#define SEC 1000000000LL

static void graph_init(void)
{
	graph_init_opts(true, false);
}

static void debugfs_write(const char *file, const char *val)
{
	int fd = open(file, O_WRONLY);

	if (fd >= 0) {
		if (write(fd, val, strlen(val)) < 0)
			perror(file);
		close(fd);
	}
}

/* The number in a sysfs or debugfs file, or -1 if it cannot be read. */
static int read_int(const char *file)
{
	char v[32];
	FILE *f = fopen(file, "r");
	int ret = -1;

	if (f) {
		if (fgets(v, sizeof(v), f))
			ret = atoi(v);
		fclose(f);
	}
	return ret;
}

/*
 * The simulated NPU takes an armed hang (inject_hang back to 0) when the
 * job it hangs starts: wait up to 10 s for that.
 */
static void wait_hang_started(void)
{
	int i;

	for (i = 0; i < 1000 && read_int(DBG "inject_hang") > 0; i++)
		usleep(10000);
}

/*
 * A hang or fault injected for a job that was cancelled before it ran
 * stays armed and would catch the next test's job: disarm both.
 */
static void inject_clear(void)
{
	debugfs_write(DBG "inject_hang", "0");
	debugfs_write(DBG "inject_fault", "0");
	debugfs_write(DBG "inject_late_end", "0");
}

struct io {
	int in, out;		/* dma-buf fds */
	int8_t *x, *y;
};

static int io_create(int fd, struct io *io, int seed)
{
	int i;

	io->in = npa_buffer_create(fd, N);
	io->out = npa_buffer_create(fd, N);
	if (io->in < 0 || io->out < 0)
		return -1;
	io->x = npa_buffer_map(io->in, 4096);
	io->y = npa_buffer_map(io->out, 4096);
	if (!io->x || !io->y)
		return -1;
	npa_buffer_sync(io->in, 1);
	for (i = 0; i < N; i++)
		io->x[i] = (int8_t)((i * 37 + seed * 11) & 0xff);
	npa_buffer_sync(io->in, 0);
	return 0;
}

static void io_destroy(struct io *io)
{
	npa_buffer_unmap(io->x, 4096);
	npa_buffer_unmap(io->y, 4096);
	close(io->in);
	close(io->out);
}

static int io_check(const struct io *io)
{
	int i, bad = 0;

	npa_buffer_sync(io->out, 1);
	for (i = 0; i < N; i++) {
		int x = io->x[i];

		bad += io->y[i] != graph_expect(x);
	}
	npa_buffer_sync(io->out, 0);
	return bad;
}

static int submit(int fd, int model, const struct io *io, __u64 timeout, int *fence)
{
	struct npa_binding b[2] = { { .fd = io->in }, { .fd = io->out } };

	return npa_job_submit(fd, model, b, 2, timeout, fence);
}

static void test_buffers(int fd)
{
	unsigned char *p;
	int b, ret, i, zero = 1, n;
	int fds[300];

	b = npa_buffer_create(fd, 10000);
	tap_ok(b >= 0, "buffer create (%d)", b);
	p = npa_buffer_map(b, 12288);
	tap_ok(p != NULL, "mmap the whole (page-rounded) buffer");
	if (p) {
		for (i = 0; i < 12288; i++)
			zero &= !p[i];
		tap_ok(zero, "a new buffer is zeroed");
		tap_ok(npa_buffer_sync(b, 1) == 0, "DMA_BUF_IOCTL_SYNC start");
		memset(p, 0x5a, 12288);
		tap_ok(npa_buffer_sync(b, 0) == 0, "DMA_BUF_IOCTL_SYNC end");
		npa_buffer_unmap(p, 12288);
	}
	p = mmap(NULL, 16384, PROT_READ, MAP_SHARED, b, 0);
	tap_ok(p == MAP_FAILED, "mmap past the end fails");
	/* Its writes would go to a private copy the NPU never sees. */
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, b, 0);
	tap_ok(p == MAP_FAILED && errno == EINVAL,
	       "a MAP_PRIVATE mapping fails with EINVAL");
	if (p != MAP_FAILED)
		munmap(p, 4096);
	close(b);

	ret = npa_buffer_create(fd, 0);
	tap_ok(ret == -EINVAL, "zero-size buffer fails with EINVAL (%d)", ret);
	ret = npa_buffer_create(fd, 1ULL << 40);
	tap_ok(ret == -EINVAL, "buffer larger than the carveout fails with EINVAL (%d)", ret);
	{
		struct npa_buffer_create a = { .size = 4096, .flags = 1 };

		ret = npa_ioctl(fd, NPA_IOCTL_BUFFER_CREATE, &a);
		tap_ok(ret == -EINVAL, "buffer flags fail with EINVAL (%d)", ret);
		a.flags = 0;
		a.reserved = 1;
		ret = npa_ioctl(fd, NPA_IOCTL_BUFFER_CREATE, &a);
		tap_ok(ret == -EINVAL, "buffer reserved field fails with EINVAL (%d)", ret);
	}

	/* Per-file limit: 256 live buffers. */
	for (n = 0; n < 300; n++) {
		fds[n] = npa_buffer_create(fd, 4096);
		if (fds[n] < 0)
			break;
	}
	tap_ok(n == 256 && fds[n] == -EDQUOT, "buffer 257 fails with EDQUOT (%d at %d)",
	       n < 300 ? fds[n] : 0, n);
	for (i = 0; i < n; i++)
		close(fds[i]);
	b = npa_buffer_create(fd, 4096);
	tap_ok(b >= 0, "closing buffers frees the quota (%d)", b);
	close(b);
}

static void test_job(int fd, int model)
{
	struct npa_job_wait w;
	struct pollfd pfd[2];
	struct io io;
	int job, fence = -1, ret;
	__u64 cycles;

	if (io_create(fd, &io, 1)) {
		tap_ok(0, "buffers for a job");
		return;
	}
	job = submit(fd, model, &io, 0, &fence);
	tap_ok(job >= 0 && fence >= 0, "submit returns a job fd and a fence (%d %d)", job, fence);
	if (job < 0)
		return;
	pfd[0] = (struct pollfd){ .fd = job, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = fence, .events = POLLIN };
	ret = poll(pfd, 2, 20000);
	ret = poll(pfd, 2, 20000);
	tap_ok(ret == 2 && (pfd[0].revents & POLLIN) && (pfd[1].revents & POLLIN),
	       "job fd and sync_file poll readable when the job ends (%d)", ret);
	ret = npa_job_wait(fd, job, npa_now_ns() + 10 * SEC, &w);
	tap_ok(ret == 0 && w.status == NPA_JOB_DONE, "wait: done (%d, %s)", ret,
	       npa_job_status_name(w.status));
	tap_ok(w.submit_ns && w.submit_ns <= w.start_ns && w.start_ns <= w.end_ns,
	       "timings are ordered (%llu us on the NPU)",
	       (unsigned long long)(w.end_ns - w.start_ns) / 1000);
	tap_ok(io_check(&io) == 0, "outputs are right");
	tap_ok(w.cycles > 0, "the job reports its cost model cycles (%llu)",
	       (unsigned long long)w.cycles);
	cycles = w.cycles;
	ret = npa_job_wait(fd, job, 0, &w);
	tap_ok(ret == 0 && w.status == NPA_JOB_DONE && w.cycles == cycles,
	       "waiting again on an ended job (%d, %llu cycles)", ret,
	       (unsigned long long)w.cycles);
	{
		/* The struct of uAPI 3.1 (56 bytes): nothing written past it. */
		unsigned char old[sizeof(w) + 8] __attribute__((aligned(8)));
		struct npa_job_wait *o = (struct npa_job_wait *)old;
		unsigned long cmd = _IOC(_IOC_READ | _IOC_WRITE, NPA_IOCTL_BASE,
					 _IOC_NR(NPA_IOCTL_JOB_WAIT),
					 offsetof(struct npa_job_wait, cycles));

		memset(old, 0x5a, sizeof(old));
		memset(old, 0, offsetof(struct npa_job_wait, cycles));
		o->job_fd = job;
		ret = npa_ioctl(fd, cmd, old);
		tap_ok(ret == 0 && o->status == NPA_JOB_DONE &&
		       old[offsetof(struct npa_job_wait, cycles)] == 0x5a &&
		       old[sizeof(old) - 1] == 0x5a,
		       "JOB_WAIT with the 56-byte struct of 3.1: done, nothing written past it (%d)",
		       ret);
	}
	close(fence);
	close(job);
	io_destroy(&io);
}

static void test_submit_invalid(int fd, int model)
{
	struct npa_binding b[2];
	struct npa_job_submit a;
	struct npa_error e;
	char why[256];
	struct io io;
	int ret, nul = open("/dev/null", O_RDONLY);

	io_create(fd, &io, 2);
	b[0] = (struct npa_binding){ .fd = io.in };
	b[1] = (struct npa_binding){ .fd = io.out };
	ret = npa_job_submit(fd, 999, b, 2, 0, NULL);
	tap_ok(ret == -ENOENT, "unknown model fails with ENOENT (%d)", ret);
	{
		/* Sizes without shapes: plannable, not runnable. */
		struct npa_tensor_desc t[2] = {
			{ .size = 256, .flags = NPA_TENSOR_INPUT },
			{ .size = 256, .flags = NPA_TENSOR_OUTPUT },
		};
		struct npa_op_desc op = { .kind = NPA_OP_COPY, .num_inputs = 1,
					  .first_output = 1, .num_outputs = 1 };
		__u32 opnd[2] = { 0, 1 };
		struct npa_graph_desc g = { t, &op, opnd, NULL, 2, 1, 2, 0 };
		int m = npa_model_create(fd, &g, 0, 0, NULL);

		ret = npa_job_submit(fd, m, b, 2, 0, NULL);
		tap_ok(m > 0 && ret == -EINVAL,
		       "a model without shapes plans but fails to run with EINVAL (%d)", ret);
		npa_model_destroy(fd, m);
	}
	ret = npa_job_submit(fd, model, b, 1, 0, NULL);
	tap_ok(ret == -EINVAL, "too few bindings fail with EINVAL (%d)", ret);
	b[0].fd = nul;
	ret = npa_job_submit(fd, model, b, 2, 0, NULL);
	tap_ok(ret == -EBADF, "a non-dma-buf fd fails with EBADF (%d)", ret);
	b[0].fd = -1;
	ret = npa_job_submit(fd, model, b, 2, 0, NULL);
	tap_ok(ret == -EBADF, "fd -1 fails with EBADF (%d)", ret);
	b[0].fd = io.in;
	/* The NPU's ops touch both tensors: 64-byte aligned. */
	b[0].offset = 1;
	ret = npa_job_submit_err(fd, model, b, 2, 0, NULL, &e);
	tap_ok(ret == -EINVAL && e.array == NPA_ERR_ARRAY_BINDINGS && e.index == 0 &&
	       e.field == NPA_ERR_FIELD_OFFSET && e.reason == NPA_ERR_MISALIGNED &&
	       e.value == 1 && e.expected == 64 && e.tensor == 0 &&
	       e.dim == NPA_ERR_NO_INDEX && !e.pad,
	       "an input bound at offset 1 fails with EINVAL, and the report says so: %s (%d)",
	       npa_error_str(&e, why, sizeof(why)), ret);
	{
		/* A 40-byte report (3.5's struct): nothing written past it. */
		struct npa_job_submit s = {
			.model = model, .bindings = (uintptr_t)b,
			.num_bindings = 2, .binding_size = sizeof(b[0]),
			.error_size = 40,
		};
		unsigned char r[48];
		size_t k, after = 0;

		memset(r, 0xa5, sizeof(r));
		s.error = (uintptr_t)r;
		ret = npa_ioctl(fd, NPA_IOCTL_JOB_SUBMIT, &s);
		for (k = 40; k < sizeof(r); k++)
			after += r[k] != 0xa5;
		tap_ok(ret == -EINVAL && !memcmp(r, &e, 40) && !after,
		       "a 40-byte report gets the same 40 bytes and nothing after them (%d, %zu)",
		       ret, after);
	}
	b[0].offset = 0;
	b[1].offset = 32;
	ret = npa_job_submit_err(fd, model, b, 2, 0, NULL, &e);
	tap_ok(ret == -EINVAL && e.index == 1 && e.reason == NPA_ERR_MISALIGNED &&
	       e.value == 32 && e.expected == 64 && e.tensor == 3,
	       "an output bound at offset 32 fails with EINVAL: %s (%d)",
	       npa_error_str(&e, why, sizeof(why)), ret);
	b[1].offset = 64;
	ret = npa_job_submit(fd, model, b, 2, 0, NULL);
	tap_ok(ret >= 0 && npa_job_wait(fd, ret, npa_now_ns() + 10 * SEC, NULL) == 0,
	       "an output bound at offset 64 runs (%d)", ret);
	if (ret >= 0)
		close(ret);
	b[1].offset = 0;
	b[0].offset = 4032;
	ret = npa_job_submit_err(fd, model, b, 2, 0, NULL, &e);
	tap_ok(ret == -EINVAL && e.array == NPA_ERR_ARRAY_BINDINGS && e.index == 0 &&
	       e.field == NPA_ERR_FIELD_OFFSET && e.reason == NPA_ERR_DOES_NOT_FIT &&
	       e.expected == 4096 && e.tensor != NPA_ERR_NO_INDEX,
	       "a tensor past its buffer's end fails with EINVAL, and the report says so: %s (%d)",
	       npa_error_str(&e, why, sizeof(why)), ret);
	b[0].offset = ~0ULL - 63;
	ret = npa_job_submit(fd, model, b, 2, 0, NULL);
	tap_ok(ret == -EINVAL, "an overflowing offset fails with EINVAL (%d)", ret);
	b[0].offset = 0;
	b[0].pad = 1;
	ret = npa_job_submit(fd, model, b, 2, 0, NULL);
	tap_ok(ret == -EINVAL, "binding pad fails with EINVAL (%d)", ret);
	b[0].pad = 0;

	memset(&a, 0, sizeof(a));
	a.model = model;
	a.bindings = 16;
	a.num_bindings = 2;
	a.binding_size = sizeof(b[0]);
	ret = npa_ioctl(fd, NPA_IOCTL_JOB_SUBMIT, &a);
	tap_ok(ret == -EFAULT, "bad bindings pointer fails with EFAULT (%d)", ret);
	a.bindings = (uintptr_t)b;
	a.flags = 1U << 7;
	ret = npa_ioctl(fd, NPA_IOCTL_JOB_SUBMIT, &a);
	tap_ok(ret == -EINVAL, "unknown submit flag fails with EINVAL (%d)", ret);
	a.flags = 0;
	a.reserved = 3;
	ret = npa_ioctl(fd, NPA_IOCTL_JOB_SUBMIT, &a);
	tap_ok(ret == -EINVAL, "submit reserved field fails with EINVAL (%d)", ret);

	ret = npa_job_wait(fd, io.in, 0, NULL);
	tap_ok(ret == -EINVAL, "waiting on a dma-buf fd fails with EINVAL (%d)", ret);
	ret = npa_job_wait(fd, 1000, 0, NULL);
	tap_ok(ret == -EBADF, "waiting on a closed fd fails with EBADF (%d)", ret);
	close(nul);
	io_destroy(&io);
}

/* Another file's job fd is not ours to wait on or cancel. */
static void test_isolation(int fd, int model)
{
	int fd2 = npa_open(NULL), job, ret;
	struct io io;

	io_create(fd, &io, 3);
	job = submit(fd, model, &io, 0, NULL);
	ret = npa_job_wait(fd2, job, npa_now_ns() + SEC, NULL);
	tap_ok(ret == -EPERM, "another file cannot wait on the job (%d)", ret);
	ret = npa_job_cancel(fd2, job);
	tap_ok(ret == -EPERM, "another file cannot cancel the job (%d)", ret);
	ret = npa_job_submit(fd2, model, NULL, 0, 0, NULL);
	tap_ok(ret == -ENOENT, "another file cannot run the model (%d)", ret);
	npa_job_wait(fd, job, npa_now_ns() + 10 * SEC, NULL);
	close(job);
	close(fd2);
	io_destroy(&io);
}

static void test_faults(int fd, int model)
{
	struct npa_job_wait w;
	struct io io;
	int job, job2, ret;
	int before, after;

	io_create(fd, &io, 4);

	debugfs_write(DBG "inject_fault", "1");
	job = submit(fd, model, &io, 0, NULL);
	ret = npa_job_wait(fd, job, npa_now_ns() + 10 * SEC, &w);
	tap_ok(ret == 0 && w.status == NPA_JOB_FAULT && w.fault_addr &&
	       w.op < graph.num_ops,
	       "injected bad address: fault at %#llx in op %u (%s)",
	       (unsigned long long)w.fault_addr, w.op, npa_job_status_name(w.status));
	close(job);

	before = read_int(RESETS);
	debugfs_write(DBG "inject_hang", "1");
	job = submit(fd, model, &io, 300000000ULL, NULL);
	ret = npa_job_wait(fd, job, npa_now_ns() + 100000000LL, &w);
	tap_ok(ret == -ETIME, "waiting 100 ms on a hung job: ETIME (%d)", ret);
	ret = npa_job_wait(fd, job, npa_now_ns() + 10 * SEC, &w);
	tap_ok(ret == 0 && w.status == NPA_JOB_TIMEOUT && w.op == 0 && !w.cycles,
	       "hung job with a 300 ms timeout ends in TIMEOUT in op 0, where it hung, 0 cycles (%d, %s, op %#x, %llu cycles)",
	       ret, npa_job_status_name(w.status), w.op,
	       (unsigned long long)w.cycles);
	close(job);
	after = read_int(RESETS);
	tap_ok(before >= 0 && after == before + 1, "the watchdog counted a reset (%d -> %d)",
	       before, after);

	job = submit(fd, model, &io, 0, NULL);
	ret = npa_job_wait(fd, job, npa_now_ns() + 10 * SEC, &w);
	tap_ok(ret == 0 && w.status == NPA_JOB_DONE && !io_check(&io) &&
	       w.op == NPA_JOB_OP_NONE,
	       "the NPU works again after the timeout (%s, op %#x)",
	       npa_job_status_name(w.status), w.op);
	close(job);

	/* A hang, a queued job behind it; cancel the queued one, reset. */
	debugfs_write(DBG "inject_hang", "1");
	job = submit(fd, model, &io, 30 * SEC, NULL);
	job2 = submit(fd, model, &io, 0, NULL);
	wait_hang_started();
	ret = npa_job_cancel(fd, job2);
	tap_ok(ret == 0, "cancel a queued job (%d)", ret);
	ret = npa_job_wait(fd, job2, npa_now_ns() + 10 * SEC, &w);
	tap_ok(ret == 0 && w.status == NPA_JOB_ABORTED && !w.start_ns &&
	       w.op == NPA_JOB_OP_NONE,
	       "the cancelled job ends ABORTED without running, op NONE (%s, op %#x)",
	       npa_job_status_name(w.status), w.op);
	debugfs_write(DBG "reset", "1");
	ret = npa_job_wait(fd, job, npa_now_ns() + 10 * SEC, &w);
	tap_ok(ret == 0 && w.status == NPA_JOB_ABORTED && w.op == 0,
	       "a reset fails the hung job with ABORTED in op 0, where it hung (%s, op %#x)",
	       npa_job_status_name(w.status), w.op);
	close(job);
	close(job2);
	inject_clear();
	io_destroy(&io);
}

/*
 * The watchdog fires after the job's last operator, before it ends
 * (inject_late_end holds the job there): the job is DONE, so no reset.
 */
static void test_late_watchdog(int fd, int model)
{
	struct npa_job_wait w;
	struct io io;
	int job, ret, before, after;

	io_create(fd, &io, 7);
	memset(io.y, 0, N);
	before = read_int(RESETS);
	debugfs_write(DBG "inject_late_end", "1");
	job = submit(fd, model, &io, 200000000ULL, NULL);
	memset(&w, 0, sizeof(w));
	ret = job < 0 ? job : npa_job_wait(fd, job, npa_now_ns() + 10 * SEC, &w);
	after = read_int(RESETS);
	tap_ok(ret == 0 && w.status == NPA_JOB_DONE && !io_check(&io),
	       "a job whose watchdog fires after its last op ends DONE, verified (%d, %s)",
	       ret, npa_job_status_name(w.status));
	tap_ok(before >= 0 && after == before,
	       "... and no reset is counted for it (%d -> %d)", before, after);
	if (job >= 0)
		close(job);
	inject_clear();
	io_destroy(&io);
}

static int heap_alloc(__u32 fd_flags);

/*
 * One foreign buffer bound NB times: pairs x -relu-> y, inputs at offset
 * 0, outputs at 2048 of one 4 KiB system-heap buffer, and a last ADD.
 */
#define NB 65535
static struct npa_tensor_desc nb_tensors[NB];
static struct npa_op_desc nb_ops[NB / 2 + 1];
static __u32 nb_operands[NB + 2];
static struct npa_binding nb_bind[NB];

static int many_model(int fd, int buf)
{
	struct npa_graph_desc g = { nb_tensors, nb_ops, nb_operands, NULL,
				    NB, NB / 2 + 1, NB + 2, 0 };
	int i, k = NB / 2;

	for (i = 0; i < NB; i++) {
		nb_tensors[i] = (struct npa_tensor_desc){ .dims = { 1, 1, 1, 64 },
			.dtype = NPA_DTYPE_INT8,
			.flags = i % 2 || i == NB - 1 ? NPA_TENSOR_OUTPUT : NPA_TENSOR_INPUT };
		nb_bind[i] = (struct npa_binding){ .fd = buf,
			.offset = nb_tensors[i].flags & NPA_TENSOR_OUTPUT ? 2048 : 0 };
	}
	for (i = 0; i < k; i++) {
		nb_operands[2 * i] = 2 * i;
		nb_operands[2 * i + 1] = 2 * i + 1;
		nb_ops[i] = (struct npa_op_desc){ .kind = NPA_OP_ACTIVATION,
			.first_input = 2 * i, .num_inputs = 1,
			.first_output = 2 * i + 1, .num_outputs = 1,
			.params = { [NPA_P_ACT] = NPA_ACT_RELU } };
	}
	/* The last tensor, an output: x + x. */
	nb_operands[2 * k] = 0;
	nb_operands[2 * k + 1] = 0;
	nb_operands[2 * k + 2] = NB - 1;
	nb_ops[k] = (struct npa_op_desc){ .kind = NPA_OP_ADD,
		.first_input = 2 * k, .num_inputs = 2,
		.first_output = 2 * k + 2, .num_outputs = 1 };
	return npa_model_create(fd, &g, 0, 0, NULL);
}

/*
 * JOB_SUBMIT with 65,535 bindings of one foreign buffer: no search of the
 * earlier bindings for each one (it was quadratic: 70 s under TCG), a
 * kill ends it, and an injected fault still faults: the imports' 4 GiB
 * slots then reach past 2^44.
 */
static void test_many_bindings(void)
{
	int fd = npa_open(NULL), buf = heap_alloc(O_RDWR | O_CLOEXEC);
	int model, job, ret, st;
	struct npa_job_wait w;
	__s64 t0, t1;
	pid_t pid;

	model = fd < 0 || buf < 0 ? -1 : many_model(fd, buf);
	tap_ok(model > 0, "a model with %d bound tensors (%d, buffer %d)", NB,
	       model, buf);
	if (model <= 0)
		goto out;

	t0 = npa_now_ns();
	job = npa_job_submit(fd, model, nb_bind, NB, 0, NULL);
	t1 = npa_now_ns();
	memset(&w, 0, sizeof(w));
	ret = job < 0 ? job : npa_job_wait(fd, job, npa_now_ns() + 60 * SEC, &w);
	/*
	 * Wall-clock bounds far above what it takes (1-3 s under TCG, 45 s
	 * once with four other sessions loading both cores), far below the
	 * quadratic search (181 s; the kill: 103 s).
	 */
	tap_ok(ret == 0 && w.status == NPA_JOB_DONE && t1 - t0 < 90 * SEC,
	       "%d bindings of one foreign buffer: submitted in %lld ms (under 90 s), %s",
	       NB, (long long)(t1 - t0) / 1000000, npa_job_status_name(w.status));
	if (job >= 0)
		close(job);

	debugfs_write(DBG "inject_fault", "1");
	job = npa_job_submit(fd, model, nb_bind, NB, 0, NULL);
	memset(&w, 0, sizeof(w));
	ret = job < 0 ? job : npa_job_wait(fd, job, npa_now_ns() + 60 * SEC, &w);
	tap_ok(ret == 0 && w.status == NPA_JOB_FAULT && w.op == 0,
	       "an injected fault with %d imports faults (%d, %s, op %u at %#llx)",
	       NB, ret, npa_job_status_name(w.status), w.op,
	       (unsigned long long)w.fault_addr);
	if (job >= 0)
		close(job);
	inject_clear();

	/* Killed in the middle of a submit, it dies at once. */
	pid = fork();
	if (!pid) {
		for (;;) {
			job = npa_job_submit(fd, model, nb_bind, NB, 0, NULL);
			if (job >= 0)
				close(job);
		}
	}
	usleep(300000);
	t0 = npa_now_ns();
	kill(pid, SIGKILL);
	ret = waitpid(pid, &st, 0);
	t1 = npa_now_ns();
	tap_ok(ret == pid && WIFSIGNALED(st) && t1 - t0 < 30 * SEC,
	       "a submitter of %d bindings killed mid-submit dies in %lld ms (under 30 s)",
	       NB, (long long)(t1 - t0) / 1000000);
out:
	if (buf >= 0)
		close(buf);
	if (fd >= 0)
		close(fd);
}

/*
 * Another file's models do not fail this file's jobs: not a model that
 * can never run (sizes only, an arena above the carveout), nor one whose
 * arena fits the carveout but not beside that file's buffer.  Each of
 * this file's models asks for more scratch than any model before it, so
 * that its job must allocate the shared arena anew.
 */
static int scratch_model(int fd, __u64 scratch_bytes)
{
	int model;

	graph_init_opts(true, true);
	scratch[0].size = scratch_bytes;
	model = npa_model_create(fd, &graph, 0, 0, NULL);
	scratch[0].size = 4096;
	return model;
}

static int run_verified(int fd, int model, const struct io *io)
{
	struct npa_job_wait w = { 0 };
	int job = submit(fd, model, io, 0, NULL), ret;

	ret = job < 0 ? job : npa_job_wait(fd, job, npa_now_ns() + 10 * SEC, &w);
	if (job >= 0)
		close(job);
	if (!ret && w.status != NPA_JOB_DONE)
		ret = -(int)w.status - 1000;
	return ret ? ret : io_check(io) ? -EIO : 0;
}

static void test_arena_isolation(void)
{
	int a = npa_open(NULL), b = npa_open(NULL), ma, mb, big = -1, ret, i;
	struct npa_query q = { 0 };
	struct io io;
	__u64 carveout;

	npa_query(a, &q);
	carveout = q.carveout_bytes;
	if (a < 0 || b < 0 || io_create(b, &io, 12)) {
		tap_ok(0, "arena isolation: set up (%d %d)", a, b);
		return;
	}

	/* Sizes only, two live tensors of 5/8 of the carveout each. */
	graph_init_opts(false, false);
	for (i = 0; i < 4; i++)
		tensors[i] = (struct npa_tensor_desc){ .flags = tensors[i].flags,
			.size = i == 1 || i == 2 ? carveout / 8 * 5 : N };
	ma = npa_model_create(a, &graph, 0, 0, NULL);
	npa_query(b, &q);
	tap_ok(ma > 0 && q.shared_arena_bytes < carveout,
	       "a plan-only model with an arena above the carveout: created (%d), shared arena %llu of %llu",
	       ma, (unsigned long long)q.shared_arena_bytes,
	       (unsigned long long)carveout);
	mb = scratch_model(b, 256 << 10);
	ret = run_verified(b, mb, &io);
	tap_ok(mb > 0 && ret == 0,
	       "... another file's job beside it ends DONE, verified (%d, %d)", mb, ret);
	if (ma > 0)
		npa_model_destroy(a, ma);

	/* Runnable, an arena of 3/4 of the carveout, and a buffer of 3/8. */
	graph_init_opts(false, false);
	for (i = 0; i < 4; i++)
		tensors[i].dims[1] = carveout / 8 * 3 / (8 * 8);
	ma = npa_model_create(a, &graph, 0, 0, NULL);
	big = npa_buffer_create(a, carveout / 8 * 3);
	mb = scratch_model(b, 512 << 10);
	ret = run_verified(b, mb, &io);
	tap_ok(ma > 0 && big >= 0 && mb > 0 && ret == 0,
	       "a model whose arena fits the carveout but not beside its file's buffer: another file's job ends DONE, verified (%d, %d, %d, %d)",
	       ma, big, mb, ret);
	if (big >= 0)
		close(big);
	graph_init();
	io_destroy(&io);
	close(a);
	close(b);
}

/*
 * With 32 jobs in flight a submit fails with EAGAIN before it looks at
 * its bindings: a caller that spins on EAGAIN costs one ioctl, not a
 * copy of its bindings, a lookup of each fd and a built job.  Before, a
 * bad binding won over EAGAIN (it was found first).
 */
static void test_job_limit_first(int fd, int model, const struct io *io)
{
	struct npa_binding bad[2] = { { .fd = -1 }, { .fd = -1 } };
	__s64 t0, t1;
	int ret, i;

	ret = npa_job_submit(fd, model, bad, 2, 0, NULL);
	tap_ok(ret == -EAGAIN, "full: a submit with closed fds fails with EAGAIN, not EBADF (%d)",
	       ret);
	ret = npa_job_submit(fd, model, (const struct npa_binding *)16, 2, 0,
			     NULL);
	tap_ok(ret == -EAGAIN, "full: a submit with unreadable bindings fails with EAGAIN, not EFAULT (%d)",
	       ret);
	ret = npa_job_submit(fd, 0x7fff, bad, 2, 0, NULL);
	tap_ok(ret == -EAGAIN, "full: a submit naming no model fails with EAGAIN, not ENOENT (%d)",
	       ret);
	/* Informational: what a caller spinning on EAGAIN costs. */
	t0 = npa_now_ns();
	for (i = 0, ret = 0; i < 10000; i++)
		ret += submit(fd, model, io, 30 * SEC, NULL) == -EAGAIN;
	t1 = npa_now_ns();
	tap_ok(ret == 10000, "full: 10000 valid submits fail with EAGAIN (%d), %lld ns each",
	       ret, (long long)(t1 - t0) / 10000);
}

static void test_job_limit(int fd, int model)
{
	int jobs[40], n, i, ret;
	struct io io;

	io_create(fd, &io, 5);
	debugfs_write(DBG "inject_hang", "1");
	for (n = 0; n < 40; n++) {
		jobs[n] = submit(fd, model, &io, 30 * SEC, NULL);
		if (jobs[n] < 0)
			break;
	}
	tap_ok(n == 32 && jobs[n] == -EAGAIN, "job 33 in flight fails with EAGAIN (%d at %d)",
	       n < 40 ? jobs[n] : 0, n);
	test_job_limit_first(fd, model, &io);
	/* Let the first job start (and hang) before resetting it. */
	wait_hang_started();
	debugfs_write(DBG "reset", "1");
	for (i = 0, ret = 0; i < n; i++) {
		struct npa_job_wait w;
		int r = npa_job_wait(fd, jobs[i], npa_now_ns() + 20 * SEC, &w);

		if (r && !ret)
			ret = r;
		close(jobs[i]);
	}
	tap_ok(ret == 0, "all %d jobs end after the reset (%d)", n, ret);
	inject_clear();
	io_destroy(&io);
}

/*
 * Jobs do not end in submission order: a cancelled queued job ends before
 * the job running ahead of it.  A merge of their fences must still wait
 * for both, which it does not if the fences share a dma-fence context
 * (the merge then keeps only the one with the later seqno).
 */
static void test_fence_order(int fd, int model)
{
	struct sync_merge_data m = { .name = "npa-order" };
	int ja, jb, fa = -1, fb = -1, ret;
	struct pollfd p;
	struct io io;

	if (io_create(fd, &io, 8)) {
		tap_ok(0, "fence order: buffers");
		return;
	}
	debugfs_write(DBG "inject_hang", "1");
	ja = submit(fd, model, &io, 0, &fa);
	jb = submit(fd, model, &io, 0, &fb);
	m.fd2 = fb;
	ret = ja < 0 || jb < 0 ? -1 : ioctl(fa, SYNC_IOC_MERGE, &m);
	tap_ok(ret == 0, "fence order: merge a hung job's fence with the next one's (%d, %d, %d)",
	       ja, jb, ret);
	if (ret) {
		npa_job_cancel(fd, ja);
		goto out;
	}

	ret = npa_job_cancel(fd, jb);
	p = (struct pollfd){ .fd = fb, .events = POLLIN };
	tap_ok(ret == 0 && poll(&p, 1, 5000) == 1,
	       "fence order: the queued job's fence signals at its cancel (%d)", ret);
	p = (struct pollfd){ .fd = m.fence, .events = POLLIN };
	ret = poll(&p, 1, 200);
	tap_ok(ret == 0, "fence order: the merged fence waits for the job ahead (%d)", ret);

	npa_job_cancel(fd, ja);
	p = (struct pollfd){ .fd = m.fence, .events = POLLIN };
	ret = poll(&p, 1, 5000);
	tap_ok(ret == 1, "fence order: the merged fence signals once both ended (%d)", ret);
	close(m.fence);
out:
	close(fa);
	close(fb);
	close(ja);
	close(jb);
	inject_clear();
	io_destroy(&io);
}

/*
 * A cheap COPY, then one operator with a huge cost: a K x K MAXPOOL over a
 * K x K input padded by K / 2, about K^4 / 4 taps (K = 512: some 40 s on a
 * fast host, far more in the guest).  The watchdog, a cancel and a reset
 * must stop it part way through the operator, promptly; a timeout names
 * it (operator %HEAVY_OP).
 */
#define HEAVY_K 512
#define HEAVY_OP 1

static int heavy_model(int fd, int *in, int *out)
{
	static struct npa_tensor_desc t[3];
	static struct npa_op_desc op[2];
	static __u32 opnd[4] = { 0, 1, 1, 2 };
	struct npa_graph_desc g = { t, op, opnd, NULL, 3, 2, 4, 0 };

	t[0] = (struct npa_tensor_desc){ .dims = { 1, 1, HEAVY_K, HEAVY_K },
					 .dtype = NPA_DTYPE_INT8,
					 .flags = NPA_TENSOR_INPUT };
	t[1] = (struct npa_tensor_desc){ .dims = { 1, 1, HEAVY_K, HEAVY_K },
					 .dtype = NPA_DTYPE_INT8 };
	t[2] = (struct npa_tensor_desc){ .dims = { 1, 1, HEAVY_K + 1, HEAVY_K + 1 },
					 .dtype = NPA_DTYPE_INT8,
					 .flags = NPA_TENSOR_OUTPUT };
	op[0] = (struct npa_op_desc){ .kind = NPA_OP_COPY, .num_inputs = 1,
		.first_output = 1, .num_outputs = 1 };
	op[HEAVY_OP] = (struct npa_op_desc){ .kind = NPA_OP_MAXPOOL,
		.first_input = 2, .num_inputs = 1,
		.first_output = 3, .num_outputs = 1,
		.params = { [NPA_P_KH] = HEAVY_K, [NPA_P_KW] = HEAVY_K,
			    [NPA_P_SH] = 1, [NPA_P_SW] = 1,
			    [NPA_P_PAD_T] = HEAVY_K / 2,
			    [NPA_P_PAD_L] = HEAVY_K / 2 } };
	*in = npa_buffer_create(fd, HEAVY_K * HEAVY_K);
	*out = npa_buffer_create(fd, (HEAVY_K + 1) * (HEAVY_K + 1));
	return npa_model_create(fd, &g, 0, 0, NULL);
}

/* Submit the heavy op with @timeout. */
static int heavy_submit(int fd, int model, int in, int out, __u64 timeout)
{
	struct npa_binding b[2] = { { .fd = in }, { .fd = out } };

	return npa_job_submit(fd, model, b, 2, timeout, NULL);
}

/*
 * Wait up to 20 s for a job that ran: it must end with @status within 10 s
 * of @from (of its start plus @after_start if @from is 0).  The operator
 * alone runs for minutes in the guest; 10 s leaves room for a loaded
 * host (3.5 s seen for the 200 ms watchdog, 6.12 guest, two busy cores).
 * A timeout, a cancel and a reset name the heavy operator, whose cycles
 * do not count: only the COPY's do.
 */
static int heavy_ended(int fd, int job, __u32 status, __s64 from,
		       __u64 after_start, const char *what)
{
	struct npa_job_wait w = { 0 };
	int ret = npa_job_wait(fd, job, npa_now_ns() + 20 * SEC, &w);
	long long ms;

	if (!from)
		from = w.start_ns + after_start;
	ms = ret ? -1 : ((long long)w.end_ns - from) / 1000000;

	tap_ok(ret == 0 && w.status == status && w.start_ns && ms >= 0 && ms < 10000,
	       "heavy op: %s ends it %s in %lld ms (%d, %s)", what,
	       npa_job_status_name(status), ms, ret, npa_job_status_name(w.status));
	/* A timeout, a cancel or a reset names the operator it stopped. */
	tap_ok(ret == 0 && w.op == HEAVY_OP && w.cycles > 0 &&
	       w.cycles < 1000000,
	       "heavy op: %s names operator %u, the one running (op %#x, %llu cycles of the COPY before it)",
	       what, HEAVY_OP, w.op, (unsigned long long)w.cycles);
	return ret == 0;
}

static void test_heavy_op(void)
{
	int fd = npa_open(NULL), model, in = -1, out = -1, job, ret;
	__s64 t0;

	model = fd < 0 ? -1 : heavy_model(fd, &in, &out);
	tap_ok(model > 0 && in >= 0 && out >= 0, "heavy op: model and buffers (%d)", model);
	if (model <= 0 || in < 0 || out < 0)
		return;

	ret = heavy_submit(fd, model, in, out, 301 * SEC);
	tap_ok(ret == -EINVAL, "a timeout above 300 s fails with EINVAL (%d)", ret);
	ret = heavy_submit(fd, model, in, out, ~0ULL);
	tap_ok(ret == -EINVAL, "timeout U64_MAX fails with EINVAL (%d)", ret);

	/* The watchdog: 200 ms, where the op alone takes far longer. */
	job = heavy_submit(fd, model, in, out, SEC / 5);
	heavy_ended(fd, job, NPA_JOB_TIMEOUT, 0, SEC / 5, "a 200 ms timeout");
	close(job);

	/* JOB_CANCEL once it runs. */
	job = heavy_submit(fd, model, in, out, 300 * SEC);
	usleep(300000);
	t0 = npa_now_ns();
	ret = npa_job_cancel(fd, job);
	if (!ret)
		heavy_ended(fd, job, NPA_JOB_ABORTED, t0, 0, "JOB_CANCEL");
	else
		tap_ok(0, "heavy op: cancel (%d)", ret);
	close(job);

	/* A debugfs reset. */
	job = heavy_submit(fd, model, in, out, 0);
	usleep(300000);
	t0 = npa_now_ns();
	debugfs_write(DBG "reset", "1");
	heavy_ended(fd, job, NPA_JOB_ABORTED, t0, 0, "a reset");
	close(job);

	/* Closing the npa fd cancels it; the NPU is free again soon after. */
	job = heavy_submit(fd, model, in, out, 0);
	usleep(300000);
	t0 = npa_now_ns();
	close(in);
	close(out);
	close(fd);
	{
		struct pollfd p = { .fd = job, .events = POLLIN };

		ret = poll(&p, 1, 20000);
		tap_ok(ret == 1 && npa_now_ns() - t0 < 3 * SEC,
		       "heavy op: closing the npa fd ends it in %lld ms (%d)",
		       (long long)(npa_now_ns() - t0) / 1000000, ret);
	}
	close(job);
}

/* udmabuf: a dma-buf from another exporter as the model's input. */
static void test_import(int fd, int model)
{
	struct npa_binding b[2];
	struct npa_job_wait w;
	struct io io;
	int memfd, dev, buf, job, ret, i;
	int8_t *p;

	io_create(fd, &io, 6);
	memfd = memfd_create("npa-input", MFD_ALLOW_SEALING);
	dev = open("/dev/udmabuf", O_RDWR);
	if (memfd < 0 || dev < 0 || ftruncate(memfd, 4096) ||
	    fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK) < 0) {
		tap_ok(0, "udmabuf available (memfd %d, /dev/udmabuf %d)", memfd, dev);
		return;
	}
	{
		struct udmabuf_create c = { .memfd = memfd, .size = 4096 };

		buf = ioctl(dev, UDMABUF_CREATE, &c);
	}
	tap_ok(buf >= 0, "udmabuf created (%d)", buf);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	for (i = 0; i < N; i++)
		p[i] = io.x[i];
	b[0] = (struct npa_binding){ .fd = buf };
	b[1] = (struct npa_binding){ .fd = io.out };
	memset(&w, 0, sizeof(w));
	job = npa_job_submit(fd, model, b, 2, 0, NULL);
	ret = job < 0 ? job : npa_job_wait(fd, job, npa_now_ns() + 10 * SEC, &w);
	tap_ok(ret == 0 && w.status == NPA_JOB_DONE && !io_check(&io),
	       "a job reads its input from a udmabuf (%d, %s)", ret,
	       npa_job_status_name(w.status));
	close(job);

	/* Input and output in one foreign buffer: one attachment, shared. */
	b[1] = (struct npa_binding){ .fd = buf, .offset = 2048 };
	memset(p + 2048, 0, N);
	job = npa_job_submit(fd, model, b, 2, 0, NULL);
	ret = job < 0 ? job : npa_job_wait(fd, job, npa_now_ns() + 10 * SEC, &w);
	for (i = 0; i < N && !ret; i++)
		if (p[2048 + i] != graph_expect(p[i]))
			ret = -EIO;
	tap_ok(ret == 0 && w.status == NPA_JOB_DONE,
	       "a job reads and writes one udmabuf bound twice (%d, %s)", ret,
	       npa_job_status_name(w.status));
	close(job);
	munmap(p, 4096);
	close(buf);
	close(dev);
	close(memfd);
	io_destroy(&io);
}

/* A dma-buf from the system heap, exported with @fd_flags; -errno if none. */
static int heap_alloc(__u32 fd_flags)
{
	struct dma_heap_allocation_data a = { .len = 4096, .fd_flags = fd_flags };
	int heap = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
	int ret;

	if (heap < 0)
		return -errno;
	ret = ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &a) ? -errno : (int)a.fd;
	close(heap);
	return ret;
}

/* The NPU writes only into buffers the caller may write. */
static void test_readonly_import(int fd, int model)
{
	int ro = heap_alloc(O_RDONLY | O_CLOEXEC), rw = heap_alloc(O_RDWR | O_CLOEXEC);
	struct npa_binding b[2];
	struct npa_job_wait w;
	int job, ret;
	struct io io;

	if (ro < 0 || rw < 0 || io_create(fd, &io, 8)) {
		tap_ok(0, "system heap buffers (%d, %d)", ro, rw);
		return;
	}
	b[0] = (struct npa_binding){ .fd = io.in };
	b[1] = (struct npa_binding){ .fd = ro };
	ret = npa_job_submit(fd, model, b, 2, 0, NULL);
	tap_ok(ret == -EACCES, "an output in a read-only dma-buf fails with EACCES (%d)", ret);

	/* Read-only is enough for an input; a read-write heap buffer takes the output. */
	b[0] = (struct npa_binding){ .fd = ro };
	b[1] = (struct npa_binding){ .fd = rw };
	memset(&w, 0, sizeof(w));
	job = npa_job_submit(fd, model, b, 2, 0, NULL);
	ret = job < 0 ? job : npa_job_wait(fd, job, npa_now_ns() + 10 * SEC, &w);
	tap_ok(ret == 0 && w.status == NPA_JOB_DONE,
	       "a read-only input and a read-write output from the system heap (%d, %s)",
	       ret, npa_job_status_name(w.status));
	if (job >= 0)
		close(job);
	close(ro);
	close(rw);
	io_destroy(&io);
}

/* DMA-API debugging's count of the errors it found (read_int()). */
#define DMA_API_ERRORS	"/sys/kernel/debug/dma-api/error_count"

/*
 * A failed submit unmaps its foreign buffers before it returns: at once,
 * the next submit maps the same system-heap buffer again, and two live
 * mappings of one buffer are an error of DMA-API debugging ("cacheline
 * tracking EEXIST").  When the failed job's buffers were released from a
 * work item, about one round in fifteen overlapped.
 */
static void test_failed_submit_unmaps(int fd, int model)
{
	int before = read_int(DMA_API_ERRORS), after;
	int r, ro = -1, rw = -1, bad = 0, rounds = 200;
	struct io io;

	if (before < 0 || io_create(fd, &io, 9)) {
		tap_ok(0, "DMA-API debugging's error count (%d)", before);
		return;
	}
	for (r = 0; r < rounds && !bad; r++) {
		struct npa_binding b[2];
		struct npa_job_wait w;
		int job, ret;

		ro = heap_alloc(O_RDONLY | O_CLOEXEC);
		rw = heap_alloc(O_RDWR | O_CLOEXEC);
		b[0] = (struct npa_binding){ .fd = io.in };
		b[1] = (struct npa_binding){ .fd = ro };
		ret = npa_job_submit(fd, model, b, 2, 0, NULL);
		bad += ret != -EACCES;
		b[0] = (struct npa_binding){ .fd = ro };
		b[1] = (struct npa_binding){ .fd = rw };
		job = npa_job_submit(fd, model, b, 2, 0, NULL);
		ret = job < 0 ? job : npa_job_wait(fd, job, npa_now_ns() + 10 * SEC, &w);
		bad += ret != 0 || w.status != NPA_JOB_DONE;
		if (job >= 0)
			close(job);
		close(ro);
		close(rw);
	}
	after = read_int(DMA_API_ERRORS);
	tap_ok(!bad && after == before,
	       "%d rounds of a refused submit then one mapping its heap buffer again: %d bad, DMA-API errors %d -> %d",
	       r, bad, before, after);
	io_destroy(&io);
}

/*
 * Jobs in flight that bind one foreign buffer share its mapping for the
 * NPU: two mappings of it would overlap ("cacheline tracking EEXIST").
 * The first job hangs, so that the others are all queued behind it with
 * their buffers bound; the last job to end unmaps it, and a later job
 * maps it again.
 */
static void test_shared_import(int fd, int model)
{
	int src = heap_alloc(O_RDWR | O_CLOEXEC), out[8], job[8], i, done = 0;
	int before = read_int(DMA_API_ERRORS), after;
	struct npa_job_wait w;

	for (i = 0; i < 8; i++)
		out[i] = heap_alloc(O_RDWR | O_CLOEXEC);
	debugfs_write(DBG "inject_hang", "1");
	for (i = 0; i < 8; i++) {
		struct npa_binding b[2] = { { .fd = src }, { .fd = out[i] } };

		job[i] = npa_job_submit(fd, model, b, 2, i ? 0 : 30 * SEC, NULL);
		if (!i)
			wait_hang_started();
	}
	after = read_int(DMA_API_ERRORS);
	debugfs_write(DBG "reset", "1");
	for (i = 0; i < 8; i++) {
		memset(&w, 0, sizeof(w));
		if (job[i] >= 0 &&
		    !npa_job_wait(fd, job[i], npa_now_ns() + 10 * SEC, &w))
			done += w.status == (i ? NPA_JOB_DONE : NPA_JOB_ABORTED);
		if (job[i] >= 0)
			close(job[i]);
	}
	inject_clear();
	tap_ok(done == 8 && before >= 0 && after == before,
	       "7 jobs queued behind a hung one, all reading one system-heap buffer: %d ended as expected, DMA-API errors %d -> %d",
	       done, before, after);

	/* Bound twice in one job, and again once the others are gone. */
	{
		struct npa_binding b[2] = { { .fd = src }, { .fd = src } };
		int j = npa_job_submit(fd, model, b, 2, 0, NULL);
		int ret = j < 0 ? j : npa_job_wait(fd, j, npa_now_ns() + 10 * SEC, &w);

		tap_ok(ret == 0 && w.status == NPA_JOB_DONE && read_int(DMA_API_ERRORS) == before,
		       "one heap buffer as input and output of a job after them (%d, %s)",
		       ret, npa_job_status_name(w.status));
		if (j >= 0)
			close(j);
	}
	for (i = 0; i < 8; i++)
		close(out[i]);
	close(src);
}

/* Several processes, each with its own file and model, at once. */
static void test_processes(void)
{
	int i, st, ok = 0;

	for (i = 0; i < 4; i++) {
		if (fork() == 0) {
			int fd = npa_open(NULL), model, k, bad = 0;
			struct io io;

			graph_init();
			model = npa_model_create(fd, &graph, i & 1 ? NPA_MODEL_PRIVATE_ARENA : 0,
						 0, NULL);
			if (model <= 0 || io_create(fd, &io, 10 + i))
				_exit(1);
			for (k = 0; k < 25; k++) {
				struct npa_job_wait w;
				int job = submit(fd, model, &io, 0, NULL);

				if (job < 0 || npa_job_wait(fd, job, npa_now_ns() + 20 * SEC, &w) ||
				    w.status != NPA_JOB_DONE || io_check(&io))
					bad++;
				close(job);
			}
			_exit(bad ? 1 : 0);
		}
	}
	for (i = 0; i < 4; i++)
		if (wait(&st) > 0 && WIFEXITED(st) && !WEXITSTATUS(st))
			ok++;
	tap_ok(ok == 4, "4 processes x 25 jobs, all done and verified (%d ok)", ok);
}

/* Close the npa fd with jobs queued behind a hang: nothing leaks. */
static void test_close_in_flight(void)
{
	int fd = npa_open(NULL), model, i, ended, jobs[4];
	struct io io;

	graph_init();
	model = npa_model_create(fd, &graph, 0, 0, NULL);
	io_create(fd, &io, 7);
	debugfs_write(DBG "inject_hang", "1");
	for (i = 0; i < 4; i++)
		jobs[i] = submit(fd, model, &io, 2 * SEC, NULL);
	/* Let the first job start (and hang) before closing. */
	wait_hang_started();
	close(fd);
	/* The job fds outlive the file; the jobs end ABORTED. */
	for (i = 0, ended = 0; i < 4; i++) {
		struct pollfd p = { .fd = jobs[i], .events = POLLIN };

		if (jobs[i] >= 0 && poll(&p, 1, 10000) == 1)
			ended++;
		close(jobs[i]);
	}
	tap_ok(ended == 4, "closing a file with jobs in flight ends all of them (%d of 4)",
	       ended);
	inject_clear();
	io_destroy(&io);
}

/* An ended job's fence outlives its model: the private arena goes at once. */
static void test_model_outlived(int fd)
{
	struct npa_query q0, q1, q2;
	struct npa_job_wait w;
	int model, job = -1, ret;
	struct io io;

	if (io_create(fd, &io, 12) || npa_query(fd, &q0)) {
		tap_ok(0, "model outlived: query and buffers");
		return;
	}
	model = npa_model_create(fd, &graph, NPA_MODEL_PRIVATE_ARENA, 0, NULL);
	if (model > 0)
		job = submit(fd, model, &io, 0, NULL);
	ret = job < 0 ? job : npa_job_wait(fd, job, npa_now_ns() + 10 * SEC, &w);
	tap_ok(ret == 0 && w.status == NPA_JOB_DONE && !npa_query(fd, &q1) &&
	       q1.private_arena_bytes > q0.private_arena_bytes,
	       "a job on a private-arena model is done (%d, arena %llu -> %llu)", ret,
	       (unsigned long long)q0.private_arena_bytes,
	       (unsigned long long)q1.private_arena_bytes);
	ret = npa_model_destroy(fd, model);
	tap_ok(ret == 0 && !npa_query(fd, &q2) &&
	       q2.private_arena_bytes == q0.private_arena_bytes,
	       "destroying the model frees its arena while the job fd is open (%d, %llu -> %llu)",
	       ret, (unsigned long long)q1.private_arena_bytes,
	       (unsigned long long)q2.private_arena_bytes);
	if (job >= 0)
		close(job);
	io_destroy(&io);
}

static void test_query(int fd)
{
	struct npa_query q;

	npa_query(fd, &q);
	tap_ok(q.caps & NPA_CAP_JOBS, "query reports NPA_CAP_JOBS");
	tap_ok(q.carveout_bytes >= (4 << 20), "carveout of %llu MiB",
	       (unsigned long long)q.carveout_bytes >> 20);
	tap_ok(q.jobs_done > 0, "%llu jobs done, %llu failed",
	       (unsigned long long)q.jobs_done, (unsigned long long)q.jobs_failed);
}

static __u64 carveout_used(int fd)
{
	struct npa_query q;

	return npa_query(fd, &q) ? ~0ULL : q.carveout_used_bytes;
}

/*
 * The shared activation arena grows for the models that use it and is
 * given back when the last of them goes.  Runs with no other model open.
 */
static void test_arena_trim(void)
{
	struct npa_job_wait w;
	__u64 before, ran, after = 0;
	struct io io;
	int fd, model, job, ret, i;

	fd = npa_open(NULL);
	/* The previous tests' arena goes back asynchronously: let it. */
	for (i = 0; i < 200 && (before = carveout_used(fd)) != 0; i++)
		usleep(10000);
	model = npa_model_create(fd, &graph, 0, 0, NULL);
	if (model <= 0 || io_create(fd, &io, 9)) {
		tap_ok(0, "arena trim: set up a model and buffers");
		close(fd);
		return;
	}
	job = submit(fd, model, &io, 0, NULL);
	ret = npa_job_wait(fd, job, npa_now_ns() + 10000000000LL, &w);
	close(job);
	io_destroy(&io);
	ran = carveout_used(fd);
	tap_ok(ret == 0 && ran > before,
	       "the first job allocates the shared arena (%llu -> %llu bytes in use)",
	       (unsigned long long)before, (unsigned long long)ran);
	npa_model_destroy(fd, model);
	/* The queue gives the arena back after the model is gone. */
	for (i = 0; i < 200; i++) {
		after = carveout_used(fd);
		if (after == before)
			break;
		usleep(10000);
	}
	tap_ok(after == before,
	       "destroying the last model gives the shared arena back (%llu bytes in use, %llu before)",
	       (unsigned long long)after, (unsigned long long)before);
	close(fd);
}

/*
 * Unbinding the device would free it under open files: the driver has no
 * bind or unbind attribute in sysfs.
 */
static void test_no_unbind(void)
{
	const char *drv = "/sys/bus/platform/drivers/npa-sim";
	char path[128];
	int ret;

	ret = access(drv, F_OK);
	tap_ok(ret == 0, "the platform driver is in sysfs (%d)", ret ? errno : 0);
	snprintf(path, sizeof(path), "%s/unbind", drv);
	ret = access(path, F_OK);
	tap_ok(ret && errno == ENOENT, "the driver has no unbind file (%d)",
	       ret ? errno : 0);
	snprintf(path, sizeof(path), "%s/bind", drv);
	ret = access(path, F_OK);
	tap_ok(ret && errno == ENOENT, "the driver has no bind file (%d)",
	       ret ? errno : 0);
}

static int try_unload(void)
{
	return syscall(SYS_delete_module, "npa", O_NONBLOCK) ? errno : 0;
}

/*
 * The dma-bufs and job fds pin the module: rmmod must fail while any is
 * open, even after /dev/npa0 itself was closed, and what they hold stays
 * usable.  Runs with no other npa fd open in this process.
 */
static void test_unload_held(void)
{
	struct npa_job_wait w;
	struct pollfd pfd;
	struct io io;
	int fd, model, job, ret, i, bad = 0;

	fd = npa_open(NULL);
	model = fd < 0 ? -1 : npa_model_create(fd, &graph, 0, 0, NULL);
	if (model <= 0 || io_create(fd, &io, 5)) {
		tap_ok(0, "unload: set up a model and buffers");
		return;
	}
	job = submit(fd, model, &io, 0, NULL);
	ret = npa_job_wait(fd, job, npa_now_ns() + 10000000000LL, &w);
	tap_ok(job >= 0 && ret == 0 && w.status == NPA_JOB_DONE,
	       "unload: a job ran (%d)", ret);
	close(fd);

	ret = try_unload();
	tap_ok(ret == EWOULDBLOCK,
	       "rmmod fails (EWOULDBLOCK) with /dev/npa0 closed but dma-bufs and a job fd open (%d)",
	       ret);
	for (i = 0; i < N; i++)
		bad += io.y[i] != graph_expect(io.x[i]);
	tap_ok(!bad, "the output buffer still holds the job's results after close (%d differ)",
	       bad);
	io_destroy(&io);

	ret = try_unload();
	tap_ok(ret == EWOULDBLOCK, "rmmod fails with only a job fd open (%d)", ret);
	pfd = (struct pollfd){ .fd = job, .events = POLLIN };
	tap_ok(poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN),
	       "the job fd still polls readable");

	fd = npa_open(NULL);
	ret = fd < 0 ? -1 : npa_buffer_create(fd, 4096);
	close(fd);
	close(job);
	tap_ok(ret >= 0 && try_unload() == EWOULDBLOCK,
	       "rmmod fails with only a dma-buf open");
	close(ret);
}

/*
 * A sync_file does not pin the module by itself: the job behind it does,
 * until the fence's last put.  With only a fence fd left, rmmod must fail
 * and the fence must still read as signalled.
 */
static void test_unload_fence(void)
{
	struct pollfd pfd;
	struct io io;
	int fd, model, job, fence = -1, ret;

	fd = npa_open(NULL);
	model = fd < 0 ? -1 : npa_model_create(fd, &graph, 0, 0, NULL);
	if (model <= 0 || io_create(fd, &io, 5)) {
		tap_ok(0, "unload: set up a model and buffers for a fence");
		return;
	}
	job = submit(fd, model, &io, 0, &fence);
	tap_ok(job >= 0 && fence >= 0, "unload: a job with a fence (%d, %d)",
	       job, fence);
	pfd = (struct pollfd){ .fd = fence, .events = POLLIN };
	tap_ok(poll(&pfd, 1, 10000) == 1, "unload: the fence signals");
	close(job);
	io_destroy(&io);
	close(fd);

	ret = try_unload();
	tap_ok(ret == EWOULDBLOCK, "rmmod fails with only a fence fd open (%d)",
	       ret);
	pfd = (struct pollfd){ .fd = fence, .events = POLLIN };
	tap_ok(poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN),
	       "the fence still polls signalled");
	close(fence);
}

/*
 * debugfs carveout is made a page at a time, the carveout's lock held
 * only that long (the NPU's queue takes it to place the shared arena): a
 * buffer made after the first read() is in the rest.  Before, the first
 * read() printed the whole map under the lock and later reads returned
 * that snapshot.
 */
#define MAPBUFS 150
static void test_debugfs_carveout(void)
{
	int fd = npa_open(NULL), bufs[MAPBUFS + 1], i, made = 0, dfd;
	static char text[1 << 16];
	int lines = 0, listed = 0;
	size_t len = 0;
	char *line;
	ssize_t n;

	for (i = 0; i < MAPBUFS; i++) {
		bufs[i] = npa_buffer_create(fd, 4096);
		made += bufs[i] >= 0;
	}
	bufs[MAPBUFS] = -1;
	dfd = open(DBG "carveout", O_RDONLY);
	n = dfd < 0 ? -1 : read(dfd, text, 4096);
	if (n > 0) {
		len = n;
		bufs[MAPBUFS] = npa_buffer_create(fd, 4096);
		made += bufs[MAPBUFS] >= 0;
	}
	read_rest(dfd, text, len, sizeof(text));
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		lines++;
		listed += strlen(line) > 7 && !strcmp(line + strlen(line) - 7, " buffer");
	}
	tap_ok(made == MAPBUFS + 1 && listed == MAPBUFS + 1,
	       "debugfs carveout: a buffer made after the first read() is in the rest (%d of %d buffers listed, %d lines)",
	       listed, made, lines);
	for (i = 0; i <= MAPBUFS; i++)
		if (bufs[i] >= 0)
			close(bufs[i]);
	close(fd);
}

int main(void)
{
	int fd = npa_open(NULL), model;

	tap_ok(fd >= 0, "open /dev/npa0 (%d)", fd);
	if (fd < 0)
		return 1;
	graph_init();
	model = npa_model_create(fd, &graph, 0, 0, NULL);
	tap_ok(model > 0, "create the test model (%d)", model);
	if (model <= 0)
		return 1;

	test_buffers(fd);
	test_job(fd, model);
	test_submit_invalid(fd, model);
	test_isolation(fd, model);
	test_faults(fd, model);
	test_late_watchdog(fd, model);
	test_job_limit(fd, model);
	test_fence_order(fd, model);
	test_heavy_op();
	test_import(fd, model);
	test_readonly_import(fd, model);
	test_failed_submit_unmaps(fd, model);
	test_shared_import(fd, model);
	test_processes();
	test_model_outlived(fd);
	test_close_in_flight();
	test_query(fd);
	test_debugfs_carveout();
	test_no_unbind();
	test_arena_isolation();
	test_many_bindings();
	npa_model_destroy(fd, model);
	close(fd);
	test_arena_trim();
	test_unload_held();
	test_unload_fence();
	return tap_failed;
}
