#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot a kernel under QEMU with a generated busybox initramfs, run a test
# script in it, power off, and exit with the guest script's status.
#
# usage: tools/qemu-run.sh -k BZIMAGE -s SCRIPT -l LOG [-f FILE]... [-t SECS]
#                          [-m MEM_MB] [-c none|strict]
#        tools/qemu-run.sh -A arm64 -k IMAGE -i INIT -d DTSI -l LOG [-f FILE]...
#
#   -k  kernel image to boot
#   -s  shell script run in the guest as /npa/test.sh, from /npa
#   -i  instead of -s: a static program that is the guest's /init (it prints
#       NPA-GUEST-BEGIN, TAP lines and NPA-RESULT: N itself, then reboots)
#   -A  x86 (default) or arm64 (qemu-system-aarch64 -M virt, console ttyAMA0)
#   -d  arm64: device tree source merged into the DTB QEMU generates for
#       the virt machine (needs dtc); one that names the SMMUv3 node
#       (smmuv3@9050000) gets a machine with one (iommu=smmuv3)
#   -f  file copied into the guest's /npa/ (modules, binaries, data); for
#       dynamically linked ELF files their shared libraries come along
#   -l  where to keep the console log
#   -t  timeout in seconds (default 600)
#   -a  extra kernel command line arguments (e.g. memmap=256M\$0x20000000)
#   -c  strict (default): fail on any oops, BUG, WARN, KASAN, UBSAN, lockdep
#       or kmemleak report in the log; none: only the script's status counts
#
# QEMU uses TCG; set NPA_KVM=1 to try KVM instead (it hangs at boot on some
# hosts).  NPA_QEMU_VERBOSE=1 copies the console to stdout as it runs.
set -euo pipefail
kernel= script= log= timeout=600 mem=1024 checks=strict append=
arch=x86 init= dtsi=
files=()
while getopts "k:s:l:f:t:m:c:a:A:i:d:" o; do
	case $o in
	k) kernel=$OPTARG ;;
	s) script=$OPTARG ;;
	i) init=$OPTARG ;;
	A) arch=$OPTARG ;;
	d) dtsi=$OPTARG ;;
	l) log=$OPTARG ;;
	f) files+=("$OPTARG") ;;
	t) timeout=$OPTARG ;;
	m) mem=$OPTARG ;;
	c) checks=$OPTARG ;;
	a) append=$OPTARG ;;
	*) sed -n '3,27p' "$0" >&2; exit 2 ;;
	esac
done
[ -n "$kernel" ] && [ -n "$script$init" ] && [ -n "$log" ] || { sed -n '3,27p' "$0" >&2; exit 2; }
[ -r "$kernel" ] || { echo "qemu-run: cannot read kernel $kernel" >&2; exit 2; }
busybox=$(command -v busybox || true)
[ -x /bin/busybox ] && busybox=/bin/busybox

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,dev,proc,sys,tmp,npa,etc}
[ -n "$init" ] || cp "$busybox" "$root/bin/busybox"

copy_libs() {
	local f=$1 lib
	ldd "$f" 2>/dev/null | grep -oE '/[^ ]+' | while read -r lib; do
		[ -e "$lib" ] || continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
for f in "${files[@]}"; do
	cp -L "$f" "$root/npa/"
	if file -L "$f" | grep -q 'dynamically linked'; then
		copy_libs "$f"
	fi
done
if [ -n "$init" ]; then
	cp "$init" "$root/init"
else
	cp "$script" "$root/npa/test.sh"
	cat > "$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/npa:/bin LD_LIBRARY_PATH=/npa
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
leak=/sys/kernel/debug/kmemleak
[ -w $leak ] && echo clear > $leak
echo "NPA-GUEST-BEGIN $(uname -r)"
cd /npa && sh ./test.sh
rc=$?
if [ -w $leak ]; then
	# kmemleak only reports objects older than 5 s, and only those
	# found unreferenced by a scan whose contents did not change since
	# the scan before: the first scan sees an object's new checksum, so
	# anything allocated after the automatic scan needs two.
	sleep 6
	echo scan > $leak
	echo scan > $leak
	echo "NPA-KMEMLEAK-BEGIN"
	cat $leak
	echo "NPA-KMEMLEAK-END"
fi
echo "NPA-RESULT: $rc"
sync
reboot -f
INIT
fi
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$root.cpio.gz"
trap 'rm -rf "$root" "$root.cpio.gz" "$root.dts" "$root.dtb"' EXIT

accel="-accel tcg"
[ "${NPA_KVM:-0}" = 1 ] && accel="-accel kvm -cpu host"
mkdir -p "$(dirname "$log")"
cmdline="rdinit=/init panic=-1 oops=panic loglevel=7 kmemleak=on $append"
case $arch in
x86)
	qemu=(qemu-system-x86_64 $accel -m "$mem" -smp 2 -nographic -no-reboot
	      -kernel "$kernel" -initrd "$root.cpio.gz"
	      -append "console=ttyS0 $cmdline") ;;
arm64)
	# A device tree that names the SMMUv3 node puts a device behind it.
	board=virt
	[ -n "$dtsi" ] && grep -q 'smmuv3@9050000' "$dtsi" && board=virt,iommu=smmuv3
	machine=(qemu-system-aarch64 -M "$board" -cpu cortex-a57 -accel tcg -m "$mem" -smp 2)
	if [ -n "$dtsi" ]; then
		# The virt machine's own DTB plus our nodes: dtc merges the
		# second root node into the first.
		"${machine[@]}" -machine dumpdtb="$root.dtb" -nographic >/dev/null 2>&1
		{ dtc -q -I dtb -O dts "$root.dtb"; cat "$dtsi"; } > "$root.dts"
		dtc -q -I dts -O dtb -o "$root.dtb" "$root.dts"
		machine+=(-dtb "$root.dtb")
	fi
	qemu=("${machine[@]}" -nographic -no-reboot -kernel "$kernel"
	      -initrd "$root.cpio.gz" -append "console=ttyAMA0 $cmdline") ;;
*)
	echo "qemu-run: unknown architecture $arch" >&2
	exit 2 ;;
esac
status=0
if [ "${NPA_QEMU_VERBOSE:-0}" = 1 ]; then
	timeout "$timeout" "${qemu[@]}" </dev/null 2>&1 | tr -d '\r' | tee "$log" || status=$?
else
	timeout "$timeout" "${qemu[@]}" </dev/null 2>&1 | tr -d '\r' > "$log" || status=$?
fi
if [ $status = 124 ]; then
	echo "qemu-run: timed out after ${timeout}s (log: $log)" >&2
	exit 124
fi
rc=$(sed -n 's/^NPA-RESULT: \([0-9]*\)$/\1/p' "$log" | tail -1)
if [ -z "$rc" ]; then
	echo "qemu-run: the guest never reported a result (log: $log)" >&2
	tail -20 "$log" >&2
	exit 125
fi
if [ "$checks" = strict ]; then
	# Any of these in the console means the kernel found a problem.
	bad='BUG: |WARNING: |Oops|UBSAN: |KASAN: |Kernel panic|general protection fault'
	bad+='|possible recursive locking|circular locking|suspicious RCU usage'
	bad+='|INFO: task .* blocked|unreferenced object|Call Trace:'
	first=$(grep -nE "$bad" "$log" | head -1 | cut -d: -f1 || true)
	if [ -n "$first" ]; then
		# The first report, the line before it (WARN()'s message)
		# and what follows it (a backtrace, the allocation site of a
		# leak): check.sh copies these lines into its summary, so a
		# CI run that keeps no log says it.
		echo "qemu-run: kernel reported a problem (log: $log):" >&2
		sed -n "$((first > 1 ? first - 1 : 1)),$((first + 24))p" "$log" |
			sed 's/^/qemu-run| /' >&2
		echo "qemu-run: reports in all: $(grep -cE "$bad" "$log")" >&2
		exit 126
	fi
fi
exit "$rc"
