# examples/: the bundled example project.  `make demo` builds it with this
# egg-cc against a cache seeded with the winners an H200 verified for it
# (examples/seed/example-seed.egg.gz), runs it, shows what egg did kernel by kernel
# and lists the kernels egg linked; it fails when none was (a seed that no longer
# matches this egg: re-seed it on a GPU with examples/seed/reseed.sh).  DEMO_DIR
# (default demo-build, in the build tree, ignored by git) is where it builds.
EXTRA_DIST += examples/Makefile examples/CMakeLists.txt examples/kernels.h \
	examples/kernels.cu examples/main.cu

DEMO_DIR = demo-build

demo: egg-cc egg
	rm -rf $(DEMO_DIR) && mkdir -p $(DEMO_DIR)
	cp $(top_srcdir)/examples/Makefile $(top_srcdir)/examples/*.cu $(top_srcdir)/examples/*.h $(DEMO_DIR)/
	d=$$(cd $(DEMO_DIR) && pwd) && \
	gzip -dc $(top_srcdir)/examples/seed/example-seed.egg.gz >$$d/seed.egg && \
	EGG_CACHE_DIR=$$d/cache ./egg cache import $$d/seed.egg && \
	EGG_CACHE_DIR=$$d/cache EGG_REPORT=$$d/egg-report.jsonl \
	EGG_BUILTIN_TEMPLATES=$(abs_top_srcdir)/builtin/templates \
	  $(MAKE) -C $(DEMO_DIR) NVCC=$(abs_top_builddir)/egg-cc run
	@echo "what egg did, kernel by kernel (egg report $(DEMO_DIR)/egg-report.jsonl):"
	@./egg report $(DEMO_DIR)/egg-report.jsonl
	@nm -C $(DEMO_DIR)/kernels.o | sed -n 's/.* T egg_winner__\([a-z_]*\).*/  \1/p' >$(DEMO_DIR)/linked.txt
	@echo "kernels egg linked in place of the reference (the rest run as written):"
	@cat $(DEMO_DIR)/linked.txt
	@test -s $(DEMO_DIR)/linked.txt || { \
	  echo "make demo: no winner was linked: examples/seed/example-seed.egg.gz does not match this egg's" \
	       "cache keys; re-seed it on a GPU (examples/seed/reseed.sh)" >&2; exit 1; }

clean-local: clean-local-demo
clean-local-demo:
	-rm -rf demo-build
.PHONY: demo clean-local-demo
