/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * libnpa: thin C wrapper over the npa ioctls.
 *
 * Every function returns 0 (or a non-negative value) on success and a
 * negative errno on failure; errno itself is left as the kernel set it.
 */
#ifndef LIBNPA_H
#define LIBNPA_H

#include <linux/npa.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NPA_DEFAULT_PATH	"/dev/" NPA_DEVICE_NAME

/* Open the device (NULL means NPA_DEFAULT_PATH); returns an fd or -errno. */
int npa_open(const char *path);
int npa_close(int fd);

/* NPA_IOCTL_QUERY.  @q is cleared first. */
int npa_query(int fd, struct npa_query *q);

/* Raw ioctl with -errno return, for commands libnpa does not wrap. */
int npa_ioctl(int fd, unsigned long cmd, void *arg);

#ifdef __cplusplus
}
#endif

#endif /* LIBNPA_H */
