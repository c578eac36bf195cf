/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npa: IO buffers as dma-bufs.
 */
#ifndef __NPA_BUFFER_H__
#define __NPA_BUFFER_H__

#include <linux/dma-buf.h>
#include <linux/iosys-map.h>
#include <linux/types.h>

struct npa_device;
struct npa_file;
struct npa_ioctl_out;
struct npa_region;

/* Most buffers one open file may have alive (-EDQUOT beyond). */
#define NPA_MAX_BUFFERS_PER_FILE	256

/**
 * struct npa_buffer - an IO buffer npa exported
 * @ndev: the device whose carveout holds it.
 * @nfile: the file that created it (a reference), for its buffer count.
 * @region: its place in the carveout.
 * @size: bytes.
 */
struct npa_buffer {
	struct npa_device *ndev;
	struct npa_file *nfile;
	struct npa_region *region;
	size_t size;
};

/**
 * struct npa_mapping - a foreign dma-buf attached and mapped for the NPU
 * @node: in the device's @mappings, hashed by @dmabuf.
 * @ndev: the device.
 * @dmabuf: the buffer (a reference of the mapping's own).
 * @attach: the NPU's attachment.
 * @sgt: the mapping for the NPU.
 * @map: the exporter's kernel mapping, for the simulated NPU.
 * @vaddr: kernel address of the start.
 * @users: imports that hold it (under the device's @map_lock).
 * @ready: mapped and not yet torn down; while it is false another user
 *	waits (under @map_lock).
 * @vmapped: @vaddr is our vmap() of the pages, not the exporter's.
 *
 * One per buffer and device, shared by every job that binds the buffer:
 * two live mappings of one buffer overlap, which the DMA API does not
 * support (DMA-API debugging: "cacheline tracking EEXIST").
 */
struct npa_mapping {
	struct hlist_node node;
	struct npa_device *ndev;
	struct dma_buf *dmabuf;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	struct iosys_map map;
	void *vaddr;
	unsigned int users;
	bool ready;
	bool vmapped;
};

/**
 * struct npa_import - a dma-buf a job uses, ours or another exporter's
 * @dmabuf: the buffer (a reference).
 * @mapping: a foreign buffer's mapping for the NPU (a reference), else NULL.
 * @vaddr: kernel address of the start.
 * @size: bytes.
 * @alias: another import of the same job holds the same @mapping and
 *	syncs it (npa_import_mark_aliases()).
 */
struct npa_import {
	struct dma_buf *dmabuf;
	struct npa_mapping *mapping;
	void *vaddr;
	size_t size;
	bool alias;
};

struct dma_buf *npa_buffer_export(struct npa_file *nfile, u64 size);
int npa_ioctl_buffer_create(struct npa_file *nfile, void *data,
			    struct npa_ioctl_out *out);
int npa_import_get(struct npa_device *ndev, int fd, struct npa_import *imp);
int npa_import_mark_aliases(struct npa_import *imps, u32 n);
void npa_import_sync(struct npa_import *imp, bool cpu);
void npa_import_put(struct npa_import *imp);

#endif /* __NPA_BUFFER_H__ */
