/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npa: copies between userspace and the kernel that several ioctls share.
 */
#ifndef __NPA_UACCESS_H__
#define __NPA_UACCESS_H__

#include <linux/types.h>

struct device;
struct npa_error;

/**
 * struct npa_ioctl_out - where npa_ioctl() copies an ioctl's result
 * @uptr: the user's argument.
 * @size: bytes to copy: the smaller of the kernel's and the user's struct;
 *	0 for an ioctl without results.
 * @done: the handler copied the result out itself (npa_ioctl_copy_out()).
 */
struct npa_ioctl_out {
	void __user *uptr;
	size_t size;
	bool done;
};

/* Largest array element size userspace may claim. */
#define NPA_MAX_ELEM_SIZE	256

void *npa_copy_user_array(u64 uptr, u32 count, u32 usize, size_t ksize,
			  int *ret);
int npa_copy_array_to_user(u64 uptr, u32 usize, const void *src,
			   size_t ksize, u32 count);
int npa_ioctl_copy_out(struct npa_ioctl_out *out, const void *data);
int npa_refuse(struct device *dev, const char *what, u64 uptr, u32 usize,
	       const struct npa_error *err, int ret);

#endif /* __NPA_UACCESS_H__ */
