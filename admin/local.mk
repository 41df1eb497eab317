# admin/: the egg administration program.
bin_PROGRAMS += egg
egg_SOURCES = admin/egg.c
egg_LDADD = libeggcommon.a
