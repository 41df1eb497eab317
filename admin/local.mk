# admin/: the egg administration program.
bin_PROGRAMS += egg
egg_SOURCES = admin/egg.c
egg_LDADD = libeggcommon.a

# egg cache ... (cache/)
egg_SOURCES += admin/cmd_cache.c
egg_LDADD += $(CACHE_LDADD)
