/*
 * lift.c -- lifts one kernel launch into stages of the description (ir.h).
 *
 * A kernel lifts when it has the shape naive kernels have: a global thread index
 * (blockIdx.x * blockDim.x + threadIdx.x in its spellings, casts allowed), a
 * bounds guard on it (if (i < n) {...}, if (i >= n) return;, or a grid-stride
 * for loop), and a body of straight-line code.  The body decides the stage:
 *   - no loop: a MAP over i (or a REDUCE when it does atomicAdd into an element
 *     that does not depend on i);
 *   - column loops for (j = 0; j < C; j++): a ROWS stage, the thread index being
 *     the row; a local declared outside a loop and combined inside it (+=,
 *     x = x + e, x = fmaxf(x, e), ...) is an accumulator.
 * Everything else -- branches, while loops, nested loops, shared memory, atomics
 * to data-dependent addresses -- is refused with a reason.  Names are resolved
 * through a scoped environment; kernel parameters become the launch's buffers
 * and scalar expressions, so stages speak the target's names.
 */
#include "config.h"

#include "builtin/lift.h"
#include "common/util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum level { LV_ELEMENT, LV_ROW, LV_COL };

enum bind_kind { B_INDEX, B_LOCAL, B_BUFFER, B_ALIAS, B_SCALAR };

struct binding {
	const char *name;
	enum bind_kind kind;
	enum ir_index idx;     /* B_INDEX */
	char *renamed;         /* B_LOCAL (owned) */
	char *type;            /* B_LOCAL (owned) */
	enum level level;      /* B_LOCAL: where declared */
	const char *buffer;    /* B_BUFFER, B_ALIAS */
	struct ir_expr *expr;  /* B_ALIAS: element offset; B_SCALAR: value (owned) */
};

struct store_rec {
	const char *buffer;
	struct ir_expr *index; /* borrowed from the IR */
	char *local;           /* borrowed */
};

struct ctx {
	struct ir_program *prog;
	const struct ast_unit *unit;
	size_t stage;
	struct binding *env;
	size_t n_env, cap_env;
	struct store_rec *stores;
	size_t n_stores;
	int has_atomic, has_loop;
	unsigned tmp_counter;
	struct strbuf *why;
	int failed;
};

static void
refuse(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
refuse(struct ctx *c, const char *fmt, ...)
{
	if (c->failed)
		return;
	c->failed = 1;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(c->why, fmt, ap);
	va_end(ap);
}

static struct binding *
bind(struct ctx *c, const char *name, enum bind_kind kind)
{
	if (c->n_env == c->cap_env) {
		c->cap_env = c->cap_env ? 2 * c->cap_env : 32;
		c->env = egg_xrealloc(c->env, c->cap_env * sizeof *c->env);
	}
	struct binding *b = &c->env[c->n_env++];
	memset(b, 0, sizeof *b);
	b->name = name;
	b->kind = kind;
	return b;
}

static void
unbind_to(struct ctx *c, size_t mark)
{
	while (c->n_env > mark) {
		struct binding *b = &c->env[--c->n_env];
		free(b->renamed);
		free(b->type);
		ir_expr_free(b->expr);
	}
}

static struct binding *
lookup(struct ctx *c, const char *name)
{
	for (size_t i = c->n_env; i-- > 0;)
		if (strcmp(c->env[i].name, name) == 0)
			return &c->env[i];
	return NULL;
}

/* ---- recognising the thread index ---- */

static const struct ast_expr *
strip_casts(const struct ast_expr *e)
{
	while (e && e->kind == AST_CAST)
		e = e->kids[0];
	return e;
}

static int
is_builtin(const struct ast_expr *e, const char *var, const char *field)
{
	e = strip_casts(e);
	return e && e->kind == AST_MEMBER && strcmp(e->text, field) == 0 &&
	       e->kids[0]->kind == AST_NAME && strcmp(e->kids[0]->text, var) == 0;
}

static int
is_product_dim(const struct ast_expr *e, const char *a, const char *b, const char *dim)
{
	e = strip_casts(e);
	return e && e->kind == AST_BIN && strcmp(e->text, "*") == 0 &&
	       ((is_builtin(e->kids[0], a, dim) && is_builtin(e->kids[1], b, dim)) ||
	        (is_builtin(e->kids[0], b, dim) && is_builtin(e->kids[1], a, dim)));
}

/* blockIdx.D * blockDim.D + threadIdx.D, in either order, casts allowed */
static int
is_global_index_dim(const struct ast_expr *e, const char *dim)
{
	e = strip_casts(e);
	if (!e || e->kind != AST_BIN || strcmp(e->text, "+") != 0)
		return 0;
	for (int s = 0; s < 2; s++)
		if (is_product_dim(e->kids[s], "blockIdx", "blockDim", dim) &&
		    is_builtin(e->kids[1 - s], "threadIdx", dim))
			return 1;
	return 0;
}

static int
is_global_index(const struct ast_expr *e)
{
	return is_global_index_dim(e, "x");
}

static int
is_grid_stride(const struct ast_expr *e)
{
	return is_product_dim(e, "blockDim", "gridDim", "x");
}

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
static int
is_pure_device_function(struct ctx *c, const char *name)
{
	const struct ast_function *f = ast_find_function(c->unit, name);
	if (!f || !strstr(f->qualifiers, "__device__"))
		return 0;
	for (size_t i = 0; i < f->n_params; i++)
		if (strchr(f->params[i].type, '*'))
			return 0;
	return 1;
}

static struct ir_expr *lift_expr(struct ctx *c, const struct ast_expr *e);

static struct ir_expr *
bin(const char *op, struct ir_expr *a, struct ir_expr *b)
{
	struct ir_expr *e = ir_expr_new(IR_BIN, op);
	ir_expr_add(e, a);
	ir_expr_add(e, b);
	return e;
}

/* The buffer and element index that base[index] denotes (alias offsets added). */
static struct ir_expr *
lift_element(struct ctx *c, const struct ast_expr *base, const struct ast_expr *index,
             const char **buffer)
{
	base = strip_casts(base);
	if (base->kind != AST_NAME) {
		refuse(c, "indexing something other than a pointer parameter");
		return NULL;
	}
	struct binding *b = lookup(c, base->text);
	if (!b || (b->kind != B_BUFFER && b->kind != B_ALIAS)) {
		refuse(c, "'%s' is indexed but is not a buffer of the target", base->text);
		return NULL;
	}
	*buffer = b->buffer;
	struct ir_expr *ix = index ? lift_expr(c, index) : ir_expr_new(IR_NUM, "0");
	if (!ix)
		return NULL;
	if (b->kind == B_ALIAS)
		ix = bin("+", ir_expr_copy(b->expr), ix);
	return simplify_index(ix);
}

static struct ir_expr *
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
			refuse(c, "'%s' is read at another element than the one written", buffer);
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
	struct binding *b = lookup(c, name);
	if (!b) {
		if (in_list(constants, name))
			return ir_expr_new(IR_NUM, name);
		refuse(c, "unknown name '%s'", name);
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
		refuse(c, "pointer '%s' used as a value", name);
		return NULL;
	}
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

static struct ir_expr *
lift_expr(struct ctx *c, const struct ast_expr *e)
{
	if (c->failed)
		return NULL;
	struct ir_expr *r = NULL;
	switch (e->kind) {
	case AST_NUM:
		return ir_expr_new(IR_NUM, e->text);
	case AST_NAME:
		return lift_name(c, e->text);
	case AST_INDEX:
		return lift_load(c, e->kids[0], e->kids[1]);
	case AST_CALL:
		if (!e->text) {
			refuse(c, "a call through an expression");
			return NULL;
		}
		if (is_type_name(e->text) && e->n_kids == 1) {
			r = ir_expr_new(IR_CAST, e->text);
		} else if (in_list(math_functions, e->text) || is_pure_device_function(c, e->text)) {
			r = ir_expr_new(IR_CALL, e->text);
		} else {
			refuse(c, "a call to '%s', which is not a math function", e->text);
			return NULL;
		}
		return lift_kids(c, e, r);
	case AST_UN:
		if (strcmp(e->text, "+") == 0)
			return lift_expr(c, e->kids[0]);
		if (strcmp(e->text, "*") == 0)
			return lift_load(c, e->kids[0], NULL);
		if (strcmp(e->text, "-") && strcmp(e->text, "!") && strcmp(e->text, "~")) {
			refuse(c, "the operator '%s' in an expression", e->text);
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
			refuse(c, "a pointer cast");
			return NULL;
		}
		r = ir_expr_new(IR_CAST, e->text);
		break;
	case AST_MEMBER:
		refuse(c, "'%s' outside the thread-index pattern", e->text);
		return NULL;
	default:
		refuse(c, "an assignment or increment inside an expression");
		return NULL;
	}
	return lift_kids(c, e, r);
}

/* ---- statements ---- */

static void lift_stmt(struct ctx *c, const struct ast_stmt *s, enum level lv, struct ir_block *out);

static void
lift_decl(struct ctx *c, const struct ast_decl *d, enum level lv, struct ir_block *out)
{
	if (d->is_array || d->is_shared) {
		refuse(c, "a local array or shared memory ('%s')", d->name);
		return;
	}
	if (strchr(d->type, '*')) {
		const struct ast_expr *init = strip_casts(d->init);
		const struct ast_expr *base = NULL, *off = NULL;
		if (init && init->kind == AST_NAME)
			base = init;
		else if (init && init->kind == AST_BIN && strcmp(init->text, "+") == 0)
			base = init->kids[0], off = init->kids[1];
		else if (init && init->kind == AST_UN && strcmp(init->text, "&") == 0 &&
		         init->kids[0]->kind == AST_INDEX)
			base = init->kids[0]->kids[0], off = init->kids[0]->kids[1];
		const char *buffer;
		struct ir_expr *ix = base ? lift_element(c, base, off, &buffer) : NULL;
		if (!ix) {
			refuse(c, "a local pointer '%s' that is not buffer + offset", d->name);
			return;
		}
		struct binding *b = bind(c, d->name, B_ALIAS);
		b->buffer = buffer;
		b->expr = ix;
		return;
	}
	struct ir_expr *v = d->init ? lift_expr(c, d->init) : ir_expr_new(IR_NUM, "0");
	if (!v)
		return;
	struct ir_stmt *s = ir_stmt_new(IR_LET);
	s->name = egg_xasprintf("%s_%zu", d->name, c->stage);
	const char *type = d->type;
	if (egg_str_starts(type, "const "))
		type += 6;
	s->type = egg_xstrdup(type);
	s->value = v;
	ir_block_add(out, s);
	struct binding *b = bind(c, d->name, B_LOCAL);
	b->renamed = egg_xstrdup(s->name);
	b->type = egg_xstrdup(s->type);
	b->level = lv;
}

/* acc = acc + e / acc += e / acc = fmaxf(acc, e) ...: fills the ACC statement. */
static int
match_accumulate(struct ctx *c, const struct ast_expr *a, const struct binding *acc,
                 struct ir_stmt *s)
{
	const struct ast_expr *rhs = a->kids[1], *other = NULL;
	if (strcmp(a->text, "+=") == 0) {
		s->combine = IR_SUM;
		s->combine_fn = egg_xstrdup("+");
		other = rhs;
	} else if (strcmp(a->text, "=") == 0) {
		rhs = strip_casts(rhs);
		int is_sum = rhs->kind == AST_BIN && strcmp(rhs->text, "+") == 0;
		int is_call = rhs->kind == AST_CALL && rhs->text && rhs->n_kids == 2;
		if (!is_sum && !is_call)
			return 0;
		if (is_call) {
			if (strstr(rhs->text, "max"))
				s->combine = IR_MAX;
			else if (strstr(rhs->text, "min"))
				s->combine = IR_MIN;
			else
				return 0;
		} else {
			s->combine = IR_SUM;
		}
		s->combine_fn = egg_xstrdup(is_sum ? "+" : rhs->text);
		for (int k = 0; k < 2; k++) {
			const struct ast_expr *x = strip_casts(rhs->kids[k]);
			if (x->kind == AST_NAME && strcmp(x->text, acc->name) == 0) {
				other = rhs->kids[1 - k];
				break;
			}
		}
	}
	if (!other)
		return 0;
	s->value = lift_expr(c, other);
	return s->value != NULL;
}

static void
lift_assign(struct ctx *c, const struct ast_expr *a, enum level lv, struct ir_block *out)
{
	const struct ast_expr *lhs = strip_casts(a->kids[0]);
	if (lhs->kind == AST_NAME) {
		struct binding *b = lookup(c, lhs->text);
		if (!b || b->kind != B_LOCAL) {
			refuse(c, "assignment to '%s', which is not a local", lhs->text);
			return;
		}
		if (lv == LV_COL && b->level != LV_COL) {
			struct ir_stmt *s = ir_stmt_new(IR_ACC);
			s->name = egg_xstrdup(b->renamed);
			s->type = egg_xstrdup(b->type);
			ir_block_add(out, s);
			if (!match_accumulate(c, a, b, s))
				refuse(c, "'%s' carries a value between loop iterations that is not a "
				          "sum, max or min", lhs->text);
			return;
		}
		struct ir_expr *v = lift_expr(c, a->kids[1]);
		if (!v)
			return;
		if (strcmp(a->text, "=") != 0) {
			char op[3] = { a->text[0], 0, 0 };
			v = bin(op, ir_expr_new(IR_LOCAL, b->renamed), v);
		}
		struct ir_stmt *s = ir_stmt_new(IR_ASSIGN);
		s->name = egg_xstrdup(b->renamed);
		s->value = v;
		ir_block_add(out, s);
		return;
	}
	const struct ast_expr *base, *index;
	if (lhs->kind == AST_INDEX)
		base = lhs->kids[0], index = lhs->kids[1];
	else if (lhs->kind == AST_UN && strcmp(lhs->text, "*") == 0)
		base = lhs->kids[0], index = NULL;
	else {
		refuse(c, "assignment to something other than a local or a buffer element");
		return;
	}
	const char *buffer;
	struct ir_expr *ix = lift_element(c, base, index, &buffer);
	if (!ix)
		return;
	struct ir_expr *v = lift_expr(c, a->kids[1]);
	if (v && strcmp(a->text, "=") != 0) {
		char op[3] = { a->text[0], 0, 0 };
		struct ir_expr *old = lift_load(c, base, index);
		v = old ? bin(op, old, v) : (ir_expr_free(v), NULL);
	}
	if (!v) {
		ir_expr_free(ix);
		return;
	}
	/* the stored value gets a name so that later reads of the element reuse it */
	struct ir_stmt *let = ir_stmt_new(IR_LET);
	let->name = egg_xasprintf("st%u_%zu", c->tmp_counter++, c->stage);
	const struct ir_param *bp = ir_program_param(c->prog, buffer);
	let->type = egg_xstrdup(bp ? bp->elem_type : "float");
	let->value = v;
	ir_block_add(out, let);
	struct ir_stmt *s = ir_stmt_new(IR_STORE);
	s->name = egg_xstrdup(buffer);
	s->index = ix;
	s->value = ir_expr_new(IR_LOCAL, let->name);
	ir_block_add(out, s);
	for (size_t i = 0; i < c->n_stores; i++)
		if (strcmp(c->stores[i].buffer, buffer) == 0 && !ir_expr_equal(c->stores[i].index, ix)) {
			refuse(c, "'%s' is written at two different elements", buffer);
			return;
		}
	c->stores = egg_xrealloc(c->stores, (c->n_stores + 1) * sizeof *c->stores);
	c->stores[c->n_stores++] = (struct store_rec){ buffer, ix, let->name };
}

static void
lift_atomic(struct ctx *c, const struct ast_expr *call, enum level lv, struct ir_block *out)
{
	if (lv != LV_ELEMENT || call->n_kids != 2) {
		refuse(c, "an atomic inside a loop");
		return;
	}
	const struct ast_expr *dst = strip_casts(call->kids[0]), *base, *index = NULL;
	if (dst->kind == AST_UN && strcmp(dst->text, "&") == 0 && dst->kids[0]->kind == AST_INDEX)
		base = dst->kids[0]->kids[0], index = dst->kids[0]->kids[1];
	else
		base = dst;
	const char *buffer;
	struct ir_expr *ix = lift_element(c, base, index, &buffer);
	if (!ix)
		return;
	if (ir_expr_has_load(ix) || ir_expr_uses_index(ix, IR_I)) {
		refuse(c, "an atomic to an address that depends on the data or the thread "
		          "(a histogram or scatter)");
		ir_expr_free(ix);
		return;
	}
	struct ir_stmt *s = ir_stmt_new(IR_ACC);
	s->name = egg_xstrdup(buffer);
	s->into_buffer = 1;
	s->index = ix;
	s->combine = strcmp(call->text, "atomicAdd") == 0 ? IR_SUM :
	             strcmp(call->text, "atomicMax") == 0 ? IR_MAX : IR_MIN;
	s->combine_fn = egg_xstrdup(s->combine == IR_SUM ? "+" : s->combine == IR_MAX ? "max" : "min");
	const struct ir_param *bp = ir_program_param(c->prog, buffer);
	s->type = egg_xstrdup(bp ? bp->elem_type : "float");
	s->value = lift_expr(c, call->kids[1]);
	ir_block_add(out, s);
	c->has_atomic = 1;
}

static int
expr_reads_local(const struct ir_expr *e, const char *name)
{
	if (!e)
		return 0;
	if (e->kind == IR_LOCAL && strcmp(e->text, name) == 0)
		return 1;
	for (size_t i = 0; i < e->n_kids; i++)
		if (expr_reads_local(e->kids[i], name))
			return 1;
	return 0;
}

static int
block_reads_local(const struct ir_block *b, const char *name)
{
	for (size_t i = 0; i < b->n; i++)
		if (expr_reads_local(b->stmts[i]->value, name) ||
		    expr_reads_local(b->stmts[i]->index, name))
			return 1;
	return 0;
}

/* for (int j = 0; j < BOUND; j++) at row level */
static void
lift_loop(struct ctx *c, const struct ast_stmt *s, enum level lv, struct ir_block *out)
{
	if (lv != LV_ROW) {
		refuse(c, lv == LV_COL ? "nested loops (a contraction or stencil)" :
		                         "a loop in an element-wise body");
		return;
	}
	const struct ast_decl *d = s->init && s->init->kind == AST_DECL && s->init->n_decls == 1 ?
	                           &s->init->decls[0] : NULL;
	const struct ast_expr *init = d ? strip_casts(d->init) : NULL;
	if (!d || !init) {
		refuse(c, "a loop without a fresh index");
		return;
	}
	int from_zero = init->kind == AST_NUM && strcmp(init->text, "0") == 0;
	const struct ast_expr *cond = s->expr, *step = s->step;
	if (!cond || cond->kind != AST_BIN || strcmp(cond->text, "<") != 0 ||
	    strip_casts(cond->kids[0])->kind != AST_NAME ||
	    strcmp(strip_casts(cond->kids[0])->text, d->name) != 0) {
		refuse(c, "a loop whose condition is not 'index < bound'");
		return;
	}
	int unit_step = step && ((step->kind == AST_POST || step->kind == AST_UN) &&
	                         strcmp(step->text, "++") == 0);
	if (step && step->kind == AST_ASSIGN && strcmp(step->text, "+=") == 0 &&
	    step->kids[1]->kind == AST_NUM && strcmp(step->kids[1]->text, "1") == 0)
		unit_step = 1;
	if (!unit_step) {
		refuse(c, "a loop whose step is not 1");
		return;
	}
	struct ir_stmt *loop = ir_stmt_new(IR_LOOP);
	ir_block_add(out, loop);
	loop->bound = lift_expr(c, cond->kids[1]);
	struct ir_expr *start = from_zero ? NULL : lift_expr(c, init);
	if (!loop->bound || (!from_zero && !start))
		return;
	if (ir_expr_has_load(loop->bound) || ir_expr_has_load(start)) {
		refuse(c, "a data-dependent loop bound");
		ir_expr_free(start);
		return;
	}
	size_t mark = c->n_env, stores = c->n_stores;
	if (from_zero) {
		bind(c, d->name, B_INDEX)->idx = IR_COL;
	} else {
		/* for (j = S; j < B; j++) runs col in [0, B - S) with j = col + S */
		struct ir_expr *col = ir_expr_new(IR_IDX, NULL);
		col->idx = IR_COL;
		loop->bound = bin("-", loop->bound, ir_expr_copy(start));
		bind(c, d->name, B_SCALAR)->expr = bin("+", col, start);
	}
	lift_stmt(c, s->then, LV_COL, &loop->body);
	unbind_to(c, mark);
	for (size_t i = 0; i < loop->body.n && !c->failed; i++) {
		const struct ir_stmt *a = loop->body.stmts[i];
		if (a->kind == IR_ACC && block_reads_local(&loop->body, a->name))
			refuse(c, "a running value read inside its own loop (a scan)");
	}
	c->n_stores = stores;
	c->has_loop = 1;
}

static int
ast_equal(const struct ast_expr *a, const struct ast_expr *b)
{
	if (!a || !b)
		return a == b;
	if (a->kind != b->kind || a->n_kids != b->n_kids ||
	    (a->text && b->text ? strcmp(a->text, b->text) != 0 : a->text != b->text))
		return 0;
	for (size_t i = 0; i < a->n_kids; i++)
		if (!ast_equal(a->kids[i], b->kids[i]))
			return 0;
	return 1;
}

/* The one assignment a branch holds, or NULL. */
static const struct ast_expr *
branch_assignment(const struct ast_stmt *s)
{
	while (s && s->kind == AST_BLOCK && s->n_body == 1)
		s = s->body[0];
	return s && s->kind == AST_EXPR && s->expr->kind == AST_ASSIGN ? s->expr : NULL;
}

/* if/else around single assignments becomes a select, so that element-wise code
 * keeps one path: "if (c) v = a; else v = b;" is v = c ? a : b, "if (c) v = a;"
 * is v = c ? a : v, "if (c) s += e;" is s = s + (c ? e : 0), and in a column
 * loop "if (e > m) m = e;" is a max accumulator.  A store in one branch only is
 * a partial write and is refused. */
static void
lift_if(struct ctx *c, const struct ast_stmt *s, enum level lv, struct ir_block *out)
{
	const struct ast_expr *t = branch_assignment(s->then);
	const struct ast_expr *e = s->otherwise ? branch_assignment(s->otherwise) : NULL;
	if (!t || (s->otherwise && (!e || !ast_equal(t->kids[0], e->kids[0])))) {
		refuse(c, "a data-dependent branch");
		return;
	}
	const struct ast_expr *lhs = strip_casts(t->kids[0]), *cond = s->expr;
	/* in a column loop: if (E > m) m = E; (or <, for a min) */
	if (lv == LV_COL && !e && lhs->kind == AST_NAME && strcmp(t->text, "=") == 0 &&
	    cond->kind == AST_BIN) {
		struct binding *b = lookup(c, lhs->text);
		int gt = strcmp(cond->text, ">") == 0 || strcmp(cond->text, ">=") == 0;
		int lt = strcmp(cond->text, "<") == 0 || strcmp(cond->text, "<=") == 0;
		if (b && b->kind == B_LOCAL && b->level != LV_COL && (gt || lt)) {
			for (int side = 0; side < 2; side++) {
				const struct ast_expr *v = strip_casts(cond->kids[side]),
				                      *other = cond->kids[1 - side];
				if (v->kind != AST_NAME || strcmp(v->text, lhs->text) != 0 ||
				    !ast_equal(other, t->kids[1]))
					continue;
				int is_max = side == 1 ? gt : lt; /* E > m, or m < E */
				struct ir_stmt *a = ir_stmt_new(IR_ACC);
				a->name = egg_xstrdup(b->renamed);
				a->type = egg_xstrdup(b->type);
				a->combine = is_max ? IR_MAX : IR_MIN;
				a->combine_fn = egg_xstrdup(strcmp(b->type, "float") == 0 ? (is_max ? "fmaxf" : "fminf") :
				                            strcmp(b->type, "double") == 0 ? (is_max ? "fmax" : "fmin") :
				                            (is_max ? "max" : "min"));
				a->value = lift_expr(c, other);
				ir_block_add(out, a);
				return;
			}
		}
	}
	if (!e && lhs->kind != AST_NAME) {
		refuse(c, "a store under a data-dependent condition (a partial write)");
		return;
	}
	/* synthesize "lhs = cond ? a : b" (or the conditional sum) and lift that */
	struct ast_expr zero = { AST_NUM, (char *)"0", NULL, 0 };
	struct ast_expr *k_then[2], *k_else[2], *k_sel[3], *k_sum[2], *k_asg[2];
	struct ast_expr bin_then = { AST_BIN, NULL, k_then, 2 }, bin_else = { AST_BIN, NULL, k_else, 2 };
	struct ast_expr sel = { AST_COND, NULL, k_sel, 3 }, sum = { AST_BIN, (char *)"+", k_sum, 2 };
	struct ast_expr asg = { AST_ASSIGN, (char *)"=", k_asg, 2 };
	char op_then[3] = { t->text[0], 0, 0 }, op_else[3] = { e ? e->text[0] : 0, 0, 0 };
	const struct ast_expr *a = t->kids[1], *bval = e ? e->kids[1] : t->kids[0];
	if (strcmp(t->text, "+=") == 0 && !e) { /* if (c) s += e; */
		k_sel[0] = (struct ast_expr *)cond, k_sel[1] = (struct ast_expr *)a, k_sel[2] = &zero;
		k_sum[0] = t->kids[0], k_sum[1] = &sel;
		k_asg[0] = t->kids[0], k_asg[1] = &sum;
		lift_assign(c, &asg, lv, out);
		return;
	}
	if (strcmp(t->text, "=") != 0) {
		bin_then.text = op_then;
		k_then[0] = t->kids[0], k_then[1] = (struct ast_expr *)a;
		a = &bin_then;
	}
	if (e && strcmp(e->text, "=") != 0) {
		bin_else.text = op_else;
		k_else[0] = e->kids[0], k_else[1] = e->kids[1];
		bval = &bin_else;
	}
	k_sel[0] = (struct ast_expr *)cond, k_sel[1] = (struct ast_expr *)a;
	k_sel[2] = (struct ast_expr *)bval;
	k_asg[0] = t->kids[0], k_asg[1] = &sel;
	lift_assign(c, &asg, lv, out);
}

static void
lift_stmt(struct ctx *c, const struct ast_stmt *s, enum level lv, struct ir_block *out)
{
	if (c->failed)
		return;
	switch (s->kind) {
	case AST_EMPTY:
		return;
	case AST_BLOCK: {
		size_t mark = c->n_env;
		for (size_t i = 0; i < s->n_body && !c->failed; i++)
			lift_stmt(c, s->body[i], lv, out);
		unbind_to(c, mark);
		return;
	}
	case AST_DECL:
		for (size_t i = 0; i < s->n_decls; i++)
			lift_decl(c, &s->decls[i], lv, out);
		return;
	case AST_EXPR:
		if (s->expr->kind == AST_ASSIGN)
			lift_assign(c, s->expr, lv, out);
		else if (s->expr->kind == AST_CALL && s->expr->text &&
		         egg_str_starts(s->expr->text, "atomic") &&
		         (strcmp(s->expr->text, "atomicAdd") == 0 ||
		          strcmp(s->expr->text, "atomicMax") == 0 ||
		          strcmp(s->expr->text, "atomicMin") == 0))
			lift_atomic(c, s->expr, lv, out);
		else if (s->expr->kind == AST_CALL && s->expr->text)
			refuse(c, "a call to '%s' as a statement", s->expr->text);
		else
			refuse(c, "an expression statement that is not an assignment");
		return;
	case AST_FOR:
		lift_loop(c, s, lv, out);
		return;
	case AST_IF:
		lift_if(c, s, lv, out);
		return;
	case AST_WHILE:
		refuse(c, "a data-dependent loop (while)");
		return;
	case AST_LAUNCH:
		refuse(c, "a launch from the device");
		return;
	default:
		refuse(c, "an early exit (return, break or continue) in the body");
		return;
	}
}

/* ---- the kernel's frame: thread index and guard ---- */

static int
contains_loop(const struct ast_stmt *s)
{
	if (!s)
		return 0;
	if (s->kind == AST_FOR || s->kind == AST_WHILE)
		return 1;
	for (size_t i = 0; i < s->n_body; i++)
		if (contains_loop(s->body[i]))
			return 1;
	return contains_loop(s->then) || contains_loop(s->otherwise);
}

/* cond is "gid < N" (or "N > gid"): returns N */
static const struct ast_expr *
guard_bound(const struct ast_expr *cond, const char *gid, const char *lt, const char *gt)
{
	if (!cond || cond->kind != AST_BIN)
		return NULL;
	const struct ast_expr *l = strip_casts(cond->kids[0]), *r = strip_casts(cond->kids[1]);
	if (strcmp(cond->text, lt) == 0 && l->kind == AST_NAME && strcmp(l->text, gid) == 0)
		return cond->kids[1];
	if (strcmp(cond->text, gt) == 0 && r->kind == AST_NAME && strcmp(r->text, gid) == 0)
		return cond->kids[0];
	return NULL;
}

static int
body_is_return(const struct ast_stmt *s)
{
	if (s->kind == AST_BLOCK && s->n_body == 1)
		s = s->body[0];
	return s->kind == AST_RETURN && !s->expr;
}

int
lift_kernel(struct ir_program *p, const struct ast_unit *u, const struct ast_function *k,
            const struct lift_arg *args, size_t n_args, struct strbuf *why)
{
	struct ctx c = { .prog = p, .unit = u, .stage = p->n_stages, .why = why };
	for (size_t i = 0; i < n_args; i++) {
		struct binding *b = bind(&c, args[i].param, args[i].buffer ? B_BUFFER : B_SCALAR);
		b->buffer = args[i].buffer;
		if (!args[i].buffer)
			b->expr = ir_expr_new(IR_VAR, args[i].scalar);
	}
	const struct ast_stmt *body = k->body;
	const char *gid = NULL, *gid_y = NULL;
	const struct ast_expr *bound = NULL, *bound_y = NULL;
	const struct ast_stmt *inner = NULL;
	struct ir_block pre = { 0 };
	int rows = 0; /* loops in the body: the thread index is a row */
	for (size_t j = 0; j < body->n_body; j++) {
		const struct ast_stmt *s = body->body[j];
		rows |= s->kind == AST_FOR && s->init && s->init->kind == AST_DECL &&
		        s->init->n_decls == 1 && is_global_index(s->init->decls[0].init) ?
		        contains_loop(s->then) : contains_loop(s);
	}
	size_t i = 0;
	for (; i < body->n_body && !c.failed && !bound; i++) {
		const struct ast_stmt *s = body->body[i];
		if (s->kind == AST_DECL && s->n_decls == 1 && is_global_index(s->decls[0].init)) {
			gid = s->decls[0].name;
			bind(&c, gid, B_INDEX)->idx = rows ? IR_ROW : IR_I;
		} else if (s->kind == AST_DECL && s->n_decls == 1 && is_global_index_dim(s->decls[0].init, "y")) {
			gid_y = s->decls[0].name;
		} else if (s->kind == AST_IF && gid && gid_y && !s->otherwise && s->expr->kind == AST_BIN &&
		           (strcmp(s->expr->text, "&&") == 0 || strcmp(s->expr->text, "||") == 0)) {
			/* if (y < R && x < C) {...} or if (y >= R || x >= C) return; */
			int ret = strcmp(s->expr->text, "||") == 0;
			const char *lt = ret ? ">=" : "<", *gt = ret ? "<=" : ">";
			for (int t = 0; t < 2 && !bound; t++) {
				bound_y = guard_bound(s->expr->kids[t], gid_y, lt, gt);
				bound = bound_y ? guard_bound(s->expr->kids[1 - t], gid, lt, gt) : NULL;
			}
			if (!bound || (ret && !body_is_return(s->then)))
				refuse(&c, "a 2-D guard that is not 'y < rows && x < cols'");
			inner = ret ? NULL : s->then;
		} else if (s->kind == AST_IF && gid && !gid_y && !s->otherwise &&
		           (bound = guard_bound(s->expr, gid, "<", ">"))) {
			inner = s->then;
		} else if (s->kind == AST_IF && gid && !gid_y && !s->otherwise && body_is_return(s->then) &&
		           (bound = guard_bound(s->expr, gid, ">=", "<="))) {
			inner = NULL; /* the rest of the body */
		} else if (s->kind == AST_FOR && s->init && s->init->kind == AST_DECL &&
		           s->init->n_decls == 1 && is_global_index(s->init->decls[0].init) &&
		           s->step && s->step->kind == AST_ASSIGN && strcmp(s->step->text, "+=") == 0 &&
		           is_grid_stride(s->step->kids[1])) {
			gid = s->init->decls[0].name;
			bind(&c, gid, B_INDEX)->idx = rows ? IR_ROW : IR_I;
			bound = guard_bound(s->expr, gid, "<", ">");
			inner = s->then;
			if (!bound)
				refuse(&c, "a grid-stride loop without an 'index < bound' condition");
		} else if (s->kind == AST_DECL && !contains_loop(s)) {
			lift_stmt(&c, s, LV_ELEMENT, &pre);
		} else {
			refuse(&c, "no bounds guard on the global thread index in '%s'", k->name);
		}
	}
	if (!c.failed && !bound)
		refuse(&c, "no global thread index with a bounds guard in '%s'", k->name);
	if (!c.failed && inner && i < body->n_body)
		refuse(&c, "statements after the guarded body in '%s'", k->name);
	if (!c.failed && bound_y && rows)
		refuse(&c, "a 2-D kernel with loops (a contraction or stencil)");
	struct ir_stage st = { 0 };
	if (!c.failed) {
		st.n = lift_expr(&c, bound);
		if (bound_y && st.n) {
			/* a 2-D map is a map over rows * cols: y = i / cols, x = i % cols */
			struct ir_expr *ny = lift_expr(&c, bound_y), *i_idx = ir_expr_new(IR_IDX, NULL);
			i_idx->idx = IR_I;
			struct binding *by = bind(&c, gid_y, B_SCALAR), *bx;
			by->expr = bin("/", ir_expr_copy(i_idx), ir_expr_copy(st.n));
			bx = bind(&c, gid, B_SCALAR);
			bx->expr = bin("%", i_idx, ir_expr_copy(st.n));
			st.n = ny ? bin("*", ny, st.n) : (ir_expr_free(st.n), NULL);
		}
		/* the pre-guard lets come first */
		st.body = pre;
		pre.stmts = NULL;
		pre.n = 0;
		enum level lv = rows ? LV_ROW : LV_ELEMENT;
		if (inner)
			lift_stmt(&c, inner, lv, &st.body);
		else
			for (size_t j = i; j < body->n_body; j++)
				lift_stmt(&c, body->body[j], lv, &st.body);
	}
	if (!c.failed && st.n && ir_expr_has_load(st.n))
		refuse(&c, "a data-dependent bound");
	if (!c.failed && c.has_atomic && rows)
		refuse(&c, "atomics in a kernel with loops");
	st.kind = rows ? IR_STAGE_ROWS : c.has_atomic ? IR_STAGE_REDUCE : IR_STAGE_MAP;
	st.kernel = egg_xstrdup(k->name);
	if (!c.failed && st.kind == IR_STAGE_REDUCE)
		for (size_t j = 0; j < st.body.n; j++)
			if (st.body.stmts[j]->kind == IR_STORE)
				refuse(&c, "stores next to an atomic reduction");
	unbind_to(&c, 0);
	free(c.env);
	free(c.stores);
	ir_block_free(&pre);
	if (c.failed || !st.n) {
		if (!c.failed)
			strbuf_addstr(why, "the bound could not be lifted");
		free(st.kernel);
		ir_expr_free(st.n);
		ir_block_free(&st.body);
		return -1;
	}
	p->stages = egg_xrealloc(p->stages, (p->n_stages + 1) * sizeof *p->stages);
	p->stages[p->n_stages++] = st;
	return 0;
}
