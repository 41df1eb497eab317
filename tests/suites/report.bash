# report: egg-cc appends one egg-report record per kernel (--egg-report, EGG_REPORT,
# report = FILE), whole lines even from parallel builds, never failing a build;
# `egg report` turns reports or the cache into a table, JSON or a page, and shows
# one entry's transcript.  Searches go through the recorded evaluator (no GPU).

suite_probe() {
	[ -x "$REAL_NVCC" ] || { echo "no nvcc"; return 1; }
	command -v python3 >/dev/null || { echo "no python3"; return 1; }
}
# the compiles several tests repeat, done once per run (lib.bash)
suite_setup() { share_nvcc_compiles; }

source "$EGG_SRCDIR/tests/data/report/helpers.sh"

test_searched_winners_get_one_complete_record_per_kernel() {
	setup_example
	search EGG_REPORT=$T/rep.jsonl
	expect_file_lines rep.jsonl 3
	outcomes rep.jsonl >o.txt
	expect_file_contains o.txt "softmax_forward=searched-winner"
	expect_file_contains o.txt "bias_gelu=searched-winner"
	expect_file_contains o.txt "row_sum=searched-winner"
	expect_eq "$(field rep.jsonl 1 schema)" egg-report
	expect_eq "$(field rep.jsonl 1 version)" 1
	expect_eq "$(field rep.jsonl 1 source)" kernels.cu
	expect_eq "$(field rep.jsonl 1 mode)" search
	expect_eq "$(field rep.jsonl 1 arch)" sm_90
	expect_eq "$(field rep.jsonl 1 speedup)" 2.5
	expect_eq "$(field rep.jsonl 1 gpu)" "Recorded GPU"
	expect_eq "$(field rep.jsonl 1 generator.backend)" builtin
	expect_eq "$(field rep.jsonl 1 workloads.0.reference_ms)" 1
	expect_eq "$(field rep.jsonl 1 workloads.0.winner_ms)" 0.4
	field rep.jsonl 1 time | grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$' ||
		fail "time: $(field rep.jsonl 1 time)"
	field rep.jsonl 1 key | grep -qE '^[0-9a-f]{64}$' || fail "key: $(field rep.jsonl 1 key)"
	python3 -c 'import sys; w = float(sys.argv[1]); sys.exit(not 0 <= w < 60)' "$(field rep.jsonl 1 wall_s)" ||
		fail "wall_s: $(field rep.jsonl 1 wall_s)"
	# the key is the one the cache holds
	"$EGG" cache ls >ls.txt
	expect_file_contains ls.txt "$(field rep.jsonl 1 key)"
}

test_second_build_reports_cache_hits_and_the_option_works_too() {
	setup_example
	search
	EGG_MODE=cache "$EGG_CC" --egg-report=rep.jsonl -O3 -arch=sm_90 -c kernels.cu -o k.o 2>err.txt ||
		fail "$(cat err.txt)"
	expect_file_lines rep.jsonl 3
	expect_eq "$(outcomes rep.jsonl | grep -c '=cache-hit$')" 3 "cache hits"
	expect_eq "$(field rep.jsonl 2 mode)" cache
	expect_eq "$(field rep.jsonl 2 speedup)" 2.5
}

test_nothing_beat_the_reference_reports_searched_none_then_a_negative_hit() {
	setup_example
	search RECORDED_VERDICT=slower EGG_REPORT=$T/rep.jsonl
	expect_eq "$(outcomes rep.jsonl | grep -c '=searched-none$')" 3 "searched-none"
	expect_eq "$(field rep.jsonl 1 speedup)" null
	expect_eq "$(field rep.jsonl 1 workloads.0.reference_ms)" 1
	search RECORDED_VERDICT=slower EGG_REPORT=$T/rep.jsonl
	expect_file_lines rep.jsonl 6
	expect_eq "$(outcomes rep.jsonl | grep -c '=cache-hit-negative$')" 3 "negative hits"
}

test_search_without_a_verdict_reports_a_fallback_with_its_reason() {
	setup_example
	search RECORDED_VERDICT=error EGG_REPORT=$T/rep.jsonl
	expect_eq "$(outcomes rep.jsonl | grep -c '=fallback$')" 3 "fallbacks"
	expect_eq "$(field rep.jsonl 1 reason)" "the search reached no verdict"
}

test_cache_mode_miss_is_reported_from_the_config_file_key() {
	setup_example
	echo "report = reports/build.jsonl" >egg.conf
	mkdir reports
	EGG_MODE=cache run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o k.o || fail "$(cat r.err)"
	[ ! -s r.err ] || fail "cache mode printed: $(cat r.err)"
	expect_file_lines reports/build.jsonl 3
	expect_eq "$(outcomes reports/build.jsonl | grep -c '=cache-miss$')" 3 "misses"
	expect_eq "$(field reports/build.jsonl 1 reason)" null
}

test_search_mode_without_gpu_reports_the_miss_and_why() {
	setup_example
	EGG_REPORT=$T/rep.jsonl run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o k.o || fail "$(cat r.err)"
	expect_eq "$(field rep.jsonl 1 outcome)" cache-miss
	expect_eq "$(field rep.jsonl 1 reason)" "no GPU to search on"
}

test_source_egg_cannot_plan_gets_a_fallback_record_naming_it() {
	setup_example
	: >notadir
	EGG_CACHE_DIR=$T/notadir/cache EGG_REPORT=$T/rep.jsonl run_cmd r "$EGG_CC" -O3 -arch=sm_90 \
		-c kernels.cu -o k.o || fail "$(cat r.err)"
	expect_file_lines rep.jsonl 1
	expect_eq "$(field rep.jsonl 1 kernel)" null
	expect_eq "$(field rep.jsonl 1 source)" kernels.cu
	expect_eq "$(field rep.jsonl 1 outcome)" fallback
	field rep.jsonl 1 reason | grep -q "notadir" || fail "reason: $(field rep.jsonl 1 reason)"
	run_cmd t "$EGG" report rep.jsonl || fail "$(cat t.err)"
	grep -qE '^\(kernels\.cu\) +fallback ' t.out || fail "table: $(cat t.out)"
}

test_report_never_holds_the_api_key() {
	setup_example
	EGG_MODE=cache EGG_BACKEND=openai EGG_MODEL=some-model EGG_API_KEY=sk-SECRET-4711 \
		EGG_REPORT=$T/rep.jsonl "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o k.o 2>/dev/null
	expect_file_lines rep.jsonl 3
	expect_eq "$(field rep.jsonl 1 generator.backend)" openai
	expect_eq "$(field rep.jsonl 1 generator.model)" some-model
	expect_file_lacks rep.jsonl "SECRET-4711"
}

test_eight_parallel_builds_append_whole_lines() {
	setup_example
	make_quick_nvcc
	local i
	for i in 1 2 3 4 5 6 7 8; do
		EGG_MODE=cache EGG_REPORT=$T/rep.jsonl "$EGG_CC" "$T/quick/nvcc" -O3 -arch=sm_90 \
			-c kernels.cu -o k$i.o 2>err$i.txt &
	done
	wait
	cat err*.txt >err.txt
	[ ! -s err.txt ] || fail "a build printed: $(head -3 err.txt)"
	expect_file_lines rep.jsonl 24
	python3 -c '
import json, sys
for n, line in enumerate(open(sys.argv[1]), 1):
    r = json.loads(line)
    assert r["schema"] == "egg-report" and r["outcome"] == "cache-miss", (n, line)' rep.jsonl ||
		fail "a line is not a whole record"
}

test_unwritable_report_is_one_warning_and_the_build_succeeds() {
	setup_example
	EGG_MODE=cache EGG_REPORT=$T/no/such/dir/rep.jsonl run_cmd r "$EGG_CC" -O3 -arch=sm_90 \
		-c kernels.cu -o k.o || fail "the build failed: $(cat r.err)"
	expect_file_lines r.err 1
	expect_file_contains r.err "egg-cc: warning: egg: cannot open the report $T/no/such/dir/rep.jsonl"
	[ -s k.o ] || fail "no object"
	# and nvcc's own failure keeps its status
	make_fake_nvcc fake
	EGG_MODE=cache EGG_REPORT=$T/no/such/dir/rep.jsonl EGG_CUDA_HOME=$(dirname "$(dirname "$(readlink -f "$REAL_NVCC")")") \
		run_cmd f "$EGG_CC" "$T/fake/nvcc" -arch=sm_90 -c kernels.cu -o k2.o
	expect_eq "$(cat f.rc)" 3 "exit status"
}

# ---- egg report ----

test_table_over_a_report_file_merges_builds_per_kernel() {
	setup_example
	search EGG_REPORT=$T/rep.jsonl RECORDED_SPEEDUP=3.7
	EGG_MODE=cache EGG_REPORT=$T/rep.jsonl "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o k.o
	run_cmd r "$EGG" report rep.jsonl || fail "$(cat r.err)"
	head -1 r.out | grep -qE '^kernel +outcome +speedup +ref ms +egg ms +GPU +generator +calls +tokens in +tokens out +search s +key' ||
		fail "header: $(head -1 r.out)"
	expect_eq "$(grep -cE '^[a-z_]+ +cache-hit ' r.out)" 3 "rows"
	grep -qE '^softmax_forward +cache-hit +3\.70x +1\.000 +0\.270 +Recorded GPU +builtin +0 +0 +0 +- +[0-9a-f]{12}' r.out ||
		fail "softmax_forward's row: $(cat r.out)"
	expect_file_contains r.out "3 kernels: 3 with a winner (geometric mean speedup 3.70x); cache-hit 3"
	# sorted by kernel name
	expect_eq "$(sed -n '2,4p' r.out | cut -d' ' -f1 | tr '\n' ' ')" "bias_gelu row_sum softmax_forward " "order"
	run_cmd a "$EGG" report --all rep.jsonl || fail "$(cat a.err)"
	expect_file_contains a.out "6 records: 6 with a winner"
	run_cmd j "$EGG" report --json rep.jsonl || fail "$(cat j.err)"
	python3 -c '
import json, sys
recs = json.load(open(sys.argv[1]))
assert len(recs) == 3 and all(r["outcome"] == "cache-hit" for r in recs), recs' j.out || fail "--json"
}

test_table_over_the_cache_shows_the_entries_speedups() {
	setup_example
	search RECORDED_SPEEDUP=4.25
	sed -i 's/rows = 16384, cols = 4096) tolerance/rows = 16384, cols = 2048) tolerance/' kernels.cu
	search RECORDED_VERDICT=slower # row_sum's new key: nothing beat it
	run_cmd r "$EGG" report || fail "$(cat r.err)"
	"$EGG" cache ls --json >ls.json
	python3 - ls.json r.out "$EGG" <<'PY' || fail "speedups differ: $(cat r.out)"
import json, subprocess, sys
entries = json.load(open(sys.argv[1]))
table = open(sys.argv[2]).read().splitlines()
assert len(entries) == 4, entries
for e in entries:
    doc = json.loads(subprocess.check_output([sys.argv[3], "cache", "show", e["key"], "--json"]))
    res = doc["result"]
    want = "%.2fx" % res["candidates"][res["best"]]["speedup"] if res.get("best") is not None else "-"
    row = [l for l in table if e["key"][:12] in l]
    assert len(row) == 1, (e, table)
    cells = row[0].split()
    assert cells[0] == doc["name"] and cells[2] == want, (row, want)
PY
	expect_file_contains r.out "4 kernels: 3 with a winner (geometric mean speedup 4.25x); negative 1, winner 3"
}

test_html_page_shows_every_kernel_and_number_in_a_wellformed_svg() {
	setup_example
	search EGG_REPORT=$T/rep.jsonl RECORDED_SPEEDUP=11.8
	sed -i 's/rows = 16384, cols = 4096) tolerance/rows = 16384, cols = 2048) tolerance/' kernels.cu
	search EGG_REPORT=$T/rep.jsonl RECORDED_VERDICT=slower
	run_cmd r "$EGG" report --html "$T/page" rep.jsonl || fail "$(cat r.err)"
	[ -s page/index.html ] || fail "no page"
	python3 - page/index.html <<'PY' || fail "the page: $(head -c 600 page/index.html)"
import re, sys, xml.etree.ElementTree as ET
html = open(sys.argv[1]).read()
assert "<script" not in html and "<style>" in html
svg = re.search(r"<svg.*?</svg>", html, re.S).group(0)
root = ET.fromstring(svg)
ns = "{http://www.w3.org/2000/svg}"
texts = [t.text for t in root.iter(ns + "text")]
for name in ("softmax_forward", "bias_gelu", "row_sum"):
    assert name in texts, (name, texts)
assert texts.count("11.80x") == 3, texts           # the winners' numbers, on the chart
assert len(list(root.iter(ns + "rect"))) == 3       # a bar per winner
assert "reference (searched-none)" in texts         # row_sum kept the reference
table = html[html.index("<table"):]
for word in ("softmax_forward", "bias_gelu", "row_sum", "11.80x", "searched-none"):
    assert word in table, word
PY
}

test_key_shows_the_builtin_transcript_and_the_result() {
	setup_example
	search
	local key
	key=$("$EGG" cache ls | awk '$NF == "softmax_forward" {print $1}')
	run_cmd r "$EGG" report "${key:0:8}" --lines 4 || fail "$(cat r.err)"
	expect_file_contains r.out "kernel:     softmax_forward"
	expect_file_contains r.out "outcome:    winner"
	expect_file_contains r.out "[1/structure] decision: lifted; structures: rows"
	expect_file_contains r.out "[2/tuning] decision: winner: rows"
	expect_file_contains r.out "device:     Recorded GPU (cc 9.0)"
	grep -qE '^  \*  0  pass +2\.50x  rows' r.out || fail "the winner's line: $(cat r.out)"
	expect_file_contains r.out "egg_kernel: 32 registers, 0 B shared"
	grep -q 'more lines; --full shows them' r.out || fail "the long description was not cut"
	run_cmd f "$EGG" report "$key" --full || fail "$(cat f.err)"
	expect_file_lacks f.out "--full shows them"
}

# edit_entry FILE PYTHON: runs PYTHON on the entry's document (doc), then
# recomputes the checksum as egg computes it, so that the entry stays valid.
edit_entry() {
	python3 -c 'import hashlib, json, sys
path = sys.argv[1]
doc = json.load(open(path))
exec(sys.argv[2])
doc.pop("checksum")
canon = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
doc["checksum"] = hashlib.sha256(canon.encode()).hexdigest()
open(path, "w").write(json.dumps(doc, separators=(",", ":"), ensure_ascii=False) + "\n")' "$1" "$2"
}

# Makes an entry's winner a source that no compiler accepts (a valid entry).
break_winner() { # FILE
	edit_entry "$1" 'doc["source"] += "\n#error this winner does not compile\n"'
}

# Issue 8: a winner that does not compile in this build falls back to the
# reference with one warning, and the report says so for every kernel of that
# unit (none of its winners was linked) instead of claiming cache hits.
test_a_winner_that_does_not_compile_is_reported_as_a_fallback() {
	setup_example
	search
	local key
	key=$("$EGG" cache ls | awk '$NF == "bias_gelu" {print $1}')
	break_winner "$EGG_CACHE_DIR/${key:0:2}/${key:2}"
	EGG_MODE=cache run_cmd r "$EGG_CC" --egg-report=rep.jsonl -O3 -arch=sm_90 -c kernels.cu -o k.o ||
		fail "the build failed: $(cat r.err)"
	expect_file_contains r.err "the optimized code did not compile in this build"
	expect_file_lacks r.err "error:"
	expect_eq "$(winners_in k.o)" 0 "winners linked"
	expect_file_lines rep.jsonl 3
	outcomes rep.jsonl >o.txt
	expect_file_contains o.txt "bias_gelu=fallback"
	expect_file_contains o.txt "softmax_forward=fallback"
	expect_file_contains o.txt "row_sum=fallback"
	expect_eq "$(field rep.jsonl 1 reason)" "the rewritten unit did not compile; compiled the reference"
	expect_eq "$(field rep.jsonl 1 key)" "$(awk '$NF == "softmax_forward" {print $1}' <("$EGG" cache ls))"
	# the same build with the entry mended links winners and reports hits
	EGG_CACHE_DIR=$T/fresh search
	EGG_CACHE_DIR=$T/fresh EGG_MODE=cache run_cmd r2 "$EGG_CC" --egg-report=rep2.jsonl -O3 -arch=sm_90 \
		-c kernels.cu -o k2.o || fail "$(cat r2.err)"
	expect_eq "$(outcomes rep2.jsonl | grep -c '=cache-hit$')" 3 "cache hits"
	expect_eq "$(winners_in k2.o)" 3 "winners linked"
}

# A source named in an options file is compiled as it is (egg rewrites only the
# user's own argv): its winners are reported as fallbacks with that reason.
test_winners_of_a_source_in_an_options_file_are_reported_as_fallbacks() {
	setup_example
	search
	echo "-c kernels.cu -o k.o" >opts
	EGG_MODE=cache run_cmd r "$EGG_CC" --egg-report=rep.jsonl -O3 -arch=sm_90 -optf opts ||
		fail "the build failed: $(cat r.err)"
	expect_file_contains r.err "named in an options file"
	expect_eq "$(winners_in k.o)" 0 "winners linked"
	expect_file_lines rep.jsonl 3
	expect_eq "$(outcomes rep.jsonl | grep -c '=fallback$')" 3 "fallbacks"
	field rep.jsonl 2 reason | grep -q "^the source was named in an options file" ||
		fail "reason: $(field rep.jsonl 2 reason)"
}

# Issue 29: the table says what each kernel's search cost: model calls, tokens
# in and out, the search's wall time.  A model search's transcript closes with
# its usage (a transcript edited here as one would read); the builtin's calls no
# model, and the build that searched measured its time.
test_table_shows_each_searchs_model_calls_tokens_and_wall_time() {
	setup_example
	search EGG_REPORT=$T/rep.jsonl RECORDED_SPEEDUP=2.5
	run_cmd b "$EGG" report rep.jsonl || fail "$(cat b.err)"
	head -1 b.out | grep -qE ' +generator +calls +tokens in +tokens out +search s +key' ||
		fail "header: $(head -1 b.out)"
	python3 - rep.jsonl b.out <<'PY' || fail "the builtin's searches: $(cat b.out)"
import json, re, sys
recs = {json.loads(l)["kernel"]: json.loads(l) for l in open(sys.argv[1])}
for line in open(sys.argv[2]).read().splitlines()[1:4]:
    r = recs[line.split()[0]]
    assert r["search"]["model_calls"] == 0 and r["search"]["tokens_in"] == 0, r
    assert r["search"]["wall_s"] == r["wall_s"] > 0, r
    assert re.search(r" builtin +0 +0 +0 +%.1f +[0-9a-f]{12}" % r["wall_s"], line), line
PY
	local f
	f=$(grep -l '"name":"softmax_forward"' "$EGG_CACHE_DIR"/??/*) || fail "no softmax entry"
	edit_entry "$f" 'doc["transcript"] = [
    {"stage": "1/structure", "role": "code", "kind": "response", "text": "x", "tokens": {"in": 1, "out": 2}},
    {"stage": "2/memory", "role": "search", "kind": "note", "text": "17 model calls, ...",
     "usage": {"model_calls": 17, "tokens_in": 52000, "tokens_out": 9100, "candidates": 40, "wall_s": 312.4}}]'
	run_cmd c "$EGG" report || fail "$(cat c.err)"
	grep -qE '^softmax_forward +winner .* +17 +52000 +9100 +312\.4 +[0-9a-f]{12}' c.out ||
		fail "softmax_forward's row: $(cat c.out)"
	# from the cache, the builtin's entries: no model call, their wall time unknown
	grep -qE '^row_sum +winner .* builtin +0 +0 +0 +- +[0-9a-f]{12}' c.out || fail "row_sum's row: $(cat c.out)"
	run_cmd j "$EGG" report --json || fail "$(cat j.err)"
	python3 -c '
import json, sys
r = [x for x in json.load(open(sys.argv[1])) if x["kernel"] == "softmax_forward"][0]
assert r["search"] == {"model_calls": 17, "tokens_in": 52000, "tokens_out": 9100, "wall_s": 312.4}, r' j.out ||
		fail "--json: $(cat j.out)"
}

# Replaces an entry's transcript the way the model search writes one, with a
# checksum recomputed as egg computes it.
put_model_transcript() { # FILE
	edit_entry "$1" 'prompt = "\n".join("prompt line %d" % i for i in range(1, 31))
doc["transcript"] = [
    {"stage": "1/structure", "role": "code", "kind": "prompt", "text": prompt,
     "tokens": {"in": 1200, "out": 0}},
    {"stage": "1/structure", "role": "code", "kind": "response", "text": "```cuda\n__global__ void k() {}\n```",
     "candidate": "s1-c0", "tokens": {"in": 0, "out": 345}},
    {"stage": "2/tiling", "role": "profile", "kind": "evaluation", "candidate": "s2-c3",
     "verdict": "pass", "speedup": 3.25},
    {"stage": "2/tiling", "role": "profile", "kind": "decision", "text": "keep s2-c3: memory bound",
     "temperature": 0.2},
    {"stage": "2/memory", "role": "debug", "kind": "note", "text": "repaired a missing __syncthreads"},
    "a step this egg does not know",
]
'
}

test_key_shows_a_model_transcript_with_cut_prompts_and_unknown_fields() {
	setup_example
	search
	local key
	key=$("$EGG" cache ls | awk '$NF == "bias_gelu" {print $1}')
	put_model_transcript "$EGG_CACHE_DIR/${key:0:2}/${key:2}"
	run_cmd r "$EGG" report "$key" --lines 5 || fail "$(cat r.err)"
	expect_file_contains r.out "transcript (6 steps)"
	expect_file_contains r.out "[1/structure] code prompt (tokens in 1200, out 0)"
	expect_file_contains r.out "      prompt line 5"
	expect_file_lacks r.out "prompt line 6"
	expect_file_contains r.out "... (25 more lines; --full shows them)"
	expect_file_contains r.out "[1/structure] code response (tokens in 0, out 345): s1-c0"
	expect_file_contains r.out "      __global__ void k() {}"
	expect_file_contains r.out "[2/tiling] profile evaluation: s2-c3, pass, 3.25x"
	expect_file_contains r.out "[2/tiling] profile decision: keep s2-c3: memory bound"
	expect_file_contains r.out 'other: {"temperature":0.2}'
	expect_file_contains r.out "[2/memory] debug note: repaired a missing __syncthreads"
	expect_file_contains r.out '"a step this egg does not know"'
	run_cmd f "$EGG" report "$key" --full || fail "$(cat f.err)"
	expect_file_contains f.out "      prompt line 30"
}

test_key_of_a_corrupt_entry_fails_with_a_clear_message() {
	setup_example
	search
	local key
	key=$("$EGG" cache ls | awk '$NF == "row_sum" {print $1}')
	sed -i 's/"name":"row_sum"/"name":"row_sux"/' "$EGG_CACHE_DIR/${key:0:2}/${key:2}"
	run_cmd r "$EGG" report "$key" && fail "a corrupt entry was shown"
	expect_eq "$(cat r.rc)" 1 "exit status"
	expect_file_lines r.err 1
	expect_file_contains r.err "egg: error: the cache entry $key is invalid"
	run_cmd u "$EGG" report 0123abcd && fail "an unknown key was shown"
	expect_file_contains u.err "no cache entry has the key '0123abcd'"
}

test_bad_lines_in_a_report_file_are_skipped_with_a_warning() {
	setup_example
	search EGG_REPORT=$T/rep.jsonl
	echo '{"half a record' >>rep.jsonl
	run_cmd r "$EGG" report rep.jsonl && fail "exit status 0 despite a bad line"
	expect_file_contains r.err "rep.jsonl:4: not an egg-report record; skipped"
	expect_eq "$(grep -cE '^[a-z_]+ +searched-winner ' r.out)" 3 "rows kept"
}

# `egg report KEY` says for which calls the winner was verified: every call (the
# probe calls all right), every call the reference handles (with the probes
# outside its domain and why), or the named workloads only for an entry an egg
# before probe calls wrote.
test_key_states_the_winners_validity_domain() {
	setup_example
	local key k2 k3
	search RECORDED_DOMAIN=all
	key=$("$EGG" cache ls | awk '$NF == "softmax_forward" {print $1}')
	run_cmd a "$EGG" report "$key" || fail "$(cat a.err)"
	expect_file_contains a.out "  domain:     every call: right on all 4 probe calls besides the named workloads"
	"$EGG" cache clear >/dev/null
	search RECORDED_DOMAIN=skipped
	run_cmd s "$EGG" report "$key" || fail "$(cat s.err)"
	expect_file_contains s.out "  domain:     every call the reference itself handles: right on 3 of 4 probe calls"
	expect_file_contains s.out "    skipped probe 0 (n = 1): the reference writes outside its buffers"
	"$EGG" cache clear >/dev/null
	search RECORDED_DOMAIN=none
	run_cmd n "$EGG" report "$key" || fail "$(cat n.err)"
	expect_file_contains n.out "  domain:     the named workloads only (verified before probe calls existed)"
}

# The browser the page tests load pages in: Chromium's headless shell (Debian's
# chromium-headless-shell, .ci/deps) or Chromium itself.
browser() {
	command -v chromium-headless-shell || command -v chromium || skip "no chromium-headless-shell or chromium"
}

HOSTILE='<script>document.title="pwned"</script><img src=x onerror="document.title=1">&amp;'

# Issue 25: the page links a page per kernel from the chart and from the table;
# a real browser builds the DOM, follows every link and finds on each page the
# kernel's name, source line, candidates and winner code, while a hostile kernel
# name and a hostile transcript stay text (no script, no image in any page).
test_each_kernel_has_a_linked_page_a_browser_shows_with_its_code_and_hostile_text_as_text() {
	local exe
	exe=$(browser) || exit 77
	setup_example
	# the H200's winners of the example, hit by a build that compiles nothing
	gzip -dc "$EGG_SRCDIR/examples/seed/example-seed.egg.gz" >seed.egg && "$EGG" cache import seed.egg >/dev/null || fail "import"
	make_quick_nvcc
	EGG_MODE=cache EGG_REPORT=$T/rep.jsonl run_cmd b "$EGG_CC" "$T/quick/nvcc" -O3 -arch=sm_90 \
		-c kernels.cu -o k.o || fail "$(cat b.err)"
	expect_eq "$(outcomes rep.jsonl | grep -c '=cache-hit$')" 3 "cache hits"
	local key
	key=$("$EGG" cache ls | awk '$NF == "bias_gelu" {print $1}')
	HOSTILE=$HOSTILE edit_entry "$EGG_CACHE_DIR/${key:0:2}/${key:2}" 'import os
doc["transcript"] = [{"stage": "1/structure", "role": "code", "kind": "response",
                      "text": "</pre>" + os.environ["HOSTILE"], "candidate": "s1-c0"}]'
	# a record whose kernel name is hostile (report files are anyone's JSON)
	HOSTILE=$HOSTILE python3 -c 'import json, os, sys
r = json.loads(open(sys.argv[1]).readline())
r.update(kernel=os.environ["HOSTILE"], key=None)
open(sys.argv[1], "a").write(json.dumps(r) + "\n")' rep.jsonl
	run_cmd r "$EGG" report --html "$T/page" rep.jsonl || fail "$(cat r.err)"
	python3 "$EGG_SRCDIR/tests/data/report/browse.py" "$exe" page/index.html >dom.json ||
		fail "the browser: $(tail -3 dom.json)"
	for k in softmax_forward bias_gelu row_sum; do
		"$EGG" cache show "$("$EGG" cache ls | awk -v k=$k '$NF == k {print $1}')" --json >$k.entry.json
	done
	HOSTILE=$HOSTILE python3 - dom.json kernels.cu <<'PY' || fail "the pages, as a browser built them: $(head -c 1500 dom.json)"
import json, os, re, sys
dom = json.load(open(sys.argv[1]))
src = open(sys.argv[2]).read().splitlines()
hostile = os.environ["HOSTILE"]
names = ["softmax_forward", "bias_gelu", "row_sum", hostile]
index = dom["index"]
table = [l for l in index["links"] if l["in"] == "table"]
chart = [l for l in index["links"] if l["in"] == "chart"]
assert sorted(l["text"] for l in table) == sorted(names), table      # one link per kernel
assert len(chart) == len(names), chart
href = {l["text"]: l["href"] for l in table}
assert len(set(href.values())) == len(names), href                  # a page each
for l in chart:                                                     # the chart links the same page
    assert any(l["href"] == href[n] and n in l["text"] for n in names), (l, href)
pages = dom["pages"]
assert sorted(pages) == sorted(href.values()), pages.keys()
for page in [index] + list(pages.values()):
    assert page["scripts"] == 0 and page["images"] == 0, page
assert index["title"] == "egg report", index["title"]            # no script set it
for name in names:
    p = pages[href[name]]
    assert p["h1"] == name and p["title"] == name + " - egg report", (name, p["h1"], p["title"])
    if name == hostile:
        assert p["code"] is None and hostile in p["text"], p
        continue
    entry = json.load(open(name + ".entry.json"))
    assert p["code"] == entry["source"], (name, p["code"][:200])   # the winner's code, whole
    line = next(i + 1 for i, s in enumerate(src)
                if "#pragma egg optimize" in s and re.match(r"void %s\(" % name, src[i + 2]))
    assert "kernels.cu:%d" % line in p["text"], (name, line, p["text"][:400])
    res = entry["result"]
    best = res["candidates"][res["best"]]
    assert best["name"] in p["text"], (name, best["name"])        # the configuration
    for c in res["candidates"]:
        assert c["name"] in p["text"], c["name"]                 # the candidate table
    pragma = (src[line - 1].rstrip("\\") + src[line]).replace("\t", " ")
    values = re.search(r"workload\(([^)]*)\)", pragma).group(1)
    assert values in p["text"].split("Workloads", 1)[1], (values, p["text"])  # its values
assert hostile in pages[href["bias_gelu"]]["text"]               # the transcript, as text
PY
}
