# fast_path: egg-cc hands nvcc the user's exact argv, silently, whether or not a
# source carries an annotation (the pipeline behind driver_compile_annotated is
# future work), and leaves every error nvcc would report to nvcc.

suite_probe() {
	[ -x "$REAL_NVCC" ] || { echo "no nvcc"; return 1; }
}

# same_as_nvcc PREFIX ARGS...: egg-cc and nvcc give the same status and stderr
same_as_nvcc() {
	local p=$1
	shift
	run_cmd "$p.nvcc" "$REAL_NVCC" "$@"
	run_cmd "$p.egg" "$EGG_CC" "$@"
	expect_eq "$(cat "$p.egg.rc")" "$(cat "$p.nvcc.rc")" "exit status of egg-cc $*"
	[ "$(cat "$p.nvcc.rc")" != 0 ] || fail "nvcc $* was expected to fail"
	expect_same_file "$p.egg.err" "$p.nvcc.err"
	expect_same_file "$p.egg.out" "$p.nvcc.out"
}

test_annotated_source_with_egg_off_reaches_nvcc_with_the_user_s_argv_and_no_output() {
	make_fake_nvcc fake
	printf '#pragma egg optimize\n__global__ void k(float *x) { x[0] = 1; }\n' >k.cu
	EGG_MODE=off EGG_NVCC=$T/fake/nvcc run_cmd r "$EGG_CC" -c k.cu -o k.o -O3 -Xcompiler=-Wall,-O2
	expect_eq "$(cat r.rc)" 3 "exit status"
	expect_eq "$(cat r.out)" "fake nvcc stdout"
	expect_eq "$(cat r.err)" "fake nvcc stderr"
	expect_eq "$(cat fake/argv)" "$(printf '%s\n' -c k.cu -o k.o -O3 -Xcompiler=-Wall,-O2)"
}

test_options_files_and_environment_flags_are_not_expanded_into_argv() {
	make_fake_nvcc fake
	printf '_Pragma("egg optimize")\n' >k.cu
	printf -- '-c "k.cu"\n' >opts.txt
	EGG_NVCC=$T/fake/nvcc NVCC_APPEND_FLAGS='-DX="a b"' run_cmd r "$EGG_CC" -optf opts.txt
	expect_eq "$(cat r.rc)" 3 "exit status"
	expect_eq "$(cat fake/argv)" "$(printf '%s\n' -optf opts.txt)"
}

test_missing_source_gives_nvcc_s_own_error() {
	same_as_nvcc r -c nosuch.cu -o nosuch.o
}

test_directory_as_source_gives_nvcc_s_own_error() {
	mkdir dir.cu
	same_as_nvcc r -c dir.cu
}

test_unreadable_source_gives_nvcc_s_own_error() {
	[ "$(id -u)" != 0 ] || skip "root reads files without read permission"
	printf '#pragma egg optimize\n__global__ void k() {}\n' >k.cu
	chmod 000 k.cu
	same_as_nvcc r -c k.cu
}

test_unknown_option_gives_nvcc_s_own_error() {
	printf '#pragma egg optimize\n__global__ void k() {}\n' >k.cu
	same_as_nvcc r -c k.cu -ok.o
}

test_missing_options_file_gives_nvcc_s_own_error() {
	printf '#pragma egg optimize\n__global__ void k() {}\n' >k.cu
	same_as_nvcc r -c k.cu -optf nosuch.txt
}
