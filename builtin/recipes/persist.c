/*
 * persist.c -- a full reduction and the map that reads its result, in one
 * persistent kernel (a spanning recipe: its points take two stages of two kinds).
 *
 * The shape: a REDUCE stage (its one accumulator into a fixed buffer element,
 * say sumsq[0]) and right after it a MAP over the same elements that reads that
 * element (out[i] = x[i] / sqrtf(sumsq[0])).  Two launches read x twice; x too
 * large for the L2 then comes from memory twice.  Here one cooperative launch of
 * one wave of blocks reduces each block's contiguous chunk while keeping what the
 * map will read again (registers, then the block's dynamic shared memory), meets
 * at a grid barrier, folds the blocks' partials (every block, in one order, so
 * all hold the same value), and maps its chunk: the part not kept is read again
 * from its end, where the reduction's last reads are still in the L2
 * (templates/persist.cu).  The map's loads of the reduced element read the
 * folded value, not memory; block 0 stores it for after the call.
 *
 * The host launches it when the device has cooperative launches, every streamed
 * pointer is aligned for the vector accesses and the wave fits the partials;
 * otherwise, and if the launch fails, the same launcher runs the two stages as
 * the reduce and elementwise recipes emit them, so a user's build never meets a
 * launch error.  A memset of exactly the destination element before the
 * reduction is absorbed (the fold stores its result) when the fallback's
 * reduction can absorb it too.
 *
 * Refused (no candidate): a map that writes what either stage reads, that reads
 * the destination buffer elsewhere, a reduction that reads its destination or
 * stores, different extents, a map that fuses with a next one, and streams the
 * map does not read again (nothing to keep: the two launches are as good).
 *
 * Points: threads per block x accesses kept in registers per thread x accesses
 * in flight.
 */
#include "config.h"

#include "builtin/recipes/common.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

#define MAX_BLOCKS 4096
#define RED_BYTES 256 /* the 32 warp partials at the start of the dynamic shared memory */

static const struct { int tpb, reg, inflight; } points[] = {
	{ 1024, 8, 2 }, { 512, 20, 4 },
};
#define N_POINTS (sizeof points / sizeof *points)

static void
label(size_t pt, struct strbuf *out)
{
	strbuf_addf(out, "persist tpb=%d regs=%d inflight=%d (cooperative: reduce, grid barrier, map)",
	            points[pt].tpb, points[pt].reg, points[pt].inflight);
}

static int
body_is(const struct ir_block *b, int reduce)
{
	for (size_t i = 0; i < b->n; i++) {
		enum ir_stmt_kind k = b->stmts[i]->kind;
		if (k == IR_LOOP || (reduce && k == IR_STORE) || (!reduce && k == IR_ACC))
			return 0;
	}
	return 1;
}

/* Whether b loads buffer anywhere but at element ix. */
static int
block_loads_elsewhere(const struct ir_block *b, const char *buffer, const struct ir_expr *ix)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *s = b->stmts[i];
		if (!ir_expr_loads_only_at(s->value, buffer, ix) || !ir_expr_loads_only_at(s->index, buffer, ix))
			return 1;
	}
	return 0;
}

/* The streams of the kernel: held (the reduction's loads the map reads again,
 * first, in both lists), then the reduction's others (r), or the map's others
 * and its stores (m). */
struct plan {
	const struct ir_stage *red, *map;
	const struct ir_stmt *acc;
	struct emit_stream *r, *m;
	size_t nr, nm, held;
	int vec;
};

static void
plan_release(struct plan *pl)
{
	free(pl->r);
	free(pl->m);
	memset(pl, 0, sizeof *pl);
}

static int
same_stream(const struct emit_stream *a, const struct emit_stream *b)
{
	return a->is_store == b->is_store && strcmp(a->buffer, b->buffer) == 0 && ir_expr_equal(a->inv, b->inv);
}

/* 0 and *pl filled when stages first, first + 1 take this recipe, else -1 with why. */
static int
plan_for(const struct ir_program *p, size_t first, struct plan *pl, struct strbuf *why)
{
	memset(pl, 0, sizeof *pl);
	if (p->is_kernel || first + 1 >= p->n_stages || p->stages[first].kind != IR_STAGE_REDUCE ||
	    p->stages[first + 1].kind != IR_STAGE_MAP) {
		strbuf_addstr(why, "not a reduction then a map in a launcher");
		return -1;
	}
	const struct ir_stage *red = &p->stages[first], *map = &p->stages[first + 1];
	const struct ir_stmt *acc = ir_stage_buffer_acc(red);
	if (!acc || acc->index->kind != IR_NUM || !body_is(&red->body, 1) || !body_is(&map->body, 0) ||
	    !recipe_same_extent(red->n, map->n) || ir_block_touches(&red->body, acc->name, 0) ||
	    ir_block_touches(&map->body, acc->name, 1) || !ir_block_touches(&map->body, acc->name, 0) ||
	    block_loads_elsewhere(&map->body, acc->name, acc->index)) {
		strbuf_addstr(why, "the map does not read the reduction's one element, or the stages differ in shape");
		return -1;
	}
	if (first + 2 < p->n_stages && p->stages[first + 2].kind == IR_STAGE_MAP) {
		strbuf_addstr(why, "the map goes on into another map");
		return -1;
	}
	for (size_t i = 0; i < p->n_params; i++) {
		const char *b = p->params[i].name;
		if (p->params[i].is_pointer && ir_block_touches(&map->body, b, 1) &&
		    (ir_block_touches(&red->body, b, 0) || ir_block_touches(&map->body, b, 0))) {
			strbuf_addf(why, "the map writes %s, which is read", b);
			return -1;
		}
	}
	struct emit_ctx cr = { .prog = p, .var = IR_I, .component = -1 };
	struct emit_ctx cm = { .prog = p, .var = IR_I, .component = -1 };
	emit_collect_streams(&cr, &red->body);
	emit_collect_streams(&cm, &map->body);
	pl->red = red;
	pl->map = map;
	pl->acc = acc;
	pl->r = egg_xcalloc(cr.n_streams + 1, sizeof *pl->r);
	pl->m = egg_xcalloc(cm.n_streams + 1, sizeof *pl->m);
	for (size_t i = 0; i < cr.n_streams; i++)
		for (size_t j = 0; j < cm.n_streams; j++)
			if (same_stream(&cr.streams[i], &cm.streams[j])) {
				pl->r[pl->nr++] = cr.streams[i];
				pl->m[pl->nm++] = cm.streams[j];
				break;
			}
	pl->held = pl->nr;
	for (size_t i = 0; i < cr.n_streams; i++) {
		size_t j;
		for (j = 0; j < pl->held && !same_stream(&pl->r[j], &cr.streams[i]); j++)
			;
		if (j == pl->held)
			pl->r[pl->nr++] = cr.streams[i];
	}
	for (int store = 0; store < 2; store++)
		for (size_t i = 0; i < cm.n_streams; i++) {
			size_t j;
			for (j = 0; j < pl->held && !same_stream(&pl->m[j], &cm.streams[i]); j++)
				;
			if (j == pl->held && cm.streams[i].is_store == store)
				pl->m[pl->nm++] = cm.streams[i];
		}
	pl->vec = 4;
	for (size_t i = 0; i < pl->nr; i++)
		if (emit_max_vector(pl->r[i].elem_type) < pl->vec)
			pl->vec = emit_max_vector(pl->r[i].elem_type);
	for (size_t i = 0; i < pl->nm; i++)
		if (emit_max_vector(pl->m[i].elem_type) < pl->vec)
			pl->vec = emit_max_vector(pl->m[i].elem_type);
	emit_ctx_release(&cr);
	emit_ctx_release(&cm);
	if (pl->held == 0) {
		strbuf_addstr(why, "the map reads nothing the reduction read (nothing to keep)");
		plan_release(pl);
		return -1;
	}
	return 0;
}

static size_t
spans(const struct ir_program *p, size_t first, size_t pt)
{
	(void)pt;
	struct plan pl;
	struct strbuf why = STRBUF_INIT;
	int ok = plan_for(p, first, &pl, &why) == 0;
	plan_release(&pl);
	strbuf_release(&why);
	return ok ? 2 : 0;
}

/* The reduce recipe's first point that absorbs the memset before stage k, or
 * its point 0 when none does. */
static size_t
fallback_reduce_point(const struct ir_program *p, size_t k)
{
	for (size_t pt = 0; pt < recipe_reduce.n_points; pt++)
		if (recipe_reduce.absorbs(p, k, pt))
			return pt;
	return 0;
}

static int
absorbs(const struct ir_program *p, size_t k, size_t pt)
{
	(void)pt;
	return spans(p, k, 0) && recipe_reduce.absorbs(p, k, fallback_reduce_point(p, k));
}

/* A context over streams s[0, n). */
static struct emit_ctx
ctx_over(const struct ir_program *p, struct emit_stream *s, size_t n, int vec, const char *load_name,
         const char *suffix, size_t held)
{
	struct emit_ctx c = { .prog = p, .var = IR_I, .component = -1, .streams = s, .n_streams = n,
		              .vec = vec, .load_name = load_name, .reg_suffix = suffix, .n_held = held };
	c.index_text[IR_I] = c.index_text[IR_ROW] = c.index_text[IR_COL] = "0";
	return c;
}

static void
decl_arrays(const struct emit_ctx *c, size_t from, int count, const char *indent, struct strbuf *out)
{
	for (size_t i = from; i < c->n_streams; i++)
		if (!c->streams[i].is_store)
			strbuf_addf(out, "%s%s %s%zu[%d];\n", indent, emit_vector_type(c->streams[i].elem_type, c->vec),
			            c->load_name ? c->load_name : "egg_l", i, count);
}

/* Each text the template takes, in the order of keys[] in emit(). */
enum { LABEL, SIG, NAME, TYPE, MAXB, HELDPTR, N, V, REG, TPB, ACC, IDENTITY, INIT, REGDECL,
       REGDECL1, REGLOADS1, REGCOMPUTE1, U, UDECL1, ULOADS1, KEEP, UCOMPUTE1, SCALAR1,
       COMBINE_SHFL, WARPS, COMBINE_RED, COMBINE_PART, RESULT, DEST, UDECL2, ULOADS2, UCOMPUTE2,
       SMEMLOADS2, SMEMCOMPUTE2, REGDECL2, REGLOADS2, REGCOMPUTE2, SCALAR2, N_KEYS };

static int
emit(struct recipe_job *job, size_t first, size_t n, size_t pt, struct strbuf *why)
{
	const struct ir_program *p = job->prog;
	struct plan pl;
	if (n != 2 || plan_for(p, first, &pl, why) != 0)
		return -1;
	const int tpb = points[pt].tpb, reg = points[pt].reg, inflight = points[pt].inflight, v = pl.vec;
	const struct ir_stmt *acc = pl.acc;
	const int absorbed = first > 0 && absorbs(p, first, pt);
	struct strbuf t[N_KEYS];
	for (int i = 0; i < N_KEYS; i++)
		strbuf_init(&t[i]);
	char *name = recipe_kernel_name(job);
	label(pt, &t[LABEL]);
	recipe_kernel_signature(job, name, tpb, &t[SIG]);
	t[SIG].len--; /* reopen the parameter list */
	strbuf_addstr(&t[SIG], ", long long egg_hold)");
	strbuf_addstr(&t[NAME], name);
	strbuf_addstr(&t[TYPE], acc->type);
	strbuf_addf(&t[MAXB], "%d", MAX_BLOCKS);
	struct emit_ctx c0 = ctx_over(p, pl.m, pl.nm, v, NULL, NULL, 0);
	emit_expr(&c0, pl.red->n, &t[N]);
	strbuf_addf(&t[V], "%d", v);
	strbuf_addf(&t[REG], "%d", reg);
	strbuf_addf(&t[TPB], "%d", tpb);
	strbuf_addf(&t[U], "%d", inflight);
	strbuf_addf(&t[WARPS], "%d", tpb / 32);
	strbuf_addstr(&t[ACC], acc->name);
	strbuf_addstr(&t[IDENTITY], emit_identity(acc->combine, acc->type));
	/* the held streams' shared memory, one after another */
	for (size_t k = 0; k < pl.held; k++)
		strbuf_addf(&t[HELDPTR], "\t%s *const egg_hp%zu = reinterpret_cast<%s *>(%s_smem + %d) + %zu * egg_hold;\n",
		            emit_vector_type(pl.r[k].elem_type, v), k, emit_vector_type(pl.r[k].elem_type, v), name,
		            RED_BYTES, k);
	struct strbuf dest = STRBUF_INIT, pv = STRBUF_INIT;
	strbuf_addf(&dest, "%s[", acc->name);
	emit_expr(&c0, acc->index, &dest);
	strbuf_addch(&dest, ']');
	strbuf_addstr(&t[DEST], dest.buf);
	strbuf_addf(&pv, "egg_p_%s", acc->name);
	if (absorbed) {
		strbuf_addstr(&t[RESULT], pv.buf);
	} else { /* read before the barrier; block 0 writes it after */
		strbuf_addf(&t[INIT], "\tconst %s egg_init = %s;\n", acc->type, dest.buf);
		emit_combine(acc, "egg_init", pv.buf, &t[RESULT]);
	}
	{
		struct strbuf sh = STRBUF_INIT;
		strbuf_addf(&sh, "__shfl_xor_sync(0xffffffffu, %s, egg_o)", pv.buf);
		emit_combine(acc, pv.buf, sh.buf, &t[COMBINE_SHFL]);
		strbuf_reset(&sh);
		strbuf_addstr(&sh, "egg_red[egg_k]");
		emit_combine(acc, pv.buf, sh.buf, &t[COMBINE_RED]);
		strbuf_reset(&sh);
		strbuf_addf(&sh, "__ldcg(&%s_parts[egg_b])", name);
		emit_combine(acc, pv.buf, sh.buf, &t[COMBINE_PART]);
		strbuf_release(&sh);
	}
	char *bt = egg_xasprintf("egg_w * %d", v);
	/* phase 1, registers: every reduction stream into egg_h arrays (held ones at
	 * function scope) */
	struct emit_ctx c1 = ctx_over(p, pl.r, pl.nr, v, "egg_h", "[egg_u]", 0);
	struct emit_ctx ch = ctx_over(p, pl.r, pl.held, v, "egg_h", "[egg_u]", 0);
	decl_arrays(&ch, 0, reg, "\t", &t[REGDECL]);
	decl_arrays(&c1, pl.held, reg, "\t\t", &t[REGDECL1]);
	emit_stream_loads(&c1, bt, "\t\t\t\t", &t[REGLOADS1]);
	emit_components(&c1, &pl.red->body, bt, "\t\t\t\t", &t[REGCOMPUTE1]);
	/* phase 1, the rest: in flight, the first egg_hold kept in shared memory */
	struct emit_ctx c1u = ctx_over(p, pl.r, pl.nr, v, NULL, "[egg_u]", 0);
	decl_arrays(&c1u, 0, inflight, "\t\t", &t[UDECL1]);
	emit_stream_loads(&c1u, bt, "\t\t\t\t", &t[ULOADS1]);
	for (size_t k = 0; k < pl.held; k++)
		strbuf_addf(&t[KEEP], "\t\t\t\t\tegg_hp%zu[egg_w - egg_p] = egg_l%zu[egg_u];\n", k, k);
	emit_components(&c1u, &pl.red->body, bt, "\t\t\t\t", &t[UCOMPUTE1]);
	struct emit_ctx cs = ctx_over(p, pl.r, pl.nr, v, NULL, NULL, 0);
	cs.index_text[IR_I] = "egg_e";
	emit_block(&cs, &pl.red->body, "\t\t\t", &t[SCALAR1]);
	/* phase 2: the map's loads of the destination element are the folded value */
	struct emit_ctx c2u = ctx_over(p, pl.m, pl.nm, v, NULL, "[egg_u]", 0);
	c2u.subst_buffer = acc->name;
	c2u.subst_index = acc->index;
	c2u.subst_text = "egg_r";
	c2u.streaming_stores = 1;
	decl_arrays(&c2u, 0, inflight, "\t\t", &t[UDECL2]);
	emit_stream_loads(&c2u, bt, "\t\t\t\t", &t[ULOADS2]);
	emit_components(&c2u, &pl.map->body, bt, "\t\t\t\t", &t[UCOMPUTE2]);
	struct emit_ctx c2s = c2u;
	c2s.reg_suffix = NULL;
	c2s.n_held = pl.held;
	for (size_t k = 0; k < pl.held; k++)
		strbuf_addf(&t[SMEMLOADS2], "\t\tconst %s egg_l%zu = egg_hp%zu[egg_w - egg_p];\n",
		            emit_vector_type(pl.m[k].elem_type, v), k, k);
	emit_stream_loads(&c2s, bt, "\t\t", &t[SMEMLOADS2]);
	emit_components(&c2s, &pl.map->body, bt, "\t\t", &t[SMEMCOMPUTE2]);
	struct emit_ctx c2r = c2u;
	c2r.load_name = "egg_h";
	c2r.n_held = pl.held;
	decl_arrays(&c2r, pl.held, reg, "\t\t", &t[REGDECL2]);
	emit_stream_loads(&c2r, bt, "\t\t\t\t", &t[REGLOADS2]);
	emit_components(&c2r, &pl.map->body, bt, "\t\t\t\t", &t[REGCOMPUTE2]);
	struct emit_ctx c2e = ctx_over(p, pl.m, pl.nm, v, NULL, NULL, 0);
	c2e.subst_buffer = acc->name;
	c2e.subst_index = acc->index;
	c2e.subst_text = "egg_r";
	c2e.index_text[IR_I] = "egg_e";
	emit_block(&c2e, &pl.map->body, "\t\t\t", &t[SCALAR2]);
	static const char *const keys[N_KEYS] = {
		"LABEL", "SIG", "NAME", "TYPE", "MAXB", "HELDPTR", "N", "V", "REG", "TPB", "ACC", "IDENTITY",
		"INIT", "REGDECL", "REGDECL1", "REGLOADS1", "REGCOMPUTE1", "U", "UDECL1", "ULOADS1", "KEEP",
		"UCOMPUTE1", "SCALAR1", "COMBINE_SHFL", "WARPS", "COMBINE_RED", "COMBINE_PART", "RESULT",
		"DEST", "UDECL2", "ULOADS2", "UCOMPUTE2", "SMEMLOADS2", "SMEMCOMPUTE2", "REGDECL2",
		"REGLOADS2", "REGCOMPUTE2", "SCALAR2",
	};
	const char *vals[N_KEYS];
	for (int i = 0; i < N_KEYS; i++)
		vals[i] = t[i].buf;
	int rc = recipe_fill("persist.cu", keys, vals, N_KEYS, job->device, why);

	/* host: the cooperative launch when it can run, else the two recipes' stages */
	struct strbuf aligned = STRBUF_INIT, held_bytes = STRBUF_INIT;
	struct emit_ctx ca = ctx_over(p, pl.m, pl.nm, v, NULL, NULL, 0);
	emit_aligned_test(&ca, "0", &aligned);
	if (pl.nr > pl.held) {
		struct emit_ctx cr = ctx_over(p, pl.r + pl.held, pl.nr - pl.held, v, NULL, NULL, 0);
		strbuf_addstr(&aligned, " && ");
		emit_aligned_test(&cr, "0", &aligned);
	}
	for (size_t k = 0; k < pl.held; k++)
		strbuf_addf(&held_bytes, "%ssizeof(%s)", k ? " + " : "", emit_vector_type(pl.r[k].elem_type, v));
	struct strbuf *h = job->host;
	strbuf_addf(h, "\t{\n\t\tstatic int egg_occ = -1;\n"
	               "\t\tstatic size_t egg_smem = 0;\n"
	               "\t\tif (egg_occ < 0) {\n"
	               "\t\t\tint egg_dev = 0, egg_coop = 0, egg_optin = 0;\n"
	               "\t\t\tegg_occ = 0;\n"
	               "\t\t\tif (cudaGetDevice(&egg_dev) == cudaSuccess &&\n"
	               "\t\t\t    cudaDeviceGetAttribute(&egg_coop, cudaDevAttrCooperativeLaunch, egg_dev) == cudaSuccess && egg_coop &&\n"
	               "\t\t\t    cudaDeviceGetAttribute(&egg_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, egg_dev) == cudaSuccess &&\n"
	               "\t\t\t    egg_optin >= 4096) {\n"
	               "\t\t\t\tegg_smem = (size_t)egg_optin / 1024 * 1024 - 3072; /* the rest: the runtime's */\n"
	               "\t\t\t\tif (cudaFuncSetAttribute(%s, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)egg_smem) != cudaSuccess ||\n"
	               "\t\t\t\t    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&egg_occ, %s, %d, egg_smem) != cudaSuccess ||\n"
	               "\t\t\t\t    egg_occ < 0)\n"
	               "\t\t\t\t\tegg_occ = 0;\n"
	               "\t\t\t}\n"
	               "\t\t\tcudaGetLastError();\n"
	               "\t\t}\n"
	               "\t\tconst long long egg_g = (long long)egg_builtin_sm_count() * egg_occ;\n"
	               "\t\tint egg_done = 0;\n"
	               "\t\tif (egg_g > 0 && egg_g <= %d && %s) {\n"
	               "\t\t\tconst long long egg_hold = ((long long)egg_smem - %d) / (long long)(%s);\n",
	            name, name, tpb, MAX_BLOCKS, aligned.buf, RED_BYTES, held_bytes.buf);
	recipe_host_cooperative(job, name, tpb, ", egg_hold");
	strbuf_addstr(h, "\t\t}\n"
	                 "\t\tif (!egg_done) {\n");
	/* the fallback, one level in */
	struct strbuf fb = STRBUF_INIT;
	job->host = &fb;
	if (rc == 0)
		rc = recipe_reduce.emit(job, first, 1, fallback_reduce_point(p, first), why);
	if (rc == 0)
		rc = recipe_elementwise.emit(job, first + 1, 1, 0, why);
	job->host = h;
	for (const char *s = fb.buf; *s;) {
		const char *e = strchr(s, '\n');
		size_t len = e ? (size_t)(e - s) + 1 : strlen(s);
		strbuf_addstr(h, "\t\t");
		strbuf_add(h, s, len);
		s += len;
	}
	strbuf_addstr(h, "\t\t}\n\t}\n");
	strbuf_release(&fb);
	strbuf_release(&aligned);
	strbuf_release(&held_bytes);
	strbuf_release(&dest);
	strbuf_release(&pv);
	for (int i = 0; i < N_KEYS; i++)
		strbuf_release(&t[i]);
	free(bt);
	free(name);
	plan_release(&pl);
	return rc;
}

const struct span_recipe recipe_persist = {
	{ "persist", IR_STAGE_REDUCE, N_POINTS, label, emit, absorbs },
	spans,
};
