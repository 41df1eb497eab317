# examples: the bundled example project builds through egg-cc in the ways the
# README shows (Makefile with NVCC=egg-cc, CMake with the launcher form).

suite_probe() {
	[ -x "$REAL_NVCC" ] || { echo "no nvcc"; return 1; }
}

copy_example() {
	mkdir -p "$1"
	cp "$EGG_SRCDIR"/examples/{Makefile,CMakeLists.txt,kernels.h,kernels.cu,main.cu} "$1/"
}

test_example_builds_with_make_and_nvcc_set_to_egg_cc() {
	copy_example ex
	PATH=$(dirname "$REAL_NVCC"):$PATH run_cmd r make -C ex NVCC="$EGG_CC" demo ||
		fail "make failed: $(cat r.err)"
	[ -x ex/demo ] || fail "no demo executable"
	PATH=$(dirname "$REAL_NVCC"):$PATH make -C ex NVCC="$REAL_NVCC" clean demo >/dev/null 2>&1 ||
		fail "plain nvcc build failed"
}

test_example_builds_with_cmake_launcher() {
	command -v cmake >/dev/null || skip "cmake not installed"
	copy_example ex
	run_cmd c cmake -S ex -B build -DCMAKE_CUDA_COMPILER_LAUNCHER="$EGG_CC" \
		-DCMAKE_CUDA_COMPILER="$REAL_NVCC" || fail "cmake configure failed: $(tail -5 c.out)"
	run_cmd b cmake --build build -- VERBOSE=1 || fail "cmake build failed: $(tail -5 b.out)"
	expect_file_contains b.out "$EGG_CC $REAL_NVCC"
	[ -x build/demo ] || fail "no demo executable"
}
