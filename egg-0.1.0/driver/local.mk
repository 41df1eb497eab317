# driver/: egg-cc, the nvcc drop-in.
noinst_LIBRARIES += libeggdriver.a
libeggdriver_a_SOURCES = \
	driver/invoke.c driver/invoke.h

bin_PROGRAMS += egg-cc
egg_cc_SOURCES = driver/egg-cc.c
egg_cc_LDADD = libeggdriver.a libeggcommon.a
