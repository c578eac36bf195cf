# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# TAP helpers for the host shell tests, sourced by them.  Lines start at
# column 0: tools/check.sh counts "ok ..." and "not ok ..." lines, and a
# "not ok ... # TODO" is not counted as a failure.  Lines read "ok - ...";
# set tap_numbered=1 after sourcing for "ok N - ...".  $failed counts the
# failures, $tap_n the lines; check needs the scratch directory $tmp.

tap_n=0
tap_numbered=0
failed=0

# tap_line RESULT DESCRIPTION: one TAP line, "ok" or "not ok".
tap_line() {
	tap_n=$((tap_n + 1))
	if [ "$tap_numbered" = 1 ]; then
		echo "$1 $tap_n - $2"
	else
		echo "$1 - $2"
	fi
}

ok() {
	tap_line ok "$1"
}

notok() {
	failed=$((failed + 1))
	tap_line "not ok" "$1"
}

# todo DESCRIPTION REASON: a known failure, reported but not counted.
todo() {
	tap_line "not ok" "$1 # TODO $2"
}

skip() {
	tap_line ok "$1 # SKIP $2"
}

# check DESCRIPTION COMMAND...: one TAP line for one command; its output
# is shown as "# " lines when it fails.
check() {
	local desc=$1
	shift
	if "$@" >"${tmp:?}/out" 2>"$tmp/err"; then
		ok "$desc"
	else
		notok "$desc"
		sed 's/^/# /' "$tmp/out" "$tmp/err" | head -20
	fi
}
