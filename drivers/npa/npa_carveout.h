/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npa: the contiguous DMA carveout.
 */
#ifndef __NPA_CARVEOUT_H__
#define __NPA_CARVEOUT_H__

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>

struct device;
struct file;
struct gen_pool;
struct sg_table;
struct vm_area_struct;

enum npa_carveout_source {
	NPA_CARVEOUT_NONE,
	NPA_CARVEOUT_RESERVED_MEM,	/* device tree reserved-memory node */
	NPA_CARVEOUT_MEMMAP,		/* memmap= on the command line */
	NPA_CARVEOUT_COHERENT,		/* dma_alloc_coherent(), CMA if any */
};

/**
 * struct npa_carveout - one contiguous region and its range allocator
 * @dev: the device it belongs to.
 * @source: where the memory came from.
 * @vaddr: kernel mapping of the whole region.
 * @dma: device (bus) address of the start.
 * @phys: physical address of the start, for mmap (memmap= only).
 * @size: bytes.
 * @pool: the kernel's range allocator over [0, @size) (offsets + 1 so that
 *	offset 0 is not the failure value).
 * @lock: see below.
 * @regions: allocations, for the debugfs map and accounting.
 * @used: bytes allocated.
 */
struct npa_carveout {
	struct device *dev;
	enum npa_carveout_source source;
	void *vaddr;
	dma_addr_t dma;
	phys_addr_t phys;
	size_t size;
	struct gen_pool *pool;
	/* Protects @regions and @used. */
	struct mutex lock;
	struct list_head regions;
	size_t used;
};

/**
 * struct npa_region - one allocation in the carveout
 * @node: in &npa_carveout.regions.
 * @offset: bytes from the carveout's start.
 * @size: bytes.
 * @vaddr: kernel address.
 * @owner: what it is for, for the debugfs map.
 */
struct npa_region {
	struct list_head node;
	u64 offset;
	size_t size;
	void *vaddr;
	char owner[32];
};

int npa_carveout_init(struct npa_carveout *co, struct device *dev,
		      phys_addr_t base, size_t size);
void npa_carveout_fini(struct npa_carveout *co);
struct npa_region *npa_carveout_alloc(struct npa_carveout *co, u64 bytes,
				      const char *owner);
void npa_carveout_free(struct npa_carveout *co, struct npa_region *r);
int npa_carveout_place(struct npa_carveout *co, struct npa_region *r,
		       u64 bytes, const char *owner);
void npa_carveout_remove(struct npa_carveout *co, struct npa_region *r);
int npa_carveout_get_sgtable(struct npa_carveout *co, struct npa_region *r,
			     struct sg_table *sgt);
int npa_carveout_seq_open(struct file *file, struct npa_carveout *co);
int npa_carveout_mmap(struct npa_carveout *co, struct npa_region *r,
		      struct vm_area_struct *vma);
size_t npa_carveout_used(struct npa_carveout *co);
size_t npa_carveout_smaller(size_t size, size_t want);

#endif /* __NPA_CARVEOUT_H__ */
