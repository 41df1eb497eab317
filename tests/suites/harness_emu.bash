# harness_emu.bash -- the adversarial candidates through `egg eval` on the CPU
# stand-in (tests/tools/emu-nvcc builds the harness's real program against
# builtin/tests/emu), each refused for the reason it deserves, and correct ones
# accepted.  The GPU half is tests/gpu/run-harness-gpu.sh ("adversarial").
#
# The stand-in runs the judge's logic, not a GPU's speed: the bundles are
# scale.json and softmax.json with their small named workload only (blocks run
# one after another on one core), and the timing loop runs a few rounds.  What
# it cannot show: a race between blocks (none run at once) and speed (a
# "slower" verdict); bad_hang and bad_slower stay GPU-only.  The candidates'
# objects and the reference's are kept for the whole run (EGG_TEST_RUN_DIR),
# so each test compiles only what no test before it did.

DATA=$EGG_SRCDIR/tests/data/harness
CAND=$DATA/cand
EMU_NVCC=$EGG_SRCDIR/tests/tools/emu-nvcc

suite_probe() {
	command -v g++ >/dev/null || { echo "no g++"; return 1; }
	command -v python3 >/dev/null || { echo "no python3"; return 1; }
}

json() {
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# emu_setup: the stand-in as the harness's nvcc, the caches shared by the run's
# tests, and the small bundles scale_small.json and softmax_small.json in $T
emu_setup() {
	local shared=${EGG_TEST_RUN_DIR:-$T}
	export EGG_NVCC=$EMU_NVCC EGG_EMU_CACHE=$shared/emu-nvcc EGG_CACHE_DIR=$shared/emu-eval-cache
	export EGG_LOCK_DIR=$T
	local b
	for b in scale softmax; do
		python3 - "$DATA/$b.json" "${b}_small.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
b["workloads"] = b["workloads"][-1:]  # the small one
b["pragma"] = b["pragma"].split(" workload(")[0] + " workload(" + ", ".join(
    "%s = %s" % (x["name"], x["value"]) for x in b["workloads"][0]) + ")"
json.dump(b, open(sys.argv[2], "w"), indent=1)
PY
	done
}

# emu_eval OUT BUNDLE CANDIDATE...: egg eval on the stand-in, each CANDIDATE a
# file under tests/data/harness/cand or a path; OUT.out holds the result.  (One
# seed: the same inputs every run, so a verdict never depends on luck.)
emu_eval() {
	local out=$1 bundle=$2 args=() c
	shift 2
	for c in "$@"; do
		[ -f "$c" ] || c=$CAND/$c
		args+=(--candidate "$c")
	done
	run_cmd "$out" "$EGG" eval "$bundle" --seed 7 --trials 2 --min-speedup 1e-9 --timeout 60 --workdir "w_$out" "${args[@]}"
	expect_eq "$(cat "$out.rc")" 0 "$out: exit status ($(head -c 600 "$out.err"))"
	expect_eq "$(json "$out.out" 'r["status"]')" ok "$out: status ($(json "$out.out" 'r["message"]'))"
	expect_eq "$(json "$out.out" 'r["device"]["name"]')" "egg CPU stand-in" "$out: device"
}

# verdict OUT NAME: NAME's verdict and message, "VERDICT: MESSAGE"
verdict() {
	json "$1.out" '[c["verdict"] + ": " + str(c["message"]) for c in r["candidates"] if c["name"].endswith("/'"$2"'")][0]'
}

# expect_verdict OUT NAME VERDICT TEXT: NAME was judged VERDICT with TEXT in its message
expect_verdict() {
	local v
	v=$(verdict "$1" "$2")
	[[ $v == "$3: "* ]] || fail "$2: expected $3, got $v"
	[[ $v == *"$4"* ]] || fail "$2: the message lacks '$4': $v"
}

test_a_correct_candidate_is_accepted_on_the_cpu_stand_in_after_every_check() {
	emu_setup
	emu_eval r scale_small.json good_scale_vec4.cu
	expect_eq "$(verdict r good_scale_vec4.cu)" "pass: None"
	# it went through everything the GPU run does: both trials, the timing loop
	# and the checks after it, and every probe call (offset bases among them)
	local c='r["candidates"][0]'
	expect_eq "$(json r.out "[(k['call'], k['trial']) for k in $c['run']['checks']][:4]")" \
		"[('workload 0', 0), ('workload 0', 1), ('workload 0, its last timed call', -1), ('workload 0', 2)]"
	expect_eq "$(json r.out "len($c['run']['timings'])")" 1 "timed workloads"
	expect_eq "$(json r.out "$c['run']['timings'][0]['reps'] > 0")" True "timed rounds"
	expect_eq "$(json r.out "$c['domain']['checked'] == $c['domain']['probes'] > 0")" True \
		"probes checked ($(json r.out "$c['domain']"))"
	expect_eq "$(json r.out "any('bases offset' in k['call'] for k in $c['run']['checks'])")" True \
		"a probe with offset bases"
	expect_eq "$(json r.out 'r["sandbox"] != "off (the sandbox setting)"')" True "sandboxed"
}

test_candidates_that_remember_results_or_pointers_are_refused_on_the_cpu_stand_in() {
	emu_setup
	emu_eval r scale_small.json bad_memo_pointer.cu bad_cached.cu bad_wrong_one_seed.cu
	# the same buffers again, with new inputs in them: the output is the poison
	expect_verdict r bad_memo_pointer.cu wrong "workload 0, trial 1: y: 1003 of 1003 elements wrong (1003 unwritten"
	expect_verdict r bad_cached.cu wrong "workload 0, trial 1: y: 1003 of 1003 elements wrong (0 unwritten"
	expect_verdict r bad_wrong_one_seed.cu wrong "workload 0, trial 1: y:"
}

test_candidates_that_write_too_little_or_too_far_or_read_their_output_are_refused_on_the_cpu_stand_in() {
	emu_setup
	emu_eval r scale_small.json bad_unwritten.cu bad_oob_write.cu bad_reads_output.cu \
		bad_writes_input.cu bad_oob_read.cu bad_wrong_last.cu
	expect_verdict r bad_unwritten.cu wrong "y: 100 of 1003 elements wrong (100 unwritten"
	expect_verdict r bad_oob_write.cu wrong "workload 0, trial 0: wrote outside buffer y"
	# y += ...: what it reads is the poison (NaN), so every element is
	expect_verdict r bad_reads_output.cu wrong "y: 1003 of 1003 elements wrong (1003 unwritten"
	expect_verdict r bad_writes_input.cu wrong "modified the read-only input x"
	# the element past x is the guard's NaN
	expect_verdict r bad_oob_read.cu wrong "the first at index 1002: got -nan"
	expect_verdict r bad_wrong_last.cu wrong "the first at index 1002"
}

# Both candidates are right at their bundle's named workload (the GPU run's
# second one) and wrong elsewhere; the probe calls find it, after every named
# check passed.  (On the GPU the scale one's stray writes are caught in the
# guards at probe 0; here its NaN reads stay NaN with their bits, so the
# guards look untouched, and its wild writes at probe 2 fault.)
test_a_candidate_specialized_to_the_named_workloads_is_refused_at_a_probe_on_the_cpu_stand_in() {
	emu_setup
	emu_eval s softmax_small.json softmax_bad_specialized.cu good_softmax_block.cu
	expect_verdict s softmax_bad_specialized.cu wrong "right at the named workloads only (specialized to them?): probe "
	expect_eq "$(verdict s good_softmax_block.cu)" "pass: None"
	expect_eq "$(json s.out '[c["domain"]["summary"] for c in r["candidates"]][1].startswith("every call")')" True
	emu_eval c scale_small.json bad_specialized_scale.cu
	local v
	v=$(verdict c bad_specialized_scale.cu)
	[[ $v == wrong:* || $v == cuda_error:* ]] || fail "bad_specialized_scale: $v"
	[[ $v == *"right at the named workloads only (specialized to them?)"*"probe "* ]] ||
		fail "bad_specialized_scale not caught at a probe: $v"
	expect_eq "$(json c.out 'r["candidates"][0]["domain"]["checked"] < r["candidates"][0]["domain"]["probes"]')" True
}

# The stand-in checks every access of a contender's unit for its type's
# alignment (emu-nvcc), and a misaligned one is the GPU's "misaligned address":
# the float4 loads that assume aligned bases fault at the first probe whose
# bases are offset and that has a whole float4 to load; the candidate that
# checks its bases passes the same probes.
test_a_vector_load_that_assumes_aligned_bases_faults_at_the_offset_probe_on_the_cpu_stand_in() {
	emu_setup
	emu_eval r scale_small.json bad_misaligned_vec4.cu good_scale_vec4.cu bad_trap.cu
	expect_verdict r bad_misaligned_vec4.cu cuda_error "right at the named workloads only"
	expect_verdict r bad_misaligned_vec4.cu cuda_error "bases offset), trial 0): misaligned address"
	expect_eq "$(verdict r good_scale_vec4.cu)" "pass: None"
	# a kernel's fault is the program's CUDA error, not a crash
	expect_verdict r bad_trap.cu cuda_error "the candidate failed (workload 0, trial 0): unspecified launch failure"
}

test_a_candidate_that_skips_its_work_when_timed_is_refused_at_its_last_timed_call_on_the_cpu_stand_in() {
	emu_setup
	emu_eval r scale_small.json bad_timer_game.cu
	expect_verdict r bad_timer_game.cu wrong "workload 0, its last timed call: y: 1003 of 1003 elements wrong (1003 unwritten"
	# it passed both trials before the timing loop
	expect_eq "$(json r.out '[k["pass"] for k in r["candidates"][0]["run"]["checks"]]')" "[True, True, False]"
}

# The screen refuses a stream of the candidate's own; past the screen
# (EGG_TEST_UNSCREENED, tests only), the stand-in queues the work on its
# non-blocking stream until someone waits for it, so the snapshot on the
# caller's stream right after the call sees the poison, and the output changes
# after it.
test_a_side_stream_candidate_is_refused_by_the_screen_and_by_the_stream_order_check_on_the_cpu_stand_in() {
	emu_setup
	emu_eval r scale_small.json bad_side_stream.cu
	expect_verdict r bad_side_stream.cu rejected "cudaStreamCreateWithFlags"
	EGG_TEST_UNSCREENED=1 emu_eval u scale_small.json bad_side_stream.cu
	expect_verdict u bad_side_stream.cu wrong "workload 0, trial 0: y: 1003 of 1003 elements wrong (1003 unwritten"
	expect_eq "$(json u.out 'r["candidates"][0]["run"]["checks"][0]["problem"]')" \
		"y changed after the call returned: work on another stream was not ordered before the caller's stream"
}

# A candidate that calls the C library to write a file and run a shell: the
# screen refuses it naming the call; past the screen, its program (a real one
# on the stand-in) runs in the sandbox, which stops both, and its result is
# judged as any other; with the sandbox off the same program gets through.
test_host_calls_outside_the_runtime_are_refused_by_the_screen_and_stopped_by_the_sandbox_on_the_cpu_stand_in() {
	emu_setup
	cat >escape.cu <<EOF
__global__ void k(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 2.0f * x[i];
}
void scale(const float *x, float *y, int n)
{
	static int tried;
	if (!tried++) {
		FILE *f = fopen("$T/escaped", "w");
		printf("escape write: %s\n", f ? "done" : "refused");
		if (f)
			fclose(f);
		printf("escape exec: %s\n", system("echo > $T/shell") == 0 ? "done" : "refused");
	}
	k<<<(n + 255) / 256, 256>>>(x, y, n);
}
EOF
	emu_eval r scale_small.json "$T/escape.cu"
	expect_verdict r escape.cu rejected "uses 'fopen'"
	EGG_TEST_UNSCREENED=1 emu_eval u scale_small.json "$T/escape.cu"
	case $(json u.out 'r["sandbox"]') in
	*"Landlock (writes and exec)"*) ;;
	*) skip "this kernel offers no Landlock: $(json u.out 'r["sandbox"]')" ;;
	esac
	expect_eq "$(verdict u escape.cu)" "pass: None"
	expect_file_contains w_u/cand0.out "escape write: refused"
	expect_file_contains w_u/cand0.out "escape exec: refused"
	[ ! -e escaped ] && [ ! -e shell ] || fail "the confined program got out: $(ls)"
	EGG_SANDBOX=0 EGG_TEST_UNSCREENED=1 emu_eval o scale_small.json "$T/escape.cu"
	expect_file_contains w_o/cand0.out "escape write: done"
	[ -e escaped ] && [ -e shell ] || fail "unconfined, the program did not get out: $(cat w_o/cand0.out)"
}

# A float output outside the tolerance is judged again against the reference's
# float64 twin where it is linked (the program calls it), and against the float
# reference alone where the twin does not compile (the program's weak reference
# to it is NULL, and nothing calls it): a candidate off by 1e-3 is wrong both ways.
test_a_float_result_off_the_tolerance_meets_the_float64_twin_only_where_it_links_on_the_cpu_stand_in() {
	emu_setup
	cat >off.cu <<'CU'
__global__ void off_kernel(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 2.0f * x[i] + 1e-3f;
}
void scale(const float *x, float *y, int n)
{
	off_kernel<<<(n + 255) / 256, 256>>>(x, y, n);
}
CU
	python3 - scale_small.json >asserts_small.json <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
b["closure"] += '\nstatic_assert(sizeof(float) == 4, "float is 32 bits");\n'
print(json.dumps(b))
PY
	local out judged
	for out in twin alone; do
		emu_eval "$out" "$([ $out = twin ] && echo scale_small.json || echo asserts_small.json)" "$T/off.cu"
		expect_verdict "$out" off.cu wrong ""
		judged=$(json "$out.out" 'sorted({b["judged_against"] for c in r["candidates"] for k in c["run"]["checks"] for b in k["buffers"] if not k["pass"]})')
		case $out in
		twin) expect_eq "$judged" "['float64']" "with the twin linked" ;;
		alone) expect_eq "$(json "$out.out" 'r["reference"]["float64"]')" "the float64 version does not compile" "asserts: twin"
			expect_eq "$judged" "['reference']" "without the twin" ;;
		esac
	done
}
