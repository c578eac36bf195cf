/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host build shim: the kernel's bsearch() is libc's, with the same
 * arguments and the kernel's comparison signature.
 */
#ifndef _NPA_TOOLS_LINUX_BSEARCH_H
#define _NPA_TOOLS_LINUX_BSEARCH_H

#include <stdlib.h>

#endif
