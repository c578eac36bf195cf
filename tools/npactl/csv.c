// SPDX-License-Identifier: GPL-2.0-only
/*
 * MiniMalloc CSV: a header line "id,lower,upper,size" with an optional
 * fifth column "alignment", then one buffer a line. A buffer is live over
 * the half-open interval [lower, upper) of steps. Lines end in LF or CRLF.
 * Errors are reported as FILE:LINE: message on stderr.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <linux/limits.h>

#include "npactl.h"

#define CSV_MAX_FIELDS	16

bool npactl_parse_u64(const char *s, u64 *out)
{
	u64 v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (u64)(*s - '0'), &v))
			return false;
	}
	*out = v;
	return true;
}

static int csv_err(const char *path, unsigned long line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%lu: ", path, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EINVAL;
}

/* Split @s in place at commas; trims blanks around fields. */
static int csv_split(char *s, char **field, int max)
{
	int n = 0;

	for (;;) {
		char *end = strchr(s, ',');
		char *e;

		if (n == max)
			return max + 1;
		if (end)
			*end = '\0';
		while (isspace((unsigned char)*s))
			s++;
		e = s + strlen(s);
		while (e > s && isspace((unsigned char)e[-1]))
			*--e = '\0';
		field[n++] = s;
		if (!end)
			return n;
		s = end + 1;
	}
}

static int csv_grow(struct npactl_csv *csv, u32 *cap)
{
	u32 ncap = *cap ? *cap * 2 : 1024;
	void *b, *i;

	if (ncap > NPA_PLAN_MAX_BUFS)
		ncap = NPA_PLAN_MAX_BUFS;
	if (ncap <= *cap)
		return -E2BIG;
	b = realloc(csv->bufs, ncap * sizeof(*csv->bufs));
	if (!b)
		return -ENOMEM;
	csv->bufs = b;
	i = realloc(csv->ids, ncap * sizeof(*csv->ids));
	if (!i)
		return -ENOMEM;
	csv->ids = i;
	*cap = ncap;
	return 0;
}

static int csv_header(const char *path, unsigned long line, char **f, int nf,
		      struct npactl_csv *csv)
{
	static const char * const want[] = {
		"id", "lower", "upper", "size", "alignment",
	};
	int i;

	if (nf < 4 || nf > 5)
		return csv_err(path, line,
			       "header must be id,lower,upper,size[,alignment|,offset]");
	/* npactl plan --out writes a plan: offsets in the fifth column. */
	csv->has_offset = nf == 5 && !strcmp(f[4], "offset");
	for (i = 0; i < nf - csv->has_offset; i++)
		if (strcmp(f[i], want[i]))
			return csv_err(path, line,
				       "header column %d is '%s', expected '%s'",
				       i + 1, f[i], want[i]);
	csv->has_align = nf == 5 && !csv->has_offset;
	return 0;
}

static int csv_row(const char *path, unsigned long line, char **f, int nf,
		   struct npactl_csv *csv, struct npa_plan_buf *b)
{
	static const char * const name[] = {
		"id", "lower", "upper", "size", "alignment",
	};
	int want = csv->has_align || csv->has_offset ? 5 : 4;
	u64 v[5] = { 0 };
	int i;

	if (nf > CSV_MAX_FIELDS)
		return csv_err(path, line, "expected %d fields, found more than %d",
			       want, CSV_MAX_FIELDS);
	if (nf != want)
		return csv_err(path, line, "expected %d fields, found %d",
			       want, nf);
	if (!*f[0])
		return csv_err(path, line, "empty id");
	for (i = 1; i < nf; i++) {
		if (!npactl_parse_u64(f[i], &v[i]))
			return csv_err(path, line,
				       "%s '%s' is not an unsigned 64-bit number",
				       name[i], f[i]);
	}
	if (v[1] > U32_MAX || v[2] > U32_MAX)
		return csv_err(path, line, "lower/upper must fit in 32 bits");
	if (v[2] <= v[1])
		return csv_err(path, line,
			       "empty lifetime: upper (%llu) must be greater than lower (%llu); lifetimes are half-open [lower, upper)",
			       v[2], v[1]);
	if (!csv->has_offset && v[4] > 1 &&
	    ((v[4] & (v[4] - 1)) || v[4] > NPA_PLAN_MAX_ALIGN))
		return csv_err(path, line,
			       "alignment %llu is not a power of two up to %llu",
			       v[4], (u64)NPA_PLAN_MAX_ALIGN);
	memset(b, 0, sizeof(*b));
	b->lo = v[1];
	b->hi = v[2];
	b->size = v[3];
	if (csv->has_offset)
		b->offset = v[4];
	else
		b->align = v[4];
	return 0;
}

int npactl_csv_read(const char *path, struct npactl_csv *csv)
{
	char *line = NULL, *f[CSV_MAX_FIELDS + 1];
	unsigned long lineno = 0;
	size_t len = 0;
	bool header = false;
	u32 cap = 0;
	int ret = 0, nf, err;
	ssize_t n;
	FILE *fp;

	memset(csv, 0, sizeof(*csv));
	fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!fp) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -errno;
	}
	while ((n = getline(&line, &len, fp)) >= 0) {
		char *s = line;

		lineno++;
		if (memchr(s, '\0', n)) {
			ret = csv_err(path, lineno, "NUL byte in the line");
			break;
		}
		/* Lines end in LF or CRLF; a CR anywhere else is refused. */
		if (n && s[n - 1] == '\n')
			s[--n] = '\0';
		if (n && s[n - 1] == '\r')
			s[--n] = '\0';
		if (memchr(s, '\r', n)) {
			ret = csv_err(path, lineno,
				      "carriage return inside the line (lines must end in LF or CRLF)");
			break;
		}
		while (isspace((unsigned char)*s))
			s++;
		if (!*s || *s == '#')
			continue;
		nf = csv_split(s, f, CSV_MAX_FIELDS);
		if (!header) {
			ret = csv_header(path, lineno, f, nf, csv);
			if (ret)
				break;
			header = true;
			continue;
		}
		if (csv->n == cap) {
			ret = csv_grow(csv, &cap);
			if (ret == -E2BIG)
				csv_err(path, lineno, "too many buffers (max %u)",
					NPA_PLAN_MAX_BUFS);
			else if (ret)
				csv_err(path, lineno, "%s", strerror(-ret));
			if (ret)
				break;
		}
		ret = csv_row(path, lineno, f, nf, csv, &csv->bufs[csv->n]);
		if (ret)
			break;
		csv->ids[csv->n] = strdup(f[0]);
		if (!csv->ids[csv->n]) {
			csv_err(path, lineno, "%s", strerror(ENOMEM));
			ret = -ENOMEM;
			break;
		}
		csv->n++;
	}
	err = errno;
	if (!ret && ferror(fp))
		ret = csv_err(path, lineno + 1, "read error: %s",
			      strerror(err ? err : EIO));
	if (!ret && !header)
		ret = csv_err(path, lineno ? lineno : 1,
			      "empty file: expected header id,lower,upper,size");
	free(line);
	if (fp != stdin)
		fclose(fp);
	if (ret)
		npactl_csv_free(csv);
	return ret;
}

int npactl_csv_write(const char *path, const struct npactl_csv *csv)
{
	FILE *fp = strcmp(path, "-") ? fopen(path, "w") : stdout;
	u32 i;

	if (!fp) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -errno;
	}
	fprintf(fp, "id,lower,upper,size,offset\n");
	for (i = 0; i < csv->n; i++) {
		const struct npa_plan_buf *b = &csv->bufs[i];

		fprintf(fp, "%s,%u,%u,%llu,%llu\n", csv->ids[i], b->lo, b->hi,
			b->size, b->offset);
	}
	if (fp == stdout)
		return fflush(fp) ? -EIO : 0;
	if (fclose(fp)) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -EIO;
	}
	return 0;
}

void npactl_csv_free(struct npactl_csv *csv)
{
	u32 i;

	for (i = 0; i < csv->n; i++)
		free(csv->ids[i]);
	free(csv->ids);
	free(csv->bufs);
	memset(csv, 0, sizeof(*csv));
}
