/*
 * lock.h -- single flight: one search per key across concurrent builds.
 *
 * `make -j16` may start sixteen egg-cc processes that miss on the same key.
 * The first takes the key's lock and searches; the others wait for the lock.
 * When it comes free they look in the store again: the searcher's entry is
 * there (a hit), or the searcher failed and the waiter now holds the lock and
 * may search itself.  A waiter gives up after a configurable time and builds
 * with the reference.
 *
 * The lock is flock(2) on the file locks/KEY in the store's directory.  The
 * kernel drops a flock when its holder's file descriptors close, so a lock
 * left by a killed process (SIGKILL, a crash, a power loss) is free at once:
 * there is no stale-lock detection to get wrong.  A released lock's file is
 * removed; a taker checks that the file it locked is still the one at the path
 * (inode) and starts over if not, so removal never lets two holders in.
 * flock is reliable on local file systems; on NFS it is emulated with fcntl
 * locks by Linux, which also die with their holder.
 */
#ifndef EGG_CACHE_LOCK_H
#define EGG_CACHE_LOCK_H

#include "common/strbuf.h"

enum cache_lock_status {
	CACHE_LOCK_ERROR = -1,  /* could not lock at all (err says why) */
	CACHE_LOCK_TIMEOUT = 0, /* another process held it for timeout_ms */
	CACHE_LOCK_ACQUIRED,    /* free at once: search */
	CACHE_LOCK_AFTER_WAIT,  /* held until another process released it: look again */
};

struct cache_lock;

/* Takes the lock for key under dir (the store's directory), waiting up to
 * timeout_ms (0: do not wait).  On ACQUIRED and AFTER_WAIT, *lock is set and
 * must be released with cache_lock_release. */
enum cache_lock_status cache_lock_acquire(const char *dir, const char *key, long timeout_ms,
					  struct cache_lock **lock, struct strbuf *err);

/* Releases and frees the lock; NULL is fine. */
void cache_lock_release(struct cache_lock *lock);

/* 1 when the lock file at path is held by no process (left by a killed one,
 * safe to remove), 0 when a process holds it, -1 when it cannot be checked.
 * Removes nothing. */
int cache_lock_is_stale(const char *path);

/* Removes the lock files under dir that nobody holds (left by killed
 * processes: harmless, but they would accumulate); returns how many. */
int cache_lock_sweep(const char *dir);

#endif
