# admin/: the egg administration program.
bin_PROGRAMS += egg
egg_SOURCES = admin/egg.c
egg_LDADD = libeggcommon.a
egg_SOURCES += admin/cmd_config.c
egg_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
egg_LDADD += $(CJSON_LIBS)
