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
 * A block per row (row = blockIdx.x) whose threads first sum a column loop
 * strided by the block (for (c = threadIdx.x; c < C; c += blockDim.x) s += X;)
 * into sh[threadIdx.x] = s, and whose thread 0 then stores F(sh[0]), is the row
 * program "for every row < grid: s = 0; for (c = 0; c < C; c++) s += X; store
 * F(s)", lifted with the launch's grid as its row count.  The rewrite is a second kernel whose statements borrow the first
 * one's trees; only its few new nodes are owned here.  Everything is recognised
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

/* A node of the rewritten kernel, owned by t. */
static struct ast_expr *
node(struct lift_tree *t, enum ast_expr_kind kind, const char *text, size_t n_kids)
{
	struct ast_expr *e = egg_xcalloc(1, sizeof *e);
	e->kind = kind;
	e->text = text ? egg_xstrdup(text) : NULL;
	e->kids = n_kids ? egg_xcalloc(n_kids, sizeof *e->kids) : NULL;
	e->n_kids = n_kids;
	t->owned = egg_xrealloc(t->owned, (t->n_owned + 1) * sizeof *t->owned);
	t->owned[t->n_owned++] = e;
	return e;
}

static struct ast_expr *
member(struct lift_tree *t, const char *var, const char *field)
{
	struct ast_expr *m = node(t, AST_MEMBER, field, 1);
	m->kids[0] = node(t, AST_NAME, var, 0);
	return m;
}

/* e with every sh[0] replaced by the name acc (new nodes where it changes) */
static struct ast_expr *
replace_slot0(struct lift_tree *t, struct ast_expr *e, const char *sh, const char *acc)
{
	long z;
	const struct ast_expr *x = ast_strip_casts(e);
	if (x->kind == AST_INDEX && ast_is_name(x->kids[0], sh) && ast_int_value(x->kids[1], &z) && z == 0)
		return node(t, AST_NAME, acc, 0);
	int changed = 0;
	struct ast_expr **kids = e->n_kids ? egg_xcalloc(e->n_kids, sizeof *kids) : NULL;
	for (size_t i = 0; i < e->n_kids; i++) {
		kids[i] = replace_slot0(t, e->kids[i], sh, acc);
		changed |= kids[i] != e->kids[i];
	}
	if (!changed) {
		free(kids);
		return e;
	}
	struct ast_expr *c = node(t, e->kind, e->text, e->n_kids);
	memcpy(c->kids, kids, e->n_kids * sizeof *kids);
	free(kids);
	return c;
}

void
lift_tree_release(struct lift_tree *t)
{
	for (size_t i = 0; i < t->n_owned; i++) {
		free(t->owned[i]->text);
		free(t->owned[i]->kids);
		free(t->owned[i]);
	}
	free(t->owned);
	free(t->stmts);
	free(t->call_kids);
	free(t->loop_decl);
	memset(t, 0, sizeof *t);
}

/* s += X (or s = s + X) with X free of s: X, else NULL */
static const struct ast_expr *
sum_into(const struct ast_stmt *st, const char *acc)
{
	if (st->kind != AST_EXPR || st->expr->kind != AST_ASSIGN || !ast_is_name(st->expr->kids[0], acc))
		return NULL;
	const struct ast_expr *v = st->expr->kids[1], *x = NULL;
	if (strcmp(st->expr->text, "+=") == 0) {
		x = v;
	} else if (strcmp(st->expr->text, "=") == 0) {
		v = ast_strip_casts(v);
		if (v->kind == AST_BIN && strcmp(v->text, "+") == 0 && ast_is_name(v->kids[0], acc))
			x = v->kids[1];
		else if (v->kind == AST_BIN && strcmp(v->text, "+") == 0 && ast_is_name(v->kids[1], acc))
			x = v->kids[0];
	}
	return x && !ast_mentions(x, acc) ? x : NULL;
}

/* for (int c = tid; c < C; c += blockDim.x (or the block)) { lets; acc += X; }
 * with nothing else touching acc or the thread: 1 */
static int
is_strided_sum(const struct ast_stmt *f, const char *tid, long block, const char *acc, const char *sh)
{
	long b;
	if (f->kind != AST_FOR || !f->init || f->init->kind != AST_DECL || f->init->n_decls != 1 ||
	    !f->step || !is_tid(f->init->decls[0].init, tid))
		return 0;
	const char *c = f->init->decls[0].name;
	const struct ast_expr *cond = ast_strip_casts(f->expr), *st = f->step;
	if (!cond || cond->kind != AST_BIN || strcmp(cond->text, "<") != 0 || !ast_is_name(cond->kids[0], c) ||
	    ast_mentions(cond->kids[1], c) || ast_mentions(cond->kids[1], acc) ||
	    (tid && ast_mentions(cond->kids[1], tid)) || ast_mentions(cond->kids[1], sh))
		return 0;
	if (st->kind != AST_ASSIGN || strcmp(st->text, "+=") != 0 || !ast_is_name(st->kids[0], c) ||
	    !(ast_is_member(st->kids[1], "blockDim", "x") || (ast_int_value(st->kids[1], &b) && b == block)))
		return 0;
	const struct ast_stmt *body = f->then;
	const struct ast_stmt *const *items = (const struct ast_stmt *const *)&body;
	size_t n = 1;
	if (body->kind == AST_BLOCK)
		items = (const struct ast_stmt *const *)body->body, n = body->n_body;
	int sums = 0;
	for (size_t i = 0; i < n; i++) {
		const struct ast_stmt *x = items[i];
		if (x->kind == AST_DECL && x->n_decls == 1 && !ast_has_loop(x) &&
		    !ast_mentions(x->decls[0].init, acc) && !(tid && ast_mentions(x->decls[0].init, tid)) &&
		    !ast_mentions(x->decls[0].init, sh))
			continue;
		const struct ast_expr *v = sum_into(x, acc);
		if (!v || (tid && ast_mentions(v, tid)) || ast_mentions(v, sh) || ast_mentions(v, "threadIdx"))
			return 0;
		sums++;
	}
	return sums == 1;
}

/* The kernel for a block per row: if (row < grid) { lets; the column loop from
 * 0 by 1; F(acc) } with row the global index. */
static int
rewrite_rows(const struct ast_function *k, const struct ast_stmt *const *lets, size_t n_lets,
             const char *row, const char *acc, const struct ast_stmt *loop,
             const struct ast_stmt *final, const char *sh, struct lift_tree *t)
{
	const struct ast_stmt *a = final;
	if (a->kind == AST_BLOCK && a->n_body == 1)
		a = a->body[0];
	if (a->kind != AST_EXPR || a->expr->kind != AST_ASSIGN || strcmp(a->expr->text, "=") != 0 ||
	    ast_mentions(a->expr->kids[0], sh))
		return 0;
	struct ast_expr *v = replace_slot0(t, a->expr->kids[1], sh, acc);
	if (v == a->expr->kids[1] || ast_mentions(v, sh))
		return 0; /* it does not read the block's sum, or reads other slots */
	/* int row = blockIdx.x * blockDim.x + threadIdx.x; */
	struct ast_expr *gid = node(t, AST_BIN, "+", 2), *mul = node(t, AST_BIN, "*", 2);
	mul->kids[0] = member(t, "blockIdx", "x");
	mul->kids[1] = member(t, "blockDim", "x");
	gid->kids[0] = mul;
	gid->kids[1] = member(t, "threadIdx", "x");
	t->loop_decl = egg_xcalloc(2, sizeof *t->loop_decl);
	t->loop_decl[0] = (struct ast_decl){ .type = (char *)"int", .name = (char *)row, .init = gid };
	t->row_decl = (struct ast_stmt){ .kind = AST_DECL, .decls = &t->loop_decl[0], .n_decls = 1 };
	/* for (int c = 0; c < C; c += 1) body */
	struct ast_expr *step = node(t, AST_ASSIGN, "+=", 2);
	step->kids[0] = loop->step->kids[0];
	step->kids[1] = node(t, AST_NUM, "1", 0);
	t->loop_decl[1] = loop->init->decls[0];
	t->loop_decl[1].init = node(t, AST_NUM, "0", 0);
	t->loop_init = (struct ast_stmt){ .kind = AST_DECL, .decls = &t->loop_decl[1], .n_decls = 1 };
	t->loop = *loop;
	t->loop.init = &t->loop_init;
	t->loop.step = step;
	/* store F(acc) */
	struct ast_expr *store = node(t, AST_ASSIGN, "=", 2);
	store->kids[0] = a->expr->kids[0];
	store->kids[1] = v;
	t->add = (struct ast_stmt){ .kind = AST_EXPR, .expr = store };
	/* if (row < grid) { lets; loop; store } */
	t->stmts = egg_xcalloc(n_lets + 3, sizeof *t->stmts);
	size_t m = 0;
	for (size_t i = 0; i < n_lets; i++)
		t->stmts[m++] = (struct ast_stmt *)lets[i];
	t->stmts[m++] = &t->loop;
	t->stmts[m++] = &t->add;
	t->inner = (struct ast_stmt){ .kind = AST_BLOCK, .body = t->stmts, .n_body = m };
	struct ast_expr *guard = node(t, AST_BIN, "<", 2);
	guard->kids[0] = node(t, AST_NAME, row, 0);
	guard->kids[1] = node(t, AST_NAME, LIFT_TREE_ROWS, 0);
	t->guarded = (struct ast_stmt){ .kind = AST_IF, .expr = guard, .then = &t->inner };
	t->top = egg_xcalloc(2, sizeof *t->top);
	t->top[0] = &t->row_decl;
	t->top[1] = &t->guarded;
	t->body = (struct ast_stmt){ .kind = AST_BLOCK, .body = t->top, .n_body = 2 };
	t->fn = *k;
	t->fn.body = &t->body;
	t->rows_from_grid = 1;
	return 1;
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
	const char *sh = NULL, *tid = NULL, *gid = NULL, *row = NULL;
	const struct ast_expr *contrib = NULL, *add = NULL;
	size_t at = 0, n = body->n_body;
	struct lets l = { egg_xcalloc(n + 1, sizeof *l.d), 0 };
	const struct ast_stmt **kept = egg_xcalloc(n + 1, sizeof *kept);
	size_t n_kept = 0;
	int ok = 1;
	/* lets (the shared array, the thread's slot, the global or row index, the rest) */
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
			else if (!gid && !row && d->init && ast_is_global_index(d->init, "x"))
				gid = d->name, l.d[l.n++] = d, keep = 1;
			else if (!gid && !row && ast_is_member(d->init, "blockIdx", "x"))
				row = d->name;
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
	/* a block per row: the strided column sum first */
	const struct ast_stmt *loop = NULL;
	const char *acc = NULL;
	if (ok && row && at < n && body->body[at]->kind == AST_FOR) {
		loop = body->body[at++];
		const struct ast_stmt *fill = at < n ? body->body[at] : NULL;
		acc = fill && fill->kind == AST_EXPR && fill->expr->kind == AST_ASSIGN &&
		      strcmp(fill->expr->text, "=") == 0 && ast_strip_casts(fill->expr->kids[1])->kind == AST_NAME
		          ? ast_strip_casts(fill->expr->kids[1])->text : NULL;
		double zero;
		size_t q;
		for (q = 0; acc && q < l.n && strcmp(l.d[q]->name, acc) != 0; q++)
			;
		/* acc is a let that starts at 0 and only the loop adds to */
		if (!acc || q == l.n || !l.d[q]->init || !value_past(l.d[q]->init, NULL, &l, &zero) ||
		    zero != 0 || !is_strided_sum(loop, tid, block, acc, sh))
			ok = 0;
	}
	/* sh[tid] = E; __syncthreads(); the halving loop; thread 0's combine */
	const struct ast_stmt *final = NULL;
	if (ok && sh && (gid || loop) && at + 4 == n && body->body[at]->kind == AST_EXPR &&
	    body->body[at]->expr->kind == AST_ASSIGN && strcmp(body->body[at]->expr->text, "=") == 0 &&
	    is_slot(body->body[at]->expr->kids[0], sh, tid) && is_call(body->body[at + 1], "__syncthreads") &&
	    is_tree_loop(body->body[at + 2], sh, tid, block)) {
		contrib = body->body[at]->expr->kids[1];
		const struct ast_stmt *f = body->body[at + 3];
		long z;
		const struct ast_expr *c = f->kind == AST_IF && !f->otherwise ? ast_strip_casts(f->expr) : NULL;
		if (gid)
			add = thread0_add(f, sh, tid);
		else if (c && c->kind == AST_BIN && strcmp(c->text, "==") == 0 && is_tid(c->kids[0], tid) &&
		         ast_int_value(c->kids[1], &z) && z == 0)
			final = f->then;
	}
	int rc = 0;
	if (final) {
		rc = rewrite_rows(k, kept, n_kept, row, acc, loop, final, sh, t);
	} else if (add && !ast_mentions(contrib, sh) && !(tid && ast_mentions(contrib, tid)) &&
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
