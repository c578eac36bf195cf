/* SPDX-License-Identifier: GPL-2.0 */
/* Host build shim: module annotations compile away. */
#ifndef _NPA_TOOLS_LINUX_MODULE_H
#define _NPA_TOOLS_LINUX_MODULE_H

#define EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_GPL(sym)
#define MODULE_LICENSE(x)
#define MODULE_DESCRIPTION(x)
#define MODULE_AUTHOR(x)

#endif
