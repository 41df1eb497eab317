/*
 * scatter.c -- the family of histograms and scatters: atomics into elements of a
 * buffer whose index is computed from the data (atomicAdd(&bins[keys[i]], 1)).
 * Every thread of the reference hits the same few addresses in global memory;
 * here each block keeps private copies of the destination in shared memory.
 *
 * One kernel, a grid-stride streaming pass on one wave of resident blocks
 * (templates/stream.cu, vectorized loads of the streamed inputs):
 *   - the block clears egg_copies copies of the destination's egg_ext elements
 *     (dynamic shared memory) to the combine's identity;
 *   - each element's atomic goes to its warp's copy (warp % egg_copies: several
 *     copies cut the contention when there are few bins) when the index is in
 *     [0, egg_ext), else to the buffer itself, as the reference does;
 *   - the block folds its copies and adds each element that moved into the
 *     buffer with one global atomic.
 * Lane copies, the other layout: egg_copies (a power of two up to 32) copies per
 * block, shared by its warps, copy g taken by lanes [g*k, g*k + k) of every warp
 * (k = 32 / egg_copies) and stored in banks [g*k, g*k + k) only: element x of
 * copy g is word (x / k) * 32 + g * k + x % k.  Lanes of different copies never
 * meet in a bank, so a warp's 32 random indices cost about one shared-memory
 * access with 32 copies instead of three or four (the bank conflicts of one
 * copy).  It matters most for a float sum, whose shared atomic is a
 * compare-and-swap loop on sm_90 (a load and a CAS, each paying the conflicts):
 * 2^25 weights into 1000 bins take 0.091 ms with a copy per warp and 0.071 with
 * 16 lane copies on 1024 threads (bench/probes/lane_copies.cu, H200).  The fold
 * reads copy (r + c) % egg_copies at step c, r from the element's row of words,
 * so that a warp's 32 elements read 32 banks.
 * The host sizes the copies from the destination's extent (the bundle's, in the
 * target's names): as many as the point asks for that fit in the device's
 * shared memory per block (opting in beyond 48 KB); when not even one fits, the
 * same kernel runs with egg_ext = 0, every atomic going to global memory.
 *
 * Combines with a shared-memory atomic: sums of int, unsigned, unsigned long
 * long and float (a float sum's order changes), max and min of int and unsigned.
 *
 * Points: threads per block x copies (one, one per warp, or lane copies) x vector width.
 */
#include "config.h"

#include "builtin/recipes/common.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

/* lanes: 0, a copy per warp (per_warp) or one; else that many lane copies */
static const struct { int tpb, per_warp, vec, inflight, lanes; } points[] = {
	{ 512, 1, 4, 2, 0 },   { 256, 1, 4, 2, 0 },   { 1024, 1, 4, 2, 0 },  { 512, 0, 4, 2, 0 },
	{ 256, 0, 4, 2, 0 },   { 1024, 0, 4, 2, 0 },  { 512, 1, 1, 4, 0 },   { 256, 1, 1, 4, 0 },
	{ 1024, 0, 4, 2, 16 }, { 512, 0, 4, 2, 16 },  { 1024, 0, 4, 2, 32 },
};
#define N_POINTS (sizeof points / sizeof *points)

static void
label(size_t pt, struct strbuf *out)
{
	if (points[pt].lanes)
		strbuf_addf(out, "scatter tpb=%d copies=lanes%d vec=%d", points[pt].tpb, points[pt].lanes,
		            points[pt].vec);
	else
		strbuf_addf(out, "scatter tpb=%d copies=%s vec=%d", points[pt].tpb,
		            points[pt].per_warp ? "warp" : "1", points[pt].vec);
}

static int
is_unsigned(const char *t)
{
	return strcmp(t, "unsigned") == 0 || strcmp(t, "unsigned int") == 0;
}

/* The identity of acc's combine when it has a shared-memory atomic, else NULL. */
static const char *
shared_identity(const struct ir_stmt *acc)
{
	const char *t = acc->type;
	if (acc->combine == IR_SUM)
		return strcmp(t, "int") == 0 || is_unsigned(t) || strcmp(t, "unsigned long long") == 0 ||
		                       strcmp(t, "float") == 0 ? "0" : NULL;
	if (strcmp(t, "int") == 0)
		return emit_identity(acc->combine, t);
	if (is_unsigned(t))
		return acc->combine == IR_MAX ? "0u" : "0xffffffffu";
	return NULL;
}

/* The lane copies' C text: the words they take, and element egg_x's word in a
 * lane's copy (egg_k banks per copy, egg_ks its log2). */
#define LANE_WORDS "(((egg_ext + egg_k - 1) >> egg_ks) << 5)"
#define LANE_SLOT "((egg_x >> egg_ks) << 5) + (egg_x & (egg_k - 1))"

static void
prologue(const char *type, const char *ident, int tpb, int lanes, unsigned uniq, struct strbuf *out)
{
	strbuf_addf(out, "\textern __shared__ __align__(16) unsigned char egg_smem%u[];\n"
	                 "\t%s *const egg_h = reinterpret_cast<%s *>(egg_smem%u);\n",
	            uniq, type, type, uniq);
	if (lanes)
		strbuf_addf(out, "\tconst int egg_k = 32 / egg_copies;\n"
		                 "\tint egg_ks = 0;\n"
		                 "\twhile ((1 << egg_ks) < egg_k)\n"
		                 "\t\tegg_ks++;\n"
		                 "\tfor (long long egg_j = threadIdx.x; egg_j < " LANE_WORDS "; egg_j += %d)\n"
		                 "\t\tegg_h[egg_j] = %s;\n"
		                 "\t__syncthreads();\n"
		                 "\t%s *const egg_mine = egg_h + (long long)(((threadIdx.x & 31) >> egg_ks) * egg_k);\n",
		            tpb, ident, type);
	else
		strbuf_addf(out, "\tfor (long long egg_j = threadIdx.x; egg_j < egg_ext * egg_copies; egg_j += %d)\n"
		                 "\t\tegg_h[egg_j] = %s;\n"
		                 "\t__syncthreads();\n"
		                 "\t%s *const egg_mine = egg_h + (long long)((threadIdx.x >> 5) %% egg_copies) * egg_ext;\n",
		            tpb, ident, type);
}

static void
epilogue(const struct ir_stmt *acc, const char *ident, int tpb, int lanes, struct strbuf *out)
{
	struct strbuf comb = STRBUF_INIT;
	emit_combine(acc, "egg_v", lanes ? "egg_h[egg_b + egg_g * egg_k]" : "egg_h[egg_c * egg_ext + egg_j]",
	             &comb);
	strbuf_addf(out, "\t__syncthreads();\n"
	                 "\tfor (long long egg_j = threadIdx.x; egg_j < egg_ext; egg_j += %d) {\n", tpb);
	if (lanes)
		strbuf_addf(out, "\t\tconst long long egg_b = ((egg_j >> egg_ks) << 5) + (egg_j & (egg_k - 1));\n"
		                 "\t\tconst int egg_r = (int)((egg_j >> egg_ks) %% egg_copies);\n"
		                 "\t\t%s egg_v = egg_h[egg_b + egg_r * egg_k];\n"
		                 "\t\tfor (int egg_c = 1; egg_c < egg_copies; egg_c++) {\n"
		                 "\t\t\tconst int egg_g = (egg_r + egg_c) %% egg_copies;\n"
		                 "\t\t\tegg_v = %s;\n"
		                 "\t\t}\n",
		            acc->type, comb.buf);
	else
		strbuf_addf(out, "\t\t%s egg_v = egg_h[egg_j];\n"
		                 "\t\tfor (int egg_c = 1; egg_c < egg_copies; egg_c++)\n"
		                 "\t\t\tegg_v = %s;\n",
		            acc->type, comb.buf);
	strbuf_addf(out, "\t\tif (egg_v != %s)\n"
	                 "\t\t\t%s(&%s[egg_j], egg_v);\n"
	                 "\t}\n",
	            ident, emit_atomic_name(acc), acc->name);
	strbuf_release(&comb);
}

/* The host block: copies that fit, the opt-in, one wave of blocks, the launch. */
static void
host(struct recipe_job *job, const char *name, const struct ir_stmt *acc, const char *extent,
     const char *units, size_t pt)
{
	const int tpb = points[pt].tpb, lanes = points[pt].lanes;
	const long per_block = (long)tpb * points[pt].inflight;
	/* the words egg_copies copies take */
	const char *words = lanes ? "((egg_ext + 32 / egg_copies - 1) / (32 / egg_copies)) * 32"
	                          : "egg_copies * egg_ext";
	struct strbuf *h = job->host;
	strbuf_addf(h, "\t{\n\t\tstatic int egg_smax = 0;\n\t\tif (egg_smax <= 0) {\n"
	               "\t\t\tint egg_dev = 0;\n\t\t\tcudaGetDevice(&egg_dev);\n"
	               "\t\t\tif (cudaDeviceGetAttribute(&egg_smax, cudaDevAttrMaxSharedMemoryPerBlockOptin, egg_dev) != cudaSuccess || egg_smax <= 0)\n"
	               "\t\t\t\tegg_smax = 48 * 1024;\n\t\t}\n"
	               "\t\tconst long long egg_e = (long long)(%s);\n"
	               "\t\tlong long egg_ext = egg_e > 0 ? egg_e : 0;\n"
	               "\t\tconst long long egg_sz = (long long)sizeof(%s);\n"
	               "\t\tint egg_copies = %d;\n"
	               "\t\twhile (egg_copies > 1 && %s * egg_sz > egg_smax)\n"
	               "\t\t\tegg_copies >>= 1;\n"
	               "\t\tif (%s * egg_sz > egg_smax)\n"
	               "\t\t\tegg_ext = 0; /* not even one copy fits: every atomic to global memory */\n"
	               "\t\tconst size_t egg_bytes = (size_t)(%s * egg_sz);\n"
	               "\t\tstatic size_t egg_optin = 0;\n"
	               "\t\tif (egg_bytes > 48 * 1024 && egg_bytes > egg_optin) {\n"
	               "\t\t\tcudaFuncSetAttribute(%s, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)egg_bytes);\n"
	               "\t\t\tegg_optin = egg_bytes;\n\t\t}\n"
	               "\t\tstatic int egg_occ = 0;\n\t\tstatic size_t egg_occ_bytes = 0;\n"
	               "\t\tif (egg_occ <= 0 || egg_occ_bytes != egg_bytes) {\n"
	               "\t\t\tif (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&egg_occ, %s, %d, egg_bytes) != cudaSuccess || egg_occ <= 0)\n"
	               "\t\t\t\tegg_occ = 1;\n\t\t\tegg_occ_bytes = egg_bytes;\n\t\t}\n"
	               "\t\tlong long egg_g = ((long long)(%s) + %ld - 1) / %ld;\n"
	               "\t\tconst long long egg_cap = (long long)egg_builtin_sm_count() * egg_occ;\n"
	               "\t\tif (egg_g > egg_cap)\n\t\t\tegg_g = egg_cap;\n"
	               "\t\tif (egg_g < 1)\n\t\t\tegg_g = 1;\n"
	               "\t\t%s<<<(unsigned)egg_g, %d, egg_bytes>>>(",
	            extent, acc->type, lanes ? lanes : points[pt].per_warp ? tpb / 32 : 1, words, words, words,
	            name, name, tpb, units,
	            per_block, per_block, name, tpb);
	emit_kernel_args(job->prog, h);
	strbuf_addstr(h, ", egg_ext, egg_copies);\n\t}\n");
}

static int
emit_stage(struct recipe_job *job, const struct ir_stage *st, size_t pt, struct strbuf *why)
{
	const struct ir_stmt *acc = ir_stage_buffer_acc(st);
	const struct ir_param *dst = acc ? ir_program_param(job->prog, acc->name) : NULL;
	if (!dst || !dst->extent) {
		strbuf_addstr(why, "a scatter without one destination of known extent");
		return -1;
	}
	const char *ident = shared_identity(acc);
	if (!ident) {
		strbuf_addf(why, "a scatter whose %s of %s has no shared-memory atomic",
		            acc->combine == IR_SUM ? "sum" : acc->combine == IR_MAX ? "max" : "min",
		            acc->type);
		return -1;
	}
	const int tpb = points[pt].tpb;
	char *name = recipe_kernel_name(job);
	struct strbuf sig = STRBUF_INIT, lab = STRBUF_INIT, pro = STRBUF_INIT, epi = STRBUF_INIT,
	              num = STRBUF_INIT;
	recipe_kernel_signature(job, name, tpb, &sig);
	sig.len--; /* reopen the parameter list */
	strbuf_addstr(&sig, ", long long egg_ext, int egg_copies)");
	label(pt, &lab);
	prologue(acc->type, ident, tpb, points[pt].lanes, job->uniq++, &pro);
	epilogue(acc, ident, tpb, points[pt].lanes, &epi);
	struct stream_spec sp = { lab.buf, sig.buf, st->n, &st->body, points[pt].vec,
		                  points[pt].inflight, pro.buf, epi.buf, IR_I, 1, "egg_mine", 0,
		                  points[pt].lanes ? LANE_SLOT : NULL, 0 };
	int rc = recipe_stream_kernel(job, &sp, job->device, why);
	struct emit_ctx c = { .prog = job->prog, .component = -1 };
	emit_expr(&c, st->n, &num);
	char *units = egg_xasprintf("(%s) / %d", num.buf, recipe_units_vector(job->prog, IR_I, &st->body, points[pt].vec));
	host(job, name, acc, dst->extent, units, pt);
	free(units);
	free(name);
	strbuf_release(&sig);
	strbuf_release(&lab);
	strbuf_release(&pro);
	strbuf_release(&epi);
	strbuf_release(&num);
	return rc;
}

static int
emit(struct recipe_job *job, size_t first, size_t n, size_t pt, struct strbuf *why)
{
	if (recipe_needs_launcher(job, "scatter", why))
		return -1;
	for (size_t i = first; i < first + n; i++)
		if (emit_stage(job, &job->prog->stages[i], pt, why) != 0)
			return -1;
	return 0;
}

const struct recipe recipe_scatter = {
	"scatter", IR_STAGE_SCATTER, N_POINTS, label, emit, NULL,
};
