#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Long fuzzing campaign: tools/fuzz/run-long.sh [SECONDS] [TARGET...]
# Runs each target (default: graph plan exec) for SECONDS (default 600),
# one after the other, with a working corpus in build/fuzz/work/TARGET
# seeded from tools/fuzz/corpus/TARGET, and prints a summary line per
# target (runs, exec/s, cov, ft, crashes).  FUZZ_JOBS=2 runs two targets
# at once.
# To grow the committed seeds by a curated handful afterwards:
#   build/fuzz/fuzz-T -merge=1 tools/fuzz/corpus/T build/fuzz/work/T
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${FUZZ_OUT:=$here/../../build/fuzz}"
secs=${1:-600}
shift || true
targets=("$@")
# A unit that runs longer than this is a hang. The work budget bounds every
# plan, but one graph planned twice at the default budget (2^21 units) takes
# about 11 s under ASAN and UBSAN on this class of machine (seeds
# 71bf2130..., prop seed-6), more under load.
: "${FUZZ_TIMEOUT:=60}"
[ ${#targets[@]} -gt 0 ] || targets=(graph plan exec)

make -s -C "$here" FUZZ_OUT="$FUZZ_OUT" >/dev/null || exit 1

run() {
	local t=$1 work=$FUZZ_OUT/work/$t log=$FUZZ_OUT/work/$t.log
	mkdir -p "$work" "$FUZZ_OUT/artifacts"
	"$FUZZ_OUT/fuzz-$t" -max_total_time="$secs" -max_len=4096 -timeout=$FUZZ_TIMEOUT \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$FUZZ_OUT/artifacts/$t-" \
		"$work" "$here/corpus/$t" >"$log" 2>&1
	local rc=$?
	local runs eps cov crashes
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1)
	crashes=$(ls "$FUZZ_OUT/artifacts/$t-"* 2>/dev/null | wc -l)
	echo "$t: ${secs}s rc=$rc runs=${runs:-?} exec/s=${eps:-?} $cov" \
	     "sanitizer-reports=$(grep -c 'ERROR: AddressSanitizer\|runtime error' "$log")" \
	     "artifacts=$crashes log=$log"
}

if [ "${FUZZ_JOBS:-1}" -ge 2 ]; then
	for t in "${targets[@]}"; do
		run "$t" &
	done
	wait
else
	for t in "${targets[@]}"; do
		run "$t"
	done
fi
