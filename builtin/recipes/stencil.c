/*
 * stencil.c -- the family of 2-D stencils (STENCIL stages, lift_2d.c): read-only
 * buffers read at constant (row, col) offsets around each element, with the
 * reference's boundary handling (selects on the row and column) kept as written.
 *
 * A block of BX x BY threads owns a tile of (BY * K) x BX elements, each thread K
 * of them down a column.  The tile of every stencil buffer, with its halo, is
 * read once into shared memory by the whole block (coalesced along the row),
 * and the taps read it there: each element is fetched from global memory about
 * once instead of once per tap.  The halo holds the element at the same flat
 * index the reference reads, (row + dr) * cols + (col + dc), so a reference
 * that wraps across a row's end reads the same value; flat indices outside
 * [0, rows * cols) read as 0 (the reference never reads them, or it would read
 * outside its buffer).  A buffer whose taps clamp each coordinate to the domain
 * gets a tile of clamped elements instead, so the same taps read it.  The direct point (no tile) reads taps through the
 * read-only cache and only changes the threads' shape.
 *
 * Points: threads BX x BY x elements per thread K x tile or direct.
 */
#include "config.h"

#include "builtin/affine.h"
#include "builtin/recipes/grid2d.h"
#include "common/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct { int bx, by, k, tile; } points[] = {
	{ 32, 8, 4, 1 }, { 32, 8, 1, 1 }, { 32, 4, 8, 1 }, { 64, 4, 4, 1 }, { 32, 16, 2, 1 },
	{ 128, 2, 8, 1 }, { 32, 8, 4, 0 },
};
#define N_POINTS (sizeof points / sizeof *points)

static void
label(size_t pt, struct strbuf *out)
{
	strbuf_addf(out, "stencil threads=%dx%d per_thread=%d %s", points[pt].bx, points[pt].by,
	            points[pt].k, points[pt].tile ? "tile=shared" : "tile=none");
}

/* The buffers read at offsets, and the reach of their taps. */
struct taps {
	const struct ir_stage *st;
	const char *buffers[8];
	int clamped[8];         /* its taps are clamped to the domain (else flat) */
	size_t n;
	long hr, hc;
};

static int
buffer_index(const struct taps *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->buffers[i], name) == 0)
			return (int)i;
	return -1;
}

/* Every load of a buffer read somewhere at a non-zero offset is a tap (lift_2d.c
 * made sure all its loads are at constant offsets). */
static void
collect(struct taps *t, const struct ir_expr *e, int pass)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n_kids; i++)
		collect(t, e->kids[i], pass);
	if (e->kind != IR_LOAD)
		return;
	struct affine_access a = affine_classify(e->kids[0], t->st->dims[0], t->st->dims[1]);
	if (a.kind != AFF_ROW_MAJOR && a.kind != AFF_CLAMPED)
		return;
	if (pass == 0 && (a.dr || a.dc) && buffer_index(t, e->text) < 0 && t->n < 8)
		t->buffers[t->n++] = e->text;
	if (pass == 1 && a.kind == AFF_CLAMPED && buffer_index(t, e->text) >= 0)
		t->clamped[buffer_index(t, e->text)] = 1;
	if (pass == 1 && buffer_index(t, e->text) >= 0) {
		if (labs(a.dr) > t->hr)
			t->hr = labs(a.dr);
		if (labs(a.dc) > t->hc)
			t->hc = labs(a.dc);
	}
}

static char *
tap_text(void *ctx, const struct ir_expr *load)
{
	const struct taps *t = ctx;
	int b = buffer_index(t, load->text);
	if (b < 0)
		return NULL;
	struct affine_access a = affine_classify(load->kids[0], t->st->dims[0], t->st->dims[1]);
	return egg_xasprintf("egg_sb%d[egg_ly + %ld][egg_lx + %ld]", b, a.dr + t->hr, a.dc + t->hc);
}

static int
emit(struct recipe_job *job, size_t first, size_t n, size_t pt, struct strbuf *why)
{
	if (recipe_needs_launcher(job, "stencil", why))
		return -1;
	const int bx = points[pt].bx, by = points[pt].by, k = points[pt].k;
	const int th = by * k, tw = bx;
	int rc = 0;
	for (size_t s = first; s < first + n && rc == 0; s++) {
		const struct ir_stage *st = &job->prog->stages[s];
		struct taps t = { .st = st };
		for (int pass = 0; pass < 2; pass++)
			for (size_t i = 0; i < st->body.n; i++)
				collect(&t, st->body.stmts[i]->value, pass);
		struct emit_ctx c = grid2d_ctx(job->prog);
		struct strbuf shared = STRBUF_INIT, tile = STRBUF_INIT, body = STRBUF_INIT,
		              sig = STRBUF_INIT, lab = STRBUF_INIT, rows = STRBUF_INIT, cols = STRBUF_INIT;
		const long sh = th + 2 * t.hr, sw = tw + 2 * t.hc;
		long bytes = 0;
		for (size_t i = 0; i < t.n && points[pt].tile; i++) {
			const struct ir_param *q = ir_program_param(job->prog, t.buffers[i]);
			bytes += sh * sw * (q && strcmp(q->elem_type, "double") == 0 ? 8 : 4);
		}
		if (bytes > GRID2D_MAX_SHARED) {
			strbuf_addf(why, "the stencil's tiles need %ld bytes of shared memory", bytes);
			return -1;
		}
		if (points[pt].tile && t.n) {
			strbuf_addf(&tile, "\t\t\tfor (int egg_y = egg_ty; egg_y < %ld; egg_y += %d)\n"
			                   "\t\t\t\tfor (int egg_x = egg_tx; egg_x < %ld; egg_x += %d) {\n"
			                   "\t\t\t\t\tconst long long egg_gr = egg_r0 - %ld + egg_y, egg_gc = egg_c0 - %ld + egg_x;\n"
			                   "\t\t\t\t\tconst long long egg_f = egg_gr * egg_C + egg_gc;\n"
			                   "\t\t\t\t\tconst bool egg_in = egg_f >= 0 && egg_f < egg_R * egg_C;\n"
			                   "\t\t\t\t\tconst long long egg_fc = (egg_gr < 0 ? 0 : egg_gr >= egg_R ? egg_R - 1 : egg_gr) * egg_C +\n"
			                   "\t\t\t\t\t                        (egg_gc < 0 ? 0 : egg_gc >= egg_C ? egg_C - 1 : egg_gc);\n"
			                   "\t\t\t\t\t(void)egg_in;\n\t\t\t\t\t(void)egg_fc;\n",
			            sh, by, sw, bx, t.hr, t.hc);
			for (size_t i = 0; i < t.n; i++) {
				const struct ir_param *q = ir_program_param(job->prog, t.buffers[i]);
				const char *type = q ? q->elem_type : "float";
				strbuf_addf(&shared, "\t__shared__ %s egg_sb%zu[%ld][%ld];\n", type, i, sh, sw);
				if (t.clamped[i]) /* every element of the tile is the clamped one */
					strbuf_addf(&tile, "\t\t\t\t\tegg_sb%zu[egg_y][egg_x] = __ldg(&%s[egg_fc]);\n",
					            i, t.buffers[i]);
				else
					strbuf_addf(&tile, "\t\t\t\t\tegg_sb%zu[egg_y][egg_x] = egg_in ? __ldg(&%s[egg_f]) : (%s)0;\n",
					            i, t.buffers[i], type);
			}
			strbuf_addstr(&tile, "\t\t\t\t}\n\t\t\t__syncthreads();\n");
		}
		struct ir_block b = points[pt].tile ? grid2d_body(&st->body, tap_text, NULL, &t) :
		                                      grid2d_body(&st->body, NULL, NULL, NULL);
		emit_block(&c, &b, "\t\t\t\t\t", &body);
		ir_block_free(&b);
		char *name = recipe_kernel_name(job);
		recipe_kernel_signature(job, name, bx * by, &sig);
		label(pt, &lab);
		emit_expr(&c, st->dims[0], &rows);
		emit_expr(&c, st->dims[1], &cols);
		char v[8][24];
		snprintf(v[0], sizeof v[0], "%d", bx);
		snprintf(v[1], sizeof v[1], "%d", by);
		snprintf(v[2], sizeof v[2], "%d", th);
		snprintf(v[3], sizeof v[3], "%d", tw);
		snprintf(v[4], sizeof v[4], "%d", k);
		snprintf(v[5], sizeof v[5], "%ld", t.hr);
		snprintf(v[6], sizeof v[6], "%ld", t.hc);
		snprintf(v[7], sizeof v[7], "%s", points[pt].tile && t.n ? "\t\t\t__syncthreads();" : "");
		const char *keys[] = { "LABEL", "SIG", "SHARED", "ROWS", "COLS", "BX", "BY", "TH", "TW",
			               "K", "HR", "HC", "TILE", "BODY", "SYNC" };
		const char *vals[] = { lab.buf, sig.buf, shared.buf, rows.buf, cols.buf, v[0], v[1], v[2],
			               v[3], v[4], v[5], v[6], tile.buf, body.buf, v[7] };
		rc = recipe_fill("stencil.cu", keys, vals, sizeof keys / sizeof *keys, job->device, why);
		if (rc == 0)
			grid2d_launch(job, st, name, tw, th, bx, by);
		free(name);
		strbuf_release(&shared);
		strbuf_release(&tile);
		strbuf_release(&body);
		strbuf_release(&sig);
		strbuf_release(&lab);
		strbuf_release(&rows);
		strbuf_release(&cols);
	}
	return rc;
}

const struct recipe recipe_stencil = {
	"stencil", IR_STAGE_STENCIL, N_POINTS, label, emit,
};
