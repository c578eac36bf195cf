// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for npa's dma-buf exporter: each attachment is mapped for
 * the device that attached, within what that device can address; and for
 * the carveout the buffers come from.
 */

#include <kunit/test.h>
#include <linux/bitops.h>
#include <linux/device.h>
#include <linux/dma-buf.h>
#include <linux/dma-direct.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/platform_device.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "npa_buffer.h"
#include "npa_carveout.h"
#include "npa_drv.h"

MODULE_IMPORT_NS(DMA_BUF);

/*
 * An npa device of its own on a platform device no driver binds, a file
 * on it, one exported buffer, and at most one importing device that is not
 * the NPU.
 */
struct npa_buffer_fixture {
	struct platform_device *npu;
	struct platform_device *importer;
	struct npa_device *ndev;
	struct npa_file *nfile;
	struct dma_buf *dmabuf;
	/* The CPU physical address of the buffer's first byte. */
	phys_addr_t phys;
};

static int npa_buffer_test_init(struct kunit *test)
{
	struct npa_buffer_fixture *f;
	struct npa_buffer *buf;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	test->priv = f;

	f->npu = platform_device_register_simple("npa-kunit-npu",
						 PLATFORM_DEVID_AUTO, NULL, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f->npu));
	KUNIT_ASSERT_EQ(test, dma_coerce_mask_and_coherent(&f->npu->dev,
							   DMA_BIT_MASK(64)), 0);
	f->ndev = npa_device_create(&f->npu->dev, 9, 0, SZ_4M);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f->ndev));

	f->nfile = kzalloc(sizeof(*f->nfile), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->nfile);
	npa_file_init(f->nfile, f->ndev);

	f->dmabuf = npa_buffer_export(f->nfile, PAGE_SIZE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f->dmabuf));
	buf = f->dmabuf->priv;
	f->phys = dma_to_phys(&f->npu->dev,
			      f->ndev->carveout.dma + buf->region->offset);
	return 0;
}

static void npa_buffer_test_exit(struct kunit *test)
{
	struct npa_buffer_fixture *f = test->priv;

	if (!f)
		return;
	if (!IS_ERR_OR_NULL(f->dmabuf)) {
		dma_buf_put(f->dmabuf);
		/* A kthread's last fput() is deferred: release it now. */
		flush_delayed_fput();
	}
	if (f->nfile)
		npa_file_put(f->nfile);
	if (!IS_ERR_OR_NULL(f->importer))
		platform_device_unregister(f->importer);
	if (!IS_ERR_OR_NULL(f->ndev))
		npa_device_destroy(f->ndev);
	if (!IS_ERR_OR_NULL(f->npu))
		platform_device_unregister(f->npu);
}

/* A device that is not the NPU, addressing @bits bits; skip if refused. */
static struct device *npa_buffer_importer(struct kunit *test, unsigned int bits)
{
	struct npa_buffer_fixture *f = test->priv;
	struct device *dev;

	f->importer = platform_device_register_simple("npa-kunit-importer",
						      PLATFORM_DEVID_AUTO,
						      NULL, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f->importer));
	dev = &f->importer->dev;
	if (dma_coerce_mask_and_coherent(dev, DMA_BIT_MASK(bits)))
		kunit_skip(test, "a %u-bit DMA mask is not supported here", bits);
	return dev;
}

/* Attach @dev and map; the result or the ERR_PTR() in *@sgt. */
static struct dma_buf_attachment *npa_buffer_map(struct kunit *test,
						 struct device *dev,
						 struct sg_table **sgt)
{
	struct npa_buffer_fixture *f = test->priv;
	struct dma_buf_attachment *attach;

	attach = dma_buf_attach(f->dmabuf, dev);
	KUNIT_ASSERT_FALSE(test, IS_ERR(attach));
	*sgt = dma_buf_map_attachment_unlocked(attach, DMA_BIDIRECTIONAL);
	return attach;
}

static void npa_buffer_unmap(struct kunit *test,
			     struct dma_buf_attachment *attach,
			     struct sg_table *sgt)
{
	struct npa_buffer_fixture *f = test->priv;

	if (!IS_ERR_OR_NULL(sgt))
		dma_buf_unmap_attachment_unlocked(attach, sgt,
						  DMA_BIDIRECTIONAL);
	dma_buf_detach(f->dmabuf, attach);
}

/*
 * One mapped range: the buffer's pages at @dev's address for them.  (An
 * importer may not look at the pages: CONFIG_DMABUF_DEBUG scrambles them.)
 */
static void npa_buffer_expect_mapped(struct kunit *test, struct device *dev,
				     struct sg_table *sgt)
{
	struct npa_buffer_fixture *f = test->priv;

	KUNIT_ASSERT_FALSE(test, IS_ERR(sgt));
	KUNIT_EXPECT_EQ(test, sgt->nents, 1U);
	KUNIT_EXPECT_EQ(test, sg_dma_address(sgt->sgl),
			phys_to_dma(dev, f->phys));
	KUNIT_EXPECT_EQ(test, sg_dma_len(sgt->sgl), PAGE_SIZE);
}

/* The NPU maps its own buffer at the address its carveout has. */
static void npa_buffer_test_map_npu(struct kunit *test)
{
	struct npa_buffer_fixture *f = test->priv;
	struct npa_buffer *buf = f->dmabuf->priv;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;

	attach = npa_buffer_map(test, &f->npu->dev, &sgt);
	npa_buffer_expect_mapped(test, &f->npu->dev, sgt);
	KUNIT_EXPECT_EQ(test, sg_dma_address(sgt->sgl),
			f->ndev->carveout.dma + buf->region->offset);
	npa_buffer_unmap(test, attach, sgt);
}

/* An importer addressing @bits bits maps the buffer with its own device. */
static void npa_buffer_map_importer(struct kunit *test, unsigned int bits)
{
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	struct device *dev;

	dev = npa_buffer_importer(test, bits);
	attach = npa_buffer_map(test, dev, &sgt);
	npa_buffer_expect_mapped(test, dev, sgt);
	npa_buffer_unmap(test, attach, sgt);
}

/* Another device gets a mapping of its own, made with its own device. */
static void npa_buffer_test_map_importer(struct kunit *test)
{
	npa_buffer_map_importer(test, 64);
}

/* The NPU and an importer hold mappings of the same buffer at once. */
static void npa_buffer_test_map_both(struct kunit *test)
{
	struct npa_buffer_fixture *f = test->priv;
	struct dma_buf_attachment *a_npu, *a_imp;
	struct sg_table *s_npu, *s_imp;
	struct device *dev;

	dev = npa_buffer_importer(test, 64);
	a_npu = npa_buffer_map(test, &f->npu->dev, &s_npu);
	a_imp = npa_buffer_map(test, dev, &s_imp);
	npa_buffer_expect_mapped(test, &f->npu->dev, s_npu);
	npa_buffer_expect_mapped(test, dev, s_imp);
	npa_buffer_unmap(test, a_imp, s_imp);
	npa_buffer_unmap(test, a_npu, s_npu);
}

/* A DMA mask that just reaches the buffer's last byte is enough. */
static void npa_buffer_test_map_mask_reaches(struct kunit *test)
{
	struct npa_buffer_fixture *f = test->priv;

	npa_buffer_map_importer(test, fls64(f->phys + PAGE_SIZE - 1));
}

/*
 * A DMA mask that stops below the buffer: -ERANGE, not a bounce buffer
 * the NPU and userspace would not see.
 */
static void npa_buffer_test_map_mask_short(struct kunit *test)
{
	struct npa_buffer_fixture *f = test->priv;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	struct device *dev;

	if (fls64(f->phys) < 2)
		kunit_skip(test, "the buffer is at physical address %pa",
			   &f->phys);
	dev = npa_buffer_importer(test, fls64(f->phys) - 1);
	KUNIT_ASSERT_LT(test, dma_get_mask(dev), (u64)f->phys);
	attach = npa_buffer_map(test, dev, &sgt);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(sgt), -ERANGE);
	npa_buffer_unmap(test, attach, sgt);
}

/* A device that does no DMA at all (no DMA mask): -EOPNOTSUPP. */
static void npa_buffer_test_map_no_dma(struct kunit *test)
{
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	struct device *dev;
	u64 *mask;

	dev = npa_buffer_importer(test, 64);
	mask = dev->dma_mask;
	dev->dma_mask = NULL;
	attach = npa_buffer_map(test, dev, &sgt);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(sgt), -EOPNOTSUPP);
	npa_buffer_unmap(test, attach, sgt);
	dev->dma_mask = mask;
}

static struct kunit_case npa_buffer_test_cases[] = {
	KUNIT_CASE(npa_buffer_test_map_npu),
	KUNIT_CASE(npa_buffer_test_map_importer),
	KUNIT_CASE(npa_buffer_test_map_both),
	KUNIT_CASE(npa_buffer_test_map_mask_reaches),
	KUNIT_CASE(npa_buffer_test_map_mask_short),
	KUNIT_CASE(npa_buffer_test_map_no_dma),
	{}
};

static struct kunit_suite npa_buffer_test_suite = {
	.name = "npa_buffer",
	.init = npa_buffer_test_init,
	.exit = npa_buffer_test_exit,
	.test_cases = npa_buffer_test_cases,
};

/* The carveout's allocation, on a platform device no driver binds. */
struct npa_carveout_fixture {
	struct platform_device *npu;
	struct npa_carveout co;
	bool inited;
};

static int npa_carveout_test_init(struct kunit *test)
{
	struct npa_carveout_fixture *f;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	test->priv = f;
	f->npu = platform_device_register_simple("npa-kunit-co",
						 PLATFORM_DEVID_AUTO, NULL, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f->npu));
	KUNIT_ASSERT_EQ(test, dma_coerce_mask_and_coherent(&f->npu->dev,
							   DMA_BIT_MASK(64)), 0);
	return 0;
}

static void npa_carveout_test_exit(struct kunit *test)
{
	struct npa_carveout_fixture *f = test->priv;

	if (!f)
		return;
	if (f->inited)
		npa_carveout_fini(&f->co);
	if (!IS_ERR_OR_NULL(f->npu))
		platform_device_unregister(f->npu);
}

/* npa_carveout_init() of @size bytes; the carveout is fini'd at exit. */
static int npa_carveout_test_make(struct kunit *test, size_t size)
{
	struct npa_carveout_fixture *f = test->priv;
	int ret;

	ret = npa_carveout_init(&f->co, &f->npu->dev, 0, size);
	f->inited = !ret;
	return ret;
}

/* Halving a size that is a page multiple, but not 2^n pages, stays one. */
static void npa_carveout_test_smaller_pages(struct kunit *test)
{
	size_t want = SZ_64M + PAGE_SIZE, size = want;
	unsigned int n = 0;

	while ((size = npa_carveout_smaller(size, want))) {
		KUNIT_EXPECT_EQ_MSG(test, size % PAGE_SIZE, 0UL, "size %zu", size);
		KUNIT_EXPECT_GE(test, size, (size_t)SZ_4M);
		n++;
	}
	/* 32, 16, 8 and 4 MiB. */
	KUNIT_EXPECT_EQ(test, n, 4U);
}

/* Below 4 MiB, the size asked for is tried and nothing smaller. */
static void npa_carveout_test_smaller_small(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, npa_carveout_smaller(SZ_2M, SZ_2M), 0UL);
	KUNIT_EXPECT_EQ(test, npa_carveout_smaller(SZ_4M, SZ_4M), 0UL);
	KUNIT_EXPECT_EQ(test, npa_carveout_smaller(SZ_8M, SZ_8M), (size_t)SZ_4M);
	KUNIT_EXPECT_EQ(test, npa_carveout_smaller(PAGE_SIZE, PAGE_SIZE), 0UL);
}

/* A carveout (a pool) under 4 MiB is allocated, whole. */
static void npa_carveout_test_small(struct kunit *test)
{
	struct npa_carveout_fixture *f = test->priv;

	KUNIT_ASSERT_EQ(test, npa_carveout_test_make(test, SZ_2M), 0);
	KUNIT_EXPECT_EQ(test, f->co.size, (size_t)SZ_2M);
}

/*
 * More than the machine has, and not 2^n pages: the carveout it gets
 * after halving is a page multiple.
 */
static void npa_carveout_test_halved(struct kunit *test)
{
	struct npa_carveout_fixture *f = test->priv;

	KUNIT_ASSERT_EQ(test, npa_carveout_test_make(test, SZ_4G + PAGE_SIZE), 0);
	KUNIT_EXPECT_LT(test, f->co.size, (size_t)SZ_4G);
	KUNIT_EXPECT_EQ(test, f->co.size % PAGE_SIZE, 0UL);
	KUNIT_EXPECT_GE(test, f->co.size, (size_t)SZ_4M);
}

static struct kunit_case npa_carveout_test_cases[] = {
	KUNIT_CASE(npa_carveout_test_smaller_pages),
	KUNIT_CASE(npa_carveout_test_smaller_small),
	KUNIT_CASE(npa_carveout_test_small),
	KUNIT_CASE(npa_carveout_test_halved),
	{}
};

static struct kunit_suite npa_carveout_test_suite = {
	.name = "npa_carveout",
	.init = npa_carveout_test_init,
	.exit = npa_carveout_test_exit,
	.test_cases = npa_carveout_test_cases,
};

kunit_test_suites(&npa_buffer_test_suite, &npa_carveout_test_suite);
