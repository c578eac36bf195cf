/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host build shim: kernel integer types on top of libc and the system's
 * uAPI <linux/types.h> (which gives __u8 .. __u64 with the kernel's exact
 * types, so u64 is unsigned long long here as in the kernel).
 */
#ifndef _NPA_TOOLS_LINUX_TYPES_H
#define _NPA_TOOLS_LINUX_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;

typedef unsigned int gfp_t;

#endif
