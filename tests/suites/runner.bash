# runner: tests/run itself -- the order jobs start in (the last run's durations,
# else the committed hint, which is what a fresh clone such as CI's has), the
# order results print in, and the closing count.  The runner runs a small suite
# of its own in a tree of its own (EGG_SRCDIR: lib.bash and, where a test wants
# one, tests/durations.hint), one job at a time where the start order is checked.

# fake_tree: $T/src with the real lib.bash and a suite "fake" of three tests that
# log their start into $T/order; test_b fails
fake_tree() {
	mkdir -p src/tests/suites logs
	cp "$EGG_SRCDIR/tests/suites/lib.bash" src/tests/suites/
	cat >src/tests/suites/fake.bash <<SH
test_a() { echo a >>"$T/order"; }
test_b() { echo b >>"$T/order"; fail "b fails"; }
test_c() { echo c >>"$T/order"; }
SH
}

# run_fake JOBS: tests/run over the fake suite with logs in $T/logs; its output in r.out
run_fake() {
	: >order
	EGG_SRCDIR=$T/src EGG_TEST_LOGDIR=$T/logs run_cmd r bash "$EGG_SRCDIR/tests/run" -j "$1" -- src/tests/suites/fake.bash
}

test_a_fresh_tree_starts_the_jobs_the_hint_names_longest_first() {
	fake_tree
	printf '# a comment line\n50\tfake/test_c\n9\tfake/test_b\n' >src/tests/durations.hint
	run_fake 1
	expect_eq "$(tr -d '\n' <order)" "cba" "start order (c and b by the hint, a unknown: 5 s)"
}

test_the_last_runs_durations_come_before_the_hint() {
	fake_tree
	printf '50\tfake/test_c\n' >src/tests/durations.hint
	run_fake 1
	# that run's own durations now: every job about 0 s; make b the longest
	printf '30\tfake/test_b\n0.1\tfake/test_a\n0.1\tfake/test_c\n' >logs/durations
	run_fake 1
	expect_eq "$(head -c1 order)" "b" "first job"
}

test_results_print_in_the_order_given_and_the_last_line_counts_them() {
	fake_tree
	run_fake 2
	expect_eq "$(cat r.rc)" 1 "exit status with a failed test"
	expect_eq "$(grep -E '^(PASS|FAIL): ' r.out | cut -d' ' -f2 | tr '\n' ' ')" "fake/test_a fake/test_b fake/test_c " "result order"
	expect_eq "$(tail -n1 r.out)" "2 passed, 1 failed" "last line"
}

test_help_prints_the_usage_and_a_mistyped_option_or_file_runs_nothing() {
	fake_tree
	run_cmd h bash "$EGG_SRCDIR/tests/run" --help
	expect_eq "$(cat h.rc)" 0 "--help exit status"
	expect_eq "$(head -n 1 h.out)" "usage: tests/run [-j N] [--filter=REGEX] UNIT_BINARY... -- SUITE_FILE..." "usage line"
	: >order
	# before the fix, a mistyped option was taken for a test binary and "ran" as a failed job
	EGG_SRCDIR=$T/src EGG_TEST_LOGDIR=$T/logs run_cmd o bash "$EGG_SRCDIR/tests/run" --filtr=a -- src/tests/suites/fake.bash
	expect_eq "$(cat o.rc)" 2 "a mistyped option's exit status"
	expect_file_contains o.err "unknown option '--filtr=a'"
	EGG_SRCDIR=$T/src EGG_TEST_LOGDIR=$T/logs run_cmd m bash "$EGG_SRCDIR/tests/run" -- src/tests/suites/fake.bash src/tests/suites/nosuch.bash
	expect_eq "$(cat m.rc)" 2 "a missing suite file's exit status"
	expect_file_contains m.err "no test binary or suite file 'src/tests/suites/nosuch.bash'"
	expect_eq "$(cat order)" "" "jobs run"
}
