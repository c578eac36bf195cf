/* SPDX-License-Identifier: GPL-2.0 */
/* Host build shim: WARN_ON*() print to stderr and return the condition. */
#ifndef _NPA_TOOLS_LINUX_BUG_H
#define _NPA_TOOLS_LINUX_BUG_H

#include <stdbool.h>
#include <stdio.h>

#define WARN_ON(cond) ({						\
	int __c = !!(cond);						\
	if (__c)							\
		fprintf(stderr, "WARNING: %s:%d: %s\n",			\
			__FILE__, __LINE__, #cond);			\
	__c; })
#define WARN_ON_ONCE(cond) ({					\
	static bool __warned;						\
	int __c = !!(cond);						\
	if (__c && !__warned) {						\
		__warned = true;					\
		fprintf(stderr, "WARNING: %s:%d: %s\n",			\
			__FILE__, __LINE__, #cond);			\
	}								\
	__c; })
#define BUILD_BUG_ON(cond)	_Static_assert(!(cond), #cond)

#endif
