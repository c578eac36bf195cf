/* SPDX-License-Identifier: GPL-2.0 */
/* Host build shim: kernel integer limits. */
#ifndef _NPA_TOOLS_LINUX_LIMITS_H
#define _NPA_TOOLS_LINUX_LIMITS_H

/* glibc's <limits.h> includes <linux/limits.h> for PATH_MAX and friends. */
#include_next <linux/limits.h>
#include <linux/types.h>

#define U8_MAX		((u8)~0U)
#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)
#define S32_MAX		((s32)(U32_MAX >> 1))
#define S32_MIN		((s32)(-S32_MAX - 1))
#define S64_MAX		((s64)(U64_MAX >> 1))
#define S64_MIN		((s64)(-S64_MAX - 1))

#endif
