#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: boot Debian's stock kernel in QEMU, load npa.ko built against
# its headers, show what the device reports, unload.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
read -r kdir vmlinuz < <(tools/stock-kernel.sh)
echo "demo: building npa.ko against $kdir"
tools/kmod-build.sh "$kdir" build/stock
make -s lib tests
echo "demo: booting $vmlinuz under QEMU (TCG; NPA_KVM=1 for KVM)"
rc=0
tools/qemu-run.sh -k "$vmlinuz" -s tools/testing/demo.sh -f build/stock/npa.ko \
	-f build/bin/npa_query -l build/demo/console.log -t 300 -c none || rc=$?
sed -n '/^NPA-GUEST-BEGIN/,/^NPA-RESULT/{/^NPA-/d;/^\[ *[0-9.]*\] /d;p}' build/demo/console.log
echo "demo: console log in build/demo/console.log"
exit $rc
