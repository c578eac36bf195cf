/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npa: the ioctl table, above the model, buffer and job layers.
 */
#ifndef __NPA_IOCTL_H__
#define __NPA_IOCTL_H__

#include <linux/fs.h>
#include <linux/types.h>

struct npa_file;
struct npa_ioctl_out;

long npa_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);
#if IS_ENABLED(CONFIG_KUNIT)
int npa_ioctl_dispatch(struct npa_file *nfile, unsigned int cmd, void *data);
#endif
int npa_ioctl_query(struct npa_file *nfile, void *data,
		    struct npa_ioctl_out *out);

#endif /* __NPA_IOCTL_H__ */
