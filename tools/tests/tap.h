/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal TAP output for npa's userspace tests. */
#ifndef NPA_TAP_H
#define NPA_TAP_H

#include <stdio.h>

static int tap_failed;

#define tap_ok(cond, ...) do {						\
	int __ok = !!(cond);						\
	printf("%sok - ", __ok ? "" : "not ");				\
	printf(__VA_ARGS__);						\
	printf("\n");							\
	fflush(stdout);							\
	if (!__ok)							\
		tap_failed++;						\
} while (0)

#endif
