#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/uapi-layers.sh: nothing below graph validation reads the uAPI.
#
# Graph validation (npa_graph) turns userspace's descriptors into the
# internal model (npa_ir.h); the planner, the operator kernels, the cost
# model, the NPU interface and its backends, and the carveout below it
# take only that form.  Every file of drivers/npa/ that is not validation
# or above it, and every KUnit suite of such a file, must not include
# <linux/npa.h>, directly or through the headers it includes.  Prints
# each offender and the chain of includes that reaches the header.
set -euo pipefail
cd "$(dirname "$0")/.."

# Validation and the layers above it (Documentation/driver.rst).
above=" npa_graph npa_uaccess npa_buffer npa_model npa_job npa_ioctl npa_drv npa_trace "

# The chain of local includes by which $1 reaches <linux/npa.h>, or nothing.
reaches() {
	local f=$1 seen=$2 h chain
	grep -q '^#include <linux/npa\.h>' "$f" && { echo "$f"; return; }
	while read -r h; do
		case " $seen " in *" $h "*) continue ;; esac
		[ -f "drivers/npa/$h" ] || continue
		chain=$(reaches "drivers/npa/$h" "$seen $h")
		[ -z "$chain" ] || { echo "$f -> $chain"; return; }
	done < <(sed -n 's/^#include "\(npa_[a-z0-9_]*\.h\)"/\1/p' "$f")
}

bad=0
for f in drivers/npa/*.[ch] kunit/npa_*_test.c; do
	base=$(basename "$f")
	base=${base%.[ch]}
	base=${base%_test}
	case "$above" in *" $base "*) continue ;; esac
	chain=$(reaches "$f" "")
	if [ -n "$chain" ]; then
		echo "uapi-layers: below validation, includes the uAPI: $chain -> <linux/npa.h>"
		bad=1
	fi
done
exit $bad
