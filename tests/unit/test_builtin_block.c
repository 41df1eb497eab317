/*
 * test_builtin_block.c -- a block per row whose threads reduce through shared
 * memory (lift_block.c), lifted as the one-thread-per-row program it computes:
 * the three tree forms (halving, folding the upper half, interleaved pairs),
 * sums and maxima, the result read by every thread, thread 0's store, the warp
 * shuffle form; and the near misses that must keep the reference, each with its
 * reason.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "builtin/builtin.h"
#include "builtin/lift/fuse.h"
#include "common/util.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/builtin_helpers.h"

/* A row softmax with a block per row.  The knobs are replaced in the text:
 * the shared array, the max's start, the barrier after each fill, the two
 * trees (OP and SLOT stand for the combine and the partner's offset), the
 * barrier between the max's read and the sum's fill, the sum's start, and the
 * launch's block. */
struct knobs {
	const char *shared, *mstart, *fillsync, *treemax, *readmax, *readsync, *sstart, *treesum, *block;
};

static const char softmax_text[] =
	"#define BS 256\n"
	"__global__ void k(const float *in, float *out, int cols) {\n"
	"  SHARED\n"
	"  const float *x = in + (size_t)blockIdx.x * cols;\n"
	"  int tid = threadIdx.x;\n"
	"  float m = MSTART;\n"
	"  for (int j = tid; j < cols; j += blockDim.x) m = fmaxf(m, x[j]);\n"
	"  red[tid] = m;\n  FILLSYNC\n"
	"  TREEMAX\n"
	"  READMAX\n  READSYNC\n"
	"  float s = SSTART;\n"
	"  for (int j = tid; j < cols; j += blockDim.x) s += expf(x[j] - m);\n"
	"  red[tid] = s;\n  __syncthreads();\n"
	"  TREESUM\n"
	"  float sum = red[0];\n"
	"  for (int j = tid; j < cols; j += blockDim.x) out[(size_t)blockIdx.x * cols + j] = expf(x[j] - m) / sum;\n"
	"}\n";

static const char halving[] =
	"for (int h = blockDim.x / 2; h > 0; h >>= 1) { if (tid < h) STEP; __syncthreads(); }";
static const char folding[] =
	"for (int n = blockDim.x; n > 1;) { int half = (n + 1) / 2; if (tid < n - half) STEP; __syncthreads(); n = half; }";
static const char pairs[] =
	"for (int h = 1; h < blockDim.x; h *= 2) { if (tid % (2 * h) == 0 && tid + h < blockDim.x) STEP; __syncthreads(); }";

/* text with every KEY replaced by its value (owned) */
static char *
replace(const char *text, const char *const *kv)
{
	char *s = egg_xstrdup(text);
	for (size_t i = 0; kv[i]; i += 2) {
		const char *at;
		while ((at = strstr(s, kv[i]))) {
			char *n = egg_xasprintf("%.*s%s%s", (int)(at - s), s, kv[i + 1], at + strlen(kv[i]));
			free(s);
			s = n;
		}
	}
	return s;
}

/* a tree form with its step for the operator ("fmaxf" or "+") */
static char *
tree(const char *form, const char *op)
{
	const char *partner = strstr(form, "half") ? "half" : "h";
	char *step = strcmp(op, "+") == 0 ? egg_xasprintf("red[tid] += red[tid + %s]", partner)
	                                  : egg_xasprintf("red[tid] = %s(red[tid], red[tid + %s])", op, partner);
	const char *kv[] = { "STEP", step, NULL };
	char *t = replace(form, kv);
	free(step);
	return t;
}

static struct knobs
softmax_knobs(const char *form)
{
	(void)form;
	return (struct knobs){ .shared = "extern __shared__ float red[];", .mstart = "-INFINITY",
		               .fillsync = "__syncthreads();", .readmax = "m = red[0];",
		               .readsync = "__syncthreads();", .sstart = "0.0f", .block = "bs" };
}

static char *
softmax_describe(const struct knobs *k, const char *form)
{
	char *tmax = k->treemax ? egg_xstrdup(k->treemax) : tree(form, "fmaxf");
	char *tsum = k->treesum ? egg_xstrdup(k->treesum) : tree(form, "+");
	const char *kv[] = { "SHARED", k->shared, "MSTART", k->mstart, "FILLSYNC", k->fillsync,
		             "TREEMAX", tmax, "READMAX", k->readmax, "READSYNC", k->readsync,
		             "SSTART", k->sstart, "TREESUM", tsum, NULL };
	char *closure = replace(softmax_text, kv);
	char *target = egg_xasprintf("void sm(const float *in, float *out, int rows, int cols, int bs) {\n"
	                             "  k<<<rows, %s, %s * sizeof(float)>>>(in, out, cols);\n}\n",
	                             k->block, k->block);
	char *d = describe(make_bundle(BUNDLE_LAUNCHER, "sm",
	                               "const float *in:in, float *out:out, int rows:scalar, int cols:scalar, int bs:scalar",
	                               closure, target));
	free(tmax);
	free(tsum);
	free(closure);
	free(target);
	return d;
}

static const char softmax_rows[] =
	"launcher sm\n"
	"stage 0 rows kernel=k n=rows\n"
	"  let float m_0 = (-INFINITY)\n"
	"  loop col < cols\n"
	"    acc max m_0 <- in[((((size_t)row) * cols) + col)]\n"
	"  let float s_0 = 0.0f\n"
	"  loop col < cols\n"
	"    acc sum s_0 <- expf((in[((((size_t)row) * cols) + col)] - m_0))\n"
	"  let float sum_0 = s_0\n"
	"  loop col < cols\n"
	"    let float st0_0 = (expf((in[((((size_t)row) * cols) + col)] - m_0)) / sum_0)\n"
	"    store out[((((size_t)row) * cols) + col)] = st0_0\n";

static void
block_per_row_softmaxes_in_each_tree_form_lift_as_one_row_program(void **state)
{
	(void)state;
	const char *forms[] = { folding, pairs, halving };
	for (size_t i = 0; i < 3; i++) {
		struct knobs k = softmax_knobs(forms[i]);
		if (forms[i] == halving) /* a power of two: a literal block, a static array */
			k.block = "BS", k.shared = "__shared__ float red[BS];";
		char *d = softmax_describe(&k, forms[i]);
		assert_string_equal(d, softmax_rows);
		free(d);
	}
}

static void
block_reductions_not_proved_to_reduce_the_row_keep_the_reference(void **state)
{
	(void)state;
	struct {
		const char *form;
		struct knobs k;
		const char *why;
	} near[] = {
		{ folding, { .readsync = "" }, /* threads still read red[0] while the sum fills it */
		  "'red' is filled again before a barrier after its last use" },
		{ folding, { .fillsync = "" }, /* the tree starts before every slot is filled */
		  "a tree over 'red' without a barrier after its slots were filled" },
		{ halving, { .block = "bs" }, /* halving adds every slot only for a power of two */
		  "a tree halving from blockDim.x / 2 adds every slot only for a power-of-two block" },
		{ folding, { .sstart = "1.0f" }, /* each thread's start would be added */
		  "'s' sums a strided loop's columns from a start that is not zero" },
		{ folding, { .readmax = "if (threadIdx.x == 0) m = red[0];" }, /* the others keep their partial */
		  "thread 0 assigns 'm', which the block's other threads would not see" },
		{ folding, { .readmax = "m = m * 2.0f;" }, /* the partial read as if it were the row's */
		  "a statement every thread runs reads 'm', which differs between them" },
		{ pairs, { .treemax = "for (int h = 1; h < blockDim.x; h *= 2) { if (tid % (2 * h) == 0 && tid + h < blockDim.x) "
		                      "red[tid] += red[tid + h]; __syncthreads(); }" }, /* maxima added */
		  "a tree that combines 'm' with another operator than its loop's" },
		{ folding, { .readmax = "m = red[1];" }, /* another slot */
		  "'red' is read at another element than [0], the reduction's result" },
		{ folding, { .shared = "extern __shared__ float red[]; __shared__ float other[4];" },
		  "two shared arrays ('red', 'other')" },
	};
	for (size_t i = 0; i < sizeof near / sizeof *near; i++) {
		struct knobs k = softmax_knobs(near[i].form), *n = &near[i].k;
		if (near[i].form == halving)
			k.shared = "__shared__ float red[BS];";
		/* the knobs the case sets, over the softmax's */
		const char **dst[] = { &k.shared, &k.mstart, &k.fillsync, &k.treemax, &k.readmax, &k.readsync,
			               &k.sstart, &k.treesum, &k.block };
		const char *const *src[] = { &n->shared, &n->mstart, &n->fillsync, &n->treemax, &n->readmax,
			                     &n->readsync, &n->sstart, &n->treesum, &n->block };
		for (size_t j = 0; j < sizeof dst / sizeof *dst; j++)
			if (*src[j])
				*dst[j] = *src[j];
		char *d = softmax_describe(&k, near[i].form);
		char *want = egg_xasprintf("not lifted: a block-per-row reduction in shared memory: %s", near[i].why);
		if (!strstr(d, want))
			fail_msg("case %zu: %s", i, d);
		free(want);
		free(d);
	}
}

/* The warp form: each warp folds its lanes by shuffles, lane 0 stores the
 * warp's value, thread 0 combines the warps' slots. */
static char *
warp_describe(const char *block, const char *combine_bound)
{
	char *closure = egg_xasprintf(
		"__device__ float warp_sum(float v) {\n"
		"  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xFFFFFFFF, v, o);\n  return v;\n}\n"
		"__global__ void k(const float *in, float *out, int cols) {\n"
		"  __shared__ float sh[32];\n"
		"  int warp = threadIdx.x / 32, lane = threadIdx.x %% 32;\n"
		"  const float *x = in + (size_t)blockIdx.x * cols;\n"
		"  float s = 0.0f;\n"
		"  for (int j = threadIdx.x; j < cols; j += blockDim.x) s += x[j] * x[j];\n"
		"  s = warp_sum(s);\n"
		"  if (lane == 0) sh[warp] = s;\n"
		"  __syncthreads();\n"
		"  if (threadIdx.x == 0) {\n"
		"    float v = sh[0];\n    for (int i = 1; i < %s; i++) v += sh[i];\n    sh[0] = v;\n  }\n"
		"  __syncthreads();\n"
		"  float inv = rsqrtf(sh[0] / cols + 1e-5f);\n"
		"  for (int j = threadIdx.x; j < cols; j += blockDim.x) out[(size_t)blockIdx.x * cols + j] = x[j] * inv;\n"
		"}\n", combine_bound);
	char *target = egg_xasprintf("void rn(const float *in, float *out, int rows, int cols) {\n"
	                             "  k<<<rows, %s>>>(in, out, cols);\n}\n", block);
	char *d = describe(make_bundle(BUNDLE_LAUNCHER, "rn",
	                               "const float *in:in, float *out:out, int rows:scalar, int cols:scalar",
	                               closure, target));
	free(closure);
	free(target);
	return d;
}

static void
warp_shuffle_block_reductions_lift_as_one_row_program(void **state)
{
	(void)state;
	char *d = warp_describe("256", "blockDim.x / 32");
	assert_string_equal(d, "launcher rn\n"
	                       "stage 0 rows kernel=k n=rows\n"
	                       "  let float s_0 = 0.0f\n"
	                       "  loop col < cols\n"
	                       "    acc sum s_0 <- (in[((((size_t)row) * cols) + col)] * in[((((size_t)row) * cols) + col)])\n"
	                       "  let float inv_0 = rsqrtf(((s_0 / cols) + 1e-5f))\n"
	                       "  loop col < cols\n"
	                       "    let float st0_0 = (in[((((size_t)row) * cols) + col)] * inv_0)\n"
	                       "    store out[((((size_t)row) * cols) + col)] = st0_0\n");
	free(d);
	/* a block that is not whole warps, and a combine over fewer slots than warps */
	d = warp_describe("100", "blockDim.x / 32");
	assert_non_null(strstr(d, "not lifted: a block-per-row reduction in shared memory: warp folds over a block "
	                          "that is not a literal multiple of 32"));
	free(d);
	d = warp_describe("256", "4");
	assert_non_null(strstr(d, "not lifted: a block-per-row reduction in shared memory: 'sh[0]' is read before a tree "
	                          "and its barriers made it the block's result"));
	free(d);
}

/* ---- whole chains: launches through temps fused into one pass over the rows ---- */

/* The lifted program after the fusions, described (or "not lifted: WHY"). */
static char *
fused(struct egg_bundle *b)
{
	struct strbuf why = STRBUF_INIT, out = STRBUF_INIT;
	struct ir_program *p = lift_bundle(b, &why);
	if (p) {
		fuse_program(p);
		ir_program_describe(p, &out);
	} else {
		strbuf_addf(&out, "not lifted: %s\n", why.buf);
	}
	ir_program_free(p);
	strbuf_release(&why);
	bundle_free(b);
	return strbuf_detach(&out);
}

/* scale, add a mask, a block-per-row max and sum: the two maps fold into the
 * row program, and neither temp is written or read */
static void
a_scale_mask_softmax_chain_fuses_into_one_row_pass_without_its_temps(void **state)
{
	(void)state;
	char *d = fused(make_bundle(
		BUNDLE_LAUNCHER, "sms", "const float *x:in, const float *mask:in, float *p:out, float *t1:temp, float *t2:temp, int rows:scalar, int T:scalar",
		"__global__ void scale(float *y, const float *x, int n) {\n"
		"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = x[i] * 0.5f;\n}\n"
		"__global__ void add_mask(float *y, const float *x, const float *mask, int n, int T) {\n"
		"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = x[i] + mask[i % T];\n}\n"
		"__global__ void smax(float *out, const float *in, int T) {\n"
		"  __shared__ float red[128];\n  const float *x = in + blockIdx.x * T;\n"
		"  float m = -INFINITY;\n"
		"  for (int j = threadIdx.x; j < T; j += blockDim.x) m = fmaxf(m, x[j]);\n"
		"  red[threadIdx.x] = m;\n  __syncthreads();\n"
		"  for (int s = blockDim.x / 2; s > 0; s >>= 1) { if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]); __syncthreads(); }\n"
		"  m = red[0];\n"
		"  for (int j = threadIdx.x; j < T; j += blockDim.x) out[blockIdx.x * T + j] = expf(x[j] - m);\n}\n",
		"void sms(const float *x, const float *mask, float *p, float *t1, float *t2, int rows, int T) {\n"
		"  scale<<<(rows * T + 255) / 256, 256>>>(t1, x, rows * T);\n"
		"  add_mask<<<(rows * T + 255) / 256, 256>>>(t2, t1, mask, rows * T, T);\n"
		"  smax<<<rows, 128>>>(p, t2, T);\n}\n"));
	assert_string_equal(d, "launcher sms\n"
	                       "stage 0 rows kernel=smax n=rows\n"
	                       "  let float m_2 = (-INFINITY)\n"
	                       "  loop col < T\n"
	                       "    acc max m_2 <- ((x[((row * T) + col)] * 0.5f) + mask[col])\n"
	                       "  loop col < T\n"
	                       "    let float st0_2 = expf((((x[((row * T) + col)] * 0.5f) + mask[col]) - m_2))\n"
	                       "    store p[((row * T) + col)] = st0_2\n");
	free(d);
}

/* h = x + r kept by the caller (an output), then a block-per-row RMS norm of h:
 * one pass that stores h once and never reads it back */
static const char residual_norm[] =
	"__global__ void add(float *h, const float *x, const float *r, int n) {\n"
	"  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) h[i] = x[i] + r[i];\n}\n"
	"__global__ void rms(float *y, const float *h, int cols) {\n"
	"  __shared__ float part[256];\n  const float *row = h + blockIdx.x * cols;\n  float ss = 0.0f;\n"
	"  for (int j = threadIdx.x; j < cols; j += blockDim.x) ss += row[j] * row[j];\n"
	"  part[threadIdx.x] = ss;\n  __syncthreads();\n"
	"  for (int n = blockDim.x; n > 1;) { int half = (n + 1) / 2; if (threadIdx.x < n - half) part[threadIdx.x] += part[threadIdx.x + half]; __syncthreads(); n = half; }\n"
	"  float inv = rsqrtf(part[0] / cols + 1e-6f);\n"
	"  for (int j = threadIdx.x; j < cols; j += blockDim.x) y[blockIdx.x * cols + j] = row[j] * inv;\n}\n";

static void
a_residual_the_caller_keeps_is_stored_once_by_the_fused_row_pass(void **state)
{
	(void)state;
	char *d = fused(make_bundle(
		BUNDLE_LAUNCHER, "rr", "const float *x:in, const float *r:in, float *h:out, float *y:out, int rows:scalar, int cols:scalar",
		residual_norm,
		"void rr(const float *x, const float *r, float *h, float *y, int rows, int cols) {\n"
		"  int n = rows * cols;\n  add<<<1024, 256>>>(h, x, r, n);\n  rms<<<rows, 256>>>(y, h, cols);\n}\n"));
	assert_string_equal(d, "launcher rr\n"
	                       "stage 0 rows kernel=rms n=rows\n"
	                       "  let float ss_1 = 0.0f\n"
	                       "  loop col < cols\n"
	                       "    store h[((row * cols) + col)] = (x[((row * cols) + col)] + r[((row * cols) + col)])\n"
	                       "    acc sum ss_1 <- ((x[((row * cols) + col)] + r[((row * cols) + col)]) * (x[((row * cols) + col)] + r[((row * cols) + col)]))\n"
	                       "  let float inv_1 = rsqrtf(((ss_1 / cols) + 1e-6f))\n"
	                       "  loop col < cols\n"
	                       "    let float st0_1 = ((x[((row * cols) + col)] + r[((row * cols) + col)]) * inv_1)\n"
	                       "    store y[((row * cols) + col)] = st0_1\n");
	free(d);
}

/* Row means, centred values, row norms, the scaled rows: four launches, two
 * row programs over the same rows and two maps; one pass, what the first row
 * program stores forwarded to what reads it, and no temp stored. */
static const char standardize[] =
	"__global__ void mean_k(float *mean, const float *x, int rows, int cols) {\n"
	"  int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"  if (r < rows) { float s = 0.0f; for (int c = 0; c < cols; ++c) s += x[r * cols + c]; mean[r] = s / cols; }\n}\n"
	"__global__ void center(float *xc, const float *x, const float *mean, int n, int cols) {\n"
	"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) xc[i] = x[i] - mean[i / cols];\n}\n"
	"__global__ void norm_k(float *rn, const float *xc, int cols) {\n"
	"  __shared__ float acc[128];\n  const float *row = xc + blockIdx.x * cols;\n  float s = 0.0f;\n"
	"  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += row[c] * row[c];\n"
	"  acc[threadIdx.x] = s;\n  __syncthreads();\n"
	"  for (int h = 1; h < blockDim.x; h *= 2) { if (threadIdx.x % (2 * h) == 0 && threadIdx.x + h < blockDim.x) acc[threadIdx.x] += acc[threadIdx.x + h]; __syncthreads(); }\n"
	"  if (threadIdx.x == 0) rn[blockIdx.x] = rsqrtf(acc[0] / cols);\n}\n"
	"__global__ void apply(float *y, const float *xc, const float *rn, int n, int cols) {\n"
	"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = xc[i] * rn[i / cols];\n}\n";

static char *
standardize_fused(const char *xc_role)
{
	char *params = egg_xasprintf("const float *x:in, float *y:out, float *mean:temp, float *xc:%s, float *rn:temp, "
	                             "int rows:scalar, int cols:scalar", xc_role);
	char *d = fused(make_bundle(
		BUNDLE_LAUNCHER, "st", params, standardize,
		"void st(const float *x, float *y, float *mean, float *xc, float *rn, int rows, int cols) {\n"
		"  mean_k<<<(rows + 127) / 128, 128>>>(mean, x, rows, cols);\n"
		"  center<<<(rows * cols + 255) / 256, 256>>>(xc, x, mean, rows * cols, cols);\n"
		"  norm_k<<<rows, 100>>>(rn, xc, cols);\n"
		"  apply<<<(rows * cols + 255) / 256, 256>>>(y, xc, rn, rows * cols, cols);\n}\n"));
	free(params);
	return d;
}

static void
row_programs_over_the_same_rows_fuse_and_forward_what_the_first_stored(void **state)
{
	(void)state;
	char *d = standardize_fused("temp");
	assert_string_equal(d, "launcher st\n"
	                       "stage 0 rows kernel=mean_k n=rows\n"
	                       "  let float s_0 = 0.0f\n"
	                       "  loop col < cols\n"
	                       "    acc sum s_0 <- x[((row * cols) + col)]\n"
	                       "  let float st0_0 = (s_0 / cols)\n"
	                       "  let float s_2 = 0.0f\n"
	                       "  loop col < cols\n"
	                       "    acc sum s_2 <- ((x[((row * cols) + col)] - st0_0) * (x[((row * cols) + col)] - st0_0))\n"
	                       "  let float st0_2 = rsqrtf((s_2 / cols))\n"
	                       "  loop col < cols\n"
	                       "    let float st0_3 = ((x[((row * cols) + col)] - st0_0) * st0_2)\n"
	                       "    store y[((row * cols) + col)] = st0_3\n");
	free(d);
	/* the centred values are the caller's to read: still one pass, which stores them */
	d = standardize_fused("out");
	assert_int_equal(count(d, "stage "), 1);
	assert_int_equal(count(d, "store xc["), 1);
	free(d);
}

/* A second row program that overwrites what the first reads stays a second
 * launch: the rows are not independent of each other then. */
static void
row_programs_that_overwrite_what_the_first_reads_stay_apart(void **state)
{
	(void)state;
	char *d = fused(make_bundle(
		BUNDLE_LAUNCHER, "two", "float *x:inout, float *s:out, int rows:scalar, int cols:scalar",
		"__global__ void sum_k(float *s, const float *x, int rows, int cols) {\n"
		"  int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
		"  if (r < rows) { float a = 0.0f; for (int c = 0; c < cols; ++c) a += x[r * cols + c]; s[r] = a; }\n}\n"
		"__global__ void zero_k(float *x, int rows, int cols) {\n"
		"  int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
		"  if (r < rows) for (int c = 0; c < cols; ++c) x[r * cols + c] = 0.0f;\n}\n",
		"void two(float *x, float *s, int rows, int cols) {\n"
		"  sum_k<<<(rows + 127) / 128, 128>>>(s, x, rows, cols);\n"
		"  zero_k<<<(rows + 127) / 128, 128>>>(x, rows, cols);\n}\n"));
	assert_int_equal(count(d, "stage "), 2);
	free(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(block_per_row_softmaxes_in_each_tree_form_lift_as_one_row_program),
		cmocka_unit_test(block_reductions_not_proved_to_reduce_the_row_keep_the_reference),
		cmocka_unit_test(warp_shuffle_block_reductions_lift_as_one_row_program),
		cmocka_unit_test(a_scale_mask_softmax_chain_fuses_into_one_row_pass_without_its_temps),
		cmocka_unit_test(a_residual_the_caller_keeps_is_stored_once_by_the_fused_row_pass),
		cmocka_unit_test(row_programs_over_the_same_rows_fuse_and_forward_what_the_first_stored),
		cmocka_unit_test(row_programs_that_overwrite_what_the_first_reads_stay_apart),
	};
	return cmocka_run_group_tests(tests, builtin_test_setup, NULL);
}
