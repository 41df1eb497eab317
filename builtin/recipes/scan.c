/*
 * scan.c -- the family of row-wise prefix scans: SCAN stages (ir.h), row
 * programs whose one column loop reads the accumulator it updates (running sums,
 * running max or min; inclusive when a statement reads it after the update,
 * exclusive before), with the element-wise work before and after the update
 * carried along per element.
 *
 * A group of G threads owns a row (a warp, several rows per block, or the
 * block).  The row goes in tiles of G x S x V columns: thread t's slot k holds
 * the V consecutive columns from (k * G + t) * V, loaded first for all slots
 * (vector loads in flight together when the row's streams are aligned).  Per
 * slot each thread folds its V update values into a total; the totals are
 * scanned across the group (shuffles up within a warp, shared memory across the
 * warps of a block, one barrier per tile), giving each thread the running value
 * before its first column; combined with the carry of the earlier slots and
 * tiles, it replays its V columns serially with the loop body as written, so
 * every statement sees the running value it would have seen.  The last partial
 * tile and rows whose streams are not aligned take the same steps with guarded
 * scalar accesses.  Float sums are reassociated (the harness's tolerance judges
 * them); max and min are exact.
 *
 * Kernels are bounded to 64 registers a thread (1024 threads resident per SM,
 * each with its slots' loads in flight), unbounded for tiles of more than 16
 * elements a thread (a cap would spill them).  Points: threads per row (a warp, or a
 * block of 128, 256, 512) x vector width (4 or 1) x slots per tile.
 */
#include "config.h"

#include "builtin/recipes/common.h"
#include "common/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct scan_point {
	int g, tpb, vec, slots; /* g == 32: a warp per row; else g == tpb: a block per row */
};
static const struct scan_point points[] = {
	{ 32, 256, 4, 4 }, { 256, 256, 4, 4 }, { 512, 512, 4, 2 }, { 128, 128, 4, 4 },
	{ 32, 128, 4, 4 }, { 32, 256, 4, 8 }, { 256, 256, 4, 2 }, { 512, 512, 4, 1 },
	{ 128, 128, 4, 8 }, { 32, 256, 1, 8 }, { 256, 256, 1, 4 }, { 512, 512, 1, 4 },
};
#define N_POINTS (sizeof points / sizeof *points)

static void
label(size_t pt, struct strbuf *out)
{
	strbuf_addf(out, "scan threads_per_row=%d tpb=%d vec=%d slots=%d", points[pt].g,
	            points[pt].tpb, points[pt].vec, points[pt].slots);
}

/* The stage's scan loop (its index in *at, its accumulator in *acc) when the row
 * program has that one loop and it is a scan into a local; else NULL. */
static const struct ir_stmt *
scan_loop(const struct ir_block *b, size_t *at, const struct ir_stmt **acc)
{
	const struct ir_stmt *loop = NULL;
	for (size_t i = 0; i < b->n; i++) {
		if (b->stmts[i]->kind != IR_LOOP)
			continue;
		if (loop || !b->stmts[i]->scan)
			return NULL;
		loop = b->stmts[i];
		*at = i;
	}
	if (!loop)
		return NULL;
	*acc = NULL;
	for (size_t i = 0; i < loop->body.n; i++) {
		const struct ir_stmt *s = loop->body.stmts[i];
		if (s->kind == IR_LOOP || (s->kind == IR_ACC && (s->into_buffer || *acc)))
			return NULL;
		if (s->kind == IR_ACC)
			*acc = s;
	}
	return *acc ? loop : NULL;
}

/* run = combine(run, value) as an expression. */
static struct ir_expr *
combine_expr(const struct ir_stmt *acc, const char *run, const struct ir_expr *value)
{
	struct ir_expr *e = acc->combine == IR_SUM ? ir_expr_new(IR_BIN, "+") :
	                    acc->combine == IR_PROD ? ir_expr_new(IR_BIN, "*") : ir_expr_new(IR_CALL, acc->combine_fn);
	ir_expr_add(e, ir_expr_new(IR_LOCAL, run));
	ir_expr_add(e, ir_expr_copy(value));
	return e;
}

/* The loop body twice, its statements borrowed but for the update: "total",
 * what the update needs (the lets before it that do not read the running value)
 * and egg_v = combine(egg_v, value); "replay", the body as written with the
 * update an assignment of the running value. */
struct scan_bodies {
	struct ir_block total, replay;
	struct ir_block own; /* the two assignments */
};

static void
scan_bodies(const struct ir_block *b, const struct ir_stmt *acc, struct scan_bodies *sb)
{
	memset(sb, 0, sizeof *sb);
	sb->own.stmts = egg_xcalloc(2, sizeof *sb->own.stmts);
	sb->total.stmts = egg_xcalloc(b->n + 1, sizeof *sb->total.stmts);
	sb->replay.stmts = egg_xcalloc(b->n + 1, sizeof *sb->replay.stmts);
	const char **tainted = egg_xcalloc(b->n + 1, sizeof *tainted);
	size_t n_t = 0;
	tainted[n_t++] = acc->name;
	for (size_t i = 0; i < b->n; i++) {
		struct ir_stmt *s = b->stmts[i];
		if (s == acc) {
			struct ir_stmt *t = ir_stmt_new(IR_ASSIGN), *r = ir_stmt_new(IR_ASSIGN);
			t->name = egg_xstrdup("egg_v");
			t->value = combine_expr(acc, "egg_v", acc->value);
			r->name = egg_xstrdup(acc->name);
			r->value = combine_expr(acc, acc->name, acc->value);
			sb->own.stmts[sb->own.n++] = t;
			sb->own.stmts[sb->own.n++] = r;
			sb->total.stmts[sb->total.n++] = t;
			sb->replay.stmts[sb->replay.n++] = r;
			break;
		}
		sb->replay.stmts[sb->replay.n++] = s;
		if (s->kind != IR_LET)
			continue;
		int reads = 0;
		for (size_t k = 0; k < n_t && !reads; k++)
			reads = ir_expr_reads_local(s->value, tainted[k]);
		if (reads)
			tainted[n_t++] = s->name;
		else
			sb->total.stmts[sb->total.n++] = s;
	}
	for (size_t i = 0; i < b->n; i++) /* after the update */
		if (b->stmts[i] == acc)
			for (size_t k = i + 1; k < b->n; k++)
				sb->replay.stmts[sb->replay.n++] = b->stmts[k];
	free(tainted);
}

static void
scan_bodies_release(struct scan_bodies *sb)
{
	free(sb->total.stmts);
	free(sb->replay.stmts);
	ir_block_free(&sb->own);
}

/* One step of the emitted code: x = combine(a, b), in C text. */
static void
emit_fold(const struct ir_stmt *acc, const char *x, const char *a, const char *b,
          const char *indent, struct strbuf *out)
{
	strbuf_addf(out, "%s%s = ", indent, x);
	emit_combine(acc, a, b, out);
	strbuf_addstr(out, ";\n");
}

/* The group's scan of the slot totals egg_tv[S]: afterwards egg_tx[k] is the
 * running value before this thread's first column of slot k (the carry
 * included) and egg_carry has taken in the whole tile. */
static void
emit_group_scan(const struct ir_stmt *acc, const struct scan_point *rp, unsigned uniq,
                const char *in, struct strbuf *out)
{
	const char *t = acc->type, *id = emit_identity(acc->combine, acc->type);
	strbuf_addf(out, "%s%s egg_tx[%d];\n#pragma unroll\n%sfor (int egg_k = 0; egg_k < %d; egg_k++) {\n"
	                 "%s\t%s egg_w = egg_tv[egg_k];\n#pragma unroll\n"
	                 "%s\tfor (int egg_o = 1; egg_o < 32; egg_o <<= 1) {\n"
	                 "%s\t\tconst %s egg_y = __shfl_up_sync(0xffffffffu, egg_w, egg_o);\n"
	                 "%s\t\tif ((threadIdx.x & 31) >= egg_o)\n",
	            in, t, rp->slots, in, rp->slots, in, t, in, in, t, in);
	char *in3 = egg_xasprintf("%s\t\t\t", in), *in2 = egg_xasprintf("%s\t\t", in),
	     *in1 = egg_xasprintf("%s\t", in);
	emit_fold(acc, "egg_w", "egg_y", "egg_w", in3, out);
	strbuf_addf(out, "%s\t}\n%s\t%s egg_e = __shfl_up_sync(0xffffffffu, egg_w, 1);\n"
	                 "%s\tegg_tx[egg_k] = (threadIdx.x & 31) == 0 ? (%s)%s : egg_e;\n",
	            in, in, t, in, t, id);
	if (rp->g == 32) {
		strbuf_addf(out, "%s\tegg_tv[egg_k] = __shfl_sync(0xffffffffu, egg_w, 31);\n%s}\n", in, in);
	} else {
		const int warps = rp->g / 32;
		strbuf_addf(out, "%s\tif ((threadIdx.x & 31) == 31)\n%s\t\tegg_sh%u[egg_par][egg_k][threadIdx.x >> 5] = egg_w;\n"
		                 "%s}\n%s__syncthreads();\n#pragma unroll\n%sfor (int egg_k = 0; egg_k < %d; egg_k++) {\n"
		                 "%s\t%s egg_pre = %s, egg_tot = %s;\n#pragma unroll\n"
		                 "%s\tfor (int egg_q = 0; egg_q < %d; egg_q++) {\n"
		                 "%s\t\tconst %s egg_y = egg_sh%u[egg_par][egg_k][egg_q];\n"
		                 "%s\t\tif (egg_q < (int)(threadIdx.x >> 5))\n",
		            in, in, uniq, in, in, in, rp->slots, in, t, id, id, in, warps, in, t, uniq, in);
		emit_fold(acc, "egg_pre", "egg_pre", "egg_y", in3, out);
		emit_fold(acc, "egg_tot", "egg_tot", "egg_y", in2, out);
		strbuf_addf(out, "%s\t}\n", in);
		emit_fold(acc, "egg_tx[egg_k]", "egg_pre", "egg_tx[egg_k]", in1, out);
		strbuf_addf(out, "%s\tegg_tv[egg_k] = egg_tot;\n%s}\n", in, in);
	}
	strbuf_addf(out, "#pragma unroll\n%sfor (int egg_k = 0; egg_k < %d; egg_k++) {\n", in, rp->slots);
	emit_fold(acc, "egg_tx[egg_k]", "egg_carry", "egg_tx[egg_k]", in1, out);
	emit_fold(acc, "egg_carry", "egg_carry", "egg_tv[egg_k]", in1, out);
	strbuf_addf(out, "%s}\n", in);
	free(in1);
	free(in2);
	free(in3);
}

/* One tile: the aligned full tile from registers (c in vector mode), or, with
 * guarded, any tile with scalar accesses and a test per column. */
static void
emit_tile(struct emit_ctx *c, const struct ir_stmt *acc, const struct scan_bodies *sb,
          const struct scan_point *rp, int guarded, unsigned uniq, struct strbuf *out)
{
	const char *in = "\t\t\t\t\t", *t = acc->type, *id = emit_identity(acc->combine, acc->type);
	const int v = guarded ? rp->vec : c->vec;
	char *base = egg_xasprintf("(egg_t0 + ((long long)egg_k * %d + egg_lane) * %d)", rp->g, v);
	if (!guarded) {
		for (size_t i = 0; i < c->n_streams; i++)
			if (!c->streams[i].is_store)
				strbuf_addf(out, "%s%s egg_l%zu[%d];\n", in,
				            emit_vector_type(c->streams[i].elem_type, c->vec), i, rp->slots);
		c->reg_suffix = "[egg_k]";
		strbuf_addf(out, "#pragma unroll\n%sfor (int egg_k = 0; egg_k < %d; egg_k++) {\n", in, rp->slots);
		emit_stream_loads(c, base, "\t\t\t\t\t\t", out);
		strbuf_addf(out, "%s}\n", in);
	}
	/* the slot totals */
	strbuf_addf(out, "%s%s egg_tv[%d];\n#pragma unroll\n%sfor (int egg_k = 0; egg_k < %d; egg_k++) {\n"
	                 "%s\t%s egg_v = %s;\n",
	            in, t, rp->slots, in, rp->slots, in, t, id);
	const char *saved = c->index_text[IR_COL];
	if (guarded) {
		c->index_text[IR_COL] = "egg_j";
		strbuf_addf(out, "#pragma unroll\n%s\tfor (int egg_c = 0; egg_c < %d; egg_c++) {\n"
		                 "%s\t\tconst long long egg_j = %s + egg_c;\n%s\t\tif (egg_j < egg_cn) {\n",
		            in, v, in, base, in);
		emit_block(c, &sb->total, "\t\t\t\t\t\t\t\t", out);
		strbuf_addf(out, "%s\t\t}\n%s\t}\n", in, in);
	} else {
		for (int k = 0; k < v; k++) {
			char *ix = egg_xasprintf("(%s + %d)", base, k);
			c->index_text[IR_COL] = ix;
			c->component = k;
			strbuf_addf(out, "%s\t{\n", in);
			emit_block(c, &sb->total, "\t\t\t\t\t\t\t", out);
			strbuf_addf(out, "%s\t}\n", in);
			c->component = -1;
			free(ix);
		}
	}
	c->index_text[IR_COL] = saved;
	strbuf_addf(out, "%s\t(void)egg_v;\n%s\tegg_tv[egg_k] = egg_v;\n%s}\n", in, in, in);
	emit_group_scan(acc, rp, uniq, in, out);
	/* the replay, slot by slot from the running value before its first column */
	strbuf_addf(out, "#pragma unroll\n%sfor (int egg_k = 0; egg_k < %d; egg_k++) {\n%s\t%s = egg_tx[egg_k];\n",
	            in, rp->slots, in, acc->name);
	if (guarded) {
		c->index_text[IR_COL] = "egg_j";
		strbuf_addf(out, "#pragma unroll\n%s\tfor (int egg_c = 0; egg_c < %d; egg_c++) {\n"
		                 "%s\t\tconst long long egg_j = %s + egg_c;\n%s\t\tif (egg_j < egg_cn) {\n",
		            in, v, in, base, in);
		emit_block(c, &sb->replay, "\t\t\t\t\t\t\t\t", out);
		strbuf_addf(out, "%s\t\t}\n%s\t}\n", in, in);
		c->index_text[IR_COL] = saved;
	} else {
		emit_components(c, &sb->replay, base, "\t\t\t\t\t\t", out);
		c->reg_suffix = NULL;
	}
	strbuf_addf(out, "%s}\n", in);
	free(base);
}

/* Row-level statements [from, to): stores by the group's first thread. */
static void
emit_row_level(const struct emit_ctx *c, const struct ir_block *b, size_t from, size_t to,
               struct strbuf *out)
{
	for (size_t i = from; i < to; i++) {
		struct ir_block one = { (struct ir_stmt **)&b->stmts[i], 1 };
		if (b->stmts[i]->kind == IR_STORE)
			strbuf_addstr(out, "\t\tif (egg_lane == 0)\n");
		emit_block(c, &one, b->stmts[i]->kind == IR_STORE ? "\t\t\t" : "\t\t", out);
	}
}

static void
emit_row_body(struct recipe_job *job, const struct ir_block *b, size_t at, const struct ir_stmt *acc,
              const struct scan_point *rp, struct strbuf *out)
{
	const struct ir_stmt *loop = b->stmts[at];
	struct emit_ctx c = { .prog = job->prog, .var = IR_COL, .component = -1 };
	c.index_text[IR_I] = "0";
	c.index_text[IR_ROW] = "egg_row";
	c.index_text[IR_COL] = "0";
	emit_row_level(&c, b, 0, at, out);
	emit_collect_streams(&c, &loop->body);
	c.vec = recipe_stream_vector_exact(&c, rp->vec); /* (no narrow packs: the tiles spell rp->vec) */
	const long tile = (long)rp->g * rp->slots * c.vec;
	const unsigned uniq = job->uniq++;
	struct scan_bodies sb;
	scan_bodies(&loop->body, acc, &sb);
	strbuf_addstr(out, "\t\t{\n\t\t\tconst long long egg_cn = ");
	emit_expr(&c, loop->bound, out);
	strbuf_addf(out, ";\n\t\t\t%s egg_carry = %s;\n\t\t\tconst bool egg_al = ", acc->type, acc->name);
	emit_aligned_test(&c, "0", out);
	strbuf_addstr(out, ";\n");
	if (rp->g > 32)
		strbuf_addf(out, "\t\t\t__shared__ %s egg_sh%u[2][%d][%d];\n\t\t\tint egg_par = 0;\n",
		            acc->type, uniq, rp->slots, rp->g / 32);
	strbuf_addf(out, "\t\t\tfor (long long egg_t0 = 0; egg_t0 < egg_cn; egg_t0 += %ld) {\n"
	                 "\t\t\t\tif (egg_al && egg_t0 + %ld <= egg_cn) {\n", tile, tile);
	emit_tile(&c, acc, &sb, rp, 0, uniq, out);
	strbuf_addstr(out, "\t\t\t\t} else {\n");
	emit_tile(&c, acc, &sb, rp, 1, uniq, out);
	strbuf_addf(out, "\t\t\t\t}\n%s\t\t\t}\n\t\t\t%s = egg_carry;\n\t\t}\n",
	            rp->g > 32 ? "\t\t\t\tegg_par ^= 1;\n" : "", acc->name);
	emit_row_level(&c, b, at + 1, b->n, out);
	scan_bodies_release(&sb);
	emit_ctx_release(&c);
}

static int
emit_kernel(struct recipe_job *job, const struct ir_stage *st, const struct scan_point *rp,
            const char *lab, struct strbuf *why)
{
	size_t at = 0;
	const struct ir_stmt *acc = NULL;
	if (!scan_loop(&st->body, &at, &acc)) {
		strbuf_addstr(why, "the scan recipe takes a row program with one column loop, a scan "
		                   "of one running value");
		return -1;
	}
	struct strbuf sig = STRBUF_INIT, rowbody = STRBUF_INIT, num = STRBUF_INIT;
	struct emit_ctx c = { .prog = job->prog, .component = -1 };
	char *name = recipe_kernel_name(job);
	const int r = rp->tpb / rp->g;
	/* at most 64 registers a thread (1024 threads resident per SM, their slots'
	 * loads in flight) when a thread's tile is up to 16 elements; above, the
	 * registers the tile needs (a cap spills) */
	strbuf_addf(&sig, "__global__ void __launch_bounds__(%d", rp->tpb);
	if (rp->slots * rp->vec <= 16)
		strbuf_addf(&sig, ", %d", 1024 / rp->tpb);
	strbuf_addf(&sig, ") %s(", name);
	emit_kernel_params(job->prog, &sig);
	strbuf_addch(&sig, ')');
	emit_row_body(job, &st->body, at, acc, rp, &rowbody);
	emit_expr(&c, st->n, &num);
	char g[16], rs[16], tpb[16], v[16], s[16];
	snprintf(g, sizeof g, "%d", rp->g);
	snprintf(rs, sizeof rs, "%d", r);
	snprintf(tpb, sizeof tpb, "%d", rp->tpb);
	snprintf(v, sizeof v, "%d", rp->vec);
	snprintf(s, sizeof s, "%d", rp->slots);
	const char *keys[] = { "LABEL", "SIG", "N", "G", "R", "TPB", "ROWBODY", "V", "S" };
	const char *vals[] = { lab, sig.buf, num.buf, g, rs, tpb, rowbody.buf, v, s };
	int rc = recipe_fill("scan.cu", keys, vals, sizeof keys / sizeof *keys, job->device, why);
	if (rc == 0)
		recipe_host_launch(job, name, num.buf, r, rp->tpb, 0);
	free(name);
	strbuf_release(&sig);
	strbuf_release(&rowbody);
	strbuf_release(&num);
	return rc;
}

static int
emit(struct recipe_job *job, size_t first, size_t n, size_t pt, struct strbuf *why)
{
	if (recipe_needs_launcher(job, "scan", why))
		return -1;
	struct strbuf lab = STRBUF_INIT;
	label(pt, &lab);
	int rc = 0;
	for (size_t i = first; i < first + n && rc == 0; i++)
		rc = emit_kernel(job, &job->prog->stages[i], &points[pt], lab.buf, why);
	strbuf_release(&lab);
	return rc;
}

const struct recipe recipe_scan = {
	"scan", IR_STAGE_SCAN, N_POINTS, label, emit, NULL,
};
