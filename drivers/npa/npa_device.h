/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npa: the device and open-file objects every layer above the NPU uses.
 */
#ifndef __NPA_DEVICE_H__
#define __NPA_DEVICE_H__

#include <linux/hashtable.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include "npa_carveout.h"
#include "npa_sim.h"

struct dentry;
struct npa_device;

/**
 * struct npa_file - per open file state
 * @ref: held by the open file and by every buffer and job it created, so
 *	that their counters outlive a close.
 * @ndev: the device this file was opened on.
 * @lock: see below.
 * @models: this file's models by handle (struct npa_model).
 * @num_buffers: live buffers created through this file.
 * @num_jobs: jobs of this file not ended yet, and submits under way.
 * @jobs_lock: see below.
 * @jobs: its jobs in flight (&npa_job.file_node).
 */
struct npa_file {
	struct kref ref;
	struct npa_device *ndev;
	/* Protects @models: held while a model is looked up and referenced. */
	struct mutex lock;
	struct xarray models;
	atomic_t num_buffers;
	atomic_t num_jobs;
	/* Protects @jobs. */
	spinlock_t jobs_lock;
	struct list_head jobs;
};

/**
 * struct npa_device - one npa device, i.e. one /dev/npaN node
 * @misc: the misc character device.
 * @name: device node name, "npa<index>".
 * @npu_dev: the (simulated) NPU's device, for the DMA API; NULL for a
 *	device without an NPU (planning only).
 * @carveout: the contiguous DMA region.
 * @sim: the simulated NPU and its job queue.
 * @npu: the NPU jobs run on (@sim's), or NULL without one.
 * @lock: see below.
 * @models: live models of all files, by &npa_model.id; a model's id is
 *	reserved (a NULL entry) from MODEL_CREATE until it is published.
 * @next_model_id: for xa_alloc_cyclic(): ids are not reused until they
 *	wrap, so that a debugfs ``models`` reader's place stays put.
 * @arena_lock: see below.
 * @arena: the activation arena the models without a private one share
 *	(jobs run one at a time): @arena_region or NULL.
 * @arena_region: backs @arena, so that placing it allocates nothing.
 * @arena_busy: a job runs in @arena.
 * @debugfs: debugfs directory.
 * @fence_seqno: the last job's number (its fence's seqno).
 * @open_files: number of open files, for diagnostics.
 */
struct npa_device {
	struct miscdevice misc;
	unsigned int index;
	char name[16];
	struct device *npu_dev;
	struct npa_carveout carveout;
	struct npa_sim sim;
	struct npa_npu *npu;
	/* Protects the published entries of @models. */
	struct mutex lock;
	struct xarray models;
	u32 next_model_id;
	/* Protects @arena, @arena_region and @arena_busy; taken before @lock. */
	struct mutex arena_lock;
	struct npa_region *arena;
	struct npa_region arena_region;
	bool arena_busy;
	struct dentry *debugfs;
	atomic64_t fence_seqno;
	atomic_t open_files;
	/*
	 * Protects @mappings, @map_seq and each mapping's users and ready;
	 * never held across a call into a dma-buf's exporter.
	 */
	struct mutex map_lock;
	/* Foreign dma-bufs mapped for the NPU, one mapping each (npa_buffer.c). */
	DECLARE_HASHTABLE(mappings, 6);
	/* Bumped, and @map_wq woken, when a mapping is made or torn down. */
	unsigned long map_seq;
	wait_queue_head_t map_wq;
};

void npa_file_init(struct npa_file *nfile, struct npa_device *ndev);
struct npa_file *npa_file_get(struct npa_file *nfile);
void npa_file_put(struct npa_file *nfile);

#endif /* __NPA_DEVICE_H__ */
