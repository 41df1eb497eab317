# harness_corpus: every benchmark case goes through the analyzer into the
# harness, which generates its test program and compiles it for sm_90 -- the CPU
# half of "the judge accepts what users write" (the GPU half runs on the device).
# One test per source file (generated below, as equivalence.bash does), so that
# the runner spreads the compiles over the machine's cores and a failure names
# its case.  A bench case's bundle holds the whole file (its includes, every
# kernel and function in the closure, the launcher as the target), so its ref.cu
# compiling for sm_90 is the case compiling for sm_90; each test also finds
# every kernel of the file defined in ref.o (bench_suite compiled every case a
# second time, 1.9 CPU-s each).  The analyzer corpus's bundles are its expected outputs, which the
# analyzer suite holds to be what `egg analyze` gives (analyzing each case again
# here proved nothing more and cost a CPU minute).

suite_probe() {
	[ -x "$REAL_NVCC" ] || { echo "no nvcc"; return 1; }
	command -v jq >/dev/null || { echo "no jq"; return 1; }
}

# the runtime's object (the same for every bundle) compiled once for the run
suite_setup() { share_prepared_objects; }

HC_BENCH=$EGG_SRCDIR/bench/suite/cases
HC_ANALYZER=$EGG_SRCDIR/tests/data/analyzer/cases
HC_EXPECTED=$EGG_SRCDIR/tests/data/analyzer/expected

# compile_case DIR NAME MIN [ANALYZE_FLAGS...]: analyzes DIR/NAME.cu (from DIR, as
# the analyzer suite does), expects at least MIN bundles, and compiles them
# (compile_bundles).
compile_case() {
	local dir=$1 n=$2 min=$3 k
	shift 3
	export PATH=$NVCC_DIR:$PATH
	(cd "$dir" && "$EGG" analyze "$@" "$n.cu") >"$n.json" 2>"$n.aerr" || fail "$n: analyze failed: $(head -c 300 "$n.aerr")"
	k=$(jq length "$n.json")
	[ "$k" -ge "$min" ] || fail "$n.cu gives $k bundles: $(head -c 300 "$n.aerr")"
	compile_bundles "$n"
	# every kernel the file defines is compiled with some bundle
	local kern i
	for ((i = 0; i < k; i++)); do nm -C "w.$n.$i/ref.o"; done >"$n.all.syms" || fail "nm failed"
	for kern in $(sed -n 's/.*__global__[^(]*[^A-Za-z0-9_(]\([A-Za-z_][A-Za-z0-9_]*\) *(.*/\1/p' "$dir/$n.cu"); do
		grep -Eq " [TtW] (.*[: ])?$kern[(<]" "$n.all.syms" || fail "$n.cu: no bundle compiles its kernel $kern"
	done
}

# compile_bundles NAME: evaluates each bundle of NAME.json compile-only for sm_90
# (the bundle alone, ref.o, must define its target); any failure fails the test.
compile_bundles() {
	local n=$1 i k name bad=()
	export PATH=$NVCC_DIR:$PATH
	k=$(jq length "$n.json")
	for ((i = 0; i < k; i++)); do
		jq ".[$i]" "$n.json" >"$n.$i.bundle.json"
		name=$(jq -r '.name' "$n.$i.bundle.json")
		"$EGG" eval "$n.$i.bundle.json" --compile-only --arch sm_90 --keep --workdir "w.$n.$i" \
			>"$n.$i.result.json" 2>"$n.$i.err"
		if ! jq -e '.status == "ok" and ([.candidates[].verdict] == ["compiled"])' "$n.$i.result.json" >/dev/null; then
			bad+=("$n.$i: $(jq -c '[.message, .candidates[0].message]' "$n.$i.result.json" 2>/dev/null | head -c 300)")
		# the bundle alone (ref.cu: its includes, closure and target) defines the target
		# the float64 twin (what a candidate's float results are measured against)
		# compiles wherever the harness writes one (it writes none without a float
		# output or where a float vector type's layout rules it out): a twin that
		# fails only leaves the check weaker, silently, so the corpus holds it to it
		elif jq -e '.reference.float64 == "the float64 version does not compile"' \
			"$n.$i.result.json" >/dev/null; then
			bad+=("$n.$i: float64 twin: $(jq -r '.reference.float64' "$n.$i.result.json" | head -c 200)")
		elif ! nm -C "w.$n.$i/ref.o" >"$n.$i.syms" ||
			! grep -Eq " [TtW] (.*[: ])?$name([(<].*)?$" "$n.$i.syms"; then
			bad+=("$n.$i: the bundle compiled alone does not define $name")
		fi
	done
	[ ${#bad[@]} -eq 0 ] || fail "$(printf '%s; ' "${bad[@]}")"
}

for hc_f in "$HC_BENCH"/*.cu; do
	hc_n=$(basename "$hc_f" .cu)
	[[ $hc_n =~ ^[A-Za-z0-9_]+$ ]] &&
		eval "test_bench_case_${hc_n}_analyzes_and_its_harness_compiles_for_sm_90() { compile_case '$HC_BENCH' '$hc_n' 1; }"
done
# Every bundle the analyzer hands out, the harness takes: the two agree on what a
# usable pragma is (macros in clauses, namespaces, extern "C" blocks, scalar
# values, templates refused at the pragma).
for hc_f in "$HC_ANALYZER"/*.cu; do
	hc_n=$(basename "$hc_f" .cu)
	[[ $hc_n =~ ^[A-Za-z0-9_]+$ ]] &&
		eval "test_analyzer_case_${hc_n}_compiles_in_the_harness_for_sm_90() { cp '$HC_EXPECTED/$hc_n.json' .; compile_bundles '$hc_n'; }"
done
unset hc_f hc_n

# Every bench case gives a bundle (its test says so); the analyzer corpus, which
# also holds files meant to give none, gives at least 40 in all.
test_the_corpora_hold_enough_cases() {
	local n total
	n=$(ls "$HC_BENCH"/*.cu | wc -l)
	[ "$n" -ge 22 ] || fail "the bench suite has only $n cases"
	n=$(ls "$HC_ANALYZER"/*.cu | wc -l)
	[ "$(ls "$HC_EXPECTED"/*.json | wc -l)" -eq "$n" ] || fail "not every analyzer case has its expected bundles"
	total=$(jq -s 'map(length) | add' "$HC_EXPECTED"/*.json) || fail "unreadable expected bundles"
	[ "$total" -ge 40 ] || fail "the analyzer corpus gives only $total bundles"
}
