/*
 * refill.h -- lane refill on the generic path: for an element-wise kernel whose
 * per-element work is a loop with a data-dependent trip count (one thread per
 * element, each waiting in its warp for the slowest lane), a persistent kernel
 * in which every lane walks its own elements in one loop, finishing an element
 * and loading the next as soon as its loop ends (refill.c says how and when).
 *
 * Ownership: the candidates' labels and sources are the caller's (free them).
 */
#ifndef EGG_BUILTIN_REFILL_H
#define EGG_BUILTIN_REFILL_H

#include <stddef.h>

#include "builtin/builtin.h"
#include "common/bundle.h"
#include "common/strbuf.h"

/* Appends candidates labelled "refill tpb=T grid=..." to *cands (n_cands of
 * them already, the array grown with egg_xrealloc); kernels of candidate k are
 * named PREFIX_cK_KERNEL.  Returns how many were appended; 0 with a sentence in
 * why when no launched kernel has the shape. */
size_t refill_generate(const struct egg_bundle *b, const char *prefix,
                       struct builtin_candidate **cands, size_t *n_cands, struct strbuf *why);

#endif
