/* SPDX-License-Identifier: GPL-2.0 */
/* Host build shim: power-of-two helpers. */
#ifndef _NPA_TOOLS_LINUX_LOG2_H
#define _NPA_TOOLS_LINUX_LOG2_H

#include <linux/types.h>

static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

static inline int __ilog2_u64(u64 n)
{
	return 63 - __builtin_clzll(n);
}

/* Like the kernel's: undefined for 0. */
#define ilog2(n)	__ilog2_u64((u64)(n))

static inline u64 roundup_pow_of_two(u64 n)
{
	return n <= 1 ? 1 : 1ULL << (__ilog2_u64(n - 1) + 1);
}

static inline u64 rounddown_pow_of_two(u64 n)
{
	return 1ULL << __ilog2_u64(n);
}

#endif
