# admin/: the egg administration program.
bin_PROGRAMS += egg
egg_SOURCES = admin/egg.c admin/cmd_eval.c
egg_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
egg_LDADD = $(HARNESS_LIBS)
