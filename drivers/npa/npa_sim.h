/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npa: the simulated NPU.
 */
#ifndef __NPA_SIM_H__
#define __NPA_SIM_H__

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

struct npa_device;
struct npa_file;
struct npa_job;
struct npa_region;

/*
 * The NPU's device address space.  Nothing is ever mapped below the
 * carveout: an injected fault reads at %NPA_VA_FAULT.
 */
#define NPA_VA_FAULT		0x1000ULL
#define NPA_VA_CARVEOUT		0x10000000ULL	/* the carveout, then... */
#define NPA_VA_IMPORT		0x100000000ULL	/* ...foreign buffers */
#define NPA_VA_IMPORT_STRIDE	0x100000000ULL	/* one 4 GiB slot each */

#define NPA_SIM_DEFAULT_TIMEOUT_NS	(30ULL * NSEC_PER_SEC)
/* Longest timeout a job may ask for (-EINVAL above). */
#define NPA_SIM_MAX_TIMEOUT_NS		(300ULL * NSEC_PER_SEC)
#define NPA_SIM_POISON			0xa5

/**
 * struct npa_sim - the simulated NPU: one job queue, run in order
 * @ndev: the device.
 * @wq: ordered workqueue that runs the jobs.
 * @work: the queue runner.
 * @watchdog: fires when the running job passes its timeout.
 * @lock: see below.
 * @queue: jobs waiting to run (struct npa_job.node).
 * @running: the job on the NPU, or NULL.
 * @abort: why the running job must stop (enum npa_job_status), or 0.
 * @hang_wq: where an injected hang waits for the watchdog or a reset.
 * @arena: the shared activation arena; only the runner and
 *	npa_sim_fini() touch it.
 * @inject_fault: debugfs: fault this many next jobs with a bad address.
 * @inject_hang: debugfs: hang this many next jobs.
 * @inject_late_end: debugfs: this many next jobs wait for the watchdog
 *	after their last operator.
 * @jobs_done: jobs that completed.
 * @jobs_failed: jobs that ended in a fault, timeout or abort.
 * @resets: NPU resets (watchdog or debugfs).
 */
struct npa_sim {
	struct npa_device *ndev;
	struct workqueue_struct *wq;
	struct work_struct work;
	struct delayed_work watchdog;
	/* Protects @queue, @running and @abort. */
	spinlock_t lock;
	struct list_head queue;
	struct npa_job *running;
	u32 abort;
	wait_queue_head_t hang_wq;
	struct npa_region *arena;
	u32 inject_fault;
	u32 inject_hang;
	u32 inject_late_end;
	atomic64_t jobs_done;
	atomic64_t jobs_failed;
	atomic64_t resets;
};

int npa_sim_init(struct npa_sim *sim, struct npa_device *ndev);
void npa_sim_fini(struct npa_sim *sim);
void npa_sim_queue(struct npa_sim *sim, struct npa_job *job);
void npa_sim_cancel(struct npa_sim *sim, struct npa_job *job);
void npa_sim_cancel_file(struct npa_sim *sim, struct npa_file *nfile);
void npa_sim_reset(struct npa_sim *sim);
void npa_sim_trim(struct npa_sim *sim);

#endif /* __NPA_SIM_H__ */
