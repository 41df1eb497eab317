/*
 * generic.h -- the builtin generator's generic path: candidates for code that
 * does not lift, which keep the reference's code and change only what the
 * clauses and the code prove safe (generic.c says what and why).
 *
 * Ownership: the candidates' labels and sources are the caller's (free them).
 */
#ifndef EGG_BUILTIN_GENERIC_H
#define EGG_BUILTIN_GENERIC_H

#include <stddef.h>

#include "builtin/builtin.h"
#include "common/bundle.h"
#include "common/strbuf.h"

/* Appends candidates labelled "generic ..." to *cands (n_cands of them already,
 * the array grown with egg_xrealloc); kernels of candidate k are named
 * PREFIX_cK_KERNEL.  Returns how many were appended; 0 with a sentence in why
 * when the generic path has nothing it can change safely. */
size_t generic_generate(const struct egg_bundle *b, const char *prefix,
                        struct builtin_candidate **cands, size_t *n_cands, struct strbuf *why);

/* C text of a host expression (numbers, names, calls of names, unary, binary,
 * conditional operators and casts) appended to out; -1 for another form. */
struct ast_expr;
int generic_print_expr(const struct ast_expr *e, struct strbuf *out);

/* Does nothing in code depend on the block's shape beyond blockDim.x (no shared
 * memory, barriers, warp shuffles or votes, warpSize, cooperative groups)? */
int generic_block_shape_free(const char *code);

/* How often text[from, to) names name as a whole identifier. */
size_t generic_mentions(const char *text, size_t from, size_t to, const char *name);

#endif
