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
 * A max loop followed by a loop summing exp(value - max) over the same values is
 * emitted as one online pass (running max and rescaled sum, merged pairwise across
 * the group), saving a read of the row.
 *
 * Points: threads per row x threads per block x vector width x unroll x online.
 */
#include "config.h"

#include "builtin/recipes/common.h"
#include "common/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* online: a max loop followed by a sum of exp(value - max) loop over the same
 * values becomes one pass (the online softmax normalizer); 0 keeps the passes as
 * written, for comparison. */
struct row_point {
	int g, tpb, vec, unroll, online; /* g == 0: auto, chosen per call by the row length */
};
static const struct row_point points[] = {
	{ 32, 256, 4, 1, 1 }, { 0, 0, 4, 1, 1 }, { 32, 128, 4, 2, 1 }, { 128, 128, 4, 1, 1 },
	{ 256, 256, 4, 1, 1 }, { 512, 512, 4, 1, 1 }, { 1024, 1024, 4, 1, 1 }, { 32, 256, 1, 4, 1 },
	{ 32, 256, 4, 1, 0 }, { 256, 256, 4, 1, 0 },
};
/* auto: a warp per row up to AUTO_WARP_MAX columns, else a block of 512 */
#define AUTO_WARP_MAX 2048
static const struct row_point auto_warp = { 32, 256, 4, 1, 1 }, auto_block = { 512, 512, 4, 1, 1 };
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
		            points[pt].online ? "online" : "as-written");
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
emit_loop(struct recipe_job *job, const struct ir_stmt *loop, const struct row_point *rp,
          struct strbuf *out)
{
	const int g = rp->g;
	const struct ir_block *b = &loop->body;
	struct emit_ctx c = { .prog = job->prog, .var = IR_COL, .component = -1 };
	c.index_text[IR_I] = "0";
	c.index_text[IR_ROW] = "egg_row";
	c.index_text[IR_COL] = "egg_j";
	emit_collect_streams(&c, b);
	c.vec = recipe_stream_vector(&c, rp->vec);

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
		            c.vec, rp->unroll, g);
		char *base = egg_xasprintf("egg_jv * %d", c.vec);
		emit_stream_loads(&c, base, "\t\t\t\t\t", out);
		emit_components(&c, b, base, "\t\t\t\t\t", out);
		free(base);
		strbuf_addf(out, "\t\t\t\t}\n\t\t\t\tegg_j0 = egg_cv * %d;\n\t\t\t}\n", c.vec);
	}
	strbuf_addf(out, "#pragma unroll %d\n"
	                 "\t\t\tfor (long long egg_j = egg_j0 + egg_lane; egg_j < egg_cn; egg_j += %d) {\n",
	            c.vec > 1 ? 1 : rp->unroll, g);
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
	strbuf_addstr(out, ";\n\t\t\tlong long egg_j0 = 0;\n");
	if (c.vec > 1 && c.n_streams > 0) {
		strbuf_addstr(out, "\t\t\tif (");
		emit_aligned_test(&c, "0", out);
		strbuf_addf(out, ") {\n\t\t\t\tconst long long egg_cv = egg_cn / %d;\n"
		                 "\t\t\t\tfor (long long egg_jv = egg_lane; egg_jv < egg_cv; egg_jv += %d) {\n",
		            c.vec, g);
		char *base = egg_xasprintf("egg_jv * %d", c.vec);
		emit_stream_loads(&c, base, "\t\t\t\t\t", out);
		c.component_tail = step.buf;
		emit_components(&c, &vb, base, "\t\t\t\t\t", out);
		c.component_tail = NULL;
		free(base);
		strbuf_addf(out, "\t\t\t\t}\n\t\t\t\tegg_j0 = egg_cv * %d;\n\t\t\t}\n", c.vec);
	}
	strbuf_addf(out, "\t\t\tfor (long long egg_j = egg_j0 + egg_lane; egg_j < egg_cn; egg_j += %d) {\n", g);
	emit_block(&c, &vb, "\t\t\t\t", out);
	strbuf_addf(out, "\t\t\t\t%s\n\t\t\t}\n", step.buf);
	/* merge (max, sum) pairs across the group */
	const char *merge = "{ %s egg_nm = egg_om > egg_m2 ? egg_om : egg_m2; "
	                    "egg_os = (egg_om == -INFINITY ? 0 : egg_os * %s(egg_om - egg_nm)) + "
	                    "(egg_m2 == -INFINITY ? 0 : egg_s2 * %s(egg_m2 - egg_nm)); egg_om = egg_nm; }\n";
	strbuf_addf(out, "#pragma unroll\n\t\t\tfor (int egg_o = 16; egg_o > 0; egg_o >>= 1) {\n"
	                 "\t\t\t\tconst %s egg_m2 = __shfl_xor_sync(0xffffffffu, egg_om, egg_o);\n"
	                 "\t\t\t\tconst %s egg_s2 = __shfl_xor_sync(0xffffffffu, egg_os, egg_o);\n\t\t\t\t",
	            t, t);
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
	strbuf_addf(out, "\t\t\t%s;\n\t\t}\n", g == 32 ? "__syncwarp()" : "__syncthreads()");
	strbuf_release(&step);
	ir_block_free(&vb);
	emit_ctx_release(&c);
}

static void
emit_row_body(struct recipe_job *job, const struct ir_block *b, const struct row_point *rp,
              struct strbuf *out)
{
	struct emit_ctx c = { .prog = job->prog, .var = IR_COL, .component = -1 };
	c.index_text[IR_I] = "0";
	c.index_text[IR_ROW] = "egg_row";
	c.index_text[IR_COL] = "0";
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *s = b->stmts[i];
		struct ir_block one = { (struct ir_stmt **)&b->stmts[i], 1 };
		size_t j = rp->online ? match_online(b, i) : 0;
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
		if (s->kind == IR_LOOP) {
			emit_loop(job, s, rp, out);
		} else if (s->kind == IR_STORE) {
			strbuf_addstr(out, "\t\tif (egg_lane == 0)\n");
			emit_block(&c, &one, "\t\t\t", out);
		} else {
			emit_block(&c, &one, "\t\t", out);
		}
	}
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
	struct stream_spec sp = { lab, sig.buf, loop->bound, lb, rp->vec, 4, pro.buf, epi.buf, IR_COL };
	int rc = recipe_stream_kernel(job, &sp, job->device, why);
	strbuf_addf(job->device, "/* %s: second pass */\n", lab);
	recipe_kernel_signature(job, b, 1024, job->device);
	job->device->len--; /* reopen the parameter list */
	strbuf_addf(job->device, ", int egg_nparts)\n%s", k2.buf);
	emit_expr(&c, loop->bound, &bound);
	char *units = egg_xasprintf("(%s) / %d", bound.buf, rp->vec);
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
	const int r = rp->tpb / rp->g;
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
	int rc = recipe_fill("rows.cu", keys, vals, sizeof keys / sizeof *keys, job->device, why);
	if (rc == 0)
		recipe_host_launch(job, name, num.buf, r, rp->tpb, 0);
	free(name);
	strbuf_release(&sig);
	strbuf_release(&rowbody);
	strbuf_release(&num);
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

static int
emit(struct recipe_job *job, size_t first, size_t n, size_t pt, struct strbuf *why)
{
	if (recipe_needs_launcher(job, "rows", why))
		return -1;
	struct strbuf lab = STRBUF_INIT;
	label(pt, &lab);
	int rc = 0;
	for (size_t i = first; i < first + n && rc == 0; i++) {
		const struct ir_stage *st = &job->prog->stages[i];
		const struct ir_expr *bound = points[pt].g ? NULL : common_bound(&st->body);
		size_t at;
		if (points[pt].g >= 256 && grid_shape(st, &at)) {
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
	"rows", IR_STAGE_ROWS, N_POINTS, label, emit,
};
