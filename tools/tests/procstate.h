/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Process state the QEMU tests compare before and after a failed call:
 * open fds and the lines of a /proc or debugfs file.
 */
#ifndef NPA_PROCSTATE_H
#define NPA_PROCSTATE_H

#include <dirent.h>
#include <stdio.h>

/* Lines in @path (a mapping count for /proc/self/maps), -1 if unreadable. */
static inline int count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	int n = 0, c;

	if (!f)
		return -1;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/* Open fds of this process (plus the entries . and ..). */
static inline int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

#endif
