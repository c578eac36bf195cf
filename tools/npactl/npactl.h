/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npactl: host-side tool for npa. One file per subcommand; main.c holds the
 * table that dispatches to them.
 */
#ifndef _NPACTL_H_
#define _NPACTL_H_

#include <stdio.h>
#include <linux/types.h>

#include "npa_plan.h"

/* A subcommand: argv[0] is its name; returns the process exit status. */
struct npactl_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

/* Exit statuses shared by all subcommands. */
#define NPACTL_EXIT_OK		0
#define NPACTL_EXIT_FAIL	1	/* bad input, plan failed */
#define NPACTL_EXIT_USAGE	2	/* bad command line */

int npactl_cmd_plan(int argc, char **argv);
int npactl_cmd_run(int argc, char **argv);
int npactl_cmd_info(int argc, char **argv);
int npactl_cmd_stats(int argc, char **argv);

/* Buffers read from a MiniMalloc CSV file (csv.c). */
struct npactl_csv {
	struct npa_plan_buf *bufs;
	char **ids;		/* the id column, as written */
	u32 n;
	bool has_align;		/* the file had an alignment column */
	bool has_offset;	/* ...or an offset column: a plan */
};

int npactl_csv_read(const char *path, struct npactl_csv *csv);
int npactl_csv_write(const char *path, const struct npactl_csv *csv);
void npactl_csv_free(struct npactl_csv *csv);

/* Parse a decimal u64 ("123"); false on junk or overflow. */
bool npactl_parse_u64(const char *s, u64 *out);

#endif /* _NPACTL_H_ */
