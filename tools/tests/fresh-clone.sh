#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A user's clone: `git clone` the committed tree into an empty temporary
# folder (nothing beside it, no build/, no ../shared) and run the host tests
# there.  Everything they read must be inside the repository.  Prints one
# TAP line; the clone's failures follow as "# " lines.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
desc="a clone in an empty temporary folder passes the host tests"
if ! git -C "$root" rev-parse --verify -q HEAD >/dev/null 2>&1; then
	echo "ok - $desc # SKIP not a git checkout"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# NPA_BENCH_DIR would point the tests elsewhere: the clone uses its own.
unset NPA_BENCH_DIR
if ! git clone -q "$root" "$tmp/npa" 2>"$tmp/err"; then
	echo "not ok - $desc (git clone failed)"
	sed 's/^/# /' "$tmp/err"
	exit 1
fi
(cd "$tmp/npa" && make -s tools tests && make -s -C tools OUT="$tmp/npa/build" test) \
	>"$tmp/log" 2>&1
rc=$?
p=$(grep -c '^ok ' "$tmp/log")
f=$(grep '^not ok ' "$tmp/log" | grep -vc '# TODO')
if [ $rc = 0 ] && [ "$f" = 0 ] && [ "$p" -gt 100 ]; then
	echo "ok - $desc ($p passed)"
	exit 0
fi
echo "not ok - $desc (status $rc, $p passed, $f failed)"
grep '^not ok ' "$tmp/log" | sed 's/^/# /'
tail -20 "$tmp/log" | sed 's/^/# /'
exit 1
