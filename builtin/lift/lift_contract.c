/*
 * lift_contract.c -- recognises dense contractions (GEMM-like kernels) and lifts
 * them into an IR_STAGE_CONTRACT stage (ir.h).
 *
 * The shape: a thread per output, its indices a row and a column (the global
 * thread index in y and x, or blockIdx.y for the row) and optionally a batch
 * (blockIdx.z), a guard bounding them (if (r < M && c < N) {...} or
 * if (r >= M || c >= N) return;), and in the guarded body one loop
 * for (k = 0; k < K; k++) acc += X[..] * Y[..]; between straight-line code:
 * before it the accumulator's initial value (0, a bias, ...), after it the
 * epilogue (scaling, bias, activation, residual, the store).  The operands'
 * element indices must be affine in (batch, row or column, k): one operand
 * follows the row (A), the other the column (B); their strides say the layout
 * (row- or column-major, a transposed weight) and the batch offsets.
 *
 * The k loop may hold a second one, for (ki = 0; ki < KI; ki++), after local
 * declarations (pointers to the rows the inner loop reads): the two are one k of
 * K * KI (a convolution over channels and taps).  A row index of blockIdx.y
 * without a guard takes its extent from the launch's grid.
 *
 * lift_contract answers 1 ("not mine") for anything without that frame, so the
 * other recognisers and the row/map lifter still see the kernel; it answers -1
 * with a reason when the frame is there but the details are not a contraction
 * (a data-dependent index, a second accumulator), and 0 with the stage added.
 */
#include "config.h"

#include "builtin/lift/lift_internal.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

enum role { R_NONE, R_ROW, R_COL, R_BATCH, N_ROLES };

struct frame {
	const char *name[N_ROLES];
	const struct ast_expr *bound[N_ROLES];
	const char *flat;            /* a 1-D index split as row = flat / cols, col = flat % cols */
	const struct ast_expr *cols;
	/* or in three: col = flat % cols, row = (flat / cols) % rows, batch =
	 * flat / (cols * rows) (or flat / cols / rows): the batch's divisors */
	const struct ast_expr *rows, *bdiv[2];
	int row_block;               /* the row is blockIdx.y: gridDim.y bounds it */
};

static enum role
index_role(const struct ast_expr *init)
{
	if (!init)
		return R_NONE;
	if (ast_is_global_index(init, "x"))
		return R_COL;
	if (ast_is_global_index(init, "y") || ast_is_member(init, "blockIdx", "y"))
		return R_ROW;
	if (ast_is_member(init, "blockIdx", "z"))
		return R_BATCH;
	return R_NONE;
}

/* The "v < E" terms of an && chain (neg: the "v >= E" terms of an || chain). */
static int
guard_terms(struct frame *f, const struct ast_expr *e, int neg)
{
	if (e->kind != AST_BIN)
		return 0;
	if (strcmp(e->text, neg ? "||" : "&&") == 0)
		return guard_terms(f, e->kids[0], neg) && guard_terms(f, e->kids[1], neg);
	const char *lt = neg ? ">=" : "<", *gt = neg ? "<=" : ">";
	for (int s = 0; s < 2; s++) {
		const struct ast_expr *v = ast_strip_casts(e->kids[s]);
		if (strcmp(e->text, s == 0 ? lt : gt) != 0 || v->kind != AST_NAME)
			continue;
		for (int r = R_ROW; r < N_ROLES; r++)
			if (f->name[r] && strcmp(f->name[r], v->text) == 0 && !f->bound[r]) {
				f->bound[r] = e->kids[1 - s];
				return 1;
			}
	}
	return 0;
}


/* ---- affine forms over (batch, row, col, k) ---- */

enum { V_I, V_ROW, V_COL, V_K, V_KO, V_KI, N_VARS };
#define K_VAR "egg_k"
#define KO_VAR "egg_ko" /* nested loops: k / kin */
#define KI_VAR "egg_ki" /* and k % kin */

struct affine {
	struct ir_expr *coef[N_VARS]; /* NULL: zero */
	struct ir_expr *c;
};

static void
affine_free(struct affine *a)
{
	for (int v = 0; v < N_VARS; v++)
		ir_expr_free(a->coef[v]);
	ir_expr_free(a->c);
	memset(a, 0, sizeof *a);
}

static int
var_of(const struct ir_expr *e)
{
	if (e->kind == IR_IDX)
		return e->idx == IR_I ? V_I : e->idx == IR_ROW ? V_ROW : V_COL;
	if (e->kind == IR_VAR && strcmp(e->text, K_VAR) == 0)
		return V_K;
	if (e->kind == IR_VAR && strcmp(e->text, KO_VAR) == 0)
		return V_KO;
	if (e->kind == IR_VAR && strcmp(e->text, KI_VAR) == 0)
		return V_KI;
	return -1;
}

static int
mentions_var(const struct ir_expr *e)
{
	if (var_of(e) >= 0)
		return 1;
	for (size_t i = 0; i < e->n_kids; i++)
		if (mentions_var(e->kids[i]))
			return 1;
	return 0;
}

static int
is_one(const struct ir_expr *e)
{
	return e && e->kind == IR_NUM && strcmp(e->text, "1") == 0;
}

/* a * b (owned); NULL is zero */
static struct ir_expr *
times(struct ir_expr *a, struct ir_expr *b)
{
	if (!a || !b) {
		ir_expr_free(a);
		ir_expr_free(b);
		return NULL;
	}
	if (is_one(a)) {
		ir_expr_free(a);
		return b;
	}
	if (is_one(b)) {
		ir_expr_free(b);
		return a;
	}
	return lift_bin("*", a, b);
}

/* a op b (owned; op "+" or "-"); NULL is zero */
static struct ir_expr *
plus(const char *op, struct ir_expr *a, struct ir_expr *b)
{
	if (!b)
		return a;
	if (!a)
		return *op == '+' ? b : lift_bin("-", ir_expr_new(IR_NUM, "0"), b);
	return lift_bin(op, a, b);
}

static int
affine(const struct ir_expr *e, struct affine *out)
{
	memset(out, 0, sizeof *out);
	int v = var_of(e);
	if (v >= 0) {
		out->coef[v] = ir_expr_new(IR_NUM, "1");
		return 1;
	}
	if (!mentions_var(e)) {
		if (ir_expr_has_load(e))
			return 0;
		out->c = ir_expr_copy(e);
		return 1;
	}
	if (e->kind == IR_CAST && !strstr(e->text, "float") && !strstr(e->text, "double"))
		return affine(e->kids[0], out);
	if (e->kind != IR_BIN)
		return 0;
	struct affine l, r;
	if (strcmp(e->text, "+") == 0 || strcmp(e->text, "-") == 0) {
		if (!affine(e->kids[0], &l))
			return 0;
		if (!affine(e->kids[1], &r)) {
			affine_free(&l);
			return 0;
		}
		for (int i = 0; i < N_VARS; i++)
			out->coef[i] = plus(e->text, l.coef[i], r.coef[i]);
		out->c = plus(e->text, l.c, r.c);
		return 1;
	}
	if (strcmp(e->text, "*") != 0)
		return 0;
	for (int s = 0; s < 2; s++) {
		const struct ir_expr *f = e->kids[1 - s];
		if (mentions_var(f) || ir_expr_has_load(f))
			continue;
		if (!affine(e->kids[s], &l))
			return 0;
		for (int i = 0; i < N_VARS; i++)
			out->coef[i] = times(l.coef[i], l.coef[i] ? ir_expr_copy(f) : NULL);
		out->c = times(l.c, l.c ? ir_expr_copy(f) : NULL);
		return 1;
	}
	return 0;
}

static const struct ir_expr *
strip_float_casts(const struct ir_expr *e)
{
	while (e->kind == IR_CAST && strstr(e->text, "float"))
		e = e->kids[0];
	return e;
}

/* ---- the stage ---- */

struct parts {
	struct ir_block pre, loop, post;
	const char *kname;
	const struct ast_expr *kbound;
	/* nested loops: the inner one, its index and trip count, and the outer
	 * loop's statements before it */
	const struct ast_stmt *inner;
	const char *iname;
	const struct ast_expr *ibound;
	const struct ast_stmt **head;
	size_t n_head;
	struct ir_expr *kin; /* the inner trip count, lifted */
};

static void
parts_free(struct parts *pt)
{
	ir_block_free(&pt->pre);
	ir_block_free(&pt->loop);
	ir_block_free(&pt->post);
	free(pt->head);
	ir_expr_free(pt->kin);
}

/* The operand of one load: 0, or -1 (why set) / 1 (not a contraction). */
static int
operand(struct ctx *c, const struct ir_expr *load, const struct parts *pt, struct ir_operand *o,
        int *side)
{
	struct ir_expr *ix = ir_expr_inline_lets(load->kids[0], &pt->pre, pt->pre.n);
	struct affine a;
	int ok = affine(ix, &a);
	ir_expr_free(ix);
	if (!ok) {
		lift_refuse(c, "an operand of the product ('%s') whose index is not affine in the "
		            "output's indices and k (a gather or a data-dependent index)", load->text);
		return -1;
	}
	int rc = 1;
	if ((a.coef[V_K] || a.coef[V_KO] || a.coef[V_KI]) && !a.coef[V_ROW] != !a.coef[V_COL]) {
		*side = a.coef[V_ROW] ? V_ROW : V_COL;
		o->buffer = egg_xstrdup(load->text);
		o->off = a.c;
		o->batch_stride = a.coef[V_I];
		o->outer = a.coef[*side];
		o->inner = a.coef[V_K];
		a.c = a.coef[V_I] = a.coef[*side] = a.coef[V_K] = NULL;
		if (pt->kin) {
			/* ko * (kin * s) + ki * s is k * s; anything else is split */
			struct ir_expr *whole = a.coef[V_KI] ? times(ir_expr_copy(pt->kin), ir_expr_copy(a.coef[V_KI])) : NULL;
			if (whole && a.coef[V_KO] && ir_expr_equal(whole, a.coef[V_KO])) {
				o->inner = a.coef[V_KI];
			} else {
				o->split = 1;
				o->kouter = a.coef[V_KO];
				o->inner = a.coef[V_KI];
				a.coef[V_KO] = NULL;
			}
			a.coef[V_KI] = NULL;
			ir_expr_free(whole);
		}
		rc = 0;
	}
	affine_free(&a);
	return rc;
}

static int
block_stores(const struct ir_block *b, const char *buffer)
{
	for (size_t i = 0; i < b->n; i++)
		if ((b->stmts[i]->kind == IR_STORE || b->stmts[i]->kind == IR_ACC) &&
		    (!buffer || strcmp(b->stmts[i]->name, buffer) == 0))
			return 1;
	return 0;
}

/* An extent, with the row-level locals before the loop replaced by their values
 * (int out_len = L - 2; ... if (t < out_len)) */
static int
bound_expr(struct ctx *c, const struct ast_expr *e, const struct parts *pt, struct ir_expr **out)
{
	struct ir_expr *x = lift_expr(c, e);
	*out = x ? ir_expr_inline_lets(x, &pt->pre, pt->pre.n) : NULL;
	ir_expr_free(x);
	if (*out && (ir_expr_has_load(*out) || mentions_var(*out) || ir_expr_has_local(*out))) {
		lift_refuse(c, "a contraction whose extent depends on the data or on the output index");
		return -1;
	}
	return *out ? 0 : -1;
}

/* Builds the stage from the lifted parts: 0, -1 (c->failed) or 1. */
static int
build(struct ctx *c, struct frame *f, struct parts *pt, const char *grid_y, const char *grid_z,
      struct ir_stage *st)
{
	const struct ir_stmt *acc = NULL;
	for (size_t i = 0; i < pt->loop.n; i++) {
		const struct ir_stmt *s = pt->loop.stmts[i];
		if (s->kind == IR_LET)
			continue;
		if (s->kind != IR_ACC || acc || s->into_buffer || s->combine != IR_SUM)
			return 1; /* not a single sum of products: some other loop */
		acc = s;
	}
	if (!acc)
		return 1;
	size_t at;
	for (at = 0; at < pt->pre.n; at++)
		if (pt->pre.stmts[at]->kind == IR_LET && strcmp(pt->pre.stmts[at]->name, acc->name) == 0)
			break;
	if (at == pt->pre.n || block_stores(&pt->pre, NULL) || !block_stores(&pt->post, NULL))
		return 1;
	for (size_t i = at + 1; i < pt->pre.n; i++)
		if (pt->pre.stmts[i]->kind == IR_ASSIGN && strcmp(pt->pre.stmts[i]->name, acc->name) == 0)
			return 1;
	struct ir_expr *v = ir_expr_inline_lets(acc->value, &pt->loop, pt->loop.n);
	const struct ir_expr *prod = strip_float_casts(v);
	int rc = 1;
	struct ir_contract *k = egg_xcalloc(1, sizeof *k);
	if (prod->kind == IR_BIN && strcmp(prod->text, "*") == 0 &&
	    strip_float_casts(prod->kids[0])->kind == IR_LOAD &&
	    strip_float_casts(prod->kids[1])->kind == IR_LOAD) {
		struct ir_operand o[2] = { { 0 }, { 0 } };
		int side[2] = { -1, -1 };
		rc = operand(c, strip_float_casts(prod->kids[0]), pt, &o[0], &side[0]);
		if (rc == 0)
			rc = operand(c, strip_float_casts(prod->kids[1]), pt, &o[1], &side[1]);
		if (rc == 0 && side[0] == side[1])
			rc = 1;
		int ai = side[0] == V_ROW ? 0 : 1;
		k->a = o[ai]; /* freed with k when rc != 0 */
		k->b = o[1 - ai];
	}
	ir_expr_free(v);
	if (rc == 0 && (block_stores(&pt->post, k->a.buffer) || block_stores(&pt->post, k->b.buffer))) {
		lift_refuse(c, "a contraction that writes one of its operands");
		rc = -1;
	}
	if (rc == 0 && !f->bound[R_ROW])
		k->m = ir_expr_new(IR_VAR, grid_y); /* one row per blockIdx.y */
	if (rc == 0 && ((f->bound[R_ROW] && bound_expr(c, f->bound[R_ROW], pt, &k->m)) ||
	                bound_expr(c, f->bound[R_COL], pt, &k->n) || bound_expr(c, pt->kbound, pt, &k->k)))
		rc = -1;
	if (rc == 0 && pt->kin) {
		k->kin = ir_expr_copy(pt->kin);
		k->k = lift_bin("*", k->k, ir_expr_copy(pt->kin));
	}
	if (rc == 0 && f->name[R_BATCH]) {
		if (f->bound[R_BATCH])
			rc = bound_expr(c, f->bound[R_BATCH], pt, &k->batch);
		else
			k->batch = ir_expr_new(IR_VAR, grid_z);
	}
	if (rc != 0) {
		ir_contract_free(k);
		return rc;
	}
	struct ir_stmt *let = pt->pre.stmts[at];
	k->acc = egg_xstrdup(let->name);
	k->acc_type = egg_xstrdup(let->type);
	k->init = ir_expr_copy(let->value);
	/* the epilogue: the row-level code before the loop (less the accumulator) and after it */
	for (size_t i = 0; i < pt->pre.n; i++)
		if (i != at)
			ir_block_add(&st->body, pt->pre.stmts[i]);
	for (size_t i = 0; i < pt->post.n; i++)
		ir_block_add(&st->body, pt->post.stmts[i]);
	struct ir_block gone = { 0 };
	ir_block_add(&gone, let);
	ir_block_free(&gone);
	free(pt->pre.stmts);
	free(pt->post.stmts);
	pt->pre = (struct ir_block){ 0 };
	pt->post = (struct ir_block){ 0 };
	st->n = k->batch ? lift_bin("*", ir_expr_copy(k->batch), lift_bin("*", ir_expr_copy(k->m), ir_expr_copy(k->n)))
	                 : lift_bin("*", ir_expr_copy(k->m), ir_expr_copy(k->n));
	st->contract = k;
	return 0;
}

/* The guarded body's statements, in order. */
static void
flatten(const struct ast_stmt *s, const struct ast_stmt ***out, size_t *n)
{
	if (s->kind == AST_BLOCK) {
		for (size_t i = 0; i < s->n_body; i++)
			flatten(s->body[i], out, n);
		return;
	}
	*out = egg_xrealloc(*out, (*n + 1) * sizeof **out);
	(*out)[(*n)++] = s;
}

static int
is_leaf(const struct ast_expr *x)
{
	return x->kind == AST_NAME || x->kind == AST_NUM;
}

/* x is a name or number, the same as *slot or the first one there */
static int
same_leaf(const struct ast_expr **slot, const struct ast_expr *x)
{
	x = ast_strip_casts(x);
	if (!is_leaf(x) || (*slot && strcmp((*slot)->text, x->text) != 0))
		return 0;
	*slot = x;
	return 1;
}

static int
is_flat(const struct frame *f, const struct ast_expr *v)
{
	v = ast_strip_casts(v);
	return v->kind == AST_NAME && strcmp(v->text, f->flat) == 0;
}

static int
is_op(const struct ast_expr *e, const char *op)
{
	return e && e->kind == AST_BIN && strcmp(e->text, op) == 0;
}

/* NAME = flat / C or flat % C: the row or the column of a 1-D index; or of three
 * digits, NAME = (flat / C) % R (the row) or flat / (C * R), flat / C / R (the
 * batch) */
static int
flat_part(struct frame *f, const struct ast_stmt *s)
{
	if (!f->flat || s->kind != AST_DECL || s->n_decls != 1)
		return 0;
	const struct ast_expr *e = ast_strip_casts(s->decls[0].init);
	if (!is_op(e, "/") && !is_op(e, "%"))
		return 0;
	const struct ast_expr *v = ast_strip_casts(e->kids[0]), *x = ast_strip_casts(e->kids[1]);
	enum role r = R_NONE;
	if (is_flat(f, v) && is_leaf(x)) {
		if (!same_leaf(&f->cols, x))
			return 0;
		r = *e->text == '/' ? R_ROW : R_COL;
	} else if (is_op(v, "/") && is_flat(f, v->kids[0])) {
		/* (flat / C) % R or (flat / C) / R */
		if (*e->text == '%') {
			if (!same_leaf(&f->cols, v->kids[1]) || !same_leaf(&f->rows, x))
				return 0;
			r = R_ROW;
		} else {
			f->bdiv[0] = ast_strip_casts(v->kids[1]);
			f->bdiv[1] = x;
			r = R_BATCH;
		}
	} else if (*e->text == '/' && is_flat(f, v) && is_op(x, "*")) {
		f->bdiv[0] = ast_strip_casts(x->kids[0]); /* flat / (C * R) */
		f->bdiv[1] = ast_strip_casts(x->kids[1]);
		r = R_BATCH;
	}
	if (r == R_NONE || (f->name[r] && f->name[r] != f->flat))
		return 0;
	f->name[r] = s->decls[0].name;
	return 1;
}

/* The factors of a product of names and numbers (at most 8), or 0 */
static size_t
factors(const struct ast_expr *e, const struct ast_expr **out, size_t n)
{
	e = ast_strip_casts(e);
	if (is_op(e, "*")) {
		size_t a = factors(e->kids[0], out, n);
		return a ? factors(e->kids[1], out, a) : 0;
	}
	if (!is_leaf(e) || n == 8)
		return 0;
	out[n] = e;
	return n + 1;
}

/* Takes a factor spelled like x out of the list: 1 when it was there */
static int
take_factor(const struct ast_expr **fs, size_t *n, const struct ast_expr *x)
{
	for (size_t i = 0; x && i < *n; i++)
		if (strcmp(fs[i]->text, x->text) == 0) {
			fs[i] = fs[--*n];
			return 1;
		}
	return 0;
}

/* if (flat < B * R * C) with the three digits: the batch's extent B, exactly
 * what is left of the bound after R and C (a name declared before the guard is
 * read through its value); 0 or 1 */
static int
three_digits(struct frame *f, const struct ast_expr *bound, const struct ast_stmt **pre, size_t n_pre)
{
	const struct ast_expr *b = ast_strip_casts(bound);
	for (size_t i = n_pre; b && b->kind == AST_NAME && i-- > 0;)
		if (pre[i]->kind == AST_DECL && pre[i]->n_decls == 1 && strcmp(pre[i]->decls[0].name, b->text) == 0)
			b = ast_strip_casts(pre[i]->decls[0].init);
	const struct ast_expr *fs[8], *d[2] = { f->bdiv[0], f->bdiv[1] };
	size_t n = b ? factors(b, fs, 0) : 0;
	if (!f->rows || !f->cols || !take_factor(d, &(size_t){ 2 }, f->cols) ||
	    strcmp(d[0]->text, f->rows->text) != 0 || !take_factor(fs, &n, f->rows) ||
	    !take_factor(fs, &n, f->cols) || n != 1)
		return 1;
	f->bound[R_BATCH] = fs[0];
	f->bound[R_ROW] = f->rows;
	return 0;
}

/* The k loop's body as a nest: declarations, then one inner loop counting from 0
 * by 1 whose body has no loop; 0 with pt's nest filled, or 1. */
static int
nest(const struct ast_stmt *outer, struct parts *pt)
{
	const struct ast_stmt **body = NULL;
	size_t n = 0;
	flatten(outer->then, &body, &n);
	int ok = n > 0 && (pt->iname = lift_counting_loop(body[n - 1], &pt->ibound)) && !ast_has_loop(body[n - 1]->then);
	for (size_t i = 0; ok && i + 1 < n; i++)
		ok = body[i]->kind == AST_DECL && !ast_has_loop(body[i]);
	if (!ok) {
		free(body);
		return 1;
	}
	pt->inner = body[n - 1];
	pt->head = body;
	pt->n_head = n - 1;
	return 0;
}

/* The frame: index declarations, the guard, the statements it guards; 0 or 1. */
static int
find_frame(const struct ast_function *k, struct frame *f, const struct ast_stmt ***pre,
           size_t *n_pre, const struct ast_stmt ***inner, size_t *n_inner)
{
	const struct ast_stmt *body = k->body;
	size_t i = 0;
	for (; i < body->n_body; i++) {
		const struct ast_stmt *s = body->body[i];
		if (s->kind != AST_DECL || ast_has_loop(s))
			break;
		if (flat_part(f, s))
			continue;
		for (size_t d = 0; d < s->n_decls; d++) {
			enum role r = index_role(s->decls[d].init);
			if (r != R_NONE && f->name[r])
				return 1;
			f->name[r] = s->decls[d].name;
			if (r == R_ROW)
				f->row_block = ast_is_member(s->decls[d].init, "blockIdx", "y");
			if (r == R_COL)
				f->flat = s->decls[d].name;
		}
		if (s->n_decls != 1 || index_role(s->decls[0].init) == R_NONE)
			flatten(s, pre, n_pre);
	}
	f->name[R_NONE] = NULL;
	if (!f->name[R_COL] || i == body->n_body)
		return 1;
	const struct ast_stmt *g = body->body[i];
	if (g->kind != AST_IF || g->otherwise)
		return 1;
	size_t first = 0;
	int pending = f->name[R_COL] == f->flat && !f->name[R_ROW]; /* a 1-D index, not yet split */
	if (!pending && !f->cols)
		f->flat = NULL;
	if (ast_is_bare_return(g->then)) {
		if (!guard_terms(f, g->expr, 1))
			return 1;
		for (size_t j = i + 1; j < body->n_body; j++)
			flatten(body->body[j], inner, n_inner);
	} else {
		if (i + 1 != body->n_body || !guard_terms(f, g->expr, 0))
			return 1;
		flatten(g->then, inner, n_inner);
	}
	if (pending) {
		/* if (flat < M * C) { int r = flat / C; int c = flat % C; ... } */
		const struct ast_expr *flat_bound = f->bound[R_COL];
		while (first < *n_inner && flat_part(f, (*inner)[first]))
			first++;
		const struct ast_expr *e = ast_strip_casts(flat_bound);
		if (f->name[R_COL] != f->flat && f->name[R_ROW] && f->name[R_BATCH] && e) {
			if (three_digits(f, e, *pre, *n_pre) != 0)
				return 1;
		} else if (f->name[R_COL] == f->flat || !f->name[R_ROW] || f->name[R_BATCH] || f->rows || !e ||
		           e->kind != AST_BIN || strcmp(e->text, "*") != 0) {
			return 1;
		}
		for (int s = 0; s < 2 && !f->bound[R_ROW]; s++) {
			const struct ast_expr *x = ast_strip_casts(e->kids[s]);
			if ((x->kind == AST_NAME || x->kind == AST_NUM) && strcmp(x->text, f->cols->text) == 0)
				f->bound[R_ROW] = e->kids[1 - s];
		}
		f->bound[R_COL] = f->cols;
		memmove(*inner, *inner + first, (*n_inner - first) * sizeof **inner);
		*n_inner -= first;
	}
	return f->name[R_ROW] && (f->bound[R_ROW] || f->row_block) && f->bound[R_COL] ? 0 : 1;
}

int
lift_contract(struct ir_program *p, const struct ast_unit *u, const struct ast_function *k,
              const struct lift_arg *args, size_t n_args, char *const *grid, struct strbuf *why)
{
	struct frame f;
	memset(&f, 0, sizeof f);
	const struct ast_stmt **pre = NULL, **inner = NULL;
	size_t n_pre = 0, n_inner = 0, loop_at = 0, n_loops = 0;
	int rc = find_frame(k, &f, &pre, &n_pre, &inner, &n_inner);
	for (size_t i = 0; rc == 0 && i < n_inner; i++)
		if (ast_has_loop(inner[i]))
			n_loops++, loop_at = i;
	struct parts pt = { 0 };
	if (rc == 0 && (n_loops != 1 || !(pt.kname = lift_counting_loop(inner[loop_at], &pt.kbound)) ||
	                (ast_has_loop(inner[loop_at]->then) && nest(inner[loop_at], &pt) != 0)))
		rc = 1;
	if (rc == 0 && f.name[R_BATCH] && !f.bound[R_BATCH] && !grid[2]) {
		strbuf_addstr(why, "a batch index (blockIdx.z) without a bound or a launch grid that gives it");
		rc = -1;
	}
	if (rc == 0 && !f.bound[R_ROW] && !grid[1]) {
		strbuf_addstr(why, "a row index (blockIdx.y) without a bound or a launch grid that gives it");
		rc = -1;
	}
	struct ctx c = { .prog = p, .unit = u, .stage = p->n_stages, .why = why };
	struct ir_stage st = { 0 };
	if (rc == 0) {
		for (size_t i = 0; i < n_args; i++) {
			struct binding *b = lift_bind(&c, args[i].param, args[i].buffer ? B_BUFFER : B_SCALAR);
			b->buffer = args[i].buffer;
			if (!args[i].buffer)
				b->expr = ir_expr_new(IR_VAR, args[i].scalar);
		}
		static const enum ir_index idx[N_ROLES] = { IR_I, IR_ROW, IR_COL, IR_I };
		for (int r = R_ROW; r < N_ROLES; r++)
			if (f.name[r])
				lift_bind(&c, f.name[r], B_INDEX)->idx = idx[r];
		for (size_t i = 0; i < n_pre; i++)
			lift_stmt(&c, pre[i], LV_ROW, &pt.pre);
		if (f.cols && !c.failed) { /* the flat index is (batch * rows + row) * cols + col again */
			struct ir_expr *row = ir_expr_new(IR_IDX, NULL), *col = ir_expr_new(IR_IDX, NULL);
			row->idx = IR_ROW;
			col->idx = IR_COL;
			if (f.rows) {
				struct ir_expr *b = ir_expr_new(IR_IDX, NULL), *rows = lift_expr(&c, f.rows);
				b->idx = IR_I;
				row = rows ? lift_bin("+", lift_bin("*", b, rows), row) : (ir_expr_free(b), row);
			}
			struct ir_expr *cols = lift_expr(&c, f.cols);
			lift_bind(&c, f.flat, B_SCALAR)->expr =
				cols ? lift_bin("+", lift_bin("*", row, cols), col) : (ir_expr_free(row), col);
		}
		for (size_t i = 0; i < loop_at; i++)
			lift_stmt(&c, inner[i], LV_ROW, &pt.pre);
		size_t mark = c.n_env;
		lift_bind(&c, pt.kname, B_SCALAR)->expr = ir_expr_new(IR_VAR, pt.inner ? KO_VAR : K_VAR);
		if (pt.inner) {
			for (size_t i = 0; i < pt.n_head; i++)
				lift_stmt(&c, pt.head[i], LV_COL, &pt.loop);
			if (!c.failed && bound_expr(&c, pt.ibound, &pt, &pt.kin) == 0) {
				lift_bind(&c, pt.iname, B_SCALAR)->expr = ir_expr_new(IR_VAR, KI_VAR);
				lift_stmt(&c, pt.inner->then, LV_COL, &pt.loop);
			}
		} else {
			lift_stmt(&c, inner[loop_at]->then, LV_COL, &pt.loop);
		}
		lift_unbind_to(&c, mark);
		for (size_t i = loop_at + 1; i < n_inner; i++)
			lift_stmt(&c, inner[i], LV_ROW, &pt.post);
		if (!c.failed && c.has_atomic)
			lift_refuse(&c, "atomics in a contraction");
		rc = c.failed ? -1 : build(&c, &f, &pt, grid[1], grid[2], &st);
		if (rc == -1 && !c.failed)
			lift_refuse(&c, "not a contraction");
	}
	lift_unbind_to(&c, 0);
	free(c.env);
	free(c.stores);
	parts_free(&pt);
	free(pre);
	free(inner);
	if (rc != 0) {
		ir_block_free(&st.body);
		return rc;
	}
	st.kind = IR_STAGE_CONTRACT;
	st.kernel = egg_xstrdup(k->name);
	p->stages = egg_xrealloc(p->stages, (p->n_stages + 1) * sizeof *p->stages);
	p->stages[p->n_stages++] = st;
	return 0;
}
