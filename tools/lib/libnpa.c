// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * libnpa: thin C wrapper over the npa ioctls.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "libnpa.h"

int npa_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, cmd, arg);
	} while (ret == -1 && (errno == EINTR || errno == EAGAIN));
	return ret == -1 ? -errno : ret;
}

int npa_open(const char *path)
{
	int fd = open(path ? path : NPA_DEFAULT_PATH, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int npa_close(int fd)
{
	return close(fd) ? -errno : 0;
}

int npa_query(int fd, struct npa_query *q)
{
	memset(q, 0, sizeof(*q));
	return npa_ioctl(fd, NPA_IOCTL_QUERY, q);
}
