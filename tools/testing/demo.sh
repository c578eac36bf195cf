#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of `make demo`.
echo "== npa demo on $(uname -sr) =="
insmod ./npa.ko || exit 1
dmesg | sed 's/^\[[^]]*\] //' | grep '^npa:' | tail -1
echo "== /dev/npa0 =="
ls -l /dev/npa0
./npa_query /dev/npa0 || exit 1
rmmod npa || exit 1
echo "== npa unloaded =="
