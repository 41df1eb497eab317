# agents: the staged agent search end to end -- the real egg-cc on an annotated
# .cu with a model backend (openai, anthropic) pointed at the scripted model
# server (tests/agents/model-server.py) replaying a whole two-stage search, and
# a recorded evaluator (tests/data/agents/fixture-eval) giving each candidate
# the verdict its source names.  CI has no GPU; the final compile and link of
# the winner are real.

DATA=$EGG_SRCDIR/tests/data/agents
KEY=sk-egg-search-7c1e0b9a44
. "$EGG_SRCDIR/tests/agents/server.bash" # start_server, stop_server, logq

suite_probe() {
	[ -x "$REAL_NVCC" ] || { echo "no nvcc"; return 1; }
	command -v python3 >/dev/null || { echo "python3 is needed for the scripted model server"; return 1; }
}
# the compiles several tests repeat, done once per run (lib.bash)
suite_setup() { share_nvcc_compiles; }

# serve BACKEND FIXTURE_FILE: the scripted server with that fixture, and the
# recorded evaluator, the source prompts and nvcc for egg-cc.
serve() {
	start_server "$1" "$(cat "$2")"
	export EGG_EVAL_COMMAND=$DATA/fixture-eval FIXTURE_EVAL_LOG=$T/evals
	export EGG_PROMPTS_DIR=$EGG_SRCDIR/prompts EGG_BUILTIN_TEMPLATES=$EGG_SRCDIR/builtin/templates
	export PATH=$NVCC_DIR:$PATH
	cp "$DATA/scale.cu" .
}

has_symbol() { nm -C "$1" >"$1.nm"; grep -q -- "$2" "$1.nm"; }

# The search replays all 17 exchanges, every request met the fixture's
# expectations, and the winner (the tuned mapping candidate) is linked.
search_links_the_winner() {
	serve "$1" "$T/search.json"
	run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c scale.cu -o scale.o || fail "$(cat r.err)"
	expect_eq "$(logq 'len(l)')" 17 "requests ($(cat r.err))"
	expect_eq "$(logq '[e["name"] for e in l if e["expect_failed"]]')" "[]" \
		"failed expectations: $(logq '[e["expect_failed"] for e in l if e["expect_failed"]]')"
	expect_eq "$(logq 'sorted(set(e["protocol"] for e in l))')" "['$1']" "protocol"
	expect_eq "$(logq 'sorted(set(e["model"] for e in l))')" "['test-model']" "model"
	expect_eq "$(logq 'sorted(set(tuple(e["roles"]) for e in l))')" "[('system', 'user')]" "roles"
	expect_eq "$(logq 'sorted(set(e["auth"] for e in l))')" "['match']" "the key was sent"
	# the builtin's 11 candidates first (all slower than the reference here), then the model's
	expect_file_contains r.err "egg: scale_forward: stage 0/builtin: 11/64 candidates, none faster yet"
	expect_file_contains r.err "egg: scale_forward: stage 1/structure: 13/64 candidates, best 1.5x"
	expect_file_contains r.err "egg: scale_forward: stage 2/mapping: 18/64 candidates, best 3.0x"
	expect_file_contains r.err "egg: scale_forward: 3.0x over reference ($1, verified on Recorded GPU), cached"
	expect_file_lacks r.err "warning"
	expect_file_contains evals "s2.1-mapping [BLOCK=128] | s2.1-mapping [BLOCK=256]"
	expect_eq "$(head -1 evals)" "" "the first job: the reference's self-check"
	has_symbol scale.o ' T egg_winner__scale_forward(' || fail "the winner is not linked"
	has_symbol scale.o 'egg_scale_forward_map' || fail "the winner's kernel is not in the object"
	has_symbol scale.o ' T scale_forward(' || fail "the dispatcher keeps the user's name"
}

entry_json() { cat "$EGG_CACHE_DIR"/*/* 2>/dev/null | grep '"transcript"'; }

test_openai_search_reaches_the_winner_after_a_compile_error_and_a_wrong_result() {
	"$DATA/search-fixture" >"$T/search.json"
	search_links_the_winner openai
}

test_anthropic_search_reaches_the_same_winner() {
	"$DATA/search-fixture" >"$T/search.json"
	search_links_the_winner anthropic
}

test_transcript_is_in_the_entry_and_no_key_anywhere() {
	"$DATA/search-fixture" >"$T/search.json"
	search_links_the_winner openai
	"$EGG" cache ls >ls.out || fail "egg cache ls failed"
	expect_eq "$(grep -c winner ls.out)" 1 "winners cached"
	entry_json >entry.json
	[ -s entry.json ] || fail "no cache entry found under $EGG_CACHE_DIR"
	python3 - entry.json <<'PY' || fail "the entry's transcript is not as expected"
import json, sys
e = json.load(open(sys.argv[1]))
t = e["transcript"]
assert e["outcome"] == "winner", e["outcome"]
assert "egg_scale_forward_map" in e["source"]
assert e["generator"]["backend"] == "openai" and e["generator"]["model"] == "test-model"
assert e["generator"]["recipe"].startswith("prompts-1+"), e["generator"]
stages = {s["stage"] for s in t}
assert {"0/builtin", "1/structure", "2/mapping", "2/tiling", "2/memory", "debug", "tune"} <= stages, stages
for s in t:
    assert s["role"] in ("code", "profile", "debug", "search") and s["kind"] in (
        "prompt", "response", "evaluation", "decision", "note"), s
assert any(s["kind"] == "decision" and s["text"].startswith("winner: s2.1-mapping [BLOCK=256]")
           and s["text"].endswith("(origin: model)") for s in t)
assert any(s["stage"] == "0/builtin" and s["kind"] == "evaluation" for s in t), stages
assert sum(1 for s in t if s["kind"] == "response") == 17
assert any(s["text"].startswith("openai backend: 17 requests (0 retries)") for s in t), t[-1]
best = e["result"]["candidates"][e["result"]["best"]]
assert best["name"] == "s2.1-mapping [BLOCK=256]" and best["speedup"] == 3.0, best
PY
	for f in entry.json r.err r.out "$T/server.log" evals; do
		expect_file_lacks "$f" "$KEY"
	done
	! grep -rqF "$KEY" "$EGG_CACHE_DIR" || fail "the key is in the cache"
}

# The generator (backend, model, prompts) is stored in the entry, not hashed
# into the key: a verified winner serves whoever asks for the same code, flags
# and GPU (a negative entry of another generator is searched again).
test_the_cache_key_is_the_same_for_every_generator_and_prompt_set() {
	export EGG_BACKEND=openai EGG_MODEL=test-model EGG_PROMPTS_DIR=$EGG_SRCDIR/prompts
	export PATH=$NVCC_DIR:$PATH
	cp "$DATA/scale.cu" .
	k1=$("$EGG" cache key -- -O3 -arch=sm_90 -c scale.cu 2>&1) || fail "$k1"
	cp -r "$EGG_SRCDIR/prompts" myprompts
	echo "Be brief." >>myprompts/roles/tiling.md
	k2=$(EGG_PROMPTS_DIR=$T/myprompts "$EGG" cache key -- -O3 -arch=sm_90 -c scale.cu 2>&1) || fail "$k2"
	expect_eq "$k2" "$k1" "the key with edited prompts"
	k3=$(EGG_BACKEND=builtin "$EGG" cache key -- -O3 -arch=sm_90 -c scale.cu 2>&1)
	expect_eq "$k3" "$k1" "the key with the builtin generator"
}

test_no_verdict_from_the_harness_asks_the_model_nothing() {
	"$DATA/search-fixture" >"$T/search.json"
	serve openai "$T/search.json"
	EGG_EVAL_COMMAND=/bin/false run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c scale.cu -o scale.o ||
		fail "$(cat r.err)"
	expect_file_lines r.err 1
	expect_file_contains r.err "egg-cc: warning: egg: scale_forward: no verdict (the reference's self-check failed"
	expect_eq "$(logq 'len(l)')" 0 "requests"
	! has_symbol scale.o 'egg_winner__scale_forward' || fail "a winner was linked"
}

test_refused_key_warns_once_and_builds_the_reference() {
	echo '[{"name": "bad key", "status": 401, "error": "Incorrect API key provided", "repeat": 5}]' \
		>"$T/bad-key.json"
	serve openai "$T/bad-key.json"
	run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c scale.cu -o scale.o || fail "$(cat r.err)"
	# the builtin's candidates were judged first (none faster), then the model refused the key
	expect_file_lines r.err 2
	expect_file_contains r.err "egg: scale_forward: stage 0/builtin: 11/64 candidates, none faster yet"
	expect_file_contains r.err "egg-cc: warning: egg: scale_forward: no verdict ("
	expect_file_contains r.err "; compiling the reference"
	expect_eq "$(logq 'len(l)')" 1 "requests (no retry on 401)"
	expect_file_lines evals 2 # the reference's self-check, then the builtin's candidates
	! has_symbol scale.o 'egg_winner__scale_forward' || fail "a winner was linked"
	expect_eq "$("$EGG" cache ls | grep -c .)" 0 "cache entries"
	expect_file_lacks r.err "$KEY"
}

# The builtin's best is the baseline of every model search (issue 29).
# entry_transcript: the decisions and notes of the one entry's transcript.
entry_decisions() {
	entry_json >entry.json
	python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))
for s in e["transcript"]:
    if s["kind"] in ("decision", "note"):
        print(s["stage"], s["text"].split("\n")[0])' entry.json
}

# A model whose kernels are all slower than the builtin's best: the winner is
# the builtin's, stage 2 tunes it, and the model's best is in the transcript.
test_a_model_slower_than_the_builtin_leaves_the_builtin_winner() {
	"$DATA/search-fixture" >"$T/search.json"
	serve openai "$T/search.json"
	# (1 MiB a call: the builtin's 9x is 16% of the floor, far from the stop)
	FIXTURE_BUILTIN="pass 9.0" FIXTURE_BYTES=1048576 run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c scale.cu -o scale.o ||
		fail "$(cat r.err)"
	expect_file_contains r.err "egg: scale_forward: stage 0/builtin: 11/64 candidates, best 9.0x"
	expect_file_contains r.err "9.0x over reference (openai, verified on Recorded GPU), cached"
	has_symbol scale.o 'egg_winner__scale_forward' || fail "no winner linked"
	entry_decisions >d.txt
	expect_file_contains d.txt "0/builtin builtin baseline: builtin: "
	expect_file_contains d.txt "(the builtin's) goes on to stage 2: 9.00x, faster than every model structure"
	grep -q "structure s1\..* does not go on after all: the builtin's takes its place" d.txt ||
		fail "the structure the builtin's replaced is not said: $(grep 'goes on' d.txt)"
	grep -q "winner: builtin: .*(origin: builtin)" d.txt || fail "the winner is not the builtin's: $(grep winner d.txt)"
	# the model's structures were evaluated and are in the transcript
	python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))
names = [c["name"] for c in e["result"]["candidates"] if c["verdict"] == "pass"]
assert any(n.startswith("s1.") for n in names) and any(n.startswith("builtin: ") for n in names), names
assert e["source"].count("egg_scale_forward") > 0' entry.json || fail "the model's candidates are missing"
	# stage 1 was shown the builtin's best as the structure to beat
	expect_eq "$(logq 'sum("The structure to beat" in m["content"] and "builtin: " in m["content"] for e in l for m in e["messages"])')" 3 \
		"structure prompts with the baseline"
}

# A model whose kernel beats the builtin's best: the model's is the winner.
test_a_model_faster_than_the_builtin_wins() {
	"$DATA/search-fixture" >"$T/search.json"
	serve openai "$T/search.json"
	FIXTURE_BUILTIN="pass 1.2" run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c scale.cu -o scale.o ||
		fail "$(cat r.err)"
	expect_file_contains r.err "3.0x over reference (openai, verified on Recorded GPU), cached"
	entry_decisions >d.txt
	grep -q "winner: s2.1-mapping \[BLOCK=256\].*(origin: model)" d.txt || fail "$(grep winner d.txt)"
	expect_file_lacks d.txt "(the builtin's) goes on to stage 2"
}

# The builtin's best already at the roofline (95% of the copy ceiling; the
# search stops at 90%): no model call, the builtin's winner, and why.
test_a_kernel_the_builtin_runs_at_the_roofline_costs_no_model_call() {
	"$DATA/search-fixture" >"$T/search.json"
	serve openai "$T/search.json"
	# 14.25 MB in 0.02 ms / 4.0 = 5 us is 2850 GB/s, 95% of the 3000 GB/s ceiling
	FIXTURE_BUILTIN="pass 4.0" FIXTURE_BYTES=14250000 run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c scale.cu -o scale.o ||
		fail "$(cat r.err)"
	expect_eq "$(logq 'len(l)')" 0 "model requests"
	expect_file_contains r.err "the builtin's best is at 95% of the roofline floor (the search stops at 90%)"
	expect_file_contains r.err "4.0x over reference (openai, verified on Recorded GPU), cached"
	has_symbol scale.o 'egg_winner__scale_forward' || fail "no winner linked"
	entry_decisions >d.txt
	expect_file_contains d.txt "0 model calls, 0 input and 0 output tokens, 11 candidates evaluated"
	# and with the stop turned off, the model is asked
	"$EGG" cache clear >/dev/null
	FIXTURE_BUILTIN="pass 4.0" FIXTURE_BYTES=14250000 EGG_ROOFLINE_STOP=0 run_cmd r2 "$EGG_CC" -O3 \
		-arch=sm_90 -c scale.cu -o scale.o || fail "$(cat r2.err)"
	[ "$(logq 'len(l)')" -gt 0 ] || fail "no model request without the stop"
}

# regenerate = faster with a model backend: its search spans many evaluations,
# so its winner meets the cached winner of the older prompts in a run-off of the
# two, one evaluation; the faster stays.  (The builtin at the roofline: no
# model call; the cached winner's marker gives its verdict in the run-off.)
test_with_regenerate_faster_a_model_searchs_winner_meets_the_old_one_in_a_run_off() {
	"$DATA/search-fixture" >"$T/search.json"
	serve openai "$T/search.json"
	make_quick_nvcc
	export FIXTURE_BUILTIN="pass 4.0" FIXTURE_BYTES=14250000
	"$EGG_CC" "$T/quick/nvcc" -O3 -arch=sm_90 -c scale.cu -o s1.o 2>/dev/null || fail "first build"
	python3 "$EDIT_ENTRY" --recipe "prompts-0 (older)" --source 's + "\n// fixture: pass 6.0\n"' \
		"$EGG_CACHE_DIR"/??/* || fail "no entry to age"
	local old
	old=$(entry_json | python3 -c 'import json, sys; print(json.load(sys.stdin)["source"])' | sha256sum)
	: >"$T/evals"
	EGG_REGENERATE=faster run_cmd r "$EGG_CC" "$T/quick/nvcc" -O3 -arch=sm_90 -c scale.cu -o s2.o || fail "$(cat r.err)"
	expect_eq "$(tail -1 evals | tr '|' '\n' | grep -c .)" 2 "candidates in the last job (the run-off)"
	tail -1 evals | grep -q "cached winner (openai test-model)" || fail "the run-off: $(tail -1 evals)"
	expect_file_contains r.err "egg: scale_forward: the cached winner of openai test-model stays (nothing new was faster); marked as checked"
	expect_eq "$(entry_json | python3 -c 'import json, sys; print(json.load(sys.stdin)["source"])' | sha256sum)" "$old" \
		"the cached winner"
	grep -q 'fixture: pass 6.0' quick/given.cu || fail "the cached winner is not what nvcc compiles"
	# a cached winner slower than the search's: replaced
	python3 "$EDIT_ENTRY" --recipe "prompts-0 (older)" --source 's.replace("pass 6.0", "pass 2.0")' \
		"$EGG_CACHE_DIR"/??/* || fail "no entry to age"
	python3 - "$EGG_CACHE_DIR"/??/* <<'PY' || fail "cannot unmark the entry"
import hashlib, json, sys
for p in sys.argv[1:]:
    d = json.load(open(p)); d.pop("checked", None); d.pop("checksum", None)
    c = json.dumps(d, separators=(",", ":"), ensure_ascii=False)
    d["checksum"] = hashlib.sha256(c.encode()).hexdigest()
    open(p, "w").write(json.dumps(d, separators=(",", ":"), ensure_ascii=False) + "\n")
PY
	EGG_REGENERATE=faster run_cmd r2 "$EGG_CC" "$T/quick/nvcc" -O3 -arch=sm_90 -c scale.cu -o s3.o || fail "$(cat r2.err)"
	expect_file_contains r2.err "4.0x over reference (openai, verified on Recorded GPU), faster than the cached winner of openai test-model (2.0x in the same evaluation), cached"
	! grep -q 'fixture: pass' quick/given.cu || fail "the slower cached winner was compiled"
}

# A model server that accepts and never answers: the kernel's search ends
# within max_search_time (3 s here), not after attempts x timeout (5 x 120 s by
# default), keeps the builtin's best and says so in one line.  (`timeout 60`:
# without the deadline the compile would take ten minutes.)
test_a_model_that_never_answers_ends_the_search_within_max_search_time() {
	serve openai <(echo '[{"delay_s": 600, "reply": "too late", "repeat": 20}]')
	FIXTURE_BUILTIN="pass 2.0" EGG_MAX_SEARCH_TIME=3s run_cmd r timeout 60 "$EGG_CC" -O3 \
		-arch=sm_90 -c scale.cu -o scale.o || fail "$(cat r.err)"
	expect_file_contains r.err "egg: scale_forward: stopped: the time budget ran out waiting for the model (max_search_time); keeping the best so far"
	expect_file_contains r.err "2.0x over reference (openai, verified on Recorded GPU), cached"
	expect_file_lacks r.err "warning"
	has_symbol scale.o 'egg_winner__scale_forward' || fail "the builtin's winner is not linked"
	# the search's own clock (builtin stage included) and the backend's
	entry_decisions >d.txt
	python3 -c 'import re, sys
t = open(sys.argv[1]).read()
s = float(re.search(r"candidates evaluated, ([0-9.]+) s; stopped by max_search_time", t).group(1))
b = float(re.search(r"openai backend: 1 requests \(0 retries\), .*, ([0-9.]+) s, cost", t).group(1))
assert s < 3.5 and b < 3.5, (s, b)' d.txt || fail "the search outlasted its budget: $(grep -E ' s[;,]' d.txt)"
}

# A backend that stops answering (full timeouts) warns once for the build; the
# build's next kernel does not ask it at all and builds without a warning.
test_a_model_that_stops_answering_warns_once_and_later_kernels_skip_it() {
	serve openai <(echo '[{"delay_s": 600, "reply": "too late", "repeat": 20}]')
	sed 's/scale_forward/scale_backward/' scale.cu >other.cu
	EGG_TIMEOUT=1s EGG_MAX_SEARCH_TIME=4s run_cmd r1 timeout 60 "$EGG_CC" -O3 -arch=sm_90 \
		-c scale.cu -o scale.o || fail "$(cat r1.err)"
	grep warning r1.err >w1.txt
	expect_file_lines w1.txt 1
	expect_file_contains w1.txt "egg-cc: warning: egg: scale_forward: "
	expect_file_contains w1.txt "; the build's later kernels skip it for 60 s"
	local asked
	asked=$(logq 'len(l)')
	EGG_TIMEOUT=1s EGG_MAX_SEARCH_TIME=4s run_cmd r2 timeout 60 "$EGG_CC" -O3 -arch=sm_90 \
		-c other.cu -o other.o || fail "$(cat r2.err)"
	expect_file_lacks r2.err "warning"
	expect_eq "$(logq 'len(l)')" "$asked" "requests of the second kernel"
	ls "$EGG_CACHE_DIR"/outages/ | grep -qv lock || fail "no outage was recorded"
}

# Nsight Compute in stage 2 (issue 29): the search evaluates on this machine
# with the harness's fake toolchain (tests/data/harness/fake: every program
# passes at 2x, and its ncu prints fixed metrics), egg-cc's own compile of the
# winner with the real nvcc.  Three seeds, then the profile agent (its prompt is
# the last one the model-call budget allows), so the search ends there with the
# best so far.
HFAKE=$EGG_SRCDIR/tests/data/harness/fake
serve_with_fake_gpu() { # FIXTURE_JSON
	start_server openai "$1"
	# an nvcc that dispatches, ncu beside it; the analyzer and the screen
	# read the real toolkit (EGG_CUDA_HOME)
	mkdir -p tc/bin
	cat >tc/bin/nvcc <<SH
#!/bin/bash
# egg-cc's own compiles of scale.cu go to the real nvcc, the harness's to the fake
case "\$*" in
*scale.*|*--version*) exec "$REAL_NVCC" "\$@" ;;
*) exec "$HFAKE/nvcc" "\$@" ;;
esac
SH
	printf '#!/bin/sh\necho 9.0\n' >tc/bin/nvidia-smi # egg-cc's "is there a GPU"
	chmod +x tc/bin/nvcc tc/bin/nvidia-smi
	ln -s "$HFAKE/ncu" tc/bin/ncu
	export EGG_CUDA_HOME=$(dirname "$(dirname "$REAL_NVCC")")
	export PATH=$T/tc/bin:$PATH EGG_NVCC=$T/tc/bin/nvcc EGG_LOCK_DIR=$T EGG_MAX_MODEL_CALLS=4 EGG_MAX_CANDIDATES=8
	export EGG_PROMPTS_DIR=$EGG_SRCDIR/prompts EGG_BUILTIN_TEMPLATES=$EGG_SRCDIR/builtin/templates
	unset EGG_EVAL_COMMAND
	cp "$DATA/scale.cu" .
}

# ncu_fixture TEXT...: the seeds' answers, then a profile answer whose request
# must carry every TEXT.
ncu_fixture() {
	python3 - "$@" <<'PY'
import json, sys
code = ("Change: one element per thread.\n\n```cuda\n"
        "__global__ void egg_scale_forward_k(const float *__restrict__ x, float *__restrict__ y, int n)\n"
        "{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n)\n        y[i] = 2.0f * x[i];\n}\n"
        "void scale_forward(const float *x, float *y, int n)\n"
        "{\n    egg_scale_forward_k<<<(n + 255) / 256, 256>>>(x, y, n);\n}\n```\n")
prof = '{"bottleneck": "DRAM at 87% of peak", "modification_plan": "wider loads"}'
print(json.dumps([
    {"name": "profile", "when": {"last_user_contains": ["# Profile agent"]},
     "expect": {"last_user_contains": sys.argv[1:]}, "reply": prof},
    {"name": "code", "when": {"last_user_lacks": ["# Profile agent"]}, "reply": code, "repeat": 3},
]))
PY
}

test_stage_2s_profile_prompt_carries_the_ncu_metrics_of_the_current_best() {
	serve_with_fake_gpu "$(ncu_fixture "Nsight Compute, one call at workload 0" \
		"| egg_scale_forward_map(const float *, float *, int) | 12.3 | 87.2 | 21.8 | 83.5 | 11.5 | long_scoreboard 17.5, wait 2.25, not_selected 1.75 |")"
	run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c scale.cu -o scale.o || fail "$(cat r.err)"
	expect_eq "$(logq 'len(l)')" 4 "requests ($(cat r.err))"
	expect_eq "$(logq '[e["name"] for e in l]')" "['code', 'code', 'code', 'profile']" "exchanges"
	expect_eq "$(logq '[e["expect_failed"] for e in l if e["expect_failed"]]')" "[]" "failed expectations"
	expect_file_contains r.err "2.0x over reference (openai, verified on Fake), cached"
	expect_file_lacks r.err "warning"
	has_symbol scale.o 'egg_winner__scale_forward' || fail "no winner linked"
}

test_a_failing_ncu_gives_one_warning_and_the_search_still_ends_with_a_winner() {
	serve_with_fake_gpu "$(ncu_fixture "no ncu metrics (ncu may not read the GPU's performance counters (ERR_NVGPUCTRPERM")"
	FAKE_NCU_FAIL=1 run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c scale.cu -o scale.o || fail "$(cat r.err)"
	expect_eq "$(logq '[e["expect_failed"] for e in l if e["expect_failed"]]')" "[]" "failed expectations"
	expect_eq "$(logq 'len(l)')" 4 "requests"
	expect_eq "$(grep -c warning r.err)" 1 "warnings ($(cat r.err))"
	expect_file_contains r.err "egg-cc: warning: egg: scale_forward: ncu may not read the GPU's performance counters (ERR_NVGPUCTRPERM"
	expect_file_contains r.err "2.0x over reference (openai, verified on Fake), cached"
	has_symbol scale.o 'egg_winner__scale_forward' || fail "no winner linked"
}
