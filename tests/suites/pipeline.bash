# pipeline: egg-cc optimizes annotated code end to end -- analyze, key, cache,
# search (through a recorded evaluation: CI has no GPU), rewrite, compile -- and
# falls back to the reference with one warning whenever a step of egg's fails.
# The GPU half of this (real searches on an H200) is in examples/seed/ and
# bench/results/.

suite_probe() {
	[ -x "$REAL_NVCC" ] || { echo "no nvcc"; return 1; }
}
# the compiles several tests repeat, done once per run (lib.bash)
suite_setup() { share_nvcc_compiles; }

RECORDED=$EGG_SRCDIR/tests/data/pipeline/recorded-eval

setup_example() {
	export PATH=$NVCC_DIR:$PATH EGG_BUILTIN_TEMPLATES=$EGG_SRCDIR/builtin/templates
	cp "$EGG_SRCDIR"/examples/{kernels.cu,kernels.h,main.cu} .
}

# The seed holds H200 results (examples/seed/reseed.sh).  The generator is not
# in the cache key, so a newer builtin keeps finding them; a seed whose keys no
# longer match (a new key format) fails these tests until it is searched again.

# (nm's output goes to a file: under pipefail, grep -q closing the pipe early
# would make nm's SIGPIPE fail the test.)
winners_in() { nm -C "$1" >"$1.nm"; grep -c ' T egg_winner__' "$1.nm"; }
has_symbol() { nm -C "$1" >"$1.nm"; grep -q -- "$2" "$1.nm"; }
# the H200 winners of the example (examples/seed/reseed.sh), gzipped
SEED=$EGG_SRCDIR/examples/seed/example-seed.egg.gz

test_cache_mode_links_the_h200_winners_committed_as_the_example_seed() {
	setup_example
	gzip -dc "$SEED" >seed.egg && "$EGG" cache import seed.egg >/dev/null || fail "import failed"
	EGG_MODE=cache run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o kernels.o || fail "$(cat r.err)"
	[ ! -s r.err ] || fail "a cache hit printed: $(cat r.err)"
	# Every kernel whose seed entry is a winner (all three in the 2026-12-01
	# seed) is linked; an entry where nothing beat the reference links none.
	local name outcome want=0
	while read -r name outcome; do
		if [ "$outcome" = winner ]; then
			want=$((want + 1))
			has_symbol kernels.o "egg_winner__$name" || fail "the winner of $name is not linked"
		else
			! has_symbol kernels.o "egg_winner__$name" || fail "a negative entry ($name) linked a winner"
		fi
	done < <(python3 -c 'import json, sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e.get("schema") == "egg-cache-entry":
        print(e["name"], e["outcome"])' seed.egg)
	[ "$want" -gt 0 ] || fail "the seed has no winner"
	expect_eq "$(winners_in kernels.o)" "$want" "winners linked"
	has_symbol kernels.o ' T softmax_forward(' || fail "the dispatcher keeps the user's name"
	has_symbol kernels.o ' T egg_reference__softmax_forward(' || fail "the reference stays in the object"
}

test_search_with_a_recorded_evaluation_caches_and_links_the_winner() {
	setup_example
	EGG_EVAL_COMMAND=$RECORDED run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o kernels.o || fail "$(cat r.err)"
	expect_file_contains r.err "egg: softmax_forward: stage 1/structure: lifted (rows)"
	expect_file_contains r.err "egg: softmax_forward: 2.5x over reference (builtin, verified on Recorded GPU), cached"
	expect_eq "$(winners_in kernels.o)" 3 "winners linked"
	expect_eq "$("$EGG" cache ls | grep -c winner)" 3 "winners cached"
}

test_second_build_is_a_silent_cache_hit_that_evaluates_nothing() {
	setup_example
	EGG_EVAL_COMMAND=$RECORDED RECORDED_LOG=$T/evals "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o k1.o 2>/dev/null
	expect_file_lines evals 3
	EGG_EVAL_COMMAND=$RECORDED RECORDED_LOG=$T/evals run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o k2.o
	expect_file_lines evals 3
	[ ! -s r.err ] || fail "a cache hit printed: $(cat r.err)"
	expect_eq "$(winners_in k2.o)" 3 "winners linked from the cache"
}

test_nothing_beat_the_reference_is_remembered() {
	setup_example
	RECORDED_VERDICT=slower EGG_EVAL_COMMAND=$RECORDED RECORDED_LOG=$T/evals \
		run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o k1.o || fail "$(cat r.err)"
	expect_file_contains r.err "egg: row_sum: nothing beat the reference (remembered in the cache)"
	expect_eq "$(winners_in k1.o)" 0 "winners linked"
	RECORDED_VERDICT=slower EGG_EVAL_COMMAND=$RECORDED RECORDED_LOG=$T/evals \
		"$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o k2.o 2>/dev/null
	expect_file_lines evals 3
}

test_depfile_names_the_users_source_not_egg_s_temporary_copy() {
	setup_example
	EGG_EVAL_COMMAND=$RECORDED "$EGG_CC" -O3 -arch=sm_90 -MD -c kernels.cu -o kernels.o 2>/dev/null ||
		fail "compile failed"
	expect_eq "$(winners_in kernels.o)" 3 "winners linked"
	head -1 kernels.d | grep -q '^kernels.o : kernels.cu' || fail "depfile: $(head -2 kernels.d)"
	expect_file_contains kernels.d "kernels.h"
	expect_file_lacks kernels.d "egg-cc."
}

# nvcc behind ccache with a base directory (a common CI setup) writes the paths
# under it relative to the working directory, the rewritten copy's too: the
# depfile still names the user's source.
test_depfile_names_the_users_source_when_nvcc_runs_behind_ccache_with_a_base_directory() {
	command -v ccache >/dev/null 2>&1 || skip "no ccache"
	setup_example
	mkdir launcher
	printf '#!/bin/sh\nCCACHE_DIR=%s CCACHE_BASEDIR=%s exec ccache %s "$@"\n' \
		"$T/ccache" "$T" "$(readlink -f "$REAL_NVCC")" >launcher/nvcc
	chmod +x launcher/nvcc
	EGG_CUDA_HOME=$(dirname "$(dirname "$(readlink -f "$REAL_NVCC")")") PATH=$T/launcher:$PATH \
		EGG_EVAL_COMMAND=$RECORDED run_cmd r "$EGG_CC" -O3 -arch=sm_90 -MD -c kernels.cu -o kernels.o ||
		fail "compile failed: $(cat r.err)"
	expect_eq "$(winners_in kernels.o)" 3 "winners linked"
	head -1 kernels.d | grep -q '^kernels.o : kernels.cu' || fail "depfile: $(head -2 kernels.d)"
	expect_file_contains kernels.d "kernels.h"
	expect_file_lacks kernels.d "rewritten"
}

test_rewritten_source_keeps_file_and_line_for_the_users_code() {
	setup_example
	# An error in the user's own code, below the annotated functions: nvcc's
	# message must name the user's file and line, and egg must not add a warning.
	printf '\nstatic_assert(sizeof(int) == 3, "users own error");\n' >>kernels.cu
	line=$(grep -n 'users own error' kernels.cu | cut -d: -f1)
	EGG_EVAL_COMMAND=$RECORDED run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o kernels.o
	[ "$(cat r.rc)" -ne 0 ] || fail "the broken source compiled"
	expect_file_contains r.err "kernels.cu($line)"
	expect_file_lacks r.err "egg-cc: warning"
}

test_planner_failure_compiles_the_reference_with_one_warning() {
	setup_example
	EGG_PLANNER=/bin/false run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o kernels.o || fail "$(cat r.err)"
	expect_file_lines r.err 1
	expect_file_contains r.err "egg-cc: warning: egg: the planner failed"
	expect_eq "$(winners_in kernels.o)" 0 "winners linked"
}

# A planner that answers something that is not a whole plan (driver/plan_protocol.h):
# each answer gives one warning naming what is wrong, the reference compiled, no
# winner linked, and the build succeeds.
test_a_planner_answer_that_is_not_a_whole_plan_compiles_the_reference_with_one_warning() {
	setup_example
	local n=0 answer why
	while IFS='|' read -r answer why; do
		n=$((n + 1))
		printf '#!/bin/sh\nprintf "%s"\n' "$answer" >planner$n && chmod +x planner$n
		EGG_PLANNER=$T/planner$n run_cmd p$n "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o k$n.o ||
			fail "answer $n ($answer) broke the build: $(cat p$n.err)"
		expect_file_lines p$n.err 1
		expect_file_contains p$n.err "$why"
		expect_eq "$(winners_in k$n.o)" 0 "winners linked after answer $n"
	done <<'ANSWERS'
garbage\\nend\\n|does not start with 'egg-plan 1'
egg-plan 1\\nrewrite\\t0\\tx.cu\\n|is incomplete
egg-plan 1\\nrewrote\\t0\\tx.cu\\nend\\n|has an unknown line 'rewrote
egg-plan 1\\nrewrite\\t7\\tx.cu\\nend\\n|names input '7', which does not exist
egg-plan 1\\nexport\\t0\\tf\\nend\\n|names a symbol of input '0', which it does not rewrite
ANSWERS
	expect_eq "$n" 5 "answers tried"
}

test_bad_annotation_warns_in_compiler_format_and_builds_the_reference() {
	setup_example
	sed -i 's/in(x\[rows \* cols\]) out(y\[rows \* cols\])/in(xs[rows * cols]) out(y[rows * cols])/' kernels.cu
	EGG_EVAL_COMMAND=$RECORDED run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o kernels.o || fail "$(cat r.err)"
	grep -q "^kernels.cu:[0-9]*:[0-9]*: warning: egg: .*'xs'" r.err || fail "no diagnostic: $(cat r.err)"
	! has_symbol kernels.o 'egg_winner__softmax_forward' || fail "the bad annotation was optimized"
	has_symbol kernels.o 'egg_winner__bias_gelu' || fail "the good annotations were not optimized"
}

test_strict_mode_fails_the_build_on_a_bad_annotation() {
	setup_example
	sed -i 's/in(x\[rows \* cols\]) out(y\[rows \* cols\])/in(xs[rows * cols]) out(y[rows * cols])/' kernels.cu
	EGG_STRICT=1 EGG_EVAL_COMMAND=$RECORDED run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o kernels.o
	[ "$(cat r.rc)" -ne 0 ] || fail "strict mode built anyway"
	expect_file_contains r.err "egg-cc: error: egg:"
	expect_file_contains r.err "kernels.cu:26:25: error: egg: unknown parameter 'xs' in in(...)"
	expect_file_lacks r.err ": warning: egg:"
	[ ! -e kernels.o ] || fail "an object was written"
}

# egg rewrites the file it compiles, not the headers it includes: an annotated
# launcher in a header (found through -I and a nested include) is one warning at
# the pragma, naming the header, and the object is nvcc's; strict mode fails.
test_an_annotation_in_an_included_header_is_one_warning_naming_the_header() {
	export PATH=$NVCC_DIR:$PATH
	mkdir -p inc/deep
	printf '#pragma once\n#include <deep/k.cuh>\n' >inc/near.cuh
	cat >inc/deep/k.cuh <<'CU'
#pragma once
__global__ void scale_k(const float *x, float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2.0f * x[i]; }
#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1 << 20)
static void scale(const float *x, float *y, int n) { scale_k<<<(n + 255) / 256, 256>>>(x, y, n); }
CU
	printf '#include <cuda_runtime.h>\n#include <near.cuh>\nvoid run(const float *x, float *y, int n) { scale(x, y, n); }\n' >a.cu
	EGG_EVAL_COMMAND=$RECORDED run_cmd r "$EGG_CC" -arch=sm_90 -Iinc -c a.cu -o a.o || fail "$(cat r.err)"
	expect_eq "$(grep -c ': warning: egg:' r.err)" 1 "warnings"
	grep -q "^inc/deep/k.cuh:3:1: warning: egg: an annotation in a header ('inc/deep/k.cuh', included by a.cu) is not used" r.err ||
		fail "the warning does not name the header at the pragma: $(cat r.err)"
	"$REAL_NVCC" -arch=sm_90 -Iinc -c a.cu -o n.o || fail "nvcc failed"
	nm a.o | awk '{print $NF}' | sort >a.syms
	nm n.o | awk '{print $NF}' | sort >n.syms
	expect_same_file a.syms n.syms
	EGG_STRICT=1 run_cmd s "$EGG_CC" -arch=sm_90 -Iinc -c a.cu -o s.o
	[ "$(cat s.rc)" -ne 0 ] || fail "strict mode built anyway"
	expect_file_contains s.err "inc/deep/k.cuh:3:1: error: egg: an annotation in a header"
}

test_unusable_cache_directory_compiles_the_reference_with_one_warning() {
	setup_example
	: >notadir
	EGG_CACHE_DIR=$T/notadir/cache EGG_EVAL_COMMAND=$RECORDED \
		run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o kernels.o || fail "$(cat r.err)"
	expect_file_lines r.err 1
	expect_file_contains r.err "egg-cc: warning: egg:"
	expect_eq "$(winners_in kernels.o)" 0 "winners linked"
}

test_evaluator_answering_garbage_compiles_the_reference() {
	setup_example
	printf '#!/bin/sh\ncat >/dev/null; echo "this is not json"\n' >garbage
	chmod +x garbage
	EGG_EVAL_COMMAND=$T/garbage run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o kernels.o || fail "$(cat r.err)"
	expect_file_contains r.err "no verdict"
	expect_eq "$(winners_in kernels.o)" 0 "winners linked"
	expect_eq "$("$EGG" cache ls | grep -c .)" 0 "entries stored without a verdict"
}

test_cache_key_of_a_source_is_the_key_egg_cc_used_on_the_h200() {
	setup_example
	run_cmd r "$EGG" cache key -- -O3 -arch=sm_90 kernels.cu || fail "$(cat r.err)"
	expect_eq "$(wc -l <r.out)" 3 "keys printed"
	local want
	want=$(gzip -dc "$SEED" | grep -o '"key":"[0-9a-f]*","name":"softmax_forward"' |
		cut -d'"' -f4)
	[ -n "$want" ] || fail "the seed has no softmax_forward entry"
	expect_eq "$(awk '$2 == "softmax_forward" {print $1}' r.out)" "$want" "softmax_forward's key"
	run_cmd e "$EGG" cache key --explain -- -O3 -arch=sm_90 kernels.cu || fail "$(cat e.err)"
	expect_file_contains e.out "arch: sm_90"
	expect_file_contains e.out "target: compute_90 sm_90"
	expect_file_lacks e.out "generator"
}

# CMake writes the architecture as --generate-code=arch=compute_90,code=[...]
# and its own optimization level; a Makefile -O3 -arch=sm_90: one entry serves
# both, and a different target set does not.
test_cmake_and_make_spellings_of_one_target_share_the_cache_key() {
	setup_example
	local k1 k2 k3
	k1=$("$EGG" cache key -- -O3 -arch=sm_90 kernels.cu | awk '$2 == "softmax_forward" {print $1}')
	k2=$("$EGG" cache key -- -O2 --generate-code=arch=compute_90,code=[compute_90,sm_90] -c kernels.cu |
		awk '$2 == "softmax_forward" {print $1}')
	k3=$("$EGG" cache key -- -O3 -gencode=arch=compute_90,code=sm_90 kernels.cu |
		awk '$2 == "softmax_forward" {print $1}')
	[ -n "$k1" ] || fail "no key"
	expect_eq "$k2" "$k1" "the CMake spelling's key"
	[ "$k3" != "$k1" ] || fail "a build without PTX shares the key of one with it"
	# and egg-cc itself finds the entry a Make build stored from a CMake build's line
	EGG_EVAL_COMMAND=$RECORDED "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o make.o 2>/dev/null || fail "make-style build"
	EGG_MODE=cache run_cmd r "$EGG_CC" -O2 --generate-code=arch=compute_90,code=[compute_90,sm_90] \
		-c kernels.cu -o cmake.o || fail "$(cat r.err)"
	expect_eq "$(winners_in cmake.o)" 3 "winners linked in the CMake-style build"
}

# Each winner stands where its target stood: in nn, nn::v2, ops::fused, an
# extern "C" block, tk, or at file scope, several in one translation unit, with
# the builtin's helpers and headers and the dispatcher's helper seen by each.
test_winners_in_namespaces_and_templates_compile_into_one_object() {
	setup_example
	cp "$EGG_SRCDIR"/tests/data/builtin/{namespaces.cu,templates.cu,idioms.cu} "$EGG_SRCDIR"/tests/gpu/scopes/main.cu .
	local f
	for f in namespaces templates idioms; do
		EGG_EVAL_COMMAND=$RECORDED run_cmd "$f" "$EGG_CC" -O3 -arch=sm_90 -c "$f.cu" -o "$f.o" ||
			fail "$f: $(cat "$f.err")"
		! grep -q warning "$f.err" || fail "$f fell back: $(grep warning "$f.err")"
	done
	for f in leaky_relu halvings scale c_leaky; do
		has_symbol namespaces.o "egg_winner__$f" || fail "the winner of $f is not linked"
	done
	for f in axpy copy4 countdown; do
		has_symbol templates.o "egg_winner__$f" || fail "the winner of $f is not linked"
	done
	has_symbol namespaces.o ' T nn::v2::scale(float const\*, float\*, float, int)' ||
		fail "the dispatcher of nn::v2::scale keeps its namespace"
	has_symbol namespaces.o ' T c_leaky$' || fail "the dispatcher of c_leaky keeps C linkage"
	for f in exp_half swish; do
		has_symbol idioms.o "egg_winner__$f" || fail "the winner of $f is not linked"
	done
	run_cmd l "$REAL_NVCC" -O3 -arch=sm_90 main.cu namespaces.o templates.o idioms.o -o prog || fail "link: $(cat l.err)"
}

# set_entry_recipe RECIPE: every entry in the cache claims to come from builtin
# generator RECIPE (checksum recomputed), as entries of an older egg do.
set_entry_recipe() {
	python3 "$EDIT_ENTRY" --recipe "$1" "$EGG_CACHE_DIR"/??/* || fail "no entry to age"
}

# The generator is not in the key: after an upgrade of egg, the winners an older
# generator found are still hits (no search), and what it could not beat is
# searched again by the new one.
test_an_older_generators_winners_are_hits_and_its_negatives_are_searched_again() {
	setup_example
	EGG_EVAL_COMMAND=$RECORDED "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o k1.o 2>/dev/null || fail "first build"
	set_entry_recipe "builtin-1 (an older egg)"
	EGG_EVAL_COMMAND=$RECORDED RECORDED_LOG=$T/evals run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o k2.o ||
		fail "$(cat r.err)"
	[ ! -s "$T/evals" ] || fail "an older generator's winner was searched again: $(cat "$T/evals")"
	expect_eq "$(winners_in k2.o)" 3 "winners linked from the older generator's entries"
	# negatives: nothing beat the reference as the older generator searched
	rm -rf "$EGG_CACHE_DIR"
	RECORDED_VERDICT=slower EGG_EVAL_COMMAND=$RECORDED "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o k3.o 2>/dev/null
	expect_eq "$(winners_in k3.o)" 0 "winners after a search that found none"
	set_entry_recipe "builtin-1 (an older egg)"
	EGG_EVAL_COMMAND=$RECORDED RECORDED_LOG=$T/evals2 run_cmd r2 "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o k4.o ||
		fail "$(cat r2.err)"
	expect_eq "$(wc -l <"$T/evals2")" 3 "kernels searched again"
	expect_eq "$(winners_in k4.o)" 3 "winners the new generator found"
	# and the current generator's negative is not searched again
	rm -rf "$EGG_CACHE_DIR"
	RECORDED_VERDICT=slower EGG_EVAL_COMMAND=$RECORDED "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o k6.o 2>/dev/null
	EGG_EVAL_COMMAND=$RECORDED RECORDED_LOG=$T/evals3 "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o k7.o 2>/dev/null
	[ ! -s "$T/evals3" ] || fail "the current generator's negative entries were searched again"
}

# entries: one line per cache entry, "NAME OUTCOME RECIPE CHECKED-BY SOURCE-HASH", sorted
entries() {
	python3 -c 'import hashlib, json, sys
rows = []
for p in sys.argv[1:]:
    e = json.load(open(p))
    rows.append("%s %s %s %s %s" % (e["name"], e["outcome"], e["generator"]["recipe"].split()[0],
        ",".join(c["recipe"].split()[0] for c in e.get("checked", [])) or "-",
        hashlib.sha256((e["source"] or "").encode()).hexdigest()[:12]))
print("\n".join(sorted(rows)))' "$EGG_CACHE_DIR"/??/*
}
# qbuild OUT [ENV...]: egg-cc on kernels.cu with the stand-in nvcc (make_quick_nvcc) and
# the recorded evaluator; stderr in OUT.err, and OUT.winners: how many winners the
# source given to nvcc defines
qbuild() {
	local o=$1
	shift
	rm -f quick/given.cu
	env EGG_EVAL_COMMAND="$RECORDED" "$@" "$EGG_CC" "$T/quick/nvcc" -O3 -arch=sm_90 -c kernels.cu -o "$o.o" \
		>"$o.out" 2>"$o.err" || fail "$o: $(cat "$o.err")"
	grep -o 'egg_winner__[a-z_]*' quick/given.cu | sort -u | wc -l >"$o.winners"
}
current_builtin() { grep -o '"builtin-[0-9]*' "$EGG_SRCDIR/builtin/builtin.h" | tr -d '"'; }

# regenerate = faster: a winner of an older generator is searched again with
# the old winner as one of the candidates (one more in each job); a new
# candidate that is faster in that evaluation replaces it, in the entry too.
test_with_regenerate_faster_a_newer_generators_faster_winner_replaces_the_old_one() {
	setup_example
	make_quick_nvcc
	qbuild k1 RECORDED_LOG=$T/evals1
	set_entry_recipe "builtin-1 (an older egg)"
	qbuild r EGG_REGENERATE=faster RECORDED_LOG=$T/evals2
	expect_eq "$(awk '{print $1, $2 + 1}' evals1)" "$(cat evals2)" "jobs (each with the cached winner added)"
	expect_eq "$(cat r.winners)" 3 "winners linked"
	expect_eq "$(grep -c 'faster than the cached winner of builtin-1 (0.5x in the same evaluation), cached' r.err)" 3 \
		"replacements said: $(cat r.err)"
	entries | awk '{print $2, $3, $4}' | sort -u >e.txt
	expect_eq "$(cat e.txt)" "winner $(current_builtin) -" "the entries after the replacement"
	# the replacement is the current generator's: not searched again
	qbuild k3 EGG_REGENERATE=faster RECORDED_LOG=$T/evals3
	[ ! -s evals3 ] || fail "searched again: $(cat evals3)"
}

# The old winner stays the fastest: the entry keeps its winner and its author,
# records that the current generator checked it, and the next build does not
# search again.  Without the setting (never, the default) nothing is searched.
test_with_regenerate_faster_an_old_winner_that_stays_fastest_is_kept_and_not_searched_again() {
	setup_example
	make_quick_nvcc
	qbuild k1
	set_entry_recipe "builtin-1 (an older egg)"
	entries >before.txt
	qbuild k0 RECORDED_LOG=$T/evals0
	[ ! -s evals0 ] || fail "searched again without regenerate = faster: $(cat evals0)"
	qbuild r RECORDED_WINNER=last EGG_REGENERATE=faster RECORDED_LOG=$T/evals1
	expect_file_lines evals1 3
	expect_eq "$(cat r.winners)" 3 "winners linked"
	expect_eq "$(grep -c 'the cached winner of builtin-1 stays (nothing new was faster); marked as checked' r.err)" 3 \
		"kept: $(cat r.err)"
	expect_eq "$(entries)" "$(sed "s/ - / $(current_builtin) /" before.txt)" "entries: winner and author kept, marked"
	qbuild r2 RECORDED_WINNER=last EGG_REGENERATE=faster RECORDED_LOG=$T/evals2
	[ ! -s evals2 ] || fail "a checked entry was searched again: $(cat evals2)"
	[ ! -s r2.err ] || fail "a checked hit printed: $(cat r2.err)"
	expect_eq "$(cat r2.winners)" 3 "winners linked"
}

# The old winner is no faster than the reference here, and nothing new is:
# the reference is compiled, and (as in verify mode) only the local cache says
# so, with the current generator's negative entry, which is not searched again.
test_with_regenerate_faster_an_old_winner_that_fails_here_is_not_linked() {
	setup_example
	make_quick_nvcc
	qbuild k1
	set_entry_recipe "builtin-1 (an older egg)"
	qbuild r RECORDED_VERDICT=slower EGG_REGENERATE=faster
	expect_eq "$(cat r.winners)" 0 "winners linked"
	expect_eq "$(grep -c 'warning: egg: .*: the cached winner of builtin-1 failed on Recorded GPU (slower) and nothing beat the reference; compiling the reference, and the local cache now says so' r.err)" 3 \
		"warnings: $(cat r.err)"
	expect_eq "$(entries | awk '{print $2, $3}' | sort -u)" "negative $(current_builtin)" "entries"
	qbuild k3 EGG_REGENERATE=faster RECORDED_LOG=$T/evals2
	[ ! -s evals2 ] || fail "searched again: $(cat evals2)"
}

# One summary line per compile that searched: the kernels, how many were hits
# and searched, the candidates the searches evaluated (as many as the jobs the
# evaluator got), and none for a compile of hits only.
test_a_compile_that_searched_ends_with_one_summary_line_counting_its_kernels_and_candidates() {
	setup_example
	make_quick_nvcc
	qbuild k1 RECORDED_LOG=$T/evals1
	local n
	n=$(awk '{ s += $2 } END { print s }' evals1)
	grep -Eq "^egg: 3 kernels: 0 hits, 3 searched \($n candidates, [0-9]+ s\), 0 fallbacks$" k1.err ||
		fail "summary: $(cat k1.err)"
	expect_eq "$(grep -c '^egg: [0-9]* kernels:' k1.err)" 1 "summary lines"
	# one entry gone: two hits and one search
	rm "$(grep -l '"name":"bias_gelu"' "$EGG_CACHE_DIR"/??/*)"
	qbuild k2 RECORDED_LOG=$T/evals2
	n=$(awk '{ s += $2 } END { print s }' evals2)
	grep -Eq "^egg: 3 kernels: 2 hits, 1 searched \($n candidates, [0-9]+ s\), 0 fallbacks$" k2.err ||
		fail "summary: $(cat k2.err)"
	qbuild k3
	[ ! -s k3.err ] || fail "a compile of hits printed: $(cat k3.err)"
}

# ---- log_file and debug (ccache's log_file and debug), with a stand-in nvcc ----

LOG_LINE='^\[[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} [0-9]+\] (egg-cc|egg plan): '

seeded_quick_build() { # the seed's three winners in the cache, a stand-in nvcc
	setup_example
	make_quick_nvcc
	gzip -dc "$SEED" >seed.egg && "$EGG" cache import seed.egg >/dev/null || fail "import failed"
}

key_of() { # KERNEL: its key for this build, as egg cache key prints it
	EGG_NVCC=$T/quick/nvcc "$EGG" cache key -- -O3 -arch=sm_90 -c kernels.cu 2>/dev/null |
		awk -v k="$1" '$2 == k { print $1 }'
}

test_log_file_says_each_kernels_key_outcome_and_why_with_timings() {
	seeded_quick_build
	tamper_cached_winner bias_gelu 's + "\nvoid f() { system(\"id\"); }\n"'
	EGG_MODE=cache EGG_LOG_FILE=$T/egg.log run_cmd r "$EGG_CC" "$T/quick/nvcc" -O3 -arch=sm_90 \
		-c kernels.cu -o k.o || fail "build: $(cat r.err)"
	grep -Evq "$LOG_LINE" egg.log && fail "a line is not a log line: $(grep -Ev "$LOG_LINE" egg.log)"
	grep -Eq "egg plan: softmax_forward: key $(key_of softmax_forward) \(sm_90\): cache-hit; lookup [0-9.]+ s, total [0-9.]+ s$" egg.log ||
		fail "softmax_forward's line: $(cat egg.log)"
	grep -Eq "egg plan: bias_gelu: the cached winner is refused by the screen: .*system" egg.log ||
		fail "the screen's refusal: $(cat egg.log)"
	grep -Eq "egg plan: bias_gelu: key $(key_of bias_gelu) \(sm_90\): fallback \(" egg.log || fail "bias_gelu: $(cat egg.log)"
	grep -Eq "egg plan: kernels.cu: analyzed in [0-9.]+ s: 3 kernels of 3 annotations \(mode cache\)" egg.log ||
		fail "the analysis: $(cat egg.log)"
	grep -Eq "egg-cc: compiled the rewritten sources in [0-9.]+ s$" egg.log || fail "the compile: $(cat egg.log)"
	# a miss says why, and which remote was asked with what outcome
	EGG_CACHE_DIR=$T/empty EGG_MODE=cache EGG_REMOTE_STORAGE='http://127.0.0.1:9/c|connect-timeout=200' \
		EGG_LOG_FILE=$T/miss.log "$EGG_CC" "$T/quick/nvcc" -O3 -arch=sm_90 -c kernels.cu -o k2.o 2>/dev/null ||
		fail "the build with a miss failed"
	grep -Eq "egg plan: row_sum: key $(key_of row_sum) \(sm_90\): cache-miss \(no entry\)" miss.log || fail "$(cat miss.log)"
	grep -Eq "egg plan: row_sum: not searched: the mode does not search" miss.log || fail "$(cat miss.log)"
	grep -Eq "egg plan: lookup $(key_of softmax_forward | cut -c1-16): local: miss; remote http://127.0.0.1:9/c: failed" miss.log ||
		fail "the remote's outcome: $(cat miss.log)"
	grep -Eq "egg plan: lookup $(key_of row_sum | cut -c1-16): local: miss; remote http://127.0.0.1:9/c: not asked" miss.log ||
		fail "a remote that failed is not asked again: $(cat miss.log)"
	grep -Eq "egg-cc: running nvcc on the build's own command line" miss.log || fail "$(cat miss.log)"
}

test_parallel_compiles_append_whole_log_lines() {
	seeded_quick_build
	local i
	for i in 1 2 3 4 5 6; do
		EGG_MODE=cache EGG_LOG_FILE=$T/egg.log "$EGG_CC" "$T/quick/nvcc" -O3 -arch=sm_90 \
			-c kernels.cu -o k$i.o 2>/dev/null &
	done
	wait
	grep -Evq "$LOG_LINE" egg.log && fail "a torn line: $(grep -Ev "$LOG_LINE" egg.log | head -3)"
	expect_eq "$(grep -c ': cache-hit; lookup' egg.log)" 18 "kernel lines"
	expect_eq "$(grep -c 'egg-cc: done in' egg.log)" 6 "compiles"
}

test_a_log_file_that_cannot_be_opened_is_one_warning_and_the_build_goes_on() {
	seeded_quick_build
	EGG_MODE=cache EGG_LOG_FILE=$T/no/such/dir/egg.log run_cmd r "$EGG_CC" "$T/quick/nvcc" -O3 \
		-arch=sm_90 -c kernels.cu -o k.o || fail "the build failed: $(cat r.err)"
	expect_eq "$(cat r.err)" "egg-cc: warning: egg: cannot open the log file $T/no/such/dir/egg.log: No such file or directory; going on without it"
	[ -f k.o ] || fail "no object"
	[ -s quick/given.cu ] || fail "nvcc was not run"
}

test_debug_keeps_the_key_text_and_the_rewritten_source_beside_the_output() {
	seeded_quick_build
	export TMPDIR=$T/tmp
	mkdir -p "$TMPDIR" out
	EGG_MODE=cache EGG_DEBUG=1 run_cmd r "$EGG_CC" "$T/quick/nvcc" -O3 -arch=sm_90 -c kernels.cu \
		-o out/k.o || fail "build: $(cat r.err)"
	EGG_NVCC=$T/quick/nvcc "$EGG" cache key --explain -- -O3 -arch=sm_90 -c kernels.cu >explain.txt
	expect_same_file out/k.o.egg-key.txt explain.txt
	expect_same_file out/k.o.egg-rewritten.cu quick/given.cu # what nvcc was given
	cmp -s kernels.cu quick/given.cu && fail "nvcc was given the user's source: nothing was rewritten"
	# a compile with nothing to rewrite keeps its key text and no stale rewritten source
	EGG_CACHE_DIR=$T/empty EGG_MODE=cache EGG_DEBUG=1 "$EGG_CC" "$T/quick/nvcc" -O3 -arch=sm_90 \
		-c kernels.cu -o out/k.o 2>/dev/null || fail "build without winners"
	[ -s out/k.o.egg-key.txt ] || fail "no key text"
	[ ! -e out/k.o.egg-rewritten.cu ] || fail "a stale rewritten source was left"
}
