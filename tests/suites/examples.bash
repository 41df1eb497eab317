# examples: the bundled example project builds through egg-cc in the ways the
# README shows (Makefile with NVCC=egg-cc, CMake with the launcher form), and the
# README's first command (`make demo`) links the winners of the committed seed
# without a GPU.

suite_probe() {
	[ -x "$REAL_NVCC" ] || { echo "no nvcc"; return 1; }
}
# the compiles several tests repeat, done once per run (lib.bash)
suite_setup() { share_nvcc_compiles; }

copy_example() {
	mkdir -p "$1"
	cp "$EGG_SRCDIR"/examples/{Makefile,CMakeLists.txt,kernels.h,kernels.cu,main.cu} "$1/"
}

test_example_builds_with_make_and_nvcc_set_to_egg_cc() {
	copy_example ex
	PATH=$NVCC_DIR:$PATH run_cmd r make -C ex NVCC="$EGG_CC" demo ||
		fail "make failed: $(cat r.err)"
	[ -x ex/demo ] || fail "no demo executable"
	PATH=$NVCC_DIR:$PATH make -C ex NVCC="$REAL_NVCC" clean demo >/dev/null 2>&1 ||
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

# The seed was searched on an H200 (examples/seed/reseed.sh); every winner in it
# must still be found and linked by this egg, GPU or not.  A seed whose keys no
# longer match (a new key format, a changed example) fails here, not silently.
test_make_demo_links_every_winner_of_the_seed_without_a_gpu() {
	[ -f "$EGG_BUILDDIR/Makefile" ] || skip "no build tree Makefile"
	local want
	want=$(gzip -dc "$EGG_SRCDIR/examples/seed/example-seed.egg.gz" | grep -c '"outcome":"winner"')
	[ "$want" -ge 1 ] || fail "the seed has no winner"
	PATH=$NVCC_DIR:$PATH EGG_MODE=cache run_cmd r make -s -C "$EGG_BUILDDIR" demo DEMO_DIR="$T/demo" ||
		fail "make demo failed: $(tail -5 r.err) $(tail -5 r.out)"
	expect_eq "$(wc -l <"$T/demo/linked.txt")" "$want" "winners linked by make demo"
	expect_file_contains r.out "with a winner"
	expect_file_contains r.out "cache-hit"
}
