/*
 * lift_copy.c -- device-to-device copies in a launcher (cudaMemcpy(v, u, n *
 * sizeof(float), cudaMemcpyDeviceToDevice)): a map stage v[i] = u[i], and its
 * folding into the stage after it.
 *
 * The shape it serves: a launcher that copies a grid before a kernel that writes
 * only the grid's interior, so that the border of the result is the input's (a
 * Dirichlet border).  The kernel lifts as a stencil over every element whose
 * border keeps the element's value (a select reading v at its own element), and
 * the copy before it is then the value kept: the copy folds into the stencil,
 * whose reads of v read u instead, and one pass remains.  The fold is exact
 * when the next stage covers the copy's elements, each thread storing and
 * reading v only at its own element (so that each element it reads still holds
 * the copy), and it writes no element of u.  Otherwise the copy stays a stage.
 *
 * Ownership: stages and expressions belong to the program (ir.h).
 */
#include "config.h"

#include "builtin/lift/lift.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

void
lift_copy_stage(struct ir_program *p, const char *call, const char *dst, const char *src,
                char *const *factors, size_t n_factors)
{
	const struct ir_param *d = ir_program_param(p, dst);
	struct ir_stage st = { .kind = IR_STAGE_MAP };
	st.kernel = egg_xstrdup(call);
	for (size_t i = 0; i < n_factors; i++) {
		struct ir_expr *f = ir_expr_new(IR_VAR, factors[i]);
		if (i == 0) { /* in size_t, as sizeof made the reference's byte count */
			struct ir_expr *c = ir_expr_new(IR_CAST, "size_t");
			ir_expr_add(c, f);
			f = c;
		}
		if (st.n) {
			struct ir_expr *m = ir_expr_new(IR_BIN, "*");
			ir_expr_add(m, st.n);
			ir_expr_add(m, f);
			f = m;
		}
		st.n = f;
	}
	if (!st.n)
		st.n = ir_expr_new(IR_NUM, "1");
	struct ir_expr *i = ir_expr_new(IR_IDX, NULL);
	i->idx = IR_I;
	struct ir_stmt *let = ir_stmt_new(IR_LET), *store = ir_stmt_new(IR_STORE);
	let->name = egg_xasprintf("copy_%zu", p->n_stages);
	let->type = egg_xstrdup(d ? d->elem_type : "float");
	let->value = ir_expr_new(IR_LOAD, src);
	ir_expr_add(let->value, ir_expr_copy(i));
	store->name = egg_xstrdup(dst);
	store->index = i;
	store->value = ir_expr_new(IR_LOCAL, let->name);
	ir_block_add(&st.body, let);
	ir_block_add(&st.body, store);
	p->stages = egg_xrealloc(p->stages, (p->n_stages + 1) * sizeof *p->stages);
	p->stages[p->n_stages++] = st;
}

/* the copy stage's (dst, src), or 0 when st is none */
static int
is_copy(const struct ir_stage *st, const char **dst, const char **src)
{
	if (st->kind != IR_STAGE_MAP || !st->kernel || strncmp(st->kernel, "cudaMemcpy", 10) != 0 ||
	    st->body.n != 2 || st->body.stmts[0]->kind != IR_LET || st->body.stmts[1]->kind != IR_STORE ||
	    st->body.stmts[0]->value->kind != IR_LOAD)
		return 0;
	*src = st->body.stmts[0]->value->text;
	*dst = st->body.stmts[1]->name;
	return 1;
}

/* a and b are products of the same factors (in any order, integer casts aside) */
static int
same_count(const struct ir_expr *a, const struct ir_expr *b)
{
	const struct ir_expr *fa[8], *fb[8];
	size_t na = 0, nb = 0;
	return ir_expr_factors(a, fa, &na, 8) && ir_expr_factors(b, fb, &nb, 8) &&
	       ir_expr_same_factors(fa, na, fb, nb);
}

/* The element a thread of st owns: i for a map, row * cols + col for a 2-D stage. */
static struct ir_expr *
own_element(const struct ir_stage *st)
{
	struct ir_expr *i = ir_expr_new(IR_IDX, NULL);
	if (st->kind == IR_STAGE_MAP) {
		i->idx = IR_I;
		return i;
	}
	struct ir_expr *col = ir_expr_new(IR_IDX, NULL), *m = ir_expr_new(IR_BIN, "*"), *s = ir_expr_new(IR_BIN, "+");
	i->idx = IR_ROW;
	col->idx = IR_COL;
	ir_expr_add(m, i);
	ir_expr_add(m, ir_expr_copy(st->dims[1]));
	ir_expr_add(s, m);
	ir_expr_add(s, col);
	return s;
}

/* Whether st (no loops) stores dst at its own element and nowhere else, reads it
 * only there (as the store spells it) and only before that store, and writes no
 * element of src. */
static int
keeps_the_copy(const struct ir_stage *st, const char *dst, const char *src)
{
	struct ir_expr *own = own_element(st), *at = NULL;
	int ok = 1;
	for (size_t i = 0; i < st->body.n && ok; i++) {
		const struct ir_stmt *s = st->body.stmts[i];
		if (s->kind == IR_LOOP || (s->kind == IR_ACC && s->into_buffer) ||
		    (s->kind == IR_STORE && strcmp(s->name, src) == 0))
			ok = 0;
		else if (s->kind == IR_STORE && strcmp(s->name, dst) == 0 && !at)
			at = ir_expr_inline_lets(s->index, &st->body, i);
		else if (s->kind == IR_STORE && strcmp(s->name, dst) == 0)
			ok = 0; /* stored twice */
	}
	ok = ok && at && ir_expr_equal_index(at, own);
	int stored = 0;
	for (size_t i = 0; i < st->body.n && ok; i++) {
		const struct ir_stmt *s = st->body.stmts[i];
		if (ir_expr_loads(s->value, dst)) {
			struct ir_expr *v = ir_expr_inline_lets(s->value, &st->body, i);
			ok = !stored && ir_expr_loads_only_at(v, dst, at);
			ir_expr_free(v);
		}
		stored |= s->kind == IR_STORE && strcmp(s->name, dst) == 0;
	}
	ir_expr_free(own);
	ir_expr_free(at);
	return ok;
}

static void
reread(struct ir_expr *e, const char *dst, const char *src)
{
	if (!e)
		return;
	if (e->kind == IR_LOAD && strcmp(e->text, dst) == 0) {
		free(e->text);
		e->text = egg_xstrdup(src);
	}
	for (size_t i = 0; i < e->n_kids; i++)
		reread(e->kids[i], dst, src);
}

void
lift_fold_copies(struct ir_program *p)
{
	size_t k = 0;
	while (k + 1 < p->n_stages) {
		const char *dst, *src;
		struct ir_stage *copy = &p->stages[k], *next = &p->stages[k + 1];
		if (!is_copy(copy, &dst, &src) || (next->kind != IR_STAGE_MAP && next->kind != IR_STAGE_STENCIL) ||
		    !same_count(copy->n, next->n) || !keeps_the_copy(next, dst, src)) {
			k++;
			continue;
		}
		for (size_t i = 0; i < next->body.n; i++)
			reread(next->body.stmts[i]->value, dst, src);
		free(copy->kernel);
		ir_expr_free(copy->n);
		ir_block_free(&copy->body);
		memmove(p->stages + k, p->stages + k + 1, (p->n_stages - k - 1) * sizeof *p->stages);
		p->n_stages--;
	}
}
