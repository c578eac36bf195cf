#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build (once) and cache the npa test kernel: Debian's linux-source-6.1,
# allnoconfig plus tools/testing/npa-test.config.  Prints the build directory
# (usable as KDIR for out-of-tree modules) on stdout.
#
# usage: tools/build-kernel.sh [x86|arm64] [6.1|6.12]
#   arm64: the arm64 kernel for the device-tree test (the dt stage of
#   tools/check.sh), cross-built with aarch64-linux-gnu-gcc from
#   tools/testing/npa-arm64.config;
#   build modules against it with ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-.
#   6.12: from Debian's linux-source-6.12 instead of linux-source-6.1
#   (cached beside it; ~/.cache/npa/kernel-arm64-6.12 points at the arm64 one).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:-x86}
series=${2:-6.1}
case $series in
6.1 | 6.12) ;;
*)
	echo "build-kernel: unknown kernel series $series (6.1 or 6.12)" >&2
	exit 2 ;;
esac
case $arch in
x86)
	frag=$here/tools/testing/npa-test.config
	kmake=() image=bzImage link=kernel ;;
arm64)
	frag=$here/tools/testing/npa-arm64.config
	kmake=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-) image=Image link=kernel-arm64 ;;
*)
	echo "build-kernel: unknown architecture $arch (x86 or arm64)" >&2
	exit 2 ;;
esac
cache=${NPA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/npa}
[ "$series" = 6.1 ] || link=$link-$series
tarball=$(ls /usr/src/linux-source-"$series".tar.xz 2>/dev/null || true)
[ -n "$tarball" ] || { echo "build-kernel: /usr/src/linux-source-$series.tar.xz missing (apt-get install linux-source-$series)" >&2; exit 1; }
srcver=$(dpkg-query -W -f='${Version}' linux-source-"$series" 2>/dev/null || stat -c %Y "$tarball")
src=$cache/src-$srcver/linux-source-$series
hash=$( (cat "$frag"; echo "$srcver"; [ $arch = x86 ] || echo "$arch") | sha256sum | cut -c1-12)
out=$cache/kernel-$hash
mkdir -p "$cache"
# One lock per source series: a 6.12 build does not hold up the 6.1
# kernels' users.
lock=$cache/.lock
[ "$series" = 6.1 ] || lock=$lock-$series
exec 9>"$lock"
flock 9
if [ ! -f "$src/.npa-extracted" ]; then
	echo "build-kernel: extracting $tarball" >&2
	rm -rf "$cache/src-$srcver"; mkdir -p "$cache/src-$srcver"
	tar -C "$cache/src-$srcver" -xf "$tarball"
	touch "$src/.npa-extracted"
fi
if [ ! -f "$out/.npa-built" ]; then
	echo "build-kernel: building the $arch test kernel in $out (~5 min)" >&2
	mkdir -p "$out"
	make -s -C "$src" O="$out" "${kmake[@]}" allnoconfig >&2
	env "${kmake[@]}" "$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag" >/dev/null
	make -s -C "$src" O="$out" "${kmake[@]}" olddefconfig >&2
	missing=0
	while IFS= read -r line; do
		case "$line" in CONFIG_*=*) ;; *) continue ;; esac
		grep -qx "$line" "$out/.config" || { echo "build-kernel: $line did not stick" >&2; missing=1; }
	done < "$frag"
	[ $missing = 0 ] || exit 1
	make -s -C "$src" O="$out" "${kmake[@]}" -j"$(nproc)" $image modules_prepare >&2
	make -s -C "$src" O="$out" "${kmake[@]}" -j"$(nproc)" modules >&2 || true
	touch "$out/.npa-built"
fi
ln -sfn "$out" "$cache/$link"
echo "$out"
