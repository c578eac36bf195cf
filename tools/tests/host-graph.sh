#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of npactl on model graphs (JSON graphs and Darknet .cfg files);
# run by `make -C tools test`.  Prints TAP lines "ok - ..." / "not ok - ..."
# at column 0; "# TODO" marks known shortfalls of the scratch placement that
# do not fail the run.  Needs NPACTL; the Darknet files come from
# tools/darknet-cfgs.sh (or NPA_DARKNET_CFG), and those tests are skipped
# when they cannot be had.
set -uo pipefail
: "${NPACTL:?}"
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=SCRIPTDIR/tap.sh
. "$here/tests/tap.sh"

# jf FILE KEY: a value from npactl's JSON output (true/false in lower case).
jf() {
	python3 -c 'import json, sys
v = json.load(open(sys.argv[1])).get(sys.argv[2])
print(str(v).lower() if isinstance(v, bool) else v)' "$1" "$2"
}

# Same report without the fields that differ from run to run.
stable_json() {
	python3 -c 'import json, sys
d = json.load(sys.stdin)
for k in ("input", "plan_ns", "note"):
    d.pop(k, None)
print(json.dumps(d, sort_keys=True))'
}

# plan_ok FILE [OPTS...]: plans, verified, scratch growth not above stacking
# when scratch may not grow the arena to save cycles.
# Leaves the JSON report in $tmp/plan.json.
plan_ok() {
	local f=$1
	shift
	"$NPACTL" plan --json --scratch-growth 0 "$@" "$f" >"$tmp/plan.json" ||
		return 1
	[ "$(jf "$tmp/plan.json" verified)" = true ] || return 1
	[ "$(jf "$tmp/plan.json" arena_bytes)" -ge \
	  "$(jf "$tmp/plan.json" lower_bound_bytes)" ] || return 1
	[ "$(jf "$tmp/plan.json" scratch_growth_bytes)" -le \
	  "$(jf "$tmp/plan.json" scratch_growth_naive_bytes)" ]
}

# --- JSON graphs ------------------------------------------------------------

for f in "$here"/examples/*.json; do
	check "json: example $(basename "$f") plans, verified, growth <= stacked" \
		plan_ok "$f"
done

# Reduced from go.cfg: see the comment in the file.
share_min=$here/tests/host-graph/scratch-share-min.json
if plan_ok "$share_min" >/dev/null 2>&1; then
	ok "json: variable scratch sharing a small free area grows <= stacking"
else
	notok "json: variable scratch sharing a small free area grows <= stacking"
fi

json_keys() {
	"$NPACTL" plan --json "$here/examples/concat-split.json" >"$tmp/j" || return 1
	for k in buffers tensors ops peak_bytes arena_bytes tensor_bytes \
		 lower_bound_bytes naive_bytes scratch_bytes_requested \
		 scratch_growth_bytes scratch_growth_naive_bytes plan_ns \
		 sim_cycles sim_cycles_unlimited sim_cycles_minimum \
		 algorithm verified; do
		[ "$(jf "$tmp/j" $k)" != None ] || { echo "no $k"; return 1; }
	done
	# Split and concat share: one buffer for the stem, one for the join.
	[ "$(jf "$tmp/j" buffers)" = 2 ] && [ "$(jf "$tmp/j" tensors)" = 11 ]
}
check "json: plan --json has the documented keys; split/concat share memory" \
	json_keys

inplace_shares() {
	"$NPACTL" plan --json "$here/examples/inplace-activation.json" >"$tmp/j" &&
	# conv1/relu1 share, pool1 own, conv2 own (relu2 is a model output).
	[ "$(jf "$tmp/j" buffers)" = 3 ]
}
check "json: an in-place activation shares its input's buffer" inplace_shares

roundtrip() {
	local f=$1
	"$NPACTL" graph --json "$f" >"$tmp/rt.json" || return 1
	"$NPACTL" plan --json "$f" | stable_json >"$tmp/a" &&
	"$NPACTL" plan --json "$tmp/rt.json" | stable_json >"$tmp/b" &&
	cmp "$tmp/a" "$tmp/b"
}
check "json: npactl graph --json round-trips an example" \
	roundtrip "$here/examples/scratch.json"

# npactl graph does not validate: a tensor id out of range is written as
# the id it is (it used to index the name table out of bounds).
graph_json_bad_id() {
	printf '%s' '{"tensors": [{"name": "a", "size": 8}], "ops": [
		{"kind": "copy", "inputs": [0], "outputs": [100000]},
		{"kind": "copy", "inputs": ["a"], "outputs": [1]}]}' >"$tmp/id.json"
	"$NPACTL" graph --json "$tmp/id.json" >"$tmp/id2.json" || return 1
	python3 -c 'import json, sys
g = json.load(open(sys.argv[1]))
sys.exit([o["outputs"] for o in g["ops"]] != [[100000], [1]])' "$tmp/id2.json"
}
check "json: graph --json writes out-of-range tensor ids as numbers" \
	graph_json_bad_id

# graph --json keeps dims with dtype "none" (they were dropped, turning
# an invalid graph valid) and a dtype without dims (written as "dims": []).
graph_json_dims() {
	printf '%s' '{"tensors": [
		{"name": "a", "dims": [2, 4], "dtype": "none", "size": 8},
		{"name": "b", "dtype": "int8", "size": 8}], "ops": []}' >"$tmp/d.json"
	"$NPACTL" graph --json "$tmp/d.json" >"$tmp/d2.json" || return 1
	python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["tensors"]
sys.exit(t[0].get("dims") != [2, 4] or t[0].get("dtype") != "none" or
	 "dims" in t[1] or t[1].get("dtype") != "int8")' "$tmp/d2.json"
}
check "json: graph --json writes dims and dtype as they were read" \
	graph_json_dims

graph_write_error() {
	local f=$here/examples/scratch.json
	! "$NPACTL" graph "$f" >/dev/full 2>"$tmp/e" &&
	! "$NPACTL" graph --json "$f" >/dev/full 2>>"$tmp/e" &&
	[ "$(grep -c '^npactl: write error: ' "$tmp/e")" = 2 ]
}
if [ -w /dev/full ]; then
	check "json: graph exits 1 when stdout cannot be written" graph_write_error
else
	skip "json: graph exits 1 when stdout cannot be written" "no /dev/full"
fi

csv_svg() {
	local f=$here/examples/concat-split.json
	"$NPACTL" plan --out "$tmp/p.csv" --svg "$tmp/p.svg" "$f" >/dev/null ||
		return 1
	head -1 "$tmp/p.csv" | grep -qx 'id,lower,upper,size,offset' || return 1
	grep -q '^joined,' "$tmp/p.csv" || return 1
	grep -q '^scratch0,' "$tmp/p.csv" || return 1
	head -1 "$tmp/p.svg" | grep -q '^<?xml' || return 1
	tail -1 "$tmp/p.svg" | grep -qx '</svg>' || return 1
	grep -q 'lower bound' "$tmp/p.svg" || return 1
	if command -v xmllint >/dev/null; then
		xmllint --noout "$tmp/p.svg" || return 1
	fi
}
check "json: --out writes placements as CSV, --svg a drawing" csv_svg

# svg_readable SVG: the drawing reads as a static picture (issue: names
# only in hover titles, ticks at 70.1 KiB, doubled step labels under 8
# steps, no legend, invisible small scratch), and renders to a PNG.
svg_readable() {
	python3 - "$1" <<'PY' || return 1
import re, sys
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
texts = [(t.get("class"), "".join(t.itertext())) for t in root.iter(ns + "text")]
addr = [x for c, x in texts if c == "addr"]
assert len(addr) >= 3, addr
for a in addr:
    m = re.fullmatch(r"(\d+) (B|KiB|MiB|GiB)", a)
    assert m, "tick not round: " + a
steps = [x for c, x in texts if c == "step"]
assert len(steps) == len(set(steps)) >= 2, steps
assert [x for c, x in texts if c == "op"], "no operator names under the steps"
legend = " ".join(x for c, x in texts)
assert "share memory" in legend and "scratch" in legend, legend
names = root.find(".//%sg[@class='names']" % ns)
assert names is not None and len(list(names)) >= 1, "no tensor name drawn"
for r in root.iter(ns + "rect"):
    t = r.find(ns + "title")
    if t is not None and t.text.startswith("scratch"):
        assert float(r.get("height")) >= 2.5, t.text
PY
	rsvg-convert -o "$1.png" "$1" || return 1
	# A PNG of the drawing's size.
	python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read(24)
assert d[:8] == b"\x89PNG\r\n\x1a\n", d
assert struct.unpack(">II", d[16:24]) == (1200, 720)' "$1.png"
}
svg_example() {
	"$NPACTL" plan --svg "$tmp/s.svg" "$here/examples/$1" >/dev/null &&
		svg_readable "$tmp/s.svg"
}
check "svg: scratch.json (5 steps) draws names, round ticks, a legend, renders to PNG" \
	svg_example scratch.json
check "svg: concat-split.json draws names, round ticks, a legend, renders to PNG" \
	svg_example concat-split.json
# The same check must fail on the old drawing: ticks of 70.1 KiB.
svg_check_fails() {
	"$NPACTL" plan --svg "$tmp/s.svg" "$here/examples/scratch.json" >/dev/null || return 1
	sed -i 's|class="addr"\([^>]*\)>[^<]*<|class="addr"\1>70.1 KiB<|' "$tmp/s.svg"
	! svg_readable "$tmp/s.svg"
}
check "svg: the check refuses a drawing with a tick at 70.1 KiB" svg_check_fails

# bad_json DESCRIPTION PATTERN JSON-TEXT: refused, with PATTERN on stderr.
bad_json() {
	local desc=$1 pattern=$2
	printf '%s' "$3" >"$tmp/bad.json"
	if "$NPACTL" plan "$tmp/bad.json" >"$tmp/out" 2>"$tmp/err"; then
		notok "json: $desc (accepted)"
	elif grep -qF -- "$pattern" "$tmp/err" && grep -qF bad.json "$tmp/err"; then
		ok "json: $desc"
	else
		notok "json: $desc"
		sed 's/^/# /' "$tmp/err"
	fi
}

T='"tensors": [{"name": "x", "dims": [1, 4], "flags": ["input"]},
               {"name": "y", "dims": [1, 4], "flags": ["output"]}]'
bad_json "empty file" "invalid JSON" ""
bad_json "syntax error names line and column" "bad.json:3:" \
	$'{\n  "tensors": [],\n  "ops": [,]\n}'
bad_json "trailing garbage" "invalid JSON" '{"tensors": [], "ops": []} x'
bad_json "control character in an op name" \
	'$.ops[0].name: an operator name may not hold a control character' \
	"{$T, \"ops\": [{\"name\": \"c\\u0007\", \"kind\": \"copy\"}]}"
bad_json "control character in the graph name" '$.name: a control character' \
	"{\"name\": \"g\\u001b\", $T, \"ops\": []}"
# Shell strings hold no NUL: the file is written by printf itself.
trailing_nul() {
	printf '{"tensors": [], "ops": []}\0\0\n' >"$tmp/nul.json"
	! "$NPACTL" plan "$tmp/nul.json" >/dev/null 2>"$tmp/err" &&
	grep -qF "nul.json:1:27: invalid JSON" "$tmp/err"
}
check "json: NUL bytes after the value are not blanks" trailing_nul
bad_json "not an object" '$: expected an object' '[1, 2]'
bad_json "unknown top-level key" '$: unknown key "op"' \
	"{$T, \"op\": []}"
bad_json "missing ops" '$.ops: expected an array' "{$T}"
bad_json "unknown tensor key" '$.tensors[0]: unknown key "shape"' \
	'{"tensors": [{"shape": [1]}], "ops": []}'
bad_json "tensor without size or dims" '$.tensors[0]: needs "size" or "dims"' \
	'{"tensors": [{"name": "x"}], "ops": []}'
bad_json "unknown dtype" '$.tensors[1].dtype: unknown value "float"' \
	'{"tensors": [{"size": 4}, {"dims": [4], "dtype": "float"}], "ops": []}'
bad_json "zero dimension" '$.tensors[0].dims[1]: a dimension must be' \
	'{"tensors": [{"dims": [1, 0]}], "ops": []}'
bad_json "five dimensions" '$.tensors[0].dims: expected 1 to 4' \
	'{"tensors": [{"dims": [1, 1, 1, 1, 1]}], "ops": []}'
bad_json "negative size" '$.tensors[0].size: negative value' \
	'{"tensors": [{"size": -4}], "ops": []}'
bad_json "size as a string" '$.tensors[0].size: expected an integer' \
	'{"tensors": [{"size": "4"}], "ops": []}'
bad_json "unknown tensor flag" '$.tensors[0].flags[1]: unknown flag "weights"' \
	'{"tensors": [{"size": 4, "flags": ["const", "weights"]}], "ops": []}'
# Names go unquoted into plan --out CSV: ',', '"', CR, LF and NUL would break
# rows; into the --svg XML and the terminal: no control character at all.
for n in 'a,b' 'a\nb' 'a\rb' 'a\"b' 'a\u0000b' 'a\u001b[31mb' 'a\u007fb'; do
	bad_json "tensor name $n refused" '$.tensors[0].name: a tensor name may not hold' \
		"{\"tensors\": [{\"name\": \"$n\", \"size\": 4}], \"ops\": []}"
done
bad_json "duplicate tensor name" '$.tensors[1].name: tensor "x" already defined' \
	'{"tensors": [{"name": "x", "size": 4}, {"name": "x", "size": 4}], "ops": []}'
bad_json "automatic name taken by an earlier tensor" \
	'$.tensors[1]: a tensor without a name is called "t1", but $.tensors[0] has' \
	'{"tensors": [{"name": "t1", "size": 4}, {"size": 4}], "ops": []}'
bad_json "name taken by an earlier automatic name" \
	'$.tensors[2].name: tensor "t1" already defined at $.tensors[1] (a tensor without' \
	'{"tensors": [{"size": 4}, {"size": 4}, {"name": "t1", "size": 4}], "ops": []}'
bad_json "unknown op kind" '$.ops[0].kind: unknown value "conv3d"' \
	"{$T, \"ops\": [{\"kind\": \"conv3d\"}]}"
bad_json "op without kind" '$.ops[0]: needs "kind"' \
	"{$T, \"ops\": [{\"inputs\": [\"x\"]}]}"
bad_json "unknown unit" '$.ops[0].unit: unknown value "gpu"' \
	"{$T, \"ops\": [{\"kind\": \"copy\", \"unit\": \"gpu\"}]}"
bad_json "unknown tensor reference" '$.ops[0].inputs[0]: unknown tensor "z"' \
	"{$T, \"ops\": [{\"kind\": \"copy\", \"inputs\": [\"z\"], \"outputs\": [\"y\"]}]}"
bad_json "nine params" '$.ops[0].params: at most 8' \
	"{$T, \"ops\": [{\"kind\": \"copy\", \"params\": [1,2,3,4,5,6,7,8,9]}]}"
bad_json "param above 32 bits" '$.ops[0].params[0]: 4294967296 does not fit' \
	"{$T, \"ops\": [{\"kind\": \"copy\", \"params\": [4294967296]}]}"
bad_json "unknown activation" '$.ops[0].params[0]: unknown value "tanh"' \
	"{$T, \"ops\": [{\"kind\": \"activation\", \"params\": [\"tanh\"]}]}"
bad_json "scratch without size" '$.ops[0].scratch[0]: needs "size"' \
	"{$T, \"ops\": [{\"kind\": \"copy\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"scratch\": [{}]}]}"
bad_json "unknown scratch flag" '$.ops[0].scratch[0].flags[0]: unknown flag' \
	"{$T, \"ops\": [{\"kind\": \"copy\", \"scratch\": [{\"size\": 1, \"flags\": [\"fast\"]}]}]}"
bad_json "version 2" '$.version: only version 1' \
	"{\"version\": 2, $T, \"ops\": []}"

# Valid JSON, invalid graph: npa_graph_validate()'s report, in words.
bad_json "validation: no ops" 'invalid graph: num_ops is 0, not a valid value (EINVAL)' "{$T, \"ops\": []}"
bad_json "validation: tensor id out of range" \
	'invalid graph: op 0 (copy), operand 0 (input): tensor id is out of range: it reaches 7, the array holds 2' \
	"{$T, \"ops\": [{\"kind\": \"copy\", \"inputs\": [7], \"outputs\": [\"y\"]}]}"
bad_json "validation: read before written" \
	"invalid graph: op 0 (copy), operand 0 (input): tensor 1 is read at or before op 1, which writes it [op 'op0', tensor 't1'] (EINVAL)" \
	'{"tensors": [{"size": 4}, {"size": 4}, {"size": 4, "flags": ["output"]}],
	  "ops": [{"kind": "copy", "inputs": [1], "outputs": [2]},
		  {"kind": "copy", "inputs": [0], "outputs": [1]}]}'
bad_json "validation: written twice" 'tensor 1 is written by op 0 already' \
	"{$T, \"ops\": [{\"kind\": \"copy\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]},
			{\"kind\": \"copy\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]}]}"
bad_json "validation: model input written" 'invalid graph: op 0 (copy), operand 1 (output): tensor 0 is a model input' \
	"{$T, \"ops\": [{\"kind\": \"copy\", \"inputs\": [\"y\"], \"outputs\": [\"x\"]}]}"
bad_json "validation: copy of another size" "op 0 (copy): num_outputs is 8 bytes, needs 4 [op 'c']" \
	'{"tensors": [{"dims": [4], "flags": ["input"]}, {"dims": [8], "flags": ["output"]}],
	  "ops": [{"name": "c", "kind": "copy", "inputs": [0], "outputs": [1]}]}'
bad_json "validation: variable scratch without minimum" \
	'invalid graph: op 0 (copy), scratch request 0: min_size is 0, not a valid value' \
	"{$T, \"ops\": [{\"kind\": \"copy\", \"inputs\": [\"x\"], \"outputs\": [\"y\"],
			\"scratch\": [{\"size\": 64, \"flags\": [\"variable\"]}]}]}"
# What npa_exec_check() refuses: the params, or an operand that does not
# fit the first input and the params, with what it has and needs.
bad_json "validation: the NPU cannot run these params" \
	"invalid graph: op 0 (conv2d): params are not what the NPU can execute on these shapes (Documentation/npu.rst) [op 'c']" \
	'{"tensors": [{"dims": [1, 3, 8, 8], "flags": ["input"]},
		      {"dims": [4, 3, 3, 3], "flags": ["const"]},
		      {"dims": [1, 4, 8, 8], "flags": ["output"]}],
	  "ops": [{"name": "c", "kind": "conv2d", "inputs": [0, 1], "outputs": [2],
		   "params": [3, 3, 0, 1, 1, 1, 1, 9]}]}'
bad_json "validation: an output of the wrong size" \
	"invalid graph: op 0 (conv2d): operand 2 (output) is 256 bytes, needs 144 [op 'c', tensor 'y'] (EINVAL)" \
	'{"tensors": [{"dims": [1, 3, 8, 8], "flags": ["input"]},
		      {"dims": [4, 3, 3, 3], "flags": ["const"]},
		      {"name": "y", "dims": [1, 4, 8, 8], "flags": ["output"]}],
	  "ops": [{"name": "c", "kind": "conv2d", "inputs": [0, 1], "outputs": [2],
		   "params": [3, 3, 1, 1, 0, 0, 1, 9]}]}'
bad_json "validation: a bias of the wrong size" \
	"invalid graph: op 0 (conv2d): operand 2 (bias) is 12 bytes, needs 16 [op 'c', tensor 'b'] (EINVAL)" \
	'{"tensors": [{"dims": [1, 3, 8, 8], "flags": ["input"]},
		      {"dims": [4, 3, 3, 3], "flags": ["const"]},
		      {"name": "b", "dims": [3], "dtype": "int32", "flags": ["const"]},
		      {"dims": [1, 4, 6, 6], "flags": ["output"]}],
	  "ops": [{"name": "c", "kind": "conv2d", "inputs": [0, 1, 2], "outputs": [3],
		   "params": [3, 3, 1, 1, 0, 0, 1, 9]}]}'
bad_json "validation: weights of another dtype" \
	"invalid graph: op 0 (fc): operand 1 (weights) is uint8, needs int8 [op 'f', tensor 'w'] (EINVAL)" \
	'{"tensors": [{"dims": [1, 16], "flags": ["input"]},
		      {"name": "w", "dims": [4, 16], "dtype": "uint8", "flags": ["const"]},
		      {"dims": [1, 4], "flags": ["output"]}],
	  "ops": [{"name": "f", "kind": "fc", "inputs": [0, 1], "outputs": [2],
		   "params": [0, 0, 0, 0, 0, 0, 0, 7]}]}'
bad_json "validation: dims and size disagree" "invalid graph: tensor 0: size is 5 bytes, needs 4 [tensor 'x']" \
	'{"tensors": [{"name": "x", "dims": [4], "size": 5, "flags": ["input"]},
		      {"dims": [4], "flags": ["output"]}],
	  "ops": [{"kind": "copy", "inputs": [0], "outputs": [1]}]}'

# The bad graphs that the stock stage runs in the guest, where npactl plan
# and npactl run must print the same line: the line, as expected.txt says.
bad_graph_line() {
	local want
	want=$(sed -n "s/^${1##*/}: //p" "$here/tests/bad-graphs/expected.txt")
	! "$NPACTL" plan "$1" >/dev/null 2>"$tmp/e" &&
		[ -n "$want" ] && [ "$(cat "$tmp/e")" = "npactl: $1: $want" ] &&
		return 0
	cat "$tmp/e" >&2
	return 1
}
for f in "$here"/tests/bad-graphs/*.json; do
	check "bad graph ${f##*/}: refused with the line expected.txt gives" \
		bad_graph_line "$f"
done

missing_file() {
	! "$NPACTL" plan "$tmp/none.json" 2>"$tmp/e" && grep -q 'none.json: No such file' "$tmp/e"
}
check "json: a missing file is refused with its name" missing_file

no_size_for_json() {
	! "$NPACTL" plan --size 64 "$here/examples/scratch.json" 2>"$tmp/e" &&
	grep -q 'apply to .cfg networks only' "$tmp/e"
}
check "json: --size is refused for JSON graphs" no_size_for_json

usage() {
	"$NPACTL" plan --size 0 x.cfg 2>/dev/null; [ $? = 2 ] || return 1
	"$NPACTL" plan --input 10 x.cfg 2>/dev/null; [ $? = 2 ] || return 1
	"$NPACTL" plan --im2col some x.cfg 2>/dev/null; [ $? = 2 ] || return 1
	"$NPACTL" plan --svg x.svg x.csv 2>/dev/null; [ $? = 2 ] || return 1
	"$NPACTL" graph 2>/dev/null; [ $? = 2 ] || return 1
	"$NPACTL" graph --help >"$tmp/help" && grep -q -- --json "$tmp/help"
}
check "npactl: graph option usage errors exit 2" usage

# --- Darknet ----------------------------------------------------------------

# bad_cfg DESCRIPTION PATTERN CFG-TEXT [OPTS]: refused with PATTERN.
bad_cfg() {
	local desc=$1 pattern=$2
	printf '%s' "$3" >"$tmp/bad.cfg"
	shift 3
	if "$NPACTL" plan "$@" "$tmp/bad.cfg" >"$tmp/out" 2>"$tmp/err"; then
		notok "darknet: $desc (accepted)"
	elif grep -qF -- "$pattern" "$tmp/err"; then
		ok "darknet: $desc"
	else
		notok "darknet: $desc"
		sed 's/^/# /' "$tmp/err"
	fi
}

NET=$'[net]\nwidth=32\nheight=32\nchannels=3\n'
CONV=$'[convolutional]\nfilters=8\nsize=3\npad=1\nactivation=leaky\n'
bad_cfg "unknown layer type named" \
	"bad.cfg: layer 1: unsupported layer type [lstm]" "$NET$CONV[lstm]"$'\n'
bad_cfg "no [net] first" "first section is [convolutional]" "$CONV"
bad_cfg "line without =" "line 2: expected key=value" $'[net]\nwidth\n'
bad_cfg "non-numeric option" "layer 0: line 6: filters=eight is not an integer" \
	"$NET"$'[convolutional]\nfilters=eight\n'
bad_cfg "route to a later layer" "layer 1: layers: '5' is not an earlier layer" \
	"$NET$CONV"$'[route]\nlayers=5\n'
bad_cfg "route of different sizes" "layer 2: route inputs 16x16 and 32x32 differ in size" \
	"$NET$CONV"$'[maxpool]\nsize=2\nstride=2\n[route]\nlayers=-1,-2\n'
bad_cfg "shortcut without from" "[shortcut] without from=" "$NET$CONV[shortcut]"$'\n'
bad_cfg "activation the NPU lacks" \
	"layer 0: activation=ramp has no NPU operator" \
	"$NET"$'[convolutional]\nactivation=ramp\n'
bad_cfg "downsampling upsample" "layer 1: stride=-2: the NPU only upsamples" \
	"$NET$CONV"$'[upsample]\nstride=-2\n'
# Shapes are computed in 64 bits: these used to wrap into garbage shapes.
UP=$'[upsample]\nstride=1023\n'
bad_cfg "upsample past 32 bits" \
	"layer 3: upsample output 1095222947841x1095222947841x1: a dimension above" \
	$'[net]\nwidth=1\nheight=1\nchannels=1\n'"$UP$UP$UP$UP"
bad_cfg "reorg channels past 32 bits" \
	"layer 0: reorg output 1x1x4294967296: a dimension above" \
	$'[net]\nwidth=256\nheight=256\nchannels=65536\n[reorg]\nstride=256\n'
bad_cfg "route channels past 32 bits" \
	"layer 1: concat output 2x2x4294967296: a dimension above" \
	$'[net]\nwidth=256\nheight=256\nchannels=65536\n[reorg]\nstride=128\n[route]\nlayers=-1,-1,-1,-1\n'
# 60787 x 69 x 32 x 32 = 2^32 - 1024: its padding used to wrap to a few bytes.
WIDE=$'[net]\nwidth=60787\nheight=1\nchannels=1\n[upsample]\nstride=69\n[upsample]\nstride=32\n[upsample]\nstride=32\n'
bad_cfg "padded conv input past 32 bits" \
	"layer 3: conv output 4294968318x72702x1: a dimension above" \
	"$WIDE"$'[convolutional]\nfilters=1\nsize=3\npadding=1024\nactivation=linear\n'
bad_cfg "padded maxpool input past 32 bits" \
	"layer 3: maxpool output 4294967296x71680x1: a dimension above" \
	"$WIDE"$'[maxpool]\nsize=1\nstride=1\npadding=1024\n'
bad_cfg "reverse reorg" "layer 1: [reorg] with reverse=1 has no NPU operator" \
	"$NET$CONV"$'[reorg]\nstride=2\nreverse=1\n'
bad_cfg "yolo head of the wrong size" "[yolo] expects" \
	"$NET$CONV"$'[yolo]\nclasses=80\nmask=0,1,2\nnum=9\n'
bad_cfg "input too small for the kernel" "kernel larger than" \
	"$NET"$'[convolutional]\nsize=5\n' --size 2
bad_cfg "groups that do not divide" "groups=2 does not divide 3 channels" \
	"$NET"$'[convolutional]\ngroups=2\nfilters=4\n'
# Scratch sizes in 64 bits, checked: this im2col is 2^40 x 2^24 bytes and
# used to wrap to 0, so the layer was planned without it.
bad_cfg "im2col scratch past 64 bits" \
	"layer 1: im2col scratch of 1099511627776 x 16777216 bytes overflows 64 bits" \
	$'[net]\nheight=15361\nwidth=1\nchannels=1\n[convolutional]\nfilters=1048576\nsize=1\nactivation=linear\n[convolutional]\nfilters=1\nsize=1024\npadding=1023\nactivation=linear\n'
# 161 bytes of cfg asked for 2^20 SPLIT outputs a reference (1.4 GB, 6 s)
# before validation refused the graph for its 2^16 tensor limit.
bad_cfg "route groups past the tensor limit" \
	"layer 1: more than the kernel's 65536 tensors in one graph" \
	$'[net]\nwidth=1\nheight=1\nchannels=1\n[convolutional]\nfilters=1048576\nsize=1\n[route]\nlayers=0,0,0,0,0,0,0,0\ngroups=1048576\n'
bad_cfg "crop after the first layer" "layer 1: [crop] is only supported as the first layer" \
	"$NET"$'[cost]\n[crop]\ncrop_height=10\ncrop_width=10\n'

small_cfg() {
	printf '%s' "$NET$CONV"$'[maxpool]\nsize=2\nstride=2\n[route]\nlayers=-1\ngroups=2\ngroup_id=1\n[upsample]\nstride=2\n[route]\nlayers=-1,-4\n[shortcut]\nfrom=-3\n[avgpool]\n[connected]\noutput=10\n[softmax]\n[cost]\n' >"$tmp/s.cfg"
	plan_ok "$tmp/s.cfg" || return 1
	"$NPACTL" graph "$tmp/s.cfg" >"$tmp/g" || return 1
	# NCHW; groups=2 on 8 channels: a SPLIT into two 4-channel halves.
	grep -qF 'layer 2 route group: split/dma l1.maxpool[1x8x16x16 int8] -> l2.group[1x4x16x16 int8] l2.group[1x4x16x16 int8]' "$tmp/g" || return 1
	grep -qF 'layer 4 route: concat/dma l3.upsample[1x4x32x32 int8] l0.leaky[1x8x32x32 int8] -> l4.concat[1x12x32x32 int8]' "$tmp/g" || return 1
	grep -qF 'layer 5 shortcut: add/npu inplace l4.concat[1x12x32x32 int8] l2.group[1x4x16x16 int8]' "$tmp/g" || return 1
	grep -qF 'layer 7 connected: fc/npu l6.avgpool[1x12x1x1 int8] l7.weights[10x12 int8] l7.bias[10 int32] -> l7.fc' "$tmp/g" || return 1
	# The softmax runs on the CPU after the job: its input is the output.
	"$NPACTL" graph --json "$tmp/s.cfg" >"$tmp/s.json" || return 1
	python3 -c 'import json, sys
g = json.load(open(sys.argv[1]))
out = [t["name"] for t in g["tensors"] if "output" in t.get("flags", [])]
sys.exit(out != ["l7.logistic"] or g["ops"][-1]["kind"] != "activation")' "$tmp/s.json"
}
check "darknet: route groups split, route concat, shortcut, fc, softmax and cost on the CPU" \
	small_cfg

cfgdir=${NPA_DARKNET_CFG:-}
if [ -z "$cfgdir" ]; then
	cfgdir=$("$here/darknet-cfgs.sh" 2>"$tmp/err") || cfgdir=
fi
if [ -z "$cfgdir" ] || [ ! -d "$cfgdir" ]; then
	skip "darknet corpus" "no darknet .cfg files: $(tail -1 "$tmp/err" 2>/dev/null)"
	echo "# $failed failed"
	[ $failed = 0 ]
	exit
fi

# Shapes Darknet itself prints for these layers (darknet partial ...).
shapes() {
	local cfg=$cfgdir/$1
	shift
	"$NPACTL" graph "$cfg" >"$tmp/g" || return 1
	while [ $# -gt 0 ]; do
		grep -qF -- "$1" "$tmp/g" || { echo "missing: $1"; return 1; }
		shift
	done
}
check "darknet: yolov3-tiny shapes (maxpool stride 1, route, upsample)" \
	shapes yolov3-tiny.cfg \
	'-> l11.maxpool[1x512x13x13 int8]' \
	'layer 20 route: concat/dma l19.upsample[1x128x26x26 int8] l8.leaky[1x256x26x26 int8] -> l20.concat[1x384x26x26 int8]' \
	'-> l22.conv[1x255x26x26 int8]'
check "darknet: alexnet shapes (11x11/4 conv, maxpool padding=0, fc)" \
	shapes alexnet.cfg '-> l0.conv[1x96x55x55 int8]' \
	'-> l1.maxpool[1x96x27x27 int8]' '-> l7.maxpool[1x256x6x6 int8]' \
	'l8.weights[4096x9216 int8]'
check "darknet: yolov2 shapes (reorg as reshape, reorg, reshape; route)" \
	shapes yolov2.cfg \
	'layer 27 reorg view: reshape/npu l26.leaky[1x64x38x38 int8] -> l27.reorg.in[1x16x76x76 int8]' \
	'layer 27 reorg: reorg/npu l27.reorg.in[1x16x76x76 int8] -> l27.reorg.out[1x64x38x38 int8]' \
	'-> l27.reorg[1x256x19x19 int8]' '-> l28.concat[1x1280x19x19 int8]' \
	'-> l30.conv[1x425x19x19 int8]'
check "darknet: go shapes (reorg extra=1: 361 -> 362 by a concat)" \
	shapes go.cfg \
	'layer 14 reorg: concat/dma l13.conv[1x1x19x19 int8] l14.extra[1x1 int8] -> l14.reorg[1x362x1x1 int8]'
check "darknet: resnext50 grouped 3x3 conv is conv2d with 32 groups" \
	shapes resnext50.cfg \
	'layer 3 convolutional: conv2d/npu l2.leaky[1x128x64x64 int8] l3.weights[128x4x3x3 int8]'
check "darknet: vgg-16 [crop] is folded into a 224x224 input" \
	shapes vgg-16.cfg '# [crop] folded into the input: 224x224 centre of 256x256' \
	'input[1x3x224x224 int8]'
check "darknet: densenet201 routes concatenate" \
	shapes densenet201.cfg '-> l4.concat[1x96x64x64 int8]'

heads_are_outputs() {
	"$NPACTL" graph --json "$cfgdir/yolov3.cfg" >"$tmp/y.json" || return 1
	python3 -c 'import json, sys
g = json.load(open(sys.argv[1]))
out = [t["name"] for t in g["tensors"] if "output" in t.get("flags", [])]
sys.exit(out != ["l81.conv", "l93.conv", "l105.conv"])' "$tmp/y.json"
}
check "darknet: yolov3's three heads feed model outputs (decoded on the CPU)" \
	heads_are_outputs

resize() {
	"$NPACTL" plan --size 320 "$cfgdir/yolov3.cfg" >"$tmp/o" || return 1
	grep -q 'input resolution 320x320 (the cfg says 608x608)' "$tmp/o" || return 1
	"$NPACTL" plan --json --input 416x288 "$cfgdir/resnet50.cfg" >"$tmp/j" || return 1
	jf "$tmp/j" note | grep -q 'input resolution 416x288 (the cfg says 256x256)' ||
		return 1
	"$NPACTL" graph --size 416 "$cfgdir/yolov3.cfg" >"$tmp/g" &&
	grep -qF -- '-> l105.conv[1x255x52x52 int8]' "$tmp/g"
}
check "darknet: --size/--input change the resolution and say so" resize

svg_darknet() {
	"$NPACTL" plan --size 64 --svg "$tmp/r.svg" "$cfgdir/resnet50.cfg" >/dev/null &&
		svg_readable "$tmp/r.svg" &&
		grep -q 'operator named)' "$tmp/r.svg"
}
check "svg: resnet50 (117 steps) names every k-th operator, renders to PNG" \
	svg_darknet

# sim_cycles_order FILE: the cost model's estimates are set and ordered:
# more scratch never costs cycles.
sim_cycles_order() {
	local p u m
	"$NPACTL" plan --json "$1" >"$tmp/j" || return 1
	p=$(jf "$tmp/j" sim_cycles)
	u=$(jf "$tmp/j" sim_cycles_unlimited)
	m=$(jf "$tmp/j" sim_cycles_minimum)
	echo "# $(basename "$1"): unlimited $u <= planned $p <= minimum $m"
	[ "$u" -gt 0 ] && [ "$u" -le "$p" ] && [ "$p" -le "$m" ] || return 1
	# Variable im2col scratch: the least of it costs passes.
	[ "${2:-}" != strict ] || [ "$u" -lt "$m" ]
}
check "cost: scratch.json: 0 < sim_cycles_unlimited <= sim_cycles <= minimum" \
	sim_cycles_order "$here/examples/scratch.json"
check "cost: vgg-16: one-tile im2col costs more cycles than the whole buffer" \
	sim_cycles_order "$cfgdir/vgg-16.cfg" strict

im2col() {
	local f=$cfgdir/yolov3-tiny.cfg
	# 3x3x3 patches for 416x416 outputs: all of them in one fixed buffer,
	# or at least one 416-pixel row, or one 16-pixel tile (the default).
	"$NPACTL" graph --im2col full "$f" >"$tmp/full" &&
	"$NPACTL" graph --im2col row "$f" >"$tmp/row" &&
	"$NPACTL" graph "$f" >"$tmp/tile" &&
	grep -q '^0 layer 0 convolutional: .* scratch 4672512, 128$' "$tmp/full" &&
	grep -q '^0 layer 0 convolutional: .* scratch 4672512(min 11232), 128$' "$tmp/row" &&
	grep -q '^0 layer 0 convolutional: .* scratch 4672512(min 432), 128$' "$tmp/tile" &&
	# No accumulator for pooling: nothing would read it.
	grep -q '^2 layer 1 maxpool: maxpool/npu .* -> l1.maxpool\[1x16x208x208 int8\]$' "$tmp/tile"
}
check "darknet: im2col scratch full, by row or tile (default); 8-byte accumulators, none for pooling" im2col

# The trade-off table of Documentation/npu.rst is what the script prints.
cycles_table() {
	"$here/bench/cycles-table.sh" --rst "$NPACTL" "$cfgdir" >"$tmp/ct" &&
	python3 -c 'import sys
doc = open(sys.argv[1]).read()
sys.exit(open(sys.argv[2]).read() not in doc)' \
		"$here/../Documentation/npu.rst" "$tmp/ct"
}
check "cost: Documentation/npu.rst's arena against cycles table is tools/bench/cycles-table.sh's" \
	cycles_table

# Every network of the package plans or is refused by name.  The cycles
# target (Documentation/npu.rst, "Arena bytes against cycles") holds over
# the networks for which 5% growth is feasible: those whose minimum scratch
# fits in 5% of their tensors' arena (scratch_growth_bound_bytes, the least
# growth any placement of the minimums could reach).  The others are
# exempt, listed, and each checked to really need more.
tot_g=0 tot_n=0 tot_p=0 tot_u=0 feas_p=0 feas_u=0 nfeas=0 exempt=
for cfg in "$cfgdir"/*.cfg; do
	name=$(basename "$cfg")
	if "$NPACTL" plan --json "$cfg" >"$tmp/cost.json" 2>/dev/null; then
		# Up to 5% of the tensors' arena buys cycles, beside the minimums.
		p=$(jf "$tmp/cost.json" sim_cycles)
		u=$(jf "$tmp/cost.json" sim_cycles_unlimited)
		m=$(jf "$tmp/cost.json" sim_cycles_minimum)
		g=$(jf "$tmp/cost.json" scratch_growth_bytes)
		n=$(jf "$tmp/cost.json" scratch_growth_naive_bytes)
		b=$(jf "$tmp/cost.json" scratch_growth_bound_bytes)
		t=$(jf "$tmp/cost.json" tensor_bytes)
		tot_p=$((tot_p + p))
		tot_u=$((tot_u + u))
		if [ "$p" -gt "$m" ] || [ "$g" -gt $((n + t * 5 / 100)) ]; then
			notok "cost: $name: $p cycles <= $m at least scratch, growth $g <= $n + 5% of $t"
		fi
		if [ $((100 * b)) -le $((5 * t)) ]; then
			feas_p=$((feas_p + p))
			feas_u=$((feas_u + u))
			nfeas=$((nfeas + 1))
		elif [ "$g" -ge "$b" ] && [ $((100 * g)) -gt $((5 * t)) ]; then
			exempt="$exempt ${name%.cfg}"
		else
			notok "cost: $name exempt: its least growth $b and growth $g exceed 5% of $t"
		fi
	fi
	if "$NPACTL" plan --json --scratch-growth 0 "$cfg" >"$tmp/plan.json" 2>"$tmp/err"; then
		if [ "$(jf "$tmp/plan.json" verified)" != true ]; then
			notok "darknet: $name plan verified"
			continue
		fi
		g=$(jf "$tmp/plan.json" scratch_growth_bytes)
		n=$(jf "$tmp/plan.json" scratch_growth_naive_bytes)
		b=$(jf "$tmp/plan.json" scratch_growth_bound_bytes)
		if [ "$g" -lt "$b" ] || [ "$b" -gt "$n" ]; then
			notok "darknet: $name: least possible growth $b <= growth $g, stacked $n"
			continue
		fi
		tot_g=$((tot_g + g))
		tot_n=$((tot_n + n))
		if [ "$g" -le "$n" ]; then
			ok "darknet: $name plans, verified, scratch growth $g <= stacked $n"
		else
			notok "darknet: $name plans, verified, scratch growth $g <= stacked $n"
		fi
	elif grep -qE "^npactl: $cfg: layer [0-9]+: (unsupported layer type \[[a-z]+\]|activation=[a-z]+ has no NPU operator .*)$" \
		"$tmp/err"; then
		ok "darknet: $name refused: $(sed 's/.*: layer/layer/' "$tmp/err")"
	else
		notok "darknet: $name"
		sed 's/^/# /' "$tmp/err"
	fi
done
# The issue's target as written: over every network that plans.
desc="cost: all networks: sim_cycles $tot_p within 5% of unlimited scratch $tot_u"
if [ $((100 * tot_p)) -le $((105 * tot_u)) ] && [ "$tot_u" -gt 0 ]; then
	ok "$desc"
else
	notok "$desc"
fi
desc="cost: the $nfeas networks where 5% growth is feasible: sim_cycles $feas_p within 5% of unlimited scratch $feas_u"
if [ $((100 * feas_p)) -le $((105 * feas_u)) ] && [ "$feas_u" -gt 0 ]; then
	ok "$desc"
else
	notok "$desc"
fi
# The exempt ones: each one's minimum scratch needs more than 5% growth,
# and its plan grows by more (checked above); they stay few.
desc="cost: exempt, least growth above 5% of the tensors' arena:${exempt:- none}"
if [ $((4 * $(echo "$exempt" | wc -w))) -le "$nfeas" ]; then
	ok "$desc"
else
	notok "$desc"
fi
desc="darknet: corpus scratch growth $tot_g <= 1/4 of stacked $tot_n"
if [ $((4 * tot_g)) -le "$tot_n" ]; then
	ok "$desc"
else
	notok "$desc"
fi

# Darknet's own parser agrees on every layer's shape (when it runs here).
"$here/tests/host-graph-oracle.sh" "$NPACTL" "$cfgdir" >"$tmp/oracle"
rc=$?
cat "$tmp/oracle"
[ $rc = 0 ] || failed=$((failed + 1))

echo "# $failed failed"
[ $failed = 0 ]
