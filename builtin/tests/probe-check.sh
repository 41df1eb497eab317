#!/bin/bash
# probe-check.sh OUTDIR [CASE_REGEX] -- on a GPU machine, with egg on PATH: every
# candidate the builtin generator writes for every bench case, judged by
# `egg eval --no-timing` with the validity domain's probe calls (each size
# scalar at 1, at small odd primes, at the next prime above and one below its
# named value; bases offset by one element).  Prints one line per case (how many
# candidates pass, how many are refused at a probe call and why) and a total;
# writes OUTDIR/probe-check.txt and each case's result JSON.
#
# Exit: 0 every candidate that is right at the named workloads is right at the
# probes too; 1 otherwise; 77 no GPU.
set -u
out=${1:?usage: probe-check.sh OUTDIR [CASE_REGEX]}
re=${2:-.}
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
export EGG_CACHE_DIR=${EGG_CACHE_DIR:-$out/cache}
txt=$out/probe-check.txt
{
	echo "# $(date -u +%Y-%m-%d), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1), $(egg --version 2>/dev/null | head -n 1)"
	echo "# builtin/tests/probe-check.sh OUTDIR '$re'"
	printf '%-22s %5s %5s %7s %6s  %s\n' case cands pass probe other "refusals at a probe call"
} >"$txt"
status=0
for f in "$top"/bench/suite/cases/*.cu; do
	n=$(basename "$f" .cu)
	[[ $n =~ $re ]] || continue
	(cd "$(dirname "$f")" && egg analyze "$n.cu") >"$out/$n.bundles.json" 2>"$out/$n.analyze.err" || {
		echo "$n: analyze failed" >>"$txt"; status=1; continue; }
	python3 - "$out/$n.bundles.json" "$out/$n" <<'PY' || { echo "$n: no job" >>"$txt"; status=1; continue; }
import json, subprocess, sys
b = json.load(open(sys.argv[1]))[0]
json.dump(b, open(sys.argv[2] + ".bundle.json", "w"))
p = subprocess.run(["egg", "generate", sys.argv[2] + ".bundle.json"], capture_output=True, text=True)
if p.returncode != 0:
    sys.exit(p.stderr)
g = json.loads(p.stdout)
job = {"schema": "egg-job", "version": 1, "bundle": b,
       "candidates": [{"name": c["label"], "source": c["source"]} for c in g["candidates"]]}
json.dump(job, open(sys.argv[2] + ".job.json", "w"))
print(g.get("version"), file=open(sys.argv[2] + ".version", "w"))
PY
	egg eval "$out/$n.job.json" --no-timing --timeout 60 --flag -O3 >"$out/$n.result.json" 2>"$out/$n.eval.err"
	rc=$?
	[ $rc -eq 3 ] && { echo "SKIP: no GPU" >>"$txt"; cat "$txt"; exit 77; }
	python3 - "$out/$n.result.json" "$n" >>"$txt" <<'PY' || status=1
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"{sys.argv[2]}: no result ({e})"); sys.exit(1)
if r.get("status") != "ok":
    print(f"{sys.argv[2]}: {r.get('status')}: {(r.get('message') or '')[:200]}"); sys.exit(1)
cs = r["candidates"]
at_probe = [c for c in cs if c["verdict"] != "pass" and "right at the named workloads only" in (c.get("message") or "")]
passed = [c for c in cs if c["verdict"] == "pass"]
other = len(cs) - len(passed) - len(at_probe)
why = "; ".join(f"{c['name'][:40]}: {(c.get('message') or '')[58:160]}" for c in at_probe[:3])
print(f"{sys.argv[2]:<22} {len(cs):5d} {len(passed):5d} {len(at_probe):7d} {other:6d}  {why}")
sys.exit(1 if at_probe else 0)
PY
done
echo "# generator: $(cat "$out"/*.version 2>/dev/null | sort -u | tr '\n' ' ')" >>"$txt"
awk 'NR > 3 && NF >= 5 && $2 ~ /^[0-9]+$/ { c += $2; p += $3; q += $4; o += $5 } END {
	printf "total: %d candidates, %d pass, %d refused at a probe call, %d other verdicts\n", c, p, q, o }' "$txt" >>"$txt"
cat "$txt"
exit $status
