/*
 * elementwise.c -- the family of element-wise maps and chains of them.
 *
 * A run of MAP stages over the same domain fuses into one pass when each stage
 * reads what an earlier one wrote only at the same element: the value is
 * forwarded in a register, a store overwritten later in the run is dropped, and
 * a store into a temp buffer that nothing after the run reads is dropped too.
 * The pass itself (templates/stream.cu) streams every buffer indexed by the
 * element with 16-byte vector accesses, several in flight per thread, with a
 * run-time alignment test and a scalar tail; broadcast operands (bias[i % c])
 * stay scalar loads through the read-only path.
 *
 * The grid is one wave of resident blocks (the SM count times the blocks the
 * kernel fits per SM, asked at run time), each thread striding over the rest;
 * points marked grid=full instead launch a block per tpb x inflight vectors, so
 * that each thread does its accesses once and the block scheduler balances the
 * SMs as blocks finish.
 *
 * Where the map's gathers are the same over runs of X consecutive elements
 * (per-channel operands of an NCHW map, mean[(i / hw) % c]), a planes pass
 * (templates/planes.cu) instead gives each block whole planes of X: what depends
 * on the plane only (the channel, its gathers, sqrtf(var[ch] + eps)) is computed
 * once per plane and the plane is streamed like the pass above.
 *
 * Points: threads per block x vector width x accesses in flight (x planes, x order, x the
 * approximate tanh of maps with narrow outputs).
 */
#include "config.h"

#include "builtin/recipes/common.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

/* planes: the planes pass where the map supports it (below), else the streamed
 * pass of the same geometry (an earlier point's code: a lone map drops it as a
 * duplicate) */
/* reverse: the vector pass from the last element down, for maps that read a buffer
 * an earlier stage of the launcher read: that stage read the end of it last, and
 * up to an L2's worth of it is still there (a norm's sum of squares, then the
 * division by it) */
/* approx: tanhf as the hardware's tanh (emit_ctx.approx_tanh), for maps that call it
 * and store only bf16 or half: a bf16 GELU's fp32 tanhf costs as many instructions as
 * its bytes take to move, and its outputs round far coarser than the approximation */
static const struct { int tpb, vec, inflight, planes, full, reverse, approx; } points[] = {
	{ 256, 4, 2, 0, 0, 0, 0 }, { 256, 4, 4, 0, 0, 0, 0 }, { 512, 4, 1, 0, 0, 0, 0 }, { 128, 4, 4, 0, 0, 0, 0 }, { 256, 1, 4, 0, 0, 0, 0 },
	{ 1024, 4, 2, 0, 0, 0, 0 }, { 256, 4, 8, 0, 0, 0, 0 }, { 512, 4, 2, 0, 0, 0, 0 }, { 256, 4, 4, 1, 0, 0, 0 }, { 512, 4, 2, 1, 0, 0, 0 },
	{ 128, 4, 1, 0, 1, 0, 0 }, { 256, 4, 2, 0, 1, 0, 0 }, { 512, 4, 1, 0, 1, 0, 0 },
	{ 256, 4, 2, 0, 0, 1, 0 }, { 256, 4, 4, 0, 0, 1, 0 }, { 512, 4, 2, 0, 0, 1, 0 },
	{ 256, 4, 2, 0, 0, 0, 1 }, { 512, 4, 1, 0, 0, 0, 1 }, { 256, 4, 2, 0, 1, 0, 1 },
};
#define N_POINTS (sizeof points / sizeof *points)

static void
label(size_t pt, struct strbuf *out)
{
	strbuf_addf(out, "elementwise tpb=%d vec=%d inflight=%d%s%s%s%s", points[pt].tpb, points[pt].vec,
	            points[pt].inflight, points[pt].planes ? " planes (else streamed)" : "",
	            points[pt].full ? " grid=full" : "", points[pt].reverse ? " order=reverse" : "",
	            points[pt].approx ? " tanh=approx" : "");
}

/* A store of the fused run so far: loads of (buffer, index) later read local. */
struct fwd {
	const char *buffer;
	const struct ir_expr *index;
	const char *local;
};

struct fused {
	struct ir_block body;
	struct fwd *fwd;
	size_t n_fwd;
};

static struct ir_expr *
forward_copy(const struct fused *f, const struct ir_expr *e)
{
	if (e->kind == IR_LOAD)
		for (size_t i = f->n_fwd; i-- > 0;)
			if (strcmp(f->fwd[i].buffer, e->text) == 0 && ir_expr_equal(f->fwd[i].index, e->kids[0]))
				return ir_expr_new(IR_LOCAL, f->fwd[i].local);
	struct ir_expr *c = ir_expr_new(e->kind, e->text);
	c->idx = e->idx;
	for (size_t i = 0; i < e->n_kids; i++)
		ir_expr_add(c, forward_copy(f, e->kids[i]));
	return c;
}

/* Can stage st join the fused run f (same domain checked by the caller)? */
static int
joinable(const struct fused *f, const struct ir_stage *st)
{
	for (size_t i = 0; i < f->n_fwd; i++)
		for (size_t j = 0; j < st->body.n; j++) {
			const struct ir_stmt *s = st->body.stmts[j];
			if (!ir_expr_loads_only_at(s->value, f->fwd[i].buffer, f->fwd[i].index))
				return 0;
			if (s->kind == IR_STORE && strcmp(s->name, f->fwd[i].buffer) == 0 &&
			    !ir_expr_equal(s->index, f->fwd[i].index))
				return 0;
		}
	/* a later store must not overwrite what an earlier stage read elsewhere */
	for (size_t j = 0; j < st->body.n; j++) {
		const struct ir_stmt *s = st->body.stmts[j];
		if (s->kind != IR_STORE)
			continue;
		for (size_t k = 0; k < f->body.n; k++)
			if (!ir_expr_loads_only_at(f->body.stmts[k]->value, s->name, s->index))
				return 0;
	}
	return 1;
}

static void
join(struct fused *f, const struct ir_stage *st)
{
	for (size_t j = 0; j < st->body.n; j++) {
		const struct ir_stmt *s = st->body.stmts[j];
		struct ir_stmt *c = ir_stmt_new(s->kind);
		c->name = egg_xstrdup(s->name);
		c->type = s->type ? egg_xstrdup(s->type) : NULL;
		c->index = ir_expr_copy(s->index);
		c->value = forward_copy(f, s->value);
		ir_block_add(&f->body, c);
	}
	for (size_t j = 0; j < st->body.n; j++) {
		const struct ir_stmt *s = st->body.stmts[j];
		if (s->kind == IR_STORE && s->value->kind == IR_LOCAL) {
			f->fwd = egg_xrealloc(f->fwd, (f->n_fwd + 1) * sizeof *f->fwd);
			f->fwd[f->n_fwd++] = (struct fwd){ s->name, s->index, s->value->text };
		}
	}
}

static int
block_loads(const struct ir_block *b, const char *buffer)
{
	for (size_t j = 0; j < b->n; j++) {
		const struct ir_stmt *s = b->stmts[j];
		if (ir_expr_loads(s->value, buffer) || ir_expr_loads(s->index, buffer) ||
		    ir_expr_loads(s->bound, buffer) || block_loads(&s->body, buffer))
			return 1;
	}
	return 0;
}

static int
read_after(const struct ir_program *p, size_t from, const char *buffer)
{
	for (size_t i = from; i < p->n_stages; i++)
		if (block_loads(&p->stages[i].body, buffer))
			return 1;
	return 0;
}

/* Drops stores overwritten later in the run and dead stores into temp buffers. */
static void
drop_dead_stores(const struct ir_program *p, size_t after, struct ir_block *b)
{
	size_t w = 0;
	for (size_t i = 0; i < b->n; i++) {
		struct ir_stmt *s = b->stmts[i];
		int dead = 0;
		if (s->kind == IR_STORE) {
			for (size_t j = i + 1; j < b->n && !dead; j++)
				dead = b->stmts[j]->kind == IR_STORE && strcmp(b->stmts[j]->name, s->name) == 0 &&
				       ir_expr_equal(b->stmts[j]->index, s->index);
			const struct ir_param *q = ir_program_param(p, s->name);
			if (q && q->is_temp && !read_after(p, after, s->name))
				dead = 1;
		}
		if (dead) {
			ir_expr_free(s->index);
			ir_expr_free(s->value);
			free(s->name);
			free(s->type);
			free(s);
		} else {
			b->stmts[w++] = s;
		}
	}
	b->n = w;
}

/* The planes pass.  When every i / X of the body divides by one invariant X and
 * every load that is not a stream (x[i]) reads at an index that, with i / X
 * read as the plane p, depends on nothing else that changes along the plane
 * (mean[(i / hw) % c]), the elements are planes of X that share those loads:
 * lets and maximal subexpressions over the plane only (a load or call in them)
 * are computed once per plane, the rest per element.  Subexpressions under a
 * condition's branches or && / ||'s right side stay where they are (a guarded
 * load stays guarded). */
struct planes {
	const struct ir_program *prog;
	const struct ir_block *src;
	const struct ir_expr *x;  /* the plane length */
	struct ir_block pre;      /* per plane */
	struct ir_block body;     /* per element, i / X read as egg_p */
	const char **inv;         /* locals of the plane */
	size_t n_inv;
	unsigned n_h, n_loads;    /* hoisted temporaries; gathers among what is hoisted */
	int bad;
};

static int
is_div_i(const struct ir_expr *e)
{
	return e->kind == IR_BIN && strcmp(e->text, "/") == 0 && e->kids[0]->kind == IR_IDX &&
	       e->kids[0]->idx == IR_I;
}

/* Finds X; bad when two divisors differ or one is not an integer invariant. */
static void
plane_divisor(struct planes *pl, const struct ir_expr *e)
{
	if (!e)
		return;
	if (is_div_i(e)) {
		if (!recipe_int_invariant(pl->prog, e->kids[1]) || (pl->x && !ir_expr_equal(pl->x, e->kids[1])))
			pl->bad = 1;
		else
			pl->x = e->kids[1];
		return;
	}
	for (size_t i = 0; i < e->n_kids; i++)
		plane_divisor(pl, e->kids[i]);
}

/* Does b have a statement of this kind (IR_STORE, IR_ASSIGN) into name? */
static int
writes(const struct ir_block *b, enum ir_stmt_kind kind, const char *name)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->stmts[i]->kind == kind && strcmp(b->stmts[i]->name, name) == 0)
			return 1;
	return 0;
}

/* e (i / X already read as egg_p) is the same over the plane */
static int
plane_const(const struct planes *pl, const struct ir_expr *e)
{
	switch (e->kind) {
	case IR_IDX:
		return 0;
	case IR_LOCAL:
		if (strcmp(e->text, "egg_p") == 0)
			return 1;
		for (size_t i = 0; i < pl->n_inv; i++)
			if (strcmp(pl->inv[i], e->text) == 0)
				return 1;
		return 0;
	case IR_LOAD:
		if (writes(pl->src, IR_STORE, e->text))
			return 0;
		break;
	default:
		break;
	}
	for (size_t i = 0; i < e->n_kids; i++)
		if (!plane_const(pl, e->kids[i]))
			return 0;
	return 1;
}

static int
has_call(const struct ir_expr *e)
{
	if (e->kind == IR_CALL)
		return 1;
	for (size_t i = 0; i < e->n_kids; i++)
		if (has_call(e->kids[i]))
			return 1;
	return 0;
}

static unsigned
count_loads(const struct ir_expr *e)
{
	unsigned n = e->kind == IR_LOAD;
	for (size_t i = 0; i < e->n_kids; i++)
		n += count_loads(e->kids[i]);
	return n;
}

static struct ir_expr *
plane_read(const struct ir_expr *e)
{
	if (is_div_i(e))
		return ir_expr_new(IR_LOCAL, "egg_p");
	struct ir_expr *c = ir_expr_new(e->kind, e->text);
	c->idx = e->idx;
	for (size_t i = 0; i < e->n_kids; i++)
		ir_expr_add(c, plane_read(e->kids[i]));
	return c;
}

static void
pre_let(struct planes *pl, const char *type, const char *name, struct ir_expr *value)
{
	struct ir_stmt *s = ir_stmt_new(IR_LET);
	s->type = egg_xstrdup(type);
	s->name = egg_xstrdup(name);
	pl->n_loads += count_loads(value);
	s->value = value;
	ir_block_add(&pl->pre, s);
}

/* e (read with plane_read) with its per-plane parts moved to egg_hN; consumes e */
static struct ir_expr *
plane_hoist(struct planes *pl, struct ir_expr *e)
{
	if (plane_const(pl, e) && (ir_expr_has_load(e) || has_call(e))) {
		char *n = egg_xasprintf("egg_h%u", pl->n_h++);
		pre_let(pl, "const auto", n, e);
		struct ir_expr *l = ir_expr_new(IR_LOCAL, n);
		free(n);
		return l;
	}
	size_t upto = e->n_kids;
	if (e->kind == IR_COND || (e->kind == IR_BIN && (strcmp(e->text, "&&") == 0 || strcmp(e->text, "||") == 0)))
		upto = 1;
	for (size_t i = 0; i < upto; i++)
		e->kids[i] = plane_hoist(pl, e->kids[i]);
	return e;
}

/* a stream's index: i, or inv + i with inv free of i and of loads */
static int
stream_index(const struct ir_expr *ix)
{
	if (ix->kind == IR_IDX)
		return ix->idx == IR_I;
	if (ix->kind != IR_BIN || strcmp(ix->text, "+") != 0)
		return 0;
	for (int k = 0; k < 2; k++)
		if (ix->kids[k]->kind == IR_IDX && ix->kids[k]->idx == IR_I &&
		    !ir_expr_uses_index(ix->kids[1 - k], IR_I) && !ir_expr_has_load(ix->kids[1 - k]))
			return 1;
	return 0;
}

/* every load left per element is a stream */
static int
only_streams(const struct ir_expr *e)
{
	if (e->kind == IR_LOAD && !stream_index(e->kids[0]))
		return 0;
	for (size_t i = 0; i < e->n_kids; i++)
		if (!only_streams(e->kids[i]))
			return 0;
	return 1;
}

static void
planes_release(struct planes *pl)
{
	ir_block_free(&pl->pre);
	ir_block_free(&pl->body);
	free(pl->inv);
}

/* 1 with pl filled when the body is planes of shared gathers, else 0 */
static int
planes_of(const struct ir_program *prog, const struct ir_block *b, struct planes *pl)
{
	*pl = (struct planes){ .prog = prog, .src = b };
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *s = b->stmts[i];
		if (s->kind != IR_LET && s->kind != IR_ASSIGN && s->kind != IR_STORE)
			return 0;
		plane_divisor(pl, s->value);
		plane_divisor(pl, s->index);
	}
	if (pl->bad || !pl->x)
		return 0;
	for (size_t i = 0; i < b->n && !pl->bad; i++) {
		const struct ir_stmt *s = b->stmts[i];
		struct ir_expr *v = plane_read(s->value);
		if (s->kind == IR_LET && !writes(b, IR_ASSIGN, s->name) && plane_const(pl, v)) {
			pre_let(pl, s->type, s->name, v);
			pl->inv = egg_xrealloc(pl->inv, (pl->n_inv + 1) * sizeof *pl->inv);
			pl->inv[pl->n_inv++] = s->name;
			continue;
		}
		struct ir_stmt *c = ir_stmt_new(s->kind);
		c->name = egg_xstrdup(s->name);
		c->type = s->type ? egg_xstrdup(s->type) : NULL;
		c->index = s->index ? plane_read(s->index) : NULL;
		c->value = plane_hoist(pl, v);
		ir_block_add(&pl->body, c);
		if (!only_streams(c->value) || (c->index && !stream_index(c->index)))
			pl->bad = 1;
	}
	if (pl->bad || pl->n_loads == 0) {
		planes_release(pl);
		return 0;
	}
	return 1;
}

static int
emit_planes(struct recipe_job *job, const struct planes *pl, const struct ir_stage *st,
            const struct ir_block *body, size_t pt, const char *lab, const char *sig, struct strbuf *out,
            struct strbuf *why)
{
	struct emit_ctx c = { .prog = job->prog, .var = IR_I, .component = -1 };
	c.index_text[IR_I] = c.index_text[IR_ROW] = c.index_text[IR_COL] = "0";
	c.index_text[IR_I] = "egg_e";
	emit_collect_streams(&c, &pl->body);
	c.vec = recipe_stream_vector(&c, points[pt].vec);
	struct strbuf n = STRBUF_INIT, x = STRBUF_INIT, aligned = STRBUF_INIT, hoist = STRBUF_INIT,
	              decl = STRBUF_INIT, loads = STRBUF_INIT, compute = STRBUF_INIT,
	              pscalar = STRBUF_INIT, scalar = STRBUF_INIT, vs = STRBUF_INIT, us = STRBUF_INIT;
	const char *base = "(egg_o + egg_w * %d)";
	char *basetext = egg_xasprintf(base, c.vec);
	emit_expr(&c, st->n, &n);
	emit_expr(&c, pl->x, &x);
	emit_aligned_test(&c, "0", &aligned);
	emit_block(&c, &pl->pre, "\t\t", &hoist);
	for (size_t i = 0; i < c.n_streams; i++)
		if (!c.streams[i].is_store)
			strbuf_addf(&decl, "\t\t\t\t%s egg_l%zu[%d];\n",
			            emit_vector_type(c.streams[i].elem_type, c.vec), i, points[pt].inflight);
	c.reg_suffix = "[egg_u]";
	emit_stream_loads(&c, basetext, "\t\t\t\t\t\t", &loads);
	emit_components(&c, &pl->body, basetext, "\t\t\t\t\t\t", &compute);
	c.reg_suffix = NULL;
	emit_block(&c, &pl->body, "\t\t\t\t", &pscalar);
	emit_block(&c, body, "\t\t", &scalar);
	strbuf_addf(&vs, "%d", c.vec);
	strbuf_addf(&us, "%d", points[pt].inflight);
	const char *keys[] = { "LABEL", "SIG", "N", "X", "V", "U", "ALIGNED", "HOIST", "LOADDECL",
		               "LOADS", "COMPUTE", "PLANESCALAR", "SCALAR" };
	const char *vals[] = { lab, sig, n.buf, x.buf, vs.buf, us.buf, aligned.buf, hoist.buf,
		               decl.buf, loads.buf, compute.buf, pscalar.buf, scalar.buf };
	int rc = recipe_fill("planes.cu", keys, vals, sizeof keys / sizeof *keys, out, why);
	struct strbuf *bufs[] = { &n, &x, &aligned, &hoist, &decl, &loads, &compute, &pscalar, &scalar, &vs, &us };
	for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
		strbuf_release(bufs[i]);
	free(basetext);
	emit_ctx_release(&c);
	return rc;
}

/* Whether a stage before the head loads a buffer that the fused body loads. */
static int
read_before(const struct ir_program *p, const struct ir_stage *head, const struct ir_block *body)
{
	for (const struct ir_stage *st = p->stages; st < head; st++)
		for (size_t q = 0; q < p->n_params; q++)
			if (p->params[q].is_pointer && ir_block_touches(&st->body, p->params[q].name, 0) &&
			    ir_block_touches(body, p->params[q].name, 0))
				return 1;
	return 0;
}

static int
calls(const struct ir_expr *e, const char *fn)
{
	if (!e)
		return 0;
	if (e->kind == IR_CALL && strcmp(e->text, fn) == 0)
		return 1;
	for (size_t i = 0; i < e->n_kids; i++)
		if (calls(e->kids[i], fn))
			return 1;
	return 0;
}

/* The body calls tanhf and stores only into bf16 or half buffers. */
static int
narrow_tanh(const struct ir_program *p, const struct ir_block *b)
{
	int tanh = 0;
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *s = b->stmts[i];
		const struct ir_param *q = s->kind == IR_STORE ? ir_program_param(p, s->name) : NULL;
		if (s->kind == IR_STORE && (!q || !emit_narrow(q->elem_type)))
			return 0;
		tanh |= calls(s->value, "tanhf");
	}
	return tanh;
}

static int
emit_group(struct recipe_job *job, struct fused *f, const struct ir_stage *st, size_t after,
           size_t pt, struct strbuf *why)
{
	if (points[pt].reverse && (job->prog->is_kernel || !read_before(job->prog, st, &f->body))) {
		strbuf_addstr(why, "the reverse order is for maps that read what an earlier launch read");
		return -1;
	}
	drop_dead_stores(job->prog, after, &f->body);
	if (points[pt].approx && !narrow_tanh(job->prog, &f->body)) {
		strbuf_addstr(why, "the approximate tanh is for maps that call tanhf and store only bf16 or half");
		return -1;
	}
	struct strbuf sig = STRBUF_INIT, lab = STRBUF_INIT;
	label(pt, &lab);
	char *name = NULL;
	if (job->prog->is_kernel) {
		strbuf_addstr(&sig, job->prog->header);
	} else {
		name = recipe_kernel_name(job);
		recipe_kernel_signature(job, name, points[pt].tpb, &sig);
	}
	struct stream_spec sp = { lab.buf, sig.buf, st->n, &f->body, points[pt].vec,
		                  points[pt].inflight, NULL, NULL, IR_I, 0, NULL, points[pt].reverse, NULL,
		                  points[pt].approx };
	struct strbuf *out = job->prog->is_kernel ? job->body : job->device;
	struct planes pl;
	int planes = points[pt].planes && !job->prog->is_kernel && planes_of(job->prog, &f->body, &pl);
	int rc;
	if (planes) {
		rc = emit_planes(job, &pl, st, &f->body, pt, lab.buf, sig.buf, out, why);
		if (rc == 0) {
			struct strbuf units = STRBUF_INIT;
			struct emit_ctx c = { .prog = job->prog, .component = -1 };
			struct strbuf x = STRBUF_INIT;
			emit_expr(&c, pl.x, &x);
			strbuf_addf(&units, "(%s) > 0 ? (long long)(", x.buf);
			emit_expr(&c, st->n, &units);
			strbuf_addf(&units, ") / (%s) : 0", x.buf);
			strbuf_release(&x);
			recipe_host_launch_wave(job, name, units.buf, 1, points[pt].tpb);
			strbuf_release(&units);
		}
		planes_release(&pl);
	} else {
		rc = recipe_stream_kernel(job, &sp, out, why);
	}
	if (rc == 0 && !planes && !job->prog->is_kernel) {
		struct strbuf units = STRBUF_INIT;
		struct emit_ctx c = { .prog = job->prog, .component = -1 };
		strbuf_addch(&units, '(');
		emit_expr(&c, st->n, &units);
		strbuf_addf(&units, ") / %d", recipe_units_vector(job->prog, IR_I, &f->body, points[pt].vec));
		if (points[pt].full)
			recipe_host_launch(job, name, units.buf,
			                   (long)points[pt].tpb * points[pt].inflight, points[pt].tpb, 0);
		else
			recipe_host_launch_wave(job, name, units.buf,
			                        (long)points[pt].tpb * points[pt].inflight, points[pt].tpb);
		strbuf_release(&units);
	}
	free(name);
	strbuf_release(&sig);
	strbuf_release(&lab);
	return rc;
}

static void
fused_reset(struct fused *f)
{
	ir_block_free(&f->body);
	free(f->fwd);
	f->fwd = NULL;
	f->n_fwd = 0;
}

static int
emit(struct recipe_job *job, size_t first, size_t n, size_t pt, struct strbuf *why)
{
	const struct ir_program *p = job->prog;
	struct fused f = { 0 };
	const struct ir_stage *head = &p->stages[first];
	int rc = 0;
	join(&f, head);
	for (size_t i = first + 1; i < first + n && rc == 0; i++) {
		const struct ir_stage *st = &p->stages[i];
		if (recipe_same_extent(st->n, head->n) && joinable(&f, st)) {
			join(&f, st);
			continue;
		}
		rc = emit_group(job, &f, head, i, pt, why);
		fused_reset(&f);
		head = st;
		join(&f, head);
	}
	if (rc == 0)
		rc = emit_group(job, &f, head, first + n, pt, why);
	fused_reset(&f);
	return rc;
}

const struct recipe recipe_elementwise = {
	"elementwise", IR_STAGE_MAP, N_POINTS, label, emit, NULL,
};
