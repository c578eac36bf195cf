#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make install: into a scratch PREFIX and into a DESTDIR, then build a
# program against the installed libnpa with pkg-config, shared and static.
# TAP lines out.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=SCRIPTDIR/tap.sh
. "$root/tools/tests/tap.sh"

p=$tmp/usr
check "make install PREFIX=..." make -s -C "$root" install PREFIX="$p"
for f in bin/npactl lib/libnpa.a lib/libnpa.so lib/libnpa.so.2 \
	 lib/pkgconfig/libnpa.pc include/libnpa.h include/npa/linux/npa.h; do
	check "installed $f" test -e "$p/$f"
done
check "the uAPI header is not installed into include/linux (the kernel's)" \
	test ! -e "$p/include/linux"
# libnpa.h first: it must bring what it uses (size_t) itself.
cat > "$tmp/app.c" <<'APP'
#include <libnpa.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	/* No /dev/npa0 on the build host: the wrapper must say so. */
	int fd = npa_open("/nonexistent/npa0");

	/* The library's version is the uAPI header's it was built with. */
	if (npa_version() != (NPA_VERSION_MAJOR << 16 | NPA_VERSION_MINOR << 8 |
			      NPA_VERSION_PATCH))
		return 2;
	return !(fd < 0 && !strcmp(npa_job_status_name(NPA_JOB_DONE), "done"));
}
APP
export PKG_CONFIG_PATH=$p/lib/pkgconfig
check "pkg-config finds libnpa" pkg-config --exists libnpa
check "an application builds against the installed libnpa (shared)" sh -c \
	"cc -o '$tmp/app' '$tmp/app.c' \$(pkg-config --cflags --libs libnpa)"
check "it links libnpa.so.2 and runs" sh -c \
	"LD_LIBRARY_PATH='$p/lib' ldd '$tmp/app' | grep -q '$p/lib/libnpa.so.2' && LD_LIBRARY_PATH='$p/lib' '$tmp/app'"
check "libnpa.h alone compiles as C99 -pedantic and as C++11" sh -c \
	"echo '#include <libnpa.h>' > '$tmp/h.c' && cp '$tmp/h.c' '$tmp/h.cc' &&
	 cc -std=c99 -pedantic -Wall -Wextra -Werror -c -o '$tmp/h.o' '$tmp/h.c' \$(pkg-config --cflags libnpa) &&
	 c++ -std=c++11 -pedantic -Wall -Wextra -Werror -c -o '$tmp/h.o' '$tmp/h.cc' \$(pkg-config --cflags libnpa)"
check "an application builds against the installed libnpa (static)" sh -c \
	"cc -o '$tmp/app-static' '$tmp/app.c' \$(pkg-config --cflags libnpa) \$(pkg-config --variable=libdir libnpa)/libnpa.a && ! ldd '$tmp/app-static' | grep -q libnpa && '$tmp/app-static'"
# Every exported function has a version (libnpa.map), nothing else leaks.
syms_versioned() {
	local so=$p/lib/libnpa.so.2
	objdump -T "$so" >"$tmp/syms" || return 1
	# Defined functions: all npa_*, at LIBNPA_1 or a node after it.
	awk '$4 == ".text" { print $6, $7 }' "$tmp/syms" | sort >"$tmp/defs"
	[ -s "$tmp/defs" ] || return 1
	# An old version of a function, kept for old programs: (LIBNPA_1).
	! grep -Ev '^\(?LIBNPA_1(\.[0-9]+)?\)? npa_' "$tmp/defs" || return 1
	grep -q '^LIBNPA_1 npa_version$' "$tmp/defs" &&
		grep -q '^(LIBNPA_1) npa_job_submit_err$' "$tmp/defs" &&
		grep -q '^LIBNPA_1.5 npa_job_submit_err$' "$tmp/defs" &&
		grep -q '^(LIBNPA_1) npa_model_create_err$' "$tmp/defs" &&
		grep -q '^LIBNPA_1.5 npa_model_create_err$' "$tmp/defs" &&
		grep -q '^(LIBNPA_1.1) npa_model_create_planned$' "$tmp/defs" &&
		grep -q '^LIBNPA_1.5 npa_model_create_planned$' "$tmp/defs" &&
		grep -q '^(LIBNPA_1) npa_error_str$' "$tmp/defs" &&
		grep -q '^LIBNPA_1.5 npa_error_str$' "$tmp/defs" &&
		grep -q '^(LIBNPA_1.4) npa_error_str_graph$' "$tmp/defs" &&
		grep -q '^LIBNPA_1.5 npa_error_str_graph$' "$tmp/defs" &&
		grep -q '^(LIBNPA_1) npa_job_wait$' "$tmp/defs" &&
		grep -q '^LIBNPA_1.2 npa_job_wait$' "$tmp/defs" &&
		grep -q '^LIBNPA_1.3 npa_model_bindings$' "$tmp/defs"
}
check "libnpa.so exports only npa_* functions, each at a LIBNPA_1 version" \
	syms_versioned
# struct npa_error grew by dim (3.6.0): a program linked before calls the
# old versions, which must read and write its first 40 bytes only (the
# report ends at a page that cannot be touched); a new one gets the dim.
cat > "$tmp/abi.c" <<'APP'
#include <errno.h>
#include <libnpa.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int old_create_err(int fd, const struct npa_graph_desc *g, __u32 flags,
		   __u64 budget, struct npa_model_create *r, struct npa_error *e);
__asm__(".symver old_create_err, npa_model_create_err@LIBNPA_1");
int old_planned(int fd, const struct npa_graph_desc *g, __u32 flags,
		__u64 budget, const struct npa_placement *pt,
		const struct npa_placement *ps, struct npa_model_create *r,
		struct npa_error *e);
__asm__(".symver old_planned, npa_model_create_planned@LIBNPA_1.1");
int old_submit_err(int fd, __u32 model, const struct npa_binding *b,
		   __u32 n, __u64 timeout_ns, int *fence_fd, struct npa_error *e);
__asm__(".symver old_submit_err, npa_job_submit_err@LIBNPA_1");
char *old_str(const struct npa_error *e, char *buf, size_t len);
__asm__(".symver old_str, npa_error_str@LIBNPA_1");
char *old_str_graph(const struct npa_error *e, const struct npa_graph_desc *g,
		    char *buf, size_t len);
__asm__(".symver old_str_graph, npa_error_str_graph@LIBNPA_1.4");

#define SHAPE "has a 0 before a non-zero dim, or dims without a dtype"

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct npa_error *e40 = (void *)(p + page - 40), e48;
	struct npa_graph_desc g = { 0 };
	char why[256];

	if (p == MAP_FAILED || mprotect(p + page, page, PROT_NONE))
		return 2;
	if (old_create_err(-1, &g, 0, 0, NULL, e40) != -EBADF ||
	    e40->op != NPA_ERR_NO_INDEX || e40->reason != NPA_ERR_NONE)
		return 3;
	if (old_planned(-1, &g, 0, 0, NULL, NULL, NULL, e40) != -EBADF ||
	    old_submit_err(-1, 1, NULL, 0, 0, NULL, e40) != -EBADF)
		return 4;
	memset(e40, 0, 40);
	e40->array = NPA_ERR_ARRAY_TENSORS;
	e40->index = 2;
	e40->field = NPA_ERR_FIELD_DIMS;
	e40->reason = NPA_ERR_BAD_SHAPE;
	e40->op = e40->tensor = NPA_ERR_NO_INDEX;
	if (strcmp(old_str(e40, why, sizeof(why)), "tensor 2: dims " SHAPE) ||
	    strcmp(old_str_graph(e40, &g, why, sizeof(why)),
		   "tensor 2: dims " SHAPE))
		return 5;
	memcpy(&e48, e40, 40);
	e48.dim = 1;
	e48.pad = 0;
	if (strcmp(npa_error_str(&e48, why, sizeof(why)),
		   "tensor 2: dims[1] " SHAPE))
		return 6;
	memset(&e48, 0, sizeof(e48));
	if (npa_model_create_err(-1, &g, 0, 0, NULL, &e48) != -EBADF ||
	    e48.dim != NPA_ERR_NO_INDEX || e48.op != NPA_ERR_NO_INDEX)
		return 7;
	return 0;
}
APP
check "libnpa: programs linked before 3.6 read and write 40-byte reports, new ones get the dim" sh -c \
	"cc -o '$tmp/abi' '$tmp/abi.c' \$(pkg-config --cflags --libs libnpa) && LD_LIBRARY_PATH='$p/lib' '$tmp/abi'"
# The map lists every function libnpa.h declares (a new one is exported).
map_complete() {
	local f
	for f in $(sed -n 's/^[a-z0-9_ ]*[ *]\(npa_[a-z_]*\)(.*/\1/p' "$root/tools/lib/libnpa.h"); do
		grep -q "^[[:space:]]*$f;" "$root/tools/lib/libnpa.map" ||
			{ echo "$f is not in libnpa.map"; return 1; }
	done
}
check "libnpa.map lists every function of libnpa.h" map_complete
# The library alone needs no json-c: no pkg-config at all, in fact.
check "make install-lib installs libnpa without json-c (npactl's)" sh -c \
	"make -s -C '$root' install-lib PREFIX='$tmp/libonly' PKG_CONFIG=false BUILD='$tmp/libonly-build' &&
	 test -e '$tmp/libonly/lib/libnpa.so.2' && test ! -e '$tmp/libonly/bin'"
check "libnpa builds with CFLAGS given on the command line" \
	make -s -C "$root/tools/lib" OUT="$tmp/cflags" CFLAGS=-O1
check "make install DESTDIR=... PREFIX=/usr" \
	make -s -C "$root" install DESTDIR="$tmp/dest" PREFIX=/usr
check "DESTDIR: the pkg-config file names PREFIX, not DESTDIR" \
	grep -qx 'libdir=/usr/lib' "$tmp/dest/usr/lib/pkgconfig/libnpa.pc"
check "make uninstall removes what install put there" sh -c \
	"make -s -C '$root' uninstall PREFIX='$p' && ! find '$p' -type f -o -type l | grep ."
[ "$failed" = 0 ]
