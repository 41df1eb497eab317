# bench/: the benchmark suite (bench/suite/run.sh runs it on a GPU; see its README).
# Its CPU checks are the shell suite tests/suites/bench_suite.bash.
BENCH_CASES = \
	bench/suite/cases/batchnorm_infer.cu \
	bench/suite/cases/bias_gelu.cu \
	bench/suite/cases/bitonic_segments.cu \
	bench/suite/cases/bmm.cu \
	bench/suite/cases/collatz.cu \
	bench/suite/cases/embedding.cu \
	bench/suite/cases/gelu_tanh.cu \
	bench/suite/cases/histogram.cu \
	bench/suite/cases/layer_norm.cu \
	bench/suite/cases/linear_relu.cu \
	bench/suite/cases/log_softmax.cu \
	bench/suite/cases/matmul.cu \
	bench/suite/cases/mid_sum.cu \
	bench/suite/cases/relu.cu \
	bench/suite/cases/rms_norm_residual.cu \
	bench/suite/cases/row_cumsum.cu \
	bench/suite/cases/row_max.cu \
	bench/suite/cases/row_mean.cu \
	bench/suite/cases/row_sum.cu \
	bench/suite/cases/scale_residual_relu.cu \
	bench/suite/cases/silu.cu \
	bench/suite/cases/softmax.cu \
	bench/suite/cases/stencil5.cu \
	bench/suite/cases/sum_squares.cu \
	bench/suite/cases/swiglu.cu \
	bench/suite/cases/transpose.cu

SUITES += tests/suites/bench_suite.bash
EXTRA_DIST += bench/suite/README.md bench/suite/run.sh bench/suite/suite.py bench/suite/merge.py \
	bench/suite/casefile.py bench/suite/report.py bench/suite/torch_ref.py \
	bench/suite/bench_main.cu bench/suite/bench_case.h $(BENCH_CASES) \
	tests/data/bench/hostsim.h tests/data/bench/hostsim_cases.cpp \
	tests/data/bench/hostsim_bf16.cpp tests/data/bench/bf16_double.cu
