# builtin.bash -- the builtin generator through `egg generate`: descriptions,
# candidates as JSON, every candidate of every test bundle compiling for sm_90
# with its closure, the committed GPU check programs being current, and the GPU
# check script's no-GPU paths, and the 2-D families' candidates run on a CPU stand-in
# for the CUDA runtime (builtin/tests/emu-check.sh).

DATA=$EGG_SRCDIR/tests/data/builtin
export EGG_BUILTIN_TEMPLATES=$EGG_SRCDIR/builtin/templates
GPU_CHECK=$EGG_SRCDIR/builtin/tests/gpu-check.sh

# check_programs NAME...: the check programs of tests/data/builtin/NAME.json,
# written by `egg generate --check-program` into $CHECKS (set here).
check_programs() {
	CHECKS=$T/check
	mkdir -p "$CHECKS"
	local b
	for b in "$@"; do
		"$EGG" generate --check-program "$DATA/$b.json" >"$CHECKS/$b.cu" || fail "no check program for $b"
	done
}

# (transpose, embedding and stencil5 are their _odd twins at the benchmark's size: same candidates)
LIFTED="add_rms_norm local_bound launch_check softmax_first sumsq_tree row_mean_tree axpy_double bias_gelu bias_softmax bias_relu_2d bmm_odd collatz collatz_wide gemm_awkward gemm_flat_nt gemm_tf32 gemm_tn_alpha_beta histogram weighted_hist linear_gelu_odd layernorm log_softmax relu rmsnorm row_max_posum rowsum scale_residual scan scan_excl drawdown serial_norm silu_kernel softmax sumsq transpose_odd transpose_relu embedding_odd gather_scale stencil5_odd stencil9 blur_inner blur_clamp batchnorm_infer mid_sum bitonic fold_div ns_leaky ns_halvings ns_scale ns_square ns_c_leaky tmpl_axpy tmpl_copy tmpl_countdown idiom_ldg idiom_tcall unseen_avgpool unseen_maxpool unseen_argmax unseen_cumprod unseen_revcumsum unseen_argmin unseen_xent unseen_instnorm conv_taps3 conv_ks_relu conv_flat win_maxpool3 win_conv3x3 unseen_mindim1 unseen_conv2dpad unseen_avgpool2d reread helper_bmv helper_l2rows opt_matmul bf16_gelu half_axpy conv_residual idx_smooth5_gridstride idx_diffuse7_3d idx_window3_flat idx_relax5_dirichlet causal_softmax opt_norm_stats"

test_describe_names_the_stages_of_each_family() {
	"$EGG" generate --describe "$DATA/relu.json" >relu.txt || fail "relu"
	expect_file_contains relu.txt "stage 0 map kernel=relu_kernel n=n"
	"$EGG" generate --describe "$DATA/softmax.json" >sm.txt || fail "softmax"
	expect_file_contains sm.txt "acc max m_0 <- x[((row * cols) + col)]"
	"$EGG" generate --describe "$DATA/sumsq.json" >ss.txt || fail "sumsq"
	expect_file_contains ss.txt "stage 1 reduce kernel=sumsq_kernel"
	expect_file_contains ss.txt "acc sum out[0] <- (x[i] * x[i])"
	"$EGG" generate --describe "$DATA/bias_relu_2d.json" >b2.txt || fail "2-D"
	expect_file_contains b2.txt "store y[i] = st0_0"
	"$EGG" generate --describe "$DATA/gemm_tn_alpha_beta.json" >tn.txt || fail "gemm"
	expect_file_contains tn.txt "stage 0 contract kernel=sgemm_tn n=(M * N)"
	expect_file_contains tn.txt "a A off=0 batch=0 row=1 k=M"
	"$EGG" generate --describe "$DATA/weighted_hist.json" >wh.txt || fail "scatter"
	expect_file_contains wh.txt "stage 1 scatter kernel=scatter_weights n=n extent=nbins"
	expect_file_contains wh.txt "acc sum out[idx[i]] <- v_1"
}

test_duplicate_points_are_emitted_once() {
	# layer norm has no online pass: the online and as-written points give one
	# code (8 + the 9 register points)
	"$EGG" generate "$DATA/layernorm.json" >ln.json || fail "generate"
	expect_eq "$(grep -c '"label":' ln.json)" 17 "candidates"
	"$EGG" generate "$DATA/softmax.json" >sm.json || fail "generate"
	expect_eq "$(grep -c '"label":' sm.json)" 19 "candidates"
	# a single-row program (its stream does not move with the row) holds nothing
	"$EGG" generate "$DATA/serial_norm.json" >sn.json || fail "generate"
	expect_eq "$(grep -c 'passes=registers' sn.json)" 0 "register points"
}

test_code_outside_the_families_is_not_lifted_with_a_reason() {
	# (a histogram whose bins have no extent: its shared copies cannot be sized)
	sed 's/"extent": "256"/"extent": null/' "$DATA/histogram.json" >unsized_hist.json
	for c in unsized_hist:histogram collatz:while; do
		local f=$DATA/${c%%:*}.json
		[ -f "$f" ] || f=${c%%:*}.json
		run_cmd d "$EGG" generate --describe "$f" || fail "${c%%:*}: rc $(cat d.rc)"
		expect_file_contains d.out "not lifted: "
		expect_file_contains d.out "${c##*:}"
	done
	# the generic path still offers the reference's code with safe edits
	"$EGG" generate unsized_hist.json >h.json || fail "json"
	expect_file_contains h.json '"lifted":	false'
	expect_file_contains h.json '"label":	"generic restrict"'
	expect_file_contains h.json "not lifted: a histogram or scatter into 'hist', whose extent the bundle does not give"
}

test_generate_prints_candidates_as_json() {
	"$EGG" generate "$DATA/bias_gelu.json" >bg.json || fail "generate"
	expect_file_contains bg.json '"generator":	"builtin"'
	expect_file_contains bg.json '"version":	"builtin-'
	local n
	n=$(grep -c '"label":' bg.json)
	[ "$n" -ge 4 ] || fail "only $n candidates"
	expect_file_contains bg.json 'elementwise tpb=256 vec=4 inflight=2'
	expect_file_contains bg.json 'void bias_gelu(const float *x, const float *bias, float *tmp, float *y, int rows, int cols)'
}

# candidates_compile BUNDLE: the check program of tests/data/builtin/BUNDLE.json,
# which holds the reference and every candidate, compiles for sm_90: every
# candidate compiles with its closure.  One test per bundle of LIFTED
# (generated below), so that the runner spreads the compiles over the cores.
# (Without gpu-check.sh's -O3: nvcc passes it to the host compiler only, so the
# device code is the same, and the compile takes 13% less CPU time.  The device
# code is optimized less, NVVM at -O1 and ptxas at -O0: every candidate still
# goes through the front end, NVVM and ptxas, its inline PTX included, and the
# front end's warnings do not depend on it; 16% less CPU time, 62 s of 388 over
# the 85 programs.  gpu-check.sh compiles the same programs fully on the GPU
# machine.)  With the
# warnings of the strictest build a user may have (issue 26: a winner must add
# none to it, as under -Werror all-warnings -Xcompiler -Wall,-Wextra): every
# warning nvcc or the host compiler gives must lie in the reference and its
# closure (the test bundles' own code, before "candidate 0:"), none in a
# candidate or the program around them.
candidates_compile() {
	command -v "$REAL_NVCC" >/dev/null 2>&1 || [ -x "$REAL_NVCC" ] || skip "no nvcc"
	"$EGG" generate --check-program "$DATA/$1.json" >"$1.cu" || fail "$1: egg generate failed"
	grep -q "candidate 0:" "$1.cu" || fail "$1 has no candidates"
	# compiled, not linked: the host link of the check program proves nothing of
	# the candidates (gpu-check.sh links and runs the same programs on the GPU)
	"$REAL_NVCC" -arch=sm_90 -Xcicc -O1 -Xptxas -O0 -Xcompiler -Wall,-Wextra -c -o "$1.o" "$1.cu" >"$1.log" 2>&1 ||
		fail "$1 does not compile: $(grep -m3 error "$1.log")"
	local first
	first=$(grep -n -m1 "candidate 0:" "$1.cu" | cut -d: -f1)
	sed -n "s/^$1\.cu[(:]\([0-9]*\)[):].*warning.*/\1 &/p" "$1.log" |
		awk -v first="$first" '$1 >= first { $1 = ""; print }' >"$1.warnings"
	[ ! -s "$1.warnings" ] || fail "$1's candidates add warnings: $(head -3 "$1.warnings")"
}
for b_name in $LIFTED; do
	eval "test_candidates_of_${b_name}_compile_for_sm_90_with_their_closure() { candidates_compile $b_name; }"
done
unset b_name

# gpu-check.sh compiles a folder of programs, without a GPU too (two small CUDA
# programs: that the check programs themselves compile with the same command,
# the tests of candidates_compile prove)
test_gpu_check_compiles_the_programs_it_is_given() {
	command -v "$REAL_NVCC" >/dev/null 2>&1 || [ -x "$REAL_NVCC" ] || skip "no nvcc"
	mkdir programs
	local op
	for op in twice:2.0f square:x[threadIdx.x]; do
		printf '%s\n' "__global__ void k(float *x) { x[threadIdx.x] *= ${op#*:}; }" \
			'int main(void) { float *x; cudaMalloc(&x, 128); k<<<1, 32>>>(x); return cudaDeviceSynchronize(); }' \
			>"programs/${op%%:*}.cu"
	done
	run_cmd gc env EGG_CHECK_PROGRAMS="$T/programs" NVCC="$REAL_NVCC" "$GPU_CHECK" --no-gpu "$T/gout"
	[ "$(cat gc.rc)" -eq 0 ] || fail "compile failed: $(cat gc.out gc.err | head -c 2000)"
	expect_file_contains gc.out "compiled 2 programs for sm_90"
}

# The check programs' text is held by content hashes (builtin/tests/check.sha256),
# so that a change of the generated code is seen in review; after a deliberate
# change, builtin/tests/check-hashes writes them again.  The programs hashed are
# the ones gpu-check.sh writes itself when given none (with the egg first on
# PATH), one per test bundle: what runs on the GPU is what is held here.
test_check_programs_have_their_recorded_content_hashes() {
	mkdir bin
	printf '#!/bin/sh\nexec "%s" "$@"\n' "$EGG" >bin/egg && chmod +x bin/egg
	run_cmd g2 env PATH="$T/bin:$PATH" NVCC=/bin/false "$GPU_CHECK" --no-gpu "$T/gout"
	[ "$(ls "$T/gout/programs" | wc -l)" -eq "$(ls "$DATA"/*.json | wc -l)" ] ||
		fail "gpu-check did not write one program per test bundle: $(cat g2.out | head -c 500)"
	cd "$T/gout/programs" || fail "no programs"
	sha256sum -c --quiet "$EGG_SRCDIR/builtin/tests/check.sha256" >"$T/c.out" 2>&1 ||
		fail "check programs differ from their recorded hashes (run builtin/tests/check-hashes after a deliberate change): $(head -c 600 "$T/c.out")"
	expect_eq "$(ls "$DATA"/*.json | wc -l)" "$(wc -l <"$EGG_SRCDIR/builtin/tests/check.sha256")" "bundles with a recorded hash"
}

test_gpu_check_skips_without_a_gpu() {
	if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
		skip "a GPU is present"
	fi
	run_cmd g "$GPU_CHECK" "$T/out"
	expect_eq "$(cat g.rc)" 77 "exit status"
	expect_file_contains g.out "no GPU"
}

test_gpu_check_table_flags_wrong_results() {
	printf '%s\n' \
		'CHECK softmax_forward   0 ref_ms=1.2000 cand_ms=0.1000 max_err=1e-07 correct=yes rows threads_per_row=32' \
		'CHECK histogram        -- ref_ms=0.5000 no candidates: not lifted' >good.txt
	run_cmd t "$GPU_CHECK" --format good.txt || fail "good table failed"
	expect_file_contains t.out "12.00x"
	expect_file_contains t.out "not lifted"
	echo 'CHECK relu_forward  1 ref_ms=0.1 cand_ms=0.05 max_err=inf correct=no elementwise' >>good.txt
	run_cmd t2 "$GPU_CHECK" --format good.txt && fail "a wrong result passed"
	expect_file_contains t2.out "correct"
}

test_bad_jobs_and_missing_templates_are_reported() {
	echo 'not json' >bad.json
	run_cmd b "$EGG" generate bad.json && fail "bad JSON accepted"
	expect_file_contains b.err "egg: error: bad.json is not JSON"
	run_cmd m env EGG_BUILTIN_TEMPLATES="$T/none" "$EGG" generate "$DATA/relu.json" && fail "no templates accepted"
	expect_file_contains m.err "EGG_BUILTIN_TEMPLATES"
	run_cmd u "$EGG" generate && fail "no argument accepted"
	expect_file_contains u.err "usage: egg generate"
}

# The files whose change changes what is generated: the C sources and headers of
# every folder of builtin/ but check/ (the check program's writer) and tests/,
# and the templates, in C order of their paths.
generator_files() {
	(cd "$EGG_SRCDIR" && find builtin \( -path builtin/check -o -path builtin/tests \) -prune -o \
		-type f \( -name '*.[ch]' -o -path 'builtin/templates/*' \) -print | LC_ALL=C sort)
}

test_builtin_version_changes_with_the_recipes() {
	local hash recorded version
	hash=$(cd "$EGG_SRCDIR" && cat $(generator_files) | sha256sum | cut -d' ' -f1)
	recorded=$(cut -d' ' -f1 "$EGG_SRCDIR/builtin/version.sha256")
	version=$(cut -d' ' -f2- "$EGG_SRCDIR/builtin/version.sha256")
	"$EGG" generate "$DATA/relu.json" >r.json || fail "generate"
	expect_file_contains r.json "\"version\":	\"$version\""
	[ "$hash" = "$recorded" ] || fail "the generator's sources changed ($hash): bump BUILTIN_VERSION in builtin/builtin.h (it is in the cache key) and record '$hash <new version>' in builtin/version.sha256"
}

test_gpu_check_runs_each_program_and_fails_on_a_wrong_result() {
	command -v "$REAL_NVCC" >/dev/null 2>&1 || [ -x "$REAL_NVCC" ] || skip "no nvcc"
	# a stand-in nvidia-smi and host-only programs: the script's GPU path on CPU
	mkdir bin progs
	printf '#!/bin/sh\necho "GPU 0: Stand-in (UUID: GPU-0)"\n' >bin/nvidia-smi
	chmod +x bin/nvidia-smi
	printf '#include <stdio.h>\nint main(void) { printf("CHECK good 0 ref_ms=2.0000 cand_ms=0.5000 max_err=0 correct=yes elementwise tpb=256\\n"); return 0; }\n' >progs/a.cu
	printf '#include <stdio.h>\nint main(void) { printf("CHECK bad 0 ref_ms=1.0 cand_ms=1.0 max_err=inf correct=no rows g=32\\n"); return 0; }\n' >progs/b.cu
	run_cmd g env PATH="$T/bin:$PATH" EGG_CHECK_PROGRAMS="$T/progs" NVCC="$REAL_NVCC" "$GPU_CHECK" "$T/out"
	expect_eq "$(cat g.rc)" 1 "exit status with a wrong result"
	expect_file_contains g.out "device: GPU 0: Stand-in"
	expect_file_contains g.out "4.00x"
	expect_file_contains out/table.txt "bad"
	rm progs/b.cu
	run_cmd g2 env PATH="$T/bin:$PATH" EGG_CHECK_PROGRAMS="$T/progs" NVCC="$REAL_NVCC" "$GPU_CHECK" "$T/out2"
	expect_eq "$(cat g2.rc)" 0 "exit status when all are correct"
	[ -z "$(ls "$T/out2" | grep -v -e '\.log$' -e '\.txt$')" ] || fail "binaries left in OUTDIR: $(ls "$T/out2")"
}

EMU_CHECK=$EGG_SRCDIR/builtin/tests/emu-check.sh
# the stand-in's compiled programs, shared by the run's jobs (tests/run)
export EGG_EMU_CACHE=${EGG_TEST_RUN_DIR:+$EGG_TEST_RUN_DIR/emu}

test_planes_of_shared_gathers_are_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	check_programs batchnorm_infer
	# planes that take the vector path (1100 = 4 * 275) and odd ones that take the
	# scalar pass with the values hoisted per plane
	local c=$CHECKS/batchnorm_infer.cu
	sed -e 's/^\tint n = (64);/\tint n = (2);/' -e 's/^\tint c = (256);/\tint c = (5);/' \
		-e 's/^\tint hw = (4096);/\tint hw = (1100);/' "$c" >bn_vec.cu
	sed -e 's/^\tint n = (64);/\tint n = (3);/' -e 's/^\tint c = (256);/\tint c = (7);/' \
		-e 's/^\tint hw = (4096);/\tint hw = (49);/' "$c" >bn_odd.cu
	grep -q 'int hw = (1100);' bn_vec.cu && grep -q 'int hw = (49);' bn_odd.cu || fail "sizes not replaced"
	run_cmd e "$EMU_CHECK" "$T/emu" bn_vec.cu bn_odd.cu
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes.* planes' e.out)" 4 "planes candidates checked"
	expect_eq "$(grep -c 'correct=yes' e.out)" 26 "candidates checked"
}

test_rows_in_registers_and_tree_reductions_are_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	check_programs add_rms_norm log_softmax row_mean_tree softmax_first sumsq_tree
	# small rows that fit the registers (the loop from 1 leaves out the first
	# element), odd rows that take the passes from memory, a folded residual
	# stored and normalized (two outputs), a row longer than a warp's registers
	local c=$CHECKS
	sed -e 's/^\tint batch = (4096);/\tint batch = (37);/' -e 's/^\tint classes = (2048);/\tint classes = (256);/' \
		"$c/softmax_first.cu" >sm_fit.cu
	sed -e 's/^\tint batch = (4096);/\tint batch = (9);/' -e 's/^\tint classes = (2048);/\tint classes = (1001);/' \
		"$c/softmax_first.cu" >sm_odd.cu
	sed -e 's/^\tint tokens = (4096);/\tint tokens = (5);/' "$c/add_rms_norm.cu" >arn.cu
	sed -e 's/^\tint rows = (2048);/\tint rows = (7);/' -e 's/^\tint cols = (4099);/\tint cols = (1024);/' \
		"$c/log_softmax.cu" >lsm.cu
	# and the shared-memory tree reduction, lifted as the full reduction it computes
	sed -e 's/^\tint n = (16777221);/\tint n = (123457);/' "$c/sumsq_tree.cu" >tree.cu
	sed -e 's/^\tint rows = (4096);/\tint rows = (33);/' -e 's/^\tint cols = (8192);/\tint cols = (1500);/' \
		"$c/row_mean_tree.cu" >rtree.cu
	grep -q 'int classes = (256);' sm_fit.cu && grep -q 'int classes = (1001);' sm_odd.cu &&
		grep -q 'int tokens = (5);' arn.cu && grep -q 'int cols = (1024);' lsm.cu &&
		grep -q 'int n = (123457);' tree.cu && grep -q 'int cols = (1500);' rtree.cu ||
		fail "sizes not replaced"
	run_cmd e "$EMU_CHECK" "$T/emu" sm_fit.cu sm_odd.cu arn.cu lsm.cu tree.cu rtree.cu
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes.*passes=registers' e.out)" 42 "register candidates checked"
	expect_eq "$(grep -c 'correct=yes reduce' e.out)" 7 "tree reduction candidates checked"
	expect_eq "$(grep -c 'correct=yes reduce .*mode=one-launch' e.out)" 2 "one-launch reductions checked"
	expect_eq "$(grep -c '^CHECK row_mean .*correct=yes' e.out)" 17 "row tree candidates checked"
}

test_row_scans_are_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	check_programs drawdown scan scan_excl
	# rows not a multiple of 4 (misaligned: the guarded path), aligned rows with a
	# partial last tile after full vector tiles, rows shorter than a warp; an
	# inclusive sum, an exclusive scaled sum of squares, a running max
	local c=$CHECKS
	sed -e 's/^\tint rows = (16384);/\tint rows = (37);/' -e 's/^\tint cols = (4096);/\tint cols = (1030);/' \
		"$c/scan.cu" >s_odd.cu
	sed -e 's/^\tint rows = (16384);/\tint rows = (5);/' -e 's/^\tint cols = (4096);/\tint cols = (8204);/' \
		"$c/scan.cu" >s_tail.cu
	sed -e 's/^\tint rows = (1024);/\tint rows = (9);/' -e 's/^\tint cols = (1030);/\tint cols = (4099);/' \
		"$c/scan_excl.cu" >e_odd.cu
	sed -e 's/^\tint rows = (1024);/\tint rows = (6);/' -e 's/^\tint cols = (1030);/\tint cols = (2052);/' \
		"$c/scan_excl.cu" >e_al.cu
	sed -e 's/^\tint rows = (512);/\tint rows = (33);/' -e 's/^\tint cols = (2048);/\tint cols = (3);/' \
		"$c/drawdown.cu" >d_small.cu
	sed -e 's/^\tint rows = (512);/\tint rows = (7);/' -e 's/^\tint cols = (2048);/\tint cols = (4612);/' \
		"$c/drawdown.cu" >d_tail.cu
	grep -q 'int cols = (1030);' s_odd.cu && grep -q 'int cols = (8204);' s_tail.cu &&
		grep -q 'int cols = (4099);' e_odd.cu && grep -q 'int cols = (2052);' e_al.cu &&
		grep -q 'int cols = (3);' d_small.cu && grep -q 'int cols = (4612);' d_tail.cu ||
		fail "sizes not replaced"
	run_cmd e "$EMU_CHECK" "$T/emu" s_odd.cu s_tail.cu e_odd.cu e_al.cu d_small.cu d_tail.cu
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes scan ' e.out)" 72 "scan candidates checked"
	# and it sees a carry dropped between tiles
	sed 's/egg_carry = (egg_carry + egg_tv\[egg_k\]);/egg_carry = egg_tv[egg_k];/' s_tail.cu >nocarry.cu
	grep -q 'egg_carry = egg_tv\[egg_k\];' nocarry.cu || fail "carry not replaced"
	run_cmd n "$EMU_CHECK" "$T/emu2" nocarry.cu
	expect_eq "$(cat n.rc)" 1 "exit status without the carry"
	expect_file_contains n.out "correct=no"
}

test_l2_keeping_loads_stay_behind_their_alignment_test() {
	command -v "$REAL_NVCC" >/dev/null 2>&1 || [ -x "$REAL_NVCC" ] || skip "no nvcc"
	check_programs gather_scale
	# gather_scale's rows are scaled by a row of weights that is the same for every
	# row: the keep points' vector loads of it must not be hoisted above the row's
	# alignment test (they were, and faulted on the GPU when called with misaligned
	# pointers); in each kernel that has them, the first comes after the first test
	# (an address's residue modulo the vector, & 3 in elements, or & 15 in bytes)
	run_cmd p "$REAL_NVCC" -O3 -arch=sm_90 -ptx -o gs.ptx "$CHECKS/gather_scale.cu"
	[ "$(cat p.rc)" -eq 0 ] || fail "nvcc -ptx failed: $(head -c 1000 p.err)"
	awk '/^\.visible \.entry|^\.entry/ { k = $0; t = 0; n++ }
	     /and\.b64.*, (15|3);/ { t = 1 }
	     /ld\.global\.nc\.L2::cache_hint/ { h[k] = 1; if (!t) bad[k] = 1 }
	     END { c = 0; for (x in h) c++; b = 0; for (x in bad) b++; print c, b }' gs.ptx >counts
	expect_eq "$(cat counts)" "2 0" "kernels with keep loads, and those loading before the alignment test"
}

test_gathers_in_flight_and_strided_columns_are_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	check_programs embedding mid_sum
	# rows of 1024 columns (the loads-in-flight loop covers the row exactly) and of
	# 1028 (a vector tail after it), with plain and streaming stores; the
	# middle-dimension sum with neighbouring rows contiguous, at sizes with a
	# partial block and an odd reduction, a thread per row and split over warps
	# (771 rows: lanes past the last row in the last tile)
	local c=$CHECKS
	sed -e 's/^\tint num_tokens = (65536);/\tint num_tokens = (9);/' -e 's/^\tint vocab = (32000);/\tint vocab = (11);/' \
		"$c/embedding.cu" >emb_fit.cu
	sed -e 's/^\tint num_tokens = (65536);/\tint num_tokens = (9);/' -e 's/^\tint vocab = (32000);/\tint vocab = (11);/' \
		-e 's/^\tint dim = (1024);/\tint dim = (1028);/' "$c/embedding.cu" >emb_tail.cu
	sed -e 's/^\tint batch = (64);/\tint batch = (3);/' -e 's/^\tint dim = (512);/\tint dim = (37);/' \
		-e 's/^\tint inner = (2048);/\tint inner = (257);/' "$c/mid_sum.cu" >mid.cu
	grep -q 'int num_tokens = (9);' emb_fit.cu && grep -q 'int dim = (1028);' emb_tail.cu &&
		grep -q 'int inner = (257);' mid.cu || fail "sizes not replaced"
	run_cmd e "$EMU_CHECK" "$T/emu" emb_fit.cu emb_tail.cu mid.cu
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes.*inflight=' e.out)" 18 "loads-in-flight candidates checked"
	expect_eq "$(grep -c 'correct=yes.*stores=streaming' e.out)" 14 "streaming-store candidates checked"
	expect_eq "$(grep -c 'correct=yes.*loads=keep' e.out)" 4 "L2-keeping candidates checked"
	expect_eq "$(grep -c 'correct=yes rows threads_per_row=1 ' e.out)" 8 "thread-per-row candidates checked"
	expect_eq "$(grep -c 'correct=yes rows threads_per_row=1 .*split=' e.out)" 5 "split-column candidates checked"
}

test_gathers_in_the_order_of_their_keys_are_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	check_programs embedding
	# the embedding's rows taken in the order of their ids (one cooperative launch:
	# count, scan, place, gather) on a stand-in of one multiprocessor (a wave of 2
	# blocks): 3000 tokens of 13 ids, so that threads count up to 3 rows each and
	# buckets hold long runs; each candidate runs twice (the second call finds the
	# counts the first left)
	local c=$CHECKS
	{ echo '#define EGG_EMU_SM_COUNT 1'
	  sed -e 's/^\tint num_tokens = (65536);/\tint num_tokens = (3000);/' -e 's/^\tint vocab = (32000);/\tint vocab = (13);/' \
		-e 's/^\tint dim = (1024);/\tint dim = (4);/' "$c/embedding.cu"; } >ord.cu
	grep -q 'int num_tokens = (3000);' ord.cu && grep -q 'int dim = (4);' ord.cu || fail "sizes not replaced"
	run_cmd e "$EMU_CHECK" "$T/emu" ord.cu
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes.*order=key&4095 (cooperative)' e.out)" 2 "sorted candidates checked"
	# a sort that drops each row's rank in its bucket (rows of one bucket overwrite
	# each other), and one that leaves its counts for the next call (the second
	# call places its rows past their buckets): only the sorted candidates go wrong
	sed 's/ + egg_rank\[egg_k\]\] = (unsigned)egg_row;/] = (unsigned)egg_row;/' ord.cu >norank.cu
	sed 's/_cnt\[egg_j\] = 0;$/_cnt[egg_j] += 0;/' ord.cu >nozero.cu
	expect_eq "$(grep -c '] = (unsigned)egg_row;' norank.cu)" 2 "ranks dropped"
	expect_eq "$(grep -c '_cnt\[egg_j\] += 0;' nozero.cu)" 2 "clears removed"
	run_cmd n "$EMU_CHECK" "$T/emu2" norank.cu nozero.cu
	expect_eq "$(cat n.rc)" 1 "exit status with broken sorts"
	expect_eq "$(grep -c 'correct=no' n.out)" 4 "candidates found wrong with broken sorts"
	expect_eq "$(grep -c 'correct=no.*order=key' n.out)" 4 "sorted candidates found wrong with broken sorts"
	# a device without cooperative launches, and more rows than the sort's threads
	# hold (4 each): the plain kernel runs instead (the broken sort is never launched)
	{ echo '#define EGG_EMU_NO_COOPERATIVE'; cat norank.cu; } >nocoop.cu
	sed -e 's/^\tint num_tokens = (3000);/\tint num_tokens = (8300);/' norank.cu >over.cu
	grep -q 'int num_tokens = (8300);' over.cu || fail "sizes not replaced"
	run_cmd f "$EMU_CHECK" "$T/emu3" nocoop.cu over.cu
	[ "$(cat f.rc)" -eq 0 ] || fail "the plain kernel did not run: $(grep -v 'correct=yes' f.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes.*order=key' f.out)" 4 "sorted candidates run as their plain kernel"
}

test_scatters_are_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	check_programs histogram weighted_hist
	# the histogram with a copy per warp; with little shared memory (two copies
	# fit); weighted float bins not a multiple of anything with a vector tail;
	# bins that do not fit one copy (every atomic global); and a destination whose
	# extent leaves out its last bins (their indices take the guard's global atomic)
	local c=$CHECKS
	sed -e 's/^\tint n = (1000000);/\tint n = (10007);/' "$c/histogram.cu" >hist.cu
	{ echo '#define EGG_EMU_SHARED_OPTIN 2048'; cat hist.cu; } >hist_two.cu
	sed -e 's/^\tint n = (1000003);/\tint n = (5003);/' -e 's/^\tint nbins = (1000);/\tint nbins = (997);/' \
		"$c/weighted_hist.cu" >wh.cu
	{ echo '#define EGG_EMU_SHARED_OPTIN 2048'
	  sed -e 's/^\tint n = (1000003);/\tint n = (3001);/' -e 's/^\tint nbins = (1000);/\tint nbins = (601);/' \
		"$c/weighted_hist.cu"; } >wh_global.cu
	sed -e 's/(long long)(nbins);/(long long)(nbins - 5);/' wh.cu >wh_guard.cu
	grep -q 'int n = (10007);' hist.cu && grep -q 'int nbins = (997);' wh.cu &&
		grep -q 'int nbins = (601);' wh_global.cu && [ "$(grep -c 'nbins - 5' wh_guard.cu)" -eq 11 ] ||
		fail "sizes not replaced"
	run_cmd e "$EMU_CHECK" "$T/emu" hist.cu hist_two.cu wh.cu wh_global.cu wh_guard.cu
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes scatter' e.out)" 55 "scatter candidates checked"
	expect_eq "$(grep -c 'correct=yes scatter.*copies=lanes' e.out)" 15 "lane-copy candidates checked"
	# and it sees a stray index dropped instead of sent to the global atomic
	perl -0pe 's/\n\t*else\n\t*atomicAdd\(&out\[egg_x\], \(float\)\(v_1\)\);//g' wh_guard.cu >noguard.cu
	! grep -q 'atomicAdd(&out\[egg_x\]' noguard.cu || fail "the guard's global atomic not removed"
	run_cmd n "$EMU_CHECK" "$T/emu2" noguard.cu
	expect_eq "$(cat n.rc)" 1 "exit status without the global atomic"
	expect_file_contains n.out "correct=no"
	# and a lane-copy fold that leaves out one copy
	sed -e 's/for (int egg_c = 1; egg_c < egg_copies; egg_c++) {/for (int egg_c = 2; egg_c < egg_copies; egg_c++) {/' \
		wh.cu >nofold.cu
	expect_eq "$(grep -c 'egg_c = 2;' nofold.cu)" 3 "lane folds cut short"
	run_cmd f "$EMU_CHECK" "$T/emu3" nofold.cu
	expect_eq "$(cat f.rc)" 1 "exit status with a copy left out of the fold"
	expect_eq "$(grep -c 'correct=no scatter.*copies=lanes' f.out)" 3 "lane candidates found wrong"
}

# Issue 26: a reference that reads its launch's error through the user's macro
# (cudaCheck(cudaGetLastError()), which prints and exits) gets candidates that
# do the same.  On the CPU stand-in the first launch fails (EGG_EMU_LAUNCH_ERROR):
# the reference and each candidate tried (a lifted one and the last) exit through
# the macro with the error; with no failure they run to the end.
test_a_failed_launch_in_a_candidate_reaches_the_references_cudacheck_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	cp "$DATA/launch_check.cu" .
	"$EGG" analyze launch_check.cu >b.json || fail "analyze failed"
	python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1]))[0], open("gelu.json", "w"))' b.json
	"$EGG" generate gelu.json >gen.json || fail "generate failed"
	python3 - gelu.json gen.json <<'PY' || fail "no programs"
import json, sys
b, g = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
head = "".join("#include %s\n" % i for i in b["includes"]) + b["closure"] + "\n"
main = """
int main(void)
{
	const int n = 3000;
	float *x, *y;
	cudaMalloc(&x, n * sizeof(float));
	cudaMalloc(&y, n * sizeof(float));
	for (int i = 0; i < n; i++)
		x[i] = (float)(i % 7) - 3.0f;
	gelu_forward(y, x, n, 128);
	cudaDeviceSynchronize();
	printf("ran to the end\\n");
	return 0;
}
"""
cands = g["candidates"]
assert len(cands) >= 2, len(cands)
for name, src in (("ref", b["target"]), ("first", cands[0]["source"]), ("last", cands[-1]["source"])):
    open(name + ".cu", "w").write(head + src + main)
PY
	local p
	for p in ref first last; do
		python3 "$EGG_SRCDIR/builtin/tests/emu/prepare.py" "$p.cu" "$p" &&
			g++ -std=c++20 -Og -w -I"$EGG_SRCDIR/builtin/tests/emu" -x c++ "$p.cc" -o "$p" 2>"$p.log" ||
			fail "$p does not compile on the stand-in: $(head -c 1500 "$p.log")"
		run_cmd "$p.ok" "./$p"
		expect_eq "$(cat "$p.ok.rc") $(cat "$p.ok.out")" "0 ran to the end" "$p without a failure"
		EGG_EMU_LAUNCH_ERROR=1 run_cmd "$p.bad" "./$p"
		expect_eq "$(cat "$p.bad.rc")" 1 "$p's exit status after a failed launch"
		expect_file_contains "$p.bad.out" "[CUDA ERROR] at file"
		expect_file_contains "$p.bad.out" ": unspecified launch failure"
	done
}

test_the_cpu_stand_in_compiles_a_program_once_for_all_its_sizes() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	# a program at three sizes (one of them in a second call sharing the cache),
	# and the same program with one more statement: each run sees its own sizes,
	# and the body is compiled once per text
	printf '%s\n' '#include <cuda_runtime.h>' '__global__ void k(int *o, int n) { o[threadIdx.x] = n; }' \
		'int main(void)' '{' '	int n = (5);' '	long long m = (1 << 20);' '	int *o = (int *)malloc(sizeof(int));' \
		'	k<<<1, 1>>>(o, n);' '	printf("CHECK t 0 correct=yes n=%d m=%lld\n", o[0], m);' '	return 0;' '}' >n5.cu
	sed 's/int n = (5);/int n = (7);/' n5.cu >n7.cu
	sed 's/int n = (5);/int n = (9);/' n5.cu >n9.cu
	sed 's/return 0;/fflush(stdout); return 0;/' n5.cu >other.cu
	mkdir cache
	run_cmd e env EGG_EMU_CACHE="$T/cache" "$EMU_CHECK" "$T/emu" n5.cu n7.cu other.cu
	[ "$(cat e.rc)" -eq 0 ] || fail "failed: $(head -c 2000 e.out)"
	run_cmd e2 env EGG_EMU_CACHE="$T/cache" "$EMU_CHECK" "$T/emu2" n9.cu
	[ "$(cat e2.rc)" -eq 0 ] || fail "failed: $(head -c 2000 e2.out)"
	expect_eq "$(grep -o 'n=[0-9]* m=[0-9]*' e.out e2.out | cut -d: -f2 | tr '\n' ' ')" \
		"n=5 m=1048576 n=7 m=1048576 n=5 m=1048576 n=9 m=1048576 " "the sizes each run saw"
	expect_eq "$(ls cache/*.o | wc -l)" 2 "bodies compiled"
}

test_the_cpu_stand_in_holds_a_cooperative_grid_at_its_barrier() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	# blocks that keep their chunk in their own dynamic shared memory, fold every
	# block's partial after the grid barrier: right only if no block reads the
	# partials before all are written
	local src=$EGG_SRCDIR/tests/data/builtin/emu/grid_sync.cu
	run_cmd g "$EMU_CHECK" "$T/emu" "$src"
	expect_eq "$(cat g.rc)" 0 "exit status with the barrier"
	expect_file_contains g.out "CHECK grid_sync 0 correct=yes cooperative normalize (0 of 3001 wrong)"
	# without it the stand-in runs blocks side by side and a block folds too early
	sed -e 's/#define EGG_GRID_BARRIER 1/#define EGG_GRID_BARRIER 0/' "$src" >nobarrier.cu
	grep -q 'EGG_GRID_BARRIER 0' nobarrier.cu || fail "barrier not removed"
	run_cmd n "$EMU_CHECK" "$T/emu2" nobarrier.cu
	expect_eq "$(cat n.rc)" 1 "exit status without the barrier"
	expect_file_contains n.out "correct=no cooperative normalize"
	# and an ordinary launch may not use a grid barrier
	sed -e 's/^\tcudaLaunchKernelEx(&cfg, normalize, (const float \*)x, part, out, n);/\tnormalize<<<blocks, threads, shmem>>>(x, part, out, n);/' \
		"$src" >plain.cu
	expect_eq "$(grep -c '<<<blocks, threads, shmem>>>' plain.cu)" 1 "launch rewritten"
	run_cmd p "$EMU_CHECK" "$T/emu3" plain.cu
	expect_eq "$(cat p.rc)" 1 "exit status of a grid barrier in an ordinary launch"
	expect_file_contains p.out "a grid barrier outside a cooperative launch"
}

test_fused_butterfly_launches_are_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	check_programs bitonic
	# segments of 256 and 1024: part of a tile (1280 = 1024 + 256, 5120 = 2.5 tiles of
	# 2048), less than a tile (768), whole tiles of the smaller sizes (3072); segments
	# of 4096, whose offsets 2048 reach past the smaller tiles: those launches flush
	# the queue and run as written
	local c=$CHECKS/bitonic.cu cfg
	for cfg in 1280:256 768:256 5120:1024 3072:1024 8192:4096; do
		sed -e "s/^\tint n = (1 << 24);/\tint n = (${cfg%%:*});/" -e "s/^\tint seg = (1024);/\tint seg = (${cfg##*:});/" \
			"$c" >"bit_${cfg%%:*}.cu"
		grep -q "int n = (${cfg%%:*});" "bit_${cfg%%:*}.cu" && grep -q "int seg = (${cfg##*:});" "bit_${cfg%%:*}.cu" ||
			fail "sizes not replaced"
	done
	run_cmd e "$EMU_CHECK" "$T/emu" bit_1280.cu bit_768.cu bit_5120.cu bit_3072.cu bit_8192.cu
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes butterfly' e.out)" 50 "butterfly candidates checked"
	# a body that reads the built-ins beyond its index gets each element's own
	# blockIdx, threadIdx, blockDim and gridDim
	jq '.closure |= sub("if \\(i >= n\\)"; "if (i >= n || threadIdx.x >= blockDim.x || blockIdx.x >= gridDim.x)")
		| .workloads = [[{"name": "n", "value": "1280"}, {"name": "seg", "value": "256"}]]' \
		"$DATA/bitonic.json" >builtins.json || fail "jq"
	"$EGG" generate --check-program builtins.json >builtins.cu || fail "generate"
	grep -q 'uint3 egg_blockIdx, uint3 egg_threadIdx, dim3 egg_blockDim, dim3 egg_gridDim' builtins.cu ||
		fail "the body does not get the built-ins"
	run_cmd b "$EMU_CHECK" "$T/emu3" builtins.cu
	[ "$(cat b.rc)" -eq 0 ] || fail "built-ins: wrong or failed: $(grep -v 'correct=yes' b.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes butterfly' b.out)" 10 "butterfly candidates with the built-ins checked"
	# a guard it does not read as "the partner lies above" visits every element
	jq '.closure |= sub("if \\(partner > i\\)"; "if ((i & j) == 0)")
		| .workloads = [[{"name": "n", "value": "5120"}, {"name": "seg", "value": "1024"}]]' \
		"$DATA/bitonic.json" >anyguard.json || fail "jq"
	"$EGG" generate --check-program anyguard.json >anyguard.cu || fail "generate"
	grep -q 'if ((i & j) == 0)' anyguard.cu || fail "the guard was not replaced"
	! grep -q 'butterfly tile=[0-9]* tpb=[0-9]* pairs' anyguard.cu || fail "pairs for a guard it cannot read"
	run_cmd a "$EMU_CHECK" "$T/emu4" anyguard.cu
	[ "$(cat a.rc)" -eq 0 ] || fail "any guard: wrong or failed: $(grep -v 'correct=yes' a.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes butterfly' a.out)" 10 "butterfly candidates visiting every element"
	# and it sees a missing barrier between the queued steps
	sed 's/^\t\t__syncthreads();$//' bit_1280.cu >nobarrier.cu
	run_cmd n "$EMU_CHECK" "$T/emu2" nobarrier.cu
	expect_eq "$(cat n.rc)" 1 "exit status without barriers"
	expect_eq "$(grep -c 'correct=no butterfly' n.out)" 10 "wrong candidates without barriers"
}

test_division_by_a_launch_scalar_is_exact_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	check_programs fold_div
	# fold_div divides by its int and unsigned parameters, negative dividends
	# included; the fastdiv candidates pass them as egg_div: divisors that are
	# powers of two (1, 16, 1024, 4096), others (3, 7, 1000, 37), and 0-free edges
	local c=$CHECKS/fold_div.cu cfg n cols stride progs=()
	grep -q 'egg_div<int> cols, egg_div<unsigned> stride' "$c" || fail "the divisors are not passed as egg_div"
	for cfg in 100003:3:1000 4099:16:64 777:1:7 5000:7:1 3001:1024:4096 2000:37:3; do
		IFS=: read -r n cols stride <<<"$cfg"
		sed -e "s/^\tint n = (100003);/\tint n = ($n);/" -e "s/^\tint cols = (3);/\tint cols = ($cols);/" \
			-e "s/^\tunsigned int stride = (1000);/\tunsigned int stride = ($stride);/" "$c" >"fold_$n.cu"
		grep -q "int cols = ($cols);" "fold_$n.cu" && grep -q "stride = ($stride);" "fold_$n.cu" || fail "sizes not replaced"
		progs+=("fold_$n.cu")
	done
	run_cmd e "$EMU_CHECK" "$T/emu" "${progs[@]}"
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes generic.*fastdiv' e.out)" 30 "fastdiv candidates checked"
	# a wrong reciprocal, or a shift one too far, is caught
	sed 's|magic = 0xffffffffffffffffull / u + 1;|magic = 0xffffffffffffffffull / (u + 1) + 1;|' fold_100003.cu >badmagic.cu
	sed 's|(1ull << shift) < u;|(1ull << shift) <= u;|' fold_4099.cu >badshift.cu
	! cmp -s badmagic.cu fold_100003.cu && ! cmp -s badshift.cu fold_4099.cu || fail "mutations not applied"
	run_cmd m "$EMU_CHECK" "$T/emu2" badmagic.cu badshift.cu
	expect_eq "$(cat m.rc)" 1 "exit status with a broken egg_div"
	expect_eq "$(grep -c 'correct=no generic.*fastdiv' m.out)" 10 "wrong fastdiv candidates"
	expect_eq "$(grep -c 'correct=yes generic restrict$' m.out)" 2 "the candidates without egg_div stay right"
}

test_2d_family_candidates_are_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	check_programs blur_clamp blur_inner embedding_odd gather_scale stencil5_odd stencil9 transpose_odd transpose_relu
	# awkward sizes: tails in both dimensions, odd row lengths (the scalar paths), wrapping
	# taps, a skipped border, clamped taps
	local b progs=()
	for b in transpose_odd transpose_relu embedding_odd gather_scale stencil5_odd stencil9 blur_inner blur_clamp; do
		progs+=("$CHECKS/$b.cu")
	done
	run_cmd e "$EMU_CHECK" "$T/emu" "${progs[@]}"
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes' e.out)" 96 "candidates checked"
	# and it sees a missing barrier: the transposed tile read before it is written
	sed 's/^\t\t\t__syncthreads();$//' "$CHECKS/transpose_odd.cu" >nobarrier.cu
	run_cmd n "$EMU_CHECK" "$T/emu2" nobarrier.cu
	expect_eq "$(cat n.rc)" 1 "exit status without barriers"
	expect_file_contains n.out "correct=no"
}

test_lane_refill_candidates_are_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	check_programs collatz collatz_wide
	# collatz: each lane walks its elements, refilled when an element's loop ends;
	# at the committed size (each lane of the stand-in's small wave walks about a
	# hundred elements), at odd ones (the last lanes idle from the start, fewer
	# elements than lanes), and the benchmark's kernel (the return guard, 64-bit
	# values, starts up to 2^20) at sizes the CPU runs in seconds
	local c=$CHECKS/collatz.cu w=$CHECKS/collatz_wide.cu
	cp "$c" collatz.cu
	sed -e 's/^\tint n = (100000);/\tint n = (4097);/' "$c" >collatz_odd.cu
	sed -e 's/^\tint n = (100000);/\tint n = (3);/' "$c" >collatz_tiny.cu
	sed -e 's/^\tint n = (1 << 24);/\tint n = (4097);/' "$w" >wide_odd.cu
	sed -e 's/^\tint n = (1 << 24);/\tint n = (100003);/' "$w" >wide.cu
	grep -q 'int n = (4097);' collatz_odd.cu && grep -q 'int n = (3);' collatz_tiny.cu &&
		grep -q 'int n = (4097);' wide_odd.cu && grep -q 'int n = (100003);' wide.cu || fail "sizes not replaced"
	run_cmd e "$EMU_CHECK" "$T/emu" collatz.cu collatz_odd.cu collatz_tiny.cu wide_odd.cu wide.cu
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes refill tpb=' e.out)" 45 "refill candidates checked"
	expect_eq "$(grep -c 'correct=yes refill tpb=.* steps=4' e.out)" 10 "refill candidates of 4 steps checked"
	expect_eq "$(grep -c 'correct=yes refill tpb=.* steps=16' e.out)" 5 "refill candidates of 16 steps checked"
	# and it sees an element left unfinished: the store after the loop dropped
	sed 's/^\t\t\tsteps\[i\] = k;$//' "$c" >nostore.cu
	! cmp -s "$c" nostore.cu || fail "the store was not dropped"
	run_cmd n "$EMU_CHECK" "$T/emu2" nostore.cu
	expect_eq "$(cat n.rc)" 1 "exit status without the store"
	expect_file_contains n.out "correct=no refill"
}

# same_bundles SOURCE NAME=FILE...: the committed bundles FILE.json are what the
# analyzer makes of SOURCE today (each bundle NAME)
same_bundles() {
	local src=$1
	shift
	cp "$DATA/$src" .
	run_cmd a "$EGG" analyze "$src"
	[ "$(cat a.rc)" -eq 0 ] || fail "analyze $src: $(head -c 1000 a.err)"
	python3 - a.out "$DATA" "$@" <<'PY' || fail "the committed bundles differ from the analyzer's for $src"
import json, sys
names = dict(a.split("=") for a in sys.argv[3:])
got = json.load(open(sys.argv[1]))
assert len(got) == len(names), len(got)
for b in got:
    want = json.load(open("%s/%s.json" % (sys.argv[2], names[b["name"]])))
    assert b == want, b["name"]
PY
}

# lifted_and_correct_on_cpu SOURCE N NAME=BUNDLE...: SOURCE's bundles are the
# committed ones, each lifts (BUNDLE.json written here), and its check program
# runs on the stand-in: N candidates in all, all correct
lifted_and_correct_on_cpu() {
	local src=$1 want=$2 p
	shift 2
	same_bundles "$src" "$@"
	local bundles=("${@#*=}")
	check_programs "${bundles[@]}"
	for p in "${bundles[@]}"; do
		"$EGG" generate "$DATA/$p.json" >"$p.json" || fail "generate $p"
		grep -q '"lifted":	true' "$p.json" || fail "$p is not lifted: $(grep -m1 not_lifted "$p.json")"
		cp "$CHECKS/$p.cu" .
	done
	run_cmd e "$EMU_CHECK" "$T/emu" "${bundles[@]/%/.cu}"
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes' e.out)" "$want" "candidates checked"
}

# check_on_cpu N PROGRAM...: the check programs, at 100003 elements
# rather than the GPU's 2^24 (the CPU runs them in seconds), run on the stand-in:
# N candidates, all correct
check_on_cpu() {
	local want=$1 p
	shift
	for p in "$@"; do
		"$EGG" generate "$DATA/$p.json" >"$p.json" || fail "generate $p"
		expect_file_contains "$p.json" '"label":'
		"$EGG" generate --check-program "$DATA/$p.json" >"$p.full.cu" || fail "no check program for $p"
		sed -e 's/^\t\([a-z0-9_]*\) n = (1 << 24);/\t\1 n = (100003);/' "$p.full.cu" >"$p.cu"
		grep -q ' n = (100003);' "$p.cu" || fail "size not replaced in $p"
	done
	run_cmd e "$EMU_CHECK" "$T/emu" "${@/%/.cu}"
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes' e.out)" "$want" "candidates checked"
}

test_targets_in_namespaces_are_found_and_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	same_bundles namespaces.cu leaky_relu=ns_leaky halvings=ns_halvings scale=ns_scale square_k=ns_square \
		c_leaky=ns_c_leaky
	# each target found in its namespace: a lifted one calling nn::detail::act
	# from nn, the generic and refill paths copying a kernel of nn::detail into
	# it, a kernel of an anonymous namespace launched from an inline one, a
	# kernel target in ops::fused, and an extern "C" block
	check_on_cpu 52 ns_leaky ns_halvings ns_scale ns_square ns_c_leaky
	expect_file_contains ns_halvings.json 'namespace detail {'
	expect_file_contains ns_halvings.json 'refill tpb='
	expect_file_contains ns_leaky.json '::nn::detail::act('
}

test_template_kernels_are_instantiated_and_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	same_bundles templates.cu axpy=tmpl_axpy copy4=tmpl_copy countdown=tmpl_countdown
	# axpy_k<float> lifted; copy_k<float> (its UNROLL from the default) and
	# countdown_k<3> copied as templates by the generic path, launched with the
	# arguments as written
	check_on_cpu 16 tmpl_axpy tmpl_copy tmpl_countdown
	expect_file_contains tmpl_axpy.json 'stage 0 map kernel=axpy_k<float>'
	expect_file_contains tmpl_copy.json 'template <typename T, int UNROLL = 4>'
	expect_file_contains tmpl_copy.json '_copy_k<float><<<'
	expect_file_contains tmpl_countdown.json '_countdown_k<3><<<'
}

# The first blind batch's shapes (unseen.cu, eight targets): every target lifts
# (no generic path); the candidates run on the stand-in at the bundles' first
# workloads (odd sizes; argmin_last's integers repeat, so ties decide its index).
# Two tests, so that the stand-in's runs share the machine's cores: the pools,
# scans and arg-reductions here, cross entropy and instance norm below.
test_first_version_shapes_outside_the_suite_lift_and_are_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	check_programs unseen_argmax unseen_argmin unseen_avgpool unseen_cumprod unseen_maxpool unseen_revcumsum
	same_bundles unseen.cu avg_pool1d=unseen_avgpool max_pool2d=unseen_maxpool argmax_dim=unseen_argmax \
		cumprod=unseen_cumprod reverse_cumsum=unseen_revcumsum argmin_last=unseen_argmin \
		cross_entropy=unseen_xent instance_norm=unseen_instnorm
	local p
	for p in unseen_avgpool unseen_maxpool unseen_argmax unseen_cumprod unseen_revcumsum unseen_argmin; do
		"$EGG" generate "$DATA/$p.json" >"$p.json" || fail "generate $p"
		expect_file_contains "$p.json" '"lifted":	true'
		cp "$CHECKS/$p.cu" .
	done
	run_cmd e "$EMU_CHECK" "$T/emu" unseen_*.cu
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes' e.out)" 75 "candidates checked"
	expect_file_contains unseen_avgpool.json 'rows threads_per_row=1 tpb=256 vec=4'
	expect_file_contains unseen_maxpool.json 'store output[i] = st0_0'
	expect_file_contains unseen_argmin.json 'acc max egg_am1_0'
	expect_file_contains unseen_cumprod.json 'acc product p_0'
	expect_file_contains unseen_revcumsum.json '((cols - 1) - col)'
}

test_first_version_cross_entropy_and_instance_norm_lift_and_are_correct_with_and_without_memory_pools() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	check_programs unseen_instnorm unseen_xent
	local p
	for p in unseen_xent unseen_instnorm; do
		"$EGG" generate "$DATA/$p.json" >"$p.json" || fail "generate $p"
		expect_file_contains "$p.json" '"lifted":	true'
		cp "$CHECKS/$p.cu" .
	done
	run_cmd e "$EMU_CHECK" "$T/emu" unseen_xent.cu unseen_instnorm.cu
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes' e.out)" 36 "candidates checked"
	# instance_norm's statistics and apply kernels index x as ((long long)p) * hw and i: fused,
	# the plane is one row held in registers
	expect_eq "$(grep -c '^CHECK instance_norm .*correct=yes.*passes=registers' e.out)" 9 "instance norm register candidates"
	# the launchers' own scratch buffers: allocated from egg's memory pool (full
	# of 0xff bytes on the stand-in), or by cudaMalloc where there is none
	expect_file_contains unseen_xent.json 'cudaMallocFromPoolAsync((void **)&row_loss'
	run_cmd np env EGG_EMU_NO_POOLS=1 "$EMU_CHECK" "$T/emu_np" unseen_xent.cu unseen_instnorm.cu
	[ "$(cat np.rc)" -eq 0 ] || fail "without pools: $(grep -v 'correct=yes' np.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes' np.out)" 36 "candidates checked without memory pools"
	# and the harness's screen lets that code through (its own headers only)
	if [ -x "$REAL_NVCC" ]; then
		python3 -c "import json; open('xent0.cu', 'w').write(json.load(open('unseen_xent.json'))['candidates'][0]['source'])"
		share_prepared_objects # the harness's runtime, compiled once for the run
		run_cmd ev "$EGG" eval "$DATA/unseen_xent.json" --candidate xent0.cu --compile-only --arch sm_90 --nvcc "$REAL_NVCC"
		expect_file_contains ev.out '"verdict":	"compiled"'
	fi
}

test_nested_loop_convolutions_lift_as_contractions_and_are_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	check_programs conv_flat conv_ks_relu conv_taps3
	same_bundles conv.cu conv1d_taps3=conv_taps3 conv1d_ks_relu=conv_ks_relu conv1d_flat=conv_flat
	# channels and taps as one k of the gemm recipe: the input split into
	# (k / kin) * len + k % kin, a run-time kernel size, bias and ReLU after, and
	# one flat index split into time, output channel and batch
	local p
	for p in conv_taps3 conv_ks_relu conv_flat; do
		"$EGG" generate "$DATA/$p.json" >"$p.json" || fail "generate $p"
		expect_file_contains "$p.json" '"lifted":	true'
		cp "$CHECKS/$p.cu" .
	done
	run_cmd e "$EMU_CHECK" "$T/emu" conv_taps3.cu conv_ks_relu.cu conv_flat.cu
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes' e.out)" 27 "candidates checked"
	expect_file_contains conv_taps3.json 'k/kin=len k%kin=1'
	expect_file_contains conv_ks_relu.json 'egg_ksplit_make<0>(cin, 1, ks)'
}

test_maps_that_reread_an_earlier_launchs_input_also_run_from_the_end_and_are_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	check_programs reread
	same_bundles reread.cu normalize_by_norm=reread
	# the sum of squares (one launch: the memset is absorbed) then the division:
	# points that walk x from its end down, where the first launch read it last
	"$EGG" generate "$DATA/reread.json" >rr.json || fail "generate"
	expect_eq "$(grep -c '"label":.*order=reverse' rr.json)" 3 "reverse points"
	expect_file_contains rr.json 'const long long egg_w = egg_nv - 1 - (egg_w0 + egg_u * egg_stride);'
	expect_file_contains rr.json 'if (egg_w >= 0) {'
	# a map that reads nothing an earlier launch read gets none
	"$EGG" generate "$DATA/relu.json" >relu.json || fail "generate relu"
	expect_eq "$(grep -c 'order=reverse' relu.json)" 0 "reverse points of a lone map"
	# (n = 100003: the vector pass from the end and the scalar tail after it,
	# then misaligned by one element: the scalar pass)
	cp "$CHECKS/reread.cu" .
	run_cmd e "$EMU_CHECK" "$T/emu" reread.cu
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes' e.out)" 17 "candidates checked"
	expect_eq "$(grep -c 'correct=yes.*order=reverse' e.out)" 3 "reverse candidates checked"
}

test_a_reduction_and_its_map_in_one_cooperative_launch_are_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	check_programs reread
	"$EGG" generate "$DATA/reread.json" >rr.json || fail "generate"
	expect_eq "$(grep -c '"label":.*persist tpb=.*(cooperative: reduce, grid barrier, map)' rr.json)" 2 "persistent points"
	# a stand-in of one multiprocessor (a wave of 2 blocks) with 8 KB of shared
	# memory per block: n = 100003 gives each block 12500 accesses of 4, so that
	# each phase takes all three parts (registers, shared memory, read again from
	# the end) and the last block the 3 elements after them; the check program
	# calls each candidate aligned (the cooperative kernel) and misaligned by one
	# element (the fallback's two launches)
	{ echo '#define EGG_EMU_SM_COUNT 1'; echo '#define EGG_EMU_SHARED_OPTIN 8192'
	  cat "$CHECKS/reread.cu"; } >small.cu
	run_cmd e "$EMU_CHECK" "$T/emu" small.cu
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes.*persist tpb=' e.out)" 2 "persistent candidates checked"
	# a fold that takes only block 0's partial, and a map whose shared-memory part
	# was never kept: only the persistent candidates go wrong
	sed 's/egg_b < gridDim.x; egg_b += 32)/egg_b < 1; egg_b += 32)/' small.cu >nofold.cu
	sed 's/egg_hp0\[egg_w - egg_p\] = egg_l0\[egg_u\];/;/' small.cu >nokeep.cu
	expect_eq "$(grep -c 'egg_b < 1; egg_b += 32)' nofold.cu)" 2 "folds broken"
	expect_eq "$(grep -c 'egg_hp0\[egg_w - egg_p\] = ' nokeep.cu)" 0 "kept parts dropped"
	run_cmd n "$EMU_CHECK" "$T/emu2" nofold.cu nokeep.cu
	expect_eq "$(cat n.rc)" 1 "exit status with broken kernels"
	expect_eq "$(grep -c 'correct=no' n.out)" 4 "candidates found wrong with broken kernels"
	expect_eq "$(grep -c 'correct=no.*persist tpb=' n.out)" 4 "persistent candidates found wrong"
	# a device without cooperative launches: the broken kernel is never launched,
	# the two launches run instead
	{ echo '#define EGG_EMU_NO_COOPERATIVE'; cat nofold.cu; } >nocoop.cu
	run_cmd f "$EMU_CHECK" "$T/emu3" nocoop.cu
	[ "$(cat f.rc)" -eq 0 ] || fail "the fallback did not run: $(grep -v 'correct=yes' f.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes.*persist tpb=' f.out)" 2 "persistent candidates run as two launches"
}

test_a_maximum_and_a_dot_product_with_their_maps_in_one_cooperative_launch_are_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	check_programs absmax_scale dot_mix
	same_bundles reduce_map.cu absmax_scale=absmax_scale dot_mix=dot_mix
	# a maximum of ints after a memset it does not absorb (the fold takes the
	# buffer's value after it); a dot product with no memset (the sum adds to the
	# caller's accumulator), a held input, one only reduced and one only mapped;
	# n = 100003 on one multiprocessor with 8 KB of shared memory per block: every
	# part of both phases
	local p
	for p in absmax_scale dot_mix; do
		{ echo '#define EGG_EMU_SM_COUNT 1'; echo '#define EGG_EMU_SHARED_OPTIN 8192'
		  cat "$CHECKS/$p.cu"; } >$p.cu
	done
	expect_eq "$(grep -c 'const int egg_r = max(egg_init, egg_p_m);' absmax_scale.cu)" 2 "maxima folded with the buffer's value"
	expect_eq "$(grep -c 'egg_h1\[egg_u\] = __ldg(reinterpret_cast<const float4 \*>(&b\[' dot_mix.cu)" 2 "reduced-only loads"
	expect_eq "$(grep -c 'egg_h1\[egg_u\] = __ldg(reinterpret_cast<const float4 \*>(&c\[' dot_mix.cu)" 2 "mapped-only loads"
	run_cmd e "$EMU_CHECK" "$T/emu" absmax_scale.cu dot_mix.cu
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes.*persist tpb=' e.out)" 4 "persistent candidates checked"
	# the caller's accumulator left out of the sum: only the persistent candidates go wrong
	sed 's/const float egg_r = (egg_init + egg_p_acc);/const float egg_r = egg_p_acc;/' dot_mix.cu >noinit.cu
	expect_eq "$(grep -c 'const float egg_r = egg_p_acc;' noinit.cu)" 2 "inits dropped"
	run_cmd n "$EMU_CHECK" "$T/emu2" noinit.cu
	expect_eq "$(grep -c 'correct=no' n.out)" 2 "candidates found wrong without the init"
	expect_eq "$(grep -c 'correct=no.*persist tpb=' n.out)" 2 "persistent candidates found wrong"
}

test_device_helpers_with_loops_are_written_out_and_are_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	check_programs helper_bmv helper_l2rows
	same_bundles helpers.cu batched_matvec=helper_bmv row_l2norm=helper_l2rows
	# a dot product in a helper taking two row pointers (the third blind batch's
	# batched_matvec, refused before as "a call to 'dot_row'"), and a sum of
	# squares in a helper whose value is an operand: both row programs
	local p
	for p in helper_bmv helper_l2rows; do
		"$EGG" generate "$DATA/$p.json" >"$p.json" || fail "generate $p"
		expect_file_contains "$p.json" '"lifted":	true'
		cp "$CHECKS/$p.cu" .
	done
	expect_file_contains helper_bmv.json 'acc sum egg_h1_s_0 <- (A['
	expect_file_contains helper_l2rows.json 'let float inv_0 = rsqrtf((egg_h1_ret_0 + 1e-6f))'
	run_cmd e "$EMU_CHECK" "$T/emu" helper_bmv.cu helper_l2rows.cu
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c '^CHECK batched_matvec .*correct=yes' e.out)" 14 "batched matvec candidates checked"
	expect_eq "$(grep -c '^CHECK row_l2norm .*correct=yes' e.out)" 17 "row l2norm candidates checked"
}

test_constant_windows_unroll_inside_column_loops_and_are_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	check_programs win_conv3x3 win_maxpool3
	same_bundles windows.cu maxpool3=win_maxpool3 conv3x3=win_conv3x3
	# a 3x3 pooling window and a 3x3 filter inside the channel loop: the inner
	# constant loops unrolled (kh <= 1 from -1 too), the guard's bound through
	# the locals before it
	local p
	for p in win_maxpool3 win_conv3x3; do
		"$EGG" generate "$DATA/$p.json" >"$p.json" || fail "generate $p"
		expect_file_contains "$p.json" '"lifted":	true'
		cp "$CHECKS/$p.cu" .
	done
	run_cmd e "$EMU_CHECK" "$T/emu" win_maxpool3.cu win_conv3x3.cu
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes' e.out)" 35 "candidates checked"
	expect_file_contains win_maxpool3.json 'acc max m_0 <- v_0_u3'
	expect_file_contains win_conv3x3.json 'n=(((B * CO) * (H - 2)) * (W - 2))'
	# shapes the recipes seldom make faster: the generic path's candidates too
	expect_file_contains win_conv3x3.json '"label":	"generic restrict"'
}

test_guarded_planes_and_2d_indices_around_loops_lift_and_are_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	check_programs unseen_avgpool2d unseen_conv2dpad unseen_mindim1
	same_bundles unseen2d.cu min_reduce_dim1=unseen_mindim1 conv2d_padded=unseen_conv2dpad avg_pool2d=unseen_avgpool2d
	# a guard bounding blockIdx.y (.z) by the grid's extent; a padded 3x3
	# convolution over a 2-D thread index and a plane, its bounds checks as
	# selects; a pooling window of run-time size, its two loops collapsed
	local p
	for p in unseen_mindim1 unseen_conv2dpad unseen_avgpool2d; do
		"$EGG" generate "$DATA/$p.json" >"$p.json" || fail "generate $p"
		expect_file_contains "$p.json" '"lifted":	true'
		cp "$CHECKS/$p.cu" .
	done
	run_cmd e "$EMU_CHECK" "$T/emu" unseen_mindim1.cu unseen_conv2dpad.cu unseen_avgpool2d.cu
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes' e.out)" 48 "candidates checked"
	expect_file_contains unseen_conv2dpad.json 'stage 0 rows kernel=conv2d_padded_kernel n=(((N * Cout)) * (H * W))'
	expect_file_contains unseen_avgpool2d.json 'loop col < (k * k)'
}

# A stencil over a 2-D thread index that writes only the interior (x > 0 &&
# x < W - 1 && ..., or the border returning first through an index local) is a
# stencil over rows x cols whose guard stays a select: the edge threads write
# back what was there.  One whose output is the interior alone (a compact
# layout) is no map over rows x cols and is not lifted.
test_interior_only_stencils_over_2d_thread_indices_lift_and_are_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	check_programs interior_and interior_return
	same_bundles interior2d.cu smooth=interior_and laplace=interior_return valid_blur=interior_compact
	local p
	for p in interior_and interior_return; do
		"$EGG" generate "$DATA/$p.json" >"$p.json" || fail "generate $p"
		expect_file_contains "$p.json" '"lifted":	true'
		grep -q 'stage 0 stencil kernel=' "$p.json" || fail "$p is not a stencil: $(grep -m1 description "$p.json")"
		cp "$CHECKS/$p.cu" .
	done
	"$EGG" generate "$DATA/interior_compact.json" >compact.json || fail "generate interior_compact"
	expect_file_contains compact.json '"lifted":	false'
	expect_file_contains compact.json 'whose stores are not each at the element y * cols + x'
	run_cmd e "$EMU_CHECK" "$T/emu" interior_and.cu interior_return.cu
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes' e.out)" 26 "candidates checked"
}

# A launcher whose CUDA calls all go through the user's error-checking macro
# (CHECK(cudaMalloc(...)), CHECK(cudaGetLastError()), CHECK(cudaFree(t))) lifts
# as the calls it checks: a chain through a temp, correct on the stand-in.
test_calls_inside_the_users_error_checking_macro_lift_as_the_calls_they_check() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	lifted_and_correct_on_cpu checked_calls.cu 11 square_plus_one=checked_calls
	grep -q 'stage 1 map kernel=add_one_k' checked_calls.json || fail "the chain is not lifted: $(grep -m1 description checked_calls.json)"
}

test_cache_hinted_loads_and_template_helpers_lift_and_are_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	same_bundles idioms.cu exp_half=idiom_ldg swish=idiom_tcall
	# __ldg(&x[i]) and __ldcs(z + i) read like x[i]; act::sigmoid(x[i]) is a
	# template whose arguments the call deduces: both lift as maps
	check_on_cpu 22 idiom_ldg idiom_tcall
	expect_file_contains idiom_ldg.json 'let float st0_0 = ((__expf(x[i]) * 0.5f) + z[i])'
	expect_file_contains idiom_tcall.json 'let float st0_0 = (x[i] * ::act::sigmoid(x[i]))'
}

test_optional_pointers_and_outputs_lift_and_their_candidates_are_correct_with_and_without_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	check_programs opt_matmul opt_bias_gelu opt_residual opt_norm_stats
	same_bundles optional.cu matmul_forward1=opt_matmul bias_gelu_forward=opt_bias_gelu \
		residual_forward=opt_residual norm_stats=opt_norm_stats
	# a matmul that starts from the bias when there is one (a contraction whose
	# initial value is a select), a GELU after "if (bias) x += bias[i % C]", a
	# residual "inp2 != nullptr ? inp2[i] : 0" (never read as a vector: a NULL
	# stream would be dereferenced); each check program runs every candidate
	# with the pointer and without it; a norm whose statistics are optional
	# outputs ("if (mean != NULL) mean[r] = mu;"), each candidate run with them
	# and without them (a store to NULL would fault)
	local p
	for p in opt_matmul opt_bias_gelu opt_residual opt_norm_stats; do
		"$EGG" generate "$DATA/$p.json" >"$p.json" || fail "generate $p"
	done
	expect_eq "$(grep -l '"lifted":	true' opt_*.json | wc -l)" 4 "bundles lifted"
	cp "$CHECKS"/opt_*.cu .
	expect_file_contains opt_matmul.json 'acc float val_0 = ((bias != nullptr) ? bias[row] : 0.0f)'
	run_cmd e "$EMU_CHECK" "$T/emu" opt_matmul.cu opt_bias_gelu.cu opt_residual.cu opt_norm_stats.cu
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes' e.out)" 108 "candidates checked"
	expect_eq "$(grep -c 'correct=yes.*(mean = NULL, rstd = NULL)$' e.out)" 17 "candidates checked without the statistics"
	expect_eq "$(grep -c 'correct=yes.*(bias = NULL)$' e.out)" 26 "candidates checked without the bias"
	expect_eq "$(grep -c 'correct=yes.*(inp2 = NULL)$' e.out)" 11 "candidates checked without the residual"
}

# A bf16 residual written with the conversion intrinsics (__bfloat162float on
# each input, __float2bfloat16 on the sum) lifts as a map whose calls are kept
# as spelled; every candidate matches the reference on the stand-in's bf16.
test_conversion_intrinsics_lift_and_are_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	lifted_and_correct_on_cpu conversions.cu 11 residual_forward=conv_residual
	expect_file_contains conv_residual.json '__float2bfloat16((__bfloat162float(inp1[i]) + __bfloat162float(inp2[i])))'
}

# Stencils written the ways the blind indexing batch writes them: clamped edges
# as selects and one-sided min/max, a grid-stride loop whose grid the launcher
# sizes from cudaDeviceGetAttribute through cudaCheck; a border kept by an early
# return before the interior's update (3-D, blockIdx.z the plane: a map); a 3x3
# window of two small loops with its border set by an early return; a border
# copied by cudaMemcpy before an interior-only kernel (folded: one stencil pass).
# Each lifts and every candidate matches the reference on the stand-in.
test_stencils_in_the_blind_batchs_indexing_lift_and_are_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	lifted_and_correct_on_cpu indexing.cu 54 smooth5_gridstride=idx_smooth5_gridstride \
		diffuse7_3d=idx_diffuse7_3d window3_flat=idx_window3_flat relax5_dirichlet=idx_relax5_dirichlet
	expect_file_contains idx_relax5_dirichlet.json 'stage 0 stencil kernel=relax5'
	expect_file_contains idx_relax5_dirichlet.json ' : a[((int)((row * w) + col))])'
	expect_file_contains idx_smooth5_gridstride.json 'stage 0 stencil kernel=smooth5_clamped'
	expect_file_contains idx_window3_flat.json 'stage 0 stencil kernel=window3'
}

# A causal softmax, one thread per row, its loops to the row's position (j <= t)
# and its scale 1.0f / sqrtf(dim) computed by the launcher: a row program, every
# candidate correct on the stand-in.
test_causal_rows_with_a_launcher_scale_lift_and_are_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	lifted_and_correct_on_cpu causal.cu 7 causal_softmax=causal_softmax
	expect_file_contains causal_softmax.json 'loop col < (pos_0 + 1)'
}

# blind_check BATCH CASE SED...: the blind case's check program (bench/blind/BATCH/CASE.cu,
# analyzed here) in $CASE.cu, its sizes replaced by the sed expressions (the
# case's small second workload); each expression must have matched
blind_check() {
	local batch=$1 c=$2 e
	shift 2
	(cd "$EGG_SRCDIR/bench/blind/$batch" && "$EGG" analyze "$c.cu") >"$c.all.json" || fail "analyze $c"
	python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1]))[0], open(sys.argv[2], "w"))' \
		"$c.all.json" "$c.json" || fail "no bundle for $c"
	"$EGG" generate --check-program "$c.json" >"$c.full.cu" || fail "no check program for $c"
	local args=()
	for e in "$@"; do args+=(-e "$e"); done
	sed "${args[@]}" "$c.full.cu" >"$c.cu"
	for e in "$@"; do
		e=${e#s/^\\t}
		e=${e#*/\\t}
		grep -qF "$(printf '\t%s' "${e%/}")" "$c.cu" || fail "$c: size not replaced: $e"
	done
}

# The blind batch's chains (#27): a residual and a block-per-row RMS norm, a
# scale, a mask and a block-per-row softmax through two temps; every candidate
# one pass over the rows (no element-wise stage before the row program) and correct.
test_blind_chains_through_shared_memory_run_in_one_pass_and_are_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	blind_check indexing chain_rmsnorm_residual 's/^\tint rows = (8192);/\tint rows = (7);/' \
		's/^\tint hidden = (4096);/\tint hidden = (333);/'
	blind_check indexing chain_scale_mask_softmax 's/^\tint BH = (48);/\tint BH = (3);/' \
		's/^\tint T = (1024);/\tint T = (37);/'
	run_cmd e "$EMU_CHECK" "$T/emu" chain_rmsnorm_residual.cu chain_scale_mask_softmax.cu
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c '^CHECK rmsnorm_residual .*correct=yes rows ' e.out)" 14 "one-pass rms norm candidates checked"
	expect_eq "$(grep -c '^CHECK scale_mask_softmax .*correct=yes rows ' e.out)" 16 "one-pass softmax candidates checked"
	expect_eq "$(grep -c 'elementwise' e.out)" 0 "candidates with an element-wise pass"
}

# Four launches in four indexings (a thread per row, a flat map, a block per
# row through shared memory, a 2-D map) as one row program; and a block-per-row
# softmax whose warps reduce by shuffles.
test_blind_block_reductions_by_trees_and_warps_lift_and_are_correct_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	blind_check indexing chain_standardize4 's/^\tint rows = (16384);/\tint rows = (9);/' \
		's/^\tint cols = (4096);/\tint cols = (1000);/'
	blind_check llmc softmax_vocab 's/^\tint N = (2048);/\tint N = (6);/' 's/^\tint C = (50257);/\tint C = (4099);/'
	run_cmd e "$EMU_CHECK" "$T/emu" chain_standardize4.cu softmax_vocab.cu
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c '^CHECK standardize_rows .*correct=yes rows ' e.out)" 17 "one-pass standardize candidates checked"
	expect_eq "$(grep -c '^CHECK softmax_forward .*correct=yes' e.out)" 17 "warp softmax candidates checked"
}
