#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Source line coverage of the pure files reached by a fuzz corpus:
#   tools/fuzz/coverage.sh [TARGET...]   (default: graph plan exec)
# Builds each target with clang's source-based coverage (no sanitizers),
# replays tools/fuzz/corpus/TARGET plus build/fuzz/work/TARGET (the corpus
# of the last run-long.sh campaign) and prints llvm-cov's report of the
# drivers/npa files the target links.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${FUZZ_OUT:=$top/build/fuzz}"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(graph plan exec)
# NPA_SRC: another copy of drivers/npa, e.g. a git checkout of what was fuzzed.
pure=${NPA_SRC:-$top/drivers/npa}
exec="$pure/npa_exec.c $pure/npa_exec_check.c $pure/npa_exec_mac.c"
plan="$pure/npa_plan.c $pure/npa_plan_bound.c $pure/npa_plan_fit.c $pure/npa_plan_search.c $pure/npa_plan_sched.c $pure/npa_plan_merge.c"
declare -A srcs=(
	[graph]="$pure/npa_graph.c $pure/npa_layout.c $pure/npa_cost.c $plan
		 $pure/npa_scratch.c $exec"
	[plan]="$plan"
	[exec]="$exec"
)
cov=$FUZZ_OUT/cov
mkdir -p "$cov"
for t in "${targets[@]}"; do
	bin=$cov/fuzz-$t
	# shellcheck disable=SC2086
	clang -std=gnu11 -D_GNU_SOURCE -O1 -fsanitize=fuzzer \
		-fprofile-instr-generate -fcoverage-mapping \
		-I"$here/include" -I"$here/../include" -I"$top/include/uapi" \
		-I"$pure" -o "$bin" "$here/fuzz_$t.c" ${srcs[$t]}
	dirs=("$here/corpus/$t")
	[ -d "$FUZZ_OUT/work/$t" ] && dirs+=("$FUZZ_OUT/work/$t")
	LLVM_PROFILE_FILE="$cov/$t.profraw" \
		"$bin" -runs=0 "${dirs[@]}" >"$cov/$t.log" 2>&1 || true
	llvm-profdata merge -sparse -o "$cov/$t.profdata" "$cov/$t.profraw"
	echo "== $t"
	# shellcheck disable=SC2086
	llvm-cov report "$bin" -instr-profile="$cov/$t.profdata" ${srcs[$t]} |
		sed "s|$pure/||"
done
