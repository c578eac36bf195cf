/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Process state the QEMU tests compare before and after a failed call:
 * open fds, a file's npa lines in fdinfo and the lines of a /proc or
 * debugfs file.
 */
#ifndef NPA_PROCSTATE_H
#define NPA_PROCSTATE_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/*
 * Append to @out (a string in @size > 0 bytes) the lines of @path that start
 * with @prefix, or all of them for a NULL @prefix; nothing if unreadable.
 */
static inline void read_lines(const char *path, const char *prefix,
			      char *out, size_t size)
{
	char line[256];
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f)) {
		size_t len = strlen(out), n = strlen(line);

		if (prefix && strncmp(line, prefix, strlen(prefix)))
			continue;
		/* Cut to what fits: the snapshots are only compared. */
		if (n > size - len - 1)
			n = size - len - 1;
		memcpy(out + len, line, n);
		out[len + n] = '\0';
	}
	if (f)
		fclose(f);
}

/* Append the fdinfo lines of this process's @fd that start with @prefix. */
static inline void read_fdinfo(int fd, const char *prefix, char *out,
			       size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	read_lines(path, prefix, out, size);
}

/*
 * Read the rest of @fd (a debugfs file read in steps) after @len bytes
 * already in @text, which holds @size; NUL-terminate it and close @fd
 * (-1: nothing to read).  Returns the length.
 */
static inline size_t read_rest(int fd, char *text, size_t len, size_t size)
{
	ssize_t n;

	while (fd >= 0 && (n = read(fd, text + len, size - 1 - len)) > 0)
		len += n;
	text[len] = 0;
	if (fd >= 0)
		close(fd);
	return len;
}

#endif
