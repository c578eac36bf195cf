// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * libnpa: thin C wrapper over the npa ioctls.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/dma-buf.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "libnpa.h"

/*
 * The ABI of libnpa.so.2 includes the size of every uAPI struct that
 * crosses it: the caller allocates them (and the arrays of them), and
 * libnpa clears them or tells the kernel their size from its own build.
 * The uAPI lets a struct grow at its end; when one of these does, the
 * SONAME in tools/lib/Makefile goes up with these numbers, or an old
 * application would have its memory overrun by a new library, unless the
 * one function that fills the struct keeps its old symbol version filling
 * the old size (npa_job_wait@LIBNPA_1, below).
 */
#define LIBNPA_ABI_SIZE(s, n) \
	static_assert(sizeof(struct s) == (n), \
		      "struct " #s " changed size: bump the SONAME of libnpa")
LIBNPA_ABI_SIZE(npa_query, 160);
LIBNPA_ABI_SIZE(npa_model_create, 192);
LIBNPA_ABI_SIZE(npa_tensor_desc, 40);
LIBNPA_ABI_SIZE(npa_op_desc, 72);
LIBNPA_ABI_SIZE(npa_scratch_desc, 24);
LIBNPA_ABI_SIZE(npa_placement, 32);
LIBNPA_ABI_SIZE(npa_binding, 16);
LIBNPA_ABI_SIZE(npa_job_wait, 64);
LIBNPA_ABI_SIZE(npa_bound_tensor, 24);
LIBNPA_ABI_SIZE(npa_error, 48);
/* &struct npa_error until uAPI 3.6.0: up to tensor, without dim. */
#define NPA_ERROR_V1_SIZE	offsetof(struct npa_error, dim)
static_assert(NPA_ERROR_V1_SIZE == 40, "struct npa_error: 40 bytes in 3.5");

/*
 * struct npa_error grew by dim in uAPI 3.6.0.  NPA_ERROR_VERSIONS() makes
 * the two versions of a function that takes one: @name at @old, for the
 * programs linked before, which calls @impl(@args..., 40) and so reads and
 * writes the first 40 bytes of the report only, and @name at LIBNPA_1.5,
 * the default, which calls @impl(@args..., 48).
 */
#define NPA_ERROR_VERSIONS(type, name, old, impl, params, ...)		\
	type name##_v1 params;						\
	__asm__(".symver " #name "_v1, " #name "@" old);		\
	type name##_v1 params						\
	{								\
		return impl(__VA_ARGS__, NPA_ERROR_V1_SIZE);		\
	}								\
	type name##_v2 params;						\
	__asm__(".symver " #name "_v2, " #name "@@LIBNPA_1.5");	\
	type name##_v2 params						\
	{								\
		return impl(__VA_ARGS__, sizeof(struct npa_error));	\
	}
/* libnpa's own: four pointers and four counts. */
static_assert(sizeof(struct npa_graph_desc) == 4 * sizeof(void *) + 16,
	      "struct npa_graph_desc changed size: bump the SONAME of libnpa");

unsigned int npa_version(void)
{
	return NPA_VERSION_MAJOR << 16 | NPA_VERSION_MINOR << 8 |
	       NPA_VERSION_PATCH;
}

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

/*
 * The error report before the call: nothing blamed, in the @size bytes
 * the caller has (NPA_ERROR_V1_SIZE for the programs linked before 3.6.0).
 */
static void npa_error_clear(struct npa_error *err, size_t size)
{
	const struct npa_error none = {
		.op = NPA_ERR_NO_INDEX, .tensor = NPA_ERR_NO_INDEX,
		.dim = NPA_ERR_NO_INDEX,
	};

	memcpy(err, &none, size);
}

/*
 * After a failed call: a driver before uAPI 3.6.0 wrote the first 40
 * bytes of the report and zeroed the rest, which reads as dims[0].  It
 * blamed no dim.  Asked on failures only, which are rare.
 */
static void npa_error_fixup(int fd, struct npa_error *err, size_t size)
{
	struct npa_query q;
	int saved = errno;

	if (size < sizeof(*err))
		return;
	if (npa_query(fd, &q) || q.version_major < 3 ||
	    (q.version_major == 3 && q.version_minor < 6))
		err->dim = NPA_ERR_NO_INDEX;
	errno = saved;
}

/* MODEL_CREATE, with an error report of @esize bytes at @err. */
static int npa_model_create_size(int fd, const struct npa_graph_desc *g,
				 __u32 flags, __u64 budget,
				 const struct npa_placement *plan_tensors,
				 const struct npa_placement *plan_scratch,
				 struct npa_model_create *report,
				 struct npa_error *err, size_t esize)
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
	if (err) {
		npa_error_clear(err, esize);
		args.error = (__u64)(uintptr_t)err;
		args.error_size = esize;
	}
	if (plan_tensors) {
		args.flags |= NPA_MODEL_SUPPLIED_PLAN;
		args.plan_tensors = (__u64)(uintptr_t)plan_tensors;
		args.plan_scratch = (__u64)(uintptr_t)plan_scratch;
		args.plan_size = sizeof(*plan_tensors);
	}
	ret = npa_ioctl(fd, NPA_IOCTL_MODEL_CREATE, &args);
	if (ret) {
		if (err)
			npa_error_fixup(fd, err, esize);
		return ret;
	}
	if (report)
		*report = args;
	return (int)args.handle;
}

int npa_model_create(int fd, const struct npa_graph_desc *g, __u32 flags,
		     __u64 budget, struct npa_model_create *report)
{
	return npa_model_create_size(fd, g, flags, budget, NULL, NULL, report,
				     NULL, 0);
}

NPA_ERROR_VERSIONS(int, npa_model_create_err, "LIBNPA_1",
		   npa_model_create_size,
		   (int fd, const struct npa_graph_desc *g, __u32 flags,
		    __u64 budget, struct npa_model_create *report,
		    struct npa_error *err),
		   fd, g, flags, budget, NULL, NULL, report, err)

NPA_ERROR_VERSIONS(int, npa_model_create_planned, "LIBNPA_1.1",
		   npa_model_create_size,
		   (int fd, const struct npa_graph_desc *g, __u32 flags,
		    __u64 budget, const struct npa_placement *plan_tensors,
		    const struct npa_placement *plan_scratch,
		    struct npa_model_create *report, struct npa_error *err),
		   fd, g, flags, budget, plan_tensors, plan_scratch, report,
		   err)

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

int npa_model_bindings(int fd, __u32 handle, struct npa_bound_tensor *bound,
		       __u32 *num_bound)
{
	struct npa_model_plan args;
	int ret;

	memset(&args, 0, sizeof(args));
	args.handle = handle;
	if (bound && num_bound) {
		args.bound = (__u64)(uintptr_t)bound;
		args.num_bound = *num_bound;
		args.bound_size = sizeof(*bound);
	}
	ret = npa_ioctl(fd, NPA_IOCTL_MODEL_PLAN, &args);
	if (ret)
		return ret;
	if (num_bound)
		*num_bound = args.num_bound;
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

/* JOB_SUBMIT, with an error report of @esize bytes at @err. */
static int npa_job_submit_size(int fd, __u32 model,
			       const struct npa_binding *bindings,
			       __u32 num_bindings, __u64 timeout_ns,
			       int *fence_fd, struct npa_error *err,
			       size_t esize)
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
	if (err) {
		npa_error_clear(err, esize);
		args.error = (__u64)(uintptr_t)err;
		args.error_size = esize;
	}
	ret = npa_ioctl(fd, NPA_IOCTL_JOB_SUBMIT, &args);
	if (ret) {
		if (err)
			npa_error_fixup(fd, err, esize);
		return ret;
	}
	if (fence_fd)
		*fence_fd = args.fence_fd;
	return args.job_fd;
}

int npa_job_submit(int fd, __u32 model, const struct npa_binding *bindings,
		   __u32 num_bindings, __u64 timeout_ns, int *fence_fd)
{
	return npa_job_submit_size(fd, model, bindings, num_bindings,
				   timeout_ns, fence_fd, NULL, 0);
}

NPA_ERROR_VERSIONS(int, npa_job_submit_err, "LIBNPA_1", npa_job_submit_size,
		   (int fd, __u32 model, const struct npa_binding *bindings,
		    __u32 num_bindings, __u64 timeout_ns, int *fence_fd,
		    struct npa_error *err),
		   fd, model, bindings, num_bindings, timeout_ns, fence_fd,
		   err)

/* Wait, and copy the first @size bytes of the result to @out. */
static int npa_job_wait_size(int fd, int job_fd, __s64 deadline_ns,
			     struct npa_job_wait *out, size_t size)
{
	struct npa_job_wait args;
	int ret;

	memset(&args, 0, sizeof(args));
	args.job_fd = job_fd;
	args.deadline_ns = deadline_ns;
	ret = npa_ioctl(fd, NPA_IOCTL_JOB_WAIT, &args);
	if (!ret && out)
		memcpy(out, &args, size);
	return ret;
}

/*
 * Until uAPI 3.2.0 the struct ended at end_ns (56 bytes): the programs
 * linked then call this version, which writes no further.
 */
int npa_job_wait_v1(int fd, int job_fd, __s64 deadline_ns,
		    struct npa_job_wait *out);
__asm__(".symver npa_job_wait_v1, npa_job_wait@LIBNPA_1");
int npa_job_wait_v1(int fd, int job_fd, __s64 deadline_ns,
		    struct npa_job_wait *out)
{
	return npa_job_wait_size(fd, job_fd, deadline_ns, out,
				 offsetof(struct npa_job_wait, cycles));
}

/* Since 3.2.0: the whole struct, with cycles. */
int npa_job_wait_v2(int fd, int job_fd, __s64 deadline_ns,
		    struct npa_job_wait *out);
__asm__(".symver npa_job_wait_v2, npa_job_wait@@LIBNPA_1.2");
int npa_job_wait_v2(int fd, int job_fd, __s64 deadline_ns,
		    struct npa_job_wait *out)
{
	return npa_job_wait_size(fd, job_fd, deadline_ns, out, sizeof(*out));
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

#define NPA_NAMES(a)	(sizeof(a) / sizeof((a)[0]))

static const char *npa_name(const char *const *names, size_t n, __u32 i)
{
	return i < n && names[i] ? names[i] : "?";
}

static const char *const npa_err_fields[] = {
	[NPA_ERR_FIELD_NONE] = NULL, [NPA_ERR_FIELD_FLAGS] = "flags",
	[NPA_ERR_FIELD_PAD] = "pad", [NPA_ERR_FIELD_SIZE] = "size",
	[NPA_ERR_FIELD_MIN_SIZE] = "min_size", [NPA_ERR_FIELD_DIMS] = "dims",
	[NPA_ERR_FIELD_DTYPE] = "dtype", [NPA_ERR_FIELD_ALIGN] = "align",
	[NPA_ERR_FIELD_KIND] = "kind", [NPA_ERR_FIELD_UNIT] = "unit",
	[NPA_ERR_FIELD_PARAMS] = "params",
	[NPA_ERR_FIELD_FIRST_INPUT] = "first_input",
	[NPA_ERR_FIELD_NUM_INPUTS] = "num_inputs",
	[NPA_ERR_FIELD_FIRST_OUTPUT] = "first_output",
	[NPA_ERR_FIELD_NUM_OUTPUTS] = "num_outputs",
	[NPA_ERR_FIELD_FIRST_SCRATCH] = "first_scratch",
	[NPA_ERR_FIELD_NUM_SCRATCH] = "num_scratch",
	[NPA_ERR_FIELD_ID] = "tensor id",
	[NPA_ERR_FIELD_NUM_TENSORS] = "num_tensors",
	[NPA_ERR_FIELD_NUM_OPS] = "num_ops",
	[NPA_ERR_FIELD_NUM_OPERANDS] = "num_operands",
	[NPA_ERR_FIELD_TENSOR_SIZE] = "tensor_size",
	[NPA_ERR_FIELD_OP_SIZE] = "op_size",
	[NPA_ERR_FIELD_SCRATCH_SIZE] = "scratch_size",
	[NPA_ERR_FIELD_BUDGET] = "budget",
	[NPA_ERR_FIELD_ERROR_SIZE] = "error_size",
	[NPA_ERR_FIELD_MODEL] = "model",
	[NPA_ERR_FIELD_NUM_BINDINGS] = "num_bindings",
	[NPA_ERR_FIELD_BINDING_SIZE] = "binding_size",
	[NPA_ERR_FIELD_TIMEOUT_NS] = "timeout_ns",
	[NPA_ERR_FIELD_FD] = "fd", [NPA_ERR_FIELD_OFFSET] = "offset",
	[NPA_ERR_FIELD_PLAN_SIZE] = "plan_size",
};

/*
 * The reasons in words; %1$llu is the value found, %2$llu the value
 * needed (enum npa_err_reason says which a reason has).
 */
static const char *const npa_err_reasons[] = {
	[NPA_ERR_NONE] = "refused",
	[NPA_ERR_NOT_ZERO] = "is %1$llu, must be 0",
	[NPA_ERR_UNKNOWN_FLAGS] = "has unknown bits: %1$#llx, valid %2$#llx",
	[NPA_ERR_FLAG_CONFLICT] = "has bits that exclude each other: %1$#llx",
	[NPA_ERR_BAD_VALUE] = "is %1$llu, not a valid value",
	[NPA_ERR_BAD_ALIGN] = "is %1$llu, not a power of two up to %2$llu",
	[NPA_ERR_BAD_SHAPE] = "has a 0 before a non-zero dim, or dims without a dtype",
	[NPA_ERR_NO_SIZE] = "is 0 and there is no shape",
	[NPA_ERR_SIZE_MISMATCH] = "is %1$llu bytes, needs %2$llu",
	[NPA_ERR_TOO_BIG] = "is %1$llu, above the limit %2$llu",
	[NPA_ERR_OVERFLOW] = "overflows 64 bits",
	[NPA_ERR_OUT_OF_RANGE] = "is out of range: it reaches %1$llu, the array holds %2$llu",
	[NPA_ERR_ARITY] = "is %1$llu, wrong for the op's kind",
	[NPA_ERR_TWO_PRODUCERS] = "is written by op %1$llu already",
	[NPA_ERR_WRITES_INPUT] = "is a model input or a constant, which no op may write",
	[NPA_ERR_NOT_PRODUCED] = "is read or a model output, but no op writes it",
	[NPA_ERR_CYCLE] = "is read at or before op %1$llu, which writes it",
	[NPA_ERR_SCRATCH_SHARED] = "names a scratch request of op %1$llu too",
	[NPA_ERR_SCRATCH_UNOWNED] = "belongs to no op",
	[NPA_ERR_NOT_EXECUTABLE] = "are not what the NPU can execute on these shapes (Documentation/npu.rst)",
	[NPA_ERR_NOT_RUNNABLE] = "has tensors without shapes: it can be planned, not run",
	[NPA_ERR_READ_ONLY] = "is read-only, but the tensor is written",
	[NPA_ERR_DOES_NOT_FIT] = "leaves no room for %1$llu bytes in a %2$llu-byte buffer",
	[NPA_ERR_WRONG_COUNT] = "is %1$llu, needs %2$llu",
	[NPA_ERR_MISALIGNED] = "is %1$llu, not a multiple of %2$llu",
	[NPA_ERR_NOT_SHARED] = "is %1$llu, but the tensor shares memory: it must be %2$llu",
	[NPA_ERR_OVERLAP] = NULL,	/* npa_error_str() words it */
	[NPA_ERR_OPERAND_MISMATCH] = NULL,	/* so does it this one */
};

static const char *const npa_kinds[] = {
	[NPA_OP_CONV2D] = "conv2d", [NPA_OP_DWCONV2D] = "dwconv2d",
	[NPA_OP_MAXPOOL] = "maxpool", [NPA_OP_AVGPOOL] = "avgpool",
	[NPA_OP_ADD] = "add", [NPA_OP_MUL] = "mul",
	[NPA_OP_ACTIVATION] = "activation", [NPA_OP_CONCAT] = "concat",
	[NPA_OP_RESHAPE] = "reshape", [NPA_OP_SPLIT] = "split",
	[NPA_OP_UPSAMPLE] = "upsample", [NPA_OP_COPY] = "copy",
	[NPA_OP_FC] = "fc", [NPA_OP_REORG] = "reorg",
};

static const char *const npa_dtypes[] = {
	[NPA_DTYPE_NONE] = "none", [NPA_DTYPE_INT8] = "int8",
	[NPA_DTYPE_UINT8] = "uint8", [NPA_DTYPE_INT16] = "int16",
	[NPA_DTYPE_INT32] = "int32",
};

static const char *npa_dtype_name(__u64 dtype)
{
	return dtype < NPA_NAMES(npa_dtypes) ? npa_dtypes[dtype] : "?";
}

/* Operand @k of an op of @kind with @nin inputs, as npu.rst names it. */
static const char *npa_role(__u32 kind, __u32 k, __u32 nin)
{
	static const char *const weighed[] = { "input", "weights", "bias" };
	static const char *const elt[] = { "a", "b" };

	if (k >= nin)
		return "output";
	switch (kind) {
	case NPA_OP_CONV2D:
	case NPA_OP_DWCONV2D:
	case NPA_OP_FC:
		return npa_name(weighed, NPA_NAMES(weighed), k);
	case NPA_OP_ADD:
	case NPA_OP_MUL:
		return npa_name(elt, NPA_NAMES(elt), k);
	default:
		return "input";
	}
}

/*
 * The position within op @e->op of @e->index, an element of the operands
 * array (inputs then outputs), or -1 if @g does not say.
 */
static long npa_operand_of(const struct npa_error *e,
			   const struct npa_graph_desc *g)
{
	const struct npa_op_desc *op;

	if (!g || e->array != NPA_ERR_ARRAY_OPERANDS || e->op >= g->num_ops)
		return -1;
	op = &g->ops[e->op];
	if (e->index >= op->first_input &&
	    e->index - op->first_input < op->num_inputs)
		return e->index - op->first_input;
	if (e->index >= op->first_output &&
	    e->index - op->first_output < op->num_outputs)
		return (long)op->num_inputs + (e->index - op->first_output);
	return -1;
}

/* The dim @e blames, or -1: a dims field's, since uAPI 3.6.0. */
static long npa_error_dim(const struct npa_error *e)
{
	if (e->field != NPA_ERR_FIELD_DIMS || e->dim >= NPA_MAX_DIMS)
		return -1;
	return e->dim;
}

static char *npa_error_words(const struct npa_error *e,
			     const struct npa_graph_desc *g, char *buf,
			     size_t len)
{
	const char *why = npa_name(npa_err_reasons, NPA_NAMES(npa_err_reasons),
				   e->reason);
	long k = npa_operand_of(e, g), dim = npa_error_dim(e);
	size_t n = 0;

#define NPA_PUT(...) \
	(n += snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, \
		       __VA_ARGS__))
	if (!len)
		return buf;
	buf[0] = 0;
	/* Where: the element, and the op it belongs to. */
	if (e->op != NPA_ERR_NO_INDEX && e->array != NPA_ERR_ARRAY_BINDINGS) {
		NPA_PUT("op %u", e->op);
		if (g && e->op < g->num_ops)
			NPA_PUT(" (%s)", npa_name(npa_kinds, NPA_NAMES(npa_kinds),
						  g->ops[e->op].kind));
		NPA_PUT("%s", e->array == NPA_ERR_ARRAY_OPS ? ": " :
			k >= 0 && e->field != NPA_ERR_FIELD_ID ? ": " : ", ");
	}
	switch (e->array) {
	case NPA_ERR_ARRAY_TENSORS:
		NPA_PUT("tensor %u: ", e->index);
		break;
	case NPA_ERR_ARRAY_OPERANDS:
		if (k < 0) {
			NPA_PUT("operand %u: ", e->index);
			break;
		}
		NPA_PUT("operand %ld (%s)", k,
			npa_role(g->ops[e->op].kind, k, g->ops[e->op].num_inputs));
		/* Its tensor's size, dtype or dims: the sentence goes on. */
		NPA_PUT(e->field == NPA_ERR_FIELD_ID ? ": " : " ");
		break;
	case NPA_ERR_ARRAY_SCRATCH:
		NPA_PUT("scratch request %u: ", e->index);
		break;
	case NPA_ERR_ARRAY_PLAN_TENSORS:
		NPA_PUT("plan of tensor %u: ", e->index);
		break;
	case NPA_ERR_ARRAY_PLAN_SCRATCH:
		NPA_PUT("plan of scratch request %u: ", e->index);
		break;
	case NPA_ERR_ARRAY_BINDINGS:
		NPA_PUT("binding %u", e->index);
		if (e->tensor != NPA_ERR_NO_INDEX)
			NPA_PUT(" (tensor %u)", e->tensor);
		NPA_PUT(": ");
		break;
	}
	/* An op's param its kind does not define: @value says which. */
	if (e->field == NPA_ERR_FIELD_PARAMS && e->reason == NPA_ERR_NOT_ZERO) {
		NPA_PUT("params[%llu] must be 0: the kind does not use it",
			(unsigned long long)e->value);
		return buf;
	}
	/* What: the field, or for an operand the tensor it names. */
	if (e->array == NPA_ERR_ARRAY_OPERANDS && e->tensor != NPA_ERR_NO_INDEX) {
		if (k < 0 || e->field == NPA_ERR_FIELD_ID)
			NPA_PUT("tensor %u ", e->tensor);
	} else if (dim >= 0) {
		NPA_PUT("dims[%ld] ", dim);
	} else if (e->field) {
		NPA_PUT("%s ", npa_name(npa_err_fields, NPA_NAMES(npa_err_fields),
					e->field));
	}
	/* Why, with the values. */
	if (e->reason == NPA_ERR_OVERLAP) {
		NPA_PUT("overlaps %s %llu, and both are live at once",
			e->expected == NPA_ERR_ARRAY_PLAN_SCRATCH ?
			"scratch request" : "tensor",
			(unsigned long long)e->value);
		return buf;
	}
	if (e->reason == NPA_ERR_OPERAND_MISMATCH &&
	    e->field == NPA_ERR_FIELD_DTYPE) {
		NPA_PUT("is %s, needs %s", npa_dtype_name(e->value),
			npa_dtype_name(e->expected));
		return buf;
	}
	if (e->reason == NPA_ERR_OPERAND_MISMATCH && dim >= 0 &&
	    e->array == NPA_ERR_ARRAY_OPERANDS) {
		NPA_PUT("has %llu in dims[%ld] where %llu is needed",
			(unsigned long long)e->value, dim,
			(unsigned long long)e->expected);
		return buf;
	}
	if (e->reason == NPA_ERR_OPERAND_MISMATCH) {
		NPA_PUT("has a dim of %llu where %llu is needed",
			(unsigned long long)e->value,
			(unsigned long long)e->expected);
		return buf;
	}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	NPA_PUT(why, (unsigned long long)e->value,
		(unsigned long long)e->expected);
#pragma GCC diagnostic pop
#undef NPA_PUT
	return buf;
}

/* The report @r in words, of which the caller has @size bytes. */
static char *npa_error_words_size(const struct npa_error *r,
				  const struct npa_graph_desc *g, char *buf,
				  size_t len, size_t size)
{
	struct npa_error e;

	npa_error_clear(&e, sizeof(e));
	memcpy(&e, r, size);
	return npa_error_words(&e, g, buf, len);
}

NPA_ERROR_VERSIONS(char *, npa_error_str, "LIBNPA_1", npa_error_words_size,
		   (const struct npa_error *err, char *buf, size_t len),
		   err, NULL, buf, len)

NPA_ERROR_VERSIONS(char *, npa_error_str_graph, "LIBNPA_1.4",
		   npa_error_words_size,
		   (const struct npa_error *err, const struct npa_graph_desc *g,
		    char *buf, size_t len),
		   err, g, buf, len)
