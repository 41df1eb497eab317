# builtin_narrow.bash -- the builtin generator's code for bf16 and half buffers
# (issue 26): packs of eight elements that move as one 16-byte access
# (templates/narrow.cu), fp32 arithmetic element by element, a scalar tail and a
# scalar path for misaligned pointers.  Each family's bf16 test bundle (the
# bench/bf16 cases, tests/data/builtin/bf16_*.json) and a half map run on the CPU
# stand-in (builtin/tests/emu, with its cuda_bf16.h and cuda_fp16.h) at sizes that
# take the vector path, the tail and, through the check program's second call one
# element off alignment, the scalar path; and nvcc's PTX for sm_90 shows the
# candidates' 128-bit global loads and stores (LDG.E.128 / STG.E.128 in SASS), and
# the hardware's tanh only in the points made for maps with narrow outputs.

DATA=$EGG_SRCDIR/tests/data/builtin
export EGG_BUILTIN_TEMPLATES=$EGG_SRCDIR/builtin/templates
EMU_CHECK=$EGG_SRCDIR/builtin/tests/emu-check.sh
# the stand-in's compiled programs, shared by the run's jobs (tests/run)
export EGG_EMU_CACHE=${EGG_TEST_RUN_DIR:+$EGG_TEST_RUN_DIR/emu}

# sized BUNDLE OUT SED...: the check program of BUNDLE with its sizes replaced
# (each SED is one 's/^\tint NAME = (OLD);/\tint NAME = (NEW);/'), OUT.cu; fails
# when one changes nothing
sized() {
	local b=$1 out=$2 e
	shift 2
	"$EGG" generate --check-program "$DATA/$b.json" >"$b.cu" || fail "no check program for $b"
	cp "$b.cu" "$out.cu"
	for e in "$@"; do
		cp "$out.cu" prev.cu
		sed -i "$e" "$out.cu"
		! cmp -s prev.cu "$out.cu" || fail "$out: not replaced: $e"
	done
}

# on_stand_in EXPECTED PROGRAM...: every candidate of the programs correct, and
# EXPECTED of them checked
on_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	local want=$1
	shift
	run_cmd e "$EMU_CHECK" "$T/emu" "${@/%/.cu}"
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	expect_eq "$(grep -c 'correct=yes' e.out)" "$want" "candidates checked"
}

test_bf16_and_half_maps_are_correct_on_a_cpu_stand_in() {
	# 4099 = 8 * 512 + 3: whole packs, then a tail of three
	sized bf16_gelu gelu 's/^\tint n = (1 << 26);/\tint n = (4099);/'
	sized half_axpy axpy 's/^\tint n = (1 << 24);/\tint n = (1003);/'
	on_stand_in 25 gelu axpy
}

test_a_bf16_map_of_two_inputs_and_a_bf16_row_sum_are_correct_on_a_cpu_stand_in() {
	sized bf16_residual resid 's/^\tint n = (1 << 26);/\tint n = (2053);/'
	sized bf16_row_sum rs 's/^\tint rows = (16384);/\tint rows = (7);/' 's/^\tint cols = (4096);/\tint cols = (1024);/'
	on_stand_in 28 resid rs
}

test_bf16_softmax_rows_in_registers_and_from_memory_are_correct_on_a_cpu_stand_in() {
	# rows of 256 fit the registers (packs of 8); rows of 1001 take the passes from memory
	sized bf16_softmax sm_fit 's/^\tint batch = (32768);/\tint batch = (37);/' 's/^\tint classes = (2048);/\tint classes = (256);/'
	sized bf16_softmax sm_odd 's/^\tint batch = (32768);/\tint batch = (9);/' 's/^\tint classes = (2048);/\tint classes = (1001);/'
	on_stand_in 38 sm_fit sm_odd
}

test_bf16_layer_norm_rows_in_registers_and_from_memory_are_correct_on_a_cpu_stand_in() {
	sized bf16_layernorm ln_fit 's/^\tint rows = (32768);/\tint rows = (33);/'
	sized bf16_layernorm ln_odd 's/^\tint rows = (32768);/\tint rows = (5);/' 's/^\tint cols = (768);/\tint cols = (1001);/'
	on_stand_in 34 ln_fit ln_odd
}

test_a_bf16_full_reduction_and_a_bf16_transpose_are_correct_on_a_cpu_stand_in() {
	sized bf16_sum_squares ss 's/^\tint n = (1 << 27);/\tint n = (123457);/'
	sized bf16_transpose tr 's/^\tint rows = (8192);/\tint rows = (37);/' 's/^\tint cols = (8192);/\tint cols = (77);/'
	on_stand_in 13 ss tr
}

test_a_bf16_gather_is_correct_on_a_cpu_stand_in() {
	# rows of 1032 = 129 packs (aligned for every id); the odd workload's 257 is the scalar path
	sized bf16_embedding emb 's/^\tint num_tokens = (65536);/\tint num_tokens = (9);/' \
		's/^\tint vocab = (32000);/\tint vocab = (11);/' 's/^\tint dim = (1024);/\tint dim = (1032);/'
	on_stand_in 19 emb
}

test_a_wrong_lane_of_a_bf16_pack_is_found_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	# every vector candidate reads lane 6 where it should read lane 7: each one of
	# them (three with the approximate tanh) must be found wrong (the packs are what
	# ran), the vec=1 point (bf16 pairs) not
	sized bf16_gelu gelu 's/^\tint n = (1 << 26);/\tint n = (4099);/'
	sed 's/egg_l0\[egg_u\]\.e\[7\]/egg_l0[egg_u].e[6]/' gelu.cu >lane.cu
	expect_eq "$(grep -c 'egg_l0\[egg_u\]\.e\[7\]' lane.cu)" 0 "lane 7 reads left"
	run_cmd e "$EMU_CHECK" "$T/emu" lane.cu
	expect_eq "$(cat e.rc)" 1 "exit status with a wrong lane"
	expect_eq "$(grep -c 'correct=no.* vec=4' e.out)" 13 "vector candidates found wrong"
	expect_eq "$(grep -c 'correct=yes.* vec=1' e.out)" 1 "pair candidates still right"
}

# v4_kernels PTX: per kernel, "NAME LOADS STORES" of 128-bit global accesses
v4_kernels() {
	awk '/^\.visible \.entry|^\.entry/ { k = $3; sub(/\(.*/, "", k); seen[k] = 1 }
	     /ld\.global(\.nc)?(\.L2::cache_hint)?\.v4/ { l[k]++ } /st\.global(\.cs)?\.v4/ { s[k]++ }
	     END { for (x in seen) print x, l[x] + 0, s[x] + 0 }' "$1" | sort
}

test_bf16_and_half_candidates_load_and_store_sixteen_bytes_at_a_time() {
	command -v "$REAL_NVCC" >/dev/null 2>&1 || [ -x "$REAL_NVCC" ] || skip "no nvcc"
	local b
	for b in bf16_gelu half_axpy bf16_softmax; do
		"$EGG" generate --check-program "$DATA/$b.json" >"$b.cu" || fail "no check program for $b"
		run_cmd p "$REAL_NVCC" -arch=sm_90 -ptx -o "$b.ptx" "$b.cu" || fail "$b: nvcc -ptx: $(head -c 1000 p.err)"
		v4_kernels "$b.ptx" >"$b.v4"
	done
	# the references: 2-byte accesses only
	expect_eq "$(cat bf16_gelu.v4 half_axpy.v4 bf16_softmax.v4 | awk '!/egg_/ && $2 + $3 > 0' | wc -l)" 0 \
		"reference kernels with 16-byte accesses"
	# the maps: each point of vec=4 loads and stores 16 bytes (the vec=1 one, pairs): the
	# GELU's ten and its three with the hardware's tanh, the half map's ten
	expect_eq "$(awk '/egg_/ && $2 > 0 && $3 > 0' bf16_gelu.v4 | wc -l)" 13 "bf16 map candidates with 16-byte loads and stores"
	# the hardware's tanh in those three only (a map that stores bf16), never in the half
	# map (no tanhf) or the references
	awk '/^\.visible \.entry|^\.entry/ { k = $3 } /tanh\.approx\.f32/ { t[k] = 1 } END { n = 0; for (x in t) n++; print n }' \
		bf16_gelu.ptx >approx.txt
	expect_eq "$(cat approx.txt)" 3 "bf16 GELU kernels with tanh.approx"
	expect_eq "$(grep -c 'tanh\.approx' half_axpy.ptx bf16_softmax.ptx | awk -F: '{ n += $2 } END { print n }')" 0 "tanh.approx elsewhere"
	expect_eq "$(awk '/egg_/ && $2 > 0 && $3 > 0' half_axpy.v4 | wc -l)" 10 "half map candidates with 16-byte loads and stores"
	# the softmax's row kernels: all but the bf16 pairs' point (vec=1 unroll=4)
	expect_eq "$(awk '/egg_/ && $2 > 0 && $3 > 0' bf16_softmax.v4 | wc -l)" \
		"$(($(grep -c 'egg_' bf16_softmax.v4) - 1))" "bf16 row candidates with 16-byte loads and stores"
}

test_a_bf16_candidate_passes_the_evaluation_harness_on_a_cpu_stand_in() {
	command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || skip "no g++ or python3"
	# what egg-cc's search does with it: the host-code screen, bf16 fills by their
	# bits, the probe calls at offset bases (the scalar path), the comparison
	local shared=${EGG_TEST_RUN_DIR:-$T}
	export EGG_NVCC=$EGG_SRCDIR/tests/tools/emu-nvcc EGG_EMU_CACHE=$shared/emu-nvcc EGG_LOCK_DIR=$T
	python3 - "$DATA/bf16_gelu.json" small.json <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
b["workloads"] = b["workloads"][-1:]  # n = 100003: packs and a tail of 3
b["pragma"] = b["pragma"].split(" workload(")[0] + " workload(" + ", ".join(
    "%s = %s" % (x["name"], x["value"]) for x in b["workloads"][0]) + ")"
json.dump(b, open(sys.argv[2], "w"), indent=1)
PY
	"$EGG" generate small.json >gen.json || fail "generate"
	python3 -c 'import json; open("c0.cu", "w").write(json.load(open("gen.json"))["candidates"][0]["source"])'
	grep -q 'egg_pack<__nv_bfloat16, 8>' c0.cu || fail "candidate 0 has no packs of eight"
	run_cmd r "$EGG" eval small.json --seed 7 --trials 2 --min-speedup 1e-9 --timeout 120 --workdir w --candidate c0.cu
	expect_eq "$(cat r.rc)" 0 "exit status ($(head -c 600 r.err))"
	python3 -c 'import json, sys; r = json.load(open("r.out")); c = r["candidates"][0]
print(r["status"], c["verdict"], c["message"])' >v.txt
	expect_eq "$(cat v.txt)" "ok pass None" "status and verdict"
}
