# driver/: egg-cc, the nvcc drop-in (libc only: what `egg plan` runs is plan/).
noinst_LIBRARIES += libeggdriver.a
libeggdriver_a_SOURCES = \
	driver/invoke.c driver/invoke.h \
	driver/args.c driver/args.h driver/nvcc-options.def \
	driver/scan.c driver/scan.h \
	driver/compile_annotated.c driver/compile_annotated.h driver/plan_protocol.h \
	driver/interface.c driver/interface.h

bin_PROGRAMS += egg-cc
egg_cc_SOURCES = driver/egg-cc.c
egg_cc_LDADD = libeggdriver.a libeggcommon.a

# driver/gen-nvcc-options regenerates driver/nvcc-options.def from the installed nvcc.
EXTRA_DIST += driver/gen-nvcc-options

check_PROGRAMS += tests/unit/test_args
tests_unit_test_args_SOURCES = tests/unit/test_args.c
tests_unit_test_args_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_args_LDADD = $(UNIT_LDADD)
UNIT_TESTS += tests/unit/test_args

check_PROGRAMS += tests/unit/test_scan
tests_unit_test_scan_SOURCES = tests/unit/test_scan.c
tests_unit_test_scan_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_scan_LDADD = $(UNIT_LDADD)
UNIT_TESTS += tests/unit/test_scan

SUITES += tests/suites/nvcc_options.bash tests/suites/fast_path.bash

# args-dump prints the model of a command line; tests/suites/args_vs_nvcc.bash
# compares it with nvcc -dryrun.
check_PROGRAMS += tests/tools/args-dump
tests_tools_args_dump_SOURCES = tests/tools/args-dump.c
tests_tools_args_dump_LDADD = libeggdriver.a libeggcommon.a
SUITES += tests/suites/args_vs_nvcc.bash

check_PROGRAMS += tests/unit/test_interface
tests_unit_test_interface_SOURCES = tests/unit/test_interface.c
tests_unit_test_interface_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_interface_LDADD = $(UNIT_LDADD)
UNIT_TESTS += tests/unit/test_interface
