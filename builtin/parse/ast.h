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

#endif
