/*
 * butterfly.h -- the builtin generator's butterfly path: for a launcher that
 * launches one 1-D kernel many times (host loops) on one buffer that the kernel
 * touches only at i and i ^ E (E a function of its scalar parameters), candidates
 * that apply each run of such launches with E below a tile size in one launch
 * through shared memory (butterfly.c says how and when that is exact).
 *
 * Ownership: the candidates' labels and sources are the caller's (free them).
 */
#ifndef EGG_BUILTIN_BUTTERFLY_H
#define EGG_BUILTIN_BUTTERFLY_H

#include <stddef.h>

#include "builtin/builtin.h"
#include "common/bundle.h"
#include "common/strbuf.h"

/* Appends candidates labelled "butterfly tile=T tpb=B" to *cands (n_cands of
 * them already, grown with egg_xrealloc); the code of candidate k is named
 * PREFIX_cK_....  Returns how many were appended: 0 with a sentence in why when
 * the code is not of that shape; -1 with err set when egg itself is broken (its
 * template cannot be read). */
long butterfly_generate(const struct egg_bundle *b, const char *prefix,
                        struct builtin_candidate **cands, size_t *n_cands, struct strbuf *why,
                        struct strbuf *err);

#endif
