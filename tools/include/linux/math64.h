/* SPDX-License-Identifier: GPL-2.0 */
/* Host build shim: 64-bit division helpers are plain division here. */
#ifndef _NPA_TOOLS_LINUX_MATH64_H
#define _NPA_TOOLS_LINUX_MATH64_H

#include <linux/types.h>

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

#endif
