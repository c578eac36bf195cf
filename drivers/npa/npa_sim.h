/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npa: the simulated NPU, an NPU backend.
 */
#ifndef __NPA_SIM_H__
#define __NPA_SIM_H__

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "npa_npu.h"

/* Where an injected fault reads: below the carveout window, never mapped. */
#define NPA_VA_FAULT		0x1000ULL
#define NPA_SIM_POISON		0xa5

/**
 * struct npa_sim - the simulated NPU: one job queue, run in order
 * @npu: what the job layer sees.
 * @wq: ordered workqueue that runs the jobs.
 * @work: the queue runner.
 * @watchdog: fires when the running job passes its timeout.
 * @lock: see below.
 * @queue: jobs waiting to run (&npa_npu_job.node).
 * @running: the job on the NPU, or NULL.
 * @abort: why the running job must stop (enum npa_npu_status), or 0.
 * @hang_wq: where an injected hang waits for the watchdog or a reset.
 * @inject_fault: debugfs: fault this many next jobs at %NPA_VA_FAULT.
 * @inject_hang: debugfs: hang this many next jobs.
 * @inject_late_end: debugfs: this many next jobs wait for the watchdog
 *	after their last operator.
 */
struct npa_sim {
	struct npa_npu npu;
	struct workqueue_struct *wq;
	struct work_struct work;
	struct delayed_work watchdog;
	/* Protects @queue, @running, @abort, and the injections' counting down. */
	spinlock_t lock;
	struct list_head queue;
	struct npa_npu_job *running;
	u32 abort;
	wait_queue_head_t hang_wq;
	u32 inject_fault;
	u32 inject_hang;
	u32 inject_late_end;
};

int npa_sim_init(struct npa_sim *sim);

#endif /* __NPA_SIM_H__ */
