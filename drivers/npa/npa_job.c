// SPDX-License-Identifier: GPL-2.0
/*
 * npa: jobs.
 */

/**
 * DOC: jobs
 *
 * NPA_IOCTL_JOB_SUBMIT binds every model input, output, constant and
 * persistent tensor to a dma-buf (npa's own or another exporter's), checks
 * that each tensor fits in its buffer at an offset aligned as the tensor
 * needs, and queues the job on the NPU.  It
 * returns a job fd that polls readable once the job has ended, and with
 * %NPA_JOB_FENCE a sync_file fd that signals at the same time.  The job
 * is queued and its fds installed only once everything else has succeeded
 * and their numbers were copied to userspace: a caller whose argument
 * cannot be written gets -EFAULT, no fds, and no job runs.
 *
 * A job's lifetime is its dma_fence's reference count: the job fd, a
 * sync_file and the queue each hold one.  The last put frees the job from
 * a work item, since a fence may be put in atomic context.  While a job is
 * in flight it holds its model, its file and its buffers, so closing the
 * npa fd (which cancels the file's jobs), destroying the model or closing
 * the buffer fds never pulls memory from under the NPU.  A job also holds
 * the module until it is freed, since a sync_file does not: rmmod fails
 * while a fence fd is open.
 *
 * Each file may have %NPA_MAX_JOBS_PER_FILE jobs in flight; past that,
 * submission fails with -EAGAIN, before it reads its bindings or builds
 * anything.  A submit holds its place in the count from its start, so
 * submits under way count as in flight.
 */

#include <linux/anon_inodes.h>
#include <linux/dma-buf.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sync_file.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <linux/npa.h>

#include "npa_compat.h"
#include "npa_cost.h"
#include "npa_device.h"
#include "npa_graph.h"
#include "npa_job.h"
#include "npa_model.h"
#include "npa_uaccess.h"

#define CREATE_TRACE_POINTS
#include "npa_trace.h"

static const struct file_operations npa_job_fops;

/*
 * Frees jobs and unmaps the foreign buffers of ended ones; module exit
 * waits for it, so it can drop the module.
 */
static struct workqueue_struct *npa_job_wq;

static const char *npa_fence_driver_name(struct dma_fence *fence)
{
	return "npa";
}

static const char *npa_fence_timeline_name(struct dma_fence *fence)
{
	return "npa-sim";
}

#define NPA_JOB_OWN	BIT(0)	/* npa's own buffers */
#define NPA_JOB_FOREIGN	BIT(1)	/* other exporters' buffers */

/* Release the job's imports of npa's own buffers, foreign ones, or both. */
static void npa_job_put_imports(struct npa_job *job, unsigned int which)
{
	u32 i;

	for (i = 0; i < job->num_imports; i++)
		if (which & (job->imports[i].mapping ? NPA_JOB_FOREIGN :
						      NPA_JOB_OWN))
			npa_import_put(&job->imports[i]);
}

static void npa_job_free_work(struct work_struct *work)
{
	struct npa_job *job = container_of(work, struct npa_job, free_work);
	struct npa_npu *npu = job->nfile->ndev->npu;

	/* Released when it ended or its submit was refused: a safety net. */
	npa_job_put_imports(job, NPA_JOB_OWN | NPA_JOB_FOREIGN);
	npu->ops->job_fini(npu, &job->hw);
	kvfree(job->imports);
	kvfree(job->offsets);
	kvfree(job->cmds);
	kvfree(job->operands);
	kvfree(job->ranges);
	if (job->model)
		npa_model_put(job->model);
	npa_file_put(job->nfile);
	dma_fence_free(&job->fence);
	/* Last: npa_job_exit() waits for this function to return. */
	module_put(THIS_MODULE);
}

static void npa_fence_release(struct dma_fence *fence)
{
	struct npa_job *job = container_of(fence, struct npa_job, fence);

	/* dma_fence_free() kfree()s the fence: it must start the job. */
	BUILD_BUG_ON(offsetof(struct npa_job, fence));
	/* Puts below may sleep; the last fence put may not. */
	INIT_WORK(&job->free_work, npa_job_free_work);
	queue_work(npa_job_wq, &job->free_work);
}

static const struct dma_fence_ops npa_fence_ops = {
	.get_driver_name = npa_fence_driver_name,
	.get_timeline_name = npa_fence_timeline_name,
	.release = npa_fence_release,
};

void npa_job_get(struct npa_job *job)
{
	dma_fence_get(&job->fence);
}

void npa_job_put(struct npa_job *job)
{
	dma_fence_put(&job->fence);
}

static void npa_job_unmap_work(struct work_struct *work)
{
	struct npa_job *job = container_of(work, struct npa_job, unmap_work);

	npa_job_put_imports(job, NPA_JOB_FOREIGN);
	npa_job_put(job);
}

static void npa_job_end(struct npa_job *job, u32 status);

static struct npa_job *to_npa_job(struct npa_npu_job *hw)
{
	return container_of(hw, struct npa_job, hw);
}

/*
 * The NPU is about to run the job: bind its arena at %NPA_VA_ARENA and
 * give the simulated NPU's engine, the CPU, access to its buffers.
 */
static int npa_job_prepare(struct npa_npu_job *hw)
{
	struct npa_job *job = to_npa_job(hw);
	struct npa_region *arena;
	u32 i;

	trace_npa_job_start(job->fence.seqno, hw->num_cmds);
	if (job->model->plan.arena_bytes) {
		arena = npa_model_arena_get(job->model);
		if (!arena)
			return -ENOMEM;
		job->arena = true;
		job->ranges[hw->num_ranges++] = (struct npa_npu_range){
			NPA_VA_ARENA, arena->size, arena->vaddr };
	}
	for (i = 0; i < job->num_imports; i++)
		npa_import_sync(&job->imports[i], true);
	return 0;
}

/* The NPU is done with the job. */
static void npa_job_done(struct npa_npu_job *hw)
{
	struct npa_job *job = to_npa_job(hw);
	unsigned long flags;
	u32 i;

	/* The NPU's statuses and "no command" are what JOB_WAIT reports. */
	BUILD_BUG_ON((int)NPA_NPU_QUEUED != (int)NPA_JOB_QUEUED);
	BUILD_BUG_ON((int)NPA_NPU_RUNNING != (int)NPA_JOB_RUNNING);
	BUILD_BUG_ON((int)NPA_NPU_DONE != (int)NPA_JOB_DONE);
	BUILD_BUG_ON((int)NPA_NPU_FAULT != (int)NPA_JOB_FAULT);
	BUILD_BUG_ON((int)NPA_NPU_TIMEOUT != (int)NPA_JOB_TIMEOUT);
	BUILD_BUG_ON((int)NPA_NPU_ABORTED != (int)NPA_JOB_ABORTED);
	BUILD_BUG_ON((int)NPA_NPU_CMD_NONE != (int)NPA_JOB_OP_NONE);
	if (hw->prepared) {
		for (i = 0; i < job->num_imports; i++)
			npa_import_sync(&job->imports[i], false);
	}
	if (job->arena)
		npa_model_arena_put(job->model);
	/* The NPU was reset: say where it was stuck. */
	if (hw->status == NPA_NPU_TIMEOUT)
		dev_warn_ratelimited(job->nfile->ndev->misc.this_device,
				     "job %llu timed out after %llu ms in operator %u; NPU reset\n",
				     job->fence.seqno, job->timeout_ns / NSEC_PER_MSEC,
				     hw->fault_cmd);
	spin_lock_irqsave(&job->nfile->jobs_lock, flags);
	list_del_init(&job->file_node);
	spin_unlock_irqrestore(&job->nfile->jobs_lock, flags);
	npa_job_end(job, hw->status);
}

static const struct npa_npu_job_ops npa_job_npu_ops = {
	.prepare = npa_job_prepare,
	.done = npa_job_done,
};

/**
 * npa_job_end() - end a job and drop the queue's reference
 * @job: a job that was queued.
 * @status: enum npa_job_status it ended with.
 *
 * Releases the job's buffers and its model; the job itself lives on as
 * long as its fence.
 *
 * Context: Process context, no npa lock held: may free the model.
 */
static void npa_job_end(struct npa_job *job, u32 status)
{
	job->status = status;
	job->start_ns = job->hw.start_ns;
	job->end_ns = ktime_get_ns();
	trace_npa_job_end(job->fence.seqno, status,
			  job->start_ns ? job->end_ns - job->start_ns : 0,
			  job->hw.fault_cmd, job->hw.cycles);
	/* npa's own buffers are free for userspace again. */
	npa_job_put_imports(job, NPA_JOB_OWN);
	if (status != NPA_JOB_DONE)
		dma_fence_set_error(&job->fence, status == NPA_JOB_TIMEOUT ?
				    -ETIMEDOUT : status == NPA_JOB_FAULT ?
				    -EFAULT : -ECANCELED);
	/* Out of the count before a waiter can see the end and submit again. */
	atomic_dec(&job->nfile->num_jobs);
	dma_fence_signal(&job->fence);
	wake_up_all(&job->wq);
	/*
	 * Unmapping a foreign buffer takes its reservation lock, which its
	 * holder may keep while it waits for fences (added with
	 * DMA_BUF_IOCTL_IMPORT_SYNC_FILE): this job's, so only after the
	 * signal, and those of the jobs queued behind it, so not here, on
	 * the NPU's queue, which must go on to end them.
	 */
	npa_job_get(job);
	INIT_WORK(&job->unmap_work, npa_job_unmap_work);
	queue_work(npa_job_wq, &job->unmap_work);
	/*
	 * The NPU is done with the model: a fence userspace keeps (a job fd,
	 * a sync_file, a dma-buf's reservation) must not keep its arena in
	 * the carveout after the model is destroyed.
	 */
	npa_model_put(job->model);
	job->model = NULL;
	npa_job_put(job);
}

static int npa_job_release(struct inode *inode, struct file *filp)
{
	npa_job_put(filp->private_data);
	return 0;
}

static __poll_t npa_job_poll(struct file *filp, poll_table *wait)
{
	struct npa_job *job = filp->private_data;

	poll_wait(filp, &job->wq, wait);
	return dma_fence_is_signaled(&job->fence) ? EPOLLIN | EPOLLRDNORM : 0;
}

static const struct file_operations npa_job_fops = {
	.owner = THIS_MODULE,
	.release = npa_job_release,
	.poll = npa_job_poll,
	.llseek = noop_llseek,
};

/* Bind the job's tensors to the buffers userspace named. */
static int npa_job_bind(struct npa_job *job, const struct npa_job_submit *args,
			struct npa_error *rep)
{
	const u32 a = NPA_ERR_ARRAY_BINDINGS;
	struct npa_device *ndev = job->nfile->ndev;
	struct npa_model *model = job->model;
	struct npa_binding *b;
	u32 i;
	int ret;

	b = npa_copy_user_array(args->bindings, args->num_bindings,
				args->binding_size, sizeof(*b), &ret);
	if (ret)
		return ret;
	job->imports = kvcalloc(args->num_bindings, sizeof(*job->imports),
				GFP_KERNEL_ACCOUNT);
	job->offsets = kvcalloc(args->num_bindings, sizeof(*job->offsets),
				GFP_KERNEL_ACCOUNT);
	if (!job->imports || !job->offsets) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < args->num_bindings; i++) {
		const struct npa_ir_tensor *t = &model->ir.tensors[model->binds[i]];
		u64 bytes = t->size;
		u64 end, align;

		if (b[i].pad) {
			ret = npa_error_set(rep, a, i, NPA_ERR_FIELD_PAD,
					    NPA_ERR_NOT_ZERO, b[i].pad, 0, -EINVAL);
			goto out;
		}
		/* 65,535 bindings take a while: a kill must not wait for them. */
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto out;
		}
		cond_resched();
		ret = npa_import_get(ndev, b[i].fd, &job->imports[i]);
		if (ret) {
			npa_error_set(rep, a, i, NPA_ERR_FIELD_FD,
				      NPA_ERR_BAD_VALUE, (u32)b[i].fd, 0, ret);
			goto out_tensor;
		}
		job->num_imports = i + 1;
		/* A read-only fd (a PRIME export without DRM_RDWR) is read only. */
		if ((t->flags & (NPA_IR_OUTPUT | NPA_IR_PERSISTENT)) &&
		    !(job->imports[i].dmabuf->file->f_mode & FMODE_WRITE)) {
			ret = npa_error_set(rep, a, i, NPA_ERR_FIELD_FD,
					    NPA_ERR_READ_ONLY, (u32)b[i].fd, 0,
					    -EACCES);
			goto out_tensor;
		}
		/* The NPU's units need it aligned in the buffer as in the arena. */
		align = t->align;
		if (b[i].offset & (align - 1)) {
			ret = npa_error_set(rep, a, i, NPA_ERR_FIELD_OFFSET,
					    NPA_ERR_MISALIGNED, b[i].offset,
					    align, -EINVAL);
			goto out_tensor;
		}
		job->offsets[i] = b[i].offset;
		if (check_add_overflow(b[i].offset, bytes, &end) ||
		    end > job->imports[i].size) {
			ret = npa_error_set(rep, a, i, NPA_ERR_FIELD_OFFSET,
					    NPA_ERR_DOES_NOT_FIT, bytes,
					    job->imports[i].size, -EINVAL);
			goto out_tensor;
		}
	}
	ret = npa_import_mark_aliases(job->imports, job->num_imports);
out:
	kvfree(b);
	return ret;
out_tensor:
	rep->tensor = model->binds[i];
	goto out;
}

/* Check what JOB_SUBMIT can check before it allocates. */
static int npa_job_check_args(struct npa_device *ndev,
			      const struct npa_job_submit *args,
			      struct npa_error *rep)
{
	const u32 a = NPA_ERR_ARRAY_ARGS;

	if (args->flags & ~NPA_JOB_SUBMIT_FLAGS_ALL)
		return npa_error_set(rep, a, 0, NPA_ERR_FIELD_FLAGS,
				     NPA_ERR_UNKNOWN_FLAGS, args->flags,
				     NPA_JOB_SUBMIT_FLAGS_ALL, -EINVAL);
	if (args->reserved || args->pad)
		return npa_error_set(rep, a, 0, NPA_ERR_FIELD_PAD,
				     NPA_ERR_NOT_ZERO, 0, 0, -EINVAL);
	if (!ndev->npu_dev)
		return -ENODEV;
	if (args->num_bindings && (!args->binding_size ||
				   args->binding_size > NPA_MAX_ELEM_SIZE))
		return npa_error_set(rep, a, 0, NPA_ERR_FIELD_BINDING_SIZE,
				     NPA_ERR_BAD_VALUE, args->binding_size,
				     NPA_MAX_ELEM_SIZE, -EINVAL);
	if (args->timeout_ns > NPA_NPU_MAX_TIMEOUT_NS)
		return npa_error_set(rep, a, 0, NPA_ERR_FIELD_TIMEOUT_NS,
				     NPA_ERR_TOO_BIG, args->timeout_ns,
				     NPA_NPU_MAX_TIMEOUT_NS, -EINVAL);
	return 0;
}

static struct npa_npu *npa_job_npu(struct npa_file *nfile)
{
	return nfile->ndev->npu;
}

/*
 * Queue a job on the NPU, which holds a reference until it ends; it is on
 * its file's list until then, for npa_job_cancel_file().
 */
static void npa_job_queue(struct npa_job *job)
{
	struct npa_file *nfile = job->nfile;
	unsigned long flags;

	npa_job_get(job);
	spin_lock_irqsave(&nfile->jobs_lock, flags);
	list_add_tail(&job->file_node, &nfile->jobs);
	spin_unlock_irqrestore(&nfile->jobs_lock, flags);
	npa_job_npu(nfile)->ops->queue(npa_job_npu(nfile), &job->hw);
}

/**
 * npa_job_cancel_file() - cancel every job of a closing file
 * @nfile: the file.
 *
 * Context: Process context.
 */
void npa_job_cancel_file(struct npa_file *nfile)
{
	struct npa_job *job;
	unsigned long flags;

	spin_lock_irqsave(&nfile->jobs_lock, flags);
	list_for_each_entry(job, &nfile->jobs, file_node)
		WRITE_ONCE(job->hw.cancel, true);
	spin_unlock_irqrestore(&nfile->jobs_lock, flags);
	npa_job_npu(nfile)->ops->cancel(npa_job_npu(nfile));
}

/*
 * Where the NPU reaches each bound buffer: npa's own in the carveout
 * window, a foreign one in a slot of its own.  The arena's range is added
 * when the job runs (npa_job_prepare()).
 */
static u64 npa_job_buffer_va(struct npa_job *job, u32 i)
{
	const struct npa_import *imp = &job->imports[i];
	struct npa_carveout *co = &job->nfile->ndev->carveout;

	if (!imp->mapping)
		return NPA_VA_CARVEOUT + (imp->vaddr - co->vaddr);
	return NPA_VA_IMPORT(i);
}

/* Tensor @t's operand: the arena's slot or its buffer's address. */
static struct npa_npu_operand npa_job_tensor(const struct npa_model *model,
					     const u64 *bind_va, u32 t)
{
	const struct npa_ir_place *p = &model->plan.tensors[t];
	const struct npa_ir_tensor *d = &model->ir.tensors[t];

	return (struct npa_npu_operand){
		.va = (p->flags & NPA_IR_ARENA) ? NPA_VA_ARENA + p->offset :
			bind_va[t],
		.size = d->size, .desc = d,
	};
}

/*
 * Turn the bound model into what the NPU runs: one command per operator,
 * operands by device address, what each costs by the cost model (the
 * plan's, as `npactl plan` estimates it), and the ranges the job may
 * touch.
 */
static int npa_job_build(struct npa_job *job)
{
	const struct npa_model *model = job->model;
	const struct npa_ir *ir = &model->ir;
	struct npa_npu_operand *o;
	struct npa_npu_cmd *cmds;
	u32 i, k, n;
	u64 *bind_va;

	n = ir->num_operands + ir->num_scratch;
	cmds = kvcalloc(ir->num_ops, sizeof(*cmds), GFP_KERNEL_ACCOUNT);
	o = kvcalloc(max(n, 1U), sizeof(*o), GFP_KERNEL_ACCOUNT);
	job->ranges = kvcalloc(job->num_imports + 1, sizeof(*job->ranges),
			       GFP_KERNEL_ACCOUNT);
	bind_va = kvcalloc(ir->num_tensors, sizeof(*bind_va), GFP_KERNEL_ACCOUNT);
	job->cmds = cmds;
	job->operands = o;
	if (!cmds || !o || !job->ranges || !bind_va) {
		kvfree(bind_va);
		return -ENOMEM;
	}

	for (i = 0; i < job->num_imports; i++) {
		u64 va = npa_job_buffer_va(job, i);

		job->ranges[i] = (struct npa_npu_range){
			va, job->imports[i].size, job->imports[i].vaddr };
		bind_va[model->binds[i]] = va + job->offsets[i];
	}
	for (i = 0, n = 0; i < ir->num_ops; i++) {
		const struct npa_ir_op *op = &ir->ops[i];

		cmds[i] = (struct npa_npu_cmd){
			.op = op, .first = n, .num_in = op->num_in,
			.num_out = op->num_out,
			.num_scratch = op->num_scratch,
			.cycles = npa_cost_op(ir, op, model->plan.tensors,
					      model->plan.scratch,
					      npa_graph_default_limits.fast_window),
		};
		for (k = 0; k < op->num_in + op->num_out; k++)
			o[n++] = npa_job_tensor(model, bind_va,
						ir->operands[op->first + k]);
		for (k = 0; k < op->num_scratch; k++) {
			const struct npa_ir_place *p =
				&model->plan.scratch[op->first_scratch + k];

			o[n++] = (struct npa_npu_operand){
				NPA_VA_ARENA + p->offset, p->size, NULL };
		}
	}
	kvfree(bind_va);

	job->hw = (struct npa_npu_job){
		.ops = &npa_job_npu_ops, .cmds = cmds, .num_cmds = ir->num_ops,
		.operands = o, .ranges = job->ranges,
		.num_ranges = job->num_imports, .timeout_ns = job->timeout_ns,
		.fault_cmd = NPA_NPU_CMD_NONE,
	};
	INIT_LIST_HEAD(&job->hw.node);
	return 0;
}

int npa_ioctl_job_submit(struct npa_file *nfile, void *data,
			 struct npa_ioctl_out *out)
{
	struct npa_job_submit *args = data;
	struct npa_device *ndev = nfile->ndev;
	struct device *dev = ndev->misc.this_device;
	struct sync_file *sync = NULL;
	struct npa_error rep;
	struct npa_job *job;
	struct file *jfile;
	int jfd, sfd = -1, ret;

	/* Nothing to blame unless a check says otherwise. */
	npa_error_set(&rep, NPA_ERR_ARRAY_ARGS, 0, NPA_ERR_FIELD_NONE,
		      NPA_ERR_NONE, 0, 0, 0);
	if (args->error && (!args->error_size ||
			    args->error_size > NPA_MAX_ELEM_SIZE))
		return -EINVAL;
	ret = npa_job_check_args(ndev, args, &rep);
	if (ret)
		return npa_refuse(dev, "job submit", args->error,
				  args->error_size, &rep, ret);
	/*
	 * The job's place in flight first, before anything is copied,
	 * looked up or built: a caller that spins on -EAGAIN costs an
	 * atomic, not a job.  A submit that fails gives its place back.
	 */
	if (atomic_inc_return(&nfile->num_jobs) > NPA_MAX_JOBS_PER_FILE) {
		atomic_dec(&nfile->num_jobs);
		return npa_refuse(dev, "job submit", args->error,
				  args->error_size, &rep, -EAGAIN);
	}

	job = kzalloc(sizeof(*job), GFP_KERNEL_ACCOUNT);
	if (!job) {
		atomic_dec(&nfile->num_jobs);
		return -ENOMEM;
	}
	/*
	 * The fence may outlive every npa fd (a sync_file does not pin the
	 * module): the job holds the module until it is freed.  The caller's
	 * open file pins it now.
	 */
	__module_get(THIS_MODULE);
	spin_lock_init(&job->fence_lock);
	/*
	 * A context of its own: jobs do not end in submission order (a
	 * cancelled queued job ends at once), and fences of one context must.
	 * The seqno is the job's number in the tracepoints.
	 */
	dma_fence_init(&job->fence, &npa_fence_ops, &job->fence_lock,
		       dma_fence_context_alloc(1),
		       atomic64_inc_return(&ndev->fence_seqno));
	INIT_LIST_HEAD(&job->file_node);
	init_waitqueue_head(&job->wq);
	job->nfile = npa_file_get(nfile);
	job->submit_ns = ktime_get_ns();
	job->timeout_ns = args->timeout_ns ? args->timeout_ns :
		NPA_NPU_DEFAULT_TIMEOUT_NS;
	/* From here on, putting the fence frees everything. */

	job->model = npa_model_lookup(nfile, args->model);
	if (!job->model) {
		ret = npa_error_set(&rep, NPA_ERR_ARRAY_ARGS, 0,
				    NPA_ERR_FIELD_MODEL, NPA_ERR_BAD_VALUE,
				    args->model, 0, -ENOENT);
		goto err_put;
	}
	if (!job->model->ir.runnable) {
		ret = npa_error_set(&rep, NPA_ERR_ARRAY_ARGS, 0,
				    NPA_ERR_FIELD_MODEL, NPA_ERR_NOT_RUNNABLE,
				    args->model, 0, -EINVAL);
		goto err_put;
	}
	if (args->num_bindings != job->model->num_binds) {
		ret = npa_error_set(&rep, NPA_ERR_ARRAY_ARGS, 0,
				    NPA_ERR_FIELD_NUM_BINDINGS,
				    NPA_ERR_WRONG_COUNT, args->num_bindings,
				    job->model->num_binds, -EINVAL);
		goto err_put;
	}
	ret = npa_job_bind(job, args, &rep);
	if (ret)
		goto err_put;
	ret = npa_job_build(job);
	if (ret)
		goto err_put;
	/* What the NPU needs to run it: its queue must not allocate. */
	ret = npa_job_npu(nfile)->ops->job_init(npa_job_npu(nfile), &job->hw);
	if (ret)
		goto err_put;

	jfd = get_unused_fd_flags(O_CLOEXEC);
	if (jfd < 0) {
		ret = jfd;
		goto err_put;
	}
	if (args->flags & NPA_JOB_FENCE) {
		sfd = get_unused_fd_flags(O_CLOEXEC);
		if (sfd < 0) {
			ret = sfd;
			goto err_jfd;
		}
		sync = sync_file_create(&job->fence);
		if (!sync) {
			ret = -ENOMEM;
			goto err_sfd;
		}
	}
	npa_job_get(job);
	jfile = anon_inode_getfile("[npa-job]", &npa_job_fops, job,
				   O_RDWR | O_CLOEXEC);
	if (IS_ERR(jfile)) {
		npa_job_put(job);
		ret = PTR_ERR(jfile);
		goto err_sync;
	}

	/* The job runs and the fds are the caller's once it has their numbers. */
	args->job_fd = jfd;
	args->fence_fd = sfd;
	ret = npa_ioctl_copy_out(out, args);
	if (ret)
		goto err_jfile;

	/* Nothing can fail any more. */
	trace_npa_job_submit(job->fence.seqno, args->model, args->num_bindings);
	npa_job_queue(job);
	fd_install(jfd, jfile);
	if (sync)
		fd_install(sfd, sync->file);
	npa_job_put(job);
	return 0;

err_jfile:
	fput(jfile);
err_sync:
	if (sync)
		fput(sync->file);
err_sfd:
	if (sfd >= 0)
		put_unused_fd(sfd);
err_jfd:
	put_unused_fd(jfd);
err_put:
	/*
	 * The buffers now, not when the fence goes (from a work item, after
	 * this call returned): the caller's next submit may map the same
	 * foreign buffer, and two live mappings of it overlap.
	 */
	npa_job_put_imports(job, NPA_JOB_OWN | NPA_JOB_FOREIGN);
	npa_job_put(job);
	atomic_dec(&nfile->num_jobs);
	return npa_refuse(dev, "job submit", args->error, args->error_size,
			  &rep, ret);
}

/* The job behind a job fd of @nfile; hold @f until done with it. */
static struct npa_job *npa_job_from_fd(struct npa_file *nfile, int fd,
				       struct fd *f, int *ret)
{
	struct npa_job *job;

	*f = fdget(fd);
	if (!fd_file(*f)) {
		*ret = -EBADF;
		return NULL;
	}
	if (fd_file(*f)->f_op != &npa_job_fops) {
		*ret = -EINVAL;
		goto err;
	}
	job = fd_file(*f)->private_data;
	if (job->nfile != nfile) {
		*ret = -EPERM;
		goto err;
	}
	return job;
err:
	fdput(*f);
	return NULL;
}

int npa_ioctl_job_wait(struct npa_file *nfile, void *data,
		       struct npa_ioctl_out *out)
{
	struct npa_job_wait *args = data;
	struct npa_job *job;
	long timeout = 0, left;
	struct fd f;
	s64 now;
	int ret;

	if (args->flags & ~NPA_JOB_WAIT_FLAGS_ALL)
		return -EINVAL;
	job = npa_job_from_fd(nfile, args->job_fd, &f, &ret);
	if (!job)
		return ret;

	now = ktime_get_ns();
	if (args->deadline_ns > now)
		timeout = min_t(u64, nsecs_to_jiffies64(args->deadline_ns - now),
				MAX_SCHEDULE_TIMEOUT);
	left = dma_fence_wait_timeout(&job->fence, true, timeout);
	if (left < 0) {
		ret = left;
	} else if (!left && !dma_fence_is_signaled(&job->fence)) {
		ret = -ETIME;
	} else {
		/* Pairs with the ordered test_and_set_bit() of the signal. */
		smp_rmb();
		args->status = job->status;
		args->op = job->hw.fault_cmd;
		args->fault_addr = job->hw.fault_addr;
		args->submit_ns = job->submit_ns;
		args->start_ns = job->start_ns;
		args->end_ns = job->end_ns;
		args->cycles = job->hw.cycles;
		ret = 0;
	}
	fdput(f);
	return ret;
}

int npa_ioctl_job_cancel(struct npa_file *nfile, void *data,
			 struct npa_ioctl_out *out)
{
	struct npa_job_cancel *args = data;
	struct npa_job *job;
	struct fd f;
	int ret;

	if (args->flags & ~NPA_JOB_CANCEL_FLAGS_ALL)
		return -EINVAL;
	job = npa_job_from_fd(nfile, args->job_fd, &f, &ret);
	if (!job)
		return ret;
	WRITE_ONCE(job->hw.cancel, true);
	npa_job_npu(nfile)->ops->cancel(npa_job_npu(nfile));
	fdput(f);
	return 0;
}

/**
 * npa_job_init() - set up what jobs need at module load
 *
 * Context: Process context.
 * Return: 0 or -ENOMEM.
 */
int __init npa_job_init(void)
{
	npa_job_wq = alloc_workqueue("npa-job", 0, 0);
	return npa_job_wq ? 0 : -ENOMEM;
}

/**
 * npa_job_exit() - at module unload, after the last job's put
 *
 * Every job holds the module, so none is left but those whose free work
 * still runs: wait for them.
 *
 * Context: Process context.  Sleeps.
 */
void npa_job_exit(void)
{
	destroy_workqueue(npa_job_wq);
}
