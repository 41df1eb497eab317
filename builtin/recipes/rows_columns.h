/*
 * rows_columns.h -- the column loop of a row program (recipes/rows.c): a vector
 * body over the longest span of the row at which its streams are aligned, and
 * scalar code for the head before it and the tail after it (rows_columns.c).
 *
 * Ownership: appends to the caller's strbuf; borrows everything it is given.
 */
#ifndef EGG_BUILTIN_RECIPES_ROWS_COLUMNS_H
#define EGG_BUILTIN_RECIPES_ROWS_COLUMNS_H

#include "builtin/emit.h"

struct rows_columns {
	/* the loop's streams collected (c->streams), c->vec the vector width, the
	 * index texts set; the streams' addresses are those of column 0 */
	struct emit_ctx *c;
	int g; /* lanes of the group (the column stride) */
	/* The vector loop(s): given a context whose streams are the vector ones (a
	 * stream left out is read element by element in the components), and the
	 * element offset of vector jv as C text (BASE(jv), with "egg_jv" in it), emits
	 * loops of egg_jv from egg_lane to egg_cv by g. */
	void (*vector)(void *arg, struct emit_ctx *c, const char *base, struct strbuf *out);
	/* the loop body at column egg_j, scalar */
	void (*scalar)(void *arg, struct emit_ctx *c, struct strbuf *out);
	void *arg;
	int unroll; /* #pragma unroll of the scalar loop */
};

/* Emits, inside a scope that declared `egg_cn` (the column count) and `egg_lane`:
 * - when every stream's address at column 0 has the same residue modulo the
 *   vector (in elements), a scalar head of egg_jh = (V - residue) % V columns and
 *   the vector body from there (row stride 50257 floats: every row, whatever its
 *   start);
 * - else, when the streams that move with the row share a residue and the others
 *   (per-column weights) do not, the same with the others read element by element
 *   in the body;
 * - and the scalar loop over the head and the tail (all columns when neither holds).
 * Leaves the scope open; the caller closes it. */
void rows_emit_columns(const struct rows_columns *rc, struct strbuf *out);

#endif
