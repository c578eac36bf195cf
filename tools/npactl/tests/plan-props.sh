#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Properties of the planner over the benchmark corpus (the real traces and
# MiniMalloc's instances in tools/bench/data); run by `make -C tools test`.
# - monotone: twice the budget never gives a larger peak;
# - deterministic: the same input and budget give byte-identical plans
#   while two other processes keep both cores busy.
# Needs SELFTEST (npa-plan-selftest); NPA_BENCH_DIR holds traces/ and
# minimalloc/.
set -uo pipefail
: "${SELFTEST:?}"
bench=${NPA_BENCH_DIR:-$(cd "$(dirname "$0")/../../bench/data" && pwd)}
tmp=$(mktemp -d)
loaders=()
cleanup() {
	local pid
	for pid in "${loaders[@]}"; do
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
# shellcheck source=SCRIPTDIR/../../tests/tap.sh
. "$(dirname "$0")/../../tests/tap.sh"

corpus=("$bench"/traces/*.csv "$bench"/minimalloc/*.csv)
[ -e "${corpus[0]}" ] || { notok "plan-props: no corpus in $bench"; exit 1; }

# The self-test prints the "ok - ..." lines itself.
"$SELFTEST" --props monotone "${corpus[@]}" >"$tmp/mono" 2>&1
rc=$?
cat "$tmp/mono"
if grep -q '^not ok' "$tmp/mono"; then
	failed=$((failed + 1))
elif [ $rc != 0 ]; then
	notok "plan-props: monotone run exited with $rc"
fi

# One digest run alone, one while two busy loops load both cores.
if "$SELFTEST" --props digest "${corpus[@]}" >"$tmp/quiet"; then
	for _ in 1 2; do
		( while :; do :; done ) &
		loaders+=("$!")
	done
	"$SELFTEST" --props digest "${corpus[@]}" >"$tmp/loaded"
	rc=$?
	for pid in "${loaders[@]}"; do
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	loaders=()
	if [ $rc = 0 ] && cmp -s "$tmp/quiet" "$tmp/loaded" &&
	   [ "$(wc -l <"$tmp/quiet")" = "${#corpus[@]}" ]; then
		ok "deterministic: ${#corpus[@]} plans byte-identical under load"
	else
		notok "deterministic: plans differ under load (rc $rc)"
		diff "$tmp/quiet" "$tmp/loaded" | sed 's/^/# /'
	fi
else
	notok "deterministic: digest run failed"
fi
[ "$failed" = 0 ]
