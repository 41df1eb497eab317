# tests/gpu/agents-search: one real agent search on the GPU (run.sh), and the
# CPU suite that proves its fixture.
SUITES += tests/suites/agents_gpu_fixture.bash
EXTRA_DIST += tests/gpu/agents-search/softmax.cu tests/gpu/agents-search/main.cu \
	tests/gpu/agents-search/run.sh tests/gpu/agents-search/fixture.json \
	tests/gpu/agents-search/make-fixture.py tests/gpu/agents-search/cpu-eval \
	tests/gpu/agents-search/replies/a0-warp-typo.cu tests/gpu/agents-search/replies/a1-warp-fixed.cu \
	tests/gpu/agents-search/replies/b0-block-unroll4.cu tests/gpu/agents-search/replies/b1-block-tail.cu \
	tests/gpu/agents-search/replies/c-online.cu tests/gpu/agents-search/replies/map-tuned.cu \
	tests/gpu/agents-search/replies/tile-registers.cu tests/gpu/agents-search/replies/mem-float4.cu
