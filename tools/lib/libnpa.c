// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * libnpa: thin C wrapper over the npa ioctls.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <linux/dma-buf.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "libnpa.h"

/*
 * The ABI of libnpa.so.0 includes the size of every uAPI struct that
 * crosses it: the caller allocates them (and the arrays of them), and
 * libnpa clears them or tells the kernel their size from its own build.
 * The uAPI lets a struct grow at its end; when one of these does, the
 * SONAME in tools/lib/Makefile goes up with these numbers, or an old
 * application would have its memory overrun by a new library.
 */
#define LIBNPA_ABI_SIZE(s, n) \
	static_assert(sizeof(struct s) == (n), \
		      "struct " #s " changed size: bump the SONAME of libnpa")
LIBNPA_ABI_SIZE(npa_query, 160);
LIBNPA_ABI_SIZE(npa_model_create, 152);
LIBNPA_ABI_SIZE(npa_tensor_desc, 40);
LIBNPA_ABI_SIZE(npa_op_desc, 72);
LIBNPA_ABI_SIZE(npa_scratch_desc, 24);
LIBNPA_ABI_SIZE(npa_placement, 32);
LIBNPA_ABI_SIZE(npa_binding, 16);
LIBNPA_ABI_SIZE(npa_job_wait, 56);

int npa_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, cmd, arg);
	} while (ret == -1 && errno == EINTR);
	return ret == -1 ? -errno : ret;
}

int npa_open(const char *path)
{
	int fd = open(path ? path : NPA_DEFAULT_PATH, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int npa_close(int fd)
{
	return close(fd) ? -errno : 0;
}

int npa_query(int fd, struct npa_query *q)
{
	memset(q, 0, sizeof(*q));
	return npa_ioctl(fd, NPA_IOCTL_QUERY, q);
}

int npa_model_create(int fd, const struct npa_graph_desc *g, __u32 flags,
		     __u64 budget, struct npa_model_create *report)
{
	struct npa_model_create args;
	int ret;

	memset(&args, 0, sizeof(args));
	args.tensors = (__u64)(uintptr_t)g->tensors;
	args.ops = (__u64)(uintptr_t)g->ops;
	args.operands = (__u64)(uintptr_t)g->operands;
	args.scratch = (__u64)(uintptr_t)g->scratch;
	args.num_tensors = g->num_tensors;
	args.tensor_size = sizeof(*g->tensors);
	args.num_ops = g->num_ops;
	args.op_size = sizeof(*g->ops);
	args.num_operands = g->num_operands;
	args.num_scratch = g->num_scratch;
	args.scratch_size = sizeof(*g->scratch);
	args.flags = flags;
	args.budget = budget;
	ret = npa_ioctl(fd, NPA_IOCTL_MODEL_CREATE, &args);
	if (ret)
		return ret;
	if (report)
		*report = args;
	return (int)args.handle;
}

int npa_model_plan(int fd, __u32 handle, struct npa_placement *tensors,
		   __u32 *num_tensors, struct npa_placement *scratch,
		   __u32 *num_scratch)
{
	struct npa_model_plan args;
	int ret;

	memset(&args, 0, sizeof(args));
	args.handle = handle;
	args.tensors = (__u64)(uintptr_t)tensors;
	args.num_tensors = tensors && num_tensors ? *num_tensors : 0;
	args.scratch = (__u64)(uintptr_t)scratch;
	args.num_scratch = scratch && num_scratch ? *num_scratch : 0;
	args.placement_size = sizeof(struct npa_placement);
	ret = npa_ioctl(fd, NPA_IOCTL_MODEL_PLAN, &args);
	if (ret)
		return ret;
	if (num_tensors)
		*num_tensors = args.num_tensors;
	if (num_scratch)
		*num_scratch = args.num_scratch;
	return 0;
}

int npa_model_destroy(int fd, __u32 handle)
{
	struct npa_model_destroy args = { .handle = handle };

	return npa_ioctl(fd, NPA_IOCTL_MODEL_DESTROY, &args);
}

int npa_buffer_create(int fd, __u64 size)
{
	struct npa_buffer_create args = { .size = size };
	int ret = npa_ioctl(fd, NPA_IOCTL_BUFFER_CREATE, &args);

	return ret ? ret : args.fd;
}

void *npa_buffer_map(int buf_fd, size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, buf_fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

int npa_buffer_unmap(void *ptr, size_t size)
{
	return munmap(ptr, size) ? -errno : 0;
}

int npa_buffer_sync(int buf_fd, int start)
{
	struct dma_buf_sync sync = {
		.flags = (start ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END) |
			 DMA_BUF_SYNC_RW,
	};

	return npa_ioctl(buf_fd, DMA_BUF_IOCTL_SYNC, &sync);
}

int npa_job_submit(int fd, __u32 model, const struct npa_binding *bindings,
		   __u32 num_bindings, __u64 timeout_ns, int *fence_fd)
{
	struct npa_job_submit args;
	int ret;

	memset(&args, 0, sizeof(args));
	args.model = model;
	args.flags = fence_fd ? NPA_JOB_FENCE : 0;
	args.bindings = (__u64)(uintptr_t)bindings;
	args.num_bindings = num_bindings;
	args.binding_size = sizeof(*bindings);
	args.timeout_ns = timeout_ns;
	ret = npa_ioctl(fd, NPA_IOCTL_JOB_SUBMIT, &args);
	if (ret)
		return ret;
	if (fence_fd)
		*fence_fd = args.fence_fd;
	return args.job_fd;
}

int npa_job_wait(int fd, int job_fd, __s64 deadline_ns, struct npa_job_wait *out)
{
	struct npa_job_wait args;
	int ret;

	memset(&args, 0, sizeof(args));
	args.job_fd = job_fd;
	args.deadline_ns = deadline_ns;
	ret = npa_ioctl(fd, NPA_IOCTL_JOB_WAIT, &args);
	if (!ret && out)
		*out = args;
	return ret;
}

int npa_job_cancel(int fd, int job_fd)
{
	struct npa_job_cancel args = { .job_fd = job_fd };

	return npa_ioctl(fd, NPA_IOCTL_JOB_CANCEL, &args);
}

__s64 npa_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__s64)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

const char *npa_job_status_name(__u32 status)
{
	static const char *const names[] = {
		[NPA_JOB_QUEUED] = "queued", [NPA_JOB_RUNNING] = "running",
		[NPA_JOB_DONE] = "done", [NPA_JOB_FAULT] = "fault",
		[NPA_JOB_TIMEOUT] = "timeout", [NPA_JOB_ABORTED] = "aborted",
	};

	return status < sizeof(names) / sizeof(names[0]) ? names[status] : "?";
}
