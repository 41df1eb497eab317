/*
 * reduce.c -- the family of full reductions (a sum, max or min of an element-wise
 * expression over everything, accumulated into one buffer element: the naive
 * atomicAdd(out, f(x[i])) kernel).
 *
 * First pass: the streaming pass (templates/stream.cu) keeps a per-thread
 * partial, reduces it across the block with shuffles and shared memory, and
 * either adds the block's result atomically (one atomic per block) or writes it
 * to a per-block partials array that a second one-block pass
 * (templates/reduce_final.cu) folds into the destination -- deterministic, and
 * the only choice for combines without a hardware atomic.
 *
 * The third mode does both passes in one launch: each block writes its partial,
 * fences, and takes a ticket; the block that draws the last one folds the
 * partials into the destination and puts the ticket counter back to zero for
 * the next call.  A launch is several microseconds of a reduction that reads a
 * few tens of megabytes.  In that mode (and only there) a memset of exactly the
 * destination element just before the stage is absorbed: the fold stores its
 * result instead of adding it, zero being the sum's identity.
 *
 * Points: threads per block x vector width x accesses in flight x mode.
 */
#include "config.h"

#include "builtin/recipes/common.h"
#include "common/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PARTS 4096

enum mode { TWO_PASS, ATOMIC, ONE_LAUNCH };
static const char *const mode_name[] = { "two-pass", "atomic", "one-launch" };

static const struct { int tpb, vec, inflight; enum mode mode; } points[] = {
	{ 256, 4, 4, TWO_PASS }, { 512, 4, 2, TWO_PASS }, { 256, 4, 4, ATOMIC }, { 1024, 4, 2, ATOMIC },
	{ 256, 1, 4, TWO_PASS }, { 512, 4, 2, ONE_LAUNCH }, { 256, 4, 4, ONE_LAUNCH },
};
#define N_POINTS (sizeof points / sizeof *points)

static void
label(size_t pt, struct strbuf *out)
{
	strbuf_addf(out, "reduce tpb=%d vec=%d inflight=%d mode=%s", points[pt].tpb, points[pt].vec,
	            points[pt].inflight, mode_name[points[pt].mode]);
}

static int
has_atomic(const struct ir_stmt *acc)
{
	if (acc->combine == IR_PROD)
		return 0; /* no atomic multiply */
	if (acc->combine == IR_SUM)
		return strcmp(acc->type, "float") == 0 || strcmp(acc->type, "double") == 0 ||
		       strcmp(acc->type, "int") == 0 || strcmp(acc->type, "unsigned") == 0;
	return strcmp(acc->type, "int") == 0 || strcmp(acc->type, "unsigned") == 0;
}

/* Whether stage k, at point pt, absorbs the memset at stage k - 1: one launch, a
 * sum, the memset clears exactly the destination element (its bytes written
 * sizeof(type) and its index 0), and the stage never reads the buffer (it would
 * see the value before the memset). */
static int
absorbs(const struct ir_program *p, size_t k, size_t pt)
{
	if (k == 0 || k >= p->n_stages || points[pt].mode != ONE_LAUNCH)
		return 0;
	const struct ir_stage *m = &p->stages[k - 1], *st = &p->stages[k];
	const struct ir_stmt *acc = st->kind == IR_STAGE_REDUCE ? ir_stage_buffer_acc(st) : NULL;
	if (m->kind != IR_STAGE_MEMSET || !acc || acc->combine != IR_SUM || !m->buffer ||
	    strcmp(m->buffer, acc->name) != 0 || acc->index->kind != IR_NUM ||
	    strcmp(acc->index->text, "0") != 0 || ir_block_touches(&st->body, acc->name, 0))
		return 0;
	struct strbuf n = STRBUF_INIT, want = STRBUF_INIT;
	ir_expr_print(m->n, &n);
	strbuf_addf(&want, "sizeof(%s)", acc->type);
	int ok = strcmp(n.buf, want.buf) == 0;
	strbuf_release(&n);
	strbuf_release(&want);
	return ok;
}

/* The one-launch epilogue (templates/reduce_last.cu): the block's partial out,
 * a ticket, and the last block's fold into dest.  0, or -1 with why set. */
static int
emit_last_block(struct recipe_job *job, const struct ir_stmt *acc, const char *p, const char *parts,
                const char *ticket, const char *dest, int tpb, int absorbed, struct strbuf *epi,
                struct strbuf *why)
{
	const unsigned u = job->uniq++;
	struct strbuf pb = STRBUF_INIT, cp = STRBUF_INIT, cd = STRBUF_INIT, red = STRBUF_INIT;
	strbuf_addf(&pb, "((volatile %s *)%s)[egg_b]", acc->type, parts);
	emit_combine(acc, p, pb.buf, &cp);
	if (absorbed)
		strbuf_addstr(&cd, p);
	else
		emit_combine(acc, dest, p, &cd);
	emit_group_reduce(acc, p, tpb, "\t", job->uniq++, &red);
	char *us = egg_xasprintf("%u", u), *ts = egg_xasprintf("%d", tpb);
	const char *keys[] = { "U", "PARTS", "P", "TICKET", "IDENTITY", "TPB", "COMBINE_PART",
		               "REDUCE", "DEST", "COMBINE_DEST" };
	const char *vals[] = { us, parts, p, ticket, emit_identity(acc->combine, acc->type), ts,
		               cp.buf, red.buf, dest, cd.buf };
	int rc = recipe_fill("reduce_last.cu", keys, vals, sizeof keys / sizeof *keys, epi, why);
	free(us);
	free(ts);
	strbuf_release(&pb);
	strbuf_release(&cp);
	strbuf_release(&cd);
	strbuf_release(&red);
	return rc;
}

static int
emit_stage(struct recipe_job *job, size_t k, size_t pt, struct strbuf *why)
{
	const struct ir_stage *st = &job->prog->stages[k];
	const struct ir_stmt *acc = ir_stage_buffer_acc(st);
	if (!acc) {
		strbuf_addstr(why, "a reduction stage with more than one accumulator");
		return -1;
	}
	const int tpb = points[pt].tpb;
	const int atomic = points[pt].mode == ATOMIC && has_atomic(acc);
	const int one = points[pt].mode == ONE_LAUNCH;
	struct emit_ctx c = { .prog = job->prog, .component = -1 };
	c.index_text[IR_I] = c.index_text[IR_ROW] = c.index_text[IR_COL] = "0";
	struct strbuf dest = STRBUF_INIT, pro = STRBUF_INIT, epi = STRBUF_INIT, sig = STRBUF_INIT,
	              lab = STRBUF_INIT, num = STRBUF_INIT, part = STRBUF_INIT;
	strbuf_addf(&dest, "%s[", acc->name);
	emit_expr(&c, acc->index, &dest);
	strbuf_addch(&dest, ']');
	emit_expr(&c, st->n, &num);
	char *name = recipe_kernel_name(job);
	char *parts = egg_xasprintf("%s_parts", name);
	char *p = egg_xasprintf("egg_p_%s", acc->name);
	char *ticket = egg_xasprintf("%s_ticket", name);
	if (!atomic)
		strbuf_addf(job->device, "__device__ %s %s[%d];\n", acc->type, parts, MAX_PARTS);
	if (one)
		strbuf_addf(job->device, "__device__ unsigned %s; /* zero between calls */\n", ticket);
	strbuf_addf(&pro, "\t%s %s = %s;\n", acc->type, p, emit_identity(acc->combine, acc->type));
	emit_group_reduce(acc, p, tpb, "\t", job->uniq++, &epi);
	int rc = 0;
	if (atomic)
		strbuf_addf(&epi, "\tif (threadIdx.x == 0)\n\t\t%s(&%s, %s);\n", emit_atomic_name(acc),
		            dest.buf, p);
	else if (one)
		rc = emit_last_block(job, acc, p, parts, ticket, dest.buf, tpb, absorbs(job->prog, k, pt),
		                     &epi, why);
	else
		strbuf_addf(&epi, "\tif (threadIdx.x == 0)\n\t\t%s[blockIdx.x] = %s;\n", parts, p);
	label(pt, &lab);
	recipe_kernel_signature(job, name, tpb, &sig);
	struct stream_spec sp = { lab.buf, sig.buf, st->n, &st->body, points[pt].vec,
		                  points[pt].inflight, pro.buf, epi.buf, IR_I, 0, NULL, 0, NULL, 0 };
	if (rc == 0)
		rc = recipe_stream_kernel(job, &sp, job->device, why);
	/* host: grid capped at one wave of resident blocks and at the partials' size */
	char *units = egg_xasprintf("(%s) / %d", num.buf, recipe_units_vector(job->prog, IR_I, &st->body, points[pt].vec));
	recipe_host_grid(job, units, (long)tpb * points[pt].inflight, tpb, MAX_PARTS);
	free(units);
	strbuf_addf(job->host, "\t\t%s<<<(unsigned)egg_g, %d>>>(", name, tpb);
	emit_kernel_args(job->prog, job->host);
	strbuf_addstr(job->host, ");\n");
	if (!atomic && !one && rc == 0) {
		char *name2 = recipe_kernel_name(job);
		struct strbuf sig2 = STRBUF_INIT, red = STRBUF_INIT, cp = STRBUF_INIT, cd = STRBUF_INIT,
		              lab2 = STRBUF_INIT, pb = STRBUF_INIT;
		recipe_kernel_signature(job, name2, 1024, &sig2);
		sig2.len--; /* reopen the parameter list */
		strbuf_addstr(&sig2, ", int egg_nparts)");
		emit_group_reduce(acc, p, 1024, "\t", job->uniq++, &red);
		strbuf_addf(&pb, "%s[egg_b]", parts);
		emit_combine(acc, p, pb.buf, &cp);
		emit_combine(acc, dest.buf, p, &cd);
		strbuf_addf(&lab2, "%s, second pass", lab.buf);
		const char *keys[] = { "LABEL", "SIG", "TYPE", "ACC", "IDENTITY", "TPB",
			               "COMBINE_PART", "REDUCE", "DEST", "COMBINE_DEST" };
		const char *vals[] = { lab2.buf, sig2.buf, acc->type, acc->name,
			               emit_identity(acc->combine, acc->type), "1024", cp.buf, red.buf,
			               dest.buf, cd.buf };
		rc = recipe_fill("reduce_final.cu", keys, vals, sizeof keys / sizeof *keys,
		                 job->device, why);
		strbuf_addf(job->host, "\t\t%s<<<1, 1024>>>(", name2);
		emit_kernel_args(job->prog, job->host);
		strbuf_addstr(job->host, ", (int)egg_g);\n");
		free(name2);
		strbuf_release(&sig2);
		strbuf_release(&red);
		strbuf_release(&cp);
		strbuf_release(&cd);
		strbuf_release(&lab2);
		strbuf_release(&pb);
	}
	strbuf_addstr(job->host, "\t}\n");
	free(name);
	free(parts);
	free(ticket);
	free(p);
	strbuf_release(&dest);
	strbuf_release(&pro);
	strbuf_release(&epi);
	strbuf_release(&sig);
	strbuf_release(&lab);
	strbuf_release(&num);
	strbuf_release(&part);
	return rc;
}

static int
emit(struct recipe_job *job, size_t first, size_t n, size_t pt, struct strbuf *why)
{
	if (recipe_needs_launcher(job, "reduce", why))
		return -1;
	for (size_t i = first; i < first + n; i++)
		if (emit_stage(job, i, pt, why) != 0)
			return -1;
	return 0;
}

const struct recipe recipe_reduce = {
	"reduce", IR_STAGE_REDUCE, N_POINTS, label, emit, absorbs,
};
