#!/bin/bash
# prepare.sh -- writes the check program of every case of bench/gemm/cases.txt
# (its reference and every candidate of the builtin, `egg generate
# --check-program` of the named launcher's bundle) into .device/gemm/, where
# run.sh finds them on a GPU machine that has no egg:
#
#   bench/gemm/prepare.sh [DIR]      (here: EGG, default the built ./egg)
#   then on the device, carrying .device:  bench/gemm/run.sh $OUT/gemm
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
egg=${EGG:-$top/egg}
export EGG_BUILTIN_TEMPLATES=${EGG_BUILTIN_TEMPLATES:-$top/builtin/templates}
dest=${1:-$top/.device/gemm}
mkdir -p "$dest"
rm -f "$dest"/*.cu "$dest"/*.json
grep -v '^#' "$top/bench/gemm/cases.txt" | while read -r name src launcher _ _ _ _ _ _ precision; do
	[ -n "$name" ] || continue
	"$egg" analyze "$top/$src" >"$dest/$name.all.json"
	python3 -c 'import json, sys
b = [b for b in json.load(open(sys.argv[1])) if b["name"] == sys.argv[3]]
assert b, "no launcher %s" % sys.argv[3]
if sys.argv[4] == "tf32":  # (what precision(tf32) and its tolerance give a bundle)
    b[0]["precision"] = "tf32"
    b[0]["tolerance"] = {"rtol": "2e-2", "atol": "5e-2"}
json.dump(b[0], open(sys.argv[2], "w"))' "$dest/$name.all.json" "$dest/$name.json" "$launcher" "$precision"
	rm -f "$dest/$name.all.json"
	"$egg" generate --check-program "$dest/$name.json" >"$dest/$name.cu"
	echo "$name: $(grep -c '^/\* candidate [0-9]*:' "$dest/$name.cu") candidates"
done
