/*
 * grid2d.c -- helpers of the 2-D recipes (see grid2d.h).
 */
#include "config.h"

#include "builtin/recipes/grid2d.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

struct emit_ctx
grid2d_ctx(const struct ir_program *p)
{
	struct emit_ctx c = { .prog = p, .var = IR_COL, .component = -1 };
	c.index_text[IR_I] = "0";
	/* int, as naive kernels' indices are: min/max and the arithmetic keep their
	 * types (the element is inside the domain, whose extents are ints) */
	c.index_text[IR_ROW] = "(int)egg_r";
	c.index_text[IR_COL] = "(int)egg_c";
	return c;
}

static struct ir_expr *
replace(const struct ir_expr *e, grid2d_load_fn fn, void *ctx)
{
	if (!e)
		return NULL;
	char *text = fn && e->kind == IR_LOAD ? fn(ctx, e) : NULL;
	if (text) {
		struct ir_expr *v = ir_expr_new(IR_VAR, text);
		free(text);
		return v;
	}
	struct ir_expr *c = ir_expr_new(e->kind, e->text);
	c->idx = e->idx;
	for (size_t i = 0; i < e->n_kids; i++)
		ir_expr_add(c, replace(e->kids[i], fn, ctx));
	return c;
}

struct ir_block
grid2d_body(const struct ir_block *b, grid2d_load_fn fn, grid2d_load_fn store_fn, void *ctx)
{
	struct ir_block out = { 0 };
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *s = b->stmts[i];
		char *text = s->kind == IR_STORE && store_fn ? store_fn(ctx, s->index) : NULL;
		struct ir_stmt *c = ir_stmt_new(text ? IR_ASSIGN : s->kind);
		c->name = text ? text : egg_xstrdup(s->name);
		c->type = s->type ? egg_xstrdup(s->type) : NULL;
		c->value = replace(s->value, fn, ctx);
		c->index = text ? NULL : replace(s->index, fn, ctx);
		ir_block_add(&out, c);
	}
	return out;
}

void
grid2d_launch(struct recipe_job *job, const struct ir_stage *st, const char *name, int tw, int th,
              int bx, int by)
{
	struct emit_ctx c = { .prog = job->prog, .component = -1 };
	struct strbuf *h = job->host;
	strbuf_addstr(h, "\t{\n\t\tlong long egg_gx = ((long long)(");
	emit_expr(&c, st->dims[1], h);
	strbuf_addf(h, ") + %d - 1) / %d;\n\t\tlong long egg_gy = ((long long)(", tw, tw);
	emit_expr(&c, st->dims[0], h);
	strbuf_addf(h, ") + %d - 1) / %d;\n", th, th);
	strbuf_addstr(h, "\t\tif (egg_gx > 2147483647LL)\n\t\t\tegg_gx = 2147483647LL;\n"
	                 "\t\tif (egg_gy > 65535)\n\t\t\tegg_gy = 65535;\n"
	                 "\t\tif (egg_gx < 1)\n\t\t\tegg_gx = 1;\n\t\tif (egg_gy < 1)\n\t\t\tegg_gy = 1;\n");
	strbuf_addf(h, "\t\t%s<<<dim3((unsigned)egg_gx, (unsigned)egg_gy), dim3(%d, %d)>>>(", name, bx, by);
	emit_kernel_args(job->prog, h);
	strbuf_addstr(h, ");\n\t}\n");
}
