/*
 * rows.c -- the family of row reductions and what is built on them (row sums,
 * max, mean, softmax, log-softmax, layer and RMS norms, with the element-wise
 * work before and after inside the same row program).
 *
 * A group of G threads owns a row: G = 32 (a warp per row, several rows per
 * block, for short rows) or G = the block (for long rows).  The row program runs
 * redundantly in every thread of the group; each column loop is strided by the
 * group with vector accesses when the row's streamed pointers are aligned
 * (tested per row, scalar tail), accumulators are reduced by shuffles (and shared
 * memory across warps) and combined into the row-level value, and a barrier
 * separates loops so that a loop reading what an earlier one stored sees it.
 * Row-level stores are done by the group's first thread.
 *
 * Points: threads per row x threads per block x vector width x unroll.
 */
#include "config.h"

#include "builtin/recipes/common.h"
#include "common/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct { int g, tpb, vec, unroll; } points[] = {
	{ 32, 256, 4, 1 }, { 32, 128, 4, 2 }, { 128, 128, 4, 1 }, { 256, 256, 4, 1 },
	{ 512, 512, 4, 1 }, { 1024, 1024, 4, 1 }, { 32, 256, 1, 4 },
};
#define N_POINTS (sizeof points / sizeof *points)

static void
label(size_t pt, struct strbuf *out)
{
	strbuf_addf(out, "rows threads_per_row=%d tpb=%d vec=%d unroll=%d", points[pt].g,
	            points[pt].tpb, points[pt].vec, points[pt].unroll);
}

static int
has_acc(const struct ir_block *b, size_t upto, const char *name)
{
	for (size_t i = 0; i < upto; i++)
		if (b->stmts[i]->kind == IR_ACC && strcmp(b->stmts[i]->name, name) == 0)
			return 1;
	return 0;
}

static void
emit_loop(struct recipe_job *job, const struct ir_stmt *loop, size_t pt, struct strbuf *out)
{
	const int g = points[pt].g;
	const struct ir_block *b = &loop->body;
	struct emit_ctx c = { .prog = job->prog, .var = IR_COL, .component = -1 };
	c.index_text[IR_I] = "0";
	c.index_text[IR_ROW] = "egg_row";
	c.index_text[IR_COL] = "egg_j";
	emit_collect_streams(&c, b);
	c.vec = recipe_stream_vector(&c, points[pt].vec);

	strbuf_addstr(out, "\t\t{\n");
	for (size_t i = 0; i < b->n; i++)
		if (b->stmts[i]->kind == IR_ACC && !has_acc(b, i, b->stmts[i]->name))
			strbuf_addf(out, "\t\t\t%s egg_p_%s = %s;\n", b->stmts[i]->type, b->stmts[i]->name,
			            emit_identity(b->stmts[i]->combine, b->stmts[i]->type));
	strbuf_addstr(out, "\t\t\tconst long long egg_cn = ");
	emit_expr(&c, loop->bound, out);
	strbuf_addstr(out, ";\n\t\t\tlong long egg_j0 = 0;\n");
	if (c.vec > 1 && c.n_streams > 0) {
		strbuf_addstr(out, "\t\t\tif (");
		emit_aligned_test(&c, "0", out);
		strbuf_addf(out, ") {\n\t\t\t\tconst long long egg_cv = egg_cn / %d;\n"
		                 "#pragma unroll %d\n"
		                 "\t\t\t\tfor (long long egg_jv = egg_lane; egg_jv < egg_cv; egg_jv += %d) {\n",
		            c.vec, points[pt].unroll, g);
		char *base = egg_xasprintf("egg_jv * %d", c.vec);
		emit_stream_loads(&c, base, "\t\t\t\t\t", out);
		emit_components(&c, b, base, "\t\t\t\t\t", out);
		free(base);
		strbuf_addf(out, "\t\t\t\t}\n\t\t\t\tegg_j0 = egg_cv * %d;\n\t\t\t}\n", c.vec);
	}
	strbuf_addf(out, "#pragma unroll %d\n"
	                 "\t\t\tfor (long long egg_j = egg_j0 + egg_lane; egg_j < egg_cn; egg_j += %d) {\n",
	            c.vec > 1 ? 1 : points[pt].unroll, g);
	emit_block(&c, b, "\t\t\t\t", out);
	strbuf_addstr(out, "\t\t\t}\n");
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *a = b->stmts[i];
		if (a->kind != IR_ACC || has_acc(b, i, a->name))
			continue;
		char *p = egg_xasprintf("egg_p_%s", a->name);
		emit_group_reduce(a, p, g, "\t\t\t", job->uniq++, out);
		strbuf_addf(out, "\t\t\t%s = ", a->name);
		emit_combine(a, a->name, p, out);
		strbuf_addstr(out, ";\n");
		free(p);
	}
	strbuf_addf(out, "\t\t\t%s;\n\t\t}\n", g == 32 ? "__syncwarp()" : "__syncthreads()");
	emit_ctx_release(&c);
}

static void
emit_row_body(struct recipe_job *job, const struct ir_block *b, size_t pt, struct strbuf *out)
{
	struct emit_ctx c = { .prog = job->prog, .var = IR_COL, .component = -1 };
	c.index_text[IR_I] = "0";
	c.index_text[IR_ROW] = "egg_row";
	c.index_text[IR_COL] = "0";
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *s = b->stmts[i];
		struct ir_block one = { (struct ir_stmt **)&b->stmts[i], 1 };
		if (s->kind == IR_LOOP) {
			emit_loop(job, s, pt, out);
		} else if (s->kind == IR_STORE) {
			strbuf_addstr(out, "\t\tif (egg_lane == 0)\n");
			emit_block(&c, &one, "\t\t\t", out);
		} else {
			emit_block(&c, &one, "\t\t", out);
		}
	}
}

static int
emit(struct recipe_job *job, size_t first, size_t n, size_t pt, struct strbuf *why)
{
	if (job->prog->is_kernel) {
		strbuf_addstr(why, "a kernel target's launch geometry belongs to its caller; the rows "
		                   "recipe needs a launcher target");
		return -1;
	}
	for (size_t i = first; i < first + n; i++) {
		const struct ir_stage *st = &job->prog->stages[i];
		struct strbuf sig = STRBUF_INIT, lab = STRBUF_INIT, rowbody = STRBUF_INIT,
		              num = STRBUF_INIT, gs = STRBUF_INIT, rs = STRBUF_INIT;
		struct emit_ctx c = { .prog = job->prog, .component = -1 };
		char *name = recipe_kernel_name(job);
		const int r = points[pt].tpb / points[pt].g;
		label(pt, &lab);
		recipe_kernel_signature(job, name, points[pt].tpb, &sig);
		emit_row_body(job, &st->body, pt, &rowbody);
		emit_expr(&c, st->n, &num);
		strbuf_addf(&gs, "%d", points[pt].g);
		strbuf_addf(&rs, "%d", r);
		const char *keys[] = { "LABEL", "SIG", "N", "G", "R", "TPB", "ROWBODY", "V" };
		char tpb[16], v[16];
		snprintf(tpb, sizeof tpb, "%d", points[pt].tpb);
		snprintf(v, sizeof v, "%d", points[pt].vec);
		const char *vals[] = { lab.buf, sig.buf, num.buf, gs.buf, rs.buf, tpb, rowbody.buf, v };
		int rc = recipe_fill("rows.cu", keys, vals, sizeof keys / sizeof *keys, job->device, why);
		if (rc == 0)
			recipe_host_launch(job, name, num.buf, r, points[pt].tpb, 0);
		free(name);
		strbuf_release(&sig);
		strbuf_release(&lab);
		strbuf_release(&rowbody);
		strbuf_release(&num);
		strbuf_release(&gs);
		strbuf_release(&rs);
		if (rc)
			return rc;
	}
	return 0;
}

const struct recipe recipe_rows = {
	"rows", IR_STAGE_ROWS, N_POINTS, label, emit,
};
