// SPDX-License-Identifier: GPL-2.0
/*
 * npa fuzz target "graph": npa_graph_validate() and npa_layout_plan() on
 * graphs decoded from the input, with the plan checked independently.
 *
 * Input (see README): an 8-byte header
 *
 *   [0] mode: bit 0 raw records (the uAPI structs byte for byte),
 *       bit 1 plan twice and compare (determinism)
 *   [1] tensors  [2] ops  [3] operands  [4] scratch requests
 *   [5] limits: bit 0 small counts (8/8/24/4), bit 1 fast window 1 KiB
 *   [6] budget: 255 the default (0), else (v % 64 + 1) * 16 placements
 *   [7] unused
 *
 * then the tensors, ops, operand ids and scratch requests.  Compact
 * records map a few bytes to each field so that valid graphs are common
 * (tensor: flags, dtype, align code, size mode, 4 dims, 16-bit size; op:
 * kind, unit, flags, 6 index bytes, 8 params; operand: 1 byte; scratch:
 * 16-bit size, min code, align code, flags);
 * raw records reach every validation failure.  Counts are capped (64
 * tensors and ops, 255 operands, 32 scratch requests) to keep one input
 * small and fast.
 */
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/npa.h>

#include "npa_graph.h"
#include "npa_plan.h"
#include "fuzz.h"
#include "fuzz_check.h"

#define FZ_MAX_TENSORS	64
#define FZ_MAX_OPS	64
#define FZ_MAX_SCRATCH	32
#define NONE		UINT32_MAX

struct fz_graph {
	struct npa_tensor_desc t[FZ_MAX_TENSORS];
	struct npa_op_desc op[FZ_MAX_OPS];
	u32 operands[256];
	struct npa_scratch_desc s[FZ_MAX_SCRATCH];
	struct npa_graph g;
	struct npa_graph_limits lim;
	u64 budget;
	bool twice;
};

static u32 fz_dim(uint8_t v)
{
	if (v == 255)
		return UINT32_MAX;
	if (v == 254)
		return 1U << 16;
	return v;
}

static u64 fz_shape_bytes(const struct npa_tensor_desc *t)
{
	static const u8 elem[NPA_DTYPE_COUNT] = { 0, 1, 1, 2, 4 };
	u64 b;
	int i;

	if (!t->dtype || t->dtype >= NPA_DTYPE_COUNT)
		return 0;
	b = elem[t->dtype];
	for (i = 0; i < NPA_MAX_DIMS && t->dims[i]; i++)
		if (__builtin_mul_overflow(b, (u64)t->dims[i], &b))
			return 0;
	return b;
}

static void fz_tensor(struct fz *f, struct npa_tensor_desc *t)
{
	uint8_t flags = fz_u8(f), dtype = fz_u8(f), align = fz_u8(f);
	uint8_t mode = fz_u8(f);
	int i;

	memset(t, 0, sizeof(*t));
	t->flags = flags & 0xf;
	if (flags & 0x80)
		t->flags |= 1U << (4 + ((flags >> 4) & 7));
	t->dtype = dtype % (NPA_DTYPE_COUNT + 1);
	t->align = fz_align(align);
	for (i = 0; i < NPA_MAX_DIMS; i++)
		t->dims[i] = fz_dim(fz_u8(f));
	switch (mode & 3) {
	case 0:
		break;
	case 1:
		t->size = fz_shape_bytes(t);
		break;
	case 2:
		t->size = fz_wide(fz_u16(f));
		break;
	case 3:
		t->size = fz_shape_bytes(t) + 1;
		break;
	}
	if ((mode & 3) != 2)
		fz_u16(f);
	if (mode & 0x80)
		t->pad = 1;
}

static void fz_op(struct fz *f, struct npa_op_desc *op)
{
	uint8_t kind = fz_u8(f), unit = fz_u8(f), flags = fz_u8(f);
	int i;

	memset(op, 0, sizeof(*op));
	op->kind = kind % (NPA_OP_KIND_COUNT + 1);
	op->unit = unit % (NPA_UNIT_COUNT + 1);
	op->flags = flags & 1;
	if (flags & 0x80)
		op->flags |= 2;
	if (flags & 0x40)
		op->pad = 1;
	op->first_input = fz_idx(fz_u8(f));
	op->num_inputs = fz_idx(fz_u8(f));
	op->first_output = fz_idx(fz_u8(f));
	op->num_outputs = fz_idx(fz_u8(f));
	op->first_scratch = fz_idx(fz_u8(f));
	op->num_scratch = fz_idx(fz_u8(f));
	for (i = 0; i < NPA_OP_MAX_PARAMS; i++)
		op->params[i] = (s8)fz_u8(f);
}

static void fz_scratch(struct fz *f, struct npa_scratch_desc *s)
{
	uint16_t size = fz_u16(f);
	uint8_t min = fz_u8(f), align = fz_u8(f), flags = fz_u8(f);

	memset(s, 0, sizeof(*s));
	s->size = fz_wide(size);
	if (min == 255)
		s->min_size = s->size + 1;
	else if (min)
		s->min_size = s->size / 254 * min + 1;
	s->align = fz_align(align);
	s->flags = flags & 3;
	if (flags & 0x80)
		s->flags |= 1U << (2 + ((flags >> 4) & 7));
}

static void fz_decode(const uint8_t *data, size_t size, struct fz_graph *d)
{
	struct fz f = { .p = data, .n = size };
	uint8_t mode = fz_u8(&f), nt = fz_u8(&f), no = fz_u8(&f);
	uint8_t nopd = fz_u8(&f), ns = fz_u8(&f), lim = fz_u8(&f);
	uint8_t budget = fz_u8(&f);
	u32 i;

	fz_u8(&f);
	memset(d, 0, sizeof(*d));
	d->g.num_tensors = nt % (FZ_MAX_TENSORS + 1);
	d->g.num_ops = no % (FZ_MAX_OPS + 1);
	d->g.num_operands = nopd;
	d->g.num_scratch = ns % (FZ_MAX_SCRATCH + 1);
	d->g.tensors = d->t;
	d->g.ops = d->op;
	d->g.operands = d->operands;
	d->g.scratch = d->s;
	d->lim = npa_graph_default_limits;
	if (lim & 1) {
		d->lim.max_tensors = 8;
		d->lim.max_ops = 8;
		d->lim.max_operands = 24;
		d->lim.max_scratch = 4;
	}
	if (lim & 2)
		d->lim.fast_window = 1024;
	d->budget = budget == 255 ? 0 : (budget % 64 + 1) * 16ULL;
	d->twice = mode & 2;

	if (mode & 1) {
		fz_bytes(&f, d->t, d->g.num_tensors * sizeof(d->t[0]));
		fz_bytes(&f, d->op, d->g.num_ops * sizeof(d->op[0]));
		fz_bytes(&f, d->operands, d->g.num_operands * sizeof(u32));
		fz_bytes(&f, d->s, d->g.num_scratch * sizeof(d->s[0]));
		return;
	}
	for (i = 0; i < d->g.num_tensors; i++)
		fz_tensor(&f, &d->t[i]);
	for (i = 0; i < d->g.num_ops; i++)
		fz_op(&f, &d->op[i]);
	for (i = 0; i < d->g.num_operands; i++)
		d->operands[i] = fz_idx(fz_u8(&f));
	for (i = 0; i < d->g.num_scratch; i++)
		fz_scratch(&f, &d->s[i]);
}

/* ------------------------------------------------------------------ */
/* Independent checks of a plan */

#define OWN_PLACE (NPA_TENSOR_INPUT | NPA_TENSOR_OUTPUT | NPA_TENSOR_CONST | \
		   NPA_TENSOR_PERSISTENT)

struct fz_region {
	u64 off, size;
	u32 lo, hi, buffer;
	const char *what;
	u32 idx;
};

static bool fz_overlap(u64 a, u64 an, u64 b, u64 bn)
{
	return an && bn && a < b + bn && b < a + an;
}

static u64 fz_max(u64 a, u64 b)
{
	return a > b ? a : b;
}

static bool fz_in_arena(const struct npa_graph *g, u32 t)
{
	return !(g->tensors[t].flags & OWN_PLACE);
}

/* An arena write of op @i: [off, off + n); nothing live past @i may be hit. */
static void fz_check_write(const struct npa_graph *g,
			   const struct npa_layout *p, u32 i, u32 dst,
			   u64 off, u64 n)
{
	u32 y;

	for (y = 0; y < g->num_tensors; y++) {
		const struct npa_ir_place *q = &p->tensors[y];

		if (y == dst || !fz_in_arena(g, y))
			continue;
		if (q->lo > i || q->hi <= i + 1)
			continue;
		if (fz_overlap(off, n, q->offset, npa_tensor_bytes(&g->tensors[y])))
			fz_fail("op %u writes tensor %u [%llu,+%llu) over tensor %u [%llu,+%llu) live [%u,%u)",
				i, dst, (unsigned long long)off,
				(unsigned long long)n, y,
				(unsigned long long)q->offset,
				(unsigned long long)npa_tensor_bytes(&g->tensors[y]),
				q->lo, q->hi);
	}
}

/* What each op writes, as the executor moves data only where it differs. */
static void fz_check_writes(const struct npa_graph *g,
			    const struct npa_layout *p)
{
	const struct npa_ir_place *pt = p->tensors;
	u32 i, k;

	for (i = 0; i < g->num_ops; i++) {
		const struct npa_op_desc *op = &g->ops[i];
		u32 in = g->operands[op->first_input];
		u32 out = g->operands[op->first_output];
		u64 at = 0, n;

		switch (op->kind) {
		case NPA_OP_CONCAT:
			if (!fz_in_arena(g, out))
				break;
			for (k = 0; k < op->num_inputs; k++, at += n) {
				in = g->operands[op->first_input + k];
				n = npa_tensor_bytes(&g->tensors[in]);
				if (fz_in_arena(g, in) &&
				    pt[in].offset == pt[out].offset + at)
					continue;
				fz_check_write(g, p, i, out, pt[out].offset + at, n);
			}
			break;
		case NPA_OP_SPLIT:
			for (k = 0; k < op->num_outputs; k++, at += n) {
				out = g->operands[op->first_output + k];
				n = npa_tensor_bytes(&g->tensors[out]);
				if (!fz_in_arena(g, out))
					continue;
				if (fz_in_arena(g, in) &&
				    pt[out].offset == pt[in].offset + at)
					continue;
				fz_check_write(g, p, i, out, pt[out].offset, n);
			}
			break;
		case NPA_OP_RESHAPE:
		case NPA_OP_COPY:
			if (!fz_in_arena(g, out))
				break;
			if (fz_in_arena(g, in) && pt[out].offset == pt[in].offset)
				break;
			fz_check_write(g, p, i, out, pt[out].offset,
				       npa_tensor_bytes(&g->tensors[out]));
			break;
		default:
			for (k = 0; k < op->num_outputs; k++) {
				out = g->operands[op->first_output + k];
				if (fz_in_arena(g, out))
					fz_check_write(g, p, i, out, pt[out].offset,
						       npa_tensor_bytes(&g->tensors[out]));
			}
			break;
		}
	}
}

static void fz_check_plan(const struct npa_graph *g,
			  const struct npa_graph_limits *lim,
			  const struct npa_layout *p)
{
	static struct fz_region r[FZ_MAX_TENSORS + FZ_MAX_SCRATCH];
	u64 align[FZ_MAX_TENSORS], naive = 0, requested = 0, sum;
	u32 lo[FZ_MAX_TENSORS], hi[FZ_MAX_TENSORS], owner[FZ_MAX_SCRATCH];
	u32 nr = 0, i, j, k, nbuf = 0;
	bool seen[FZ_MAX_TENSORS] = { };
	const char *msg;

	for (i = 0; i < g->num_tensors; i++) {
		align[i] = fz_max(g->tensors[i].align, 1);
		lo[i] = NONE;
		hi[i] = 0;
	}
	for (i = 0; i < g->num_ops; i++) {
		const struct npa_op_desc *op = &g->ops[i];
		u64 ua = fz_max(lim->unit_align[op->unit], 1);

		for (k = 0; k < op->num_inputs; k++) {
			u32 t = g->operands[op->first_input + k];

			align[t] = fz_max(align[t], ua);
			hi[t] = fz_max(hi[t], i + 1);
		}
		for (k = 0; k < op->num_outputs; k++) {
			u32 t = g->operands[op->first_output + k];

			align[t] = fz_max(align[t], ua);
			lo[t] = i;
			hi[t] = fz_max(hi[t], i + 1);
		}
		for (k = 0; k < op->num_scratch; k++)
			owner[op->first_scratch + k] = i;
	}

	fz_assert(p->algorithm < NPA_PLAN_ALGO_COUNT, "algorithm %u", p->algorithm);
	fz_assert(p->num_buffers <= g->num_tensors, "%u buffers for %u tensors",
		  p->num_buffers, g->num_tensors);
	fz_assert(!__builtin_add_overflow(p->tensor_bytes, p->scratch_growth, &sum) &&
		  sum == p->arena_bytes,
		  "arena %llu != tensors %llu + scratch growth %llu",
		  (unsigned long long)p->arena_bytes,
		  (unsigned long long)p->tensor_bytes,
		  (unsigned long long)p->scratch_growth);
	fz_assert(p->tensor_bytes >= p->lower_bound, "tensor bytes %llu < lower bound %llu",
		  (unsigned long long)p->tensor_bytes,
		  (unsigned long long)p->lower_bound);

	for (i = 0; i < g->num_tensors; i++) {
		const struct npa_ir_place *q = &p->tensors[i];
		u64 bytes = npa_tensor_bytes(&g->tensors[i]), end;

		if (lo[i] == NONE)
			lo[i] = 0;
		if (hi[i] < lo[i] + 1)
			hi[i] = lo[i] + 1;
		if (align[i] > NPA_PLAN_MAX_ALIGN)
			align[i] = NPA_PLAN_MAX_ALIGN;
		fz_assert(q->size >= bytes, "tensor %u size %llu < %llu", i,
			  (unsigned long long)q->size, (unsigned long long)bytes);
		fz_assert(q->lo < q->hi, "tensor %u lifetime [%u,%u)", i, q->lo, q->hi);
		if (!fz_in_arena(g, i)) {
			fz_assert(q->offset == UINT64_MAX && q->buffer == NONE &&
				  !(q->flags & NPA_IR_ARENA),
				  "own-place tensor %u placed in the arena", i);
			continue;
		}
		naive += q->size;
		fz_assert(q->flags == NPA_IR_ARENA, "tensor %u flags %#x", i, q->flags);
		fz_assert(q->lo <= lo[i] && q->hi >= hi[i],
			  "tensor %u live [%u,%u) placed for [%u,%u)", i, lo[i],
			  hi[i], q->lo, q->hi);
		fz_assert(!(q->offset & (align[i] - 1)), "tensor %u offset %llu align %llu",
			  i, (unsigned long long)q->offset, (unsigned long long)align[i]);
		fz_assert(!__builtin_add_overflow(q->offset, q->size, &end) &&
			  end <= p->arena_bytes, "tensor %u [%llu,+%llu) above arena %llu",
			  i, (unsigned long long)q->offset, (unsigned long long)q->size,
			  (unsigned long long)p->arena_bytes);
		fz_assert(q->buffer < p->num_buffers, "tensor %u buffer %u of %u",
			  i, q->buffer, p->num_buffers);
		if (!seen[q->buffer]) {
			seen[q->buffer] = true;
			nbuf++;
		}
		r[nr++] = (struct fz_region){ q->offset, q->size, q->lo, q->hi,
					      q->buffer, "tensor", i };
	}
	fz_assert(nbuf == p->num_buffers, "%u buffers used, %u reported", nbuf,
		  p->num_buffers);
	fz_assert(naive == p->naive_bytes, "naive %llu, reported %llu",
		  (unsigned long long)naive, (unsigned long long)p->naive_bytes);

	msg = fz_check_scratch(g->scratch, g->num_scratch, g->ops, owner, lim,
			       p->scratch, p->arena_bytes, &requested);
	fz_assert(!msg, "%s", msg);
	for (j = 0; j < g->num_scratch; j++) {
		const struct npa_ir_place *q = &p->scratch[j];

		r[nr++] = (struct fz_region){ q->offset, q->size, q->lo, q->hi,
					      NONE, "scratch", j };
	}
	fz_assert(requested == p->scratch_requested, "scratch %llu, reported %llu",
		  (unsigned long long)requested,
		  (unsigned long long)p->scratch_requested);

	/* Live at the same time in different buffers: disjoint. */
	for (i = 0; i < nr; i++) {
		for (j = i + 1; j < nr; j++) {
			if (r[i].buffer == r[j].buffer && r[i].buffer != NONE)
				continue;
			if (r[i].lo >= r[j].hi || r[j].lo >= r[i].hi)
				continue;
			if (fz_overlap(r[i].off, r[i].size, r[j].off, r[j].size))
				fz_fail("%s %u [%llu,+%llu) [%u,%u) overlaps %s %u [%llu,+%llu) [%u,%u)",
					r[i].what, r[i].idx,
					(unsigned long long)r[i].off,
					(unsigned long long)r[i].size, r[i].lo, r[i].hi,
					r[j].what, r[j].idx,
					(unsigned long long)r[j].off,
					(unsigned long long)r[j].size, r[j].lo, r[j].hi);
		}
	}
	fz_check_writes(g, p);
}

static void fz_dump(const struct npa_graph *g)
{
	u32 i;

	if (!fz_verbose())
		return;
	for (i = 0; i < g->num_tensors; i++) {
		const struct npa_tensor_desc *t = &g->tensors[i];

		fprintf(stderr, "  t%u: size %llu dims %u,%u,%u,%u dtype %u align %u flags %#x\n",
			i, (unsigned long long)t->size, t->dims[0], t->dims[1],
			t->dims[2], t->dims[3], t->dtype, t->align, t->flags);
	}
	for (i = 0; i < g->num_ops; i++) {
		const struct npa_op_desc *o = &g->ops[i];
		u32 k;

		fprintf(stderr, "  op%u: kind %u unit %u flags %#x in", i, o->kind,
			o->unit, o->flags);
		for (k = 0; k < o->num_inputs && o->first_input + k < g->num_operands; k++)
			fprintf(stderr, " t%u", g->operands[o->first_input + k]);
		fprintf(stderr, " out");
		for (k = 0; k < o->num_outputs && o->first_output + k < g->num_operands; k++)
			fprintf(stderr, " t%u", g->operands[o->first_output + k]);
		fprintf(stderr, " scratch %u+%u params %d %d %d %d %d %d %d %d\n",
			o->first_scratch, o->num_scratch, o->params[0],
			o->params[1], o->params[2], o->params[3], o->params[4],
			o->params[5], o->params[6], o->params[7]);
	}
	for (i = 0; i < g->num_scratch; i++)
		fprintf(stderr, "  s%u: size %llu min %llu align %u flags %#x\n", i,
			(unsigned long long)g->scratch[i].size,
			(unsigned long long)g->scratch[i].min_size,
			g->scratch[i].align, g->scratch[i].flags);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fz_graph d;
	struct npa_layout plan, again;
	struct npa_error err = { };
	struct npa_ir ir;
	int ret;

	fz_decode(data, size, &d);
	ret = npa_graph_build(&d.g, &d.lim, &ir, &err);
	fz_dump(&d.g);
	fz_log("graph %u tensors %u ops: validate %d array %u[%u] field %u reason %u\n",
	       d.g.num_tensors, d.g.num_ops, ret, err.array, err.index,
	       err.field, err.reason);
	if (ret) {
		fz_assert(ret < 0 && (err.reason || ret == -ENOMEM),
			  "validate returned %d without a reason", ret);
		/* A dim is blamed by the refusals of a dims field, and only. */
		fz_assert(!err.reason || (!err.pad &&
			  (err.field == NPA_ERR_FIELD_DIMS ?
			   err.dim < NPA_MAX_DIMS : err.dim == NPA_ERR_NO_INDEX)),
			  "field %u blames dim %u", err.field, err.dim);
		return 0;
	}
	ret = npa_layout_plan(&ir, d.lim.fast_window,
			      d.lim.scratch_growth_pct, d.budget, &plan);
	if (ret) {
		/* Sizes are bounded by max_tensor_bytes: only -ENOMEM may fail. */
		fz_assert(ret == -ENOMEM, "plan of a valid graph failed: %d", ret);
		npa_ir_free(&ir);
		return 0;
	}
	fz_log("plan: arena %llu tensors %llu lb %llu buffers %u algo %u\n",
	       (unsigned long long)plan.arena_bytes,
	       (unsigned long long)plan.tensor_bytes,
	       (unsigned long long)plan.lower_bound, plan.num_buffers,
	       plan.algorithm);
	fz_check_plan(&d.g, &d.lim, &plan);
	if (d.twice) {
		fz_assert(!npa_layout_plan(&ir, d.lim.fast_window,
			      d.lim.scratch_growth_pct, d.budget, &again),
			  "second plan failed");
		fz_assert(again.arena_bytes == plan.arena_bytes &&
			  again.tensor_bytes == plan.tensor_bytes &&
			  !memcmp(again.tensors, plan.tensors,
				  d.g.num_tensors * sizeof(*plan.tensors)),
			  "plan is not deterministic");
		npa_layout_free(&again);
	}
	npa_layout_free(&plan);
	npa_ir_free(&ir);
	return 0;
}
