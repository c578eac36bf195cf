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
		grep -q '^LIBNPA_1 npa_job_submit_err$' "$tmp/defs" &&
		grep -q '^LIBNPA_1.1 npa_model_create_planned$' "$tmp/defs" &&
		grep -q '^(LIBNPA_1) npa_job_wait$' "$tmp/defs" &&
		grep -q '^LIBNPA_1.2 npa_job_wait$' "$tmp/defs" &&
		grep -q '^LIBNPA_1.3 npa_model_bindings$' "$tmp/defs"
}
check "libnpa.so exports only npa_* functions, each at a LIBNPA_1 version" \
	syms_versioned
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
