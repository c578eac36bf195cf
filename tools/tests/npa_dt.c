// SPDX-License-Identifier: GPL-2.0
/*
 * The device-tree test: /init of an arm64 guest booted with a DTB that has a
 * reserved-memory carveout (shared-dma-pool, no-map or reusable) and an
 * "npa,sim-npu" node that points at it (tools/testing/npa-dt*.dtsi).  It loads npa.ko,
 * checks that the driver bound the device tree's NPU (and made no NPU of its
 * own), that the carveout is exactly the reserved region, that dma-bufs
 * mmap through the DMA API and that a job runs (with npa-dt.dtsi also on a
 * second NPU, /dev/npa1, and a third behind the IOMMU, /dev/npa2, reading
 * a udmabuf), then unloads and reloads.
 * TAP lines out, kmemleak at the end, "NPA-RESULT: <failures>" last, then
 * reboot (QEMU runs with -no-reboot).
 *
 * Static and self-contained (no busybox for arm64 here): libnpa is compiled
 * in.  usage: the kernel runs it as /init; npa.ko is /npa/npa.ko.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/udmabuf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tap.h"
#include "testgraph.h"

#define CARVEOUT_BYTES	(32u << 20)	/* reg size in npa-dt.dtsi */
#define DT_NPU		"/proc/device-tree/npu"
#define DT_POOL		"/proc/device-tree/reserved-memory/npa-carveout@50000000"
/* npa-dt.dtsi only: a second NPU with a 16 MiB carveout of its own. */
#define DT_NPU_B	"/proc/device-tree/npu-b"
#define CARVEOUT_B_BYTES	(16u << 20)
/* npa-dt.dtsi only: a third NPU behind the SMMU, with a 2 MiB carveout. */
#define DT_NPU_C	"/proc/device-tree/npu-c"
#define CARVEOUT_C_BYTES	(2u << 20)

/* "[no-map] " or "[reusable] ": which kind of pool this boot has. */
static const char *pool = "";
#define T(cond, fmt, ...) tap_ok(cond, "%s" fmt, pool, ##__VA_ARGS__)

static int read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return (int)n;
}

static int write_file(const char *path, const char *s)
{
	int fd, ok;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

static int load(void)
{
	int fd, ret;

	fd = open("/npa/npa.ko", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0);
	close(fd);
	return ret ? -errno : 0;
}

/*
 * rmmod npa.  The last reference to a closed fd can be dropped a moment
 * after close() returns (a job's completion work holds its file until it
 * has run), so a busy module is retried for up to 5 s; one that stays busy
 * holds a reference that nobody gives back, and fails.
 */
static int unload(void)
{
	int i;

	for (i = 0; i < 500; i++) {
		if (!syscall(SYS_delete_module, "npa", O_NONBLOCK))
			return 0;
		if (errno != EAGAIN && errno != EBUSY)
			break;
		usleep(10000);
	}
	printf("# rmmod npa: %s\n", strerror(errno));
	return -errno;
}

/* devtmpfs creates the node from a kernel thread: give it a moment. */
static int wait_node(const char *path, int present)
{
	int i;

	for (i = 0; i < 100; i++) {
		if ((access(path, F_OK) == 0) == present)
			return 1;
		usleep(10000);
	}
	return 0;
}

static int klog_has(const char *needle)
{
	static char log[1 << 20];
	int n;

	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, sizeof(log) - 1);
	if (n < 0)
		return 0;
	log[n] = 0;
	return strstr(log, needle) != NULL;
}

static void test_binding(void)
{
	char buf[4096];

	T(read_file(DT_NPU "/compatible", buf, sizeof(buf)) > 0 &&
	       !strcmp(buf, "npa,sim-npu"), "the DTB has an npa,sim-npu node");
	T(load() == 0, "insmod npa.ko");
	T(wait_node("/dev/npa0", 1), "/dev/npa0 appears");
	T(access("/sys/bus/platform/drivers/npa-sim/npu", F_OK) == 0,
	       "the driver bound the device tree's NPU (platform device \"npu\")");
	T(access("/sys/bus/platform/devices/npa-sim", F_OK) != 0,
	       "the module made no NPU device of its own");
	T(access("/sys/bus/platform/devices/npu/of_node", F_OK) == 0,
	       "the bound device has a device tree node");
	T(klog_has("(reserved-memory)"),
	       "the carveout came from the reserved-memory node");
	T(read_file("/sys/kernel/debug/npa0/carveout", buf, sizeof(buf)) > 0 &&
	       !strncmp(buf, "carveout 33554432 bytes", 23),
	       "the carveout is the whole 32 MiB reserved region");
}

static void test_mmap(int fd)
{
	unsigned char *p, *q;
	int b, i, bad = 0;

	b = npa_buffer_create(fd, 3 * 4096);
	T(b >= 0, "buffer create in the reserved carveout (%d)", b);
	if (b < 0)
		return;
	p = npa_buffer_map(b, 3 * 4096);
	T(p != NULL, "mmap through dma_mmap_coherent()");
	if (!p) {
		close(b);
		return;
	}
	for (i = 0; i < 3 * 4096; i++)
		bad += p[i] != 0;
	T(!bad, "the buffer is zeroed");
	npa_buffer_sync(b, 1);
	for (i = 0; i < 3 * 4096; i++)
		p[i] = (unsigned char)(i * 7 + 3);
	npa_buffer_sync(b, 0);
	q = mmap(NULL, 4096, PROT_READ, MAP_SHARED, b, 2 * 4096);
	T(q != MAP_FAILED, "mmap the third page alone");
	if (q != MAP_FAILED) {
		for (i = 0, bad = 0; i < 4096; i++)
			bad += q[i] != (unsigned char)((2 * 4096 + i) * 7 + 3);
		T(!bad, "an offset mapping sees the same bytes (%d differ)", bad);
		munmap(q, 4096);
	}
	q = mmap(NULL, 2 * 4096, PROT_READ, MAP_SHARED, b, 2 * 4096);
	T(q == MAP_FAILED, "a mapping past the buffer's end fails");
	npa_buffer_unmap(p, 3 * 4096);
	close(b);
}

static void test_job(int fd)
{
	struct npa_job_wait w;
	struct npa_binding bind[2];
	int8_t *x, *y;
	int model, in, out, job, i, bad = 0, ret;

	graph_init_opts(true, true);
	model = npa_model_create(fd, &graph, 0, 0, NULL);
	T(model > 0, "model create (%d)", model);
	in = npa_buffer_create(fd, N);
	out = npa_buffer_create(fd, N);
	x = npa_buffer_map(in, 4096);
	y = npa_buffer_map(out, 4096);
	T(model > 0 && x && y, "input and output buffers mapped");
	if (model <= 0 || !x || !y)
		return;
	for (i = 0; i < N; i++)
		x[i] = (int8_t)(i * 37 - 100);
	bind[0] = (struct npa_binding){ .fd = in };
	bind[1] = (struct npa_binding){ .fd = out };
	job = npa_job_submit(fd, model, bind, 2, 0, NULL);
	T(job >= 0, "job submit (%d)", job);
	if (job >= 0) {
		ret = npa_job_wait(fd, job, npa_now_ns() + 30000000000LL, &w);
		T(ret == 0 && w.status == NPA_JOB_DONE,
		       "the job ran on the device tree's NPU (%d, %s)", ret,
		       npa_job_status_name(w.status));
		for (i = 0; i < N; i++)
			bad += y[i] != graph_expect(x[i]);
		T(!bad, "its output is right (%d bytes differ)", bad);
		close(job);
	}
	npa_buffer_unmap(x, 4096);
	npa_buffer_unmap(y, 4096);
	close(in);
	close(out);
	T(npa_model_destroy(fd, model) == 0, "model destroy");
}

/*
 * Each NPU of the device tree is an npa device of its own: the second is
 * /dev/npa1 (the misc device under its platform device), with its own
 * carveout, and runs jobs.
 */
static void test_second_npu(void)
{
	struct npa_query q;
	char buf[4096];
	int fd;

	T(access("/sys/bus/platform/drivers/npa-sim/npu-b", F_OK) == 0,
	  "the driver bound the second NPU too (platform device \"npu-b\")");
	T(access("/sys/bus/platform/devices/npu/misc/npa0", F_OK) == 0 &&
	  access("/sys/bus/platform/devices/npu-b/misc/npa1", F_OK) == 0,
	  "npu is /dev/npa0, npu-b is /dev/npa1");
	T(wait_node("/dev/npa1", 1), "/dev/npa1 appears");
	T(read_file("/sys/kernel/debug/npa1/carveout", buf, sizeof(buf)) > 0 &&
	  !strncmp(buf, "carveout 16777216 bytes", 23),
	  "npa1's carveout is its own 16 MiB region");
	fd = npa_open("/dev/npa1");
	T(fd >= 0, "open /dev/npa1 (%d)", fd);
	if (fd < 0)
		return;
	T(npa_query(fd, &q) == 0 && q.carveout_bytes == CARVEOUT_B_BYTES,
	  "QUERY on npa1 reports its 16 MiB carveout");
	test_job(fd);
	close(fd);
}

/* A udmabuf of one page (no vmap in 6.1), mapped at *@p; -1 if none. */
static int udmabuf_page(int8_t **p)
{
	int memfd = memfd_create("npa-dt", MFD_ALLOW_SEALING), dev, buf = -1;
	struct udmabuf_create c = { .size = 4096 };

	dev = open("/dev/udmabuf", O_RDWR);
	if (memfd >= 0 && dev >= 0 && !ftruncate(memfd, 4096) &&
	    fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK) >= 0) {
		c.memfd = memfd;
		buf = ioctl(dev, UDMABUF_CREATE, &c);
		*p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
		if (*p == MAP_FAILED) {
			close(buf);
			buf = -1;
		}
	}
	if (dev >= 0)
		close(dev);
	if (memfd >= 0)
		close(memfd);
	return buf;
}

/*
 * An NPU behind an IOMMU, with a reserved pool under 4 MiB: the pool is
 * its carveout, whole, and a job reads a foreign dma-buf without a vmap
 * through the bus addresses the IOMMU translates, not as physical ones.
 */
static void test_iommu_npu(void)
{
	struct npa_binding bind[2];
	struct npa_job_wait w;
	int fd, model, in, out, job, i, bad = 0, ret;
	char buf[4096];
	int8_t *x = NULL, *y;

	T(access("/sys/bus/platform/devices/npu-c/iommu_group", F_OK) == 0,
	  "npu-c is behind the SMMU (it has an IOMMU group)");
	T(access("/sys/bus/platform/devices/npu-c/misc/npa2", F_OK) == 0 &&
	  wait_node("/dev/npa2", 1),
	  "the driver bound npu-c, a 2 MiB pool: /dev/npa2");
	T(read_file("/sys/kernel/debug/npa2/carveout", buf, sizeof(buf)) > 0 &&
	  !strncmp(buf, "carveout 2097152 bytes", 22),
	  "npa2's carveout is its whole 2 MiB region");
	fd = npa_open("/dev/npa2");
	if (fd < 0) {
		T(0, "open /dev/npa2 (%d)", fd);
		return;
	}
	graph_init_opts(true, true);
	model = npa_model_create(fd, &graph, 0, 0, NULL);
	in = udmabuf_page(&x);
	out = npa_buffer_create(fd, N);
	y = out < 0 ? NULL : npa_buffer_map(out, 4096);
	T(model > 0 && in >= 0 && y, "behind the IOMMU: a model, a udmabuf input, an output (%d, %d, %d)",
	  model, in, out);
	if (model > 0 && in >= 0 && y) {
		for (i = 0; i < N; i++)
			x[i] = (int8_t)(i * 29 - 77);
		bind[0] = (struct npa_binding){ .fd = in };
		bind[1] = (struct npa_binding){ .fd = out };
		memset(&w, 0, sizeof(w));
		job = npa_job_submit(fd, model, bind, 2, 0, NULL);
		ret = job < 0 ? job : npa_job_wait(fd, job, npa_now_ns() + 30000000000LL, &w);
		for (i = 0; i < N && !ret; i++)
			bad += y[i] != graph_expect(x[i]);
		T(ret == 0 && w.status == NPA_JOB_DONE && !bad,
		  "behind the IOMMU, a job reads a udmabuf through its I/O addresses (%d, %s, %d bytes differ)",
		  ret, npa_job_status_name(w.status), bad);
		if (job >= 0)
			close(job);
	}
	if (y)
		npa_buffer_unmap(y, 4096);
	if (x)
		munmap(x, 4096);
	if (out >= 0)
		close(out);
	if (in >= 0)
		close(in);
	close(fd);
}

static void kmemleak(void)
{
	static char buf[1 << 16];
	const char *leak = "/sys/kernel/debug/kmemleak";
	int n;

	if (access(leak, W_OK))
		return;
	sleep(6);	/* kmemleak reports objects older than 5 s */
	/*
	 * ... and only those a scan finds unreferenced with the contents
	 * the scan before saw: an object's first scan only records them.
	 */
	write_file(leak, "scan");
	write_file(leak, "scan");
	n = read_file(leak, buf, sizeof(buf));
	printf("NPA-KMEMLEAK-BEGIN\n%s\nNPA-KMEMLEAK-END\n", n > 0 ? buf : "");
}

int main(void)
{
	char buf[256];
	int fd;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	write_file("/sys/kernel/debug/kmemleak", "clear");
	read_file("/proc/sys/kernel/osrelease", buf, sizeof(buf));
	printf("NPA-GUEST-BEGIN %s", buf);
	pool = access(DT_POOL "/reusable", F_OK) ? "[no-map] " : "[reusable] ";
	fflush(stdout);

	test_binding();
	fd = npa_open("/dev/npa0");
	T(fd >= 0, "open /dev/npa0 (%d)", fd);
	if (fd >= 0) {
		struct npa_query q;

		T(npa_query(fd, &q) == 0 && q.carveout_bytes == CARVEOUT_BYTES,
		       "QUERY reports the 32 MiB carveout");
		test_mmap(fd);
		test_job(fd);
		close(fd);
	}
	if (!access(DT_NPU_B, F_OK))
		test_second_npu();
	if (!access(DT_NPU_C, F_OK))
		test_iommu_npu();
	T(unload() == 0, "rmmod npa");
	T(wait_node("/dev/npa0", 0), "/dev/npa0 is gone");
	T(load() == 0, "insmod again: the reserved region was given back");
	T(wait_node("/dev/npa0", 1), "/dev/npa0 is back");
	fd = npa_open("/dev/npa0");
	if (fd >= 0) {
		test_mmap(fd);
		close(fd);
	}
	T(unload() == 0, "rmmod npa again");

	kmemleak();
	printf("NPA-RESULT: %d\n", tap_failed);
	fflush(stdout);
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
