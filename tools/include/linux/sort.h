/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host build shim: the kernel's sort() on top of qsort(). The swap callback
 * is ignored (qsort swaps bytes itself); the comparison has the kernel
 * signature, which is also qsort's.
 */
#ifndef _NPA_TOOLS_LINUX_SORT_H
#define _NPA_TOOLS_LINUX_SORT_H

#include <stdlib.h>
#include <linux/types.h>

typedef void (*swap_func_t)(void *a, void *b, int size);
typedef int (*cmp_func_t)(const void *a, const void *b);

static inline void sort(void *base, size_t num, size_t size,
			cmp_func_t cmp_func, swap_func_t swap_func)
{
	(void)swap_func;
	if (num > 1)
		qsort(base, num, size, cmp_func);
}

typedef void (*swap_r_func_t)(void *a, void *b, int size, const void *priv);
typedef int (*cmp_r_func_t)(const void *a, const void *b, const void *priv);

struct npa_host_sort_r {
	cmp_r_func_t cmp;
	const void *priv;
};

static inline int npa_host_sort_r_cmp(const void *a, const void *b, void *arg)
{
	const struct npa_host_sort_r *s = arg;

	return s->cmp(a, b, s->priv);
}

/* The kernel's sort_r() on top of glibc's qsort_r(). */
static inline void sort_r(void *base, size_t num, size_t size,
			  cmp_r_func_t cmp_func, swap_r_func_t swap_func,
			  const void *priv)
{
	struct npa_host_sort_r s = { cmp_func, priv };

	(void)swap_func;
	if (num > 1)
		qsort_r(base, num, size, npa_host_sort_r_cmp, &s);
}

#endif
