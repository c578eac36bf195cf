#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the deb stage (tools/tests/deb-install.sh): the npa.ko DKMS
# built for this kernel, the installed npactl, and npa_load built against
# the installed libnpa-dev and linked to libnpaN's libnpa.so.N.  TAP lines
# out; the exit status is the number of failures.
fail=0
t() {
	# t DESCRIPTION COMMAND...: one TAP line for one command's status.
	desc=$1
	shift
	if "$@"; then echo "ok - $desc"; else echo "not ok - $desc"; fail=$((fail + 1)); fi
}

t "insmod the DKMS-built npa.ko with the memmap= carveout" \
	insmod ./npa.ko carveout_base=0x20000000 carveout_size=0x4000000
t "the installed npactl reads /dev/npa0" ./npactl info
t "a network as a job through the installed npactl, bit-exact" \
	./npactl run --verify yolov3-tiny.cfg@96
./npa_load 10
fail=$((fail + $?))
t "rmmod npa" rmmod npa
exit $fail
