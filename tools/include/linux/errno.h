/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host build shim: kernel code returns -Exxx with the same numbers as libc.
 * glibc's <errno.h> includes <linux/errno.h> too, so defer to the system one.
 */
#ifndef _NPA_TOOLS_LINUX_ERRNO_H
#define _NPA_TOOLS_LINUX_ERRNO_H

#include_next <linux/errno.h>

#endif
