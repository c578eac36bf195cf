#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: every stage prints TAP lines ("ok - ..." / "not ok - ...");
# this script times each stage, counts the lines and ends with the summary
# line "N passed, N failed".  Logs go to build/check/.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
logs=$here/build/check
rm -rf "$logs"
mkdir -p "$logs"
passed=0 failed=0

# stage NAME COMMAND...: run one stage, count its TAP lines.
stage() {
	local name=$1 start end p f rc
	shift
	start=$(date +%s)
	"$@" > "$logs/$name.log" 2>&1
	rc=$?
	end=$(date +%s)
	p=$(grep -c '^ok ' "$logs/$name.log")
	# TAP: "not ok ... # TODO" is a known shortfall, not a failure.
	f=$(grep '^not ok ' "$logs/$name.log" | grep -vc '# TODO')
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		# The stage failed without saying which test: count it as one.
		echo "not ok - stage $name exited with status $rc" >> "$logs/$name.log"
		f=1
	fi
	grep '^not ok ' "$logs/$name.log" | grep -v '# TODO' | sed "s/^/    $name: /"
	# What a guest's kernel reported (qemu-run.sh), for a log not kept.
	[ "$f" = 0 ] || grep '^qemu-run' "$logs/$name.log" | head -60 |
		sed "s/^/    $name: /"
	printf '%-8s %4d passed, %3d failed  (%ds)  %s\n' "$name" "$p" "$f" \
		$((end - start)) "build/check/$name.log"
	passed=$((passed + p))
	failed=$((failed + f))
}

# guest_tap LOG PREFIX: the TAP lines of a guest's console log, each
# description starting with PREFIX (the kernel series).
guest_tap() {
	sed -n '/^NPA-GUEST-BEGIN/,/^NPA-RESULT/p' "$1" | grep -E '^(not )?ok ' |
		sed -E "s/^((not )?ok) - /\1 - $2: /"
}

# tap DESCRIPTION COMMAND...: one TAP line for one command.
tap() {
	local desc=$1
	shift
	if "$@"; then echo "ok - $desc"; else echo "not ok - $desc"; fi
}

kdir=$(tools/build-kernel.sh 2>"$logs/kernel.log") || {
	cat "$logs/kernel.log"
	echo "check: the test kernel did not build"
	echo "0 passed, 1 failed"
	exit 1
}
src=$(readlink -f "$kdir/source")

lint() {
	local f ignore
	for f in drivers/npa/*.[ch] include/uapi/linux/npa.h kunit/*.c; do
		# npa_compat.h is where the kernel version checks go, which
		# checkpatch warns about wherever they are.
		ignore=
		[ "$f" != drivers/npa/npa_compat.h ] ||
			ignore=LINUX_VERSION_CODE,CONSTANT_COMPARISON
		tap "checkpatch --strict $f" \
			"$src/scripts/checkpatch.pl" --strict --no-tree --quiet \
			--show-types ${ignore:+--ignore "$ignore"} -f "$f"
	done
	tap "nothing below graph validation includes the uAPI header" \
		tools/uapi-layers.sh
	tap "libnpa.h: kernel-doc on every function, no warning" \
		"$src/scripts/kernel-doc" -none -Werror tools/lib/libnpa.h
	tap "Documentation/libnpa.rst is what tools/libnpa-doc.sh generates" \
		sh -c "tools/libnpa-doc.sh '$src' | cmp -s - Documentation/libnpa.rst"
	tap "sparse (C=2) and W=1 clean, test kernel" \
		tools/kmod-build.sh "$kdir" build/lint C=2 W=1 CONFIG_NPA_KUNIT_TEST=m
	dt_binding
}

# dt_check DTS SCHEMA_JSON: compile DTS and validate it with dt-schema,
# which exits 0 whatever it finds: any line it prints fails.
dt_check() {
	local dtb=${1%.dts}.dtb
	dtc -q -I dts -O dtb -o "$dtb" "$1" || return 1
	! dt-validate -s "$2" "$dtb" 2>&1 | grep .
}

# The device-tree binding of "npa,sim-npu", checked with Debian's
# dt-schema: the schema itself, its example, and the dt stage's .dtsi
# files as they would sit in a board's tree.  The reserved-memory
# bindings come from the kernel tree (dt-schema 2022.08 lacks them).
dt_binding() {
	local bindings=Documentation/devicetree/bindings out=build/lint/dt d dts
	local schema=$bindings/npu/npa,sim-npu.yaml
	rm -rf "$out" && mkdir -p "$out"
	tap "dt-doc-validate $schema" sh -c \
		"dt-doc-validate -u $bindings '$schema' 2>&1 | grep . && exit 1 || exit 0"
	dt-mk-schema -j "$bindings" "$src/$bindings/reserved-memory" \
		> "$out/schema.json" || { echo "not ok - dt-mk-schema"; return 1; }
	dt-extract-example "$schema" > "$out/example.dts"
	tap "the example of $schema passes dt-validate" \
		dt_check "$out/example.dts" "$out/schema.json"
	for d in tools/testing/npa-dt*.dtsi; do
		dts=$out/$(basename "$d" .dtsi).dts
		{
			echo '/dts-v1/;'
			echo '/ { compatible = "linux,dummy-virt"; model = "npa";'
			echo '    #address-cells = <2>; #size-cells = <2>; };'
			cat "$d"
		} > "$dts"
		tap "$d passes dt-validate" dt_check "$dts" "$out/schema.json"
	done
}

# Debian's own kernels, 6.1 and 6.12 (linux-image-6.12-amd64): npa.ko builds
# against their headers with W=1 and sparse, and runs in QEMU on them with
# a memmap= carveout, as in make demo (tools/testing/stock.sh).
stock() {
	local series kd vmlinuz rc cfgdir script=$logs/stock-guest.sh
	local nets="yolov3-tiny.cfg@128 resnet18.cfg@64" files=() n bad=
	make -s tools tests || return 1
	cfgdir=$(tools/darknet-cfgs.sh) || return 1
	for n in $nets; do
		files+=(-f "$cfgdir/${n%@*}")
	done
	files+=(-f tools/examples/inplace-activation.json)
	for n in tools/tests/bad-graphs/*.json; do
		files+=(-f "$n")
		bad+=" ${n##*/}"
	done
	{ echo "NETWORKS='$nets'"; echo "BAD_GRAPHS='$bad'"
	  cat tools/testing/stock.sh; } > "$script"
	for series in 6.1 6.12; do
		read -r kd vmlinuz < <(tools/stock-kernel.sh "$series") || {
			echo "not ok - Debian's $series kernel and headers installed"
			continue
		}
		if ! tools/kmod-build.sh "$kd" "build/stock-$series" C=2 W=1; then
			echo "not ok - npa.ko builds warning-free (W=1, sparse) against $kd"
			continue
		fi
		echo "ok - npa.ko builds warning-free (W=1, sparse) against $kd"
		rc=0
		tools/qemu-run.sh -k "$vmlinuz" -s "$script" \
			-a 'memmap=128M$0x20000000' -f "build/stock-$series/npa.ko" \
			-f build/bin/npactl -f build/bin/npa_e2e \
			-f build/bin/npa_model_e2e -f build/bin/npa_matrix \
			-f build/bin/npa_load "${files[@]}" \
			-l "$logs/stock-$series-console.log" -t 900 || rc=$?
		guest_tap "$logs/stock-$series-console.log" "$series"
		tap "Debian $series kernel guest run clean (status $rc, no kernel reports)" \
			test $rc = 0
	done
}

# The Debian packages: make deb, dpkg -i, DKMS, a boot of each Debian
# kernel with its DKMS-built npa.ko, purge (tools/tests/deb-install.sh).
deb() {
	tools/tests/deb-install.sh "$logs"
}

# The benchmark is not run by the check, but it must build and start.
bench_smoke() {
	make -s -C tools OUT="$here/build" bench-build &&
		build/bin/npa-bench --help >/dev/null &&
		build/bin/npa-bench --strips --strip-n 50 --seeds 1 >/dev/null
}

host() {
	make -s tools tests || { echo "not ok - host tools build"; return 1; }
	echo "ok - host tools build"
	if [ -f tools/Makefile ] && make -s -C tools -n test >/dev/null 2>&1; then
		make -s -C tools OUT="$here/build" test
	fi
	tap "npa-bench builds, prints its usage and plans 50-rect strips" bench_smoke
	tools/tests/fresh-clone.sh
}

kunit() {
	local rc=0
	tools/kmod-build.sh "$kdir" build/kunit CONFIG_NPA_KUNIT_TEST=m || return 1
	tools/qemu-run.sh -k "$kdir/arch/x86/boot/bzImage" -s tools/testing/kunit.sh \
		-f build/kunit/npa.ko -f build/kunit/npa_test.ko -l "$logs/kunit-console.log" -t 900 || rc=$?
	tap "KUnit guest run clean (status $rc, no kernel reports)" test $rc = 0
	tools/testing/kunit-tap.py "$logs/kunit-console.log" \
		"$src/tools/testing/kunit/kunit.py" "$logs/kunit"
}

# The e2e suite on the 6.1 debug kernel and on one built from
# linux-source-6.12 (Documentation/testing.rst, "Debug kernels and 6.12").
e2e() {
	local series sfx kd rc
	make -s tools tests || return 1
	# What the guest's job cycles must equal (tools/testing/e2e.sh).
	build/bin/npactl plan --json --out build/e2e-cycles.csv \
		tools/tests/e2e/cycles.cfg >build/e2e-cycles.json || return 1
	for series in 6.1 6.12; do
		sfx= kd=$kdir
		if [ $series != 6.1 ]; then
			sfx=-$series
			kd=$(tools/build-kernel.sh x86 $series 2>"$logs/kernel$sfx.log") || {
				cat "$logs/kernel$sfx.log"
				echo "not ok - x86 $series test kernel build"
				continue
			}
		fi
		tools/kmod-build.sh "$kd" "build/module$sfx" || {
			echo "not ok - $series: npa.ko builds for the e2e kernel"
			continue
		}
		# memmap=: a region e2e.sh loads npa.ko on as carveout_base at
		# the end.
		rc=0
		tools/qemu-run.sh -k "$kd/arch/x86/boot/bzImage" -s tools/testing/e2e.sh \
			-a 'memmap=16M$0x38000000' \
			-f "build/module$sfx/npa.ko" -f build/bin/npa_e2e -f build/bin/npa_model_e2e -f build/bin/npa_job_e2e -f build/bin/npa_failslab -f build/bin/npa_load -f build/bin/npa_matrix -f build/bin/npa_copyout \
			-f build/bin/npactl -f tools/tests/e2e/cycles.cfg \
			-f build/e2e-cycles.json -f build/e2e-cycles.csv \
			-l "$logs/e2e$sfx-console.log" -t 900 || rc=$?
		guest_tap "$logs/e2e$sfx-console.log" "$series"
		tap "$series: e2e guest run clean (status $rc, no kernel reports)" test $rc = 0
	done
}

# The device-tree paths (reserved-memory carveout, "npa,sim-npu" match) on
# an arm64 guest: its own small debug kernel, cached like the x86 one, from
# linux-source-6.1 and from linux-source-6.12.
dt() {
	local series sfx kd rc pool
	make -s -C tools/tests OUT="$here/build" dt || return 1
	for series in 6.1 6.12; do
		sfx=
		[ $series = 6.1 ] || sfx=-$series
		kd=$(tools/build-kernel.sh arm64 $series 2>"$logs/kernel-arm64$sfx.log") || {
			cat "$logs/kernel-arm64$sfx.log"
			echo "not ok - arm64 $series test kernel build"
			continue
		}
		if ! tools/kmod-build.sh "$kd" "build/arm64$sfx/module" W=1 \
			ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-; then
			echo "not ok - npa.ko builds warning-free for arm64 $series (W=1)"
			continue
		fi
		echo "ok - npa.ko builds warning-free for arm64 $series (W=1)"
		# The carveout in a no-map pool, then in a reusable (CMA) one.
		for pool in dt dt-cma; do
			rc=0
			tools/qemu-run.sh -A arm64 -k "$kd/arch/arm64/boot/Image" \
				-m 512 -i build/arm64/npa_dt \
				-d tools/testing/npa-$pool.dtsi \
				-f "build/arm64$sfx/module/npa.ko" \
				-l "$logs/$pool$sfx-console.log" -t 600 || rc=$?
			guest_tap "$logs/$pool$sfx-console.log" "$series"
			tap "$series: device-tree guest run clean, npa-$pool.dtsi (status $rc, no kernel reports)" \
				test $rc = 0
		done
	done
}

# NPA_STAGES="host e2e" runs only those stages (for development; CI runs all).
want() {
	case " ${NPA_STAGES:-lint stock deb host fuzz kunit e2e dt} " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

want lint && stage lint lint
want stock && stage stock stock
want deb && stage deb deb
want host && stage host host
want fuzz && stage fuzz make -s -C tools OUT="$here/build" fuzz-short
want kunit && stage kunit kunit
want e2e && stage e2e e2e
want dt && stage dt dt

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
