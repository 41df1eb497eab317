# verify: in verify mode a cached winner is linked only after it passes again
# against the reference (here through the recorded evaluator, as CI has no GPU);
# a failed one is not linked, warned about once and marked negative in the local
# cache; a miss never searches; without a GPU or an evaluator the mode warns once
# and behaves as cache mode.

suite_probe() {
	[ -x "$REAL_NVCC" ] || { echo "no nvcc"; return 1; }
	command -v python3 >/dev/null || { echo "no python3"; return 1; }
}
# the compiles several tests repeat, done once per run (lib.bash)
suite_setup() { share_nvcc_compiles; }

source "$EGG_SRCDIR/tests/data/report/helpers.sh"

# verify_build PREFIX [ENV=VALUE...]: a verify-mode build of the example through
# the recorded evaluator, which logs each job to $T/evals
verify_build() {
	local p=$1
	shift
	env "$@" EGG_MODE=verify EGG_EVAL_COMMAND="$RECORDED" RECORDED_LOG=$T/evals EGG_REPORT=$T/rep.jsonl \
		"$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o "$p.o" >"$p.out" 2>"$p.err"
	echo $? >"$p.rc"
}

test_cached_winner_that_passes_again_is_linked() {
	setup_example
	search
	verify_build v RECORDED_SPEEDUP=11.8
	expect_eq "$(cat v.rc)" 0 "exit status"
	expect_file_lines v.err 3
	expect_file_contains v.err "egg: softmax_forward: verified 11.8x on Recorded GPU"
	expect_eq "$(winners_in v.o)" 3 "winners linked"
	# one job per kernel, each with the cached winner alone
	expect_file_lines evals 3
	expect_eq "$(grep -c ' 1$' evals)" 3 "jobs of one candidate"
	expect_eq "$(outcomes rep.jsonl | grep -c '=verified$')" 3 "verified records"
	expect_eq "$(field rep.jsonl 1 speedup)" 11.8
}

test_wrong_winner_is_not_linked_and_the_entry_is_marked() {
	setup_example
	search
	verify_build v RECORDED_VERDICT=wrong
	expect_eq "$(cat v.rc)" 0 "exit status"
	expect_file_lines v.err 3
	expect_eq "$(grep -c '^egg-cc: warning: egg: .*: the cached winner failed verification on Recorded GPU (wrong: ' v.err)" 3 \
		"warnings"
	expect_eq "$(winners_in v.o)" 0 "winners linked"
	expect_eq "$("$EGG" cache ls | grep -c ' negative ')" 3 "entries marked negative"
	expect_eq "$(outcomes rep.jsonl | grep -c '=verify-failed$')" 3 "verify-failed records"
	# the mark answers later builds at once, in any mode, and explains itself
	EGG_MODE=cache run_cmd c "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o c.o || fail "$(cat c.err)"
	expect_eq "$(winners_in c.o)" 0 "winners linked afterwards"
	"$EGG" report >table.txt
	expect_eq "$(grep -cE '^[a-z_]+ +verify-failed ' table.txt)" 3 "verify-failed in the cache's table"
	local key
	key=$("$EGG" cache ls | awk '$NF == "row_sum" {print $1}')
	"$EGG" report "$key" >show.txt
	expect_file_contains show.txt "[verify] evaluation: cached winner, wrong: "
	expect_file_contains show.txt "the rejected winner:"
}

test_slower_winner_is_not_linked() {
	setup_example
	search
	verify_build v RECORDED_VERDICT=slower
	expect_file_lines v.err 3
	expect_file_contains v.err "the cached winner failed verification on Recorded GPU (slower: 0.50x)"
	expect_eq "$(winners_in v.o)" 0 "winners linked"
	expect_eq "$(field rep.jsonl 1 speedup)" 0.5
}

test_evaluator_failure_keeps_the_reference_and_the_entry() {
	setup_example
	search
	verify_build v RECORDED_VERDICT=error
	expect_file_lines v.err 3
	expect_file_contains v.err "the cached winner could not be verified (the recorded evaluator was told to fail)"
	expect_eq "$(winners_in v.o)" 0 "winners linked"
	expect_eq "$("$EGG" cache ls | grep -c ' winner ')" 3 "entries kept"
	expect_eq "$(outcomes rep.jsonl | grep -c '=fallback$')" 3 "fallback records"
}

test_miss_in_verify_mode_does_not_search() {
	setup_example
	verify_build v
	expect_eq "$(cat v.rc)" 0 "exit status"
	[ ! -s v.err ] || fail "a miss printed: $(cat v.err)"
	[ ! -e evals ] || fail "the evaluator was called: $(cat evals)"
	expect_eq "$(winners_in v.o)" 0 "winners linked"
	expect_eq "$("$EGG" cache ls | grep -c .)" 0 "entries stored"
	expect_eq "$(outcomes rep.jsonl | grep -c '=cache-miss$')" 3 "cache-miss records"
}

test_negative_entry_in_verify_mode_evaluates_nothing() {
	setup_example
	search RECORDED_VERDICT=slower
	verify_build v
	[ ! -s v.err ] || fail "printed: $(cat v.err)"
	[ ! -e evals ] || fail "the evaluator was called: $(cat evals)"
	expect_eq "$(outcomes rep.jsonl | grep -c '=cache-hit-negative$')" 3 "negative hits"
}

test_without_gpu_or_evaluator_warns_once_and_uses_the_cache() {
	setup_example
	search
	EGG_MODE=verify run_cmd v "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o v.o || fail "$(cat v.err)"
	expect_file_lines v.err 1
	expect_file_contains v.err "egg-cc: warning: egg: verify mode needs a GPU (or eval_command)"
	expect_eq "$(winners_in v.o)" 3 "winners linked as in cache mode"
	EGG_MODE=verify EGG_REPORT=$T/rep.jsonl "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o v2.o 2>/dev/null
	expect_eq "$(field rep.jsonl 1 outcome)" cache-hit
	expect_eq "$(field rep.jsonl 1 reason)" "not verified: no GPU and no eval_command"
}
