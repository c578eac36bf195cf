/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npa: what differs between the kernels npa builds against.
 */

/**
 * DOC: npa kernel compatibility
 *
 * npa builds from one source against Linux 6.1 and 6.12, the two LTS
 * kernels Debian 12 ships.  Every check of the kernel version is here, so
 * that the driver's files read like code for the newest kernel.
 *
 * platform_driver.remove returns void since 6.11; before, it returned an
 * int that the driver core ignored.  A remove callback is
 * declared ``static npa_remove_ret npa_remove(...)`` and ends with
 * ``return NPA_REMOVE_DONE;``.
 *
 * vma->vm_flags is read-only since 6.3 and changed through vm_flags_set(),
 * which 6.1 lacks: here it is for 6.1.
 *
 * struct fd's file is read through fd_file() since 6.12, which hides how
 * struct fd stores it; before, it was the member .file.
 *
 * dma_buf_vmap() and dma_buf_vunmap() want the buffer's reservation lock
 * held since 6.2, and dma_buf_vmap_unlocked() and dma_buf_vunmap_unlocked()
 * take it; in 6.1, dma_buf_vmap() and dma_buf_vunmap() lock by themselves
 * (dmabuf->lock), and are what the _unlocked() names stand for here.
 */
#ifndef __NPA_COMPAT_H__
#define __NPA_COMPAT_H__

#include <linux/file.h>
#include <linux/mm.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define npa_remove_ret		void
#define NPA_REMOVE_DONE
#else
#define npa_remove_ret		int
#define NPA_REMOVE_DONE		0
#endif

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}
#endif

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#define dma_buf_vmap_unlocked	dma_buf_vmap
#define dma_buf_vunmap_unlocked	dma_buf_vunmap
#endif

/* A macro since 6.12: tested as such, in case a 6.1 stable release gets it. */
#ifndef fd_file
#define fd_file(f)		((f).file)
#endif

#endif /* __NPA_COMPAT_H__ */
