#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check's deb stage: `make deb`, then install the packages on this
# machine with dpkg -i, check that DKMS built npa.ko for every kernel whose
# headers are installed, boot each of Debian's kernels (6.1, 6.12) in QEMU
# with its DKMS-built npa.ko and run jobs through the installed npactl and
# libnpa (tools/testing/deb.sh), then purge the packages and check that
# nothing of them is left.  Needs root.  TAP lines out.
#
# usage: tools/tests/deb-install.sh LOGDIR
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
logs=$(mkdir -p "$1" && cd "$1" && pwd)
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=SCRIPTDIR/tap.sh
. tools/tests/tap.sh
# libnpaN: N is libnpa's soname (make deb names the package after it).
pkgs=(npactl libnpa-dev libnpa npa-dkms)

if [ "$(id -u)" != 0 ]; then
	skip "install, DKMS, boot and purge of the packages" "dpkg -i needs root"
	exit 0
fi
if ! make -s deb > "$logs/make-deb.log" 2>&1; then
	notok "make deb builds the packages, lintian clean"
	tail -30 "$logs/make-deb.log" | sed 's/^/# /'
	exit 1
fi
ok "make deb builds the packages, lintian clean"
lib=$(ls build/deb/libnpa[0-9]*_*.deb | grep -v dbgsym | xargs -n1 basename | cut -d_ -f1)
pkgs[2]=$lib
debs=()
for p in "${pkgs[@]}"; do
	debs+=("$(ls build/deb/"${p}"_*.deb)")
done
ver=$(dpkg-deb -f build/deb/npa-dkms_*.deb Version)
cfgdir=$(tools/darknet-cfgs.sh) || { notok "darknet cfgs"; exit 1; }

# The machine's packages are one state: one install test at a time.
exec 8>/var/lock/npa-deb-test.lock
flock 8

# npa's packages dpkg knows in any state but "not installed", by name.
npa_packages() {
	dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' npa-dkms npactl \
		libnpa-dev 'libnpa[0-9]*' 2>/dev/null | grep -v '^un' | cut -d' ' -f2
}
# What npa leaves where DKMS and dpkg put things, by name.
npa_files() {
	find /usr/src /var/lib/dkms /lib/modules /usr/include /usr/bin \
		/usr/lib/*/pkgconfig /usr/lib/*-linux-gnu /usr/share/doc \
		/usr/share/man/man1 -maxdepth 4 \
		\( -name 'npa*' -o -name 'libnpa*' \) 2>/dev/null | sort
}
left=$(npa_packages)
if [ -n "$left" ]; then
	echo "# npa packages were installed (an interrupted run?): purging" $left
	# shellcheck disable=SC2086
	dpkg --purge $left >/dev/null 2>&1
fi
npa_files > "$tmp/before"

check "dpkg -i ${pkgs[*]} ($ver)" dpkg -i "${debs[@]}"
for p in "${pkgs[@]}"; do
	dpkg -L "$p" 2>/dev/null
done | while read -r f; do [ -d "$f" ] || echo "$f"; done > "$tmp/owned"
check "the packages own files" test -s "$tmp/owned"

# DKMS builds on install for every kernel whose headers are there.
for kd in /usr/src/linux-headers-*-amd64; do
	kver=${kd#/usr/src/linux-headers-}
	ko=$(ls /lib/modules/"$kver"/updates/dkms/npa.ko* 2>/dev/null | head -1)
	check "dkms status: npa/$ver installed for $kver" sh -c \
		"dkms status -m npa -v '$ver' -k '$kver' | grep -q ': installed'"
	if [ -z "$ko" ]; then
		notok "DKMS put npa.ko into /lib/modules/$kver/updates/dkms"
		continue
	fi
	ok "DKMS put $(basename "$ko") into /lib/modules/$kver/updates/dkms"
	# Debian's 6.12 modules are xz-compressed; busybox insmod is not.
	mkdir -p "$tmp/$kver"
	case $ko in
	*.xz) xz -dc "$ko" > "$tmp/$kver/npa.ko" ;;
	*) cp "$ko" "$tmp/$kver/npa.ko" ;;
	esac
	check "its vermagic is $kver" sh -c \
		"modinfo -F vermagic '$tmp/$kver/npa.ko' | grep -q '^$kver '"
	check "modinfo npa finds it for $kver" sh -c \
		"modinfo -k '$kver' -n npa | grep -q '/updates/dkms/npa.ko'"
done

# libnpa-dev: a test program against the installed header, .pc and
# libnpa.so (so $lib's libnpa.so.N at run time), and the static library.
app="$tmp/npa_load"
check "npa_load builds against the installed libnpa-dev (pkg-config, shared)" sh -c \
	"cc -O2 -D_GNU_SOURCE -Itools/tests -o '$app' tools/tests/npa_load.c \$(pkg-config --cflags --libs libnpa)"
check "it links $lib's libnpa.so.${lib#libnpa}" sh -c \
	"ldd '$app' | grep -Eq '=> /(usr/)?lib/[^ ]*/libnpa.so.${lib#libnpa} '"
check "it builds against the installed static libnpa.a" sh -c \
	"cc -O2 -D_GNU_SOURCE -Itools/tests -o '$tmp/npa_load.static' tools/tests/npa_load.c \$(pkg-config --cflags libnpa) \$(pkg-config --variable=libdir libnpa)/libnpa.a && ! ldd '$tmp/npa_load.static' | grep -q libnpa"

for series in 6.1 6.12; do
	read -r kd vmlinuz < <(tools/stock-kernel.sh "$series") || {
		notok "Debian's $series kernel and headers installed"
		continue
	}
	kver=${kd#/usr/src/linux-headers-}
	[ -f "$tmp/$kver/npa.ko" ] || continue
	rc=0
	tools/qemu-run.sh -k "$vmlinuz" -s tools/testing/deb.sh \
		-a 'memmap=64M$0x20000000' -f "$tmp/$kver/npa.ko" \
		-f /usr/bin/npactl -f "$app" -f "$cfgdir/yolov3-tiny.cfg" \
		-l "$logs/deb-$series-console.log" -t 600 || rc=$?
	sed -n '/^NPA-GUEST-BEGIN/,/^NPA-RESULT/p' "$logs/deb-$series-console.log" |
		grep -E '^(not )?ok ' | sed -E "s/^((not )?ok) - /\\1 - $series: /"
	if [ $rc = 0 ]; then
		ok "Debian $series kernel with the DKMS-built npa.ko: guest run clean"
	else
		notok "Debian $series kernel with the DKMS-built npa.ko: guest run clean (status $rc)"
	fi
done

check "dpkg --purge ${pkgs[*]}" dpkg --purge "${pkgs[@]}"
check "dpkg knows none of them any more" test -z "$(npa_packages)"
check "dkms status lists no npa" sh -c "! dkms status -m npa | grep -q ."
check "no file the packages owned is left" sh -c \
	"! while read -r f; do [ -e \"\$f\" ] || [ -L \"\$f\" ] && echo \"\$f\"; done < '$tmp/owned' | grep ."
npa_files > "$tmp/after"
check "nothing named npa is left in /usr/src, /var/lib/dkms, /lib/modules, ..." \
	diff "$tmp/before" "$tmp/after"
check "no modules.dep lists npa.ko" sh -c \
	"! grep -l 'updates/dkms/npa.ko' /lib/modules/*/modules.dep"
[ "$failed" = 0 ]
