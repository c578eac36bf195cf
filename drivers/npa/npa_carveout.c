// SPDX-License-Identifier: GPL-2.0
/*
 * npa: the contiguous DMA carveout.
 */

/**
 * DOC: carveout
 *
 * All memory the NPU reaches comes from one physically contiguous region,
 * taken, in order of preference, from:
 *
 * 1. a ``reserved-memory`` node (``shared-dma-pool``) bound to the device in
 *    the device tree, through of_reserved_mem_device_init();
 * 2. memory reserved on the kernel command line with ``memmap=SIZE$BASE``,
 *    named by the ``carveout_base`` and ``carveout_size`` module
 *    parameters and mapped with memremap();
 * 3. otherwise dma_alloc_coherent() of ``carveout_size`` bytes, which comes
 *    from CMA when the kernel has it.  Without CMA a large contiguous
 *    allocation fails; the size is then halved, in whole pages, down to
 *    4 MiB (or to the size asked for, when that is less).
 *
 * The region is managed by the kernel's range allocator (gen_pool, best
 * fit, page granular), never by a list of our own; the list kept here only
 * records owners for debugfs.  gen_pool is safe without locking for
 * allocation and freeing; @lock only covers that bookkeeping.
 */

#include <kunit/visibility.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/genalloc.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/of.h>
#include <linux/of_reserved_mem.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sizes.h>

#include "npa_carveout.h"

/* gen_pool returns 0 on failure: keep offsets at +PAGE_SIZE. */
#define NPA_CO_BIAS	PAGE_SIZE

/* Size of the reserved-memory region bound to @dev, or @size. */
static size_t npa_carveout_rmem_size(struct device *dev, size_t size)
{
	struct device_node *np;
	struct reserved_mem *rmem;

	np = of_parse_phandle(dev->of_node, "memory-region", 0);
	rmem = np ? of_reserved_mem_lookup(np) : NULL;
	of_node_put(np);
	return rmem ? rounddown(rmem->size, PAGE_SIZE) : size;
}

/**
 * npa_carveout_smaller() - the next size to try when @size was not there
 * @size: bytes that could not be allocated.
 * @want: bytes first asked for.
 *
 * Half of @size in whole pages (a carveout is page granular), down to
 * 4 MiB, or down to @want when that is less (a small reserved-memory pool
 * is taken whole).
 *
 * Context: Any context.
 * Return: the size, or 0 when nothing smaller is worth trying.
 */
size_t npa_carveout_smaller(size_t size, size_t want)
{
	size_t half = rounddown(size / 2, PAGE_SIZE);

	return half && half >= min_t(size_t, want, SZ_4M) ? half : 0;
}
EXPORT_SYMBOL_IF_KUNIT(npa_carveout_smaller);

static int npa_carveout_map(struct npa_carveout *co, phys_addr_t base,
			    size_t size)
{
	struct device *dev = co->dev;
	size_t want;

	if (dev->of_node && !of_reserved_mem_device_init(dev)) {
		/*
		 * The reserved-memory pool now backs the coherent allocator:
		 * take all of it.
		 */
		co->source = NPA_CARVEOUT_RESERVED_MEM;
		size = npa_carveout_rmem_size(dev, size);
	} else if (base && size) {
		phys_addr_t end;

		/*
		 * Only memory memmap= took from the kernel, and only once:
		 * on System RAM memremap() would return the kernel's own
		 * mapping of live pages, which the regions hand to userspace.
		 */
		if (check_add_overflow(base, (phys_addr_t)size, &end) ||
		    region_intersects(base, size, IORESOURCE_SYSTEM_RAM,
				      IORES_DESC_NONE) != REGION_DISJOINT) {
			dev_err(dev, "carveout %pa+%zu is System RAM: reserve it with memmap=\n",
				&base, size);
			return -EINVAL;
		}
		if (!request_mem_region(base, size, dev_name(dev))) {
			dev_err(dev, "carveout %pa+%zu is in use\n", &base, size);
			return -EBUSY;
		}
		co->vaddr = memremap(base, size, MEMREMAP_WB);
		if (!co->vaddr) {
			release_mem_region(base, size);
			dev_err(dev, "cannot map carveout %pa+%zu\n", &base, size);
			return -ENOMEM;
		}
		co->phys = base;
		co->dma = base;
		co->size = size;
		co->source = NPA_CARVEOUT_MEMMAP;
		return 0;
	}

	want = size;
	for (; size; size = npa_carveout_smaller(size, want)) {
		co->vaddr = dma_alloc_coherent(dev, size, &co->dma,
					       GFP_KERNEL | __GFP_NOWARN);
		if (co->vaddr)
			break;
	}
	if (!co->vaddr) {
		if (co->source == NPA_CARVEOUT_RESERVED_MEM)
			of_reserved_mem_device_release(dev);
		return -ENOMEM;
	}
	/* A no-map pool hands out power-of-two blocks only. */
	if (co->source == NPA_CARVEOUT_RESERVED_MEM && size < want)
		dev_warn(dev, "carveout: %zu of the reserved region's %zu bytes (make it a power of two)\n",
			 size, want);
	co->size = size;
	if (co->source != NPA_CARVEOUT_RESERVED_MEM)
		co->source = NPA_CARVEOUT_COHERENT;
	return 0;
}

/**
 * npa_carveout_init() - find, map and manage the carveout
 * @co: zeroed carveout.
 * @dev: the NPU device; it must have a DMA mask.
 * @base: physical base of memory reserved with memmap=, or 0.
 * @size: bytes wanted (with @base: bytes reserved).
 *
 * Context: Process context; sleeps.
 * Return: 0 or a negative errno.
 */
int npa_carveout_init(struct npa_carveout *co, struct device *dev,
		      phys_addr_t base, size_t size)
{
	int ret;

	co->dev = dev;
	mutex_init(&co->lock);
	INIT_LIST_HEAD(&co->regions);
	if (!size || base % PAGE_SIZE || size % PAGE_SIZE)
		return -EINVAL;

	ret = npa_carveout_map(co, base, size);
	if (ret)
		return ret;

	co->pool = gen_pool_create(PAGE_SHIFT, dev_to_node(dev));
	if (!co->pool) {
		ret = -ENOMEM;
		goto err_unmap;
	}
	gen_pool_set_algo(co->pool, gen_pool_best_fit, NULL);
	ret = gen_pool_add(co->pool, NPA_CO_BIAS, co->size, dev_to_node(dev));
	if (ret)
		goto err_destroy;

	dev_info(dev, "carveout: %zu MiB at %pad (%s)\n", co->size >> 20,
		 &co->dma, co->source == NPA_CARVEOUT_MEMMAP ? "memmap" :
		 co->source == NPA_CARVEOUT_RESERVED_MEM ? "reserved-memory" :
		 "coherent");
	return 0;

err_destroy:
	gen_pool_destroy(co->pool);
	co->pool = NULL;
err_unmap:
	npa_carveout_fini(co);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(npa_carveout_init);

/**
 * npa_carveout_fini() - release the carveout
 * @co: the carveout; every region must have been freed.
 *
 * Context: Process context; sleeps.
 */
void npa_carveout_fini(struct npa_carveout *co)
{
	WARN_ON_ONCE(!list_empty(&co->regions));
	if (co->pool)
		gen_pool_destroy(co->pool);
	co->pool = NULL;
	if (co->source == NPA_CARVEOUT_MEMMAP) {
		memunmap(co->vaddr);
		release_mem_region(co->phys, co->size);
	} else if (co->vaddr) {
		dma_free_coherent(co->dev, co->size, co->vaddr, co->dma);
	}
	if (co->source == NPA_CARVEOUT_RESERVED_MEM)
		of_reserved_mem_device_release(co->dev);
	co->vaddr = NULL;
	co->source = NPA_CARVEOUT_NONE;
	mutex_destroy(&co->lock);
}
EXPORT_SYMBOL_IF_KUNIT(npa_carveout_fini);

/**
 * npa_carveout_place() - allocate and zero a page-aligned region, in a
 *	struct the caller provides
 * @co: the carveout.
 * @r: where to keep the region; the caller owns it, and it must not hold
 *	a region already.
 * @bytes: size; rounded up to a page.
 * @owner: short description for debugfs.
 *
 * Allocates no memory of the kernel's: the NPU's queue, which must not
 * wait for memory reclaim, places the shared activation arena with it.
 *
 * Context: Process context; takes @co->lock.
 * Return: 0; -ENOSPC when the carveout has no room for it, -ENODEV when
 * there is no carveout, -EINVAL for 0 bytes.
 */
int npa_carveout_place(struct npa_carveout *co, struct npa_region *r,
		       u64 bytes, const char *owner)
{
	unsigned long addr;
	size_t size;

	if (!co->pool)
		return -ENODEV;
	if (!bytes)
		return -EINVAL;
	/* Before the cast: a planned arena is a u64 on 32-bit kernels too. */
	if (bytes > co->size)
		return -ENOSPC;
	size = PAGE_ALIGN(bytes);
	addr = gen_pool_alloc(co->pool, size);
	if (!addr)
		return -ENOSPC;
	r->offset = addr - NPA_CO_BIAS;
	r->size = size;
	r->vaddr = co->vaddr + r->offset;
	strscpy(r->owner, owner, sizeof(r->owner));
	memset(r->vaddr, 0, size);

	mutex_lock(&co->lock);
	list_add_tail(&r->node, &co->regions);
	co->used += size;
	mutex_unlock(&co->lock);
	return 0;
}

/**
 * npa_carveout_remove() - free a region npa_carveout_place() placed
 * @co: the carveout.
 * @r: the region; the caller still owns the struct.
 *
 * Context: Process context; takes @co->lock.
 */
void npa_carveout_remove(struct npa_carveout *co, struct npa_region *r)
{
	mutex_lock(&co->lock);
	list_del(&r->node);
	co->used -= r->size;
	mutex_unlock(&co->lock);
	gen_pool_free(co->pool, r->offset + NPA_CO_BIAS, r->size);
}

/**
 * npa_carveout_alloc() - allocate and zero a page-aligned region
 * @co: the carveout.
 * @bytes: size; rounded up to a page.
 * @owner: short description for debugfs.
 *
 * Context: Process context; sleeps.
 * Return: the region; ERR_PTR(-ENOSPC) when the carveout has no room for
 * it, -ENODEV when there is no carveout, -EINVAL for 0 bytes, -ENOMEM.
 */
struct npa_region *npa_carveout_alloc(struct npa_carveout *co, u64 bytes,
				      const char *owner)
{
	struct npa_region *r;
	int ret;

	if (!co->pool)
		return ERR_PTR(-ENODEV);
	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return ERR_PTR(-ENOMEM);
	ret = npa_carveout_place(co, r, bytes, owner);
	if (ret) {
		kfree(r);
		return ERR_PTR(ret);
	}
	return r;
}

/**
 * npa_carveout_free() - free a region
 * @co: the carveout.
 * @r: a region from npa_carveout_alloc(), or NULL.
 *
 * Context: Process context; sleeps.
 */
void npa_carveout_free(struct npa_carveout *co, struct npa_region *r)
{
	if (!r)
		return;
	npa_carveout_remove(co, r);
	kfree(r);
}

/**
 * npa_carveout_get_sgtable() - the pages of a region, for another device
 * @co: the carveout.
 * @r: the region.
 * @sgt: out: one entry covering @r, with its struct pages and no DMA
 *	mapping yet; release with sg_free_table().
 *
 * The carveout is one physically contiguous range, so one entry covers any
 * region.  Memory from memmap= has struct pages where the kernel's memory
 * map covers it; the coherent allocation and the reserved-memory pool are
 * asked through the DMA API (dma_get_sgtable()), which is the only one that
 * knows where a remapped allocation lives.
 *
 * Context: Process context; sleeps.
 * Return: 0; -EOPNOTSUPP when the region has no struct pages or the
 * allocation is not one contiguous range; -ENOMEM.
 */
int npa_carveout_get_sgtable(struct npa_carveout *co, struct npa_region *r,
			     struct sg_table *sgt)
{
	unsigned long pfn;
	int ret;

	if (co->source == NPA_CARVEOUT_MEMMAP) {
		pfn = PHYS_PFN(co->phys + r->offset);
		ret = sg_alloc_table(sgt, 1, GFP_KERNEL);
		if (ret)
			return ret;
	} else {
		ret = dma_get_sgtable(co->dev, sgt, co->vaddr, co->dma,
				      co->size);
		if (ret)
			return ret == -ENXIO ? -EOPNOTSUPP : ret;
		if (sgt->orig_nents != 1) {
			sg_free_table(sgt);
			return -EOPNOTSUPP;
		}
		pfn = page_to_pfn(sg_page(sgt->sgl)) +
		      (r->offset >> PAGE_SHIFT);
	}
	if (!pfn_valid(pfn) || !pfn_valid(pfn + (r->size >> PAGE_SHIFT) - 1)) {
		sg_free_table(sgt);
		return -EOPNOTSUPP;
	}
	sg_set_page(sgt->sgl, pfn_to_page(pfn), r->size, 0);
	return 0;
}

/**
 * npa_carveout_mmap() - map part of a region into user space
 * @co: the carveout.
 * @r: the region.
 * @vma: the mapping; its page offset counts from the start of @r and the
 *	caller has checked that it stays inside @r.
 *
 * Memory from memmap= is mapped like the kernel maps it (write-back); the
 * coherent allocation and the reserved-memory pool go through the DMA API,
 * which gives user space the same attributes as the kernel's mapping (on a
 * non-coherent arm64 NPU: non-cacheable).
 *
 * Context: Process context, mmap lock held.
 * Return: 0 or a negative errno.
 */
int npa_carveout_mmap(struct npa_carveout *co, struct npa_region *r,
		      struct vm_area_struct *vma)
{
	unsigned long pgoff = vma->vm_pgoff;
	int ret;

	if (co->source == NPA_CARVEOUT_MEMMAP)
		return remap_pfn_range(vma, vma->vm_start,
				       PHYS_PFN(co->phys + r->offset) + pgoff,
				       vma->vm_end - vma->vm_start,
				       vma->vm_page_prot);
	/* dma_mmap_coherent() reads the offset in the allocation from here. */
	vma->vm_pgoff = pgoff + (r->offset >> PAGE_SHIFT);
	ret = dma_mmap_coherent(co->dev, vma, co->vaddr, co->dma, co->size);
	vma->vm_pgoff = pgoff;
	return ret;
}

size_t npa_carveout_used(struct npa_carveout *co)
{
	size_t used;

	mutex_lock(&co->lock);
	used = co->used;
	mutex_unlock(&co->lock);
	return used;
}

/*
 * debugfs ``carveout``: a line for the carveout, then one per region.
 * @co->lock is held from start to stop, which seq_file keeps to one page
 * of output a read(): the NPU's queue places the shared arena under the
 * same lock, so a reader must not hold it for the whole map.
 */
static void *npa_carveout_seq_start(struct seq_file *m, loff_t *pos)
{
	struct npa_carveout *co = m->private;

	mutex_lock(&co->lock);
	return seq_list_start_head(&co->regions, *pos);
}

static void *npa_carveout_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct npa_carveout *co = m->private;

	return seq_list_next(v, &co->regions, pos);
}

static void npa_carveout_seq_stop(struct seq_file *m, void *v)
{
	struct npa_carveout *co = m->private;

	mutex_unlock(&co->lock);
}

static int npa_carveout_seq_show(struct seq_file *m, void *v)
{
	struct npa_carveout *co = m->private;
	const struct npa_region *r;

	if (v == &co->regions) {
		seq_printf(m, "carveout %zu bytes, %zu used, %zu free\n",
			   co->size, co->used,
			   co->pool ? gen_pool_avail(co->pool) : 0);
		return 0;
	}
	r = list_entry(v, struct npa_region, node);
	seq_printf(m, "%#010llx-%#010llx %8zu KiB %s\n", r->offset,
		   r->offset + r->size, r->size >> 10, r->owner);
	return 0;
}

static const struct seq_operations npa_carveout_seq_ops = {
	.start = npa_carveout_seq_start,
	.next = npa_carveout_seq_next,
	.stop = npa_carveout_seq_stop,
	.show = npa_carveout_seq_show,
};

/**
 * npa_carveout_seq_open() - open debugfs ``carveout``: the carveout map
 * @file: the file.
 * @co: the carveout.
 *
 * Release it with seq_release().
 *
 * Context: Process context.
 * Return: 0 or -ENOMEM.
 */
int npa_carveout_seq_open(struct file *file, struct npa_carveout *co)
{
	int ret = seq_open(file, &npa_carveout_seq_ops);

	if (!ret)
		((struct seq_file *)file->private_data)->private = co;
	return ret;
}
