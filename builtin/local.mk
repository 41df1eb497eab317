# builtin/: the builtin generator -- issue 7.  One folder per stage of its
# pipeline (ARCHITECTURE.md): parse/ (the C subset), lift/ (the lifter and its
# IR), recipes/ (+ templates/), keep/ (the paths that keep the reference's
# code), check/ (the GPU check program); builtin.c drives them.
noinst_LIBRARIES += libeggbuiltin.a
libeggbuiltin_a_SOURCES = \
	builtin/builtin.c builtin/builtin.h builtin/launch_check.c builtin/launch_check.h \
	builtin/emit.c builtin/emit.h \
	builtin/parse/parse.c builtin/parse/parse_lex.c builtin/parse/parse.h \
	builtin/parse/parse_internal.h builtin/parse/ast.c builtin/parse/ast.h \
	builtin/lift/ir.c builtin/lift/ir.h builtin/lift/ir_contract.c \
	builtin/lift/lift.c builtin/lift/lift_expr.c builtin/lift/lift_stmt.c \
	builtin/lift/lift_launcher.c builtin/lift/lift_contract.c \
	builtin/lift/lift_2d.c builtin/lift/lift_copy.c builtin/lift/affine.c builtin/lift/affine.h \
	builtin/lift/lift_tree.c builtin/lift/lift_tree.h \
	builtin/lift/lift_block.c builtin/lift/lift_block.h builtin/lift/lift_block_forms.c \
	builtin/lift/lift_block_internal.h \
	builtin/lift/lift_inline.c builtin/lift/lift_inline.h \
	builtin/lift/lift.h builtin/lift/lift_internal.h \
	builtin/lift/fuse.c builtin/lift/fuse.h \
	builtin/keep/generic.c builtin/keep/generic.h builtin/keep/generic_internal.h \
	builtin/keep/fastdiv.c builtin/keep/fastdiv.h \
	builtin/keep/butterfly.c builtin/keep/butterfly.h \
	builtin/keep/refill.c builtin/keep/refill.h \
	builtin/check/check.c builtin/check/check.h \
	builtin/recipes/recipe.h builtin/recipes/common.c builtin/recipes/common.h \
	builtin/recipes/elementwise.c builtin/recipes/rows.c builtin/recipes/reduce.c \
	builtin/recipes/rows_columns.c builtin/recipes/rows_columns.h \
	builtin/recipes/gemm.c \
	builtin/recipes/grid2d.c builtin/recipes/grid2d.h \
	builtin/recipes/transpose.c builtin/recipes/stencil.c \
	builtin/recipes/scatter.c builtin/recipes/scan.c builtin/recipes/persist.c

templatesdir = $(pkgdatadir)/templates
dist_templates_DATA = \
	builtin/templates/prelude.cu builtin/templates/stream.cu \
	builtin/templates/rows.cu builtin/templates/reduce_final.cu builtin/templates/reduce_last.cu \
	builtin/templates/gemm.cu builtin/templates/gemm_helpers.cu builtin/templates/gemm_tf32.cu \
	builtin/templates/gemm_async.cu builtin/templates/gemm_async_helpers.cu builtin/templates/gemm_mma.cu \
	builtin/templates/gemm_split.cu \
	builtin/templates/transpose.cu builtin/templates/stencil.cu \
	builtin/templates/stencil_window.cu builtin/templates/planes.cu \
	builtin/templates/rows_split.cu builtin/templates/rows_sorted.cu builtin/templates/scan.cu \
	builtin/templates/butterfly.cu builtin/templates/fastdiv.cu builtin/templates/persist.cu \
	builtin/templates/narrow.cu


check_PROGRAMS += tests/unit/test_builtin
tests_unit_test_builtin_SOURCES = tests/unit/test_builtin.c tests/unit/builtin_helpers.h
tests_unit_test_builtin_CFLAGS = $(UNIT_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_builtin_LDADD = libeggbuiltin.a libeggbundle.a $(UNIT_LDADD) $(CJSON_LIBS)
UNIT_TESTS += tests/unit/test_builtin

check_PROGRAMS += tests/unit/test_builtin_rows
tests_unit_test_builtin_rows_SOURCES = tests/unit/test_builtin_rows.c tests/unit/builtin_helpers.h
tests_unit_test_builtin_rows_CFLAGS = $(UNIT_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_builtin_rows_LDADD = libeggbuiltin.a libeggbundle.a $(UNIT_LDADD) $(CJSON_LIBS)
UNIT_TESTS += tests/unit/test_builtin_rows

check_PROGRAMS += tests/unit/test_builtin_block
tests_unit_test_builtin_block_SOURCES = tests/unit/test_builtin_block.c tests/unit/builtin_helpers.h
tests_unit_test_builtin_block_CFLAGS = $(UNIT_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_builtin_block_LDADD = libeggbuiltin.a libeggbundle.a $(UNIT_LDADD) $(CJSON_LIBS)
UNIT_TESTS += tests/unit/test_builtin_block

SUITES += tests/suites/builtin.bash tests/suites/builtin_gemm.bash tests/suites/builtin_long_rows.bash tests/suites/builtin_narrow.bash
# whole folders: the stand-in and the test bundles grow with the families
EXTRA_DIST += builtin/tests/gpu-check.sh builtin/tests/emu-check.sh builtin/tests/probe-check.sh builtin/version.sha256 \
	builtin/tests/emu builtin/tests/check.sha256 builtin/tests/check-hashes builtin/tests/results tests/data/builtin

check_PROGRAMS += tests/unit/test_builtin_contract_generic
tests_unit_test_builtin_contract_generic_SOURCES = tests/unit/test_builtin_contract_generic.c tests/unit/builtin_data.h
tests_unit_test_builtin_contract_generic_CFLAGS = $(UNIT_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_builtin_contract_generic_LDADD = libeggbuiltin.a libeggbundle.a $(UNIT_LDADD) $(CJSON_LIBS)
UNIT_TESTS += tests/unit/test_builtin_contract_generic
check_PROGRAMS += tests/unit/test_builtin_scatter
tests_unit_test_builtin_scatter_SOURCES = tests/unit/test_builtin_scatter.c tests/unit/builtin_helpers.h
tests_unit_test_builtin_scatter_CFLAGS = $(UNIT_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_builtin_scatter_LDADD = libeggbuiltin.a libeggbundle.a $(UNIT_LDADD) $(CJSON_LIBS)
UNIT_TESTS += tests/unit/test_builtin_scatter
check_PROGRAMS += tests/unit/test_builtin_2d
tests_unit_test_builtin_2d_SOURCES = tests/unit/test_builtin_2d.c tests/unit/builtin_helpers.h
tests_unit_test_builtin_2d_CFLAGS = $(UNIT_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_builtin_2d_LDADD = libeggbuiltin.a libeggbundle.a $(UNIT_LDADD) $(CJSON_LIBS)
UNIT_TESTS += tests/unit/test_builtin_2d
check_PROGRAMS += tests/unit/test_builtin_scan
tests_unit_test_builtin_scan_SOURCES = tests/unit/test_builtin_scan.c tests/unit/builtin_helpers.h
tests_unit_test_builtin_scan_CFLAGS = $(UNIT_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_builtin_scan_LDADD = libeggbuiltin.a libeggbundle.a $(UNIT_LDADD) $(CJSON_LIBS)
UNIT_TESTS += tests/unit/test_builtin_scan

check_PROGRAMS += tests/unit/test_builtin_butterfly
tests_unit_test_builtin_butterfly_SOURCES = tests/unit/test_builtin_butterfly.c tests/unit/builtin_helpers.h tests/unit/builtin_data.h
tests_unit_test_builtin_butterfly_CFLAGS = $(UNIT_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_builtin_butterfly_LDADD = libeggbuiltin.a libeggbundle.a $(UNIT_LDADD) $(CJSON_LIBS)
UNIT_TESTS += tests/unit/test_builtin_butterfly

check_PROGRAMS += tests/unit/test_builtin_refill
tests_unit_test_builtin_refill_SOURCES = tests/unit/test_builtin_refill.c tests/unit/builtin_helpers.h tests/unit/builtin_data.h
tests_unit_test_builtin_refill_CFLAGS = $(UNIT_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_builtin_refill_LDADD = libeggbuiltin.a libeggbundle.a $(UNIT_LDADD) $(CJSON_LIBS)
UNIT_TESTS += tests/unit/test_builtin_refill

check_PROGRAMS += tests/unit/test_builtin_fastdiv
tests_unit_test_builtin_fastdiv_SOURCES = tests/unit/test_builtin_fastdiv.c tests/unit/builtin_helpers.h
tests_unit_test_builtin_fastdiv_CFLAGS = $(UNIT_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_builtin_fastdiv_LDADD = libeggbuiltin.a libeggbundle.a $(UNIT_LDADD) $(CJSON_LIBS)
UNIT_TESTS += tests/unit/test_builtin_fastdiv

check_PROGRAMS += tests/unit/test_builtin_narrow
tests_unit_test_builtin_narrow_SOURCES = tests/unit/test_builtin_narrow.c
tests_unit_test_builtin_narrow_CFLAGS = $(UNIT_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_builtin_narrow_LDADD = libeggbuiltin.a libeggbundle.a $(UNIT_LDADD) $(CJSON_LIBS)
UNIT_TESTS += tests/unit/test_builtin_narrow
