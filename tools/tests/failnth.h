/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection from the QEMU tests: debugfs knobs and the per-thread
 * fail-nth file (Documentation/fault-injection/fault-injection.rst).
 */
#ifndef NPA_FAILNTH_H
#define NPA_FAILNTH_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Write @val to the debugfs knob @path; complain if that fails. */
static inline void knob(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		perror(path);
	if (fd >= 0)
		close(fd);
}

/* Fail the @n-th fault injection site this thread reaches from now. */
static inline void fail_nth_arm(int nth_fd, int n)
{
	char b[16];
	int l = snprintf(b, sizeof(b), "%d", n);

	if (pwrite(nth_fd, b, l, 0) != l)
		perror("fail-nth");
}

/*
 * Disarm; return how many sites were still to go, 0 if the armed one was
 * reached (and failed), 1 if fail-nth cannot be read.  Reading and
 * writing fail-nth copy to and from user memory, so they count too: with
 * 1 left, the read is the failure, and with 2 the write that disarms.
 */
static inline int fail_nth_left(int nth_fd)
{
	char b[16] = "";
	int left;

	if (pread(nth_fd, b, sizeof(b) - 1, 0) < 0)
		return 1;
	left = atoi(b);
	/* Its own copy may be the last site; disarmed either way. */
	if (left && pwrite(nth_fd, "0", 1, 0) < 0 && errno != EFAULT)
		perror("fail-nth");
	return left;
}

#endif
