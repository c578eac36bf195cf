#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the KUnit run: the KUnit build of npa.ko runs its suites
# when loaded; the host parses the KTAP from the console log.
insmod ./npa.ko || exit 1
rmmod npa || exit 1
exit 0
