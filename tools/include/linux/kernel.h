/* SPDX-License-Identifier: GPL-2.0 */
/* Host build shim: the commonly used bits of <linux/kernel.h>. */
#ifndef _NPA_TOOLS_LINUX_KERNEL_H
#define _NPA_TOOLS_LINUX_KERNEL_H

#include <linux/align.h>
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/limits.h>
#include <linux/log2.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/printk.h>
#include <linux/types.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#endif
