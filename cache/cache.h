/*
 * cache.h -- the cache as a build uses it: the local store, the remotes and
 * single flight behind three calls.
 *
 *   cache_open      from settings (the configuration: cache_dir, max_size,
 *                   remote_storage, remote_read_only, cache_secret, lock_timeout)
 *   cache_lookup    local store, then each remote in order (a remote hit is
 *                   copied into the local store)
 *   cache_claim     lookup, and on a miss take the key's single-flight lock:
 *                   HIT, SEARCH (this process searches, then cache_put and
 *                   cache_release) or REFERENCE (another process has been
 *                   searching for longer than lock_timeout: build the reference)
 *   cache_put       local store and every writable remote
 *
 * Nothing here fails a build: problems with the store or a remote are one
 * warning each and look like misses; only cache_open can refuse (a cache
 * directory that cannot be created) and the caller then builds without a cache.
 *
 * Ownership: settings strings belong to the caller and are copied by
 * cache_open; entries returned are the caller's (cache_entry_free).
 */
#ifndef EGG_CACHE_CACHE_H
#define EGG_CACHE_CACHE_H

#include <stdint.h>

#include "cache/entry.h"
#include "cache/lock.h"
#include "cache/remote.h"
#include "cache/store.h"
#include "common/strbuf.h"

#define CACHE_DEFAULT_LOCK_TIMEOUT_MS (300L * 1000)
#define CACHE_DEFAULT_SKIP_MS (60L * 1000)

struct cache_settings {
	char *dir;            /* cache_dir; NULL: $XDG_CACHE_HOME/egg, else ~/.cache/egg */
	uint64_t max_size;    /* 0: no limit */
	char *remote;         /* remote_storage (remote.h's syntax) or NULL */
	int remote_read_only; /* applies |read-only to every remote */
	char *secret;         /* cache_secret or NULL */
	long lock_timeout_ms; /* how long to wait for another process's search */
	long remote_timeout_ms; /* timeout, when the user set it: the limit of a remote
	                           transfer whose URL has no |timeout=; 0: remote.h's default */
	long skip_ms;         /* skip_after_timeout: how long later compiles skip a
	                         remote that timed out (outages in DIR/outages) */
};

/* Fills s from the environment (EGG_CACHE_DIR, EGG_MAX_SIZE,
 * EGG_REMOTE_STORAGE, EGG_REMOTE_READ_ONLY, EGG_CACHE_SECRET,
 * EGG_LOCK_TIMEOUT, EGG_TIMEOUT, EGG_SKIP_AFTER_TIMEOUT) over the defaults, until the configuration module provides
 * them.  -1 with a sentence in err for a malformed value.  Release with
 * cache_settings_release. */
int cache_settings_from_env(struct cache_settings *s, struct strbuf *err);
void cache_settings_release(struct cache_settings *s);

/* Fills s from egg's configuration (cache_dir, max_size, remote_storage,
 * remote_read_only, cache_secret, lock_timeout, timeout when it was set,
 * skip_after_timeout), which already holds the
 * EGG_* variables and --egg-* options.  Never fails: the configuration checked
 * every value when it was loaded. */
struct egg_config;
void cache_settings_from_config(struct cache_settings *s, const struct egg_config *cfg);

/* A size by the rules of the size keys (egg_config_parse_size: "500Mi", "1.5G",
 * "2GiB", "1024" bytes).  -1 if s is not a size. */
int cache_parse_size(const char *s, uint64_t *out);
/* "30s", "1500ms", "5m", "90" (seconds) in milliseconds; -1 if not a duration. */
int cache_parse_duration_ms(const char *s, long *out);

struct cache;

struct cache *cache_open(const struct cache_settings *s, struct strbuf *err);
void cache_close(struct cache *c);
struct cache_store *cache_local(struct cache *c);

/* 1 and *out on a hit (local or remote), 0 on a miss; counts either. */
int cache_lookup(struct cache *c, const char *key, struct cache_entry **out);

enum cache_claim {
	CACHE_CLAIM_HIT,       /* *out is the entry */
	CACHE_CLAIM_SEARCH,    /* this process holds the key: search, cache_put, cache_release */
	CACHE_CLAIM_REFERENCE, /* gave up waiting (or could not lock): use the reference */
};

/* Single-flight lookup (see above); *lock is set for SEARCH. */
enum cache_claim cache_claim(struct cache *c, const char *key, struct cache_entry **out,
			     struct cache_lock **lock);
/* For an entry the caller found and means to search again (a negative entry of
 * an older generator): takes the key's lock without looking up; SEARCH (with
 * *lock) or REFERENCE.  Two builds that both decide so search one after the
 * other. */
enum cache_claim cache_claim_again(struct cache *c, const char *key, struct cache_lock **lock);
void cache_release(struct cache_lock *lock);

/* Stores e locally and in every writable remote.  0 if the local store took
 * it; -1 (warned about once) otherwise. */
int cache_put(struct cache *c, const struct cache_entry *e);

#endif
