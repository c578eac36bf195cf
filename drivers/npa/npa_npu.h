/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npa: what an NPU backend implements and what it is given to run.
 */
#ifndef __NPA_NPU_H__
#define __NPA_NPU_H__

#include <linux/atomic.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/types.h>

struct npa_ir_op;
struct npa_ir_tensor;
struct npa_npu;
struct npa_npu_job;

/*
 * How a job ended, &npa_npu_job.status: the values of the uAPI's enum
 * npa_job_status, which the job layer reports (it asserts they agree).
 */
enum npa_npu_status {
	NPA_NPU_QUEUED,
	NPA_NPU_RUNNING,
	NPA_NPU_DONE,		/* every command ran */
	NPA_NPU_FAULT,		/* an operand outside the job's ranges */
	NPA_NPU_TIMEOUT,	/* the watchdog fired */
	NPA_NPU_ABORTED,	/* cancelled, reset, could not run */
};

/* &npa_npu_job.fault_cmd when no command is to blame. */
#define NPA_NPU_CMD_NONE	U32_MAX

/*
 * The NPU's device address space, as the job layer lays it out.  Nothing
 * is ever mapped below the carveout window at %NPA_VA_CARVEOUT (npa's own
 * buffers, at their offset in the carveout).  Above it, 4 GiB slots from
 * %NPA_VA_SLOTS: the job's activation arena in the first, each foreign
 * dma-buf the job binds in one of the next.
 */
#define NPA_VA_CARVEOUT		0x10000000ULL
#define NPA_VA_SLOTS		0x100000000ULL
#define NPA_VA_SLOT_SIZE	0x100000000ULL
#define NPA_VA_ARENA		NPA_VA_SLOTS
#define NPA_VA_IMPORT(i)	(NPA_VA_SLOTS + ((u64)(i) + 1) * NPA_VA_SLOT_SIZE)

#define NPA_NPU_DEFAULT_TIMEOUT_NS	(30ULL * NSEC_PER_SEC)
/* Longest timeout a job may ask for (-EINVAL above). */
#define NPA_NPU_MAX_TIMEOUT_NS		(300ULL * NSEC_PER_SEC)

/**
 * struct npa_npu_range - device addresses a job may touch
 * @va: first device address.
 * @size: bytes.
 * @vaddr: the kernel's mapping of it, for a backend that works through
 *	the CPU (the simulated NPU).
 */
struct npa_npu_range {
	u64 va;
	u64 size;
	void *vaddr;
};

/**
 * struct npa_npu_operand - one tensor or scratch buffer of a command
 * @va: its device address.
 * @size: bytes.
 * @desc: the tensor's shape and type; NULL for a scratch buffer, which
 *	the NPU may overwrite before the command runs.
 */
struct npa_npu_operand {
	u64 va;
	u64 size;
	const struct npa_ir_tensor *desc;
};

/**
 * struct npa_npu_cmd - one operator on its operands
 * @op: the operator: kind, unit, flags and parameters.
 * @first: index of its first operand in &npa_npu_job.operands: the
 *	inputs, then the outputs, then the scratch buffers.
 * @num_in: inputs.
 * @num_out: outputs.
 * @num_scratch: scratch buffers.
 * @cycles: what the command costs on the NPU the simulated one stands
 *	for: the cost model's estimate (npa_cost_op()), from the owner.
 */
struct npa_npu_cmd {
	const struct npa_ir_op *op;
	u32 first;
	u32 num_in;
	u32 num_out;
	u32 num_scratch;
	u64 cycles;
};

/**
 * struct npa_npu_job_ops - what the backend calls back while it runs a job
 * @prepare: right before the job runs, on the backend's queue: the owner
 *	makes the job's memory ready (an activation arena, CPU access to
 *	its buffers) and fills in the addresses that depend on it.  Returns
 *	0, or a negative errno: the job then ends %NPA_NPU_ABORTED without
 *	running.
 * @done: the job ended; &npa_npu_job.status and the fault fields are
 *	set.  Called once for every queued job, in process context, with no
 *	lock of the backend held; @prepare was called before it unless the
 *	job was cancelled while queued.  The backend does not touch the job
 *	afterwards.  It is called inside a fence signalling section
 *	(dma_fence_begin_signalling()), on the queue or in @cancel's caller:
 *	it signals the owner's fence, and must not allocate memory that
 *	could reclaim or wait for anything that does.
 */
struct npa_npu_job_ops {
	int (*prepare)(struct npa_npu_job *job);
	void (*done)(struct npa_npu_job *job);
};

/**
 * struct npa_npu_job - a self-contained job for an NPU backend
 * @ops: the owner's callbacks.
 * @cmds: the commands, run in order.
 * @num_cmds: entries in @cmds.
 * @operands: every command's operands.
 * @ranges: the device address ranges the job may touch, sorted by @va
 *	and disjoint once @ops->prepare() returned; every operand must lie
 *	inside one of them, else the job faults before the command runs.
 * @num_ranges: entries in @ranges.
 * @timeout_ns: the watchdog's limit.
 * @prepared: @ops->prepare() was called.
 * @status: out: enum npa_npu_status it ended with.
 * @fault_cmd: out: the command that faulted or refused its operands, or
 *	that was running (or next to run) when the job timed out or a reset
 *	or cancel stopped it, else %NPA_NPU_CMD_NONE.
 * @fault_addr: out: the device address that faulted.
 * @start_ns: out: CLOCK_MONOTONIC time the backend started it, 0 if not.
 * @cycles: out: the sum of &npa_npu_cmd.cycles over the commands that ran
 *	to their end, saturated at U64_MAX.
 * @cancel: the owner asks the backend to end the job (npa_npu_cancel()).
 * @node: the backend's, while the job is queued.
 * @priv: the backend's, from &npa_npu_ops.job_init to &npa_npu_ops.job_fini.
 */
struct npa_npu_job {
	const struct npa_npu_job_ops *ops;
	const struct npa_npu_cmd *cmds;
	u32 num_cmds;
	const struct npa_npu_operand *operands;
	struct npa_npu_range *ranges;
	u32 num_ranges;
	u64 timeout_ns;
	bool prepared;
	u32 status;
	u32 fault_cmd;
	u64 fault_addr;
	u64 start_ns;
	u64 cycles;
	bool cancel;
	struct list_head node;
	void *priv;
};

/**
 * struct npa_npu_ops - an NPU backend
 * @job_init: before a job is queued, in the submitter's context: allocate
 *	what running it takes (charged to the submitter).  The backend's
 *	queue must not allocate memory: it signals the jobs' fences, and
 *	memory reclaim may wait for them.  Returns 0 or -ENOMEM.
 * @job_fini: free what @job_init allocated, once the job has ended (or
 *	was never queued); also after a @job_init that failed.
 * @queue: queue a job; the backend runs queued jobs in order and ends
 *	each with @job->ops->done().
 * @cancel: end every queued job whose &npa_npu_job.cancel is set at once,
 *	and stop the running one if it is set, within milliseconds.
 * @reset: reset the NPU: the running job ends %NPA_NPU_ABORTED.
 * @fini: wait until no job is left, and free the backend.
 *
 * The simulated NPU (npa_sim.c) is one; a real NPU's driver would be
 * another.  Context: process context for all of them.
 */
struct npa_npu_ops {
	int (*job_init)(struct npa_npu *npu, struct npa_npu_job *job);
	void (*job_fini)(struct npa_npu *npu, struct npa_npu_job *job);
	void (*queue)(struct npa_npu *npu, struct npa_npu_job *job);
	void (*cancel)(struct npa_npu *npu);
	void (*reset)(struct npa_npu *npu);
	void (*fini)(struct npa_npu *npu);
};

/**
 * struct npa_npu - an NPU, as the job layer sees it
 * @ops: its backend.
 * @jobs_done: jobs that ended %NPA_NPU_DONE.
 * @jobs_failed: jobs that ended otherwise.
 * @resets: resets (watchdog or debugfs).
 */
struct npa_npu {
	const struct npa_npu_ops *ops;
	atomic64_t jobs_done;
	atomic64_t jobs_failed;
	atomic64_t resets;
};

#endif /* __NPA_NPU_H__ */
