# examples/: the bundled example project; `make demo` builds it with this egg-cc and runs it.
EXTRA_DIST += examples/Makefile examples/CMakeLists.txt examples/kernels.h \
	examples/kernels.cu examples/main.cu

demo: egg-cc egg
	rm -rf demo-build && mkdir -p demo-build
	cp $(top_srcdir)/examples/Makefile $(top_srcdir)/examples/*.cu $(top_srcdir)/examples/*.h demo-build/
	$(MAKE) -C demo-build NVCC=$(abs_top_builddir)/egg-cc run

clean-local: clean-local-demo
clean-local-demo:
	-rm -rf demo-build
.PHONY: demo clean-local-demo
