# bench/fastpath.mk: the fast-path benchmark (a fragment of its own: bench/local.mk is the suite's).
EXTRA_DIST += bench/README.md bench/fastpath bench/data/fastpath.cu

# make bench-fastpath [BENCH_ARGS="--runs 20"]: egg-cc's cost on a source without
# the pragma, against plain nvcc.
bench-fastpath: egg-cc
	$(top_srcdir)/bench/fastpath --egg-cc $(abs_top_builddir)/egg-cc $(BENCH_ARGS)
.PHONY: bench-fastpath
