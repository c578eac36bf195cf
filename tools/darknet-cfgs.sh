#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the directory holding Debian's darknet network .cfg files, fetching
# them first if needed.  The darknet package depends on OpenCV, so instead
# of installing it this downloads the .deb and unpacks it into a cache:
#
#   ${NPA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/npa}/darknet
#
# Usage: tools/darknet-cfgs.sh    (prints e.g. .../usr/share/darknet/cfg)
set -euo pipefail

cache=${NPA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/npa}/darknet
cfg=$cache/usr/share/darknet/cfg

if [ ! -d "$cfg" ]; then
	tmp=$(mktemp -d)
	chmod 755 "$tmp"	# let apt's sandbox user write there
	trap 'rm -rf "$tmp"' EXIT
	# A fresh machine may have no apt lists yet: as root, update once.
	if ! (cd "$tmp" && apt-get download darknet >&2) &&
	   ! { [ "$(id -u)" = 0 ] && apt-get update -q >&2 &&
	       (cd "$tmp" && apt-get download darknet >&2); }; then
		echo "darknet-cfgs.sh: 'apt-get download darknet' failed" \
		     "(apt lists not updated?)" >&2
		exit 1
	fi
	mkdir -p "$cache.new"
	dpkg -x "$tmp"/darknet_*.deb "$cache.new"
	if [ ! -d "$cache.new/usr/share/darknet/cfg" ]; then
		echo "darknet-cfgs.sh: no usr/share/darknet/cfg in the package" >&2
		rm -rf "$cache.new"
		exit 1
	fi
	rm -rf "$cache"
	mv "$cache.new" "$cache"
fi
echo "$cfg"
