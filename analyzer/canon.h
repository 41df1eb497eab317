/*
 * canon.h -- the canonical form of source text, which the cache key hashes.
 *
 * Comments, line continuations and layout are not part of a kernel's meaning,
 * so they must not change its key; everything else must.  The canonical form
 * is the text's C/C++ tokens (maximal munch, as a compiler lexes them) joined
 * by single spaces, with each preprocessor directive on a line of its own
 * (a directive ends at its line's end, so that boundary is meaning).
 */
#ifndef EGG_CANON_H
#define EGG_CANON_H

/* Returns the canonical form of src (caller frees). */
char *canon_text(const char *src);

#endif
