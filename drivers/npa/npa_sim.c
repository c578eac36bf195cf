// SPDX-License-Identifier: GPL-2.0
/*
 * npa: the simulated NPU, an NPU backend.
 */

/**
 * DOC: simulated NPU
 *
 * The simulated NPU implements &struct npa_npu_ops.  It has one job queue
 * and runs jobs in order on an ordered workqueue, one command after the
 * other, with the integer kernels of npa_exec.c.  A job is self-contained
 * (&struct npa_npu_job): commands whose operands are device addresses and
 * sizes, and the address ranges the job may touch; the NPU knows nothing
 * of models, files, buffers or the carveout.  Every operand of every
 * command is translated through the job's ranges, a binary search, so a
 * job binding thousands of buffers costs log of that per operand; an
 * operand outside them faults the job (%NPA_NPU_FAULT, with the address
 * and the command) before anything is touched.
 *
 * Right before a job runs, the NPU calls its owner's prepare callback,
 * which binds its activation arena and gives the CPU (the simulated NPU's
 * engine) access to its buffers; when it ends, the done callback.
 *
 * The simulated NPU keeps the time a real one would take: each command
 * carries its cost model estimate (&npa_npu_cmd.cycles) and the job's
 * &npa_npu_job.cycles adds up those of the commands that ran to their end.
 *
 * Before each command runs, its scratch buffers are filled with
 * %NPA_SIM_POISON, so that a planning error (scratch overlapping a live
 * tensor) shows up as wrong results instead of passing by luck.
 *
 * A watchdog (delayed work) armed with the job's timeout stops a job that
 * runs too long, or wakes an injected hang; the job ends with
 * %NPA_NPU_TIMEOUT, naming the command it was in (an injected hang hangs
 * in the first), and a reset is counted.  A job that had finished its
 * last operator when the watchdog fired ends %NPA_NPU_DONE, and no reset
 * is counted: the count follows the status.  A reset (debugfs ``reset``)
 * or a cancel ends the running job with %NPA_NPU_ABORTED, naming the
 * command it was in (or about to start) likewise.  Queued jobs are not affected by
 * either.  The operator kernels look at the abort request every
 * %NPA_EXEC_STOP_WORK multiply-adds or so, so a job stops within
 * milliseconds, even inside one huge operator.
 *
 * With the kernel's fault-injection debugfs (CONFIG_FAULT_INJECTION_DEBUG_FS)
 * the debugfs knobs ``inject_fault`` and ``inject_hang`` make the next N
 * jobs fault or hang: a faulting job reads its first operand at
 * %NPA_VA_FAULT, below the carveout window, where no job ever has a range.
 * ``inject_late_end`` makes the next N jobs wait, after their last
 * operator, until the watchdog (or a reset or cancel) fires.
 * Without it the knobs do not exist and their tests compile away.
 */

#include <kunit/visibility.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/dma-fence.h>
#include <linux/jiffies.h>
#include <linux/limits.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/timekeeping.h>

#include "npa_exec.h"
#include "npa_sim.h"

static struct npa_sim *to_npa_sim(struct npa_npu *npu)
{
	return container_of(npu, struct npa_sim, npu);
}

static int npa_sim_range_cmp(const void *a, const void *b)
{
	const struct npa_npu_range *x = a, *y = b;

	return x->va < y->va ? -1 : x->va > y->va;
}

/*
 * The kernel address of [@va, @va + @size), or NULL: the NPU faults.  The
 * job's ranges are sorted by address and disjoint.
 */
static void *npa_sim_translate(const struct npa_npu_job *job, u64 va,
			       u64 size)
{
	const struct npa_npu_range *rg;
	u32 lo = 0, hi = job->num_ranges;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (job->ranges[mid].va <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	rg = &job->ranges[lo - 1];
	if (va - rg->va <= rg->size && size <= rg->size - (va - rg->va))
		return rg->vaddr + (va - rg->va);
	return NULL;
}

static u32 npa_sim_abort_reason(struct npa_sim *sim, struct npa_npu_job *job)
{
	u32 abort;

	spin_lock(&sim->lock);
	abort = sim->abort;
	spin_unlock(&sim->lock);
	if (!abort && READ_ONCE(job->cancel))
		abort = NPA_NPU_ABORTED;
	return abort;
}

/**
 * struct npa_sim_run - the job on the NPU
 * @sim: the NPU.
 * @job: the job.
 * @ops: translated operands of the command running.
 * @cmd: the command running, or next to run.
 * @fault_next: inject a fault at the next operand.
 * @late_end: inject a wait for the watchdog after the last operator.
 */
struct npa_sim_run {
	struct npa_sim *sim;
	struct npa_npu_job *job;
	struct npa_exec_operand *ops;
	u32 cmd;
	bool fault_next;
	bool late_end;
};

/* The exec kernels' stop hook: the watchdog, a reset or a cancel. */
static bool npa_sim_stop(void *priv)
{
	struct npa_sim_run *r = priv;

	return npa_sim_abort_reason(r->sim, r->job);
}

/* Translate command @i's operands into @r->ops; on a fault, say where. */
static int npa_sim_operands(struct npa_sim_run *r, u32 i)
{
	struct npa_npu_job *job = r->job;
	const struct npa_npu_cmd *cmd = &job->cmds[i];
	u32 n = cmd->num_in + cmd->num_out + cmd->num_scratch, k;

	for (k = 0; k < n; k++) {
		const struct npa_npu_operand *o = &job->operands[cmd->first + k];
		u64 va = o->va;

		if (IS_ENABLED(CONFIG_FAULT_INJECTION_DEBUG_FS) && r->fault_next) {
			/* Below every range of every job. */
			BUILD_BUG_ON(NPA_VA_FAULT >= NPA_VA_CARVEOUT);
			va = NPA_VA_FAULT;
			r->fault_next = false;
		}
		r->ops[k].desc = o->desc;
		r->ops[k].size = o->size;
		r->ops[k].ptr = npa_sim_translate(job, va, o->size);
		if (!r->ops[k].ptr) {
			job->fault_cmd = i;
			job->fault_addr = va;
			return -EFAULT;
		}
		if (!o->desc)
			memset(r->ops[k].ptr, NPA_SIM_POISON, o->size);
	}
	return 0;
}

static u32 npa_sim_exec(struct npa_sim_run *r)
{
	struct npa_npu_job *job = r->job;
	const struct npa_exec_stop stop = { npa_sim_stop, r };
	u32 i, abort;
	int ret;

	for (i = 0; i < job->num_cmds; i++) {
		const struct npa_npu_cmd *cmd = &job->cmds[i];
		struct npa_exec_operand *in = r->ops;
		struct npa_exec_operand *out = in + cmd->num_in;
		struct npa_exec_operand *sc = out + cmd->num_out;

		r->cmd = i;
		abort = npa_sim_abort_reason(r->sim, job);
		if (abort)
			return abort;
		if (npa_sim_operands(r, i))
			return NPA_NPU_FAULT;
		ret = npa_exec_run(cmd->op, in, cmd->num_in, out, cmd->num_out,
				   sc, cmd->num_scratch, &stop);
		if (ret == -ECANCELED)
			return npa_sim_abort_reason(r->sim, job) ?:
				NPA_NPU_ABORTED;
		if (ret) {
			job->fault_cmd = i;
			return NPA_NPU_ABORTED;
		}
		if (check_add_overflow(job->cycles, cmd->cycles, &job->cycles))
			job->cycles = U64_MAX;
		cond_resched();
	}
	return NPA_NPU_DONE;
}

/* Inject what debugfs asked for; true if the job is to hang. */
static bool npa_sim_inject(struct npa_sim *sim, struct npa_sim_run *r)
{
	bool hang = false;

	if (!IS_ENABLED(CONFIG_FAULT_INJECTION_DEBUG_FS))
		return false;
	spin_lock(&sim->lock);
	if (sim->inject_fault) {
		sim->inject_fault--;
		r->fault_next = true;
	}
	if (sim->inject_late_end) {
		sim->inject_late_end--;
		r->late_end = true;
	}
	if (sim->inject_hang) {
		sim->inject_hang--;
		hang = true;
	}
	spin_unlock(&sim->lock);
	return hang;
}

/*
 * The operands of the command with the most, translated, are all a job
 * needs memory for: allocated at submit, since the runner must not
 * allocate (see npa_sim_work()).
 */
static int npa_sim_job_init(struct npa_npu *npu, struct npa_npu_job *job)
{
	u32 i, most = 0;

	for (i = 0; i < job->num_cmds; i++)
		most = max(most, job->cmds[i].num_in + job->cmds[i].num_out +
			   job->cmds[i].num_scratch);
	job->priv = kvcalloc(max(most, 1U), sizeof(struct npa_exec_operand),
			     GFP_KERNEL_ACCOUNT);
	return job->priv ? 0 : -ENOMEM;
}

static void npa_sim_job_fini(struct npa_npu *npu, struct npa_npu_job *job)
{
	kvfree(job->priv);
	job->priv = NULL;
}

static u32 npa_sim_run_job(struct npa_sim *sim, struct npa_npu_job *job)
{
	struct npa_sim_run r = { .sim = sim, .job = job, .ops = job->priv };
	u32 status;

	/* The owner did not call job_init(): nothing to run it with. */
	if (WARN_ON_ONCE(!r.ops))
		return NPA_NPU_ABORTED;
	job->prepared = true;
	if (job->ops->prepare(job))
		return NPA_NPU_ABORTED;
	sort(job->ranges, job->num_ranges, sizeof(*job->ranges),
	     npa_sim_range_cmp, NULL);

	if (npa_sim_inject(sim, &r)) {
		/*
		 * Hung: only the watchdog, a reset or a cancel gets us out,
		 * up to 300 s later; idle, so the hung task detector does not
		 * report it.
		 */
		wait_event_idle(sim->hang_wq, npa_sim_abort_reason(sim, job));
		status = npa_sim_abort_reason(sim, job);
	} else {
		status = npa_sim_exec(&r);
	}
	/*
	 * Injected: the job has done all its work and the watchdog fires
	 * before it ends.  The job is DONE, and no reset happened.
	 */
	if (IS_ENABLED(CONFIG_FAULT_INJECTION_DEBUG_FS) && r.late_end &&
	    status == NPA_NPU_DONE)
		wait_event_idle(sim->hang_wq, npa_sim_abort_reason(sim, job));
	/*
	 * Which command the watchdog, a reset or a cancel caught, for whoever
	 * diagnoses it (a command that refused its operands set it already).
	 */
	if ((status == NPA_NPU_TIMEOUT || status == NPA_NPU_ABORTED) &&
	    job->num_cmds)
		job->fault_cmd = r.cmd;
	return status;
}

/* End @job with @status: count it and give it back to its owner. */
static void npa_sim_end(struct npa_sim *sim, struct npa_npu_job *job,
			u32 status)
{
	job->status = status;
	if (status == NPA_NPU_DONE)
		atomic64_inc(&sim->npu.jobs_done);
	else
		atomic64_inc(&sim->npu.jobs_failed);
	job->ops->done(job);
}

static void npa_sim_work(struct work_struct *work)
{
	struct npa_sim *sim = container_of(work, struct npa_sim, work);
	struct npa_npu_job *job;
	bool fence_cookie;
	u32 status;

	for (;;) {
		spin_lock(&sim->lock);
		job = list_first_entry_or_null(&sim->queue, struct npa_npu_job,
					       node);
		if (job) {
			list_del_init(&job->node);
			sim->running = job;
			sim->abort = 0;
		}
		spin_unlock(&sim->lock);
		if (!job)
			return;

		/*
		 * Until the job has ended, its owner's fence waits for us, and
		 * with it whoever waits for the fence, memory reclaim among
		 * them: another driver's shrinker or MMU notifier waits for
		 * the fences of a buffer's reservation, where userspace may
		 * have put this job's (DMA_BUF_IOCTL_IMPORT_SYNC_FILE).  So
		 * nothing from here to the job's end may allocate memory that
		 * could reclaim, or wait for anything that does: the job's
		 * memory comes from job_init() at submit, and lockdep checks.
		 */
		fence_cookie = dma_fence_begin_signalling();
		job->start_ns = ktime_get_ns();
		mod_delayed_work(system_wq, &sim->watchdog,
				 nsecs_to_jiffies(job->timeout_ns));
		status = npa_sim_run_job(sim, job);

		spin_lock(&sim->lock);
		sim->running = NULL;
		sim->abort = 0;
		spin_unlock(&sim->lock);
		/* Cancelled, it cannot time out the next job. */
		cancel_delayed_work_sync(&sim->watchdog);
		/*
		 * The watchdog only asks the job to stop: whether the NPU was
		 * reset is how the job ended.  One that had done its last
		 * operator when the watchdog fired ends DONE, without a reset.
		 */
		if (status == NPA_NPU_TIMEOUT)
			atomic64_inc(&sim->npu.resets);
		npa_sim_end(sim, job, status);
		dma_fence_end_signalling(fence_cookie);
	}
}

static void npa_sim_watchdog(struct work_struct *work)
{
	struct npa_sim *sim = container_of(to_delayed_work(work), struct npa_sim,
					   watchdog);

	spin_lock(&sim->lock);
	if (sim->running && !sim->abort)
		sim->abort = NPA_NPU_TIMEOUT;
	spin_unlock(&sim->lock);
	wake_up_all(&sim->hang_wq);
}

static void npa_sim_reset(struct npa_npu *npu)
{
	struct npa_sim *sim = to_npa_sim(npu);

	spin_lock(&sim->lock);
	if (sim->running && !sim->abort)
		sim->abort = NPA_NPU_ABORTED;
	atomic64_inc(&sim->npu.resets);
	spin_unlock(&sim->lock);
	wake_up_all(&sim->hang_wq);
}

static void npa_sim_queue(struct npa_npu *npu, struct npa_npu_job *job)
{
	struct npa_sim *sim = to_npa_sim(npu);

	spin_lock(&sim->lock);
	list_add_tail(&job->node, &sim->queue);
	spin_unlock(&sim->lock);
	queue_work(sim->wq, &sim->work);
}

/*
 * A cancelled queued job ends before the jobs ahead of it; its owner's
 * fence has a context of its own, so nothing orders it after theirs.  The
 * running one stops within %NPA_EXEC_STOP_WORK units of its operator's
 * work, at once if it hangs.
 */
static void npa_sim_cancel(struct npa_npu *npu)
{
	struct npa_sim *sim = to_npa_sim(npu);
	struct npa_npu_job *job, *tmp;
	LIST_HEAD(cancelled);
	bool fence_cookie;

	spin_lock(&sim->lock);
	list_for_each_entry_safe(job, tmp, &sim->queue, node)
		if (READ_ONCE(job->cancel))
			list_move_tail(&job->node, &cancelled);
	spin_unlock(&sim->lock);
	wake_up_all(&sim->hang_wq);

	/*
	 * Ending them signals their owners' fences, from the caller's
	 * context: the same rules as on the queue (see npa_sim_work()), and
	 * lockdep checks them here too.
	 */
	fence_cookie = dma_fence_begin_signalling();
	list_for_each_entry_safe(job, tmp, &cancelled, node) {
		list_del_init(&job->node);
		npa_sim_end(sim, job, NPA_NPU_ABORTED);
	}
	dma_fence_end_signalling(fence_cookie);
}

static void npa_sim_fini(struct npa_npu *npu)
{
	struct npa_sim *sim = to_npa_sim(npu);

	/* No file is open, so no job is left; make sure the runner is idle. */
	flush_workqueue(sim->wq);
	destroy_workqueue(sim->wq);
	cancel_delayed_work_sync(&sim->watchdog);
	sim->wq = NULL;
}

static const struct npa_npu_ops npa_sim_ops = {
	.job_init = npa_sim_job_init,
	.job_fini = npa_sim_job_fini,
	.queue = npa_sim_queue,
	.cancel = npa_sim_cancel,
	.reset = npa_sim_reset,
	.fini = npa_sim_fini,
};

/**
 * npa_sim_init() - start a simulated NPU
 * @sim: zeroed.
 *
 * Context: Process context.
 * Return: 0 or -ENOMEM.
 */
int npa_sim_init(struct npa_sim *sim)
{
	sim->npu.ops = &npa_sim_ops;
	spin_lock_init(&sim->lock);
	INIT_LIST_HEAD(&sim->queue);
	INIT_WORK(&sim->work, npa_sim_work);
	INIT_DELAYED_WORK(&sim->watchdog, npa_sim_watchdog);
	init_waitqueue_head(&sim->hang_wq);
	sim->wq = alloc_ordered_workqueue("npa-sim", 0);
	return sim->wq ? 0 : -ENOMEM;
}
EXPORT_SYMBOL_IF_KUNIT(npa_sim_init);
