/*
 * ir_contract.c -- the contraction stage's own part of the description (ir.h):
 * freeing it and its lines in the printed description, kept apart from ir.c so
 * that the family stays in files of its own.
 */
#include "config.h"

#include "builtin/lift/ir.h"
#include "common/util.h"

#include <stdlib.h>

static void
operand_free(struct ir_operand *o)
{
	free(o->buffer);
	ir_expr_free(o->off);
	ir_expr_free(o->batch_stride);
	ir_expr_free(o->outer);
	ir_expr_free(o->inner);
	ir_expr_free(o->kouter);
}

void
ir_contract_free(struct ir_contract *c)
{
	if (!c)
		return;
	ir_expr_free(c->batch);
	ir_expr_free(c->m);
	ir_expr_free(c->n);
	ir_expr_free(c->k);
	ir_expr_free(c->kin);
	operand_free(&c->a);
	operand_free(&c->b);
	free(c->acc);
	free(c->acc_type);
	ir_expr_free(c->init);
	free(c);
}

static void
print_or_zero(const struct ir_expr *e, struct strbuf *out)
{
	if (e)
		ir_expr_print(e, out);
	else
		strbuf_addch(out, '0');
}

static void
describe_operand(const char *role, const char *outer, const struct ir_operand *o,
                 struct strbuf *out)
{
	strbuf_addf(out, "  %s %s off=", role, o->buffer);
	print_or_zero(o->off, out);
	strbuf_addstr(out, " batch=");
	print_or_zero(o->batch_stride, out);
	strbuf_addf(out, " %s=", outer);
	print_or_zero(o->outer, out);
	if (o->split) {
		strbuf_addstr(out, " k/kin=");
		print_or_zero(o->kouter, out);
		strbuf_addstr(out, " k%kin=");
	} else {
		strbuf_addstr(out, " k=");
	}
	print_or_zero(o->inner, out);
	strbuf_addch(out, '\n');
}

void
ir_contract_describe(const struct ir_contract *c, struct strbuf *out)
{
	strbuf_addstr(out, "  batch=");
	if (c->batch)
		ir_expr_print(c->batch, out);
	else
		strbuf_addch(out, '1');
	strbuf_addstr(out, " m=");
	ir_expr_print(c->m, out);
	strbuf_addstr(out, " n=");
	ir_expr_print(c->n, out);
	strbuf_addstr(out, " k=");
	ir_expr_print(c->k, out);
	if (c->kin) {
		strbuf_addstr(out, " kin=");
		ir_expr_print(c->kin, out);
	}
	strbuf_addch(out, '\n');
	describe_operand("a", "row", &c->a, out);
	describe_operand("b", "col", &c->b, out);
	strbuf_addf(out, "  acc %s %s = ", c->acc_type, c->acc);
	ir_expr_print(c->init, out);
	strbuf_addch(out, '\n');
}
