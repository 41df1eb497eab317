/*
 * affine.c -- affine forms of 2-D index expressions (see affine.h).
 *
 * Forms are small (a handful of terms): a fixed array, and any expression that
 * would need more terms, or a product of two non-constant forms, is AFF_OTHER.
 */
#include "config.h"

#include "builtin/affine.h"

#include <stdlib.h>
#include <string.h>

#define MAX_TERMS 16

enum var { V_ONE, V_ROW, V_COL };

struct term {
	long k;
	const struct ir_expr *sym; /* NULL: 1 */
	enum var var;
};

struct form {
	struct term t[MAX_TERMS];
	int n;
	int bad;
};

static int
has_index(const struct ir_expr *e)
{
	return ir_expr_uses_index(e, IR_I) || ir_expr_uses_index(e, IR_ROW) ||
	       ir_expr_uses_index(e, IR_COL);
}

static void
add_term(struct form *f, long k, const struct ir_expr *sym, enum var v)
{
	if (f->bad || k == 0)
		return;
	for (int i = 0; i < f->n; i++)
		if (f->t[i].var == v && ir_expr_equal(f->t[i].sym, sym)) {
			f->t[i].k += k;
			return;
		}
	if (f->n == MAX_TERMS) {
		f->bad = 1;
		return;
	}
	f->t[f->n++] = (struct term){ k, sym, v };
}

/* an integer literal (decimal, with the usual suffixes) */
static int
integer(const char *s, long *k)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (end == s || strspn(end, "uUlL") != strlen(end))
		return 0;
	*k = v;
	return 1;
}

static int
integral_cast(const char *type)
{
	static const char *const types[] = { "int", "long", "long long", "unsigned", "unsigned int",
		                             "size_t", "int64_t", "long int", "unsigned long",
		                             "unsigned long long", "ptrdiff_t", NULL };
	for (int i = 0; types[i]; i++)
		if (strcmp(types[i], type) == 0)
			return 1;
	return 0;
}

static int
is_constant(const struct form *f, long *k)
{
	*k = 0;
	for (int i = 0; i < f->n; i++) {
		if (f->t[i].sym || f->t[i].var != V_ONE)
			return 0;
		*k += f->t[i].k;
	}
	return 1;
}

static void form_of(const struct ir_expr *e, struct form *out);

static void
product(const struct ir_expr *e, struct form *out)
{
	struct form a = { .n = 0 }, b = { .n = 0 };
	form_of(e->kids[0], &a);
	form_of(e->kids[1], &b);
	if (a.bad || b.bad) {
		out->bad = 1;
		return;
	}
	long k;
	const struct form *o = is_constant(&b, &k) ? &a : is_constant(&a, &k) ? &b : NULL;
	if (o) {
		for (int i = 0; i < o->n; i++)
			add_term(out, o->t[i].k * k, o->t[i].sym, o->t[i].var);
		return;
	}
	/* (one invariant symbol) * (a form without symbols) */
	for (int s = 0; s < 2; s++) {
		const struct form *x = s ? &b : &a, *y = s ? &a : &b;
		if (x->n != 1 || !x->t[0].sym || x->t[0].var != V_ONE)
			continue;
		int plain = 1;
		for (int i = 0; i < y->n; i++)
			plain &= y->t[i].sym == NULL;
		if (!plain)
			continue;
		for (int i = 0; i < y->n; i++)
			add_term(out, x->t[0].k * y->t[i].k, x->t[0].sym, y->t[i].var);
		return;
	}
	out->bad = 1;
}

static void
form_of(const struct ir_expr *e, struct form *out)
{
	if (out->bad)
		return;
	long k;
	if (!has_index(e)) {
		if (ir_expr_has_load(e) || ir_expr_has_local(e)) /* a local may depend on the element */
			out->bad = 1;
		else if (e->kind == IR_NUM && integer(e->text, &k))
			add_term(out, k, NULL, V_ONE);
		else if (e->kind == IR_UN && strcmp(e->text, "-") == 0 && e->kids[0]->kind == IR_NUM &&
		         integer(e->kids[0]->text, &k))
			add_term(out, -k, NULL, V_ONE);
		else
			add_term(out, 1, e, V_ONE);
		return;
	}
	switch (e->kind) {
	case IR_IDX:
		if (e->idx == IR_I)
			out->bad = 1;
		else
			add_term(out, 1, NULL, e->idx == IR_ROW ? V_ROW : V_COL);
		return;
	case IR_CAST:
		if (integral_cast(e->text))
			form_of(e->kids[0], out);
		else
			out->bad = 1;
		return;
	case IR_BIN:
		if (strcmp(e->text, "+") == 0 || strcmp(e->text, "-") == 0) {
			struct form b = { .n = 0 };
			form_of(e->kids[0], out);
			form_of(e->kids[1], &b);
			if (b.bad)
				out->bad = 1;
			for (int i = 0; i < b.n; i++)
				add_term(out, e->text[0] == '-' ? -b.t[i].k : b.t[i].k, b.t[i].sym, b.t[i].var);
			return;
		}
		if (strcmp(e->text, "*") == 0) {
			struct form p = { .n = 0 };
			product(e, &p);
			for (int i = 0; i < p.n && !p.bad; i++)
				add_term(out, p.t[i].k, p.t[i].sym, p.t[i].var);
			out->bad |= p.bad;
			return;
		}
		out->bad = 1;
		return;
	default:
		out->bad = 1;
		return;
	}
}

static long
coef(const struct form *f, const struct ir_expr *sym, enum var v)
{
	for (int i = 0; i < f->n; i++)
		if (f->t[i].var == v && ir_expr_equal(f->t[i].sym, sym))
			return f->t[i].k;
	return 0;
}

struct affine_access
affine_classify(const struct ir_expr *ix, const struct ir_expr *rows, const struct ir_expr *cols)
{
	struct affine_access a = { AFF_OTHER, 0, 0 };
	struct form f = { .n = 0 };
	form_of(ix, &f);
	if (f.bad)
		return a;
	int uses_row = 0, uses_col = 0;
	for (int i = 0; i < f.n; i++) {
		uses_row |= f.t[i].var == V_ROW;
		uses_col |= f.t[i].var == V_COL;
	}
	if (!uses_col) {
		a.kind = uses_row ? AFF_ROW_ONLY : AFF_OTHER;
		return a;
	}
	if (!uses_row) {
		a.kind = AFF_COL_ONLY;
		return a;
	}
	/* row * cols + col + dr * cols + dc: nothing else */
	if (coef(&f, cols, V_ROW) == 1 && coef(&f, NULL, V_COL) == 1) {
		int others = 0;
		for (int i = 0; i < f.n; i++) {
			const struct term *t = &f.t[i];
			if (t->var == V_ONE && !t->sym)
				a.dc = t->k;
			else if (t->var == V_ONE && ir_expr_equal(t->sym, cols))
				a.dr = t->k;
			else if (!(t->var == V_ROW && ir_expr_equal(t->sym, cols)) &&
			         !(t->var == V_COL && !t->sym))
				others = 1;
		}
		if (!others)
			a.kind = AFF_ROW_MAJOR;
		return a;
	}
	if (f.n == 2 && coef(&f, rows, V_COL) == 1 && coef(&f, NULL, V_ROW) == 1)
		a.kind = AFF_TRANSPOSED;
	return a;
}
