# bench/: benchmarks, not tests (they measure, they do not fail on a slow machine).
EXTRA_DIST += bench/README.md bench/fastpath bench/data/fastpath.cu

# make bench-fastpath [BENCH_ARGS="--runs 20"]: egg-cc's cost on a source without
# the pragma, against plain nvcc.
bench-fastpath: egg-cc
	$(top_srcdir)/bench/fastpath --egg-cc $(abs_top_builddir)/egg-cc $(BENCH_ARGS)
.PHONY: bench-fastpath
