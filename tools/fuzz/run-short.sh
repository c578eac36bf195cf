#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Short fuzzing run for `make check`: each target for FUZZ_SECONDS (20) over
# its seed corpus, one TAP line per target at column 0.  The corpus is
# copied to a scratch directory, so the committed seeds never change.
#   FUZZ_OUT=build/fuzz bash tools/fuzz/run-short.sh graph plan exec prop
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${FUZZ_OUT:=$here/../../build/fuzz}"
: "${FUZZ_SECONDS:=20}"
targets=("$@")
# A unit that runs longer than this is a hang. The work budget bounds every
# plan, but one graph planned twice at the default budget (2^21 units) takes
# about 11 s under ASAN and UBSAN on this class of machine (seeds
# 71bf2130..., prop seed-6), more under load.
: "${FUZZ_TIMEOUT:=60}"
[ ${#targets[@]} -gt 0 ] || targets=(graph plan exec prop)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

for t in "${targets[@]}"; do
	bin=$FUZZ_OUT/fuzz-$t
	if [ ! -x "$bin" ]; then
		echo "not ok - fuzz $t: $bin missing (make -C tools fuzz)"
		failed=$((failed + 1))
		continue
	fi
	mkdir -p "$tmp/$t"
	cp "$here/corpus/$t/"* "$tmp/$t/" 2>/dev/null
	log=$tmp/$t.log
	(cd "$tmp" && "$bin" -max_total_time="$FUZZ_SECONDS" -max_len=4096 \
		-timeout=$FUZZ_TIMEOUT -rss_limit_mb=1024 -print_final_stats=1 \
		-artifact_prefix="$tmp/$t-" "$tmp/$t" >"$log" 2>&1)
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1)
	if [ $rc -eq 0 ]; then
		echo "ok - fuzz $t: ${runs:-0} runs, no crash ($cov)"
	else
		echo "not ok - fuzz $t: crash after ${runs:-?} runs (rc $rc)"
		grep -m3 -E 'invariant violated|ERROR: |runtime error' "$log" | sed 's/^/# /'
		for a in "$tmp/$t"-crash-* "$tmp/$t"-leak-* "$tmp/$t"-timeout-*; do
			[ -e "$a" ] || continue
			mkdir -p "$FUZZ_OUT/short-artifacts"
			cp "$a" "$FUZZ_OUT/short-artifacts/"
			echo "# reproducer: $FUZZ_OUT/short-artifacts/$(basename "$a")"
		done
		failed=$((failed + 1))
	fi
done
exit $((failed > 0))
