# harness_corpus: every benchmark case goes through the analyzer into the
# harness, which generates its test program and compiles it for sm_90 -- the CPU
# half of "the judge accepts what users write" (the GPU half runs on the device).

suite_probe() {
	[ -x "$REAL_NVCC" ] || { echo "no nvcc"; return 1; }
	command -v python3 >/dev/null || { echo "no python3"; return 1; }
}

test_every_bench_case_analyzes_and_its_harness_compiles_for_sm_90() {
	export PATH=$(dirname "$REAL_NVCC"):$PATH
	local f n bad=() count=0
	for f in "$EGG_SRCDIR"/bench/suite/cases/*.cu; do
		n=$(basename "$f" .cu)
		"$EGG" analyze "$f" >"$n.json" 2>"$n.aerr" || { bad+=("$n: analyze failed"); continue; }
		python3 -c 'import json, sys; b = json.load(open(sys.argv[1])); json.dump(b[0], open(sys.argv[2], "w")) if b else sys.exit(1)' \
			"$n.json" "$n.bundle.json" || { bad+=("$n: no bundle"); continue; }
		"$EGG" eval "$n.bundle.json" --compile-only --arch sm_90 >"$n.result.json" 2>"$n.err"
		python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(0 if r["status"] == "ok" and [c["verdict"] for c in r["candidates"]] == ["compiled"] else 1)' \
			"$n.result.json" || bad+=("$n: $(head -c 200 "$n.result.json")")
		count=$((count + 1))
	done
	[ "$count" -ge 22 ] || fail "only $count cases were evaluated"
	[ ${#bad[@]} -eq 0 ] || fail "$(printf '%s; ' "${bad[@]}")"
}
