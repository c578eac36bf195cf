// SPDX-License-Identifier: GPL-2.0
/*
 * npa: copies between userspace and the kernel that several ioctls share.
 */

/**
 * DOC: user copies
 *
 * Arrays cross the uAPI as a user pointer, a count and the element size
 * userspace was built with, so that elements can grow: a shorter element
 * reads as zero-extended and a longer one must have a zero tail on the way
 * in (copy_struct_from_user()); on the way out the kernel writes what both
 * sides know and zeroes the rest.  MODEL_CREATE's graph, MODEL_PLAN's
 * placements, JOB_SUBMIT's bindings and both ioctls' error reports go
 * through here; the ioctl layer above copies only the argument struct.
 */

#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/npa.h>

#include "npa_uaccess.h"

/**
 * npa_copy_user_array() - copy an array whose element size userspace chose
 * @uptr: user pointer to @count elements of @usize bytes.
 * @count: number of elements; 0 gives NULL and no error.
 * @usize: userspace's element size.
 * @ksize: the kernel's element size.
 * @ret: out: 0, -ENOMEM, -EFAULT, or -E2BIG when a longer element has a
 *	non-zero tail.
 *
 * Shorter elements are zero-extended (copy_struct_from_user()).  The
 * caller bounds @count and @usize before calling.  The array is charged to
 * the caller's memory cgroup (GFP_KERNEL_ACCOUNT): its size is userspace's
 * choice and it may live as long as a model.
 *
 * Context: Process context; sleeps.
 * Return: a kvmalloc'ed array of @count @ksize-byte elements, or NULL.
 */
void *npa_copy_user_array(u64 uptr, u32 count, u32 usize, size_t ksize,
			  int *ret)
{
	const u8 __user *src = u64_to_user_ptr(uptr);
	u8 *dst;
	u32 i;

	*ret = 0;
	if (!count)
		return NULL;
	dst = kvmalloc_array(count, ksize, GFP_KERNEL_ACCOUNT);
	if (!dst) {
		*ret = -ENOMEM;
		return NULL;
	}
	if (usize == ksize) {
		if (copy_from_user(dst, src, array_size(count, ksize)))
			*ret = -EFAULT;
	} else {
		for (i = 0; i < count && !*ret; i++)
			*ret = copy_struct_from_user(dst + (size_t)i * ksize, ksize,
						     src + (size_t)i * usize, usize);
	}
	if (*ret) {
		kvfree(dst);
		return NULL;
	}
	return dst;
}

/**
 * npa_copy_array_to_user() - copy an array out in userspace's element size
 * @uptr: user pointer to room for @count elements of @usize bytes; 0
 *	copies nothing.
 * @usize: userspace's element size, at most %NPA_MAX_ELEM_SIZE.
 * @src: @count elements of @ksize bytes.
 * @ksize: the kernel's element size.
 * @count: elements to copy.
 *
 * Each element is cut to @usize bytes, or zero-filled up to it.
 *
 * Context: Process context; may fault.
 * Return: 0, or -EFAULT (the elements before the bad one may be written).
 */
int npa_copy_array_to_user(u64 uptr, u32 usize, const void *src,
			   size_t ksize, u32 count)
{
	u8 __user *dst = u64_to_user_ptr(uptr);
	size_t n = min_t(size_t, usize, ksize);
	u32 i;

	if (!uptr)
		return 0;
	for (i = 0; i < count; i++) {
		u8 __user *d = dst + (size_t)i * usize;

		if (copy_to_user(d, src + (size_t)i * ksize, n))
			return -EFAULT;
		if (usize > ksize && clear_user(d + ksize, usize - ksize))
			return -EFAULT;
	}
	return 0;
}

/**
 * npa_ioctl_copy_out() - copy an ioctl's result to userspace now
 * @out: where it goes, from npa_ioctl().
 * @data: the kernel copy of the argument, with every result filled in.
 *
 * For a handler that makes something userspace can reach by a number (an
 * fd, a model handle).  Call it after everything that can fail and before
 * that thing becomes reachable (fd_install(), storing the handle), so that
 * a caller who cannot receive the number is never given the object:
 * get_unused_fd_flags(), build the file, copy the result out, and only then
 * fd_install(); on -EFAULT, put_unused_fd() and fput() instead.  Call it at
 * most once; npa_ioctl() then does not copy the result again.
 *
 * Context: Process context; may fault.
 * Return: 0, or -EFAULT if the argument cannot be written (some of it may
 * have been); the handler then undoes everything and returns the error.
 */
int npa_ioctl_copy_out(struct npa_ioctl_out *out, const void *data)
{
	if (WARN_ON_ONCE(out->done))
		return -EINVAL;
	if (copy_to_user(out->uptr, data, out->size))
		return -EFAULT;
	out->done = true;
	return 0;
}

/**
 * npa_refuse() - fail MODEL_CREATE or JOB_SUBMIT with a report
 * @dev: the device, for the debug message.
 * @what: the ioctl, for the debug message.
 * @uptr: user pointer to a struct npa_error of @usize bytes, or 0.
 * @usize: its size, as userspace was built; checked by the caller.
 * @err: what the request got wrong (%NPA_ERR_NONE: nothing to blame).
 * @ret: the errno.
 *
 * Context: Process context; may fault.
 * Return: @ret, or -EFAULT if the report cannot be written.
 */
int npa_refuse(struct device *dev, const char *what, u64 uptr, u32 usize,
	       const struct npa_error *err, int ret)
{
	dev_dbg(dev, "%s: %d: array %u index %u field %u reason %u value %llu expected %llu op %d tensor %d dim %d\n",
		what, ret, err->array, err->index, err->field, err->reason,
		err->value, err->expected, (int)err->op, (int)err->tensor,
		(int)err->dim);
	if (npa_copy_array_to_user(uptr, usize, err, sizeof(*err), 1))
		return -EFAULT;
	return ret;
}
