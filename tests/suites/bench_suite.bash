# bench_suite: the benchmark suite (bench/suite/) works before it reaches a GPU:
# every case carries a well-formed annotation (that every case compiles for
# sm_90, harness_corpus's tests prove: a case's bundle is the whole file), every case has
# a PyTorch equivalent, run.sh builds and reports without a GPU, and the driver's own
# logic (bench_main.cu built for the host with tests/data/bench/hostsim.h) fills,
# poisons, dumps, times, and catches outputs it never wrote.

BENCH=$EGG_SRCDIR/bench/suite
export PYTHONDONTWRITEBYTECODE=1
HOSTSIM=$EGG_SRCDIR/tests/data/bench

suite_probe() {
	command -v python3 >/dev/null || { echo "python3 is not installed"; return 1; }
}

need_nvcc() {
	[ -x "$REAL_NVCC" ] || skip "no nvcc"
}

case_names() {
	local f
	for f in "$BENCH"/cases/*.cu; do
		f=${f##*/}
		echo "${f%.cu}"
	done
}

test_suite_has_at_least_22_cases_covering_the_families() {
	local n fam
	n=$(case_names | wc -l)
	[ "$n" -ge 22 ] || fail "only $n cases"
	python3 "$BENCH/casefile.py" "$BENCH"/cases/*.cu >info.jsonl 2>err.txt || fail "casefile: $(cat err.txt)"
	for fam in elementwise chain row-reduction full-reduction softmax norm gemm transpose gather stencil; do
		grep -q "\"family\": \"$fam\"" info.jsonl || fail "no case of family $fam"
	done
	n=$(grep -c '"family": "generic"' info.jsonl)
	[ "$n" -ge 3 ] || fail "only $n cases outside the recipe families"
}

test_every_case_pragma_gives_each_pointer_a_role_and_extent() {
	# (casefile.py reads each file on its own and names every one it rejects)
	python3 "$BENCH/casefile.py" "$BENCH"/cases/*.cu >/dev/null 2>err.txt || fail "$(cat err.txt)"
	# the inputs of every case's first workload are several times the 60 MB L2
	# (except the integer-only generic cases, whose work is not memory traffic)
	python3 - "$BENCH" <<'EOF' || fail "a workload is too small to fill an H200"
import sys, glob
sys.path.insert(0, sys.argv[1])
import casefile
for p in sorted(glob.glob(sys.argv[1] + "/cases/*.cu")):
    c = casefile.parse_case(p)
    if c["family"] != "generic" and c["evaluated"][0]["bytes"] < 1.5 * 60e6:
        print("%s: %d bytes" % (p, c["evaluated"][0]["bytes"]))
        sys.exit(1)
EOF
}

test_casefile_rejects_a_pointer_without_extent() {
	cat >bad.cu <<'EOF'
#pragma egg optimize in(x[n]) workload(n = 4)
void f(const float *x, float *y, int n)
{
}
EOF
	! python3 "$BENCH/casefile.py" bad.cu >out.txt 2>err.txt || fail "accepted a pointer without a role"
	expect_file_contains err.txt "bad.cu:1: pointer parameter 'y' has no in/out/inout/temp extent"
}

test_casefile_rejects_a_workload_missing_a_scalar() {
	cat >bad.cu <<'EOF'
#pragma egg optimize in(x[n * m]) out(y[n]) workload(n = 4)
void f(const float *x, float *y, int n, int m)
{
}
EOF
	! python3 "$BENCH/casefile.py" bad.cu >out.txt 2>err.txt || fail "accepted a workload without m"
	expect_file_contains err.txt "scalar 'm' has no value"
}

test_every_case_has_a_pytorch_equivalent() {
	python3 "$BENCH/torch_ref.py" --list >ref.txt || fail "torch_ref.py --list failed"
	case_names | sort >cases.txt
	comm -23 cases.txt ref.txt >missing.txt
	[ ! -s missing.txt ] || fail "no PyTorch equivalent for: $(tr '\n' ' ' <missing.txt)"
}

test_every_case_glue_matches_its_launcher_signature() {
	# the generated glue declares the launcher and calls it with the clause buffers
	command -v g++ >/dev/null || skip "no g++"
	local c
	python3 - "$BENCH" $(case_names) 2>err.txt <<'EOF' || fail "no glue: $(tail -3 err.txt)"
import sys
sys.path.insert(0, sys.argv[1])
import casefile
for c in sys.argv[2:]:
    open(c + ".glue.cpp", "w").write(casefile.glue_source(casefile.parse_case("%s/cases/%s.cu" % (sys.argv[1], c))))
EOF
	for c in $(case_names); do
		[ -s "$c.glue.cpp" ] || fail "no glue for $c"
		g++ -fsyntax-only -Wall -I"$BENCH" "$c.glue.cpp" 2>err.txt || fail "$c glue: $(head -5 err.txt)"
	done
}

test_run_sh_builds_and_reports_without_a_gpu() {
	need_nvcc
	run_cmd r "$BENCH/run.sh" out --work work --no-gpu --nvcc "$REAL_NVCC" --cases '^(relu|histogram)$' --jobs 2 ||
		fail "run.sh failed: $(tail -5 r.err) $(tail -3 r.out)"
	[ -x work/build/ref/relu ] && [ -x work/build/ref/histogram ] || fail "no case binaries"
	work/build/ref/relu --describe >d.txt || fail "--describe failed"
	expect_file_contains d.txt '"bytes": 536870912'
	expect_file_contains r.out "relu"
	expect_file_contains r.out "histogram"
	python3 -c "import json; d = json.load(open('out/results.json')); assert len(d['cases']) == 2, d" ||
		fail "results.json does not hold two cases"
	expect_file_contains out/results.md "| histogram | generic |"
	expect_file_contains out/results.md "NOMINAL, not measured"
}

test_run_sh_fails_clearly_on_a_regex_matching_nothing() {
	! "$BENCH/run.sh" out --no-gpu --no-build --cases '^no_such_case$' >out.txt 2>err.txt ||
		fail "run.sh succeeded with no case"
	expect_file_contains err.txt "no case matches"
}

# bench_main.cu built for the host with the hostsim runtime, as main.o
build_hostsim_main() {
	command -v g++ >/dev/null || skip "no g++"
	[ -f main.o ] || g++ -O1 -x c++ -DBENCH_HOSTSIM -DBENCH_FLUSH_MIB=1 -include "$HOSTSIM/hostsim.h" -I"$BENCH" \
		-c "$BENCH/bench_main.cu" -o main.o 2>err.txt || fail "hostsim bench_main: $(head -5 err.txt)"
}

# build bench_main.cu for the host with the hostsim runtime and host launchers
build_hostsim() { # VARIANT (good|wrong)
	local c def=
	build_hostsim_main
	[ "$1" = wrong ] && def=-DHOSTSIM_WRONG
	g++ -O1 $def -c "$HOSTSIM/hostsim_cases.cpp" -o "cases_$1.o" || fail "hostsim cases"
	for c in relu histogram scale_residual_relu; do
		python3 -c "import sys; sys.path.insert(0, '$BENCH'); import casefile
open('$c.glue.cpp', 'w').write(casefile.glue_source(casefile.parse_case('$BENCH/cases/$c.cu')))" ||
			fail "no glue for $c"
		g++ -I"$BENCH" -c "$c.glue.cpp" -o "$c.glue.o" && g++ main.o "$c.glue.o" "cases_$1.o" -o "$c.$1" ||
			fail "cannot link hostsim $c"
	done
}

run_hostsim() { # CASE VARIANT: dumps the small workload into dump.CASE.VARIANT
	mkdir -p "dump.$1.$2"
	"./$1.$2" --workload 1 --dump "dump.$1.$2" --budget-ms 5 >"$1.$2.json" 2>"$1.$2.err" ||
		fail "$1.$2 failed: $(cat "$1.$2.json" "$1.$2.err")"
}

test_bench_main_fills_dumps_and_times_each_case() {
	build_hostsim good
	local c
	for c in relu histogram scale_residual_relu; do
		run_hostsim $c good
		python3 - "$c" "dump.$c.good" "$c.good.json" <<'EOF' || fail "$c: bad dump or JSON line"
import json, os, sys
case, d, line = sys.argv[1:]
j = json.loads(open(line).read().strip().splitlines()[-1])
assert j["case"] == case and j["written"] and j["finite"] and j["ms"] > 0, j
assert j["reps"] >= 20 and j["p10"] <= j["ms"] <= j["p90"], j
m = json.load(open(os.path.join(d, "manifest.json")))
assert [w["index"] for w in m["workloads"]] == [1], m
for b in m["workloads"][0]["buffers"]:
    size = {"float32": 4, "int32": 4, "int64": 8}[b["dtype"]] * b["count"]
    for kind, roles in (("in", ("in", "inout")), ("out", ("out", "inout"))):
        p = os.path.join(d, "w1.%s.%s.bin" % (b["name"], kind))
        assert (b["role"] in roles) == os.path.exists(p), p
        assert b["role"] not in roles or os.path.getsize(p) == size, p
    lo, hi = b["range"]
    if b["role"] == "in" and b["dtype"] == "int32":
        import struct
        v = struct.unpack("%di" % b["count"], open(os.path.join(d, "w1.%s.in.bin" % b["name"]), "rb").read())
        assert min(v) >= lo and max(v) < hi and len(set(v)) > 1, (lo, hi, min(v), max(v))
EOF
	done
}

test_bench_main_flushes_the_l2_by_reading_unless_asked_to_write() {
	build_hostsim good
	mkdir -p dump.rd
	./relu.good --workload 1 --dump dump.rd --budget-ms 5 --flush read >rd.json 2>rd.err ||
		fail "--flush read: $(cat rd.json rd.err)"
	python3 -c "
import json, sys
j = json.loads(open('rd.json').read().strip().splitlines()[-1])
assert j['flush'] == 'read' and j['ms'] > 0 and j['written'], j
" || fail "flush not recorded: $(tail -n 1 rd.json)"
	./relu.good --workload 1 --budget-ms 5 >rt.json 2>rt.err || fail "default timed run"
	expect_file_contains rt.json '"flush": "read"'
	./relu.good --workload 1 --budget-ms 5 --flush write >wt.json 2>wt.err || fail "--flush write: $(cat wt.json wt.err)"
	expect_file_contains wt.json '"flush": "write"'
	run_cmd bad ./relu.good --flush sideways
	[ "$(cat bad.rc)" -ne 0 ] || fail "an unknown flush mode was accepted"
}

test_bench_main_reports_an_output_element_left_unwritten() {
	build_hostsim wrong
	run_hostsim relu wrong
	expect_file_contains relu.wrong.json '"unwritten": 1,'
	expect_file_contains relu.wrong.json '"written": false'
}

# the bfloat16 case tests/data/bench/bf16_double.cu (its element type through a
# typedef) linked for the host: the glue must declare the launcher with the
# resolved type, or the link fails
build_hostsim_bf16() { # VARIANT (good|wrong)
	local inc def=
	inc=$(dirname "$(dirname "$(readlink -f "$REAL_NVCC")")")/include
	[ -f "$inc/cuda_bf16.h" ] || skip "no cuda_bf16.h"
	build_hostsim_main
	[ "$1" = wrong ] && def=-DHOSTSIM_WRONG
	python3 -c "import sys; sys.path.insert(0, '$BENCH'); import casefile
open('bf16.glue.cpp', 'w').write(casefile.glue_source(casefile.parse_case('$HOSTSIM/bf16_double.cu')))" ||
		fail "no glue for bf16_double"
	g++ -I"$BENCH" -I"$inc" -c bf16.glue.cpp -o bf16.glue.o 2>err.txt &&
		g++ -O1 $def -I"$inc" -c "$HOSTSIM/hostsim_bf16.cpp" -o "bf16_$1.o" 2>>err.txt &&
		g++ main.o bf16.glue.o "bf16_$1.o" -o "bf16_double.$1" 2>>err.txt ||
		fail "cannot link hostsim bf16_double: $(head -5 err.txt)"
}

test_bench_main_fills_dumps_and_counts_bfloat16_buffers_as_two_byte_values() {
	build_hostsim_bf16 good
	./bf16_double.good --describe >d.txt || fail "--describe failed"
	# 1 << 20 elements read and written, two bytes each
	expect_file_contains d.txt '"bytes": 4194304'
	run_hostsim bf16_double good
	python3 - dump.bf16_double.good bf16_double.good.json <<'EOF' || fail "bad bf16 dump or JSON line"
import json, os, struct, sys
d, line = sys.argv[1:]
j = json.loads(open(line).read().strip().splitlines()[-1])
assert j["written"] and j["finite"] and j["unwritten"] == 0, j
m = json.load(open(os.path.join(d, "manifest.json")))
bufs = dict((b["name"], b) for b in m["workloads"][0]["buffers"])
assert bufs["x"]["dtype"] == "bfloat16" and bufs["x"]["count"] == 1001, bufs
def floats(p):
    raw = open(os.path.join(d, p), "rb").read()
    assert len(raw) == 2 * 1001, (p, len(raw))
    return [struct.unpack("<f", struct.pack("<I", h << 16))[0] for h in struct.unpack("<1001H", raw)]
x, y = floats("w1.x.in.bin"), floats("w1.y.out.bin")
assert min(x) >= -1.0 and max(x) < 1.0 and len(set(x)) > 100, (min(x), max(x), len(set(x)))
assert y == [2 * v for v in x], "outputs are not twice the inputs"
EOF
}

test_bench_main_reports_a_bfloat16_element_left_unwritten() {
	build_hostsim_bf16 wrong
	run_hostsim bf16_double wrong
	expect_file_contains bf16_double.wrong.json '"unwritten": 1,'
	expect_file_contains bf16_double.wrong.json '"written": false'
}

test_run_sh_takes_its_cases_from_another_folder() {
	run_cmd r "$BENCH/run.sh" out --no-gpu --no-build --cases-dir "$HOSTSIM" ||
		fail "run.sh failed: $(tail -5 r.err)"
	python3 -c "
import json
d = json.load(open('out/results.json'))
assert [c['case'] for c in d['cases']] == ['bf16_double'], d['cases']
assert d['cases'][0]['bytes'] == 4194304, d['cases'][0]
assert d['meta']['cases_dir'].endswith('tests/data/bench'), d['meta']
" || fail "results.json does not hold the folder's case: $(head -c 300 out/results.json)"
}

test_a_batch_cannot_replace_the_pytorch_equivalent_of_a_suite_case() {
	mkdir ok clash
	printf 'def refs(torch, F):\n    return {"ok_case": lambda t, s: {"y": t["x"]}}\n' >ok/torch_refs.py
	printf 'def refs(torch, F):\n    return {"relu": lambda t, s: {"y": t["x"]}}\n' >clash/torch_refs.py
	python3 "$BENCH/torch_ref.py" --list ok >ok.txt || fail "a batch's equivalents were not listed"
	expect_eq "$(cat ok.txt)" ok_case "the batch's names"
	! python3 "$BENCH/torch_ref.py" --list clash >clash.txt 2>clash.err || fail "a batch replaced relu's equivalent"
	expect_file_contains clash.err "names the suite's cases already use: relu"
}

test_every_blind_case_parses_fills_an_h200_and_has_a_pytorch_equivalent() {
	local d
	for d in "$EGG_SRCDIR"/bench/blind/*/; do
		d=${d%/}
		python3 "$BENCH/casefile.py" "$d"/*.cu >info.jsonl 2>err.txt || fail "casefile: $(cat err.txt)"
		python3 "$BENCH/torch_ref.py" --list "$d" >refs.txt 2>err.txt || fail "torch_refs of $d: $(cat err.txt)"
		python3 - "$d" info.jsonl refs.txt <<'EOF' || fail "$d does not follow the suite's case format"
import glob, json, os, sys
d, info, refs = sys.argv[1:]
names = sorted(os.path.basename(p)[:-3] for p in glob.glob(d + "/*.cu"))
assert len(names) == 16, names
assert open(refs).read().split() == names, "cases without an equivalent, or equivalents without a case"
for line in open(info):
    c = json.loads(line)
    # the timed workload several times the 60 MB L2; a second, small one for the tails
    assert c["bytes"] >= 1.5 * 60e6 and c["workloads"] >= 2, c
EOF
	done
}

torch_python() {
	local py
	for py in python3 /usr/bin/python3; do
		if "$py" -c "import torch" 2>/dev/null; then
			echo "$py"
			return 0
		fi
	done
	return 1
}

test_torch_check_accepts_right_outputs_and_rejects_wrong_ones() {
	local py c v
	py=$(torch_python) || skip "torch is not installed"
	build_hostsim good
	build_hostsim wrong
	for c in relu histogram scale_residual_relu; do
		for v in good wrong; do
			run_hostsim $c $v
			BENCH_TORCH_DEVICE=cpu "$py" "$BENCH/torch_ref.py" check "$c" "dump.$c.$v" 1e-5 1e-6 >"check.$c.$v" ||
				fail "check $c $v failed"
		done
		expect_file_contains "check.$c.good" '{"correct": true'
		expect_file_contains "check.$c.wrong" '{"correct": false'
	done
}

test_report_computes_floor_speedups_and_geomeans() {
	python3 - "$BENCH" <<'EOF' >out.txt || fail "report: $(cat out.txt)"
import json, sys
sys.path.insert(0, sys.argv[1])
import report
meta = {"date": "d", "commit": "c", "flags": "-O3", "nvcc": "nvcc", "egg_cc": "egg-cc",
        "ceilings": {"gpu": "g", "copy_bytes_per_s": 1e12, "fp32_flops_per_s": 1e13, "measured": True}}
def row(name, fam, nbytes, flops, ref, egg, torch):
    col = lambda ms: {"build": {"exe": "x"}, "run": {"ms": ms}, "check": {"correct": True}}
    return {"case": name, "family": fam, "bytes": nbytes, "flops": flops, "ref": col(ref), "egg": col(egg),
            "torch": {"ms": torch}}
rows = [row("a", "elementwise", 1e9, 0, 4.0, 1.0, 2.0), row("b", "gemm", 0, 1e11, 40.0, 20.0, 10.0)]
report.write_all(".", meta, rows, measured=False)
d = json.load(open("results.json"))
a, b = d["cases"][0]["derived"], d["cases"][1]["derived"]
assert abs(a["floor_ms"] - 1.0) < 1e-9 and abs(b["floor_ms"] - 10.0) < 1e-9, (a, b)
assert a["egg_over_ref"] == 4.0 and a["egg_over_torch"] == 2.0 and b["egg_over_torch"] == 0.5
assert abs(d["summary"]["geomean_egg_over_torch"] - 1.0) < 1e-9, d["summary"]
assert abs(d["summary"]["geomean_egg_floor_frac"] - (1.0 * 0.5) ** 0.5) < 1e-9, d["summary"]
assert d["summary"]["egg_correct"] == 2
EOF
	expect_file_contains out.txt "geomean speedup: egg over torch 1.00x, egg over ref 2.83x"
	expect_file_contains results.md "| a | elementwise | 4.000 | 1.000 | 2.000 | 1.000 | 4.00x | 2.00x | 25% | 100% | 50% | yes/yes |"
}

test_report_shows_fast_path_cache_hit_and_search_overheads() {
	python3 - "$BENCH" <<'EOF' >out.txt || fail "report: $(cat out.txt)"
import sys
sys.path.insert(0, sys.argv[1])
import report
meta = {"date": "d", "commit": "c", "flags": "-O3", "nvcc": "nvcc", "egg_cc": "egg-cc",
        "fastpath": {"nvcc_s": 2.0, "egg_s": 2.02, "n": 5},
        "ceilings": {"gpu": "g", "copy_bytes_per_s": 1e12, "fp32_flops_per_s": 1e13, "measured": True}}
def row(name, nvcc_s, egg_s, again_s):
    return {"case": name, "family": "elementwise", "bytes": 1e9, "flops": 0,
            "ref": {"build": {"exe": "x", "compile_s": nvcc_s}, "run": {"ms": 2.0}, "check": {"correct": True}},
            "egg": {"build": {"exe": "x", "compile_s": egg_s, "rebuild_s": again_s}, "run": {"ms": 1.0},
                    "check": {"correct": True}}, "torch": {"ms": 1.0}}
report.write_all(".", meta, [row("a", 2.0, 30.0, 2.5), row("b", 2.2, 50.0, 2.7), row("c", 2.4, 40.0, 2.6)],
                 measured=False)
EOF
	expect_file_contains out.txt "fast path (bench_main.cu, no annotation, median of 5): nvcc 2.00 s, egg-cc 2.02 s (+1.0%)"
	expect_file_contains out.txt "cache hit (rebuild of an annotated case, median over 3 cases): nvcc 2.20 s, egg-cc 2.60 s"
	expect_file_contains out.txt "first build with egg-cc in this run (a search on a cache miss, a hit otherwise; median over 3 cases): 40.0 s, max 50.0 s"
	expect_file_contains results.md "| b | 2.20 | 50.00 | 2.70 |"
}

test_merge_of_split_runs_reports_like_one_run() {
	python3 - "$BENCH" <<'EOF2' >out.txt || fail "merge: $(cat out.txt)"
import json, os, subprocess, sys
bench = sys.argv[1]
sys.path.insert(0, bench)
import report
ceil = {"gpu": "g", "copy_bytes_per_s": 1e12, "fp32_flops_per_s": 1e13, "measured": True}
def row(name, ref, egg, torch):
    col = lambda ms: {"build": {"exe": "x"}, "run": {"ms": ms}, "check": {"correct": True}}
    return {"case": name, "family": "elementwise", "bytes": 1e9, "flops": 0, "ref": col(ref), "egg": col(egg),
            "torch": {"ms": torch}}
def meta(commit, c):
    return {"date": "d-" + commit, "commit": commit, "flags": "-O3", "nvcc": "nvcc", "egg_cc": "egg-cc",
            "ceilings": c}
rows = [row("a", 4.0, 1.0, 2.0), row("b", 8.0, 2.0, 2.0), row("c", 3.0, 1.5, 1.5)]
for d, part, m in (("whole", rows, meta("x", ceil)), ("p1", rows[2:], meta("x", ceil)),
                   ("p2", rows[:2], meta("y", dict(ceil, copy_bytes_per_s=0.9e12)))):
    os.makedirs(d)
    report.write_all(d, m, json.loads(json.dumps(part)), measured=False)
subprocess.run([sys.executable, os.path.join(bench, "merge.py"), "merged", "p1/results.json",
                "p2/results.json"], check=True, stdout=subprocess.DEVNULL)
w, m = json.load(open("whole/results.json")), json.load(open("merged/results.json"))
assert [c["case"] for c in m["cases"]] == ["a", "b", "c"], m["cases"]
# the first run's ceilings set every floor, so the numbers equal one run's
assert m["summary"] == w["summary"], (m["summary"], w["summary"])
assert [p["commit"] for p in m["meta"]["parts"]] == ["x", "y"]
assert m["meta"]["parts"][1]["ceilings"]["copy_bytes_per_s"] == 0.9e12
assert m["meta"]["commit"] == "x + y", m["meta"]["commit"]
print("merged", len(m["cases"]))
EOF2
	expect_file_contains out.txt "merged 3"
}

test_report_calls_a_case_within_timing_noise_level_not_slower() {
	python3 - "$BENCH" <<'EOF2' >out.txt || fail "report: $(cat out.txt)"
import json, sys
sys.path.insert(0, sys.argv[1])
import report
meta = {"date": "d", "commit": "c", "flags": "-O3", "nvcc": "nvcc", "egg_cc": "egg-cc",
        "ceilings": {"gpu": "g", "copy_bytes_per_s": 1e12, "fp32_flops_per_s": 1e13, "measured": True}}
def row(name, ref, egg):
    col = lambda ms: {"build": {"exe": "x"}, "run": {"ms": ms}, "check": {"correct": True}}
    return {"case": name, "family": "generic", "bytes": 1e9, "flops": 0, "ref": col(ref), "egg": col(egg),
            "torch": {"ms": 1.0}}
report.write_all(".", meta, [row("same", 2.594, 2.596), row("lost", 1.0, 1.05)], measured=False)
s = json.load(open("results.json"))["summary"]
assert s["egg_slower_than_ref"] == ["lost"] and s["egg_level_with_ref"] == ["same"], s
EOF2
	expect_file_contains out.txt "egg slower than its reference (by more than 2%, the run-to-run noise): lost; within the noise: same"
}

test_every_bf16_case_parses_fills_an_h200_and_has_a_pytorch_equivalent() {
	local d=$EGG_SRCDIR/bench/bf16/cases
	python3 "$BENCH/casefile.py" "$d"/*.cu >info.jsonl 2>err.txt || fail "casefile: $(cat err.txt)"
	python3 "$BENCH/torch_ref.py" --list "$d" >refs.txt 2>err.txt || fail "torch_refs of $d: $(cat err.txt)"
	python3 - "$d" info.jsonl refs.txt <<'PY' || fail "$d does not follow the suite's case format"
import glob, json, os, sys
d, info, refs = sys.argv[1:]
names = sorted(os.path.basename(p)[:-3] for p in glob.glob(d + "/*.cu"))
assert open(refs).read().split() == names, "cases without an equivalent, or equivalents without a case"
families = set()
for line in open(info):
    c = json.loads(line)
    # the timed workload several times the 60 MB L2, a second small one for the tails
    assert c["bytes"] >= 1.5 * 60e6 and c["workloads"] >= 2, c
    families.add(c["family"])
# a bf16 case of each family the issue names
need = {"elementwise", "softmax", "norm", "row-reduction", "full-reduction", "transpose", "gather"}
assert need <= families, need - families
PY
}
