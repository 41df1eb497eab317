/*
 * gemm.c -- the family of dense contractions (IR_STAGE_CONTRACT: matmul, batched
 * matmul, linear layers with their epilogues), in fp32 on the CUDA cores.
 *
 * Two kernels tile the output BM x BN per block with TM x TN outputs per thread
 * in registers and run the lifted epilogue once per output.  templates/gemm.cu
 * steps k by BK through double-buffered shared memory with register prefetch;
 * templates/gemm_async.cu through 3 or 4 stages that cp.async fills (no
 * registers in between: 16-byte copies along a contiguous output dimension,
 * 4-byte ones that transpose a contiguous k), its blocks in bands of tile rows
 * for L2 reuse, its epilogue after a barrier.  The operands' layouts come from
 * their strides: a chunk of 4 elements runs along whichever of (k, the output
 * dimension) has stride 1, copied as 16 bytes when the host finds every base and
 * stride aligned (one template flag, EGG_V), else as bounds-checked scalars.
 * Accumulation is fp32 FMA in k order, from the reference's initial value
 * (gemm.cu) or from 0 with the initial value added at the end (gemm_async.cu).
 * A split k (a convolution's channels and taps) takes gemm.cu only.
 *
 * Points: "auto" (the largest tile that still gives every SM a block, chosen at
 * run time from the sizes), then fixed tiles of both kernels.  Tensor cores only
 * under a precision clause (TF32 wmma, templates/gemm_tf32.cu): fp32 results are
 * what the reference's precision promises otherwise.
 */
#include "config.h"

#include "builtin/recipes/common.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

struct tile {
	int bm, bn, bk, tm, tn;
	int min_blocks; /* __launch_bounds__'s second argument: 2 caps registers at 128 */
	int tf32;       /* TF32 tensor cores, only under precision(...): 1 wmma (8 warps of 64x32),
	                 * 2 mma.sync m16n8k8 with cp.async stages (templates/gemm_mma.cu) */
	int stages;     /* > 0: the cp.async kernel (templates/gemm_async.cu) with that many stages */
};

/* auto picks among the first, third and fourth */
static const struct tile tiles[] = {
	{ .bm = 128, .bn = 128, .bk = 8, .tm = 8, .tn = 8, .min_blocks = 1 },  /* 256 threads: large outputs */
	{ .bm = 128, .bn = 64, .bk = 8, .tm = 8, .tn = 8, .min_blocks = 1 },   /* 128 threads */
	{ .bm = 64, .bn = 64, .bk = 16, .tm = 4, .tn = 4, .min_blocks = 1 },   /* 256 threads: medium */
	{ .bm = 32, .bn = 32, .bk = 16, .tm = 4, .tn = 4, .min_blocks = 1 },   /* 64 threads: small outputs, many blocks */
	{ .bm = 128, .bn = 128, .bk = 8, .tm = 8, .tn = 8, .min_blocks = 2 },  /* two blocks per SM (a few spilled registers) */
	{ .bm = 128, .bn = 128, .bk = 16, .tm = 8, .tn = 8, .min_blocks = 1 }, /* half the barriers, twice the shared memory */
	{ .bm = 128, .bn = 128, .bk = 16, .min_blocks = 1, .tf32 = 1 }, /* TF32 wmma */
	{ .bm = 64, .bn = 128, .bk = 8, .tm = 8, .tn = 8, .min_blocks = 1 },   /* 128 threads: few rows (a convolution's output channels) */
	{ .bm = 64, .bn = 256, .bk = 8, .tm = 8, .tn = 8, .min_blocks = 1 },   /* 256 threads: the same, wider */
	/* cp.async pipelines (not for a split k, whose copies would be gathers);
	 * 8x16 outputs per thread: 128 FMAs to 6 shared reads per k */
	{ .bm = 128, .bn = 128, .bk = 8, .tm = 8, .tn = 8, .min_blocks = 1, .stages = 4 },  /* 8 warps of 32x64 */
	{ .bm = 128, .bn = 128, .bk = 8, .tm = 8, .tn = 16, .min_blocks = 2, .stages = 4 }, /* 4 warps of 64x64, two blocks per SM */
	{ .bm = 128, .bn = 128, .bk = 16, .tm = 8, .tn = 16, .min_blocks = 2, .stages = 3 }, /* the same, half the barriers */
	{ .bm = 128, .bn = 256, .bk = 8, .tm = 8, .tn = 16, .min_blocks = 1, .stages = 3 }, /* 8 warps */
	{ .bm = 128, .bn = 64, .bk = 8, .tm = 8, .tn = 16, .min_blocks = 4, .stages = 4 },  /* 2 warps: narrow outputs (N = 768), more blocks per wave */
	{ .bm = 128, .bn = 64, .bk = 8, .tm = 8, .tn = 8, .min_blocks = 2, .stages = 4 },   /* 4 warps, narrow */
	/* TF32 mma.sync, 8 warps of 2 x 4 */
	{ .bm = 128, .bn = 128, .bk = 16, .min_blocks = 1, .tf32 = 2, .stages = 4 },
	{ .bm = 128, .bn = 256, .bk = 16, .min_blocks = 1, .tf32 = 2, .stages = 3 },
};
#define N_TILES (sizeof tiles / sizeof *tiles)
#define N_POINTS (N_TILES + 1) /* point 0: auto */
#define N_AUTO 4                /* auto picks among tiles[0 .. N_AUTO) */

static int
threads(const struct tile *t)
{
	return t->tf32 ? 256 : (t->bm / t->tm) * (t->bn / t->tn);
}

static void
label(size_t pt, struct strbuf *out)
{
	if (pt == 0) {
		strbuf_addstr(out, "gemm auto tile");
		return;
	}
	const struct tile *t = &tiles[pt - 1];
	if (t->tf32) {
		strbuf_addf(out, "gemm tf32 %s tile=%dx%dx%d tpb=256", t->tf32 == 2 ? "mma" : "wmma", t->bm,
		            t->bn, t->bk);
		if (t->stages)
			strbuf_addf(out, " stages=%d", t->stages);
		return;
	}
	strbuf_addf(out, "gemm %stile=%dx%dx%d thread=%dx%d tpb=%d", t->stages ? "async " : "", t->bm,
	            t->bn, t->bk, t->tm, t->tn, threads(t));
	if (t->stages)
		strbuf_addf(out, " stages=%d", t->stages);
	if (t->min_blocks > 1)
		strbuf_addf(out, " blocks/sm=%d", t->min_blocks);
}

static int
is_one(const struct ir_expr *e)
{
	return e && e->kind == IR_NUM && strcmp(e->text, "1") == 0;
}

static void
text_of(const struct emit_ctx *c, const struct ir_expr *e, struct strbuf *out)
{
	if (e)
		emit_expr(c, e, out);
	else
		strbuf_addch(out, '0');
}

/* "buf + off is 16-byte aligned and the strides other than the contiguous one are
 * multiples of 4" (C text), or "false" when no stride is 1. */
static void
aligned_test(const struct emit_ctx *c, const struct ir_operand *o, struct strbuf *out)
{
	const struct ir_expr *other = is_one(o->inner) ? o->outer : is_one(o->outer) ? o->inner : NULL;
	if (o->split) { /* read as scalars: no condition on the other operand */
		strbuf_addstr(out, "true");
		return;
	}
	if (!is_one(o->inner) && !is_one(o->outer)) {
		strbuf_addstr(out, "false");
		return;
	}
	strbuf_addf(out, "((unsigned long long)(%s + (", o->buffer);
	text_of(c, o->off, out);
	strbuf_addstr(out, ")) % 16 == 0 && (long long)(");
	text_of(c, other, out);
	strbuf_addstr(out, ") % 4 == 0 && (long long)(");
	text_of(c, o->batch_stride, out);
	strbuf_addstr(out, ") % 4 == 0");
	strbuf_addch(out, ')');
}

/* Whether an operand's chunks of 4 run along k: when k is contiguous, else along
 * the output dimension; a split operand's k is never contiguous across a chunk. */
static int
along_k(const struct ir_operand *o)
{
	return o->split ? !is_one(o->outer) : is_one(o->inner) || !is_one(o->outer);
}

/* The cp.async kernel's dynamic shared memory: its stages of both operands,
 * each k-major (BK x (BO + 4)) as gemm_async.cu lays them out. */
static long
shared_bytes(const struct tile *t)
{
	long pad = t->tf32 ? 8 : 4; /* gemm_mma.cu's rows are 8 longer: its fragments' banks */
	return t->stages * (t->bk * (t->bm + pad) + t->bk * (t->bn + pad)) * (long)sizeof(float);
}

/* The operand's stride in k: a number, or for a split operand the helper that
 * computes (k / kin) * kouter + (k % kin) * inner (templates/gemm_split.cu), kin a
 * template argument when it is a constant. */
static void
k_stride(const struct emit_ctx *c, const struct ir_contract *k, const struct ir_operand *o,
         struct strbuf *out)
{
	if (!o->split) {
		text_of(c, o->inner, out);
		return;
	}
	int constant = k->kin->kind == IR_NUM && strspn(k->kin->text, "0123456789") == strlen(k->kin->text) &&
	               strlen(k->kin->text) < 6;
	strbuf_addf(out, "egg_ksplit_make<%s>(", constant ? k->kin->text : "0");
	text_of(c, k->kin, out);
	strbuf_addstr(out, ", ");
	text_of(c, o->kouter, out);
	strbuf_addstr(out, ", ");
	text_of(c, o->inner, out);
	strbuf_addch(out, ')');
}

static int
emit_kernel(struct recipe_job *job, const struct ir_stage *st, const struct tile *t,
            const char *name, struct strbuf *why)
{
	const struct ir_contract *k = st->contract;
	struct emit_ctx c = { .prog = job->prog, .component = -1 };
	c.index_text[IR_I] = "egg_b";
	c.index_text[IR_ROW] = "egg_row";
	c.index_text[IR_COL] = "egg_col";
	enum { M, N, K, BATCH, AOFF, ASB, SAM, SAK, BOFF, BSB, SBN, SBK, INIT, EPI, SIG, LAB,
	       BM, BN, BK, TM, TN, NT, ST, NBUF };
	struct strbuf b[NBUF];
	for (int i = 0; i < NBUF; i++)
		strbuf_init(&b[i]);
	text_of(&c, k->m, &b[M]);
	text_of(&c, k->n, &b[N]);
	text_of(&c, k->k, &b[K]);
	if (k->batch)
		emit_expr(&c, k->batch, &b[BATCH]);
	else
		strbuf_addch(&b[BATCH], '1');
	text_of(&c, k->a.off, &b[AOFF]);
	text_of(&c, k->a.batch_stride, &b[ASB]);
	text_of(&c, k->a.outer, &b[SAM]);
	k_stride(&c, k, &k->a, &b[SAK]);
	text_of(&c, k->b.off, &b[BOFF]);
	text_of(&c, k->b.batch_stride, &b[BSB]);
	text_of(&c, k->b.outer, &b[SBN]);
	k_stride(&c, k, &k->b, &b[SBK]);
	emit_expr(&c, k->init, &b[INIT]);
	emit_block(&c, &st->body, "\t\t\t\t\t", &b[EPI]);
	strbuf_addf(&b[SIG], "__global__ void __launch_bounds__(%d, %d) %s(", threads(t), t->min_blocks,
	            name);
	emit_kernel_params(job->prog, &b[SIG]);
	strbuf_addch(&b[SIG], ')');
	if (t->tf32)
		strbuf_addf(&b[LAB], "gemm tf32 %stile=%dx%dx%d", t->tf32 == 2 ? "mma " : "", t->bm, t->bn, t->bk);
	else
		strbuf_addf(&b[LAB], "gemm %stile=%dx%dx%d thread=%dx%d", t->stages ? "async " : "", t->bm, t->bn,
		            t->bk, t->tm, t->tn);
	strbuf_addf(&b[BM], "%d", t->bm);
	strbuf_addf(&b[BN], "%d", t->bn);
	strbuf_addf(&b[BK], "%d", t->bk);
	strbuf_addf(&b[TM], "%d", t->tm);
	strbuf_addf(&b[TN], "%d", t->tn);
	strbuf_addf(&b[NT], "%d", threads(t));
	strbuf_addf(&b[ST], "%d", t->stages);
	/* chunks run along k when k is contiguous, else along the output dimension */
	int ak = along_k(&k->a), bk = along_k(&k->b);
	int avec = !k->a.split && (is_one(k->a.inner) || is_one(k->a.outer));
	int bvec = !k->b.split && (is_one(k->b.inner) || is_one(k->b.outer));
	const char *keys[] = { "LABEL", "SIG", "BM", "BN", "BK", "TM", "TN", "NT", "M", "N", "K",
		               "BATCH", "A", "AOFF", "ASB", "B", "BOFF", "BSB", "SAM", "SAK", "SBN",
		               "SBK", "AK", "BKC", "AVEC", "BVEC", "INIT", "TYPE", "ACC", "EPILOGUE",
		               "ST", "GROUP", "KNAME" };
	const char *vals[] = { b[LAB].buf, b[SIG].buf, b[BM].buf, b[BN].buf, b[BK].buf, b[TM].buf,
		               b[TN].buf, b[NT].buf, b[M].buf, b[N].buf, b[K].buf, b[BATCH].buf,
		               k->a.buffer, b[AOFF].buf, b[ASB].buf, k->b.buffer, b[BOFF].buf,
		               b[BSB].buf, b[SAM].buf, b[SAK].buf, b[SBN].buf, b[SBK].buf,
		               ak ? "true" : "false", bk ? "true" : "false", avec ? "true" : "false",
		               bvec ? "true" : "false", b[INIT].buf, k->acc_type, k->acc, b[EPI].buf,
		               b[ST].buf, "8", name };
	int rc = recipe_fill("gemm_helpers.cu", NULL, NULL, 0, job->device, why);
	if (rc == 0 && (k->a.split || k->b.split))
		rc = recipe_fill("gemm_split.cu", NULL, NULL, 0, job->device, why);
	if (rc == 0 && t->stages)
		rc = recipe_fill("gemm_async_helpers.cu", NULL, NULL, 0, job->device, why);
	if (rc == 0)
		rc = recipe_fill(t->tf32 == 2 ? "gemm_mma.cu" : t->tf32 ? "gemm_tf32.cu" :
		                 t->stages ? "gemm_async.cu" : "gemm.cu",
		                 keys, vals, sizeof keys / sizeof *keys, job->device, why);
	for (int i = 0; i < NBUF; i++)
		strbuf_release(&b[i]);
	return rc;
}

/* The launch of name over the output's tiles, egg_v choosing the instance;
 * bytes of dynamic shared memory (the cp.async kernel), past the default 48 KiB
 * allowed first. */
static void
host_launch(struct recipe_job *job, const char *name, const struct tile *t, long bytes,
            const char *indent)
{
	struct strbuf *h = job->host;
	for (int v = 1; v >= 0; v--) {
		strbuf_addf(h, "%s%s {\n", indent, v ? "if (egg_v)" : "} else");
		if (bytes > 48 * 1024)
			strbuf_addf(h, "%s\t(void)cudaFuncSetAttribute(%s<%s>, "
			               "cudaFuncAttributeMaxDynamicSharedMemorySize, %ld);\n",
			            indent, name, v ? "true" : "false", bytes);
		strbuf_addf(h, "%s\t%s<%s><<<dim3((unsigned)(((egg_m + %d) / %d) * ((egg_n + %d) / %d)), "
		               "egg_gy), %d",
		            indent, name, v ? "true" : "false", t->bm - 1, t->bm, t->bn - 1, t->bn, threads(t));
		if (bytes > 0)
			strbuf_addf(h, ", %ld", bytes);
		strbuf_addstr(h, ">>>(");
		emit_kernel_args(job->prog, h);
		strbuf_addstr(h, ");\n");
	}
	strbuf_addf(h, "%s}\n", indent);
}

static int
emit_stage(struct recipe_job *job, const struct ir_stage *st, size_t pt, struct strbuf *why)
{
	const struct ir_contract *k = st->contract;
	if (strcmp(k->acc_type, "float") != 0) {
		strbuf_addf(why, "the gemm recipe is fp32 only (the accumulator is %s)", k->acc_type);
		return -1;
	}
	const char *ops[] = { k->a.buffer, k->b.buffer };
	for (int i = 0; i < 2; i++) {
		const struct ir_param *p = ir_program_param(job->prog, ops[i]);
		if (!p || strcmp(p->elem_type, "float") != 0) {
			strbuf_addf(why, "the gemm recipe is fp32 only (operand %s)", ops[i]);
			return -1;
		}
	}
	if (pt > 0 && tiles[pt - 1].stages && (k->a.split || k->b.split)) {
		strbuf_addstr(why, "the cp.async kernels copy chunks of an operand, and a split k gathers them element by element");
		return -1;
	}
	if (pt > 0 && tiles[pt - 1].tf32 && job->prog->precision == 0) {
		strbuf_addstr(why, "TF32 tensor cores need a precision(tf32) clause (or a lower one)");
		return -1;
	}
	size_t first = pt == 0 ? 0 : pt - 1, last = pt == 0 ? N_AUTO : pt;
	char *names[N_TILES] = { 0 };
	int rc = 0;
	for (size_t i = first; i < last && rc == 0; i++) {
		if (pt == 0 && i == 1)
			continue; /* auto: 128x128, 64x64, 32x32 */
		names[i] = recipe_kernel_name(job);
		rc = emit_kernel(job, st, &tiles[i], names[i], why);
	}
	struct emit_ctx c = { .prog = job->prog, .component = -1 };
	c.index_text[IR_I] = c.index_text[IR_ROW] = c.index_text[IR_COL] = "0";
	struct strbuf *h = job->host;
	strbuf_addstr(h, "\t{\n\t\tconst long long egg_m = ");
	emit_expr(&c, k->m, h);
	strbuf_addstr(h, ", egg_n = ");
	emit_expr(&c, k->n, h);
	strbuf_addstr(h, ", egg_nb = ");
	if (k->batch)
		emit_expr(&c, k->batch, h);
	else
		strbuf_addch(h, '1');
	strbuf_addstr(h, ";\n\t\tconst bool egg_v = ");
	aligned_test(&c, &k->a, h);
	strbuf_addstr(h, " && ");
	aligned_test(&c, &k->b, h);
	strbuf_addstr(h, ";\n\t\tconst unsigned egg_gy = (unsigned)(egg_nb < 65535 ? egg_nb : 65535);\n"
	                 "\t\tif (egg_m > 0 && egg_n > 0 && egg_nb > 0) {\n");
	if (pt != 0) {
		host_launch(job, names[first], &tiles[first],
		            tiles[first].stages ? shared_bytes(&tiles[first]) : 0, "\t\t\t");
	} else {
		/* the largest tile whose blocks still cover every SM once */
		strbuf_addstr(h, "\t\t\tconst long long egg_sms = egg_builtin_sm_count();\n");
		int opened = 0;
		for (size_t i = 0; i < N_AUTO; i++) {
			if (!names[i])
				continue;
			if (i + 1 < N_AUTO)
				strbuf_addf(h, "\t\t\t%sif (((egg_m + %d) / %d) * ((egg_n + %d) / %d) * egg_nb >= egg_sms) {\n",
				            opened ? "} else " : "", tiles[i].bm - 1, tiles[i].bm, tiles[i].bn - 1,
				            tiles[i].bn);
			else
				strbuf_addstr(h, "\t\t\t} else {\n");
			opened = 1;
			host_launch(job, names[i], &tiles[i], 0, "\t\t\t\t");
		}
		strbuf_addstr(h, "\t\t\t}\n");
	}
	strbuf_addstr(h, "\t\t}\n\t}\n");
	for (size_t i = 0; i < N_TILES; i++)
		free(names[i]);
	return rc;
}

static int
emit(struct recipe_job *job, size_t first, size_t n, size_t pt, struct strbuf *why)
{
	if (recipe_needs_launcher(job, "gemm", why))
		return -1;
	for (size_t i = first; i < first + n; i++)
		if (emit_stage(job, &job->prog->stages[i], pt, why) != 0)
			return -1;
	return 0;
}

const struct recipe recipe_gemm = {
	"gemm", IR_STAGE_CONTRACT, N_POINTS, label, emit, NULL,
};
