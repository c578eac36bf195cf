/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * libnpa: thin C wrapper over the npa ioctls.
 *
 * Documentation/libnpa.rst is generated from this file's kernel-doc
 * (scripts/kernel-doc); the rules for fds, handles and threads are in the
 * "ownership, scope and threads" section below.
 *
 * The structs of linux/npa.h that the caller passes are part of the ABI
 * of libnpa.so.2: their sizes are those of the header libnpa was built
 * with, the one installed with it.
 */
#ifndef LIBNPA_H
#define LIBNPA_H

#include <stddef.h>
#include <linux/npa.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NPA_DEFAULT_PATH	"/dev/" NPA_DEVICE_NAME

/**
 * DOC: ownership, scope and threads
 *
 * - Return values: every function returns 0 or a non-negative value on
 *   success and a negative errno on failure, but npa_buffer_map() (NULL
 *   and errno), npa_now_ns(), npa_error_str(), npa_job_status_name() and
 *   npa_version(), which cannot fail.  errno is left as the kernel set it.
 * - File descriptors: every fd libnpa returns (device, dma-buf, job,
 *   fence) belongs to the caller, who closes it with close() (or
 *   npa_close() for the device); libnpa never closes one on its own.
 * - Handles: a model handle is valid on the open device file that created
 *   it (that fd and its dup()s), on no fd of another npa_open(); it dies
 *   with npa_model_destroy() or when that file is closed.
 * - Buffers: a dma-buf from npa_buffer_create() lives until its last fd is
 *   closed and its last mapping unmapped, independently of the device fd
 *   and of any model; a running job holds the buffers bound to it.
 * - Graph arrays: npa_model_create() copies the graph; the caller may
 *   free or reuse every array of &struct npa_graph_desc once it returns.
 * - Threads: libnpa keeps no state.  One device fd may be used from
 *   several threads at once; the driver serialises what must be.
 * - Signals: an ioctl interrupted by a signal is restarted (also
 *   npa_job_wait(), whose deadline is absolute), so a signal does not end
 *   a call early.
 */

/**
 * npa_version() - the version of libnpa itself
 *
 * The uAPI version libnpa was built against, as one number
 * ``major << 16 | minor << 8 | patch`` (NPA_VERSION_* of linux/npa.h).
 * Compare it with what the running driver reports in &npa_query.
 *
 * Return: the version; never fails.
 */
unsigned int npa_version(void);

/**
 * npa_open() - open the npa device
 * @path: the device node, or NULL for %NPA_DEFAULT_PATH.
 *
 * Opens read-write and close-on-exec.  The fd scopes every model handle
 * created through it.
 *
 * Return: the device fd, which the caller closes with npa_close(), or
 * -errno.
 */
int npa_open(const char *path);

/**
 * npa_close() - close a device fd
 * @fd: a device fd from npa_open().
 *
 * When this is the file's last fd: destroys the models created through it
 * and cancels its jobs that have not ended (they end ABORTED; each holds
 * its memory until it has stopped).  Buffers live on while they have fds
 * or mappings.
 *
 * Return: 0 or -errno (close(2)'s).
 */
int npa_close(int fd);

/**
 * npa_query() - NPA_IOCTL_QUERY: driver version, capabilities, limits
 * @fd: a device fd.
 * @q: filled in; cleared first.
 *
 * Return: 0 or -errno.
 */
int npa_query(int fd, struct npa_query *q);

/**
 * struct npa_graph_desc - a graph for npa_model_create()
 * @tensors: @num_tensors tensor descriptors.
 * @ops: @num_ops operators, in execution order.
 * @operands: @num_operands tensor ids the operators index into.
 * @scratch: @num_scratch scratch requests, or NULL with 0.
 * @num_tensors: entries in @tensors.
 * @num_ops: entries in @ops.
 * @num_operands: entries in @operands.
 * @num_scratch: entries in @scratch.
 *
 * The arrays are the uAPI descriptors; libnpa fills in their element
 * sizes.  They are read during npa_model_create() only.
 */
struct npa_graph_desc {
	const struct npa_tensor_desc *tensors;
	const struct npa_op_desc *ops;
	const __u32 *operands;
	const struct npa_scratch_desc *scratch;
	__u32 num_tensors;
	__u32 num_ops;
	__u32 num_operands;
	__u32 num_scratch;
};

/**
 * npa_model_create() - NPA_IOCTL_MODEL_CREATE: validate and plan a graph
 * @fd: a device fd; the handle is valid on it only.
 * @g: the graph, copied by the kernel: free it whenever this returns.
 * @flags: NPA_MODEL_* bits, e.g. %NPA_MODEL_PRIVATE_ARENA.
 * @budget: the planner's work budget, 0 for the default.
 * @report: if not NULL, the handle and the plan report on success.
 *
 * Return: the model handle (positive), or -errno: -EDQUOT when @fd
 * holds 64 models already, -ENOSPC when the private arena of
 * %NPA_MODEL_PRIVATE_ARENA does not fit in the carveout (the others:
 * Documentation/uapi.rst).  Destroy it with npa_model_destroy() or by
 * closing @fd.
 */
int npa_model_create(int fd, const struct npa_graph_desc *g, __u32 flags,
		     __u64 budget, struct npa_model_create *report);

/**
 * npa_model_create_err() - npa_model_create() with the kernel's reason
 * @fd: as for npa_model_create().
 * @g: as for npa_model_create().
 * @flags: as for npa_model_create().
 * @budget: as for npa_model_create().
 * @report: as for npa_model_create().
 * @err: if not NULL, cleared (nothing blamed: op, tensor and dim
 *	%NPA_ERR_NO_INDEX), and on failure what the kernel refused: which
 *	array, index, field (and dim) and why (npa_error_str() puts it in
 *	words).
 *
 * &struct npa_error grew by its dim in uAPI 3.6.0: programs linked
 * against an older libnpa call the symbol's version LIBNPA_1, which reads
 * and writes only the 40 bytes before it; those built now get version
 * LIBNPA_1.5 (likewise npa_model_create_planned(), whose older version is
 * LIBNPA_1.1, npa_job_submit_err(), npa_error_str() and
 * npa_error_str_graph(), LIBNPA_1.4).  With a driver older than 3.6.0,
 * which does not fill it, the dim is %NPA_ERR_NO_INDEX: libnpa asks the
 * driver's version when a call fails.
 *
 * Return: as npa_model_create().
 */
int npa_model_create_err(int fd, const struct npa_graph_desc *g, __u32 flags,
			 __u64 budget, struct npa_model_create *report,
			 struct npa_error *err);

/**
 * npa_model_create_planned() - npa_model_create_err() with a plan made
 *	elsewhere
 * @fd: as for npa_model_create().
 * @g: as for npa_model_create().
 * @flags: as for npa_model_create(); %NPA_MODEL_SUPPLIED_PLAN is added
 *	when @plan_tensors is not NULL.
 * @budget: as for npa_model_create(); not used with a plan.
 * @plan_tensors: one placement per tensor of @g, of which the offsets of
 *	the tensors that live in the arena are read (what
 *	npa_model_plan() reports, or `npactl plan --out`); NULL: the kernel
 *	plans.
 * @plan_scratch: one placement per scratch request of @g: offset and size
 *	granted; may be NULL without scratch.
 * @report: as for npa_model_create(); plan_kind is
 *	%NPA_PLAN_KIND_SUPPLIED for a plan taken.
 * @err: as for npa_model_create_err(); a plan refused names its element
 *	(arrays %NPA_ERR_ARRAY_PLAN_TENSORS, %NPA_ERR_ARRAY_PLAN_SCRATCH).
 *
 * The kernel verifies the plan (sharing, alignment, scratch sizes, no two
 * buffers live at once overlapping) instead of planning, and allocates
 * nothing for a plan it refuses.
 *
 * Return: as npa_model_create().
 */
int npa_model_create_planned(int fd, const struct npa_graph_desc *g,
			     __u32 flags, __u64 budget,
			     const struct npa_placement *plan_tensors,
			     const struct npa_placement *plan_scratch,
			     struct npa_model_create *report,
			     struct npa_error *err);

/**
 * npa_model_plan() - NPA_IOCTL_MODEL_PLAN: where each tensor was placed
 * @fd: the device fd the model was created on.
 * @handle: the model.
 * @tensors: room for *@num_tensors placements, or NULL.
 * @num_tensors: in: room in @tensors; out: the model's tensor count.  May
 *	be NULL when @tensors is.
 * @scratch: room for *@num_scratch placements, or NULL.
 * @num_scratch: the same for the scratch requests.
 *
 * Fills min(room, count) entries of each array; call once with NULL
 * arrays to learn the counts.
 *
 * Return: 0 or -errno.
 */
int npa_model_plan(int fd, __u32 handle, struct npa_placement *tensors,
		   __u32 *num_tensors, struct npa_placement *scratch,
		   __u32 *num_scratch);

/**
 * npa_model_bindings() - the tensors every job of a model binds
 * @fd: the device fd the model was created on.
 * @handle: the model.
 * @bound: room for *@num_bound entries, or NULL to learn the count.
 * @num_bound: in: room in @bound; out: the model's number of bound tensors,
 *	which is the number of bindings npa_job_submit() takes.
 *
 * The kernel's list (NPA_IOCTL_MODEL_PLAN, &struct npa_bound_tensor), in
 * the order npa_job_submit() takes the bindings: for each, the tensor id,
 * its NPA_TENSOR_* flags (input, output, constant, persistent), the bytes
 * it takes in its buffer and the alignment its binding's offset needs.
 * Names are the caller's: the kernel knows tensors by id.  Fills
 * min(room, count) entries.
 *
 * Return: 0 or -errno: -ENOENT for a handle unknown on @fd, -E2BIG from a
 * driver older than uAPI 3.3, which cannot list them.
 */
int npa_model_bindings(int fd, __u32 handle, struct npa_bound_tensor *bound,
		       __u32 *num_bound);

/**
 * npa_model_destroy() - NPA_IOCTL_MODEL_DESTROY
 * @fd: the device fd the model was created on.
 * @handle: the model.
 *
 * Jobs already submitted on the model keep it until they end.
 *
 * Return: 0 or -errno (-ENOENT for a handle unknown on @fd).
 */
int npa_model_destroy(int fd, __u32 handle);

/**
 * npa_buffer_create() - NPA_IOCTL_BUFFER_CREATE: a buffer in the carveout
 * @fd: a device fd.
 * @size: bytes, rounded up to a page.
 *
 * The buffer is zeroed.  It outlives @fd: it is freed when its last fd is
 * closed and its last mapping unmapped.
 *
 * Return: a dma-buf fd (close-on-exec) that the caller closes with
 * close(), or -errno: -EDQUOT when @fd holds 256 buffers already,
 * -ENOSPC when the carveout has no free range of @size, -EMFILE when the
 * process has no free fd (the others: Documentation/uapi.rst).
 */
int npa_buffer_create(int fd, __u64 size);

/**
 * npa_buffer_map() - mmap a whole dma-buf, shared and read-write
 * @buf_fd: a dma-buf fd (from npa_buffer_create() or another exporter).
 * @size: bytes to map from its start.
 *
 * Bracket CPU access with npa_buffer_sync().  Closing @buf_fd does not
 * unmap it.
 *
 * Return: the mapping, which the caller unmaps with npa_buffer_unmap(),
 * or NULL with errno set.
 */
void *npa_buffer_map(int buf_fd, size_t size);

/**
 * npa_buffer_unmap() - undo npa_buffer_map()
 * @ptr: the mapping.
 * @size: the size given to npa_buffer_map().
 *
 * Return: 0 or -errno.
 */
int npa_buffer_unmap(void *ptr, size_t size);

/**
 * npa_buffer_sync() - DMA_BUF_IOCTL_SYNC around CPU access
 * @buf_fd: a dma-buf fd.
 * @start: 1 before the CPU reads or writes the mapping, 0 after.
 *
 * Return: 0 or -errno.
 */
int npa_buffer_sync(int buf_fd, int start);

/**
 * npa_job_submit() - NPA_IOCTL_JOB_SUBMIT: run a model once
 * @fd: the device fd the model was created on.
 * @model: the model handle.
 * @bindings: one per tensor flagged INPUT, OUTPUT, CONST or PERSISTENT, in
 *	tensor-id order: the dma-buf fd holding it and its byte offset
 *	there.  Read during the call only.
 * @num_bindings: entries in @bindings; must equal the number of such
 *	tensors.
 * @timeout_ns: the job's watchdog, 0 for the device default.
 * @fence_fd: if not NULL, also ask for a sync_file that signals when the
 *	job ends, stored here; the caller closes it with close().
 *
 * The job holds the model and the bound buffers until it ends, so the
 * caller may close its buffer fds and destroy the model right away.
 *
 * Return: the job fd (pollable: POLLIN once the job has ended), which the
 * caller passes to npa_job_wait() and closes with close(), or -errno.
 */
int npa_job_submit(int fd, __u32 model, const struct npa_binding *bindings,
		   __u32 num_bindings, __u64 timeout_ns, int *fence_fd);

/**
 * npa_job_submit_err() - npa_job_submit() with the kernel's reason
 * @fd: as for npa_job_submit().
 * @model: as for npa_job_submit().
 * @bindings: as for npa_job_submit().
 * @num_bindings: as for npa_job_submit().
 * @timeout_ns: as for npa_job_submit().
 * @fence_fd: as for npa_job_submit().
 * @err: as for npa_model_create_err(): if not NULL, cleared, and on
 *	failure what the kernel refused (e.g. "binding 2 (tensor 5): offset
 *	leaves no room...").
 *
 * Return: as npa_job_submit().
 */
int npa_job_submit_err(int fd, __u32 model, const struct npa_binding *bindings,
		       __u32 num_bindings, __u64 timeout_ns, int *fence_fd,
		       struct npa_error *err);

/**
 * npa_error_str() - a refusal in words
 * @err: what npa_model_create_err() or npa_job_submit_err() filled.
 * @buf: where to write, always NUL-terminated when @len > 0.
 * @len: bytes at @buf.
 *
 * E.g. "tensor 3: size is 4096 bytes, needs 4608", "op 2, operand 7:
 * tensor 0 is a model input or a constant, which no op may write" or
 * "op 0, operand 1: tensor 1 is 300 bytes, needs 108".  A dim blamed is
 * named by its index (uAPI 3.6.0): "tensor 2: dims[1] has a 0 before a
 * non-zero dim, or dims without a dtype", "op 0, operand 0: tensor 3 has
 * 4 in dims[1] where 8 is needed".  Operands are numbered as elements of
 * the operands array; npa_error_str_graph() says more.
 *
 * Return: @buf.
 */
char *npa_error_str(const struct npa_error *err, char *buf, size_t len);

/**
 * npa_error_str_graph() - a refusal in words, with the graph it is about
 * @err: what npa_model_create_err() filled, or the host's validation.
 * @g: the graph that was refused, or NULL (then as npa_error_str()).
 * @buf: where to write, always NUL-terminated when @len > 0.
 * @len: bytes at @buf.
 *
 * As npa_error_str(), but an op is named with its kind and an operand by
 * its position within its op (inputs then outputs, from 0) and its role
 * (input, weights, bias, a, b, output), e.g. "op 0 (conv2d): operand 1
 * (weights) is 300 bytes, needs 108" or "op 1 (add), operand 0 (a):
 * tensor 3 is read at or before op 1, which writes it".  (Since libnpa
 * 1.4.)
 *
 * Return: @buf.
 */
char *npa_error_str_graph(const struct npa_error *err,
			  const struct npa_graph_desc *g, char *buf, size_t len);

/**
 * npa_job_wait() - NPA_IOCTL_JOB_WAIT: wait for a job to end
 * @fd: the device fd the job was submitted on.
 * @job_fd: the job fd from npa_job_submit().
 * @deadline_ns: absolute CLOCK_MONOTONIC time (see npa_now_ns()).
 * @out: if not NULL, the job's status, timings, the operator that faulted
 *	or timed out, and &npa_job_wait.cycles: what the operators that ran
 *	cost by the simulated NPU's cost model (for a job that ended DONE,
 *	the ``sim_cycles`` ``npactl plan --json`` estimates for the graph).
 *
 * Signals do not end it early (the ioctl is restarted); a short deadline
 * in a loop does.  Waiting does not close @job_fd.
 *
 * &struct npa_job_wait grew by @cycles in uAPI 3.2.0: programs linked
 * against an older libnpa call npa_job_wait@LIBNPA_1, which fills only
 * the fields before it; those built now get npa_job_wait@@LIBNPA_1.2.
 *
 * Return: 0 once the job has ended (whatever its status), -ETIME if it
 * had not by @deadline_ns, or -errno.
 */
int npa_job_wait(int fd, int job_fd, __s64 deadline_ns, struct npa_job_wait *out);

/**
 * npa_job_cancel() - NPA_IOCTL_JOB_CANCEL
 * @fd: the device fd the job was submitted on.
 * @job_fd: the job fd.
 *
 * A queued job ends ABORTED without running; a running job is stopped
 * within milliseconds, even inside a large operator (the NPU checks for
 * an abort as it computes), and ends ABORTED with its outputs undefined;
 * a job that has ended is left as it is.  Cancelling returns at once:
 * wait for the end with npa_job_wait() as usual.
 *
 * Return: 0 or -errno.
 */
int npa_job_cancel(int fd, int job_fd);

/**
 * npa_now_ns() - CLOCK_MONOTONIC now, in nanoseconds, for deadlines
 *
 * Return: the time.
 */
__s64 npa_now_ns(void);

/**
 * npa_job_status_name() - the name of an enum npa_job_status
 * @status: &npa_job_wait.status.
 *
 * Return: "queued", "running", "done", "fault", "timeout", "aborted", or
 * "?" for another value; a static string.
 */
const char *npa_job_status_name(__u32 status);

/**
 * npa_ioctl() - a raw ioctl with -errno return, restarted after signals
 * @fd: the fd.
 * @cmd: the ioctl command.
 * @arg: its argument.
 *
 * For commands libnpa does not wrap.
 *
 * Return: the ioctl's non-negative result, or -errno.
 */
int npa_ioctl(int fd, unsigned long cmd, void *arg);

#ifdef __cplusplus
}
#endif

#endif /* LIBNPA_H */
