/*
 * verify.h -- `egg cache verify`: checks every file of the local store.
 *
 * What a build would refuse one entry at a time, found for the whole store at
 * once, so that a damaged disk, a hand edit or an intruder's entry is seen
 * before a build meets it:
 *
 *   entries    each ab/cdef... file: a regular file that parses as an entry of
 *              this schema, whose checksum holds, whose key is its file name,
 *              and, when a secret is configured, whose signature is valid;
 *              a winner's source must also pass the screen the caller gives
 *              (egg passes the lexer screen of harness/screen.h: entries do
 *              not keep their bundle, so the build's bundle-aware screen runs
 *              again when a build links the winner)
 *   orphans    in the fan-out directories, temporary files of writes whose
 *              process is gone (or over an hour old), and anything else that
 *              is not an entry (other names, directories, links); in locks/,
 *              lock files no process holds
 *
 * Files at the top of the directory other than the store's own (stats, locks/,
 * the fan-out directories) are not egg's to judge and are left alone.
 *
 * With repair, each bad entry and orphan is removed and the entries and bytes
 * counters are recounted.  Nothing is ever rewritten.
 */
#ifndef EGG_CACHE_VERIFY_H
#define EGG_CACHE_VERIFY_H

#include <stddef.h>

#include "cache/store.h"
#include "common/strbuf.h"

/* A winner's source: 0 if acceptable, -1 with one sentence in why. */
typedef int (*cache_verify_screen_fn)(const char *source, struct strbuf *why);

/* One problem: the file, what is wrong with it (one sentence), and whether
 * repair removed it. */
typedef void (*cache_verify_report_fn)(void *ctx, const char *path, const char *problem,
				       int removed);

struct cache_verify_summary {
	size_t entries;   /* files that look like entries */
	size_t valid;     /* ...of which passed every check */
	size_t problems;  /* bad entries and orphans */
	size_t removed;   /* ...of which repair removed */
};

/* Checks the store (see above), calling report for each problem in directory
 * order.  screen may be NULL (no screen).  0 with *sum filled, or -1 with a
 * sentence in err when the directory cannot be read at all. */
int cache_store_verify(struct cache_store *s, int repair, cache_verify_screen_fn screen,
		       cache_verify_report_fn report, void *ctx, struct cache_verify_summary *sum,
		       struct strbuf *err);

#endif
