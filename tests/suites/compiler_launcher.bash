# compiler_launcher: the rewritten sources of the same winners always sit at the same
# path (cache_dir/rewritten/HASH/NAME), so their compile gives the same object and a
# compiler cache put behind egg-cc (compiler_launcher = ccache) reuses it on a hit;
# the launcher wraps that compile only, never the fast path or the reference's.

suite_probe() {
	[ -x "$REAL_NVCC" ] || { echo "no nvcc"; return 1; }
}

setup_seeded() { # the example and the seed's three winners in the cache
	export PATH=$NVCC_DIR:$PATH EGG_BUILTIN_TEMPLATES=$EGG_SRCDIR/builtin/templates
	export EGG_MODE=cache
	cp "$EGG_SRCDIR"/examples/{kernels.cu,kernels.h,main.cu} .
	gzip -dc "$EGG_SRCDIR/examples/seed/example-seed.egg.gz" >seed.egg && "$EGG" cache import seed.egg >/dev/null || fail "import failed"
}

# launcher/rec: a launcher that appends its argv (one call a line, words split by
# '|') to launcher/calls and runs the rest of its command line
make_recording_launcher() {
	mkdir -p launcher
	cat >launcher/rec <<'SH'
#!/bin/sh
d=$(dirname "$0")
(IFS='|'; printf '%s\n' "$*") >>"$d/calls"
[ "$1" = --flag ] && shift
exec "$@"
SH
	chmod +x launcher/rec
	: >launcher/calls
}

# nvcc writes its temporary file's name (tmpxft_PID_COUNTER-N_...) into the
# object; the rest must match.  The counter is not always 0 (a run on a fresh
# clone saw 00000001 in one of two builds of the same file, nothing else apart).
same_object_but_nvcc_temp_name() { # A B
	LC_ALL=C sed 's/tmpxft_[0-9a-f]\{8\}_[0-9a-f]\{8\}-/tmpxft_XXXXXXXX_XXXXXXXX-/g' "$1" >"$1.masked"
	LC_ALL=C sed 's/tmpxft_[0-9a-f]\{8\}_[0-9a-f]\{8\}-/tmpxft_XXXXXXXX_XXXXXXXX-/g' "$2" >"$2.masked"
	cmp -s "$1.masked" "$2.masked"
}

test_the_launcher_wraps_the_rewritten_compile_and_not_the_fast_path_or_the_reference() {
	setup_seeded
	make_quick_nvcc
	make_recording_launcher
	export EGG_COMPILER_LAUNCHER="$T/launcher/rec --flag"
	run_cmd r "$EGG_CC" "$T/quick/nvcc" -O3 -arch=sm_90 -c kernels.cu -o k.o || fail "build: $(cat r.err)"
	expect_eq "$(wc -l <launcher/calls)" 1 "launcher calls"
	local call rewritten
	call=$(cat launcher/calls)
	rewritten=$(ls "$EGG_CACHE_DIR"/rewritten/*/kernels.cu) || fail "no rewritten source in the cache"
	expect_eq "$call" "--flag|$T/quick/nvcc|-O3|-arch=sm_90|-c|$rewritten|-o|k.o|-Xcompiler|-iquote,."
	# the fast path (no annotation) and mode off go straight to nvcc
	"$EGG_CC" "$T/quick/nvcc" -O3 -arch=sm_90 -c main.cu -o m.o || fail "main.cu"
	EGG_MODE=off "$EGG_CC" "$T/quick/nvcc" -O3 -arch=sm_90 -c kernels.cu -o k.o || fail "mode off"
	# nothing to rewrite (an empty cache): the reference is compiled without it
	EGG_CACHE_DIR=$T/empty "$EGG_CC" "$T/quick/nvcc" -O3 -arch=sm_90 -c kernels.cu -o k.o ||
		fail "no winners"
	expect_eq "$(wc -l <launcher/calls)" 1 "launcher calls after the other builds"
}

test_a_launcher_that_cannot_be_found_is_one_warning_and_the_winners_are_still_linked() {
	setup_seeded
	make_quick_nvcc
	EGG_COMPILER_LAUNCHER=no-such-ccache run_cmd r "$EGG_CC" "$T/quick/nvcc" -O3 -arch=sm_90 \
		-c kernels.cu -o k.o || fail "build: $(cat r.err)"
	expect_eq "$(cat r.err)" "egg-cc: warning: egg: the compiler_launcher 'no-such-ccache' cannot be run; compiling without it"
	cmp -s quick/given.cu "$(ls "$EGG_CACHE_DIR"/rewritten/*/kernels.cu)" || fail "nvcc was not given the rewritten source"
}

test_two_builds_of_the_same_winners_give_the_same_object() {
	setup_seeded
	# nvcc names an anonymous namespace after the directory of the source it compiles
	printf '%s\n' 'namespace { __global__ void anon(float *x) { x[0] = 1; } }' \
		'void launch_anon(float *x) { anon<<<1, 1>>>(x); }' >>kernels.cu
	run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o k.o || fail "build: $(cat r.err)"
	mv k.o k1.o
	run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o k.o || fail "build: $(cat r.err)"
	nm -C k.o >k.nm
	grep -q ' T egg_winner__' k.nm || fail "no winner linked"
	same_object_but_nvcc_temp_name k1.o k.o || fail "the objects differ ($(ls "$EGG_CACHE_DIR"/rewritten | wc -l) rewritten sources): $(cmp k1.o.masked k.o.masked; strings -n 6 k1.o.masked >s1; strings -n 6 k.o.masked | diff s1 - | head -5)"
	expect_eq "$(ls -d "$EGG_CACHE_DIR"/rewritten/* | wc -l)" 1 "rewritten sources kept"
}

test_with_ccache_as_the_launcher_a_repeated_hit_is_a_ccache_hit() {
	command -v ccache >/dev/null || skip "no ccache"
	setup_seeded
	export CCACHE_DIR=$T/ccache EGG_COMPILER_LAUNCHER=ccache
	run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o k.o || fail "build: $(cat r.err)"
	mv k.o k1.o
	run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o k.o || fail "build: $(cat r.err)"
	ccache --print-stats >stats.txt
	local hits misses
	hits=$(awk '$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { n += $2 } END { print n + 0 }' stats.txt)
	misses=$(awk '$1 == "cache_miss" { print $2 }' stats.txt)
	expect_eq "$hits/$misses" "1/1" "ccache hits/misses"
	cmp -s k1.o k.o || fail "ccache's hit is not the first build's object"
	nm -C k.o >k.nm
	grep -q ' T egg_winner__' k.nm || fail "no winner linked"
}

test_clearing_or_evicting_the_cache_removes_the_rewritten_sources_it_no_longer_needs() {
	setup_seeded
	make_quick_nvcc
	"$EGG_CC" "$T/quick/nvcc" -O3 -arch=sm_90 -c kernels.cu -o k.o || fail "build"
	local kept old=$EGG_CACHE_DIR/rewritten/$(printf '%064d' 0)
	kept=$(ls -d "$EGG_CACHE_DIR"/rewritten/*) || fail "no rewritten source"
	mkdir -p "$old" && touch -d '3 days ago' "$old"
	"$EGG" cache evict --older-than 1d >/dev/null || fail "evict"
	[ -d "$kept" ] || fail "the source of entries still in the cache was removed"
	[ ! -e "$old" ] || fail "a source older than every entry was kept"
	"$EGG" cache clear >/dev/null || fail "clear"
	expect_eq "$(ls "$EGG_CACHE_DIR"/rewritten)" "" "rewritten sources after clear"
}
