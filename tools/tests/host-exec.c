// SPDX-License-Identifier: GPL-2.0
/*
 * Host test of drivers/npa/npa_exec*.c: every operator kind on random small
 * shapes against a naive re-implementation written from
 * Documentation/npu.rst, with guard bytes around every buffer, poisoned
 * scratch of every useful size and the aliasing the planner creates.
 * Prints TAP lines "ok - ..." / "not ok - ..."; exits 1 on a failure.
 *
 * Built from tools/ with the flags of the pure files:
 *	cc -Iinclude -I../include/uapi -I../drivers/npa \
 *	   tests/host-exec.c ../drivers/npa/npa_exec.c -lm
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/errno.h>
#include <linux/types.h>
#include "npa_ir.h"

#include "npa_exec.h"

#define GUARD	64
#define ROUNDS	300

static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;
static int failures;
static char why[512];

static u32 rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state >> 16;
}

/* Uniform in [lo, hi]. */
static int rr(int lo, int hi)
{
	return lo + (int)(rnd() % (u32)(hi - lo + 1));
}

static void fail(const char *fmt, ...)
{
	va_list ap;

	if (why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
}

/* A buffer with guard bytes on both sides. */
struct buf {
	u8 *mem;
	u8 *p;
	size_t n;
};

static void buf_alloc(struct buf *b, size_t n)
{
	b->n = n;
	b->mem = malloc(n + 2 * GUARD);
	if (!b->mem) {
		perror("malloc");
		exit(2);
	}
	memset(b->mem, 0xa5, n + 2 * GUARD);
	b->p = b->mem + GUARD;
}

static void buf_rand(struct buf *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		b->p[i] = rnd();
}

static void buf_check(struct buf *b, const char *what)
{
	size_t i;

	for (i = 0; i < GUARD; i++) {
		if (b->mem[i] != 0xa5 || b->mem[GUARD + b->n + i] != 0xa5) {
			fail("%s: guard bytes overwritten", what);
			return;
		}
	}
}

static void buf_free(struct buf *b)
{
	free(b->mem);
	b->mem = NULL;
}

static struct npa_ir_tensor act(u32 c, u32 h, u32 w)
{
	return (struct npa_ir_tensor){ .dims = { 1, c, h, w },
					 .dtype = NPA_IR_INT8 };
}

static s8 sat(long long v)
{
	return v < -128 ? -128 : v > 127 ? 127 : v;
}

/* Floor division, written differently from npa_exec.c on purpose. */
static long long floordiv(long long n, long long d)
{
	long long q = n / d;

	if (n % d && (n ^ d) < 0)
		q--;
	return q;
}

static void report(const char *what)
{
	if (why[0]) {
		failures++;
		printf("not ok - %s\n# %s\n", what, why);
	} else {
		printf("ok - %s\n", what);
	}
	why[0] = 0;
}

static void compare(const u8 *got, const u8 *want, size_t n, const char *what)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (got[i] != want[i]) {
			fail("%s: byte %zu is %d, expected %d", what, i,
			     (s8)got[i], (s8)want[i]);
			return;
		}
	}
}

static int run(const struct npa_ir_op *op, struct npa_exec_operand *in,
	       u32 nin, struct npa_exec_operand *out, u32 nout,
	       struct npa_exec_operand *sc, u32 nsc)
{
	const struct npa_ir_tensor *ind[8], *outd[8];
	int ret, ret2;
	u32 i;

	for (i = 0; i < nin; i++)
		ind[i] = in[i].desc;
	for (i = 0; i < nout; i++)
		outd[i] = out[i].desc;
	ret = npa_exec_check(op, ind, nin, outd, nout);
	ret2 = npa_exec_op(op, in, nin, out, nout, sc, nsc);
	if (ret != ret2)
		fail("npa_exec_check %d but npa_exec_op %d", ret, ret2);
	return ret2;
}

/* Output size rule of npu.rst: pad_end is pad or pad + 1. */
static bool out_ok(int in, int k, int s, int pad, int out)
{
	int pe;

	for (pe = pad; pe <= pad + 1; pe++) {
		if (in + pad + pe - k >= 0 && (in + pad + pe - k) / s + 1 == out)
			return true;
	}
	return false;
}

/* CONV2D / DWCONV2D, pools: naive. */
struct win {
	int kind, c, h, w, co, oh, ow, kh, kw, sh, sw, pt, pl, g, shift;
	bool bias;
};

/* Input tap of channel @c at (@iy, @ix), or the padding value. */
static int tap(const struct win *p, const s8 *x, int c, int iy, int ix)
{
	if (iy < 0 || iy >= p->h || ix < 0 || ix >= p->w)
		return p->kind == NPA_IR_MAXPOOL ? -128 : 0;
	return x[(c * p->h + iy) * p->w + ix];
}

/* Output (@co, @oy, @ox): one loop over the (ci, ky, kx) taps. */
static s8 naive_px(const struct win *p, const s8 *x, const s8 *wt,
		   const s32 *bias, int co, int oy, int ox)
{
	int cg = p->c / p->g, g = co / (p->co / p->g);
	int n = cg * p->kh * p->kw, t, m = -128;
	long long acc = bias ? bias[co] : 0, d;

	for (t = 0; t < n; t++) {
		int ci = t / (p->kh * p->kw), ky = t / p->kw % p->kh;
		int kx = t % p->kw;
		int v = tap(p, x, g * cg + ci, oy * p->sh - p->pt + ky,
			    ox * p->sw - p->pl + kx);

		m = v > m ? v : m;
		if (p->kind == NPA_IR_CONV2D || p->kind == NPA_IR_DWCONV2D)
			acc += v * wt[co * n + t];
		else
			acc += v;
	}
	if (p->kind == NPA_IR_MAXPOOL)
		return m;
	if (p->kind != NPA_IR_AVGPOOL)
		return sat(floordiv(acc, 1LL << p->shift));
	d = (long long)p->kh * p->kw << p->shift;
	return sat(floordiv(acc + d / 2, d));
}

static void naive_win(const struct win *p, const s8 *x, const s8 *wt,
		      const s32 *bias, s8 *y)
{
	int co, oy, ox;

	for (co = 0; co < p->co; co++) {
		for (oy = 0; oy < p->oh; oy++) {
			for (ox = 0; ox < p->ow; ox++)
				*y++ = naive_px(p, x, wt, bias, co, oy, ox);
		}
	}
}

static void test_win(int kind, const char *name)
{
	char what[256];
	int round, orders[2] = { 0, 0 };

	for (round = 0; round < ROUNDS && !why[0]; round++) {
		struct win p = { .kind = kind };
		bool conv = kind == NPA_IR_CONV2D || kind == NPA_IR_DWCONV2D;
		struct npa_ir_tensor xd, yd, wd, bd, bad;
		struct npa_ir_op op = { .kind = kind };
		struct npa_exec_operand in[3], out[1], sc[3];
		struct buf x, y, w, b, want, s, st, ac;
		u64 full, pix;
		int mode, ret, gs[8], ng = 0, i;

		p.c = rr(1, 6);
		p.h = rr(1, 9);
		p.w = rr(1, 9);
		p.shift = kind == NPA_IR_MAXPOOL ? 0 : rr(0, 12);
		if (rr(0, 1)) {
			/* Usual: square, 1x1 or 3x3, stride 1 or 2, "same". */
			p.kh = rr(0, 1) * 2 + 1;
			p.kw = p.kh;
			p.sh = rr(1, 2);
			p.sw = p.sh;
			p.pt = p.kh / 2;
			p.pl = p.pt;
			p.oh = p.h + 2 * p.pt - p.kh;
			p.ow = p.w + 2 * p.pl - p.kw;
		} else {
			p.kh = rr(1, 4);
			p.kw = rr(1, 4);
			p.sh = rr(1, 3);
			p.sw = rr(1, 3);
			p.pt = rr(0, p.kh);
			p.pl = rr(0, p.kw);
			p.oh = p.h + p.pt + p.pt + rr(0, 1) - p.kh;
			p.ow = p.w + p.pl + p.pl + rr(0, 1) - p.kw;
		}
		if (p.oh < 0 || p.ow < 0) {
			round--;
			continue;
		}
		p.oh = p.oh / p.sh + 1;
		p.ow = p.ow / p.sw + 1;
		p.co = p.c;
		p.g = p.c;
		if (kind == NPA_IR_CONV2D) {
			p.co = rr(1, 10);
			for (i = 1; i <= p.c; i++) {
				if (!(p.c % i) && !(p.co % i))
					gs[ng++] = i;
			}
			p.g = gs[rr(0, ng - 1)];
		}
		p.bias = conv && rr(0, 1);

		xd = act(p.c, p.h, p.w);
		yd = act(p.co, p.oh, p.ow);
		wd = (struct npa_ir_tensor){ .dims = { p.co, p.c / p.g, p.kh, p.kw },
					       .dtype = NPA_IR_INT8 };
		bd = (struct npa_ir_tensor){ .dims = { p.co },
					       .dtype = NPA_IR_INT32 };
		op.params[NPA_IR_P_KH] = p.kh;
		op.params[NPA_IR_P_KW] = p.kw;
		op.params[NPA_IR_P_SH] = p.sh;
		op.params[NPA_IR_P_SW] = p.sw;
		op.params[NPA_IR_P_PAD_T] = p.pt;
		op.params[NPA_IR_P_PAD_L] = p.pl;
		op.params[NPA_IR_P_SHIFT] = p.shift;
		if (kind == NPA_IR_CONV2D && (p.g > 1 || rr(0, 1)))
			op.params[NPA_IR_P_GROUPS] = p.g;
		if (kind == NPA_IR_DWCONV2D && rr(0, 1))
			op.params[NPA_IR_P_GROUPS] = p.g;

		buf_alloc(&x, p.c * p.h * p.w);
		buf_alloc(&y, p.co * p.oh * p.ow);
		buf_alloc(&want, y.n);
		buf_alloc(&w, p.co * (p.c / p.g) * p.kh * p.kw);
		buf_alloc(&b, 4 * p.co);
		buf_rand(&x);
		buf_rand(&w);
		for (i = 0; i < p.co; i++)
			((s32 *)b.p)[i] = rr(-40000, 40000);
		naive_win(&p, (s8 *)x.p, (s8 *)w.p, p.bias ? (s32 *)b.p : NULL,
			  (s8 *)want.p);

		in[0] = (struct npa_exec_operand){ x.p, x.n, &xd };
		in[1] = (struct npa_exec_operand){ w.p, w.n, &wd };
		in[2] = (struct npa_exec_operand){ b.p, b.n, &bd };
		out[0] = (struct npa_exec_operand){ y.p, y.n, &yd };
		npa_exec_im2col_bytes(&op, &xd, &yd, &full, &pix);
		if (conv && (!full == (p.kh * p.kw > 1 || p.sh > 1 || p.sw > 1) ||
			     full != pix * p.oh * p.ow ||
			     (full && pix != (u64)p.c / p.g * p.kh * p.kw)))
			fail("im2col_bytes %llu for %dx%d/%d,%d", full, p.kh, p.kw,
			     p.sh, p.sw);

		/*
		 * im2col 0: no scratch; 1: full; 2: tiled; 3: too small.  With
		 * scratch, the buffers after it (npa_exec_roles()): none, an
		 * accumulator, or weight staging and an accumulator, of any
		 * size, poisoned.
		 */
		for (mode = 0; mode < (conv ? 4 : 1) && !why[0]; mode++) {
			int extra = mode ? rr(0, 2) : 0;
			size_t n = 0;
			u32 nsc = 0;

			if (mode == 1)
				n = full + rr(0, 8);
			else if (mode == 2 && pix)
				n = rr(pix, full);
			else if (mode == 3 && pix)
				n = pix - 1;
			buf_alloc(&s, n);
			memset(s.p, 0x5a, n);
			buf_alloc(&st, extra == 2 ? rr(0, 2 * w.n + 1) : 0);
			memset(st.p, 0x5a, st.n);
			buf_alloc(&ac, extra ? rr(0, 8 * p.co + 9) : 0);
			memset(ac.p, 0x5a, ac.n);
			if (mode && full)
				sc[nsc++] = (struct npa_exec_operand){ s.p, s.n, NULL };
			if (extra == 2)
				sc[nsc++] = (struct npa_exec_operand){ st.p, st.n, NULL };
			if (extra)
				sc[nsc++] = (struct npa_exec_operand){ ac.p, ac.n, NULL };
			/* Tiles and staging chunks both: which loop order. */
			if (mode == 2 && full && extra == 2 && st.n >= pix &&
			    n / pix < (u64)p.oh * p.ow &&
			    st.n / pix < (u64)p.co / p.g)
				orders[npa_exec_weight_stationary((u64)p.oh * p.ow, n / pix,
								  p.co / p.g, st.n / pix)]++;
			memset(y.p, 0x77, y.n);
			ret = run(&op, in, conv ? 2 + p.bias : 1, out, 1, sc, nsc);
			if (ret)
				fail("returned %d", ret);
			compare(y.p, want.p, y.n, "output");
			buf_check(&x, "x");
			buf_check(&y, "y");
			buf_check(&w, "weights");
			buf_check(&b, "bias");
			buf_check(&s, "scratch");
			buf_check(&st, "staging");
			buf_check(&ac, "accumulator");
			if (why[0])
				printf("# im2col %zu, staging %zu, accumulator %zu bytes\n",
				       extra || mode ? s.n : 0, st.n, ac.n);
			buf_free(&s);
			buf_free(&st);
			buf_free(&ac);
		}

		/* An output size outside the rule is refused. */
		bad = yd;
		bad.dims[2 + rr(0, 1)] += rr(0, 1) ? 1 : -1;
		if (bad.dims[2] && bad.dims[3] &&
		    !(out_ok(p.h, p.kh, p.sh, p.pt, bad.dims[2]) &&
		      out_ok(p.w, p.kw, p.sw, p.pl, bad.dims[3]))) {
			const struct npa_ir_tensor *ind[3] = { &xd, &wd, &bd };
			const struct npa_ir_tensor *outd[1] = { &bad };

			if (npa_exec_check(&op, ind, conv ? 2 + p.bias : 1, outd, 1) != -EINVAL)
				fail("output %ux%u accepted", bad.dims[2], bad.dims[3]);
		}
		if (why[0])
			printf("# c=%d h=%d w=%d co=%d oh=%d ow=%d k=%dx%d\n"
			       "# s=%d,%d pad=%d,%d g=%d shift=%d bias=%d\n",
			       p.c, p.h, p.w, p.co, p.oh, p.ow, p.kh, p.kw, p.sh,
			       p.sw, p.pt, p.pl, p.g, p.shift, p.bias);
		buf_free(&x);
		buf_free(&y);
		buf_free(&want);
		buf_free(&w);
		buf_free(&b);
	}
	/* Enough random convolutions to take both loop orders. */
	if (kind == NPA_IR_CONV2D && !why[0] && (!orders[0] || !orders[1]))
		fail("loop orders: %d input-, %d weight-stationary", orders[0],
		     orders[1]);
	snprintf(what, sizeof(what),
		 "exec %s: %d random shapes match the naive reference%s", name,
		 ROUNDS, kind == NPA_IR_CONV2D ?
		 " (no, full, tiled and short im2col scratch; weight staging"
		 " and accumulators of any size; both loop orders)" :
		 kind == NPA_IR_DWCONV2D ?
		 " (no, full, tiled and short im2col scratch; weight staging"
		 " and accumulators of any size)" : "");
	report(what);
}

static void test_fc(void)
{
	int round;

	for (round = 0; round < ROUNDS && !why[0]; round++) {
		int n = rr(1, 40), m = rr(1, 12), shift = rr(0, 14), i, j;
		bool bias = rr(0, 1);
		struct npa_ir_tensor xd = act(n, 1, 1), yd = act(m, 1, 1);
		struct npa_ir_tensor wd = { .dims = { m, n }, .dtype = NPA_IR_INT8 };
		struct npa_ir_tensor bd = { .dims = { m }, .dtype = NPA_IR_INT32 };
		struct npa_ir_op op = { .kind = NPA_IR_FC };
		struct npa_exec_operand in[3], out[1], sc[2];
		struct buf x, y, w, b, st, ac;
		u32 nsc = rr(0, 2);

		if (rr(0, 1))
			xd = act(1, 1, n);
		/* Weight staging (with two) and an accumulator, poisoned. */
		buf_alloc(&st, nsc == 2 ? rr(0, 2 * n * m + 1) : 0);
		memset(st.p, 0x5a, st.n);
		buf_alloc(&ac, nsc ? rr(0, 8 * m + 9) : 0);
		memset(ac.p, 0x5a, ac.n);
		sc[0] = (struct npa_exec_operand){ st.p, st.n, NULL };
		sc[nsc - (nsc > 0)] = (struct npa_exec_operand){ ac.p, ac.n, NULL };
		op.params[NPA_IR_P_SHIFT] = shift;
		buf_alloc(&x, n);
		buf_alloc(&y, m);
		buf_alloc(&w, n * m);
		buf_alloc(&b, 4 * m);
		buf_rand(&x);
		buf_rand(&w);
		buf_rand(&b);
		in[0] = (struct npa_exec_operand){ x.p, x.n, &xd };
		in[1] = (struct npa_exec_operand){ w.p, w.n, &wd };
		in[2] = (struct npa_exec_operand){ b.p, b.n, &bd };
		out[0] = (struct npa_exec_operand){ y.p, y.n, &yd };
		if (run(&op, in, 2 + bias, out, 1, sc, nsc))
			fail("fc returned an error");
		for (j = 0; j < m; j++) {
			long long acc = bias ? ((s32 *)b.p)[j] : 0;

			for (i = 0; i < n; i++)
				acc += (s8)w.p[j * n + i] * (s8)x.p[i];
			if ((s8)y.p[j] != sat(floordiv(acc, 1LL << shift)))
				fail("fc %dx%d output %d", m, n, j);
		}
		buf_check(&x, "x");
		buf_check(&y, "y");
		buf_check(&w, "w");
		buf_check(&b, "b");
		buf_check(&st, "staging");
		buf_check(&ac, "accumulator");
		buf_free(&x);
		buf_free(&y);
		buf_free(&w);
		buf_free(&b);
		buf_free(&st);
		buf_free(&ac);
	}
	report("exec fc: random shapes match the naive reference (weight staging and accumulators of any size)");
}

/* Darknet's shortcut_cpu(), integer version. */
static void naive_elt(bool mul, int shift, int w1, int h1, int c1,
		      const s8 *add, int w2, int h2, int c2, s8 *out)
{
	int stride = w1 / w2, sample = w2 / w1;
	int minw = w1 < w2 ? w1 : w2, minh = h1 < h2 ? h1 : h2;
	int minc = c1 < c2 ? c1 : c2, i, j, k;

	if (stride < 1)
		stride = 1;
	if (sample < 1)
		sample = 1;
	for (k = 0; k < minc; k++) {
		for (j = 0; j < minh; j++) {
			for (i = 0; i < minw; i++) {
				int oi = i * sample + w2 * (j * sample + h2 * k);
				int ai = i * stride + w1 * (j * stride + h1 * k);
				int v = mul ? out[oi] * add[ai] : out[oi] + add[ai];

				out[oi] = sat(floordiv(v, 1 << shift));
			}
		}
	}
}

static void test_elt(bool mul)
{
	int round;

	for (round = 0; round < ROUNDS && !why[0]; round++) {
		int c = rr(1, 5), h = rr(1, 6), w = rr(1, 6), c2 = c;
		int h2 = h, w2 = w, f = rr(2, 3), shift = rr(0, 8), form = rr(0, 3);
		struct npa_ir_op op = { .kind = mul ? NPA_IR_MUL : NPA_IR_ADD };
		struct npa_ir_tensor ad, bd, yd;
		struct npa_exec_operand in[2], out[1];
		struct buf a, b, y, want;
		bool inplace = rr(0, 1);

		if (form >= 1)
			c2 = rr(1, 7);
		if (form == 2) {
			h2 = h * f;
			w2 = w * f;
		} else if (form == 3) {
			h2 = rr(1, 3);
			w2 = rr(1, 3);
			h = h2 * f;
			w = w2 * f;
		}
		ad = act(c, h, w);
		bd = act(c2, h2, w2);
		yd = ad;
		op.params[NPA_IR_P_SHIFT] = shift;
		if (inplace)
			op.flags = NPA_IR_INPLACE;
		buf_alloc(&a, c * h * w);
		buf_alloc(&b, c2 * h2 * w2);
		buf_alloc(&want, a.n);
		buf_rand(&a);
		buf_rand(&b);
		memcpy(want.p, a.p, a.n);
		naive_elt(mul, shift, w2, h2, c2, (s8 *)b.p, w, h, c, (s8 *)want.p);
		if (!inplace) {
			buf_alloc(&y, a.n);
		} else {
			y = a;
			y.mem = NULL;
		}
		in[0] = (struct npa_exec_operand){ a.p, a.n, &ad };
		in[1] = (struct npa_exec_operand){ b.p, b.n, &bd };
		out[0] = (struct npa_exec_operand){ y.p, y.n, &yd };
		if (run(&op, in, 2, out, 1, NULL, 0))
			fail("returned an error for a %dx%dx%d + %dx%dx%d", c, h, w,
			     c2, h2, w2);
		compare(y.p, want.p, a.n, inplace ? "in place" : "output");
		buf_check(&a, "a");
		buf_check(&b, "b");
		if (!inplace) {
			buf_check(&y, "y");
			buf_free(&y);
		}
		buf_free(&a);
		buf_free(&b);
		buf_free(&want);
	}
	report(mul ? "exec mul: shapes, channels, strides, in place match shortcut" :
		     "exec add: shapes, channels, strides, in place match shortcut");
}

static void test_activation(void)
{
	struct npa_ir_tensor d = act(1, 16, 16);
	struct npa_ir_op op = { .kind = NPA_IR_ACTIVATION };
	struct npa_exec_operand in, out;
	struct buf x, y;
	int act_kind, v;

	buf_alloc(&x, 256);
	buf_alloc(&y, 256);
	for (act_kind = 0; act_kind < NPA_IR_ACT_COUNT; act_kind++) {
		for (v = 0; v < 256; v++)
			x.p[v] = v;
		op.params[NPA_IR_P_ACT] = act_kind;
		in = (struct npa_exec_operand){ x.p, x.n, &d };
		out = (struct npa_exec_operand){ y.p, y.n, &d };
		if (run(&op, &in, 1, &out, 1, NULL, 0))
			fail("activation %d returned an error", act_kind);
		for (v = -128; v < 128; v++) {
			int want, got = (s8)y.p[(u8)v];

			switch (act_kind) {
			case NPA_IR_ACT_RELU:
				want = v < 0 ? 0 : v;
				break;
			case NPA_IR_ACT_LEAKY:
				want = v < 0 ? (int)floor(v / 8.0) : v;
				break;
			case NPA_IR_ACT_LOGISTIC:
				want = (int)floor(128.0 / (1.0 + exp(-v / 16.0)) + 0.5);
				want = want > 127 ? 127 : want;
				break;
			default:
				want = v;
				break;
			}
			if (got != want)
				fail("activation %d of %d is %d, expected %d", act_kind,
				     v, got, want);
		}
		/* In place gives the same bytes. */
		op.flags = NPA_IR_INPLACE;
		out.ptr = x.p;
		if (run(&op, &in, 1, &out, 1, NULL, 0))
			fail("in-place activation %d returned an error", act_kind);
		compare(x.p, y.p, 256, "in place");
		op.flags = 0;
		buf_check(&x, "x");
		buf_check(&y, "y");
	}
	buf_free(&x);
	buf_free(&y);
	report("exec activation: linear, relu, leaky, logistic (libm), all values, in place");
}

static void test_resize(bool reorg)
{
	int round;

	for (round = 0; round < ROUNDS && !why[0]; round++) {
		int s = rr(1, 4), c = rr(1, 4), h = rr(1, 5) * (reorg ? s : 1);
		int w = rr(1, 5) * (reorg ? s : 1), oc, oh, ow, i, j, k;
		struct npa_ir_op op = { .kind = reorg ? NPA_IR_REORG : NPA_IR_UPSAMPLE };
		struct npa_ir_tensor xd, yd;
		struct npa_exec_operand in, out;
		struct buf x, y;

		oc = reorg ? c * s * s : c;
		oh = reorg ? h / s : h * s;
		ow = reorg ? w / s : w * s;
		xd = act(c, h, w);
		yd = act(oc, oh, ow);
		op.params[NPA_IR_P_STRIDE] = s;
		buf_alloc(&x, c * h * w);
		buf_alloc(&y, oc * oh * ow);
		buf_rand(&x);
		in = (struct npa_exec_operand){ x.p, x.n, &xd };
		out = (struct npa_exec_operand){ y.p, y.n, &yd };
		if (run(&op, &in, 1, &out, 1, NULL, 0))
			fail("returned an error");
		for (k = 0; k < oc; k++) {
			for (j = 0; j < oh; j++) {
				for (i = 0; i < ow; i++) {
					int src;

					if (reorg) {
						/* ONNX SpaceToDepth */
						int cc = k % c, dy = k / c / s, dx = k / c % s;

						src = (cc * h + j * s + dy) * w + i * s + dx;
					} else {
						src = (k * h + j / s) * w + i / s;
					}
					if (y.p[(k * oh + j) * ow + i] != x.p[src])
						fail("%dx%dx%d stride %d: output %d,%d,%d", c, h,
						     w, s, k, j, i);
				}
			}
		}
		buf_check(&x, "x");
		buf_check(&y, "y");
		buf_free(&x);
		buf_free(&y);
	}
	report(reorg ? "exec reorg: random shapes match ONNX SpaceToDepth" :
		       "exec upsample: random shapes match nearest neighbour");
}

/* CONCAT and SPLIT with every input/output either in place or elsewhere. */
static void test_move(void)
{
	int round;

	for (round = 0; round < ROUNDS && !why[0]; round++) {
		int n = rr(1, 5), i, off = 0, total = 0, sizes[5];
		struct npa_ir_tensor d[5], whole;
		struct npa_exec_operand parts[5], all;
		struct npa_ir_op op = { .kind = rr(0, 1) ? NPA_IR_CONCAT : NPA_IR_SPLIT };
		struct buf big, ref, sep[5];
		bool at[5];

		for (i = 0; i < n; i++) {
			sizes[i] = rr(1, 3) * 12;
			total += sizes[i];
			d[i] = act(sizes[i] / 12, 3, 4);
			if (rr(0, 1))
				d[i] = (struct npa_ir_tensor){ .size = sizes[i] };
		}
		whole = act(total / 12, 3, 4);
		buf_alloc(&big, total);
		buf_alloc(&ref, total);
		buf_rand(&ref);
		memset(big.p, 0, total);
		for (i = 0; i < n; i++, off += sizes[i - 1]) {
			at[i] = rr(0, 1);
			buf_alloc(&sep[i], sizes[i]);
			memset(sep[i].p, 0, sizes[i]);
			parts[i] = (struct npa_exec_operand){
				at[i] ? big.p + off : sep[i].p, sizes[i], &d[i] };
			/* Concat inputs hold their data wherever they live. */
			if (op.kind == NPA_IR_CONCAT)
				memcpy(parts[i].ptr, ref.p + off, sizes[i]);
		}
		if (op.kind == NPA_IR_SPLIT)
			memcpy(big.p, ref.p, total);
		all = (struct npa_exec_operand){ big.p, big.n, &whole };
		if (op.kind == NPA_IR_CONCAT ?
		    run(&op, parts, n, &all, 1, NULL, 0) :
		    run(&op, &all, 1, parts, n, NULL, 0))
			fail("returned an error");
		if (op.kind == NPA_IR_CONCAT)
			compare(big.p, ref.p, total, "concat");
		for (i = 0, off = 0; i < n; off += sizes[i], i++) {
			if (op.kind == NPA_IR_SPLIT)
				compare(parts[i].ptr, ref.p + off, sizes[i], "split");
			buf_check(&sep[i], "part");
			buf_free(&sep[i]);
		}
		buf_check(&big, "whole");
		buf_free(&big);
		buf_free(&ref);
	}
	report("exec concat/split: inputs/outputs in place or elsewhere, byte concatenation");
}

int main(void)
{
	test_win(NPA_IR_CONV2D, "conv2d");
	test_win(NPA_IR_DWCONV2D, "dwconv2d");
	test_win(NPA_IR_MAXPOOL, "maxpool");
	test_win(NPA_IR_AVGPOOL, "avgpool");
	test_fc();
	test_elt(false);
	test_elt(true);
	test_activation();
	test_resize(false);
	test_resize(true);
	test_move();
	return failures ? 1 : 0;
}
