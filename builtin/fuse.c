/*
 * fuse.c -- fusion across families: an element-wise map that fills a temp
 * buffer read by the row program launched right after it is folded into that
 * row program (each read of the buffer becomes the map's expression at that
 * element), so the temp is neither written nor read back: two passes over the
 * data saved.  Runs on the lifted program before the recipes see it; a program
 * that does not fit is left as it is.
 */
#include "config.h"

#include "builtin/fuse.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

/* e with locals replaced by their let values (a map body of lets and one store) */
static struct ir_expr *
inline_lets(const struct ir_block *b, size_t upto, const struct ir_expr *e)
{
	if (e->kind == IR_LOCAL)
		for (size_t i = upto; i-- > 0;)
			if (b->stmts[i]->kind == IR_LET && strcmp(b->stmts[i]->name, e->text) == 0)
				return inline_lets(b, i, b->stmts[i]->value);
	struct ir_expr *c = ir_expr_new(e->kind, e->text);
	c->idx = e->idx;
	for (size_t i = 0; i < e->n_kids; i++)
		ir_expr_add(c, inline_lets(b, upto, e->kids[i]));
	return c;
}

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

static int
block_touches(const struct ir_block *b, const char *buffer, int stores)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *s = b->stmts[i];
		if (stores ? ((s->kind == IR_STORE || (s->kind == IR_ACC && s->into_buffer)) &&
		              strcmp(s->name, buffer) == 0)
		           : (ir_expr_loads(s->value, buffer) || ir_expr_loads(s->index, buffer) ||
		              ir_expr_loads(s->bound, buffer)))
			return 1;
		if (block_touches(&s->body, buffer, stores))
			return 1;
	}
	return 0;
}

/* The map's single store into a temp buffer, or NULL when the map does not fit. */
static const struct ir_stmt *
temp_store(const struct ir_program *p, const struct ir_stage *map)
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
	const struct ir_param *q = ir_program_param(p, store->name);
	return q && q->is_temp ? store : NULL;
}

static int
fuse_pair(struct ir_program *p, size_t k)
{
	const struct ir_stage *map = &p->stages[k];
	struct ir_stage *rows = &p->stages[k + 1];
	if (map->kind != IR_STAGE_MAP || rows->kind != IR_STAGE_ROWS)
		return 0;
	const struct ir_stmt *st = temp_store(p, map);
	if (!st)
		return 0;
	/* nothing after the row program reads the temp; the row program writes
	 * nothing the map reads */
	for (size_t i = k + 2; i < p->n_stages; i++)
		if (block_touches(&p->stages[i].body, st->name, 0))
			return 0;
	for (size_t i = 0; i < map->body.n; i++)
		for (size_t j = 0; j < p->n_params; j++)
			if (p->params[j].is_pointer && ir_expr_loads(map->body.stmts[i]->value, p->params[j].name) &&
			    block_touches(&rows->body, p->params[j].name, 1))
				return 0;
	if (block_touches(&rows->body, st->name, 1))
		return 0;
	struct ir_expr *f = inline_lets(&map->body, map->body.n, st->value);
	replace_in_block(&rows->body, st->name, f, NULL);
	ir_expr_free(f);
	/* drop the map stage */
	struct ir_stage gone = p->stages[k];
	free(gone.kernel);
	free(gone.buffer);
	ir_expr_free(gone.n);
	ir_block_free(&gone.body);
	memmove(&p->stages[k], &p->stages[k + 1], (p->n_stages - k - 1) * sizeof *p->stages);
	p->n_stages--;
	return 1;
}

int
fuse_program(struct ir_program *p)
{
	int n = 0;
	for (size_t k = 0; k + 1 < p->n_stages;)
		if (fuse_pair(p, k))
			n++;
		else
			k++;
	return n;
}
