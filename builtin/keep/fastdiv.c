/*
 * fastdiv.c -- which kernel parameters can be passed as egg_div<T> (fastdiv.h).
 *
 * egg_div<T> converts to T wherever a T is expected, and overloads only
 * x / d, x % d, x /= d and x %= d for an integer x (templates/fastdiv.cu).  A
 * use that C++ would resolve differently for a class type than for T -- a call
 * argument (overloads such as min), a branch of ?:, auto, &, ++, sizeof -- is
 * refused, so the kernel means what it meant and compiles.
 */
#include "config.h"

#include "builtin/emit.h"
#include "builtin/keep/fastdiv.h"
#include "builtin/keep/generic.h"
#include "common/util.h"

#include <string.h>

struct use_count {
	const char *name;
	size_t uses;     /* AST names that are the parameter */
	size_t safe;     /* of those, uses the wrapper answers as T */
	size_t divisors; /* of those, the divisor of / or % */
};

static int
is_div_op(const char *op)
{
	return strcmp(op, "/") == 0 || strcmp(op, "%") == 0 || strcmp(op, "/=") == 0 ||
	       strcmp(op, "%=") == 0;
}

/* Is the name at kid k of parent a use that sees a T? (parent NULL: a
 * statement's expression, a condition or a return value) */
static int
safe_use(const struct ast_expr *parent, size_t k, int decl_init)
{
	if (!parent)
		return decl_init;
	switch (parent->kind) {
	case AST_BIN:
		return 1;
	case AST_UN:
		return strcmp(parent->text, "-") == 0 || strcmp(parent->text, "+") == 0 ||
		       strcmp(parent->text, "!") == 0 || strcmp(parent->text, "~") == 0;
	case AST_INDEX:
		return k == 1;
	case AST_CAST:
		return 1;
	case AST_ASSIGN:
		return k == 1;
	default:
		return 0;
	}
}

static void
count_expr(const struct ast_expr *e, const struct ast_expr *parent, size_t k, int decl_init,
           struct use_count *c)
{
	if (!e)
		return;
	if (e->kind == AST_NAME && strcmp(e->text, c->name) == 0) {
		c->uses++;
		c->safe += safe_use(parent, k, decl_init);
		c->divisors += parent && k == 1 && (parent->kind == AST_BIN || parent->kind == AST_ASSIGN) &&
		               is_div_op(parent->text);
		return;
	}
	for (size_t i = 0; i < e->n_kids; i++)
		count_expr(e->kids[i], e, i, 0, c);
}

/* 1 when s or a statement below it declares name */
static int
count_stmt(const struct ast_stmt *s, struct use_count *c)
{
	if (!s)
		return 0;
	int redeclared = 0;
	for (size_t i = 0; i < s->n_decls; i++) {
		redeclared |= strcmp(s->decls[i].name, c->name) == 0;
		const char *t = s->decls[i].type;
		int plain = !strstr(t, "auto") && !strstr(t, "&");
		count_expr(s->decls[i].init, NULL, 0, plain, c);
	}
	if (s->kind != AST_LAUNCH)
		count_expr(s->expr, NULL, 0, 0, c);
	count_expr(s->step, NULL, 0, 0, c);
	for (size_t i = 0; s->kind == AST_LAUNCH && i < s->n_config + s->n_args; i++)
		count_expr(s->launch[i], NULL, 0, 0, c);
	for (size_t i = 0; i < s->n_body; i++)
		redeclared |= count_stmt(s->body[i], c);
	redeclared |= count_stmt(s->init, c);
	redeclared |= count_stmt(s->then, c);
	redeclared |= count_stmt(s->otherwise, c);
	return redeclared;
}

static const char *
strip_const(const char *type)
{
	return strncmp(type, "const ", 6) == 0 ? type + 6 : type;
}

static int
integer_scalar(const char *type)
{
	static const char *const ok[] = { "int", "unsigned", "unsigned int", "long", "unsigned long",
		                          "long long", "unsigned long long", "size_t", "int64_t",
		                          "uint64_t", "int32_t", "uint32_t", NULL };
	const char *t = strip_const(type);
	for (int i = 0; ok[i]; i++)
		if (strcmp(t, ok[i]) == 0)
			return 1;
	return 0;
}

size_t
fastdiv_params(const char *text, const struct ast_function *k, int *flags)
{
	size_t n = 0;
	for (size_t i = 0; i < k->n_params; i++) {
		flags[i] = 0;
		const struct ast_decl *d = &k->params[i];
		if (!d->name || !integer_scalar(d->type) || !k->body)
			continue;
		struct use_count c = { d->name, 0, 0, 0 };
		if (count_stmt(k->body, &c)) /* redeclared */
			continue;
		if (c.divisors == 0 || c.safe != c.uses ||
		    generic_mentions(text, k->body_begin, k->end, d->name) != c.uses)
			continue;
		flags[i] = 1;
		n++;
	}
	return n;
}

char *
fastdiv_type(const char *type)
{
	return egg_xasprintf("egg_div<%s>", strip_const(type));
}

char *
fastdiv_prelude(struct strbuf *err)
{
	return emit_template_load("fastdiv.cu", err);
}
