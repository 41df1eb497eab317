/*
 * ast.c -- questions asked of the parse tree (see ast.h).
 */
#include "config.h"

#include "builtin/parse/parse.h"

#include <stdlib.h>
#include <string.h>

int
ast_is_bare_return(const struct ast_stmt *s)
{
	if (s && s->kind == AST_BLOCK && s->n_body == 1)
		s = s->body[0];
	return s && s->kind == AST_RETURN && !s->expr;
}

int
ast_has_loop(const struct ast_stmt *s)
{
	if (!s)
		return 0;
	if (s->kind == AST_FOR || s->kind == AST_WHILE)
		return 1;
	for (size_t i = 0; i < s->n_body; i++)
		if (ast_has_loop(s->body[i]))
			return 1;
	return ast_has_loop(s->then) || ast_has_loop(s->otherwise);
}

int
ast_has_launch(const struct ast_stmt *s)
{
	if (!s)
		return 0;
	if (s->kind == AST_LAUNCH)
		return 1;
	for (size_t i = 0; i < s->n_body; i++)
		if (ast_has_launch(s->body[i]))
			return 1;
	return ast_has_launch(s->init) || ast_has_launch(s->then) || ast_has_launch(s->otherwise);
}

int
ast_assigns(const struct ast_expr *e, const char *name)
{
	if (!e)
		return 0;
	const struct ast_expr *k = e->n_kids ? e->kids[0] : NULL;
	while (k && k->kind == AST_CAST)
		k = k->kids[0];
	int on_name = k && k->kind == AST_NAME && strcmp(k->text, name) == 0;
	if (on_name && (e->kind == AST_ASSIGN || e->kind == AST_POST ||
	                (e->kind == AST_UN && (strcmp(e->text, "++") == 0 || strcmp(e->text, "--") == 0 ||
	                                       strcmp(e->text, "&") == 0))))
		return 1; /* assigned, stepped, or its address escapes */
	for (size_t i = 0; i < e->n_kids; i++)
		if (ast_assigns(e->kids[i], name))
			return 1;
	return 0;
}

int
ast_walk_exprs(const struct ast_stmt *s, int (*fn)(const struct ast_expr *e, void *arg), void *arg)
{
	if (!s)
		return 0;
	for (size_t i = 0; i < s->n_decls; i++)
		if (s->decls[i].init && fn(s->decls[i].init, arg))
			return 1;
	if ((s->expr && s->kind != AST_LAUNCH && fn(s->expr, arg)) || (s->step && fn(s->step, arg)))
		return 1;
	for (size_t i = 0; s->kind == AST_LAUNCH && i < s->n_config + s->n_args; i++)
		if (fn(s->launch[i], arg))
			return 1;
	for (size_t i = 0; i < s->n_body; i++)
		if (ast_walk_exprs(s->body[i], fn, arg))
			return 1;
	return ast_walk_exprs(s->init, fn, arg) || ast_walk_exprs(s->then, fn, arg) ||
	       ast_walk_exprs(s->otherwise, fn, arg);
}

/* ---- names, members and the thread index ---- */

const struct ast_expr *
ast_strip_casts(const struct ast_expr *e)
{
	while (e && e->kind == AST_CAST)
		e = e->kids[0];
	return e;
}

int
ast_is_name(const struct ast_expr *e, const char *name)
{
	e = ast_strip_casts(e);
	return e && name && e->kind == AST_NAME && strcmp(e->text, name) == 0;
}

int
ast_is_member(const struct ast_expr *e, const char *var, const char *field)
{
	e = ast_strip_casts(e);
	return e && e->kind == AST_MEMBER && strcmp(e->text, field) == 0 && ast_is_name(e->kids[0], var);
}

int
ast_is_product(const struct ast_expr *e, const char *a, const char *b, const char *dim)
{
	e = ast_strip_casts(e);
	return e && e->kind == AST_BIN && strcmp(e->text, "*") == 0 &&
	       ((ast_is_member(e->kids[0], a, dim) && ast_is_member(e->kids[1], b, dim)) ||
	        (ast_is_member(e->kids[0], b, dim) && ast_is_member(e->kids[1], a, dim)));
}

int
ast_is_global_index(const struct ast_expr *e, const char *dim)
{
	e = ast_strip_casts(e);
	if (!e || e->kind != AST_BIN || strcmp(e->text, "+") != 0)
		return 0;
	for (int s = 0; s < 2; s++)
		if (ast_is_product(e->kids[s], "blockIdx", "blockDim", dim) &&
		    ast_is_member(e->kids[1 - s], "threadIdx", dim))
			return 1;
	return 0;
}

/* ---- constants ---- */

int
ast_int_value(const struct ast_expr *e, long *v)
{
	e = ast_strip_casts(e);
	if (!e || e->kind != AST_NUM)
		return 0;
	char *end;
	long x = strtol(e->text, &end, 0);
	while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
		end++;
	if (*end)
		return 0;
	*v = x;
	return 1;
}

int
ast_is_null_pointer(const struct ast_expr *e)
{
	e = ast_strip_casts(e);
	return e && ((e->kind == AST_NUM && strcmp(e->text, "0") == 0) ||
	             (e->kind == AST_NAME && (strcmp(e->text, "NULL") == 0 || strcmp(e->text, "nullptr") == 0 ||
	                                      strcmp(e->text, "__null") == 0)));
}

/* ---- whole expressions ---- */

int
ast_mentions(const struct ast_expr *e, const char *name)
{
	if (!e || !name)
		return 0;
	if (e->kind == AST_NAME && strcmp(e->text, name) == 0)
		return 1;
	for (size_t i = 0; i < e->n_kids; i++)
		if (ast_mentions(e->kids[i], name))
			return 1;
	return 0;
}

int
ast_equal(const struct ast_expr *a, const struct ast_expr *b)
{
	if (!a || !b)
		return a == b;
	if (a->kind != b->kind || a->n_kids != b->n_kids ||
	    (a->text && b->text ? strcmp(a->text, b->text) != 0 : a->text != b->text))
		return 0;
	for (size_t i = 0; i < a->n_kids; i++)
		if (!ast_equal(a->kids[i], b->kids[i]))
			return 0;
	return 1;
}

const struct ast_expr *
ast_guard_bound(const struct ast_expr *cond, const char *name, const char *op, const char *mirror)
{
	if (!cond || cond->kind != AST_BIN)
		return NULL;
	const struct ast_expr *l = ast_strip_casts(cond->kids[0]), *r = ast_strip_casts(cond->kids[1]);
	if (strcmp(cond->text, op) == 0 && l->kind == AST_NAME && strcmp(l->text, name) == 0)
		return cond->kids[1];
	if (strcmp(cond->text, mirror) == 0 && r->kind == AST_NAME && strcmp(r->text, name) == 0)
		return cond->kids[0];
	return NULL;
}
