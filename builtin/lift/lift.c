/*
 * lift.c -- lifts one kernel launch into stages of the description (ir.h): the
 * environment of names and the kernel's frame (thread index, guard, stage kind);
 * expressions and statements are in lift_expr.c and lift_stmt.c.
 *
 * A kernel lifts when it has the shape naive kernels have: a global thread index
 * (blockIdx.x * blockDim.x + threadIdx.x in its spellings, casts allowed), a
 * bounds guard on it (if (i < n) {...}, if (i >= n) return;, or a grid-stride
 * for loop; with a y index, y < rows && x < cols, or an interior of it such as
 * x > 0 && x < cols - 1 && y > 0 && y < rows - 1, kept inside a map over rows x
 * cols as a select when every store is at y * cols + x), and a body of
 * straight-line code.  The body decides the stage:
 *   - no loop: a MAP over i (or a REDUCE when it does atomicAdd into an element
 *     that does not depend on i, a SCATTER when the element depends on loaded
 *     data: a histogram);
 *   - column loops for (j = 0; j < C; j++): a ROWS stage, the thread index being
 *     the row; a local declared outside a loop and combined inside it (+=,
 *     x = x + e, x = fmaxf(x, e), ...) is an accumulator.
 * Everything else -- branches, while loops, nested loops, shared memory, atomics
 * to addresses computed from the thread index -- is refused with a reason.
 * Names are resolved through a scoped environment; kernel parameters become the
 * launch's buffers and scalar expressions, so stages speak the target's names.
 */
#include "config.h"

#include "builtin/lift/affine.h"
#include "builtin/lift/lift_internal.h"
#include "common/util.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void
lift_refuse(struct ctx *c, const char *fmt, ...)
{
	if (c->failed)
		return;
	c->failed = 1;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(c->why, fmt, ap);
	va_end(ap);
}

struct binding *
lift_bind(struct ctx *c, const char *name, enum bind_kind kind)
{
	if (c->n_env == c->cap_env) {
		c->cap_env = c->cap_env ? 2 * c->cap_env : 32;
		c->env = egg_xrealloc(c->env, c->cap_env * sizeof *c->env);
	}
	struct binding *b = &c->env[c->n_env++];
	memset(b, 0, sizeof *b);
	b->name = name;
	b->kind = kind;
	return b;
}

void
lift_unbind_to(struct ctx *c, size_t mark)
{
	while (c->n_env > mark) {
		struct binding *b = &c->env[--c->n_env];
		free(b->renamed);
		free(b->type);
		ir_expr_free(b->expr);
	}
}

struct binding *
lift_lookup(struct ctx *c, const char *name)
{
	for (size_t i = c->n_env; i-- > 0;)
		if (strcmp(c->env[i].name, name) == 0)
			return &c->env[i];
	return NULL;
}

/* ---- recognising the thread index ---- */

static int
is_global_index(const struct ast_expr *e)
{
	return ast_is_global_index(e, "x");
}

static int
is_grid_stride(const struct ast_expr *e)
{
	return ast_is_product(e, "blockDim", "gridDim", "x");
}

/* threadIdx.x == 0, blockIdx.x == 0, or both joined by && */
static int
is_single_thread_guard(const struct ast_expr *e)
{
	if (e->kind == AST_BIN && strcmp(e->text, "&&") == 0)
		return is_single_thread_guard(e->kids[0]) && is_single_thread_guard(e->kids[1]);
	if (e->kind != AST_BIN || strcmp(e->text, "==") != 0)
		return 0;
	for (int s = 0; s < 2; s++) {
		const struct ast_expr *z = ast_strip_casts(e->kids[1 - s]);
		if ((ast_is_member(e->kids[s], "threadIdx", "x") || ast_is_member(e->kids[s], "blockIdx", "x")) &&
		    z->kind == AST_NUM && strcmp(z->text, "0") == 0)
			return 1;
	}
	return 0;
}

/* ---- the kernel's frame: thread index and guard ---- */

/* A guard's bound, the lets before the guard replaced by their values (if (idx >=
 * total) return; after int total = B * C;): the stage's extent is also host code */
static struct ir_expr *
bound_of(struct ctx *c, const struct ast_expr *bound, const struct ir_block *pre)
{
	struct ir_expr *e = lift_expr(c, bound), *x = e ? ir_expr_inline_lets(e, pre, pre->n) : NULL;
	ir_expr_free(e);
	if (x && ir_expr_has_local(x)) {
		lift_refuse(c, "a bound computed from a local that changes");
		ir_expr_free(x);
		return NULL;
	}
	return x;
}

static int
contains_loop(const struct ast_stmt *s)
{
	if (!s)
		return 0;
	if (s->kind == AST_FOR || s->kind == AST_WHILE)
		return !lift_window_only(s); /* a stencil's taps: unrolled in the element */
	for (size_t i = 0; i < s->n_body; i++)
		if (contains_loop(s->body[i]))
			return 1;
	return contains_loop(s->then) || contains_loop(s->otherwise);
}

/* t without spaces and without parentheses around all of it (owned) */
static char *
squeeze(const char *t)
{
	char *o = egg_xmalloc(strlen(t) + 1), *q = o;
	for (; *t; t++)
		if (!isspace((unsigned char)*t))
			*q++ = *t;
	*q = '\0';
	size_t len = strlen(o), from = 0;
	while (len - 2 * from >= 2 && o[from] == '(' && o[len - 1 - from] == ')') {
		int depth = 0; /* only a pair that encloses everything */
		size_t j = from;
		for (; j < len - from; j++) {
			depth += o[j] == '(' ? 1 : o[j] == ')' ? -1 : 0;
			if (depth == 0)
				break;
		}
		if (j != len - 1 - from)
			break;
		from++;
	}
	memmove(o, o + from, len - 2 * from);
	o[len - 2 * from] = '\0';
	return o;
}

/* whether the plane bound e (a kernel expression) is the launch grid's extent text */
static int
is_grid_extent(struct ctx *c, const struct ast_expr *e, const char *grid)
{
	struct ir_expr *x = lift_expr(c, e);
	struct strbuf t = STRBUF_INIT;
	if (x)
		ir_expr_print(x, &t);
	char *a = squeeze(t.buf ? t.buf : ""), *b = squeeze(grid);
	int same = x && strcmp(a, b) == 0;
	ir_expr_free(x);
	strbuf_release(&t);
	free(a);
	free(b);
	return same;
}

/* A guard's terms: the thread indices, the grid's planes and extents, and the
 * bounds found */
struct guard {
	const char *gid, *gid_y;
	const char *const *plane;
	char *const *grid;
	const struct ast_expr *bound, *bound_y;
	int interior; /* a term that keeps the threads off an edge (x > 0, y < rows - 1) */
};

/* A term of an interior guard: x or y compared (<, <=, >, >=) with an expression
 * of neither, as in x > 0, y >= 1, x < cols - 1, 0 < y. */
static int
interior_term(const struct ast_expr *e, const char *gid, const char *gid_y)
{
	static const char *const ops[] = { "<", "<=", ">", ">=" };
	if (e->kind != AST_BIN)
		return 0;
	int cmp = 0;
	for (size_t i = 0; i < 4; i++)
		cmp |= strcmp(e->text, ops[i]) == 0;
	if (!cmp)
		return 0;
	for (int s = 0; s < 2; s++) {
		const struct ast_expr *v = e->kids[s], *o = e->kids[1 - s];
		if ((ast_is_name(v, gid) || ast_is_name(v, gid_y)) && !ast_mentions(o, gid) && !ast_mentions(o, gid_y))
			return 1;
	}
	return 0;
}

/* The extent an interior guard's upper bound stands inside: cols for
 * `x < cols - 1` (a non-negative literal taken off); the bound itself otherwise. */
static const struct ast_expr *
outer_extent(const struct ast_expr *b)
{
	const struct ast_expr *e = b;
	if (e->kind == AST_BIN && strcmp(e->text, "-") == 0 && e->kids[1]->kind == AST_NUM &&
	    e->kids[1]->text[0] != '-')
		return e->kids[0];
	return b;
}

/* if (x < N && p < P) or if (x >= N || p >= P) return; (and y < R when there is
 * a y thread index), p a plane of the grid (blockIdx.y or .z) and P the grid's
 * extent there, so that its term holds for every block: g's bounds filled, NULL
 * when a term is another.  Terms in any order and number. */

static const struct ast_expr *
guard_with_planes(struct ctx *c, const struct ast_expr *e, const char *join, struct guard *g)
{
	if (e->kind == AST_BIN && strcmp(e->text, join) == 0)
		return guard_with_planes(c, e->kids[0], join, g) && guard_with_planes(c, e->kids[1], join, g) ?
		       e : NULL;
	int ret = *join == '|';
	const char *lt = ret ? ">=" : "<", *gt = ret ? "<=" : ">";
	const struct ast_expr *n = ast_guard_bound(e, g->gid, lt, gt);
	if (n && !g->bound)
		return g->bound = n;
	const struct ast_expr *ny = g->gid_y ? ast_guard_bound(e, g->gid_y, lt, gt) : NULL;
	if (ny && !g->bound_y)
		return g->bound_y = ny;
	const char *const *plane = g->plane;
	char *const *grid = g->grid;
	for (int d = 1; d < 3 && !n; d++) {
		const struct ast_expr *pb = plane[d] ? ast_guard_bound(e, plane[d], lt, gt) : NULL;
		if (pb && grid && grid[d] && is_grid_extent(c, pb, grid[d]))
			return e;
	}
	if (g->gid_y && interior_term(e, g->gid, g->gid_y)) {
		g->interior = 1;
		return e;
	}
	return NULL;
}

/* if (x < N && p < P) {...} or if (x >= N || p >= P) return; */
static int
plane_guard(struct ctx *c, const struct ast_stmt *s, const char *gid, const char *const *plane,
            char *const *grid, const struct ast_expr **bound)
{
	int ret = strcmp(s->expr->text, "||") == 0;
	if ((!ret && strcmp(s->expr->text, "&&") != 0) || (ret && !ast_is_bare_return(s->then)))
		return 0;
	struct guard g = { .gid = gid, .plane = plane, .grid = grid };
	if (!guard_with_planes(c, s->expr, ret ? "||" : "&&", &g) || !g.bound)
		return 0;
	*bound = g.bound;
	return 1;
}

/* A map over rows x cols that keeps an interior guard inside: 0 when each of
 * its stores is at the element row * cols + col (so that an edge thread reads
 * and writes back only that element) and it has no loop and no atomic. */
static int
interior_stores_in_place(const struct ir_stage *st, int rows, int atomics)
{
	if (rows || atomics || !st->n || st->n->kind != IR_BIN || strcmp(st->n->text, "*") != 0)
		return -1;
	const struct ir_expr *nr = st->n->kids[0], *nc = st->n->kids[1];
	struct ir_block b = { 0 };
	int ok = lift_map_rows_cols(&st->body, nc, &b), stores = 0;
	for (size_t j = 0; j < b.n && ok; j++) {
		const struct ir_stmt *x = b.stmts[j];
		if (x->kind == IR_LOOP || x->kind == IR_ACC) {
			ok = 0;
		} else if (x->kind == IR_STORE) {
			struct affine_access a = affine_classify(x->index, nr, nc);
			ok = a.kind == AFF_ROW_MAJOR && a.dr == 0 && a.dc == 0;
			stores++;
		}
	}
	ir_block_free(&b);
	return ok && stores > 0 ? 0 : -1;
}

/* The kernel's body with each declaration of several names at its top level
 * (int row = ..., col = ...;) as one declaration per name, in order, as C reads
 * them, so that each thread index and bound is seen on its own.  The new
 * statements share the originals' parts; free *flat's body and *parts after. */
static const struct ast_stmt *
one_name_per_declaration(const struct ast_stmt *body, struct ast_stmt *flat, struct ast_stmt **parts)
{
	size_t n = 0, m = 0, j = 0;
	*parts = NULL;
	for (size_t i = 0; i < body->n_body; i++)
		n += body->body[i]->kind == AST_DECL && body->body[i]->n_decls > 1 ? body->body[i]->n_decls : 1;
	if (n == body->n_body)
		return body;
	*flat = *body;
	flat->body = egg_xcalloc(n, sizeof *flat->body);
	flat->n_body = n;
	*parts = egg_xcalloc(n, sizeof **parts);
	for (size_t i = 0; i < body->n_body; i++) {
		struct ast_stmt *s = body->body[i];
		if (s->kind != AST_DECL || s->n_decls < 2) {
			flat->body[j++] = s;
			continue;
		}
		for (size_t d = 0; d < s->n_decls; d++) {
			(*parts)[m] = *s;
			(*parts)[m].decls = &s->decls[d];
			(*parts)[m].n_decls = 1;
			flat->body[j++] = &(*parts)[m++];
		}
	}
	return flat;
}

int
lift_kernel(struct ir_program *p, const struct ast_unit *u, const struct ast_function *k,
            const struct lift_arg *args, size_t n_args, char *const *grid, struct strbuf *why)
{
	struct ctx c = { .prog = p, .unit = u, .stage = p->n_stages, .why = why };
	for (size_t i = 0; i < n_args; i++) {
		struct binding *b = lift_bind(&c, args[i].param, args[i].buffer ? B_BUFFER : B_SCALAR);
		b->buffer = args[i].buffer;
		if (!args[i].buffer)
			b->expr = ir_expr_new(IR_VAR, args[i].scalar);
	}
	struct ast_stmt flat = { 0 }, *parts;
	const struct ast_stmt *body = one_name_per_declaration(k->body, &flat, &parts);
	const char *gid = NULL, *gid_y = NULL;
	const char *plane[3] = { NULL, NULL, NULL }; /* int c = blockIdx.y (z): a plane of the grid */
	const struct ast_expr *bound = NULL, *bound_y = NULL;
	const struct ast_stmt *inner = NULL;
	struct ir_block pre = { 0 };
	int rows = 0; /* loops in the body: the thread index is a row */
	const char *stride0 = NULL;
	for (size_t j = 0; j < body->n_body; j++) {
		const struct ast_stmt *s = body->body[j];
		if (s->kind == AST_DECL && s->n_decls == 1 && is_grid_stride(s->decls[0].init))
			stride0 = s->decls[0].name;
		int frame = s->kind == AST_FOR && s->step && s->step->kind == AST_ASSIGN &&
		            strcmp(s->step->text, "+=") == 0 &&
		            (is_grid_stride(s->step->kids[1]) || ast_is_name(s->step->kids[1], stride0));
		rows |= frame ? contains_loop(s->then) : contains_loop(s);
	}
	const char *stride = NULL;
	size_t i = 0;
	/* an interior guard kept inside the map (below): the nodes it needs */
	struct ast_stmt interior_if = { 0 }, rest = { 0 }, wrap = { 0 }, *wrap_body[1];
	struct ast_expr not_guard = { 0 }, *not_kids[1];
	int interior = 0;
	int serial = 0; /* one thread does it all: a row program with one row */
	for (; i < body->n_body && !c.failed && !bound && !serial; i++) {
		const struct ast_stmt *s = body->body[i];
		if (!gid && !gid_y && rows && s->kind == AST_IF && !s->otherwise &&
		    is_single_thread_guard(s->expr)) {
			serial = 1;
			inner = s->then;
		} else if (!gid && !gid_y && rows && (s->kind == AST_FOR || s->kind == AST_EXPR)) {
			serial = 1; /* no guard: every thread would compute the same values */
			inner = NULL;
			i--;
		} else if (s->kind == AST_DECL && s->n_decls == 1 && is_global_index(s->decls[0].init)) {
			gid = s->decls[0].name;
			lift_bind(&c, gid, B_INDEX)->idx = rows ? IR_ROW : IR_I;
		} else if (s->kind == AST_DECL && s->n_decls == 1 && ast_is_global_index(s->decls[0].init, "y")) {
			gid_y = s->decls[0].name;
		} else if (s->kind == AST_DECL && s->n_decls == 1 &&
		           (ast_is_member(s->decls[0].init, "blockIdx", "y") || ast_is_member(s->decls[0].init, "blockIdx", "z"))) {
			size_t d = ast_is_member(s->decls[0].init, "blockIdx", "y") ? 1 : 2;
			if (!grid || !grid[d] || plane[d])
				lift_refuse(&c, "'%s' is blockIdx.%c, but the launch's grid has no extent there that "
				            "the launcher computes", s->decls[0].name, d == 1 ? 'y' : 'z');
			plane[d] = s->decls[0].name;
		} else if (s->kind == AST_IF && gid && gid_y && !s->otherwise && s->expr->kind == AST_BIN &&
		           (strcmp(s->expr->text, "&&") == 0 || strcmp(s->expr->text, "||") == 0)) {
			/* if (y < R && x < C) {...} or if (y >= R || x >= C) return; (and the
			 * grid's planes bounded by its extents) */
			int ret = strcmp(s->expr->text, "||") == 0;
			struct guard g = { .gid = gid, .gid_y = gid_y, .plane = plane, .grid = grid };
			if (!guard_with_planes(&c, s->expr, ret ? "||" : "&&", &g) || !g.bound || !g.bound_y ||
			    (ret && !ast_is_bare_return(s->then)))
				lift_refuse(&c, "a 2-D guard that is not 'y < rows && x < cols' (nor an interior "
				            "of it: 'x > 0 && x < cols - 1 && ...')");
			bound = g.bound;
			bound_y = g.bound_y;
			inner = ret ? NULL : s->then;
			if (!c.failed && g.interior) {
				/* An interior (x > 0 && x < cols - 1 && y > 0 && y < rows - 1):
				 * the map runs over rows x cols, and the guard stays inside it
				 * as written; its stores must then be at y * cols + x (checked
				 * below), so that the edge threads touch only the elements
				 * there, and leave them as they were. */
				bound = outer_extent(g.bound);
				bound_y = outer_extent(g.bound_y);
				interior_if.kind = AST_IF;
				interior_if.begin = s->begin;
				interior_if.end = s->end;
				if (ret) {
					not_guard.kind = AST_UN;
					not_guard.text = (char *)"!";
					not_kids[0] = s->expr;
					not_guard.kids = not_kids;
					not_guard.n_kids = 1;
					interior_if.expr = &not_guard;
					rest.kind = AST_BLOCK;
					rest.body = body->body + i + 1;
					rest.n_body = body->n_body - i - 1;
					interior_if.then = &rest;
					i = body->n_body - 1; /* the rest is inside */
				} else {
					interior_if.expr = s->expr;
					interior_if.then = s->then;
				}
				wrap_body[0] = &interior_if;
				wrap.kind = AST_BLOCK;
				wrap.body = wrap_body;
				wrap.n_body = 1;
				inner = &wrap; /* lifted as a tail: the guard becomes selects */
				interior = 1;
			}
		} else if (s->kind == AST_IF && gid && !gid_y && !s->otherwise &&
		           (bound = ast_guard_bound(s->expr, gid, "<", ">"))) {
			inner = s->then;
		} else if (s->kind == AST_IF && gid && !gid_y && !s->otherwise && ast_is_bare_return(s->then) &&
		           (bound = ast_guard_bound(s->expr, gid, ">=", "<="))) {
			inner = NULL; /* the rest of the body */
		} else if (s->kind == AST_IF && gid && !gid_y && !s->otherwise && (plane[1] || plane[2]) &&
		           s->expr->kind == AST_BIN && plane_guard(&c, s, gid, plane, grid, &bound)) {
			/* the planes' terms hold in every block the launch has */
			inner = strcmp(s->expr->text, "&&") == 0 ? s->then : NULL;
		} else if (s->kind == AST_DECL && s->n_decls == 1 && is_grid_stride(s->decls[0].init)) {
			stride = s->decls[0].name; /* int stride = blockDim.x * gridDim.x; */
		} else if (s->kind == AST_FOR && s->init && s->init->kind == AST_DECL &&
		           s->init->n_decls == 1 &&
		           (is_global_index(s->init->decls[0].init) ||
		            ast_is_name(s->init->decls[0].init, gid)) &&
		           s->step && s->step->kind == AST_ASSIGN && strcmp(s->step->text, "+=") == 0 &&
		           (is_grid_stride(s->step->kids[1]) || ast_is_name(s->step->kids[1], stride))) {
			gid = s->init->decls[0].name;
			lift_bind(&c, gid, B_INDEX)->idx = rows ? IR_ROW : IR_I;
			bound = ast_guard_bound(s->expr, gid, "<", ">");
			inner = s->then;
			if (!bound)
				lift_refuse(&c, "a grid-stride loop without an 'index < bound' condition");
		} else if (s->kind == AST_DECL && !contains_loop(s)) {
			lift_stmt(&c, s, LV_ELEMENT, &pre);
		} else {
			lift_refuse(&c, "no bounds guard on the global thread index in '%s'", k->name);
		}
	}
	if (!c.failed && !bound && !serial)
		lift_refuse(&c, "no global thread index with a bounds guard in '%s'", k->name);
	if (!c.failed && inner && i < body->n_body)
		lift_refuse(&c, "statements after the guarded body in '%s'", k->name);
	if (!c.failed && gid_y && !bound_y)
		lift_refuse(&c, "a y thread index '%s' without a 'y < rows && x < cols' guard", gid_y);
	if (!c.failed && bound_y && plane[1])
		lift_refuse(&c, "a kernel that reads blockIdx.y both as a plane and in its y thread index");
	if (!c.failed && serial && (plane[1] || plane[2]))
		lift_refuse(&c, "a single-thread kernel that reads blockIdx.y or .z");
	struct ir_stage st = { 0 };
	if (gid_y && rows)
		p->weak = 1; /* a row program over a 2-D index */
	if (!c.failed) {
		st.n = serial ? ir_expr_new(IR_NUM, "1") : bound_of(&c, bound, &pre);
		/* a map over several dimensions (x, then y from the thread index or a
		 * plane of the grid, then z) is a map over their product, innermost
		 * first: x = i % nx, y = i / nx % ny, z = i / (nx * ny) */
		const char *names[4] = { gid, gid_y ? gid_y : plane[1], plane[2], NULL };
		struct ir_expr *ext[3] = { st.n, NULL, NULL };
		if (st.n && gid_y)
			ext[1] = bound_of(&c, bound_y, &pre);
		for (size_t d = 1; d < 3; d++)
			if (!ext[d] && names[d] && !c.failed)
				ext[d] = ir_expr_new(IR_VAR, grid[d]);
		size_t nd = 1;
		while (nd < 3 && names[nd])
			nd++;
		if (names[1] == NULL && names[2]) { /* x and a z plane */
			names[1] = names[2], ext[1] = ext[2], ext[2] = NULL;
			nd = 2;
		}
		if (nd > 1 && st.n && ext[nd - 1]) {
			struct ir_expr *i_idx = ir_expr_new(IR_IDX, NULL), *span = NULL, *total = NULL;
			i_idx->idx = rows ? IR_ROW : IR_I;
			for (size_t d = 0; d < nd; d++) {
				struct ir_expr *at = span ? lift_bin("/", ir_expr_copy(i_idx), ir_expr_copy(span))
				                            : ir_expr_copy(i_idx);
				if (d + 1 < nd)
					at = lift_bin("%", at, ir_expr_copy(ext[d]));
				lift_bind(&c, names[d], B_SCALAR)->expr = at;
				span = span ? lift_bin("*", span, ir_expr_copy(ext[d])) : ir_expr_copy(ext[d]);
				/* the count outermost first: rows * cols as a 2-D map has it */
				total = total ? lift_bin("*", ir_expr_copy(ext[d]), total) : ir_expr_copy(ext[d]);
			}
			ir_expr_free(i_idx);
			ir_expr_free(span);
			st.n = total;
			for (size_t d = 0; d < nd; d++)
				ir_expr_free(ext[d]);
		} else if (nd > 1) {
			for (size_t d = 0; d < 3; d++)
				ir_expr_free(ext[d]);
			st.n = NULL;
		}
		/* the pre-guard lets come first */
		st.body = pre;
		pre.stmts = NULL;
		pre.n = 0;
		enum level lv = rows ? LV_ROW : LV_ELEMENT;
		if (inner && inner->kind == AST_BLOCK)
			lift_tail(&c, inner->body, inner->n_body, lv, &st.body);
		else if (inner)
			lift_stmt(&c, inner, lv, &st.body);
		else
			lift_tail(&c, body->body + i, body->n_body - i, lv, &st.body);
	}
	if (!c.failed && st.n && ir_expr_has_load(st.n))
		lift_refuse(&c, "a data-dependent bound");
	if (!c.failed && interior && interior_stores_in_place(&st, rows, c.has_atomic) != 0)
		lift_refuse(&c, "an interior guard ('x > 0 && x < cols - 1 && ...') whose stores are not "
		            "each at the element y * cols + x of a map without loops or atomics");
	if (!c.failed && c.has_atomic && rows)
		lift_refuse(&c, "atomics in a kernel with loops");
	if (!c.failed && c.has_scatter && c.has_atomic > 1)
		lift_refuse(&c, "a histogram or scatter with more than one atomic");
	st.kind = c.has_scan ? IR_STAGE_SCAN : rows ? IR_STAGE_ROWS :
	          c.has_scatter ? IR_STAGE_SCATTER : c.has_atomic ? IR_STAGE_REDUCE : IR_STAGE_MAP;
	st.kernel = egg_xstrdup(k->name);
	if (!c.failed && (st.kind == IR_STAGE_REDUCE || st.kind == IR_STAGE_SCATTER))
		for (size_t j = 0; j < st.body.n; j++)
			if (st.body.stmts[j]->kind == IR_STORE)
				lift_refuse(&c, "stores next to an atomic %s",
				            st.kind == IR_STAGE_REDUCE ? "reduction" : "histogram or scatter");
	const struct ir_stmt *acc = st.kind == IR_STAGE_SCATTER ? ir_stage_buffer_acc(&st) : NULL;
	for (size_t j = 0; acc && !c.failed && j < st.body.n; j++) /* its copies hold what others see */
		if (ir_expr_loads(st.body.stmts[j]->value, acc->name) ||
		    ir_expr_loads(st.body.stmts[j]->index, acc->name))
			lift_refuse(&c, "a histogram or scatter that reads its own destination '%s'", acc->name);
	lift_unbind_to(&c, 0);
	free(c.env);
	free(c.stores);
	ir_block_free(&pre);
	free(flat.body);
	free(parts);
	if (c.failed || !st.n) {
		if (!c.failed)
			strbuf_addstr(why, "the bound could not be lifted");
		free(st.kernel);
		ir_expr_free(st.n);
		ir_block_free(&st.body);
		return -1;
	}
	p->stages = egg_xrealloc(p->stages, (p->n_stages + 1) * sizeof *p->stages);
	p->stages[p->n_stages++] = st;
	return 0;
}
