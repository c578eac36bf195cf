// SPDX-License-Identifier: GPL-2.0-only
/*
 * npactl: host-side tool for the npa driver. Subcommands live in their own
 * files; add one by writing npactl_cmd_<name>() and a line in cmds[].
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "npactl.h"
#include "graph.h"

static const struct npactl_cmd cmds[] = {
	{ "plan", npactl_cmd_plan, "plan tensor buffers into one arena (MiniMalloc CSV)" },
	{ "graph", npactl_cmd_graph, "show a model graph (.json or Darknet .cfg)" },
	{ "run", npactl_cmd_run, "run networks as jobs on the NPU (--verify)" },
	{ "info", npactl_cmd_info, "what /dev/npa0 reports" },
	{ "stats", npactl_cmd_stats, "job counters and carveout use" },
};

static void usage(FILE *fp)
{
	size_t i;

	fprintf(fp, "usage: npactl COMMAND [ARGS...]\n\ncommands:\n");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(fp, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(fp, "\n'npactl COMMAND --help' describes a command.\n");
}

/* A command's output that could not be written is a failure. */
static int check_stdout(int ret)
{
	errno = 0;
	if (ret == NPACTL_EXIT_OK && (fflush(stdout) || ferror(stdout))) {
		fprintf(stderr, "npactl: write error: %s\n",
			strerror(errno ? errno : EIO));
		return NPACTL_EXIT_FAIL;
	}
	return ret;
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return NPACTL_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return check_stdout(NPACTL_EXIT_OK);
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return check_stdout(cmds[i].run(argc - 1, argv + 1));
	fprintf(stderr, "npactl: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return NPACTL_EXIT_USAGE;
}
