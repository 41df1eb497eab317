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
 * The window points (templates/stencil_window.cu) keep the tile in registers
 * instead: a thread owns V adjacent columns and walks K rows down them with the
 * 2 * HR + 1 rows around the current one (and HC halo columns each side) held in
 * a sliding window, so each row is one 16-byte load plus the halo elements
 * (neighbours' loads, from L1) and each output row one 16-byte store.  The
 * window's elements are the same flat indices the reference reads, out-of-range
 * ones 0, as in the shared tile; clamped taps are left to the tile points.
 *
 * Points: threads BX x BY x elements per thread K x tile or direct; window
 * points: threads BX x columns V x rows K.
 */
#include "config.h"

#include "builtin/lift/affine.h"
#include "builtin/recipes/grid2d.h"
#include "common/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DIRECT, TILE, WINDOW };

/* for WINDOW points, by is the columns per thread (V) */
static const struct { int bx, by, k, tile; } points[] = {
	{ 128, 4, 8, WINDOW }, { 32, 8, 4, TILE }, { 256, 4, 8, WINDOW }, { 32, 8, 1, TILE },
	{ 128, 4, 4, WINDOW }, { 32, 4, 8, TILE }, { 64, 4, 8, WINDOW }, { 64, 4, 4, TILE },
	{ 128, 2, 16, WINDOW }, { 32, 16, 2, TILE }, { 256, 2, 8, WINDOW }, { 128, 2, 8, TILE },
	{ 32, 8, 4, DIRECT },
};
#define N_POINTS (sizeof points / sizeof *points)
/* window points: rows loaded this many steps ahead, and the row loop's unroll
 * (a multiple of the window's turn keeps the rotation in register names) */
#define WINDOW_AHEAD 0
#define WINDOW_UNROLL 1

static void
label(size_t pt, struct strbuf *out)
{
	if (points[pt].tile == WINDOW)
		strbuf_addf(out, "stencil threads=%d columns=%d rows=%d tile=registers", points[pt].bx,
		            points[pt].by, points[pt].k);
	else
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
	int where;              /* taps read: 0 the shared tile, 1 the window, 2 the register tile */
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
	static const char *const fmt[] = { "egg_sb%d[egg_ly + %ld][egg_lx + %ld]",
		                           "egg_w%d[%ld][egg_x + %ld]",
		                           "egg_t%d[egg_k + %ld][egg_x + %ld]" };
	return egg_xasprintf(fmt[t->where], b, a.dr + t->hr, a.dc + t->hc);
}

static const char comps[] = "xyzw";

/* The decimal text of n numbers, for a template's fill. */
static void
numbers(const long *v, size_t n, char (*out)[24])
{
	for (size_t i = 0; i < n; i++)
		snprintf(out[i], sizeof out[i], "%ld", v[i]);
}

/* A buffer's element type, "float" when unknown. */
static const char *
elem_type(const struct ir_program *p, const char *buffer)
{
	const struct ir_param *q = ir_program_param(p, buffer);
	return q ? q->elem_type : "float";
}

/* The stores at the element itself, (row, col), to buffers of vector type vt:
 * they go to a register row egg_oN[egg_x] and leave as one vector store. */
static size_t
window_outputs(const struct ir_program *p, const struct ir_stage *st, int v, const char **out,
               size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < st->body.n; i++) {
		const struct ir_stmt *s = st->body.stmts[i];
		if (s->kind != IR_STORE || !emit_vector_type(elem_type(p, s->name), v) ||
		    emit_narrow(elem_type(p, s->name)))
			continue;
		struct affine_access a = affine_classify(s->index, st->dims[0], st->dims[1]);
		if (a.kind != AFF_ROW_MAJOR || a.dr || a.dc)
			continue;
		size_t k;
		for (k = 0; k < n && strcmp(out[k], s->name); k++)
			;
		if (k == n && n < max)
			out[n++] = s->name;
	}
	return n;
}

static void
window_row_load(const struct ir_program *p, const struct taps *t, int v, struct strbuf *out)
{
	const long hc = t->hc;
	for (size_t b = 0; b < t->n; b++) {
		const char *buf = t->buffers[b], *ty = elem_type(p, buf);
		const char *vt = emit_vector_type(ty, v);
		strbuf_addf(out, "\t\t\t\t{\n\t\t\t\t\tconst long long egg_f = egg_lr * egg_C + egg_c0;\n"
		                 "\t\t\t\t\tif (egg_full && egg_lr >= 0 && egg_lr < egg_R) {\n"
		                 "\t\t\t\t\t\tconst %s egg_v = __ldg(reinterpret_cast<const %s *>(&%s[egg_f]));\n",
		            vt, vt, buf);
		for (int k = 0; k < v; k++)
			strbuf_addf(out, "\t\t\t\t\t\tegg_w%zu[egg_j][%ld] = egg_v%s%c;\n", b, hc + k,
			            v > 1 ? "." : "", v > 1 ? comps[k] : ' ');
		for (long h = 1; h <= hc; h++)
			strbuf_addf(out, "\t\t\t\t\t\tegg_w%zu[egg_j][%ld] = egg_f - %ld >= 0 ? __ldg(&%s[egg_f - %ld]) : (%s)0;\n"
			                 "\t\t\t\t\t\tegg_w%zu[egg_j][%ld] = egg_f + %ld < egg_RC ? __ldg(&%s[egg_f + %ld]) : (%s)0;\n",
			            b, hc - h, h, buf, h, ty, b, hc + v - 1 + h, v - 1 + h, buf, v - 1 + h, ty);
		strbuf_addf(out, "\t\t\t\t\t} else {\n#pragma unroll\n"
		                 "\t\t\t\t\t\tfor (int egg_h = 0; egg_h < %ld; egg_h++) {\n"
		                 "\t\t\t\t\t\t\tconst long long egg_g = egg_f - %ld + egg_h;\n"
		                 "\t\t\t\t\t\t\tegg_w%zu[egg_j][egg_h] = egg_g >= 0 && egg_g < egg_RC ? __ldg(&%s[egg_g]) : (%s)0;\n"
		                 "\t\t\t\t\t\t}\n\t\t\t\t\t}\n\t\t\t\t}\n",
		            v + 2 * hc, hc, b, buf, ty);
	}
}

/* One window kernel for stage st at point pt. */
static int
emit_window(struct recipe_job *job, const struct ir_stage *st, const struct taps *t, size_t pt,
            struct strbuf *why)
{
	const struct ir_program *p = job->prog;
	const int bx = points[pt].bx, v = points[pt].by, k = points[pt].k;
	for (size_t b = 0; b < t->n; b++) {
		if (t->clamped[b]) {
			strbuf_addstr(why, "clamped taps read a tile of clamped elements, not a window");
			return -1;
		}
		if (!emit_vector_type(elem_type(p, t->buffers[b]), v) || (v > 1 && emit_narrow(elem_type(p, t->buffers[b])))) {
			strbuf_addf(why, "no %d-wide vector of %s", v, elem_type(p, t->buffers[b]));
			return -1;
		}
	}
	if ((2 * t->hr + k) * (v + 2 * t->hc) * (long)t->n > 72) {
		strbuf_addstr(why, "the stencil's window would not fit in registers");
		return -1;
	}
	const char *outs[8];
	size_t n_outs = window_outputs(p, st, v, outs, 8);
	struct emit_ctx c = grid2d_ctx(p);
	struct strbuf vok = STRBUF_INIT, decl = STRBUF_INIT, load = STRBUF_INIT, shift = STRBUF_INIT,
	              odecl = STRBUF_INIT, stores = STRBUF_INIT, body = STRBUF_INIT, sig = STRBUF_INIT,
	              lab = STRBUF_INIT, rows = STRBUF_INIT, cols = STRBUF_INIT, tdecl = STRBUF_INIT,
	              tload = STRBUF_INIT, tbody = STRBUF_INIT;
	strbuf_addf(&vok, "egg_C %% %d == 0", v);
	for (size_t b = 0; b < t->n + n_outs; b++) {
		const char *buf = b < t->n ? t->buffers[b] : outs[b - t->n];
		strbuf_addf(&vok, " && ((unsigned long long)%s & (%d * sizeof(%s) - 1)) == 0", buf, v,
		            elem_type(p, buf));
	}
	for (size_t b = 0; b < t->n; b++) {
		strbuf_addf(&decl, "\t\t\t%s egg_w%zu[%ld][%ld];\n", elem_type(p, t->buffers[b]), b,
		            2 * t->hr + 1 + WINDOW_AHEAD, v + 2 * t->hc);
		if (t->hr + WINDOW_AHEAD)
			strbuf_addf(&shift, "#pragma unroll\n\t\t\t\tfor (int egg_s = 0; egg_s < %ld; egg_s++)\n"
			                    "#pragma unroll\n\t\t\t\t\tfor (int egg_h = 0; egg_h < %ld; egg_h++)\n"
			                    "\t\t\t\t\t\tegg_w%zu[egg_s][egg_h] = egg_w%zu[egg_s + 1][egg_h];\n",
			            2 * t->hr + WINDOW_AHEAD, v + 2 * t->hc, b, b);
	}
	window_row_load(p, t, v, &load);
	for (size_t b = 0; b < t->n; b++) {
		const char *buf = t->buffers[b], *ty = elem_type(p, buf), *vt = emit_vector_type(ty, v);
		strbuf_addf(&tdecl, "\t\t\t\t%s egg_t%zu[%ld][%ld];\n", ty, b, 2 * t->hr + k, v + 2 * t->hc);
		strbuf_addf(&tload, "\t\t\t\t\t{\n\t\t\t\t\t\tconst %s egg_v = __ldg(reinterpret_cast<const %s *>(&%s[egg_f]));\n",
		            vt, vt, buf);
		for (int x = 0; x < v; x++)
			strbuf_addf(&tload, "\t\t\t\t\t\tegg_t%zu[egg_j][%ld] = egg_v%s%c;\n", b, t->hc + x,
			            v > 1 ? "." : "", v > 1 ? comps[x] : ' ');
		for (long h = 1; h <= t->hc; h++)
			strbuf_addf(&tload, "\t\t\t\t\t\tegg_t%zu[egg_j][%ld] = __ldg(&%s[egg_f - %ld]);\n"
			                    "\t\t\t\t\t\tegg_t%zu[egg_j][%ld] = __ldg(&%s[egg_f + %ld]);\n",
			            b, t->hc - h, buf, h, b, t->hc + v - 1 + h, buf, v - 1 + h);
		strbuf_addstr(&tload, "\t\t\t\t\t}\n");
	}
	for (size_t o = 0; o < n_outs; o++) {
		const char *ty = elem_type(p, outs[o]), *vt = emit_vector_type(ty, v);
		strbuf_addf(&odecl, "\t\t\t\t%s egg_o%zu[%d];\n", ty, o, v);
		strbuf_addf(&stores, "\t\t\t\tif (egg_full) {\n\t\t\t\t\t%s egg_v;\n", vt);
		for (int x = 0; x < v; x++)
			strbuf_addf(&stores, "\t\t\t\t\tegg_v%s%c = egg_o%zu[%d];\n", v > 1 ? "." : "",
			            v > 1 ? comps[x] : ' ', o, x);
		strbuf_addf(&stores, "\t\t\t\t\t*reinterpret_cast<%s *>(&%s[egg_r * egg_C + egg_c0]) = egg_v;\n"
		                     "\t\t\t\t} else {\n#pragma unroll\n"
		                     "\t\t\t\t\tfor (int egg_x = 0; egg_x < %d; egg_x++)\n"
		                     "\t\t\t\t\t\tif (egg_c0 + egg_x < egg_C)\n"
		                     "\t\t\t\t\t\t\t%s[egg_r * egg_C + egg_c0 + egg_x] = egg_o%zu[egg_x];\n"
		                     "\t\t\t\t}\n",
		            vt, outs[o], v, outs[o], o);
	}
	struct taps tt = *t;
	for (tt.where = 1; tt.where <= 2; tt.where++) {
	struct ir_block blk = grid2d_body(&st->body, tap_text, NULL, &tt);
	for (size_t i = 0; i < blk.n; i++) { /* stores at the element go to the output row */
		struct ir_stmt *s = blk.stmts[i];
		if (s->kind != IR_STORE)
			continue;
		struct affine_access a = affine_classify(s->index, st->dims[0], st->dims[1]);
		for (size_t o = 0; o < n_outs; o++)
			if (a.kind == AFF_ROW_MAJOR && !a.dr && !a.dc && strcmp(s->name, outs[o]) == 0) {
				free(s->name);
				s->name = egg_xasprintf("egg_o%zu[egg_x]", o);
				s->kind = IR_ASSIGN;
				ir_expr_free(s->index);
				s->index = NULL;
				break;
			}
	}
	if (tt.where == 2) {
		strbuf_addstr(&tbody, "\t\t\t\t\t\tif (egg_c < egg_C) {\n");
		emit_block(&c, &blk, "\t\t\t\t\t\t\t", &tbody);
		strbuf_addstr(&tbody, "\t\t\t\t\t\t}\n");
	} else {
		emit_block(&c, &blk, "\t\t\t\t\t\t", &body);
	}
	ir_block_free(&blk);
	}
	char *name = recipe_kernel_name(job);
	recipe_kernel_signature(job, name, bx, &sig);
	label(pt, &lab);
	emit_expr(&c, st->dims[0], &rows);
	emit_expr(&c, st->dims[1], &cols);
	char nums[7][24];
	const long nv[7] = { bx, v, k, t->hr, t->hc, k < WINDOW_UNROLL ? k : WINDOW_UNROLL, WINDOW_AHEAD };
	numbers(nv, 7, nums);
	const char *keys[] = { "LABEL", "SIG", "ROWS", "COLS", "BX", "V", "K", "HR", "HC", "UNROLL",
		               "PD", "VOK", "WINDECL", "LOADROW", "SHIFT", "OUTDECL", "BODY", "STORES",
		               "TILEDECL", "TILELOAD", "TILEBODY" };
	const char *vals[] = { lab.buf, sig.buf, rows.buf, cols.buf, nums[0], nums[1], nums[2],
		               nums[3], nums[4], nums[5], nums[6], vok.buf, decl.buf, load.buf,
		               shift.buf, odecl.buf, body.buf, stores.buf, tdecl.buf, tload.buf,
		               tbody.buf };
	int rc = recipe_fill("stencil_window.cu", keys, vals, sizeof keys / sizeof *keys, job->device, why);
	if (rc == 0)
		grid2d_launch(job, st, name, bx * v, k, bx, 1);
	free(name);
	struct strbuf *all[] = { &vok, &decl, &load, &shift, &odecl, &stores, &body, &sig, &lab,
		                 &rows, &cols, &tdecl, &tload, &tbody };
	for (size_t i = 0; i < sizeof all / sizeof *all; i++)
		strbuf_release(all[i]);
	return rc;
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
		if (points[pt].tile == WINDOW) {
			rc = emit_window(job, st, &t, pt, why);
			continue;
		}
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
		const long nv[7] = { bx, by, th, tw, k, t.hr, t.hc };
		numbers(nv, 7, v);
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
	"stencil", IR_STAGE_STENCIL, N_POINTS, label, emit, NULL,
};
