/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npa: copies between userspace and the kernel that several ioctls share.
 */
#ifndef __NPA_UACCESS_H__
#define __NPA_UACCESS_H__

#include <linux/types.h>

struct device;
struct npa_error;

/* Largest array element size userspace may claim. */
#define NPA_MAX_ELEM_SIZE	256

void *npa_copy_user_array(u64 uptr, u32 count, u32 usize, size_t ksize,
			  int *ret);
int npa_copy_array_to_user(u64 uptr, u32 usize, const void *src,
			   size_t ksize, u32 count);
int npa_refuse(struct device *dev, const char *what, u64 uptr, u32 usize,
	       const struct npa_error *err, int ret);

#endif /* __NPA_UACCESS_H__ */
