# agents: the staged agent search end to end -- the real egg-cc on an annotated
# .cu with a model backend (openai, anthropic) pointed at the scripted model
# server (tests/agents/model-server.py) replaying a whole two-stage search, and
# a recorded evaluator (tests/data/agents/fixture-eval) giving each candidate
# the verdict its source names.  CI has no GPU; the final compile and link of
# the winner are real.

MODEL_SERVER=$EGG_SRCDIR/tests/agents/model-server.py
DATA=$EGG_SRCDIR/tests/data/agents
KEY=sk-egg-search-7c1e0b9a44

suite_probe() {
	[ -x "$REAL_NVCC" ] || { echo "no nvcc"; return 1; }
	command -v python3 >/dev/null || { echo "python3 is needed for the scripted model server"; return 1; }
}

stop_server() {
	[ -n "${SERVER_PID:-}" ] && kill $SERVER_PID 2>/dev/null && wait $SERVER_PID 2>/dev/null
	SERVER_PID=
}
trap stop_server EXIT

# start_server BACKEND FIXTURE_FILE: the server on a free port, egg's
# configuration pointed at it (the key in a file), the recorded evaluator.
start_server() {
	printf '%s\n' "$KEY" >"$T/key"
	python3 "$MODEL_SERVER" --fixture "$2" --port-file "$T/port" --log "$T/server.log" \
		--expect-key-file "$T/key" 2>"$T/server.err" &
	SERVER_PID=$!
	local i
	for i in $(seq 100); do
		[ -s "$T/port" ] && break
		kill -0 $SERVER_PID 2>/dev/null || fail "the model server did not start: $(cat "$T/server.err")"
		sleep 0.05
	done
	[ -s "$T/port" ] || fail "the model server wrote no port"
	touch "$T/server.log"
	local port
	port=$(cat "$T/port")
	export EGG_BACKEND=$1 EGG_MODEL=test-model EGG_API_KEY_FILE=$T/key
	[ "$1" = openai ] && export EGG_API_BASE=http://127.0.0.1:$port/v1 ||
		export EGG_API_BASE=http://127.0.0.1:$port
	export EGG_EVAL_COMMAND=$DATA/fixture-eval FIXTURE_EVAL_LOG=$T/evals
	export EGG_PROMPTS_DIR=$EGG_SRCDIR/prompts EGG_BUILTIN_TEMPLATES=$EGG_SRCDIR/builtin/templates
	export PATH=$(dirname "$REAL_NVCC"):$PATH
	cp "$DATA/scale.cu" .
}

# logq PYTHON_EXPR: EXPR with l = the server log's entries
logq() {
	python3 -c 'import json, sys
l = [json.loads(x) for x in open(sys.argv[1])]
print(eval(sys.argv[2]))' "$T/server.log" "$1"
}

has_symbol() { nm -C "$1" >"$1.nm"; grep -q -- "$2" "$1.nm"; }

# The search replays all 17 exchanges, every request met the fixture's
# expectations, and the winner (the tuned mapping candidate) is linked.
search_links_the_winner() {
	start_server "$1" "$T/fixture.json"
	run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c scale.cu -o scale.o || fail "$(cat r.err)"
	expect_eq "$(logq 'len(l)')" 17 "requests ($(cat r.err))"
	expect_eq "$(logq '[e["name"] for e in l if e["expect_failed"]]')" "[]" \
		"failed expectations: $(logq '[e["expect_failed"] for e in l if e["expect_failed"]]')"
	expect_eq "$(logq 'sorted(set(e["protocol"] for e in l))')" "['$1']" "protocol"
	expect_eq "$(logq 'sorted(set(e["model"] for e in l))')" "['test-model']" "model"
	expect_eq "$(logq 'sorted(set(tuple(e["roles"]) for e in l))')" "[('system', 'user')]" "roles"
	expect_eq "$(logq 'sorted(set(e["auth"] for e in l))')" "['match']" "the key was sent"
	expect_file_contains r.err "egg: scale_forward: stage 1/structure: 2/64 candidates, best 1.5x"
	expect_file_contains r.err "egg: scale_forward: stage 2/mapping: 7/64 candidates, best 3.0x"
	expect_file_contains r.err "egg: scale_forward: 3.0x over reference ($1, verified on Recorded GPU), cached"
	expect_file_lacks r.err "warning"
	expect_file_contains evals "s2.1-mapping [BLOCK=128] | s2.1-mapping [BLOCK=256]"
	has_symbol scale.o ' T egg_winner__scale_forward(' || fail "the winner is not linked"
	has_symbol scale.o 'egg_scale_forward_map' || fail "the winner's kernel is not in the object"
	has_symbol scale.o ' T scale_forward(' || fail "the dispatcher keeps the user's name"
}

entry_json() { cat "$EGG_CACHE_DIR"/*/* 2>/dev/null | grep '"transcript"'; }

test_openai_search_reaches_the_winner_after_a_compile_error_and_a_wrong_result() {
	"$DATA/search-fixture" >"$T/fixture.json"
	search_links_the_winner openai
}

test_anthropic_search_reaches_the_same_winner() {
	"$DATA/search-fixture" >"$T/fixture.json"
	search_links_the_winner anthropic
}

test_transcript_is_in_the_entry_and_no_key_anywhere() {
	"$DATA/search-fixture" >"$T/fixture.json"
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
assert {"1/structure", "2/mapping", "2/tiling", "2/memory", "debug", "tune"} <= stages, stages
for s in t:
    assert s["role"] in ("code", "profile", "debug", "search") and s["kind"] in (
        "prompt", "response", "evaluation", "decision", "note"), s
assert any(s["kind"] == "decision" and s["text"].startswith("winner: s2.1-mapping [BLOCK=256]") for s in t)
assert sum(1 for s in t if s["kind"] == "response") == 17
best = e["result"]["candidates"][e["result"]["best"]]
assert best["name"] == "s2.1-mapping [BLOCK=256]" and best["speedup"] == 3.0, best
PY
	for f in entry.json r.err r.out "$T/server.log" evals; do
		expect_file_lacks "$f" "$KEY"
	done
	! grep -rqF "$KEY" "$EGG_CACHE_DIR" || fail "the key is in the cache"
}

test_edited_prompts_change_the_cache_key() {
	export EGG_BACKEND=openai EGG_MODEL=test-model EGG_PROMPTS_DIR=$EGG_SRCDIR/prompts
	export PATH=$(dirname "$REAL_NVCC"):$PATH
	cp "$DATA/scale.cu" .
	k1=$("$EGG" cache key -- -O3 -arch=sm_90 -c scale.cu 2>&1) || fail "$k1"
	cp -r "$EGG_SRCDIR/prompts" myprompts
	echo "Be brief." >>myprompts/roles/tiling.md
	k2=$(EGG_PROMPTS_DIR=$T/myprompts "$EGG" cache key -- -O3 -arch=sm_90 -c scale.cu 2>&1) || fail "$k2"
	[ "$k1" != "$k2" ] || fail "the key ignores the prompts: $k1"
	k3=$(EGG_BACKEND=builtin "$EGG" cache key -- -O3 -arch=sm_90 -c scale.cu 2>&1)
	[ "$k1" != "$k3" ] || fail "openai and builtin share a key"
}

test_refused_key_warns_once_and_builds_the_reference() {
	echo '[{"name": "bad key", "status": 401, "error": "Incorrect API key provided", "repeat": 5}]' \
		>"$T/fixture.json"
	start_server openai "$T/fixture.json"
	run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c scale.cu -o scale.o || fail "$(cat r.err)"
	expect_file_lines r.err 1
	expect_file_contains r.err "egg-cc: warning: egg: scale_forward: no verdict ("
	expect_file_contains r.err "; compiling the reference"
	expect_eq "$(logq 'len(l)')" 1 "requests (no retry on 401)"
	[ ! -e evals ] || fail "something was evaluated"
	! has_symbol scale.o 'egg_winner__scale_forward' || fail "a winner was linked"
	expect_eq "$("$EGG" cache ls | grep -c .)" 0 "cache entries"
	expect_file_lacks r.err "$KEY"
}
