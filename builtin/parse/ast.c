/*
 * ast.c -- questions asked of the parse tree (see ast.h).
 */
#include "config.h"

#include "builtin/parse/parse.h"

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
