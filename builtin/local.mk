# builtin/: the builtin generator (lift, recipes, templates) -- issue 7.
noinst_LIBRARIES += libeggbuiltin.a
libeggbuiltin_a_SOURCES = \
	builtin/builtin.c builtin/builtin.h \
	builtin/ir.c builtin/ir.h \
	builtin/parse.c builtin/parse_lex.c builtin/parse.h builtin/parse_internal.h \
	builtin/lift.c builtin/lift_expr.c builtin/lift_stmt.c builtin/lift_launcher.c \
	builtin/lift_contract.c builtin/ir_contract.c \
	builtin/lift_2d.c builtin/affine.c builtin/affine.h \
	builtin/lift_tree.c builtin/lift_tree.h \
	builtin/lift_inline.c builtin/lift_inline.h \
	builtin/lift.h builtin/lift_internal.h \
	builtin/emit.c builtin/emit.h \
	builtin/fuse.c builtin/fuse.h \
	builtin/generic.c builtin/generic.h builtin/generic_internal.h \
	builtin/fastdiv.c builtin/fastdiv.h \
	builtin/butterfly.c builtin/butterfly.h \
	builtin/refill.c builtin/refill.h \
	builtin/check.c builtin/check.h \
	builtin/recipes/recipe.h builtin/recipes/common.c builtin/recipes/common.h \
	builtin/recipes/elementwise.c builtin/recipes/rows.c builtin/recipes/reduce.c \
	builtin/recipes/gemm.c \
	builtin/recipes/grid2d.c builtin/recipes/grid2d.h \
	builtin/recipes/transpose.c builtin/recipes/stencil.c \
	builtin/recipes/scatter.c builtin/recipes/scan.c

templatesdir = $(pkgdatadir)/templates
dist_templates_DATA = \
	builtin/templates/prelude.cu builtin/templates/stream.cu \
	builtin/templates/rows.cu builtin/templates/reduce_final.cu \
	builtin/templates/gemm.cu builtin/templates/gemm_helpers.cu builtin/templates/gemm_tf32.cu \
	builtin/templates/gemm_split.cu \
	builtin/templates/transpose.cu builtin/templates/stencil.cu \
	builtin/templates/stencil_window.cu builtin/templates/planes.cu \
	builtin/templates/rows_split.cu builtin/templates/scan.cu \
	builtin/templates/butterfly.cu builtin/templates/fastdiv.cu


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

SUITES += tests/suites/builtin.bash tests/suites/builtin_gemm.bash
EXTRA_DIST += builtin/tests/gpu-check.sh builtin/version.sha256 \
	tests/data/builtin/gemm_driver.cpp \
	builtin/tests/emu-check.sh builtin/tests/emu/cuda_runtime.h builtin/tests/emu/launches.py \
	builtin/tests/check/axpy_double.cu \
	builtin/tests/check/bias_gelu.cu \
	builtin/tests/check/bitonic.cu \
	builtin/tests/check/bias_relu_2d.cu \
	builtin/tests/check/bias_softmax.cu \
	builtin/tests/check/bmm_odd.cu \
	builtin/tests/check/collatz.cu \
	builtin/tests/check/gemm_awkward.cu \
	builtin/tests/check/gemm_flat_nt.cu \
	builtin/tests/check/gemm_tf32.cu \
	builtin/tests/check/gemm_tn_alpha_beta.cu \
	builtin/tests/check/blur_clamp.cu \
	builtin/tests/check/blur_inner.cu \
	builtin/tests/check/embedding.cu \
	builtin/tests/check/embedding_odd.cu \
	builtin/tests/check/mid_sum.cu \
	builtin/tests/check/gather_scale.cu \
	builtin/tests/check/batchnorm_infer.cu \
	builtin/tests/check/stencil5.cu \
	builtin/tests/check/stencil5_odd.cu \
	builtin/tests/check/stencil9.cu \
	builtin/tests/check/transpose.cu \
	builtin/tests/check/transpose_odd.cu \
	builtin/tests/check/transpose_relu.cu \
	builtin/tests/check/histogram.cu \
	builtin/tests/check/weighted_hist.cu \
	builtin/tests/check/layernorm.cu \
	builtin/tests/check/linear_gelu_odd.cu \
	builtin/tests/check/log_softmax.cu \
	builtin/tests/check/relu.cu \
	builtin/tests/check/rmsnorm.cu \
	builtin/tests/check/row_max_posum.cu \
	builtin/tests/check/rowsum.cu \
	builtin/tests/check/scale_residual.cu \
	builtin/tests/check/scan.cu \
	builtin/tests/check/scan_excl.cu \
	builtin/tests/check/drawdown.cu \
	builtin/tests/check/serial_norm.cu \
	builtin/tests/check/silu_kernel.cu \
	builtin/tests/check/softmax.cu \
	builtin/tests/check/softmax_first.cu \
	builtin/tests/check/add_rms_norm.cu \
	builtin/tests/check/sumsq_tree.cu \
	builtin/tests/check/row_mean_tree.cu \
	builtin/tests/check/sumsq.cu \
	tests/data/builtin/axpy_double.json \
	tests/data/builtin/bias_gelu.json \
	tests/data/builtin/bias_relu_2d.json \
	tests/data/builtin/bias_softmax.json \
	tests/data/builtin/bitonic.json \
	tests/data/builtin/bmm_odd.json \
	tests/data/builtin/collatz.json \
	tests/data/builtin/gemm_awkward.json \
	tests/data/builtin/gemm_flat_nt.json \
	tests/data/builtin/gemm_tf32.json \
	tests/data/builtin/gemm_tn_alpha_beta.json \
	tests/data/builtin/blur_clamp.json \
	tests/data/builtin/blur_inner.json \
	tests/data/builtin/embedding.json \
	tests/data/builtin/embedding_odd.json \
	tests/data/builtin/mid_sum.json \
	tests/data/builtin/gather_scale.json \
	tests/data/builtin/batchnorm_infer.json \
	tests/data/builtin/stencil5.json \
	tests/data/builtin/stencil5_odd.json \
	tests/data/builtin/stencil9.json \
	tests/data/builtin/transpose.json \
	tests/data/builtin/transpose_odd.json \
	tests/data/builtin/transpose_relu.json \
	tests/data/builtin/histogram.json \
	tests/data/builtin/weighted_hist.json \
	tests/data/builtin/layernorm.json \
	tests/data/builtin/linear_gelu_odd.json \
	tests/data/builtin/log_softmax.json \
	tests/data/builtin/relu.json \
	tests/data/builtin/rmsnorm.json \
	tests/data/builtin/row_max_posum.json \
	tests/data/builtin/rowsum.json \
	tests/data/builtin/scale_residual.json \
	tests/data/builtin/scan.json \
	tests/data/builtin/scan_excl.json \
	tests/data/builtin/drawdown.json \
	tests/data/builtin/serial_norm.json \
	tests/data/builtin/silu_kernel.json \
	tests/data/builtin/softmax.json \
	tests/data/builtin/softmax_first.json \
	tests/data/builtin/add_rms_norm.json \
	tests/data/builtin/sumsq_tree.json \
	tests/data/builtin/row_mean_tree.json \
	tests/data/builtin/sumsq.json

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
