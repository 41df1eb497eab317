/*
 * lift_block.c -- a block per row whose threads cooperate through shared
 * memory, seen as the one-thread-per-row program it computes.
 *
 * The kernels of a block per row (row = blockIdx.x) read like this:
 *
 *     __shared__ float sh[256];              (or extern __shared__ float sh[];)
 *     const float *x = in + row * cols;
 *     float m = -INFINITY;
 *     for (int j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, x[j]);
 *     sh[threadIdx.x] = m;
 *     __syncthreads();
 *     <a tree over sh with fmaxf, a barrier in each step>
 *     m = sh[0];
 *     __syncthreads();
 *     ... a sum the same way ...
 *     for (int j = threadIdx.x; j < cols; j += blockDim.x) y[j] = expf(x[j] - m) / s;
 *     if (threadIdx.x == 0) stats[row] = m;
 *
 * Each thread accumulates a partial over its columns, the tree combines the
 * block's partials with the same associative operator, and every thread then
 * reads the row's result from sh[0].  That is the row program
 *
 *     m = -INFINITY; for (j = 0; j < cols; j++) m = fmaxf(m, x[j]);  ...
 *     for (j = 0; j < cols; j++) y[j] = expf(x[j] - m) / s;
 *     stats[row] = m;
 *
 * which the rewrite writes as a kernel with one thread per row (row = the
 * global thread index, guarded by the grid's row count), for lift_kernel.
 *
 * What is proved, from the structure and never from names:
 *   - the thread appears only as a strided loop's start (j = threadIdx.x, step
 *     blockDim.x or the launch's literal block), as the slot sh[threadIdx.x]
 *     and in the tree's steps, and in thread 0's guard;
 *   - a local updated in a strided loop (a partial) is updated in one of the
 *     forms acc += X, acc = acc + X, acc = fmaxf(acc, X), fminf (any order),
 *     X free of acc; a sum's partial starts at zero (every thread's start is
 *     added), a max or min may start anywhere (the operator is idempotent); a
 *     partial is read only by its own update and by sh[tid] = acc;
 *   - the tree combines with the partial's operator, in one of the forms that
 *     combine every slot for the block it is launched with: halving from
 *     blockDim.x / 2 (a literal power-of-two block), folding the upper half
 *     (half = (n + 1) / 2, any block), or interleaved pairs (s = 1, 2, 4, ...
 *     with tid % (2 * s) == 0 && tid + s < blockDim.x, any block); the same
 *     with warp shuffles (a helper folding 32 lanes by __shfl_xor_sync, lane 0
 *     storing sh[warp], thread 0 combining the warps' slots into sh[0]);
 *   - barriers: after the slot is filled (before the tree), in each tree step,
 *     after thread 0's warp combine, and between the last read of sh[0] and
 *     the next reduction's store into sh;
 *   - sh is read only as sh[0] after its tree, where the row's result is: the
 *     rewrite reads the partial's local (the row's whole reduction) there;
 *   - thread 0's block (if (tid == 0) {...}) assigns no local the others read
 *     (its stores are the row's; the rewrite runs it once per row);
 *   - the rest is free of the thread, the shared array and the partials, so
 *     that every thread computes the same values.
 * Anything else is -1 with the reason; the kernel keeps its reference.
 */
#include "config.h"

#include "builtin/lift/lift_block_internal.h"
#include "builtin/lift/lift_internal.h"
#include "builtin/lift/lift_tree.h"
#include "common/util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void
lift_block_refuse(struct blk *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void
lift_block_refuse(struct blk *b, const char *fmt, ...)
{
	if (b->failed)
		return;
	b->failed = 1;
	va_list ap;
	va_start(ap, fmt);
	strbuf_addstr(b->why, "a block-per-row reduction in shared memory: ");
	strbuf_vaddf(b->why, fmt, ap);
	va_end(ap);
}

static void *
own(struct blk *b, void *p)
{
	struct lift_block *t = b->t;
	t->owned = egg_xrealloc(t->owned, (t->n_owned + 1) * sizeof *t->owned);
	t->owned[t->n_owned++] = p;
	return p;
}

static struct ast_expr *
node(struct blk *b, enum ast_expr_kind kind, const char *text, size_t n_kids)
{
	struct ast_expr *e = own(b, egg_xcalloc(1, sizeof *e));
	e->kind = kind;
	e->text = text ? own(b, egg_xstrdup(text)) : NULL;
	e->kids = n_kids ? own(b, egg_xcalloc(n_kids, sizeof *e->kids)) : NULL;
	e->n_kids = n_kids;
	return e;
}

static struct ast_stmt *
stmt(struct blk *b, enum ast_stmt_kind kind)
{
	struct ast_stmt *s = own(b, egg_xcalloc(1, sizeof *s));
	s->kind = kind;
	return s;
}

/* ---- names ---- */

int
lift_block_in(const char *const *v, size_t n, const struct ast_expr *e)
{
	e = ast_strip_casts(e);
	for (size_t i = 0; e && e->kind == AST_NAME && i < n; i++)
		if (strcmp(v[i], e->text) == 0)
			return 1;
	return 0;
}

static void
add_name(const char ***v, size_t *n, const char *name)
{
	*v = egg_xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = name;
}

int
lift_block_is_tid(struct blk *b, const struct ast_expr *e)
{
	return ast_is_member(e, "threadIdx", "x") || lift_block_in(b->tids, b->n_tids, e);
}

/* blockDim.x, a name for it, or the launch's literal block */
int
lift_block_is_bdim(struct blk *b, const struct ast_expr *e)
{
	long v;
	return ast_is_member(e, "blockDim", "x") || lift_block_in(b->bdims, b->n_bdims, e) ||
	       (b->block > 0 && ast_int_value(e, &v) && v == b->block);
}

static int
is_zero(const struct ast_expr *e)
{
	e = ast_strip_casts(e);
	if (!e || e->kind != AST_NUM)
		return 0;
	char *end;
	double v = strtod(e->text, &end);
	while (*end == 'f' || *end == 'F' || *end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
		end++;
	return end != e->text && *end == '\0' && v == 0;
}

static struct local *
local_of(struct blk *b, const char *name)
{
	for (size_t i = b->n_locals; name && i-- > 0;)
		if (strcmp(b->locals[i].name, name) == 0)
			return &b->locals[i];
	return NULL;
}

static struct local *
local_add(struct blk *b, const char *name, const char *type)
{
	b->locals = egg_xrealloc(b->locals, (b->n_locals + 1) * sizeof *b->locals);
	struct local *l = &b->locals[b->n_locals++];
	*l = (struct local){ .name = name, .type = type, .state = L_FULL };
	return l;
}

/* Does e read the thread (threadIdx, blockDim, gridDim, a name for them) or a
 * partial?  The first one found, for the message; NULL when none. */
static const char *
threaded(struct blk *b, const struct ast_expr *e)
{
	if (!e)
		return NULL;
	if (ast_is_member(e, "blockIdx", "x"))
		return NULL; /* the row */
	if (e->kind == AST_NAME) {
		static const char *const words[] = { "threadIdx", "blockDim", "gridDim", "blockIdx", NULL };
		for (size_t i = 0; words[i]; i++)
			if (strcmp(e->text, words[i]) == 0)
				return e->text;
		if (lift_block_in(b->tids, b->n_tids, e) || lift_block_in(b->bdims, b->n_bdims, e) || lift_block_in(b->warps, b->n_warps, e) ||
		    lift_block_in(b->lanes, b->n_lanes, e) || lift_block_in(b->nwarps, b->n_nwarps, e))
			return e->text;
		const struct local *l = local_of(b, e->text);
		if (l && l->state != L_FULL)
			return e->text;
		return NULL;
	}
	for (size_t i = 0; i < e->n_kids; i++) {
		const char *w = threaded(b, e->kids[i]);
		if (w)
			return w;
	}
	return NULL;
}

/* ---- the copy that reads blockIdx.x as the row and sh[0] as the result ---- */

static struct ast_expr *
sub(struct blk *b, struct ast_expr *e)
{
	if (!e || b->failed)
		return e;
	if (ast_is_member(e, "blockIdx", "x") && ast_strip_casts(e) == e)
		return node(b, AST_NAME, b->row, 0);
	if (e->kind == AST_INDEX && ast_is_name(e->kids[0], b->sh)) {
		long z;
		if (!ast_int_value(e->kids[1], &z) || z != 0) {
			lift_block_refuse(b, "'%s' is read at another element than [0], the reduction's result", b->sh);
			return e;
		}
		if (b->sh_state != SH_READY && b->sh_state != SH_READ) {
			lift_block_refuse(b, "'%s[0]' is read before a tree and its barriers made it the block's result", b->sh);
			return e;
		}
		if (b->holder_dirty) {
			lift_block_refuse(b, "'%s[0]' is read after '%s', whose reduction it holds, was assigned", b->sh, b->holder);
			return e;
		}
		b->sh_state = SH_READ;
		const struct local *h = local_of(b, b->holder);
		struct ast_expr *v = node(b, AST_NAME, b->holder, 0);
		if (h && h->type && b->sh_type && strcmp(h->type, b->sh_type) == 0)
			return v;
		struct ast_expr *c = node(b, AST_CAST, b->sh_type, 1); /* the value sh holds */
		c->kids[0] = v;
		return c;
	}
	if (e->kind == AST_NAME && ast_is_name(e, b->sh)) {
		lift_block_refuse(b, "'%s' is used other than as the reduction's slots", b->sh);
		return e;
	}
	struct ast_expr **kids = e->n_kids ? egg_xcalloc(e->n_kids, sizeof *kids) : NULL;
	int changed = 0;
	for (size_t i = 0; i < e->n_kids; i++) {
		kids[i] = sub(b, e->kids[i]);
		changed |= kids[i] != e->kids[i];
	}
	if (!changed) {
		free(kids);
		return e;
	}
	struct ast_expr *c = node(b, e->kind, NULL, 0);
	c->text = e->text;
	c->qual = e->qual;
	c->kids = own(b, kids);
	c->n_kids = e->n_kids;
	return c;
}

static struct ast_stmt *sub_stmt(struct blk *b, const struct ast_stmt *s);

static struct ast_stmt **
sub_list(struct blk *b, struct ast_stmt *const *v, size_t n)
{
	struct ast_stmt **o = own(b, egg_xcalloc(n + 1, sizeof *o));
	for (size_t i = 0; i < n; i++)
		o[i] = sub_stmt(b, v[i]);
	return o;
}

/* A copy of s with sub applied to every expression below it. */
static struct ast_stmt *
sub_stmt(struct blk *b, const struct ast_stmt *s)
{
	if (!s)
		return NULL;
	struct ast_stmt *c = stmt(b, s->kind);
	*c = *s;
	if (s->n_decls) {
		c->decls = own(b, egg_xcalloc(s->n_decls, sizeof *c->decls));
		for (size_t i = 0; i < s->n_decls; i++) {
			c->decls[i] = s->decls[i];
			c->decls[i].init = sub(b, s->decls[i].init);
		}
	}
	c->expr = sub(b, s->expr);
	c->init = sub_stmt(b, s->init);
	c->step = sub(b, s->step);
	c->then = sub_stmt(b, s->then);
	c->otherwise = sub_stmt(b, s->otherwise);
	if (s->n_body)
		c->body = sub_list(b, s->body, s->n_body);
	if (s->n_config + s->n_args)
		lift_block_refuse(b, "a launch from the device");
	return c;
}

/* ---- the walk ---- */

struct out {
	struct ast_stmt **v;
	size_t n;
};

static void
emit(struct blk *b, struct out *o, struct ast_stmt *s)
{
	(void)b;
	o->v = egg_xrealloc(o->v, (o->n + 1) * sizeof *o->v);
	o->v[o->n++] = s;
}

struct assigns {
	struct blk *b;
	const char *name;
};

static int
assigns_local(const struct ast_expr *e, void *arg)
{
	struct assigns *a = arg;
	for (size_t i = 0; i < a->b->n_locals; i++)
		if (ast_assigns(e, a->b->locals[i].name)) {
			a->name = a->b->locals[i].name;
			return 1;
		}
	return 0;
}

static int
threaded_walk(const struct ast_expr *e, void *arg)
{
	struct assigns *a = arg;
	a->name = threaded(a->b, e);
	return a->name != NULL;
}

/* s (a statement below the top) reads the thread or a partial: its name */
static const char *
stmt_threaded(struct blk *b, const struct ast_stmt *s)
{
	struct assigns a = { b, NULL };
	ast_walk_exprs(s, threaded_walk, &a);
	return a.name;
}

/* s assigns a local of the kernel's top level: its name */
static const char *
stmt_assigns(struct blk *b, const struct ast_stmt *s)
{
	struct assigns a = { b, NULL };
	ast_walk_exprs(s, assigns_local, &a);
	return a.name;
}

static int
is_outer(const struct ast_expr *e, const void *arg)
{
	struct blk *b = (struct blk *)arg;
	e = ast_strip_casts(e);
	return e && e->kind == AST_NAME && local_of(b, e->text);
}

/* A strided column loop: its partials noted, the loop from 0 by 1. */
static struct ast_stmt *
strided(struct blk *b, const struct ast_stmt *f)
{
	const char *w = threaded(b, ast_strip_casts(f->expr)->kids[1]);
	if (w) {
		lift_block_refuse(b, "a strided loop's bound reads '%s'", w);
		return NULL;
	}
	const struct ast_stmt *body = f->then;
	struct ast_stmt *const *items = (struct ast_stmt *const *)&f->then;
	size_t n = 1;
	if (body->kind == AST_BLOCK)
		items = body->body, n = body->n_body;
	for (size_t i = 0; i < n && !b->failed; i++) {
		const struct ast_stmt *x = items[i];
		enum ir_combine op;
		const struct ast_expr *v;
		if (x->kind == AST_EXPR && lift_block_update_of(x->expr, is_outer, b, &op, &v)) {
			struct local *l = local_of(b, ast_strip_casts(ast_strip_casts(x->expr)->kids[0])->text);
			if ((w = threaded(b, v)) || ast_mentions(v, l->name)) {
				lift_block_refuse(b, "the update of '%s' in a strided loop reads '%s'", l->name, w ? w : l->name);
			} else if (l->state == L_FULL && op == IR_SUM && !l->zero) {
				lift_block_refuse(b, "'%s' sums a strided loop's columns from a start that is not zero (each "
				       "thread's start would be added)", l->name);
			} else if (l->state == L_WARPED || (l->state == L_PARTIAL && l->op != op)) {
				lift_block_refuse(b, "'%s' is combined with two operators", l->name);
			} else {
				l->state = L_PARTIAL;
				l->op = op;
			}
			continue;
		}
		if ((w = stmt_threaded(b, x)))
			lift_block_refuse(b, "a strided loop's statement reads '%s'", w);
		else if ((w = stmt_assigns(b, x)))
			lift_block_refuse(b, "a strided loop assigns '%s' other than as a sum, max or min of its columns", w);
	}
	if (b->failed)
		return NULL;
	struct ast_stmt *c = sub_stmt(b, f);
	struct ast_decl *d = own(b, egg_xcalloc(1, sizeof *d));
	*d = f->init->decls[0];
	d->init = node(b, AST_NUM, "0", 0);
	c->init = stmt(b, AST_DECL);
	c->init->decls = d;
	c->init->n_decls = 1;
	c->step = node(b, AST_ASSIGN, "+=", 2);
	c->step->kids[0] = f->step->kids[0];
	c->step->kids[1] = node(b, AST_NUM, "1", 0);
	return c;
}

/* threadIdx.x == 0 (or a name for it; lane == 0 with lane set) */
static int
is_thread0(struct blk *b, const struct ast_expr *c, int lane)
{
	long z;
	c = ast_strip_casts(c);
	return c && c->kind == AST_BIN && strcmp(c->text, "==") == 0 && ast_int_value(c->kids[1], &z) && z == 0 &&
	       (lane ? lift_block_in(b->lanes, b->n_lanes, c->kids[0]) : lift_block_is_tid(b, c->kids[0]));
}

/* A declaration at the top: the shared array, names for the thread, the block
 * and the warps (dropped), or a local every thread computes alike (kept). */
static void
top_decl(struct blk *b, const struct ast_decl *d, struct out *o)
{
	const struct ast_expr *e = ast_strip_casts(d->init);
	long v;
	if (d->is_shared) {
		if (b->sh && strcmp(b->sh, d->name) != 0)
			lift_block_refuse(b, "two shared arrays ('%s', '%s')", b->sh, d->name);
		return;
	}
	if (d->is_array) {
		lift_block_refuse(b, "a local array ('%s')", d->name);
		return;
	}
	if (lift_block_is_tid(b, e))
		return add_name(&b->tids, &b->n_tids, d->name);
	if (ast_is_member(e, "blockIdx", "x") && strcmp(d->name, b->row) == 0)
		return; /* the row itself: the rewrite's index */
	if (ast_is_member(e, "blockDim", "x"))
		return add_name(&b->bdims, &b->n_bdims, d->name);
	if (e && e->kind == AST_BIN && lift_block_is_tid(b, e->kids[0]) &&
	    ((strcmp(e->text, "/") == 0 && ast_int_value(e->kids[1], &v) && v == 32) ||
	     (strcmp(e->text, ">>") == 0 && ast_int_value(e->kids[1], &v) && v == 5)))
		return add_name(&b->warps, &b->n_warps, d->name);
	if (e && e->kind == AST_BIN && lift_block_is_tid(b, e->kids[0]) &&
	    ((strcmp(e->text, "%") == 0 && ast_int_value(e->kids[1], &v) && v == 32) ||
	     (strcmp(e->text, "&") == 0 && ast_int_value(e->kids[1], &v) && v == 31)))
		return add_name(&b->lanes, &b->n_lanes, d->name);
	if (lift_block_is_nwarps(b, e))
		return add_name(&b->nwarps, &b->n_nwarps, d->name);
	const char *w = threaded(b, d->init);
	if (w) {
		lift_block_refuse(b, "'%s' is computed from '%s', which differs between the block's threads", d->name, w);
		return;
	}
	struct ast_stmt *s = stmt(b, AST_DECL);
	s->decls = own(b, egg_xcalloc(1, sizeof *s->decls));
	s->decls[0] = *d;
	s->decls[0].init = sub(b, d->init);
	s->n_decls = 1;
	emit(b, o, s);
	struct local *l = local_add(b, d->name, d->type);
	l->zero = d->init && is_zero(d->init);
}

static void
barrier(struct blk *b)
{
	if (b->sh_state == SH_FILLED)
		b->sh_state = SH_SYNCED;
	else if (b->sh_state == SH_COMBINED)
		b->sh_state = SH_READY;
	else if (b->sh_state == SH_READ)
		b->sh_state = SH_EMPTY;
}

/* sh[tid] = acc (all threads) or sh[warp] = acc (lane 0, after the warp fold) */
static void
fill(struct blk *b, const struct ast_expr *e, int warp)
{
	const struct ast_expr *a = ast_strip_casts(e->kids[1]);
	struct local *l = a->kind == AST_NAME ? local_of(b, a->text) : NULL;
	if (b->sh_state != SH_EMPTY && b->sh_state != SH_READY) {
		lift_block_refuse(b, "'%s' is filled again before a barrier after its last use", b->sh);
		return;
	}
	if (!l || l->state != (warp ? L_WARPED : L_PARTIAL)) {
		lift_block_refuse(b, "'%s' is filled with something other than a partial of a strided loop%s", b->sh,
		       warp ? " folded over its warp" : "");
		return;
	}
	if (warp && (b->block <= 0 || b->block % 32 != 0)) {
		lift_block_refuse(b, "warp folds over a block that is not a literal multiple of 32");
		return;
	}
	b->sh_state = SH_FILLED;
	b->holder_dirty = 0;
	b->holder = l->name;
	b->op = l->op;
	b->warp = warp;
}

/* An expression statement at the top. */
static void
top_expr(struct blk *b, const struct ast_stmt *s, struct out *o)
{
	const struct ast_expr *e = s->expr;
	struct slot self = { b, NULL, 0 };
	if (lift_block_is_call_stmt(s, "__syncthreads"))
		return barrier(b);
	if (e->kind == AST_ASSIGN && strcmp(e->text, "=") == 0 && lift_block_is_slot(e->kids[0], &self))
		return fill(b, e, 0);
	const struct ast_expr *r = e->kind == AST_ASSIGN && strcmp(e->text, "=") == 0 ? ast_strip_casts(e->kids[1]) : NULL;
	const struct ast_expr *l = e->kind == AST_ASSIGN ? ast_strip_casts(e->kids[0]) : NULL;
	struct local *lo = l && l->kind == AST_NAME ? local_of(b, l->text) : NULL;
	enum ir_combine op;
	if (lo && r && r->kind == AST_CALL && ast_is_name(r->n_kids == 1 ? r->kids[0] : NULL, lo->name) &&
	    lift_block_warp_helper(b, r->text, &op)) {
		if (lo->state != L_PARTIAL || lo->op != op)
			lift_block_refuse(b, "a warp fold of '%s' with another operator than its loop's", lo->name);
		lo->state = L_WARPED;
		return;
	}
	const char *w = threaded(b, r && lo ? r : e);
	if (w) {
		lift_block_refuse(b, "a statement every thread runs reads '%s', which differs between them", w);
		return;
	}
	long z;
	int from_sh = r && r->kind == AST_INDEX && ast_is_name(r->kids[0], b->sh) && ast_int_value(r->kids[1], &z) && !z;
	if (lo && from_sh && strcmp(lo->name, b->holder ? b->holder : "") == 0) {
		sub(b, e->kids[1]); /* acc = sh[0]: the row's reduction is acc itself */
		lo->state = L_FULL;
		lo->zero = 0;
		return;
	}
	emit(b, o, sub_stmt(b, s));
	for (size_t i = 0; i < b->n_locals; i++) {
		struct local *x = &b->locals[i];
		if (!ast_assigns(e, x->name))
			continue;
		if (b->holder && strcmp(x->name, b->holder) == 0 &&
		    (b->sh_state == SH_READY || b->sh_state == SH_READ || b->sh_state == SH_FILLED ||
		     b->sh_state == SH_SYNCED || b->sh_state == SH_COMBINED))
			b->holder_dirty = 1;
		x->state = L_FULL;
		x->zero = x == lo && r && is_zero(r);
	}
}

/* if (tid == 0) {...}: run once per row; if (lane == 0) sh[warp] = acc */
static void
top_if(struct blk *b, const struct ast_stmt *s, struct out *o)
{
	if (!s->otherwise && is_thread0(b, s->expr, 1)) {
		const struct ast_stmt *a = lift_block_only(s->then);
		const struct ast_expr *e = a && a->kind == AST_EXPR ? a->expr : NULL;
		const struct ast_expr *l = e && e->kind == AST_ASSIGN && strcmp(e->text, "=") == 0 ?
		                           ast_strip_casts(e->kids[0]) : NULL;
		if (l && l->kind == AST_INDEX && ast_is_name(l->kids[0], b->sh) && lift_block_in(b->warps, b->n_warps, l->kids[1]))
			return fill(b, e, 1);
		lift_block_refuse(b, "lane 0 of each warp does something other than fill its warp's slot");
		return;
	}
	if (!s->otherwise && is_thread0(b, s->expr, 0)) {
		if (b->sh_state == SH_SYNCED && b->warp && lift_block_warp_combine(b, s->then)) {
			b->sh_state = SH_COMBINED;
			b->trees++;
			return;
		}
		const char *w = stmt_assigns(b, s->then);
		if (w)
			lift_block_refuse(b, "thread 0 assigns '%s', which the block's other threads would not see", w);
		else if ((w = stmt_threaded(b, s->then)))
			lift_block_refuse(b, "thread 0's block reads '%s'", w);
		else
			emit(b, o, sub_stmt(b, s->then));
		return;
	}
	const char *w = stmt_threaded(b, s);
	if (w) {
		lift_block_refuse(b, "a branch that reads '%s', which differs between the block's threads", w);
		return;
	}
	emit(b, o, sub_stmt(b, s));
}

static void
top_stmts(struct blk *b, struct ast_stmt *const *v, size_t n, struct out *o)
{
	for (size_t i = 0; i < n && !b->failed; i++) {
		const struct ast_stmt *s = v[i];
		int op;
		const char *w;
		switch (s->kind) {
		case AST_DECL:
			for (size_t j = 0; j < s->n_decls && !b->failed; j++)
				top_decl(b, &s->decls[j], o);
			break;
		case AST_EXPR:
			top_expr(b, s, o);
			break;
		case AST_IF:
			top_if(b, s, o);
			break;
		case AST_FOR:
			if (lift_block_is_strided(b, s)) {
				struct ast_stmt *c = strided(b, s);
				if (c)
					emit(b, o, c);
			} else if ((op = lift_block_tree_loop(b, s)) >= 0) {
				if (b->sh_state != SH_SYNCED || b->warp)
					lift_block_refuse(b, "a tree over '%s' without a barrier after its slots were filled", b->sh);
				else if ((enum ir_combine)op != b->op)
					lift_block_refuse(b, "a tree that combines '%s' with another operator than its loop's", b->holder);
				b->sh_state = SH_READY;
				b->trees++;
			} else if ((w = stmt_threaded(b, s))) {
				lift_block_refuse(b, "a loop that reads '%s' is neither a strided column loop nor a tree over '%s'",
				       w, b->sh);
			} else {
				emit(b, o, sub_stmt(b, s));
			}
			break;
		case AST_BLOCK:
			top_stmts(b, s->body, s->n_body, o);
			break;
		case AST_EMPTY:
			break;
		default:
			if ((w = stmt_threaded(b, s)))
				lift_block_refuse(b, "a statement that reads '%s'", w);
			else
				emit(b, o, sub_stmt(b, s));
		}
	}
}

void
lift_block_release(struct lift_block *t)
{
	for (size_t i = 0; i < t->n_owned; i++)
		free(t->owned[i]);
	free(t->owned);
	memset(t, 0, sizeof *t);
}

struct named {
	const char *name;
};

static int
assigns_name(const struct ast_expr *e, void *arg)
{
	return ast_assigns(e, ((struct named *)arg)->name);
}

/* int row = blockIdx.x; at the top and never assigned: its name (the rewrite's
 * row index), or NULL */
static const char *
row_name(const struct ast_stmt *body)
{
	for (size_t i = 0; i < body->n_body; i++) {
		const struct ast_stmt *s = body->body[i];
		for (size_t j = 0; s->kind == AST_DECL && j < s->n_decls; j++) {
			const struct ast_decl *d = &s->decls[j];
			if (!ast_is_member(d->init, "blockIdx", "x") || strchr(d->type, '*'))
				continue;
			struct named n = { d->name };
			for (size_t k = 0; k < body->n_body; k++)
				if (ast_walk_exprs(body->body[k], assigns_name, &n))
					return NULL;
			return d->name;
		}
	}
	return NULL;
}

/* threadIdx, blockIdx or blockDim in another dimension than x */
static int
other_dimension(const struct ast_expr *e, void *arg)
{
	(void)arg;
	if (!e)
		return 0;
	if (e->kind == AST_MEMBER && strcmp(e->text, "x") != 0 && e->kids[0]->kind == AST_NAME &&
	    (strcmp(e->kids[0]->text, "threadIdx") == 0 || strcmp(e->kids[0]->text, "blockIdx") == 0 ||
	     strcmp(e->kids[0]->text, "blockDim") == 0))
		return 1;
	for (size_t i = 0; i < e->n_kids; i++)
		if (other_dimension(e->kids[i], NULL))
			return 1;
	return 0;
}

int
lift_block_rewrite(const struct ast_unit *u, const struct ast_function *k, const struct ast_expr *block_dim,
                   struct lift_block *t, struct strbuf *why)
{
	memset(t, 0, sizeof *t);
	const struct ast_stmt *body = k->body;
	struct blk b = { .u = u, .t = t, .why = why, .row = "egg_row" };
	if (!ast_int_value(block_dim, &b.block))
		b.block = 0;
	for (size_t i = 0; i < body->n_body; i++) {
		const struct ast_stmt *s = body->body[i];
		for (size_t j = 0; s->kind == AST_DECL && j < s->n_decls; j++) {
			if (s->decls[j].is_shared && s->decls[j].is_array && !b.sh)
				b.sh = s->decls[j].name, b.sh_type = s->decls[j].type;
			if (s->decls[j].init && ast_is_global_index(s->decls[j].init, "x"))
				return 0; /* a thread per element: lift_tree.c's */
		}
		if (s->kind == AST_FOR && s->init && s->init->kind == AST_DECL && s->init->n_decls == 1 &&
		    s->init->decls[0].init && ast_is_global_index(s->init->decls[0].init, "x"))
			return 0;
	}
	if (!b.sh || ast_walk_exprs(body, other_dimension, NULL))
		return 0; /* no shared array, or a 2-D block or grid (a tile): not a block per row */
	const char *row = row_name(body);
	if (row)
		b.row = row;
	struct out o = { 0 };
	top_stmts(&b, body->body, body->n_body, &o);
	if (!b.failed && (b.sh_state == SH_FILLED || b.sh_state == SH_SYNCED || b.sh_state == SH_COMBINED))
		lift_block_refuse(&b, "'%s' is filled but never reduced to the block's result", b.sh);
	if (!b.failed && !b.trees)
		lift_block_refuse(&b, "'%s' holds no tree reduction of the block's partials", b.sh);
	free(b.tids);
	free(b.bdims);
	free(b.warps);
	free(b.lanes);
	free(b.nwarps);
	free(b.locals);
	if (b.failed) {
		free(o.v);
		lift_block_release(t);
		return -1;
	}
	own(&b, o.v);
	/* int row = blockIdx.x * blockDim.x + threadIdx.x; if (row < rows) { ... } */
	struct ast_expr *gid = node(&b, AST_BIN, "+", 2), *mul = node(&b, AST_BIN, "*", 2);
	mul->kids[0] = node(&b, AST_MEMBER, "x", 1);
	mul->kids[0]->kids[0] = node(&b, AST_NAME, "blockIdx", 0);
	mul->kids[1] = node(&b, AST_MEMBER, "x", 1);
	mul->kids[1]->kids[0] = node(&b, AST_NAME, "blockDim", 0);
	gid->kids[0] = mul;
	gid->kids[1] = node(&b, AST_MEMBER, "x", 1);
	gid->kids[1]->kids[0] = node(&b, AST_NAME, "threadIdx", 0);
	struct ast_stmt *decl = stmt(&b, AST_DECL);
	decl->decls = own(&b, egg_xcalloc(1, sizeof *decl->decls));
	decl->decls[0] = (struct ast_decl){ .type = (char *)"int", .name = (char *)b.row, .init = gid };
	decl->n_decls = 1;
	struct ast_stmt *inner = stmt(&b, AST_BLOCK);
	inner->body = o.v;
	inner->n_body = o.n;
	struct ast_stmt *guard = stmt(&b, AST_IF);
	guard->expr = node(&b, AST_BIN, "<", 2);
	guard->expr->kids[0] = node(&b, AST_NAME, b.row, 0);
	guard->expr->kids[1] = node(&b, AST_NAME, LIFT_TREE_ROWS, 0);
	guard->then = inner;
	struct ast_stmt *top = stmt(&b, AST_BLOCK);
	top->body = own(&b, egg_xcalloc(2, sizeof *top->body));
	top->body[0] = decl;
	top->body[1] = guard;
	top->n_body = 2;
	t->fn = *k;
	t->fn.body = top;
	return 1;
}
