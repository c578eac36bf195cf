// SPDX-License-Identifier: GPL-2.0
/* Print what /dev/npa0 reports through NPA_IOCTL_QUERY. */
#include <stdio.h>
#include <string.h>

#include "libnpa.h"

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : NPA_DEFAULT_PATH;
	struct npa_query q;
	int fd, ret;

	fd = npa_open(path);
	if (fd < 0) {
		fprintf(stderr, "npa-query: %s: %s\n", path, strerror(-fd));
		return 1;
	}
	ret = npa_query(fd, &q);
	if (ret) {
		fprintf(stderr, "npa-query: NPA_IOCTL_QUERY: %s\n", strerror(-ret));
		return 1;
	}
	printf("device          %s\n", path);
	printf("driver version  %u.%u.%u\n", q.version_major, q.version_minor,
	       q.version_patch);
	printf("capabilities    0x%llx%s\n", (unsigned long long)q.caps,
	       q.caps & NPA_CAP_PLAN ? " (plan)" : "");
	printf("carveout        %llu bytes\n", (unsigned long long)q.carveout_bytes);
	npa_close(fd);
	return 0;
}
