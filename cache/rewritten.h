/*
 * rewritten.h -- the rewritten sources egg-cc compiles, kept under the cache directory.
 *
 * nvcc derives names from the path of the source it compiles (anonymous namespaces,
 * the module id of relocatable device code), so a rewritten source in a fresh
 * temporary directory gives a different object at every build, and a compiler cache
 * behind egg-cc (compiler_launcher = ccache) could never hit.  The same rewritten
 * bytes therefore always live at the same path:
 *
 *   CACHE_DIR/rewritten/HASH/NAME   HASH: SHA-256 of the bytes; NAME: the input's
 *                                   basename (nvcc's default output names follow it)
 *
 * A file is written once (temporary name, rename: two builds writing the same bytes
 * both leave a whole file) and reused while its bytes match; its directory's
 * modification time is its last use (the file's own is left alone: ccache treats a
 * source modified during the build as too new for its direct mode).
 *
 * Eviction follows the cache's: whenever the store evicts or is cleared, the
 * directories last used before the least recently used entry it keeps go too (all
 * of them when it keeps none).  They are not counted in max_size (a few tens of
 * kilobytes each).
 */
#ifndef EGG_CACHE_REWRITTEN_H
#define EGG_CACHE_REWRITTEN_H

#include <stddef.h>
#include <time.h>

#include "common/strbuf.h"

#define CACHE_REWRITTEN_DIR "rewritten"

/* Stores data as CACHE_DIR/rewritten/HASH/name (or finds it there) and sets *path
 * (the caller's to free).  0, or -1 with a sentence in err. */
int cache_rewritten_put(const char *cache_dir, const char *name, const void *data, size_t len,
                        char **path, struct strbuf *err);

/* Removes the rewritten sources last used before `before` (0: all of them);
 * returns how many directories went. */
size_t cache_rewritten_sweep(const char *cache_dir, time_t before);

#endif
