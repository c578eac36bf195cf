/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npa: models, i.e. planned graphs owned by an open file.
 */
#ifndef __NPA_MODEL_H__
#define __NPA_MODEL_H__

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/types.h>

#include "npa_graph.h"

struct file;
struct inode;
struct npa_file;
struct npa_ioctl_out;
struct npa_device;
struct npa_region;

/* Most models one open file may hold (-EDQUOT beyond). */
#define NPA_MAX_MODELS_PER_FILE	64

/**
 * struct npa_model - a validated, planned graph
 * @handle: its id in the owning file's model table.
 * @flags: NPA_MODEL_* from creation.
 * @ir: the internal model validation built of userspace's graph: all
 *	that is kept of it.
 * @plan: placements and the plan report.
 * @ref: held by the file's model table and by every job that runs it.
 * @ndev: the device.
 * @id: its index in &npa_device.models, unique on the device (handles
 *	are per file).
 * @binds: ids of the tensors bound to buffers at submit (inputs, outputs,
 *	constants, persistent), in id order.
 * @num_binds: entries in @binds.
 * @arena: the private arena (NPA_MODEL_PRIVATE_ARENA), else NULL.
 * @shares_arena: its jobs run in the shared activation arena, whose size
 *	it may raise: it has no private arena, it can run, and its arena
 *	fits in the carveout (npa_model_create()).
 */
struct npa_model {
	struct kref ref;
	struct npa_device *ndev;
	u32 id;
	u32 *binds;
	u32 num_binds;
	struct npa_region *arena;
	bool shares_arena;
	u32 handle;
	u32 flags;
	struct npa_ir ir;
	struct npa_layout plan;
};

void npa_model_free(struct npa_model *model);
void npa_model_put(struct npa_model *model);
struct npa_model *npa_model_lookup(struct npa_file *nfile, u32 handle);
int npa_model_seq_open(struct inode *inode, struct file *file);
void npa_model_arena_stats(struct npa_device *ndev, u64 *shared, u64 *private,
			   u64 *need_private);
void npa_model_release_all(struct npa_file *nfile);
struct npa_region *npa_model_arena_get(struct npa_model *model);
void npa_model_arena_put(struct npa_model *model);
void npa_model_arena_fini(struct npa_device *ndev);
void npa_model_report(const struct npa_model *model,
		      struct npa_model_create *args);

int npa_ioctl_model_create(struct npa_file *nfile, void *data,
			   struct npa_ioctl_out *out);
int npa_ioctl_model_plan(struct npa_file *nfile, void *data,
			 struct npa_ioctl_out *out);
int npa_ioctl_model_destroy(struct npa_file *nfile, void *data,
			    struct npa_ioctl_out *out);

#endif /* __NPA_MODEL_H__ */
