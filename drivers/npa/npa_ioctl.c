// SPDX-License-Identifier: GPL-2.0
/*
 * npa: NPU arena allocator, ioctl dispatch and handlers.
 */

/**
 * DOC: npa ioctls
 *
 * One table maps each ioctl number to its handler and the kernel's size of
 * its argument struct.  npa_ioctl() copies the argument in with
 * copy_struct_from_user(), so older userspace may pass a shorter struct
 * (missing fields read as zero) as long as it holds the handle or fds the
 * ioctl returns, and newer userspace a longer one whose unknown tail is
 * zero.  Handlers work on a kernel copy and never touch user
 * memory for the main argument; the result is copied back, truncated to the
 * caller's size, only when the handler succeeded.
 *
 * The ioctls that hand out something userspace reaches by a number
 * (MODEL_CREATE's handle, BUFFER_CREATE's dma-buf fd, JOB_SUBMIT's job and
 * fence fds) copy their result out themselves, with npa_ioctl_copy_out(),
 * after everything that can fail and before the number means anything:
 * the fds are reserved but not installed, the handle reserved but empty,
 * the job built but not queued.  Only when the copy succeeded do they
 * fd_install(), store the model and queue the job; when it fails they
 * undo everything and return -EFAULT.  So a caller whose argument cannot
 * be written, or is unmapped by another thread while the ioctl runs, is
 * left with nothing, and never with an object whose number it lacks.
 */

#include <kunit/visibility.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/npa.h>

#include "npa_buffer.h"
#include "npa_device.h"
#include "npa_graph.h"
#include "npa_ioctl.h"
#include "npa_job.h"
#include "npa_model.h"
#include "npa_uaccess.h"

/* Largest argument struct of any ioctl; on the stack in npa_ioctl(). */
#define NPA_IOCTL_MAX_ARG	256

typedef int npa_ioctl_fn(struct npa_file *nfile, void *data,
			 struct npa_ioctl_out *out);

/**
 * struct npa_ioctl_desc - one ioctl
 * @cmd: its number, with the kernel's struct size.
 * @func: the handler.
 * @name: for messages.
 * @min_size: the shortest struct userspace may pass (-EINVAL below).
 */
struct npa_ioctl_desc {
	unsigned int cmd;
	npa_ioctl_fn *func;
	const char *name;
	size_t min_size;
};

#define NPA_IOCTL_DEF(_cmd, _func) \
	[_IOC_NR(NPA_IOCTL_##_cmd)] = { NPA_IOCTL_##_cmd, _func, #_cmd }

/*
 * An ioctl that hands out a handle or fds: the struct must reach the last
 * of them (@_field), or the caller would get an object whose number was cut
 * off the copy-out.  Every version of these structs had these fields.
 */
#define NPA_IOCTL_DEF_OUT(_cmd, _func, _type, _field) \
	[_IOC_NR(NPA_IOCTL_##_cmd)] = { NPA_IOCTL_##_cmd, _func, #_cmd, \
					offsetofend(struct _type, _field) }

static const struct npa_ioctl_desc npa_ioctls[] = {
	NPA_IOCTL_DEF(QUERY, npa_ioctl_query),
	NPA_IOCTL_DEF_OUT(MODEL_CREATE, npa_ioctl_model_create,
			  npa_model_create, handle),
	NPA_IOCTL_DEF(MODEL_PLAN, npa_ioctl_model_plan),
	NPA_IOCTL_DEF(MODEL_DESTROY, npa_ioctl_model_destroy),
	NPA_IOCTL_DEF_OUT(BUFFER_CREATE, npa_ioctl_buffer_create,
			  npa_buffer_create, fd),
	NPA_IOCTL_DEF_OUT(JOB_SUBMIT, npa_ioctl_job_submit,
			  npa_job_submit, fence_fd),
	NPA_IOCTL_DEF(JOB_WAIT, npa_ioctl_job_wait),
	NPA_IOCTL_DEF(JOB_CANCEL, npa_ioctl_job_cancel),
};

static bool npa_mem_is_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

/**
 * npa_ioctl_query() - NPA_IOCTL_QUERY: driver version and capabilities
 * @nfile: the calling file.
 * @data: a kernel copy of &struct npa_query.
 * @out: unused: npa_ioctl() copies the result out.
 *
 * Context: Process context.
 * Return: 0, or -EINVAL if @flags or a reserved field is not zero.
 */
int npa_ioctl_query(struct npa_file *nfile, void *data,
		    struct npa_ioctl_out *out)
{
	const struct npa_graph_limits *lim = &npa_graph_default_limits;
	struct npa_device *ndev = nfile->ndev;
	struct npa_query *args = data;
	int i;

	if (args->flags & ~NPA_QUERY_FLAGS_ALL)
		return -EINVAL;
	if (!npa_mem_is_zero(args->reserved, sizeof(args->reserved)))
		return -EINVAL;

	/* Nothing the caller passed in comes back (unit_align[3], no NPU). */
	memset_after(args, 0, flags);
	args->version_major = NPA_VERSION_MAJOR;
	args->version_minor = NPA_VERSION_MINOR;
	args->version_patch = NPA_VERSION_PATCH;
	args->caps = NPA_CAP_PLAN | NPA_CAP_MODEL;
	if (ndev && ndev->carveout.pool) {
		args->caps |= NPA_CAP_JOBS;
		args->carveout_bytes = ndev->carveout.size;
		args->carveout_used_bytes = npa_carveout_used(&ndev->carveout);
		npa_model_arena_stats(ndev, &args->shared_arena_bytes,
				      &args->private_arena_bytes,
				      &args->arena_need_private_bytes);
		args->jobs_done = atomic64_read(&ndev->npu->jobs_done);
		args->jobs_failed = atomic64_read(&ndev->npu->jobs_failed);
	}
	args->max_tensors = lim->max_tensors;
	args->max_ops = lim->max_ops;
	args->max_operands = lim->max_operands;
	args->max_scratch = lim->max_scratch;
	for (i = 0; i < NPA_UNIT_COUNT; i++)
		args->unit_align[i] = lim->unit_align[i];
	args->fast_window_bytes = lim->fast_window;
	args->max_tensor_bytes = lim->max_tensor_bytes;
	return 0;
}

static const struct npa_ioctl_desc *npa_ioctl_lookup(unsigned int cmd)
{
	unsigned int nr = _IOC_NR(cmd);
	const struct npa_ioctl_desc *desc;

	if (_IOC_TYPE(cmd) != NPA_IOCTL_BASE || nr >= ARRAY_SIZE(npa_ioctls))
		return NULL;
	desc = &npa_ioctls[nr];
	if (!desc->func || _IOC_DIR(cmd) != _IOC_DIR(desc->cmd))
		return NULL;
	return desc;
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * npa_ioctl_dispatch() - run one ioctl on a kernel copy of its argument
 * @nfile: the calling file.
 * @cmd: the ioctl number as userspace passed it.
 * @data: kernel buffer of at least _IOC_SIZE() of the table's command; the
 *	result is left in it.
 *
 * For the KUnit suites only: the handler sees an empty &struct
 * npa_ioctl_out, so its own copy-out copies nothing and succeeds.
 *
 * Context: Process context.
 * Return: the handler's result, or -ENOTTY for an unknown ioctl.
 */
int npa_ioctl_dispatch(struct npa_file *nfile, unsigned int cmd, void *data)
{
	const struct npa_ioctl_desc *desc = npa_ioctl_lookup(cmd);
	struct npa_ioctl_out out = { };

	if (!desc)
		return -ENOTTY;
	return desc->func(nfile, data, &out);
}
EXPORT_SYMBOL_IF_KUNIT(npa_ioctl_dispatch);
#endif

long npa_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct npa_file *nfile = filp->private_data;
	void __user *uarg = (void __user *)arg;
	const struct npa_ioctl_desc *desc;
	u8 kdata[NPA_IOCTL_MAX_ARG] __aligned(8);
	struct npa_ioctl_out out = { .uptr = uarg };
	size_t ksize, usize;
	int ret;

	desc = npa_ioctl_lookup(cmd);
	if (!desc)
		return -ENOTTY;

	ksize = _IOC_SIZE(desc->cmd);
	usize = _IOC_SIZE(cmd);
	if (WARN_ON_ONCE(ksize > sizeof(kdata)))
		return -ENOTTY;
	if (usize < desc->min_size)
		return -EINVAL;

	ret = copy_struct_from_user(kdata, ksize, uarg, usize);
	if (ret)
		return ret;

	if (_IOC_DIR(cmd) & _IOC_READ)
		out.size = min(ksize, usize);
	ret = desc->func(nfile, kdata, &out);
	if (ret || out.done || !out.size)
		return ret;
	return npa_ioctl_copy_out(&out, kdata);
}
