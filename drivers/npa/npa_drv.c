// SPDX-License-Identifier: GPL-2.0
/*
 * npa: NPU arena allocator.
 */

/**
 * DOC: npa driver core
 *
 * Module entry points and the character device.  The module registers one
 * misc device, /dev/npa0.  Each open file gets a &struct npa_file that owns
 * everything created through it, so that closing the file releases it all.
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/npa.h>

#include "npa_drv.h"

static struct npa_device *npa_dev;

static int npa_open(struct inode *inode, struct file *filp)
{
	struct npa_device *ndev = container_of(filp->private_data,
					       struct npa_device, misc);
	struct npa_file *nfile;

	nfile = kzalloc(sizeof(*nfile), GFP_KERNEL);
	if (!nfile)
		return -ENOMEM;

	nfile->ndev = ndev;
	filp->private_data = nfile;
	atomic_inc(&ndev->open_files);
	return 0;
}

static int npa_release(struct inode *inode, struct file *filp)
{
	struct npa_file *nfile = filp->private_data;

	atomic_dec(&nfile->ndev->open_files);
	kfree(nfile);
	return 0;
}

static const struct file_operations npa_fops = {
	.owner = THIS_MODULE,
	.open = npa_open,
	.release = npa_release,
	.unlocked_ioctl = npa_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

/**
 * npa_device_create() - create and register one npa device
 * @parent: parent device, or NULL.
 * @index: the N of /dev/npaN.
 *
 * Context: Process context.  Sleeps.
 * Return: the new device, or an ERR_PTR() on failure.
 */
struct npa_device *npa_device_create(struct device *parent, unsigned int index)
{
	struct npa_device *ndev;
	int ret;

	ndev = kzalloc(sizeof(*ndev), GFP_KERNEL);
	if (!ndev)
		return ERR_PTR(-ENOMEM);

	ndev->misc.minor = MISC_DYNAMIC_MINOR;
	snprintf(ndev->name, sizeof(ndev->name), "npa%u", index);
	ndev->misc.name = ndev->name;
	ndev->misc.fops = &npa_fops;
	ndev->misc.parent = parent;
	ndev->misc.mode = 0660;

	ret = misc_register(&ndev->misc);
	if (ret)
		goto err_free;

	return ndev;

err_free:
	kfree(ndev);
	return ERR_PTR(ret);
}

/**
 * npa_device_destroy() - unregister and free an npa device
 * @ndev: the device from npa_device_create().
 *
 * Open files keep the module pinned, so none can be open here.
 *
 * Context: Process context.  Sleeps.
 */
void npa_device_destroy(struct npa_device *ndev)
{
	misc_deregister(&ndev->misc);
	WARN_ON_ONCE(atomic_read(&ndev->open_files));
	kfree(ndev);
}

static int __init npa_init(void)
{
	npa_dev = npa_device_create(NULL, 0);
	if (IS_ERR(npa_dev))
		return PTR_ERR(npa_dev);

	pr_info("npa: NPU arena allocator %d.%d.%d, /dev/%s\n",
		NPA_VERSION_MAJOR, NPA_VERSION_MINOR, NPA_VERSION_PATCH,
		NPA_DEVICE_NAME);
	return 0;
}

static void __exit npa_exit(void)
{
	npa_device_destroy(npa_dev);
}

module_init(npa_init);
module_exit(npa_exit);

MODULE_DESCRIPTION("NPU arena allocator");
MODULE_LICENSE("GPL");
