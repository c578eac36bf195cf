# SPDX-License-Identifier: GPL-2.0
# Sourced by the Darknet table scripts of tools/bench, with their
# arguments: [--rst] [NPACTL [CFG_DIR]].  Sets $here (tools/), $rst (1 for
# a reStructuredText table), $npactl and $cfgdir (Debian's darknet .cfg
# files, fetched by tools/darknet-cfgs.sh).
# shellcheck shell=bash
here=$(cd "$(dirname "$0")/.." && pwd)
rst=0
if [ "${1:-}" = --rst ]; then
	rst=1
	shift
fi
npactl=${1:-$here/../build/bin/npactl}
cfgdir=${2:-$("$here/darknet-cfgs.sh")}
