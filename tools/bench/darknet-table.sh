#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Plan every Darknet network of Debian's darknet package and print one row
# per network: graph size; the lower bound, the tensors' arena and their
# naive (no reuse) size; scratch requested, the arena with scratch, the
# growth scratch-in-gap caused, the least growth any scratch placement
# could reach with these tensor offsets, and the growth with scratch
# stacked above the tensors; and the planning time.  Sizes in MiB.
# Networks npactl refuses are listed below the table with the reason.
#
# Usage: tools/bench/darknet-table.sh [--rst] [NPACTL [CFG_DIR]]
#   --rst    print a reStructuredText table (for Documentation/graphs.rst)
# More npactl plan options can be passed in NPACTL_PLAN_OPTS, e.g.
# NPACTL_PLAN_OPTS="--im2col full" or "--size 320".
set -euo pipefail

# shellcheck source=SCRIPTDIR/table-args.sh
. "$(dirname "$0")/table-args.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fmt='%-19s %7s %4s %8s %8s %8s %8s %8s %8s %8s %8s %7s\n'
rule() {
	printf "$fmt" =================== ======= ==== ======== ======== \
		======== ======== ======== ======== ======== ======== =======
}

[ $rst = 1 ] && rule
printf "$fmt" network tensors ops "lower bd" tensors naive "scratch" arena \
	growth least stacked "plan ms"
[ $rst = 1 ] && rule

planned=0 over=0 tot_g=0 tot_n=0 tot_b=0 refused=""
for cfg in "$cfgdir"/*.cfg; do
	name=$(basename "$cfg" .cfg)
	# shellcheck disable=SC2086
	if ! "$npactl" plan --json ${NPACTL_PLAN_OPTS:-} "$cfg" >"$tmp/j" \
		2>"$tmp/err"; then
		refused+="- $name: $(sed 's/^npactl: [^:]*: //' "$tmp/err" | head -1)"$'\n'
		continue
	fi
	read -r t o lb tb nv sr a g b ng ns < <(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(*(d[k] for k in ("tensors", "ops", "lower_bound_bytes", "tensor_bytes",
	"naive_bytes", "scratch_bytes_requested", "arena_bytes",
	"scratch_growth_bytes", "scratch_growth_bound_bytes",
	"scratch_growth_naive_bytes", "plan_ns")))' "$tmp/j")
	# '*': scratch-in-gap grew the arena more than stacking would have.
	if [ "$g" -gt "$ng" ]; then
		name="$name *"
		over=$((over + 1))
	fi
	awk -v f="$fmt" -v n="$name" -v t="$t" -v o="$o" -v lb="$lb" \
		-v tb="$tb" -v nv="$nv" -v sr="$sr" -v a="$a" -v g="$g" \
		-v b="$b" -v ng="$ng" -v ns="$ns" 'BEGIN {
		m = 1048576
		printf f, n, t, o, sprintf("%.2f", lb / m),
			sprintf("%.2f", tb / m), sprintf("%.2f", nv / m),
			sprintf("%.2f", sr / m), sprintf("%.2f", a / m),
			sprintf("%.3f", g / m), sprintf("%.3f", b / m),
			sprintf("%.3f", ng / m),
			sprintf("%.1f", ns / 1e6)
	}'
	planned=$((planned + 1))
	tot_g=$((tot_g + g))
	tot_n=$((tot_n + ng))
	tot_b=$((tot_b + b))
done
[ $rst = 1 ] && rule
echo
awk -v p=$planned -v g=$tot_g -v n=$tot_n -v b=$tot_b -v o=$over 'BEGIN {
	printf "%d networks planned. Scratch growth over all of them: %d bytes;\n", p, g
	printf "stacked above the tensors: %d bytes; ratio %.3f (target: at most 0.25).\n",
		n, n ? g / n : 0
	printf "Least possible growth with these tensor offsets: %d bytes (ratio %.3f).\n",
		b, n ? b / n : 0
	if (o)
		printf "%d marked * grew more than stacking would have.\n", o
}'
if [ -n "$refused" ]; then
	echo
	echo "Refused:"
	echo
	printf '%s' "$refused"
fi
