#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build npa.ko out of tree: tools/kmod-build.sh KDIR OUTDIR [make args...]
#
# The sources are mirrored into OUTDIR/src so that builds against different
# kernels or with different options never share object files.  Any compiler
# or sparse warning fails the build.  The modules end up in OUTDIR: npa.ko,
# and npa_test.ko with CONFIG_NPA_KUNIT_TEST=m.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
kdir=$1
mkdir -p "$2"
out=$(cd "$2" && pwd)
shift 2
[ -f "$kdir/Makefile" ] || { echo "kmod-build: $kdir is not a kernel build tree" >&2; exit 1; }
mkdir -p "$out/src"
rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='*.cmd' \
	--exclude='*.mod*' --exclude='.*.d' \
	"$here/Kbuild" "$here/drivers" "$here/include" "$here/kunit" "$out/src/"
log=$out/build.log
if ! make -C "$kdir" M="$out/src" CONFIG_NPA=m "$@" modules >"$log" 2>&1; then
	cat "$log" >&2
	echo "kmod-build: build failed against $kdir" >&2
	exit 1
fi
if grep -E 'warning:|error:' "$log" >&2; then
	echo "kmod-build: warnings building against $kdir (see $log)" >&2
	exit 1
fi
cp "$out/src/"*.ko "$out/"
