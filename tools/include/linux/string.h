/* SPDX-License-Identifier: GPL-2.0 */
/* Host build shim: the kernel's string functions are libc's. */
#ifndef _NPA_TOOLS_LINUX_STRING_H
#define _NPA_TOOLS_LINUX_STRING_H

#include <string.h>

#endif
