#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Arena bytes against the cost model's cycles (Documentation/npu.rst,
# "Arena bytes against cycles"): for each network, plan it with variable
# scratch allowed to grow the arena by 0, 1, 2, 5 (the default) and 10% of
# the tensors' arena, and print the arena, the growth scratch caused and
# sim_cycles, against sim_cycles_unlimited (every variable request at its
# size).  Below each network, what stacking every step's full-size scratch
# above the tensors would take in bytes (tensor_bytes plus
# scratch_growth_naive_bytes of --im2col full): those plans run at the
# unlimited cycles, up to where the fast window falls.
#
# "minimum" is sim_cycles_minimum, every variable request at its minimum.
#
# Usage: tools/bench/cycles-table.sh [--rst] [NPACTL [CFG_DIR]]
#   --rst    print a reStructuredText table (for Documentation/npu.rst)
# NETWORKS overrides the networks (default "resnet50 yolov3 vgg-16"),
# GROWTHS the growth limits in % (default "0 1 2 5 10").
set -euo pipefail

# shellcheck source=SCRIPTDIR/table-args.sh
. "$(dirname "$0")/table-args.sh"
networks=${NETWORKS:-resnet50 yolov3 vgg-16}
growths=${GROWTHS:-0 1 2 5 10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fmt='%-9s %-12s %10s %10s %9s %13s %8s\n'
rule() {
	printf "$fmt" ========= ============ ========== ========== ========= \
		============= ========
}

# plan NETWORK OPTIONS...: the JSON keys the table needs, one line.
plan() {
	local cfg=$cfgdir/$1.cfg
	shift
	"$npactl" plan --json "$@" "$cfg" >"$tmp/j"
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(*(d[k] for k in ("arena_bytes", "tensor_bytes", "scratch_growth_bytes",
	"scratch_growth_naive_bytes", "sim_cycles", "sim_cycles_unlimited",
	"sim_cycles_minimum")))' \
		"$tmp/j"
}

[ $rst = 1 ] && rule
printf "$fmt" network "growth limit" arena growth "/ stacked" sim_cycles "vs unlim"
[ $rst = 1 ] && rule

for net in $networks; do
	# Full-size scratch stacked above the tensors, each step's own.
	read -r _ ft _ fn _ _ _ < <(plan "$net" --im2col full --scratch-growth 0)
	full=$((ft + fn))
	unlim=
	for pct in $growths; do
		read -r a _ g _ c u m < <(plan "$net" --scratch-growth "$pct")
		unlim=$u minimum=$m
		awk -v f="$fmt" -v n="$net" -v p="$pct%" -v a="$a" -v g="$g" \
			-v s="$full" -v c="$c" -v u="$u" 'BEGIN {
			printf f, n, p, a, g, sprintf("%.3f", a / s), c,
				sprintf("%+.2f%%", 100 * (c - u) / u) }'
	done
	awk -v f="$fmt" -v n="$net" -v m="$minimum" -v u="$unlim" 'BEGIN {
		printf f, n, "minimum", "", "", "", m,
			sprintf("%+.2f%%", 100 * (m - u) / u)
		printf f, n, "unlimited", "", "", "", u, "" }'
	printf "$fmt" "$net" "stacked full" "$full" "$fn" 1.000 "" ""
done | sed 's/ *$//'

[ $rst = 1 ] && rule
exit 0
