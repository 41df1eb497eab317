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
		/* the row seen through integer casts: ((size_t)row * C + col) / C is row */
		const struct ir_expr *s = ir_expr_int_uncast(c->kids[0]), *m = NULL, *r0 = NULL;
		if (s->kind == IR_BIN && strcmp(s->text, "+") == 0)
			m = ir_expr_int_uncast(s->kids[0]);
		if (m && m->kind == IR_BIN && strcmp(m->text, "*") == 0)
			r0 = ir_expr_int_uncast(m->kids[0]);
		if (r0 && s->kids[1]->kind == IR_IDX && s->kids[1]->idx == IR_COL && r0->kind == IR_IDX &&
		    r0->idx == IR_ROW && ir_expr_equal(ir_expr_int_uncast(m->kids[1]), bound)) {
			struct ir_expr *r = ir_expr_copy(c->text[0] == '%' ? s->kids[1] : r0);
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

/* The C text of a count without spaces, casts to integer types and parentheses
 * around a single name or number ("(((size_t)rows) * hidden)" is
 * "(rows*hidden)"): a host expression's text, compared as ir_expr_equal_index
 * compares trees (owned). */
static char *
count_text(const struct ir_expr *e)
{
	static const char *const casts[] = { "(size_t)", "(int)", "(unsigned)", "(long)", "(longlong)",
		                             "(int64_t)", "(uint64_t)", "(unsignedint)", "(unsignedlong)", NULL };
	struct strbuf t = STRBUF_INIT;
	ir_expr_print(e, &t);
	char *o = egg_xmalloc(t.len + 1), *q = o;
	for (const char *c = t.buf; *c; c++)
		if (*c != ' ')
			*q++ = *c;
	*q = '\0';
	strbuf_release(&t);
	for (int again = 1; again;) {
		again = 0;
		for (size_t i = 0; casts[i]; i++)
			for (char *at; (at = strstr(o, casts[i])); again = 1)
				memmove(at, at + strlen(casts[i]), strlen(at + strlen(casts[i])) + 1);
		for (char *at = strchr(o, '('); at; at = strchr(at + 1, '(')) {
			size_t n = strspn(at + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
			if (n && at[1 + n] == ')' && (at == o || !strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_", at[-1]))) {
				memmove(at, at + 1, n);
				memmove(at + n, at + n + 2, strlen(at + n + 2) + 1);
				again = 1;
			}
		}
	}
	return o;
}

/* n is r * c or c * r, the texts compared by count_text */
static int
count_is_product(const struct ir_expr *n, const struct ir_expr *r, const struct ir_expr *c)
{
	char *nt = count_text(n), *rt = count_text(r), *ct = count_text(c);
	char *x = egg_xasprintf("(%s*%s)", rt, ct), *y = egg_xasprintf("(%s*%s)", ct, rt);
	int ok = strcmp(nt, x) == 0 || strcmp(nt, y) == 0;
	free(nt);
	free(rt);
	free(ct);
	free(x);
	free(y);
	return ok;
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
	/* the map's count: n = rows * cols (either order), compared as written or
	 * with the casts to integer types aside */
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
	ok = ok || count_is_product(map->n, rows->n, l->bound);
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

/* ---- values a row program stores, forwarded to what reads them after it ---- */

static int
assigned_in(const struct ir_block *b, const char *name)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *s = b->stmts[i];
		if ((s->kind == IR_ASSIGN || (s->kind == IR_ACC && !s->into_buffer)) && strcmp(s->name, name) == 0)
			return 1;
		if (s->kind == IR_LOOP && assigned_in(&s->body, name))
			return 1;
	}
	return 0;
}

/* Every local e reads is a row-level let of b that nothing in b changes: its
 * value after b is the one it had where e was computed. */
static int
locals_fixed(const struct ir_expr *e, const struct ir_block *b)
{
	if (e->kind == IR_LOCAL) {
		size_t i = 0;
		while (i < b->n && !(b->stmts[i]->kind == IR_LET && strcmp(b->stmts[i]->name, e->text) == 0))
			i++;
		return i < b->n && !assigned_in(b, e->text);
	}
	for (size_t i = 0; i < e->n_kids; i++)
		if (!locals_fixed(e->kids[i], b))
			return 0;
	return 1;
}

static size_t
count_stores(const struct ir_block *b, const char *buffer)
{
	size_t n = 0;
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *s = b->stmts[i];
		n += (s->kind == IR_STORE || (s->kind == IR_ACC && s->into_buffer)) && strcmp(s->name, buffer) == 0;
		if (s->kind == IR_LOOP)
			n += count_stores(&s->body, buffer);
	}
	return n;
}

/* every store and atomic of b */
static size_t
count_all_stores(const struct ir_block *b)
{
	size_t n = 0;
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *s = b->stmts[i];
		n += s->kind == IR_STORE || (s->kind == IR_ACC && s->into_buffer);
		if (s->kind == IR_LOOP)
			n += count_all_stores(&s->body);
	}
	return n;
}

/* What the row program b (its only store into buffer) stores at ix: a local
 * stored at the row, or the value a column loop over bound stores at ix, its
 * lets inlined; an owned copy in terms that hold after b, or NULL. */
static struct ir_expr *
stored_value(const struct ir_block *b, const char *buffer, const struct ir_expr *ix, const struct ir_expr *bound)
{
	if (count_stores(b, buffer) != 1)
		return NULL;
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *s = b->stmts[i];
		if (s->kind == IR_STORE && strcmp(s->name, buffer) == 0 && is_row(s->index) && is_row(ix) &&
		    s->value->kind == IR_LOCAL && locals_fixed(s->value, b))
			return ir_expr_copy(s->value);
		if (s->kind != IR_LOOP || !bound || !ir_expr_equal_index(s->bound, bound))
			continue;
		for (size_t j = 0; j < s->body.n; j++) {
			const struct ir_stmt *x = s->body.stmts[j];
			if (x->kind != IR_STORE || strcmp(x->name, buffer) != 0 || !ir_expr_equal_index(x->index, ix))
				continue;
			struct ir_expr *f = ir_expr_inline_lets(x->value, &s->body, j);
			if (locals_fixed(f, b))
				return f;
			ir_expr_free(f);
		}
	}
	return NULL;
}

/* Replaces the loads of buffer in e (inside a loop over bound, or NULL) by
 * what the row program b stored there; 0 when one of them is not such a value. */
static int
forward_expr(struct ir_expr **e, const char *buffer, const struct ir_block *b, const struct ir_expr *bound)
{
	if (!*e)
		return 1;
	for (size_t i = 0; i < (*e)->n_kids; i++)
		if (!forward_expr(&(*e)->kids[i], buffer, b, bound))
			return 0;
	if ((*e)->kind != IR_LOAD || strcmp((*e)->text, buffer) != 0)
		return 1;
	struct ir_expr *v = stored_value(b, buffer, (*e)->kids[0], bound);
	if (!v)
		return 0;
	ir_expr_free(*e);
	*e = v;
	return 1;
}

static int
forward_block(struct ir_block *c, const char *buffer, const struct ir_block *b, const struct ir_expr *bound)
{
	for (size_t i = 0; i < c->n; i++) {
		struct ir_stmt *s = c->stmts[i];
		if (!forward_expr(&s->value, buffer, b, bound) || !forward_expr(&s->index, buffer, b, bound) ||
		    (s->kind == IR_LOOP && !forward_block(&s->body, buffer, b, s->bound)))
			return 0;
	}
	return 1;
}

static struct ir_stmt *
stmt_copy(const struct ir_stmt *s)
{
	struct ir_stmt *c = ir_stmt_new(s->kind);
	c->name = s->name ? egg_xstrdup(s->name) : NULL;
	c->type = s->type ? egg_xstrdup(s->type) : NULL;
	c->index = s->index ? ir_expr_copy(s->index) : NULL;
	c->value = s->value ? ir_expr_copy(s->value) : NULL;
	c->combine = s->combine;
	c->combine_fn = s->combine_fn ? egg_xstrdup(s->combine_fn) : NULL;
	c->into_buffer = s->into_buffer;
	c->bound = s->bound ? ir_expr_copy(s->bound) : NULL;
	c->scan = s->scan;
	for (size_t i = 0; i < s->body.n; i++)
		ir_block_add(&c->body, stmt_copy(s->body.stmts[i]));
	return c;
}

/* Two row programs over the same rows, the second reading what the first
 * stored only where the first's values can be forwarded (at the row, or in a
 * column loop over the same bound at the same element): one row program, the
 * second's statements after the first's. */
static int
fuse_rows_rows(struct ir_program *p, size_t k)
{
	struct ir_stage *a = &p->stages[k], *b = &p->stages[k + 1];
	if (a->kind != IR_STAGE_ROWS || b->kind != IR_STAGE_ROWS || !ir_expr_equal_index(a->n, b->n))
		return 0;
	struct ir_block body = { 0 };
	for (size_t i = 0; i < b->body.n; i++)
		ir_block_add(&body, stmt_copy(b->body.stmts[i]));
	int ok = 1;
	for (size_t q = 0; q < p->n_params && ok; q++) {
		const char *name = p->params[q].name;
		if (!p->params[q].is_pointer)
			continue;
		if (ir_block_touches(&b->body, name, 1) &&
		    (ir_block_touches(&a->body, name, 0) || ir_block_touches(&a->body, name, 1)))
			ok = 0; /* the second writes what the first reads or writes */
		else if (ir_block_touches(&a->body, name, 1) && ir_block_touches(&body, name, 0))
			ok = forward_block(&body, name, &a->body, NULL);
	}
	if (!ok) {
		ir_block_free(&body);
		return 0;
	}
	for (size_t i = 0; i < body.n; i++)
		ir_block_add(&a->body, body.stmts[i]);
	free(body.stmts);
	drop_stage(p, k + 1);
	return 1;
}

/* A row program (stage k) and the map after it over rows * C: the map becomes
 * the row program's last column loop. */
static int
fuse_rows_map(struct ir_program *p, size_t k)
{
	struct ir_stage *rows = &p->stages[k];
	const struct ir_stage *map = &p->stages[k + 1];
	if (rows->kind != IR_STAGE_ROWS || map->kind != IR_STAGE_MAP)
		return 0;
	struct ir_block body = { 0 };
	const struct ir_expr *cols = NULL;
	for (int s = 0; s < 2 && !cols && map->n->kind == IR_BIN && strcmp(map->n->text, "*") == 0; s++)
		if (ir_expr_equal(ir_expr_int_uncast(map->n->kids[s]), ir_expr_int_uncast(rows->n))) {
			if (lift_map_rows_cols(&map->body, map->n->kids[1 - s], &body))
				cols = map->n->kids[1 - s];
			else
				ir_block_free(&body);
		}
	/* a count the launcher passed as one scalar ((rows * cols)): the rows
	 * times one of the row program's loop bounds, as written */
	for (size_t i = 0; i < rows->body.n && !cols; i++) {
		const struct ir_stmt *l = rows->body.stmts[i];
		if (l->kind == IR_LOOP && count_is_product(map->n, rows->n, l->bound)) {
			if (lift_map_rows_cols(&map->body, l->bound, &body))
				cols = l->bound;
			else
				ir_block_free(&body);
		}
	}
	if (!cols)
		return 0;
	/* what the row program stores at its row, forwarded; any other element of
	 * what it writes read by the map, or anything it reads or writes stored by
	 * the map, and the pair stays as it is */
	int ok = 1;
	for (size_t q = 0; q < p->n_params && ok; q++)
		if (p->params[q].is_pointer && ir_block_touches(&rows->body, p->params[q].name, 1) &&
		    ir_block_touches(&body, p->params[q].name, 0))
			ok = forward_block(&body, p->params[q].name, &rows->body, cols);
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

/* Whether some stage reads buffer (its bodies, a contraction's operands, a
 * memset's target counts as touching it). */
static int
read_anywhere(const struct ir_program *p, const char *buffer)
{
	for (size_t i = 0; i < p->n_stages; i++) {
		const struct ir_stage *st = &p->stages[i];
		if (ir_block_touches(&st->body, buffer, 0) || (st->buffer && strcmp(st->buffer, buffer) == 0) ||
		    (st->contract && (strcmp(st->contract->a.buffer, buffer) == 0 ||
		                      strcmp(st->contract->b.buffer, buffer) == 0)))
			return 1;
	}
	return 0;
}

/* Stores into buffer removed from b, and the column loops left with nothing
 * but lets; 1 when some statement went. */
static int
drop_stores(struct ir_block *b, const char *buffer)
{
	int gone = 0;
	for (size_t i = 0; i < b->n;) {
		struct ir_stmt *s = b->stmts[i];
		int drop = s->kind == IR_STORE && strcmp(s->name, buffer) == 0;
		if (s->kind == IR_LOOP && drop_stores(&s->body, buffer)) {
			gone = 1;
			drop = 1;
			for (size_t j = 0; j < s->body.n; j++)
				drop &= s->body.stmts[j]->kind == IR_LET;
		}
		if (!drop) {
			i++;
			continue;
		}
		struct ir_block one = { 0 };
		ir_block_add(&one, s);
		ir_block_free(&one);
		memmove(&b->stmts[i], &b->stmts[i + 1], (b->n - i - 1) * sizeof *b->stmts);
		b->n--;
		gone = 1;
	}
	return gone;
}

/* A temp (or the launcher's own scratch) that no stage reads any more, after
 * the fusions forwarded its values, is not stored by the row programs. */
static void
drop_dead_temps(struct ir_program *p)
{
	for (size_t q = 0; q < p->n_params; q++) {
		const struct ir_param *t = &p->params[q];
		if (!t->is_pointer || !(t->is_temp || t->is_local) || read_anywhere(p, t->name))
			continue;
		for (size_t i = 0; i < p->n_stages; i++)
			if (p->stages[i].kind == IR_STAGE_ROWS && count_stores(&p->stages[i].body, t->name) <
			                                           count_all_stores(&p->stages[i].body))
				drop_stores(&p->stages[i].body, t->name);
	}
}

int
fuse_program(struct ir_program *p)
{
	int n = 0;
	for (size_t k = 0; k + 1 < p->n_stages;)
		if (fuse_pair(p, k) || fuse_rows_map(p, k) || fuse_rows_rows(p, k)) {
			n++;
			k = k ? k - 1 : 0; /* the stage before may fuse with the new one */
		} else {
			k++;
		}
	if (n)
		drop_dead_temps(p);
	return n;
}
