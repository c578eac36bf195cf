// SPDX-License-Identifier: GPL-2.0
/*
 * npa: models, i.e. planned graphs owned by an open file.
 */

/**
 * DOC: models
 *
 * NPA_IOCTL_MODEL_CREATE copies a graph in, validates it, plans it and
 * stores the result in the calling file's model table under a new handle.
 * The handle is reserved first and names the model only once it was copied
 * to userspace (as drm_gem_handle_create_tail() does with its idr): until
 * then no ioctl, debugfs or fdinfo sees the model, and a caller whose
 * argument cannot be written gets -EFAULT and no model.
 * Handles are small integers local to the open file: another file cannot
 * name, read or destroy them.  NPA_IOCTL_MODEL_PLAN reads the placements
 * back and NPA_IOCTL_MODEL_DESTROY frees a model; closing the file frees
 * the rest.
 *
 * Nothing is allocated before the counts are checked against the limits,
 * and a failed call frees everything it allocated.  What a model allocates
 * (its arrays, its plan, the planner's working memory) is charged to the
 * caller's memory cgroup, GFP_KERNEL_ACCOUNT, as its size is the caller's
 * choice: a memory limit bounds what the models of any number of open
 * files can hold.  Each array comes with
 * the element size userspace was built with, so elements can grow: a
 * shorter element reads as zero-extended, a longer one must have a zero
 * tail (copy_struct_from_user()).
 */

#include <linux/device.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>
#include <linux/npa.h>

#include "npa_carveout.h"
#include "npa_device.h"
#include "npa_model.h"
#include "npa_plan.h"
#include "npa_uaccess.h"

/**
 * npa_model_free() - free a model that was never published
 * @model: the model, or NULL.
 *
 * Context: Process context.
 */
void npa_model_free(struct npa_model *model)
{
	if (!model)
		return;
	if (model->arena)
		npa_carveout_free(&model->ndev->carveout, model->arena);
	npa_layout_free(&model->plan);
	npa_ir_free(&model->ir);
	kvfree(model->binds);
	kfree(model);
}

/* Largest activation arena among the models that share the device's. */
static u64 npa_model_shared_need(struct npa_device *ndev)
{
	struct npa_model *model;
	unsigned long id;
	u64 need = 0;

	mutex_lock(&ndev->lock);
	xa_for_each(&ndev->models, id, model)
		if (model->shares_arena)
			need = max(need, model->plan.arena_bytes);
	mutex_unlock(&ndev->lock);
	return need;
}

/*
 * Give back what the shared arena holds beyond what the remaining models
 * need; the next job allocates what it needs.
 */
static void npa_model_arena_trim_locked(struct npa_device *ndev)
{
	lockdep_assert_held(&ndev->arena_lock);
	if (ndev->arena &&
	    PAGE_ALIGN(npa_model_shared_need(ndev)) < ndev->arena->size) {
		npa_carveout_remove(&ndev->carveout, ndev->arena);
		ndev->arena = NULL;
	}
}

/**
 * npa_model_arena_get() - the activation arena a job of @model runs in
 * @model: a model with an arena (&npa_layout.arena_bytes not 0).
 *
 * A private arena, or the one the device's other models share, grown to
 * what the largest of them needs if it is too small: the NPU runs one job
 * at a time, so they take turns.  Give it back with npa_model_arena_put()
 * when the job ends.
 *
 * Allocates no memory but the carveout's (the arena's struct is the
 * device's): the NPU's queue must not wait for memory reclaim, which may
 * wait for the fences of the jobs it runs.
 *
 * Context: Process context; the NPU's queue, before a job runs.
 * Return: the arena, or NULL: the carveout has no room for it.
 */
struct npa_region *npa_model_arena_get(struct npa_model *model)
{
	struct npa_device *ndev = model->ndev;
	struct npa_region *arena;
	u64 need;
	int ret;

	if (model->arena)
		return model->arena;
	mutex_lock(&ndev->arena_lock);
	WARN_ON_ONCE(ndev->arena_busy);
	if (!ndev->arena || ndev->arena->size < model->plan.arena_bytes) {
		need = max(npa_model_shared_need(ndev), model->plan.arena_bytes);
		if (ndev->arena)
			npa_carveout_remove(&ndev->carveout, ndev->arena);
		ndev->arena = NULL;
		ret = npa_carveout_place(&ndev->carveout, &ndev->arena_region,
					 need, "shared arena");
		/*
		 * What other models may need later must not fail this job:
		 * buffers may hold the room for it now.  Its own need is
		 * enough.
		 */
		if (ret && need > model->plan.arena_bytes)
			ret = npa_carveout_place(&ndev->carveout,
						 &ndev->arena_region,
						 model->plan.arena_bytes,
						 "shared arena");
		if (!ret)
			ndev->arena = &ndev->arena_region;
	}
	arena = ndev->arena;
	ndev->arena_busy = !!arena;
	mutex_unlock(&ndev->arena_lock);
	return arena;
}

/**
 * npa_model_arena_put() - a job of @model is done with its arena
 * @model: the model whose npa_model_arena_get() succeeded.
 *
 * Context: Process context.
 */
void npa_model_arena_put(struct npa_model *model)
{
	struct npa_device *ndev = model->ndev;

	if (model->arena)
		return;
	mutex_lock(&ndev->arena_lock);
	ndev->arena_busy = false;
	npa_model_arena_trim_locked(ndev);
	mutex_unlock(&ndev->arena_lock);
}

/**
 * npa_model_arena_fini() - free the shared arena of a device going away
 * @ndev: the device; no model is left.
 *
 * Context: Process context.
 */
void npa_model_arena_fini(struct npa_device *ndev)
{
	if (ndev->arena)
		npa_carveout_remove(&ndev->carveout, ndev->arena);
	ndev->arena = NULL;
}

static void npa_model_release(struct kref *ref)
{
	struct npa_model *model = container_of(ref, struct npa_model, ref);
	struct npa_device *ndev = model->ndev;

	mutex_lock(&ndev->lock);
	xa_erase(&ndev->models, model->id);
	mutex_unlock(&ndev->lock);
	if (!model->arena) {
		mutex_lock(&ndev->arena_lock);
		if (!ndev->arena_busy)
			npa_model_arena_trim_locked(ndev);
		mutex_unlock(&ndev->arena_lock);
	}
	npa_model_free(model);
}

/**
 * npa_model_put() - drop a reference to a published model
 * @model: the model.
 *
 * Context: Process context; sleeps when it frees the model.
 */
void npa_model_put(struct npa_model *model)
{
	kref_put(&model->ref, npa_model_release);
}

/**
 * npa_model_lookup() - find one of a file's models and take a reference
 * @nfile: the file.
 * @handle: the handle.
 *
 * Context: Process context; takes @nfile->lock.
 * Return: the model (put it with npa_model_put()), or NULL.
 */
struct npa_model *npa_model_lookup(struct npa_file *nfile, u32 handle)
{
	struct npa_model *model;

	mutex_lock(&nfile->lock);
	model = xa_load(&nfile->models, handle);
	if (model)
		kref_get(&model->ref);
	mutex_unlock(&nfile->lock);
	return model;
}

/* The tensors bound to buffers at submit, in id order. */
static int npa_model_binds(struct npa_model *m)
{
	const struct npa_ir *ir = &m->ir;
	u32 t, n = 0;

	for (t = 0; t < ir->num_tensors; t++)
		n += !(m->plan.tensors[t].flags & NPA_IR_ARENA);
	m->num_binds = n;
	if (!n)
		return 0;
	m->binds = kvmalloc_array(n, sizeof(*m->binds), GFP_KERNEL_ACCOUNT);
	if (!m->binds)
		return -ENOMEM;
	for (t = 0, n = 0; t < ir->num_tensors; t++)
		if (!(m->plan.tensors[t].flags & NPA_IR_ARENA))
			m->binds[n++] = t;
	return 0;
}

/*
 * Check the counts and sizes of a create request before anything is
 * allocated; say what is wrong in @rep.
 */
static int npa_model_check_args(const struct npa_model_create *args,
				struct npa_error *rep)
{
	const struct npa_graph g = {
		.num_tensors = args->num_tensors, .num_ops = args->num_ops,
		.num_operands = args->num_operands,
		.num_scratch = args->num_scratch,
	};
	const u32 a = NPA_ERR_ARRAY_ARGS;

	if (args->flags & ~NPA_MODEL_CREATE_FLAGS_ALL)
		return npa_error_set(rep, a, 0, NPA_ERR_FIELD_FLAGS,
				     NPA_ERR_UNKNOWN_FLAGS, args->flags,
				     NPA_MODEL_CREATE_FLAGS_ALL, -EINVAL);
	if (args->budget > NPA_MAX_PLAN_BUDGET)
		return npa_error_set(rep, a, 0, NPA_ERR_FIELD_BUDGET,
				     NPA_ERR_TOO_BIG, args->budget,
				     NPA_MAX_PLAN_BUDGET, -EINVAL);
	if (args->reserved || args->pad || args->reserved2)
		return npa_error_set(rep, a, 0, NPA_ERR_FIELD_PAD,
				     NPA_ERR_NOT_ZERO,
				     args->reserved ?: args->pad ?: args->reserved2,
				     0, -EINVAL);
	if (!(args->flags & NPA_MODEL_SUPPLIED_PLAN) &&
	    (args->plan_tensors || args->plan_scratch || args->plan_size))
		return npa_error_set(rep, a, 0, NPA_ERR_FIELD_PLAN_SIZE,
				     NPA_ERR_NOT_ZERO, args->plan_size, 0,
				     -EINVAL);
	if ((args->flags & NPA_MODEL_SUPPLIED_PLAN) &&
	    (!args->plan_size || args->plan_size > NPA_MAX_ELEM_SIZE))
		return npa_error_set(rep, a, 0, NPA_ERR_FIELD_PLAN_SIZE,
				     NPA_ERR_BAD_VALUE, args->plan_size,
				     NPA_MAX_ELEM_SIZE, -EINVAL);
	if (!args->tensor_size || args->tensor_size > NPA_MAX_ELEM_SIZE)
		return npa_error_set(rep, a, 0, NPA_ERR_FIELD_TENSOR_SIZE,
				     NPA_ERR_BAD_VALUE, args->tensor_size,
				     NPA_MAX_ELEM_SIZE, -EINVAL);
	if (!args->op_size || args->op_size > NPA_MAX_ELEM_SIZE)
		return npa_error_set(rep, a, 0, NPA_ERR_FIELD_OP_SIZE,
				     NPA_ERR_BAD_VALUE, args->op_size,
				     NPA_MAX_ELEM_SIZE, -EINVAL);
	if (args->num_scratch && (!args->scratch_size ||
				  args->scratch_size > NPA_MAX_ELEM_SIZE))
		return npa_error_set(rep, a, 0, NPA_ERR_FIELD_SCRATCH_SIZE,
				     NPA_ERR_BAD_VALUE, args->scratch_size,
				     NPA_MAX_ELEM_SIZE, -EINVAL);
	return npa_graph_check_counts(&g, &npa_graph_default_limits, rep);
}

/**
 * struct npa_model_req - a create request as copied from userspace
 * @graph: the graph; the arrays below back it.
 * @tensors: tensor descriptors.
 * @ops: operators.
 * @operands: operand ids.
 * @scratch: scratch requests.
 * @plan_tensors: with NPA_MODEL_SUPPLIED_PLAN, userspace's tensor
 *	placements, else NULL.
 * @plan_scratch: likewise, its scratch placements.
 *
 * Only MODEL_CREATE sees it: validation turns it into the model's
 * internal form (&npa_model.ir), and it is freed when the ioctl returns.
 */
struct npa_model_req {
	struct npa_graph graph;
	struct npa_tensor_desc *tensors;
	struct npa_op_desc *ops;
	u32 *operands;
	struct npa_scratch_desc *scratch;
	struct npa_placement *plan_tensors;
	struct npa_placement *plan_scratch;
};

static void npa_model_req_free(struct npa_model_req *r)
{
	kvfree(r->tensors);
	kvfree(r->ops);
	kvfree(r->operands);
	kvfree(r->scratch);
	kvfree(r->plan_tensors);
	kvfree(r->plan_scratch);
}

static int npa_model_copy_in(struct npa_model_req *r,
			     const struct npa_model_create *args)
{
	int ret;

	r->tensors = npa_copy_user_array(args->tensors, args->num_tensors,
					 args->tensor_size, sizeof(*r->tensors),
					 &ret);
	if (ret)
		return ret;
	r->ops = npa_copy_user_array(args->ops, args->num_ops, args->op_size,
				     sizeof(*r->ops), &ret);
	if (ret)
		return ret;
	r->operands = npa_copy_user_array(args->operands, args->num_operands,
					  sizeof(*r->operands),
					  sizeof(*r->operands), &ret);
	if (ret)
		return ret;
	r->scratch = npa_copy_user_array(args->scratch, args->num_scratch,
					 args->scratch_size, sizeof(*r->scratch),
					 &ret);
	if (ret)
		return ret;
	if (args->flags & NPA_MODEL_SUPPLIED_PLAN) {
		r->plan_tensors =
			npa_copy_user_array(args->plan_tensors,
					    args->num_tensors, args->plan_size,
					    sizeof(*r->plan_tensors), &ret);
		if (ret)
			return ret;
		r->plan_scratch =
			npa_copy_user_array(args->plan_scratch,
					    args->num_scratch, args->plan_size,
					    sizeof(*r->plan_scratch), &ret);
		if (ret)
			return ret;
	}

	r->graph = (struct npa_graph){
		.tensors = r->tensors, .ops = r->ops,
		.operands = r->operands, .scratch = r->scratch,
		.num_tensors = args->num_tensors, .num_ops = args->num_ops,
		.num_operands = args->num_operands,
		.num_scratch = args->num_scratch,
	};
	return 0;
}

/* The uAPI's placement flags are the internal ones. */
static void npa_model_same_flags(void)
{
	BUILD_BUG_ON(NPA_IR_ARENA != NPA_PLACEMENT_ARENA);
	BUILD_BUG_ON(NPA_IR_SCRATCH != NPA_PLACEMENT_SCRATCH);
	BUILD_BUG_ON(NPA_IR_FAST != NPA_PLACEMENT_FAST);
}

static struct npa_ir_place npa_place_from_user(const struct npa_placement *p)
{
	return (struct npa_ir_place){
		.offset = p->offset, .size = p->size, .lo = p->lo, .hi = p->hi,
		.buffer = p->buffer, .flags = p->flags,
	};
}

static struct npa_placement npa_place_to_user(const struct npa_ir_place *p)
{
	return (struct npa_placement){
		.offset = p->offset, .size = p->size, .lo = p->lo, .hi = p->hi,
		.buffer = p->buffer, .flags = p->flags,
	};
}

/* Verify and take userspace's plan of the request. */
static int npa_model_plan_supplied(struct npa_model *model,
				   const struct npa_model_req *r,
				   struct npa_error *rep)
{
	const struct npa_ir *ir = &model->ir;
	struct npa_ir_place *pt, *ps;
	u32 i;
	int ret = -ENOMEM;

	npa_model_same_flags();
	pt = kvmalloc_array(ir->num_tensors, sizeof(*pt), GFP_KERNEL_ACCOUNT);
	ps = kvmalloc_array(max(ir->num_scratch, 1U), sizeof(*ps),
			    GFP_KERNEL_ACCOUNT);
	if (!pt || !ps)
		goto out;
	for (i = 0; i < ir->num_tensors; i++)
		pt[i] = npa_place_from_user(&r->plan_tensors[i]);
	for (i = 0; i < ir->num_scratch; i++)
		ps[i] = npa_place_from_user(&r->plan_scratch[i]);
	ret = npa_graph_plan_supplied(ir, &npa_graph_default_limits, pt, ps,
				      &model->plan, rep);
out:
	kvfree(pt);
	kvfree(ps);
	return ret;
}

/*
 * Copy @count placements out to a user array of @usize-byte elements, in
 * chunks so that a large model needs no large buffer.
 */
static int npa_model_copy_places(u64 uptr, u32 usize,
				 const struct npa_ir_place *src, u32 count)
{
	struct npa_placement buf[16];
	u32 i, k, n;
	int ret;

	if (!uptr)
		return 0;
	for (i = 0; i < count; i += n) {
		n = min_t(u32, count - i, ARRAY_SIZE(buf));
		for (k = 0; k < n; k++)
			buf[k] = npa_place_to_user(&src[i + k]);
		ret = npa_copy_array_to_user(uptr + (u64)i * usize, usize, buf,
					     sizeof(*buf), n);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * npa_model_unreserve() - give back the handle and id of a model never
 *	published
 * @nfile: the owning file.
 * @model: a model from npa_model_create(); the caller still frees it.
 *
 * Context: Process context.  Takes @nfile->lock.
 */
static void npa_model_unreserve(struct npa_file *nfile,
				struct npa_model *model)
{
	/* A reserved id names nothing: no reader holds it, no lock needed. */
	if (model->id)
		xa_erase(&nfile->ndev->models, model->id);
	mutex_lock(&nfile->lock);
	xa_erase(&nfile->models, model->handle);
	mutex_unlock(&nfile->lock);
}

/**
 * npa_model_create() - validate and plan a graph; reserve a handle for it
 * @nfile: the owning file.
 * @model: a zeroed model; the caller still owns it, and publishes it
 *	with npa_model_publish() or, if it cannot, gives the handle back
 *	with npa_model_unreserve().
 * @r: the request; the model keeps only the internal form built of it.
 * @flags: NPA_MODEL_* bits.
 * @budget: planner work budget, 0 for the default.
 * @rep: out: on a refusal, what the graph got wrong.
 *
 * The handle, in @model->handle, is reserved in @nfile's model table
 * before the graph is planned (a full file costs no planning) but names
 * nothing yet: lookups, MODEL_PLAN, MODEL_DESTROY and fdinfo do not see it
 * until the model is published.  On an error nothing stays reserved.
 *
 * Context: Process context; sleeps.  Takes @nfile->lock.
 * Return: 0, a validation errno (see npa_graph_build()), -EDQUOT when
 * the file holds NPA_MAX_MODELS_PER_FILE models, -ENOSPC when a private
 * arena does not fit in the carveout, or -ENOMEM.
 */
static int npa_model_create(struct npa_file *nfile, struct npa_model *model,
			    const struct npa_model_req *r, u32 flags,
			    u64 budget, struct npa_error *rep)
{
	struct device *dev = nfile->ndev->misc.this_device;
	int ret;

	ret = npa_graph_build(&r->graph, &npa_graph_default_limits,
			      &model->ir, rep);
	if (ret)
		return ret;
	/* A NULL entry reserves the index; xa_load() reads it as empty. */
	mutex_lock(&nfile->lock);
	ret = xa_alloc(&nfile->models, &model->handle, NULL,
		       XA_LIMIT(1, NPA_MAX_MODELS_PER_FILE), GFP_KERNEL_ACCOUNT);
	mutex_unlock(&nfile->lock);
	if (ret)
		return ret == -EBUSY ? -EDQUOT : ret;
	/* Its id on the device too, so that publishing cannot fail. */
	ret = xa_alloc_cyclic(&nfile->ndev->models, &model->id, NULL,
			      xa_limit_31b, &nfile->ndev->next_model_id,
			      GFP_KERNEL_ACCOUNT);
	if (ret < 0) {
		model->id = 0;
		goto err_unreserve;
	}

	if (flags & NPA_MODEL_SUPPLIED_PLAN)
		ret = npa_model_plan_supplied(model, r, rep);
	else
		ret = npa_layout_plan(&model->ir,
				      npa_graph_default_limits.fast_window,
				      npa_graph_default_limits.scratch_growth_pct,
				     budget, &model->plan);
	if (ret) {
		dev_dbg(dev, "model create: planning failed (%d)\n", ret);
		goto err_unreserve;
	}
	model->flags = flags;
	model->ndev = nfile->ndev;
	kref_init(&model->ref);
	ret = npa_model_binds(model);
	if (ret)
		goto err_unreserve;
	/* -ENODEV on a planning-only device even when there is no arena. */
	ret = -ENODEV;
	if ((flags & NPA_MODEL_PRIVATE_ARENA) && !model->ndev->carveout.pool)
		goto err_unreserve;
	if ((flags & NPA_MODEL_PRIVATE_ARENA) && model->plan.arena_bytes) {
		struct npa_region *arena;

		arena = npa_carveout_alloc(&model->ndev->carveout,
					   model->plan.arena_bytes,
					   "private arena");
		ret = PTR_ERR(arena);
		if (IS_ERR(arena)) {
			npa_error_set(rep, NPA_ERR_ARRAY_ARGS, 0,
				      NPA_ERR_FIELD_FLAGS, NPA_ERR_TOO_BIG,
				      model->plan.arena_bytes,
				      model->ndev->carveout.size, ret);
			goto err_unreserve;
		}
		model->arena = arena;
	}
	/*
	 * A model that can never run (sizes only, or an arena larger than
	 * the carveout) must not size what the runnable ones share: its
	 * need would make their jobs fail, at no cost to its owner.
	 */
	model->shares_arena = !model->arena && model->plan.arena_bytes &&
		model->plan.arena_bytes <= model->ndev->carveout.size &&
		model->ir.runnable;
	return 0;

err_unreserve:
	npa_model_unreserve(nfile, model);
	return ret;
}

/**
 * npa_model_publish() - make a model reachable under its reserved handle
 * @nfile: the owning file.
 * @model: a model from npa_model_create(); @nfile owns it from here on.
 *
 * Context: Process context.  Takes @nfile->lock and the device's lock.
 */
static void npa_model_publish(struct npa_file *nfile, struct npa_model *model)
{
	void *old;

	/*
	 * On the device first: once in @nfile->models, a destroy may race.
	 * Both fill reserved slots: nothing to allocate, so neither fails.
	 */
	mutex_lock(&model->ndev->lock);
	old = xa_store(&model->ndev->models, model->id, model, GFP_KERNEL);
	mutex_unlock(&model->ndev->lock);
	WARN_ON_ONCE(old);

	mutex_lock(&nfile->lock);
	old = xa_store(&nfile->models, model->handle, model, GFP_KERNEL);
	mutex_unlock(&nfile->lock);
	WARN_ON_ONCE(old);
}

/**
 * npa_model_report() - fill the outputs of NPA_IOCTL_MODEL_CREATE
 * @model: a planned model.
 * @args: the ioctl argument.
 *
 * Context: Any context.
 */
void npa_model_report(const struct npa_model *model,
		      struct npa_model_create *args)
{
	const struct npa_layout *p = &model->plan;

	args->handle = model->handle;
	if (p->supplied)
		args->plan_kind = NPA_PLAN_KIND_SUPPLIED;
	else if (!p->tensor_bytes)
		args->plan_kind = NPA_PLAN_KIND_EMPTY;
	else if (p->tensor_bytes == p->lower_bound)
		args->plan_kind = NPA_PLAN_KIND_AT_BOUND;
	else
		args->plan_kind = NPA_PLAN_KIND_ABOVE_BOUND;
	args->arena_bytes = p->arena_bytes;
	args->tensor_bytes = p->tensor_bytes;
	args->lower_bound_bytes = p->lower_bound;
	args->naive_bytes = p->naive_bytes;
	args->scratch_requested_bytes = p->scratch_requested;
	args->scratch_growth_bytes = p->scratch_growth;
	args->scratch_growth_naive_bytes = p->scratch_growth_naive;
	args->plan_ns = p->plan_ns;
	args->num_buffers = p->num_buffers;
}

int npa_ioctl_model_create(struct npa_file *nfile, void *data,
			   struct npa_ioctl_out *out)
{
	struct device *dev = nfile->ndev->misc.this_device;
	struct npa_model_create *args = data;
	struct npa_model_req req = { };
	struct npa_error rep;
	struct npa_model *model;
	int ret;

	/* Nothing to blame unless a check says otherwise. */
	npa_error_set(&rep, NPA_ERR_ARRAY_ARGS, 0, NPA_ERR_FIELD_NONE,
		      NPA_ERR_NONE, 0, 0, 0);
	if (args->error && (!args->error_size ||
			    args->error_size > NPA_MAX_ELEM_SIZE))
		return -EINVAL;
	ret = npa_model_check_args(args, &rep);
	if (ret)
		return npa_refuse(dev, "model create", args->error,
				  args->error_size, &rep, ret);

	model = kzalloc(sizeof(*model), GFP_KERNEL_ACCOUNT);
	if (!model)
		return -ENOMEM;
	ret = npa_model_copy_in(&req, args);
	if (!ret)
		ret = npa_model_create(nfile, model, &req, args->flags,
				       args->budget, &rep);
	npa_model_req_free(&req);
	if (ret)
		goto err_free;

	/* The handle names the model once the caller has it. */
	npa_model_report(model, args);
	ret = npa_ioctl_copy_out(out, args);
	if (ret)
		goto err_unreserve;
	npa_model_publish(nfile, model);
	return 0;

err_unreserve:
	npa_model_unreserve(nfile, model);
	npa_model_free(model);
	return ret;
err_free:
	npa_model_free(model);
	return npa_refuse(dev, "model create", args->error, args->error_size,
			  &rep, ret);
}

/* MODEL_PLAN's @bound: the first @count tensors a job of @model binds. */
static int npa_model_copy_bound(const struct npa_model *model, u64 uptr,
				u32 usize, u32 count)
{
	u32 i;
	int ret;

	for (i = 0; uptr && i < count; i++) {
		u32 t = model->binds[i];
		const struct npa_ir_tensor *it = &model->ir.tensors[t];
		/* The IR's bound-tensor flags are the uAPI's (npa_graph.c). */
		const struct npa_bound_tensor b = {
			.size = it->size, .tensor = t,
			.flags = it->flags & NPA_IR_BOUND, .align = it->align,
		};

		ret = npa_copy_array_to_user(uptr + (u64)i * usize, usize, &b,
					     sizeof(b), 1);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Copies out without @nfile->lock: the destination may fault slowly
 * (userfaultfd, FUSE), and other ioctls and fdinfo must not wait for it.
 * The reference keeps the model alive through a concurrent MODEL_DESTROY,
 * and nothing copied changes after npa_model_publish(): the plan and the
 * counts are written once, before the model has a handle.
 */
int npa_ioctl_model_plan(struct npa_file *nfile, void *data,
			 struct npa_ioctl_out *out)
{
	struct npa_model_plan *args = data;
	struct npa_model *model;
	int ret;

	if (args->flags & ~NPA_MODEL_PLAN_FLAGS_ALL || args->pad)
		return -EINVAL;
	if ((args->tensors || args->scratch) &&
	    (!args->placement_size || args->placement_size > NPA_MAX_ELEM_SIZE))
		return -EINVAL;
	if (args->bound &&
	    (!args->bound_size || args->bound_size > NPA_MAX_ELEM_SIZE))
		return -EINVAL;

	model = npa_model_lookup(nfile, args->handle);
	if (!model)
		return -ENOENT;
	ret = npa_model_copy_places(args->tensors, args->placement_size,
				    model->plan.tensors,
				    min(args->num_tensors, model->ir.num_tensors));
	if (!ret)
		ret = npa_model_copy_places(args->scratch, args->placement_size,
					    model->plan.scratch,
					    min(args->num_scratch,
						model->ir.num_scratch));
	if (!ret)
		ret = npa_model_copy_bound(model, args->bound, args->bound_size,
					   min(args->num_bound,
					       model->num_binds));
	args->num_tensors = model->ir.num_tensors;
	args->num_scratch = model->ir.num_scratch;
	args->num_bound = model->num_binds;
	npa_model_put(model);
	return ret;
}

int npa_ioctl_model_destroy(struct npa_file *nfile, void *data,
			    struct npa_ioctl_out *out)
{
	struct npa_model_destroy *args = data;
	struct npa_model *model;

	if (args->flags & ~NPA_MODEL_DESTROY_FLAGS_ALL)
		return -EINVAL;
	mutex_lock(&nfile->lock);
	/* Not xa_erase() alone: it would drop a handle MODEL_CREATE reserved. */
	model = xa_load(&nfile->models, args->handle);
	if (model)
		xa_erase(&nfile->models, args->handle);
	mutex_unlock(&nfile->lock);
	if (!model)
		return -ENOENT;
	/* Jobs still running it hold their own references. */
	npa_model_put(model);
	return 0;
}

/**
 * npa_model_release_all() - free every model of a closing file
 * @nfile: the file.
 *
 * Context: Process context; no other user of @nfile is left.
 */
void npa_model_release_all(struct npa_file *nfile)
{
	struct npa_model *model;
	unsigned long handle;

	xa_for_each(&nfile->models, handle, model) {
		xa_erase(&nfile->models, handle);
		npa_model_put(model);
	}
	xa_destroy(&nfile->models);
}

/*
 * debugfs ``models``: every live model's plan report, then its arena
 * tensors, at most %NPA_MODEL_SHOW_CHUNK of them a step.  A step holds a
 * reference to its model, not the device's lock: the lock is taken only
 * to find the model a step starts at, so a model of 65,536 tensors never
 * holds it while it prints, and MODEL_CREATE, MODEL_DESTROY and the jobs'
 * arena never wait for a reader.  What is printed does not change once a
 * model is published, so the reference is all a step needs.
 *
 * The position is the model's id (&npa_model.id) and the step in it,
 * (id << %NPA_MODEL_POS_SHIFT) + step, not a count of the steps before
 * it: a model created or destroyed between two read()s moves no other
 * model's place, so the rest is neither skipped nor printed twice.  Ids
 * are 31 bits and a model has fewer than 2^31 steps, so the position is
 * a positive loff_t.
 */
#define NPA_MODEL_SHOW_CHUNK	64
#define NPA_MODEL_POS_SHIFT	31

/**
 * struct npa_model_iter - where a read of debugfs ``models`` is
 * @ndev: the device.
 * @model: the model being printed (a reference), between start and stop.
 * @step: 0 for its report line, k for its tensors from
 *	(k - 1) * %NPA_MODEL_SHOW_CHUNK on.
 */
struct npa_model_iter {
	struct npa_device *ndev;
	struct npa_model *model;
	u32 step;
};

static u32 npa_model_show_steps(const struct npa_model *model)
{
	return 1 + DIV_ROUND_UP(model->ir.num_tensors, NPA_MODEL_SHOW_CHUNK);
}

static loff_t npa_model_pos(u64 id, u64 step)
{
	return (loff_t)(id << NPA_MODEL_POS_SHIFT | step);
}

/*
 * Point @it at step @step of model @id, or if that model or step is gone,
 * at the first step of the next model that is not being freed; *@ppos
 * says where.  A model being freed (no reference left) stays in the
 * device's table until its release takes the lock: skip it.
 * Return: @it, or NULL past the last model (*@ppos left as it is).
 */
static void *npa_model_iter_at(struct npa_model_iter *it, unsigned long want,
			       u64 step, loff_t *ppos)
{
	struct npa_device *ndev = it->ndev;
	struct npa_model *model;
	unsigned long id;

	mutex_lock(&ndev->lock);
	xa_for_each_start(&ndev->models, id, model, want) {
		if (id == want && step >= npa_model_show_steps(model))
			continue;
		if (kref_get_unless_zero(&model->ref))
			break;
	}
	mutex_unlock(&ndev->lock);
	it->model = model;
	if (!model)
		return NULL;
	it->step = id == want ? step : 0;
	*ppos = npa_model_pos(id, it->step);
	return it;
}

static void *npa_model_seq_start(struct seq_file *m, loff_t *ppos)
{
	u64 pos = *ppos;

	return npa_model_iter_at(m->private, pos >> NPA_MODEL_POS_SHIFT,
				 pos & (BIT_ULL(NPA_MODEL_POS_SHIFT) - 1), ppos);
}

static void *npa_model_seq_next(struct seq_file *m, void *v, loff_t *ppos)
{
	struct npa_model_iter *it = m->private;
	struct npa_model *prev = it->model;
	void *next;

	if (++it->step < npa_model_show_steps(prev)) {
		*ppos = npa_model_pos(prev->id, it->step);
		return it;
	}
	/* Past the end too, the position must move on. */
	*ppos = npa_model_pos(prev->id + 1ULL, 0);
	next = npa_model_iter_at(it, prev->id + 1UL, 0, ppos);
	npa_model_put(prev);
	return next;
}

static void npa_model_seq_stop(struct seq_file *m, void *v)
{
	struct npa_model_iter *it = m->private;

	if (it->model)
		npa_model_put(it->model);
	it->model = NULL;
}

static int npa_model_seq_show(struct seq_file *m, void *v)
{
	const struct npa_model_iter *it = v;
	const struct npa_model *model = it->model;
	const struct npa_layout *p = &model->plan;
	u32 t, end;

	if (!it->step) {
		seq_printf(m, "model %u: %u tensors %u ops arena %llu tensors %llu lower bound %llu naive %llu scratch %llu growth %llu (naive %llu) planner %s%s\n",
			   model->handle, model->ir.num_tensors,
			   model->ir.num_ops, p->arena_bytes, p->tensor_bytes,
			   p->lower_bound, p->naive_bytes, p->scratch_requested,
			   p->scratch_growth, p->scratch_growth_naive,
			   npa_plan_algo_name(p->algorithm),
			   model->arena ? " private" : "");
		return 0;
	}
	t = (it->step - 1) * NPA_MODEL_SHOW_CHUNK;
	end = min(t + NPA_MODEL_SHOW_CHUNK, model->ir.num_tensors);
	for (; t < end; t++) {
		const struct npa_ir_place *pl = &p->tensors[t];

		if (pl->flags & NPA_IR_ARENA)
			seq_printf(m, "  t%u %#llx+%llu [%u,%u) buf %u\n", t,
				   pl->offset, pl->size, pl->lo, pl->hi,
				   pl->buffer);
	}
	return 0;
}

static const struct seq_operations npa_model_seq_ops = {
	.start = npa_model_seq_start,
	.next = npa_model_seq_next,
	.stop = npa_model_seq_stop,
	.show = npa_model_seq_show,
};

/**
 * npa_model_seq_open() - open debugfs ``models``: every live model's plan
 * @inode: the debugfs file's inode; its private data is the device.
 * @file: the file.
 *
 * Release it with seq_release_private().
 *
 * Context: Process context.
 * Return: 0 or -ENOMEM.
 */
int npa_model_seq_open(struct inode *inode, struct file *file)
{
	struct npa_model_iter *it;

	it = __seq_open_private(file, &npa_model_seq_ops, sizeof(*it));
	if (!it)
		return -ENOMEM;
	it->ndev = inode->i_private;
	return 0;
}

/*
 * The carveout @model's arena would take, in whole pages; U64_MAX for a
 * supplied plan's arena within a page of 2^64, which PAGE_ALIGN() would
 * wrap to 0.
 */
static u64 npa_model_arena_pages(const struct npa_model *model)
{
	u64 bytes = model->plan.arena_bytes;

	return bytes > U64_MAX - (PAGE_SIZE - 1) ? U64_MAX : PAGE_ALIGN(bytes);
}

/**
 * npa_model_arena_stats() - what the models' activation arenas take
 * @ndev: the device.
 * @shared: out: the shared arena (the largest model that uses it, see
 *	&npa_model.shares_arena).
 * @private: out: the private arenas together.
 * @need_private: out: what a private arena for every model would take
 *	(U64_MAX if that is not a u64).
 *
 * Context: Process context; takes @ndev->lock.
 */
void npa_model_arena_stats(struct npa_device *ndev, u64 *shared, u64 *private,
			   u64 *need_private)
{
	struct npa_model *model;
	unsigned long id;

	*shared = *private = *need_private = 0;
	mutex_lock(&ndev->lock);
	xa_for_each(&ndev->models, id, model) {
		u64 bytes = npa_model_arena_pages(model);

		/* A supplied plan's arena may be near 2^64: saturate. */
		if (check_add_overflow(*need_private, bytes, need_private))
			*need_private = U64_MAX;
		if (model->arena)
			*private += bytes;
		else if (model->shares_arena)
			*shared = max(*shared, bytes);
	}
	mutex_unlock(&ndev->lock);
}
