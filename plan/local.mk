# plan/: what `egg plan` runs for egg-cc (driver/compile_annotated.c): the
# pipeline, the rewrite, the report and the progress lines.  Linked into egg
# only (libclang, the cache, the harness), never into egg-cc.
noinst_LIBRARIES += libeggplan.a
libeggplan_a_SOURCES = plan/pipeline.c plan/pipeline.h \
	plan/rewrite.c plan/rewrite.h \
	plan/pipeline_search.c plan/pipeline_search.h \
	plan/pipeline_verify.c plan/pipeline_verify.h \
	plan/pipeline_regenerate.c plan/pipeline_regenerate.h \
	plan/progress.c plan/progress.h \
	plan/report.c plan/report.h
libeggplan_a_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)

# The per-kernel report, `egg report` and the verify mode.
SUITES += tests/suites/report.bash tests/suites/verify.bash
EXTRA_DIST += tests/data/report/helpers.sh

check_PROGRAMS += tests/unit/test_report
tests_unit_test_report_SOURCES = tests/unit/test_report.c
tests_unit_test_report_CFLAGS = $(UNIT_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_report_LDADD = libeggplan.a $(CACHE_LDADD) $(CMOCKA_LIBS) -lm
UNIT_TESTS += tests/unit/test_report
