#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: boot Debian's stock kernel in QEMU with 256 MiB reserved by
# memmap= for the carveout, load npa.ko built against its headers, and run
# real Darknet networks from Debian's darknet package as jobs on the
# simulated NPU, verified bit for bit against a reference executor.
#
# NPA_KERNEL=6.12 runs it on Debian's 6.12 kernel (linux-image-6.12-amd64)
# instead of 6.1.  NPA_DEMO_NETS overrides the networks ("name.cfg@SIZE ..."; SIZE scales
# the input resolution, which keeps the run short under QEMU's emulation).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
series=${NPA_KERNEL:-6.1}
read -r kdir vmlinuz < <(tools/stock-kernel.sh "$series")
cfgdir=$(tools/darknet-cfgs.sh)
nets=${NPA_DEMO_NETS:-"resnet50.cfg@128 yolov3-tiny.cfg@224 densenet201.cfg@128"}
echo "demo: building npa.ko against $kdir and npactl"
tools/kmod-build.sh "$kdir" "build/stock-$series"
make -s tools
files=(-f "build/stock-$series/npa.ko" -f build/bin/npactl)
args=
for n in $nets; do
	files+=(-f "$cfgdir/${n%@*}")
	args+=" ${n}"
done
script=$(mktemp)
trap 'rm -f "$script"' EXIT
{ echo "NETWORKS='$args'"; cat tools/testing/demo.sh; } > "$script"
echo "demo: booting $vmlinuz under QEMU (TCG; NPA_KVM=1 for KVM)"
rc=0
tools/qemu-run.sh -k "$vmlinuz" -s "$script" "${files[@]}" -m 1024 \
	-a 'memmap=256M$0x20000000' -l build/demo/console.log -t 900 -c none || rc=$?
sed -n '/^NPA-GUEST-BEGIN/,/^NPA-RESULT/{/^NPA-/d;/^\[ *[0-9.]*\] /d;p}' build/demo/console.log
echo "demo: console log in build/demo/console.log"
exit $rc
