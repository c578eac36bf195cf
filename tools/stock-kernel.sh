#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print "KDIR VMLINUZ" for the newest Debian stock kernel whose headers and
# image are both installed (linux-headers-amd64 + linux-image-amd64).
set -euo pipefail
for kdir in $(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -rV); do
	ver=${kdir#/usr/src/linux-headers-}
	if [ -r "/boot/vmlinuz-$ver" ]; then
		echo "$kdir /boot/vmlinuz-$ver"
		exit 0
	fi
done
echo "stock-kernel: no /usr/src/linux-headers-*-amd64 with a matching /boot/vmlinuz-*" >&2
exit 1
