/* SPDX-License-Identifier: GPL-2.0 */
/* Host build shim: nothing kills a host tool from inside the planner. */
#ifndef _NPA_TOOLS_LINUX_SCHED_SIGNAL_H
#define _NPA_TOOLS_LINUX_SCHED_SIGNAL_H

#include <linux/types.h>

#define current	NULL
#define fatal_signal_pending(task)	((void)(task), false)

#endif
