/* SPDX-License-Identifier: GPL-2.0 */
/* Host build shim: ktime_get_ns() is CLOCK_MONOTONIC in nanoseconds. */
#ifndef _NPA_TOOLS_LINUX_KTIME_H
#define _NPA_TOOLS_LINUX_KTIME_H

#include <time.h>
#include <linux/types.h>

typedef s64 ktime_t;

static inline u64 ktime_get_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

#endif
