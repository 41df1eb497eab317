/*
 * lift_tree.h -- the shared-memory tree reduction seen as the naive reduction it
 * computes (lift_tree.c); used by the launcher's lifting before lift_kernel.
 */
#ifndef EGG_BUILTIN_LIFT_TREE_H
#define EGG_BUILTIN_LIFT_TREE_H

#include "builtin/parse/parse.h"

/* The rewritten kernel: fn, whose body borrows the original's trees.  A block
 * per row (lift_block.h) is rewritten with the row count the scalar named
 * LIFT_TREE_ROWS: the caller binds it to the launch's grid. */
#define LIFT_TREE_ROWS "egg_tree_rows"
struct lift_tree {
	struct ast_function fn;
	struct ast_stmt body, guarded, add;
	struct ast_stmt **stmts;
	struct ast_expr call;
	struct ast_expr **call_kids;
};

/* 1 and *t filled when k, launched with blocks of block_dim threads, is a block
 * tree reduction into one element with a guard that makes the threads past the
 * bound add zero; else 0 (t empty).  Release t with lift_tree_release. */
int lift_tree_rewrite(const struct ast_function *k, const struct ast_expr *block_dim,
                      struct lift_tree *t);
void lift_tree_release(struct lift_tree *t);

#endif
