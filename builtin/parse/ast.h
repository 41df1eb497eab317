/*
 * ast.h -- questions asked of the parse tree (parse.h) by every stage of the
 * builtin generator: the lifter, the paths that keep the reference's code and
 * the check program.  One place for them, so that a predicate means the same
 * thing everywhere (which casts it sees through, which spellings of a number
 * or a null pointer it accepts).
 *
 * All of them only read the tree; none allocates.  parse.h includes this
 * header, so a file that reads the tree has both.
 */
#ifndef EGG_BUILTIN_AST_H
#define EGG_BUILTIN_AST_H

struct ast_expr;
struct ast_stmt;

/* Does s hold a for, while or do loop (s itself included)? */
int ast_has_loop(const struct ast_stmt *s);
/* Does s hold a kernel launch (s itself included)? */
int ast_has_launch(const struct ast_stmt *s);
/* Is s "return;" (alone in a block, or not)? */
int ast_is_bare_return(const struct ast_stmt *s);

/* Whether name is assigned, incremented or decremented in e, or its address
 * taken (casts around it seen through). */
int ast_assigns(const struct ast_expr *e, const char *name);
/* fn on every expression of s and the statements below it (declarations'
 * initializers, conditions, steps, launch arguments); 1 as soon as fn says 1. */
int ast_walk_exprs(const struct ast_stmt *s, int (*fn)(const struct ast_expr *e, void *arg), void *arg);

/* e without the casts around it ((int)(unsigned)x is x); NULL for NULL. */
const struct ast_expr *ast_strip_casts(const struct ast_expr *e);
/* Is e (casts aside) the name `name`?  0 for a NULL e or name. */
int ast_is_name(const struct ast_expr *e, const char *name);
/* Is e (casts aside) var.field, as in threadIdx.x? */
int ast_is_member(const struct ast_expr *e, const char *var, const char *field);
/* Is e (casts aside) a.dim * b.dim, in either order (blockIdx.x * blockDim.x)? */
int ast_is_product(const struct ast_expr *e, const char *a, const char *b, const char *dim);
/* Is e the global thread index in dim ("x", "y", "z"): blockIdx.D * blockDim.D +
 * threadIdx.D, the terms and factors in either order, casts allowed? */
int ast_is_global_index(const struct ast_expr *e, const char *dim);
/* Is e (casts aside) an integer literal, all of it (suffixes u, l allowed)?
 * Its value in *v. */
int ast_int_value(const struct ast_expr *e, long *v);
/* Is e (casts aside) a null pointer constant: 0, NULL, nullptr, __null? */
int ast_is_null_pointer(const struct ast_expr *e);
/* Does the name `name` occur anywhere in e? */
int ast_mentions(const struct ast_expr *e, const char *name);
/* Are a and b the same tree (kinds, spellings, operands)? */
int ast_equal(const struct ast_expr *a, const struct ast_expr *b);
/* The bound B of a guard on name: cond is `name OP B` or `B MIRROR name` (casts
 * around name aside), as in i < n with "<", ">" or i >= n with ">=", "<=";
 * NULL for another condition. */
const struct ast_expr *ast_guard_bound(const struct ast_expr *cond, const char *name, const char *op,
                                       const char *mirror);

#endif
