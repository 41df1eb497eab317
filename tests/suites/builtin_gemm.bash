# builtin_gemm.bash -- the gemm family's candidates compute the right product: each
# check bundle's candidates run on the CPU stand-in for CUDA (builtin/tests/emu:
# a block's threads as fibers that meet at each __syncthreads) against a float64
# reference (tests/data/builtin/gemm_driver.cpp), on edge sizes, aligned (the
# float4 path must run) and misaligned; and the benchmark's GEMM-like and
# unliftable cases give candidates that compile.

EMU=$EGG_SRCDIR/builtin/tests/emu
DRIVER=$EGG_SRCDIR/tests/data/builtin/gemm_driver.cpp
DATA=$EGG_SRCDIR/tests/data/builtin
export EGG_BUILTIN_TEMPLATES=$EGG_SRCDIR/builtin/templates

suite_probe() {
	command -v jq >/dev/null || { echo "no jq"; return 1; }
	command -v g++ >/dev/null || { echo "no g++"; return 1; }
	command -v python3 >/dev/null || { echo "no python3"; return 1; }
}

# build_candidate CASE HEADER PROGRAM: the driver for CASE around HEADER, with the
# stand-in's multiprocessor count an H200's (the launchers size grids by it)
build_candidate() {
	g++ -std=c++20 -Og -I"$EMU" -DEGG_EMU_SM_COUNT=132 -D"$1" -DCAND="\"$T/$2\"" "$DRIVER" -o "$3"
}

# index_of BUNDLE LABEL: the index of BUNDLE's first candidate whose label starts
# with LABEL (the tests name the tiles they check, not their places in the list,
# which change when a tile is added)
index_of() {
	"$EGG" generate "$DATA/$1.json" >"$1.json" || fail "generate $1"
	local k
	k=$(jq -r --arg p "$2" '[.candidates[].label | startswith($p)] | index(true)' "$1.json")
	[ "$k" != null ] || fail "$1 has no candidate labelled '$2...': $(jq -c '[.candidates[].label]' "$1.json")"
	echo "$k"
}

# emulate BUNDLE CASE K: builds candidate K of BUNDLE as ./BUNDLE.K
emulate() {
	"$EGG" generate "$DATA/$1.json" >"$1.json" || fail "generate $1"
	{
		echo '#include <cuda_runtime.h>'
		jq -r ".candidates[$3].source" "$1.json" | python3 "$EMU/launches.py" -
	} >"$1.$3.h"
	grep -q 'egg_emu_launch(' "$1.$3.h" || fail "$1 candidate $3: no launch rewritten"
	grep -q '<<<' "$1.$3.h" && fail "$1 candidate $3: a launch left as it was: $(grep -m1 '<<<' "$1.$3.h")"
	build_candidate "$2" "$1.$3.h" "$1.$3" 2>"$1.$3.err" ||
		fail "$1 candidate $3 does not build: $(head -c 1500 "$1.$3.err")"
}

# run PROGRAM VEC ARGS...: VEC 1 when the aligned float4 path must have run
run() {
	local prog=$1 vec=$2
	shift 2
	"./$prog" "$@" >run.out 2>&1 || fail "$prog $*: $(cat run.out)"
	expect_file_contains run.out "vec=$vec "
}

# edge_sizes K: gemm_awkward's candidate K built and run at sizes with tails in
# every dimension, aligned (the 16-byte path must run) and misaligned, empty k,
# and SIZES (more M N K OFFSET) first
edge_sizes() {
	local k=$1
	shift
	emulate gemm_awkward CASE_AW "$k"
	while [ $# -ge 4 ]; do
		run "gemm_awkward.$k" 0 "$1" "$2" "$3" "$4"
		shift 4
	done
	run gemm_awkward.$k 0 77 65 45 0
	run gemm_awkward.$k 1 130 68 36 0
	run gemm_awkward.$k 0 130 68 36 1
	run gemm_awkward.$k 0 5 7 0 0
	run gemm_awkward.$k 0 1 1 3 0
}

test_gemm_candidates_compute_the_product_at_edge_sizes() {
	edge_sizes 0
	edge_sizes 1
}

test_transposed_and_weight_layouts_and_epilogues_compute_right() {
	emulate gemm_tn_alpha_beta CASE_TN 2
	run gemm_tn_alpha_beta.2 0 77 65 45
	run gemm_tn_alpha_beta.2 1 128 96 64
	emulate gemm_flat_nt CASE_FLAT 3
	run gemm_flat_nt.3 0 77 65 45
	run gemm_flat_nt.3 1 96 68 36
	emulate linear_gelu_odd CASE_LIN 0
	run linear_gelu_odd.0 0 33 1 5
	run linear_gelu_odd.0 1 130 68 36
}

test_batched_products_compute_each_matrix() {
	emulate bmm_odd CASE_BMM 3
	run bmm_odd.3 0 3 77 65 45
	run bmm_odd.3 1 2 64 64 32
}

test_a_wrong_candidate_is_caught() {
	# the emulation must be able to fail: candidate 1 with every B value scaled by 1.01
	emulate gemm_awkward CASE_AW 1
	sed 's/egg_c\[egg_i\]\[egg_j\] = fmaf(egg_fa\[egg_i\], egg_fb\[egg_j\], egg_c\[egg_i\]\[egg_j\]);/egg_c[egg_i][egg_j] = fmaf(egg_fa[egg_i], egg_fb[egg_j] * 1.01f, egg_c[egg_i][egg_j]);/' \
		gemm_awkward.1.h >broken.h
	cmp -s broken.h gemm_awkward.1.h && fail "the breakage did not apply"
	build_candidate CASE_AW broken.h broken || fail "broken candidate does not build"
	./broken 77 65 45 0 >b.out 2>&1 && fail "a wrong product passed: $(cat b.out)"
	expect_file_contains b.out "BAD"
}

# The cp.async candidates (templates/gemm_async.cu) on the stand-in, where a copy
# is a plain load and store (no __CUDA_ARCH__), so that the tiles, the stages'
# indices, the transposing copies, the zero fill at the edges and the banded
# block order are what is checked, named by their labels' starts below.
# (A rows k-contiguous: copied element by element, transposed; B rows
# n-contiguous: 16-byte copies, hence vec=1 when aligned.)
A128x128_8x8='gemm async tile=128x128x8 thread=8x8 '
A128x128_8x16='gemm async tile=128x128x8 thread=8x16 '
A128x128x16_8x16='gemm async tile=128x128x16 thread=8x16 '
A128x256='gemm async tile=128x256x8 thread=8x16 '
A128x64_8x16='gemm async tile=128x64x8 thread=8x16 '
A128x64_8x8='gemm async tile=128x64x8 thread=8x8 '
async_labels() {
	local k
	for k in "$@"; do
		jq -r ".candidates[$k].label" "$BUNDLE.json" | grep -q '^gemm async ' ||
			fail "$BUNDLE candidate $k is not a cp.async one: $(jq -r ".candidates[$k].label" "$BUNDLE.json")"
	done
}

test_pipelined_candidates_compute_the_product_at_edge_sizes() {
	local k l
	for l in "$A128x128_8x8" "$A128x256" "$A128x64_8x8"; do
		k=$(index_of gemm_awkward "$l") || return 1
		# (and nine bands of tile rows, a ragged last one)
		edge_sizes "$k" 1100 65 45 0
		BUNDLE=gemm_awkward async_labels $k
	done
}

# async_runs BUNDLE CASE LABEL RUN...: BUNDLE's candidate labelled LABEL..., a
# cp.async one, built and run with each RUN ("VEC ARGS...", as run takes them)
async_runs() {
	local b=$1 c=$2 k r
	k=$(index_of "$b" "$3") || return 1
	shift 3
	emulate "$b" "$c" "$k"
	BUNDLE=$b async_labels "$k"
	for r in "$@"; do
		# shellcheck disable=SC2086 # (RUN is words)
		run "$b.$k" $r
	done
}

test_pipelined_candidates_in_transposed_and_weight_layouts_with_epilogues_compute_right() {
	async_runs gemm_tn_alpha_beta CASE_TN "$A128x128_8x16" "0 77 65 45" "1 300 96 64"
	# both operands k-contiguous: every copy transposes, none is 16 bytes
	async_runs gemm_flat_nt CASE_FLAT "$A128x64_8x16" "0 77 300 45" "0 96 68 36"
	async_runs linear_gelu_odd CASE_LIN "$A128x128x16_8x16" "0 33 1 5" "0 130 68 36"
}

test_pipelined_batched_products_compute_each_matrix() {
	async_runs bmm_odd CASE_BMM "$A128x128_8x16" "0 3 77 65 45" "1 2 64 64 32"
	async_runs bmm_odd CASE_BMM "$A128x64_8x16" "0 3 77 65 45" "1 2 64 64 32"
}

test_a_pipelined_candidate_without_its_barrier_is_caught() {
	# a stage refilled while other threads still read it: the barrier of the k
	# loop removed, the stand-in's threads run past each other and the product is wrong
	local k
	k=$(index_of gemm_awkward "$A128x128_8x16") || return 1
	emulate gemm_awkward CASE_AW "$k"
	sed '/egg_cp_wait<ST - 2>();/{n;s/__syncthreads();/(void)0;/;}' "gemm_awkward.$k.h" >broken.h
	cmp -s broken.h "gemm_awkward.$k.h" && fail "the breakage did not apply"
	build_candidate CASE_AW broken.h broken || fail "broken candidate does not build"
	./broken 300 260 40 0 >b.out 2>&1 && fail "a product without its barrier passed: $(cat b.out)"
	expect_file_contains b.out "BAD"
}

# The benchmark's own cases: the three GEMM-like ones lift to the gemm family, the
# scan and the histogram to theirs, collatz gets generic candidates and the
# bitonic sort generic and butterfly ones; every candidate compiles for
# sm_90 with its closure (through the GPU check program, which holds them all).
# Two tests, so that the runner spreads the compiles over the cores.  Device code
# optimized less (NVVM at -O1, ptxas at -O0), as the builtin suite's
# candidates_compile does: every candidate still goes through the front end,
# NVVM and ptxas, its inline PTX included; the matmul's program compiles in 4.4 s
# instead of 9.6.  bench/gemm/run.sh compiles the same programs with -O3 on the GPU.
# bench_cases_compile CASE:FAMILY...
bench_cases_compile() {
	command -v "$REAL_NVCC" >/dev/null 2>&1 || [ -x "$REAL_NVCC" ] || skip "no nvcc"
	local c fam
	# (A+B: every label starts with one of them, and each of them starts some label)
	for c in "$@"; do
		fam=${c##*:} c=${c%%:*}
		"$EGG" analyze "$EGG_SRCDIR/bench/suite/cases/$c.cu" >"$c.all.json" 2>"$c.err" || fail "analyze $c: $(cat "$c.err")"
		jq '.[0]' "$c.all.json" >"$c.json"
		"$EGG" generate "$c.json" >"$c.gen.json" || fail "generate $c"
		[ "$(jq '.candidates | length' "$c.gen.json")" -ge 4 ] || fail "$c: too few candidates"
		# every candidate of one of the families (A+B), and each family present
		[ "$(jq --arg f "$fam" '. as $d | ($f | split("+") | map(. + " ")) as $fs |
			([$d.candidates[].label | . as $l | any($fs[]; . as $p | $l | startswith($p))] | all) and
			([$fs[] | . as $p | any($d.candidates[].label; startswith($p))] | all)' "$c.gen.json")" = true ] ||
			fail "$c: the candidates are not all and each of $fam: $(jq -c '[.candidates[].label]' "$c.gen.json")"
		"$EGG" generate --check-program "$c.json" >"$c.cu" || fail "check program $c"
		"$REAL_NVCC" -arch=sm_90 -Xcicc -O1 -Xptxas -O0 -c "$c.cu" -o "$c.o" 2>"$c.nvcc" ||
			fail "$c does not compile: $(head -c 1500 "$c.nvcc")"
	done
}

# (one test per case: the three cases' 45 candidates, each program 4-6 s of nvcc)
test_bench_matmul_gives_gemm_candidates_that_compile() {
	bench_cases_compile matmul:gemm
}

test_bench_linear_relu_gives_gemm_candidates_that_compile() {
	bench_cases_compile linear_relu:gemm
}

test_bench_bmm_gives_gemm_candidates_that_compile() {
	bench_cases_compile bmm:gemm
}

test_bench_scatter_and_unliftable_cases_give_candidates_that_compile() {
	bench_cases_compile row_cumsum:scan histogram:scatter collatz:generic+refill bitonic_segments:generic+butterfly
}

# The search judges candidates through `egg eval`, whose screen refuses inline
# assembly outside device functions: the cp.async copies and the mma.sync
# fragments (inside __device__ helpers) pass it and compile.
test_the_harness_screen_lets_the_cp_async_and_mma_candidates_through() {
	command -v "$REAL_NVCC" >/dev/null 2>&1 || [ -x "$REAL_NVCC" ] || skip "no nvcc"
	local k a m
	a=$(index_of gemm_tf32 "$A128x128_8x16") || return 1
	m=$(index_of gemm_tf32 'gemm tf32 mma') || return 1
	share_prepared_objects # the harness's runtime, compiled once for the run
	for k in "$a" "$m"; do
		jq -r ".candidates[$k].source" gemm_tf32.json >c$k.cu
		grep -q 'asm volatile("cp.async' c$k.cu || fail "candidate $k has no cp.async"
		run_cmd ev$k "$EGG" eval "$DATA/gemm_tf32.json" --candidate c$k.cu --compile-only --arch sm_90 --nvcc "$REAL_NVCC"
		expect_file_contains ev$k.out '"verdict":	"compiled"'
	done
	grep -q 'mma.sync.aligned.m16n8k8' "c$m.cu" || fail "candidate $m is not the mma.sync one"
}
