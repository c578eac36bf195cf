/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npa: jobs.
 */
#ifndef __NPA_JOB_H__
#define __NPA_JOB_H__

#include <linux/dma-fence.h>
#include <linux/workqueue.h>
#include <linux/list.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "npa_buffer.h"
#include "npa_npu.h"

struct npa_file;
struct npa_ioctl_out;
struct npa_model;

/* Jobs of one open file that may be in flight at once (-EAGAIN beyond). */
#define NPA_MAX_JOBS_PER_FILE	32

/**
 * struct npa_job - one run of a model
 * @fence: signalled when the job ends.  Its reference count is the job's:
 *	held by the job fd, by a sync_file, and by the NPU while the job is
 *	in flight.
 * @hw: what the NPU runs: commands, operands and ranges built from the
 *	model and the bindings at submit.
 * @free_work: frees the job in process context after the last put.
 * @unmap_work: releases the foreign buffers of a job that ended.
 * @fence_lock: the fence's lock.
 * @nfile: the submitting file (a reference).
 * @model: the model (a reference) until the job ends.
 * @imports: one per bound tensor, in the model's bind order.
 * @offsets: where each bound tensor starts inside its buffer.
 * @num_imports: entries in @imports and @offsets.
 * @cmds: backs @hw.cmds.
 * @operands: backs @hw.operands.
 * @ranges: backs @hw.ranges: the buffers', then the arena's.
 * @arena: the job holds its model's arena (npa_model_arena_get()).
 * @file_node: in its file's &npa_file.jobs while in flight.
 * @wq: woken when the job ends (poll).
 * @timeout_ns: the watchdog's limit for this job.
 * @status: enum npa_job_status.
 * @submit_ns: CLOCK_MONOTONIC times, see &struct npa_job_wait.
 * @start_ns: see &struct npa_job_wait.
 * @end_ns: see &struct npa_job_wait.
 */
struct npa_job {
	/* First: dma_fence_free() frees the job through it. */
	struct dma_fence fence;
	struct npa_npu_job hw;
	struct work_struct free_work;
	struct work_struct unmap_work;
	/* Protects @fence's state (the dma_fence lock). */
	spinlock_t fence_lock;
	struct npa_file *nfile;
	struct npa_model *model;
	struct npa_import *imports;
	u64 *offsets;
	u32 num_imports;
	struct npa_npu_cmd *cmds;
	struct npa_npu_operand *operands;
	struct npa_npu_range *ranges;
	bool arena;
	struct list_head file_node;
	wait_queue_head_t wq;
	u64 timeout_ns;
	u32 status;
	u64 submit_ns;
	u64 start_ns;
	u64 end_ns;
};

int npa_job_init(void);
void npa_job_exit(void);
void npa_job_get(struct npa_job *job);
void npa_job_put(struct npa_job *job);
void npa_job_cancel_file(struct npa_file *nfile);

int npa_ioctl_job_submit(struct npa_file *nfile, void *data,
			 struct npa_ioctl_out *out);
int npa_ioctl_job_wait(struct npa_file *nfile, void *data,
		       struct npa_ioctl_out *out);
int npa_ioctl_job_cancel(struct npa_file *nfile, void *data,
			 struct npa_ioctl_out *out);

#endif /* __NPA_JOB_H__ */
