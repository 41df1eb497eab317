/*
 * lift.h -- from a bundle's code to the tensor-level description (ir.h).
 *
 * lift_bundle parses the closure and the target (parse.h), follows a launcher's
 * launches in order (lift_launcher.c) or takes a kernel target alone, and lifts
 * each launched kernel into stages (lift.c).  Anything outside the families is
 * "not lifted": NULL with a sentence in why, which is a normal outcome.
 *
 * Ownership: the returned program is the caller's (ir_program_free).
 */
#ifndef EGG_BUILTIN_LIFT_H
#define EGG_BUILTIN_LIFT_H

#include "builtin/lift/ir.h"
#include "builtin/parse/parse.h"
#include "common/bundle.h"
#include "common/strbuf.h"

struct ir_program *lift_bundle(const struct egg_bundle *b, struct strbuf *why);

/* What a kernel parameter is bound to at one launch: a buffer (a pointer
 * parameter of the target) or a scalar expression in the target's names. */
struct lift_arg {
	const char *param;  /* the kernel's parameter name */
	const char *buffer; /* non-NULL: the target's pointer parameter */
	char *scalar;       /* otherwise: C text of the value, parenthesized (owned) */
};

/* Lifts one kernel launch into stages appended to p (lift.c).  grid: C text of
 * the launch grid's y and z extents (grid[1], grid[2]; NULL where unknown), or
 * NULL for none: a kernel that reads blockIdx.y or .z as a plane index needs
 * them. */
int lift_kernel(struct ir_program *p, const struct ast_unit *u, const struct ast_function *k,
                const struct lift_arg *args, size_t n_args, char *const *grid, struct strbuf *why);

/* A dense contraction (lift_contract.c): 0 with a CONTRACT stage appended, -1
 * with why when the kernel has the contraction's frame but is not one, 1 when it
 * does not have the frame (the caller tries the other shapes).  grid: as for
 * lift_kernel (a batch of blockIdx.z, a row of blockIdx.y without a guard). */
int lift_contract(struct ir_program *p, const struct ast_unit *u, const struct ast_function *k,
                  const struct lift_arg *args, size_t n_args, char *const *grid,
                  struct strbuf *why);

/* Launcher walk (lift_launcher.c). */
int lift_launcher(struct ir_program *p, const struct ast_unit *u, const struct ast_function *f,
                  struct strbuf *why);

/* The 2-D families among the lifted maps (lift_2d.c): gathers become row
 * programs, transposes and stencils their own stages; -1 with why when a map
 * must not be lifted at all (a scatter). */
int lift_2d(struct ir_program *p, struct strbuf *why);

/* A map's body in ROW and COL for a split of its flat index into rows of cols
 * (i / cols, i % cols, or row * cols + col), its integer lets inlined: 1 with
 * out filled, 0 when the body is not such a map (lift_2d.c). */
int lift_map_rows_cols(const struct ir_block *b, const struct ir_expr *cols, struct ir_block *out);

/* Copies (lift_copy.c): a map stage dst[i] = src[i] over the product of the
 * factors (C text in the target's names; none: one element), its kernel named
 * after the call; and the folding of such a stage into the next one when that
 * one stores every element of dst, each at its own element (a border copied
 * before a stencil that keeps it): its reads of dst read src instead. */
void lift_copy_stage(struct ir_program *p, const char *call, const char *dst, const char *src,
                     char *const *factors, size_t n_factors);
void lift_fold_copies(struct ir_program *p);

#endif
