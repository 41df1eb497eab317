/*
 * fuse.c -- fusion across families: an element-wise map that fills a temp
 * buffer read by the row program launched right after it is folded into that
 * row program (each read of the buffer becomes the map's expression at that
 * element), so the temp is neither written nor read back: two passes over the
 * data saved.  When the map's buffer is an output (a residual stream both kept
 * and normalized), the row program also stores it, once per element, in its
 * first loop, and still never reads it back.
 *
 * The other way round, a map over rows * C that follows a row program over the
 * same rows and reads what it stored per row (the mean and inverse deviation of
 * a norm written as a statistics kernel and an apply kernel) becomes one more
 * column loop of the row program, the per-row values read from its registers:
 * the data is read while the row is at hand, and a temp nothing else reads is
 * no longer stored.
 *
 * Runs on the lifted program before the recipes see it; a program that does
 * not fit is left as it is.
 */
#include "config.h"

#include "builtin/lift/fuse.h"
#include "builtin/lift/lift.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

/* f with the flat index replaced by at; (row * C + col) % C is col when the
 * loop runs col < C, and (row * C + col) / C is row then. */
static struct ir_expr *
substitute(const struct ir_expr *f, const struct ir_expr *at, const struct ir_expr *bound)
{
	if (f->kind == IR_IDX && f->idx == IR_I)
		return ir_expr_copy(at);
	struct ir_expr *c = ir_expr_new(f->kind, f->text);
	c->idx = f->idx;
	for (size_t i = 0; i < f->n_kids; i++)
		ir_expr_add(c, substitute(f->kids[i], at, bound));
	if (bound && c->kind == IR_BIN && (strcmp(c->text, "%") == 0 || strcmp(c->text, "/") == 0) &&
	    ir_expr_equal(c->kids[1], bound)) {
		const struct ir_expr *s = c->kids[0];
		if (s->kind == IR_BIN && strcmp(s->text, "+") == 0 && s->kids[1]->kind == IR_IDX &&
		    s->kids[1]->idx == IR_COL && s->kids[0]->kind == IR_BIN &&
		    strcmp(s->kids[0]->text, "*") == 0 && s->kids[0]->kids[0]->kind == IR_IDX &&
		    s->kids[0]->kids[0]->idx == IR_ROW && ir_expr_equal(s->kids[0]->kids[1], bound)) {
			struct ir_expr *r = ir_expr_copy(c->text[0] == '%' ? s->kids[1] : s->kids[0]->kids[0]);
			ir_expr_free(c);
			return r;
		}
	}
	return c;
}

/* Replaces every load of buffer in e by f at its index. */
static struct ir_expr *
replace_loads(struct ir_expr *e, const char *buffer, const struct ir_expr *f,
              const struct ir_expr *bound)
{
	for (size_t i = 0; i < e->n_kids; i++)
		e->kids[i] = replace_loads(e->kids[i], buffer, f, bound);
	if (e->kind != IR_LOAD || strcmp(e->text, buffer) != 0)
		return e;
	struct ir_expr *r = substitute(f, e->kids[0], bound);
	ir_expr_free(e);
	return r;
}

static void
replace_in_block(struct ir_block *b, const char *buffer, const struct ir_expr *f,
                 const struct ir_expr *bound)
{
	for (size_t i = 0; i < b->n; i++) {
		struct ir_stmt *s = b->stmts[i];
		if (s->value)
			s->value = replace_loads(s->value, buffer, f, bound);
		if (s->index)
			s->index = replace_loads(s->index, buffer, f, bound);
		if (s->kind == IR_LOOP)
			replace_in_block(&s->body, buffer, f, s->bound);
	}
}

/* The map's single store (at its own element), or NULL when the map does not fit. */
static const struct ir_stmt *
map_store(const struct ir_stage *map)
{
	const struct ir_stmt *store = NULL;
	for (size_t i = 0; i < map->body.n; i++) {
		const struct ir_stmt *s = map->body.stmts[i];
		if (s->kind == IR_STORE) {
			if (store)
				return NULL;
			store = s;
		} else if (s->kind != IR_LET) {
			return NULL;
		}
	}
	if (!store || store->index->kind != IR_IDX || store->index->idx != IR_I)
		return NULL;
	return store;
}

/* A map whose buffer is an output (not a temp) folds only where the row program
 * can store it: its first loop L, when the map covers rows x L's columns, the
 * buffer as row * bound + col (the row program then writes every element the map
 * wrote, once, in L); NULL when there is no such loop. */
static struct ir_stmt *
covering_loop(const struct ir_stage *map, struct ir_stage *rows)
{
	struct ir_stmt *l = NULL;
	for (size_t i = 0; i < rows->body.n && !l; i++)
		if (rows->body.stmts[i]->kind == IR_LOOP)
			l = rows->body.stmts[i];
	if (!l)
		return NULL;
	/* the map's count, compared as written: n = rows * cols (either order) */
	struct strbuf n = STRBUF_INIT, a = STRBUF_INIT, b = STRBUF_INIT, r = STRBUF_INIT,
	              c = STRBUF_INIT;
	ir_expr_print(map->n, &n);
	ir_expr_print(rows->n, &r);
	ir_expr_print(l->bound, &c);
	strbuf_addf(&a, "(%s * %s)", r.buf, c.buf);
	strbuf_addf(&b, "(%s * %s)", c.buf, r.buf);
	int ok = strcmp(n.buf, a.buf) == 0 || strcmp(n.buf, b.buf) == 0;
	strbuf_release(&n);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&r);
	strbuf_release(&c);
	return ok ? l : NULL;
}

/* Stores f at (row * bound + col) first thing in loop l. */
static void
store_in_loop(struct ir_stmt *l, const char *buffer, const struct ir_expr *f)
{
	struct ir_expr *mul = ir_expr_new(IR_BIN, "*"), *at = ir_expr_new(IR_BIN, "+");
	struct ir_expr *row = ir_expr_new(IR_IDX, NULL), *col = ir_expr_new(IR_IDX, NULL);
	row->idx = IR_ROW;
	col->idx = IR_COL;
	ir_expr_add(mul, row);
	ir_expr_add(mul, ir_expr_copy(l->bound));
	ir_expr_add(at, mul);
	ir_expr_add(at, col);
	struct ir_stmt *st = ir_stmt_new(IR_STORE);
	st->name = egg_xstrdup(buffer);
	st->index = at;
	st->value = substitute(f, at, l->bound);
	ir_block_add(&l->body, st);
	memmove(l->body.stmts + 1, l->body.stmts, (l->body.n - 1) * sizeof *l->body.stmts);
	l->body.stmts[0] = st;
}

static void
drop_stage(struct ir_program *p, size_t k)
{
	struct ir_stage gone = p->stages[k];
	free(gone.kernel);
	free(gone.buffer);
	ir_expr_free(gone.n);
	ir_block_free(&gone.body);
	memmove(&p->stages[k], &p->stages[k + 1], (p->n_stages - k - 1) * sizeof *p->stages);
	p->n_stages--;
}

static int
fuse_pair(struct ir_program *p, size_t k)
{
	const struct ir_stage *map = &p->stages[k];
	struct ir_stage *rows = &p->stages[k + 1];
	if (map->kind != IR_STAGE_MAP || rows->kind != IR_STAGE_ROWS)
		return 0;
	const struct ir_stmt *st = map_store(map);
	if (!st)
		return 0;
	const struct ir_param *q = ir_program_param(p, st->name);
	struct ir_stmt *keep = NULL; /* an output: stored by the row program, in this loop */
	if (!q || !q->is_temp) {
		keep = covering_loop(map, rows);
		for (size_t i = 0; keep && i < map->body.n; i++)
			if (ir_expr_loads(map->body.stmts[i]->value, st->name))
				keep = NULL; /* it reads what it overwrites */
		if (!keep)
			return 0;
	}
	/* nothing after the row program reads the temp; the row program writes
	 * nothing the map reads */
	for (size_t i = k + 2; i < p->n_stages && !keep; i++)
		if (ir_block_touches(&p->stages[i].body, st->name, 0))
			return 0;
	for (size_t i = 0; i < map->body.n; i++)
		for (size_t j = 0; j < p->n_params; j++)
			if (p->params[j].is_pointer && ir_expr_loads(map->body.stmts[i]->value, p->params[j].name) &&
			    ir_block_touches(&rows->body, p->params[j].name, 1))
				return 0;
	if (ir_block_touches(&rows->body, st->name, 1))
		return 0;
	struct ir_expr *f = ir_expr_inline_lets(st->value, &map->body, map->body.n);
	replace_in_block(&rows->body, st->name, f, NULL);
	if (keep)
		store_in_loop(keep, st->name, f);
	ir_expr_free(f);
	drop_stage(p, k); /* the map */
	return 1;
}

static int
is_row(const struct ir_expr *e)
{
	e = ir_expr_int_uncast(e);
	return e->kind == IR_IDX && e->idx == IR_ROW;
}

/* Replaces loads of buffer at the row by the local v; 0 when buffer is read at
 * another element. */
static int
forward_row(struct ir_expr *e, const char *buffer, const char *v)
{
	if (e->kind == IR_LOAD && strcmp(e->text, buffer) == 0) {
		if (!is_row(e->kids[0]))
			return 0;
		ir_expr_free(e->kids[0]);
		e->n_kids = 0;
		e->kind = IR_LOCAL;
		free(e->text);
		e->text = egg_xstrdup(v);
		return 1;
	}
	for (size_t i = 0; i < e->n_kids; i++)
		if (!forward_row(e->kids[i], buffer, v))
			return 0;
	return 1;
}

/* A row program (stage k) and the map after it over rows * C: the map becomes
 * the row program's last column loop. */
static int
fuse_rows_map(struct ir_program *p, size_t k)
{
	struct ir_stage *rows = &p->stages[k];
	const struct ir_stage *map = &p->stages[k + 1];
	if (rows->kind != IR_STAGE_ROWS || map->kind != IR_STAGE_MAP || map->n->kind != IR_BIN ||
	    strcmp(map->n->text, "*") != 0)
		return 0;
	struct ir_block body = { 0 };
	const struct ir_expr *cols = NULL;
	for (int s = 0; s < 2 && !cols; s++)
		if (ir_expr_equal(ir_expr_int_uncast(map->n->kids[s]), ir_expr_int_uncast(rows->n))) {
			if (lift_map_rows_cols(&map->body, map->n->kids[1 - s], &body))
				cols = map->n->kids[1 - s];
			else
				ir_block_free(&body);
		}
	if (!cols)
		return 0;
	/* what the row program stores at its row, forwarded; any other element of
	 * what it writes read by the map, or anything it reads or writes stored by
	 * the map, and the pair stays as it is */
	int ok = 1;
	for (size_t i = 0; i < rows->body.n && ok; i++) {
		const struct ir_stmt *st = rows->body.stmts[i];
		if (st->kind == IR_STORE && is_row(st->index) && st->value->kind == IR_LOCAL)
			for (size_t j = 0; j < body.n && ok; j++)
				ok = forward_row(body.stmts[j]->value, st->name, st->value->text) &&
				     (!body.stmts[j]->index || forward_row(body.stmts[j]->index, st->name, st->value->text));
	}
	for (size_t j = 0; j < body.n && ok; j++) {
		const struct ir_stmt *s = body.stmts[j];
		for (size_t q = 0; q < p->n_params && ok; q++) {
			const char *b = p->params[q].name;
			if (!p->params[q].is_pointer)
				continue;
			if ((ir_expr_loads(s->value, b) || ir_expr_loads(s->index, b)) && ir_block_touches(&rows->body, b, 1))
				ok = 0; /* reads what the row program writes, elsewhere than at its row */
			if (s->kind == IR_STORE && strcmp(s->name, b) == 0 &&
			    (ir_block_touches(&rows->body, b, 0) || ir_block_touches(&rows->body, b, 1)))
				ok = 0; /* writes what the row program reads or writes */
		}
		if (s->kind != IR_LET && s->kind != IR_STORE && s->kind != IR_ASSIGN)
			ok = 0;
	}
	if (!ok) {
		ir_block_free(&body);
		return 0;
	}
	struct ir_stmt *loop = ir_stmt_new(IR_LOOP);
	loop->bound = ir_expr_copy(cols);
	loop->body = body;
	ir_block_add(&rows->body, loop);
	/* row-level stores into a temp that neither the row program nor anything after
	 * the pair reads: gone */
	for (size_t i = 0; i < rows->body.n;) {
		const struct ir_stmt *st = rows->body.stmts[i];
		const struct ir_param *q = st->kind == IR_STORE ? ir_program_param(p, st->name) : NULL;
		int later = 0;
		for (size_t j = k + 2; q && j < p->n_stages; j++)
			later |= ir_block_touches(&p->stages[j].body, st->name, 0);
		if (q && q->is_temp && !later && is_row(st->index) && !ir_block_touches(&rows->body, st->name, 0)) {
			struct ir_block one = { 0 };
			ir_block_add(&one, rows->body.stmts[i]);
			memmove(&rows->body.stmts[i], &rows->body.stmts[i + 1], (rows->body.n - i - 1) * sizeof *rows->body.stmts);
			rows->body.n--;
			ir_block_free(&one);
			continue;
		}
		i++;
	}
	drop_stage(p, k + 1);
	return 1;
}

int
fuse_program(struct ir_program *p)
{
	int n = 0;
	for (size_t k = 0; k + 1 < p->n_stages;)
		if (fuse_pair(p, k) || fuse_rows_map(p, k))
			n++;
		else
			k++;
	return n;
}
