/* SPDX-License-Identifier: GPL-2.0 */
/* Host build shim: ALIGN() and friends. */
#ifndef _NPA_TOOLS_LINUX_ALIGN_H
#define _NPA_TOOLS_LINUX_ALIGN_H

#define __ALIGN_KERNEL_MASK(x, mask)	(((x) + (mask)) & ~(mask))
#define ALIGN(x, a)		__ALIGN_KERNEL_MASK(x, (typeof(x))(a) - 1)
#define ALIGN_DOWN(x, a)	ALIGN((x) - ((a) - 1), (a))
#define IS_ALIGNED(x, a)	(((x) & ((typeof(x))(a) - 1)) == 0)

#endif
