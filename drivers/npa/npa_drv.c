// SPDX-License-Identifier: GPL-2.0
/*
 * npa: NPU arena allocator.
 */

/**
 * DOC: npa driver core
 *
 * The module registers a platform driver for the simulated NPU and, unless
 * the device tree provides one (compatible "npa,sim-npu"), a platform
 * device for it.  Probing an NPU creates its npa device: the carveout,
 * the NPU's job queue, debugfs files and the misc device /dev/npaN (mode
 * 0660), N counting the NPUs probed from 0.
 *
 * Each open file gets a &struct npa_file that owns its models; buffers and
 * jobs it created hold a reference to it.  Closing the file cancels its
 * jobs and drops its models.  The fops, the dma-bufs and the job fds all
 * pin the module, so rmmod fails with -EBUSY while any of them is open.
 */

#include <kunit/visibility.h>
#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/mod_devicetable.h>
#include <linux/of.h>
#include <linux/overflow.h>
#include <linux/platform_device.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/npa.h>

#include "npa_compat.h"
#include "npa_drv.h"
#include "npa_ioctl.h"
#include "npa_job.h"
#include "npa_model.h"

static unsigned long carveout_base;
module_param(carveout_base, ulong, 0444);
MODULE_PARM_DESC(carveout_base, "physical base of memory reserved with memmap= (0: allocate)");

static unsigned long carveout_size = 64UL << 20;
module_param(carveout_size, ulong, 0444);
MODULE_PARM_DESC(carveout_size, "carveout bytes (default 64 MiB; halved down to 4 MiB if not available)");

static struct platform_device *npa_pdev;

/**
 * npa_file_close() - a file was closed: cancel its jobs, drop its models
 * @nfile: the file.
 *
 * Context: Process context; no other user of the file is left.
 */
static void npa_file_close(struct npa_file *nfile)
{
	if (nfile->ndev->npu)
		npa_job_cancel_file(nfile);
	npa_model_release_all(nfile);
}

static int npa_open(struct inode *inode, struct file *filp)
{
	struct npa_device *ndev = container_of(filp->private_data,
					       struct npa_device, misc);
	struct npa_file *nfile;

	nfile = kzalloc(sizeof(*nfile), GFP_KERNEL_ACCOUNT);
	if (!nfile)
		return -ENOMEM;

	npa_file_init(nfile, ndev);
	filp->private_data = nfile;
	atomic_inc(&ndev->open_files);
	return 0;
}

static int npa_release(struct inode *inode, struct file *filp)
{
	struct npa_file *nfile = filp->private_data;
	struct npa_device *ndev = nfile->ndev;

	atomic_dec(&ndev->open_files);
	npa_file_close(nfile);
	npa_file_put(nfile);
	return 0;
}

static void npa_show_fdinfo(struct seq_file *m, struct file *filp)
{
	struct npa_file *nfile = filp->private_data;
	struct npa_model *model;
	unsigned long handle;
	u64 arena = 0;
	u32 models = 0;

	mutex_lock(&nfile->lock);
	xa_for_each(&nfile->models, handle, model) {
		models++;
		/* A supplied plan's arena may be near 2^64: saturate. */
		if (check_add_overflow(arena, model->plan.arena_bytes, &arena))
			arena = U64_MAX;
	}
	mutex_unlock(&nfile->lock);
	seq_printf(m, "npa-models:\t%u\n", models);
	seq_printf(m, "npa-arena-bytes:\t%llu\n", arena);
	seq_printf(m, "npa-buffers:\t%d\n", atomic_read(&nfile->num_buffers));
	seq_printf(m, "npa-jobs-in-flight:\t%d\n", atomic_read(&nfile->num_jobs));
}

static const struct file_operations npa_fops = {
	.owner = THIS_MODULE,
	.open = npa_open,
	.release = npa_release,
	.unlocked_ioctl = npa_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
	.show_fdinfo = npa_show_fdinfo,
};

static int npa_carveout_map_open(struct inode *inode, struct file *file)
{
	struct npa_device *ndev = inode->i_private;

	return npa_carveout_seq_open(file, &ndev->carveout);
}

static const struct file_operations npa_carveout_map_fops = {
	.owner = THIS_MODULE,
	.open = npa_carveout_map_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release,
};

static const struct file_operations npa_models_fops = {
	.owner = THIS_MODULE,
	.open = npa_model_seq_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release_private,
};

static int npa_reset_set(void *data, u64 val)
{
	struct npa_npu *npu = data;

	npu->ops->reset(npu);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(npa_reset_fops, NULL, npa_reset_set, "%llu\n");

static void npa_debugfs_init(struct npa_device *ndev)
{
	ndev->debugfs = debugfs_create_dir(ndev->name, NULL);
	debugfs_create_file("models", 0400, ndev->debugfs, ndev, &npa_models_fops);
	if (!ndev->npu_dev)
		return;
	debugfs_create_file("carveout", 0400, ndev->debugfs, ndev,
			    &npa_carveout_map_fops);
	if (IS_ENABLED(CONFIG_FAULT_INJECTION_DEBUG_FS)) {
		debugfs_create_u32("inject_fault", 0600, ndev->debugfs,
				   &ndev->sim.inject_fault);
		debugfs_create_u32("inject_hang", 0600, ndev->debugfs,
				   &ndev->sim.inject_hang);
		debugfs_create_u32("inject_late_end", 0600, ndev->debugfs,
				   &ndev->sim.inject_late_end);
	}
	debugfs_create_file_unsafe("reset", 0200, ndev->debugfs, ndev->npu,
				   &npa_reset_fops);
}

/**
 * npa_device_create() - create and register one npa device
 * @parent: the NPU device (with a DMA mask), or NULL for a device that
 *	only plans.
 * @index: the N of /dev/npaN.
 * @co_base: carveout base reserved with memmap=, or 0.
 * @co_size: carveout bytes.
 *
 * Context: Process context.  Sleeps.
 * Return: the new device, or an ERR_PTR() on failure.
 */
struct npa_device *npa_device_create(struct device *parent, unsigned int index,
				     phys_addr_t co_base, size_t co_size)
{
	struct npa_device *ndev;
	int ret;

	ndev = kzalloc(sizeof(*ndev), GFP_KERNEL);
	if (!ndev)
		return ERR_PTR(-ENOMEM);
	mutex_init(&ndev->lock);
	xa_init_flags(&ndev->models, XA_FLAGS_ALLOC1);
	mutex_init(&ndev->arena_lock);
	mutex_init(&ndev->map_lock);
	hash_init(ndev->mappings);
	init_waitqueue_head(&ndev->map_wq);
	ndev->index = index;
	snprintf(ndev->name, sizeof(ndev->name), "npa%u", index);

	if (parent) {
		ret = npa_carveout_init(&ndev->carveout, parent, co_base, co_size);
		if (ret) {
			dev_err(parent, "no carveout (%d)\n", ret);
			goto err_free;
		}
		/* The carveout window must not reach the NPU's slots. */
		ret = -E2BIG;
		if (ndev->carveout.size > NPA_VA_SLOTS - NPA_VA_CARVEOUT) {
			dev_err(parent, "carveout of %zu MiB is above the NPU's %llu MiB window\n",
				ndev->carveout.size >> 20,
				(NPA_VA_SLOTS - NPA_VA_CARVEOUT) >> 20);
			goto err_carveout;
		}
		ret = npa_sim_init(&ndev->sim);
		if (ret)
			goto err_carveout;
		ndev->npu = &ndev->sim.npu;
		ndev->npu_dev = parent;
	}

	ndev->misc.minor = MISC_DYNAMIC_MINOR;
	ndev->misc.name = ndev->name;
	ndev->misc.fops = &npa_fops;
	ndev->misc.parent = parent;
	ndev->misc.mode = 0660;
	ret = misc_register(&ndev->misc);
	if (ret)
		goto err_sim;

	npa_debugfs_init(ndev);
	return ndev;

err_sim:
	if (parent)
		ndev->npu->ops->fini(ndev->npu);
err_carveout:
	if (parent)
		npa_carveout_fini(&ndev->carveout);
err_free:
	mutex_destroy(&ndev->map_lock);
	mutex_destroy(&ndev->arena_lock);
	mutex_destroy(&ndev->lock);
	kfree(ndev);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_IF_KUNIT(npa_device_create);

/**
 * npa_device_destroy() - unregister and free an npa device
 * @ndev: the device from npa_device_create().
 *
 * Open files, buffers and jobs pin the module, so none is left here.
 *
 * Context: Process context.  Sleeps.
 */
void npa_device_destroy(struct npa_device *ndev)
{
	debugfs_remove_recursive(ndev->debugfs);
	misc_deregister(&ndev->misc);
	WARN_ON_ONCE(atomic_read(&ndev->open_files));
	if (ndev->npu_dev) {
		ndev->npu->ops->fini(ndev->npu);
		npa_model_arena_fini(ndev);
		npa_carveout_fini(&ndev->carveout);
	}
	/* Every job, and so every mapping, is gone before the module goes. */
	WARN_ON_ONCE(!hash_empty(ndev->mappings));
	WARN_ON_ONCE(!xa_empty(&ndev->models));
	xa_destroy(&ndev->models);
	mutex_destroy(&ndev->map_lock);
	mutex_destroy(&ndev->arena_lock);
	mutex_destroy(&ndev->lock);
	kfree(ndev);
}
EXPORT_SYMBOL_IF_KUNIT(npa_device_destroy);

static ssize_t jobs_done_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	struct npa_device *ndev = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%lld\n", atomic64_read(&ndev->npu->jobs_done));
}
static DEVICE_ATTR_RO(jobs_done);

static ssize_t jobs_failed_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct npa_device *ndev = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%lld\n", atomic64_read(&ndev->npu->jobs_failed));
}
static DEVICE_ATTR_RO(jobs_failed);

static ssize_t resets_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct npa_device *ndev = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%lld\n", atomic64_read(&ndev->npu->resets));
}
static DEVICE_ATTR_RO(resets);

static ssize_t carveout_used_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	struct npa_device *ndev = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%zu\n", npa_carveout_used(&ndev->carveout));
}
static DEVICE_ATTR_RO(carveout_used);

static struct attribute *npa_attrs[] = {
	&dev_attr_jobs_done.attr,
	&dev_attr_jobs_failed.attr,
	&dev_attr_resets.attr,
	&dev_attr_carveout_used.attr,
	NULL
};
ATTRIBUTE_GROUPS(npa);

/* The N of /dev/npaN: one per NPU the device tree describes. */
static DEFINE_IDA(npa_ida);

static int npa_probe(struct platform_device *pdev)
{
	struct npa_device *ndev;
	int ret, index;

	ret = dma_coerce_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	index = ida_alloc(&npa_ida, GFP_KERNEL);
	if (index < 0)
		return index;
	ndev = npa_device_create(&pdev->dev, index, carveout_base,
				 carveout_size);
	if (IS_ERR(ndev)) {
		ida_free(&npa_ida, index);
		return PTR_ERR(ndev);
	}
	platform_set_drvdata(pdev, ndev);
	dev_info(&pdev->dev, "NPU arena allocator %d.%d.%d, /dev/%s\n",
		 NPA_VERSION_MAJOR, NPA_VERSION_MINOR, NPA_VERSION_PATCH,
		 ndev->name);
	return 0;
}

static npa_remove_ret npa_remove(struct platform_device *pdev)
{
	struct npa_device *ndev = platform_get_drvdata(pdev);
	unsigned int index = ndev->index;

	npa_device_destroy(ndev);
	ida_free(&npa_ida, index);
	return NPA_REMOVE_DONE;
}

static const struct of_device_id npa_of_match[] = {
	{ .compatible = "npa,sim-npu" },
	{}
};
MODULE_DEVICE_TABLE(of, npa_of_match);

static struct platform_driver npa_driver = {
	.probe = npa_probe,
	.remove = npa_remove,
	.driver = {
		.name = "npa-sim",
		.of_match_table = npa_of_match,
		.dev_groups = npa_groups,
		/* No unbind through sysfs while files, buffers and jobs live. */
		.suppress_bind_attrs = true,
		/* npa_init() looks at the device it made right after. */
		.probe_type = PROBE_FORCE_SYNCHRONOUS,
	},
};

/* The device tree describes an NPU: the OF core made its device. */
static bool __init npa_dt_has_npu(void)
{
	struct device_node *np;
	bool avail;

	np = of_find_matching_node(NULL, npa_of_match);
	avail = np && of_device_is_available(np);
	of_node_put(np);
	return avail;
}

static int __init npa_init(void)
{
	int ret;

	ret = npa_job_init();
	if (ret)
		return ret;
	ret = platform_driver_register(&npa_driver);
	if (ret)
		goto err_job;
	if (npa_dt_has_npu())
		return 0;
	/* No device tree node on this machine: make the NPU ourselves. */
	npa_pdev = platform_device_register_simple("npa-sim", -1, NULL, 0);
	if (IS_ERR(npa_pdev)) {
		ret = PTR_ERR(npa_pdev);
		goto err_driver;
	}
	if (!platform_get_drvdata(npa_pdev)) {
		platform_device_unregister(npa_pdev);
		ret = -ENODEV;
		goto err_driver;
	}
	return 0;

err_driver:
	platform_driver_unregister(&npa_driver);
err_job:
	npa_job_exit();
	return ret;
}

static void __exit npa_exit(void)
{
	/* Jobs freed last need the device: their free work goes first. */
	npa_job_exit();
	platform_device_unregister(npa_pdev);
	platform_driver_unregister(&npa_driver);
}

module_init(npa_init);
module_exit(npa_exit);

MODULE_DESCRIPTION("NPU arena allocator");
MODULE_LICENSE("GPL");
