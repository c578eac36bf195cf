// SPDX-License-Identifier: GPL-2.0
/*
 * npa: IO buffers as dma-bufs.
 */

/**
 * DOC: buffers
 *
 * NPA_IOCTL_BUFFER_CREATE allocates a zeroed, page-aligned region of the
 * carveout and exports it as a dma-buf.  Its fd is installed only after
 * its number was copied to userspace: a caller whose argument cannot be
 * written gets -EFAULT and no buffer.  Userspace maps it with mmap() and
 * brackets CPU access with DMA_BUF_IOCTL_SYNC; the carveout is cache
 * coherent (write-back memory the simulated NPU reaches through the CPU),
 * so begin/end_cpu_access have nothing to flush.  Another device may
 * import it (DRM PRIME, V4L2): each attachment is mapped for the device
 * that attached, through that device's DMA mask and IOMMU, never with the
 * NPU's bus address.  The buffer lives as long as the dma-buf: it outlives
 * the npa file that created it, which the buffer keeps a reference to, and
 * pins the module.
 *
 * Jobs bind tensors to dma-buf fds.  A buffer npa exported is used in
 * place.  A foreign one (udmabuf, a camera) is attached to the NPU device
 * and mapped with dma_buf_map_attachment(), then vmapped, because the
 * simulated NPU reaches memory through the CPU: with the exporter's vmap,
 * or, for exporters without one (udmabuf in 6.1), by mapping the pages
 * behind the bus addresses mapped for the NPU: the physical pages with
 * direct DMA, or what the NPU's IOMMU translates them to
 * (iommu_iova_to_phys()) behind an IOMMU.
 */

#include <kunit/visibility.h>
#include <linux/dma-buf.h>
#include <linux/dma-direct.h>
#include <linux/dma-mapping.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/iommu.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <linux/npa.h>

#include "npa_buffer.h"
#include "npa_carveout.h"
#include "npa_compat.h"
#include "npa_device.h"
#include "npa_npu.h"
#include "npa_uaccess.h"

MODULE_IMPORT_NS(DMA_BUF);

static const struct dma_buf_ops npa_dmabuf_ops;

/*
 * Can @dev reach the carveout pages of @sgt where they are?  A device
 * behind an IOMMU gets an I/O virtual address for any page.  Without one,
 * a page beyond the device's DMA mask (or its bus limit) would be bounced
 * through swiotlb: the importer would then see a copy, not the buffer
 * userspace and the NPU share, so it is refused instead.
 */
static int npa_dmabuf_reachable(struct device *dev, struct sg_table *sgt)
{
	struct scatterlist *sg = sgt->sgl;

	if (!dev->dma_mask)
		return -EOPNOTSUPP;
	if (device_iommu_mapped(dev))
		return 0;
	if (!dma_capable(dev, phys_to_dma(dev, sg_phys(sg)), sg->length, true))
		return -ERANGE;
	return 0;
}

/*
 * Map the buffer for the device that attached (attach->dev), the NPU or
 * an importer: the NPU's bus address means nothing to another device.
 * The carveout is coherent and CPU access is bracketed by
 * DMA_BUF_IOCTL_SYNC, so the mapping skips the CPU cache maintenance, as
 * drm_gem_map_dma_buf() does.
 *
 * Return: the mapping, or an ERR_PTR(): -EOPNOTSUPP if the device does no
 * DMA or the carveout has no struct pages; -ERANGE if the buffer lies
 * beyond what the device can address; -ENOMEM; or the DMA API's errno.
 */
static struct sg_table *npa_dmabuf_map(struct dma_buf_attachment *attach,
				       enum dma_data_direction dir)
{
	struct npa_buffer *buf = attach->dmabuf->priv;
	struct sg_table *sgt;
	int ret;

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	ret = npa_carveout_get_sgtable(&buf->ndev->carveout, buf->region, sgt);
	if (ret)
		goto err_free;
	ret = npa_dmabuf_reachable(attach->dev, sgt);
	if (ret)
		goto err_table;
	ret = dma_map_sgtable(attach->dev, sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
	if (ret)
		goto err_table;
	return sgt;

err_table:
	sg_free_table(sgt);
err_free:
	kfree(sgt);
	return ERR_PTR(ret);
}

static void npa_dmabuf_unmap(struct dma_buf_attachment *attach,
			     struct sg_table *sgt, enum dma_data_direction dir)
{
	dma_unmap_sgtable(attach->dev, sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
	sg_free_table(sgt);
	kfree(sgt);
}

static int npa_dmabuf_mmap(struct dma_buf *dmabuf, struct vm_area_struct *vma)
{
	struct npa_buffer *buf = dmabuf->priv;
	struct npa_carveout *co = &buf->ndev->carveout;
	unsigned long size = vma->vm_end - vma->vm_start;
	unsigned long off = vma->vm_pgoff << PAGE_SHIFT;

	if (off >= buf->size || size > buf->size - off)
		return -EINVAL;
	/* A private copy of a page is one the NPU never sees. */
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	vm_flags_set(vma, VM_IO | VM_DONTEXPAND | VM_DONTDUMP);
	return npa_carveout_mmap(co, buf->region, vma);
}

static int npa_dmabuf_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct npa_buffer *buf = dmabuf->priv;

	iosys_map_set_vaddr(map, buf->region->vaddr);
	return 0;
}

static int npa_dmabuf_cpu_access(struct dma_buf *dmabuf,
				 enum dma_data_direction dir)
{
	/* Coherent memory: nothing to flush or invalidate. */
	return 0;
}

static void npa_dmabuf_release(struct dma_buf *dmabuf)
{
	struct npa_buffer *buf = dmabuf->priv;

	npa_carveout_free(&buf->ndev->carveout, buf->region);
	atomic_dec(&buf->nfile->num_buffers);
	npa_file_put(buf->nfile);
	kfree(buf);
}

static const struct dma_buf_ops npa_dmabuf_ops = {
	.map_dma_buf = npa_dmabuf_map,
	.unmap_dma_buf = npa_dmabuf_unmap,
	.mmap = npa_dmabuf_mmap,
	.vmap = npa_dmabuf_vmap,
	.begin_cpu_access = npa_dmabuf_cpu_access,
	.end_cpu_access = npa_dmabuf_cpu_access,
	.release = npa_dmabuf_release,
};

/**
 * npa_buffer_export() - allocate a buffer in the carveout as a dma-buf
 * @nfile: the file it is counted against.
 * @size: bytes, rounded up to a page.
 *
 * Context: Process context; sleeps.
 * Return: the dma-buf (drop it with dma_buf_put(), which frees the
 * buffer), or an ERR_PTR(): -ENODEV without an NPU, -EINVAL for a @size of
 * 0 or above the carveout, -EDQUOT when @nfile holds
 * NPA_MAX_BUFFERS_PER_FILE buffers, -ENOSPC when the carveout has no room,
 * -ENOMEM.
 */
struct dma_buf *npa_buffer_export(struct npa_file *nfile, u64 size)
{
	struct npa_device *ndev = nfile->ndev;
	DEFINE_DMA_BUF_EXPORT_INFO(exp);
	struct npa_buffer *buf;
	struct dma_buf *dmabuf;
	int ret;

	if (!ndev->carveout.pool)
		return ERR_PTR(-ENODEV);
	if (!size || size > ndev->carveout.size)
		return ERR_PTR(-EINVAL);
	if (atomic_inc_return(&nfile->num_buffers) > NPA_MAX_BUFFERS_PER_FILE) {
		ret = -EDQUOT;
		goto err_count;
	}

	buf = kzalloc(sizeof(*buf), GFP_KERNEL_ACCOUNT);
	if (!buf) {
		ret = -ENOMEM;
		goto err_count;
	}
	buf->ndev = ndev;
	buf->size = PAGE_ALIGN(size);
	buf->region = npa_carveout_alloc(&ndev->carveout, buf->size, "buffer");
	if (IS_ERR(buf->region)) {
		ret = PTR_ERR(buf->region);
		goto err_free;
	}
	buf->nfile = npa_file_get(nfile);

	exp.ops = &npa_dmabuf_ops;
	exp.size = buf->size;
	exp.flags = O_RDWR;
	exp.priv = buf;
	exp.owner = THIS_MODULE;
	dmabuf = dma_buf_export(&exp);
	if (IS_ERR(dmabuf)) {
		ret = PTR_ERR(dmabuf);
		goto err_region;
	}
	/* From here on, the dma-buf's release frees everything. */
	return dmabuf;

err_region:
	npa_file_put(buf->nfile);
	npa_carveout_free(&ndev->carveout, buf->region);
err_free:
	kfree(buf);
err_count:
	atomic_dec(&nfile->num_buffers);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_IF_KUNIT(npa_buffer_export);

int npa_ioctl_buffer_create(struct npa_file *nfile, void *data,
			    struct npa_ioctl_out *out)
{
	struct npa_buffer_create *args = data;
	struct dma_buf *dmabuf;
	int fd, ret;

	if (args->flags & ~NPA_BUFFER_CREATE_FLAGS_ALL || args->reserved)
		return -EINVAL;
	dmabuf = npa_buffer_export(nfile, args->size);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto err_put;
	}

	/* The fd only becomes the caller's once the caller has its number. */
	args->fd = fd;
	ret = npa_ioctl_copy_out(out, args);
	if (ret)
		goto err_fd;
	fd_install(fd, dmabuf->file);
	return 0;

err_fd:
	put_unused_fd(fd);
err_put:
	dma_buf_put(dmabuf);
	return ret;
}

/*
 * The physical address behind the NPU's bus address @addr: through the
 * NPU's IOMMU domain when it has one (@dom), else the direct mapping's.
 * 0 when the IOMMU has nothing mapped there.
 */
static phys_addr_t npa_mapping_phys(struct device *dev,
				    struct iommu_domain *dom, dma_addr_t addr)
{
	if (dom)
		return iommu_iova_to_phys(dom, addr);
	return dma_to_phys(dev, addr);
}

/*
 * Map a foreign buffer without a vmap into the kernel: the simulated NPU
 * "does DMA" to the bus addresses the exporter mapped for it, which are
 * physical pages with direct DMA, and I/O virtual addresses that the NPU's
 * IOMMU translates behind one.  (The CPU side of the sg table is not ours
 * to use; CONFIG_DMABUF_DEBUG even scrambles it.)
 */
static int npa_mapping_vmap_pages(struct device *dev, struct npa_mapping *m,
				  size_t size)
{
	size_t n = PAGE_ALIGN(size) >> PAGE_SHIFT, i = 0;
	struct iommu_domain *dom = NULL;
	struct sg_dma_page_iter it;
	struct scatterlist *sg;
	struct page **pages;
	unsigned int k;

	if (device_iommu_mapped(dev)) {
		dom = iommu_get_domain_for_dev(dev);
		if (!dom) {
			dev_warn_ratelimited(dev, "a dma-buf without a vmap behind an IOMMU without a domain cannot be imported\n");
			return -EOPNOTSUPP;
		}
	}
	/* Whole pages only: a segment starting inside a page cannot be mapped. */
	for_each_sgtable_dma_sg(m->sgt, sg, k)
		if (!PAGE_ALIGNED(sg_dma_address(sg)) ||
		    (k + 1 < m->sgt->nents && !PAGE_ALIGNED(sg_dma_len(sg))))
			return -EOPNOTSUPP;
	pages = kvmalloc_array(n, sizeof(*pages), GFP_KERNEL_ACCOUNT);
	if (!pages)
		return -ENOMEM;
	for_each_sgtable_dma_page(m->sgt, &it, 0) {
		phys_addr_t phys = npa_mapping_phys(dev, dom,
				sg_page_iter_dma_address(&it));
		unsigned long pfn = PHYS_PFN(phys);

		if (i == n || !phys || !pfn_valid(pfn))
			break;
		pages[i++] = pfn_to_page(pfn);
	}
	if (i == n)
		m->vaddr = vmap(pages, n, VM_MAP, PAGE_KERNEL);
	kvfree(pages);
	if (!m->vaddr)
		return -EOPNOTSUPP;
	m->vmapped = true;
	return 0;
}

/* Attach @m's buffer to the NPU and map it, for the device and the kernel. */
static int npa_mapping_map(struct device *dev, struct npa_mapping *m)
{
	int ret;

	m->attach = dma_buf_attach(m->dmabuf, dev);
	if (IS_ERR(m->attach))
		return PTR_ERR(m->attach);
	m->sgt = dma_buf_map_attachment_unlocked(m->attach, DMA_BIDIRECTIONAL);
	if (IS_ERR(m->sgt)) {
		ret = PTR_ERR(m->sgt);
		goto err_detach;
	}
	ret = dma_buf_vmap_unlocked(m->dmabuf, &m->map);
	if (!ret && !m->map.is_iomem) {
		m->vaddr = m->map.vaddr;
		return 0;
	}
	if (!ret)
		dma_buf_vunmap_unlocked(m->dmabuf, &m->map);
	iosys_map_clear(&m->map);
	/* No vmap from the exporter (udmabuf in 6.1): map its pages. */
	ret = npa_mapping_vmap_pages(dev, m, m->dmabuf->size);
	if (!ret)
		return 0;

	dma_buf_unmap_attachment_unlocked(m->attach, m->sgt, DMA_BIDIRECTIONAL);
err_detach:
	dma_buf_detach(m->dmabuf, m->attach);
	return ret;
}

static void npa_mapping_unmap(struct npa_mapping *m)
{
	if (m->vmapped)
		vunmap(m->vaddr);
	else
		dma_buf_vunmap_unlocked(m->dmabuf, &m->map);
	dma_buf_unmap_attachment_unlocked(m->attach, m->sgt, DMA_BIDIRECTIONAL);
	dma_buf_detach(m->dmabuf, m->attach);
}

static struct npa_mapping *npa_mapping_find(struct npa_device *ndev,
					    const struct dma_buf *dmabuf)
{
	struct npa_mapping *m;

	lockdep_assert_held(&ndev->map_lock);
	hash_for_each_possible(ndev->mappings, m, node, (unsigned long)dmabuf)
		if (m->dmabuf == dmabuf)
			return m;
	return NULL;
}

/* A mapping was made, or is gone: wake whoever waits for one. */
static void npa_mapping_settled(struct npa_device *ndev)
{
	lockdep_assert_held(&ndev->map_lock);
	WRITE_ONCE(ndev->map_seq, ndev->map_seq + 1);
	wake_up_all(&ndev->map_wq);
}

/*
 * The NPU's mapping of @dmabuf, made if no job holds one yet.  A mapping
 * being made or torn down is waited for, so that two never overlap.
 */
static struct npa_mapping *npa_mapping_get(struct npa_device *ndev,
					   struct dma_buf *dmabuf)
{
	struct npa_mapping *m;
	unsigned long seq;
	int ret;

	for (;;) {
		mutex_lock(&ndev->map_lock);
		m = npa_mapping_find(ndev, dmabuf);
		if (!m)
			break;
		if (m->ready) {
			m->users++;
			mutex_unlock(&ndev->map_lock);
			return m;
		}
		seq = ndev->map_seq;
		mutex_unlock(&ndev->map_lock);
		if (wait_event_killable(ndev->map_wq,
					READ_ONCE(ndev->map_seq) != seq))
			return ERR_PTR(-EINTR);
	}
	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m) {
		mutex_unlock(&ndev->map_lock);
		return ERR_PTR(-ENOMEM);
	}
	m->ndev = ndev;
	m->dmabuf = dmabuf;
	get_dma_buf(dmabuf);
	m->users = 1;
	hash_add(ndev->mappings, &m->node, (unsigned long)dmabuf);
	mutex_unlock(&ndev->map_lock);

	/* Not under the lock: the exporter takes the buffer's reservation. */
	ret = npa_mapping_map(ndev->npu_dev, m);
	mutex_lock(&ndev->map_lock);
	if (ret)
		hash_del(&m->node);
	else
		m->ready = true;
	npa_mapping_settled(ndev);
	mutex_unlock(&ndev->map_lock);
	if (ret) {
		dma_buf_put(dmabuf);
		kfree(m);
		return ERR_PTR(ret);
	}
	return m;
}

static void npa_mapping_put(struct npa_mapping *m)
{
	struct npa_device *ndev = m->ndev;

	mutex_lock(&ndev->map_lock);
	if (--m->users) {
		mutex_unlock(&ndev->map_lock);
		return;
	}
	/* Stays in the table until unmapped: a new user waits for that. */
	m->ready = false;
	mutex_unlock(&ndev->map_lock);
	npa_mapping_unmap(m);
	mutex_lock(&ndev->map_lock);
	hash_del(&m->node);
	npa_mapping_settled(ndev);
	mutex_unlock(&ndev->map_lock);
	dma_buf_put(m->dmabuf);
	kfree(m);
}

/**
 * npa_import_get() - take a dma-buf fd for a job and map it for the NPU
 * @ndev: the device.
 * @fd: the fd.
 * @imp: out: the buffer; release with npa_import_put().
 *
 * A foreign buffer has one mapping for the NPU however many tensors and
 * jobs bind it: @imp takes a reference to it.  Once the job has all its
 * imports, npa_import_mark_aliases() says which of them syncs it.
 *
 * Context: Process context; sleeps.
 * Return: 0; -EBADF if @fd is not a dma-buf; -E2BIG if a foreign buffer
 * is larger than its slot of the NPU's address space; -EOPNOTSUPP if it
 * cannot be mapped into the kernel; -EINTR if killed while the buffer's
 * mapping was being made or torn down for another job; or another errno
 * from the exporter.
 */
int npa_import_get(struct npa_device *ndev, int fd, struct npa_import *imp)
{
	struct npa_mapping *m;
	int ret;

	memset(imp, 0, sizeof(*imp));
	imp->dmabuf = dma_buf_get(fd);
	if (IS_ERR(imp->dmabuf)) {
		ret = PTR_ERR(imp->dmabuf);
		imp->dmabuf = NULL;
		return ret == -EINVAL ? -EBADF : ret;
	}
	imp->size = imp->dmabuf->size;

	if (imp->dmabuf->ops == &npa_dmabuf_ops) {
		struct npa_buffer *buf = imp->dmabuf->priv;

		if (buf->ndev != ndev) {
			ret = -EXDEV;
			goto err_put;
		}
		imp->vaddr = buf->region->vaddr;
		return 0;
	}

	/* Each foreign buffer has one slot of the NPU's address space. */
	if (imp->size > NPA_VA_SLOT_SIZE) {
		ret = -E2BIG;
		goto err_put;
	}
	m = npa_mapping_get(ndev, imp->dmabuf);
	if (IS_ERR(m)) {
		ret = PTR_ERR(m);
		goto err_put;
	}
	imp->mapping = m;
	imp->vaddr = m->vaddr;
	return 0;

err_put:
	dma_buf_put(imp->dmabuf);
	imp->dmabuf = NULL;
	return ret;
}

/* By mapping, then by place in the job's array: the first of a run syncs. */
static int npa_import_cmp(const void *a, const void *b)
{
	const struct npa_import *x = *(const struct npa_import * const *)a;
	const struct npa_import *y = *(const struct npa_import * const *)b;

	if (x->mapping != y->mapping)
		return x->mapping < y->mapping ? -1 : 1;
	return x < y ? -1 : x > y;
}

/**
 * npa_import_mark_aliases() - one import per foreign mapping syncs it
 * @imps: a job's imports, all taken with npa_import_get().
 * @n: entries in @imps.
 *
 * Sets @alias on every import of a foreign buffer but the first one that
 * holds the same mapping.  A sort, not a search of the imports before each
 * one: a job may bind one buffer 65,535 times.
 *
 * Context: Process context; sleeps.
 * Return: 0 or -ENOMEM.
 */
int npa_import_mark_aliases(struct npa_import *imps, u32 n)
{
	struct npa_import **byp;
	u32 i, k = 0;

	for (i = 0; i < n; i++)
		k += !!imps[i].mapping;
	if (k < 2)
		return 0;
	byp = kvmalloc_array(k, sizeof(*byp), GFP_KERNEL_ACCOUNT);
	if (!byp)
		return -ENOMEM;
	for (i = 0, k = 0; i < n; i++)
		if (imps[i].mapping)
			byp[k++] = &imps[i];
	sort(byp, k, sizeof(*byp), npa_import_cmp, NULL);
	for (i = 1; i < k; i++)
		byp[i]->alias = byp[i]->mapping == byp[i - 1]->mapping;
	kvfree(byp);
	return 0;
}

/**
 * npa_import_sync() - pass a foreign buffer between its device mapping and
 *	the CPU that plays the NPU
 * @imp: an import; npa's own buffers and aliases are left alone.
 * @cpu: true before the simulated NPU reads and writes it, false after.
 *
 * The simulated NPU is the CPU: on an NPU that is not DMA-coherent (no
 * "dma-coherent" in its node) stale cache lines must not hide what other
 * devices wrote, and what it wrote must reach memory before its fence
 * signals. No reservation lock is taken: the job's own fence may be in
 * the buffer's reservation.
 *
 * Context: Process context.
 */
void npa_import_sync(struct npa_import *imp, bool cpu)
{
	struct npa_mapping *m = imp->mapping;

	if (!m || imp->alias)
		return;
	if (cpu)
		dma_sync_sgtable_for_cpu(m->attach->dev, m->sgt,
					 DMA_BIDIRECTIONAL);
	else
		dma_sync_sgtable_for_device(m->attach->dev, m->sgt,
					    DMA_BIDIRECTIONAL);
}

/**
 * npa_import_put() - release what npa_import_get() took
 * @imp: the import; may be zeroed.
 *
 * Context: Process context; sleeps.
 */
void npa_import_put(struct npa_import *imp)
{
	if (!imp->dmabuf)
		return;
	if (imp->mapping)
		npa_mapping_put(imp->mapping);
	imp->mapping = NULL;
	dma_buf_put(imp->dmabuf);
	imp->dmabuf = NULL;
}
