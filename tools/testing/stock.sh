#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the stock stage of tools/check.sh: npa.ko on Debian's own
# kernel (6.1 or 6.12) with the carveout reserved by memmap= as in
# `make demo`, the end-to-end tests that need no debug kernel, and real
# networks as verified jobs through npactl.  TAP lines out; the exit
# status is the number of failures.
fail=0
t() {
	# t DESCRIPTION COMMAND...: one TAP line for one command's status.
	desc=$1
	shift
	if "$@"; then echo "ok - $desc"; else echo "not ok - $desc"; fail=$((fail + 1)); fi
}

echo "# $(uname -sr)"
t "insmod npa.ko with the memmap= carveout" \
	insmod ./npa.ko carveout_base=0x20000000 carveout_size=0x8000000
t "/dev/npa0 is a character device" test -c /dev/npa0
t "the carveout is the memmap= region" \
	sh -c 'grep -q "20000000-27ffffff : npa-sim" /proc/iomem'
# npa_job_e2e, npa_failslab and npa_copyout need what only the test kernel
# has: udmabuf, dma-buf heaps, DMA-API debugging, fault injection.
for prog in "npa_e2e /dev/npa0" npa_model_e2e npa_matrix "npa_load 50"; do
	# shellcheck disable=SC2086
	./$prog
	fail=$((fail + $?))
done
# shellcheck disable=SC2086
t "npactl run --verify $NETWORKS: bit-exact" ./npactl run --verify $NETWORKS
# One bad graph, one sentence: npactl plan (npa_graph_validate() in
# userspace) and npactl run (the kernel's report of the same code) print
# the same line, and run prints no carveout summary after it.
same_line() {
	! ./npactl plan "$1" >/dev/null 2>plan.err &&
		! ./npactl run "$1" >run.out 2>run.err &&
		grep -q "^npactl: $1: invalid graph: " plan.err &&
		cmp -s plan.err run.err && ! grep -q carveout run.out && return 0
	cat plan.err run.err run.out | sed 's/^/# /'
	return 1
}
for g in $BAD_GRAPHS; do
	t "npactl plan and npactl run refuse $g with the same line" same_line "$g"
done
# --repeat K: one line per run, each verified, its columns under the
# header's although "inplace-activation.json #1" is wider than 22.
aligned() {
	awk '/^network / { col = index($0, " arena") + 5 }
	     /^inplace-activation.json #/ { n++; if (index($0, "KB") + 1 != col) bad = 1 }
	     END { exit bad || !col || !n }' "$1"
}
repeat_lines() {
	./npactl run --repeat 3 --verify inplace-activation.json >rep.out &&
		[ "$(grep -c '^inplace-activation.json #[123] .* bit-exact$' rep.out)" = 3 ] &&
		grep -q '^carveout: ' rep.out && aligned rep.out && return 0
	sed 's/^/# /' rep.out
	return 1
}
t "npactl run --repeat 3 --verify: one bit-exact line per run, columns aligned" repeat_lines
# Offline plans: the first network planned in userspace (npactl plan
# --out), run with that plan (the kernel verifies it instead of planning)
# bit-exact; the same plan with scratch0 moved onto the first tensor is
# refused, with the report in words, before anything runs.
net=${NETWORKS%% *}
cfg=${net%@*}
size=${net#*@}
t "npactl plan --out: $net planned in userspace" \
	./npactl plan --size "$size" --out /tmp/plan.csv "$cfg"
t "npactl run --plan: $net with its offline plan, bit-exact" \
	./npactl run --verify --plan /tmp/plan.csv "$net"
# shellcheck disable=SC2317 # called through t()
bad_plan_refused() {
	sed 's/^scratch0,\([0-9]*\),\([0-9]*\),\([0-9]*\),[0-9]*$/scratch0,\1,\2,\3,0/' \
		/tmp/plan.csv >/tmp/bad.csv &&
		! cmp -s /tmp/plan.csv /tmp/bad.csv &&
		! ./npactl run --plan /tmp/bad.csv "$net" 2>/tmp/bad.err &&
		grep -q overlaps /tmp/bad.err
}
t "npactl run --plan: a plan with overlapping buffers is refused" \
	bad_plan_refused
# What a job binds, as the kernel lists it (npa_model_bindings()); npactl
# places the weights at the alignments it gives.
bindings_listed() {
	./npactl run --bindings --verify inplace-activation.json >bind.out &&
		grep -q "^# inplace-activation.json: binding 1: tensor 1 'w1', const, 432 bytes at an offset aligned to 64$" bind.out &&
		grep -q "^# inplace-activation.json: binding 5: tensor 9 'relu2', output, 32768 bytes at an offset aligned to 64$" bind.out &&
		[ "$(grep -c ': binding [0-9]: tensor ' bind.out)" = 6 ] &&
		grep -q ' bit-exact$' bind.out && return 0
	sed 's/^/# /' bind.out
	return 1
}
t "npactl run --bindings: the kernel's six bindings, and the job is bit-exact" bindings_listed
t "rmmod npa" rmmod npa
t "rmmod gives the region back" sh -c '! grep -q ": npa-sim" /proc/iomem'
exit $fail
