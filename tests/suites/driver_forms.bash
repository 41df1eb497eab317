# driver_forms: egg-cc finds the real nvcc in each of its three forms and never
# runs itself.

suite_probe() {
	[ -x "$REAL_NVCC" ] || { echo "no nvcc"; return 1; }
}

test_direct_form_runs_nvcc_from_path_with_argv_unchanged() {
	make_fake_nvcc fake
	PATH=$T/fake:$PATH run_cmd r "$EGG_CC" -c "a b.cu" -o x.o
	expect_eq "$(cat r.rc)" 3 "exit status"
	expect_eq "$(cat r.out)" "fake nvcc stdout"
	expect_eq "$(cat r.err)" "fake nvcc stderr"
	expect_eq "$(cat fake/argv)" "$(printf '%s\n' -c "a b.cu" -o x.o)"
}

test_egg_nvcc_variable_wins_over_path() {
	make_fake_nvcc fake
	make_fake_nvcc other
	EGG_NVCC=$T/other/nvcc PATH=$T/fake:$PATH run_cmd r "$EGG_CC" --version
	[ -f other/argv ] || fail "EGG_NVCC's nvcc was not run"
	[ ! -f fake/argv ] || fail "PATH's nvcc was run"
}

test_launcher_form_runs_the_named_nvcc() {
	make_fake_nvcc fake
	run_cmd r "$EGG_CC" "$T/fake/nvcc" -O3 -c k.cu
	expect_eq "$(cat r.rc)" 3
	expect_eq "$(cat fake/argv)" "$(printf '%s\n' -O3 -c k.cu)"
}

test_masquerade_symlink_skips_itself_on_path() {
	make_fake_nvcc fake
	mkdir masq
	ln -s "$EGG_CC" masq/nvcc
	PATH=$T/masq:$T/fake:$PATH run_cmd r nvcc -c k.cu
	expect_eq "$(cat r.rc)" 3
	expect_eq "$(cat fake/argv)" "$(printf '%s\n' -c k.cu)"
}

test_egg_options_never_reach_nvcc() {
	make_fake_nvcc fake
	PATH=$T/fake:$PATH run_cmd r "$EGG_CC" --egg-mode=off -c k.cu --egg-report=r.json
	expect_eq "$(cat fake/argv)" "$(printf '%s\n' -c k.cu)"
}

test_egg_nvcc_pointing_at_egg_cc_is_refused() {
	EGG_NVCC=$EGG_CC run_cmd r "$EGG_CC" -c k.cu
	expect_eq "$(cat r.rc)" 127 "exit status"
	expect_file_contains r.err "is egg-cc itself"
	expect_file_lines r.err 1
}

test_wrapper_loop_is_cut_off_with_one_message() {
	# A script named nvcc that calls egg-cc again: the loop must end.
	mkdir loop
	printf '#!/bin/sh\nexec "%s" "$@"\n' "$EGG_CC" >loop/nvcc
	chmod +x loop/nvcc
	PATH=$T/loop:$PATH run_cmd r timeout 20 "$EGG_CC" -c k.cu
	expect_eq "$(cat r.rc)" 127 "exit status"
	expect_file_contains r.err "egg-cc is calling itself"
	expect_file_lines r.err 1
}

test_missing_nvcc_gives_one_clear_error() {
	PATH=/nonexistent run_cmd r "$EGG_CC" -c k.cu
	expect_eq "$(cat r.rc)" 127 "exit status"
	expect_file_contains r.err "cannot find nvcc"
	expect_file_lines r.err 1
}

test_version_is_nvccs_own() {
	"$REAL_NVCC" --version >want.out
	PATH=$NVCC_DIR:$PATH run_cmd r "$EGG_CC" --version
	expect_same_file r.out want.out
}
