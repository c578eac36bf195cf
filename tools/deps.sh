#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages npa's build, tests and demo need, if missing.
# As root this runs apt-get; otherwise it names what is missing and fails.
set -euo pipefail
pkgs=(build-essential gcc make bc flex bison libelf-dev libssl-dev cpio kmod
      xz-utils rsync python3 perl sparse pkg-config libjson-c-dev clang
      libclang-rt-14-dev linux-source-6.1 linux-image-amd64
      linux-headers-amd64 linux-image-6.12-amd64 linux-headers-6.12-amd64
      qemu-system-x86 busybox-static
      gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm
      device-tree-compiler librsvg2-bin dkms dh-dkms debhelper lintian
      dt-schema)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} = 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing Debian packages: ${missing[*]}" >&2
	echo "deps: run as root, or: sudo apt-get install ${missing[*]}" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2
apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
