# agents_gpu_fixture: what can be proven without a GPU of the GPU search
# (tests/gpu/agents-search: run.sh with the scripted model server answering
# real CUDA code): the fixture is what make-fixture.py writes, every code answer
# compiles for sm_90 through the harness except the seed with the typo, and the
# fixture drives a whole two-stage search to a linked winner when cpu-eval (real
# compiles, the GPU's verdicts from a table) stands in for the GPU.

DIR=$EGG_SRCDIR/tests/gpu/agents-search

suite_probe() {
	[ -x "$REAL_NVCC" ] || { echo "no nvcc"; return 1; }
	command -v python3 >/dev/null || { echo "python3 is needed for the scripted model server"; return 1; }
}
# the compiles several tests repeat, done once per run (lib.bash)
suite_setup() { share_nvcc_compiles; }

# The code blocks of the fixture's answers, one file per distinct block, named
# after its "variant:" line, in code/.
fixture_code() {
	mkdir -p code
	python3 - "$DIR/fixture.json" code <<'PY'
import json, re, sys
for e in json.load(open(sys.argv[1]))["exchanges"]:
    for block in re.findall(r"```cuda\n(.*?)```", e.get("reply", ""), re.S):
        variant = re.search(r"// variant: (\w+)", block).group(1)
        open("%s/%s.cu" % (sys.argv[2], variant), "w").write(block)
PY
}

test_fixture_json_is_what_make_fixture_writes() {
	python3 "$DIR/make-fixture.py" >made.json || fail "make-fixture.py failed"
	expect_same_file made.json "$DIR/fixture.json"
}

test_every_code_answer_compiles_for_sm_90_but_the_seed_with_the_typo() {
	fixture_code
	expect_eq "$(ls code | tr '\n' ' ')" "a0.cu a1.cu b0.cu b1.cu c.cu map.cu mem.cu tile.cu " "answers"
	"$EGG" analyze "$DIR/softmax.cu" >bundles.json || fail "egg analyze failed"
	python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1]))[0], sys.stdout)' \
		bundles.json >bundle.json
	share_prepared_objects # the harness's runtime, compiled once for the run
	PATH=$NVCC_DIR:$PATH run_cmd ev "$EGG" eval --local --compile-only --arch sm_90 \
		bundle.json $(printf -- '--candidate code/%s ' $(ls code)) || fail "$(cat ev.err)"
	python3 - ev.out >verdicts <<'PY' || fail "unreadable result: $(head -c 300 ev.out)"
import json, os, sys
for c in json.load(open(sys.argv[1]))["candidates"]:
    print(os.path.basename(c["name"]), c["verdict"])
PY
	expect_eq "$(cat verdicts | tr '\n' ' ')" "a0.cu compile_error a1.cu compiled b0.cu compiled \
b1.cu compiled c.cu compiled map.cu compiled mem.cu compiled tile.cu compiled " "verdicts"
	expect_file_contains ev.out 'identifier \"mx\" is undefined'
}

test_fixture_drives_a_whole_search_to_a_linked_winner() {
	PATH=$(dirname "$EGG_CC"):$(dirname "$EGG"):$NVCC_DIR:$PATH \
		EGG_PROMPTS_DIR=$EGG_SRCDIR/prompts EGG_BUILTIN_TEMPLATES=$EGG_SRCDIR/builtin/templates \
		EGG_EVAL_COMMAND=$DIR/cpu-eval CPU_EVAL_LOG=$T/evals \
		run_cmd r "$DIR/run.sh" "$T/log" || fail "run.sh failed: $(grep -v ^PASS r.out)"
	expect_file_contains r.out "agents-search: 0 failed"
	expect_file_contains r.out "search: "
	expect_file_contains r.out ", 17 model requests, judged by EGG_EVAL_COMMAND (cpu-eval)"
	expect_file_contains r.out "PASS seed 1 (a typo) got compile_error"
	expect_file_contains r.out "PASS seed 2 (the tail forgotten) got wrong"
	expect_file_contains r.out "PASS the key appears nowhere"
	expect_file_contains r.out "egg: softmax_forward: 46.0x over reference (openai, verified on CPU-emulated H200), cached"
	expect_file_lacks r.out "FAIL"
	expect_file_lacks r.out "note: fallbacks"
	expect_file_contains "$T/log/transcript.txt" "winner: s2.1-memory [THREADS=256]"
	expect_file_contains "$T/log/verdicts.txt" "best s2.1-memory [THREADS=256]"
	# (and the ncu profiles of stage 2's current bests: the next test)
	expect_eq "$(grep -vc '^profile: ' "$T/evals")" 13 "harness calls (the reference's, the builtin's candidates, then one per code answer)"
}

# A repair that fails too (a1 judged wrong) costs one more debug round, which
# the fixture's fallbacks answer; the search still ends with a winner.  (The
# code answers get the verdicts their compiles give without being compiled
# again: the two tests above compile each of them.)
test_fixture_fallbacks_answer_an_extra_debug_round() {
	PATH=$(dirname "$EGG_CC"):$(dirname "$EGG"):$NVCC_DIR:$PATH \
		EGG_PROMPTS_DIR=$EGG_SRCDIR/prompts EGG_BUILTIN_TEMPLATES=$EGG_SRCDIR/builtin/templates \
		EGG_EVAL_COMMAND=$DIR/cpu-eval CPU_EVAL_WRONG=a1 CPU_EVAL_NO_COMPILE=1 CPU_EVAL_LOG=$T/evals \
		run_cmd r "$DIR/run.sh" "$T/log"
	# each current best that stage 2's profile agent read was profiled once
	expect_eq "$(sed -n 's/^profile: \(.*\)=[a-z_]*$/\1/p' "$T/evals" | tr '\n' ',')" \
		"s1.3,s2.1-mapping [THREADS=128],s2.1-tiling [THREADS=256],s1.1-fix2,s2.2-mapping [THREADS=128],s2.2-tiling [THREADS=256]," \
		"profiled candidates"
	expect_file_contains r.out ", 18 model requests, judged by EGG_EVAL_COMMAND (cpu-eval)"
	expect_file_contains r.out "FAIL seed 1's repair s1.1-fix1 passed: wrong"
	expect_file_contains r.out "agents-search: 1 failed"
	expect_file_contains r.out "note: fallbacks ['fallback: any other debug request']"
	expect_file_contains r.out "PASS every request got its exchange"
	expect_file_contains r.out "PASS the entry is a winner"
	expect_file_contains "$T/log/verdicts.txt" "verdict s1.1-fix2 pass"
}
