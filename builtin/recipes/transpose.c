/*
 * transpose.c -- the family of transposes and permutations of a 2-D domain
 * (TRANSPOSE stages, lift_2d.c): an access at col * rows + row, with any
 * element-wise work before and after it.
 *
 * Each block owns T x T tiles (grid-strided).  Loads in the other layout are
 * read first, coalesced along the row index, into a padded shared tile; the body
 * then runs with threads along the column (the row-major accesses coalesced)
 * and reads them down the tile's columns; stores in the other layout go to a
 * second padded tile and are written out coalesced along the row index.  The
 * padding column keeps both directions free of bank conflicts.  Any size is
 * correct: every phase tests its element against the domain.
 *
 * Points: tile T x rows of threads B (each thread T / B elements per tile).
 */
#include "config.h"

#include "builtin/lift/affine.h"
#include "builtin/recipes/grid2d.h"
#include "common/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct { int t, b; } points[] = {
	{ 32, 8 }, { 32, 4 }, { 32, 16 }, { 64, 8 }, { 64, 16 }, { 16, 16 },
};
#define N_POINTS (sizeof points / sizeof *points)

static void
label(size_t pt, struct strbuf *out)
{
	strbuf_addf(out, "transpose tile=%dx%d threads=%dx%d", points[pt].t, points[pt].t,
	            points[pt].t, points[pt].b);
}

/* The accesses in the other layout: loads (the whole load) and stores (the index). */
struct tiles {
	const struct ir_stage *st;
	const struct ir_expr *loads[16];
	const char *load_type[16];
	size_t n_loads;
	const struct ir_stmt *stores[16];
	size_t n_stores;
	int overflow;
};

static int
transposed(const struct tiles *t, const struct ir_expr *ix)
{
	return affine_classify(ix, t->st->dims[0], t->st->dims[1]).kind == AFF_TRANSPOSED;
}

static void
collect(struct tiles *t, const struct ir_program *p, const struct ir_expr *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n_kids; i++)
		collect(t, p, e->kids[i]);
	if (e->kind != IR_LOAD || !transposed(t, e->kids[0]))
		return;
	for (size_t i = 0; i < t->n_loads; i++)
		if (ir_expr_equal(t->loads[i], e))
			return;
	if (t->n_loads == 16) {
		t->overflow = 1;
		return;
	}
	const struct ir_param *q = ir_program_param(p, e->text);
	t->load_type[t->n_loads] = q ? q->elem_type : "float";
	t->loads[t->n_loads++] = e;
}

static char *
load_text(void *ctx, const struct ir_expr *load)
{
	const struct tiles *t = ctx;
	for (size_t i = 0; i < t->n_loads; i++)
		if (ir_expr_equal(t->loads[i], load))
			return egg_xasprintf("egg_ta%zu[egg_tx][egg_ty + egg_k]", i);
	return NULL;
}

static char *
store_text(void *ctx, const struct ir_expr *index)
{
	const struct tiles *t = ctx;
	for (size_t i = 0; i < t->n_stores; i++)
		if (ir_expr_equal(t->stores[i]->index, index))
			return egg_xasprintf("egg_tb%zu[egg_ty + egg_k][egg_tx]", i);
	return NULL;
}

/* Staging loop over the tile with threads along the row index. */
static void
staging_open(int tile, int rows_of_threads, struct strbuf *out)
{
	strbuf_addf(out, "#pragma unroll\n\t\t\tfor (int egg_k = 0; egg_k < %d; egg_k += %d) {\n"
	                 "\t\t\t\tconst long long egg_r = egg_r0 + egg_tx, egg_c = egg_c0 + egg_ty + egg_k;\n"
	                 "\t\t\t\tif (egg_r < egg_R && egg_c < egg_C) {\n",
	            tile, rows_of_threads);
}

static int
emit(struct recipe_job *job, size_t first, size_t n, size_t pt, struct strbuf *why)
{
	if (recipe_needs_launcher(job, "transpose", why))
		return -1;
	const int T = points[pt].t, B = points[pt].b;
	int rc = 0;
	for (size_t s = first; s < first + n && rc == 0; s++) {
		const struct ir_stage *st = &job->prog->stages[s];
		struct tiles t = { .st = st };
		for (size_t i = 0; i < st->body.n; i++) {
			const struct ir_stmt *x = st->body.stmts[i];
			collect(&t, job->prog, x->value);
			if (x->kind == IR_STORE && transposed(&t, x->index) && t.n_stores < 16)
				t.stores[t.n_stores++] = x;
		}
		if (t.overflow || t.n_stores == 16) {
			strbuf_addstr(why, "more than 16 transposed accesses");
			return -1;
		}
		long bytes = 0;
		for (size_t i = 0; i < t.n_loads + t.n_stores; i++) {
			const char *type = i < t.n_loads ? t.load_type[i] : NULL;
			const struct ir_param *q = i < t.n_loads ? NULL :
			                           ir_program_param(job->prog, t.stores[i - t.n_loads]->name);
			if (q)
				type = q->elem_type;
			bytes += (long)T * (T + 1) * (type && strcmp(type, "double") == 0 ? 8 : 4);
		}
		if (bytes > GRID2D_MAX_SHARED) {
			strbuf_addf(why, "the transpose's tiles need %ld bytes of shared memory", bytes);
			return -1;
		}
		struct emit_ctx c = grid2d_ctx(job->prog);
		struct strbuf shared = STRBUF_INIT, in = STRBUF_INIT, body = STRBUF_INIT, out = STRBUF_INIT,
		              sig = STRBUF_INIT, lab = STRBUF_INIT, rows = STRBUF_INIT, cols = STRBUF_INIT;
		for (size_t i = 0; i < t.n_loads; i++) {
			strbuf_addf(&shared, "\t__shared__ %s egg_ta%zu[%d][%d + 1];\n", t.load_type[i], i, T, T);
			staging_open(T, B, &in);
			strbuf_addf(&in, "\t\t\t\t\tegg_ta%zu[egg_ty + egg_k][egg_tx] = ", i);
			emit_expr(&c, t.loads[i], &in);
			strbuf_addstr(&in, ";\n\t\t\t\t}\n\t\t\t}\n");
		}
		if (t.n_loads)
			strbuf_addstr(&in, "\t\t\t__syncthreads();\n");
		for (size_t i = 0; i < t.n_stores; i++) {
			const struct ir_param *q = ir_program_param(job->prog, t.stores[i]->name);
			strbuf_addf(&shared, "\t__shared__ %s egg_tb%zu[%d][%d + 1];\n",
			            q ? q->elem_type : "float", i, T, T);
		}
		if (t.n_stores)
			strbuf_addstr(&out, "\t\t\t__syncthreads();\n");
		for (size_t i = 0; i < t.n_stores; i++) {
			staging_open(T, B, &out);
			strbuf_addf(&out, "\t\t\t\t\t%s[", t.stores[i]->name);
			emit_expr(&c, t.stores[i]->index, &out);
			strbuf_addf(&out, "] = egg_tb%zu[egg_tx][egg_ty + egg_k];\n\t\t\t\t}\n\t\t\t}\n", i);
		}
		/* the tiles are reused by the next tile of the grid stride */
		strbuf_addstr(&out, "\t\t\t__syncthreads();\n");
		struct ir_block b = grid2d_body(&st->body, load_text, store_text, &t);
		emit_block(&c, &b, "\t\t\t\t\t", &body);
		ir_block_free(&b);
		char *name = recipe_kernel_name(job);
		recipe_kernel_signature(job, name, T * B, &sig);
		label(pt, &lab);
		emit_expr(&c, st->dims[0], &rows);
		emit_expr(&c, st->dims[1], &cols);
		char ts[16], bs[16];
		snprintf(ts, sizeof ts, "%d", T);
		snprintf(bs, sizeof bs, "%d", B);
		const char *keys[] = { "LABEL", "SIG", "SHARED", "ROWS", "COLS", "T", "B", "STAGE_IN",
			               "BODY", "STAGE_OUT" };
		const char *vals[] = { lab.buf, sig.buf, shared.buf, rows.buf, cols.buf, ts, bs, in.buf,
			               body.buf, out.buf };
		rc = recipe_fill("transpose.cu", keys, vals, sizeof keys / sizeof *keys, job->device, why);
		if (rc == 0)
			grid2d_launch(job, st, name, T, T, T, B);
		free(name);
		strbuf_release(&shared);
		strbuf_release(&in);
		strbuf_release(&body);
		strbuf_release(&out);
		strbuf_release(&sig);
		strbuf_release(&lab);
		strbuf_release(&rows);
		strbuf_release(&cols);
	}
	return rc;
}

const struct recipe recipe_transpose = {
	"transpose", IR_STAGE_TRANSPOSE, N_POINTS, label, emit, NULL,
};
