// SPDX-License-Identifier: GPL-2.0
/*
 * npa: the simulated NPU.
 */

/**
 * DOC: simulated NPU
 *
 * The NPU has one job queue and runs jobs in order on an ordered
 * workqueue, one operator after the other, with the integer kernels of
 * npa_exec.c.  It has its own device address space: the carveout at
 * %NPA_VA_CARVEOUT and every foreign dma-buf a job binds in a 4 GiB slot
 * from %NPA_VA_IMPORT.  Every operand of every operator is reached by its
 * device address (arena base + planned offset, or buffer base + binding
 * offset) and translated through the job's region table: the model's
 * arena and the buffers the job bound, nothing else.  An address range
 * outside them faults the job (%NPA_JOB_FAULT, with the address and the
 * operator) before anything is touched.
 *
 * Before each operator runs, its scratch buffers are filled with
 * %NPA_SIM_POISON, so that a planning error (scratch overlapping a live
 * tensor) shows up as wrong results instead of passing by luck.
 *
 * A watchdog (delayed work) armed with the job's timeout stops a job that
 * runs too long, or wakes an injected hang; the job ends with
 * %NPA_JOB_TIMEOUT and a reset is counted.  A job that had finished its
 * last operator when the watchdog fired ends %NPA_JOB_DONE, and no reset
 * is counted: the count follows the status.  Writing to the debugfs file ``reset``
 * resets the NPU: the running job ends with %NPA_JOB_ABORTED.  Queued jobs
 * are not affected by either.  The operator kernels look at the abort
 * request every %NPA_EXEC_STOP_WORK multiply-adds or so, so a job stops
 * within milliseconds, even inside one huge operator.
 * ``inject_late_end`` makes the next N jobs wait, after their last
 * operator, until the watchdog (or a reset or cancel) fires.
 * ``inject_fault`` and ``inject_hang`` make the next N jobs fault or hang:
 * a faulting job reads its first operand at %NPA_VA_FAULT, below the
 * carveout, where nothing is ever mapped, however many buffers it binds.
 *
 * Activation arenas: jobs run one at a time, so models share one
 * activation arena per queue, sized to the largest model that uses it;
 * the runner (re)allocates it before a job that needs more, and when a
 * model that used it goes, gives back what the remaining ones do not need
 * (all of it after the last one).  A model created with
 * %NPA_MODEL_PRIVATE_ARENA has its own.  A model that can never run
 * (tensors given by size only, or an arena larger than the carveout) does
 * not count, and when the largest arena does not fit beside the buffers
 * in the carveout, a job gets one of its own size: one file's models
 * never make another file's job fail.
 */

#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/npa.h>

#include "npa_drv.h"
#include "npa_exec.h"
#include "npa_graph.h"
#include "npa_job.h"
#include "npa_model.h"
#include "npa_sim.h"

/* One translatable range of the NPU's address space for the running job. */
struct npa_sim_range {
	u64 va;
	u64 size;
	void *vaddr;
};

struct npa_sim_run {
	struct npa_sim *sim;
	struct npa_job *job;
	struct npa_sim_range *ranges;
	u32 num_ranges;
	u64 arena_va;
	u64 *bind_va;		/* per tensor id: bound tensors' addresses */
	bool fault_next;
};

static int npa_sim_range_cmp(const void *a, const void *b)
{
	const struct npa_sim_range *x = a, *y = b;

	return x->va < y->va ? -1 : x->va > y->va;
}

/*
 * The kernel address of [@va, @va + @size), or NULL: the NPU faults. The
 * ranges are sorted by address (npa_sim_build_ranges()) and two of them
 * either do not overlap or are the same buffer (npa_sim_init() keeps the
 * carveout below the foreign buffers' slots): a binary search, so that a
 * job binding thousands of buffers costs log of that per operand.
 */
static void *npa_sim_translate(struct npa_sim_run *r, u64 va, u64 size)
{
	const struct npa_sim_range *rg;
	u32 lo = 0, hi = r->num_ranges;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (r->ranges[mid].va <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	rg = &r->ranges[lo - 1];
	if (va - rg->va <= rg->size && size <= rg->size - (va - rg->va))
		return rg->vaddr + (va - rg->va);
	return NULL;
}

/* Largest activation arena among the models that share the queue's. */
static u64 npa_sim_shared_need(struct npa_device *ndev)
{
	struct npa_model *model;
	u64 need = 0;

	mutex_lock(&ndev->lock);
	list_for_each_entry(model, &ndev->models, dev_node)
		if (model->shares_arena)
			need = max(need, model->plan.arena_bytes);
	mutex_unlock(&ndev->lock);
	return need;
}

static struct npa_region *npa_sim_arena(struct npa_sim *sim,
					struct npa_model *model)
{
	struct npa_carveout *co = &sim->ndev->carveout;
	u64 need;

	if (model->arena)
		return model->arena;
	if (sim->arena && sim->arena->size >= model->plan.arena_bytes)
		return sim->arena;
	need = max(npa_sim_shared_need(sim->ndev), model->plan.arena_bytes);
	npa_carveout_free(co, sim->arena);
	sim->arena = npa_carveout_alloc(co, need, "shared arena");
	/*
	 * What other models may need later must not fail this job: buffers
	 * may hold the room for it now.  This job's own need is enough.
	 */
	if (IS_ERR(sim->arena) && need > model->plan.arena_bytes)
		sim->arena = npa_carveout_alloc(co, model->plan.arena_bytes,
						"shared arena");
	if (IS_ERR(sim->arena))
		sim->arena = NULL;
	return sim->arena;
}

/*
 * Give back what the shared arena holds beyond what the remaining models
 * need; the next job allocates what it needs.  Runs on the queue, so no
 * job is using the arena.
 */
static void npa_sim_arena_trim(struct npa_sim *sim)
{
	if (sim->arena &&
	    PAGE_ALIGN(npa_sim_shared_need(sim->ndev)) < sim->arena->size) {
		npa_carveout_free(&sim->ndev->carveout, sim->arena);
		sim->arena = NULL;
	}
}

static int npa_sim_build_ranges(struct npa_sim_run *r, struct npa_region *arena)
{
	struct npa_job *job = r->job;
	struct npa_model *model = job->model;
	struct npa_carveout *co = &r->sim->ndev->carveout;
	u32 i;

	r->ranges = kvcalloc(job->num_imports + 1, sizeof(*r->ranges),
			     GFP_KERNEL);
	r->bind_va = kvcalloc(model->graph.num_tensors, sizeof(*r->bind_va),
			      GFP_KERNEL);
	if (!r->ranges || !r->bind_va)
		return -ENOMEM;

	/* Every range starts at or above the carveout, none at NPA_VA_FAULT. */
	BUILD_BUG_ON(NPA_VA_FAULT >= NPA_VA_CARVEOUT);
	r->arena_va = NPA_VA_CARVEOUT + (arena ? arena->offset : 0);
	if (arena)
		r->ranges[r->num_ranges++] = (struct npa_sim_range){
			r->arena_va, arena->size, arena->vaddr };
	for (i = 0; i < job->num_imports; i++) {
		struct npa_import *imp = &job->imports[i];
		u64 va = NPA_VA_IMPORT + i * NPA_VA_IMPORT_STRIDE;

		/* npa's own buffers sit in the carveout's address range. */
		if (!imp->mapping)
			va = NPA_VA_CARVEOUT + (imp->vaddr - co->vaddr);
		r->ranges[r->num_ranges++] = (struct npa_sim_range){
			va, imp->size, imp->vaddr };
		r->bind_va[model->binds[i]] = va + job->offsets[i];
	}
	sort(r->ranges, r->num_ranges, sizeof(*r->ranges), npa_sim_range_cmp,
	     NULL);
	return 0;
}

/* Device address and size of tensor @t for the running job. */
static void npa_sim_tensor(struct npa_sim_run *r, u32 t, u64 *va, u64 *size)
{
	const struct npa_model *model = r->job->model;
	const struct npa_placement *p = &model->plan.tensors[t];

	*size = npa_tensor_bytes(&model->graph.tensors[t]);
	if (p->flags & NPA_PLACEMENT_ARENA)
		*va = r->arena_va + p->offset;
	else
		*va = r->bind_va[t];
	if (r->fault_next) {
		/*
		 * Injected fault: an address below every range of every job
		 * (npa_sim_build_ranges()), whatever the job bound.
		 */
		*va = NPA_VA_FAULT;
		r->fault_next = false;
	}
}

/* Translate @n operands of op @i; on a fault record it in the job. */
static int npa_sim_operands(struct npa_sim_run *r, u32 i, const u32 *ids,
			    u32 n, struct npa_exec_operand *out)
{
	const struct npa_model *model = r->job->model;
	u32 k;
	u64 va;

	for (k = 0; k < n; k++) {
		npa_sim_tensor(r, ids[k], &va, &out[k].size);
		out[k].desc = &model->graph.tensors[ids[k]];
		out[k].ptr = npa_sim_translate(r, va, out[k].size);
		if (!out[k].ptr) {
			r->job->fault_op = i;
			r->job->fault_addr = va;
			return -EFAULT;
		}
	}
	return 0;
}

static u32 npa_sim_abort_reason(struct npa_sim *sim, struct npa_job *job)
{
	u32 abort;

	spin_lock(&sim->lock);
	abort = sim->abort;
	spin_unlock(&sim->lock);
	if (!abort && READ_ONCE(job->cancel))
		abort = NPA_JOB_ABORTED;
	return abort;
}

/* The exec kernels' stop hook: the watchdog, a reset or a cancel. */
static bool npa_sim_stop(void *priv)
{
	struct npa_sim_run *r = priv;

	return npa_sim_abort_reason(r->sim, r->job);
}

static u32 npa_sim_exec(struct npa_sim_run *r, struct npa_exec_operand *ops)
{
	const struct npa_model *model = r->job->model;
	const struct npa_graph *g = &model->graph;
	const struct npa_exec_stop stop = { npa_sim_stop, r };
	u32 i, k, abort;
	int ret;

	for (i = 0; i < g->num_ops; i++) {
		const struct npa_op_desc *op = &g->ops[i];
		struct npa_exec_operand *in = ops;
		struct npa_exec_operand *out = in + op->num_inputs;
		struct npa_exec_operand *sc = out + op->num_outputs;

		abort = npa_sim_abort_reason(r->sim, r->job);
		if (abort)
			return abort;
		if (npa_sim_operands(r, i, &g->operands[op->first_input],
				     op->num_inputs, in) ||
		    npa_sim_operands(r, i, &g->operands[op->first_output],
				     op->num_outputs, out))
			return NPA_JOB_FAULT;
		for (k = 0; k < op->num_scratch; k++) {
			const struct npa_placement *p =
				&model->plan.scratch[op->first_scratch + k];
			u64 va = r->arena_va + p->offset;

			sc[k].desc = NULL;
			sc[k].size = p->size;
			sc[k].ptr = npa_sim_translate(r, va, p->size);
			if (!sc[k].ptr) {
				r->job->fault_op = i;
				r->job->fault_addr = va;
				return NPA_JOB_FAULT;
			}
			memset(sc[k].ptr, NPA_SIM_POISON, p->size);
		}
		ret = npa_exec_run(op, in, op->num_inputs, out, op->num_outputs,
				   sc, op->num_scratch, &stop);
		if (ret == -ECANCELED)
			return npa_sim_abort_reason(r->sim, r->job) ?:
				NPA_JOB_ABORTED;
		if (ret) {
			r->job->fault_op = i;
			return NPA_JOB_ABORTED;
		}
		cond_resched();
	}
	return NPA_JOB_DONE;
}

static u32 npa_sim_run_job(struct npa_sim *sim, struct npa_job *job)
{
	const struct npa_graph *g = &job->model->graph;
	struct npa_sim_run r = { .sim = sim, .job = job };
	struct npa_exec_operand *ops = NULL;
	struct npa_region *arena = NULL;
	u32 status = NPA_JOB_ABORTED, i, most = 0;
	bool late_end = false;

	if (job->model->plan.arena_bytes) {
		arena = npa_sim_arena(sim, job->model);
		if (!arena)
			goto out;
	}
	if (npa_sim_build_ranges(&r, arena))
		goto out;
	for (i = 0; i < g->num_ops; i++)
		most = max(most, g->ops[i].num_inputs + g->ops[i].num_outputs +
			   g->ops[i].num_scratch);
	ops = kvcalloc(most, sizeof(*ops), GFP_KERNEL);
	if (!ops)
		goto out;

	spin_lock(&sim->lock);
	if (sim->inject_fault) {
		sim->inject_fault--;
		r.fault_next = true;
	}
	if (sim->inject_late_end) {
		sim->inject_late_end--;
		late_end = true;
	}
	if (sim->inject_hang) {
		sim->inject_hang--;
		spin_unlock(&sim->lock);
		/*
		 * Hung: only the watchdog or a reset gets us out, up to 300 s
		 * later; idle, so the hung task detector does not report it.
		 */
		wait_event_idle(sim->hang_wq, npa_sim_abort_reason(sim, job));
		status = npa_sim_abort_reason(sim, job);
		goto out;
	}
	spin_unlock(&sim->lock);

	for (i = 0; i < job->num_imports; i++)
		npa_import_sync(&job->imports[i], true);
	status = npa_sim_exec(&r, ops);
	/*
	 * Injected: the job has done all its work and the watchdog fires
	 * before it ends.  The job is DONE, and no reset happened.
	 */
	if (late_end && status == NPA_JOB_DONE)
		wait_event_idle(sim->hang_wq, npa_sim_abort_reason(sim, job));
	for (i = 0; i < job->num_imports; i++)
		npa_import_sync(&job->imports[i], false);
out:
	kvfree(ops);
	kvfree(r.bind_va);
	kvfree(r.ranges);
	return status;
}

static void npa_sim_work(struct work_struct *work)
{
	struct npa_sim *sim = container_of(work, struct npa_sim, work);
	struct npa_job *job;
	u32 status;

	for (;;) {
		spin_lock(&sim->lock);
		job = list_first_entry_or_null(&sim->queue, struct npa_job, node);
		if (job) {
			list_del_init(&job->node);
			list_del_init(&job->file_node);
			sim->running = job;
			sim->abort = 0;
		}
		spin_unlock(&sim->lock);
		if (!job) {
			npa_sim_arena_trim(sim);
			return;
		}

		npa_job_started(job);
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
		if (status == NPA_JOB_TIMEOUT)
			atomic64_inc(&sim->resets);
		if (status == NPA_JOB_DONE)
			atomic64_inc(&sim->jobs_done);
		else
			atomic64_inc(&sim->jobs_failed);
		npa_job_end(job, status);
	}
}

static void npa_sim_watchdog(struct work_struct *work)
{
	struct npa_sim *sim = container_of(to_delayed_work(work), struct npa_sim,
					   watchdog);

	spin_lock(&sim->lock);
	if (sim->running && !sim->abort)
		sim->abort = NPA_JOB_TIMEOUT;
	spin_unlock(&sim->lock);
	wake_up_all(&sim->hang_wq);
}

/**
 * npa_sim_reset() - reset the NPU: the running job ends ABORTED
 * @sim: the NPU.
 *
 * Context: Any context but hard irq.
 */
void npa_sim_reset(struct npa_sim *sim)
{
	spin_lock(&sim->lock);
	if (sim->running && !sim->abort)
		sim->abort = NPA_JOB_ABORTED;
	atomic64_inc(&sim->resets);
	spin_unlock(&sim->lock);
	wake_up_all(&sim->hang_wq);
}

/**
 * npa_sim_queue() - queue a job; the queue holds a reference until it ends
 * @sim: the NPU.
 * @job: a job with everything bound.
 *
 * Context: Any context but hard irq.
 */
void npa_sim_queue(struct npa_sim *sim, struct npa_job *job)
{
	npa_job_get(job);
	spin_lock(&sim->lock);
	list_add_tail(&job->node, &sim->queue);
	list_add_tail(&job->file_node, &job->nfile->queued);
	spin_unlock(&sim->lock);
	queue_work(sim->wq, &sim->work);
}

/**
 * npa_sim_cancel() - cancel a job: queued, it ends now; running, within
 *	%NPA_EXEC_STOP_WORK units of its operator's work (at once if it hangs)
 * @sim: the NPU.
 * @job: the job.
 *
 * A queued job ends before the jobs ahead of it; its fence has a context
 * of its own, so nothing orders it after theirs.
 *
 * Context: Process context.
 */
void npa_sim_cancel(struct npa_sim *sim, struct npa_job *job)
{
	bool queued = false;

	spin_lock(&sim->lock);
	if (!list_empty(&job->node)) {
		list_del_init(&job->node);
		list_del_init(&job->file_node);
		queued = true;
	} else if (sim->running == job) {
		WRITE_ONCE(job->cancel, true);
	}
	spin_unlock(&sim->lock);
	wake_up_all(&sim->hang_wq);
	if (queued) {
		atomic64_inc(&sim->jobs_failed);
		npa_job_end(job, NPA_JOB_ABORTED);
	}
}

/**
 * npa_sim_cancel_file() - cancel every job of a closing file
 * @sim: the NPU.
 * @nfile: the file.
 *
 * Context: Process context.
 */
void npa_sim_cancel_file(struct npa_sim *sim, struct npa_file *nfile)
{
	struct npa_job *job, *tmp;
	LIST_HEAD(cancelled);

	spin_lock(&sim->lock);
	list_for_each_entry_safe(job, tmp, &nfile->queued, file_node) {
		list_del_init(&job->file_node);
		list_move_tail(&job->node, &cancelled);
	}
	if (sim->running && sim->running->nfile == nfile)
		WRITE_ONCE(sim->running->cancel, true);
	spin_unlock(&sim->lock);
	wake_up_all(&sim->hang_wq);

	list_for_each_entry_safe(job, tmp, &cancelled, node) {
		list_del_init(&job->node);
		atomic64_inc(&sim->jobs_failed);
		npa_job_end(job, NPA_JOB_ABORTED);
	}
}

/**
 * npa_sim_trim() - a model left: shrink the shared arena when it can
 * @sim: the NPU.
 *
 * The queue does it after the jobs queued before; a job queued meanwhile
 * grows it again.
 *
 * Context: Any.
 */
void npa_sim_trim(struct npa_sim *sim)
{
	if (sim->wq)
		queue_work(sim->wq, &sim->work);
}

int npa_sim_init(struct npa_sim *sim, struct npa_device *ndev)
{
	/* The carveout must not reach the foreign buffers' addresses. */
	if (ndev->carveout.size > NPA_VA_IMPORT - NPA_VA_CARVEOUT) {
		dev_err(ndev->carveout.dev,
			"carveout of %zu MiB is above the NPU's %llu MiB window\n",
			ndev->carveout.size >> 20,
			(NPA_VA_IMPORT - NPA_VA_CARVEOUT) >> 20);
		return -E2BIG;
	}
	sim->ndev = ndev;
	spin_lock_init(&sim->lock);
	INIT_LIST_HEAD(&sim->queue);
	INIT_WORK(&sim->work, npa_sim_work);
	INIT_DELAYED_WORK(&sim->watchdog, npa_sim_watchdog);
	init_waitqueue_head(&sim->hang_wq);
	sim->wq = alloc_ordered_workqueue("npa-sim", 0);
	return sim->wq ? 0 : -ENOMEM;
}

void npa_sim_fini(struct npa_sim *sim)
{
	if (!sim->wq)
		return;
	/* No file is open, so no job is left; make sure the runner is idle. */
	flush_workqueue(sim->wq);
	destroy_workqueue(sim->wq);
	cancel_delayed_work_sync(&sim->watchdog);
	npa_carveout_free(&sim->ndev->carveout, sim->arena);
	sim->arena = NULL;
	sim->wq = NULL;
}
