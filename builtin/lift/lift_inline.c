/*
 * lift_inline.c -- a kernel's calls of __device__ helpers that take pointers,
 * written out in its body before the lifter reads it:
 *
 *     y[row] = dot_row(A + row * K, x, K);
 * becomes
 *     const float *egg_h1_a = A + row * K;
 *     const float *egg_h1_v = x;
 *     float egg_h1_s = 0.0f;
 *     for (int egg_h1_k = 0; egg_h1_k < K; ++egg_h1_k) egg_h1_s += egg_h1_a[egg_h1_k] * egg_h1_v[egg_h1_k];
 *     float egg_h1_ret = egg_h1_s;
 *     y[row] = egg_h1_ret;
 *
 * so that the frame, the loops and the loads the helper holds are seen where
 * the kernel stands (a matrix-vector product whose dot product is a helper is a
 * row program like the one written inline).  A helper without pointers stays a
 * call (lift_expr.c keeps it, computed per element).
 *
 * Written out: a __device__ function of the closure whose body ends in its one
 * return, called where its value is computed once and unconditionally (the
 * initializer of a declaration of one name, an expression statement, an if's
 * condition; not under &&, || or ?:, which may not evaluate it, nor in a loop's
 * condition or step).  Its names get the prefix egg_hN_; a name it uses
 * without declaring it (a global) must not be one the kernel declares, or the
 * written-out code would read the kernel's.  A scalar parameter passed a name
 * or a number that the helper never assigns is replaced by it (a loop bound
 * stays the launcher's scalar); the others become locals initialized to their
 * arguments, as a call would (the parser reads a reference as a pointer: one
 * passed anything but a buffer and an offset is refused there).  Helpers that
 * call helpers are written out to a depth of four.  Anything else stays a
 * call, which the lifter refuses.
 */
#include "config.h"

#include "builtin/lift/lift_inline.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 4

struct names {
	const char **v;
	size_t n;
};

static void
names_add(struct names *nm, const char *s)
{
	nm->v = egg_xrealloc(nm->v, (nm->n + 1) * sizeof *nm->v);
	nm->v[nm->n++] = s;
}

static int
names_has(const struct names *nm, const char *s)
{
	for (size_t i = 0; s && i < nm->n; i++)
		if (strcmp(nm->v[i], s) == 0)
			return 1;
	return 0;
}

struct inl {
	struct lift_inline *t;
	const struct ast_unit *u;
	struct names kernel; /* what the kernel declares: its parameters and locals */
	int depth;
};

static void *
own(struct inl *x, void *p)
{
	x->t->owned = egg_xrealloc(x->t->owned, (x->t->n_owned + 1) * sizeof *x->t->owned);
	x->t->owned[x->t->n_owned++] = p;
	return p;
}

static void *
own_alloc(struct inl *x, size_t size)
{
	return own(x, egg_xcalloc(1, size));
}

static void
declared_in(const struct ast_stmt *s, struct names *nm)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_decls; i++)
		names_add(nm, s->decls[i].name);
	declared_in(s->init, nm);
	declared_in(s->then, nm);
	declared_in(s->otherwise, nm);
	for (size_t i = 0; i < s->n_body; i++)
		declared_in(s->body[i], nm);
}

static size_t
count_returns(const struct ast_stmt *s)
{
	if (!s)
		return 0;
	size_t n = s->kind == AST_RETURN;
	n += count_returns(s->init) + count_returns(s->then) + count_returns(s->otherwise);
	for (size_t i = 0; i < s->n_body; i++)
		n += count_returns(s->body[i]);
	return n;
}

struct capture {
	const struct names *decl, *kernel;
};

/* Whether e uses, without the helper declaring it, a name the kernel declares
 * (unqualified names only). */
static int
captures(const struct ast_expr *e, void *arg)
{
	const struct capture *c = arg;
	if (e->kind == AST_NAME && !e->qual && !names_has(c->decl, e->text) && names_has(c->kernel, e->text))
		return 1;
	for (size_t i = 0; i < e->n_kids; i++)
		if (captures(e->kids[i], arg))
			return 1;
	return 0;
}

static int
assigns(const struct ast_expr *e, void *name)
{
	return ast_assigns(e, name);
}

/* The helper call e names, when it can be written out; else NULL. */
static const struct ast_function *
helper(struct inl *x, const struct ast_expr *e)
{
	if (e->kind != AST_CALL || !e->text || x->depth >= MAX_DEPTH)
		return NULL;
	const struct ast_function *f = ast_find_function(x->u, e->text);
	if (!f || !strstr(f->qualifiers, "__device__") || strstr(f->qualifiers, "__global__") ||
	    !f->body || f->body->kind != AST_BLOCK || f->body->n_body == 0 || f->n_params != e->n_kids ||
	    !f->ret_type || strcmp(f->ret_type, "void") == 0)
		return NULL;
	int pointers = 0;
	for (size_t i = 0; i < f->n_params; i++)
		pointers |= strchr(f->params[i].type, '*') != NULL;
	const struct ast_stmt *last = f->body->body[f->body->n_body - 1];
	if (!pointers || last->kind != AST_RETURN || !last->expr || count_returns(f->body) != 1)
		return NULL;
	struct names decl = { 0 };
	for (size_t i = 0; i < f->n_params; i++)
		names_add(&decl, f->params[i].name);
	declared_in(f->body, &decl);
	struct capture c = { &decl, &x->kernel };
	int capture = ast_walk_exprs(f->body, captures, &c);
	free(decl.v);
	return capture ? NULL : f;
}

/* ---- copies with the helper's names renamed ---- */

struct ren {
	const struct names *decl;
	unsigned id;
	const char *const *subst_name;       /* scalar parameters replaced by their arguments */
	const struct ast_expr *const *subst; /* (NULL: renamed) */
	size_t n_subst;
};

static char *
renamed(struct inl *x, const struct ren *r, const char *name)
{
	if (!name || !names_has(r->decl, name))
		return (char *)name;
	return own(x, egg_xasprintf("egg_h%u_%s", r->id, name));
}

static struct ast_expr *
copy_expr(struct inl *x, const struct ast_expr *e, const struct ren *r)
{
	if (!e)
		return NULL;
	if (e->kind == AST_NAME && !e->qual)
		for (size_t i = 0; i < r->n_subst; i++)
			if (r->subst[i] && strcmp(r->subst_name[i], e->text) == 0)
				return (struct ast_expr *)r->subst[i];
	struct ast_expr *c = own_alloc(x, sizeof *c);
	*c = *e;
	if (e->kind == AST_NAME && !e->qual)
		c->text = renamed(x, r, e->text);
	if (e->n_kids) {
		c->kids = own_alloc(x, e->n_kids * sizeof *c->kids);
		for (size_t i = 0; i < e->n_kids; i++)
			c->kids[i] = copy_expr(x, e->kids[i], r);
	}
	return c;
}

static struct ast_stmt *
copy_stmt(struct inl *x, const struct ast_stmt *s, const struct ren *r)
{
	if (!s)
		return NULL;
	struct ast_stmt *c = own_alloc(x, sizeof *c);
	*c = *s;
	if (s->n_decls) {
		c->decls = own_alloc(x, s->n_decls * sizeof *c->decls);
		for (size_t i = 0; i < s->n_decls; i++) {
			c->decls[i] = s->decls[i];
			c->decls[i].name = renamed(x, r, s->decls[i].name);
			c->decls[i].init = copy_expr(x, s->decls[i].init, r);
		}
	}
	c->expr = copy_expr(x, s->expr, r);
	c->step = copy_expr(x, s->step, r);
	c->init = copy_stmt(x, s->init, r);
	c->then = copy_stmt(x, s->then, r);
	c->otherwise = copy_stmt(x, s->otherwise, r);
	if (s->n_body) {
		c->body = own_alloc(x, s->n_body * sizeof *c->body);
		for (size_t i = 0; i < s->n_body; i++)
			c->body[i] = copy_stmt(x, s->body[i], r);
	}
	return c;
}

/* ---- writing calls out ---- */

struct list {
	struct ast_stmt **v;
	size_t n;
};

static void
list_add(struct inl *x, struct list *l, struct ast_stmt *s)
{
	struct ast_stmt **v = own_alloc(x, (l->n + 1) * sizeof *v);
	if (l->n)
		memcpy(v, l->v, l->n * sizeof *v);
	v[l->n++] = s;
	l->v = v;
}

static struct ast_stmt *
decl_stmt(struct inl *x, const char *type, const char *name, struct ast_expr *init)
{
	struct ast_stmt *s = own_alloc(x, sizeof *s);
	s->kind = AST_DECL;
	s->decls = own_alloc(x, sizeof *s->decls);
	s->decls[0].type = (char *)type;
	s->decls[0].name = (char *)name;
	s->decls[0].init = init;
	s->n_decls = 1;
	return s;
}

static struct ast_stmt *expand_stmt(struct inl *x, struct ast_stmt *s, struct list *pre);

static int
simple_arg(const struct ast_expr *a)
{
	while (a->kind == AST_CAST)
		a = a->kids[0];
	return a->kind == AST_NAME || a->kind == AST_NUM;
}

/* The statements of f's body for a call with arguments args into pre; the name of
 * the local holding its value. */
static struct ast_expr *
write_out(struct inl *x, const struct ast_function *f, struct ast_expr *const *args, struct list *pre)
{
	struct names decl = { 0 };
	for (size_t i = 0; i < f->n_params; i++)
		names_add(&decl, f->params[i].name);
	declared_in(f->body, &decl);
	const char **sn = egg_xcalloc(f->n_params + 1, sizeof *sn);
	const struct ast_expr **sv = egg_xcalloc(f->n_params + 1, sizeof *sv);
	struct ren r = { &decl, ++x->t->n_calls, sn, sv, f->n_params };
	for (size_t i = 0; i < f->n_params; i++) {
		const struct ast_decl *p = &f->params[i];
		sn[i] = p->name;
		if (!strchr(p->type, '*') && simple_arg(args[i]) && !ast_walk_exprs(f->body, assigns, (void *)p->name))
			sv[i] = args[i]; /* the launcher's scalar itself */
		else
			list_add(x, pre, decl_stmt(x, p->type, renamed(x, &r, p->name), args[i]));
	}
	x->depth++;
	const struct ast_stmt *body = f->body;
	for (size_t i = 0; i + 1 < body->n_body; i++) {
		struct list inner = { 0 };
		struct ast_stmt *s = expand_stmt(x, copy_stmt(x, body->body[i], &r), &inner);
		for (size_t j = 0; j < inner.n; j++)
			list_add(x, pre, inner.v[j]);
		list_add(x, pre, s);
	}
	struct list inner = { 0 };
	struct ast_stmt *ret = decl_stmt(x, f->ret_type, own(x, egg_xasprintf("egg_h%u_ret", r.id)),
	                                 copy_expr(x, body->body[body->n_body - 1]->expr, &r));
	ret = expand_stmt(x, ret, &inner);
	for (size_t j = 0; j < inner.n; j++)
		list_add(x, pre, inner.v[j]);
	list_add(x, pre, ret);
	x->depth--;
	struct ast_expr *name = own_alloc(x, sizeof *name);
	name->kind = AST_NAME;
	name->text = ret->decls[0].name;
	free(decl.v);
	free(sn);
	free(sv);
	return name;
}

/* e with its helper calls (those always evaluated) written out into pre: a copy
 * where something changed, else e itself. */
static struct ast_expr *
expand_expr(struct inl *x, struct ast_expr *e, struct list *pre, int maybe)
{
	if (!e)
		return NULL;
	struct ast_expr **kids = NULL;
	for (size_t i = 0; i < e->n_kids; i++) {
		/* ?: evaluates one of its branches, && and || maybe their right side */
		int cond = maybe || (e->kind == AST_COND && i > 0) ||
		           (e->kind == AST_BIN && i > 0 && (strcmp(e->text, "&&") == 0 || strcmp(e->text, "||") == 0));
		struct ast_expr *k = expand_expr(x, e->kids[i], pre, cond);
		if (k != e->kids[i] && !kids) {
			kids = own_alloc(x, e->n_kids * sizeof *kids);
			memcpy(kids, e->kids, e->n_kids * sizeof *kids);
		}
		if (kids)
			kids[i] = k;
	}
	const struct ast_function *f = maybe ? NULL : helper(x, e);
	if (f)
		return write_out(x, f, kids ? kids : e->kids, pre);
	if (!kids)
		return e;
	struct ast_expr *c = own_alloc(x, sizeof *c);
	*c = *e;
	c->kids = kids;
	return c;
}

/* s as a statement that holds what pre gathered before it: s itself when pre is
 * empty, else a block. */
static struct ast_stmt *
sub(struct inl *x, struct ast_stmt *s)
{
	if (!s)
		return NULL;
	struct list pre = { 0 };
	struct ast_stmt *c = expand_stmt(x, s, &pre);
	if (!pre.n)
		return c;
	list_add(x, &pre, c);
	struct ast_stmt *b = own_alloc(x, sizeof *b);
	b->kind = AST_BLOCK;
	b->body = pre.v;
	b->n_body = pre.n;
	b->begin = s->begin;
	b->end = s->end;
	return b;
}

static struct ast_stmt *
expand_stmt(struct inl *x, struct ast_stmt *s, struct list *pre)
{
	struct ast_stmt c = *s;
	int changed = 0;
	if (s->kind == AST_DECL && s->n_decls == 1) {
		/* (one declarator: a call in a later one may use an earlier one, which the
		 * statements written before the declaration could not see) */
		struct ast_decl *d = NULL;
		for (size_t i = 0; i < s->n_decls; i++) {
			struct ast_expr *v = expand_expr(x, s->decls[i].init, pre, 0);
			if (v != s->decls[i].init && !d) {
				d = own_alloc(x, s->n_decls * sizeof *d);
				memcpy(d, s->decls, s->n_decls * sizeof *d);
			}
			if (d)
				d[i].init = v;
		}
		if (d)
			c.decls = d, changed = 1;
	} else if (s->kind == AST_EXPR || s->kind == AST_IF) {
		c.expr = expand_expr(x, s->expr, pre, 0);
		changed |= c.expr != s->expr;
	}
	if (s->kind == AST_IF || s->kind == AST_FOR || s->kind == AST_WHILE) {
		c.then = sub(x, s->then);
		c.otherwise = sub(x, s->otherwise);
		changed |= c.then != s->then || c.otherwise != s->otherwise;
	}
	if (s->kind == AST_BLOCK) {
		struct list l = { 0 };
		for (size_t i = 0; i < s->n_body; i++) {
			struct list inner = { 0 };
			struct ast_stmt *k = expand_stmt(x, s->body[i], &inner);
			for (size_t j = 0; j < inner.n; j++)
				list_add(x, &l, inner.v[j]);
			list_add(x, &l, k);
			changed |= k != s->body[i] || inner.n;
		}
		c.body = l.v;
		c.n_body = l.n;
	}
	if (!changed)
		return s;
	struct ast_stmt *r = own_alloc(x, sizeof *r);
	*r = c;
	return r;
}

int
lift_inline_helpers(const struct ast_unit *u, const struct ast_function *k, struct lift_inline *t)
{
	memset(t, 0, sizeof *t);
	if (!k->body)
		return 0;
	struct inl x = { t, u, { 0 }, 0 };
	for (size_t i = 0; i < k->n_params; i++)
		names_add(&x.kernel, k->params[i].name);
	declared_in(k->body, &x.kernel);
	struct list pre = { 0 }; /* stays empty: a block writes its calls out inside itself */
	struct ast_stmt *body = expand_stmt(&x, k->body, &pre);
	free(x.kernel.v);
	if (t->n_calls == 0) {
		lift_inline_release(t);
		return 0;
	}
	t->fn = *k;
	t->fn.body = body;
	return 1;
}

void
lift_inline_release(struct lift_inline *t)
{
	for (size_t i = 0; i < t->n_owned; i++)
		free(t->owned[i]);
	free(t->owned);
	memset(t, 0, sizeof *t);
}
