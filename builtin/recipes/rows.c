/*
 * rows.c -- the family of row reductions and what is built on them (row sums,
 * max, mean, softmax, log-softmax, layer and RMS norms, with the element-wise
 * work before and after inside the same row program).
 *
 * A group of G threads owns a row: G = 32 (a warp per row, several rows per
 * block, for short rows) or G = the block (for long rows).  The row program runs
 * redundantly in every thread of the group; each column loop is strided by the
 * group with vector accesses from the first aligned column of the row (a scalar
 * head and tail around them, rows_columns.c: rows of an odd length start at every
 * alignment), accumulators are reduced by shuffles (and shared
 * memory across warps) and combined into the row-level value, and a barrier
 * separates loops so that a loop reading what an earlier one stored sees it.
 * Row-level stores are done by the group's first thread.
 *
 * A max loop followed by a loop summing exp(value - max) over the same values is
 * emitted as one online pass (running max and rescaled sum, merged pairwise across
 * the group), saving a read of the row.
 *
 * Row programs that only map (gathers, row copies) also get points that keep
 * several vector loads per lane in flight before the stores, on one-wave grids,
 * and points whose vector stores are streaming (evict-first), which leave the L2
 * to rows a gather reads again, and points that take a gather's rows in the order
 * of the integer key they are found by (an embedding's token ids, counted, scanned
 * and placed inside one cooperative launch: templates/rows_sorted.cu), so that a
 * table row several rows select is read from memory once even when the table is
 * larger than the L2; row programs whose column strides memory (a sum
 * over a tensor's middle dimension) get a thread per row, so that neighbouring
 * threads read neighbouring elements, with the column loop unrolled, and points
 * that split each such row's columns over the warps of a block
 * (templates/rows_split.cu) for more loads in flight.
 *
 * Points: threads per row x threads per block x vector width x unroll x online
 * (x registers, loads in flight, grid).
 */
#include "config.h"

#include "builtin/recipes/common.h"
#include "builtin/recipes/rows_columns.h"
#include "common/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* online: a max loop followed by a sum of exp(value - max) loop over the same
 * values becomes one pass (the online softmax normalizer); 0 keeps the passes as
 * written, for comparison.  slots: when nonzero, the row is held in registers
 * (slots vectors of vec elements per thread, so rows up to g * slots * vec
 * columns) and every loop runs over the registers: one read of the row from
 * memory whatever the number of passes (see "the row in registers" below). */
struct row_point {
	int g, tpb, vec, unroll, online; /* g == 0: auto, chosen per call by the row length */
	int slots;
	/* inflight: column loops that only map (no accumulator) issue this many
	 * vector loads per thread before the first store; wave: the grid is one wave
	 * of resident blocks (rows strided over it) instead of a block per R rows.
	 * Points with inflight apply only to stages that have such a loop. */
	int inflight, wave;
	/* stcs: a mapping loop's vector stores are streaming (__stcs, evict-first), so
	 * the output does not push the gathered rows out of the L2: rows read again by
	 * later tokens are then found there (a gather reads its table's rows once from
	 * memory only if they stay). */
	int stcs;
	/* split: with g == 1, the block is split warps of 32 rows each: lane k of
	 * every warp owns row base + k (coalesced loads, as for g == 1) and warp w
	 * sums the columns w, w + split, ...; the partials meet in shared memory.
	 * split times the loads in flight of a thread per row, for row counts that
	 * leave a thread per row short of filling the GPU.  Pure reductions only (no
	 * stores in the column loops); tpb is 32 * split. */
	int split;
	/* keep: with stcs, the mapping loop's vector loads ask the L2 to keep all
	 * (100) or half (50) of their lines (evict-last): a gathered row read again by a later
	 * token is found there while the streaming stores pass through. */
	int keep;
	/* sort: the rows in the order of the integer key their gathered rows are read
	 * at (an embedding's token id), bucketed by key & (sort - 1), in one cooperative
	 * launch (templates/rows_sorted.cu): rows that gather the same row run together,
	 * so it comes from memory once even when the table is larger than the L2.  Row
	 * programs that only map and gather by such a key; the plain point (sort 0) runs
	 * where the cooperative launch cannot. */
	int sort;
};
/* g == 1 (a thread per row, no group) is for rows whose column strides memory
 * (the column index multiplies a stride): neighbouring threads own neighbouring
 * rows, so each load of the column loop is coalesced across the warp, and the
 * loop unrolled keeps that many loads in flight per thread.  Those points apply
 * only to such stages (strided_stage). */
static const struct row_point points[] = {
	{ 32, 256, 4, 1, 1, 0, 0, 0, 0, 0, 0, 0 }, { 0, 0, 4, 1, 1, 0, 0, 0, 0, 0, 0, 0 }, { 32, 128, 4, 2, 1, 0, 0, 0, 0, 0, 0, 0 }, { 128, 128, 4, 1, 1, 0, 0, 0, 0, 0, 0, 0 },
	{ 256, 256, 4, 1, 1, 0, 0, 0, 0, 0, 0, 0 }, { 512, 512, 4, 1, 1, 0, 0, 0, 0, 0, 0, 0 }, { 1024, 1024, 4, 1, 1, 0, 0, 0, 0, 0, 0, 0 }, { 32, 256, 1, 4, 1, 0, 0, 0, 0, 0, 0, 0 },
	{ 32, 256, 4, 1, 0, 0, 0, 0, 0, 0, 0, 0 }, { 256, 256, 4, 1, 0, 0, 0, 0, 0, 0, 0, 0 },
	/* the row in registers: up to 512, 1024, 2048, 2048, 4096, 4096, 8192, 16384 columns */
	{ 32, 256, 4, 1, 1, 4, 0, 0, 0, 0, 0, 0 }, { 32, 256, 4, 1, 1, 8, 0, 0, 0, 0, 0, 0 }, { 128, 128, 4, 1, 1, 4, 0, 0, 0, 0, 0, 0 }, { 256, 256, 4, 1, 1, 2, 0, 0, 0, 0, 0, 0 },
	{ 256, 256, 4, 1, 1, 4, 0, 0, 0, 0, 0, 0 }, { 128, 128, 4, 1, 1, 8, 0, 0, 0, 0, 0, 0 }, { 512, 512, 4, 1, 1, 4, 0, 0, 0, 0, 0, 0 }, { 1024, 1024, 4, 1, 1, 4, 0, 0, 0, 0, 0, 0 },
	/* loads in flight for mapping loops (gathers, copies), one-wave grids */
	{ 32, 256, 4, 1, 1, 0, 8, 1, 0, 0, 0, 0 }, { 32, 256, 4, 1, 1, 0, 4, 1, 0, 0, 0, 0 }, { 128, 128, 4, 1, 1, 0, 2, 1, 0, 0, 0, 0 }, { 64, 256, 4, 1, 1, 0, 4, 0, 0, 0, 0, 0 },
	/* the same with streaming stores, and the block-per-row point with them */
	{ 32, 256, 4, 1, 1, 0, 8, 1, 1, 0, 0, 0 }, { 128, 128, 4, 1, 1, 0, 2, 1, 1, 0, 0, 0 }, { 128, 128, 4, 1, 1, 0, 0, 0, 1, 0, 0, 0 },
	{ 128, 128, 4, 1, 1, 0, 0, 0, 1, 0, 100, 0 }, { 64, 256, 4, 1, 1, 0, 4, 0, 1, 0, 50, 0 },
	/* a thread per row for strided columns or short rows */
	{ 1, 256, 1, 8, 1, 0, 0, 0, 0, 0, 0, 0 }, { 1, 128, 1, 16, 1, 0, 0, 0, 0, 0, 0, 0 }, { 1, 64, 1, 16, 1, 0, 0, 0, 0, 0, 0, 0 },
	/* ... and its columns split over the warps of the block (one-wave grids) */
	{ 1, 128, 1, 8, 0, 0, 0, 1, 0, 4, 0, 0 }, { 1, 256, 1, 4, 0, 0, 0, 1, 0, 8, 0, 0 }, { 1, 256, 1, 8, 0, 0, 0, 1, 0, 8, 0, 0 },
	{ 1, 512, 1, 4, 0, 0, 0, 1, 0, 16, 0, 0 }, { 1, 1024, 1, 4, 0, 0, 0, 1, 0, 32, 0, 0 },
	/* short rows: a thread per row with vector loads when the row is aligned */
	{ 1, 256, 4, 1, 1, 0, 0, 0, 0, 0, 0, 0 }, { 1, 128, 4, 1, 1, 0, 0, 0, 0, 0, 0, 0 }, { 1, 256, 2, 2, 1, 0, 0, 0, 0, 0, 0, 0 },
	/* rows up to 16384 columns in registers on half the threads of the point above:
	 * two blocks of 512 may share a multiprocessor where one of 1024 is alone */
	{ 512, 512, 4, 1, 1, 8, 0, 0, 0, 0, 0, 0 },
	/* gathers in the order of their key (4096 buckets), one wave of 1024 or 512 threads */
	{ 32, 1024, 4, 1, 1, 0, 8, 1, 1, 0, 0, 4096 }, { 32, 512, 4, 1, 1, 0, 8, 1, 1, 0, 0, 4096 },
};
/* the most register elements per thread the held rows may take together */
#define MAX_HELD 32
/* auto: a warp per row up to AUTO_WARP_MAX columns, else a block of 512 */
#define AUTO_WARP_MAX 2048
static const struct row_point auto_warp = { 32, 256, 4, 1, 1, 0, 0, 0, 0, 0, 0, 0 }, auto_block = { 512, 512, 4, 1, 1, 0, 0, 0, 0, 0, 0, 0 };
#define N_POINTS (sizeof points / sizeof *points)

static void
label(size_t pt, struct strbuf *out)
{
	if (points[pt].g == 0)
		strbuf_addf(out, "rows threads_per_row=auto(32 up to %d columns, else 512) vec=%d "
		            "passes=online", AUTO_WARP_MAX, points[pt].vec);
	else
		strbuf_addf(out, "rows threads_per_row=%d tpb=%d vec=%d unroll=%d passes=%s",
		            points[pt].g, points[pt].tpb, points[pt].vec, points[pt].unroll,
		            points[pt].slots ? "registers" : points[pt].online ? "online" : "as-written");
	if (points[pt].slots)
		strbuf_addf(out, " slots=%d (rows up to %d columns, else online)", points[pt].slots,
		            points[pt].g * points[pt].slots * points[pt].vec);
	if (points[pt].inflight)
		strbuf_addf(out, " inflight=%d", points[pt].inflight);
	if (points[pt].wave)
		strbuf_addstr(out, " grid=wave");
	if (points[pt].stcs)
		strbuf_addstr(out, " stores=streaming");
	if (points[pt].keep)
		strbuf_addf(out, " loads=keep%d%%", points[pt].keep);
	if (points[pt].split)
		strbuf_addf(out, " split=%d", points[pt].split);
	if (points[pt].sort)
		strbuf_addf(out, " order=key&%d (cooperative)", points[pt].sort - 1);
}

/* An accumulator into name (any name when NULL) among b's first upto statements. */
static int
has_acc(const struct ir_block *b, size_t upto, const char *name)
{
	for (size_t i = 0; i < upto; i++)
		if (b->stmts[i]->kind == IR_ACC && (!name || strcmp(b->stmts[i]->name, name) == 0))
			return 1;
	return 0;
}

/* A mapping column loop's vector part, rp->inflight vectors per thread at a
 * time: every stream's loads first (all in flight together), then the element
 * code and the stores.  Leaves egg_jv at the first vector it did not do, for the
 * one-at-a-time loop after it.  Vector jv is at column egg_jh + jv * V, after the
 * head rows_emit_columns peels. */
static void
emit_inflight(struct emit_ctx *c, const struct ir_block *b, const struct row_point *rp,
              struct strbuf *out)
{
	const int u = rp->inflight, g = rp->g;
	strbuf_addf(out, "\t\t\t\tfor (; egg_jv + %d < egg_cv; egg_jv += %d) {\n", (u - 1) * g, u * g);
	for (size_t i = 0; i < c->n_streams; i++)
		if (!c->streams[i].is_store)
			strbuf_addf(out, "\t\t\t\t\t%s egg_l%zu[%d];\n",
			            emit_vector_type(c->streams[i].elem_type, c->vec), i, u);
	char *base = egg_xasprintf("egg_jh + (egg_jv + egg_u * %d) * %d", g, c->vec);
	c->reg_suffix = "[egg_u]";
	strbuf_addf(out, "#pragma unroll\n\t\t\t\t\tfor (int egg_u = 0; egg_u < %d; egg_u++) {\n", u);
	emit_stream_loads(c, base, "\t\t\t\t\t\t", out);
	strbuf_addf(out, "\t\t\t\t\t}\n#pragma unroll\n\t\t\t\t\tfor (int egg_u = 0; egg_u < %d; egg_u++) {\n", u);
	emit_components(c, b, base, "\t\t\t\t\t\t", out);
	strbuf_addstr(out, "\t\t\t\t\t}\n\t\t\t\t}\n");
	c->reg_suffix = NULL;
	free(base);
}

/* The barrier that ends a loop: none for a thread per row (it sees its own
 * stores), the warp's, or the block's. */
static const char *
group_sync(int g)
{
	return g == 1 ? "" : g == 32 ? "\t\t\t__syncwarp();\n" : "\t\t\t__syncthreads();\n";
}

/* The per-thread partials of a loop's accumulators... */
static void
acc_open(const struct ir_block *b, struct strbuf *out)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->stmts[i]->kind == IR_ACC && !has_acc(b, i, b->stmts[i]->name))
			strbuf_addf(out, "\t\t\t%s egg_p_%s = %s;\n", b->stmts[i]->type, b->stmts[i]->name,
			            emit_identity(b->stmts[i]->combine, b->stmts[i]->type));
}

/* ...reduced over the group and combined into the row-level accumulators; then
 * the barrier that ends the loop. */
static void
acc_close(struct recipe_job *job, const struct ir_block *b, int g, struct strbuf *out)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *a = b->stmts[i];
		if (a->kind != IR_ACC || has_acc(b, i, a->name))
			continue;
		char *p = egg_xasprintf("egg_p_%s", a->name);
		if (g > 1)
			emit_group_reduce(a, p, g, "\t\t\t", job->uniq++, out);
		strbuf_addf(out, "\t\t\t%s = ", a->name);
		emit_combine(a, a->name, p, out);
		strbuf_addstr(out, ";\n");
		free(p);
	}
	strbuf_addf(out, "%s\t\t}\n", group_sync(g));
}

/* acc_close for a split row: the warps' partials of row base + lane meet in
 * shared memory, every thread folds them in warp order (the same order in every
 * thread, so all of the row's threads agree), and the barrier after lets the
 * next loop or row reuse the array. */
static void
split_close(struct recipe_job *job, const struct ir_block *b, int split, struct strbuf *out)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *a = b->stmts[i];
		if (a->kind != IR_ACC || has_acc(b, i, a->name))
			continue;
		const unsigned u = job->uniq++;
		strbuf_addf(out, "\t\t\t__shared__ %s egg_sp%u[%d][32];\n"
		                 "\t\t\tegg_sp%u[egg_lane][threadIdx.x & 31] = egg_p_%s;\n"
		                 "\t\t\t__syncthreads();\n"
		                 "\t\t\tegg_p_%s = egg_sp%u[0][threadIdx.x & 31];\n"
		                 "\t\t\tfor (int egg_w = 1; egg_w < %d; egg_w++)\n\t\t\t\tegg_p_%s = ",
		            a->type, u, split, u, a->name, a->name, u, split, a->name);
		char *p = egg_xasprintf("egg_p_%s", a->name), *w = egg_xasprintf("egg_sp%u[egg_w][threadIdx.x & 31]", u);
		emit_combine(a, p, w, out);
		strbuf_addf(out, ";\n\t\t\t%s = ", a->name);
		emit_combine(a, a->name, p, out);
		strbuf_addstr(out, ";\n");
		free(p);
		free(w);
	}
	strbuf_addstr(out, "\t\t\t__syncthreads();\n\t\t}\n");
}

/* What the column loop callbacks of emit_loop need. */
struct loop_arg {
	const struct ir_block *b;
	const struct row_point *rp;
	int g;
};

static void
loop_vector(void *arg, struct emit_ctx *c, const char *base, struct strbuf *out)
{
	const struct loop_arg *a = arg;
	const int inflight = a->rp->inflight > 1 && !has_acc(a->b, a->b->n, NULL);
	if (inflight) {
		strbuf_addstr(out, "\t\t\t\tlong long egg_jv = egg_lane;\n");
		emit_inflight(c, a->b, a->rp, out);
	}
	strbuf_addf(out, "#pragma unroll %d\n"
	                 "\t\t\t\tfor (%s; egg_jv < egg_cv; egg_jv += %d) {\n",
	            a->rp->unroll, inflight ? "" : "long long egg_jv = egg_lane", a->g);
	emit_stream_loads(c, base, "\t\t\t\t\t", out);
	emit_components(c, a->b, base, "\t\t\t\t\t", out);
	strbuf_addstr(out, "\t\t\t\t}\n");
}

static void
loop_scalar(void *arg, struct emit_ctx *c, struct strbuf *out)
{
	const struct loop_arg *a = arg;
	emit_block(c, a->b, "\t\t\t\t", out);
}

static void
emit_loop(struct recipe_job *job, const struct ir_stmt *loop, const struct row_point *rp,
          struct strbuf *out)
{
	const int g = rp->split ? rp->split : rp->g;
	const struct ir_block *b = &loop->body;
	struct emit_ctx c = { .prog = job->prog, .var = IR_COL, .component = -1 };
	c.index_text[IR_I] = "0";
	c.index_text[IR_ROW] = "egg_row";
	c.index_text[IR_COL] = "egg_j";
	emit_collect_streams(&c, b);
	c.vec = recipe_stream_vector(&c, rp->vec);
	c.streaming_stores = rp->stcs && !has_acc(b, b->n, NULL);
	c.keep_loads = c.streaming_stores ? rp->keep : 0;

	strbuf_addstr(out, "\t\t{\n");
	acc_open(b, out);
	strbuf_addstr(out, "\t\t\tconst long long egg_cn = ");
	emit_expr(&c, loop->bound, out);
	strbuf_addstr(out, ";\n");
	struct loop_arg a = { b, rp, g };
	struct rows_columns rc = { &c, g, loop_vector, loop_scalar, &a, c.vec > 1 ? 1 : rp->unroll };
	rows_emit_columns(&rc, out);
	if (rp->split)
		split_close(job, b, rp->split, out);
	else
		acc_close(job, b, g, out);
	emit_ctx_release(&c);
}

/* ---- the online normalizer: max loop + sum-of-exp loop in one pass ---- */

static int
is_exp(const char *f)
{
	return strcmp(f, "expf") == 0 || strcmp(f, "__expf") == 0 || strcmp(f, "exp") == 0;
}

/* b->stmts[i] is "loop: acc max m <- E", and the next loop, after row-level
 * statements that do not touch m, is "loop: acc sum s <- exp(E - m)" over the
 * same bound: returns that loop's index (else 0). */
static size_t
match_online(const struct ir_block *b, size_t i)
{
	const struct ir_stmt *a = b->stmts[i];
	if (a->kind != IR_LOOP || a->body.n != 1 || a->body.stmts[0]->kind != IR_ACC ||
	    a->body.stmts[0]->combine != IR_MAX)
		return 0;
	const struct ir_stmt *am = a->body.stmts[0];
	if (strcmp(am->type, "float") != 0 && strcmp(am->type, "double") != 0)
		return 0;
	size_t j = i + 1;
	for (; j < b->n && b->stmts[j]->kind != IR_LOOP; j++) {
		const struct ir_stmt *s = b->stmts[j];
		if (s->kind == IR_STORE || ir_expr_reads_local(s->value, am->name) ||
		    (s->name && strcmp(s->name, am->name) == 0))
			return 0;
	}
	if (j == b->n)
		return 0;
	const struct ir_stmt *l = b->stmts[j];
	if (!ir_expr_equal(l->bound, a->bound) || l->body.n != 1 || l->body.stmts[0]->kind != IR_ACC)
		return 0;
	const struct ir_stmt *as = l->body.stmts[0];
	const struct ir_expr *v = as->value;
	if (as->combine != IR_SUM || strcmp(as->type, am->type) != 0 || v->kind != IR_CALL ||
	    !is_exp(v->text) || v->n_kids != 1)
		return 0;
	const struct ir_expr *d = v->kids[0];
	if (d->kind != IR_BIN || strcmp(d->text, "-") != 0 || !ir_expr_equal(d->kids[0], am->value) ||
	    d->kids[1]->kind != IR_LOCAL || strcmp(d->kids[1]->text, am->name) != 0)
		return 0;
	return j;
}

/* What the column loop callbacks of emit_online need. */
struct online_arg {
	const struct ir_block *vb; /* the element's value as the let egg_v */
	const char *step;          /* the online update by egg_v */
	int g;
};

static void
online_vector(void *arg, struct emit_ctx *c, const char *base, struct strbuf *out)
{
	const struct online_arg *a = arg;
	strbuf_addf(out, "\t\t\t\tfor (long long egg_jv = egg_lane; egg_jv < egg_cv; egg_jv += %d) {\n", a->g);
	emit_stream_loads(c, base, "\t\t\t\t\t", out);
	c->component_tail = a->step;
	emit_components(c, a->vb, base, "\t\t\t\t\t", out);
	c->component_tail = NULL;
	strbuf_addstr(out, "\t\t\t\t}\n");
}

static void
online_scalar(void *arg, struct emit_ctx *c, struct strbuf *out)
{
	const struct online_arg *a = arg;
	emit_block(c, a->vb, "\t\t\t\t", out);
	strbuf_addf(out, "\t\t\t\t%s\n", a->step);
}

static void
emit_online(struct recipe_job *job, const struct ir_stmt *a, const struct ir_stmt *l,
            const struct row_point *rp, struct strbuf *out)
{
	const int g = rp->g;
	const struct ir_stmt *am = a->body.stmts[0], *as = l->body.stmts[0];
	const char *t = am->type, *ex = as->value->text;
	unsigned u = job->uniq++;
	/* the per-element value as a let, so streams and components apply to it */
	struct ir_block vb = { 0 };
	struct ir_stmt *let = ir_stmt_new(IR_LET);
	let->name = egg_xstrdup("egg_v");
	let->type = egg_xstrdup(t);
	let->value = ir_expr_copy(am->value);
	ir_block_add(&vb, let);
	struct strbuf step = STRBUF_INIT;
	strbuf_addf(&step, "if (egg_v > egg_om) { egg_os = egg_os * %s(egg_om - egg_v) + 1; egg_om = egg_v; } "
	                   "else if (egg_v != -INFINITY) { egg_os += %s(egg_v - egg_om); }", ex, ex);

	struct emit_ctx c = { .prog = job->prog, .var = IR_COL, .component = -1 };
	c.index_text[IR_I] = "0";
	c.index_text[IR_ROW] = "egg_row";
	c.index_text[IR_COL] = "egg_j";
	emit_collect_streams(&c, &vb);
	c.vec = recipe_stream_vector(&c, rp->vec);
	strbuf_addf(out, "\t\t{\n\t\t\t%s egg_om = -INFINITY, egg_os = 0;\n\t\t\tconst long long egg_cn = ", t);
	emit_expr(&c, a->bound, out);
	strbuf_addstr(out, ";\n");
	struct online_arg oa = { &vb, step.buf, g };
	struct rows_columns rc = { &c, g, online_vector, online_scalar, &oa, 1 };
	rows_emit_columns(&rc, out);
	/* merge (max, sum) pairs across the group */
	const char *merge = "{ %s egg_nm = egg_om > egg_m2 ? egg_om : egg_m2; "
	                    "egg_os = (egg_om == -INFINITY ? 0 : egg_os * %s(egg_om - egg_nm)) + "
	                    "(egg_m2 == -INFINITY ? 0 : egg_s2 * %s(egg_m2 - egg_nm)); egg_om = egg_nm; }\n";
	strbuf_addf(out, "#pragma unroll\n\t\t\tfor (int egg_o = %d; egg_o > 0; egg_o >>= 1) {\n"
	                 "\t\t\t\tconst %s egg_m2 = __shfl_xor_sync(0xffffffffu, egg_om, egg_o);\n"
	                 "\t\t\t\tconst %s egg_s2 = __shfl_xor_sync(0xffffffffu, egg_os, egg_o);\n\t\t\t\t",
	            (g < 32 ? g : 32) / 2, t, t);
	strbuf_addf(out, merge, t, ex, ex);
	strbuf_addstr(out, "\t\t\t}\n");
	if (g > 32) {
		strbuf_addf(out, "\t\t\t__shared__ %s egg_shm%u[32], egg_shs%u[32];\n\t\t\t__syncthreads();\n"
		                 "\t\t\tif ((threadIdx.x & 31) == 0) { egg_shm%u[threadIdx.x >> 5] = egg_om; "
		                 "egg_shs%u[threadIdx.x >> 5] = egg_os; }\n\t\t\t__syncthreads();\n"
		                 "\t\t\tegg_om = egg_shm%u[0];\n\t\t\tegg_os = egg_shs%u[0];\n"
		                 "\t\t\tfor (int egg_k = 1; egg_k < %d; egg_k++) {\n"
		                 "\t\t\t\tconst %s egg_m2 = egg_shm%u[egg_k], egg_s2 = egg_shs%u[egg_k];\n\t\t\t\t",
		            t, u, u, u, u, u, u, g / 32, t, u, u);
		strbuf_addf(out, merge, t, ex, ex);
		strbuf_addstr(out, "\t\t\t}\n");
	}
	strbuf_addf(out, "\t\t\t%s = ", am->name);
	emit_combine(am, am->name, "egg_om", out);
	strbuf_addf(out, ";\n\t\t\t%s = %s + (egg_om == -INFINITY ? 0 : egg_os * %s(egg_om - %s));\n",
	            as->name, as->name, ex, am->name);
	strbuf_addf(out, "%s\t\t}\n", group_sync(g));
	strbuf_release(&step);
	ir_block_free(&vb);
	emit_ctx_release(&c);
}

struct hold_plan;
static void emit_held_loop(struct recipe_job *job, const struct ir_stmt *loop,
                           const struct hold_plan *hp, const struct row_point *rp, struct strbuf *out);

/* The row program, its loops from memory, or from the registers of hp. */
static void
emit_passes(struct recipe_job *job, const struct ir_block *b, const struct row_point *rp,
            const struct hold_plan *hp, struct strbuf *out)
{
	struct emit_ctx c = { .prog = job->prog, .var = IR_COL, .component = -1 };
	c.index_text[IR_I] = "0";
	c.index_text[IR_ROW] = "egg_row";
	c.index_text[IR_COL] = "0";
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *s = b->stmts[i];
		struct ir_block one = { (struct ir_stmt **)&b->stmts[i], 1 };
		size_t j = rp->online && !hp ? match_online(b, i) : 0;
		if (j) {
			/* the row-level statements between the loops do not touch the max */
			for (size_t k = i + 1; k < j; k++) {
				struct ir_block mid = { (struct ir_stmt **)&b->stmts[k], 1 };
				emit_block(&c, &mid, "\t\t", out);
			}
			emit_online(job, s, b->stmts[j], rp, out);
			i = j;
			continue;
		}
		if (s->kind == IR_LOOP && hp) {
			emit_held_loop(job, s, hp, rp, out);
		} else if (s->kind == IR_LOOP) {
			emit_loop(job, s, rp, out);
		} else if (s->kind == IR_STORE) {
			strbuf_addstr(out, rp->split ? "\t\tif (egg_lane == 0 && egg_live)\n" :
			                               "\t\tif (egg_lane == 0)\n");
			emit_block(&c, &one, "\t\t\t", out);
		} else {
			emit_block(&c, &one, "\t\t", out);
		}
	}
}

/* ---- the row in registers ----
 *
 * Every buffer the row program streams at (base + col) with a base that depends
 * on the row, and never stores into, is "held": each thread of the group loads
 * its slots vectors of the row once, up front (all loads in flight together),
 * and every column loop then runs over the registers, slot by slot, with the
 * other streams (per-column weights, stores) vectorized at the same positions.
 * A loop written from s (col < B - s, index base + s + col) runs over the same
 * registers with the positions before s left out.  Rows longer than the
 * registers, rows whose streams are not aligned to the vector, and column counts
 * that are not a multiple of it take the passes above, chosen per row. */

struct held {
	const char *buffer, *type;
	const struct ir_expr *base; /* borrowed from the program */
};

struct hold_plan {
	const struct ir_expr *bound; /* the row length every loop is written against */
	struct held *h;
	size_t n;
	int vec;                     /* elements per register vector: the point's, or twice
	                                it where every stream is narrow (8 bf16 for 4 floats) */
};

/* b as root - s with s a positive literal: s and *root; else 0 and *root = b. */
static long
bound_offset(const struct ir_expr *b, const struct ir_expr **root)
{
	*root = b;
	if (b->kind != IR_BIN || strcmp(b->text, "-") != 0 || b->kids[1]->kind != IR_NUM)
		return 0;
	char *end;
	long s = strtol(b->kids[1]->text, &end, 10);
	if (*end != '\0' || s <= 0)
		return 0;
	*root = b->kids[0];
	return s;
}

/* inv as base + s: the base (inv itself when s is 0), or NULL. */
static const struct ir_expr *
strip_offset(const struct ir_expr *inv, long s)
{
	if (s == 0 || !inv)
		return inv;
	if (inv->kind != IR_BIN || strcmp(inv->text, "+") != 0 || inv->kids[1]->kind != IR_NUM)
		return NULL;
	char *end;
	long t = strtol(inv->kids[1]->text, &end, 10);
	return *end == '\0' && t == s ? inv->kids[0] : NULL;
}

static int
stores_into(const struct ir_block *b, const char *buffer)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *s = b->stmts[i];
		if (((s->kind == IR_STORE || (s->kind == IR_ACC && s->into_buffer)) &&
		     (!buffer || strcmp(s->name, buffer) == 0)) || stores_into(&s->body, buffer))
			return 1;
	}
	return 0;
}

static void
hold_release(struct hold_plan *hp)
{
	free(hp->h);
	memset(hp, 0, sizeof *hp);
}

/* One loop's streams into the plan: 0, or -1 when the loop cannot run from
 * registers (a loop written from s > 0 may only read held rows). */
static int
plan_loop(struct recipe_job *job, const struct ir_block *row, const struct ir_stmt *loop, long s,
          const struct row_point *rp, struct hold_plan *hp)
{
	struct emit_ctx c = { .prog = job->prog, .var = IR_COL, .component = -1 };
	emit_collect_streams(&c, &loop->body);
	int rc = 0;
	for (size_t i = 0; i < c.n_streams && rc == 0; i++) {
		const struct emit_stream *x = &c.streams[i];
		const struct ir_expr *base = x->is_store ? NULL : strip_offset(x->inv, s);
		if (!base || !ir_expr_uses_index(base, IR_ROW) || ir_expr_has_local(base) ||
		    ir_expr_has_load(base) || stores_into(row, x->buffer) ||
		    emit_stream_width(x->elem_type, rp->vec) < rp->vec) {
			rc = s ? -1 : 0; /* streamed from memory beside the registers */
			continue;
		}
		size_t k;
		for (k = 0; k < hp->n && strcmp(hp->h[k].buffer, x->buffer) != 0; k++)
			;
		if (k < hp->n) {
			if (!ir_expr_equal_index(hp->h[k].base, base))
				rc = -1;
			continue;
		}
		hp->h = egg_xrealloc(hp->h, (hp->n + 1) * sizeof *hp->h);
		hp->h[hp->n++] = (struct held){ x->buffer, x->elem_type, base };
	}
	emit_ctx_release(&c);
	return rc;
}

/* The plan for the row program b at rp: 0, or -1 (hp empty) when it has no row
 * to hold or the rows would take more than MAX_HELD registers. */
static int
plan_hold(struct recipe_job *job, const struct ir_block *b, const struct row_point *rp,
          struct hold_plan *hp)
{
	memset(hp, 0, sizeof *hp);
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *l = b->stmts[i];
		if (l->kind != IR_LOOP)
			continue;
		const struct ir_expr *root;
		long s = bound_offset(l->bound, &root);
		if ((hp->bound && !ir_expr_equal_index(hp->bound, root)) ||
		    plan_loop(job, b, l, s, rp, hp) != 0) {
			hold_release(hp);
			return -1;
		}
		hp->bound = root;
	}
	if (hp->n == 0 || ir_expr_has_local(hp->bound) || ir_expr_has_load(hp->bound) ||
	    (int)hp->n * rp->slots * rp->vec > MAX_HELD) {
		hold_release(hp);
		return -1;
	}
	return 0;
}

/* The loop's streams, the held rows first (at the loop's own offsets), so that
 * stream k < hp->n is the register array egg_lk. */
static void
held_streams(struct emit_ctx *c, const struct ir_stmt *loop, const struct hold_plan *hp)
{
	struct emit_ctx own = { .prog = c->prog, .var = IR_COL, .component = -1 };
	emit_collect_streams(&own, &loop->body);
	c->streams = egg_xcalloc(hp->n, sizeof *c->streams);
	c->n_streams = c->n_held = hp->n;
	for (size_t k = 0; k < hp->n; k++) {
		c->streams[k] = (struct emit_stream){ hp->h[k].buffer, hp->h[k].base, 0, hp->h[k].type };
		for (size_t i = 0; i < own.n_streams; i++)
			if (!own.streams[i].is_store && strcmp(own.streams[i].buffer, hp->h[k].buffer) == 0)
				c->streams[k].inv = own.streams[i].inv;
	}
	emit_collect_streams(c, &loop->body); /* the rest, after the held ones */
	emit_ctx_release(&own);
}

static void
emit_held_loop(struct recipe_job *job, const struct ir_stmt *loop, const struct hold_plan *hp,
               const struct row_point *rp, struct strbuf *out)
{
	const struct ir_expr *root;
	const long s = bound_offset(loop->bound, &root);
	const int v = hp->vec;
	struct emit_ctx c = { .prog = job->prog, .var = IR_COL, .component = -1 };
	c.index_text[IR_I] = "0";
	c.index_text[IR_ROW] = "egg_row";
	c.index_text[IR_COL] = "0";
	held_streams(&c, loop, hp);
	c.vec = v;
	c.reg_suffix = "[egg_k]";
	strbuf_addstr(out, "\t\t{\n");
	acc_open(&loop->body, out);
	for (size_t i = hp->n; i < c.n_streams; i++)
		if (!c.streams[i].is_store)
			strbuf_addf(out, "\t\t\t%s egg_l%zu[%d];\n",
			            emit_vector_type(c.streams[i].elem_type, v), i, rp->slots);
	strbuf_addf(out, "#pragma unroll\n\t\t\tfor (int egg_k = 0; egg_k < %d; egg_k++) {\n"
	                 "\t\t\t\tconst long long egg_jv = (long long)egg_k * %d + egg_lane;\n"
	                 "\t\t\t\tif (egg_jv < egg_rv) {\n", rp->slots, rp->g);
	char *base = egg_xasprintf("egg_jv * %d", v);
	emit_stream_loads(&c, base, "\t\t\t\t\t", out);
	for (size_t i = 0; i < c.n_streams; i++)
		if (c.streams[i].is_store)
			strbuf_addf(out, "\t\t\t\t\t%s egg_s%zu;\n",
			            emit_vector_type(c.streams[i].elem_type, v), i);
	for (int k = 0; k < v; k++) {
		char *col = s ? egg_xasprintf("(egg_jv * %d + %d - %ld)", v, k, s)
		              : egg_xasprintf("(egg_jv * %d + %d)", v, k);
		if (s)
			strbuf_addf(out, "\t\t\t\t\tif (egg_jv * %d + %d >= %ld) {\n", v, k, s);
		else
			strbuf_addstr(out, "\t\t\t\t\t{\n");
		c.index_text[IR_COL] = col;
		c.component = k;
		emit_block(&c, &loop->body, "\t\t\t\t\t\t", out);
		c.component = -1;
		c.index_text[IR_COL] = "0";
		strbuf_addstr(out, "\t\t\t\t\t}\n");
		free(col);
	}
	emit_stream_stores(&c, base, "\t\t\t\t\t", out);
	strbuf_addstr(out, "\t\t\t\t}\n\t\t\t}\n");
	acc_close(job, &loop->body, rp->g, out);
	free(base);
	emit_ctx_release(&c);
}

/* The test that the row fits the registers and that every stream, held or not,
 * is aligned to the vector at the row's start. */
static int
emit_hold_test(struct recipe_job *job, const struct ir_block *b, struct hold_plan *hp,
               const struct row_point *rp, const struct emit_ctx *row, struct strbuf *out)
{
	struct emit_ctx u = { .prog = job->prog, .var = IR_COL, .component = -1 };
	u.index_text[IR_I] = "0";
	u.index_text[IR_ROW] = "egg_row";
	u.index_text[IR_COL] = "0";
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_expr *root;
		if (b->stmts[i]->kind == IR_LOOP && bound_offset(b->stmts[i]->bound, &root) == 0)
			emit_collect_streams(&u, &b->stmts[i]->body);
	}
	/* the held rows' own width too (a held row's loop may have no other stream) */
	hp->vec = recipe_stream_vector(&u, rp->vec);
	for (size_t k = 0; k < hp->n; k++)
		if (emit_stream_width(hp->h[k].type, rp->vec) < hp->vec)
			hp->vec = emit_stream_width(hp->h[k].type, rp->vec);
	if (hp->vec < rp->vec) {
		emit_ctx_release(&u);
		return -1;
	}
	u.vec = hp->vec;
	strbuf_addf(out, "\t\t\tif (egg_rn <= %d && egg_rn %% %d == 0", rp->g * rp->slots * hp->vec,
	            hp->vec);
	for (size_t k = 0; k < hp->n; k++) {
		strbuf_addf(out, " && (((unsigned long long)(&%s[", hp->h[k].buffer);
		emit_expr(row, hp->h[k].base, out);
		strbuf_addf(out, "]) & (%d * sizeof(%s) - 1)) == 0)", hp->vec, hp->h[k].type);
	}
	if (u.n_streams) {
		strbuf_addstr(out, " && ");
		emit_aligned_test(&u, "0", out);
	}
	strbuf_addstr(out, ") {\n");
	emit_ctx_release(&u);
	return 0;
}

static void
emit_row_body(struct recipe_job *job, const struct ir_block *b, const struct row_point *rp,
              struct strbuf *out)
{
	struct hold_plan hp;
	if (!rp->slots || plan_hold(job, b, rp, &hp) != 0) {
		emit_passes(job, b, rp, NULL, out);
		return;
	}
	struct emit_ctx c = { .prog = job->prog, .var = IR_COL, .component = -1 };
	c.index_text[IR_I] = "0";
	c.index_text[IR_ROW] = "egg_row";
	c.index_text[IR_COL] = "0";
	struct strbuf test = STRBUF_INIT;
	if (emit_hold_test(job, b, &hp, rp, &c, &test) != 0) {
		strbuf_release(&test);
		hold_release(&hp);
		emit_passes(job, b, rp, NULL, out);
		return;
	}
	strbuf_addstr(out, "\t\t{\n\t\t\tconst long long egg_rn = ");
	emit_expr(&c, hp.bound, out);
	strbuf_addf(out, ";\n%s\t\t\tconst long long egg_rv = egg_rn / %d;\n", test.buf, hp.vec);
	for (size_t k = 0; k < hp.n; k++)
		strbuf_addf(out, "\t\t\t%s egg_l%zu[%d];\n", emit_vector_type(hp.h[k].type, hp.vec), k,
		            rp->slots);
	strbuf_addf(out, "#pragma unroll\n\t\t\tfor (int egg_k = 0; egg_k < %d; egg_k++) {\n"
	                 "\t\t\t\tconst long long egg_jv = (long long)egg_k * %d + egg_lane;\n"
	                 "\t\t\t\tif (egg_jv < egg_rv) {\n", rp->slots, rp->g);
	for (size_t k = 0; k < hp.n; k++) {
		struct strbuf addr = STRBUF_INIT;
		strbuf_addf(&addr, "&%s[(", hp.h[k].buffer);
		emit_expr(&c, hp.h[k].base, &addr);
		strbuf_addf(&addr, ") + egg_jv * %d]", hp.vec);
		strbuf_addf(out, "\t\t\t\t\tegg_l%zu[egg_k] = ", k);
		emit_vector_load(hp.h[k].type, hp.vec, 0, 0, addr.buf, out);
		strbuf_addstr(out, ";\n");
		strbuf_release(&addr);
	}
	strbuf_addstr(out, "\t\t\t\t}\n\t\t\t}\n");
	emit_passes(job, b, rp, &hp, out);
	strbuf_addstr(out, "\t\t\t} else {\n");
	emit_passes(job, b, rp, NULL, out);
	strbuf_addstr(out, "\t\t\t}\n\t\t}\n");
	strbuf_release(&test);
	hold_release(&hp);
}

/* ---- one row over the whole grid ---- */

#define MAX_PARTS 4096

/* A one-row program (a single-thread reduction) with one column loop that only
 * accumulates, and no stores before it: worth spreading over the grid. */
static int
grid_shape(const struct ir_stage *st, size_t *loop_at)
{
	if (st->n->kind != IR_NUM || strcmp(st->n->text, "1") != 0)
		return 0;
	size_t loops = 0;
	for (size_t i = 0; i < st->body.n; i++) {
		const struct ir_stmt *s = st->body.stmts[i];
		if (s->kind == IR_LOOP) {
			*loop_at = i;
			loops++;
			for (size_t j = 0; j < s->body.n; j++)
				if (s->body.stmts[j]->kind == IR_STORE)
					return 0;
		} else if (s->kind == IR_STORE && loops == 0) {
			return 0;
		}
	}
	return loops == 1;
}

/* First pass: the column loop as a streaming pass, per-block partials of every
 * accumulator; second pass (one block): fold the partials, then the row-level
 * code after the loop.  The row-level code before the loop runs in both. */
static int
emit_grid_row(struct recipe_job *job, const struct ir_stage *st, size_t at,
              const struct row_point *rp, const char *lab, struct strbuf *why)
{
	const struct ir_stmt *loop = st->body.stmts[at];
	const struct ir_block *lb = &loop->body;
	const int tpb = rp->tpb < 256 ? 256 : rp->tpb;
	struct emit_ctx c = { .prog = job->prog, .component = -1 };
	c.index_text[IR_I] = c.index_text[IR_ROW] = c.index_text[IR_COL] = "0";
	struct ir_block pre = { (struct ir_stmt **)st->body.stmts, at };
	struct ir_block post = { (struct ir_stmt **)st->body.stmts + at + 1, st->body.n - at - 1 };
	char *a = recipe_kernel_name(job), *b = recipe_kernel_name(job);
	struct strbuf pro = STRBUF_INIT, epi = STRBUF_INIT, sig = STRBUF_INIT, bound = STRBUF_INIT,
	              k2 = STRBUF_INIT, lab2 = STRBUF_INIT;
	emit_block(&c, &pre, "\t", &pro);
	for (size_t i = 0; i < pre.n; i++) /* the loop may not read them all */
		if (pre.stmts[i]->kind == IR_LET)
			strbuf_addf(&pro, "\t(void)%s;\n", pre.stmts[i]->name);
	strbuf_addstr(&k2, "{\n\tconst long long egg_row = 0;\n\tconst int egg_lane = threadIdx.x;\n"
	                   "\t(void)egg_row;\n");
	emit_block(&c, &pre, "\t", &k2);
	for (size_t i = 0; i < lb->n; i++) {
		const struct ir_stmt *x = lb->stmts[i];
		if (x->kind != IR_ACC || has_acc(lb, i, x->name))
			continue;
		char *p = egg_xasprintf("egg_p_%s", x->name);
		char *parts = egg_xasprintf("%s_parts_%zu", a, i);
		strbuf_addf(job->device, "__device__ %s %s[%d];\n", x->type, parts, MAX_PARTS);
		strbuf_addf(&pro, "\t%s %s = %s;\n", x->type, p, emit_identity(x->combine, x->type));
		emit_group_reduce(x, p, tpb, "\t", job->uniq++, &epi);
		strbuf_addf(&epi, "\tif (threadIdx.x == 0)\n\t\t%s[blockIdx.x] = %s;\n", parts, p);
		struct strbuf pb = STRBUF_INIT;
		strbuf_addf(&pb, "%s[egg_b]", parts);
		strbuf_addf(&k2, "\t{\n\t\t%s %s = %s;\n\t\tfor (int egg_b = threadIdx.x; egg_b < egg_nparts; "
		                 "egg_b += 1024)\n\t\t\t%s = ", x->type, p,
		            emit_identity(x->combine, x->type), p);
		emit_combine(x, p, pb.buf, &k2);
		strbuf_addstr(&k2, ";\n");
		emit_group_reduce(x, p, 1024, "\t\t", job->uniq++, &k2);
		strbuf_addf(&k2, "\t\t%s = ", x->name);
		emit_combine(x, x->name, p, &k2);
		strbuf_addstr(&k2, ";\n\t}\n");
		strbuf_release(&pb);
		free(p);
		free(parts);
	}
	emit_row_body(job, &post, rp, &k2); /* stores by the first thread only */
	strbuf_addstr(&k2, "}\n");
	recipe_kernel_signature(job, a, tpb, &sig);
	struct stream_spec sp = { lab, sig.buf, loop->bound, lb, rp->vec, 4, pro.buf, epi.buf, IR_COL, 0, NULL, 0, NULL, 0 };
	int rc = recipe_stream_kernel(job, &sp, job->device, why);
	strbuf_addf(job->device, "/* %s: second pass */\n", lab);
	recipe_kernel_signature(job, b, 1024, job->device);
	job->device->len--; /* reopen the parameter list */
	strbuf_addf(job->device, ", int egg_nparts)\n%s", k2.buf);
	emit_expr(&c, loop->bound, &bound);
	char *units = egg_xasprintf("(%s) / %d", bound.buf, recipe_units_vector(job->prog, IR_COL, lb, rp->vec));
	recipe_host_grid(job, units, (long)tpb * 4, tpb, MAX_PARTS);
	free(units);
	strbuf_addf(job->host, "\t\t%s<<<(unsigned)egg_g, %d>>>(", a, tpb);
	emit_kernel_args(job->prog, job->host);
	strbuf_addf(job->host, ");\n\t\t%s<<<1, 1024>>>(", b);
	emit_kernel_args(job->prog, job->host);
	strbuf_addstr(job->host, ", (int)egg_g);\n\t}\n");
	free(a);
	free(b);
	strbuf_release(&pro);
	strbuf_release(&epi);
	strbuf_release(&sig);
	strbuf_release(&bound);
	strbuf_release(&k2);
	strbuf_release(&lab2);
	return rc;
}

/* One kernel for the stage at configuration rp, and its launch. */
static int
emit_kernel(struct recipe_job *job, const struct ir_stage *st, const struct row_point *rp,
            const char *lab, struct strbuf *why)
{
	struct strbuf sig = STRBUF_INIT, rowbody = STRBUF_INIT, num = STRBUF_INIT;
	struct emit_ctx c = { .prog = job->prog, .component = -1 };
	char *name = recipe_kernel_name(job);
	const int r = rp->split ? 32 : rp->tpb / rp->g;
	recipe_kernel_signature(job, name, rp->tpb, &sig);
	emit_row_body(job, &st->body, rp, &rowbody);
	emit_expr(&c, st->n, &num);
	char g[16], rs[16], tpb[16], v[16];
	snprintf(g, sizeof g, "%d", rp->g);
	snprintf(rs, sizeof rs, "%d", r);
	snprintf(tpb, sizeof tpb, "%d", rp->tpb);
	snprintf(v, sizeof v, "%d", rp->vec);
	const char *keys[] = { "LABEL", "SIG", "N", "G", "R", "TPB", "ROWBODY", "V" };
	const char *vals[] = { lab, sig.buf, num.buf, g, rs, tpb, rowbody.buf, v };
	int rc = recipe_fill(rp->split ? "rows_split.cu" : "rows.cu", keys, vals,
	                     sizeof keys / sizeof *keys, job->device, why);
	if (rc == 0 && rp->wave)
		recipe_host_launch_wave(job, name, num.buf, r, rp->tpb);
	else if (rc == 0)
		recipe_host_launch(job, name, num.buf, r, rp->tpb, 0);
	free(name);
	strbuf_release(&sig);
	strbuf_release(&rowbody);
	strbuf_release(&num);
	return rc;
}

/* ---- rows in the order of their gather key ---- */

/* the most rows a sorted launch orders (its permutation is a __device__ array) and
 * the rows a thread counts (their keys and ranks stay in its registers) */
#define SORT_MAX_ROWS (1 << 20)
#define SORT_ROWS_PER_THREAD 4

/* A load in e, outside the arms of a select (the reference reads it for every
 * row), of a buffer no stage writes, with an integer element type, at an index
 * of the row alone (no column, local or load): a key a row is found by. */
static const struct ir_expr *
key_load(const struct ir_program *p, const struct ir_expr *e)
{
	if (e->kind == IR_LOAD) {
		const struct ir_param *q = ir_program_param(p, e->text);
		const struct ir_expr *ix = e->kids[0];
		if (q && q->is_pointer && !q->written && recipe_integral_type(q->elem_type) &&
		    ir_expr_uses_index(ix, IR_ROW) && !ir_expr_uses_index(ix, IR_COL) &&
		    !ir_expr_uses_index(ix, IR_I) && !ir_expr_has_local(ix) && !ir_expr_has_load(ix))
			return e;
	}
	const size_t n = e->kind == IR_COND ? 1 : e->n_kids;
	for (size_t i = 0; i < n; i++) {
		const struct ir_expr *k = key_load(p, e->kids[i]);
		if (k)
			return k;
	}
	return NULL;
}

/* Whether e loads at an index that reads local name (a gathered access). */
static int
gathers_through(const struct ir_expr *e, const char *name)
{
	if (!e)
		return 0;
	if (e->kind == IR_LOAD && ir_expr_reads_local(e->kids[0], name))
		return 1;
	for (size_t i = 0; i < e->n_kids; i++)
		if (gathers_through(e->kids[i], name))
			return 1;
	return 0;
}

/* The sort key of a row program: a row-level let, before its first column loop,
 * holding a key load (key_load) that a column loop's load index reads through
 * the let (table[ids[row] * dim + col]); NULL when there is none. */
static const struct ir_expr *
sort_key(const struct ir_program *p, const struct ir_block *b)
{
	for (size_t i = 0; i < b->n && b->stmts[i]->kind != IR_LOOP; i++) {
		const struct ir_stmt *let = b->stmts[i];
		if (let->kind != IR_LET)
			continue;
		const struct ir_expr *k = key_load(p, let->value);
		if (!k)
			continue;
		for (size_t j = i + 1; j < b->n; j++) {
			const struct ir_stmt *l = b->stmts[j];
			if (l->kind != IR_LOOP)
				continue;
			for (size_t m = 0; m < l->body.n; m++)
				if (gathers_through(l->body.stmts[m]->value, let->name) ||
				    gathers_through(l->body.stmts[m]->index, let->name))
					return k;
		}
	}
	return NULL;
}

/* The stage at a sort point: the cooperative kernel (rows_sorted.cu) and, in the
 * same launcher, the plain kernel of the point without the sort, launched where the
 * device has no cooperative launch, the rows exceed what the sort holds, or the
 * launch fails (so that a build never meets a launch error). */
static int
emit_sorted(struct recipe_job *job, const struct ir_stage *st, const struct row_point *rp,
            const char *lab, struct strbuf *why)
{
	const struct ir_expr *key = sort_key(job->prog, &st->body);
	if (!key) {
		strbuf_addstr(why, "no key to order the rows by");
		return -1;
	}
	struct strbuf sig = STRBUF_INIT, rowbody = STRBUF_INIT, num = STRBUF_INIT, kt = STRBUF_INIT;
	struct emit_ctx c = { .prog = job->prog, .component = -1 };
	c.index_text[IR_I] = c.index_text[IR_COL] = "0";
	c.index_text[IR_ROW] = "egg_row";
	emit_expr(&c, key, &kt);
	char *name = recipe_kernel_name(job);
	recipe_kernel_signature(job, name, rp->tpb, &sig);
	emit_row_body(job, &st->body, rp, &rowbody);
	emit_expr(&c, st->n, &num);
	const int warps = rp->tpb / 32;
	char g[16], r[16], tpb[16], b[16], mask[16], maxrows[16], rpt[16], per[16], w[16];
	snprintf(g, sizeof g, "%d", rp->g);
	snprintf(r, sizeof r, "%d", rp->tpb / rp->g);
	snprintf(tpb, sizeof tpb, "%d", rp->tpb);
	snprintf(b, sizeof b, "%d", rp->sort);
	snprintf(mask, sizeof mask, "%d", rp->sort - 1);
	snprintf(maxrows, sizeof maxrows, "%d", SORT_MAX_ROWS);
	snprintf(rpt, sizeof rpt, "%d", SORT_ROWS_PER_THREAD);
	snprintf(per, sizeof per, "%d", rp->sort / rp->tpb);
	snprintf(w, sizeof w, "%d", warps);
	const char *keys[] = { "LABEL", "SIG", "NAME", "N", "G", "R", "TPB", "ROWBODY", "B", "MASK",
		               "MAXROWS", "RPT", "PER", "WARPS", "KEY" };
	const char *vals[] = { lab, sig.buf, name, num.buf, g, r, tpb, rowbody.buf, b, mask,
		               maxrows, rpt, per, w, kt.buf };
	int rc = recipe_fill("rows_sorted.cu", keys, vals, sizeof keys / sizeof *keys, job->device, why);
	struct strbuf *h = job->host;
	strbuf_addf(h, "\t{\n\t\tstatic int egg_occ = -1;\n"
	               "\t\tconst size_t egg_smem = %d * sizeof(unsigned);\n"
	               "\t\tif (egg_occ < 0) {\n"
	               "\t\t\tint egg_dev = 0, egg_coop = 0;\n"
	               "\t\t\tif (cudaGetDevice(&egg_dev) != cudaSuccess ||\n"
	               "\t\t\t    cudaDeviceGetAttribute(&egg_coop, cudaDevAttrCooperativeLaunch, egg_dev) != cudaSuccess ||\n"
	               "\t\t\t    !egg_coop || cudaOccupancyMaxActiveBlocksPerMultiprocessor(&egg_occ, %s, %d, egg_smem) != cudaSuccess ||\n"
	               "\t\t\t    egg_occ < 0)\n"
	               "\t\t\t\tegg_occ = 0;\n"
	               "\t\t\tcudaGetLastError();\n"
	               "\t\t}\n"
	               "\t\tconst long long egg_rows = %s;\n"
	               "\t\tconst long long egg_g = (long long)egg_builtin_sm_count() * egg_occ;\n"
	               "\t\tint egg_done = 0;\n"
	               "\t\tif (egg_g > 0 && egg_rows > 0 && egg_rows <= %d && egg_rows <= %d * egg_g * %d) {\n",
	            rp->sort + warps, name, rp->tpb, num.buf, SORT_MAX_ROWS, SORT_ROWS_PER_THREAD, rp->tpb);
	recipe_host_cooperative(job, name, rp->tpb, "");
	strbuf_addstr(h, "\t\t}\n\t\tif (!egg_done) {\n");
	struct row_point plain = *rp;
	plain.sort = 0;
	if (rc == 0)
		rc = emit_kernel(job, st, &plain, lab, why);
	strbuf_addstr(h, "\t\t}\n\t}\n");
	free(name);
	strbuf_release(&sig);
	strbuf_release(&rowbody);
	strbuf_release(&num);
	strbuf_release(&kt);
	return rc;
}

/* The bound every column loop of the row program shares, when the host can
 * evaluate it (no row index, no load); else NULL. */
static const struct ir_expr *
common_bound(const struct ir_block *b)
{
	const struct ir_expr *bound = NULL;
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *s = b->stmts[i];
		if (s->kind != IR_LOOP)
			continue;
		if (bound && !ir_expr_equal(bound, s->bound))
			return NULL;
		bound = s->bound;
	}
	if (!bound || ir_expr_uses_index(bound, IR_ROW) || ir_expr_uses_index(bound, IR_I) ||
	    ir_expr_has_load(bound) || ir_expr_has_local(bound))
		return NULL;
	return bound;
}

/* How the column index reaches e: 0 added (unit stride), 1 through one product
 * by a factor free of it (a stride: e is base + col * factor), -1 otherwise
 * (absent, twice, or under any other operation). */
static int
col_scale(const struct ir_expr *e)
{
	if (e->kind == IR_IDX)
		return e->idx == IR_COL ? 0 : -1;
	if (!ir_expr_uses_index(e, IR_COL))
		return -1;
	if (e->kind == IR_CAST)
		return col_scale(e->kids[0]);
	if (e->kind != IR_BIN)
		return -1;
	const int left = ir_expr_uses_index(e->kids[0], IR_COL);
	if (left && ir_expr_uses_index(e->kids[1], IR_COL))
		return -1;
	const struct ir_expr *k = e->kids[left ? 0 : 1], *other = e->kids[left ? 1 : 0];
	const int r = col_scale(k);
	if (r < 0)
		return -1;
	if (strcmp(e->text, "+") == 0 || (strcmp(e->text, "-") == 0 && left))
		return r; /* the base: anything free of the column */
	/* the stride: the same for every row */
	if (strcmp(e->text, "*") != 0 || ir_expr_uses_index(other, IR_ROW) ||
	    ir_expr_has_local(other) || ir_expr_has_load(other))
		return -1;
	return other->kind == IR_NUM && strcmp(other->text, "1") == 0 ? r : 1;
}

/* Tallies the loads and stores of e by how the column reaches their index. */
static void
scale_expr(const struct ir_expr *e, int *strided, int *other)
{
	if (!e)
		return;
	if (e->kind == IR_LOAD && ir_expr_uses_index(e->kids[0], IR_COL))
		*(col_scale(e->kids[0]) == 1 ? strided : other) += 1;
	for (size_t i = 0; i < e->n_kids; i++)
		scale_expr(e->kids[i], strided, other);
}

/* Every access of the row program's column loops that uses the column strides
 * memory by a factor (x[(b * d + col) * inner + i]), and there is one: rows
 * whose neighbours, not whose columns, are contiguous. */
static int
strided_stage(const struct ir_block *b)
{
	int strided = 0, other = 0;
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *l = b->stmts[i];
		if (l->kind != IR_LOOP)
			continue;
		for (size_t j = 0; j < l->body.n; j++) {
			const struct ir_stmt *s = l->body.stmts[j];
			if (s->kind == IR_LOOP)
				return 0;
			scale_expr(s->value, &strided, &other);
			scale_expr(s->index, &strided, &other);
			if (s->index && ir_expr_uses_index(s->index, IR_COL))
				*(col_scale(s->index) == 1 ? &strided : &other) += 1;
		}
	}
	return strided > 0 && other == 0;
}

/* Every column loop only maps (no accumulator: a gather or a copy of rows), and
 * one has a vector stream: where loads in flight are the whole story.  Row
 * programs that reduce keep their candidates. */
static int
mapping_stage(struct recipe_job *job, const struct ir_block *b, int vec)
{
	int vector = 0;
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *l = b->stmts[i];
		if (l->kind != IR_LOOP)
			continue;
		if (has_acc(&l->body, l->body.n, NULL))
			return 0;
		struct emit_ctx c = { .prog = job->prog, .var = IR_COL, .component = -1 };
		emit_collect_streams(&c, &l->body);
		if (c.n_streams && recipe_stream_vector(&c, vec) > 1)
			vector = 1;
		emit_ctx_release(&c);
	}
	return vector;
}

/* Every column loop runs a constant number of times, at most SHORT_ROW (a
 * pooling window, a small fixed filter): a group of threads per row would leave
 * most of its lanes idle, so a thread per row owns it, its loads coalesced
 * across the warp with neighbouring rows. */
#define SHORT_ROW 32
static int
short_stage(const struct ir_block *b)
{
	int loops = 0;
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *l = b->stmts[i];
		if (l->kind != IR_LOOP)
			continue;
		char *end;
		long v = l->bound->kind == IR_NUM ? strtol(l->bound->text, &end, 0) : -1;
		if (v < 0 || v > SHORT_ROW || *end)
			return 0;
		loops++;
	}
	return loops > 0;
}

/* No column loop stores (every loop only accumulates). */
static int
pure_reduction(const struct ir_block *b)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->stmts[i]->kind == IR_LOOP && stores_into(&b->stmts[i]->body, NULL))
			return 0;
	return 1;
}

/* Whether point rp is worth emitting for stage st (else why not). */
static int
point_applies(struct recipe_job *job, const struct ir_stage *st, const struct row_point *rp,
              struct strbuf *why)
{
	int short_row = short_stage(&st->body);
	if (rp->g == 1 && !strided_stage(&st->body) && !short_row) {
		strbuf_addstr(why, "a thread per row is for columns that stride memory or rows of a "
		                   "few columns; this row program reads long rows contiguously");
		return 0;
	}
	if (rp->g == 1 && rp->split && short_row) {
		strbuf_addstr(why, "columns split over warps are for long strided rows, not rows of a few columns");
		return 0;
	}
	if (rp->g == 1 && rp->vec > 1 && !short_row) {
		strbuf_addstr(why, "vector loads by a thread per row are for rows of a few columns");
		return 0;
	}
	if (rp->g != 1 && short_row) {
		strbuf_addf(why, "a group of threads per row is for long rows; this one has at most %d columns",
		            SHORT_ROW);
		return 0;
	}
	if (rp->split && !pure_reduction(&st->body)) {
		strbuf_addstr(why, "columns split over warps are for row programs whose column loops "
		                   "only accumulate; this one stores in them");
		return 0;
	}
	if (rp->sort && !sort_key(job->prog, &st->body)) {
		strbuf_addstr(why, "rows in the order of a key are for row programs that gather by an integer "
		                   "key read per row (table[ids[row] * dim + col]); this one has none");
		return 0;
	}
	if ((rp->inflight > 1 || rp->stcs) && !mapping_stage(job, &st->body, rp->vec)) {
		strbuf_addstr(why, "loads in flight and streaming stores are for row programs whose column loops only map, "
		                   "with vector streams; this one reduces or has none");
		return 0;
	}
	return 1;
}

static int
emit(struct recipe_job *job, size_t first, size_t n, size_t pt, struct strbuf *why)
{
	if (recipe_needs_launcher(job, "rows", why))
		return -1;
	for (size_t i = first; i < first + n; i++)
		if (!point_applies(job, &job->prog->stages[i], &points[pt], why))
			return -1;
	struct strbuf lab = STRBUF_INIT;
	label(pt, &lab);
	int rc = 0;
	for (size_t i = first; i < first + n && rc == 0; i++) {
		const struct ir_stage *st = &job->prog->stages[i];
		const struct ir_expr *bound = points[pt].g ? NULL : common_bound(&st->body);
		size_t at;
		if (points[pt].sort) {
			rc = emit_sorted(job, st, &points[pt], lab.buf, why);
		} else if (points[pt].g >= 256 && grid_shape(st, &at)) {
			rc = emit_grid_row(job, st, at, &points[pt], lab.buf, why);
		} else if (points[pt].g) {
			rc = emit_kernel(job, st, &points[pt], lab.buf, why);
		} else if (!bound) {
			rc = emit_kernel(job, st, &auto_warp, lab.buf, why);
		} else {
			struct emit_ctx c = { .prog = job->prog, .component = -1 };
			strbuf_addstr(job->host, "\tif ((long long)(");
			emit_expr(&c, bound, job->host);
			strbuf_addf(job->host, ") <= %d) {\n", AUTO_WARP_MAX);
			rc = emit_kernel(job, st, &auto_warp, lab.buf, why);
			strbuf_addstr(job->host, "\t} else {\n");
			if (rc == 0)
				rc = emit_kernel(job, st, &auto_block, lab.buf, why);
			strbuf_addstr(job->host, "\t}\n");
		}
	}
	strbuf_release(&lab);
	return rc;
}

const struct recipe recipe_rows = {
	"rows", IR_STAGE_ROWS, N_POINTS, label, emit, NULL,
};
