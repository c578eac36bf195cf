// SPDX-License-Identifier: GPL-2.0
/*
 * npa: the open-file object.
 */

/**
 * DOC: open files
 *
 * Each open file of /dev/npaN has a &struct npa_file that owns its models;
 * the buffers and jobs it created hold a reference to it, so that their
 * counters outlive a close.  Closing it (npa_drv.c) cancels its jobs and
 * drops its models; the last reference frees it.
 */

#include <kunit/visibility.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "npa_device.h"

/**
 * npa_file_init() - set up the state of a new open file
 * @nfile: zeroed state.
 * @ndev: the device it was opened on.
 *
 * Context: Process context.
 */
void npa_file_init(struct npa_file *nfile, struct npa_device *ndev)
{
	kref_init(&nfile->ref);
	nfile->ndev = ndev;
	mutex_init(&nfile->lock);
	xa_init_flags(&nfile->models, XA_FLAGS_ALLOC1);
	spin_lock_init(&nfile->jobs_lock);
	INIT_LIST_HEAD(&nfile->jobs);
}
EXPORT_SYMBOL_IF_KUNIT(npa_file_init);

struct npa_file *npa_file_get(struct npa_file *nfile)
{
	kref_get(&nfile->ref);
	return nfile;
}

static void npa_file_release(struct kref *ref)
{
	struct npa_file *nfile = container_of(ref, struct npa_file, ref);

	mutex_destroy(&nfile->lock);
	kfree(nfile);
}

void npa_file_put(struct npa_file *nfile)
{
	kref_put(&nfile->ref, npa_file_release);
}
EXPORT_SYMBOL_IF_KUNIT(npa_file_put);
