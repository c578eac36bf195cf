#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print "KDIR VMLINUZ" for Debian's stock kernel of one series (the newest
# one whose headers and image are both installed).
#
# usage: tools/stock-kernel.sh [SERIES]
#   SERIES: 6.1 (Debian 12's kernel: linux-image-amd64, linux-headers-amd64)
#   or 6.12 (its security archive: linux-image-6.12-amd64,
#   linux-headers-6.12-amd64); default $NPA_KERNEL, else 6.1.
set -euo pipefail
series=${1:-${NPA_KERNEL:-6.1}}
case $series in
6.1 | 6.12) ;;
*)
	echo "stock-kernel: unknown kernel series $series (6.1 or 6.12)" >&2
	exit 2 ;;
esac
# "6.1.*" does not match 6.12's directories: the dot follows the series.
for kdir in $(ls -d /usr/src/linux-headers-"$series".*-amd64 2>/dev/null | sort -rV); do
	ver=${kdir#/usr/src/linux-headers-}
	if [ -r "/boot/vmlinuz-$ver" ]; then
		echo "$kdir /boot/vmlinuz-$ver"
		exit 0
	fi
done
echo "stock-kernel: no /usr/src/linux-headers-$series.*-amd64 with a matching /boot/vmlinuz-* (make deps installs them)" >&2
exit 1
