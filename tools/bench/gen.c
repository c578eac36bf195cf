// SPDX-License-Identifier: GPL-2.0-only
/*
 * Instance generators for the planner's host tests and benchmark.
 */
#include <stdlib.h>
#include <string.h>

#include <linux/minmax.h>

#include "gen.h"

u32 npa_gen_strip(struct npa_plan_buf *b, u32 n, u64 width, u32 steps,
		  u64 seed)
{
	return npa_gen_guillotine(b, n, width, steps, seed, false);
}

u32 npa_gen_cut(struct npa_plan_buf *b, u32 n, u64 width, u32 steps,
		u64 seed)
{
	return npa_gen_guillotine(b, n, width, steps, seed, true);
}

/* A live rectangle of npa_gen_sweep(): [off, off + size) from step t0. */
struct live {
	u64 off, size;
	u32 t0;
	bool ends;
};

/* Buffer @b is the live rectangle @l, ended at step @hi. */
static void live_to_buf(struct npa_plan_buf *b, const struct live *l, u32 hi)
{
	memset(b, 0, sizeof(*b));
	b->size = l->size;
	b->lo = l->t0;
	b->hi = hi;
	b->offset = l->off;
}

static int live_by_off(const void *a, const void *b)
{
	const struct live *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

u32 npa_gen_sweep(struct npa_plan_buf *b, u32 n, u64 width, u32 steps,
		  u64 seed)
{
	struct live *l = calloc(n + 1, sizeof(*l));
	struct live *nl = calloc(n + 1, sizeof(*nl));
	u32 nlive, cnt = 0, t, i, j, per = n / steps + 1;
	u64 st = seed;

	if (!l || !nl || width < 4 || steps < 2 || n < 2) {
		free(l);
		free(nl);
		return 0;
	}
	/* Start with a few rectangles across the width. */
	nlive = 1 + npa_gen_below(&st, min_t(u32, n / 4 + 1, 8));
	for (i = 0; i < nlive; i++) {
		l[i].off = width * i / nlive;
		l[i].size = width * (i + 1) / nlive - l[i].off;
		l[i].t0 = 0;
	}
	for (t = 1; t < steps; t++) {
		u32 ends = 0, nn = 0;

		/* Each step adds at most two per ended one. */
		if (cnt + nlive + 2 * per + 2 > n)
			break;
		/* End a few random rectangles at t. */
		for (i = 0; i < per && nlive; i++)
			l[npa_gen_below(&st, nlive)].ends = true;
		/* Fill each run of ended neighbours with 1-3 new ones. */
		for (i = 0; i < nlive; i = j) {
			u64 lo, hi, at;
			u32 k, parts;

			if (!l[i].ends) {
				nl[nn++] = l[i];
				j = i + 1;
				continue;
			}
			lo = l[i].off;
			for (j = i; j < nlive && l[j].ends; j++) {
				live_to_buf(&b[cnt++], &l[j], t);
				ends++;
			}
			hi = l[j - 1].off + l[j - 1].size;
			parts = 1 + npa_gen_below(&st, 3);
			if (hi - lo < parts)
				parts = 1;
			/* Never the same cut as before: split at random points. */
			for (k = 0, at = lo; k < parts; k++) {
				u64 end = k + 1 == parts ? hi :
					  at + 1 + npa_gen_below(&st, hi - at - (parts - k) + 1);

				nl[nn].off = at;
				nl[nn].size = end - at;
				nl[nn].t0 = t;
				nl[nn].ends = false;
				nn++;
				at = end;
			}
		}
		memcpy(l, nl, nn * sizeof(*l));
		nlive = nn;
		qsort(l, nlive, sizeof(*l), live_by_off);
	}
	for (i = 0; i < nlive; i++)
		live_to_buf(&b[cnt++], &l[i], steps);
	free(l);
	free(nl);
	/* Shuffle so that input order tells nothing. */
	for (i = cnt; i > 1; i--) {
		struct npa_plan_buf tmp;

		j = npa_gen_below(&st, i);
		tmp = b[i - 1];
		b[i - 1] = b[j];
		b[j] = tmp;
	}
	return cnt;
}

void npa_gen_trace(struct npa_plan_buf *b, u32 n, u64 seed)
{
	static const u64 sizes[] = {
		4096, 16384, 65536, 147456, 262144, 589824, 1048576, 4194304,
	};
	u64 st = seed;
	u32 i, step = 0;

	for (i = 0; i < n; i++) {
		u32 len;

		memset(&b[i], 0, sizeof(b[i]));
		if (npa_gen_below(&st, 3) == 0)
			step++;
		if (npa_gen_below(&st, 50) == 0)
			len = 1 + npa_gen_below(&st, 2000);	/* long-lived */
		else
			len = 1 + npa_gen_below(&st, 6);
		b[i].lo = step;
		b[i].hi = step + len;
		b[i].size = sizes[npa_gen_below(&st, 8)] *
			    (1 + npa_gen_below(&st, 4)) +
			    64 * npa_gen_below(&st, 1024);
	}
}
