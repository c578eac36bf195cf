#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the end-to-end tests (runs in QEMU from /npa).  TAP lines
# out; the exit status is the number of failures.
fail=0
t() {
	# t DESCRIPTION COMMAND...: one TAP line for one command's status.
	desc=$1
	shift
	if "$@"; then echo "ok - $desc"; else echo "not ok - $desc"; fail=$((fail + 1)); fi
}

t "insmod npa.ko" insmod ./npa.ko
t "/dev/npa0 is a character device" test -c /dev/npa0
t "/dev/npa0 has mode 0660" sh -c '[ "$(stat -c %a /dev/npa0)" = 660 ]'
./npa_e2e /dev/npa0
fail=$((fail + $?))
./npa_model_e2e
fail=$((fail + $?))
./npa_job_e2e
fail=$((fail + $?))
./npa_matrix
fail=$((fail + $?))
./npa_failslab
fail=$((fail + $?))
./npa_copyout
fail=$((fail + $?))
./npa_load 300
fail=$((fail + $?))
t "debugfs carveout map lists the buffers' owners" sh -c 'grep -q "carveout" /sys/kernel/debug/npa0/carveout'
exec 4</dev/npa0
t "fdinfo reports per-file memory" sh -c "grep -q npa-models /proc/\$\$/fdinfo/4 || grep -q npa-models /proc/self/fdinfo/4"
exec 4<&-
exec 3</dev/npa0
t "rmmod fails while /dev/npa0 is open" sh -c '! rmmod npa 2>/dev/null'
exec 3<&-
t "rmmod npa" rmmod npa
t "/dev/npa0 is gone after rmmod" test ! -e /dev/npa0
t "insmod after rmmod" insmod ./npa.ko
t "query after reload" ./npa_e2e /dev/npa0 >/dev/null
t "second rmmod" rmmod npa
exit $fail
