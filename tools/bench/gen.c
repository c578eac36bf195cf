// SPDX-License-Identifier: GPL-2.0-only
/*
 * Instance generators for the planner's host tests and benchmark.
 */
#include <stdlib.h>
#include <string.h>

#include "gen.h"

u64 npa_gen_next(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

u64 npa_gen_below(u64 *state, u64 n)
{
	return npa_gen_next(state) % n;
}

struct piece {
	u64 x0, x1;	/* bytes */
	u32 t0, t1;	/* steps */
};

static u64 piece_area(const struct piece *p)
{
	return (p->x1 - p->x0) * (u64)(p->t1 - p->t0);
}

u32 npa_gen_strip(struct npa_plan_buf *b, u32 n, u64 width, u32 steps,
		  u64 seed)
{
	struct piece *p = calloc(n ? n : 1, sizeof(*p));
	u64 st = seed;
	u32 cnt = 1, i;

	if (!p)
		return 0;
	p[0] = (struct piece){ 0, width, 0, steps };
	while (cnt < n) {
		u32 big = 0;
		struct piece *q;
		u64 w;
		u32 len;

		for (i = 1; i < cnt; i++)
			if (piece_area(&p[i]) > piece_area(&p[big]))
				big = i;
		q = &p[big];
		w = q->x1 - q->x0;
		len = q->t1 - q->t0;
		if (w < 2 && len < 2)
			break;
		/* Cut across the longer side (relative to the strip). */
		if (len >= 2 && (w < 2 || npa_gen_below(&st, 2) ||
				 (u64)len * width > w * steps * 2)) {
			u32 cut = q->t0 + 1 + npa_gen_below(&st, len - 1);

			p[cnt] = *q;
			p[cnt].t0 = cut;
			q->t1 = cut;
		} else {
			u64 cut = q->x0 + 1 + npa_gen_below(&st, w - 1);

			p[cnt] = *q;
			p[cnt].x0 = cut;
			q->x1 = cut;
		}
		cnt++;
	}
	/* Shuffle so that input order tells nothing. */
	for (i = cnt; i > 1; i--) {
		u32 j = npa_gen_below(&st, i);
		struct piece tmp = p[i - 1];

		p[i - 1] = p[j];
		p[j] = tmp;
	}
	for (i = 0; i < cnt; i++) {
		memset(&b[i], 0, sizeof(b[i]));
		b[i].size = p[i].x1 - p[i].x0;
		b[i].lo = p[i].t0;
		b[i].hi = p[i].t1;
	}
	free(p);
	return cnt;
}

void npa_gen_random(struct npa_plan_buf *b, u32 n, u32 steps, u64 max,
		    u64 seed)
{
	u64 st = seed;
	u32 i;

	for (i = 0; i < n; i++) {
		u32 lo = npa_gen_below(&st, steps);
		u32 len = 1 + npa_gen_below(&st, steps - lo);

		memset(&b[i], 0, sizeof(b[i]));
		b[i].lo = lo;
		b[i].hi = lo + len;
		b[i].size = 1 + npa_gen_below(&st, max);
	}
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
