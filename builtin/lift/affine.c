/*
 * affine.c -- affine forms of 2-D index expressions (see affine.h).
 *
 * Forms are small (a handful of terms): a fixed array, and any expression that
 * would need more terms, or a product of two non-constant forms, is AFF_OTHER.
 */
#include "config.h"

#include "builtin/lift/affine.h"

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
	int sum = e->kind == IR_BIN && (strcmp(e->text, "+") == 0 || strcmp(e->text, "-") == 0);
	/* (sums split, so that h - 1 is h and -1; and products by a literal, so that an
	 * unrolled tap's -1 * cols is -cols) */
	int scaled = e->kind == IR_BIN && strcmp(e->text, "*") == 0 &&
	             ((e->kids[0]->kind == IR_NUM && integer(e->kids[0]->text, &k)) ||
	              (e->kids[1]->kind == IR_NUM && integer(e->kids[1]->text, &k)));
	if (!has_index(e) && !sum && !scaled) {
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

/* f without its terms whose coefficients cancelled (c = i - r * cols) */
static void
prune(struct form *f)
{
	int n = 0;
	for (int i = 0; i < f->n; i++)
		if (f->t[i].k != 0)
			f->t[n++] = f->t[i];
	f->n = n;
}

static long
coef(const struct form *f, const struct ir_expr *sym, enum var v)
{
	for (int i = 0; i < f->n; i++)
		if (f->t[i].var == v && ir_expr_equal(f->t[i].sym, sym))
			return f->t[i].k;
	return 0;
}

static const struct ir_expr *
strip_casts(const struct ir_expr *e)
{
	while (e->kind == IR_CAST && integral_cast(e->text))
		e = e->kids[0];
	return e;
}

static int
is_call2(const struct ir_expr *e, const char *name)
{
	return e->kind == IR_CALL && strcmp(e->text, name) == 0 && e->n_kids == 2;
}

/* e + k for the index v, as k */
static int
shifted(const struct ir_expr *e, enum var v, long *k)
{
	struct form f = { .n = 0 };
	form_of(e, &f);
	prune(&f);
	*k = 0;
	int seen = 0;
	for (int i = 0; i < f.n && !f.bad; i++) {
		if (f.t[i].var == v && !f.t[i].sym && f.t[i].k == 1)
			seen = 1;
		else if (f.t[i].var == V_ONE && !f.t[i].sym)
			*k = f.t[i].k;
		else
			return 0;
	}
	return !f.bad && seen;
}

/* ---- clamps by their values ----
 * A coordinate written some other way than min(max(v + k, 0), extent - 1) -- one
 * side only where the other cannot be crossed (max(c - 1, 0)), a select (r > 0 ?
 * r - 1 : 0), a column recomputed as i - r * cols -- is a clamp when it has a
 * clamp's values.  It is evaluated exactly, in integers, at every (row, col) of
 * domains of 1 to EVAL_EXTENT rows and columns, and must equal clamp(v + k) at
 * each.  Only sums, differences, negations, min, max, selects and comparisons of
 * the indices, the two extents and literals of at most EVAL_LITERAL are read;
 * anything else (a product, a division, another scalar, a local, a load) is not
 * evaluated.  Such an expression is piecewise linear in (v, extent) with small
 * integer coefficients, so its pieces change only within a bounded distance of
 * 0, of the extent or of a fixed fraction of it: every way of differing from a
 * clamp that exists for some extent shows at one of 1 to EVAL_EXTENT. */
#define EVAL_EXTENT 40
#define EVAL_LITERAL 8

struct env {
	const struct ir_expr *rows, *cols;
	long row, col, nrows, ncols;
};

static int
eval(const struct ir_expr *e, const struct env *en, long *out)
{
	long a, b, c;
	e = strip_casts(e);
	if (ir_expr_equal(e, en->rows) || ir_expr_equal(e, en->cols)) {
		*out = ir_expr_equal(e, en->rows) ? en->nrows : en->ncols;
		return 1;
	}
	if (e->kind == IR_BIN && strcmp(e->text, "*") == 0) {
		/* a product only inside an affine sum whose index-times-extent terms
		 * cancel (i - r * cols with i = r * cols + c): the sum's other terms */
		return 0;
	}
	struct form f = { .n = 0 };
	int sum = e->kind == IR_BIN && (strcmp(e->text, "+") == 0 || strcmp(e->text, "-") == 0);
	if (sum) {
		form_of(e, &f);
		prune(&f);
	}
	if (sum && !f.bad) {
		long total = 0;
		for (int i = 0; i < f.n; i++) {
			const struct term *t = &f.t[i];
			if (t->sym && t->var != V_ONE)
				return 0; /* an index times an extent: not piecewise linear */
			long x = t->var == V_ROW ? en->row : t->var == V_COL ? en->col : 1, y = 1;
			if (t->sym && !eval(t->sym, en, &y))
				return 0;
			if (!t->sym && t->var == V_ONE && labs(t->k) > EVAL_LITERAL)
				return 0;
			total += t->k * x * y;
		}
		*out = total;
		return 1;
	}
	switch (e->kind) {
	case IR_NUM:
		return integer(e->text, out) && labs(*out) <= EVAL_LITERAL;
	case IR_IDX:
		if (e->idx == IR_I)
			return 0;
		*out = e->idx == IR_ROW ? en->row : en->col;
		return 1;
	case IR_VAR:
		/* (rows) as the launcher prints it, or the extent under a cast */
		return ir_expr_equal(ir_expr_int_uncast(en->rows), e) ? (*out = en->nrows, 1) :
		       ir_expr_equal(ir_expr_int_uncast(en->cols), e) ? (*out = en->ncols, 1) : 0;
	case IR_UN:
		if (!eval(e->kids[0], en, &a))
			return 0;
		if (strcmp(e->text, "-") == 0)
			*out = -a;
		else if (strcmp(e->text, "!") == 0)
			*out = !a;
		else
			return 0;
		return 1;
	case IR_COND:
		if (!eval(e->kids[0], en, &c) || !eval(e->kids[1], en, &a) || !eval(e->kids[2], en, &b))
			return 0;
		*out = c ? a : b;
		return 1;
	case IR_CALL:
		if (e->n_kids != 2 || (strcmp(e->text, "min") && strcmp(e->text, "max")) ||
		    !eval(e->kids[0], en, &a) || !eval(e->kids[1], en, &b))
			return 0;
		*out = (strcmp(e->text, "min") == 0) == (a < b) ? a : b;
		return 1;
	case IR_BIN: {
		static const char *const ops[] = { "+", "-", "<", "<=", ">", ">=", "==", "!=", "&&", "||", NULL };
		int op = -1;
		for (int i = 0; ops[i] && op < 0; i++)
			if (strcmp(e->text, ops[i]) == 0)
				op = i;
		if (op < 0 || !eval(e->kids[0], en, &a) || !eval(e->kids[1], en, &b))
			return 0;
		const long r[] = { a + b, a - b, a < b, a <= b, a > b, a >= b, a == b, a != b, a && b, a || b };
		*out = r[op];
		return 1;
	}
	default:
		return 0;
	}
}

/* e equals clamp(v + k, 0, extent - 1) wherever it is evaluated: k */
static int
clamped_by_value(const struct ir_expr *e, enum var v, const struct ir_expr *rows,
                 const struct ir_expr *cols, long *k)
{
	struct env en = { rows, cols, EVAL_EXTENT / 2, EVAL_EXTENT / 2, EVAL_EXTENT, EVAL_EXTENT };
	long mid;
	if (!eval(e, &en, &mid))
		return 0;
	*k = mid - EVAL_EXTENT / 2;
	if (labs(*k) > EVAL_LITERAL)
		return 0;
	for (long ext = 1; ext <= EVAL_EXTENT; ext++)
		for (long other = 1; other <= 3; other++) {
			en.nrows = v == V_ROW ? ext : other;
			en.ncols = v == V_ROW ? other : ext;
			for (en.row = 0; en.row < en.nrows; en.row++)
				for (en.col = 0; en.col < en.ncols; en.col++) {
					long got, at = (v == V_ROW ? en.row : en.col) + *k;
					long want = at < 0 ? 0 : at > ext - 1 ? ext - 1 : at;
					if (!eval(e, &en, &got) || got != want)
						return 0;
				}
		}
	return 1;
}

/* min(max(v + k, 0), extent - 1) or max(min(v + k, extent - 1), 0), operands in
 * either order: the offset k */
static int
clamped(const struct ir_expr *e, enum var v, const struct ir_expr *extent, long *k)
{
	e = strip_casts(e);
	int outer_min = is_call2(e, "min");
	if (!outer_min && !is_call2(e, "max"))
		return 0;
	const char *inner_name = outer_min ? "max" : "min";
	for (int s = 0; s < 2; s++) {
		const struct ir_expr *in = strip_casts(e->kids[s]), *lim = e->kids[1 - s];
		if (!is_call2(in, inner_name))
			continue;
		for (int t = 0; t < 2; t++) {
			const struct ir_expr *x = in->kids[t], *lim2 = in->kids[1 - t];
			const struct ir_expr *hi = outer_min ? lim : lim2, *lo = outer_min ? lim2 : lim;
			struct form fl = { .n = 0 }, fh = { .n = 0 };
			form_of(lo, &fl);
			form_of(hi, &fh);
			long z;
			/* lo is 0; hi is extent - 1 */
			if (fl.bad || !is_constant(&fl, &z) || z != 0 || fh.bad || fh.n != 2 ||
			    coef(&fh, extent, V_ONE) != 1 || coef(&fh, NULL, V_ONE) != -1)
				continue;
			if (shifted(x, v, k))
				return 1;
		}
	}
	return 0;
}

struct affine_access
affine_classify(const struct ir_expr *ix, const struct ir_expr *rows, const struct ir_expr *cols)
{
	struct affine_access a = { AFF_OTHER, 0, 0 };
	const struct ir_expr *e = strip_casts(ix);
	if (e->kind == IR_BIN && strcmp(e->text, "+") == 0)
		for (int s = 0; s < 2; s++) {
			const struct ir_expr *m = strip_casts(e->kids[s]);
			if (m->kind != IR_BIN || strcmp(m->text, "*") != 0)
				continue;
			for (int t = 0; t < 2; t++) {
				if (!ir_expr_equal(m->kids[1 - t], cols))
					continue;
				if (clamped(m->kids[t], V_ROW, rows, &a.dr) &&
				    clamped(e->kids[1 - s], V_COL, cols, &a.dc)) {
					a.kind = AFF_CLAMPED;
					return a;
				}
				/* each coordinate a clamp by its values, or the index itself: at
				 * (0, 0) the element, in the domain (no clamp to vouch for) */
				long dr, dc;
				if (clamped_by_value(m->kids[t], V_ROW, rows, cols, &dr) &&
				    clamped_by_value(e->kids[1 - s], V_COL, rows, cols, &dc)) {
					a.kind = dr || dc ? AFF_CLAMPED : AFF_ROW_MAJOR;
					a.dr = dr;
					a.dc = dc;
					return a;
				}
				a.dr = a.dc = 0;
			}
		}
	struct form f = { .n = 0 };
	form_of(ix, &f);
	if (f.bad)
		return a;
	prune(&f);
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
