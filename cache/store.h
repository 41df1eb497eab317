/*
 * store.h -- the local cache directory.
 *
 * Layout under the directory (cache_dir, EGG_CACHE_DIR; default $XDG_CACHE_HOME/egg,
 * else ~/.cache/egg; the caller resolves it and passes it in):
 *
 *   ab/cdef0123...     an entry (entry.h): its key's first two hex digits name
 *                      the fan-out directory, the other 62 the file
 *   ab/KEY.tmp.PID.*   a write in progress (fs_write_atomic); ignored by readers,
 *                      removed by eviction once an hour old, and by clear
 *   stats              the counters, "NAME VALUE" lines, updated in place under
 *                      flock(2) on the file itself, so concurrent builds never
 *                      lose a count
 *   locks/KEY          single-flight locks (lock.h); eviction and clear remove
 *                      the ones nobody holds
 *   rewritten/HASH/NAME  the rewritten sources egg-cc compiles (rewritten.h);
 *                      eviction and clear remove those used before the least
 *                      recently used entry they keep
 *
 * Writes are atomic (temporary file, fsync, rename): a reader sees a whole old
 * entry, a whole new one, or none.  An entry that fails its checksum anyway
 * (altered by hand, a damaged disk) is reported once, removed, counted as an
 * error and treated as a miss.
 *
 * Size limit: when a store pushes the total above max_size, the least recently
 * used entries are removed until the total is at most 90% of it (so that not
 * every store pays for a scan).  "Used" is the entry's modification time,
 * which a hit sets to now: access times are unreliable (noatime, relatime).
 *
 * Ownership: the store owns its directory string; lists returned by
 * cache_store_list are the caller's (free()).
 */
#ifndef EGG_CACHE_STORE_H
#define EGG_CACHE_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "cache/entry.h"
#include "common/strbuf.h"

#define CACHE_STORE_DEFAULT_MAX_SIZE ((uint64_t)2 << 30) /* 2 GiB */

enum cache_stat {
	CACHE_STAT_HITS,        /* lookups answered locally */
	CACHE_STAT_REMOTE_HITS, /* lookups answered by a remote (also copied here) */
	CACHE_STAT_MISSES,      /* lookups nobody could answer */
	CACHE_STAT_SEARCHES,    /* searches run after a miss */
	CACHE_STAT_STORES,      /* entries written */
	CACHE_STAT_ERRORS,      /* invalid entries found, failed writes */
	CACHE_STAT_EVICTIONS,   /* entries removed to respect the size limit */
	CACHE_STAT_ENTRIES,     /* entries now in the store */
	CACHE_STAT_BYTES,       /* their total size */
	CACHE_STAT_COUNT
};

struct cache_stats {
	uint64_t v[CACHE_STAT_COUNT];
};

/* "hits", "remote_hits", ... as written in the stats file and in --json. */
const char *cache_stat_name(enum cache_stat s);

struct cache_store;

/* Opens (creating it if needed) the store in dir.  max_size 0: no limit.
 * NULL with a sentence in err if the directory cannot be created. */
struct cache_store *cache_store_open(const char *dir, uint64_t max_size, struct strbuf *err);
void cache_store_close(struct cache_store *s);
/* With a secret (EGG_CACHE_SECRET, cache_secret; NULL or "" for none), entries
 * are written signed with it and read only when signed with it: an unsigned or
 * wrongly signed entry is invalid (reported, removed, a miss), so nobody who can
 * write the directory but does not hold the secret gets code linked. */
void cache_store_set_secret(struct cache_store *s, const char *secret);
const char *cache_store_secret(const struct cache_store *s);
const char *cache_store_dir(const struct cache_store *s);

/* The file an entry for key lives in (caller frees). */
char *cache_store_path(const struct cache_store *s, const char *key);

/* A build's lookup: 1 and *out (caller frees) on a hit, which refreshes the
 * entry's LRU time and counts a hit; 0 on a miss (counted unless quiet_miss:
 * the caller may still ask a remote and count the outcome itself).  An invalid
 * entry is warned about, removed and is a miss. */
int cache_store_get(struct cache_store *s, const char *key, int quiet_miss,
		    struct cache_entry **out);

/* Reads an entry without counting or touching it (egg cache show/export):
 * 1 found, 0 absent, -1 invalid (reason in err). */
int cache_store_read(struct cache_store *s, const char *key, struct cache_entry **out,
		     struct strbuf *err);

/* Writes e (replacing any entry with its key), counts a store, and evicts if the
 * size limit is passed.  -1 with a sentence in err (and an error counted) if
 * the entry could not be written (disk full, permissions). */
int cache_store_put(struct cache_store *s, const struct cache_entry *e, struct strbuf *err);

/* Counters.  add is atomic with respect to every other process using the store. */
int cache_store_stats_read(struct cache_store *s, struct cache_stats *out, struct strbuf *err);
void cache_store_stats_add(struct cache_store *s, enum cache_stat stat, int64_t delta);
/* Zeroes the event counters (hits ... evictions), keeps entries and bytes. */
int cache_store_stats_zero(struct cache_store *s, struct strbuf *err);

struct cache_store_item {
	char key[CACHE_KEY_HEX_LEN + 1];
	uint64_t size;
	struct timespec used; /* last stored or hit */
};

/* Every entry file, most recently used first.  *items is the caller's. */
int cache_store_list(struct cache_store *s, struct cache_store_item **items, size_t *n,
		     struct strbuf *err);

/* The full key that arg names: a key, or a unique prefix of one of at least 4
 * hex digits (egg cache show, egg report).  Caller frees; NULL with a sentence
 * in err when no entry or several entries match. */
char *cache_store_resolve_key(struct cache_store *s, const char *arg, struct strbuf *err);

/* Removes least recently used entries until the total is at most max_size;
 * *removed counts them.  Recounts entries and bytes from the directory. */
int cache_store_evict(struct cache_store *s, uint64_t max_size, size_t *removed,
		      struct strbuf *err);

/* Removes the entries not used (stored or hit: their modification time, see
 * above) for more than age seconds, oldest first; *gone (caller frees) lists
 * them, *n_gone counts them.  Counted as evictions; entries and bytes are
 * recounted from the directory. */
int cache_store_evict_older(struct cache_store *s, uint64_t age, struct cache_store_item **gone,
			    size_t *n_gone, struct strbuf *err);

/* Recounts entries and bytes from the directory (after files were removed by
 * hand or by egg cache verify --repair). */
int cache_store_recount(struct cache_store *s, struct strbuf *err);

/* Removes every entry and temporary file; counters other than entries and
 * bytes are kept. */
int cache_store_clear(struct cache_store *s, size_t *removed, struct strbuf *err);

#endif
