# common/config.mk: egg's configuration (egg.conf, EGG_* variables, --egg-* options),
# read by egg-cc and by egg, with its tests and its manual page.
libeggcommon_a_SOURCES += common/egg_config.c common/egg_config.h common/egg_config_int.h \
	common/egg_config_keys.c common/egg_config_value.c

check_PROGRAMS += tests/unit/test_config
tests_unit_test_config_SOURCES = tests/unit/test_config.c
tests_unit_test_config_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_config_LDADD = $(UNIT_LDADD)
UNIT_TESTS += tests/unit/test_config

SUITES += tests/suites/config.bash

dist_man_MANS += man/egg.conf.5
