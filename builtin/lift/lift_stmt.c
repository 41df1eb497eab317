/*
 * lift_stmt.c -- statements of a lifted kernel: declarations (locals and row
 * pointer aliases), assignments (locals, accumulators, buffer stores), atomics
 * into one element, column loops, and if/else turned into selects.  Everything
 * else is refused with a reason.
 */
#include "config.h"

#include "builtin/lift/lift_internal.h"
#include "common/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- statements ---- */

static void
lift_decl(struct ctx *c, const struct ast_decl *d, enum level lv, struct ir_block *out)
{
	if (d->is_array || d->is_shared) {
		lift_refuse(c, "a local array or shared memory ('%s')", d->name);
		return;
	}
	if (strchr(d->type, '*')) {
		const char *buffer;
		struct ir_expr *ix = d->init && lift_is_pointer(c, d->init) ? lift_pointer(c, d->init, &buffer) : NULL;
		if (!ix) {
			if (!c->failed)
				lift_refuse(c, "a local pointer '%s' that is not buffer + offset", d->name);
			return;
		}
		struct binding *b = lift_bind(c, d->name, B_ALIAS);
		b->buffer = buffer;
		b->expr = ix;
		return;
	}
	struct ir_expr *v = d->init ? lift_expr(c, d->init) : ir_expr_new(IR_NUM, "0");
	if (!v)
		return;
	struct ir_stmt *s = ir_stmt_new(IR_LET);
	s->name = c->copy ? egg_xasprintf("%s_%zu_u%u", d->name, c->stage, c->copy) :
	                    egg_xasprintf("%s_%zu", d->name, c->stage);
	const char *type = d->type;
	if (egg_str_starts(type, "const "))
		type += 6;
	s->type = egg_xstrdup(type);
	s->value = v;
	ir_block_add(out, s);
	struct binding *b = lift_bind(c, d->name, B_LOCAL);
	b->renamed = egg_xstrdup(s->name);
	b->type = egg_xstrdup(s->type);
	b->level = lv;
}

/* acc = acc + e / acc += e / acc = fmaxf(acc, e) ...: fills the ACC statement. */
static int
match_accumulate(struct ctx *c, const struct ast_expr *a, const struct binding *acc,
                 struct ir_stmt *s)
{
	const struct ast_expr *rhs = a->kids[1], *other = NULL;
	if (strcmp(a->text, "+=") == 0 || strcmp(a->text, "*=") == 0) {
		s->combine = a->text[0] == '+' ? IR_SUM : IR_PROD;
		s->combine_fn = egg_xstrdup(a->text[0] == '+' ? "+" : "*");
		other = rhs;
	} else if (strcmp(a->text, "=") == 0) {
		rhs = ast_strip_casts(rhs);
		int is_sum = rhs->kind == AST_BIN && strcmp(rhs->text, "+") == 0;
		int is_prod = rhs->kind == AST_BIN && strcmp(rhs->text, "*") == 0;
		int is_call = rhs->kind == AST_CALL && rhs->text && rhs->n_kids == 2;
		if (!is_sum && !is_prod && !is_call)
			return 0;
		if (is_call) {
			if (strstr(rhs->text, "max"))
				s->combine = IR_MAX;
			else if (strstr(rhs->text, "min"))
				s->combine = IR_MIN;
			else
				return 0;
		} else {
			s->combine = is_sum ? IR_SUM : IR_PROD;
		}
		s->combine_fn = egg_xstrdup(is_sum ? "+" : is_prod ? "*" : rhs->text);
		for (int k = 0; k < 2; k++) {
			const struct ast_expr *x = ast_strip_casts(rhs->kids[k]);
			if (x->kind == AST_NAME && strcmp(x->text, acc->name) == 0) {
				other = rhs->kids[1 - k];
				break;
			}
		}
	}
	if (!other)
		return 0;
	s->value = lift_expr(c, other);
	return s->value != NULL;
}

static void
lift_assign(struct ctx *c, const struct ast_expr *a, enum level lv, struct ir_block *out)
{
	const struct ast_expr *lhs = ast_strip_casts(a->kids[0]);
	if (lhs->kind == AST_NAME) {
		struct binding *b = lift_lookup(c, lhs->text);
		if (!b || b->kind != B_LOCAL) {
			lift_refuse(c, "assignment to '%s', which is not a local", lhs->text);
			return;
		}
		if (lv == LV_COL && b->level != LV_COL) {
			struct ir_stmt *s = ir_stmt_new(IR_ACC);
			s->name = egg_xstrdup(b->renamed);
			s->type = egg_xstrdup(b->type);
			ir_block_add(out, s);
			if (!match_accumulate(c, a, b, s))
				lift_refuse(c, "'%s' carries a value between loop iterations that is not a "
				          "sum, product, max or min", lhs->text);
			return;
		}
		struct ir_expr *v = lift_expr(c, a->kids[1]);
		if (!v)
			return;
		if (strcmp(a->text, "=") != 0) {
			char op[3] = { a->text[0], 0, 0 };
			v = lift_bin(op, ir_expr_new(IR_LOCAL, b->renamed), v);
		}
		struct ir_stmt *s = ir_stmt_new(IR_ASSIGN);
		s->name = egg_xstrdup(b->renamed);
		s->value = v;
		ir_block_add(out, s);
		return;
	}
	const struct ast_expr *base, *index;
	if (lhs->kind == AST_INDEX)
		base = lhs->kids[0], index = lhs->kids[1];
	else if (lhs->kind == AST_UN && strcmp(lhs->text, "*") == 0)
		base = lhs->kids[0], index = NULL;
	else {
		lift_refuse(c, "assignment to something other than a local or a buffer element");
		return;
	}
	const char *buffer;
	struct ir_expr *ix = lift_element(c, base, index, &buffer);
	if (!ix)
		return;
	struct ir_expr *v = lift_expr(c, a->kids[1]);
	if (v && strcmp(a->text, "=") != 0) {
		char op[3] = { a->text[0], 0, 0 };
		struct ir_expr *old = lift_load(c, base, index);
		v = old ? lift_bin(op, old, v) : (ir_expr_free(v), NULL);
	}
	if (!v) {
		ir_expr_free(ix);
		return;
	}
	/* the stored value gets a name so that later reads of the element reuse it */
	struct ir_stmt *let = ir_stmt_new(IR_LET);
	let->name = egg_xasprintf("st%u_%zu", c->tmp_counter++, c->stage);
	const struct ir_param *bp = ir_program_param(c->prog, buffer);
	let->type = egg_xstrdup(bp ? bp->elem_type : "float");
	let->value = v;
	ir_block_add(out, let);
	struct ir_stmt *s = ir_stmt_new(IR_STORE);
	s->name = egg_xstrdup(buffer);
	s->index = ix;
	s->value = ir_expr_new(IR_LOCAL, let->name);
	ir_block_add(out, s);
	for (size_t i = 0; i < c->n_stores; i++)
		if (strcmp(c->stores[i].buffer, buffer) == 0 && !ir_expr_equal(c->stores[i].index, ix)) {
			lift_refuse(c, "'%s' is written at two different elements", buffer);
			return;
		}
	c->stores = egg_xrealloc(c->stores, (c->n_stores + 1) * sizeof *c->stores);
	c->stores[c->n_stores++] = (struct store_rec){ buffer, ix, let->name };
}

/* What an index depends on, through the locals defined before statement `pos` of
 * the block: DEP_DATA when it loads a buffer, DEP_THREAD when it uses i outside
 * the loads (an index of a load is the load's business). */
enum { DEP_DATA = 1, DEP_THREAD = 2 };

static int
index_deps(const struct ir_block *b, size_t pos, const struct ir_expr *e)
{
	if (!e)
		return 0;
	if (e->kind == IR_LOAD)
		return DEP_DATA;
	if (e->kind == IR_IDX)
		return e->idx == IR_I ? DEP_THREAD : 0;
	int d = 0;
	if (e->kind == IR_LOCAL)
		for (size_t j = 0; j < pos; j++)
			if ((b->stmts[j]->kind == IR_LET || b->stmts[j]->kind == IR_ASSIGN) &&
			    strcmp(b->stmts[j]->name, e->text) == 0)
				d |= index_deps(b, j, b->stmts[j]->value);
	for (size_t i = 0; i < e->n_kids; i++)
		d |= index_deps(b, pos, e->kids[i]);
	return d;
}

static void
lift_atomic(struct ctx *c, const struct ast_expr *call, enum level lv, struct ir_block *out)
{
	if (lv != LV_ELEMENT || call->n_kids != 2) {
		/* every row adding into the same elements (a layer norm's dbias[i] and
		 * dweight[i] summed over the rows): column sums, which no recipe takes */
		const struct ast_expr *d = call->n_kids ? ast_strip_casts(call->kids[0]) : NULL;
		while (d && (d->kind == AST_UN || d->kind == AST_INDEX || d->kind == AST_BIN) && d->n_kids)
			d = ast_strip_casts(d->kids[0]);
		lift_refuse(c, "an atomic into '%s' inside a loop (sums over the rows accumulated by every "
		               "row, which no recipe takes; the reference's atomics stay)",
		            d && d->kind == AST_NAME ? d->text : "?");
		return;
	}
	const struct ast_expr *dst = ast_strip_casts(call->kids[0]), *base, *index = NULL;
	if (dst->kind == AST_UN && strcmp(dst->text, "&") == 0 && dst->kids[0]->kind == AST_INDEX)
		base = dst->kids[0]->kids[0], index = dst->kids[0]->kids[1];
	else
		base = dst;
	const char *buffer;
	struct ir_expr *ix = lift_element(c, base, index, &buffer);
	if (!ix)
		return;
	const struct ir_param *bp = ir_program_param(c->prog, buffer);
	int deps = index_deps(out, out->n, ix);
	if (deps & DEP_THREAD) {
		/* threads that collide by their index (dwpe[t * C + c], summed over b), or
		 * rows scattered by an index and spread over the thread's columns
		 * (dwte[inp[bt] * C + c]): neither is a histogram's one bin per element */
		if (deps & DEP_DATA)
			lift_refuse(c, "an atomic into '%s' at an element computed from both loaded data and the "
			               "thread index (rows scattered by an index), which no recipe takes",
			            buffer);
		else
			lift_refuse(c, "an atomic into '%s' at an element computed from the thread index (threads "
			               "that collide by their index: a segmented sum), which no recipe takes",
			            buffer);
		ir_expr_free(ix);
		return;
	}
	if (deps & DEP_DATA) {
		if (!bp || !bp->extent) {
			lift_refuse(c, "a histogram or scatter into '%s', whose extent the bundle does "
			          "not give", buffer);
			ir_expr_free(ix);
			return;
		}
		c->has_scatter = 1;
	}
	struct ir_stmt *s = ir_stmt_new(IR_ACC);
	s->name = egg_xstrdup(buffer);
	s->into_buffer = 1;
	s->index = ix;
	s->combine = strcmp(call->text, "atomicAdd") == 0 ? IR_SUM :
	             strcmp(call->text, "atomicMax") == 0 ? IR_MAX : IR_MIN;
	s->combine_fn = egg_xstrdup(s->combine == IR_SUM ? "+" : s->combine == IR_MAX ? "max" : "min");
	s->type = egg_xstrdup(bp ? bp->elem_type : "float");
	s->value = lift_expr(c, call->kids[1]);
	ir_block_add(out, s);
	c->has_atomic++;
}

static int
block_reads_local(const struct ir_block *b, const char *name)
{
	for (size_t i = 0; i < b->n; i++)
		if (ir_expr_reads_local(b->stmts[i]->value, name) ||
		    ir_expr_reads_local(b->stmts[i]->index, name))
			return 1;
	return 0;
}

/* Whether e reads name or a local of tainted[0 .. n). */
static int
reads_any(const struct ir_expr *e, const char *name, char **tainted, size_t n)
{
	if (ir_expr_reads_local(e, name))
		return 1;
	for (size_t i = 0; i < n; i++)
		if (ir_expr_reads_local(e, tainted[i]))
			return 1;
	return 0;
}

/* What a lifted column loop carries from one column to the next.  A buffer
 * stored in the loop and read there at another element (y[c] = y[c - 1] * a +
 * x[c]) is a recurrence: refused.  An accumulator read by the loop's own
 * statements is a prefix scan when it is the loop's only accumulator and its
 * update does not depend on its running value, through lets or directly (that
 * would be a recurrence too); the loop is marked scan and the stage becomes a
 * SCAN stage. */
static void
check_carried(struct ctx *c, struct ir_stmt *loop)
{
	const struct ir_block *b = &loop->body;
	for (size_t i = 0; i < b->n && !c->failed; i++) {
		const struct ir_stmt *st = b->stmts[i];
		if (st->kind != IR_STORE)
			continue;
		for (size_t j = 0; j < b->n; j++)
			if (!ir_expr_loads_only_at(b->stmts[j]->value, st->name, st->index) ||
			    !ir_expr_loads_only_at(b->stmts[j]->index, st->name, st->index)) {
				lift_refuse(c, "'%s' is read in its loop at an element another column "
				          "writes (a recurrence)", st->name);
				return;
			}
	}
	const struct ir_stmt *acc = NULL;
	size_t n_acc = 0;
	for (size_t i = 0; i < b->n; i++)
		if (b->stmts[i]->kind == IR_ACC && !b->stmts[i]->into_buffer) {
			n_acc++;
			if (block_reads_local(b, b->stmts[i]->name))
				acc = b->stmts[i];
		}
	if (!acc || c->failed)
		return;
	if (n_acc != 1) {
		lift_refuse(c, "a running value read inside its own loop next to other accumulators "
		          "(a scan with reductions)");
		return;
	}
	/* the locals computed from the running value must not feed its update */
	char **tainted = egg_xcalloc(b->n + 1, sizeof *tainted);
	size_t n_t = 0;
	int ok = 1;
	for (size_t i = 0; i < b->n && ok; i++) {
		const struct ir_stmt *st = b->stmts[i];
		if (st == acc)
			ok = !reads_any(st->value, acc->name, tainted, n_t);
		else if (st->kind == IR_LET && reads_any(st->value, acc->name, tainted, n_t))
			tainted[n_t++] = st->name;
		else if (st->kind == IR_STORE && reads_any(st->index, acc->name, tainted, n_t))
			ok = 0; /* where it stores depends on the running value */
	}
	free(tainted);
	if (!ok) {
		lift_refuse(c, "a running value that feeds its own update or a store's address "
		          "(a recurrence, not a scan)");
		return;
	}
	loop->scan = 1;
	c->has_scan = 1;
}

struct loop_index {
	const char *name;
	const struct ir_expr *start; /* NULL: from zero */
	int down;                    /* counting down from start */
};

static void argmax_second_pass(struct ctx *c, const struct ast_stmt *body, const struct ir_stmt *loop,
                               const struct loop_index *li, struct ir_block *out);
static void argmax_release(struct ctx *c);

/* Binds a column loop's index: col itself, col + S, or S - col counting down. */
static void
bind_loop_index(struct ctx *c, const struct loop_index *li)
{
	if (!li->start) {
		lift_bind(c, li->name, B_INDEX)->idx = IR_COL;
		return;
	}
	struct ir_expr *col = ir_expr_new(IR_IDX, NULL);
	col->idx = IR_COL;
	lift_bind(c, li->name, B_SCALAR)->expr = li->down ? lift_bin("-", ir_expr_copy(li->start), col) :
	                                                    lift_bin("+", col, ir_expr_copy(li->start));
}

/* An integer constant: a number or a negated one */
static int
constant(const struct ast_expr *e, long *v)
{
	e = ast_strip_casts(e);
	int neg = e && e->kind == AST_UN && strcmp(e->text, "-") == 0;
	if (neg)
		e = ast_strip_casts(e->kids[0]);
	char *end;
	if (!e || e->kind != AST_NUM)
		return 0;
	long x = strtol(e->text, &end, 0);
	if (*end || x > 1000000)
		return 0;
	*v = neg ? -x : x;
	return 1;
}

#define MAX_UNROLL 16

/* v++, ++v or v += 1 */
static int
is_unit_step(const struct ast_expr *step)
{
	return step && (((step->kind == AST_POST || step->kind == AST_UN) && strcmp(step->text, "++") == 0) ||
	                (step->kind == AST_ASSIGN && strcmp(step->text, "+=") == 0 &&
	                 step->kids[1]->kind == AST_NUM && strcmp(step->kids[1]->text, "1") == 0));
}

/* for (int v = A; v < B; v++) (or v <= B, ++v, v += 1) with A and B numbers and
 * at most MAX_UNROLL iterations, inside a column loop (a pooling window's second
 * dimension, a filter's taps): unrolled, v a number in each copy of the body.
 * 1 when it is not such a loop. */
static int
assigns_name(const struct ast_expr *e, void *name)
{
	return ast_assigns(e, name);
}

/* for (int v = A; v < B; v++) (or v <= B) with A and B numbers and at most
 * MAX_UNROLL iterations: 1 with [A, B) in *a, *b */
static int
small_loop(const struct ast_stmt *s, long *a, long *b)
{
	const struct ast_decl *d = s->kind == AST_FOR && s->init && s->init->kind == AST_DECL &&
	                           s->init->n_decls == 1 ? &s->init->decls[0] : NULL;
	const struct ast_expr *cond = s->expr, *step = s->step;
	if (!d || !constant(d->init, a) || !cond || cond->kind != AST_BIN ||
	    (strcmp(cond->text, "<") != 0 && strcmp(cond->text, "<=") != 0) ||
	    ast_strip_casts(cond->kids[0])->kind != AST_NAME ||
	    strcmp(ast_strip_casts(cond->kids[0])->text, d->name) != 0 || !constant(cond->kids[1], b) || !step)
		return 0;
	if (strcmp(cond->text, "<=") == 0)
		(*b)++;
	return is_unit_step(step) && *b - *a <= MAX_UNROLL && !(s->then && ast_walk_exprs(s->then, assigns_name, (void *)d->name));
}

/* Whether s holds only loops of a fixed small window centred on the element (a
 * stencil's taps, for (dr = -1; dr <= 1; ++dr) for (dc ...): each loop starts
 * below zero), MAX_WINDOW copies of the innermost body at most (times `copies`,
 * the enclosing loops' trips): unrolled at element level, they do not make the
 * thread a row.  A window from 0 (a pooling's) stays a row's column loop. */
#define MAX_WINDOW 64
static int
window_only(const struct ast_stmt *s, long copies)
{
	long a, b;
	if (!s)
		return 1;
	if (s->kind == AST_WHILE)
		return 0;
	if (s->kind == AST_FOR)
		return small_loop(s, &a, &b) && a < 0 && copies * (b > a ? b - a : 1) <= MAX_WINDOW &&
		       window_only(s->then, copies * (b > a ? b - a : 1));
	for (size_t i = 0; i < s->n_body; i++)
		if (!window_only(s->body[i], copies))
			return 0;
	return window_only(s->then, copies) && window_only(s->otherwise, copies);
}

int
lift_window_only(const struct ast_stmt *s)
{
	return window_only(s, 1);
}

static int
unroll_small(struct ctx *c, const struct ast_stmt *s, enum level lv, struct ir_block *out)
{
	const struct ast_decl *d = s->init && s->init->kind == AST_DECL && s->init->n_decls == 1 ?
	                           &s->init->decls[0] : NULL;
	long a, b;
	if (!small_loop(s, &a, &b))
		return 1;
	unsigned outer = c->copy;
	c->prog->weak = 1;
	for (long v = a; v < b && !c->failed; v++) {
		size_t mark = c->n_env;
		c->copy = ++c->n_copies;
		char num[24];
		snprintf(num, sizeof num, "%ld", v);
		lift_bind(c, d->name, B_SCALAR)->expr = ir_expr_new(IR_NUM, num);
		lift_stmt(c, s->then, lv, out);
		lift_unbind_to(c, mark);
	}
	c->copy = outer;
	return 0;
}

/* Lets of a column loop's body that depend neither on the column nor on what the
 * loop changes, and load nothing (the loop may run no iteration), move before
 * the loop, in their order: once per row, not once per column (a window's row
 * and column computed from the output's index, unrolled taps). */
static void
hoist_invariant_lets(struct ir_block *out, struct ir_stmt *loop)
{
	struct ir_block *b = &loop->body;
	size_t at = 0;
	while (at < out->n && out->stmts[at] != loop)
		at++;
	if (at == out->n)
		return;
	const char **stay = egg_xcalloc(b->n + 1, sizeof *stay);
	size_t n_stay = 0, keep = 0, moved = 0;
	for (size_t i = 0; i < b->n; i++)
		if (b->stmts[i]->kind == IR_ASSIGN || (b->stmts[i]->kind == IR_ACC && !b->stmts[i]->into_buffer))
			stay[n_stay++] = b->stmts[i]->name;
	for (size_t i = 0; i < b->n; i++) {
		struct ir_stmt *st = b->stmts[i];
		int inv = st->kind == IR_LET && !ir_expr_uses_index(st->value, IR_COL) && !ir_expr_has_load(st->value);
		for (size_t j = 0; inv && j < n_stay; j++)
			inv = !ir_expr_reads_local(st->value, stay[j]) && strcmp(st->name, stay[j]) != 0;
		if (!inv) {
			if (st->kind == IR_LET)
				stay[n_stay++] = st->name;
			b->stmts[keep++] = st;
			continue;
		}
		ir_block_add(out, st); /* then into its place before the loop */
		memmove(out->stmts + at + moved + 1, out->stmts + at + moved, (out->n - 1 - at - moved) * sizeof *out->stmts);
		out->stmts[at + moved++] = st;
	}
	b->n = keep;
	free(stay);
}

/* for (int v = 0; v < B; v++), ++v, v += 1 (lift_internal.h) */
const char *
lift_counting_loop(const struct ast_stmt *s, const struct ast_expr **bound)
{
	const struct ast_decl *d = s->kind == AST_FOR && s->init && s->init->kind == AST_DECL &&
	                           s->init->n_decls == 1 ? &s->init->decls[0] : NULL;
	const struct ast_expr *init = d ? ast_strip_casts(d->init) : NULL, *cond = s->expr, *step = s->step;
	if (!init || init->kind != AST_NUM || strcmp(init->text, "0") != 0 || !cond || cond->kind != AST_BIN ||
	    strcmp(cond->text, "<") != 0 || ast_strip_casts(cond->kids[0])->kind != AST_NAME ||
	    strcmp(ast_strip_casts(cond->kids[0])->text, d->name) != 0 || !is_unit_step(step))
		return NULL;
	*bound = cond->kids[1];
	return d->name;
}

/* for (i = 0; i < A; i++) { declarations; for (j = 0; j < B; j++) body } with B
 * not depending on i nor the body on a loop: the two loops are one column loop of
 * A * B, i = col / B and j = col % B, in the same order (a pooling window of run-
 * time size).  0 with the loop lifted into out, 1 when it is not such a nest. */
static int
collapse_nest(struct ctx *c, const struct ast_stmt *s, struct ir_block *out)
{
	const struct ast_expr *a_bound, *b_bound;
	const char *iname = lift_counting_loop(s, &a_bound), *jname;
	const struct ast_stmt *body = s->then, *inner = NULL;
	if (!iname || !body)
		return 1;
	size_t n = body->kind == AST_BLOCK ? body->n_body : 1;
	struct ast_stmt *const *st = body->kind == AST_BLOCK ? body->body : (struct ast_stmt *const *)&s->then;
	for (size_t k = 0; k + 1 < n; k++)
		if (st[k]->kind != AST_DECL || ast_has_loop(st[k]))
			return 1;
	inner = n ? st[n - 1] : NULL;
	long few;
	if (!inner || !(jname = lift_counting_loop(inner, &b_bound)) || ast_has_loop(inner->then) ||
	    ast_mentions(b_bound, iname) || c->am.pending ||
	    (constant(b_bound, &few) && few <= MAX_UNROLL)) /* unrolled in the column loop instead */
		return 1;
	struct ir_expr *a = lift_expr(c, a_bound), *b = a ? lift_expr(c, b_bound) : NULL;
	if (!a || !b || ir_expr_has_load(a) || ir_expr_has_load(b)) {
		if (!c->failed)
			lift_refuse(c, "a data-dependent loop bound");
		ir_expr_free(a);
		ir_expr_free(b);
		return 0;
	}
	struct ir_stmt *loop = ir_stmt_new(IR_LOOP);
	ir_block_add(out, loop);
	loop->bound = lift_bin("*", a, ir_expr_copy(b));
	c->prog->weak = 1;
	size_t mark = c->n_env, stores = c->n_stores;
	struct ir_expr *col = ir_expr_new(IR_IDX, NULL);
	col->idx = IR_COL;
	lift_bind(c, iname, B_SCALAR)->expr = lift_bin("/", ir_expr_copy(col), ir_expr_copy(b));
	for (size_t k = 0; k + 1 < n && !c->failed; k++)
		lift_stmt(c, st[k], LV_COL, &loop->body);
	lift_bind(c, jname, B_SCALAR)->expr = lift_bin("%", col, b);
	if (!c->failed)
		lift_stmt(c, inner->then, LV_COL, &loop->body);
	lift_unbind_to(c, mark);
	if (c->am.pending && !c->failed)
		lift_refuse(c, "an argmax over two nested loops");
	argmax_release(c);
	check_carried(c, loop);
	c->n_stores = stores;
	c->has_loop = 1;
	if (!c->failed && !loop->scan)
		hoist_invariant_lets(out, loop);
	return 0;
}

/* for (int j = 0; j < BOUND; j++) at row level */
static void
lift_loop(struct ctx *c, const struct ast_stmt *s, enum level lv, struct ir_block *out)
{
	if ((lv == LV_COL || (lv == LV_ELEMENT && lift_window_only(s))) && unroll_small(c, s, lv, out) == 0)
		return;
	if (lv == LV_ROW && ast_has_loop(s->then) && collapse_nest(c, s, out) == 0)
		return;
	if (lv != LV_ROW) {
		lift_refuse(c, lv == LV_COL ? "nested loops (a contraction or stencil)" :
		                         "a loop in an element-wise body");
		return;
	}
	const struct ast_decl *d = s->init && s->init->kind == AST_DECL && s->init->n_decls == 1 ?
	                           &s->init->decls[0] : NULL;
	const struct ast_expr *init = d ? ast_strip_casts(d->init) : NULL;
	if (!d || !init) {
		lift_refuse(c, "a loop without a fresh index");
		return;
	}
	int from_zero = init->kind == AST_NUM && strcmp(init->text, "0") == 0;
	const struct ast_expr *cond = s->expr, *step = s->step;
	/* up: j < B (or j <= B: B + 1), j += 1; down: j >= L (or j > L), j -= 1 */
	int up = cond && cond->kind == AST_BIN && (strcmp(cond->text, "<") == 0 || strcmp(cond->text, "<=") == 0);
	int down = cond && cond->kind == AST_BIN && (strcmp(cond->text, ">=") == 0 || strcmp(cond->text, ">") == 0);
	if ((!up && !down) || ast_strip_casts(cond->kids[0])->kind != AST_NAME ||
	    strcmp(ast_strip_casts(cond->kids[0])->text, d->name) != 0) {
		lift_refuse(c, "a loop whose condition is not 'index < bound' (or <=, or 'index >= low' counting "
		               "down)");
		return;
	}
	const char *inc = up ? "++" : "--", *add = up ? "+=" : "-=";
	int unit_step = step && ((step->kind == AST_POST || step->kind == AST_UN) &&
	                         strcmp(step->text, inc) == 0);
	if (step && step->kind == AST_ASSIGN && strcmp(step->text, add) == 0 &&
	    step->kids[1]->kind == AST_NUM && strcmp(step->kids[1]->text, "1") == 0)
		unit_step = 1;
	if (!unit_step) {
		lift_refuse(c, up ? "a loop whose step is not 1" : "a loop counting down by other than 1");
		return;
	}
	struct ir_stmt *loop = ir_stmt_new(IR_LOOP);
	ir_block_add(out, loop);
	loop->bound = lift_expr(c, cond->kids[1]);
	if (loop->bound && strcmp(cond->text, "<=") == 0)
		loop->bound = lift_bin("+", loop->bound, ir_expr_new(IR_NUM, "1"));
	struct ir_expr *start = from_zero && up ? NULL : lift_expr(c, init);
	if (!loop->bound || (!(from_zero && up) && !start))
		return;
	if (ir_expr_has_load(loop->bound) || ir_expr_has_load(start)) {
		lift_refuse(c, "a data-dependent loop bound");
		ir_expr_free(start);
		return;
	}
	size_t mark = c->n_env, stores = c->n_stores;
	if (up && start) /* for (j = S; j < B; j++) runs col in [0, B - S) with j = col + S */
		loop->bound = lift_bin("-", loop->bound, ir_expr_copy(start));
	if (down) /* for (j = S; j >= L; j--) runs col in [0, S - L + 1) with j = S - col */
		loop->bound = strcmp(cond->text, ">=") == 0 ?
		                      lift_bin("+", lift_bin("-", ir_expr_copy(start), loop->bound), ir_expr_new(IR_NUM, "1")) :
		                      lift_bin("-", ir_expr_copy(start), loop->bound);
	struct loop_index li = { d->name, start, down };
	bind_loop_index(c, &li);
	if (c->am.pending) {
		lift_refuse(c, "a loop inside an argmax loop");
		ir_expr_free(start);
		return;
	}
	lift_stmt(c, s->then, LV_COL, &loop->body);
	lift_unbind_to(c, mark);
	check_carried(c, loop);
	int argmax = c->am.pending;
	if (c->am.pending && !c->failed)
		argmax_second_pass(c, s->then, loop, &li, out);
	argmax_release(c);
	if (!c->failed && !argmax && !loop->scan)
		hoist_invariant_lets(out, loop);
	ir_expr_free(start);
	c->n_stores = stores;
	c->has_loop = 1;
}

/* cond is the test that the buffer lhs stores into is not NULL (p, p != NULL,
 * NULL != p, p != nullptr), the buffer then marked optional (lift_present) */
static int
optional_output(struct ctx *c, const struct ast_expr *cond, const struct ast_expr *lhs)
{
	const struct ast_expr *base = ast_strip_casts(lhs->kids[0]);
	if (base->kind != AST_NAME || !lift_is_pointer(c, base))
		return 0;
	struct binding *b = lift_lookup(c, base->text);
	if (!b || b->kind != B_BUFFER)
		return 0;
	const struct ast_expr *x = ast_strip_casts(cond);
	int names = x->kind == AST_NAME && strcmp(x->text, base->text) == 0;
	for (int side = 0; !names && side < 2 && x->kind == AST_BIN && strcmp(x->text, "!=") == 0; side++) {
		const struct ast_expr *k = ast_strip_casts(x->kids[side]);
		names = k->kind == AST_NAME && strcmp(k->text, base->text) == 0;
	}
	if (!names)
		return 0;
	struct ir_expr *f = lift_truth(c, cond); /* the flag, or a refusal */
	char *want = egg_xasprintf("(%s != nullptr)", b->buffer);
	int ok = f && f->kind == IR_VAR && strcmp(f->text, want) == 0;
	free(want);
	ir_expr_free(f);
	return ok;
}

/* The one assignment a branch holds, or NULL. */
static const struct ast_expr *
branch_assignment(const struct ast_stmt *s)
{
	while (s && s->kind == AST_BLOCK && s->n_body == 1)
		s = s->body[0];
	return s && s->kind == AST_EXPR && s->expr->kind == AST_ASSIGN ? s->expr : NULL;
}

/* The two assignments of a branch "{ a = x; b = y; }" (in either order), or 0. */
static int
two_assignments(const struct ast_stmt *s, const struct ast_expr **a, const struct ast_expr **b)
{
	if (!s || s->kind != AST_BLOCK || s->n_body != 2)
		return 0;
	for (int k = 0; k < 2; k++) {
		const struct ast_stmt *x = s->body[k];
		if (x->kind != AST_EXPR || x->expr->kind != AST_ASSIGN || strcmp(x->expr->text, "=") != 0 ||
		    ast_strip_casts(x->expr->kids[0])->kind != AST_NAME)
			return 0;
	}
	*a = s->body[0]->expr;
	*b = s->body[1]->expr;
	return 1;
}

#define AM_NONE_MIN "9223372036854775807LL"
#define AM_NONE_MAX "(-9223372036854775807LL - 1)"

/* In a column loop, "if (E > m) { m = E; k = J; }" (or m < E; >= keeps the last
 * of equal extremes; < and <= an argmin): an argmax.  Lifted in two passes over
 * the columns: the first accumulates m's extreme (a max accumulator, as for
 * "if (E > m) m = E;"); the loop is then lifted again (c->am.pass 1), and the
 * second finds the first (last, for >=) column whose E equals it, J there.
 * After both, k is that J, or k as it was when m's value before the loop is the
 * extreme (strict) or no column matches -- and m keeps a NaN it started with,
 * as the sequential loop does.  1 when s was this pattern (lifted or refused). */
static int
lift_argmax(struct ctx *c, const struct ast_stmt *s, struct ir_block *out)
{
	const struct ast_expr *a[2], *cond = s->expr;
	if (s->otherwise || !two_assignments(s->then, &a[0], &a[1]) || cond->kind != AST_BIN)
		return 0;
	int gt = strcmp(cond->text, ">") == 0 || strcmp(cond->text, ">=") == 0;
	int lt = strcmp(cond->text, "<") == 0 || strcmp(cond->text, "<=") == 0;
	if (!gt && !lt)
		return 0;
	for (int side = 0; side < 2; side++) {
		const struct ast_expr *m = ast_strip_casts(cond->kids[side]), *e = cond->kids[1 - side];
		for (int v = 0; v < 2 && m->kind == AST_NAME; v++) {
			const struct ast_expr *mv = ast_strip_casts(a[v]->kids[0]), *kv = ast_strip_casts(a[1 - v]->kids[0]);
			if (strcmp(mv->text, m->text) != 0 || !ast_equal(e, a[v]->kids[1]) ||
			    strcmp(kv->text, m->text) == 0)
				continue;
			struct binding *bm = lift_lookup(c, m->text), *bk = lift_lookup(c, kv->text);
			if (!bm || bm->kind != B_LOCAL || bm->level == LV_COL || !bk || bk->kind != B_LOCAL ||
			    bk->level == LV_COL)
				return 0;
			int is_max = side == 1 ? gt : lt, strict = strlen(cond->text) == 1;
			if (c->am.pass == 0 && c->am.pending) {
				lift_refuse(c, "two argmax or argmin updates in one loop");
				return 1;
			}
			struct ir_stmt *acc = ir_stmt_new(IR_ACC);
			if (c->am.pass == 0) {
				c->am.pending = 1;
				c->am.is_max = is_max;
				c->am.strict = strict;
				c->am.value = egg_xstrdup(bm->renamed);
				c->am.index = egg_xstrdup(bk->renamed);
				c->am.itype = egg_xstrdup(bk->type);
				acc->name = egg_xstrdup(bm->renamed);
				acc->type = egg_xstrdup(bm->type);
				acc->combine = is_max ? IR_MAX : IR_MIN;
				acc->combine_fn = egg_xstrdup(strcmp(bm->type, "float") == 0 ? (is_max ? "fmaxf" : "fminf") :
				                              strcmp(bm->type, "double") == 0 ? (is_max ? "fmax" : "fmin") :
				                              (is_max ? "max" : "min"));
				acc->value = lift_expr(c, e);
			} else {
				/* the column's J where E is the extreme, else the identity */
				struct ir_expr *ev = lift_expr(c, e), *j = ev ? lift_expr(c, a[1 - v]->kids[1]) : NULL;
				struct ir_expr *sel = ir_expr_new(IR_COND, NULL), *jc = ir_expr_new(IR_CAST, "long long");
				ir_expr_add(sel, lift_bin("==", ev ? ev : ir_expr_new(IR_NUM, "0"),
				                          ir_expr_new(IR_LOCAL, c->am.value)));
				ir_expr_add(jc, j ? j : ir_expr_new(IR_NUM, "0"));
				ir_expr_add(sel, jc);
				ir_expr_add(sel, ir_expr_new(IR_NUM, strict ? AM_NONE_MIN : AM_NONE_MAX));
				acc->name = egg_xstrdup(c->am.found);
				acc->type = egg_xstrdup("long long");
				acc->combine = strict ? IR_MIN : IR_MAX;
				acc->combine_fn = egg_xstrdup(strict ? "min" : "max");
				acc->value = sel;
			}
			ir_block_add(out, acc);
			return 1;
		}
	}
	return 0;
}

/* After the first pass of an argmax loop (c->am.pending, the loop last in out):
 * the second pass, body lifted again with the loop's index li, and the locals'
 * final values. */
static void
argmax_second_pass(struct ctx *c, const struct ast_stmt *body, const struct ir_stmt *loop,
                   const struct loop_index *li, struct ir_block *out)
{
	for (size_t i = 0; i < loop->body.n; i++)
		if (loop->body.stmts[i]->kind != IR_LET && loop->body.stmts[i]->kind != IR_ACC) {
			lift_refuse(c, "an argmax or argmin loop that also stores or assigns");
			return;
		}
	for (size_t i = 0; i < loop->body.n; i++)
		if (loop->body.stmts[i]->kind == IR_ACC && strcmp(loop->body.stmts[i]->name, c->am.value) != 0) {
			lift_refuse(c, "an argmax or argmin loop with other accumulators");
			return;
		}
	/* the value before the loop: a let placed before it */
	struct ir_stmt *init = ir_stmt_new(IR_LET);
	init->name = egg_xasprintf("egg_am%u_%zu", c->tmp_counter++, c->stage);
	const struct ir_stmt *acc = NULL;
	for (size_t i = 0; i < loop->body.n; i++)
		if (loop->body.stmts[i]->kind == IR_ACC)
			acc = loop->body.stmts[i];
	init->type = egg_xstrdup(acc->type);
	init->value = ir_expr_new(IR_LOCAL, c->am.value);
	ir_block_add(out, init);
	out->stmts[out->n - 1] = out->stmts[out->n - 2]; /* before the loop */
	out->stmts[out->n - 2] = init;
	struct ir_stmt *found = ir_stmt_new(IR_LET);
	found->name = egg_xasprintf("egg_am%u_%zu", c->tmp_counter++, c->stage);
	found->type = egg_xstrdup("long long");
	found->value = ir_expr_new(IR_NUM, c->am.strict ? AM_NONE_MIN : AM_NONE_MAX);
	ir_block_add(out, found);
	c->am.found = egg_xstrdup(found->name);
	struct ir_stmt *loop2 = ir_stmt_new(IR_LOOP);
	loop2->bound = ir_expr_copy(loop->bound);
	ir_block_add(out, loop2);
	size_t mark = c->n_env;
	bind_loop_index(c, li);
	c->am.pass = 1;
	lift_stmt(c, body, LV_COL, &loop2->body);
	c->am.pass = 0;
	lift_unbind_to(c, mark);
	/* k = none found, or the start was the extreme (strict), or m started as NaN ? k : found */
	struct ir_expr *ai = ir_expr_new(IR_LOCAL, init->name);
	struct ir_expr *keep = lift_bin("||", lift_bin("!=", ir_expr_copy(ai), ir_expr_copy(ai)),
	                                lift_bin("==", ir_expr_new(IR_LOCAL, found->name),
	                                         ir_expr_new(IR_NUM, c->am.strict ? AM_NONE_MIN : AM_NONE_MAX)));
	if (c->am.strict)
		keep = lift_bin("||", lift_bin("==", ir_expr_copy(ai), ir_expr_new(IR_LOCAL, c->am.value)), keep);
	struct ir_expr *sel = ir_expr_new(IR_COND, NULL), *fc = ir_expr_new(IR_CAST, c->am.itype);
	ir_expr_add(sel, keep);
	ir_expr_add(sel, ir_expr_new(IR_LOCAL, c->am.index));
	ir_expr_add(fc, ir_expr_new(IR_LOCAL, found->name));
	ir_expr_add(sel, fc);
	struct ir_stmt *k = ir_stmt_new(IR_ASSIGN);
	k->name = egg_xstrdup(c->am.index);
	k->value = sel;
	ir_block_add(out, k);
	struct ir_stmt *m = ir_stmt_new(IR_ASSIGN);
	m->name = egg_xstrdup(c->am.value);
	m->value = ir_expr_new(IR_COND, NULL);
	ir_expr_add(m->value, lift_bin("!=", ir_expr_copy(ai), ir_expr_copy(ai)));
	ir_expr_add(m->value, ai);
	ir_expr_add(m->value, ir_expr_new(IR_LOCAL, c->am.value));
	ir_block_add(out, m);
}

static void
argmax_release(struct ctx *c)
{
	free(c->am.value);
	free(c->am.index);
	free(c->am.itype);
	free(c->am.found);
	memset(&c->am, 0, sizeof c->am);
}

/* if/else around single assignments becomes a select, so that element-wise code
 * keeps one path: "if (c) v = a; else v = b;" is v = c ? a : b, "if (c) v = a;"
 * is v = c ? a : v, "if (c) s += e;" is s = s + (c ? e : 0), and in a column
 * loop "if (e > m) m = e;" is a max accumulator.  A store in one branch only is
 * a partial write and is refused. */
static void
lift_if(struct ctx *c, const struct ast_stmt *s, enum level lv, struct ir_block *out)
{
	if (lv == LV_COL && lift_argmax(c, s, out))
		return;
	const struct ast_expr *t = branch_assignment(s->then);
	const struct ast_expr *e = s->otherwise ? branch_assignment(s->otherwise) : NULL;
	if (!t || (s->otherwise && (!e || !ast_equal(t->kids[0], e->kids[0])))) {
		lift_refuse(c, "a data-dependent branch");
		return;
	}
	const struct ast_expr *lhs = ast_strip_casts(t->kids[0]), *cond = s->expr;
	/* in a column loop: if (E > m) m = E; (or <, for a min) */
	if (lv == LV_COL && !e && lhs->kind == AST_NAME && strcmp(t->text, "=") == 0 &&
	    cond->kind == AST_BIN) {
		struct binding *b = lift_lookup(c, lhs->text);
		int gt = strcmp(cond->text, ">") == 0 || strcmp(cond->text, ">=") == 0;
		int lt = strcmp(cond->text, "<") == 0 || strcmp(cond->text, "<=") == 0;
		if (b && b->kind == B_LOCAL && b->level != LV_COL && (gt || lt)) {
			for (int side = 0; side < 2; side++) {
				const struct ast_expr *v = ast_strip_casts(cond->kids[side]),
				                      *other = cond->kids[1 - side];
				if (v->kind != AST_NAME || strcmp(v->text, lhs->text) != 0 ||
				    !ast_equal(other, t->kids[1]))
					continue;
				int is_max = side == 1 ? gt : lt; /* E > m, or m < E */
				struct ir_stmt *a = ir_stmt_new(IR_ACC);
				a->name = egg_xstrdup(b->renamed);
				a->type = egg_xstrdup(b->type);
				a->combine = is_max ? IR_MAX : IR_MIN;
				a->combine_fn = egg_xstrdup(strcmp(b->type, "float") == 0 ? (is_max ? "fmaxf" : "fminf") :
				                            strcmp(b->type, "double") == 0 ? (is_max ? "fmax" : "fmin") :
				                            (is_max ? "max" : "min"));
				a->value = lift_expr(c, other);
				ir_block_add(out, a);
				return;
			}
		}
	}
	if (!e && lhs->kind == AST_INDEX && optional_output(c, cond, lhs)) {
		/* if (mean != NULL) mean[i] = m;: an optional output, stored as written;
		 * every candidate stores it only where it is not NULL (emit.c) */
		lift_stmt(c, s->then, lv, out);
		return;
	}
	if (!e && lhs->kind != AST_NAME) {
		lift_refuse(c, "a store under a data-dependent condition (a partial write)");
		return;
	}
	/* synthesize "lhs = cond ? a : b" (or the conditional sum) and lift that */
	struct ast_expr zero = { AST_NUM, (char *)"0", NULL, 0, NULL };
	struct ast_expr *k_then[2], *k_else[2], *k_sel[3], *k_sum[2], *k_asg[2];
	struct ast_expr bin_then = { AST_BIN, NULL, k_then, 2, NULL };
	struct ast_expr bin_else = { AST_BIN, NULL, k_else, 2, NULL };
	struct ast_expr sel = { AST_COND, NULL, k_sel, 3, NULL }, sum = { AST_BIN, (char *)"+", k_sum, 2, NULL };
	struct ast_expr asg = { AST_ASSIGN, (char *)"=", k_asg, 2, NULL };
	char op_then[3] = { t->text[0], 0, 0 }, op_else[3] = { e ? e->text[0] : 0, 0, 0 };
	const struct ast_expr *a = t->kids[1], *bval = e ? e->kids[1] : t->kids[0];
	if (strcmp(t->text, "+=") == 0 && !e) { /* if (c) s += e; */
		k_sel[0] = (struct ast_expr *)cond, k_sel[1] = (struct ast_expr *)a, k_sel[2] = &zero;
		k_sum[0] = t->kids[0], k_sum[1] = &sel;
		k_asg[0] = t->kids[0], k_asg[1] = &sum;
		lift_assign(c, &asg, lv, out);
		return;
	}
	if (strcmp(t->text, "=") != 0) {
		bin_then.text = op_then;
		k_then[0] = t->kids[0], k_then[1] = (struct ast_expr *)a;
		a = &bin_then;
	}
	if (e && strcmp(e->text, "=") != 0) {
		bin_else.text = op_else;
		k_else[0] = e->kids[0], k_else[1] = e->kids[1];
		bval = &bin_else;
	}
	k_sel[0] = (struct ast_expr *)cond, k_sel[1] = (struct ast_expr *)a;
	k_sel[2] = (struct ast_expr *)bval;
	k_asg[0] = t->kids[0], k_asg[1] = &sel;
	lift_assign(c, &asg, lv, out);
}

void
lift_stmt(struct ctx *c, const struct ast_stmt *s, enum level lv, struct ir_block *out)
{
	if (c->failed)
		return;
	switch (s->kind) {
	case AST_EMPTY:
		return;
	case AST_BLOCK: {
		size_t mark = c->n_env;
		lift_stmts(c, s->body, s->n_body, lv, out);
		lift_unbind_to(c, mark);
		return;
	}
	case AST_DECL:
		for (size_t i = 0; i < s->n_decls; i++)
			lift_decl(c, &s->decls[i], lv, out);
		return;
	case AST_EXPR:
		if (s->expr->kind == AST_ASSIGN)
			lift_assign(c, s->expr, lv, out);
		else if (s->expr->kind == AST_CALL && s->expr->text &&
		         egg_str_starts(s->expr->text, "atomic") &&
		         (strcmp(s->expr->text, "atomicAdd") == 0 ||
		          strcmp(s->expr->text, "atomicMax") == 0 ||
		          strcmp(s->expr->text, "atomicMin") == 0))
			lift_atomic(c, s->expr, lv, out);
		else if (s->expr->kind == AST_CALL && s->expr->text)
			lift_refuse(c, "a call to '%s' as a statement", s->expr->text);
		else
			lift_refuse(c, "an expression statement that is not an assignment");
		return;
	case AST_FOR:
		lift_loop(c, s, lv, out);
		return;
	case AST_IF:
		lift_if(c, s, lv, out);
		return;
	case AST_WHILE:
		lift_refuse(c, "a data-dependent loop (while)");
		return;
	case AST_LAUNCH:
		lift_refuse(c, "a launch from the device");
		return;
	default:
		lift_refuse(c, "an early exit (return, break or continue) in the body");
		return;
	}
}

