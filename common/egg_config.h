/*
 * egg_config.h -- egg's configuration: egg.conf files, EGG_* variables, --egg-* options.
 *
 * One table of known keys (name, type, default, one line of documentation) lives in
 * egg_config.c; every program reads the same keys through this header.  A configuration
 * is built from layers, lowest first, each overriding the ones before it:
 *
 *   1. defaults (the table)
 *   2. the system file   $EGG_SYSTEM_CONFIG, else $(sysconfdir)/egg.conf
 *   3. the user file     $XDG_CONFIG_HOME/egg/egg.conf, else ~/.config/egg/egg.conf
 *   4. the project files the nearest egg.conf at or above the source's directory, up to
 *                        its repository's root (a directory holding .git), and the nearest
 *                        at or above the working directory; when one lies above the other,
 *                        the deeper one wins, else the working directory's
 *   5. the environment   EGG_<KEY> (EGG_MODE, EGG_MAX_SIZE, ...)
 *   6. options           --egg-<key>=VALUE (dashes or underscores: --egg-max-size=1G)
 *
 * File syntax (man egg.conf(5)): "key = value" lines; blank lines; "#" starts a comment
 * at the start of a line, or after whitespace anywhere outside quotes ("a#b" keeps its
 * "#"); whitespace around keys and values is trimmed; a value wholly inside "..." or
 * '...' is taken literally (no escapes).  An empty value, in any layer, puts the key
 * back to its default.  Relative paths in a file are relative to that file's directory;
 * "~/" is the home directory.  A bool option given bare (--egg-strict) means true.
 *
 * Errors: a line without "=", an unknown key, or a value of the wrong kind.  Every error
 * is one sentence starting with where it is ("FILE:LINE: ", "environment EGG_MODE: ",
 * "option --egg-mode: ").  A bad line never stops the reading: it is skipped, the rest
 * is applied, and the first error is reported.  The policy on top of that is the same
 * for every kind of error, unknown keys included: `egg config` exits 1, and egg-cc warns
 * once and compiles with plain nvcc (mode off), because a configuration egg cannot read
 * entirely is one it must not act on.
 *
 * Cost: loading does a getcwd, a realpath, one or two failed stats per directory above
 * the working directory and the source's, at most four small file reads, a getenv per
 * key and a few dozen small allocations: microseconds, on egg-cc's path for every
 * compile.  libc only.
 *
 * Secrets (api_key, cache_secret) are returned by egg_config_get for the code that uses
 * them and shown by egg_config_show as "<set>", never as their value.
 */
#ifndef EGG_EGG_CONFIG_H
#define EGG_EGG_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"
#include "common/strvec.h"

struct egg_config;

/* The key "mode". */
enum egg_mode {
	EGG_MODE_SEARCH, /* use the cache; search on a miss when a GPU is present */
	EGG_MODE_CACHE,  /* use the cache, never search */
	EGG_MODE_VERIFY, /* re-check cached winners on this GPU */
	EGG_MODE_OFF,    /* plain nvcc */
};

/* The key "backend". */
enum egg_backend {
	EGG_BACKEND_BUILTIN,
	EGG_BACKEND_OPENAI,
	EGG_BACKEND_ANTHROPIC,
};

/* A configuration holding only the defaults.  Never NULL; egg_config_free() it. */
struct egg_config *egg_config_new(void);
void egg_config_free(struct egg_config *cfg);

/* Applies layers 2 to 6 in order; opts are the --egg-* arguments as given (NULL: none).
 * Returns 0, or -1 with the first error in err (one sentence, see above); cfg then holds
 * every valid setting of every layer. */
int egg_config_load(struct egg_config *cfg, const struct strvec *opts, struct strbuf *err);
/* egg_config_load for a compile of source (a file name, may be NULL): the project file
 * is also looked for from the source's directory (layer 4), so that an out-of-tree
 * build (egg-cc run in build/, sources in ../src) finds the project's egg.conf. */
int egg_config_load_for(struct egg_config *cfg, const struct strvec *opts, const char *source,
                        struct strbuf *err);

/* The single layers, for tests and for programs that want one.  Same return and error
 * convention as egg_config_load.  A file that does not exist is not an error (nothing
 * is read); one that cannot be read is. */
int egg_config_read_file(struct egg_config *cfg, const char *path, struct strbuf *err);
int egg_config_read_env(struct egg_config *cfg, struct strbuf *err);
int egg_config_read_options(struct egg_config *cfg, const struct strvec *opts,
                            struct strbuf *err);

/* The table.  egg_config_key_name(i) for i = 0, 1, ... names every key, then NULL.
 * The others take a key name and return NULL for an unknown key.  Static strings. */
const char *egg_config_key_name(size_t i);
const char *egg_config_key_type(const char *key);    /* "bool", "size", "search|cache|..." */
const char *egg_config_key_default(const char *key); /* "" when there is none */
const char *egg_config_key_doc(const char *key);
/* The key that name is probably a typo of ("mdoe": "mode"), or NULL. */
const char *egg_config_key_suggest(const char *name);

/* Values.  The key must be one of the table's (an unknown name is a programming error
 * and asserts); check user input with egg_config_key_doc() first.
 * egg_config_get: the effective value as text, owned by cfg and valid until the next
 * change to cfg; NULL when the key is unset and has no default.  Secrets included. */
const char *egg_config_get(const struct egg_config *cfg, const char *key);
/* Appends the value as egg config shows it: secrets as "<set>", unset as "", and
 * remote_storage with its URLs' passwords and bearer tokens as "<set>". */
void egg_config_show(const struct egg_config *cfg, const char *key, struct strbuf *out);
/* Appends where the value came from: "default", "FILE:LINE", "environment EGG_KEY",
 * "option --egg-key". */
void egg_config_origin(const struct egg_config *cfg, const char *key, struct strbuf *out);

/* Typed readers for keys of that type (asserted). */
enum egg_mode egg_config_mode(const struct egg_config *cfg);
enum egg_backend egg_config_backend(const struct egg_config *cfg);
int egg_config_bool(const struct egg_config *cfg, const char *key);          /* 0 or 1 */
uint64_t egg_config_size(const struct egg_config *cfg, const char *key);     /* bytes */
uint64_t egg_config_seconds(const struct egg_config *cfg, const char *key);  /* 0: none */
uint64_t egg_config_count(const struct egg_config *cfg, const char *key);    /* k, M: 1e3, 1e6 */
/* Appends the items of a list key (whitespace-separated) to out. */
void egg_config_list(const struct egg_config *cfg, const char *key, struct strvec *out);

/* A size as the size keys take it (egg.conf(5)): "500Mi", "1.5G", "2GiB", "10M", "1T",
 * "4096"; k, M, G, T are powers of 1000, Ki, Mi, Gi, Ti powers of 1024, B is optional,
 * a bare number is bytes.  0 with *out, or -1 (out untouched) if v is not a size. */
int egg_config_parse_size(const char *v, uint64_t *out);

/* "search", "cache", "verify", "off". */
const char *egg_mode_name(enum egg_mode mode);

#endif
