# examples/: the bundled example project.  `make demo` builds it with this
# egg-cc against a cache seeded with the winners an H200 verified for it
# (examples/seed/example-seed.egg), runs it, and lists the kernels egg linked.
EXTRA_DIST += examples/Makefile examples/CMakeLists.txt examples/kernels.h \
	examples/kernels.cu examples/main.cu

demo: egg-cc egg
	rm -rf demo-build && mkdir -p demo-build
	cp $(top_srcdir)/examples/Makefile $(top_srcdir)/examples/*.cu $(top_srcdir)/examples/*.h demo-build/
	EGG_CACHE_DIR=$(abs_top_builddir)/demo-build/cache ./egg cache import $(top_srcdir)/examples/seed/example-seed.egg
	EGG_CACHE_DIR=$(abs_top_builddir)/demo-build/cache \
	EGG_BUILTIN_TEMPLATES=$(abs_top_srcdir)/builtin/templates \
	  $(MAKE) -C demo-build NVCC=$(abs_top_builddir)/egg-cc run
	@echo "kernels egg linked in place of the reference (the rest run as written):"
	@nm -C demo-build/kernels.o | sed -n 's/.* T egg_winner__\([a-z_]*\).*/  \1/p'

clean-local: clean-local-demo
clean-local-demo:
	-rm -rf demo-build
.PHONY: demo clean-local-demo
