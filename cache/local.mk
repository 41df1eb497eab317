# cache/: the content-addressed kernel cache (key, entries, local store, locks,
# HTTP remotes).  Its own library, because it links libcrypto, cJSON and libcurl,
# which egg-cc's fast path must not load.
noinst_LIBRARIES += libeggcache.a
libeggcache_a_SOURCES = \
	cache/key.c cache/key.h \
	cache/entry.c cache/entry.h \
	cache/store.c cache/store.h \
	cache/rewritten.c cache/rewritten.h \
	cache/verify.c cache/verify.h \
	cache/lock.c cache/lock.h \
	cache/remote.c cache/remote.h \
	cache/cache.c cache/cache.h
libeggcache_a_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS) $(CRYPTO_CFLAGS) $(CURL_CFLAGS)
# What a program linking libeggcache.a adds to its LDADD.
CACHE_LDADD = libeggcache.a libeggbundle.a libeggdigest.a libeggcommon.a $(CJSON_LIBS) $(CRYPTO_LIBS) $(CURL_LIBS)

check_PROGRAMS += tests/unit/test_cache_key
tests_unit_test_cache_key_SOURCES = tests/unit/test_cache_key.c
tests_unit_test_cache_key_CFLAGS = $(UNIT_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_cache_key_LDADD = $(CACHE_LDADD) $(CMOCKA_LIBS)
UNIT_TESTS += tests/unit/test_cache_key

check_PROGRAMS += tests/unit/test_cache_store
tests_unit_test_cache_store_SOURCES = tests/unit/test_cache_store.c
tests_unit_test_cache_store_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_cache_store_LDADD = $(CACHE_LDADD) $(CMOCKA_LIBS)
UNIT_TESTS += tests/unit/test_cache_store

# A driver for the shell suites (tests/suites/cache_*.bash).
check_PROGRAMS += tests/cache-tool
tests_cache_tool_SOURCES = tests/cache_tool.c
tests_cache_tool_LDADD = $(CACHE_LDADD)

SUITES += tests/suites/cache_admin.bash tests/suites/cache_concurrency.bash \
	tests/suites/cache_remote.bash tests/suites/cache_trust.bash
EXTRA_DIST += tests/data/cache/bundle.json

# The cache's benchmark (bench/results/cache.txt): make bench/cache && bench/cache ./egg
check_PROGRAMS += bench/cache
bench_cache_SOURCES = bench/cache.c
bench_cache_LDADD = $(CACHE_LDADD)

dist_man_MANS += man/egg-cache.1
