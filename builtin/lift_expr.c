/*
 * lift_expr.c -- expressions of a lifted kernel: names through the environment
 * (thread index, locals, the launch's buffers and scalars), loads with aliases
 * resolved and store-to-load forwarding, CUDA math functions and pure device
 * functions of the closure.  Index expressions are normalized so that a 2-D
 * map's r * cols + c is the flat index again and a loop from S reads
 * "invariant + col".
 */
#include "config.h"

#include "builtin/lift_internal.h"
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

/* ---- expressions ---- */

static const char *const math_functions[] = {
	"expf", "exp", "__expf", "exp2f", "exp2", "expm1f", "expm1", "logf", "log", "__logf",
	"log2f", "log2", "log10f", "log10", "log1pf", "log1p", "sqrtf", "sqrt", "rsqrtf",
	"rsqrt", "cbrtf", "cbrt", "tanhf", "tanh", "sinhf", "coshf", "sinf", "sin", "cosf",
	"cos", "tanf", "atanf", "atan", "erff", "erf", "erfcf", "normcdff", "fabsf", "fabs",
	"abs", "fmaxf", "fmax", "fminf", "fmin", "max", "min", "powf", "pow", "__powf",
	"fmaf", "fma", "ceilf", "floorf", "roundf", "truncf", "rintf", "__fdividef",
	"__frcp_rn", "__saturatef", "copysignf", "fmodf", "isnan", "isinf", "signbit", NULL,
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
		                             "__half", "half", "size_t", "bool", NULL };
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

/* The buffer and element index that base[index] denotes (alias offsets added). */
struct ir_expr *
lift_element(struct ctx *c, const struct ast_expr *base, const struct ast_expr *index,
             const char **buffer)
{
	base = lift_strip_casts(base);
	if (base->kind != AST_NAME) {
		lift_refuse(c, "indexing something other than a pointer parameter");
		return NULL;
	}
	struct binding *b = lift_lookup(c, base->text);
	if (!b || (b->kind != B_BUFFER && b->kind != B_ALIAS)) {
		lift_refuse(c, "'%s' is indexed but is not a buffer of the target", base->text);
		return NULL;
	}
	*buffer = b->buffer;
	struct ir_expr *ix = index ? lift_expr(c, index) : ir_expr_new(IR_NUM, "0");
	if (!ix)
		return NULL;
	if (b->kind == B_ALIAS)
		ix = lift_bin("+", ir_expr_copy(b->expr), ix);
	return simplify_index(ix);
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

/* The element a load intrinsic's argument points at: &b[i], b + i, i + b or b. */
static struct ir_expr *
lift_intrinsic_load(struct ctx *c, const struct ast_expr *a)
{
	a = lift_strip_casts(a);
	if (a->kind == AST_UN && strcmp(a->text, "&") == 0 && a->kids[0]->kind == AST_INDEX)
		return lift_load(c, a->kids[0]->kids[0], a->kids[0]->kids[1]);
	if (a->kind == AST_BIN && strcmp(a->text, "+") == 0) {
		const struct ast_expr *l = lift_strip_casts(a->kids[0]), *r = lift_strip_casts(a->kids[1]);
		struct binding *b = l->kind == AST_NAME ? lift_lookup(c, l->text) : NULL;
		if (b && (b->kind == B_BUFFER || b->kind == B_ALIAS))
			return lift_load(c, l, r);
		return lift_load(c, r, l);
	}
	return lift_load(c, a, NULL);
}

/* Lifts e's operands into r; frees r and returns NULL when one is refused. */
static struct ir_expr *
lift_kids(struct ctx *c, const struct ast_expr *e, struct ir_expr *r)
{
	for (size_t i = 0; i < e->n_kids; i++) {
		struct ir_expr *k = lift_expr(c, e->kids[i]);
		if (!k) {
			ir_expr_free(r);
			return NULL;
		}
		ir_expr_add(r, k);
	}
	return r;
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
		} else if (in_list(math_functions, e->text)) {
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
			return lift_intrinsic_load(c, e->kids[0]);
		} else {
			lift_refuse(c, "a call to '%s', which is not a math function", e->text);
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
		break;
	case AST_BIN:
		r = ir_expr_new(IR_BIN, e->text);
		break;
	case AST_COND:
		r = ir_expr_new(IR_COND, NULL);
		break;
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

