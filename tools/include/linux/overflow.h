/* SPDX-License-Identifier: GPL-2.0 */
/* Host build shim: overflow-checked arithmetic, as in the kernel. */
#ifndef _NPA_TOOLS_LINUX_OVERFLOW_H
#define _NPA_TOOLS_LINUX_OVERFLOW_H

#include <linux/types.h>
#include <linux/limits.h>

#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_sub_overflow(a, b, d)	__builtin_sub_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)

static inline size_t array_size(size_t a, size_t b)
{
	size_t bytes;

	if (check_mul_overflow(a, b, &bytes))
		return (size_t)~(size_t)0;
	return bytes;
}

#endif
