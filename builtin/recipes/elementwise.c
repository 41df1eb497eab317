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
 * kernel fits per SM, asked at run time), each thread striding over the rest.
 *
 * Points: threads per block x vector width x accesses in flight.
 */
#include "config.h"

#include "builtin/recipes/common.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

static const struct { int tpb, vec, inflight; } points[] = {
	{ 256, 4, 2 }, { 256, 4, 4 }, { 512, 4, 1 }, { 128, 4, 4 }, { 256, 1, 4 }, { 1024, 4, 2 },
	{ 256, 4, 8 }, { 512, 4, 2 },
};
#define N_POINTS (sizeof points / sizeof *points)

static void
label(size_t pt, struct strbuf *out)
{
	strbuf_addf(out, "elementwise tpb=%d vec=%d inflight=%d", points[pt].tpb, points[pt].vec,
	            points[pt].inflight);
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

static int
emit_group(struct recipe_job *job, struct fused *f, const struct ir_stage *st, size_t after,
           size_t pt, struct strbuf *why)
{
	drop_dead_stores(job->prog, after, &f->body);
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
		                  points[pt].inflight, NULL, NULL, IR_I };
	struct strbuf *out = job->prog->is_kernel ? job->body : job->device;
	int rc = recipe_stream_kernel(job, &sp, out, why);
	if (rc == 0 && !job->prog->is_kernel) {
		struct strbuf units = STRBUF_INIT;
		struct emit_ctx c = { .prog = job->prog, .component = -1 };
		strbuf_addch(&units, '(');
		emit_expr(&c, st->n, &units);
		strbuf_addf(&units, ") / %d", points[pt].vec);
		recipe_host_launch_wave(job, name, units.buf, (long)points[pt].tpb * points[pt].inflight,
		                        points[pt].tpb);
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

/* Do two extents count the same elements?  A launch argument computed by the
 * launcher (int n = tokens * hidden) arrives as host text, a kernel's own guard
 * (i < tokens * hidden) as a tree; both are C over the launcher's scalars, so
 * the same text is the same value. */
static int
same_extent(const struct ir_expr *a, const struct ir_expr *b)
{
	if (ir_expr_equal(a, b))
		return 1;
	struct strbuf ta = STRBUF_INIT, tb = STRBUF_INIT;
	ir_expr_print(a, &ta);
	ir_expr_print(b, &tb);
	int same = strcmp(ta.buf, tb.buf) == 0 && !ir_expr_has_load(a) && !ir_expr_has_load(b);
	strbuf_release(&ta);
	strbuf_release(&tb);
	return same;
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
		if (same_extent(st->n, head->n) && joinable(&f, st)) {
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
	"elementwise", IR_STAGE_MAP, N_POINTS, label, emit,
};
