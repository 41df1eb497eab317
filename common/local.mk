# common/: utilities every module uses, and the bundle (the pipeline's contract).
noinst_LIBRARIES += libeggcommon.a
libeggcommon_a_SOURCES = \
	common/util.c common/util.h \
	common/strbuf.c common/strbuf.h \
	common/strvec.c common/strvec.h \
	common/fsutil.c common/fsutil.h \
	common/child.c common/child.h \
	common/sigpipe.c common/sigpipe.h \
	common/outage.c common/outage.h \
	common/hoist.c common/hoist.h \
	common/log.c common/log.h

# The bundle (JSON through cJSON) in its own library, so that programs which never
# read a bundle (egg-cc's fast path) do not link cJSON.
noinst_LIBRARIES += libeggbundle.a
libeggbundle_a_SOURCES = common/bundle.c common/bundle.h
libeggbundle_a_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)

# SHA-256 and HMAC (libcrypto) in their own library, for the same reason.
noinst_LIBRARIES += libeggdigest.a
libeggdigest_a_SOURCES = common/digest.c common/digest.h
libeggdigest_a_CFLAGS = $(AM_CFLAGS) $(CRYPTO_CFLAGS)
DIGEST_LIBS = libeggdigest.a $(CRYPTO_LIBS)

check_PROGRAMS += tests/unit/test_child
tests_unit_test_child_SOURCES = tests/unit/test_child.c
tests_unit_test_child_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_child_LDADD = $(UNIT_LDADD)
UNIT_TESTS += tests/unit/test_child

check_PROGRAMS += tests/unit/test_sigpipe
tests_unit_test_sigpipe_SOURCES = tests/unit/test_sigpipe.c
tests_unit_test_sigpipe_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_sigpipe_LDADD = $(UNIT_LDADD)
UNIT_TESTS += tests/unit/test_sigpipe

check_PROGRAMS += tests/unit/test_outage
tests_unit_test_outage_SOURCES = tests/unit/test_outage.c
tests_unit_test_outage_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_outage_LDADD = $(UNIT_LDADD)
UNIT_TESTS += tests/unit/test_outage
