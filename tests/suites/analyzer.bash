# analyzer: `egg analyze` turns each `#pragma egg optimize` of a .cu file into a
# bundle (common/bundle.h) whose closure compiles on its own, and reports bad
# clauses in the compiler's format without losing the other functions.
#
# The corpus is tests/data/analyzer/cases/*.cu; each case has its expected
# JSON (expected/NAME.json) and diagnostics (expected/NAME.err).  After a
# deliberate change, tests/data/analyzer/regen writes them again; review the
# diff before committing it.

DATA=$EGG_SRCDIR/tests/data/analyzer

suite_probe() {
	command -v jq >/dev/null || { echo "no jq"; return 1; }
	[ -x "$EGG" ] || { echo "no egg binary"; return 1; }
}

# analyze CASE [FLAGS...]: runs egg analyze in a copy of the corpus, output in r.*
analyze() {
	local c=$1
	shift
	[ -d cases ] || cp -R "$DATA/cases" cases
	(cd cases && run_cmd ../r "$EGG" analyze "$@" -I include "$c.cu")
}

canonical_of() { # FILE.cu -> canonical form of its first bundle
	(cd cases && "$EGG" analyze -I include "$1") | jq -r '.[0].canonical'
}

# analyzer_case CASE: the case's JSON and diagnostics are the expected ones.
# (That each bundle compiles on its own and defines its target is proven by
# harness_corpus.bash, whose harness compiles the same bundles alone.)  One test
# per case (generated below), so the runner spreads them over the cores.
analyzer_case() {
	local c=$1 bad=()
	analyze "$c"
	[ "$(cat r.rc)" = 0 ] || fail "$c: exit $(cat r.rc): $(head -c 300 r.err)"
	cmp -s r.out "$DATA/expected/$c.json" || bad+=("$c: JSON differs: $(diff r.out "$DATA/expected/$c.json" | head -5)")
	cmp -s r.err "$DATA/expected/$c.err" || bad+=("$c: diagnostics differ: $(diff r.err "$DATA/expected/$c.err" | head -5)")
	[ ${#bad[@]} = 0 ] || fail "$(printf '%s\n' "${bad[@]}")"
}

for az_src in "$DATA"/cases/*.cu; do
	az_c=$(basename "$az_src" .cu)
	[[ $az_c =~ ^[A-Za-z0-9_]+$ ]] &&
		eval "test_case_${az_c}_matches_its_expected_output() { analyzer_case '$az_c'; }"
done
unset az_src az_c

test_the_corpus_holds_enough_cases() {
	[ "$(ls "$DATA"/cases/*.cu | wc -l)" -ge 30 ] || fail "the corpus has fewer than 30 sources"
	[ "$(ls "$DATA"/expected/*.json | wc -l)" -eq "$(ls "$DATA"/cases/*.cu | wc -l)" ] ||
		fail "not every case has its expected JSON"
}

test_launcher_closure_holds_its_three_kernels_and_two_device_functions_only() {
	analyze launcher_three_kernels
	jq -r '.[0].closure' r.out >closure
	for f in clamp01 smooth stage1 stage2 stage3; do
		expect_file_contains closure " $f("
	done
	expect_file_lacks closure never_called
	expect_eq "$(jq -r '.[0].params | map(.role) | join(",")' r.out)" "in,temp,out,scalar" "roles"
	expect_eq "$(jq -r '.[0].workloads | length' r.out)" 2 "workloads"
}

test_unrelated_functions_macros_and_tables_stay_out_of_the_closure() {
	analyze constant_table
	jq -r '.[0].closure' r.out >closure
	expect_file_contains closure "__constant__ float weights[TAPS]"
	expect_file_contains closure "#define TAPS 5"
	expect_file_contains closure "__device__ int hits;"
	expect_file_lacks closure unused_table
	analyze macros_function_like
	jq -r '.[0].closure' r.out >closure
	expect_file_contains closure "#define GUARD(i, n)"
	expect_file_lacks closure UNUSED_MACRO
}

test_token_pasted_definitions_are_copied_with_their_macros() {
	analyze macros_token_paste
	jq -r '.[0].closure' r.out >closure
	expect_file_contains closure "DEF_UNARY(square, x * x)"
	expect_file_contains closure "DEF_MAP_KERNEL(twice)"
	expect_file_contains closure "#define DEF_UNARY(name, expr)"
	expect_file_lacks closure "DEF_UNARY(unused"
}

test_user_header_entities_are_copied_and_system_headers_stay_includes() {
	analyze user_header
	jq -r '.[0].closure' r.out >closure
	expect_file_contains closure "lerp1(float a"
	expect_file_contains closure "struct Range"
	expect_file_lacks closure not_used
	expect_file_lacks closure "#include"
	expect_eq "$(jq -c '.[0].includes' r.out)" '["<cuda_runtime.h>"]' "includes"
}

test_kernel_target_reads_launch_geometry() {
	analyze kernel_target
	expect_eq "$(jq -r '.[0].kind' r.out)" kernel
	expect_eq "$(jq -c '.[0].launch' r.out)" '{"grid":"(n + 255) / 256","block":"256","smem":"0"}'
}

test_namespaces_extern_c_and_static_are_kept() {
	analyze namespaces
	expect_eq "$(jq -r '.[0].qualified_name' r.out)" "nn::leaky_relu"
	jq -r '.[0].target' r.out >target
	expect_file_contains target "namespace nn {"
	analyze extern_c
	expect_eq "$(jq -r 'map(.extern_c) | join(",")' r.out)" "true,true"
	analyze static_launcher
	expect_eq "$(jq -r '.[0].is_static' r.out)" true
}

test_pragma_with_continuations_and_pragma_operator_in_macro_are_found() {
	analyze continuation
	expect_eq "$(jq -r '.[0].workloads[0] | map(.name + "=" + .value) | join(" ")' r.out)" "n=1 << 20 a=2.0f"
	expect_eq "$(jq -r '.[0].location.line' r.out)" 9
	analyze pragma_in_macro
	expect_eq "$(jq -r '.[0].name + " " + (.[0].location.line | tostring)' r.out)" "square_all 11"
}

test_pragma_skipped_by_the_preprocessor_or_in_a_comment_is_ignored() {
	analyze if0_pragma
	expect_eq "$(jq -r 'map(.name) | join(",")' r.out)" zero
	[ ! -s r.err ] || fail "unexpected diagnostics: $(cat r.err)"
}

test_malformed_clause_gives_a_located_warning_and_other_functions_go_on() {
	analyze bad_clauses
	expect_eq "$(cat r.rc)" 0 "exit status"
	expect_eq "$(jq -r 'map(.name) | join(",")' r.out)" still_fine
	expect_file_contains r.err "bad_clauses.cu:9:25: warning: egg: unknown parameter 'xs' in in(...); did you mean 'x'?"
	expect_file_contains r.err "bad_clauses.cu:12:22: warning: egg: unknown clause 'inn'; did you mean 'in'?"
	# the caret stands under the offending column
	grep -A2 "bad_clauses.cu:9:25:" r.err | tail -1 >caret
	expect_eq "$(cat caret)" "                        ^" "caret line"
}

test_strict_mode_fails_when_a_pragma_is_unusable() {
	analyze bad_clauses
	expect_eq "$(cat r.rc)" 0
	EGG_STRICT=1 analyze bad_clauses
	expect_eq "$(cat r.rc)" 1 "exit status under EGG_STRICT=1"
	# what fails the build is an error, in the compiler's words too
	expect_file_contains r.err "bad_clauses.cu:12:22: error: egg: unknown clause 'inn'; did you mean 'in'?"
	expect_file_lacks r.err ": warning: egg:"
}

test_build_flags_decide_preprocessor_branches() {
	analyze typedef_enum -DUSE_DOUBLE
	jq -r '.[0].closure' r.out >closure
	expect_file_contains closure "typedef double real;"
	expect_eq "$(jq -r '.[0].params[0].elem_type' r.out)" double
	analyze typedef_enum
	jq -r '.[0].closure' r.out >closure
	expect_file_contains closure "typedef float real;"
}

test_missing_file_is_a_clear_error() {
	run_cmd r "$EGG" analyze nowhere.cu
	expect_eq "$(cat r.rc)" 1
	expect_file_contains r.err "egg: error:"
	expect_file_contains r.err nowhere.cu
}

test_canonical_form_ignores_comments_layout_and_unrelated_code() {
	analyze basic_launcher
	local base
	base=$(canonical_of basic_launcher.cu)
	# comments, blank lines, re-indentation, joined lines
	sed -e 's|^\t|    |' -e 's|{ return| {\n  /* note */ return|' -e 's|^// a comment$|/* another\ncomment */|' \
		-e 's|(x) \* (x)|(x)*(x)|' cases/basic_launcher.cu >cases/reformatted.cu
	cmp -s cases/basic_launcher.cu cases/reformatted.cu && fail "the edit did not apply"
	expect_eq "$(canonical_of reformatted.cu)" "$base" "canonical after reformatting"
	# an edit to code outside the closure
	sed -e 's|z\[0\] = 0;|z[0] = 42; z[1] = 7;|' cases/basic_launcher.cu >cases/unrelated.cu
	cmp -s cases/basic_launcher.cu cases/unrelated.cu && fail "the unrelated edit did not apply"
	expect_eq "$(canonical_of unrelated.cu)" "$base" "canonical after an unrelated edit"
}

test_canonical_form_changes_with_any_edit_inside_the_closure() {
	analyze basic_launcher
	local base
	base=$(canonical_of basic_launcher.cu)
	local edits=(
		's|{1, 2, 3, 4}|{1, 2, 3, 5}|'              # a __constant__ table
		's|#define BLOCK 256|#define BLOCK 128|'     # a macro's value
		's|return SQ(v) \* scale|return SQ(v) + scale|' # a called device function
		's|float alpha; int n;|float alpha; long n;|'  # a struct passed by value
	)
	for e in "${edits[@]}"; do
		sed -e "$e" cases/basic_launcher.cu >cases/edited.cu
		cmp -s cases/basic_launcher.cu cases/edited.cu && fail "edit '$e' did not apply"
		[ "$(canonical_of edited.cu)" != "$base" ] || fail "canonical form unchanged by '$e'"
	done
}

test_real_world_headers_parse() {
	for c in fp16 coop_groups cub_reduce cstdio_printf gather_range; do
		analyze "$c"
		expect_eq "$(jq length r.out)" 1 "bundles of $c"
	done
	analyze fp16
	expect_eq "$(jq -r '.[0].params[0].elem_type + " " + .[0].precision' r.out)" "__half fp16"
}

test_macros_and_constants_named_in_clauses_join_the_closure() {
	analyze clause_macro
	[ ! -s r.err ] || fail "unexpected diagnostics: $(cat r.err)"
	jq -r '.[0].closure' r.out >closure
	expect_file_contains closure "#define BIG_N (1 << 22)"
	expect_file_contains closure "#define SMALL_N 1000"
	expect_file_contains closure "enum { VOCAB = 32000 };"
	expect_eq "$(jq -c '.[0].params[0].range' r.out)" '{"lo":"0","hi":"VOCAB"}' "range"
}

test_nvcc_spellings_and_environment_flags_reach_the_parse() {
	analyze typedef_enum --define-macro=USE_DOUBLE -arch=sm_80 -o ignored.o
	expect_eq "$(jq -r '.[0].params[0].elem_type' r.out)" double "--define-macro"
	NVCC_APPEND_FLAGS="-O3 -DUSE_DOUBLE" analyze typedef_enum
	expect_eq "$(jq -r '.[0].params[0].elem_type' r.out)" double "NVCC_APPEND_FLAGS"
	NVCC_PREPEND_FLAGS="--define-macro USE_DOUBLE" analyze typedef_enum
	expect_eq "$(jq -r '.[0].params[0].elem_type' r.out)" double "NVCC_PREPEND_FLAGS"
	run_cmd r "$EGG" analyze cases/typedef_enum.cu -D
	expect_eq "$(cat r.rc)" 2 "a flag without its value"
	expect_file_contains r.err "argument expected after '-D'"
}

test_cuda_arch_alternatives_are_copied_whole_for_the_device_pass() {
	analyze cuda_arch_alternatives
	jq -r '.[0].closure' r.out >closure
	expect_file_contains closure "#ifdef __CUDA_ARCH__"
	expect_file_contains closure "return FAST_MUL(v, three());"
	# named only by the device branch, which the host parse never saw
	expect_file_contains closure "__device__ inline float three(void)"
	expect_file_contains closure "return v * 3.f;"
	expect_file_contains closure "#define USE_LDG 1"
	expect_file_contains closure "#define USE_LDG 0"
	expect_eq "$(grep -c 'inline float scaled' closure)" 2 "each alternative once"
	# inside a body the #if stays as written, for nvcc to decide per pass
	jq -r '.[0].closure' r.out | grep -q '^#if USE_LDG$' || fail "the body's #if was not kept"
}

test_truncated_sources_never_crash_the_analyzer() {
	local src=$DATA/cases/bad_clauses.cu size
	size=$(wc -c <"$src")
	for cut in $(seq 1 97 "$size"); do
		head -c "$cut" "$src" >cut.cu
		run_cmd r "$EGG" analyze cut.cu
		[ "$(cat r.rc)" -le 1 ] || fail "exit $(cat r.rc) on the first $cut bytes"
		jq -e 'type == "array"' r.out >/dev/null || fail "no JSON array on the first $cut bytes"
	done
	# a pragma cut in the middle of a clause is a diagnostic, not a crash
	printf '#pragma egg optimize in(x[n\nvoid f(float *x, int n) {}\n' >cut.cu
	run_cmd r "$EGG" analyze cut.cu
	expect_file_contains r.err "cut.cu:1:24: warning: egg: missing ')' to close clause 'in'"
}

test_egg_cc_never_links_libclang_and_egg_does() {
	command -v ldd >/dev/null || skip "no ldd"
	ldd "$EGG_CC" >cc.libs
	expect_file_lacks cc.libs libclang
	ldd "$EGG" >egg.libs
	expect_file_contains egg.libs libclang
}

# A file with CRLF line ends: a backslash before "\r\n" continues the pragma
# as it continues any preprocessor line (the clause on the next line was lost).
test_a_crlf_file_with_a_continued_pragma_keeps_every_clause() {
	printf '%s\r\n' '#include <cuda_runtime.h>' \
		'__global__ void k(const float *x, float *y, int n) { int i = threadIdx.x; if (i < n) y[i] = x[i]; }' \
		'#pragma egg optimize in(x[n]) out(y[n]) \' \
		'    workload(n = 1 << 20) \' \
		'    tolerance(rtol = 1e-5)' \
		'void f(const float *x, float *y, int n)' '{' '	k<<<1, 256>>>(x, y, n);' '}' >crlf.cu
	grep -q $'\\\\\r$' crlf.cu || fail "the test file has no CRLF continuation"
	run_cmd r "$EGG" analyze crlf.cu || fail "analyze failed: $(cat r.err)"
	[ ! -s r.err ] || fail "diagnostics for a good pragma: $(cat r.err)"
	expect_eq "$(jq -c '.[0].workloads' r.out)" '[[{"name":"n","value":"1 << 20"}]]' "workload"
	expect_eq "$(jq -r '.[0].tolerance.rtol' r.out)" "1e-5" "tolerance"
}

# Issue 24: analysis grew with the square of the annotated functions (1k 1.5 s,
# 4k 16.7 s).  Six times the functions must cost well under 36 times the CPU
# (linear gives about 6, less with the fixed start-up; quadratic gave over 25):
# a ratio of one run's CPU time to another's, so a loaded machine slows both.
test_analysis_cpu_time_grows_linearly_with_the_annotated_functions() {
	gen_launchers() { # N
		echo '#include <cuda_runtime.h>'
		local k
		for ((k = 0; k < $1; k++)); do
			echo "__global__ void k_$k(const float *x, float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i] * $k.0f; }"
			echo "#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1024)"
			echo "void launch_$k(const float *x, float *y, int n) { k_$k<<<(n + 255) / 256, 256>>>(x, y, n); }"
		done
	}
	gen_launchers 500 >small.cu
	gen_launchers 3000 >large.cu
	local TIMEFORMAT='%U %S' u s small large
	{ time "$EGG" analyze small.cu >small.out 2>small.err; } 2>small.t || fail "analyze small: $(tail -3 small.err)"
	{ time "$EGG" analyze large.cu >large.out 2>large.err; } 2>large.t || fail "analyze large: $(tail -3 large.err)"
	expect_eq "$(grep -c '"schema"' large.out)" 3000 "bundles of the large file"
	read -r u s <small.t
	small=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
	read -r u s <large.t
	large=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
	awk -v a="$small" -v b="$large" 'BEGIN { exit !(b < 12 * (a > 0.05 ? a : 0.05)) }' ||
		fail "3000 functions took ${large} s of CPU against ${small} s for 500 (more than 12 times: quadratic?)"
}
