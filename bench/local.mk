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

# the blind batches (bench/blind/README.md), measured with run.sh --cases-dir
BENCH_BLIND = \
	bench/blind/indexing/batchnorm_relu_nchw.cu \
	bench/blind/indexing/chain_bias_gelu_scale.cu \
	bench/blind/indexing/chain_map_rowsum.cu \
	bench/blind/indexing/chain_rmsnorm_residual.cu \
	bench/blind/indexing/chain_scale_mask_softmax.cu \
	bench/blind/indexing/chain_standardize4.cu \
	bench/blind/indexing/map2d_pitched.cu \
	bench/blind/indexing/permute_heads_z.cu \
	bench/blind/indexing/scale_add_planes_3d.cu \
	bench/blind/indexing/stencil5_gridstride.cu \
	bench/blind/indexing/stencil5_xy.cu \
	bench/blind/indexing/stencil7_3d.cu \
	bench/blind/indexing/stencil9_flat.cu \
	bench/blind/indexing/torch_refs.py \
	bench/blind/indexing/transpose_gridstride.cu \
	bench/blind/indexing/transpose_tiled.cu \
	bench/blind/indexing/transpose_xy.cu \
	bench/blind/llmc/adamw.cu \
	bench/blind/llmc/attention_softmax.cu \
	bench/blind/llmc/bias_backward.cu \
	bench/blind/llmc/crossentropy_forward.cu \
	bench/blind/llmc/crossentropy_softmax_backward.cu \
	bench/blind/llmc/encoder_backward.cu \
	bench/blind/llmc/encoder_forward.cu \
	bench/blind/llmc/fused_classifier.cu \
	bench/blind/llmc/gelu_backward.cu \
	bench/blind/llmc/gelu_forward.cu \
	bench/blind/llmc/global_norm.cu \
	bench/blind/llmc/layernorm_backward.cu \
	bench/blind/llmc/layernorm_forward.cu \
	bench/blind/llmc/matmul_forward.cu \
	bench/blind/llmc/residual_forward.cu \
	bench/blind/llmc/softmax_vocab.cu \
	bench/blind/llmc/torch_refs.py \
	bench/blind/README.md

SUITES += tests/suites/bench_suite.bash
EXTRA_DIST += bench/suite/README.md bench/suite/run.sh bench/suite/suite.py bench/suite/merge.py \
	bench/suite/casefile.py bench/suite/report.py bench/suite/torch_ref.py \
	bench/suite/bench_main.cu bench/suite/bench_case.h $(BENCH_CASES) $(BENCH_BLIND) \
	tests/data/bench/hostsim.h tests/data/bench/hostsim_cases.cpp \
	tests/data/bench/hostsim_bf16.cpp tests/data/bench/bf16_double.cu
