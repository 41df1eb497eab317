#!/bin/bash
# run-harness-gpu.sh LOGDIR [PART...] -- the harness's GPU tests, in one command.
# PARTs (default: all, in this order): self adversarial good sanitize timing rates
# f64 corpus.
# "timing" reuses the results of "self" (copy) and "good" (softmax) of the same
# call, or makes them.  One device call (600 s) may not hold all parts: run
# "self adversarial", "good sanitize timing rates" and "corpus" as three calls.
#
# Proves on a real GPU that egg eval rejects every adversarial candidate with the
# verdict it deserves, accepts correct ones, and times properly (a device copy
# within 10% of the measured copy ceiling; one candidate timed twice within 3%).
# Writes every result JSON and summary.txt under LOGDIR; prints the summary last.
# Exit: 0 all passed, 1 something failed, 77 no GPU here (skipped).
#
# egg: $EGG, else .device/harness/egg (tests/gpu/pack.sh), else ./egg.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
logdir=${1:?usage: run-harness-gpu.sh LOGDIR [self|adversarial|good|sanitize|timing|rates|f64|corpus]...}
shift
parts=" ${*:-self adversarial good sanitize timing rates f64 corpus} "
want() { [[ $parts == *" $1 "* ]]; }
mkdir -p "$logdir"
logdir=$(cd "$logdir" && pwd)
. "$top/tests/gpu/find-egg.sh"
export EGG_CACHE_DIR=$logdir/cache EGG_LOCK_DIR=$logdir
data=$top/tests/data/harness
summary=$logdir/summary.txt
: >"$summary"
failed=0

# eval NAME ARGS...: egg eval ... > LOGDIR/NAME.json (stderr to NAME.err)
eval_to() {
	local name=$1
	shift
	"$EGG" eval "$@" >"$logdir/$name.json" 2>"$logdir/$name.err"
	echo $? >"$logdir/$name.rc"
}

"$EGG" eval "$data/scale.json" --no-timing >"$logdir/probe.json" 2>"$logdir/probe.err"
rc=$?
if [ $rc -eq 3 ]; then
	echo "SKIP: no GPU ($(head -c 300 "$logdir/probe.err"))" | tee -a "$summary"
	exit 77
fi
nvidia-smi >"$logdir/nvidia-smi.txt" 2>&1

# check.py RESULT EXPECT...: EXPECT is NAME_SUBSTRING=VERDICT[|VERDICT]
check() {
	python3 - "$@" <<'PY' >>"$summary"
import json, os, sys
path, expects = sys.argv[1], sys.argv[2:]
tag = os.path.basename(path)[:-5]
try:
    r = json.load(open(path))
except Exception as e:
    print(f"FAIL {path}: no result JSON ({e})"); sys.exit(1)
bad = 0
if r["status"] != "ok":
    print(f"FAIL {path}: status {r['status']}: {r['message']}"); sys.exit(1)
for e in expects:
    key, want = e.split("=")
    got = [c for c in r["candidates"] if key in c["name"]]
    if not got:
        print(f"FAIL {key}: no such candidate"); bad = 1; continue
    c = got[0]
    ok = c["verdict"] in want.split("|")
    bad |= not ok
    sp = c.get("speedup")
    print(f"{'PASS' if ok else 'FAIL'} {tag}/{key}: {c['verdict']} (want {want})"
          f"{' speedup %.3g' % sp if sp else ''} -- {(c.get('message') or '')[:160]}")
sys.exit(bad)
PY
	[ $? -eq 0 ] || failed=1
}

# 1. Self-checks: every example bundle's reference against itself.
want self && for b in scale softmax saxpy_kernel gather half copy; do
	eval_to "self-$b" "$data/$b.json" --seed 11
	check "$logdir/self-$b.json" "self-check=pass"
done

# 2. Adversarial candidates against scale, in one evaluation.
if want adversarial; then
cands=()
for f in "$data"/cand/bad_*.cu "$data"/cand/good_scale_vec4.cu; do
	cands+=(--candidate "$f")
done
eval_to adversarial "$data/scale.json" --timeout 40 "${cands[@]}"
check "$logdir/adversarial.json" \
	bad_wrong_one_seed=wrong bad_wrong_last=wrong bad_unwritten=wrong bad_cached=wrong \
	bad_side_stream=rejected bad_oob_read=wrong bad_oob_write=wrong bad_writes_input=wrong \
	bad_hang=timeout bad_trap=cuda_error bad_nan=wrong bad_slower=slower \
	bad_specialized_scale=wrong bad_memo_pointer=wrong bad_reads_output=wrong \
	bad_misaligned_vec4=cuda_error bad_timer_game=wrong \
	good_scale_vec4="pass|slower"
# the shape class: right at softmax's two named workloads, refused at the probes
eval_to adversarial-softmax "$data/softmax.json" --timeout 60 \
	--candidate "$data/cand/softmax_bad_specialized.cu" --candidate "$data/cand/good_softmax_block.cu"
check "$logdir/adversarial-softmax.json" softmax_bad_specialized=wrong good_softmax_block=pass
python3 - "$logdir" <<'PY' >>"$summary" || failed=1
import json, sys
d = sys.argv[1]
bad = 0
def cand(f, key):
    r = json.load(open(f"{d}/{f}.json"))
    return [c for c in r["candidates"] if key in c["name"]][0]
# each cheat is caught where it cheats: the shape ones at a probe call (after
# every named workload passed), the timer game at its last timed call
for f, key, where in (("adversarial", "bad_specialized_scale", "right at the named workloads only"),
                      ("adversarial", "bad_misaligned_vec4", "bases offset"),
                      ("adversarial", "bad_timer_game", "its last timed call"),
                      ("adversarial-softmax", "softmax_bad_specialized", "right at the named workloads only")):
    c = cand(f, key)
    ok = where in (c.get("message") or "")
    bad |= not ok
    print(f"{'PASS' if ok else 'FAIL'} {key} caught at: {(c.get('message') or '')[:200]}")
good = cand("adversarial-softmax", "good_softmax_block")
dom = good.get("domain") or {}
ok = dom.get("probes", 0) > 0 and dom.get("checked") == dom.get("probes")
bad |= not ok
print(f"{'PASS' if ok else 'FAIL'} good_softmax_block domain: {dom.get('summary')} "
      f"(skipped {len(dom.get('skipped') or [])})")
sys.exit(bad)
PY
fi

# 3. Candidates that must pass.
if want good; then
eval_to good-softmax "$data/softmax.json" --candidate "$data/cand/good_softmax_block.cu"
check "$logdir/good-softmax.json" good_softmax_block=pass
eval_to good-saxpy "$data/saxpy_kernel.json" --candidate "$data/cand/good_saxpy.cu"
check "$logdir/good-saxpy.json" good_saxpy="pass|slower"
eval_to good-softmax-again "$data/softmax.json" --candidate "$data/cand/good_softmax_block.cu"
fi

# 4. compute-sanitizer on passing candidates (skipped where it cannot run).
want sanitize && eval_to sanitize "$data/softmax.json" --sanitize --timeout 60 --candidate "$data/cand/good_softmax_block.cu" \
	--candidate "$data/cand/sanitize_softmax_oob.cu"
want sanitize && { python3 - "$logdir/sanitize.json" <<'PY' >>"$summary" || failed=1; }
import json, sys
r = json.load(open(sys.argv[1]))
c = {x["name"].rsplit("/", 1)[-1]: x for x in r["candidates"]}
good, oob = c["good_softmax_block.cu"], c["sanitize_softmax_oob.cu"]
san = (oob.get("sanitizer") or {}).get("memcheck", "not run")
if san == "unavailable":
    print("SKIP sanitizer: compute-sanitizer cannot run here: " + oob["sanitizer"]["log"][-300:].replace("\n", " "))
    sys.exit(0)
bad = 0
for name, x, want in (("good_softmax_block", good, "pass"), ("sanitize_softmax_oob", oob, "unsafe")):
    ok = x["verdict"] == want
    bad |= not ok
    print(f"{'PASS' if ok else 'FAIL'} sanitizer {name}: {x['verdict']} (want {want}) {x.get('sanitizer', {}).get('memcheck')}"
          f"/{x.get('sanitizer', {}).get('racecheck')} -- {(x.get('message') or '')[:120]}")
sys.exit(bad)
PY

# 5. Timing sanity (runs what it needs that an earlier part of this call did not).
if want timing; then
	[ -s "$logdir/self-copy.json" ] || eval_to self-copy "$data/copy.json" --seed 11
	for r in good-softmax good-softmax-again; do
		[ -s "$logdir/$r.json" ] ||
			eval_to "$r" "$data/softmax.json" --candidate "$data/cand/good_softmax_block.cu"
	done
fi
want timing && { python3 - "$logdir" <<'PY' >>"$summary" || failed=1; }
import json, sys
d = sys.argv[1]
bad = 0
r = json.load(open(f"{d}/self-copy.json"))
ceil = r["ceilings"]["copy_gbs"]
t = r["candidates"][0]["run"]["timings"][0]
for who in ("reference", "candidate"):
    gbs = t[who]["gbs"]
    ok = abs(gbs - ceil) <= 0.10 * ceil
    bad |= not ok
    print(f"{'PASS' if ok else 'FAIL'} copy-vs-ceiling ({who}): {gbs:.1f} GB/s vs ceiling {ceil:.1f} GB/s "
          f"({100 * (gbs / ceil - 1):+.1f}%), median {t[who]['median_ms']:.4f} ms, spread {t[who]['spread']:.3f}")
a = json.load(open(f"{d}/good-softmax.json"))["candidates"][0]["run"]["timings"]
b = json.load(open(f"{d}/good-softmax-again.json"))["candidates"][0]["run"]["timings"]
for w in range(len(a)):
    x, y = a[w]["candidate"]["median_ms"], b[w]["candidate"]["median_ms"]
    diff = abs(x - y) / min(x, y)
    ok = diff < 0.03
    if w == 0:  # the large workload is the criterion; small ones are reported
        bad |= not ok
    tag = ('PASS' if ok else 'FAIL') if w == 0 else 'INFO'
    print(f"{tag} timed-twice workload {w}: {x:.4f} ms vs {y:.4f} ms ({100 * diff:.2f}%)")
sys.exit(bad)
PY

# 6. Rates and ranking: a FLOP count gives GFLOP/s and the fraction of the FMA
# ceiling; the speedup is total reference time over total candidate time.
if want rates; then
eval_to rates-softmax "$data/softmax.json" --flops "5.0 * rows * cols" \
	--candidate "$data/cand/good_softmax_block.cu"
python3 - "$logdir/rates-softmax.json" <<'PY' >>"$summary" || failed=1
import json, sys
r = json.load(open(sys.argv[1]))
c = r["candidates"][0]
bad = 0
ws = c.get("workloads") or []
tot = c.get("total_ms") or {}
ok = bool(ws) and all("gflops" in w and "fma_fraction" in w and "copy_fraction" in w for w in ws)
bad |= not ok
print(f"{'PASS' if ok else 'FAIL'} rates: per-workload gbs/gflops and ceiling fractions: "
      + "; ".join(f"w{w['workload']} {w.get('gbs', 0):.0f} GB/s ({w.get('copy_fraction', 0):.2f}) "
                  f"{w.get('gflops', 0):.0f} GFLOP/s ({w.get('fma_fraction', 0):.3f})" for w in ws))
ok = tot and abs(c["speedup"] - tot["reference"] / tot["candidate"]) < 1e-6 * c["speedup"]
bad |= not ok
print(f"{'PASS' if ok else 'FAIL'} ranking: speedup {c.get('speedup')} = total ref/cand {tot}; "
      f"geomean {c.get('speedup_geomean')}; best {r.get('best')}")
sys.exit(bad)
PY
fi

# 6b. A float sum by atomics: the reference's own rounding exceeds the tolerance,
# so an accurate candidate is judged against its float64 twin and passes; one
# that drops an eighth of the input still fails; the reference passes itself.
if want f64; then
eval_to f64 "$data/sumsq_atomic.json" --timeout 120 --candidate "$data/cand/sumsq_good_blocks.cu" \
	--candidate "$data/cand/sumsq_bad_partial.cu"
check "$logdir/f64.json" sumsq_good_blocks=pass sumsq_bad_partial=wrong
eval_to f64-self "$data/sumsq_atomic.json" --timeout 120
check "$logdir/f64-self.json" self-check=pass
python3 - "$logdir/f64.json" "$logdir/f64-self.json" <<'PY' >>"$summary" || failed=1
import json, sys
cands = [c for p in sys.argv[1:] for c in json.load(open(p))["candidates"]]
bad = 0
for c in cands:
    checks = ((c.get("run") or {}).get("checks")) or []
    bufs = [b for k in checks for b in k["buffers"]]
    f64 = [b for b in bufs if b.get("judged_against") == "float64"]
    ref = [b["reference_f64"] for b in bufs if "reference_f64" in b]
    name = c["name"].rsplit("/", 1)[-1]
    # The accurate candidate can only pass through the float64 twin; the
    # reference against itself may (its atomics' order is free) or may not.
    tag = "INFO" if name == "reference (self-check)" else "PASS" if f64 else "FAIL"
    bad |= tag == "FAIL"
    print(f"{tag} f64 {name}: {len(f64)} of {len(bufs)} buffers judged against float64; "
          f"the reference's own largest error {max((x.get('max_err') or 0) for x in ref) if ref else 'n/a'}"
          f" of {max((x.get('max_magnitude') or 0) for x in ref) if ref else 'n/a'}")
sys.exit(bad)
PY
fi

# 7. The analyzer corpus on the GPU: every bundle egg analyze hands out (the
# committed expected outputs) passes its self-check (the CPU suite only compiles).
if want corpus; then
	mkdir -p "$logdir/corpus"
	for j in "$top"/tests/data/analyzer/expected/*.json; do
		n=$(basename "$j" .json)
		k=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$j")
		for ((i = 0; i < k; i++)); do
			python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1]))[int(sys.argv[3])], open(sys.argv[2], "w"))' \
				"$j" "$logdir/corpus/$n.$i.bundle.json" "$i"
			eval_to "corpus/$n.$i" "$logdir/corpus/$n.$i.bundle.json" --no-timing --trials 2 --timeout 60
			check "$logdir/corpus/$n.$i.json" "self-check=pass"
		done
	done
fi

cat "$summary"
exit $failed
