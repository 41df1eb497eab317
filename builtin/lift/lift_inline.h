/*
 * lift_inline.h -- calls of __device__ helpers that take pointers written out in
 * the kernel (lift_inline.c), so that the lifter, which reads one body, sees the
 * helper's loops and loads as if the kernel held them.
 */
#ifndef EGG_BUILTIN_LIFT_INLINE_H
#define EGG_BUILTIN_LIFT_INLINE_H

#include "builtin/parse/parse.h"

struct lift_inline {
	struct ast_function fn; /* the kernel, its helpers' bodies in place of the calls */
	void **owned;           /* every node and string made for it */
	size_t n_owned;
	unsigned n_calls;       /* the calls written out */
};

/* 1 and *t filled when k calls a helper that can be written out; else 0 (t
 * empty: the kernel is lifted as it is, and such calls are refused there).
 * Release t with lift_inline_release. */
int lift_inline_helpers(const struct ast_unit *u, const struct ast_function *k, struct lift_inline *t);
void lift_inline_release(struct lift_inline *t);

#endif
