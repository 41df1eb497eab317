# harness/: the evaluation harness (generation, screening, running, judging).
noinst_LIBRARIES += libeggharness.a
libeggharness_a_SOURCES = \
	harness/gen.c harness/gen.h harness/gen_text.c \
	harness/screen.c harness/screen.h harness/screen_unit.c \
	harness/proc.c harness/proc.h \
	harness/sandbox.c harness/sandbox.h \
	harness/run.c harness/run.h harness/progress.c \
	harness/remote.c harness/result.c \
	harness/run_int.h harness/toolchain.c harness/probe.c harness/judge.c \
	harness/prepared.c harness/prepared.h harness/ncu.c
nodist_libeggharness_a_SOURCES = harness/runtime_text.c
libeggharness_a_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS) $(CRYPTO_CFLAGS)
HARNESS_LIBS = libeggharness.a libeggbundle.a libeggdigest.a libeggcommon.a $(CJSON_LIBS) $(CRYPTO_LIBS) -lm

# runtime.cuh travels inside egg as a C string, so egg eval needs no data path.
harness/runtime_text.c: $(srcdir)/harness/runtime.cuh $(srcdir)/harness/embed.sh
	$(AM_V_GEN)$(MKDIR_P) harness && \
	  $(SHELL) $(srcdir)/harness/embed.sh harness_runtime_text \
	    $(srcdir)/harness/runtime.cuh >$@.tmp && mv $@.tmp $@
CLEANFILES += harness/runtime_text.c
EXTRA_DIST += harness/runtime.cuh harness/embed.sh

check_PROGRAMS += tests/unit/test_screen
tests_unit_test_screen_SOURCES = tests/unit/test_screen.c
tests_unit_test_screen_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_screen_LDADD = libeggharness.a libeggdigest.a $(UNIT_LDADD) $(CJSON_LIBS) $(CRYPTO_LIBS)
UNIT_TESTS += tests/unit/test_screen

check_PROGRAMS += tests/unit/test_harness
tests_unit_test_harness_SOURCES = tests/unit/test_harness.c
tests_unit_test_harness_CFLAGS = $(UNIT_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_harness_LDADD = libeggharness.a libegganalyzer.a libeggbundle.a libeggdigest.a $(UNIT_LDADD) $(CJSON_LIBS) -lm $(CRYPTO_LIBS) $(LIBCLANG_LIBS)
UNIT_TESTS += tests/unit/test_harness

SUITES += tests/suites/harness.bash tests/suites/harness_corpus.bash tests/suites/harness_emu.bash
EXTRA_DIST += \
	tests/data/harness/add_bias.json \
	tests/data/harness/copy.json \
	tests/data/harness/gather.json \
	tests/data/harness/half.json \
	tests/data/harness/saxpy_kernel.json \
	tests/data/harness/sumsq_atomic.json \
	tests/data/harness/scale.json \
	tests/data/harness/softmax.json \
	tests/data/harness/cand/bad_cached.cu \
	tests/data/harness/cand/bad_memo_pointer.cu \
	tests/data/harness/cand/bad_misaligned_vec4.cu \
	tests/data/harness/cand/bad_reads_output.cu \
	tests/data/harness/cand/bad_specialized_scale.cu \
	tests/data/harness/cand/bad_timer_game.cu \
	tests/data/harness/cand/softmax_bad_specialized.cu \
	tests/data/harness/cand/bad_hang.cu \
	tests/data/harness/cand/bad_nan.cu \
	tests/data/harness/cand/bad_oob_read.cu \
	tests/data/harness/cand/bad_oob_write.cu \
	tests/data/harness/cand/bad_side_stream.cu \
	tests/data/harness/cand/bad_slower.cu \
	tests/data/harness/cand/bad_trap.cu \
	tests/data/harness/cand/bad_unwritten.cu \
	tests/data/harness/cand/bad_writes_input.cu \
	tests/data/harness/cand/bad_wrong_last.cu \
	tests/data/harness/cand/bad_wrong_one_seed.cu \
	tests/data/harness/cand/good_saxpy.cu \
	tests/data/harness/cand/good_scale_vec4.cu \
	tests/data/harness/cand/good_softmax_block.cu \
	tests/data/harness/cand/sumsq_bad_partial.cu \
	tests/data/harness/cand/sumsq_good_blocks.cu \
	tests/data/harness/cand/sanitize_softmax_oob.cu \
	tests/data/harness/fake/nvcc \
	tests/data/harness/fake/compute-sanitizer \
	tests/tools/emu-nvcc \
	tests/data/harness/fake/ncu \
	tests/gpu/run-harness-gpu.sh \
	tests/gpu/find-egg.sh \
	tests/gpu/sandbox/run.sh \
	tests/gpu/sandbox/hostile.cu \
	tests/gpu/pack.sh

check_PROGRAMS += tests/unit/test_sandbox
tests_unit_test_sandbox_SOURCES = tests/unit/test_sandbox.c
tests_unit_test_sandbox_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_sandbox_LDADD = libeggharness.a $(UNIT_LDADD) -lpthread
UNIT_TESTS += tests/unit/test_sandbox

check_PROGRAMS += tests/unit/test_gen_text
tests_unit_test_gen_text_SOURCES = tests/unit/test_gen_text.c
tests_unit_test_gen_text_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_gen_text_LDADD = libeggharness.a libegganalyzer.a libeggbundle.a libeggdigest.a $(UNIT_LDADD) $(CJSON_LIBS) -lm $(CRYPTO_LIBS) $(LIBCLANG_LIBS)
UNIT_TESTS += tests/unit/test_gen_text

check_PROGRAMS += tests/unit/test_judge
tests_unit_test_judge_SOURCES = tests/unit/test_judge.c
tests_unit_test_judge_CFLAGS = $(UNIT_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_judge_LDADD = libeggharness.a libegganalyzer.a libeggbundle.a libeggdigest.a $(UNIT_LDADD) $(CJSON_LIBS) -lm $(CRYPTO_LIBS) $(LIBCLANG_LIBS)
UNIT_TESTS += tests/unit/test_judge

check_PROGRAMS += tests/unit/test_screen_allowlist
tests_unit_test_screen_allowlist_SOURCES = tests/unit/test_screen_allowlist.c
tests_unit_test_screen_allowlist_CFLAGS = $(UNIT_CFLAGS) -DEGG_TEST_SRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_screen_allowlist_LDADD = libeggharness.a libegganalyzer.a libeggbundle.a libeggdigest.a $(UNIT_LDADD) $(CJSON_LIBS) -lm $(CRYPTO_LIBS) $(LIBCLANG_LIBS)
UNIT_TESTS += tests/unit/test_screen_allowlist
