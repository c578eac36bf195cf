// SPDX-License-Identifier: GPL-2.0
/*
 * Property harness for npa_graph_validate() + npa_layout_plan().
 *
 * Generates structurally valid graphs (plus single-field mutations with an
 * expected errno) from a random stream and checks each plan independently:
 * alignment, bounds, lifetimes, pairwise overlap of co-live placements,
 * scratch placement, a shadow-memory simulation of what each op writes and
 * reads (so aliasing is checked semantically), report fields and
 * determinism.
 *
 * Build:  libFuzzer (make -C tools fuzz: build/fuzz/fuzz-prop);
 *         a loop over seeds: the same sources with -DPROP_LOOP and
 *         -fsanitize=address,undefined, then ./prop SEED N.
 * It found two holes in in-place ops (commit 750c50c); its counters of
 * them ("in-place output over another input", "concat+inplace sum
 * mismatch") stay 0.
 */
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/npa.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npa_graph.h"
#include "npa_plan.h"
#include "fuzz_check.h"

#define MAXT	4096
#define MAXO	2048
#define MAXOPD	16384
#define MAXS	4096
#define NONE	UINT32_MAX
#define OWN	(NPA_TENSOR_INPUT | NPA_TENSOR_OUTPUT | NPA_TENSOR_CONST | \
		 NPA_TENSOR_PERSISTENT)

/* ------------------------------------------------------------------ */
/* random stream */

static const uint8_t *in_p;
static size_t in_n, in_off;
static u64 rs = 0x9e3779b97f4a7c15ULL;

static u64 r64(void)
{
	u64 z;

	if (in_off < in_n) {
		u64 v = 0;
		int i;

		for (i = 0; i < 8 && in_off < in_n; i++)
			v = v << 8 | in_p[in_off++];
		rs ^= v * 0xbf58476d1ce4e5b9ULL;
	}
	z = (rs += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static u64 rnd(u64 n)	/* [0, n) */
{
	return n ? r64() % n : 0;
}

static int pct(int p)
{
	return (int)rnd(100) < p;
}

/* ------------------------------------------------------------------ */
/* graph */

struct G {
	struct npa_tensor_desc t[MAXT];
	struct npa_op_desc op[MAXO];
	u32 opd[MAXOPD];
	struct npa_scratch_desc s[MAXS];
	u32 nt, no, nopd, ns;
	struct npa_graph_limits lim;
	u64 budget;
};

static struct G G0, G1;

static void graph_of(struct G *g, struct npa_graph *out)
{
	*out = (struct npa_graph){
		.tensors = g->t, .ops = g->op, .operands = g->opd,
		.scratch = g->s, .num_tensors = g->nt, .num_ops = g->no,
		.num_operands = g->nopd, .num_scratch = g->ns,
	};
}

static u64 tbytes(const struct npa_tensor_desc *t)
{
	return npa_tensor_bytes(t);
}

static void dump(const struct G *g, FILE *f)
{
	u32 i, k;

	fprintf(f, "limits: T%u O%u P%u S%u align %u/%u/%u fast %llu max %llu budget %llu\n",
		g->lim.max_tensors, g->lim.max_ops, g->lim.max_operands,
		g->lim.max_scratch, g->lim.unit_align[0], g->lim.unit_align[1],
		g->lim.unit_align[2], (unsigned long long)g->lim.fast_window,
		(unsigned long long)g->lim.max_tensor_bytes,
		(unsigned long long)g->budget);
	for (i = 0; i < g->nt; i++) {
		const struct npa_tensor_desc *t = &g->t[i];

		fprintf(f, "  t%u: size %llu dims %u,%u,%u,%u dtype %u align %u flags %#x pad %u\n",
			i, (unsigned long long)t->size, t->dims[0], t->dims[1],
			t->dims[2], t->dims[3], t->dtype, t->align, t->flags, t->pad);
	}
	for (i = 0; i < g->no; i++) {
		const struct npa_op_desc *o = &g->op[i];

		fprintf(f, "  op%u: kind %u unit %u flags %#x in[%u+%u]", i, o->kind,
			o->unit, o->flags, o->first_input, o->num_inputs);
		for (k = 0; k < o->num_inputs && k < 16 && (u64)o->first_input + k < g->nopd; k++)
			fprintf(f, " t%u", g->opd[o->first_input + k]);
		fprintf(f, " out[%u+%u]", o->first_output, o->num_outputs);
		for (k = 0; k < o->num_outputs && k < 16 && (u64)o->first_output + k < g->nopd; k++)
			fprintf(f, " t%u", g->opd[o->first_output + k]);
		fprintf(f, " scratch[%u+%u] p %d %d %d %d %d %d %d %d\n",
			o->first_scratch, o->num_scratch, o->params[0], o->params[1],
			o->params[2], o->params[3], o->params[4], o->params[5],
			o->params[6], o->params[7]);
	}
	for (i = 0; i < g->ns; i++)
		fprintf(f, "  s%u: size %llu min %llu align %u flags %#x\n", i,
			(unsigned long long)g->s[i].size,
			(unsigned long long)g->s[i].min_size, g->s[i].align,
			g->s[i].flags);
}

static struct G *cur_g;
static const char *cur_phase = "";

static void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "PROP FAIL (%s): ", cur_phase);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (cur_g)
		dump(cur_g, stderr);
	abort();
}

#define CHECK(c, ...) do { if (!(c)) fail(__VA_ARGS__); } while (0)

/* ------------------------------------------------------------------ */
/* generator */

static int small_mode;

static u64 gen_size(u64 max)
{
	u64 v;

	if (small_mode)
		return 64 * (1 + rnd(small_mode));

	switch (rnd(12)) {
	case 0: case 1: case 2: case 3:
		v = 1 + rnd(64);
		break;
	case 4: case 5:
		v = 1 + rnd(4096);
		break;
	case 6:
		v = 1ULL << rnd(21);
		break;
	case 7:
		v = max - rnd(3);
		break;
	case 8: {
		u64 k = 1ULL << rnd(41);

		v = k + rnd(5) - 2;
		break;
	}
	case 9:
		v = 1 + rnd(1 << 20);
		break;
	default:
		v = 1 + rnd(300);
		break;
	}
	if (!v)
		v = 1;
	if (v > max)
		v = max;
	return v;
}

static u32 gen_align(void)
{
	if (pct(60))
		return 0;
	if (pct(10))
		return 1U << 20;
	return 1U << rnd(21);
}

/* A tensor of @size bytes, sometimes with a matching shape. */
static u32 new_tensor(struct G *g, u64 size, u32 flags)
{
	struct npa_tensor_desc *t = &g->t[g->nt];

	memset(t, 0, sizeof(*t));
	t->size = size;
	t->flags = flags;
	t->align = gen_align();
	if (pct(25) && size <= UINT32_MAX) {
		switch (rnd(4)) {
		case 0:
			t->dtype = NPA_DTYPE_INT8;
			t->dims[0] = size;
			break;
		case 1:
			t->dtype = NPA_DTYPE_INT8;
			t->dims[0] = 1;
			t->dims[1] = size;
			t->dims[2] = 1;
			t->dims[3] = 1;
			break;
		case 2:
			if (size % 4 == 0) {
				t->dtype = NPA_DTYPE_INT32;
				t->dims[0] = size / 4;
			}
			break;
		default:
			if (size % 2 == 0) {
				t->dtype = NPA_DTYPE_INT16;
				t->dims[0] = 2;
				t->dims[1] = size / 4 ? size / 4 : 1;
				if ((u64)t->dims[0] * t->dims[1] * 2 != size) {
					t->dims[0] = size / 2;
					t->dims[1] = 0;
				}
			}
			break;
		}
		if (t->dtype && pct(50))
			t->size = 0;
	}
	return g->nt++;
}

static void unshape(struct npa_tensor_desc *t)
{
	u64 b = npa_tensor_bytes(t);

	t->size = b;
	t->dtype = 0;
	memset(t->dims, 0, sizeof(t->dims));
}

static const u8 arity[NPA_OP_KIND_COUNT][4] = {
	[NPA_OP_CONV2D] = { 2, 3, 1, 1 },
	[NPA_OP_DWCONV2D] = { 2, 3, 1, 1 },
	[NPA_OP_MAXPOOL] = { 1, 1, 1, 1 },
	[NPA_OP_AVGPOOL] = { 1, 1, 1, 1 },
	[NPA_OP_ADD] = { 2, 2, 1, 1 },
	[NPA_OP_MUL] = { 2, 2, 1, 1 },
	[NPA_OP_ACTIVATION] = { 1, 1, 1, 1 },
	[NPA_OP_CONCAT] = { 1, 6, 1, 1 },
	[NPA_OP_RESHAPE] = { 1, 1, 1, 1 },
	[NPA_OP_SPLIT] = { 1, 1, 1, 6 },
	[NPA_OP_UPSAMPLE] = { 1, 1, 1, 1 },
	[NPA_OP_COPY] = { 1, 1, 1, 1 },
	[NPA_OP_FC] = { 2, 3, 1, 1 },
	[NPA_OP_REORG] = { 1, 1, 1, 1 },
};

static u32 prod[MAXT];	/* generator: producer op or NONE */
static u32 avail[MAXT], navail;

static u32 pick_input(struct G *g, u64 maxsize)
{
	u32 tries;

	if (navail && pct(75)) {
		for (tries = 0; tries < 8; tries++) {
			u32 t = pct(50) ? avail[navail - 1 - rnd(navail < 4 ? navail : 4)] :
					  avail[rnd(navail)];

			if (tbytes(&g->t[t]) <= maxsize)
				return t;
		}
	}
	{
		static const u32 fl[] = { NPA_TENSOR_INPUT, NPA_TENSOR_CONST,
					  NPA_TENSOR_PERSISTENT,
					  NPA_TENSOR_INPUT | NPA_TENSOR_PERSISTENT,
					  NPA_TENSOR_CONST | NPA_TENSOR_PERSISTENT };
		u32 t = new_tensor(g, gen_size(maxsize), fl[rnd(5)]);

		prod[t] = NONE;
		if (pct(30))
			avail[navail++] = t;
		return t;
	}
}

static u32 out_flags(void)
{
	u32 r = rnd(100);

	if (r < 85)
		return 0;
	if (r < 93)
		return NPA_TENSOR_OUTPUT;
	if (r < 97)
		return NPA_TENSOR_PERSISTENT;
	return NPA_TENSOR_OUTPUT | NPA_TENSOR_PERSISTENT;
}

/* Room left: keep a margin so that the op loop never overflows arrays. */
static int room(struct G *g)
{
	return g->nt + 16 < MAXT && g->nopd + 16 < MAXOPD && g->ns + 4 < MAXS &&
	       g->no < MAXO;
}

/*
 * npa_exec_check() refused a shaped op: its params or flags, or one of its
 * operands (size, dtype, dims); @e->op is the op.
 */
static bool exec_refusal(const struct npa_error *e)
{
	if (e->op == NPA_ERR_NO_INDEX)
		return false;
	return e->reason == NPA_ERR_NOT_EXECUTABLE ||
	       e->reason == NPA_ERR_OPERAND_MISMATCH ||
	       (e->array == NPA_ERR_ARRAY_OPERANDS &&
		e->reason == NPA_ERR_SIZE_MISMATCH);
}

static void gen_graph(struct G *g, u32 nops_target)
{
	u32 i, k, nsc_per[MAXO], sc_first_gen[MAXO];
	static struct npa_scratch_desc sc[MAXS];
	u32 nsc = 0, order[MAXO];
	u64 M = g->lim.max_tensor_bytes;

	g->nt = g->no = g->nopd = g->ns = 0;
	navail = 0;
	for (i = 0; i < nops_target && room(g); i++) {
		struct npa_op_desc *op = &g->op[g->no];
		u32 kind = 1 + rnd(NPA_OP_KIND_COUNT - 1);
		u32 nin = arity[kind][0] + rnd(arity[kind][1] - arity[kind][0] + 1);
		u32 nout = arity[kind][2] + rnd(arity[kind][3] - arity[kind][2] + 1);
		u32 ins[8], outs[8];
		u64 insz = 0, sz;
		bool outs_first = pct(20);

		memset(op, 0, sizeof(*op));
		op->kind = kind;
		op->unit = rnd(NPA_UNIT_COUNT);
		if (nout == 1 && pct(30))
			op->flags = NPA_OP_INPLACE;
		for (k = 0; k < nin; k++) {
			u64 cap = M;

			if (kind == NPA_OP_CONCAT && M - insz < M)
				cap = M - insz;
			if (!cap)
				cap = 1;
			ins[k] = pick_input(g, cap);
			if (kind == NPA_OP_CONCAT && insz + tbytes(&g->t[ins[k]]) > M) {
				nin = k;	/* keep the sum in range */
				break;
			}
			insz += tbytes(&g->t[ins[k]]);
		}
		if (kind == NPA_OP_CONCAT && nin > 1)
			op->flags &= ~NPA_OP_INPLACE;	/* see mutation 28 */
		if (!nin) {
			nin = 1;
			ins[0] = new_tensor(g, 1, NPA_TENSOR_INPUT);
			prod[ins[0]] = NONE;
			insz = 1;
		}
		/* output sizes */
		for (k = 0; k < nout; k++) {
			u32 fl = out_flags();
			u32 t = NONE;

			/* Sometimes write a state tensor that was read earlier. */
			if (pct(5)) {
				u32 j;

				for (j = 0; j < g->nt; j++)
					if (g->t[j].flags == NPA_TENSOR_PERSISTENT &&
					    prod[j] == NONE && pct(50)) {
						t = j;
						break;
					}
			}
			switch (kind) {
			case NPA_OP_RESHAPE:
			case NPA_OP_COPY:
				sz = tbytes(&g->t[ins[0]]);
				break;
			case NPA_OP_CONCAT:
				sz = insz;
				break;
			case NPA_OP_SPLIT: {
				u64 left = tbytes(&g->t[ins[0]]);
				u64 done = 0;
				u32 j;

				for (j = 0; j < k; j++)
					done += tbytes(&g->t[outs[j]]);
				left -= done;
				if (left < nout - k)
					nout = k + 1;	/* trimmed below */
				sz = k + 1 == nout ? left : 1 + rnd(left - (nout - k - 1));
				if (pct(30) && k + 1 < nout)
					sz = 1 + rnd(left / (nout - k) + 1);
				if (sz > left - (nout - k - 1))
					sz = left - (nout - k - 1);
				if (!sz)
					sz = 1;
				break;
			}
			default:
				sz = pct(50) ? tbytes(&g->t[ins[0]]) : gen_size(M);
				break;
			}
			if ((op->flags & NPA_OP_INPLACE) && k == 0)
				sz = tbytes(&g->t[ins[0]]);
			if (t != NONE && tbytes(&g->t[t]) != sz)
				t = NONE;
			if (t == NONE)
				t = new_tensor(g, sz, fl);
			outs[k] = t;
			prod[t] = g->no;
			if (k + 1 >= nout)
				break;
		}
		nout = k + 1 < nout ? k + 1 : nout;
		/* operands */
		if (outs_first) {
			op->first_output = g->nopd;
			for (k = 0; k < nout; k++)
				g->opd[g->nopd++] = outs[k];
		}
		op->first_input = g->nopd;
		op->num_inputs = nin;
		for (k = 0; k < nin; k++)
			g->opd[g->nopd++] = ins[k];
		if (!outs_first) {
			op->first_output = g->nopd;
			for (k = 0; k < nout; k++)
				g->opd[g->nopd++] = outs[k];
		}
		op->num_outputs = nout;
		/* Outputs that are a pure prefix of inputs: share the range. */
		for (k = 0; k < nout; k++)
			avail[navail++] = outs[k];
		/* scratch */
		nsc_per[g->no] = 0;
		sc_first_gen[g->no] = nsc;
		if (pct(50)) {
			u32 n = 1 + rnd(3);

			for (k = 0; k < n; k++) {
				struct npa_scratch_desc *s = &sc[nsc++];

				memset(s, 0, sizeof(*s));
				s->size = gen_size(M);
				s->align = gen_align();
				if (pct(40)) {
					s->flags |= NPA_SCRATCH_VARIABLE;
					s->min_size = 1 + rnd(s->size);
					if (pct(20))
						s->min_size = s->size;
				}
				if (pct(30))
					s->flags |= NPA_SCRATCH_LATENCY;
			}
			nsc_per[g->no] = n;
		}
		g->no++;
		if (navail > MAXT - 64)
			navail = 0;
	}
	/* Scratch blocks in a random order of ops. */
	for (i = 0; i < g->no; i++)
		order[i] = i;
	for (i = g->no; i > 1; i--) {
		u32 j = rnd(i), x = order[i - 1];

		order[i - 1] = order[j];
		order[j] = x;
	}
	for (i = 0; i < g->no; i++) {
		u32 o = order[i];

		g->op[o].first_scratch = g->ns;
		g->op[o].num_scratch = nsc_per[o];
		for (k = 0; k < nsc_per[o]; k++)
			g->s[g->ns++] = sc[sc_first_gen[o] + k];
		if (!nsc_per[o] && pct(50))
			g->op[o].first_scratch = rnd(g->ns + 1);
	}
}

/* ------------------------------------------------------------------ */
/* independent model of the graph */

static u32 lo_[MAXT], hi_[MAXT], owner[MAXS], producer[MAXT];
static u64 al_[MAXT];

static int in_arena(const struct G *g, u32 t)
{
	return !(g->t[t].flags & OWN);
}

static u64 umax(u64 a, u64 b)
{
	return a > b ? a : b;
}

static void model(const struct G *g)
{
	u32 i, k, t;

	for (t = 0; t < g->nt; t++) {
		al_[t] = umax(g->t[t].align, 1);
		lo_[t] = NONE;
		hi_[t] = 0;
		producer[t] = NONE;
	}
	for (i = 0; i < g->no; i++) {
		const struct npa_op_desc *op = &g->op[i];
		u64 ua = umax(g->lim.unit_align[op->unit], 1);

		for (k = 0; k < op->num_inputs; k++) {
			t = g->opd[op->first_input + k];
			al_[t] = umax(al_[t], ua);
			hi_[t] = umax(hi_[t], i + 1);
		}
		for (k = 0; k < op->num_outputs; k++) {
			t = g->opd[op->first_output + k];
			al_[t] = umax(al_[t], ua);
			lo_[t] = i;
			producer[t] = i;
			hi_[t] = umax(hi_[t], i + 1);
		}
		for (k = 0; k < op->num_scratch; k++)
			owner[op->first_scratch + k] = i;
	}
	for (t = 0; t < g->nt; t++) {
		if (lo_[t] == NONE)
			lo_[t] = 0;
		if ((g->t[t].flags & OWN) && hi_[t] < g->no)
			hi_[t] = g->no;	/* own places exist for the whole run */
		if (hi_[t] < lo_[t] + 1)
			hi_[t] = lo_[t] + 1;
		if (al_[t] > NPA_PLAN_MAX_ALIGN)
			al_[t] = NPA_PLAN_MAX_ALIGN;
	}
}

/* ------------------------------------------------------------------ */
/* shadow memory: byte b of [lo,hi) holds content (id, b - base) */

static u32 cur_writer;

struct seg {
	u32 w;
	u64 lo, hi, id;
	s64 base;	/* may be "negative" conceptually; use wrapping u64 math */
};

#define MAXSEG	(4 * (MAXT + MAXS) + 64)
static struct seg sh[MAXSEG];
static u32 nsh;

static void sh_write(u64 lo, u64 hi, u64 id, s64 base)
{
	static struct seg tmp[MAXSEG];
	u32 n = 0, i;
	int done = 0;

	if (lo >= hi)
		return;
	for (i = 0; i < nsh; i++) {
		struct seg s = sh[i];

		if (s.hi <= lo || s.lo >= hi) {
			if (!done && s.lo >= hi) {
				tmp[n++] = (struct seg){ cur_writer, lo, hi, id, base };
				done = 1;
			}
			tmp[n++] = s;
			continue;
		}
		if (s.lo < lo)
			tmp[n++] = (struct seg){ s.w, s.lo, lo, s.id, s.base };
		if (!done) {
			tmp[n++] = (struct seg){ cur_writer, lo, hi, id, base };
			done = 1;
		}
		if (s.hi > hi)
			tmp[n++] = (struct seg){ s.w, hi, s.hi, s.id, s.base };
	}
	if (!done)
		tmp[n++] = (struct seg){ cur_writer, lo, hi, id, base };
	CHECK(n < MAXSEG, "shadow overflow");
	memcpy(sh, tmp, n * sizeof(*sh));
	nsh = n;
}

/* Content of [lo, hi) relative to lo: segments (rlo, rhi, id, byte0). */
struct snap {
	u32 n;
	struct { u64 rlo, rhi, id; s64 c0; } s[64];
	int trunc;
};

static void sh_snap(u64 lo, u64 hi, struct snap *out)
{
	u32 i;
	u64 cur = lo;

	out->n = 0;
	out->trunc = 0;
	for (i = 0; i < nsh && cur < hi; i++) {
		const struct seg *s = &sh[i];
		u64 a, b;

		if (s->hi <= cur || s->lo >= hi)
			continue;
		a = s->lo > cur ? s->lo : cur;
		b = s->hi < hi ? s->hi : hi;
		if (a > cur) {	/* unknown bytes */
			if (out->n < 64)
				out->s[out->n++] = (typeof(out->s[0])){ cur - lo, a - lo, 0, 0 };
			else
				out->trunc = 1;
		}
		if (out->n < 64)
			out->s[out->n++] = (typeof(out->s[0])){ a - lo, b - lo, s->id,
								(s64)(a - (u64)s->base) };
		else
			out->trunc = 1;
		cur = b;
	}
	if (cur < hi) {
		if (out->n < 64)
			out->s[out->n++] = (typeof(out->s[0])){ cur - lo, hi - lo, 0, 0 };
		else
			out->trunc = 1;
	}
}

static int snap_eq(const struct snap *a, const struct snap *b)
{
	u32 i;

	if (a->trunc || b->trunc)
		return 1;	/* too fragmented to compare: skip */
	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (a->s[i].rlo != b->s[i].rlo || a->s[i].rhi != b->s[i].rhi ||
		    a->s[i].id != b->s[i].id || a->s[i].c0 != b->s[i].c0)
			return 0;
	return 1;
}

/* Copy content of [src, src+n) to [dst, dst+n). */
static void sh_copy(u64 src, u64 dst, u64 n)
{
	static struct snap sn;
	u32 i;

	sh_snap(src, src + n, &sn);
	if (sn.trunc) {	/* give it a fresh identity instead */
		sh_write(dst, dst + n, 0xdead0000ULL + dst, (s64)dst);
		return;
	}
	for (i = 0; i < sn.n; i++) {
		u64 a = dst + sn.s[i].rlo, b = dst + sn.s[i].rhi;

		if (!sn.s[i].id)
			sh_write(a, b, 0xfeed000000ULL + src, (s64)dst);	/* garbage */
		else
			sh_write(a, b, sn.s[i].id, (s64)(a - (u64)sn.s[i].c0));
	}
}

static struct snap snaps[MAXT];
static u8 has_snap[MAXT];

/* ------------------------------------------------------------------ */
/* plan check */

static int ovl(u64 a, u64 an, u64 b, u64 bn)
{
	return an && bn && a < b + bn && b < a + an;
}

static u64 stat_inplace_alias, stat_pairs, stat_sim_ops, stat_growth_gt_naive;

static void check_plan(struct G *g, const struct npa_layout *p)
{
	const struct npa_ir_place *pt = p->tensors, *ps = p->scratch;
	u64 naive = 0, requested = 0;
	u32 i, j, k;
	static u32 reg_kind[MAXT + MAXS], reg_idx[MAXT + MAXS];
	u32 nr = 0;
	const char *msg;

	model(g);
	CHECK(p->algorithm < NPA_PLAN_ALGO_COUNT, "algorithm %u", p->algorithm);
	CHECK(p->lower_bound <= p->tensor_bytes, "lb %llu > tensor bytes %llu",
	      (unsigned long long)p->lower_bound, (unsigned long long)p->tensor_bytes);
	CHECK(p->lower_bound <= p->arena_bytes, "lb > arena");
	CHECK(p->tensor_bytes + p->scratch_growth == p->arena_bytes,
	      "arena %llu != tensors %llu + growth %llu",
	      (unsigned long long)p->arena_bytes, (unsigned long long)p->tensor_bytes,
	      (unsigned long long)p->scratch_growth);
	CHECK(p->num_buffers <= g->nt, "num_buffers");

	for (i = 0; i < g->nt; i++) {
		const struct npa_ir_place *q = &pt[i];
		u64 b = tbytes(&g->t[i]), end;

		CHECK(q->lo == lo_[i] && q->hi == hi_[i],
		      "tensor %u lifetime [%u,%u) expected [%u,%u)", i, q->lo, q->hi,
		      lo_[i], hi_[i]);
		if (!in_arena(g, i)) {
			CHECK(q->offset == UINT64_MAX && q->buffer == NONE &&
			      !(q->flags & NPA_IR_ARENA),
			      "own-place tensor %u has arena placement", i);
			continue;
		}
		CHECK(q->flags == NPA_IR_ARENA, "tensor %u flags %#x", i, q->flags);
		CHECK(q->size >= b && q->size - b < al_[i],
		      "tensor %u size %llu for %llu bytes align %llu", i,
		      (unsigned long long)q->size, (unsigned long long)b,
		      (unsigned long long)al_[i]);
		CHECK(q->offset % al_[i] == 0, "tensor %u offset %llu not aligned to %llu",
		      i, (unsigned long long)q->offset, (unsigned long long)al_[i]);
		CHECK(!__builtin_add_overflow(q->offset, q->size, &end) &&
		      end <= p->arena_bytes, "tensor %u [%llu,+%llu) beyond arena %llu",
		      i, (unsigned long long)q->offset, (unsigned long long)q->size,
		      (unsigned long long)p->arena_bytes);
		CHECK(q->buffer < p->num_buffers, "tensor %u buffer %u/%u", i,
		      q->buffer, p->num_buffers);
		naive += q->size;
		reg_kind[nr] = 0;
		reg_idx[nr++] = i;
	}
	CHECK(naive == p->naive_bytes, "naive %llu reported %llu",
	      (unsigned long long)naive, (unsigned long long)p->naive_bytes);

	msg = fz_check_scratch(g->s, g->ns, g->op, owner, &g->lim, ps,
			       p->arena_bytes, &requested);
	CHECK(!msg, "%s", msg);
	for (j = 0; j < g->ns; j++) {
		reg_kind[nr] = 1;
		reg_idx[nr++] = j;
	}
	CHECK(requested == p->scratch_requested, "requested %llu reported %llu",
	      (unsigned long long)requested, (unsigned long long)p->scratch_requested);
	if (p->scratch_growth > p->scratch_growth_naive)
		stat_growth_gt_naive++;

	/* O(n^2): co-live placements in different buffers (or scratch) are disjoint. */
	for (i = 0; i < nr; i++) {
		const struct npa_ir_place *a = reg_kind[i] ? &ps[reg_idx[i]] : &pt[reg_idx[i]];

		for (j = i + 1; j < nr; j++) {
			const struct npa_ir_place *b = reg_kind[j] ? &ps[reg_idx[j]] : &pt[reg_idx[j]];

			if (a->lo >= b->hi || b->lo >= a->hi)
				continue;
			stat_pairs++;
			if (!reg_kind[i] && !reg_kind[j] && a->buffer == b->buffer)
				continue;	/* shared memory: see the simulation */
			if (ovl(a->offset, a->size, b->offset, b->size))
				fail("%s %u [%llu,+%llu) live [%u,%u) overlaps %s %u [%llu,+%llu) live [%u,%u)",
				     reg_kind[i] ? "scratch" : "tensor", reg_idx[i],
				     (unsigned long long)a->offset, (unsigned long long)a->size,
				     a->lo, a->hi, reg_kind[j] ? "scratch" : "tensor",
				     reg_idx[j], (unsigned long long)b->offset,
				     (unsigned long long)b->size, b->lo, b->hi);
		}
	}

	/* lower bound from the reported buffers: max over steps of live extents */
	{
		static u64 bmin[MAXT], bmax[MAXT];
		static u32 blo[MAXT], bhi[MAXT];
		u64 best = 0;
		u32 s;

		for (i = 0; i < p->num_buffers; i++) {
			bmin[i] = UINT64_MAX;
			bmax[i] = 0;
			blo[i] = NONE;
			bhi[i] = 0;
		}
		for (i = 0; i < g->nt; i++) {
			u32 b = pt[i].buffer;

			if (!in_arena(g, i))
				continue;
			if (pt[i].offset < bmin[b])
				bmin[b] = pt[i].offset;
			bmax[b] = umax(bmax[b], pt[i].offset + pt[i].size);
			if (lo_[i] < blo[b])
				blo[b] = lo_[i];
			bhi[b] = umax(bhi[b], hi_[i]);
		}
		for (s = 0; s < g->no; s++) {
			u64 live = 0;

			for (i = 0; i < p->num_buffers; i++)
				if (blo[i] <= s && s < bhi[i])
					live += bmax[i] - bmin[i];
			best = umax(best, live);
		}
		CHECK(best == p->lower_bound, "lower bound %llu, buffers give %llu",
		      (unsigned long long)p->lower_bound, (unsigned long long)best);
	}

	/* Shadow simulation of the executor's data movement. */
	nsh = 0;
	memset(has_snap, 0, g->nt);
	for (i = 0; i < g->no; i++) {
		const struct npa_op_desc *op = &g->op[i];
		u32 xin = g->opd[op->first_input], yout = g->opd[op->first_output];
		u64 wlo[8], whi[8];
		u32 nw = 0;
		static struct snap now;

		stat_sim_ops++;
		cur_writer = i;
		/* 1. inputs intact */
		for (k = 0; k < op->num_inputs; k++) {
			u32 x = g->opd[op->first_input + k];

			if (!in_arena(g, x) || !has_snap[x])
				continue;
			sh_snap(pt[x].offset, pt[x].offset + tbytes(&g->t[x]), &now);
			if (!snap_eq(&now, &snaps[x])) {
				u32 q;

				for (q = 0; q < nsh; q++)
					if (ovl(sh[q].lo, sh[q].hi - sh[q].lo, pt[x].offset, tbytes(&g->t[x])))
						fprintf(stderr, "  seg [%llu,%llu) id %#llx written by op %u\n",
							(unsigned long long)sh[q].lo, (unsigned long long)sh[q].hi,
							(unsigned long long)sh[q].id, sh[q].w);
				for (q = 0; q < g->nt; q++)
					if (in_arena(g, q))
						fprintf(stderr, "  place t%u off %llu size %llu live [%u,%u) buf %u\n", q,
							(unsigned long long)pt[q].offset, (unsigned long long)pt[q].size,
							pt[q].lo, pt[q].hi, pt[q].buffer);
				fail("op %u reads tensor %u [%llu,+%llu) but it was overwritten since op %u produced it",
				     i, x, (unsigned long long)pt[x].offset,
				     (unsigned long long)tbytes(&g->t[x]), producer[x]);
			}
		}
		/* 2. regions this op writes */
		for (k = 0; k < op->num_outputs; k++) {
			u32 y = g->opd[op->first_output + k];
			u64 yb = tbytes(&g->t[y]);

			if (!in_arena(g, y))
				continue;
			switch (op->kind) {
			case NPA_OP_RESHAPE:
			case NPA_OP_COPY:
				if (in_arena(g, xin) && pt[xin].offset == pt[y].offset)
					continue;
				break;
			case NPA_OP_SPLIT: {
				u64 at = 0;
				u32 m;

				for (m = 0; m < k; m++)
					at += tbytes(&g->t[g->opd[op->first_output + m]]);
				if (in_arena(g, xin) && pt[xin].offset + at == pt[y].offset)
					continue;
				break;
			}
			default:
				break;
			}
			if (op->kind == NPA_OP_CONCAT) {
				u64 at = 0;
				u32 m;

				for (m = 0; m < op->num_inputs; m++) {
					u32 x = g->opd[op->first_input + m];
					u64 n = tbytes(&g->t[x]);

					if (!(in_arena(g, x) && pt[x].offset == pt[y].offset + at) && nw < 8) {
						wlo[nw] = pt[y].offset + at;
						whi[nw++] = pt[y].offset + at + n;
					}
					at += n;
				}
				continue;
			}
			if (nw < 8) {
				wlo[nw] = pt[y].offset;
				whi[nw++] = pt[y].offset + yb;
			}
		}
		/* written regions vs inputs being read, vs each other */
		for (k = 0; k < nw; k++) {
			u32 m;

			for (m = 0; m < op->num_inputs; m++) {
				u32 x = g->opd[op->first_input + m];

				if (!in_arena(g, x))
					continue;
				if (!ovl(wlo[k], whi[k] - wlo[k], pt[x].offset, tbytes(&g->t[x])))
					continue;
				/* in place: exactly over the first input's bytes */
				if ((op->flags & NPA_OP_INPLACE) &&
				    pt[x].offset == pt[xin].offset && in_arena(g, xin) &&
				    wlo[k] == pt[xin].offset &&
				    tbytes(&g->t[x]) == tbytes(&g->t[xin]) &&
				    op->kind != NPA_OP_CONCAT && op->kind != NPA_OP_SPLIT &&
				    op->kind != NPA_OP_RESHAPE && op->kind != NPA_OP_COPY)
					continue;
				/* Another input inside the first (commit 750c50c). */
				if ((op->flags & NPA_OP_INPLACE) && in_arena(g, xin) &&
				    wlo[k] == pt[xin].offset && pt[x].buffer == pt[xin].buffer) {
					stat_inplace_alias++;
					fail("op %u (kind %u) writes over its first input t%u while it reads t%u, which lies inside it",
					     i, op->kind, xin, x);
				}
				fail("op %u writes [%llu,%llu) over its input tensor %u [%llu,+%llu)",
				     i, (unsigned long long)wlo[k], (unsigned long long)whi[k],
				     x, (unsigned long long)pt[x].offset,
				     (unsigned long long)tbytes(&g->t[x]));
			}
			for (m = k + 1; m < nw; m++)
				CHECK(!ovl(wlo[k], whi[k] - wlo[k], wlo[m], whi[m] - wlo[m]),
				      "op %u writes two overlapping regions", i);
		}
		/* scratch vs operands and each other */
		for (k = 0; k < op->num_scratch; k++) {
			const struct npa_ir_place *q = &ps[op->first_scratch + k];
			u32 m;

			for (m = 0; m < op->num_inputs + op->num_outputs; m++) {
				u32 t = g->opd[m < op->num_inputs ? op->first_input + m :
					       op->first_output + m - op->num_inputs];

				if (in_arena(g, t) &&
				    ovl(q->offset, q->size, pt[t].offset, tbytes(&g->t[t])))
					fail("op %u scratch %u overlaps its operand tensor %u",
					     i, op->first_scratch + k, t);
			}
			for (m = k + 1; m < op->num_scratch; m++) {
				const struct npa_ir_place *r = &ps[op->first_scratch + m];

				CHECK(!ovl(q->offset, q->size, r->offset, r->size),
				      "op %u scratch %u and %u overlap", i,
				      op->first_scratch + k, op->first_scratch + m);
			}
		}
		/* 3. apply: scratch, then outputs */
		for (k = 0; k < op->num_scratch; k++) {
			const struct npa_ir_place *q = &ps[op->first_scratch + k];

			sh_write(q->offset, q->offset + q->size,
				 0x5c000000ULL + op->first_scratch + k, (s64)q->offset);
		}
		switch (op->kind) {
		case NPA_OP_RESHAPE:
		case NPA_OP_COPY:
			if (in_arena(g, yout) && !(in_arena(g, xin) &&
						   pt[xin].offset == pt[yout].offset)) {
				if (in_arena(g, xin))
					sh_copy(pt[xin].offset, pt[yout].offset, tbytes(&g->t[yout]));
				else
					sh_write(pt[yout].offset, pt[yout].offset + tbytes(&g->t[yout]),
						 0x10000000ULL + xin, (s64)pt[yout].offset);
			}
			break;
		case NPA_OP_SPLIT: {
			u64 at = 0;

			for (k = 0; k < op->num_outputs; k++) {
				u32 y = g->opd[op->first_output + k];
				u64 n = tbytes(&g->t[y]);

				if (in_arena(g, y) && !(in_arena(g, xin) &&
							pt[xin].offset + at == pt[y].offset)) {
					if (in_arena(g, xin))
						sh_copy(pt[xin].offset + at, pt[y].offset, n);
					else
						sh_write(pt[y].offset, pt[y].offset + n,
							 0x10000000ULL + xin,
							 (s64)(pt[y].offset - at));
				}
				at += n;
			}
			break;
		}
		case NPA_OP_CONCAT: {
			u64 at = 0;

			if (!in_arena(g, yout))
				break;
			for (k = 0; k < op->num_inputs; k++) {
				u32 x = g->opd[op->first_input + k];
				u64 n = tbytes(&g->t[x]);

				if (!(in_arena(g, x) && pt[x].offset == pt[yout].offset + at)) {
					if (in_arena(g, x))
						sh_copy(pt[x].offset, pt[yout].offset + at, n);
					else
						sh_write(pt[yout].offset + at,
							 pt[yout].offset + at + n,
							 0x10000000ULL + x,
							 (s64)(pt[yout].offset + at));
				}
				at += n;
			}
			break;
		}
		default:
			for (k = 0; k < op->num_outputs; k++) {
				u32 y = g->opd[op->first_output + k];

				if (in_arena(g, y))
					sh_write(pt[y].offset, pt[y].offset + tbytes(&g->t[y]),
						 0x20000000ULL + y, (s64)pt[y].offset);
			}
			break;
		}
		for (k = 0; k < op->num_outputs; k++) {
			u32 y = g->opd[op->first_output + k];

			if (!in_arena(g, y))
				continue;
			sh_snap(pt[y].offset, pt[y].offset + tbytes(&g->t[y]), &snaps[y]);
			has_snap[y] = 1;
		}
	}
}

/* ------------------------------------------------------------------ */
/* mutations of a valid graph with the errno they must give */

static const int documented[] = { EINVAL, E2BIG, EOVERFLOW, ENOMEM };

static u64 stat_bug28, stat_mut, stat_mut_exact, stat_mut_valid;
static u64 stat_mut_kind[32], stat_mut_kind_ok[32];

/* Returns the expected errno (positive), 0 if unknown, -1 if not applied. */
static int mutate(struct G *g, int *which)
{
	u32 t = rnd(g->nt), o = rnd(g->no);
	struct npa_op_desc *op = &g->op[o];
	int m = rnd(29);

	*which = m;
	switch (m) {
	case 0: g->t[t].flags |= 1U << (4 + rnd(28)); return EINVAL;
	case 1: g->t[t].flags = NPA_TENSOR_CONST | NPA_TENSOR_INPUT; return 0;
	case 2: g->t[t].pad = 1 + rnd(5); return EINVAL;
	case 3: g->t[t].dtype = NPA_DTYPE_COUNT + rnd(10); return EINVAL;
	case 4: g->t[t].align = pct(50) ? 3 + 2 * rnd(1000) : 2U << (20 + rnd(11)); return EINVAL;
	case 5: unshape(&g->t[t]); g->t[t].size = 0; return EINVAL;
	case 6: unshape(&g->t[t]); g->t[t].size = g->lim.max_tensor_bytes + 1 + rnd(3); return E2BIG;
	case 7:
		memset(g->t[t].dims, 0xff, sizeof(g->t[t].dims));
		g->t[t].dtype = NPA_DTYPE_INT32;
		g->t[t].size = 0;
		return EOVERFLOW;
	case 8:
		if (!g->t[t].dtype)
			return -1;
		g->t[t].size = npa_tensor_bytes(&g->t[t]) + 1;
		return EINVAL;
	case 9:
		unshape(&g->t[t]);
		g->t[t].dims[1] = 3;	/* dims without dtype */
		return EINVAL;
	case 10:
		if (!g->ns)
			return -1;
		g->s[rnd(g->ns)].flags |= 4U << rnd(29);
		return EINVAL;
	case 11:
		if (!g->ns)
			return -1;
		g->s[rnd(g->ns)].size = 0;
		return EINVAL;
	case 12: {
		struct npa_scratch_desc *s;

		if (!g->ns)
			return -1;
		s = &g->s[rnd(g->ns)];
		if (s->flags & NPA_SCRATCH_VARIABLE)
			s->min_size = pct(50) ? 0 : s->size + 1;
		else
			s->min_size = 1 + rnd(10);
		return EINVAL;
	}
	case 13:
		if (!g->ns)
			return -1;
		g->s[rnd(g->ns)].size = g->lim.max_tensor_bytes + 1;
		g->s[rnd(g->ns)].flags &= ~NPA_SCRATCH_VARIABLE;
		return 0;
	case 14: op->kind = pct(50) ? 0 : NPA_OP_KIND_COUNT + rnd(100); return EINVAL;
	case 15: op->unit = NPA_UNIT_COUNT + rnd(10); return EINVAL;
	case 16: op->flags |= 2U << rnd(30); return EINVAL;
	case 17: op->pad = 1; return EINVAL;
	case 18: op->first_input = g->nopd - op->num_inputs + 1 + rnd(5); return EINVAL;
	case 19:
		g->opd[op->first_output] = g->nt + rnd(1000);
		return EINVAL;
	case 20: {
		/* An op writes a tensor produced earlier. */
		u32 t2 = g->opd[g->op[rnd(g->no)].first_output];

		if (t2 == g->opd[op->first_output])
			return -1;
		g->opd[op->first_output] = t2;
		return 0;	/* EINVAL, the reason depending */
	}
	case 21: {
		/* read a tensor produced by a later op */
		u32 t2;

		if (o + 1 >= g->no)
			return -1;
		t2 = g->opd[g->op[o + 1 + rnd(g->no - o - 1)].first_output];
		if (!in_arena(g, t2))
			return -1;
		g->opd[op->first_input + rnd(op->num_inputs)] = t2;
		return 0;	/* EINVAL, a cycle or a size */
	}
	case 22:
		g->nt = 0; return EINVAL;
	case 23:
		g->lim.max_tensors = g->nt - 1; return g->nt > 0 ? E2BIG : -1;
	case 24:
		g->lim.max_operands = g->nopd - 1;
		return E2BIG;
	case 25: {
		/* A model output that nothing produces */
		u32 n = g->nt;

		if (n >= MAXT)
			return -1;
		memset(&g->t[n], 0, sizeof(g->t[n]));
		g->t[n].size = 8;
		g->t[n].flags = NPA_TENSOR_OUTPUT;
		g->nt++;
		if (g->lim.max_tensors < g->nt)
			g->lim.max_tensors = g->nt;
		return EINVAL;
	}
	case 28: {
		/* CONCAT flagged in place whose output is only its first input */
		u32 q, y;

		for (q = 0; q < g->no; q++)
			if (g->op[q].kind == NPA_OP_CONCAT && g->op[q].num_inputs > 1)
				break;
		if (q == g->no)
			return -1;
		op = &g->op[q];
		y = g->opd[op->first_output];
		op->flags |= NPA_OP_INPLACE;
		unshape(&g->t[y]);
		g->t[y].size = tbytes(&g->t[g->opd[op->first_input]]);
		return EINVAL;
	}
	case 26:
		/* scratch shared by two ops: widen an op's range */
		if (!g->ns || op->first_scratch + op->num_scratch >= g->ns)
			return -1;
		op->num_scratch++;
		return EINVAL;
	default:
		/* a param the kind does not define */
		if (op->kind == NPA_OP_CONCAT || op->kind == NPA_OP_SPLIT ||
		    op->kind == NPA_OP_RESHAPE || op->kind == NPA_OP_COPY) {
			op->params[rnd(8)] = 1 + rnd(5);
			return EINVAL;
		}
		op->params[5] = 0;
		op->params[6] = 1;
		if (op->kind == NPA_OP_CONV2D || op->kind == NPA_OP_DWCONV2D)
			return -1;
		op->params[NPA_P_ACT] = 0;
		op->params[6] = 1;
		return (op->kind == NPA_OP_ACTIVATION || op->kind == NPA_OP_UPSAMPLE ||
			op->kind == NPA_OP_REORG || op->kind == NPA_OP_ADD ||
			op->kind == NPA_OP_MUL || op->kind == NPA_OP_FC ||
			op->kind == NPA_OP_MAXPOOL || op->kind == NPA_OP_AVGPOOL) ? EINVAL : -1;
	}
}

/* ------------------------------------------------------------------ */

static u64 stat_runs, stat_valid, stat_planned, stat_params_fix, stat_big;
static u64 stat_algo[NPA_PLAN_ALGO_COUNT];

static void plan_and_check(struct G *g)
{
	struct npa_graph gr;
	struct npa_layout p1, p2;
	struct npa_error err;
	struct npa_ir ir;
	int ret;

	graph_of(g, &gr);
	cur_phase = "build";
	ret = npa_graph_build(&gr, &g->lim, &ir, &err);
	CHECK(ret == 0, "npa_graph_build of a valid graph returned %d", ret);
	cur_phase = "plan";
	ret = npa_layout_plan(&ir, g->lim.fast_window,
			      g->lim.scratch_growth_pct, g->budget, &p1);
	CHECK(ret == 0, "npa_layout_plan of a valid graph returned %d", ret);
	stat_planned++;
	stat_algo[p1.algorithm < NPA_PLAN_ALGO_COUNT ? p1.algorithm : 0]++;
	cur_phase = "check";
	check_plan(g, &p1);
	cur_phase = "determinism";
	ret = npa_layout_plan(&ir, g->lim.fast_window,
			      g->lim.scratch_growth_pct, g->budget, &p2);
	CHECK(ret == 0, "second plan returned %d", ret);
	CHECK(p1.arena_bytes == p2.arena_bytes && p1.tensor_bytes == p2.tensor_bytes &&
	      p1.lower_bound == p2.lower_bound && p1.naive_bytes == p2.naive_bytes &&
	      p1.scratch_requested == p2.scratch_requested &&
	      p1.scratch_growth == p2.scratch_growth &&
	      p1.scratch_growth_naive == p2.scratch_growth_naive &&
	      p1.algorithm == p2.algorithm && p1.num_buffers == p2.num_buffers,
	      "report differs between two plans (arena %llu vs %llu, tensors %llu vs %llu, plan_ns %llu / %llu, algo %u/%u)",
	      (unsigned long long)p1.arena_bytes, (unsigned long long)p2.arena_bytes,
	      (unsigned long long)p1.tensor_bytes, (unsigned long long)p2.tensor_bytes,
	      (unsigned long long)p1.plan_ns, (unsigned long long)p2.plan_ns, p1.algorithm, p2.algorithm);
	CHECK(!memcmp(p1.tensors, p2.tensors, g->nt * sizeof(*p1.tensors)),
	      "tensor placements differ between two plans");
	CHECK(!g->ns || !memcmp(p1.scratch, p2.scratch, g->ns * sizeof(*p1.scratch)),
	      "scratch placements differ between two plans");
	npa_layout_free(&p2);
	npa_layout_free(&p1);
	npa_ir_free(&ir);
	CHECK(!p1.tensors && !p1.scratch, "plan_free left pointers");
}

static void one(void)
{
	struct G *g = &G0;
	struct npa_graph gr;
	struct npa_error err;
	u32 nops, i, tries;
	int ret, exp, which, d;

	stat_runs++;
	g->lim = npa_graph_default_limits;
	if (pct(20)) {
		for (i = 0; i < NPA_UNIT_COUNT; i++)
			g->lim.unit_align[i] = pct(20) ? 0 : 1U << rnd(21);
		g->lim.fast_window = pct(30) ? 0 : rnd(1 << 20);
	}
	g->budget = pct(60) ? 0 : 1 + rnd(pct(50) ? 64 : 4096);
	small_mode = pct(30) ? 1 + rnd(8) : 0;
	nops = pct(3) ? 100 + rnd(400) : 1 + rnd(pct(50) ? 8 : 48);
	if (nops > 100)
		stat_big++;
	gen_graph(g, nops);
	cur_g = g;

	/* Make shaped ops executable by dropping shapes where needed. */
	graph_of(g, &gr);
	for (tries = 0; tries < 2000; tries++) {
		cur_phase = "validate";
		ret = npa_graph_validate(&gr, &g->lim, &err);
		if (ret == 0)
			break;
		if (ret == -EINVAL && exec_refusal(&err)) {
			const struct npa_op_desc *op = &g->op[err.op];

			stat_params_fix++;
			unshape(&g->t[g->opd[op->first_input]]);
			continue;
		}
		fail("generated graph refused: %d array %u[%u] field %u reason %u",
		     ret, err.array, err.index, err.field, err.reason);
	}
	CHECK(ret == 0, "could not make graph valid");

	/* At the documented limits, scaled down. */
	if (pct(15)) {
		u64 refs = 0;

		for (i = 0; i < g->no; i++)
			refs += g->op[i].num_inputs + g->op[i].num_outputs;
		g->lim.max_tensors = g->nt;
		g->lim.max_ops = g->no;
		g->lim.max_operands = g->nopd > refs ? g->nopd : refs;
		g->lim.max_scratch = g->ns;
		ret = npa_graph_validate(&gr, &g->lim, &err);
		CHECK(ret == 0, "graph at its limits refused: %d array %u[%u] reason %u",
		      ret, err.array, err.index, err.reason);
	}
	stat_valid++;
	plan_and_check(g);

	/* Mutations */
	for (i = 0; i < 3; i++) {
		G1 = *g;
		cur_g = &G1;
		exp = mutate(&G1, &which);
		if (exp < 0)
			continue;
		stat_mut++;
		stat_mut_kind[which]++;
		graph_of(&G1, &gr);
		cur_phase = "validate mutant";
		memset(&err, 0, sizeof(err));
		ret = npa_graph_validate(&gr, &G1.lim, &err);
		/* An in-place concat whose sizes do not add up (commit 750c50c). */
		if (!ret && which == 28) {
			stat_bug28++;
			fail("an in-place CONCAT whose inputs do not add up to its output validated");
		}
		if (!ret) {
			stat_mut_valid++;
			CHECK(exp == 0, "mutation %d (expect -%d) accepted", which, exp);
			plan_and_check(&G1);
			continue;
		}
		CHECK(ret < 0 && (err.reason || ret == -ENOMEM),
		      "validate returned %d without a reason", ret);
		for (d = 0; d < (int)(sizeof(documented) / sizeof(documented[0])); d++)
			if (-ret == documented[d])
				break;
		CHECK(d < (int)(sizeof(documented) / sizeof(documented[0])),
		      "undocumented errno %d (array %u[%u])", ret, err.array, err.index);
		if (exp) {
			if (-ret == exp) {
				stat_mut_exact++;
				stat_mut_kind_ok[which]++;
			} else if (!(ret == -EINVAL && exec_refusal(&err))) {
				/* Another earlier field may fail first: print, don't abort. */
				static int shown;

				if (shown++ < 40)
					fprintf(stderr, "note: mutation %d expected -%d got %d array %u[%u] reason %u\n",
						which, exp, ret, err.array, err.index, err.reason);
			}
		}
	}
	cur_g = NULL;
}

#ifdef PROP_LOOP
static void report(void)
{
	u32 i;

	fprintf(stderr, "prop-graph: runs %llu valid %llu planned %llu (big %llu, shape fixes %llu) "
		"mutants %llu (exact errno %llu, accepted %llu) pairs %llu sim-ops %llu growth>naive %llu\n",
		(unsigned long long)stat_runs, (unsigned long long)stat_valid,
		(unsigned long long)stat_planned, (unsigned long long)stat_big,
		(unsigned long long)stat_params_fix, (unsigned long long)stat_mut,
		(unsigned long long)stat_mut_exact, (unsigned long long)stat_mut_valid,
		(unsigned long long)stat_pairs, (unsigned long long)stat_sim_ops,
		(unsigned long long)stat_growth_gt_naive);
	fprintf(stderr, "in-place output over another input aliasing the first: %llu\n", (unsigned long long)stat_inplace_alias);
	fprintf(stderr, "concat+inplace sum mismatch accepted: %llu\n", (unsigned long long)stat_bug28);
	fprintf(stderr, "algos:");
	for (i = 0; i < NPA_PLAN_ALGO_COUNT; i++)
		fprintf(stderr, " %s=%llu", npa_plan_algo_name(i), (unsigned long long)stat_algo[i]);
	fprintf(stderr, "\nmutation kinds (tried/exact):");
	for (i = 0; i < 29; i++)
		fprintf(stderr, " %u:%llu/%llu", i, (unsigned long long)stat_mut_kind[i],
			(unsigned long long)stat_mut_kind_ok[i]);
	fprintf(stderr, "\n");
}
#endif

#ifndef PROP_LOOP
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	in_p = data;
	in_n = size;
	in_off = 0;
	rs = 0x9e3779b97f4a7c15ULL;
	one();
	return 0;
}
#else
int main(int argc, char **argv)
{
	u64 seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
	u64 n = argc > 2 ? strtoull(argv[2], NULL, 0) : 1000, i;

	for (i = 0; i < n; i++) {
		rs = seed * 0x100000001b3ULL + i;
		if (getenv("PROP_VERBOSE"))
			fprintf(stderr, "iter %llu\n", (unsigned long long)i);
		one();
		if (i && i % 5000 == 0)
			report();
	}
	report();
	return 0;
}
#endif
