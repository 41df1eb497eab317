# harness_corpus: every benchmark case goes through the analyzer into the
# harness, which generates its test program and compiles it for sm_90 -- the CPU
# half of "the judge accepts what users write" (the GPU half runs on the device).

suite_probe() {
	[ -x "$REAL_NVCC" ] || { echo "no nvcc"; return 1; }
	command -v jq >/dev/null || { echo "no jq"; return 1; }
}

# compile_bundles SRC_DIR [ANALYZE_FLAGS...]: analyzes every SRC_DIR/*.cu (from
# SRC_DIR, as the analyzer suite does), evaluates each bundle compile-only for
# sm_90; failures go to the array bad, the number of bundles to count.
compile_bundles() {
	local dir=$1 f n i k
	shift
	export PATH=$(dirname "$REAL_NVCC"):$PATH
	for f in "$dir"/*.cu; do
		n=$(basename "$f" .cu)
		(cd "$dir" && "$EGG" analyze "$@" "$n.cu") >"$n.json" 2>"$n.aerr" || { bad+=("$n: analyze failed"); continue; }
		k=$(jq length "$n.json")
		for ((i = 0; i < k; i++)); do
			jq ".[$i]" "$n.json" >"$n.$i.bundle.json"
			"$EGG" eval "$n.$i.bundle.json" --compile-only --arch sm_90 >"$n.$i.result.json" 2>"$n.$i.err"
			jq -e '.status == "ok" and ([.candidates[].verdict] == ["compiled"])' "$n.$i.result.json" >/dev/null ||
				bad+=("$n.$i: $(jq -c '[.message, .candidates[0].message]' "$n.$i.result.json" 2>/dev/null | head -c 300)")
			count=$((count + 1))
		done
	done
}

test_every_bench_case_analyzes_and_its_harness_compiles_for_sm_90() {
	local bad=() count=0
	compile_bundles "$EGG_SRCDIR/bench/suite/cases"
	[ "$count" -ge 22 ] || fail "only $count bundles were evaluated"
	[ ${#bad[@]} -eq 0 ] || fail "$(printf '%s; ' "${bad[@]}")"
}

# Every bundle the analyzer hands out, the harness takes: the two agree on what a
# usable pragma is (macros in clauses, namespaces, extern "C" blocks, scalar
# values, templates refused at the pragma).
test_every_analyzer_corpus_bundle_compiles_in_the_harness_for_sm_90() {
	local bad=() count=0
	compile_bundles "$EGG_SRCDIR/tests/data/analyzer/cases" -I include
	[ "$count" -ge 40 ] || fail "only $count bundles were evaluated"
	[ ${#bad[@]} -eq 0 ] || fail "$(printf '%s; ' "${bad[@]}")"
}
