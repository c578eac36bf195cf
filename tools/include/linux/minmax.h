/* SPDX-License-Identifier: GPL-2.0 */
/* Host build shim: type-checked min()/max() like the kernel's. */
#ifndef _NPA_TOOLS_LINUX_MINMAX_H
#define _NPA_TOOLS_LINUX_MINMAX_H

#define __npa_cmp(x, y, op) ({				\
	typeof(x) __x = (x);				\
	typeof(y) __y = (y);				\
	(void)(&__x == &__y);				\
	__x op __y ? __x : __y; })

#ifndef min
#define min(x, y)	__npa_cmp(x, y, <)
#endif
#ifndef max
#define max(x, y)	__npa_cmp(x, y, >)
#endif
#define min_t(type, x, y)	__npa_cmp((type)(x), (type)(y), <)
#define max_t(type, x, y)	__npa_cmp((type)(x), (type)(y), >)
#define clamp(val, lo, hi)	min(max(val, lo), hi)
#define clamp_t(type, val, lo, hi) min_t(type, max_t(type, val, lo), hi)
#define swap(a, b) \
	do { typeof(a) __tmp = (a); (a) = (b); (b) = __tmp; } while (0)

#endif
