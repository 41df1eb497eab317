/*
 * lift_block.h -- a block per row whose threads cooperate through shared memory
 * (strided column loops, tree reductions of their partials, thread 0's result),
 * seen as the one-thread-per-row program it computes (lift_block.c); used by the
 * launcher's lifting before lift_kernel.
 *
 * Ownership: lift_block_rewrite fills *t with a kernel whose nodes t owns or
 * borrows from k; release it with lift_block_release before k goes.
 */
#ifndef EGG_BUILTIN_LIFT_BLOCK_H
#define EGG_BUILTIN_LIFT_BLOCK_H

#include "builtin/parse/parse.h"
#include "common/strbuf.h"

struct lift_block {
	struct ast_function fn; /* one thread per row: if (row < LIFT_TREE_ROWS) { ... } */
	void **owned;           /* every node and array made for it */
	size_t n_owned;
};

/* k launched with blocks of block_dim threads (the launch's expression): 1 and
 * *t filled when k is a block per row (blockIdx.x) whose shared memory serves
 * only tree reductions of its threads' partials; 0 when k is not of that frame
 * (no shared array, a global thread index, a 2-D block or grid: other shapes;
 * t empty); -1 with a sentence in why when it is, but something in it is not
 * proved to compute the row program (t empty).  u: the unit, for the warp-reduction helpers k
 * calls.  The row count is the scalar LIFT_TREE_ROWS (lift_tree.h), which the
 * caller binds to the launch's grid. */
int lift_block_rewrite(const struct ast_unit *u, const struct ast_function *k,
                       const struct ast_expr *block_dim, struct lift_block *t, struct strbuf *why);
void lift_block_release(struct lift_block *t);

#endif
