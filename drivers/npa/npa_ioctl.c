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
 * (missing fields read as zero) and newer userspace a longer one whose
 * unknown tail is zero.  Handlers work on a kernel copy and never touch user
 * memory for the main argument; the result is copied back, truncated to the
 * caller's size, only when the handler succeeded.
 */

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/npa.h>

#include "npa_drv.h"

/* Largest argument struct of any ioctl; on the stack in npa_ioctl(). */
#define NPA_IOCTL_MAX_ARG	128

typedef int npa_ioctl_fn(struct npa_file *nfile, void *data);

struct npa_ioctl_desc {
	unsigned int cmd;
	npa_ioctl_fn *func;
	const char *name;
};

#define NPA_IOCTL_DEF(_cmd, _func) \
	[_IOC_NR(NPA_IOCTL_##_cmd)] = { NPA_IOCTL_##_cmd, _func, #_cmd }

static const struct npa_ioctl_desc npa_ioctls[] = {
	NPA_IOCTL_DEF(QUERY, npa_ioctl_query),
};

static bool npa_mem_is_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

/**
 * npa_ioctl_query() - NPA_IOCTL_QUERY: driver version and capabilities
 * @nfile: the calling file.
 * @data: a kernel copy of &struct npa_query.
 *
 * Context: Process context.
 * Return: 0, or -EINVAL if @flags or a reserved field is not zero.
 */
int npa_ioctl_query(struct npa_file *nfile, void *data)
{
	struct npa_query *args = data;

	if (args->flags & ~NPA_QUERY_FLAGS_ALL)
		return -EINVAL;
	if (!npa_mem_is_zero(args->reserved, sizeof(args->reserved)))
		return -EINVAL;

	args->version_major = NPA_VERSION_MAJOR;
	args->version_minor = NPA_VERSION_MINOR;
	args->version_patch = NPA_VERSION_PATCH;
	args->caps = NPA_CAPS_ALL;
	args->carveout_bytes = 0;
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

/**
 * npa_ioctl_dispatch() - run one ioctl on a kernel copy of its argument
 * @nfile: the calling file.
 * @cmd: the ioctl number as userspace passed it.
 * @data: kernel buffer of at least _IOC_SIZE() of the table's command.
 *
 * Context: Process context.
 * Return: the handler's result, or -ENOTTY for an unknown ioctl.
 */
int npa_ioctl_dispatch(struct npa_file *nfile, unsigned int cmd, void *data)
{
	const struct npa_ioctl_desc *desc = npa_ioctl_lookup(cmd);

	if (!desc)
		return -ENOTTY;
	return desc->func(nfile, data);
}

long npa_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct npa_file *nfile = filp->private_data;
	void __user *uarg = (void __user *)arg;
	const struct npa_ioctl_desc *desc;
	u8 kdata[NPA_IOCTL_MAX_ARG] __aligned(8);
	size_t ksize, usize;
	int ret;

	desc = npa_ioctl_lookup(cmd);
	if (!desc)
		return -ENOTTY;

	ksize = _IOC_SIZE(desc->cmd);
	usize = _IOC_SIZE(cmd);
	if (WARN_ON_ONCE(ksize > sizeof(kdata)))
		return -ENOTTY;

	ret = copy_struct_from_user(kdata, ksize, uarg, usize);
	if (ret)
		return ret;

	ret = desc->func(nfile, kdata);
	if (ret)
		return ret;

	if ((_IOC_DIR(cmd) & _IOC_READ) &&
	    copy_to_user(uarg, kdata, min(ksize, usize)))
		return -EFAULT;
	return 0;
}
