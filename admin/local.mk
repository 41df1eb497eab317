# admin/: the egg administration program.  Each subcommand is admin/cmd_NAME.c;
# libraries are listed users first (static link order).
bin_PROGRAMS += egg
egg_SOURCES = admin/egg.c admin/cmd_config.c admin/cmd_cache.c admin/cmd_analyze.c \
	admin/cmd_generate.c admin/cmd_eval.c admin/cmd_plan.c \
	admin/cmd_report.c admin/report_page.c admin/report_page.h \
	admin/report_show.c admin/report_show.h
egg_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
egg_LDADD = libeggplan.a libeggsearch.a libeggagents.a libeggdriver.a libeggbuiltin.a libeggharness.a libegganalyzer.a \
	$(CACHE_LDADD) $(LIBCLANG_LIBS) -lm
