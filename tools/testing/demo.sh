#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of `make demo`: load npa with a carveout reserved by memmap=,
# show the device, run real Darknet networks as jobs and verify them.
echo "== npa demo on $(uname -sr) =="
insmod ./npa.ko carveout_base=0x20000000 carveout_size=0x10000000 || exit 1
dmesg | sed 's/^\[[^]]*\] //' | grep -E '^npa|carveout' | tail -2
echo
echo "== npactl info =="
./npactl info || exit 1
echo
echo "== npactl run --verify (seeded random inputs and weights) =="
# shellcheck disable=SC2086
./npactl run --verify $NETWORKS
rc=$?
echo
echo "== npactl stats =="
./npactl stats
rmmod npa || exit 1
echo "== npa unloaded =="
exit $rc
