// SPDX-License-Identifier: GPL-2.0-only
/*
 * DOC: SVG layout drawing
 *
 * `npactl plan --svg FILE` draws a planned graph: op steps run left to
 * right, arena addresses bottom to top.  Each arena tensor is a box over
 * its lifetime and address range (tensors that share memory overlap on
 * purpose), each scratch buffer a box over its operator's step; the lower
 * bound, the tensors' arena top and the fast window are horizontal lines.
 * It reads as a static picture: boxes wide and tall enough carry their
 * tensor's name, address ticks are round (powers of two), steps are
 * labelled with their operator, a legend says what the colours mean, and
 * scratch boxes keep a minimum height.  Hovering a box shows its details.
 * Plain SVG 1.1 text, no scripts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "npactl.h"
#include "graph.h"

#define SVG_W		1200.0
#define SVG_H		720.0
#define SVG_LEFT	90.0	/* room for the address labels */
#define SVG_RIGHT	170.0	/* room for the line labels */
#define SVG_TOP		74.0	/* title and legend */
#define SVG_BOTTOM	130.0	/* step numbers and operator names */
#define SVG_MIN_BOX	2.5	/* least height of a scratch box, pixels */
#define SVG_CHAR_W	6.2	/* width of a character at font-size 11 */
#define SVG_OP_ROOM	13.0	/* pixels between two operator labels */
#define SVG_OP_CHARS	18	/* longest operator name drawn (else its kind) */

#define SVG_TENSOR	"#4e79a7"
#define SVG_SCRATCH	"#f28e2b"
#define SVG_FAST	"#e15759"
#define SVG_LB		"#59a14f"

/* A name already drawn: [x0, x1) x [y0, y1), to draw none over it. */
struct svg_label {
	double x0, x1, y0, y1;
};

struct svg {
	FILE *fp;
	const struct npactl_graph *g;
	struct svg_label *labels;	/* names drawn in boxes so far */
	u32 num_labels;
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

/*
 * Byte counts: whole GiB, MiB or KiB when @v is a multiple of one (the
 * axis ticks always are), else B, KiB, MiB or GiB with one decimal.
 */
static void svg_bytes(char *buf, size_t n, u64 v)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB" };
	int u = 3;

	while (u && (v < 1ULL << (10 * u)))
		u--;
	if (!(v & ((1ULL << (10 * u)) - 1)))
		snprintf(buf, n, "%llu %s", v >> (10 * u), unit[u]);
	else
		snprintf(buf, n, "%.1f %s", (double)v / (1ULL << (10 * u)),
			 unit[u]);
}

/* The least power of two that cuts [0, @top] into at most @max steps. */
static u64 svg_round_step(u64 top, u64 max)
{
	u64 step = 1;

	while (step < (1ULL << 62) && top / step > max)
		step <<= 1;
	return step;
}

/* A box; @min_h pixels at least, growing upwards from its offset. */
static void svg_box(const struct svg *s, const struct npa_ir_place *p,
		    const char *fill, const char *name, double min_h)
{
	double x0 = svg_x(s, p->lo), x1 = svg_x(s, p->hi);
	double y0 = svg_y(s, p->offset + p->size), y1 = svg_y(s, p->offset);

	if (y1 - y0 < min_h)
		y0 = y1 - min_h;
	fprintf(s->fp,
		"<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"><title>",
		x0, y0, x1 - x0, y1 - y0, fill);
	svg_text_escaped(s->fp, name);
	fprintf(s->fp, ": offset %llu, %llu bytes, steps [%u, %u)</title></rect>\n",
		p->offset, p->size, p->lo, p->hi);
}

/*
 * @name inside the box of @p when it fits there and does not cover a name
 * drawn before (tensors that share memory have overlapping boxes).
 */
static void svg_box_label(struct svg *s, const struct npa_ir_place *p,
			  const char *name)
{
	double x0 = svg_x(s, p->lo), x1 = svg_x(s, p->hi);
	double y0 = svg_y(s, p->offset + p->size), y1 = svg_y(s, p->offset);
	struct svg_label l;
	u32 i;

	if (!s->labels || y1 - y0 < 13 ||
	    x1 - x0 < strlen(name) * SVG_CHAR_W + 6)
		return;
	l.x0 = x0 + 3;
	l.x1 = l.x0 + strlen(name) * SVG_CHAR_W;
	l.y1 = (y0 + y1) / 2 + 4;
	l.y0 = l.y1 - 11;
	for (i = 0; i < s->num_labels; i++)
		if (l.x0 < s->labels[i].x1 && s->labels[i].x0 < l.x1 &&
		    l.y0 < s->labels[i].y1 && s->labels[i].y0 < l.y1)
			return;
	s->labels[s->num_labels++] = l;
	fprintf(s->fp, "<text x=\"%.2f\" y=\"%.2f\">", l.x0, l.y1);
	svg_text_escaped(s->fp, name);
	fputs("</text>\n", s->fp);
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

/*
 * Axes: round address ticks (a power of two of bytes apart), one step
 * number per tick without repeats, and the operators' names under their
 * steps (every k-th when they are too close for all).
 */
static void svg_axes(const struct svg *s, u32 steps)
{
	u64 a, astep = svg_round_step(s->top, 8);
	u32 t, tstep = 1, every = 1;
	char b[32];

	fprintf(s->fp,
		"<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"black\"/>\n"
		"<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"black\"/>\n",
		SVG_LEFT, svg_y(s, 0), SVG_W - SVG_RIGHT, svg_y(s, 0),
		SVG_LEFT, svg_y(s, 0), SVG_LEFT, SVG_TOP);
	for (a = 0; a <= s->top; a += astep) {
		svg_bytes(b, sizeof(b), a);
		fprintf(s->fp,
			"<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"black\"/>\n"
			"<text class=\"addr\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">%s</text>\n",
			SVG_LEFT - 4, svg_y(s, a), SVG_LEFT, svg_y(s, a),
			SVG_LEFT - 6, svg_y(s, a) + 4, b);
		if (a > U64_MAX - astep)
			break;
	}
	/* Step numbers: 1, 2, 5, 10, 20, 50... apart, at most ~10. */
	while (steps / tstep > 10)
		tstep = tstep % 10 == 1 ? tstep * 2 :
			tstep % 10 == 2 ? tstep / 2 * 5 : tstep * 2;
	for (t = 0; t <= steps; t += tstep)
		fprintf(s->fp,
			"<text class=\"step\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%u</text>\n",
			svg_x(s, t), svg_y(s, 0) + 15, t);
	while (every * s->xs < SVG_OP_ROOM)
		every++;
	for (t = 0; t < s->g->num_ops && t < steps; t += every) {
		const struct npa_op_desc *op = &s->g->ops[t];
		double x = svg_x(s, t) + s->xs / 2 + 4, y = svg_y(s, 0) + 22;

		const char *name = s->g->op_names[t];

		/* The operator's name, or its kind when the name is long. */
		if (!name || !name[0] || strlen(name) > SVG_OP_CHARS)
			name = op->kind < NPA_OP_KIND_COUNT ?
			       npactl_op_kind_names[op->kind] : "?";
		fprintf(s->fp,
			"<text class=\"op\" font-size=\"10\" transform=\"translate(%.2f %.2f) rotate(-60)\" text-anchor=\"end\">",
			x, y);
		svg_text_escaped(s->fp, name);
		fputs("</text>\n", s->fp);
	}
	fprintf(s->fp,
		"<text x=\"%.2f\" y=\"%.2f\">op step</text>\n",
		SVG_W - SVG_RIGHT + 6, svg_y(s, 0) + 15);
	if (every > 1)
		fprintf(s->fp,
			"<text x=\"%.2f\" y=\"%.2f\" font-size=\"10\">(every %u%s operator named)</text>\n",
			SVG_W - SVG_RIGHT + 6, svg_y(s, 0) + 29, every,
			every == 2 ? "nd" : every == 3 ? "rd" : "th");
	fprintf(s->fp,
		"<text transform=\"translate(14 %.2f) rotate(-90)\" text-anchor=\"middle\">arena address</text>\n",
		(SVG_TOP + SVG_H - SVG_BOTTOM) / 2);
}

/* What the colours and shades mean. */
static void svg_legend(const struct svg *s, bool fast)
{
	fprintf(s->fp,
		"<g font-size=\"11\">\n"
		"<rect x=\"%.2f\" y=\"32\" width=\"12\" height=\"10\" fill=\"%s\" fill-opacity=\"0.55\"/>"
		"<text x=\"%.2f\" y=\"41\">tensor (darker where tensors share memory: in place, concat, split)</text>\n"
		"<rect x=\"%.2f\" y=\"48\" width=\"12\" height=\"10\" fill=\"%s\" fill-opacity=\"0.8\"/>"
		"<text x=\"%.2f\" y=\"57\">operator scratch, in the gaps</text>\n",
		SVG_LEFT, SVG_TENSOR, SVG_LEFT + 16, SVG_LEFT, SVG_SCRATCH,
		SVG_LEFT + 16);
	fprintf(s->fp,
		"<rect x=\"%.2f\" y=\"48\" width=\"12\" height=\"10\" fill=\"%s\" fill-opacity=\"0.8\"/>"
		"<text x=\"%.2f\" y=\"57\">scratch in the fast window</text>\n",
		SVG_LEFT + 230, SVG_FAST, SVG_LEFT + 246);
	if (fast)
		fprintf(s->fp,
			"<rect x=\"%.2f\" y=\"48\" width=\"12\" height=\"10\" fill=\"%s\" fill-opacity=\"0.15\"/>"
			"<text x=\"%.2f\" y=\"57\">pink band: the fast window (on-chip SRAM at the start of the arena)</text>\n",
			SVG_LEFT + 420, SVG_FAST, SVG_LEFT + 436);
	fputs("</g>\n", s->fp);
}

int npactl_svg_write(const char *path, const char *input,
		     const struct npactl_graph *g,
		     const struct npa_layout *plan,
		     const struct npa_graph_limits *lim)
{
	FILE *fp = strcmp(path, "-") ? fopen(path, "w") : stdout;
	struct svg s = { .fp = fp, .g = g, .label_y = SVG_H };
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
	fprintf(fp, ": %u ops, %u tensors in %u buffers, %llu bytes of scratch granted</text>\n",
		g->num_ops, g->num_tensors, plan->num_buffers,
		plan->scratch_requested);
	svg_legend(&s, lim->fast_window);

	if (lim->fast_window)
		fprintf(fp,
			"<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" fill-opacity=\"0.15\"/>\n",
			SVG_LEFT, svg_y(&s, min(lim->fast_window, s.top)),
			SVG_W - SVG_LEFT - SVG_RIGHT,
			svg_y(&s, 0) - svg_y(&s, min(lim->fast_window, s.top)),
			SVG_FAST);

	fprintf(fp, "<g fill-opacity=\"0.55\" stroke=\"%s\" stroke-width=\"0.3\">\n",
		SVG_TENSOR);
	for (i = 0; i < g->num_tensors; i++)
		if ((plan->tensors[i].flags & NPA_IR_ARENA) &&
		    plan->tensors[i].size)
			svg_box(&s, &plan->tensors[i], SVG_TENSOR,
				g->tensor_names[i], 0.3);
	fprintf(fp, "</g>\n<g fill-opacity=\"0.8\">\n");
	for (i = 0; i < g->num_scratch; i++) {
		const struct npa_ir_place *p = &plan->scratch[i];

		if (!p->size)
			continue;
		snprintf(name, sizeof(name), "scratch %u of op %u", i, p->lo);
		svg_box(&s, p, p->flags & NPA_IR_FAST ? SVG_FAST :
			SVG_SCRATCH, name, SVG_MIN_BOX);
	}
	s.labels = calloc(g->num_tensors + 1, sizeof(*s.labels));
	fprintf(fp, "</g>\n<g class=\"names\" font-size=\"11\" fill=\"white\">\n");
	for (i = 0; i < g->num_tensors; i++)
		if ((plan->tensors[i].flags & NPA_IR_ARENA) &&
		    plan->tensors[i].size && g->tensor_names[i])
			svg_box_label(&s, &plan->tensors[i], g->tensor_names[i]);
	fprintf(fp, "</g>\n");
	free(s.labels);

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
