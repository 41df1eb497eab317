/*
 * lift_expr.c -- expressions of a lifted kernel: names through the environment
 * (thread index, locals, the launch's buffers and scalars), loads with aliases
 * resolved and store-to-load forwarding, CUDA math functions and pure device
 * functions of the closure.  Index expressions are normalized so that a 2-D
 * map's r * cols + c is the flat index again and a loop from S reads
 * "invariant + col".
 */
#include "config.h"

#include "builtin/lift/lift_internal.h"
#include "common/util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* (i / C) * C + i % C, in any operand order, is i: the flat index of a 2-D map */
static struct ir_expr *
simplify_index(struct ir_expr *e)
{
	for (size_t k = 0; k < e->n_kids; k++)
		e->kids[k] = simplify_index(e->kids[k]);
	if (e->kind != IR_BIN || strcmp(e->text, "+") != 0)
		return e;
	/* X + (v + S) is (X + S) + v for an index v: streams are "invariant + v" */
	struct ir_expr *r = e->kids[1];
	if (r->kind == IR_BIN && strcmp(r->text, "+") == 0 && r->kids[0]->kind == IR_IDX &&
	    !ir_expr_uses_index(e->kids[0], r->kids[0]->idx) &&
	    !ir_expr_uses_index(r->kids[1], r->kids[0]->idx)) {
		struct ir_expr *v = r->kids[0];
		r->kids[0] = e->kids[0];
		e->kids[0] = r;
		e->kids[1] = v;
		return e;
	}
	for (int s = 0; s < 2; s++) {
		const struct ir_expr *mod = e->kids[s], *mul = e->kids[1 - s];
		if (mod->kind != IR_BIN || strcmp(mod->text, "%") != 0 || mul->kind != IR_BIN ||
		    strcmp(mul->text, "*") != 0)
			continue;
		for (int t = 0; t < 2; t++) {
			const struct ir_expr *div = mul->kids[t], *c = mul->kids[1 - t];
			if (div->kind == IR_BIN && strcmp(div->text, "/") == 0 &&
			    ir_expr_equal(div->kids[0], mod->kids[0]) && ir_expr_equal(div->kids[1], c) &&
			    ir_expr_equal(mod->kids[1], c)) {
				struct ir_expr *x = ir_expr_copy(mod->kids[0]);
				ir_expr_free(e);
				return x;
			}
		}
	}
	return e;
}

/* ---- sums of index terms ---- */

/* An index sum expanded into terms, each a product of factors (borrowed from
 * the expression; casts to integer types seen through), so that the digits of
 * a mixed-radix split of i recombine whatever the grouping:
 * ((z * ny + y) * nx + x with z = i / (nx * ny), y = i / nx % ny, x = i % nx)
 * is i again. */
#define MAX_TERMS 16
#define MAX_FACTORS 8

struct term {
	const struct ir_expr *f[MAX_FACTORS];
	size_t n;
	struct ir_expr *atom; /* owned: a merged digit (i % S), replacing f[0] */
};

/* Adds the expansion of e (times the factors of mul) to t; 0 when too big. */
static int
expand(const struct ir_expr *e, const struct term *mul, struct term *t, size_t *n)
{
	e = ir_expr_int_uncast(e);
	if (e->kind == IR_BIN && strcmp(e->text, "+") == 0)
		return expand(e->kids[0], mul, t, n) && expand(e->kids[1], mul, t, n);
	if (e->kind == IR_BIN && strcmp(e->text, "*") == 0) {
		/* (a + b) * c: each term of the left times the right's factors */
		struct term left[MAX_TERMS], right[MAX_TERMS];
		size_t nl = 0, nr = 0;
		struct term one = { .n = 0 };
		if (!expand(e->kids[0], &one, left, &nl) || !expand(e->kids[1], &one, right, &nr))
			return 0;
		for (size_t a = 0; a < nl; a++)
			for (size_t b = 0; b < nr; b++) {
				if (*n == MAX_TERMS || mul->n + left[a].n + right[b].n > MAX_FACTORS)
					return 0;
				struct term *x = &t[(*n)++];
				*x = *mul;
				memcpy(x->f + x->n, left[a].f, left[a].n * sizeof *x->f);
				x->n += left[a].n;
				memcpy(x->f + x->n, right[b].f, right[b].n * sizeof *x->f);
				x->n += right[b].n;
			}
		return 1;
	}
	if (*n == MAX_TERMS || mul->n == MAX_FACTORS)
		return 0;
	t[*n] = *mul;
	t[*n].f[t[*n].n++] = e;
	(*n)++;
	return 1;
}

/* The digit term t is: one factor i / S (q), (i / S) % M (m) or i % S (r), or
 * (with S empty) i itself (r); the rest its weight.  -1 when none. */
static int
digit(const struct term *t, enum ir_index var, char *kind, const struct ir_expr **div,
      const struct ir_expr **mod)
{
	for (size_t k = 0; k < t->n; k++) {
		const struct ir_expr *e = k == 0 && t->atom ? t->atom : ir_expr_int_uncast(t->f[k]);
		*mod = NULL;
		if (e->kind == IR_BIN && strcmp(e->text, "%") == 0) {
			const struct ir_expr *q = ir_expr_int_uncast(e->kids[0]);
			if (q->kind == IR_BIN && strcmp(q->text, "/") == 0 && q->kids[0]->kind == IR_IDX &&
			    q->kids[0]->idx == var) {
				*kind = 'm', *div = q->kids[1], *mod = e->kids[1];
				return (int)k;
			}
		}
		if (e->kind == IR_BIN && (strcmp(e->text, "/") == 0 || strcmp(e->text, "%") == 0) &&
		    e->kids[0]->kind == IR_IDX && e->kids[0]->idx == var) {
			*kind = e->text[0] == '/' ? 'q' : 'r', *div = e->kids[1];
			return (int)k;
		}
		if (e->kind == IR_IDX && e->idx == var) {
			*kind = 'r', *div = NULL;
			return (int)k;
		}
	}
	return -1;
}

/* The weight of term t without factor k. */
static size_t
weight(const struct term *t, int k, const struct ir_expr **w)
{
	size_t n = 0;
	for (size_t j = 0; j < t->n; j++)
		if ((int)j != k)
			w[n++] = t->f[j];
	return n;
}

/* Merges a remainder digit (i % S, weight W) with the next digit up: (i / S) % M
 * of weight W * S gives i % (S * M); i / S of weight W * S gives i (weight W). */
static int
merge_digits(struct term *t, size_t *n, enum ir_index var)
{
	for (size_t a = 0; a < *n; a++) {
		char ka, kb;
		const struct ir_expr *da, *ma, *db, *mb;
		int fa = digit(&t[a], var, &ka, &da, &ma);
		if (fa < 0 || ka != 'r' || !da)
			continue;
		const struct ir_expr *wa[MAX_FACTORS], *sa[MAX_FACTORS];
		size_t nwa = weight(&t[a], fa, wa), nsa = 0;
		if (!ir_expr_factors(da, sa, &nsa, MAX_FACTORS) || nwa + nsa > MAX_FACTORS)
			continue;
		memcpy(wa + nwa, sa, nsa * sizeof *wa); /* the weight the next digit must have */
		for (size_t b = 0; b < *n; b++) {
			int fb = b == a ? -1 : digit(&t[b], var, &kb, &db, &mb);
			const struct ir_expr *wb[MAX_FACTORS], *sb[MAX_FACTORS];
			size_t nsb = 0;
			if (fb < 0 || kb == 'r' || !ir_expr_factors(db, sb, &nsb, MAX_FACTORS) || !ir_expr_same_factors(sa, nsa, sb, nsb))
				continue;
			size_t nwb = weight(&t[b], fb, wb);
			if (!ir_expr_same_factors(wa, nwa + nsa, wb, nwb))
				continue;
			/* term a becomes the merged digit with its own weight; b goes */
			struct ir_expr *i = ir_expr_new(IR_IDX, NULL);
			i->idx = var;
			struct ir_expr *m = kb == 'q' ? i : lift_bin("%", i, lift_bin("*", ir_expr_copy(da), ir_expr_copy(mb)));
			struct term x = { .n = 0, .atom = m };
			x.f[x.n++] = m;
			for (size_t j = 0; j < nwa; j++)
				x.f[x.n++] = wa[j];
			ir_expr_free(t[a].atom);
			ir_expr_free(t[b].atom);
			t[a] = x;
			t[b] = t[--*n];
			return 1;
		}
	}
	return 0;
}

/* e, a sum over the digits of a mixed-radix split of the index, as the one
 * digit they recombine into; e itself (consumed) when they do not. */
static struct ir_expr *
recombine_digits(struct ir_expr *e)
{
	if (e->kind != IR_BIN || strcmp(e->text, "+") != 0)
		return e;
	struct term t[MAX_TERMS];
	size_t n = 0;
	struct term one = { .n = 0 };
	if (!expand(e, &one, t, &n))
		return e;
	int merged = 0;
	for (enum ir_index v = 0; v <= IR_COL; v++)
		while (merge_digits(t, &n, v))
			merged = 1;
	/* only a sum that is one digit in the end (the flat index itself, i % S):
	 * a partial merge would hide the row and column offsets of a stencil's
	 * (r + 1) * cols + c from the 2-D analysis (lift_2d.c) */
	merged = merged && n == 1;
	struct ir_expr *r = NULL;
	for (size_t k = 0; k < n && merged; k++) {
		struct ir_expr *p = NULL;
		for (size_t j = 0; j < t[k].n; j++) {
			struct ir_expr *f = ir_expr_copy(t[k].f[j]);
			p = p ? lift_bin("*", p, f) : f;
		}
		r = r ? lift_bin("+", r, p) : p;
	}
	for (size_t k = 0; k < n; k++)
		ir_expr_free(t[k].atom);
	if (!merged)
		return e;
	ir_expr_free(e);
	return r;
}

/* ---- expressions ---- */

static const char *const math_functions[] = {
	"expf", "exp", "__expf", "exp2f", "exp2", "expm1f", "expm1", "logf", "log", "__logf",
	"log2f", "log2", "log10f", "log10", "log1pf", "log1p", "sqrtf", "sqrt", "rsqrtf",
	"rsqrt", "cbrtf", "cbrt", "tanhf", "tanh", "sinhf", "coshf", "sinf", "sin", "cosf",
	"cos", "tanf", "atanf", "atan", "erff", "erf", "erfcf", "normcdff", "fabsf", "fabs",
	"abs", "fmaxf", "fmax", "fminf", "fmin", "max", "min", "powf", "pow", "__powf",
	"fmaf", "fma", "ceilf", "floorf", "roundf", "truncf", "rintf", "__fdividef",
	"__frcp_rn", "__saturatef", "copysignf", "fmodf", "isnan", "isinf", "signbit",
	/* the narrow types' conversions and arithmetic (cuda_bf16.h, cuda_fp16.h): pure */
	"__float2bfloat16", "__float2bfloat16_rn", "__double2bfloat16", "__bfloat162float",
	"__float2half", "__float2half_rn", "__double2half", "__half2float",
	"__hadd", "__hsub", "__hmul", "__hdiv", "__hneg", "__hmax", "__hmin", "__hfma", NULL,
};

static const char *const constants[] = {
	"INFINITY", "NAN", "FLT_MAX", "FLT_MIN", "FLT_EPSILON", "DBL_MAX", "DBL_MIN",
	"M_PI", "M_SQRT2", "M_SQRT1_2", "M_2_SQRTPI", "M_E", "M_LN2", "HUGE_VALF",
	"CUDART_INF_F", "INT_MAX", "INT_MIN", "true", "false", NULL,
};

static int
in_list(const char *const *list, const char *s)
{
	for (int i = 0; list[i]; i++)
		if (strcmp(list[i], s) == 0)
			return 1;
	return 0;
}

static int
is_type_name(const char *s)
{
	static const char *const types[] = { "float", "double", "int", "unsigned", "long",
		                             "__half", "half", "__nv_bfloat16", "nv_bfloat16",
		                             "size_t", "bool", NULL };
	return in_list(types, s);
}

/* A __device__ function of the closure that takes no pointers: a pure call. */
static const struct ast_function *
pure_device_function(struct ctx *c, const char *name)
{
	const struct ast_function *f = ast_find_function(c->unit, name);
	if (!f || !strstr(f->qualifiers, "__device__"))
		return NULL;
	for (size_t i = 0; i < f->n_params; i++)
		if (strchr(f->params[i].type, '*'))
			return NULL;
	return f;
}

struct ir_expr *
lift_bin(const char *op, struct ir_expr *a, struct ir_expr *b)
{
	struct ir_expr *e = ir_expr_new(IR_BIN, op);
	ir_expr_add(e, a);
	ir_expr_add(e, b);
	return e;
}

/* The buffer and element index that base[index] denotes (alias offsets added);
 * base may be a pointer expression, (x + r * cols)[j]; index NULL is *base. */
struct ir_expr *
lift_element(struct ctx *c, const struct ast_expr *base, const struct ast_expr *index,
             const char **buffer)
{
	base = ast_strip_casts(base);
	struct ir_expr *at;
	if (base->kind == AST_NAME) {
		struct binding *b = lift_lookup(c, base->text);
		if (!b || (b->kind != B_BUFFER && b->kind != B_ALIAS)) {
			lift_refuse(c, "'%s' is indexed but is not a buffer of the target", base->text);
			return NULL;
		}
		*buffer = b->buffer;
		at = b->kind == B_ALIAS ? ir_expr_copy(b->expr) : NULL;
	} else if (lift_is_pointer(c, base)) {
		if (!(at = lift_pointer(c, base, buffer)))
			return NULL;
	} else {
		lift_refuse(c, "indexing something other than a pointer into a buffer");
		return NULL;
	}
	struct ir_expr *ix = index ? lift_expr(c, index) : at ? NULL : ir_expr_new(IR_NUM, "0");
	if (index && !ix) {
		ir_expr_free(at);
		return NULL;
	}
	if (at)
		ix = ix ? lift_bin("+", at, ix) : at;
	return recombine_digits(simplify_index(ix));
}

int
lift_is_pointer(struct ctx *c, const struct ast_expr *e)
{
	e = ast_strip_casts(e);
	if (e->kind == AST_NAME) {
		const struct binding *b = lift_lookup(c, e->text);
		return b && (b->kind == B_BUFFER || b->kind == B_ALIAS);
	}
	if (e->kind == AST_UN && strcmp(e->text, "&") == 0)
		return e->kids[0]->kind == AST_INDEX && lift_is_pointer(c, e->kids[0]->kids[0]);
	if (e->kind == AST_BIN && strcmp(e->text, "+") == 0)
		return lift_is_pointer(c, e->kids[0]) || lift_is_pointer(c, e->kids[1]);
	if (e->kind == AST_BIN && strcmp(e->text, "-") == 0)
		return lift_is_pointer(c, e->kids[0]) && !lift_is_pointer(c, e->kids[1]);
	return 0;
}

struct ir_expr *
lift_pointer(struct ctx *c, const struct ast_expr *e, const char **buffer)
{
	e = ast_strip_casts(e);
	if (e->kind == AST_UN && strcmp(e->text, "&") == 0)
		return lift_element(c, e->kids[0]->kids[0], e->kids[0]->kids[1], buffer);
	if (e->kind == AST_BIN) {
		int left = lift_is_pointer(c, e->kids[0]);
		struct ir_expr *p = lift_pointer(c, e->kids[left ? 0 : 1], buffer);
		struct ir_expr *off = p ? lift_expr(c, e->kids[left ? 1 : 0]) : NULL;
		if (!off) {
			ir_expr_free(p);
			return NULL;
		}
		if (p->kind == IR_NUM && strcmp(p->text, "0") == 0 && strcmp(e->text, "+") == 0) {
			ir_expr_free(p); /* the buffer itself plus off */
			return simplify_index(off);
		}
		return simplify_index(lift_bin(e->text, p, off));
	}
	return lift_element(c, e, NULL, buffer);
}

struct ir_expr *
lift_load(struct ctx *c, const struct ast_expr *base, const struct ast_expr *index)
{
	const char *buffer;
	struct ir_expr *ix = lift_element(c, base, index, &buffer);
	if (!ix)
		return NULL;
	for (size_t i = 0; i < c->n_stores; i++)
		if (strcmp(c->stores[i].buffer, buffer) == 0) {
			if (ir_expr_equal(c->stores[i].index, ix)) {
				ir_expr_free(ix);
				return ir_expr_new(IR_LOCAL, c->stores[i].local);
			}
			lift_refuse(c, "'%s' is read at another element than the one written", buffer);
			ir_expr_free(ix);
			return NULL;
		}
	struct ir_expr *e = ir_expr_new(IR_LOAD, buffer);
	ir_expr_add(e, ix);
	return e;
}

static struct ir_expr *
lift_name(struct ctx *c, const char *name)
{
	struct binding *b = lift_lookup(c, name);
	if (!b) {
		if (in_list(constants, name))
			return ir_expr_new(IR_NUM, name);
		lift_refuse(c, "unknown name '%s'", name);
		return NULL;
	}
	switch (b->kind) {
	case B_INDEX: {
		struct ir_expr *e = ir_expr_new(IR_IDX, NULL);
		e->idx = b->idx;
		return e;
	}
	case B_LOCAL:
		return ir_expr_new(IR_LOCAL, b->renamed);
	case B_SCALAR:
		return ir_expr_copy(b->expr);
	default:
		lift_refuse(c, "pointer '%s' used as a value", name);
		return NULL;
	}
}

/* ---- optional pointers ----
 * A buffer the kernel reads only where it is not NULL (llm.c's
 * `(bias != NULL) ? bias[oc] : 0.0f`, `if (bias) v += bias[i]`): the test is a
 * flag of the call, the same for every thread, written in the launcher's names
 * as the scalar (bias != nullptr); the buffer is marked optional, so that no
 * recipe reads it ahead of its select (emit.c: never a stream). */

/* The flag "buffer e names is not NULL", or NULL when e names no buffer of the
 * target (refused). */
static struct ir_expr *
lift_present(struct ctx *c, const struct ast_expr *e)
{
	e = ast_strip_casts(e);
	const struct binding *b = e->kind == AST_NAME ? lift_lookup(c, e->text) : NULL;
	struct ir_param *q = NULL; /* (the program is ours to mark: look it up by hand) */
	for (size_t i = 0; b && b->kind == B_BUFFER && !q && i < c->prog->n_params; i++)
		if (strcmp(c->prog->params[i].name, b->buffer) == 0)
			q = &c->prog->params[i];
	if (!q || q->is_local) {
		lift_refuse(c, "a test of a pointer other than a buffer the caller passes");
		return NULL;
	}
	q->optional = 1;
	char *t = egg_xasprintf("(%s != nullptr)", q->name);
	struct ir_expr *r = ir_expr_new(IR_VAR, t);
	free(t);
	return r;
}

/* p != NULL, NULL != p, p == NULL (and 0, nullptr): the flag or its negation;
 * NULL (not failed) when e is no such test. */
static struct ir_expr *
lift_null_test(struct ctx *c, const struct ast_expr *e)
{
	e = ast_strip_casts(e);
	if (e->kind != AST_BIN || (strcmp(e->text, "!=") != 0 && strcmp(e->text, "==") != 0))
		return NULL;
	for (int side = 0; side < 2; side++) {
		if (!ast_is_null_pointer(e->kids[1 - side]) || !lift_is_pointer(c, e->kids[side]))
			continue;
		struct ir_expr *f = lift_present(c, e->kids[side]);
		if (f && e->text[0] == '=') {
			struct ir_expr *n = ir_expr_new(IR_UN, "!");
			ir_expr_add(n, f);
			f = n;
		}
		return f;
	}
	return NULL;
}

struct ir_expr *
lift_truth(struct ctx *c, const struct ast_expr *e)
{
	const struct ast_expr *s = ast_strip_casts(e);
	if (s->kind == AST_NAME && lift_is_pointer(c, s))
		return lift_present(c, s);
	return lift_expr(c, e);
}

/* A __device__ function template of the closure whose parameters take no
 * pointers: a pure call whose arguments the compiler deduces. */
static const struct ast_template *
pure_device_template(struct ctx *c, const char *name)
{
	const struct ast_template *t = ast_find_template(c->unit, name);
	return t && t->is_device && !t->pointer_params && !ast_find_function(c->unit, name) ? t : NULL;
}

/* __ldg(p) and the other cache-hinted loads read *p like any load */
static int
is_read_only_load(const char *name)
{
	static const char *const loads[] = { "__ldg", "__ldca", "__ldcg", "__ldcs", "__ldlu", "__ldcv", NULL };
	return in_list(loads, name);
}

/* Lifts e's operands into r, the first `truths` of them as truth values
 * (lift_truth: a condition, the operands of !, && and ||); frees r and returns
 * NULL when one is refused. */
static struct ir_expr *
lift_operands(struct ctx *c, const struct ast_expr *e, struct ir_expr *r, size_t truths)
{
	for (size_t i = 0; i < e->n_kids; i++) {
		struct ir_expr *k = i < truths ? lift_truth(c, e->kids[i]) : lift_expr(c, e->kids[i]);
		if (!k) {
			ir_expr_free(r);
			return NULL;
		}
		ir_expr_add(r, k);
	}
	return r;
}

static struct ir_expr *
lift_kids(struct ctx *c, const struct ast_expr *e, struct ir_expr *r)
{
	return lift_operands(c, e, r, 0);
}

struct ir_expr *
lift_expr(struct ctx *c, const struct ast_expr *e)
{
	if (c->failed)
		return NULL;
	struct ir_expr *r = NULL;
	const struct ast_function *f;
	const struct ast_template *t = NULL;
	switch (e->kind) {
	case AST_NUM:
		return ir_expr_new(IR_NUM, e->text);
	case AST_NAME:
		return lift_name(c, e->text);
	case AST_INDEX:
		return lift_load(c, e->kids[0], e->kids[1]);
	case AST_CALL:
		if (!e->text) {
			lift_refuse(c, "a call through an expression");
			return NULL;
		}
		if (is_type_name(e->text) && e->n_kids == 1) {
			r = ir_expr_new(IR_CAST, e->text);
		} else if (in_list(math_functions, e->text) ||
		           (ir_conversion_type(e->text) && e->n_kids == 1)) {
			/* a conversion intrinsic stays a call as spelled (ir_conversion_type) */
			r = ir_expr_new(IR_CALL, e->text);
		} else if ((f = pure_device_function(c, e->text)) || (t = pure_device_template(c, e->text))) {
			/* named from wherever the candidate stands: ::nn::detail::act; a
			 * template's arguments deduced there as in the reference */
			char *q = ast_ns_prefix(f ? f->ns : t->ns);
			char *name = egg_xasprintf("%s%s", q, e->text);
			r = ir_expr_new(IR_CALL, name);
			free(name);
			free(q);
		} else if (is_read_only_load(e->text) && e->n_kids == 1) {
			return lift_load(c, e->kids[0], NULL); /* the element its argument points at */
		} else {
			lift_refuse(c, "a call to '%s', which is not a math function nor a conversion", e->text);
			return NULL;
		}
		return lift_kids(c, e, r);
	case AST_UN:
		if (strcmp(e->text, "+") == 0)
			return lift_expr(c, e->kids[0]);
		if (strcmp(e->text, "*") == 0)
			return lift_load(c, e->kids[0], NULL);
		if (strcmp(e->text, "-") && strcmp(e->text, "!") && strcmp(e->text, "~")) {
			lift_refuse(c, "the operator '%s' in an expression", e->text);
			return NULL;
		}
		r = ir_expr_new(IR_UN, e->text);
		if (e->text[0] == '!')
			return lift_operands(c, e, r, 1);
		break;
	case AST_BIN:
		if ((r = lift_null_test(c, e)) || c->failed)
			return r;
		r = ir_expr_new(IR_BIN, e->text);
		if (strcmp(e->text, "&&") == 0 || strcmp(e->text, "||") == 0)
			return lift_operands(c, e, r, 2);
		break;
	case AST_COND:
		return lift_operands(c, e, ir_expr_new(IR_COND, NULL), 1);
	case AST_CAST:
		if (strchr(e->text, '*') || strcmp(e->text, "reinterpret") == 0) {
			lift_refuse(c, "a pointer cast");
			return NULL;
		}
		r = ir_expr_new(IR_CAST, e->text);
		break;
	case AST_MEMBER:
		lift_refuse(c, "'%s' outside the thread-index pattern", e->text);
		return NULL;
	default:
		lift_refuse(c, "an assignment or increment inside an expression");
		return NULL;
	}
	return lift_kids(c, e, r);
}

