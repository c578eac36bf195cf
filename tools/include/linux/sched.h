/* SPDX-License-Identifier: GPL-2.0 */
/* Host build shim: a process is preempted anyway; nothing to yield. */
#ifndef _NPA_TOOLS_LINUX_SCHED_H
#define _NPA_TOOLS_LINUX_SCHED_H

static inline void cond_resched(void)
{
}

#endif
