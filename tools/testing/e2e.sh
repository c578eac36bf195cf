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
t "the watchdog reset is logged, with the operator it caught" sh -c \
	'dmesg | grep -q "timed out after 200 ms in operator 1; NPU reset"'
# Job cycles: the cost model in the kernel, on the plan the kernel made
# and on the host's plan (--plan), against npactl plan --json on the host
# (tools/check.sh wrote e2e-cycles.json and e2e-cycles.csv).
want=$(sed -n 's/.*"sim_cycles":\([0-9]*\),.*/\1/p' e2e-cycles.json)
tr=/sys/kernel/debug/tracing
echo 1 >$tr/events/npa/npa_job_end/enable
for plan in "" "--plan e2e-cycles.csv"; do
	# shellcheck disable=SC2086
	got=$(./npactl run $plan cycles.cfg | awk '$1 == "cycles.cfg" { print $10 }')
	t "npactl run $plan cycles.cfg: job cycles $got = the host's sim_cycles $want" \
		test -n "$want" -a "$got" = "$want"
done
echo 0 >$tr/events/npa/npa_job_end/enable
t "the npa_job_end trace event carries the job's cycles" \
	sh -c "grep -q 'npa_job_end: job=[0-9]* status=2 op=-1 run_ns=[0-9]* cycles=$want\$' $tr/trace"
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
# The memmap= path: the guest boots with memmap=16M$0x38000000 (check.sh).
t "a carveout_base in System RAM is refused" \
	sh -c '! insmod ./npa.ko carveout_base=0x30000000 carveout_size=0x1000000 2>/dev/null'
t "insmod with the memmap= region as carveout" \
	insmod ./npa.ko carveout_base=0x38000000 carveout_size=0x1000000
t "the carveout is the memmap= region" sh -c \
	'grep -q "38000000-38ffffff : npa-sim" /proc/iomem && grep -q "carveout 16777216 bytes" /sys/kernel/debug/npa0/carveout'
t "verified jobs on the memmap= carveout" sh -c './npa_load 20 >/dev/null'
t "rmmod gives the region back" sh -c 'rmmod npa && ! grep -q ": npa-sim" /proc/iomem'
exit $fail
