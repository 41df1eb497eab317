# agents/: the model backends (llm.c: HTTP, retries, errors, accounting over
# libcurl and cJSON) and, on top of them, the staged search.  Its own library,
# because it links libcurl and cJSON, which egg-cc's fast path must not load.
noinst_LIBRARIES += libeggagents.a
libeggagents_a_SOURCES = \
	agents/llm.c agents/llm.h \
	agents/llm_parse.c agents/llm_parse.h
libeggagents_a_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS) $(CURL_CFLAGS)
# What a program linking libeggagents.a adds to its LDADD.
AGENTS_LDADD = libeggagents.a libeggcommon.a $(CJSON_LIBS) $(CURL_LIBS)

check_PROGRAMS += tests/unit/test_llm
tests_unit_test_llm_SOURCES = tests/unit/test_llm.c
tests_unit_test_llm_CFLAGS = $(UNIT_CFLAGS) $(CJSON_CFLAGS) $(CURL_CFLAGS)
tests_unit_test_llm_LDADD = $(AGENTS_LDADD) $(CMOCKA_LIBS)
UNIT_TESTS += tests/unit/test_llm

# llm-chat sends one conversation through a backend; tests/suites/llm.bash
# drives it against the scripted model server.
check_PROGRAMS += tests/tools/llm-chat
tests_tools_llm_chat_SOURCES = tests/tools/llm-chat.c
tests_tools_llm_chat_LDADD = $(AGENTS_LDADD)

SUITES += tests/suites/llm.bash
EXTRA_DIST += tests/agents/model-server.py
