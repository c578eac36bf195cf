// SPDX-License-Identifier: GPL-2.0-only
/*
 * DOC: SVG layout drawing
 *
 * `npactl plan --svg FILE` draws a planned graph: op steps run left to
 * right, arena addresses bottom to top.  Each arena tensor is a box over
 * its lifetime and address range (tensors that share memory overlap on
 * purpose), each scratch buffer a box over its operator's step; the lower
 * bound, the tensors' arena top and the fast window are horizontal lines.
 * Hovering a box shows what it is.  Plain SVG 1.1 text, no scripts.
 */
#include <errno.h>
#include <string.h>

#include "npactl.h"
#include "graph.h"

#define SVG_W		1200.0
#define SVG_H		720.0
#define SVG_LEFT	90.0	/* room for the address labels */
#define SVG_RIGHT	170.0	/* room for the line labels */
#define SVG_TOP		50.0
#define SVG_BOTTOM	50.0

#define SVG_TENSOR	"#4e79a7"
#define SVG_SCRATCH	"#f28e2b"
#define SVG_FAST	"#e15759"
#define SVG_LB		"#59a14f"

struct svg {
	FILE *fp;
	double xs, ys;		/* pixels per step, per byte */
	u64 top;		/* bytes at the top of the plot */
	double label_y;		/* the last line label, to keep them apart */
};

static u64 max3_u64(u64 a, u64 b, u64 c)
{
	return max(max(a, b), c);
}

static double svg_x(const struct svg *s, u32 step)
{
	return SVG_LEFT + step * s->xs;
}

static double svg_y(const struct svg *s, u64 addr)
{
	return SVG_H - SVG_BOTTOM - (double)addr * s->ys;
}

static void svg_text_escaped(FILE *fp, const char *t)
{
	for (; *t; t++) {
		switch (*t) {
		case '<':
			fputs("&lt;", fp);
			break;
		case '>':
			fputs("&gt;", fp);
			break;
		case '&':
			fputs("&amp;", fp);
			break;
		case '"':
			fputs("&quot;", fp);
			break;
		default:
			fputc(*t, fp);
		}
	}
}

/* Byte counts on the axis: B, KiB or MiB with up to one decimal. */
static void svg_bytes(char *buf, size_t n, u64 v)
{
	if (v >= 1ULL << 20)
		snprintf(buf, n, "%.1f MiB", v / 1048576.0);
	else if (v >= 1ULL << 10)
		snprintf(buf, n, "%.1f KiB", v / 1024.0);
	else
		snprintf(buf, n, "%llu B", v);
}

static void svg_box(const struct svg *s, const struct npa_placement *p,
		    const char *fill, const char *name)
{
	double x0 = svg_x(s, p->lo), x1 = svg_x(s, p->hi);
	double y0 = svg_y(s, p->offset + p->size), y1 = svg_y(s, p->offset);

	fprintf(s->fp,
		"<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"><title>",
		x0, y0, x1 - x0, y1 - y0 > 0.3 ? y1 - y0 : 0.3, fill);
	svg_text_escaped(s->fp, name);
	fprintf(s->fp, ": offset %llu, %llu bytes, steps [%u, %u)</title></rect>\n",
		p->offset, p->size, p->lo, p->hi);
}

/* Lines are drawn from the bottom up, so labels only move up. */
static void svg_hline(struct svg *s, u64 addr, const char *colour,
		      const char *dash, const char *label)
{
	double y = svg_y(s, addr), ly = y + 4;
	char b[32];

	if (ly > s->label_y - 14)
		ly = s->label_y - 14;
	s->label_y = ly;

	svg_bytes(b, sizeof(b), addr);
	fprintf(s->fp,
		"<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" stroke-width=\"1.5\"%s%s%s/>\n",
		SVG_LEFT, y, SVG_W - SVG_RIGHT, y, colour,
		dash ? " stroke-dasharray=\"" : "", dash ? dash : "",
		dash ? "\"" : "");
	fprintf(s->fp,
		"<text x=\"%.2f\" y=\"%.2f\" fill=\"%s\">%s %s</text>\n",
		SVG_W - SVG_RIGHT + 6, ly, colour, label, b);
}

static void svg_axes(const struct svg *s, u32 steps)
{
	const int ticks = 8;
	char b[32];
	int i;

	fprintf(s->fp,
		"<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"black\"/>\n"
		"<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"black\"/>\n",
		SVG_LEFT, svg_y(s, 0), SVG_W - SVG_RIGHT, svg_y(s, 0),
		SVG_LEFT, svg_y(s, 0), SVG_LEFT, SVG_TOP);
	for (i = 0; i <= ticks; i++) {
		u64 a = s->top * i / ticks;
		u32 t = (u64)steps * i / ticks;

		svg_bytes(b, sizeof(b), a);
		fprintf(s->fp,
			"<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">%s</text>\n",
			SVG_LEFT - 6, svg_y(s, a) + 4, b);
		fprintf(s->fp,
			"<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%u</text>\n",
			svg_x(s, t), svg_y(s, 0) + 16, t);
	}
	fprintf(s->fp,
		"<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">op step (time)</text>\n"
		"<text transform=\"translate(14 %.2f) rotate(-90)\" text-anchor=\"middle\">arena address</text>\n",
		(SVG_LEFT + SVG_W - SVG_RIGHT) / 2, SVG_H - 12,
		(SVG_TOP + SVG_H - SVG_BOTTOM) / 2);
}

int npactl_svg_write(const char *path, const char *input,
		     const struct npactl_graph *g,
		     const struct npa_graph_plan *plan,
		     const struct npa_graph_limits *lim)
{
	FILE *fp = strcmp(path, "-") ? fopen(path, "w") : stdout;
	struct svg s = { .fp = fp, .label_y = SVG_H };
	char name[96];
	u32 i, steps = g->num_ops ? g->num_ops : 1;

	if (!fp) {
		fprintf(stderr, "npactl: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	s.top = max3_u64(plan->arena_bytes, plan->lower_bound, 1);
	s.xs = (SVG_W - SVG_LEFT - SVG_RIGHT) / steps;
	s.ys = (SVG_H - SVG_TOP - SVG_BOTTOM) / (double)s.top;

	fprintf(fp,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text x=\"%.2f\" y=\"22\" font-size=\"15\">",
		SVG_W, SVG_H, SVG_W, SVG_H, SVG_LEFT);
	svg_text_escaped(fp, strrchr(input, '/') ? strrchr(input, '/') + 1 : input);
	fprintf(fp, ": %u ops, %u tensors in %u buffers, %llu bytes of scratch</text>\n"
		"<text x=\"%.2f\" y=\"40\"><tspan fill=\"%s\">&#9632; tensors</tspan> "
		"<tspan fill=\"%s\">&#9632; scratch</tspan> "
		"<tspan fill=\"%s\">&#9632; scratch in the fast window</tspan></text>\n",
		g->num_ops, g->num_tensors, plan->num_buffers,
		plan->scratch_requested, SVG_LEFT, SVG_TENSOR, SVG_SCRATCH,
		SVG_FAST);

	if (lim->fast_window)
		fprintf(fp,
			"<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" fill-opacity=\"0.08\"/>\n",
			SVG_LEFT, svg_y(&s, min(lim->fast_window, s.top)),
			SVG_W - SVG_LEFT - SVG_RIGHT,
			svg_y(&s, 0) - svg_y(&s, min(lim->fast_window, s.top)),
			SVG_FAST);

	fprintf(fp, "<g fill-opacity=\"0.55\" stroke=\"%s\" stroke-width=\"0.3\">\n",
		SVG_TENSOR);
	for (i = 0; i < g->num_tensors; i++)
		if ((plan->tensors[i].flags & NPA_PLACEMENT_ARENA) &&
		    plan->tensors[i].size)
			svg_box(&s, &plan->tensors[i], SVG_TENSOR,
				g->tensor_names[i]);
	fprintf(fp, "</g>\n<g fill-opacity=\"0.8\">\n");
	for (i = 0; i < g->num_scratch; i++) {
		const struct npa_placement *p = &plan->scratch[i];

		if (!p->size)
			continue;
		snprintf(name, sizeof(name), "scratch %u of op %u", i, p->lo);
		svg_box(&s, p, p->flags & NPA_PLACEMENT_FAST ? SVG_FAST :
			SVG_SCRATCH, name);
	}
	fprintf(fp, "</g>\n");

	svg_axes(&s, steps);
	if (lim->fast_window && lim->fast_window < s.top)
		svg_hline(&s, lim->fast_window, SVG_FAST, "1,3", "fast window");
	svg_hline(&s, plan->lower_bound, SVG_LB, "6,4", "lower bound");
	svg_hline(&s, plan->tensor_bytes, SVG_TENSOR, "2,3", "tensors");
	svg_hline(&s, plan->arena_bytes, "black", NULL, "arena");
	fprintf(fp, "</svg>\n");

	if (fp == stdout)
		return fflush(fp) ? -EIO : 0;
	if (fclose(fp)) {
		fprintf(stderr, "npactl: %s: %s\n", path, strerror(errno));
		return -EIO;
	}
	return 0;
}
