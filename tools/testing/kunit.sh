#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the KUnit run: npa_test.ko runs its suites when loaded,
# against the npa.ko loaded before it; the host parses the KTAP from the
# console log.
insmod ./npa.ko || exit 1
insmod ./npa_test.ko || exit 1
rmmod npa_test || exit 1
rmmod npa || exit 1
exit 0
