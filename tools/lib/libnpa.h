/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * libnpa: thin C wrapper over the npa ioctls.
 *
 * Every function but npa_buffer_map(), npa_now_ns(), npa_error_str() and
 * npa_job_status_name() returns 0 (or a non-negative value) on success and
 * a negative errno on failure; errno itself is left as the kernel set it.
 * An ioctl interrupted by a signal is restarted (also NPA_IOCTL_JOB_WAIT,
 * whose deadline is absolute): a signal does not end a wait early.
 * libnpa keeps no state; its functions may be called from any thread.
 *
 * The structs of linux/npa.h that the caller passes are part of the ABI
 * of libnpa.so.1: their sizes are those of the header libnpa was built
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

/* Open the device (NULL means NPA_DEFAULT_PATH); returns an fd or -errno. */
int npa_open(const char *path);
int npa_close(int fd);

/* NPA_IOCTL_QUERY.  @q is cleared first. */
int npa_query(int fd, struct npa_query *q);

/**
 * struct npa_graph_desc - a graph for npa_model_create()
 * The arrays are the uAPI descriptors; element sizes are filled in.
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

/*
 * NPA_IOCTL_MODEL_CREATE.  On success @report (if not NULL) holds the
 * handle and the plan report, and the handle is returned.
 */
int npa_model_create(int fd, const struct npa_graph_desc *g, __u32 flags,
		     __u64 budget, struct npa_model_create *report);
/*
 * The same; when it fails and @err is not NULL, @err says what the kernel
 * refused (npa_error_str() puts it in words).
 */
int npa_model_create_err(int fd, const struct npa_graph_desc *g, __u32 flags,
			 __u64 budget, struct npa_model_create *report,
			 struct npa_error *err);

/*
 * NPA_IOCTL_MODEL_PLAN: fills up to @num_tensors / @num_scratch entries
 * (either array may be NULL) and stores the model's counts through
 * @num_tensors / @num_scratch.
 */
int npa_model_plan(int fd, __u32 handle, struct npa_placement *tensors,
		   __u32 *num_tensors, struct npa_placement *scratch,
		   __u32 *num_scratch);

/* NPA_IOCTL_MODEL_DESTROY. */
int npa_model_destroy(int fd, __u32 handle);

/* NPA_IOCTL_BUFFER_CREATE: returns a dma-buf fd or -errno. */
int npa_buffer_create(int fd, __u64 size);

/* mmap a whole dma-buf read/write; NULL on failure (errno set). */
void *npa_buffer_map(int buf_fd, size_t size);
int npa_buffer_unmap(void *ptr, size_t size);

/* DMA_BUF_IOCTL_SYNC: @start 1 before CPU access, 0 after it. */
int npa_buffer_sync(int buf_fd, int start);

/*
 * NPA_IOCTL_JOB_SUBMIT.  Returns the job fd; with @fence_fd not NULL also
 * asks for a sync_file and stores it there.
 */
int npa_job_submit(int fd, __u32 model, const struct npa_binding *bindings,
		   __u32 num_bindings, __u64 timeout_ns, int *fence_fd);
/* The same, with a report of what was refused in @err (may be NULL). */
int npa_job_submit_err(int fd, __u32 model, const struct npa_binding *bindings,
		       __u32 num_bindings, __u64 timeout_ns, int *fence_fd,
		       struct npa_error *err);

/*
 * A refusal in words, e.g. "tensor 3: size is 4096 bytes, needs 4608" or
 * "operand 7 (op 2) (tensor 0): tensor id is a model input or a constant,
 * which no op may write"; returns @buf.
 */
char *npa_error_str(const struct npa_error *err, char *buf, size_t len);

/*
 * NPA_IOCTL_JOB_WAIT until the absolute CLOCK_MONOTONIC @deadline_ns;
 * -ETIME if the job had not ended by then. Signals do not end it early
 * (the ioctl is restarted); a short deadline in a loop does.
 */
int npa_job_wait(int fd, int job_fd, __s64 deadline_ns, struct npa_job_wait *out);

/* NPA_IOCTL_JOB_CANCEL. */
int npa_job_cancel(int fd, int job_fd);

/* CLOCK_MONOTONIC now, in nanoseconds, for deadlines. */
__s64 npa_now_ns(void);

/* Name of an enum npa_job_status. */
const char *npa_job_status_name(__u32 status);

/* Raw ioctl with -errno return, for commands libnpa does not wrap. */
int npa_ioctl(int fd, unsigned long cmd, void *arg);

#ifdef __cplusplus
}
#endif

#endif /* LIBNPA_H */
