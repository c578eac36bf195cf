/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host build shim: kmalloc()/kvmalloc() families on top of malloc(). GFP
 * flags are accepted and ignored, except __GFP_ZERO.
 */
#ifndef _NPA_TOOLS_LINUX_SLAB_H
#define _NPA_TOOLS_LINUX_SLAB_H

#include <stdlib.h>
#include <string.h>
#include <linux/overflow.h>
#include <linux/types.h>

#define __GFP_ZERO	0x100u
#define __GFP_NOWARN	0x200u
#define GFP_KERNEL	0x1u
#define GFP_NOWAIT	0x2u
#define GFP_ATOMIC	0x4u
#define __GFP_ACCOUNT	0x400u
#define GFP_KERNEL_ACCOUNT	(GFP_KERNEL | __GFP_ACCOUNT)

static inline void *kmalloc(size_t size, gfp_t flags)
{
	if (flags & __GFP_ZERO)
		return calloc(1, size ? size : 1);
	return malloc(size ? size : 1);
}

static inline void *kzalloc(size_t size, gfp_t flags)
{
	return kmalloc(size, flags | __GFP_ZERO);
}

static inline void *kmalloc_array(size_t n, size_t size, gfp_t flags)
{
	size_t bytes;

	if (check_mul_overflow(n, size, &bytes))
		return NULL;
	return kmalloc(bytes, flags);
}

static inline void *kcalloc(size_t n, size_t size, gfp_t flags)
{
	return kmalloc_array(n, size, flags | __GFP_ZERO);
}

static inline void kfree(const void *p)
{
	free((void *)p);
}

#define kvmalloc(size, flags)		kmalloc(size, flags)
#define kvzalloc(size, flags)		kzalloc(size, flags)
#define kvmalloc_array(n, size, flags)	kmalloc_array(n, size, flags)
#define kvcalloc(n, size, flags)	kcalloc(n, size, flags)
#define kvfree(p)			kfree(p)

#endif
