/* SPDX-License-Identifier: GPL-2.0 */
/* Host build shim: BIT() and friends. */
#ifndef _NPA_TOOLS_LINUX_BITS_H
#define _NPA_TOOLS_LINUX_BITS_H

#define BIT(nr)		(1UL << (nr))
#define BIT_ULL(nr)	(1ULL << (nr))

#endif
