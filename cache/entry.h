/*
 * entry.h -- a cache entry: what one search found for one key.
 *
 * On disk and on the wire an entry is one JSON document (one line):
 *
 *   { "schema": "egg-cache-entry", "version": 1,
 *     "key": "<64 hex>",
 *     "name": "softmax_forward",          informational (egg cache ls)
 *     "outcome": "winner" | "negative",   negative: nothing beat the reference
 *     "source": "..." | null,             the winner's source (null when negative)
 *     "result": { ... },                  the evaluation result (times, speedup,
 *                                         errors, GPU, date), kept as given
 *     "transcript": [ ... ] | { ... },    the search's transcript, kept as given
 *     "generator": { "backend": "builtin", "model": null, "recipe": "1" },
 *     "checked": [ { "backend": ..., "model": ..., "recipe": ... } ],
 *                                         only when not empty: newer generators
 *                                         that searched this key again and found
 *                                         nothing faster than the winner
 *                                         (regenerate = faster, egg.conf(5))
 *     "checksum": "<64 hex>",             SHA-256 of the canonical form
 *     "signature": "<64 hex>" }           HMAC-SHA256 of the canonical form under
 *                                         EGG_CACHE_SECRET; only in signed entries
 *
 * The canonical form is the unformatted JSON of the document without
 * "checksum" and "signature", members in the order above.  Those two are
 * always the last members: a writer splices them in before the final brace,
 * and a reader takes everything before the last ,"checksum": plus "}" as the
 * canonical text and checks those bytes as received, so that an entry written
 * by another JSON printer (another cJSON version formatting numbers its own
 * way) verifies just the same.  The checksum catches torn and damaged
 * entries; the signature catches altered ones (anyone can recompute a
 * checksum, only holders of the secret a signature).
 *
 * Ownership: an entry owns all its strings; getters return pointers valid until
 * the entry is changed or freed; functions that return char * give the caller a
 * string to free().
 */
#ifndef EGG_CACHE_ENTRY_H
#define EGG_CACHE_ENTRY_H

#include <stddef.h>

#include "cache/key.h"
#include "common/strbuf.h"

#define CACHE_ENTRY_SCHEMA "egg-cache-entry"
#define CACHE_ENTRY_VERSION 1

struct cache_entry;

/* A new entry for key with outcome "negative" and empty result and transcript. */
struct cache_entry *cache_entry_new(const char *key);
void cache_entry_free(struct cache_entry *e);
/* A copy of e (unsigned: a signature is made when it is stored).  Caller frees. */
struct cache_entry *cache_entry_dup(const struct cache_entry *e);

/* Setters copy their arguments.  set_source makes the entry a winner;
 * set_negative drops any source. */
void cache_entry_set_name(struct cache_entry *e, const char *name);
void cache_entry_set_source(struct cache_entry *e, const char *source);
void cache_entry_set_negative(struct cache_entry *e);
void cache_entry_set_generator(struct cache_entry *e, const struct cache_generator *g);
/* result and transcript are JSON texts (an object, or an array for the
 * transcript); returns -1 with a sentence in err if the text is not that. */
int cache_entry_set_result(struct cache_entry *e, const char *json, struct strbuf *err);
int cache_entry_set_transcript(struct cache_entry *e, const char *json, struct strbuf *err);

const char *cache_entry_key(const struct cache_entry *e);
const char *cache_entry_name(const struct cache_entry *e);   /* NULL if unset */
int cache_entry_is_negative(const struct cache_entry *e);
const char *cache_entry_source(const struct cache_entry *e); /* NULL when negative */
int cache_entry_is_signed(const struct cache_entry *e);
/* The generator's fields; NULL where unset. */
const char *cache_entry_generator_field(const struct cache_entry *e, const char *field);

/* 1 if g (backend, model and recipe alike) wrote e. */
int cache_entry_is_from(const struct cache_entry *e, const struct cache_generator *g);
/* Records that generator g searched e's key again and found nothing faster
 * than e's winner (a generator recorded already is not added twice). */
void cache_entry_add_checked(struct cache_entry *e, const struct cache_generator *g);
/* 1 if g is recorded as having checked e so. */
int cache_entry_was_checked_by(const struct cache_entry *e, const struct cache_generator *g);

/* Appends the result / transcript JSON to out. */
void cache_entry_result_json(const struct cache_entry *e, int pretty, struct strbuf *out);
void cache_entry_transcript_json(const struct cache_entry *e, int pretty, struct strbuf *out);

/* Appends the stored form (one line of JSON and a newline) to out, with the
 * checksum and, when secret is not NULL or empty, the signature. */
void cache_entry_serialize(const struct cache_entry *e, const char *secret, struct strbuf *out);

/* The whole document, pretty-printed when pretty, for `egg cache show`. */
void cache_entry_to_json(const struct cache_entry *e, int pretty, struct strbuf *out);

/* Reads a stored entry.  Refuses (NULL, with a sentence in err) anything that
 * is not valid JSON of this schema and version, whose checksum does not match,
 * whose key differs from expect_key (when not NULL), or, when secret is set
 * (not NULL or empty), whose signature is missing or wrong.  Caller frees. */
struct cache_entry *cache_entry_parse(const char *data, size_t len, const char *expect_key,
				      const char *secret, struct strbuf *err);

#endif
