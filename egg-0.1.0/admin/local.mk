# admin/: the egg administration program.
bin_PROGRAMS += egg
egg_SOURCES = admin/egg.c admin/cmd_analyze.c
egg_LDADD = libegganalyzer.a libeggbundle.a libeggcommon.a $(LIBCLANG_LIBS) $(CJSON_LIBS)
