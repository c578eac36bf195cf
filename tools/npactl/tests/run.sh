#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of the planner and npactl plan; run by `make -C tools test`.
# Prints TAP lines "ok N - ..." / "not ok N - ..." at column 0.
# Needs NPACTL and SELFTEST (binaries); NPA_BENCH_DIR holds traces/.
set -uo pipefail
: "${NPACTL:?}" "${SELFTEST:?}"
bench=${NPA_BENCH_DIR:-$(cd "$(dirname "$0")/../../bench/data" && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=SCRIPTDIR/../../tests/tap.sh
. "$(dirname "$0")/../../tests/tap.sh"
tap_numbered=1

# json_field FILE KEY: a scalar from npactl's one-line JSON output.
json_field() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}

# The planner self-test prints "ok - ..." lines: number them.
"$SELFTEST" >"$tmp/self" 2>&1
rc=$?
while IFS= read -r line; do
	case "$line" in
	"ok - "*) ok "${line#ok - }" ;;
	"not ok - "*) notok "${line#not ok - }" ;;
	*) echo "# $line" ;;
	esac
done <"$tmp/self"
[ $rc = 0 ] || [ $failed != 0 ] || notok "planner self-test exited with $rc"

# Every benchmark trace and MiniMalloc instance: valid plan (verified),
# never below the bound, never above the TFLite baseline (greedy_peak_bytes,
# which npactl computes on its own, null only when it could not run).
plan_trace() {
	local f=$1 out=$2
	"$NPACTL" plan --json --out "$out.csv" "$f" >"$out" || return 1
	python3 - "$out" <<'PY' || return 1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verified"] is True, d
assert d["peak_bytes"] >= d["lower_bound_bytes"] > 0, d
assert d["greedy_peak_bytes"] is not None, d
assert d["peak_bytes"] <= d["greedy_peak_bytes"], d
PY
	# --out has one line per buffer plus the header.
	[ "$(wc -l <"$out.csv")" = "$(($(json_field "$out" buffers) + 1))" ]
}
traces=$(ls "$bench"/traces/*.csv "$bench"/minimalloc/*.csv 2>/dev/null)
check "benchmark data found in $bench (12 traces, 6 MiniMalloc instances)" \
	test "$(echo "$traces" | wc -w)" = 18
for f in $traces; do
	check "npactl plan $(basename "$f"): verified, >= lower bound, <= greedy" \
		plan_trace "$f" "$tmp/$(basename "$f").json"
done

# The check above must be able to fail: a plan above greedy is refused.
plan_trace_fails() {
	local r='"verified": true, "lower_bound_bytes": 10, "buffers": 0'
	echo "{$r, \"peak_bytes\": 11, \"greedy_peak_bytes\": 10}" >"$tmp/fake.src"
	NPACTL=fake_npactl plan_trace in "$tmp/fake.json" && return 1
	echo "{$r, \"peak_bytes\": 10, \"greedy_peak_bytes\": null}" >"$tmp/fake.src"
	NPACTL=fake_npactl plan_trace in "$tmp/fake.json" && return 1
	echo "{$r, \"peak_bytes\": 10, \"greedy_peak_bytes\": 10}" >"$tmp/fake.src"
	NPACTL=fake_npactl plan_trace in "$tmp/fake.json"
}
# fake_npactl plan --json --out CSV IN: prints the report in fake.src and
# writes an empty plan (the header only).
fake_npactl() {
	cat "$tmp/fake.src"
	echo id,lower,upper,size,offset >"$4"
}
check "the trace check fails on a plan above greedy or a missing greedy peak" \
	plan_trace_fails

# CSV edge cases. expect_fail DESCRIPTION PATTERN CSV-TEXT
expect_fail() {
	local desc=$1 pattern=$2
	printf '%b' "$3" >"$tmp/in.csv"
	if "$NPACTL" plan "$tmp/in.csv" >"$tmp/out" 2>"$tmp/err"; then
		notok "$desc (accepted)"
	elif grep -q -- "$pattern" "$tmp/err"; then
		ok "$desc"
	else
		notok "$desc"
		sed 's/^/# /' "$tmp/err"
	fi
}
expect_fail "csv: empty file is refused" "in.csv:1: empty file" ""
expect_fail "csv: missing header is refused" "in.csv:1: header" \
	"0,0,1,10\n"
expect_fail "csv: non-number reported with file:line" \
	"in.csv:3: size 'ten' is not" "id,lower,upper,size\n0,0,1,10\n1,0,1,ten\n"
expect_fail "csv: negative number refused" "in.csv:2: lower '-1'" \
	"id,lower,upper,size\n0,-1,1,10\n"
expect_fail "csv: empty lifetime refused (half-open)" \
	"in.csv:2: empty lifetime" "id,lower,upper,size\n0,4,4,10\n"
expect_fail "csv: too many fields refused" "in.csv:2: expected 4 fields, found 5" \
	"id,lower,upper,size\n0,0,1,10,3\n"
expect_fail "csv: too few fields refused" "in.csv:3: expected 4 fields, found 3" \
	"id,lower,upper,size\n0,0,1,10\n1,0,1\n"
expect_fail "csv: size overflowing u64 refused" "in.csv:2: size" \
	"id,lower,upper,size\n0,0,1,18446744073709551616\n"
expect_fail "csv: sizes summing past u64 refused" "Value too large" \
	"id,lower,upper,size\n0,0,1,18446744073709551615\n1,0,1,1\n"
expect_fail "csv: lower above 32 bits refused" "in.csv:2: lower/upper" \
	"id,lower,upper,size\n0,0,4294967296,1\n"
expect_fail "csv: bad alignment refused" "in.csv:2: alignment 3" \
	"id,lower,upper,size,alignment\n0,0,1,10,3\n"
# A CR or NUL inside a line used to end the line there, silently.
expect_fail "csv: CR inside a line refused" "in.csv:2: carriage return" \
	"id,lower,upper,size\na,0,1,8\rgarbage\n"
expect_fail "csv: CR-only line ends refused" "in.csv:1: carriage return" \
	"id,lower,upper,size\ra,0,1,8\r"
expect_fail "csv: NUL byte refused" "in.csv:3: NUL byte" \
	"id,lower,upper,size\na,0,1,8\n\\0b,0,1,8\n"

rm -f "$tmp/in.csv"
if "$NPACTL" plan "$tmp/nonexistent.csv" 2>"$tmp/err"; then
	notok "csv: missing file refused"
else
	ok "csv: missing file refused"
fi

# A read error says why (it used to be "DIR:0: read error").
mkdir -p "$tmp/dir.csv"
if "$NPACTL" plan "$tmp/dir.csv" 2>"$tmp/err"; then
	notok "csv: a directory is refused with the reason (accepted)"
elif grep -q 'dir.csv:1: read error: Is a directory' "$tmp/err"; then
	ok "csv: a directory is refused with the reason"
else
	notok "csv: a directory is refused with the reason"
	sed 's/^/# /' "$tmp/err"
fi

csv_roundtrip() {
	printf 'id,lower,upper,size,alignment\r\n# comment\r\n\r\na,0,2,100,64\r\nb,1,3,50,0\r\nc,2,4,0,1\r\nd,3,5,30,4096\r\n' >"$tmp/in.csv"
	"$NPACTL" plan --out "$tmp/plan.csv" "$tmp/in.csv" >"$tmp/out" || return 1
	grep -q '^verified: *ok' "$tmp/out" || return 1
	head -1 "$tmp/plan.csv" | grep -qx 'id,lower,upper,size,offset' || return 1
	python3 - "$tmp/plan.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["id"] for r in rows] == ["a", "b", "c", "d"], rows
off = {r["id"]: int(r["offset"]) for r in rows}
assert off["a"] % 64 == 0 and off["d"] % 4096 == 0 and off["c"] == 0
a, b = off["a"], off["b"]
assert a + 100 <= b or b + 50 <= a
PY
}
check "csv: CRLF, comments, blank lines, alignment column, ids kept in --out" \
	csv_roundtrip

json_keys() {
	printf 'id,lower,upper,size\n0,0,2,10\n1,1,3,20\n2,2,4,30\n' >"$tmp/in.csv"
	"$NPACTL" plan --json "$tmp/in.csv" >"$tmp/j" || return 1
	python3 - "$tmp/j" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("buffers", "peak_bytes", "lower_bound_bytes", "naive_bytes",
          "plan_ns", "algorithm"):
    assert k in d, k
assert d["buffers"] == 3 and d["naive_bytes"] == 60
assert d["lower_bound_bytes"] == 50 and d["peak_bytes"] == 50
PY
}
check "npactl plan --json has the documented keys and values" json_keys

greedy_algo() {
	"$NPACTL" plan --json --algo greedy "$tmp/in.csv" >"$tmp/j" || return 1
	[ "$(json_field "$tmp/j" algorithm)" = greedy-by-size ]
}
check "npactl plan --algo greedy runs the baseline" greedy_algo

usage_errors() {
	"$NPACTL" plan --algo bogus "$tmp/in.csv" 2>/dev/null; [ $? = 2 ] || return 1
	"$NPACTL" plan --budget x "$tmp/in.csv" 2>/dev/null; [ $? = 2 ] || return 1
	"$NPACTL" plan 2>/dev/null; [ $? = 2 ] || return 1
	"$NPACTL" bogus 2>/dev/null; [ $? = 2 ] || return 1
	"$NPACTL" plan --help | grep -q 'half-open'
}
check "npactl: usage errors exit 2, --help documents half-open lifetimes" \
	usage_errors

# Every command that 'npactl --help' lists, so that a new one is covered
# without touching this list: --help exits 0 and prints its usage on
# stdout, without a device.
help_cmds=$("$NPACTL" --help | sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')
cmd_help() {
	"$NPACTL" "$1" --help >"$tmp/h" 2>"$tmp/h.err" || return 1
	grep -q "^usage: npactl $1" "$tmp/h" || return 1
	# ... in a terminal of 80 columns.
	! awk 'length > 80 { print "# too long: " $0; bad = 1 } END { exit !bad }' "$tmp/h"
}
# ... and its synopsis (up to the first blank line) names every option
# the text below it describes.
cmd_synopsis() {
	local o syn
	"$NPACTL" "$1" --help >"$tmp/h" 2>/dev/null || return 1
	syn=$(sed -n '/^usage:/,/^$/p' "$tmp/h")
	for o in $(grep -o '^ *--[a-z0-9-]*' "$tmp/h"); do
		grep -q -- "$o\b" <<<"$syn" || { echo "# $1: $o not in the synopsis"; return 1; }
	done
}
check "npactl --help lists the commands" test "$(echo $help_cmds | wc -w)" -ge 5
for cmd in $help_cmds; do
	check "npactl $cmd --help prints its usage in 80 columns and exits 0" \
		cmd_help "$cmd"
	check "npactl $cmd --help: the synopsis names every option described" \
		cmd_synopsis "$cmd"
done

extra_args() {
	"$NPACTL" info a b 2>/dev/null; [ $? = 2 ] || return 1
	"$NPACTL" stats --bogus 2>/dev/null; [ $? = 2 ]
}
check "npactl info and stats: extra arguments exit 2" extra_args

# Output that cannot be written fails the command (it used to exit 0).
write_error() {
	local args
	printf 'id,lower,upper,size\n0,0,1,8\n' >"$tmp/in.csv"
	for args in "plan $tmp/in.csv" "plan --json $tmp/in.csv" "plan --help"; do
		# shellcheck disable=SC2086
		"$NPACTL" $args >/dev/full 2>"$tmp/e" && { echo "# $args: exit 0"; return 1; }
		grep -q '^npactl: write error: No space left on device' "$tmp/e" || return 1
	done
}
if [ -w /dev/full ]; then
	check "npactl: a write error on stdout exits 1 with a message" write_error
else
	skip "npactl: a write error on stdout exits 1 with a message" "no /dev/full"
fi

# --seed 0 and --repeat 0 exited 2 without a word.
run_usage() {
	"$NPACTL" run --seed 0 x.cfg 2>"$tmp/e"; [ $? = 2 ] || return 1
	grep -q "bad --seed '0'" "$tmp/e" || return 1
	"$NPACTL" run --repeat 0 x.cfg 2>"$tmp/e"; [ $? = 2 ] || return 1
	grep -q "bad --repeat '0'" "$tmp/e"
}
check "npactl run: --seed 0 and --repeat 0 are refused with a message" run_usage

# A bad NETWORK@SIZE left the network's weights fd at 0: fd 0 was closed.
run_keeps_stdin() {
	strace -e trace=close -o "$tmp/st" "$NPACTL" run --device /dev/null \
		x.cfg@0 >/dev/null 2>&1
	[ $? = 2 ] || return 1
	grep -q 'close(' "$tmp/st" && ! grep '^close(0)' "$tmp/st"
}
if command -v strace >/dev/null && strace -o /dev/null true 2>/dev/null; then
	check "npactl run: a bad NETWORK@SIZE does not close stdin" run_keeps_stdin
else
	skip "npactl run: a bad NETWORK@SIZE does not close stdin" "no strace"
fi

budget_det() {
	"$NPACTL" plan --budget 5000 --out "$tmp/a.csv" "$bench/traces/resnet50.csv" >/dev/null &&
	"$NPACTL" plan --budget 5000 --out "$tmp/b.csv" "$bench/traces/resnet50.csv" >/dev/null &&
	cmp -s "$tmp/a.csv" "$tmp/b.csv"
}
check "npactl plan: same input and budget give the same plan" budget_det

echo "1..$tap_n"
[ $failed = 0 ]
