/*
 * grid2d.h -- what the recipes of 2-D stages (transpose.c, stencil.c) share: the
 * emit context of a thread's element (ROW and COL spelled (int)egg_r and (int)egg_c), a
 * copy of a body with chosen loads read from shared memory instead, and the
 * host launch of a 2-D grid of tiles.
 *
 * Ownership: grid2d_body returns a block the caller frees with ir_block_free;
 * the other functions append to the caller's strbufs.
 */
#ifndef EGG_BUILTIN_RECIPES_GRID2D_H
#define EGG_BUILTIN_RECIPES_GRID2D_H

#include "builtin/recipes/recipe.h"

/* Static shared memory a block may declare (48 KB), less a margin for the
 * compiler's own: a point whose tiles need more is not emitted. */
#define GRID2D_MAX_SHARED 45000

/* An emit context with ROW = (int)egg_r, COL = (int)egg_c and no streams. */
struct emit_ctx grid2d_ctx(const struct ir_program *p);

/* Text replacing a load (malloc'ed), or NULL to keep the load. */
typedef char *(*grid2d_load_fn)(void *ctx, const struct ir_expr *load);
/* A copy of b with loads replaced by fn's text, and, when store_fn is given, each
 * store for which it returns text turned into "TEXT = value". */
struct ir_block grid2d_body(const struct ir_block *b, grid2d_load_fn fn,
                            grid2d_load_fn store_fn, void *ctx);

/* Host block launching name on a grid of ceil(cols / tw) x ceil(rows / th) tiles
 * (capped: the kernel strides over the rest) with bx x by threads. */
void grid2d_launch(struct recipe_job *job, const struct ir_stage *st, const char *name, int tw,
                   int th, int bx, int by);

#endif
