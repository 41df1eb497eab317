/*
 * remote.h -- remote cache storage over HTTP (libcurl).
 *
 * A remote is a base URL whose entries live at BASE/ab/cdef... (the local
 * layout), read with GET, probed with HEAD and written with PUT, which nginx's
 * WebDAV module (dav_methods PUT; create_full_put_path on;) and most object
 * stores accept.  Several remotes may be configured; lookups try them in order
 * and stop at the first valid entry, stores go to every writable one.
 *
 * Specification (the remote_storage setting, EGG_REMOTE_STORAGE): remotes
 * separated by spaces, each "URL[|PROPERTY]...":
 *
 *   http://user:password@host:port/path   basic auth from the URL's user info
 *   |read-only                            never PUT (CI consumers)
 *   |bearer-token=TOKEN                   "Authorization: Bearer TOKEN"
 *   |connect-timeout=MS                   default 1000 (at most the timeout)
 *   |timeout=MS                           whole transfer; default 10000, or
 *                                         the timeout setting when it is set
 *                                         (cache_remote_set_timeout)
 *
 * Credentials never appear in a message: remotes are named by their URL with
 * the user info removed, and tokens are never printed.
 *
 * Signatures: when a secret (EGG_CACHE_SECRET) is given, entries are signed
 * before PUT, and entries read back unsigned or with a wrong signature are
 * refused (a warning, then a miss).
 *
 * Failure policy: a remote that is down, slow, refuses credentials or answers
 * 5xx is a miss, never an error: the first failure of each remote prints one
 * warning, later ones are silent, and that remote is not asked again by this
 * process.  404 is an ordinary miss.  A remote that timed out is also recorded
 * in the outage directory (common/outage.h), when one is set: the build's later
 * compiles skip it for skip_ms without a word, the compiles that time out
 * together or in one continuing outage warn once in all, and the first answer
 * after the skip clears the record.
 */
#ifndef EGG_CACHE_REMOTE_H
#define EGG_CACHE_REMOTE_H

#include "cache/entry.h"
#include "common/strbuf.h"

struct cache_remote;

/* Parses spec; secret may be NULL.  NULL with a sentence in err on a malformed
 * specification (an unknown property, a URL that is not http(s)).  An empty
 * spec gives a remote set with nothing in it.  Caller frees with
 * cache_remote_free. */
struct cache_remote *cache_remote_new(const char *spec, const char *secret, struct strbuf *err);
void cache_remote_free(struct cache_remote *r);

/* The timeout setting (ms; 0: leave the default of 10 s) for every remote
 * whose URL has no |timeout=; the connect timeout is cut to it. */
void cache_remote_set_timeout(struct cache_remote *r, long timeout_ms);

/* Where outages are recorded (NULL: nowhere) and how long a remote that timed
 * out is skipped by later processes (0: never skipped, only one warning). */
void cache_remote_set_outages(struct cache_remote *r, const char *dir, long skip_ms);

/* Number of remotes configured. */
int cache_remote_count(const struct cache_remote *r);

/* The i-th remote as it may be shown: its URL without user info, and whether
 * it is read-only (tokens are never part of it).  The string is owned by r. */
const char *cache_remote_display(const struct cache_remote *r, int i, int *read_only);

/* Looks key up in each remote in order: 1 and *out (caller frees) on the first
 * valid entry, 0 if none has one (failures warned about once). */
int cache_remote_get(struct cache_remote *r, const char *key, struct cache_entry **out);

/* What the last cache_remote_get did with the i-th remote, in a few words for the
 * log ("hit", "miss", "failed ...", "entry refused ...", "not asked ..."), or NULL
 * when it was not reached (an earlier remote answered).  Static text. */
const char *cache_remote_asked(const struct cache_remote *r, int i);

/* 1 if some remote has key (HEAD), else 0. */
int cache_remote_has(struct cache_remote *r, const char *key);

/* Stores e in every writable remote; returns how many accepted it. */
int cache_remote_put(struct cache_remote *r, const struct cache_entry *e);

#endif
