/*
 * lift_tree.c -- the textbook shared-memory tree reduction, seen as the naive
 * reduction it computes.  A kernel of this shape:
 *
 *     __shared__ T sh[B];
 *     int i = <global thread index>;            (and the kernel's other lets)
 *     sh[threadIdx.x] = E;                      (E may read the lets)
 *     __syncthreads();
 *     for (s = blockDim.x / 2; s > 0; s >>= 1) {
 *         if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
 *         __syncthreads();
 *     }
 *     if (threadIdx.x == 0) atomicAdd(dst, sh[0]);
 *
 * launched with a block of a power-of-two literal size, adds the E of every
 * thread of the grid into dst.  When E is guarded by a select on (i < n) whose
 * other side makes E zero, the threads past n add nothing, and the kernel is
 * the naive "if (i < n) atomicAdd(dst, E);", which the lifter takes as a full
 * reduction.
 *
 * The rewrite is a second kernel whose statements borrow the first
 * one's trees (it owns only its statement lists).  Everything is recognised
 * from the structure (the halving loop, the barrier, the thread-0 combine),
 * never from names; anything else leaves the kernel as it is (and the lifter
 * refuses its shared array).
 */
#include "config.h"

#include "builtin/lift/lift_internal.h"
#include "builtin/lift/lift_tree.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

/* threadIdx.x, or the local the kernel named it */
static int
is_tid(const struct ast_expr *e, const char *tid)
{
	return ast_is_member(e, "threadIdx", "x") || ast_is_name(e, tid);
}

static int
is_call(const struct ast_stmt *s, const char *fn)
{
	return s->kind == AST_EXPR && s->expr->kind == AST_CALL && s->expr->text &&
	       strcmp(s->expr->text, fn) == 0;
}

/* sh[tid] */
static int
is_slot(const struct ast_expr *e, const char *sh, const char *tid)
{
	e = ast_strip_casts(e);
	return e && e->kind == AST_INDEX && ast_is_name(e->kids[0], sh) && is_tid(e->kids[1], tid);
}

/* sh[tid + s] (either order) */
static int
is_partner(const struct ast_expr *e, const char *sh, const char *tid, const char *s)
{
	e = ast_strip_casts(e);
	if (!e || e->kind != AST_INDEX || !ast_is_name(e->kids[0], sh))
		return 0;
	const struct ast_expr *x = ast_strip_casts(e->kids[1]);
	return x->kind == AST_BIN && strcmp(x->text, "+") == 0 &&
	       ((is_tid(x->kids[0], tid) && ast_is_name(x->kids[1], s)) ||
	        (ast_is_name(x->kids[0], s) && is_tid(x->kids[1], tid)));
}

/* if (tid < s) sh[tid] += sh[tid + s];   (or sh[tid] = sh[tid] + sh[tid + s]) */
static int
is_tree_step(const struct ast_stmt *st, const char *sh, const char *tid, const char *s)
{
	if (st->kind == AST_BLOCK && st->n_body == 1)
		st = st->body[0];
	if (st->kind != AST_IF || st->otherwise)
		return 0;
	const struct ast_expr *c = ast_strip_casts(st->expr);
	if (c->kind != AST_BIN || strcmp(c->text, "<") != 0 || !is_tid(c->kids[0], tid) ||
	    !ast_is_name(c->kids[1], s))
		return 0;
	const struct ast_stmt *a = st->then;
	if (a->kind == AST_BLOCK && a->n_body == 1)
		a = a->body[0];
	if (a->kind != AST_EXPR || a->expr->kind != AST_ASSIGN || !is_slot(a->expr->kids[0], sh, tid))
		return 0;
	const struct ast_expr *v = a->expr->kids[1];
	if (strcmp(a->expr->text, "+=") == 0)
		return is_partner(v, sh, tid, s);
	v = ast_strip_casts(v);
	return strcmp(a->expr->text, "=") == 0 && v->kind == AST_BIN && strcmp(v->text, "+") == 0 &&
	       ((is_slot(v->kids[0], sh, tid) && is_partner(v->kids[1], sh, tid, s)) ||
	        (is_partner(v->kids[0], sh, tid, s) && is_slot(v->kids[1], sh, tid)));
}

/* for (int s = blockDim.x / 2 (or B / 2); s > 0; s >>= 1) { step; __syncthreads(); } */
static int
is_tree_loop(const struct ast_stmt *f, const char *sh, const char *tid, long block)
{
	if (f->kind != AST_FOR || !f->init || f->init->kind != AST_DECL || f->init->n_decls != 1 ||
	    !f->step)
		return 0;
	const char *s = f->init->decls[0].name;
	const struct ast_expr *i0 = ast_strip_casts(f->init->decls[0].init);
	long two, b;
	if (!i0 || i0->kind != AST_BIN || strcmp(i0->text, "/") != 0 || !ast_int_value(i0->kids[1], &two) ||
	    two != 2 || !(ast_is_member(i0->kids[0], "blockDim", "x") || (ast_int_value(i0->kids[0], &b) && b == block)))
		return 0;
	const struct ast_expr *c = ast_strip_casts(f->expr), *st = f->step;
	long zero;
	if (!c || c->kind != AST_BIN || strcmp(c->text, ">") != 0 || !ast_is_name(c->kids[0], s) ||
	    !ast_int_value(c->kids[1], &zero) || zero != 0)
		return 0;
	long one;
	if (!(st->kind == AST_ASSIGN && ast_is_name(st->kids[0], s) &&
	      ((strcmp(st->text, ">>=") == 0 && ast_int_value(st->kids[1], &one) && one == 1) ||
	       (strcmp(st->text, "/=") == 0 && ast_int_value(st->kids[1], &two) && two == 2))))
		return 0;
	const struct ast_stmt *body = f->then;
	return body->kind == AST_BLOCK && body->n_body == 2 && is_tree_step(body->body[0], sh, tid, s) &&
	       is_call(body->body[1], "__syncthreads");
}

/* if (tid == 0) atomicAdd(dst, sh[0]);  the atomic call, or NULL */
static const struct ast_expr *
thread0_add(const struct ast_stmt *st, const char *sh, const char *tid)
{
	if (st->kind != AST_IF || st->otherwise)
		return NULL;
	const struct ast_expr *c = ast_strip_casts(st->expr);
	long zero;
	if (c->kind != AST_BIN || strcmp(c->text, "==") != 0 || !is_tid(c->kids[0], tid) ||
	    !ast_int_value(c->kids[1], &zero) || zero != 0)
		return NULL;
	const struct ast_stmt *a = st->then;
	if (a->kind == AST_BLOCK && a->n_body == 1)
		a = a->body[0];
	if (!is_call(a, "atomicAdd") || a->expr->n_kids != 2)
		return NULL;
	const struct ast_expr *v = ast_strip_casts(a->expr->kids[1]);
	long ix;
	if (v->kind != AST_INDEX || !ast_is_name(v->kids[0], sh) || !ast_int_value(v->kids[1], &ix) || ix != 0)
		return NULL;
	return a->expr;
}

/* ---- is E zero past the guard? ---- */

struct lets {
	const struct ast_decl **d;
	size_t n;
};

/* The value of e when the guard g is false, if it is a constant: 1 and *v. */
static int
value_past(const struct ast_expr *e, const struct ast_expr *g, const struct lets *l, double *v)
{
	e = ast_strip_casts(e);
	switch (e->kind) {
	case AST_NUM: {
		char *end;
		*v = strtod(e->text, &end);
		return end != e->text && (*end == '\0' || ((*end == 'f' || *end == 'F') && !end[1]));
	}
	case AST_NAME:
		for (size_t i = l->n; i-- > 0;)
			if (strcmp(l->d[i]->name, e->text) == 0)
				return l->d[i]->init && value_past(l->d[i]->init, g, l, v);
		return 0;
	case AST_COND:
		return e->kids[0] == g && value_past(e->kids[2], g, l, v);
	case AST_UN: {
		double a;
		if (strcmp(e->text, "-") != 0 || !value_past(e->kids[0], g, l, &a))
			return 0;
		*v = -a;
		return 1;
	}
	case AST_BIN: {
		double a, b;
		if (!value_past(e->kids[0], g, l, &a))
			return 0;
		/* 0 * anything is 0: the guarded side need not be constant */
		if (strcmp(e->text, "*") == 0 && a == 0) {
			*v = 0;
			return 1;
		}
		if (!value_past(e->kids[1], g, l, &b))
			return 0;
		switch (e->text[1] ? 0 : e->text[0]) {
		case '+': *v = a + b; return 1;
		case '-': *v = a - b; return 1;
		case '*': *v = a * b; return 1;
		default: return 0;
		}
	}
	default:
		return 0;
	}
}

/* The guard: the condition (gid < bound) of a select in e or in the lets it
 * reads, or NULL. */
static const struct ast_expr *
find_guard(const struct ast_expr *e, const char *gid, const struct lets *l)
{
	e = ast_strip_casts(e);
	if (!e)
		return NULL;
	if (e->kind == AST_COND) {
		const struct ast_expr *c = ast_strip_casts(e->kids[0]);
		if (c->kind == AST_BIN && strcmp(c->text, "<") == 0 && ast_is_name(c->kids[0], gid))
			return e->kids[0];
	}
	if (e->kind == AST_NAME)
		for (size_t i = l->n; i-- > 0;)
			if (strcmp(l->d[i]->name, e->text) == 0)
				return l->d[i]->init ? find_guard(l->d[i]->init, gid, l) : NULL;
	for (size_t i = 0; i < e->n_kids; i++) {
		const struct ast_expr *g = find_guard(e->kids[i], gid, l);
		if (g)
			return g;
	}
	return NULL;
}

/* ---- the rewrite ---- */

void
lift_tree_release(struct lift_tree *t)
{
	free(t->stmts);
	free(t->call_kids);
	memset(t, 0, sizeof *t);
}

int
lift_tree_rewrite(const struct ast_function *k, const struct ast_expr *block_dim,
                  struct lift_tree *t)
{
	memset(t, 0, sizeof *t);
	long block;
	if (!ast_int_value(block_dim, &block) || block < 2 || (block & (block - 1)) != 0)
		return 0;
	const struct ast_stmt *body = k->body;
	const char *sh = NULL, *tid = NULL, *gid = NULL;
	const struct ast_expr *contrib = NULL, *add = NULL;
	size_t at = 0, n = body->n_body;
	struct lets l = { egg_xcalloc(n + 1, sizeof *l.d), 0 };
	const struct ast_stmt **kept = egg_xcalloc(n + 1, sizeof *kept);
	size_t n_kept = 0;
	int ok = 1;
	/* lets (the shared array, the thread's slot, the global index, the rest) */
	for (; at < n && ok && body->body[at]->kind == AST_DECL; at++) {
		const struct ast_stmt *s = body->body[at];
		int keep = 0;
		for (size_t j = 0; j < s->n_decls && ok; j++) {
			const struct ast_decl *d = &s->decls[j];
			if (d->is_shared && d->is_array && !sh)
				sh = d->name;
			else if (d->is_shared || d->is_array || ast_has_loop(s))
				ok = 0;
			else if (!tid && ast_is_member(d->init, "threadIdx", "x"))
				tid = d->name;
			else if (!gid && d->init && ast_is_global_index(d->init, "x"))
				gid = d->name, l.d[l.n++] = d, keep = 1;
			else
				l.d[l.n++] = d, keep = 1;
		}
		if (keep && s->n_decls != 1) /* int a = .., tid = threadIdx.x: not split here */
			ok = 0;
		if (keep)
			kept[n_kept++] = s;
	}
	ok = ok && sh; /* no shared array: not the idiom */
	for (size_t i = 0; i < l.n && ok; i++)
		if (ast_mentions(l.d[i]->init, sh) || (tid && ast_mentions(l.d[i]->init, tid)) ||
		    (strcmp(l.d[i]->name, gid ? gid : "") != 0 && ast_mentions(l.d[i]->init, "threadIdx")))
			ok = 0;
	/* sh[tid] = E; __syncthreads(); the halving loop; thread 0's combine */
	if (ok && sh && gid && at + 4 == n && body->body[at]->kind == AST_EXPR &&
	    body->body[at]->expr->kind == AST_ASSIGN && strcmp(body->body[at]->expr->text, "=") == 0 &&
	    is_slot(body->body[at]->expr->kids[0], sh, tid) && is_call(body->body[at + 1], "__syncthreads") &&
	    is_tree_loop(body->body[at + 2], sh, tid, block)) {
		contrib = body->body[at]->expr->kids[1];
		add = thread0_add(body->body[at + 3], sh, tid);
	}
	int rc = 0;
	if (add && !ast_mentions(contrib, sh) && !(tid && ast_mentions(contrib, tid)) &&
	           !ast_mentions(add->kids[0], sh)) {
		const struct ast_expr *guard = find_guard(contrib, gid, &l);
		double past;
		if (guard && value_past(contrib, guard, &l, &past) && past == 0) {
			/* the kernel the tree computes: the lets, then if (guard) atomicAdd(dst, E); */
			t->stmts = egg_xcalloc(n_kept + 1, sizeof *t->stmts);
			size_t m = 0;
			for (size_t i = 0; i < n_kept; i++)
				t->stmts[m++] = (struct ast_stmt *)kept[i];
			t->call_kids = egg_xcalloc(2, sizeof *t->call_kids);
			t->call_kids[0] = add->kids[0];
			t->call_kids[1] = (struct ast_expr *)contrib;
			t->call = (struct ast_expr){ AST_CALL, add->text, t->call_kids, 2, NULL };
			t->add = (struct ast_stmt){ .kind = AST_EXPR, .expr = &t->call };
			t->guarded = (struct ast_stmt){ .kind = AST_IF, .expr = (struct ast_expr *)guard,
				                        .then = &t->add };
			t->stmts[m++] = &t->guarded;
			t->body = (struct ast_stmt){ .kind = AST_BLOCK, .body = t->stmts, .n_body = m };
			t->fn = *k;
			t->fn.body = &t->body;
			rc = 1;
		}
	}
	free(l.d);
	free(kept);
	if (!rc)
		lift_tree_release(t);
	return rc;
}
