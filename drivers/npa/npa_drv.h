/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npa: NPU arena allocator, driver-wide types.
 */
#ifndef __NPA_DRV_H__
#define __NPA_DRV_H__

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/types.h>

struct npa_device;

/**
 * struct npa_file - per open file state
 * @ndev: the device this file was opened on.
 */
struct npa_file {
	struct npa_device *ndev;
};

/**
 * struct npa_device - one npa device, i.e. one /dev/npaN node
 * @misc: the misc character device.
 * @name: device node name, "npa<index>".
 * @open_files: number of open files, for diagnostics.
 */
struct npa_device {
	struct miscdevice misc;
	char name[16];
	atomic_t open_files;
};

struct npa_device *npa_device_create(struct device *parent, unsigned int index);
void npa_device_destroy(struct npa_device *ndev);

long npa_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);
int npa_ioctl_dispatch(struct npa_file *nfile, unsigned int cmd, void *data);
int npa_ioctl_query(struct npa_file *nfile, void *data);

#endif /* __NPA_DRV_H__ */
