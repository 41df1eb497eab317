/*
 * clauses.c -- reading the clauses of `#pragma egg optimize` (see clauses.h).
 *
 * The grammar is OpenMP's shape: NAME(ARG, ARG, ...) repeated, separated by
 * blanks or commas; arguments are split on commas outside brackets.  Values
 * stay C expression text (the harness evaluates them), so the only checks on an
 * expression are the ones that catch typos early: it is not empty, its brackets
 * balance, it holds only C expression characters, and every name in it is a
 * scalar parameter, a workload name, a name the caller knows (the file's
 * macros and constants), or a function being called.  Those name
 * checks run after every clause is read, because a workload may bind a name an
 * earlier extent used.
 */
#include "config.h"
#include "analyzer/clauses.h"
#include "common/strbuf.h"
#include "common/util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An expression whose names are checked once every clause is known. */
struct pending_expr {
	size_t offset;
	char *text;
	const char *what; /* "extent of 'x'", "launch(...)" */
	char *what_owned;
};

struct parser {
	const char *text;
	struct egg_bundle *b;
	struct clause_diags *diags;
	size_t n_before;
	struct pending_expr *exprs;
	size_t n_exprs;
	char **names;      /* names bound by workloads (not owned) */
	const char *const *known; /* the caller's extra names; NULL-terminated or NULL */
	size_t n_names;
	int seen_tolerance, seen_precision, seen_launch;
	size_t *workload_at; /* where each workload(...) clause's arguments start */
};

/* One argument of a clause: [start, end) in the text, blanks trimmed. */
struct arg {
	size_t start, end;
};

static void
diag(struct parser *p, size_t offset, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = egg_xvasprintf(fmt, ap);
	va_end(ap);
	p->diags->v = egg_xrealloc(p->diags->v, (p->diags->n + 1) * sizeof *p->diags->v);
	p->diags->v[p->diags->n++] = (struct clause_diag){ offset, msg };
}

static size_t
edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row = egg_xcalloc(lb + 1, sizeof *row);
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag_prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag_prev + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag_prev = up;
		}
	}
	size_t d = row[lb];
	free(row);
	return d;
}

const char *
clauses_suggest(const char *word, const char *const *candidates, size_t n)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1;
	size_t limit = strlen(word) <= 3 ? 1 : 2;
	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(word, candidates[i]);
		if (d < best_d) {
			best_d = d;
			best = candidates[i];
		}
	}
	if (best && best_d <= limit && best_d < strlen(word))
		return best;
	/* "xs" for "x": a candidate that is a prefix of the word is a typo too. */
	for (size_t i = 0; i < n; i++)
		if (egg_str_starts(word, candidates[i]) && strlen(candidates[i]) > 0)
			return candidates[i];
	return NULL;
}

/* "; did you mean 'x'?" or "" (static storage for the result). */
static const char *
hint(const char *word, const char *const *candidates, size_t n)
{
	static char buf[160];
	const char *s = clauses_suggest(word, candidates, n);
	if (!s)
		return "";
	snprintf(buf, sizeof buf, "; did you mean '%s'?", s);
	return buf;
}

static const char **
param_names(const struct egg_bundle *b, int pointers, int scalars, size_t *n)
{
	const char **v = egg_xcalloc(b->n_params + 1, sizeof *v);
	*n = 0;
	for (size_t i = 0; i < b->n_params; i++)
		if (b->params[i].is_pointer ? pointers : scalars)
			v[(*n)++] = b->params[i].name;
	return v;
}

static struct bundle_param *
find_param(struct egg_bundle *b, const char *name)
{
	for (size_t i = 0; i < b->n_params; i++)
		if (strcmp(b->params[i].name, name) == 0)
			return &b->params[i];
	return NULL;
}

static int
is_ident_start(int c)
{
	return isalpha(c) || c == '_';
}

static int
is_ident_char(int c)
{
	return isalnum(c) || c == '_';
}

static size_t
skip_blanks(const char *s, size_t i)
{
	while (s[i] && (isspace((unsigned char)s[i]) || s[i] == '\\'))
		i++;
	return i;
}

static char *
arg_text(const struct parser *p, struct arg a)
{
	return egg_xstrndup(p->text + a.start, a.end - a.start);
}

static struct arg
trim(const char *s, size_t start, size_t end)
{
	while (start < end && isspace((unsigned char)s[start]))
		start++;
	while (end > start && isspace((unsigned char)s[end - 1]))
		end--;
	return (struct arg){ start, end };
}

/* Splits [start, end) on commas at bracket depth 0. */
static struct arg *
split_args(const char *s, size_t start, size_t end, size_t *n)
{
	struct arg *v = NULL;
	*n = 0;
	int depth = 0;
	size_t from = start;
	for (size_t i = start; i <= end; i++) {
		char c = i < end ? s[i] : ',';
		if (c == '(' || c == '[' || c == '{')
			depth++;
		else if (c == ')' || c == ']' || c == '}')
			depth--;
		if ((c == ',' && depth <= 0) || i == end) {
			v = egg_xrealloc(v, (*n + 1) * sizeof *v);
			v[(*n)++] = trim(s, from, i);
			from = i + 1;
		}
	}
	return v;
}

/* Checks the characters and brackets of an expression; queues its names. */
static int
check_expr(struct parser *p, struct arg a, const char *what)
{
	const char *s = p->text;
	if (a.start == a.end) {
		diag(p, a.start, "empty expression in %s", what);
		return -1;
	}
	char stack[64];
	size_t depth = 0;
	for (size_t i = a.start; i < a.end; i++) {
		char c = s[i];
		if (c == '(' || c == '[') {
			if (depth == sizeof stack) {
				diag(p, i, "expression in %s nests too deeply", what);
				return -1;
			}
			stack[depth++] = c;
		} else if (c == ')' || c == ']') {
			char open = c == ')' ? '(' : '[';
			if (depth == 0 || stack[depth - 1] != open) {
				diag(p, i, "unbalanced '%c' in %s", c, what);
				return -1;
			}
			depth--;
		} else if (!(isalnum((unsigned char)c) || isspace((unsigned char)c) ||
			     strchr("_.+-*/%<>=!&|^~?:,", c))) {
			diag(p, i, "unexpected character '%c' in %s", c, what);
			return -1;
		}
	}
	if (depth) {
		diag(p, a.end, "missing '%c' in %s", stack[depth - 1] == '(' ? ')' : ']', what);
		return -1;
	}
	p->exprs = egg_xrealloc(p->exprs, (p->n_exprs + 1) * sizeof *p->exprs);
	p->exprs[p->n_exprs++] = (struct pending_expr){ a.start, arg_text(p, a), what, NULL };
	return 0;
}

/* An identifier at the start of a (trimmed) argument, or 0 if none. */
static size_t
ident_len(const char *s, size_t start, size_t end)
{
	if (start >= end || !is_ident_start((unsigned char)s[start]))
		return 0;
	size_t i = start;
	while (i < end && is_ident_char((unsigned char)s[i]))
		i++;
	return i - start;
}

static void
clause_buffers(struct parser *p, enum bundle_role role, struct arg body)
{
	size_t n;
	struct arg *args = split_args(p->text, body.start, body.end, &n);
	size_t n_ptrs;
	const char **ptrs = param_names(p->b, 1, 0, &n_ptrs);
	const char *clause = bundle_role_name(role);
	for (size_t i = 0; i < n; i++) {
		struct arg a = args[i];
		size_t len = ident_len(p->text, a.start, a.end);
		if (!len) {
			diag(p, a.start, "expected a parameter name in %s(...)", clause);
			continue;
		}
		char *name = egg_xstrndup(p->text + a.start, len);
		struct bundle_param *bp = find_param(p->b, name);
		if (!bp) {
			diag(p, a.start, "unknown parameter '%s' in %s(...)%s", name, clause,
			     hint(name, ptrs, n_ptrs));
			free(name);
			continue;
		}
		if (!bp->is_pointer) {
			diag(p, a.start, "'%s' in %s(...) is not a pointer parameter", name, clause);
			free(name);
			continue;
		}
		if (bp->role != ROLE_SCALAR)
			diag(p, a.start, "parameter '%s' has two roles ('%s' and '%s')", name,
			     bundle_role_name(bp->role), clause);
		else if (bp->is_const && role != ROLE_IN)
			diag(p, a.start, "'%s' points to const data, so it cannot be %s(...); did you mean in(...)?",
			     name, clause);
		size_t j = skip_blanks(p->text, a.start + len);
		if (j >= a.end) {
			bp->role = role;
			diag(p, a.end, "'%s' in %s(...) needs an extent: %s[ELEMENTS]", name, clause, name);
			free(name);
			continue;
		}
		if (p->text[j] != '[' || p->text[a.end - 1] != ']') {
			diag(p, j, "expected '[' extent ']' after '%s' in %s(...)", name, clause);
			free(name);
			continue;
		}
		struct arg ext = trim(p->text, j + 1, a.end - 1);
		char *what = egg_xasprintf("the extent of '%s'", name);
		bp->role = role;
		if (check_expr(p, ext, what) == 0) {
			free(bp->extent);
			bp->extent = arg_text(p, ext);
			p->exprs[p->n_exprs - 1].what_owned = what;
			p->exprs[p->n_exprs - 1].what = what;
		} else {
			free(what);
		}
		free(name);
	}
	free(ptrs);
	free(args);
}

/* Splits "NAME = VALUE": the name's length and the value; -1 if not that shape. */
/* ---- values known before anything runs ----
 *
 * A clause value is C text that the harness compiles, so most mistakes show up
 * only when it runs: a negative or empty extent, a division by zero, a size
 * that overflows its type or no GPU can hold.  When a value is made of
 * literals and of names the same workload binds (no macro, no call), it is
 * computed here, as C would (integers in 64 bits, checked for overflow), and
 * such mistakes are told at the pragma. */

enum cv_status { CV_OK, CV_UNKNOWN, CV_DIV_ZERO, CV_OVERFLOW };

struct cv {
	int is_float;
	long long i;
	double d;
};

struct ceval {
	const char *s;
	size_t i, end;
	const struct bundle_workload *w; /* the names it may use; NULL: literals only */
	int depth;
	enum cv_status st;
};

static double
cv_num(struct cv v)
{
	return v.is_float ? v.d : (double)v.i;
}

static void
ce_blank(struct ceval *e)
{
	while (e->i < e->end && isspace((unsigned char)e->s[e->i]))
		e->i++;
}

static int
ce_take(struct ceval *e, const char *op)
{
	ce_blank(e);
	size_t n = strlen(op);
	if (e->i + n > e->end || strncmp(e->s + e->i, op, n) != 0)
		return 0;
	/* "<" is not the start of "<<" or "<=", "&" not of "&&", ... */
	if (n == 1 && e->i + 1 < e->end && strchr("<>&|=", op[0]) && e->s[e->i + 1] == op[0])
		return 0;
	if (n == 1 && e->i + 1 < e->end && strchr("<>!=", op[0]) && e->s[e->i + 1] == '=')
		return 0;
	e->i += n;
	return 1;
}

static struct cv ce_expr(struct ceval *e, int min_prec);

static struct cv
ce_value_of(struct ceval *e, const char *text, size_t len)
{
	struct cv r = { 0, 0, 0 };
	if (!e->w || e->depth > 8) {
		e->st = CV_UNKNOWN;
		return r;
	}
	for (size_t k = 0; k < e->w->n_bindings; k++) {
		const struct bundle_binding *bb = &e->w->bindings[k];
		if (strlen(bb->name) == len && strncmp(bb->name, text, len) == 0) {
			struct ceval sub = { bb->value, 0, strlen(bb->value), e->w, e->depth + 1, CV_OK };
			r = ce_expr(&sub, 0);
			ce_blank(&sub);
			if (sub.st == CV_OK && sub.i != sub.end)
				sub.st = CV_UNKNOWN;
			if (sub.st != CV_OK)
				e->st = sub.st;
			return r;
		}
	}
	e->st = CV_UNKNOWN; /* a macro, a constant of the file, a function */
	return r;
}

static struct cv
ce_primary(struct ceval *e)
{
	struct cv r = { 0, 0, 0 };
	ce_blank(e);
	if (e->i >= e->end) {
		e->st = CV_UNKNOWN;
		return r;
	}
	char c = e->s[e->i];
	if (c == '(') {
		e->i++;
		r = ce_expr(e, 0);
		if (!ce_take(e, ")"))
			e->st = CV_UNKNOWN;
		return r;
	}
	if (isdigit((unsigned char)c) || (c == '.' && e->i + 1 < e->end && isdigit((unsigned char)e->s[e->i + 1]))) {
		char buf[64];
		size_t n = 0;
		while (e->i + n < e->end && n < sizeof buf - 1 &&
		       (isalnum((unsigned char)e->s[e->i + n]) || e->s[e->i + n] == '.' ||
		        ((e->s[e->i + n] == '+' || e->s[e->i + n] == '-') && n > 0 &&
		         (e->s[e->i + n - 1] == 'e' || e->s[e->i + n - 1] == 'E') &&
		         !(buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')))))
			buf[n] = e->s[e->i + n], n++;
		buf[n] = '\0';
		e->i += n;
		int hex = buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X');
		if (!hex && strpbrk(buf, ".eE")) {
			char *end;
			r.is_float = 1;
			r.d = strtod(buf, &end);
			if (*end && strspn(end, "fFlL") != strlen(end))
				e->st = CV_UNKNOWN;
			return r;
		}
		char *end;
		errno = 0;
		unsigned long long u = strtoull(buf, &end, 0);
		if (strspn(end, "uUlL") != strlen(end))
			e->st = CV_UNKNOWN;
		else if (errno == ERANGE || u > (unsigned long long)LLONG_MAX)
			e->st = CV_OVERFLOW;
		r.i = (long long)u;
		return r;
	}
	if (isalpha((unsigned char)c) || c == '_') {
		size_t n = 0;
		while (e->i + n < e->end && (isalnum((unsigned char)e->s[e->i + n]) || e->s[e->i + n] == '_'))
			n++;
		const char *name = e->s + e->i;
		e->i += n;
		ce_blank(e);
		if (e->i < e->end && e->s[e->i] == '(') { /* a call */
			e->st = CV_UNKNOWN;
			return r;
		}
		return ce_value_of(e, name, n);
	}
	e->st = CV_UNKNOWN;
	return r;
}

static struct cv
ce_unary(struct ceval *e)
{
	if (ce_take(e, "-")) {
		struct cv v = ce_unary(e);
		if (v.is_float)
			v.d = -v.d;
		else if (v.i == LLONG_MIN)
			e->st = CV_OVERFLOW;
		else
			v.i = -v.i;
		return v;
	}
	if (ce_take(e, "+"))
		return ce_unary(e);
	if (ce_take(e, "!")) {
		struct cv v = ce_unary(e);
		return (struct cv){ 0, cv_num(v) == 0, 0 };
	}
	if (ce_take(e, "~")) {
		struct cv v = ce_unary(e);
		if (v.is_float)
			e->st = CV_UNKNOWN;
		v.i = ~v.i;
		return v;
	}
	return ce_primary(e);
}

static const struct {
	const char *op;
	int prec;
} ce_ops[] = {
	{ "||", 1 }, { "&&", 2 }, { "|", 3 }, { "^", 4 }, { "&", 5 },
	{ "==", 6 }, { "!=", 6 }, { "<=", 7 }, { ">=", 7 }, { "<<", 8 }, { ">>", 8 },
	{ "<", 7 }, { ">", 7 }, { "+", 9 }, { "-", 9 }, { "*", 10 }, { "/", 10 }, { "%", 10 },
};

static struct cv
ce_apply(struct ceval *e, const char *op, struct cv a, struct cv b)
{
	struct cv r = { 0, 0, 0 };
	int fl = a.is_float || b.is_float;
	double x = cv_num(a), y = cv_num(b);
	if (!strcmp(op, "||") || !strcmp(op, "&&")) {
		r.i = !strcmp(op, "||") ? (x != 0 || y != 0) : (x != 0 && y != 0);
		return r;
	}
	if (!strcmp(op, "==") || !strcmp(op, "!=") || !strcmp(op, "<") || !strcmp(op, ">") ||
	    !strcmp(op, "<=") || !strcmp(op, ">=")) {
		int c = fl ? (x > y) - (x < y) : (a.i > b.i) - (a.i < b.i);
		r.i = !strcmp(op, "==") ? c == 0 : !strcmp(op, "!=") ? c != 0 : !strcmp(op, "<") ? c < 0
		    : !strcmp(op, ">") ? c > 0 : !strcmp(op, "<=") ? c <= 0 : c >= 0;
		return r;
	}
	if (fl) {
		if (strchr("|^&%", op[0]) || !strcmp(op, "<<") || !strcmp(op, ">>")) {
			e->st = CV_UNKNOWN; /* not C on floating values */
			return r;
		}
		r.is_float = 1;
		if (op[0] == '/' && y == 0) {
			e->st = CV_DIV_ZERO;
			return r;
		}
		r.d = op[0] == '+' ? x + y : op[0] == '-' ? x - y : op[0] == '*' ? x * y : x / y;
		return r;
	}
	long long p = a.i, q = b.i, v = 0;
	int over = 0;
	switch (op[0]) {
	case '+': over = __builtin_add_overflow(p, q, &v); break;
	case '-': over = __builtin_sub_overflow(p, q, &v); break;
	case '*': over = __builtin_mul_overflow(p, q, &v); break;
	case '/':
	case '%':
		if (q == 0) {
			e->st = CV_DIV_ZERO;
			return r;
		}
		over = p == LLONG_MIN && q == -1;
		v = over ? 0 : op[0] == '/' ? p / q : p % q;
		break;
	case '|': v = p | q; break;
	case '^': v = p ^ q; break;
	case '&': v = p & q; break;
	case '<': /* << : undefined in C for a negative operand or count, or past 63 bits */
		over = q < 0 || q > 62 || p < 0 || p > (LLONG_MAX >> q);
		v = over ? 0 : p << q;
		break;
	case '>': /* >> */
		over = q < 0 || q > 63;
		v = over ? 0 : p >> q;
		break;
	}
	if (over)
		e->st = CV_OVERFLOW;
	r.i = v;
	return r;
}

/* Precedence climbing over C's binary operators, then ?:. */
static struct cv
ce_expr(struct ceval *e, int min_prec)
{
	struct cv a = ce_unary(e);
	for (;;) {
		if (e->st != CV_OK)
			return a;
		size_t k, n = sizeof ce_ops / sizeof ce_ops[0];
		for (k = 0; k < n; k++)
			if (ce_ops[k].prec >= min_prec && ce_take(e, ce_ops[k].op))
				break;
		if (k == n)
			break;
		struct cv b = ce_expr(e, ce_ops[k].prec + 1);
		if (e->st != CV_OK)
			return a;
		a = ce_apply(e, ce_ops[k].op, a, b);
	}
	if (min_prec == 0 && ce_take(e, "?")) {
		struct cv t = ce_expr(e, 0);
		if (!ce_take(e, ":")) {
			e->st = CV_UNKNOWN;
			return a;
		}
		struct cv f = ce_expr(e, 0);
		return cv_num(a) != 0 ? t : f;
	}
	return a;
}

/* Evaluates text (the names of w in scope, or none); CV_UNKNOWN when it uses
 * anything else or is not an expression this evaluator reads. */
static enum cv_status
const_eval(const char *text, const struct bundle_workload *w, struct cv *out)
{
	struct ceval e = { text, 0, strlen(text), w, 0, CV_OK };
	*out = ce_expr(&e, 0);
	ce_blank(&e);
	if (e.st == CV_OK && e.i != e.end)
		e.st = CV_UNKNOWN;
	return e.st;
}

/* The range of values of a scalar parameter's integer type (as its declared
 * spelling says); 0 for floating and unknown types. */
static int
int_type_range(const char *type, long long *lo, long long *hi)
{
	if (!type || strstr(type, "float") || strstr(type, "double") || strstr(type, "half"))
		return 0;
	int is_unsigned = strstr(type, "unsigned") || strstr(type, "size_t") || strstr(type, "uint");
	int bits = strstr(type, "long") || strstr(type, "size_t") || strstr(type, "int64") ? 64
	         : strstr(type, "short") || strstr(type, "int16") ? 16
	         : strstr(type, "char") || strstr(type, "int8") ? 8
	         : strstr(type, "int") || strstr(type, "unsigned") ? 32 : 0;
	if (!bits)
		return 0;
	if (bits == 64) {
		*lo = is_unsigned ? 0 : LLONG_MIN;
		*hi = LLONG_MAX;
	} else {
		*lo = is_unsigned ? 0 : -(1LL << (bits - 1));
		*hi = is_unsigned ? (1LL << bits) - 1 : (1LL << (bits - 1)) - 1;
	}
	return 1;
}

/* Bytes per element of a buffer of elem_type, for the size check only: 4 when
 * the name says nothing (a vector type such as float4 counts as its scalar, so
 * the check errs on the side of silence). */
static long long
elem_bytes(const char *t)
{
	if (!t)
		return 4;
	if (strstr(t, "double") || strstr(t, "long") || strstr(t, "int64") || strstr(t, "size_t"))
		return 8;
	if (strstr(t, "half") || strstr(t, "bfloat16") || strstr(t, "short") || strstr(t, "int16"))
		return 2;
	if (strstr(t, "char") || strstr(t, "int8") || strstr(t, "bool"))
		return 1;
	return 4;
}

/* No GPU holds a buffer larger than this (the H200 has 141 GB). */
#define MAX_BUFFER_BYTES (256LL << 30)

/* The value of binding `name` in w just read (at offset at): a division by zero,
 * an overflow, or a value its integer parameter cannot hold. */
static void
check_binding_value(struct parser *p, const struct bundle_workload *w, const char *name,
		    const char *value, size_t at)
{
	struct cv v;
	enum cv_status st = const_eval(value, w, &v);
	if (st == CV_DIV_ZERO) {
		diag(p, at, "the value of '%s' divides by zero", name);
		return;
	}
	if (st == CV_OVERFLOW) {
		diag(p, at, "the value of '%s' overflows 64-bit arithmetic", name);
		return;
	}
	struct bundle_param *bp = find_param(p->b, name);
	long long lo, hi;
	if (st == CV_OK && bp && !bp->is_pointer && !v.is_float && int_type_range(bp->type, &lo, &hi) &&
	    (v.i < lo || v.i > hi))
		diag(p, at, "%s = %lld does not fit '%s' (%lld to %lld)", name, v.i, bp->type, lo, hi);
}

/* Every buffer's extent, in every workload where it is known before anything
 * runs, is at least one element and fits a GPU.  Told once, for the first
 * such buffer: one cause, one message. */
static void
check_extents(struct parser *p)
{
	const struct egg_bundle *b = p->b;
	for (size_t k = 0; k < b->n_workloads && p->diags->n == p->n_before; k++) {
		for (size_t i = 0; i < b->n_params; i++) {
			const struct bundle_param *bp = &b->params[i];
			if (!bp->is_pointer || !bp->extent ||
			    bundle_workload_leaves_null(b, &b->workloads[k], bp->name))
				continue;
			struct cv v;
			enum cv_status st = const_eval(bp->extent, &b->workloads[k], &v);
			size_t at = p->workload_at ? p->workload_at[k] : CLAUSE_AT_PRAGMA;
			double n = cv_num(v);
			if (st == CV_DIV_ZERO)
				diag(p, at, "the extent of '%s' (%s) divides by zero in workload %zu", bp->name,
				     bp->extent, k + 1);
			else if (st == CV_OVERFLOW)
				diag(p, at, "the extent of '%s' (%s) overflows 64-bit arithmetic in workload %zu",
				     bp->name, bp->extent, k + 1);
			else if (st == CV_OK && n < 1)
				diag(p, at, "buffer '%s' has %.0f elements in workload %zu (its extent %s must be at least 1)",
				     bp->name, n, k + 1, bp->extent);
			else if (st == CV_OK && n * (double)elem_bytes(bp->elem_type) > (double)MAX_BUFFER_BYTES)
				diag(p, at, "buffer '%s' would take %.3g bytes in workload %zu (%s elements), more than a GPU holds",
				     bp->name, n * (double)elem_bytes(bp->elem_type), k + 1, bp->extent);
			else
				continue;
			return;
		}
	}
}

static int
split_binding(const struct parser *p, struct arg a, size_t *name_len, struct arg *value)
{
	size_t len = ident_len(p->text, a.start, a.end);
	size_t eq = len ? skip_blanks(p->text, a.start + len) : a.start;
	if (!len || eq >= a.end || p->text[eq] != '=' || p->text[eq + 1] == '=')
		return -1;
	*name_len = len;
	*value = trim(p->text, eq + 1, a.end);
	return 0;
}

static void
clause_workload(struct parser *p, struct arg body)
{
	size_t n;
	struct arg *args = split_args(p->text, body.start, body.end, &n);
	struct bundle_workload w = { NULL, 0 };
	for (size_t i = 0; i < n; i++) {
		struct arg a = args[i], val;
		size_t len;
		if (split_binding(p, a, &len, &val) != 0) {
			diag(p, a.start, "expected NAME = VALUE in workload(...)");
			continue;
		}
		char *name = egg_xstrndup(p->text + a.start, len);
		for (size_t k = 0; k < w.n_bindings; k++)
			if (strcmp(w.bindings[k].name, name) == 0)
				diag(p, a.start, "'%s' is bound twice in one workload(...)", name);
		const struct bundle_param *bp = find_param(p->b, name);
		if (bp && bp->is_pointer) { /* an optional pointer, left NULL in this call */
			char *v = arg_text(p, val);
			int null = bundle_is_null_spelling(v);
			free(v);
			if (!null) {
				diag(p, val.start, "pointer parameter '%s' can only be left NULL in workload(...) "
				     "(%s = NULL: a call without it)", name, name);
				free(name);
				continue;
			}
			w.bindings = egg_xrealloc(w.bindings, (w.n_bindings + 1) * sizeof *w.bindings);
			w.bindings[w.n_bindings++] = (struct bundle_binding){ name, egg_xstrdup("NULL") };
			continue;
		}
		if (check_expr(p, val, "workload(...)") != 0) {
			free(name);
			continue;
		}
		w.bindings = egg_xrealloc(w.bindings, (w.n_bindings + 1) * sizeof *w.bindings);
		w.bindings[w.n_bindings++] = (struct bundle_binding){ name, arg_text(p, val) };
		check_binding_value(p, &w, name, w.bindings[w.n_bindings - 1].value, val.start);
		p->names = egg_xrealloc(p->names, (p->n_names + 1) * sizeof *p->names);
		p->names[p->n_names++] = name;
	}
	free(args);
	if (!w.n_bindings) {
		free(w.bindings);
		return;
	}
	struct egg_bundle *b = p->b;
	p->workload_at = egg_xrealloc(p->workload_at, (b->n_workloads + 1) * sizeof *p->workload_at);
	p->workload_at[b->n_workloads] = body.start;
	b->workloads = egg_xrealloc(b->workloads, (b->n_workloads + 1) * sizeof *b->workloads);
	b->workloads[b->n_workloads++] = w;
}

static void
clause_range(struct parser *p, struct arg body)
{
	size_t n;
	struct arg *args = split_args(p->text, body.start, body.end, &n);
	if (n != 3) {
		diag(p, body.start, "range(...) takes three arguments: range(BUFFER, LO, HI)");
		free(args);
		return;
	}
	char *name = arg_text(p, args[0]);
	struct bundle_param *bp = find_param(p->b, name);
	size_t n_ptrs;
	const char **ptrs = param_names(p->b, 1, 0, &n_ptrs);
	if (!bp)
		diag(p, args[0].start, "unknown parameter '%s' in range(...)%s", name,
		     hint(name, ptrs, n_ptrs));
	else if (!bp->is_pointer)
		diag(p, args[0].start, "'%s' in range(...) is not a pointer parameter", name);
	else if (check_expr(p, args[1], "range(...)") == 0 &&
		 check_expr(p, args[2], "range(...)") == 0) {
		free(bp->range_lo);
		free(bp->range_hi);
		bp->range_lo = arg_text(p, args[1]);
		bp->range_hi = arg_text(p, args[2]);
		struct cv lo, hi;
		if (const_eval(bp->range_lo, NULL, &lo) == CV_OK && const_eval(bp->range_hi, NULL, &hi) == CV_OK &&
		    cv_num(lo) >= cv_num(hi))
			diag(p, args[1].start, "range(%s, %s, %s) is empty: LO must be below HI", name,
			     bp->range_lo, bp->range_hi);
	}
	free(ptrs);
	free(name);
	free(args);
}

/* aligned(a, b) or aligned(a, b : N): the base pointers are N-byte aligned (16
 * unless said) at every call, so the probe calls do not offset them. */
static void
clause_aligned(struct parser *p, struct arg body)
{
	size_t colon = body.end;
	for (size_t i = body.start; i < body.end; i++)
		if (p->text[i] == ':') {
			colon = i;
			break;
		}
	unsigned align = 16;
	if (colon < body.end) {
		struct arg v = trim(p->text, colon + 1, body.end);
		char *t = arg_text(p, v);
		struct cv cv;
		if (const_eval(t, NULL, &cv) != CV_OK || cv.is_float || cv.i < 1 || cv.i > 4096 ||
		    (cv.i & (cv.i - 1)))
			diag(p, v.start, "the alignment in aligned(...) must be a power of two from 1 "
			     "to 4096 bytes, not '%s'", t);
		else
			align = (unsigned)cv.i;
		free(t);
	}
	size_t n;
	struct arg *args = split_args(p->text, body.start, colon, &n);
	if (n == 0)
		diag(p, body.start, "aligned(...) names no buffer: aligned(BUFFER, ... [: BYTES])");
	size_t n_ptrs;
	const char **ptrs = param_names(p->b, 1, 0, &n_ptrs);
	for (size_t i = 0; i < n; i++) {
		char *name = arg_text(p, args[i]);
		struct bundle_param *bp = find_param(p->b, name);
		if (!bp)
			diag(p, args[i].start, "unknown parameter '%s' in aligned(...)%s", name,
			     hint(name, ptrs, n_ptrs));
		else if (!bp->is_pointer)
			diag(p, args[i].start, "'%s' in aligned(...) is not a pointer parameter", name);
		else
			bp->align = align;
		free(name);
	}
	free(ptrs);
	free(args);
}

static void
clause_tolerance(struct parser *p, struct arg body)
{
	size_t n;
	struct arg *args = split_args(p->text, body.start, body.end, &n);
	if (p->seen_tolerance++)
		diag(p, body.start, "tolerance(...) is given twice");
	for (size_t i = 0; i < n; i++) {
		struct arg a = args[i], val;
		size_t len = 0;
		char **slot = NULL;
		if (split_binding(p, a, &len, &val) == 0 && len == 4) {
			if (strncmp(p->text + a.start, "rtol", 4) == 0)
				slot = &p->b->rtol;
			else if (strncmp(p->text + a.start, "atol", 4) == 0)
				slot = &p->b->atol;
		}
		if (!slot) {
			diag(p, a.start, "expected rtol = VALUE or atol = VALUE in tolerance(...)");
			continue;
		}
		if (check_expr(p, val, "tolerance(...)") == 0) {
			free(*slot);
			*slot = arg_text(p, val);
			struct cv v;
			enum cv_status st = const_eval(*slot, NULL, &v);
			if (st == CV_OK && !(cv_num(v) >= 0)) /* NaN too */
				diag(p, val.start, "%.4s = %s: a tolerance must not be negative",
				     p->text + a.start, *slot);
			else if (st == CV_DIV_ZERO)
				diag(p, val.start, "the value of %.4s divides by zero", p->text + a.start);
		}
	}
	free(args);
}

static void
clause_precision(struct parser *p, struct arg body)
{
	char *word = arg_text(p, body);
	enum bundle_precision prec;
	static const char *const names[] = { "tf32", "bf16", "fp16" };
	if (p->seen_precision++)
		diag(p, body.start, "precision(...) is given twice");
	if (bundle_precision_parse(word, &prec) != 0)
		diag(p, body.start, "unknown precision '%s'; expected tf32, bf16 or fp16%s", word,
		     hint(word, names, 3));
	else
		p->b->precision = prec;
	free(word);
}

static void
clause_launch(struct parser *p, struct arg body, size_t name_at)
{
	size_t n;
	struct arg *args = split_args(p->text, body.start, body.end, &n);
	struct egg_bundle *b = p->b;
	if (p->seen_launch++)
		diag(p, name_at, "launch(...) is given twice");
	if (b->kind != BUNDLE_KERNEL)
		diag(p, name_at, "launch(...) applies to a __global__ kernel; a launcher chooses its own geometry");
	else if (n < 2 || n > 3)
		diag(p, body.start, "launch(...) takes two or three arguments: launch(GRID, BLOCK[, SMEM])");
	else if (check_expr(p, args[0], "launch(...)") == 0 &&
		 check_expr(p, args[1], "launch(...)") == 0 &&
		 (n == 2 || check_expr(p, args[2], "launch(...)") == 0)) {
		free(b->launch_grid);
		free(b->launch_block);
		free(b->launch_smem);
		b->launch_grid = arg_text(p, args[0]);
		b->launch_block = arg_text(p, args[1]);
		b->launch_smem = n == 3 ? arg_text(p, args[2]) : egg_xstrdup("0");
	}
	free(args);
}

static const char *const clause_names[] = {
	"in", "out", "inout", "temp", "workload", "range", "tolerance", "precision", "launch",
	"aligned",
};

static void
dispatch(struct parser *p, const char *name, size_t name_at, struct arg body)
{
	if (strcmp(name, "in") == 0)
		clause_buffers(p, ROLE_IN, body);
	else if (strcmp(name, "out") == 0)
		clause_buffers(p, ROLE_OUT, body);
	else if (strcmp(name, "inout") == 0)
		clause_buffers(p, ROLE_INOUT, body);
	else if (strcmp(name, "temp") == 0)
		clause_buffers(p, ROLE_TEMP, body);
	else if (strcmp(name, "workload") == 0)
		clause_workload(p, body);
	else if (strcmp(name, "range") == 0)
		clause_range(p, body);
	else if (strcmp(name, "tolerance") == 0)
		clause_tolerance(p, body);
	else if (strcmp(name, "precision") == 0)
		clause_precision(p, body);
	else if (strcmp(name, "launch") == 0)
		clause_launch(p, body, name_at);
	else if (strcmp(name, "aligned") == 0)
		clause_aligned(p, body);
	else
		diag(p, name_at, "unknown clause '%s'%s", name,
		     hint(name, clause_names, sizeof clause_names / sizeof *clause_names));
}

/* The end of the bracket group opened at s[open] (index of its ')'), or 0. */
static size_t
matching_paren(const char *s, size_t open)
{
	int depth = 0;
	for (size_t i = open; s[i]; i++) {
		if (s[i] == '(')
			depth++;
		else if (s[i] == ')' && --depth == 0)
			return i;
	}
	return 0;
}

static void
unknown_name(struct parser *p, size_t at, const char *id, const char *what, const char *const *known, size_t n)
{
	const char *h = hint(id, known, n);
	if (*h || n == 0) {
		diag(p, at, "unknown name '%s' in %s%s", id, what, h);
		return;
	}
	struct strbuf list = STRBUF_INIT;
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&list, "%s'%s'", i ? ", " : "", known[i]);
	diag(p, at, "unknown name '%s' in %s; it may use %s", id, what, list.buf);
	strbuf_release(&list);
}

/* Names in queued expressions must be scalar parameters or workload names. */
static void
check_names(struct parser *p)
{
	size_t n_scalars;
	const char **scalars = param_names(p->b, 0, 1, &n_scalars);
	size_t n_all = n_scalars + p->n_names;
	const char **all = egg_xcalloc(n_all + 1, sizeof *all);
	memcpy(all, scalars, n_scalars * sizeof *all);
	n_all = n_scalars;
	for (size_t i = 0; i < p->n_names; i++) {
		size_t k = 0;
		while (k < n_all && strcmp(all[k], p->names[i]) != 0)
			k++;
		if (k == n_all)
			all[n_all++] = p->names[i];
	}
	for (size_t e = 0; e < p->n_exprs; e++) {
		const char *s = p->exprs[e].text;
		for (size_t i = 0; s[i];) {
			if (isdigit((unsigned char)s[i]) || (s[i] == '.' && isdigit((unsigned char)s[i + 1]))) {
				/* A number, with its exponent and suffixes (1e-5f, 0x1p3). */
				while (is_ident_char((unsigned char)s[i]) || s[i] == '.' ||
				       ((s[i] == '+' || s[i] == '-') && strchr("eEpP", s[i - 1])))
					i++;
				continue;
			}
			if (!is_ident_start((unsigned char)s[i])) {
				i++;
				continue;
			}
			size_t start = i;
			while (is_ident_char((unsigned char)s[i]))
				i++;
			char *id = egg_xstrndup(s + start, i - start);
			size_t after = skip_blanks(s, i);
			int known = s[after] == '(' || strcmp(id, "sizeof") == 0;
			for (size_t k = 0; !known && k < n_all; k++)
				known = strcmp(all[k], id) == 0;
			for (size_t k = 0; !known && p->known && p->known[k]; k++)
				known = strcmp(p->known[k], id) == 0;
			if (!known)
				unknown_name(p, p->exprs[e].offset + start, id, p->exprs[e].what, all, n_all);
			free(id);
		}
	}
	free(all);
	free(scalars);
}

static int
workload_binds(const struct bundle_workload *w, const char *name)
{
	for (size_t k = 0; k < w->n_bindings; k++)
		if (strcmp(w->bindings[k].name, name) == 0)
			return 1;
	return 0;
}

/* Every scalar parameter needs a value in every workload: egg checks and times
 * the function on the values the user names and invents none (a coefficient
 * of 0 or 1 would hide a wrong candidate, an invented size would time a call
 * the program never makes).  Told once, for the first such parameter, at the
 * pragma: one cause, one message. */
static void
check_scalars_bound(struct parser *p)
{
	if (p->diags->n != p->n_before)
		return;
	const struct egg_bundle *b = p->b;
	for (size_t i = 0; i < b->n_params; i++) {
		const struct bundle_param *bp = &b->params[i];
		if (bp->is_pointer)
			continue;
		size_t missing = 0;
		while (missing < b->n_workloads && workload_binds(&b->workloads[missing], bp->name))
			missing++;
		if (b->n_workloads == 0)
			diag(p, CLAUSE_AT_PRAGMA,
			     "scalar parameter '%s' needs a value to check and time the function with; "
			     "add workload(%s = VALUE, ...)", bp->name, bp->name);
		else if (missing < b->n_workloads)
			diag(p, CLAUSE_AT_PRAGMA,
			     "scalar parameter '%s' has no value in workload %zu of %zu; "
			     "give it one in every workload(...), e.g. workload(..., %s = VALUE)",
			     bp->name, missing + 1, b->n_workloads, bp->name);
		else
			continue;
		return;
	}
}

/* A workload that leaves every output NULL has nothing to compare.  Told once,
 * for the first such workload. */
static void
check_outputs_present(struct parser *p)
{
	const struct egg_bundle *b = p->b;
	for (size_t k = 0; k < b->n_workloads && p->diags->n == p->n_before; k++) {
		int outputs = 0, present = 0;
		for (size_t i = 0; i < b->n_params; i++) {
			const struct bundle_param *bp = &b->params[i];
			if (!bp->is_pointer || (bp->role != ROLE_OUT && bp->role != ROLE_INOUT))
				continue;
			outputs++;
			present += !bundle_workload_leaves_null(b, &b->workloads[k], bp->name);
		}
		if (outputs && !present)
			diag(p, p->workload_at ? p->workload_at[k] : CLAUSE_AT_PRAGMA,
			     "workload %zu leaves every output NULL: there is nothing to compare", k + 1);
	}
}

/* Every pointer parameter needs a role; a kernel needs its launch geometry.
 * A pragma that already has a problem is not told about the roles its broken
 * clause would have given: one cause, one message. */
static void
check_complete(struct parser *p)
{
	for (size_t i = 0; p->diags->n == p->n_before && i < p->b->n_params; i++) {
		struct bundle_param *bp = &p->b->params[i];
		if (bp->is_pointer && bp->role == ROLE_SCALAR)
			diag(p, CLAUSE_AT_PRAGMA,
			     "pointer parameter '%s' has no role; name it in in(...), out(...), inout(...) or temp(...) with its extent",
			     bp->name);
	}
	if (p->b->kind == BUNDLE_KERNEL && !p->b->launch_grid && !p->seen_launch)
		diag(p, CLAUSE_AT_PRAGMA,
		     "a __global__ target needs launch(GRID, BLOCK[, SMEM]) to know its callers' geometry");
	check_scalars_bound(p);
	check_outputs_present(p);
	check_extents(p);
}

size_t
clauses_parse(const char *text, struct egg_bundle *b, const char *const *known_names,
	      struct clause_diags *diags)
{
	struct parser p = { .text = text, .b = b, .diags = diags, .n_before = diags->n, .known = known_names };
	size_t i = 0;
	for (;;) {
		while (text[i] && (isspace((unsigned char)text[i]) || text[i] == ',' || text[i] == '\\'))
			i++;
		if (!text[i])
			break;
		size_t len = ident_len(text, i, strlen(text));
		if (!len) {
			diag(&p, i, "expected a clause name, found '%c'", text[i]);
			break;
		}
		char *name = egg_xstrndup(text + i, len);
		size_t open = skip_blanks(text, i + len);
		if (text[open] != '(') {
			diag(&p, open, "expected '(' after clause '%s'", name);
			free(name);
			i = open;
			/* Resynchronise on the next clause name. */
			while (text[i] && !isspace((unsigned char)text[i]))
				i++;
			continue;
		}
		size_t close = matching_paren(text, open);
		if (!close) {
			diag(&p, open, "missing ')' to close clause '%s'", name);
			free(name);
			break;
		}
		dispatch(&p, name, i, trim(text, open + 1, close));
		free(name);
		i = close + 1;
	}
	check_names(&p);
	check_complete(&p);
	for (size_t e = 0; e < p.n_exprs; e++) {
		free(p.exprs[e].text);
		free(p.exprs[e].what_owned);
	}
	free(p.exprs);
	free(p.names);
	free(p.workload_at);
	return diags->n - p.n_before;
}

void
clause_diags_free(struct clause_diags *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i].message);
	free(d->v);
	d->v = NULL;
	d->n = 0;
}
