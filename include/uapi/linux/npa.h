/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * npa: NPU arena allocator, userspace API.
 *
 * Every ioctl takes one struct, sized by the ioctl number.  Structs only grow
 * at their end: the kernel accepts a shorter struct from older userspace
 * (missing fields read as zero) and a longer one from newer userspace as long
 * as the bytes it does not know are zero.  Every flag word has a mask of the
 * valid bits and every reserved or padding field must be zero, otherwise the
 * ioctl fails with -EINVAL.  Unknown ioctls fail with -ENOTTY.
 */
#ifndef _UAPI_LINUX_NPA_H
#define _UAPI_LINUX_NPA_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define NPA_DEVICE_NAME		"npa0"

#define NPA_VERSION_MAJOR	0
#define NPA_VERSION_MINOR	1
#define NPA_VERSION_PATCH	0

/* Capabilities reported by NPA_IOCTL_QUERY in &npa_query.caps. */
/* The driver plans tensor arenas (always set). */
#define NPA_CAP_PLAN		(1ULL << 0)
#define NPA_CAPS_ALL		(NPA_CAP_PLAN)

/**
 * struct npa_query - driver version, capabilities and limits
 * @flags: in: must be zero; no flags are defined yet.
 * @version_major: out: NPA_VERSION_MAJOR of the running driver.
 * @version_minor: out: NPA_VERSION_MINOR of the running driver.
 * @version_patch: out: NPA_VERSION_PATCH of the running driver.
 * @caps: out: mask of NPA_CAP_* bits.
 * @carveout_bytes: out: size of the DMA carveout, 0 when there is none.
 * @reserved: in: must be zero; out: zero.
 */
struct npa_query {
	__u32 flags;
	__u32 version_major;
	__u32 version_minor;
	__u32 version_patch;
	__u64 caps;
	__u64 carveout_bytes;
	__u64 reserved[4];
};

#define NPA_QUERY_FLAGS_ALL	0

#define NPA_IOCTL_BASE		0xB8

#define NPA_IOCTL_QUERY		_IOWR(NPA_IOCTL_BASE, 0x00, struct npa_query)

#endif /* _UAPI_LINUX_NPA_H */
