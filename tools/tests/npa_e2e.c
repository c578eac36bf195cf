// SPDX-License-Identifier: GPL-2.0
/*
 * End-to-end tests of /dev/npa0 from userspace, run inside QEMU by
 * tools/testing/e2e.sh.  Prints TAP lines; exits with the number of failures.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "libnpa.h"
#include "tap.h"

/* The query ioctl with the struct size userspace claims. */
#define QUERY_SIZED(sz) _IOC(_IOC_READ | _IOC_WRITE, NPA_IOCTL_BASE, 0x00, (sz))

static void test_query(int fd)
{
	struct npa_query q;
	int ret = npa_query(fd, &q);
	unsigned int spare = 0;
	int i;

	tap_ok(ret == 0, "query succeeds (ret %d)", ret);
	tap_ok(q.version_major == NPA_VERSION_MAJOR &&
	       q.version_minor == NPA_VERSION_MINOR,
	       "query reports version %u.%u.%u", q.version_major,
	       q.version_minor, q.version_patch);
	tap_ok(q.caps & NPA_CAP_PLAN, "query reports NPA_CAP_PLAN");
	tap_ok(!(q.caps & ~NPA_CAPS_ALL), "query reports no unknown caps");

	/* Output fields the caller filled in come back written over. */
	memset(&q, 0xa5, sizeof(q));
	q.flags = 0;
	memset(q.reserved, 0, sizeof(q.reserved));
	ret = npa_ioctl(fd, NPA_IOCTL_QUERY, &q);
	for (i = NPA_UNIT_COUNT; i < (int)(sizeof(q.unit_align) / 4); i++)
		spare |= q.unit_align[i];
	tap_ok(ret == 0 && !spare && q.version_major == NPA_VERSION_MAJOR,
	       "query writes every output field, the spare unit_align too (ret %d, %#x)",
	       ret, spare);
}

static void test_query_invalid(int fd)
{
	struct npa_query q;
	unsigned char big[sizeof(q) + 16];
	int ret;

	/* flags and reserved: npa_matrix's rows, KUnit's table. */
	ret = npa_ioctl(fd, NPA_IOCTL_QUERY, (void *)16);
	tap_ok(ret == -EFAULT, "query with a bad pointer fails with EFAULT (%d)", ret);

	ret = npa_ioctl(fd, _IOWR(NPA_IOCTL_BASE, 0x7f, struct npa_query), &q);
	tap_ok(ret == -ENOTTY, "unknown ioctl number fails with ENOTTY (%d)", ret);

	ret = npa_ioctl(fd, _IOR(NPA_IOCTL_BASE, 0x00, struct npa_query), &q);
	tap_ok(ret == -ENOTTY, "query with the wrong direction fails with ENOTTY (%d)", ret);

	/* Newer userspace: a longer struct whose unknown tail is not zero. */
	memset(big, 0, sizeof(big));
	big[sizeof(q) + 3] = 1;
	ret = npa_ioctl(fd, QUERY_SIZED(sizeof(big)), big);
	tap_ok(ret == -E2BIG, "longer struct with a non-zero tail fails with E2BIG (%d)", ret);
}

static void test_query_sizes(int fd)
{
	unsigned char big[sizeof(struct npa_query) + 16];
	struct npa_query *q = (struct npa_query *)big;
	uint32_t old[2] = { 0, 0xdeadbeef };
	int ret;

	/* Older userspace: only flags and version_major. */
	ret = npa_ioctl(fd, QUERY_SIZED(sizeof(old)), old);
	tap_ok(ret == 0 && old[1] == NPA_VERSION_MAJOR,
	       "8-byte query from older userspace works (ret %d, major %u)", ret, old[1]);

	/* Newer userspace: a longer struct with a zero tail is fine. */
	memset(big, 0, sizeof(big));
	ret = npa_ioctl(fd, QUERY_SIZED(sizeof(big)), big);
	tap_ok(ret == 0 && q->version_major == NPA_VERSION_MAJOR,
	       "longer query with a zero tail works (ret %d)", ret);
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : NPA_DEFAULT_PATH;
	int fd, fd2;

	fd = npa_open(path);
	tap_ok(fd >= 0, "open %s (%d)", path, fd);
	if (fd < 0)
		return 1;
	fd2 = npa_open(path);
	tap_ok(fd2 >= 0, "a second open of %s works (%d)", path, fd2);

	test_query(fd);
	test_query_invalid(fd);
	test_query_sizes(fd);
	if (fd2 >= 0)
		test_query(fd2);

	tap_ok(npa_close(fd) == 0, "close");
	if (fd2 >= 0)
		npa_close(fd2);
	return tap_failed;
}
