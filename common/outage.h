/*
 * outage.h -- remembers, across egg's processes, that a server a build waits
 * for (a remote cache, a model backend) has just stopped answering, so that the
 * build's later compiles skip it for a while instead of paying its timeout
 * again, and so that the build shows one warning about it, not one per compile.
 *
 * Each egg-cc compile is its own process, so "the build" is approximated by
 * time: a record per server in a directory (the local cache's "outages/"),
 * named after a hash of the server's name (its URL without credentials) and
 * holding the name and the time of the last failure (wall clock, ms), replaced
 * atomically.  The rules:
 *
 *   outage_skipping  a failure was recorded less than skip_ms ago: skip the
 *                    server (the caller says nothing: someone already warned)
 *   outage_record    the server failed again (a timeout, no connection): the
 *                    record is renewed, and the caller warns only when the
 *                    outage is new -- no failure was recorded within two skip
 *                    periods before this attempt started.  So compiles that
 *                    fail together (make -j) or one skip period apart (a long
 *                    build against a server that stays down) warn once; a
 *                    build started later warns again.  The decision is taken
 *                    under an flock(2) of the directory's lock file, so two
 *                    processes never both decide they are first.
 *   outage_clear     the server answered: the record goes (nothing to do when
 *                    there was none)
 *
 * Nothing here fails: a directory that cannot be written means no record, and
 * then every compile decides alone (the behaviour without this module).  Costs
 * one stat/read of a tiny file per server per process; writes only on failure.
 * libc only (egg-cc may link it).
 *
 * Ownership: all strings are the caller's.
 */
#ifndef EGG_OUTAGE_H
#define EGG_OUTAGE_H

#include <stdint.h>

/* Wall-clock milliseconds (the records compare times of separate processes). */
int64_t outage_now_ms(void);

/* 1 when name failed less than skip_ms ago (then *left_ms, if not NULL, is how
 * long the skip still lasts); 0 otherwise or when skip_ms <= 0.  *recorded
 * (if not NULL) is set to 1 when a record exists at all, expired or not, so
 * that the caller knows to clear it after a success. */
int outage_skipping(const char *dir, const char *name, int64_t skip_ms, int64_t *left_ms,
                    int *recorded);

/* Records a failure of name whose attempt started at started_ms.  Returns 1
 * when the caller should warn (a new outage), 0 when another compile already
 * did.  Creates dir when needed. */
int outage_record(const char *dir, const char *name, int64_t skip_ms, int64_t started_ms);

/* Removes name's record (after an answer). */
void outage_clear(const char *dir, const char *name);

#endif
