/*
 * ir.c -- constructors, comparison and the printed description of the builtin
 * generator's tensor-level description (ir.h).
 */
#include "config.h"

#include "builtin/lift/ir.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

struct ir_expr *
ir_expr_new(enum ir_expr_kind kind, const char *text)
{
	struct ir_expr *e = egg_xcalloc(1, sizeof *e);
	e->kind = kind;
	e->text = text ? egg_xstrdup(text) : NULL;
	return e;
}

void
ir_expr_add(struct ir_expr *e, struct ir_expr *kid)
{
	e->kids = egg_xrealloc(e->kids, (e->n_kids + 1) * sizeof *e->kids);
	e->kids[e->n_kids++] = kid;
}

struct ir_expr *
ir_expr_copy(const struct ir_expr *e)
{
	if (!e)
		return NULL;
	struct ir_expr *c = ir_expr_new(e->kind, e->text);
	c->idx = e->idx;
	for (size_t i = 0; i < e->n_kids; i++)
		ir_expr_add(c, ir_expr_copy(e->kids[i]));
	return c;
}

void
ir_expr_free(struct ir_expr *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n_kids; i++)
		ir_expr_free(e->kids[i]);
	free(e->kids);
	free(e->text);
	free(e);
}

struct ir_stmt *
ir_stmt_new(enum ir_stmt_kind kind)
{
	struct ir_stmt *s = egg_xcalloc(1, sizeof *s);
	s->kind = kind;
	return s;
}

void
ir_block_add(struct ir_block *b, struct ir_stmt *s)
{
	b->stmts = egg_xrealloc(b->stmts, (b->n + 1) * sizeof *b->stmts);
	b->stmts[b->n++] = s;
}

void
ir_block_free(struct ir_block *b)
{
	for (size_t i = 0; i < b->n; i++) {
		struct ir_stmt *s = b->stmts[i];
		free(s->name);
		free(s->type);
		free(s->combine_fn);
		ir_expr_free(s->index);
		ir_expr_free(s->value);
		ir_expr_free(s->bound);
		ir_block_free(&s->body);
		free(s);
	}
	free(b->stmts);
	b->stmts = NULL;
	b->n = 0;
}

void
ir_program_free(struct ir_program *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_params; i++) {
		free(p->params[i].name);
		free(p->params[i].type);
		free(p->params[i].elem_type);
		free(p->params[i].extent);
	}
	free(p->params);
	for (size_t i = 0; i < p->n_stages; i++) {
		free(p->stages[i].kernel);
		free(p->stages[i].buffer);
		ir_expr_free(p->stages[i].n);
		ir_expr_free(p->stages[i].dims[0]);
		ir_expr_free(p->stages[i].dims[1]);
		ir_block_free(&p->stages[i].body);
		ir_contract_free(p->stages[i].contract);
	}
	free(p->stages);
	free(p->header);
	free(p->name);
	free(p);
}

static int
str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Structural equality, integer casts set aside at every level when uncast. */
static int
equal(const struct ir_expr *a, const struct ir_expr *b, int uncast)
{
	if (!a || !b)
		return a == b;
	if (uncast) {
		a = ir_expr_int_uncast(a);
		b = ir_expr_int_uncast(b);
	}
	if (a->kind != b->kind || !str_eq(a->text, b->text) || a->n_kids != b->n_kids)
		return 0;
	if (a->kind == IR_IDX && a->idx != b->idx)
		return 0;
	for (size_t i = 0; i < a->n_kids; i++)
		if (!equal(a->kids[i], b->kids[i], uncast))
			return 0;
	return 1;
}

int
ir_expr_equal(const struct ir_expr *a, const struct ir_expr *b)
{
	return equal(a, b, 0);
}

int
ir_expr_equal_index(const struct ir_expr *a, const struct ir_expr *b)
{
	return equal(a, b, 1);
}

int
ir_expr_uses_index(const struct ir_expr *e, enum ir_index idx)
{
	if (!e)
		return 0;
	if (e->kind == IR_IDX && e->idx == idx)
		return 1;
	for (size_t i = 0; i < e->n_kids; i++)
		if (ir_expr_uses_index(e->kids[i], idx))
			return 1;
	return 0;
}

int
ir_expr_loads(const struct ir_expr *e, const char *buffer)
{
	if (!e)
		return 0;
	if (e->kind == IR_LOAD && strcmp(e->text, buffer) == 0)
		return 1;
	for (size_t i = 0; i < e->n_kids; i++)
		if (ir_expr_loads(e->kids[i], buffer))
			return 1;
	return 0;
}

int
ir_expr_reads_local(const struct ir_expr *e, const char *name)
{
	if (!e)
		return 0;
	if (e->kind == IR_LOCAL && strcmp(e->text, name) == 0)
		return 1;
	for (size_t i = 0; i < e->n_kids; i++)
		if (ir_expr_reads_local(e->kids[i], name))
			return 1;
	return 0;
}

int
ir_expr_has_local(const struct ir_expr *e)
{
	if (!e)
		return 0;
	if (e->kind == IR_LOCAL)
		return 1;
	for (size_t i = 0; i < e->n_kids; i++)
		if (ir_expr_has_local(e->kids[i]))
			return 1;
	return 0;
}

int
ir_expr_loads_only_at(const struct ir_expr *e, const char *buffer, const struct ir_expr *ix)
{
	if (!e)
		return 1;
	if (e->kind == IR_LOAD && strcmp(e->text, buffer) == 0 && !ir_expr_equal(e->kids[0], ix))
		return 0;
	for (size_t i = 0; i < e->n_kids; i++)
		if (!ir_expr_loads_only_at(e->kids[i], buffer, ix))
			return 0;
	return 1;
}

int
ir_block_touches(const struct ir_block *b, const char *buffer, int stores)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *s = b->stmts[i];
		if (stores ? ((s->kind == IR_STORE || (s->kind == IR_ACC && s->into_buffer)) &&
		              strcmp(s->name, buffer) == 0)
		           : (ir_expr_loads(s->value, buffer) || ir_expr_loads(s->index, buffer) ||
		              ir_expr_loads(s->bound, buffer)))
			return 1;
		if (ir_block_touches(&s->body, buffer, stores))
			return 1;
	}
	return 0;
}

const struct ir_expr *
ir_expr_int_uncast(const struct ir_expr *e)
{
	while (e->kind == IR_CAST && e->n_kids == 1 && !strstr(e->text, "float") && !strstr(e->text, "double") &&
	       !strstr(e->text, "half") && !strstr(e->text, "bool"))
		e = e->kids[0];
	return e;
}

int
ir_expr_factors(const struct ir_expr *e, const struct ir_expr **f, size_t *n, size_t cap)
{
	e = ir_expr_int_uncast(e);
	if (e->kind == IR_BIN && strcmp(e->text, "*") == 0)
		return ir_expr_factors(e->kids[0], f, n, cap) && ir_expr_factors(e->kids[1], f, n, cap);
	if (*n == cap)
		return 0;
	f[(*n)++] = e;
	return 1;
}

int
ir_expr_same_factors(const struct ir_expr *const *a, size_t na, const struct ir_expr *const *b, size_t nb)
{
	int used[16] = { 0 };
	if (na != nb || na > 16)
		return 0;
	for (size_t i = 0; i < na; i++) {
		size_t j = 0;
		while (j < nb && (used[j] || !ir_expr_equal(a[i], b[j])))
			j++;
		if (j == nb)
			return 0;
		used[j] = 1;
	}
	return 1;
}

int
ir_expr_has_load(const struct ir_expr *e)
{
	if (!e)
		return 0;
	if (e->kind == IR_LOAD)
		return 1;
	for (size_t i = 0; i < e->n_kids; i++)
		if (ir_expr_has_load(e->kids[i]))
			return 1;
	return 0;
}

static const char *const index_names[] = { "i", "row", "col" };

void
ir_expr_print_with(const struct ir_expr *e, const struct ir_print_hooks *h, struct strbuf *out)
{
	if (h && h->leaf && h->leaf(h->ctx, e, out))
		return;
	switch (e->kind) {
	case IR_NUM:
	case IR_VAR:
	case IR_LOCAL:
		strbuf_addstr(out, e->text);
		break;
	case IR_IDX:
		strbuf_addstr(out, h ? h->index_text[e->idx] : index_names[e->idx]);
		break;
	case IR_LOAD:
		strbuf_addf(out, "%s[", e->text);
		ir_expr_print_with(e->kids[0], h, out);
		strbuf_addch(out, ']');
		break;
	case IR_UN:
		strbuf_addf(out, "(%s", e->text);
		ir_expr_print_with(e->kids[0], h, out);
		strbuf_addch(out, ')');
		break;
	case IR_BIN:
		strbuf_addch(out, '(');
		ir_expr_print_with(e->kids[0], h, out);
		strbuf_addf(out, " %s ", e->text);
		ir_expr_print_with(e->kids[1], h, out);
		strbuf_addch(out, ')');
		break;
	case IR_CALL:
		strbuf_addf(out, "%s(", e->text);
		for (size_t i = 0; i < e->n_kids; i++) {
			if (i)
				strbuf_addstr(out, ", ");
			ir_expr_print_with(e->kids[i], h, out);
		}
		strbuf_addch(out, ')');
		break;
	case IR_COND:
		strbuf_addch(out, '(');
		ir_expr_print_with(e->kids[0], h, out);
		strbuf_addstr(out, " ? ");
		ir_expr_print_with(e->kids[1], h, out);
		strbuf_addstr(out, " : ");
		ir_expr_print_with(e->kids[2], h, out);
		strbuf_addch(out, ')');
		break;
	case IR_CAST:
		strbuf_addf(out, "((%s)", e->text);
		ir_expr_print_with(e->kids[0], h, out);
		strbuf_addch(out, ')');
		break;
	}
}

void
ir_expr_print(const struct ir_expr *e, struct strbuf *out)
{
	ir_expr_print_with(e, NULL, out);
}

static const char *const combine_names[] = { "sum", "max", "min", "product" };

static void
describe_block(const struct ir_block *b, int depth, struct strbuf *out)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *s = b->stmts[i];
		for (int d = 0; d < depth; d++)
			strbuf_addstr(out, "  ");
		switch (s->kind) {
		case IR_LET:
			strbuf_addf(out, "let %s %s = ", s->type, s->name);
			ir_expr_print(s->value, out);
			break;
		case IR_ASSIGN:
			strbuf_addf(out, "set %s = ", s->name);
			ir_expr_print(s->value, out);
			break;
		case IR_STORE:
			strbuf_addf(out, "store %s[", s->name);
			ir_expr_print(s->index, out);
			strbuf_addstr(out, "] = ");
			ir_expr_print(s->value, out);
			break;
		case IR_ACC:
			strbuf_addf(out, "acc %s %s", combine_names[s->combine], s->name);
			if (s->into_buffer) {
				strbuf_addch(out, '[');
				ir_expr_print(s->index, out);
				strbuf_addch(out, ']');
			}
			strbuf_addstr(out, " <- ");
			ir_expr_print(s->value, out);
			break;
		case IR_LOOP:
			strbuf_addstr(out, "loop col < ");
			ir_expr_print(s->bound, out);
			strbuf_addstr(out, s->scan ? " scan\n" : "\n");
			describe_block(&s->body, depth + 1, out);
			continue;
		}
		strbuf_addch(out, '\n');
	}
}

static const char *const stage_names[] = { "map", "rows", "reduce", "memset", "contract",
	                                     "transpose", "stencil", "scatter", "scan" };

void
ir_program_describe(const struct ir_program *p, struct strbuf *out)
{
	strbuf_addf(out, "%s %s\n", p->is_kernel ? "kernel" : "launcher", p->name);
	for (size_t i = 0; i < p->n_params; i++) /* stored only where given (ir_param.optional) */
		if (p->params[i].optional && p->params[i].written)
			strbuf_addf(out, "optional output %s\n", p->params[i].name);
	for (size_t i = 0; i < p->n_stages; i++) {
		const struct ir_stage *st = &p->stages[i];
		strbuf_addf(out, "stage %zu %s", i, stage_names[st->kind]);
		if (st->kernel)
			strbuf_addf(out, " kernel=%s", st->kernel);
		if (st->buffer)
			strbuf_addf(out, " buffer=%s", st->buffer);
		strbuf_addstr(out, " n=");
		ir_expr_print(st->n, out);
		if (st->dims[0]) {
			strbuf_addstr(out, " rows=");
			ir_expr_print(st->dims[0], out);
			strbuf_addstr(out, " cols=");
			ir_expr_print(st->dims[1], out);
		}
		const struct ir_stmt *acc = st->kind == IR_STAGE_SCATTER ? ir_stage_buffer_acc(st) : NULL;
		const struct ir_param *dst = acc ? ir_program_param(p, acc->name) : NULL;
		if (dst && dst->extent)
			strbuf_addf(out, " extent=%s", dst->extent);
		strbuf_addch(out, '\n');
		if (st->contract)
			ir_contract_describe(st->contract, out);
		describe_block(&st->body, 1, out);
	}
}

const struct ir_stmt *
ir_stage_buffer_acc(const struct ir_stage *st)
{
	const struct ir_stmt *acc = NULL;
	for (size_t i = 0; i < st->body.n; i++)
		if (st->body.stmts[i]->kind == IR_ACC && st->body.stmts[i]->into_buffer) {
			if (acc)
				return NULL;
			acc = st->body.stmts[i];
		}
	return acc;
}

const char *
ir_conversion_type(const char *fn)
{
	static const char *const conv[][2] = {
		{ "__float2bfloat16", "__nv_bfloat16" }, { "__float2bfloat16_rn", "__nv_bfloat16" },
		{ "__float2bfloat16_rz", "__nv_bfloat16" }, { "__float2bfloat16_rd", "__nv_bfloat16" },
		{ "__float2bfloat16_ru", "__nv_bfloat16" }, { "__double2bfloat16", "__nv_bfloat16" },
		{ "__bfloat162float", "float" },
		{ "__float2half", "__half" }, { "__float2half_rn", "__half" }, { "__float2half_rz", "__half" },
		{ "__float2half_rd", "__half" }, { "__float2half_ru", "__half" }, { "__double2half", "__half" },
		{ "__half2float", "float" },
		{ "__int2float_rn", "float" }, { "__int2float_rz", "float" }, { "__int2float_rd", "float" },
		{ "__int2float_ru", "float" }, { "__uint2float_rn", "float" }, { "__uint2float_rz", "float" },
		{ "__ll2float_rn", "float" }, { "__double2float_rn", "float" }, { "__double2float_rz", "float" },
		{ "__float2int_rn", "int" }, { "__float2int_rz", "int" }, { "__float2int_rd", "int" },
		{ "__float2int_ru", "int" }, { "__float2uint_rn", "unsigned int" },
		{ "__float2uint_rz", "unsigned int" }, { "__float2ll_rn", "long long" },
		{ "__float2ll_rz", "long long" }, { "__int_as_float", "float" }, { "__uint_as_float", "float" },
		{ "__float_as_int", "int" }, { "__float_as_uint", "unsigned int" },
	};
	for (size_t i = 0; fn && i < sizeof conv / sizeof *conv; i++)
		if (strcmp(conv[i][0], fn) == 0)
			return conv[i][1];
	return NULL;
}

const struct ir_param *
ir_program_param(const struct ir_program *p, const char *name)
{
	for (size_t i = 0; i < p->n_params; i++)
		if (strcmp(p->params[i].name, name) == 0)
			return &p->params[i];
	return NULL;
}

/* whether b[from, upto) assigns or accumulates into the local name */
static int
changes_local(const struct ir_block *b, size_t from, size_t upto, const char *name)
{
	for (size_t i = from; i < upto; i++)
		if ((b->stmts[i]->kind == IR_ASSIGN || (b->stmts[i]->kind == IR_ACC && !b->stmts[i]->into_buffer)) &&
		    strcmp(b->stmts[i]->name, name) == 0)
			return 1;
	return 0;
}

struct ir_expr *
ir_expr_inline_lets(const struct ir_expr *e, const struct ir_block *b, size_t upto)
{
	if (e->kind == IR_LOCAL)
		for (size_t i = upto; i-- > 0;)
			if (b->stmts[i]->kind == IR_LET && strcmp(b->stmts[i]->name, e->text) == 0) {
				if (changes_local(b, i + 1, upto, e->text))
					break; /* its value is not the let's: left a local */
				return ir_expr_inline_lets(b->stmts[i]->value, b, i);
			}
	struct ir_expr *c = ir_expr_new(e->kind, e->text);
	c->idx = e->idx;
	for (size_t i = 0; i < e->n_kids; i++)
		ir_expr_add(c, ir_expr_inline_lets(e->kids[i], b, upto));
	return c;
}
