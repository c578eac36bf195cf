#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Cross-check npactl's Darknet shapes against Darknet itself: the darknet
# binary from the Debian package (unpacked by darknet-cfgs.sh, never
# installed) prints every layer's output shape while it parses a .cfg.  It
# links against OpenCV, which only its image code uses, so it runs here
# against empty stand-in libraries, and lazy binding never resolves the
# missing symbols.  Prints TAP lines; skips when darknet cannot run.
#
# Usage: host-graph-oracle.sh NPACTL CFG_DIR
set -uo pipefail

npactl=$1
cfgdir=$2
root=${cfgdir%/usr/share/darknet/cfg}
darknet=$root/usr/bin/darknet

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -x "$darknet" ]; then
	echo "ok - darknet oracle # SKIP no darknet binary in $root"
	exit 0
fi
echo 'void npa_stub(void) {}' > "$tmp/stub.c"
for lib in $(readelf -d "$darknet" | sed -n 's/.*Shared library: \[\(libopencv[^]]*\)\].*/\1/p'); do
	${CC:-cc} -shared -fPIC -o "$tmp/$lib" -Wl,-soname,"$lib" "$tmp/stub.c" || {
		echo "ok - darknet oracle # SKIP cannot build stand-in libraries"
		exit 0
	}
done
if ! LD_LIBRARY_PATH=$tmp "$darknet" 2>&1 | grep -q usage; then
	echo "ok - darknet oracle # SKIP darknet does not run here"
	exit 0
fi

fail=0
for cfg in "$cfgdir"/*.cfg; do
	name=$(basename "$cfg")
	# darknet prints the table while parsing, then fails on the weights.
	(cd "$tmp" && LD_LIBRARY_PATH=$tmp timeout 60 "$darknet" partial "$cfg" \
		/nonexistent.weights "$tmp/out" 1 >"$tmp/ref" 2>&1) >/dev/null 2>&1
	if ! "$npactl" graph "$cfg" >"$tmp/ours" 2>"$tmp/err"; then
		if grep -qE 'unsupported layer type|has no NPU operator' "$tmp/err"; then
			echo "ok - oracle $name # SKIP $(cat "$tmp/err")"
		else
			echo "not ok - oracle $name: $(cat "$tmp/err")"
			fail=1
		fi
		continue
	fi
	# Darknet: "  N kind ... -> W x H x C" or "-> COUNT"; ours: the last
	# output of the last operator of layer N, [1xCxHxW int8].  A crop of
	# the input is folded into the input tensor.
	if msg=$(awk '
		FNR == NR {
			if (match($0, /^ *[0-9]+ /) && index($0, "->")) {
				n = $1
				s = substr($0, index($0, "->") + 2)
				gsub(/x/, " ", s)
				split(s, v, " ")
				cnt = 0
				prod = 1
				for (i = 1; i in v; i++) {
					if (v[i] !~ /^[0-9]+$/)
						break
					prod *= v[i]
					cnt++
				}
				if (cnt == 3)
					ref[n] = v[3] "x" v[2] "x" v[1]
				if (index($0, "Crop Layer"))
					crop[n] = 1
				if (cnt)
					refn[n] = prod
			}
			next
		}
		!input && match($0, / input\[[0-9x]+ /) {
			input = substr($0, RSTART + 7, RLENGTH - 8)
		}
		$2 == "layer" {
			n = $3
			line = $0
			sub(/ scratch .*/, "", line)
			k = split(line, t, "[")
			d = t[k]
			sub(/ .*/, "", d)
			last[n] = d
		}
		END {
			bad = ""
			checked = 0
			for (n in refn) {
				if (n in crop)
					last[n] = input
				if (!(n in last)) {
					bad = bad " layer " n ": missing"
					continue
				}
				split(last[n], dd, "x")
				prod = 1
				for (i = 1; i in dd; i++)
					prod *= dd[i]
				if (n in ref) {
					got = dd[2] "x" dd[3] "x" dd[4]
					if (got != ref[n])
						bad = bad " layer " n ": " got " vs darknet " ref[n]
				} else if (prod != refn[n]) {
					bad = bad " layer " n ": " prod " values vs darknet " refn[n]
				}
				checked++
			}
			if (!checked)
				bad = " no layers compared"
			if (bad != "") {
				print bad
				exit 1
			}
			print checked
		}' "$tmp/ref" "$tmp/ours"); then
		echo "ok - oracle $name: $msg layer shapes match darknet"
	else
		echo "not ok - oracle $name:$msg"
		fail=1
	fi
done
exit $fail
