/* SPDX-License-Identifier: GPL-2.0 */
/* Host build shim: pr_*() go to stderr; pr_debug() only with -DDEBUG. */
#ifndef _NPA_TOOLS_LINUX_PRINTK_H
#define _NPA_TOOLS_LINUX_PRINTK_H

#include <stdio.h>

#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif

#define pr_err(fmt, ...)	fprintf(stderr, pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...)	fprintf(stderr, pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...)	fprintf(stderr, pr_fmt(fmt), ##__VA_ARGS__)
#ifdef DEBUG
#define pr_debug(fmt, ...)	fprintf(stderr, pr_fmt(fmt), ##__VA_ARGS__)
#else
#define pr_debug(fmt, ...)	do { } while (0)
#endif

#endif
