# analyzer/: libclang reads a .cu file and writes bundles.  Linked only into
# `egg` (never into egg-cc, whose fast path must not load libclang).
noinst_LIBRARIES += libegganalyzer.a
libegganalyzer_a_SOURCES = \
	analyzer/analyzer.c analyzer/analyzer.h analyzer/internal.h \
	analyzer/parse.c analyzer/pragma.c analyzer/closure.c analyzer/symbols.c \
	analyzer/clauses.c analyzer/clauses.h \
	analyzer/canon.c analyzer/canon.h analyzer/screen.c
libegganalyzer_a_CFLAGS = $(AM_CFLAGS) $(LIBCLANG_CFLAGS)

# The clause parser and the canonical form need no libclang: unit-tested alone.
check_PROGRAMS += tests/unit/test_clauses
tests_unit_test_clauses_SOURCES = tests/unit/test_clauses.c analyzer/clauses.c analyzer/canon.c
tests_unit_test_clauses_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_clauses_LDADD = libeggbundle.a $(UNIT_LDADD) $(CJSON_LIBS)
UNIT_TESTS += tests/unit/test_clauses

SUITES += tests/suites/analyzer.bash
EXTRA_DIST += tests/data/analyzer bench/analyze
