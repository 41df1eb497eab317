# tests/: unit tests (cmocka) and shell suites, run by tests/run.
UNIT_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
UNIT_LDADD = libeggdriver.a libeggcommon.a $(CMOCKA_LIBS)

check_PROGRAMS += tests/unit/test_common
tests_unit_test_common_SOURCES = tests/unit/test_common.c
tests_unit_test_common_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_common_LDADD = $(UNIT_LDADD)
UNIT_TESTS += tests/unit/test_common

check_PROGRAMS += tests/unit/test_bundle
tests_unit_test_bundle_SOURCES = tests/unit/test_bundle.c
tests_unit_test_bundle_CFLAGS = $(UNIT_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_bundle_LDADD = libeggbundle.a $(UNIT_LDADD) $(CJSON_LIBS)
UNIT_TESTS += tests/unit/test_bundle

SUITES += tests/suites/driver_forms.bash tests/suites/examples.bash tests/suites/docs.bash tests/suites/ci_deps.bash tests/suites/runner.bash tests/suites/install.bash tests/suites/pipeline.bash tests/suites/interface.bash \
	tests/suites/compiler_launcher.bash

EXTRA_DIST += tests/run tests/durations.hint tests/suites/lib.bash tests/tools/edit-entry.py $(SUITES)

check-local: $(check_PROGRAMS) egg-cc egg
	@EGG_BUILDDIR=$(abs_top_builddir) EGG_SRCDIR=$(abs_top_srcdir) \
	  $(SHELL) $(top_srcdir)/tests/run $(TESTS_FILTER) $(UNIT_TESTS) -- \
	  $(addprefix $(abs_top_srcdir)/,$(SUITES))

clean-local: clean-local-tests
clean-local-tests:
	-rm -rf tests/logs
.PHONY: clean-local-tests

check_PROGRAMS += tests/unit/test_rewrite
tests_unit_test_rewrite_SOURCES = tests/unit/test_rewrite.c
tests_unit_test_rewrite_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_rewrite_LDADD = libeggplan.a $(UNIT_LDADD)
UNIT_TESTS += tests/unit/test_rewrite
EXTRA_DIST += tests/data/pipeline/recorded-eval examples/seed/example-seed.egg.gz examples/seed/example-run-2026-12-03.txt examples/seed/reseed.sh
EXTRA_DIST += tests/gpu/kernel-target/kernel.cu tests/gpu/kernel-target/main.cu tests/gpu/kernel-target/run.sh \
	tests/gpu/c-linkage/run.sh
