# agents/search.mk: the staged agent search (issue 6) on top of the model
# transport (agents/local.mk): extraction of model output, tunable parameters,
# context management, the stages, and the prompts it reads.  A fragment of its
# own so that the transport's and the search's build lines never conflict.
noinst_LIBRARIES += libeggsearch.a
libeggsearch_a_SOURCES = \
	agents/search.c agents/search.h agents/search_int.h \
	agents/search_step.c agents/configured.c \
	agents/family.c \
	agents/extract.c agents/extract.h \
	agents/tune.c agents/tune.h \
	agents/context.c agents/context.h \
	agents/measure.c agents/measure.h \
	agents/prompts.c agents/prompts.h
libeggsearch_a_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
# What a program linking the search adds to its LDADD (users first).
SEARCH_LDADD = libeggsearch.a libeggbuiltin.a $(AGENTS_LDADD) $(CACHE_LDADD)

promptsdir = $(pkgdatadir)/prompts
dist_prompts_DATA = prompts/VERSION
promptsrolesdir = $(pkgdatadir)/prompts/roles
dist_promptsroles_DATA = \
	prompts/roles/system.md prompts/roles/structure.md prompts/roles/mapping.md \
	prompts/roles/tiling.md prompts/roles/memory.md prompts/roles/profile.md \
	prompts/roles/debug.md
promptsprinciplesdir = $(pkgdatadir)/prompts/principles
dist_promptsprinciples_DATA = \
	prompts/principles/elementwise.md prompts/principles/rows.md \
	prompts/principles/reduce.md prompts/principles/transpose.md \
	prompts/principles/gather.md prompts/principles/stencil.md \
	prompts/principles/gemm.md prompts/principles/generic.md

check_PROGRAMS += tests/unit/test_agents
tests_unit_test_agents_SOURCES = tests/unit/test_agents.c
tests_unit_test_agents_CFLAGS = $(UNIT_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_agents_LDADD = $(SEARCH_LDADD) libeggbundle.a $(CMOCKA_LIBS) -lm
UNIT_TESTS += tests/unit/test_agents

check_PROGRAMS += tests/unit/test_agents_search
tests_unit_test_agents_search_SOURCES = tests/unit/test_agents_search.c
tests_unit_test_agents_search_CFLAGS = $(UNIT_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_agents_search_LDADD = $(SEARCH_LDADD) libeggbundle.a $(CMOCKA_LIBS) -lm
UNIT_TESTS += tests/unit/test_agents_search

SUITES += tests/suites/agents.bash
EXTRA_DIST += tests/agents/server.bash tests/data/agents/scale.cu tests/data/agents/fixture-eval \
	tests/data/agents/search-fixture
