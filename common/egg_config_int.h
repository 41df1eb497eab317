/*
 * egg_config_int.h -- what the configuration's files share (egg_config.c reads
 * the layers, egg_config_keys.c holds the table of settings, egg_config_value.c
 * checks values); not for use outside common/egg_config*.c.
 */
#ifndef EGG_CONFIG_INT_H
#define EGG_CONFIG_INT_H

#include "common/strbuf.h"

#include <stddef.h>
#include <stdint.h>

enum type { T_STRING, T_PATH, T_SECRET, T_CHOICE, T_BOOL, T_SIZE, T_DURATION, T_LIST, T_COUNT };

struct key {
	const char *name;
	enum type type;
	const char *choices; /* T_CHOICE: "a|b|c" */
	const char *def;     /* NULL: none */
	const char *doc;
};

/* egg_config_keys.c */
extern const struct key egg_config_keys[];
extern const size_t egg_config_n_keys;
/* The index of key name in egg_config_keys, or -1. */
int config_key_index(const char *name);
/* The index of a key the program itself names (asserts that it exists). */
size_t config_must_key(const char *name);

/* egg_config_value.c */
/* Index of v in "a|b|c" (case-blind), or -1. */
int config_choice_index(const char *choices, const char *v);
/* 1, 0, or -1 for a value that is no bool. */
int config_parse_bool(const char *v);
/* 0 with *out, or -1: a count (k, M) or a duration in seconds (s, m, h). */
int config_parse_count(const char *v, uint64_t *out);
int config_parse_duration(const char *v, uint64_t *out);
/* $HOME, or the password database's home directory; NULL: none. */
const char *config_home_dir(void);
/* "~" and "~/x" name the home directory; a relative path read from a file is
 * relative to that file's directory.  Owned. */
char *config_expand_path(const char *v, const char *file);
/* A path default, with ~/.cache/ under $XDG_CACHE_HOME when that is set; owned. */
char *config_default_path(const char *def);
/* The normal form of v for key k (owned), or NULL if v does not fit the key's
 * type; file: where a relative path is relative to (NULL: the working directory). */
char *config_normalize(const struct key *k, const char *v, const char *file);
/* What a value of key k must look like: "search, cache, verify or off". */
void config_describe_type(const struct key *k, struct strbuf *out);

#endif
