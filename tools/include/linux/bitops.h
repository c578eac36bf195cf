/* SPDX-License-Identifier: GPL-2.0 */
/* Host build shim: the bit counts of <linux/bitops.h> the planner uses. */
#ifndef _NPA_TOOLS_LINUX_BITOPS_H
#define _NPA_TOOLS_LINUX_BITOPS_H

#include <linux/types.h>

static inline unsigned int hweight64(u64 w)
{
	return __builtin_popcountll(w);
}

/* Index of the lowest set bit; undefined for 0, as in the kernel. */
static inline unsigned int __ffs64(u64 w)
{
	return __builtin_ctzll(w);
}

#endif
