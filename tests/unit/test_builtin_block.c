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
	"stage 0 rows kernel=k n=(rows)\n"
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
	                       "stage 0 rows kernel=k n=(rows)\n"
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(block_per_row_softmaxes_in_each_tree_form_lift_as_one_row_program),
		cmocka_unit_test(block_reductions_not_proved_to_reduce_the_row_keep_the_reference),
		cmocka_unit_test(warp_shuffle_block_reductions_lift_as_one_row_program),
	};
	return cmocka_run_group_tests(tests, builtin_test_setup, NULL);
}
