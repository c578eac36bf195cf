/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npa fuzzers: checks of a graph plan shared by the targets.
 *
 * Needs npa_graph.h (and so linux/types.h and linux/npa.h) included first.
 */
#ifndef _NPA_FUZZ_CHECK_H
#define _NPA_FUZZ_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static inline const char *fz_check_msg(const char *fmt, ...)
{
	static char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return msg;
}

/*
 * The placements @q of the @n scratch requests @s, request j owned by op
 * @owner[j] of @ops, in an arena of @arena bytes under the limits @lim:
 * each is an arena scratch placement live at its op's step only, granted
 * its size (or, if variable, a size in [min_size, size]), aligned to its
 * alignment or its op's unit's, inside the arena and, if marked fast,
 * inside the fast window.  Returns NULL if all hold, else what does not;
 * *@requested gets the bytes granted.
 */
static inline const char *
fz_check_scratch(const struct npa_scratch_desc *s, u32 n,
		 const struct npa_op_desc *ops, const u32 *owner,
		 const struct npa_graph_limits *lim,
		 const struct npa_ir_place *q, u64 arena, u64 *requested)
{
	u32 j;

	*requested = 0;
	for (j = 0; j < n; j++, s++, q++) {
		u64 a = s->align ? s->align : lim->unit_align[ops[owner[j]].unit];
		u64 end;

		if (!a)
			a = 1;
		if ((q->flags & ~NPA_IR_FAST) !=
		    (NPA_IR_ARENA | NPA_IR_SCRATCH))
			return fz_check_msg("scratch %u flags %#x", j, q->flags);
		if (q->lo != owner[j] || q->hi != owner[j] + 1)
			return fz_check_msg("scratch %u of op %u live [%u,%u)",
					    j, owner[j], q->lo, q->hi);
		if ((s->flags & NPA_SCRATCH_VARIABLE) ?
		    q->size < s->min_size || q->size > s->size :
		    q->size != s->size)
			return fz_check_msg("scratch %u granted %llu of [%llu,%llu]",
					    j, (unsigned long long)q->size,
					    (unsigned long long)s->min_size,
					    (unsigned long long)s->size);
		if (q->offset & (a - 1))
			return fz_check_msg("scratch %u offset %llu align %llu", j,
					    (unsigned long long)q->offset,
					    (unsigned long long)a);
		if (__builtin_add_overflow(q->offset, q->size, &end) || end > arena)
			return fz_check_msg("scratch %u [%llu,+%llu) above arena %llu",
					    j, (unsigned long long)q->offset,
					    (unsigned long long)q->size,
					    (unsigned long long)arena);
		if ((q->flags & NPA_IR_FAST) && end > lim->fast_window)
			return fz_check_msg("scratch %u marked fast ends at %llu",
					    j, (unsigned long long)end);
		*requested += q->size;
	}
	return NULL;
}

#endif /* _NPA_FUZZ_CHECK_H */
