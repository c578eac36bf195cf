/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fuzzing shim: found ahead of tools/include, so that a WARN_ON*() in the
 * pure files is a crash the fuzzer reports instead of a line on stderr.
 */
#ifndef _NPA_TOOLS_LINUX_BUG_H
#define _NPA_TOOLS_LINUX_BUG_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define WARN_ON(cond) ({						\
	int __c = !!(cond);						\
	if (__c) {							\
		fprintf(stderr, "WARNING: %s:%d: %s\n",			\
			__FILE__, __LINE__, #cond);			\
		abort();						\
	}								\
	__c; })
#define WARN_ON_ONCE(cond)	WARN_ON(cond)
#define BUILD_BUG_ON(cond)	_Static_assert(!(cond), #cond)

#endif
