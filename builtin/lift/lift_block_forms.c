/*
 * lift_block_forms.c -- the forms of a block-per-row kernel that lift_block.c
 * recognises: the tree loops over the shared array (halving, folding the upper
 * half, interleaved pairs), the updates of a partial and of a slot, the
 * strided column loop, and the warp folds (a helper's shuffles, thread 0's
 * combine of the warps' slots).  Each is matched on the structure alone, and
 * each form is one whose result is the operator over every slot for the block
 * it is launched with (see lift_block.c for what that proves).
 */
#include "config.h"

#include "builtin/lift/lift_block_internal.h"
#include "builtin/lift/lift_internal.h"

#include <stdlib.h>
#include <string.h>

const struct ast_stmt *
lift_block_only(const struct ast_stmt *s)
{
	while (s && s->kind == AST_BLOCK && s->n_body == 1)
		s = s->body[0];
	return s;
}

int
lift_block_is_call_stmt(const struct ast_stmt *s, const char *fn)
{
	s = lift_block_only(s);
	return s && s->kind == AST_EXPR && s->expr->kind == AST_CALL && s->expr->text &&
	       strcmp(s->expr->text, fn) == 0;
}

static int
combine_of(const char *fn, enum ir_combine *op)
{
	static const struct {
		const char *fn;
		enum ir_combine op;
	} fns[] = { { "fmaxf", IR_MAX }, { "fmax", IR_MAX }, { "max", IR_MAX },
		    { "fminf", IR_MIN }, { "fmin", IR_MIN }, { "min", IR_MIN } };
	for (size_t i = 0; fn && i < sizeof fns / sizeof *fns; i++)
		if (strcmp(fn, fns[i].fn) == 0) {
			*op = fns[i].op;
			return 1;
		}
	return 0;
}

/* a = a + X, a += X, a = fmaxf(a, X), a = fminf(X, a) ...: the operator, with X
 * in *x; 0 when e is not such an update of the left side is(a). */
int
lift_block_update_of(const struct ast_expr *e, int (*is_a)(const struct ast_expr *, const void *), const void *arg,
          enum ir_combine *op, const struct ast_expr **x)
{
	e = ast_strip_casts(e);
	if (!e || e->kind != AST_ASSIGN || !is_a(e->kids[0], arg))
		return 0;
	const struct ast_expr *v = e->kids[1];
	if (strcmp(e->text, "+=") == 0) {
		*op = IR_SUM;
		*x = v;
		return 1;
	}
	v = ast_strip_casts(v);
	if (strcmp(e->text, "=") != 0 || (v->kind != AST_BIN && v->kind != AST_CALL) || v->n_kids != 2)
		return 0;
	if (v->kind == AST_BIN && strcmp(v->text, "+") != 0)
		return 0;
	if (v->kind == AST_BIN)
		*op = IR_SUM;
	else if (!combine_of(v->text, op))
		return 0;
	for (int s = 0; s < 2; s++)
		if (is_a(v->kids[s], arg)) {
			*x = v->kids[1 - s];
			return 1;
		}
	return 0;
}

int
lift_block_is_named(const struct ast_expr *e, const void *name)
{
	return ast_is_name(e, name);
}


/* sh[tid] (partner 0) or sh[tid + s] (partner 1) */
int
lift_block_is_slot(const struct ast_expr *e, const void *arg)
{
	const struct slot *sl = arg;
	e = ast_strip_casts(e);
	if (!e || e->kind != AST_INDEX || !ast_is_name(e->kids[0], sl->b->sh))
		return 0;
	if (!sl->partner)
		return lift_block_is_tid(sl->b, e->kids[1]);
	const struct ast_expr *x = ast_strip_casts(e->kids[1]);
	return x->kind == AST_BIN && strcmp(x->text, "+") == 0 &&
	       ((lift_block_is_tid(sl->b, x->kids[0]) && ast_is_name(x->kids[1], sl->s)) ||
	        (ast_is_name(x->kids[0], sl->s) && lift_block_is_tid(sl->b, x->kids[1])));
}

/* sh[tid] = OP(sh[tid], sh[tid + s]) in its spellings: the operator, or -1 */
static int
tree_step(struct blk *b, const struct ast_stmt *st, const char *s)
{
	st = lift_block_only(st);
	if (!st || st->kind != AST_EXPR)
		return -1;
	struct slot self = { b, s, 0 }, other = { b, s, 1 };
	enum ir_combine op;
	const struct ast_expr *x;
	if (!lift_block_update_of(st->expr, lift_block_is_slot, &self, &op, &x) || !lift_block_is_slot(x, &other))
		return -1;
	return (int)op;
}

/* for (...) { if (COND) STEP; __syncthreads(); [n = half;] }: the step's
 * operator when COND is what cond_ok says and the barrier closes the step */
static int
tree_body(struct blk *b, const struct ast_stmt *body, size_t skip, const char *partner,
          int (*cond_ok)(struct blk *, const struct ast_expr *, const char *, const char *),
          const char *s, size_t tail)
{
	if (!body || body->kind != AST_BLOCK || body->n_body != skip + 2 + tail)
		return -1;
	const struct ast_stmt *f = body->body[skip];
	if (f->kind != AST_IF || f->otherwise || !cond_ok(b, ast_strip_casts(f->expr), s, partner) ||
	    !lift_block_is_call_stmt(body->body[skip + 1], "__syncthreads"))
		return -1;
	return tree_step(b, f->then, partner);
}

/* tid < s */
static int
cond_halving(struct blk *b, const struct ast_expr *c, const char *s, const char *partner)
{
	(void)partner;
	return c->kind == AST_BIN && strcmp(c->text, "<") == 0 && lift_block_is_tid(b, c->kids[0]) && ast_is_name(c->kids[1], s);
}

/* tid < n - half */
static int
cond_fold(struct blk *b, const struct ast_expr *c, const char *n, const char *half)
{
	if (c->kind != AST_BIN || strcmp(c->text, "<") != 0 || !lift_block_is_tid(b, c->kids[0]))
		return 0;
	const struct ast_expr *d = ast_strip_casts(c->kids[1]);
	return d->kind == AST_BIN && strcmp(d->text, "-") == 0 && ast_is_name(d->kids[0], n) &&
	       ast_is_name(d->kids[1], half);
}

/* 2 * s, s * 2, s << 1, s + s */
static int
is_twice(const struct ast_expr *e, const char *s)
{
	long v;
	e = ast_strip_casts(e);
	if (!e || e->kind != AST_BIN)
		return 0;
	if (strcmp(e->text, "*") == 0)
		return (ast_is_name(e->kids[0], s) && ast_int_value(e->kids[1], &v) && v == 2) ||
		       (ast_is_name(e->kids[1], s) && ast_int_value(e->kids[0], &v) && v == 2);
	if (strcmp(e->text, "<<") == 0)
		return ast_is_name(e->kids[0], s) && ast_int_value(e->kids[1], &v) && v == 1;
	return strcmp(e->text, "+") == 0 && ast_is_name(e->kids[0], s) && ast_is_name(e->kids[1], s);
}

/* tid % (2 * s) == 0 && tid + s < blockDim.x (either order of the terms) */
static int
cond_pairs(struct blk *b, const struct ast_expr *c, const char *s, const char *partner)
{
	(void)partner;
	if (c->kind != AST_BIN || strcmp(c->text, "&&") != 0)
		return 0;
	int mod = 0, in_block = 0;
	for (int k = 0; k < 2; k++) {
		const struct ast_expr *t = ast_strip_casts(c->kids[k]);
		long z;
		if (t->kind != AST_BIN)
			return 0;
		const struct ast_expr *l = ast_strip_casts(t->kids[0]);
		if (strcmp(t->text, "==") == 0 && ast_int_value(t->kids[1], &z) && z == 0 && l->kind == AST_BIN &&
		    strcmp(l->text, "%") == 0 && lift_block_is_tid(b, l->kids[0]) && is_twice(l->kids[1], s))
			mod = 1;
		else if (strcmp(t->text, "<") == 0 && lift_block_is_bdim(b, t->kids[1]) && l->kind == AST_BIN &&
		         strcmp(l->text, "+") == 0 &&
		         ((lift_block_is_tid(b, l->kids[0]) && ast_is_name(l->kids[1], s)) ||
		          (ast_is_name(l->kids[0], s) && lift_block_is_tid(b, l->kids[1]))))
			in_block = 1;
	}
	return mod && in_block;
}

/* X / 2 or X >> 1 with X what is says: X */
const struct ast_expr *
lift_block_halved(const struct ast_expr *e)
{
	long v;
	e = ast_strip_casts(e);
	if (e && e->kind == AST_BIN && ((strcmp(e->text, "/") == 0 && ast_int_value(e->kids[1], &v) && v == 2) ||
	                                (strcmp(e->text, ">>") == 0 && ast_int_value(e->kids[1], &v) && v == 1)))
		return e->kids[0];
	return NULL;
}

/* The tree loop over sh in one of its three forms: its operator, or -1. */
int
lift_block_tree_loop(struct blk *b, const struct ast_stmt *f)
{
	if (f->kind != AST_FOR || !f->init || f->init->kind != AST_DECL || f->init->n_decls != 1)
		return -1;
	const char *s = f->init->decls[0].name;
	const struct ast_expr *i0 = f->init->decls[0].init, *c = ast_strip_casts(f->expr), *st = f->step;
	long v;
	if (!i0 || !c || c->kind != AST_BIN || !ast_is_name(c->kids[0], s))
		return -1;
	/* for (s = blockDim.x / 2; s > 0; s >>= 1): a power-of-two block */
	const struct ast_expr *h = lift_block_halved(i0);
	if (h && lift_block_is_bdim(b, h) && strcmp(c->text, ">") == 0 && ast_int_value(c->kids[1], &v) && v == 0 && st &&
	    st->kind == AST_ASSIGN && ast_is_name(st->kids[0], s) &&
	    ((strcmp(st->text, ">>=") == 0 && ast_int_value(st->kids[1], &v) && v == 1) ||
	     (strcmp(st->text, "/=") == 0 && ast_int_value(st->kids[1], &v) && v == 2) ||
	     (strcmp(st->text, "=") == 0 && lift_block_halved(st->kids[1]) && ast_is_name(lift_block_halved(st->kids[1]), s)))) {
		if (b->block <= 0 || (b->block & (b->block - 1)) != 0) {
			lift_block_refuse(b, "a tree halving from blockDim.x / 2 adds every slot only for a power-of-two "
			       "block, and the launch's block is not a literal power of two");
			return -1;
		}
		return tree_body(b, f->then, 0, s, cond_halving, s, 0);
	}
	/* for (n = blockDim.x; n > 1;) { half = (n + 1) / 2; if (tid < n - half) ...; n = half; } */
	if (lift_block_is_bdim(b, i0) && !st && strcmp(c->text, ">") == 0 && ast_int_value(c->kids[1], &v) && v == 1) {
		const struct ast_stmt *body = f->then;
		if (!body || body->kind != AST_BLOCK || body->n_body != 4 || body->body[0]->kind != AST_DECL ||
		    body->body[0]->n_decls != 1)
			return -1;
		const struct ast_decl *hd = &body->body[0]->decls[0];
		const struct ast_expr *hv = lift_block_halved(hd->init), *last = lift_block_only(body->body[3])->expr;
		hv = ast_strip_casts(hv);
		if (!hv || hv->kind != AST_BIN || strcmp(hv->text, "+") != 0 || !ast_is_name(hv->kids[0], s) ||
		    !ast_int_value(hv->kids[1], &v) || v != 1 || lift_block_only(body->body[3])->kind != AST_EXPR || !last ||
		    last->kind != AST_ASSIGN || strcmp(last->text, "=") != 0 || !ast_is_name(last->kids[0], s) ||
		    !ast_is_name(last->kids[1], hd->name))
			return -1;
		/* the if's condition names n and half: cond_fold gets both */
		const struct ast_stmt *iff = body->body[1];
		if (iff->kind != AST_IF || iff->otherwise || !cond_fold(b, ast_strip_casts(iff->expr), s, hd->name) ||
		    !lift_block_is_call_stmt(body->body[2], "__syncthreads"))
			return -1;
		return tree_step(b, iff->then, hd->name);
	}
	/* for (s = 1; s < blockDim.x; s *= 2) { if (tid % (2 * s) == 0 && tid + s < blockDim.x) ... } */
	if (ast_int_value(i0, &v) && v == 1 && strcmp(c->text, "<") == 0 && lift_block_is_bdim(b, c->kids[1]) && st &&
	    st->kind == AST_ASSIGN && ast_is_name(st->kids[0], s) &&
	    ((strcmp(st->text, "*=") == 0 && ast_int_value(st->kids[1], &v) && v == 2) ||
	     (strcmp(st->text, "<<=") == 0 && ast_int_value(st->kids[1], &v) && v == 1) ||
	     (strcmp(st->text, "+=") == 0 && ast_is_name(st->kids[1], s)) ||
	     (strcmp(st->text, "=") == 0 && is_twice(st->kids[1], s))))
		return tree_body(b, f->then, 0, s, cond_pairs, s, 0);
	return -1;
}

/* for (int j = tid; j < C; j += blockDim.x) */
int
lift_block_is_strided(struct blk *b, const struct ast_stmt *f)
{
	if (f->kind != AST_FOR || !f->init || f->init->kind != AST_DECL || f->init->n_decls != 1 || !f->step ||
	    !lift_block_is_tid(b, f->init->decls[0].init))
		return 0;
	const char *j = f->init->decls[0].name;
	const struct ast_expr *c = ast_strip_casts(f->expr), *st = f->step;
	return c && c->kind == AST_BIN && strcmp(c->text, "<") == 0 && ast_is_name(c->kids[0], j) &&
	       st->kind == AST_ASSIGN && strcmp(st->text, "+=") == 0 && ast_is_name(st->kids[0], j) &&
	       lift_block_is_bdim(b, st->kids[1]);
}

/* the warps of the block: blockDim.x / 32, a name for it, or the literal */
int
lift_block_is_nwarps(struct blk *b, const struct ast_expr *e)
{
	long v;
	const struct ast_expr *h = ast_strip_casts(e);
	if (lift_block_in(b->nwarps, b->n_nwarps, h) || (b->block > 0 && ast_int_value(h, &v) && v * 32 == b->block))
		return 1;
	return h && h->kind == AST_BIN && strcmp(h->text, "/") == 0 && lift_block_is_bdim(b, h->kids[0]) &&
	       ast_int_value(h->kids[1], &v) && v == 32;
}

/* thread 0's combine of the warps' slots:
 *   T v = sh[0]; for (int i = 1; i < warps; i++) v = OP(v, sh[i]); sh[0] = v; */
int
lift_block_warp_combine(struct blk *b, const struct ast_stmt *s)
{
	long v;
	if (!s || s->kind != AST_BLOCK || s->n_body != 3 || s->body[0]->kind != AST_DECL || s->body[0]->n_decls != 1)
		return 0;
	const struct ast_decl *d = &s->body[0]->decls[0];
	const struct ast_expr *i0 = ast_strip_casts(d->init);
	if (!i0 || i0->kind != AST_INDEX || !ast_is_name(i0->kids[0], b->sh) || !ast_int_value(i0->kids[1], &v) || v)
		return 0;
	const struct ast_stmt *f = s->body[1];
	if (f->kind != AST_FOR || !f->init || f->init->kind != AST_DECL || f->init->n_decls != 1 ||
	    !ast_int_value(f->init->decls[0].init, &v) || v != 1 || !f->step)
		return 0;
	const char *i = f->init->decls[0].name;
	const struct ast_expr *c = ast_strip_casts(f->expr), *st = f->step;
	if (!c || c->kind != AST_BIN || strcmp(c->text, "<") != 0 || !ast_is_name(c->kids[0], i) ||
	    !lift_block_is_nwarps(b, c->kids[1]) ||
	    !((st->kind == AST_POST || st->kind == AST_UN) && strcmp(st->text, "++") == 0 && ast_is_name(st->kids[0], i)))
		return 0;
	enum ir_combine op;
	const struct ast_expr *x;
	const struct ast_stmt *u = lift_block_only(f->then);
	if (!u || u->kind != AST_EXPR || !lift_block_update_of(u->expr, lift_block_is_named, d->name, &op, &x) || op != b->op)
		return 0;
	x = ast_strip_casts(x);
	if (x->kind != AST_INDEX || !ast_is_name(x->kids[0], b->sh) || !ast_is_name(x->kids[1], i))
		return 0;
	const struct ast_expr *a = lift_block_only(s->body[2])->kind == AST_EXPR ? lift_block_only(s->body[2])->expr : NULL;
	return a && a->kind == AST_ASSIGN && strcmp(a->text, "=") == 0 && ast_is_name(a->kids[1], d->name) &&
	       ast_strip_casts(a->kids[0])->kind == AST_INDEX && ast_is_name(ast_strip_casts(a->kids[0])->kids[0], b->sh) &&
	       ast_int_value(ast_strip_casts(a->kids[0])->kids[1], &v) && v == 0;
}

/* A __device__ helper that folds a warp's 32 lanes with op:
 *   for (int o = 16; o > 0; o /= 2) v = OP(v, __shfl_xor_sync(0xffffffff, v, o)); return v;
 * (or __shfl_down_sync: lane 0 has the warp's value, the only one read) */
int
lift_block_warp_helper(struct blk *b, const char *name, enum ir_combine *op)
{
	const struct ast_function *h = name ? ast_find_function(b->u, name) : NULL;
	long v;
	if (!h || h->n_params != 1 || !h->body || h->body->n_body != 2)
		return 0;
	const char *p = h->params[0].name;
	const struct ast_stmt *f = h->body->body[0], *r = h->body->body[1];
	if (r->kind != AST_RETURN || !ast_is_name(r->expr, p) || f->kind != AST_FOR || !f->init ||
	    f->init->kind != AST_DECL || f->init->n_decls != 1 || !ast_int_value(f->init->decls[0].init, &v) || v != 16)
		return 0;
	const char *o = f->init->decls[0].name;
	const struct ast_expr *c = ast_strip_casts(f->expr), *st = f->step, *x;
	if (!c || c->kind != AST_BIN || strcmp(c->text, ">") != 0 || !ast_is_name(c->kids[0], o) ||
	    !ast_int_value(c->kids[1], &v) || v != 0 || !st || st->kind != AST_ASSIGN || !ast_is_name(st->kids[0], o) ||
	    !((strcmp(st->text, "/=") == 0 && ast_int_value(st->kids[1], &v) && v == 2) ||
	      (strcmp(st->text, ">>=") == 0 && ast_int_value(st->kids[1], &v) && v == 1)))
		return 0;
	const struct ast_stmt *u = lift_block_only(f->then);
	if (!u || u->kind != AST_EXPR || !lift_block_update_of(u->expr, lift_block_is_named, p, op, &x))
		return 0;
	x = ast_strip_casts(x);
	return x->kind == AST_CALL && x->text && x->n_kids == 3 &&
	       (strcmp(x->text, "__shfl_xor_sync") == 0 || strcmp(x->text, "__shfl_down_sync") == 0) &&
	       ast_int_value(x->kids[0], &v) && (v & 0xffffffffL) == 0xffffffffL && ast_is_name(x->kids[1], p) &&
	       ast_is_name(x->kids[2], o);
}

