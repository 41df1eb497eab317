#!/bin/bash
# sandbox/run.sh LOGDIR -- on a GPU machine: candidates that try to escape are
# stopped by the kernel's sandbox in `egg eval`, and honest ones still run.
#
#   1. hostile_connect.cu (TCP connect to a loopback listener), hostile_home.cu
#      (writes $HOME/egg-sandbox-escaped) and hostile_exec.cu (execve /bin/sh),
#      each otherwise a correct scale (made from hostile.cu here), with good_scale_vec4.cu beside them, in one
#      `egg eval` with EGG_TEST_UNSCREENED=1 (a test-only switch that lets them
#      past the screen, so that the sandbox alone is what stops them): each act is
#      refused, leaves no trace (no file, no connection), and every candidate
#      still gets its GPU verdict (pass or slower);
#   2. the same with EGG_SANDBOX=0: each act succeeds (the checks can tell);
#   3. compute-sanitizer confined: a good softmax passes, an out-of-bounds one is
#      "unsafe" (skipped where compute-sanitizer cannot run);
#   4. (INFO) the screen alone, without EGG_TEST_UNSCREENED, on the hostile ones.
# Every result and program output stays under LOGDIR (w-*/ are the work
# directories); summary.txt gets the PASS/FAIL lines, printed last.
# Exit: 0 all passed, 1 something failed, 77 no GPU here (skipped).
#
# egg: $EGG, else .device/harness/egg (tests/gpu/pack.sh), else ./egg:
#   tests/gpu/pack.sh && (device, carry [".device"]) tests/gpu/sandbox/run.sh $OUT/sandbox
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
logdir=${1:?usage: run.sh LOGDIR}
mkdir -p "$logdir"
logdir=$(cd "$logdir" && pwd)
. "$top/tests/gpu/find-egg.sh"
export EGG_CACHE_DIR=$logdir/cache EGG_LOCK_DIR=$logdir
# $HOME is a directory of the log, outside every evaluation's scratch directory
export HOME=$logdir/home
mkdir -p "$HOME"
data=$top/tests/data/harness
summary=$logdir/summary.txt
: >"$summary"
failed=0
say() { echo "$*" >>"$summary"; }
pass_if() { # CONDITION-STATUS TEXT
	if [ "$1" -eq 0 ]; then say "PASS $2"; else say "FAIL $2"; failed=1; fi
}

"$EGG" eval "$data/scale.json" --no-timing >"$logdir/probe.json" 2>"$logdir/probe.err"
if [ $? -eq 3 ]; then
	echo "SKIP: no GPU ($(head -c 300 "$logdir/probe.err"))" | tee -a "$summary"
	exit 77
fi
say "# $(date -u +%Y-%m-%d) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1), $(nvcc --version | tail -n 1), kernel $(uname -r)"

# A loopback listener that counts connections (in LOGDIR/connections); it ends
# 300 s after the last one, or when this script ends.
python3 - "$logdir" <<'PY' &
import os, socket, sys
d = sys.argv[1]
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
open(d + "/port.tmp", "w").write(str(s.getsockname()[1]))
os.rename(d + "/port.tmp", d + "/port")
s.settimeout(300)
n = 0
try:
    while True:
        c, _ = s.accept()
        n += 1
        open(d + "/connections", "w").write(str(n))
        c.close()
except OSError:
    pass
PY
listener=$!
trap 'kill $listener 2>/dev/null' EXIT
rm -f "$logdir/port" "$logdir/connections"
for _ in $(seq 100); do [ -s "$logdir/port" ] && break; sleep 0.1; done
export EGG_SANDBOX_PROBE_PORT=$(cat "$logdir/port")
connections() { cat "$logdir/connections" 2>/dev/null || echo 0; }

hostile=(hostile_connect hostile_home hostile_exec)
cands=()
for h in "${hostile[@]}"; do
	{ echo "#define ${h^^}"; cat "$here/hostile.cu"; } >"$logdir/$h.cu"
	cands+=(--candidate "$logdir/$h.cu")
done

# eval_to NAME ARGS...: egg eval ... > LOGDIR/NAME.json, stderr NAME.err, work dir w-NAME
eval_to() {
	local name=$1
	shift
	rm -rf "$logdir/w-$name"
	"$EGG" eval "$@" --workdir "$logdir/w-$name" >"$logdir/$name.json" 2>"$logdir/$name.err"
	echo $? >"$logdir/$name.rc"
}

# verdicts NAME: "name=verdict ..." of the result, and the sandbox it ran under
verdicts() {
	python3 - "$logdir/$1.json" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"no result JSON ({e})"); sys.exit(0)
print(" ".join(f"{c['name'].rsplit('/', 1)[-1]}={c['verdict']}" for c in r["candidates"]),
      f"| status {r['status']} | sandbox: {r.get('sandbox')}")
PY
}

# act NAME K: what candidate K's program said it did ("done", "refused: ...")
act() {
	grep -h '^HOSTILE ' "$logdir/w-$1/cand$2.out" 2>/dev/null | head -n 1 | sed 's/^HOSTILE [a-z]*: //'
}

# 1. Confined.
before=$(connections)
rm -f "$HOME/egg-sandbox-escaped"
EGG_TEST_UNSCREENED=1 eval_to confined "$data/scale.json" --timeout 60 "${cands[@]}" \
	--candidate "$data/cand/good_scale_vec4.cu"
say "confined: $(verdicts confined)"
python3 - "$logdir/confined.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = r.get("sandbox") or ""
sys.exit(0 if "Landlock (writes and exec)" in s and "Landlock (TCP)" in s and "seccomp" in s else 1)
PY
pass_if $? "the evaluation ran every layer of the sandbox: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("sandbox"))' "$logdir/confined.json" 2>&1)"
for k in 0 1 2; do
	a=$(act confined $k)
	[[ $a == refused* ]]
	pass_if $? "${hostile[$k]} stopped by the sandbox: ${a:-(it said nothing: $(tail -c 300 "$logdir/w-confined/cand$k.out" 2>/dev/null))}"
done
[ "$(connections)" = "$before" ]
pass_if $? "no connection reached the listener (connections: $before -> $(connections))"
[ ! -e "$HOME/egg-sandbox-escaped" ]
pass_if $? "no file written in \$HOME"
python3 - "$logdir/confined.json" <<'PY' >>"$summary" || failed=1
import json, sys
r = json.load(open(sys.argv[1]))
bad = r["status"] != "ok"
if bad:
    print(f"FAIL confined evaluation: status {r['status']}: {r['message']}")
for c in r["candidates"]:
    ok = c["verdict"] in ("pass", "slower")
    bad |= not ok
    print(f"{'PASS' if ok else 'FAIL'} {c['name'].rsplit('/', 1)[-1]} confined runs on the GPU: "
          f"{c['verdict']} (want pass|slower) -- {(c.get('message') or '')[:200]}")
sys.exit(bad)
PY

# 2. Unconfined (EGG_SANDBOX=0): the same acts get through.
before=$(connections)
EGG_SANDBOX=0 EGG_TEST_UNSCREENED=1 eval_to unconfined "$data/scale.json" --timeout 60 "${cands[@]}"
say "unconfined: $(verdicts unconfined)"
for k in 0 1 2; do
	a=$(act unconfined $k)
	[[ $a == done* ]]
	pass_if $? "${hostile[$k]} gets through without the sandbox (control): ${a:-(it said nothing)}"
done
[ "$(connections)" -gt "$before" ]
pass_if $? "unconfined, the listener saw the connection (connections: $before -> $(connections))"
[ -e "$HOME/egg-sandbox-escaped" ]
pass_if $? "unconfined, the file in \$HOME was written"
rm -f "$HOME/egg-sandbox-escaped"
python3 - "$logdir" <<'PY' >>"$summary"
import json, sys
d = sys.argv[1]
runs = {}
for tag in ("confined", "unconfined"):
    for c in json.load(open(f"{d}/{tag}.json"))["candidates"]:
        runs.setdefault(c["name"].rsplit("/", 1)[-1], {})[tag] = c
for name, r in runs.items():
    if len(r) == 2:
        a, b = r["confined"], r["unconfined"]
        print(f"INFO {name}: program wall {a['wall_s']:.3f} s confined, {b['wall_s']:.3f} s unconfined; "
              f"speedup {a.get('speedup')} vs {b.get('speedup')}")
PY

# 3. compute-sanitizer, confined.
eval_to sanitize "$data/softmax.json" --sanitize --timeout 60 \
	--candidate "$data/cand/good_softmax_block.cu" --candidate "$data/cand/sanitize_softmax_oob.cu"
say "sanitize: $(verdicts sanitize)"
python3 - "$logdir/sanitize.json" <<'PY' >>"$summary" || failed=1
import json, sys
r = json.load(open(sys.argv[1]))
c = {x["name"].rsplit("/", 1)[-1]: x for x in r["candidates"]}
good, oob = c["good_softmax_block.cu"], c["sanitize_softmax_oob.cu"]
san = good.get("sanitizer") or {}
if san.get("memcheck") == "unavailable" and (oob.get("sanitizer") or {}).get("memcheck") == "unavailable":
    print("FAIL? compute-sanitizer unavailable in the sandbox (or on this machine: see "
          "sanitize-unconfined): " + san.get("log", "")[-600:].replace("\n", " | "))
    sys.exit(1)
bad = 0
for name, x, want in (("good_softmax_block", good, "pass"), ("sanitize_softmax_oob", oob, "unsafe")):
    ok = x["verdict"] == want
    bad |= not ok
    s = x.get("sanitizer") or {}
    print(f"{'PASS' if ok else 'FAIL'} confined compute-sanitizer {name}: {x['verdict']} (want {want}) "
          f"{s.get('memcheck')}/{s.get('racecheck')} -- {(x.get('message') or '')[:160]}")
sys.exit(bad)
PY
if [ $? -ne 0 ] || grep -q "FAIL.*sanitizer" "$summary"; then
	# for comparison: the same without the sandbox
	EGG_SANDBOX=0 eval_to sanitize-unconfined "$data/softmax.json" --sanitize --timeout 60 \
		--candidate "$data/cand/good_softmax_block.cu" --candidate "$data/cand/sanitize_softmax_oob.cu"
	say "INFO sanitize without the sandbox: $(verdicts sanitize-unconfined)"
fi

# 4. The screen alone (no EGG_TEST_UNSCREENED): reported, not judged here.
eval_to screened "$data/scale.json" --timeout 60 "${cands[@]}"
say "INFO screen alone: $(verdicts screened)"

# Where something failed: what the kernel refused the confined programs (strace
# over a confined evaluation of the honest candidate, and of compute-sanitizer).
if grep -q "^FAIL" "$summary"; then
	if command -v strace >/dev/null; then
		EGG_TEST_UNSCREENED=1 strace -f -qq -o "$logdir/confined.strace" \
			"$EGG" eval "$data/scale.json" --timeout 60 --workdir "$logdir/w-strace" \
			--candidate "$data/cand/good_scale_vec4.cu" >"$logdir/strace.json" 2>&1
		strace -f -qq -o "$logdir/sanitize.strace" "$EGG" eval "$data/softmax.json" --sanitize \
			--timeout 60 --workdir "$logdir/w-strace-sanitize" \
			--candidate "$data/cand/good_softmax_block.cu" >"$logdir/strace-sanitize.json" 2>&1
		for t in confined sanitize; do
			say "INFO $t: calls refused with EACCES/EPERM/ENOSYS/EXDEV (strace, first 60; all in $t.strace):"
			grep -E '= -1 (EACCES|EPERM|ENOSYS|EXDEV)' "$logdir/$t.strace" | grep -v -E 'O_PATH|"/proc/sys' |
				cut -c 1-220 | head -n 60 >>"$summary"
		done
	else
		say "INFO no strace here: the programs' outputs are in w-*/cand*.out"
	fi
	for f in "$logdir"/w-confined/cand?.out; do
		say "INFO $(basename "$f"): $(tail -c 400 "$f" | tr '\n' ' ')"
	done
fi

cat "$summary"
exit $failed
