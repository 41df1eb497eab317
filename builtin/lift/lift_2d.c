/*
 * lift_2d.c -- the 2-D families seen in lifted maps: gathers, transposes and
 * stencils, told apart by the shape of their indices (affine.h), and the two
 * rules that keep maps safe to reschedule.
 *
 * A map over rows * cols (a 2-D guard, or a flat index split by i / cols and
 * i % cols) is rewritten in ROW and COL, its integer locals inlined, and then:
 *   - a gather (a load whose index holds a load of the row only:
 *     table[ids[row] * cols + col]) becomes a row program: the data-dependent
 *     base of each row is a row-level let and the column loop streams, so the
 *     rows recipe gives it a group of threads per row with vector accesses;
 *   - a transpose (an access at col * rows + row) becomes a TRANSPOSE stage;
 *   - a stencil (a buffer read at constant offsets around the element, up to 4
 *     away, through the flat index or with each coordinate clamped to the
 *     domain) becomes a STENCIL stage.
 * Anything else stays the map it was.
 *
 * Safety: a map storing at a data-dependent index (a scatter, whose elements may
 * collide), at an index that does not depend on the thread, or reading a buffer
 * it writes at another element than the one written (threads depending on each
 * other: an in-place stencil or transpose) is not lifted at all.  And an early return after a store -- "if (border) { v[e] = u[e];
 * return; } v[e] = f(...);" -- is the if/else it means (lift_stmts), so the
 * border is a select whose untaken side is never evaluated.
 */
#include "config.h"

#include "builtin/lift/affine.h"
#include "builtin/lift/lift_internal.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

/* ---- early returns ---- */

static int
ends_in_return(const struct ast_stmt *s)
{
	if (s->kind == AST_RETURN)
		return !s->expr;
	return s->kind == AST_BLOCK && s->n_body > 0 && s->body[s->n_body - 1]->kind == AST_RETURN &&
	       !s->body[s->n_body - 1]->expr;
}

/* A condition on indices and scalars only: no memory read, no call, no side effect. */
static int
index_only(const struct ast_expr *e)
{
	if (e->kind == AST_INDEX || e->kind == AST_CALL || e->kind == AST_ASSIGN || e->kind == AST_POST ||
	    (e->kind == AST_UN && (strcmp(e->text, "*") == 0 || strcmp(e->text, "++") == 0 ||
	                           strcmp(e->text, "--") == 0)))
		return 0;
	for (size_t i = 0; i < e->n_kids; i++)
		if (!index_only(e->kids[i]))
			return 0;
	return 1;
}

/* e reads no memory, and its locals (a map's body is one block: b) are computed
 * from indices and scalars only */
static int
on_indices(const struct ir_block *b, const struct ir_expr *e, int depth)
{
	if (ir_expr_has_load(e) || depth > 8)
		return 0;
	if (e->kind == IR_LOCAL) {
		int seen = 0;
		for (size_t i = 0; i < b->n; i++) {
			const struct ir_stmt *x = b->stmts[i];
			if ((x->kind == IR_LET || x->kind == IR_ASSIGN) && strcmp(x->name, e->text) == 0) {
				if (!on_indices(b, x->value, depth + 1))
					return 0;
				seen = 1;
			}
		}
		return seen;
	}
	for (size_t i = 0; i < e->n_kids; i++)
		if (!on_indices(b, e->kids[i], depth))
			return 0;
	return 1;
}

static struct ir_expr *
guarded_select(const struct ir_expr *cond, struct ir_expr *then, struct ir_expr *otherwise)
{
	struct ir_expr *e = ir_expr_new(IR_COND, NULL);
	ir_expr_add(e, ir_expr_copy(cond));
	ir_expr_add(e, then);
	ir_expr_add(e, otherwise);
	return e;
}

/* if (c) { lets; b[e] = v; }  in a map, with c on indices and scalars only (a
 * border skipped: locals computed from them are fine, unless the block changes them), is every statement made conditional: lets are c ? x : 0,
 * assignments c ? x : old, stores b[e] = c ? v : b[e] (the element keeps its
 * value).  Selects keep the map one path, and their untaken side is never
 * evaluated, so a tap outside the buffer is not read.  Data-dependent partial
 * writes stay refused (lift_if). */
static void stmts_at(struct ctx *c, struct ast_stmt *const *stmts, size_t n, enum level lv,
                     struct ir_block *out, int tail);

static int integral(const char *type);

/* e is integer arithmetic that cannot fault: sums, differences, products and
 * shifts of literals, scalars, indices and locals, and divisions by a scalar or
 * a non-zero literal; no load, no call. */
static int
pure_index_expr(const struct ir_expr *e)
{
	static const char *const ops[] = { "+", "-", "*", "<<", "&", "|", "^" };
	switch (e->kind) {
	case IR_NUM:
	case IR_VAR:
	case IR_IDX:
	case IR_LOCAL:
		return 1;
	case IR_CAST:
		return integral(e->text) && pure_index_expr(e->kids[0]);
	case IR_UN:
		return strcmp(e->text, "-") == 0 && pure_index_expr(e->kids[0]);
	case IR_BIN:
		/* x / cols, x % cols: the split of the thread's index (cols is zero
		 * only where no thread runs) */
		if ((strcmp(e->text, "/") == 0 || strcmp(e->text, "%") == 0) &&
		    (e->kids[1]->kind == IR_VAR || (e->kids[1]->kind == IR_NUM && strcmp(e->kids[1]->text, "0") != 0)))
			return pure_index_expr(e->kids[0]);
		for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
			if (strcmp(e->text, ops[i]) == 0)
				return pure_index_expr(e->kids[0]) && pure_index_expr(e->kids[1]);
		return 0;
	default:
		return 0;
	}
}

/* An integer let of index arithmetic (pure_index_expr). */
static int
index_arithmetic(const struct ir_stmt *x)
{
	return x->type && integral(x->type) && x->value && pure_index_expr(x->value);
}

/* (tail, n_tail: the guarded statements when they are the kernel's tail, else
 * NULL and s->then is lifted in its own scope) */
static void
lift_guarded(struct ctx *c, const struct ast_stmt *s, struct ast_stmt *const *tail, size_t n_tail,
             enum level lv, struct ir_block *out)
{
	if (s->otherwise || lv != LV_ELEMENT || !index_only(s->expr)) {
		lift_stmt(c, s, lv, out);
		return;
	}
	struct ir_expr *cond = lift_truth(c, s->expr);
	if (cond && !on_indices(out, cond, 0)) { /* on the data: not a border */
		ir_expr_free(cond);
		lift_stmt(c, s, lv, out);
		return;
	}
	struct ir_block tmp = { 0 };
	if (cond && tail)
		stmts_at(c, tail, n_tail, lv, &tmp, 1);
	else if (cond)
		lift_stmt(c, s->then, lv, &tmp);
	for (size_t i = 0; i < tmp.n && !c->failed; i++)
		if (tmp.stmts[i]->kind == IR_ASSIGN && ir_expr_reads_local(cond, tmp.stmts[i]->name))
			lift_refuse(c, "a condition that its own branch changes");
	for (size_t i = 0; i < tmp.n && !c->failed; i++) {
		struct ir_stmt *x = tmp.stmts[i];
		if (x->kind == IR_STORE) {
			/* its value is the let just before it (lift_assign): fall back to the element */
			struct ir_stmt *let = i > 0 ? tmp.stmts[i - 1] : NULL;
			if (!let || let->kind != IR_LET || x->value->kind != IR_LOCAL ||
			    strcmp(let->name, x->value->text) != 0) {
				lift_refuse(c, "a store under a condition that is not a select");
				break;
			}
			struct ir_expr *old = ir_expr_new(IR_LOAD, x->name);
			ir_expr_add(old, ir_expr_copy(x->index));
			let->value = guarded_select(cond, let->value, old);
		} else if (x->kind == IR_LET && index_arithmetic(x)) {
			/* an index computed on every thread (at = r * cols + c): no
			 * select, so that the stores under the guard keep their
			 * element's shape; it reads nothing and cannot fault */
		} else if (x->kind == IR_LET && !(i + 1 < tmp.n && tmp.stmts[i + 1]->kind == IR_STORE &&
		                                  tmp.stmts[i + 1]->value->kind == IR_LOCAL &&
		                                  strcmp(tmp.stmts[i + 1]->value->text, x->name) == 0)) {
			x->value = guarded_select(cond, x->value, ir_expr_new(IR_NUM, "0"));
		} else if (x->kind == IR_ASSIGN) {
			x->value = guarded_select(cond, x->value, ir_expr_new(IR_LOCAL, x->name));
		} else if (x->kind != IR_LET) {
			lift_refuse(c, "an atomic or a loop under a condition");
		}
	}
	for (size_t i = 0; i < tmp.n; i++)
		ir_block_add(out, tmp.stmts[i]);
	free(tmp.stmts);
	ir_expr_free(cond);
}

/* The statements of one side of an index condition (lift_both), each made
 * conditional on cond: integer index arithmetic as it is, lets cond ? x : 0 (a
 * tap outside the buffer is never read), assignments cond ? x : old; its stores
 * are taken out into stores (in order), their values' lets kept. */
static void
guard_side(struct ctx *c, const struct ir_expr *cond, struct ir_block *side, struct ir_block *out,
           struct ir_block *stores)
{
	for (size_t i = 0; i < side->n; i++) {
		struct ir_stmt *x = side->stmts[i];
		if (c->failed) {
			ir_block_add(out, x); /* freed with out */
			continue;
		}
		if (x->kind == IR_STORE) {
			for (size_t j = 0; j < stores->n; j++)
				if (strcmp(stores->stmts[j]->name, x->name) == 0 &&
				    ir_expr_equal(stores->stmts[j]->index, x->index))
					lift_refuse(c, "two stores to one element under one side of a condition");
			ir_block_add(stores, x);
			continue;
		}
		if (x->kind == IR_LET && !index_arithmetic(x))
			x->value = guarded_select(cond, x->value, ir_expr_new(IR_NUM, "0"));
		else if (x->kind == IR_ASSIGN)
			x->value = guarded_select(cond, x->value, ir_expr_new(IR_LOCAL, x->name));
		else if (x->kind != IR_LET)
			lift_refuse(c, "an atomic or a loop under a condition");
		ir_block_add(out, x);
	}
	free(side->stmts);
	*side = (struct ir_block){ 0 };
}

/* if (c) { A } else { B } in a map, c on indices and scalars only (a border that
 * the kernel treats apart: "if (r == 0 || r == H - 1 ...) { out[i] = in[i]; return;
 * } out[i] = f(...)"): both sides lifted, each made conditional (guard_side), and
 * each element stored on both sides stored once with c ? a : b.  An element
 * stored on one side only keeps its value on the other (c ? a : old), as for a
 * one-sided guard.  Selects keep the map one path: a stencil with its border. */
static void
lift_both(struct ctx *c, const struct ast_expr *cond_ast, struct ast_stmt *const *a, size_t na,
          struct ast_stmt *const *b, size_t nb, enum level lv, struct ir_block *out)
{
	struct ir_expr *cond = lift_truth(c, cond_ast);
	if (!cond)
		return;
	struct ir_expr *not = ir_expr_new(IR_UN, "!");
	ir_expr_add(not, ir_expr_copy(cond));
	struct ir_block side[2] = { { 0 }, { 0 } }, stores[2] = { { 0 }, { 0 } };
	size_t mark = c->n_env, n_stores = c->n_stores;
	stmts_at(c, a, na, lv, &side[0], 1);
	lift_unbind_to(c, mark);
	c->n_stores = n_stores; /* nothing of one side is seen by the other */
	stmts_at(c, b, nb, lv, &side[1], 1);
	lift_unbind_to(c, mark);
	c->n_stores = n_stores;
	guard_side(c, cond, &side[0], out, &stores[0]);
	guard_side(c, not, &side[1], out, &stores[1]);
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < stores[s].n && !c->failed; i++) {
			struct ir_stmt *x = stores[s].stmts[i], *other = NULL;
			if (!x)
				continue;
			for (size_t j = 0; j < stores[1 - s].n && !other; j++)
				if (stores[1 - s].stmts[j] && strcmp(stores[1 - s].stmts[j]->name, x->name) == 0 &&
				    ir_expr_equal(stores[1 - s].stmts[j]->index, x->index)) {
					other = stores[1 - s].stmts[j];
					stores[1 - s].stmts[j] = NULL;
				}
			struct ir_expr *keep;
			if (other) {
				keep = other->value;
				other->value = NULL;
				struct ir_block one = { 0 };
				ir_block_add(&one, other);
				ir_block_free(&one);
			} else {
				keep = ir_expr_new(IR_LOAD, x->name);
				ir_expr_add(keep, ir_expr_copy(x->index));
			}
			struct ir_stmt *let = ir_stmt_new(IR_LET);
			let->name = egg_xasprintf("sel%u_%zu", c->tmp_counter++, c->stage);
			let->type = egg_xstrdup(ir_program_param(c->prog, x->name) ?
			                        ir_program_param(c->prog, x->name)->elem_type : "float");
			let->value = guarded_select(s == 0 ? cond : not, x->value, keep);
			x->value = ir_expr_new(IR_LOCAL, let->name);
			ir_block_add(out, let);
			ir_block_add(out, x);
			stores[s].stmts[i] = NULL;
		}
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < stores[s].n; i++)
			if (stores[s].stmts[i])
				ir_block_add(out, stores[s].stmts[i]); /* (failed: freed with out) */
		free(stores[s].stmts);
	}
	ir_expr_free(cond);
	ir_expr_free(not);
}

/* tail: nothing follows these statements in the kernel, and no loop holds them,
 * so a return in them ends the thread's work and nothing else */
static void
stmts_at(struct ctx *c, struct ast_stmt *const *stmts, size_t n, enum level lv,
         struct ir_block *out, int tail)
{
	for (size_t k = 0; k < n && !c->failed; k++) {
		const struct ast_stmt *s = stmts[k];
		if (s->kind != AST_IF || s->otherwise) {
			lift_stmt(c, s, lv, out);
			continue;
		}
		if (!ends_in_return(s->then) || !tail || lv != LV_ELEMENT) {
			lift_guarded(c, s, NULL, 0, lv, out);
			continue;
		}
		/* if (c) { A; return; } B...  is  if (c) { A } else { B... } */
		struct ast_stmt then = { .kind = AST_BLOCK };
		if (s->then->kind == AST_BLOCK) {
			then.body = s->then->body;
			then.n_body = s->then->n_body - 1;
		}
		struct ast_stmt rest = { .kind = AST_BLOCK, .body = (struct ast_stmt **)stmts + k + 1,
			                 .n_body = n - k - 1 };
		struct ast_stmt branch = { .kind = AST_IF, .expr = s->expr, .then = &then,
			                   .otherwise = k + 1 < n ? &rest : NULL };
		if (then.n_body == 0 && k + 1 < n) {
			/* if (c) return; B...  is  if (!c) { B... } (B... still the tail) */
			struct ast_expr *kid[1] = { s->expr };
			struct ast_expr not = { .kind = AST_UN, .text = (char *)"!", .kids = kid, .n_kids = 1 };
			struct ast_stmt skip = { .kind = AST_IF, .expr = &not, .then = &rest };
			lift_guarded(c, &skip, rest.body, rest.n_body, lv, out);
			return;
		}
		/* (one assignment on each side: lift_if's one select) */
		int single = then.n_body == 1 && rest.n_body == 1;
		struct ir_expr *probe = k + 1 < n && !single && lv == LV_ELEMENT && index_only(s->expr) ?
		                        lift_truth(c, s->expr) : NULL;
		int on_idx = probe && on_indices(out, probe, 0);
		ir_expr_free(probe);
		if (on_idx)
			lift_both(c, s->expr, then.body, then.n_body, rest.body, rest.n_body, lv, out);
		else
			lift_stmt(c, &branch, lv, out);
		return;
	}
}

void
lift_stmts(struct ctx *c, struct ast_stmt *const *stmts, size_t n, enum level lv,
           struct ir_block *out)
{
	stmts_at(c, stmts, n, lv, out, 0);
}

void
lift_tail(struct ctx *c, struct ast_stmt *const *stmts, size_t n, enum level lv,
          struct ir_block *out)
{
	stmts_at(c, stmts, n, lv, out, 1);
}

/* ---- maps over rows * cols, in ROW and COL ---- */

static struct ir_expr *
idx(enum ir_index i)
{
	struct ir_expr *e = ir_expr_new(IR_IDX, NULL);
	e->idx = i;
	return e;
}

/* e with i / cols as ROW, i % cols as COL and any other i as ROW * cols + COL */
static struct ir_expr *
to_2d(const struct ir_expr *e, const struct ir_expr *cols)
{
	if (e->kind == IR_BIN && (strcmp(e->text, "/") == 0 || strcmp(e->text, "%") == 0) &&
	    e->kids[0]->kind == IR_IDX && e->kids[0]->idx == IR_I && ir_expr_equal(e->kids[1], cols))
		return idx(e->text[0] == '/' ? IR_ROW : IR_COL);
	if (e->kind == IR_IDX && e->idx == IR_I)
		return lift_bin("+", lift_bin("*", idx(IR_ROW), ir_expr_copy(cols)), idx(IR_COL));
	struct ir_expr *c = ir_expr_new(e->kind, e->text);
	c->idx = e->idx;
	for (size_t i = 0; i < e->n_kids; i++)
		ir_expr_add(c, to_2d(e->kids[i], cols));
	return c;
}

static int
integral(const char *type)
{
	return !strstr(type, "float") && !strstr(type, "double") && !strstr(type, "half") &&
	       !strstr(type, "bool") && !strstr(type, "bfloat");
}

struct inlined {
	const char *name;
	struct ir_expr *value; /* (type)(value), owned */
};

static struct ir_expr *
inline_locals(const struct ir_expr *e, const struct inlined *v, size_t n)
{
	if (!e)
		return NULL;
	if (e->kind == IR_LOCAL)
		for (size_t i = 0; i < n; i++)
			if (strcmp(v[i].name, e->text) == 0)
				return ir_expr_copy(v[i].value);
	struct ir_expr *c = ir_expr_new(e->kind, e->text);
	c->idx = e->idx;
	for (size_t i = 0; i < e->n_kids; i++)
		ir_expr_add(c, inline_locals(e->kids[i], v, n));
	return c;
}

/* The map's body in ROW and COL with its integer locals inlined, or 0 when i is
 * used otherwise than through i / cols and i % cols or as the flat element. */
static int
body_2d(const struct ir_block *b, const struct ir_expr *cols, struct ir_block *out)
{
	struct inlined *v = egg_xcalloc(b->n + 1, sizeof *v);
	size_t nv = 0;
	int ok = 1;
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *s = b->stmts[i];
		struct ir_expr *val = to_2d(s->value, cols), *ix = s->index ? to_2d(s->index, cols) : NULL;
		struct ir_expr *vv = inline_locals(val, v, nv), *iv = inline_locals(ix, v, nv);
		ir_expr_free(val);
		ir_expr_free(ix);
		if (s->kind == IR_LET && integral(s->type)) {
			struct ir_expr *cast = ir_expr_new(IR_CAST, s->type);
			ir_expr_add(cast, vv);
			v[nv++] = (struct inlined){ s->name, cast };
			continue;
		}
		if (s->kind != IR_LET && s->kind != IR_STORE && s->kind != IR_ASSIGN)
			ok = 0;
		for (size_t j = 0; j < nv && s->kind == IR_ASSIGN; j++)
			if (strcmp(v[j].name, s->name) == 0)
				ok = 0; /* an inlined local changed later: keep the map as it is */
		struct ir_stmt *c = ir_stmt_new(s->kind);
		c->name = egg_xstrdup(s->name);
		c->type = s->type ? egg_xstrdup(s->type) : NULL;
		c->value = vv;
		c->index = iv;
		ir_block_add(out, c);
	}
	for (size_t i = 0; i < nv; i++)
		ir_expr_free(v[i].value);
	free(v);
	return ok;
}

int
lift_map_rows_cols(const struct ir_block *b, const struct ir_expr *cols, struct ir_block *out)
{
	int ok = body_2d(b, cols, out);
	for (size_t i = 0; i < out->n && ok; i++)
		ok = !ir_expr_uses_index(out->stmts[i]->value, IR_I) && !ir_expr_uses_index(out->stmts[i]->index, IR_I);
	return ok;
}

/* What the loads and stores of a 2-D body look like. */
struct visit {
	const struct ir_expr *rows, *cols;
	int loads, stores;                  /* counts */
	int transposed, gathers, bad_store, bad_gather;
	const char *stencil_bad[16];        /* buffers read otherwise than at constant offsets */
	size_t n_stencil_bad;
	const char *stencil_ok[16];         /* buffers read at a non-zero offset */
	size_t n_stencil_ok;
	const char *flat[16], *clamped[16]; /* ... through the flat index, or clamped */
	size_t n_flat, n_clamped;
	int far;                            /* an offset beyond STENCIL_REACH, or too many buffers */
};

#define STENCIL_REACH 4

static void
note(struct visit *v, const char **list, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(list[i], name) == 0)
			return;
	if (*n < 16)
		list[(*n)++] = name;
	else
		v->far = 1; /* not a stencil we can vouch for */
}

static int
listed(const char *const *list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], name) == 0)
			return 1;
	return 0;
}

/* COL, or an integer cast of it (an inlined `int d = i % cols`) */
static int
is_col(const struct ir_expr *e)
{
	while (e->kind == IR_CAST && integral(e->text))
		e = e->kids[0];
	return e->kind == IR_IDX && e->idx == IR_COL;
}

/* A gather's index: A + COL with A free of COL: the side of A, or -1. */
static int
gather_base(const struct ir_expr *ix)
{
	if (ix->kind != IR_BIN || strcmp(ix->text, "+") != 0)
		return -1;
	for (int s = 0; s < 2; s++)
		if (is_col(ix->kids[1 - s]) && !ir_expr_uses_index(ix->kids[s], IR_COL))
			return s;
	return -1;
}

static void
visit_expr(struct visit *v, const struct ir_expr *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n_kids; i++)
		visit_expr(v, e->kids[i]);
	if (e->kind != IR_LOAD)
		return;
	v->loads++;
	const struct ir_expr *ix = e->kids[0];
	if (ir_expr_has_load(ix)) {
		if (gather_base(ix) >= 0)
			v->gathers++;
		else
			v->bad_gather = 1;
		note(v, v->stencil_bad, &v->n_stencil_bad, e->text);
		return;
	}
	struct affine_access a = affine_classify(ix, v->rows, v->cols);
	if (a.kind == AFF_TRANSPOSED)
		v->transposed++;
	if (a.kind != AFF_ROW_MAJOR && a.kind != AFF_CLAMPED) {
		note(v, v->stencil_bad, &v->n_stencil_bad, e->text);
		return;
	}
	if (a.kind == AFF_CLAMPED)
		note(v, v->clamped, &v->n_clamped, e->text);
	else if (a.dr || a.dc)
		note(v, v->flat, &v->n_flat, e->text);
	if (a.dr || a.dc)
		note(v, v->stencil_ok, &v->n_stencil_ok, e->text);
	if (labs(a.dr) > STENCIL_REACH || labs(a.dc) > STENCIL_REACH)
		v->far = 1;
}

static void
visit_block(struct visit *v, const struct ir_block *b)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *s = b->stmts[i];
		visit_expr(v, s->value);
		if (s->kind != IR_STORE)
			continue;
		v->stores++;
		struct affine_access a = affine_classify(s->index, v->rows, v->cols);
		if (a.kind == AFF_TRANSPOSED)
			v->transposed++;
		else if (a.kind != AFF_ROW_MAJOR || a.dr || a.dc)
			v->bad_store = 1;
	}
}

/* Loads in a row-level expression: their indices depend on the row only. */
static int
row_only_loads(const struct ir_expr *e)
{
	if (e->kind == IR_LOAD && ir_expr_uses_index(e->kids[0], IR_COL))
		return 0;
	for (size_t i = 0; i < e->n_kids; i++)
		if (!row_only_loads(e->kids[i]))
			return 0;
	return 1;
}

/* Replaces each gather base by a row-level let (appended to lets). */
static struct ir_expr *
hoist_gathers(struct ir_expr *e, struct ir_block *lets, size_t stage, int *ok)
{
	for (size_t i = 0; i < e->n_kids; i++)
		e->kids[i] = hoist_gathers(e->kids[i], lets, stage, ok);
	if (e->kind != IR_LOAD || !ir_expr_has_load(e->kids[0]))
		return e;
	struct ir_expr *ix = e->kids[0];
	int s = gather_base(ix);
	struct ir_expr *base = ix->kids[s];
	if (!row_only_loads(base)) {
		*ok = 0;
		return e;
	}
	struct ir_stmt *let = NULL;
	for (size_t i = 0; i < lets->n && !let; i++)
		if (ir_expr_equal(lets->stmts[i]->value, base))
			let = lets->stmts[i];
	if (!let) {
		let = ir_stmt_new(IR_LET);
		let->name = egg_xasprintf("base%zu_%zu", lets->n, stage);
		let->type = egg_xstrdup("long long");
		let->value = ir_expr_copy(base);
		ir_block_add(lets, let);
	}
	ir_expr_free(base);
	ix->kids[s] = ir_expr_new(IR_LOCAL, let->name);
	ir_expr_free(ix->kids[1 - s]); /* (int)col is col: col < cols, an int */
	ix->kids[1 - s] = idx(IR_COL);
	return e;
}

/* The row program of a gather: row-level lets, one column loop. */
static void
make_gather(struct ir_stage *st, struct ir_block *body, const struct ir_expr *rows,
            const struct ir_expr *cols, size_t stage, int *ok)
{
	struct ir_block lets = { 0 };
	for (size_t i = 0; i < body->n && *ok; i++) {
		body->stmts[i]->value = hoist_gathers(body->stmts[i]->value, &lets, stage, ok);
		if (body->stmts[i]->index)
			body->stmts[i]->index = hoist_gathers(body->stmts[i]->index, &lets, stage, ok);
	}
	if (!*ok) {
		ir_block_free(&lets);
		return;
	}
	struct ir_stmt *loop = ir_stmt_new(IR_LOOP);
	loop->bound = ir_expr_copy(cols);
	loop->body = *body;
	*body = (struct ir_block){ 0 };
	ir_block_add(&lets, loop);
	struct ir_expr *n = ir_expr_copy(rows); /* rows points into st->n */
	ir_expr_free(st->n);
	st->n = n;
	ir_block_free(&st->body);
	st->body = lets;
	st->kind = IR_STAGE_ROWS;
}

static int
scatter_check(const struct ir_stage *st, struct strbuf *why)
{
	for (size_t i = 0; i < st->body.n; i++) {
		const struct ir_stmt *s = st->body.stmts[i];
		if (s->kind != IR_STORE)
			continue;
		if (ir_expr_has_load(s->index)) {
			strbuf_addf(why, "'%s' is stored at a data-dependent index (a scatter, whose "
			            "elements may collide)", s->name);
			return -1;
		}
		/* (an index let, at = r * cols + c, seen through) */
		struct ir_expr *ix = ir_expr_inline_lets(s->index, &st->body, i);
		int per_thread = ir_expr_uses_index(ix, IR_I);
		ir_expr_free(ix);
		if (!per_thread) {
			strbuf_addf(why, "every thread stores the same element of '%s'", s->name);
			return -1;
		}
		for (size_t j = 0; j < st->body.n; j++)
			if (!ir_expr_loads_only_at(st->body.stmts[j]->value, s->name, s->index)) {
				strbuf_addf(why, "'%s' is read at other elements than the one each thread "
				            "writes (threads would depend on each other)", s->name);
				return -1;
			}
	}
	return 0;
}

/* Tries one split of n into rows * cols; 1 when the stage was rewritten. */
static int
try_split(const struct ir_program *p, struct ir_stage *st, size_t stage,
          const struct ir_expr *rows, const struct ir_expr *cols)
{
	struct ir_block body = { 0 };
	int ok = body_2d(&st->body, cols, &body);
	for (size_t i = 0; i < body.n && ok; i++)
		ok = !ir_expr_uses_index(body.stmts[i]->value, IR_I) &&
		     !ir_expr_uses_index(body.stmts[i]->index, IR_I);
	struct visit v = { .rows = rows, .cols = cols };
	if (ok)
		visit_block(&v, &body);
	ok = ok && !v.bad_store && v.stores > 0;
	enum ir_stage_kind kind = IR_STAGE_MAP;
	if (ok && v.gathers && !v.bad_gather && !v.transposed) {
		make_gather(st, &body, rows, cols, stage, &ok);
		ir_block_free(&body);
		return ok;
	}
	if (ok && v.transposed && !v.gathers && !v.bad_gather)
		kind = IR_STAGE_TRANSPOSE;
	if (ok && kind == IR_STAGE_MAP && !v.transposed && !v.far && v.n_stencil_ok > 0) {
		/* (a buffer the stage also writes was refused by scatter_check) */
		int clean = 1;
		for (size_t i = 0; i < v.n_stencil_ok; i++)
			clean &= !listed(v.stencil_bad, v.n_stencil_bad, v.stencil_ok[i]) &&
			         !(listed(v.flat, v.n_flat, v.stencil_ok[i]) &&
			           listed(v.clamped, v.n_clamped, v.stencil_ok[i]));
		if (clean)
			kind = IR_STAGE_STENCIL;
	}
	if (kind == IR_STAGE_MAP) {
		ir_block_free(&body);
		return 0;
	}
	ir_block_free(&st->body);
	st->body = body;
	st->kind = kind;
	st->dims[0] = ir_expr_copy(rows);
	st->dims[1] = ir_expr_copy(cols);
	return 1;
}

int
lift_2d(struct ir_program *p, struct strbuf *why)
{
	for (size_t k = 0; k < p->n_stages; k++) {
		struct ir_stage *st = &p->stages[k];
		if (st->kind != IR_STAGE_MAP)
			continue;
		if (scatter_check(st, why) != 0)
			return -1;
		const struct ir_expr *n = st->n;
		if (p->is_kernel) /* its geometry is the caller's: the map recipe only */
			continue;
		if (n->kind != IR_BIN || strcmp(n->text, "*") != 0)
			continue;
		int optional_out = 0; /* (its stores guarded by emit.c only: a map's) */
		for (size_t j = 0; j < p->n_params; j++)
			optional_out |= p->params[j].optional && ir_block_touches(&st->body, p->params[j].name, 1);
		if (optional_out)
			continue;
		if (!try_split(p, st, k, n->kids[0], n->kids[1]))
			try_split(p, st, k, n->kids[1], n->kids[0]);
	}
	return 0;
}
