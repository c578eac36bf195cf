/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npa: NPU arena allocator, the top layer: module and device nodes.
 */
#ifndef __NPA_DRV_H__
#define __NPA_DRV_H__

#include <linux/types.h>

#include "npa_device.h"

struct npa_device *npa_device_create(struct device *parent, unsigned int index,
				     phys_addr_t co_base, size_t co_size);
void npa_device_destroy(struct npa_device *ndev);

#endif /* __NPA_DRV_H__ */
