/*
 * test_builtin_contract_generic.c -- the builtin generator's dense-contraction
 * family and its generic path.  Contractions: the GPU check bundles
 * (tests/data/builtin/{gemm,bmm,linear}*.json) lift to their expected
 * descriptions (layouts from strides, batch from the launch grid, epilogues),
 * variants outside the family are refused or left to the other shapes with a
 * reason, and the gemm recipe emits every point.  Generic path: code that does
 * not lift (histogram, collatz bundles, a recurrence, variants) gets candidates that
 * keep its code with only safe edits, or none with a reason.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "builtin/builtin.h"
#include "builtin/lift/lift.h"
#include "common/util.h"
#include "tests/unit/builtin_data.h"
#include "tests/unit/builtin_helpers.h"

#include <stdlib.h>
#include <string.h>


#define EXPECT_LINES(bundle, ...) do { \
	char *d_ = describe(bundle); \
	const char *l_[] = { __VA_ARGS__ }; \
	for (size_t i_ = 0; i_ < sizeof l_ / sizeof *l_; i_++) \
		if (!strstr(d_, l_[i_])) \
			fail_msg("'%s' not in:\n%s", l_[i_], d_); \
	free(d_); \
} while (0)

static void
matmul_lifts_as_a_contraction(void **state)
{
	(void)state;
	char *d = describe(load("gemm_awkward", NULL));
	assert_string_equal(d, "launcher gemm_awkward\n"
	                       "stage 0 contract kernel=mm n=(M * N)\n"
	                       "  batch=1 m=M n=N k=K\n"
	                       "  a A off=0 batch=0 row=K k=1\n"
	                       "  b B off=0 batch=0 col=1 k=N\n"
	                       "  acc float sum_0 = 0.0f\n"
	                       "  let float st0_0 = sum_0\n"
	                       "  store C[((row * N) + col)] = st0_0\n");
	free(d);
}

static void
layouts_batches_and_epilogues_lift(void **state)
{
	(void)state;
	/* A stored transposed (k-major), operands through locals, alpha/beta epilogue */
	EXPECT_LINES(load("gemm_tn_alpha_beta", NULL), "a A off=0 batch=0 row=1 k=M",
	             "b B off=0 batch=0 col=1 k=N",
	             "let float st0_0 = ((alpha * acc_0) + (beta * C[((row * N) + col)]))");
	/* nn.Linear: the weight is (out, in), the row is blockIdx.y, bias as the initial
	 * value, GELU and a residual after the loop */
	EXPECT_LINES(load("linear_gelu_odd", NULL), "m=rows n=out k=in", "a x off=0 batch=0 row=in k=1",
	             "b w off=0 batch=0 col=in k=1", "acc float acc_0 = bias[col]",
	             "let float g_0 = ((0.5f * acc_0) * (1.0f + erff((acc_0 * 0.70710678f))))",
	             "let float st0_0 = (g_0 + res[((row * out) + col)])");
	/* a 1-D index split into row = idx / N and col = idx % N, both operands k-major */
	EXPECT_LINES(load("gemm_flat_nt", NULL), "stage 0 contract kernel=mm_flat n=(M * N)",
	             "batch=1 m=M n=N k=K", "b B off=0 batch=0 col=K k=1",
	             "store C[((row * N) + col)] = st0_0");
	/* the same split before a 2-D guard */
	char *c = egg_xasprintf("__global__ void mm(const float *A, const float *B, float *C, int M, int N, int K)\n{\n"
	                        "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n  int r = t / N;\n  int c = t %% N;\n"
	                        "  if (r >= M || c >= N) return;\n  float s = 0.0f;\n"
	                        "  for (int k = 0; k < K; k++) s += A[r * K + k] * B[k * N + c];\n  C[t] = s;\n}\n");
	EXPECT_LINES(load("gemm_awkward", c), "a A off=0 batch=0 row=K k=1", "b B off=0 batch=0 col=1 k=N",
	             "store C[((row * N) + col)] = st0_0");
	free(c);
	/* batched: blockIdx.z bounded by the launch grid's z, pointer offsets per batch */
	EXPECT_LINES(load("bmm_odd", NULL), "batch=(batch) m=m n=n k=k",
	             "a a off=0 batch=(m * k) row=k k=1", "b b off=0 batch=(k * n) col=1 k=n");
}

static const char mm_head[] =
	"__global__ void mm(const float *A, const float *B, float *C, int M, int N, int K)\n{\n"
	"  int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
	"  int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"  if (row < M && col < N) {\n";

static char *
mm_variant(const char *body)
{
	return egg_xasprintf("%s%s  }\n}\n", mm_head, body);
}

static void
non_contractions_are_refused_with_a_reason(void **state)
{
	(void)state;
	static const struct { const char *body, *why; } cases[] = {
		/* a data-dependent index: a gather, not a layout */
		{ "    float s = 0.0f;\n    for (int k = 0; k < K; k++) s += A[row * K + (int)B[k]] * B[k * N + col];\n"
		  "    C[row * N + col] = s;\n", "not affine" },
		/* an extent that depends on the output index (triangular) */
		{ "    float s = 0.0f;\n    for (int k = 0; k < row; k++) s += A[row * K + k] * B[k * N + col];\n"
		  "    C[row * N + col] = s;\n", "extent" },
		/* the product written into an operand */
		{ "    float s = 0.0f;\n    for (int k = 0; k < K; k++) s += A[row * K + k] * B[k * N + col];\n"
		  "    B[row * N + col] = s;\n", "writes one of its operands" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *closure = mm_variant(cases[i].body);
		char *d = describe(load("gemm_awkward", closure));
		if (!strstr(d, "not lifted: ") || !strstr(d, cases[i].why))
			fail_msg("case %zu: expected '%s', got: %s", i, cases[i].why, d);
		free(d);
		free(closure);
	}
	/* a max over k and an operand following both output indices (a stencil's
	 * window) are no contractions: left to the other shapes, a row program over
	 * the 2-D index */
	static const char *const others[] = {
		"    float m = -INFINITY;\n    for (int k = 0; k < K; k++) m = fmaxf(m, A[row * K + k]);\n"
		"    C[row * N + col] = m;\n",
		"    float s = 0.0f;\n    for (int k = 0; k < K; k++) s += A[(row + k) * N + col] * B[k];\n"
		"    C[row * N + col] = s;\n",
	};
	for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
		char *closure = mm_variant(others[i]);
		char *d = describe(load("gemm_awkward", closure));
		if (!strstr(d, "stage 0 rows kernel=mm n=(M * N)\n"))
			fail_msg("other %zu: %s", i, d);
		free(d);
		free(closure);
	}
}

/* Two nested loops (channels and taps, in either order) are one k: an operand
 * whose offset is k's in both loops keeps its stride, the other is split; a
 * blockIdx.y row without a guard takes the launch grid's extent. */
static const char conv_head[] =
	"__global__ void conv_ks_relu(const float *x, const float *w, const float *bias, float *y, int cin,\n"
	"                             int cout, int len, int ks)\n{\n"
	"  int olen = len - ks + 1;\n"
	"  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"  int oc = blockIdx.y * blockDim.y + threadIdx.y;\n"
	"  int b = blockIdx.z;\n"
	"  if (t >= olen || oc >= cout) return;\n"
	"  float s = 0.0f;\n";

static char *
conv_variant(const char *loops)
{
	return egg_xasprintf("%s%s  y[((size_t)b * cout + oc) * olen + t] = s;\n}\n", conv_head, loops);
}

static void
nested_loops_lift_as_one_contraction(void **state)
{
	(void)state;
	char *d = describe(load("conv_taps3", NULL));
	assert_string_equal(d, "launcher conv1d_taps3\n"
	                       "stage 0 contract kernel=conv_taps3 n=((batch) * ((cout) * (len - 2)))\n"
	                       "  batch=(batch) m=(cout) n=(len - 2) k=(cin * 3) kin=3\n"
	                       "  a w off=0 batch=0 row=(cin * 3) k=1\n"
	                       "  b x off=0 batch=(cin * len) col=1 k/kin=len k%kin=1\n"
	                       "  acc float acc_0 = 0.0f\n"
	                       "  let int olen_0 = (len - 2)\n"
	                       "  let float st0_0 = acc_0\n"
	                       "  store y[((((((long)i) * cout) + row) * olen_0) + col)] = st0_0\n");
	free(d);
	/* taps outer, channels inner, a run-time kernel size: both operands split */
	EXPECT_LINES(load("conv_ks_relu", NULL), "m=cout n=((len - ks) + 1) k=(ks * cin) kin=cin",
	             "a w off=0 batch=0 row=(cin * ks) k/kin=1 k%kin=ks",
	             "b x off=0 batch=(cin * len) col=1 k/kin=1 k%kin=len", "acc float s_0 = bias[row]");
	/* channels outer: the weight's offset (c * ks + k) is k's, with a run-time kin */
	char *c = conv_variant("  for (int c = 0; c < cin; c++)\n    for (int k = 0; k < ks; k++)\n"
	                       "      s += x[((size_t)b * cin + c) * len + t + k] * w[(oc * cin + c) * ks + k];\n");
	EXPECT_LINES(load("conv_ks_relu", c), "k=(cin * ks) kin=ks", "a w off=0 batch=0 row=(cin * ks) k=1",
	             "b x off=0 batch=(cin * len) col=1 k/kin=len k%kin=1");
	free(c);
	static const struct { const char *loops, *why; } refused[] = {
		/* the inner trip count depends on the outer index (a triangle) */
		{ "  for (int c = 0; c < cin; c++)\n    for (int k = 0; k < c; k++)\n"
		  "      s += x[((size_t)b * cin + c) * len + t + k] * w[(oc * cin + c) * ks + k];\n", "extent" },
		/* work between the loops: no nest */
		{ "  for (int c = 0; c < cin; c++) {\n    s *= 0.5f;\n    for (int k = 0; k < ks; k++)\n"
		  "      s += x[((size_t)b * cin + c) * len + t + k] * w[(oc * cin + c) * ks + k];\n  }\n",
		  "nested loops" },
		/* three levels */
		{ "  for (int c = 0; c < cin; c++)\n    for (int k = 0; k < ks; k++)\n      for (int q = 0; q < 2; q++)\n"
		  "        s += x[((size_t)b * cin + c) * len + t + k + q] * w[(oc * cin + c) * ks + k];\n",
		  "nested loops" },
		/* an inner loop that does not count from 0 */
		{ "  for (int c = 0; c < cin; c++)\n    for (int k = 1; k < ks; k++)\n"
		  "      s += x[((size_t)b * cin + c) * len + t + k] * w[(oc * cin + c) * ks + k];\n", "nested loops" },
	};
	for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
		char *v = conv_variant(refused[i].loops);
		d = describe(load("conv_ks_relu", v));
		if (!strstr(d, "not lifted: ") || !strstr(d, refused[i].why))
			fail_msg("case %zu: expected '%s', got: %s", i, refused[i].why, d);
		free(d);
		free(v);
	}
	/* a blockIdx.y row without a guard and a launch without a y extent (one batch) */
	struct egg_bundle *b = load("conv_taps3", NULL);
	char *l = egg_xstrdup(b->target), *at = strstr(l, "conv_taps3<<<grid, 128>>>");
	char *k = egg_xstrdup(b->closure), *z = strstr(k, "int b = blockIdx.z;");
	assert_non_null(at);
	assert_non_null(z);
	memcpy(at, "conv_taps3<<<olen, 128>>>", strlen("conv_taps3<<<olen, 128>>>"));
	memcpy(z, "int b = 0         ;", strlen("int b = 0         ;"));
	free(b->target);
	b->target = l;
	free(b->closure);
	b->closure = k;
	d = describe(b);
	assert_non_null(strstr(d, "a row index (blockIdx.y) without a bound or a launch grid that gives it"));
	free(d);

	/* one flat index split into three digits (time, channel, batch), the guard's
	 * bound B * CO * OL through a local: the batch is what is left of it */
	EXPECT_LINES(load("conv_flat", NULL), "batch=B m=CO n=((L - K) + 1) k=(CI * K) kin=K",
	             "b x off=0 batch=(CI * L) col=1 k/kin=L k%kin=1",
	             "store y[((((i * CO) + row) * OL_0) + col)] = st0_0");
	/* (the row program may still take them: two loops of run-time bounds are one) */
	static const struct { const char *from, *to; } digits[] = {
		/* a bound that is not the three digits' product: no batch extent */
		{ "int total = B * CO * OL;", "int total = B * CO * OL + 1;" },
		/* the batch divided by another extent than the row's */
		{ "int b = idx / OL / CO;", "int b = idx / OL / CI;" },
		/* the row's digit of another column count */
		{ "int oc = (idx / OL) % CO;", "int oc = (idx / L) % CO;" },
	};
	for (size_t i = 0; i < sizeof digits / sizeof *digits; i++) {
		struct egg_bundle *fb = load("conv_flat", NULL);
		char *hit = strstr(fb->closure, digits[i].from);
		assert_non_null(hit);
		char *v = egg_xasprintf("%.*s%s%s", (int)(hit - fb->closure), fb->closure, digits[i].to,
		                        hit + strlen(digits[i].from));
		free(fb->closure);
		fb->closure = v;
		d = describe(fb);
		if (strstr(d, " contract "))
			fail_msg("digits case %zu lifted as a contraction:\n%s", i, d);
		free(d);
	}

	/* the split operand's offsets through the helper, kin a template argument
	 * when it is a number; no 16-byte loads for it */
	struct builtin_output o = generate(load("conv_taps3", NULL));
	assert_int_equal(o.n_candidates, 9);
	for (size_t i = 0; i < o.n_candidates; i++) {
		const char *s = o.candidates[i].source;
		assert_non_null(strstr(s, "egg_gemm_load<BN, BK, NT, false, EGG_V && false>(egg_rb, egg_pb, 1, "
		                          "egg_ksplit_make<3>(3, len, 1), egg_n0, egg_n, 0, egg_k)"));
		assert_non_null(strstr(s, "egg_gemm_load<BM, BK, NT, true, EGG_V && true>(egg_ra, egg_pa, (cin * 3), 1,"));
		assert_non_null(strstr(s, "#ifndef EGG_BUILTIN_GEMM_SPLIT"));
		/* no cp.async candidate: its copies would be gathers */
		assert_null(strstr(o.candidates[i].label, "async"));
	}
	builtin_output_release(&o);
	o = generate(load("conv_ks_relu", NULL));
	assert_non_null(strstr(o.candidates[1].source, "egg_ksplit_make<0>(cin, 1, ks)"));
	assert_non_null(strstr(o.candidates[1].source, "egg_ksplit_make<0>(cin, 1, len)"));
	builtin_output_release(&o);
	/* and an ordinary contraction has none of it */
	o = generate(load("gemm_awkward", NULL));
	assert_null(strstr(o.candidates[1].source, "egg_ksplit"));
	builtin_output_release(&o);
}

static void
gemm_recipe_emits_every_tile(void **state)
{
	(void)state;
	struct builtin_output o = generate(load("gemm_awkward", NULL));
	assert_null(o.not_lifted);
	assert_int_equal(o.n_candidates, 15);
	assert_string_equal(o.candidates[0].label, "gemm auto tile");
	assert_string_equal(o.candidates[1].label, "gemm tile=128x128x8 thread=8x8 tpb=256");
	/* the plain kernel's two-blocks-per-SM and k-by-16 tiles, for every product (builtin-34) */
	assert_string_equal(o.candidates[5].label, "gemm tile=128x128x8 thread=8x8 tpb=256 blocks/sm=2");
	assert_string_equal(o.candidates[6].label, "gemm tile=128x128x16 thread=8x8 tpb=256");
	assert_string_equal(o.candidates[9].label, "gemm async tile=128x128x8 thread=8x8 tpb=256 stages=4");
	assert_string_equal(o.candidates[10].label,
	                    "gemm async tile=128x128x8 thread=8x16 tpb=128 stages=4 blocks/sm=2");
	assert_non_null(strstr(o.candidates[10].source, "__launch_bounds__(128, 2)"));
	for (size_t i = 0; i < o.n_candidates; i++) {
		const char *s = o.candidates[i].source;
		int async = strncmp(o.candidates[i].label, "gemm async ", 11) == 0;
		/* the aligned and the scalar instantiation, both bounds-checked */
		assert_non_null(strstr(s, "<true><<<"));
		assert_non_null(strstr(s, "<false><<<"));
		assert_non_null(strstr(s, async ? "egg_gemm_copy<BM, BK, NT, AO, EGG_V && true>"
		                                : "egg_gemm_load<BM, BK, NT, true, EGG_V && true>"));
		assert_non_null(strstr(s, "C[((egg_row * N) + egg_col)] = st0_0"));
		assert_non_null(strstr(s, "void gemm_awkward(const float *A"));
		/* A's k is contiguous (copied transposed), B's n (16-byte copies) */
		assert_int_equal(strstr(s, "constexpr bool AO = true, BO = false;") != NULL, async);
		assert_int_equal(strstr(s, "cp.async.cg.shared.global") != NULL, async);
	}
	/* stages past 48 KiB of shared memory ask for it first */
	assert_string_equal(o.candidates[11].label,
	                    "gemm async tile=128x128x16 thread=8x16 tpb=128 stages=3 blocks/sm=2");
	assert_non_null(strstr(o.candidates[11].source, "cudaFuncAttributeMaxDynamicSharedMemorySize, 50688);"));
	const char *attr = strstr(o.candidates[11].source, "(void)cudaFuncSetAttribute(");
	assert_non_null(attr);
	assert_true(attr < strstr(o.candidates[11].source, "<true><<<dim3("));
	assert_non_null(strstr(o.candidates[11].source, ", 128, 50688>>>("));
	assert_null(strstr(o.candidates[9].source, "cudaFuncSetAttribute"));
	/* auto: three tiles chosen on the SM count */
	assert_non_null(strstr(o.candidates[0].source, "egg_builtin_sm_count()"));
	assert_non_null(strstr(o.candidates[0].source, "_k2<false>"));
	builtin_output_release(&o);

	/* A k-major: chunks along the rows; the weight (out, in): chunks along k */
	o = generate(load("gemm_tn_alpha_beta", NULL));
	assert_non_null(strstr(o.candidates[1].source, "egg_gemm_load<BM, BK, NT, false, EGG_V && true>"));
	builtin_output_release(&o);
	o = generate(load("linear_gelu_odd", NULL));
	assert_non_null(strstr(o.candidates[1].source, "egg_gemm_load<BN, BK, NT, true, EGG_V && true>"));
	assert_non_null(strstr(o.candidates[1].source, "egg_c[egg_i][egg_j] = __ldg(&bias[egg_col])"));
	builtin_output_release(&o);
	/* TF32 tensor cores only under a precision clause that allows them */
	o = generate(load("gemm_tf32", NULL));
	assert_int_equal(o.n_candidates, 18);
	assert_string_equal(o.candidates[7].label, "gemm tf32 wmma tile=128x128x16 tpb=256");
	assert_non_null(strstr(o.candidates[7].source, "wmma::precision::tf32"));
	assert_string_equal(o.candidates[16].label, "gemm tf32 mma tile=128x128x16 tpb=256 stages=4");
	assert_string_equal(o.candidates[17].label, "gemm tf32 mma tile=128x256x16 tpb=256 stages=3");
	for (size_t i = 0; i < o.n_candidates; i++) {
		if (i != 7)
			assert_null(strstr(o.candidates[i].source, "wmma::"));
		assert_int_equal(strstr(o.candidates[i].source, "mma.sync.aligned.m16n8k8.row.col.f32.tf32") != NULL,
		                 i >= 16);
	}
	builtin_output_release(&o);
	o = generate(load("bmm_odd", NULL));
	assert_non_null(strstr(o.candidates[1].source, "egg_nb = (batch)"));
	assert_non_null(strstr(o.candidates[1].source, "egg_b * ((m * k))"));
	builtin_output_release(&o);
}

static void
a_kernel_target_contraction_is_left_to_its_caller(void **state)
{
	(void)state;
	struct egg_bundle *b = load("gemm_awkward", "");
	b->kind = BUNDLE_KERNEL;
	free(b->name);
	b->name = egg_xstrdup("mm");
	char *k = mm_variant("    float s = 0.0f;\n    for (int k = 0; k < K; k++) s += A[row * K + k] * B[k * N + col];\n"
	                     "    C[row * N + col] = s;\n");
	free(b->target);
	b->target = k;
	struct builtin_output o = generate(b);
	/* the geometry is the caller's: only the generic path's edits, the name kept */
	assert_int_equal(o.n_candidates, 2);
	assert_string_equal(o.candidates[0].label, "generic restrict");
	assert_string_equal(o.candidates[1].label, "generic restrict unroll=4");
	assert_non_null(strstr(o.candidates[1].source, "__global__ void mm(const float *__restrict__ A"));
	assert_null(strstr(o.candidates[1].source, "egg_gemm"));
	builtin_output_release(&o);
}

/* ---- the generic path ---- */

/* The histogram bundle without its bins' extent: the scatter recipe cannot size
 * its shared copies, so the code stays outside the families (the generic path's
 * ground; the histogram with its extent is the scatter family's, test_builtin). */
static struct egg_bundle *
load_unsized_histogram(const char *closure)
{
	struct egg_bundle *b = load("histogram", closure);
	for (size_t i = 0; i < b->n_params; i++)
		if (b->params[i].is_pointer && !b->params[i].is_const) {
			free(b->params[i].extent);
			b->params[i].extent = NULL;
		}
	return b;
}

static void
unliftable_code_gets_generic_candidates(void **state)
{
	(void)state;
	struct builtin_output o = generate(load_unsized_histogram(NULL));
	assert_null(o.not_lifted);
	assert_non_null(strstr(o.description, "not lifted: a histogram or scatter into 'hist', whose extent the bundle does not give"));
	/* as written with __restrict__, then each other block size with the grid recomputed */
	assert_int_equal(o.n_candidates, 4);
	assert_string_equal(o.candidates[0].label, "generic restrict");
	assert_string_equal(o.candidates[1].label, "generic block=128 restrict");
	const char *s0 = o.candidates[0].source, *s1 = o.candidates[1].source;
	assert_non_null(strstr(s0, "__global__ void __launch_bounds__(256) egg_histogram_c0_hist_kernel("
	                           "const int *__restrict__ x, int *__restrict__ hist, int n)"));
	assert_non_null(strstr(s0, "egg_histogram_c0_hist_kernel<<<(n + 255) / 256, 256>>>(x, hist, n);"));
	assert_non_null(strstr(s0, "void histogram(const int *x, int *hist, int n)"));
	assert_non_null(strstr(s1, "egg_histogram_c1_hist_kernel<<<(unsigned)(((long long)(n) + 128 - 1) / 128), 128>>>"));
	assert_non_null(strstr(s1, "__launch_bounds__(128)"));
	assert_non_null(strstr(s1, "atomicAdd(&hist[x[i] & 255], 1);")); /* the body as written */
	builtin_output_release(&o);

	/* loops get an unrolled variant (a recurrence along the row: not a scan) */
	o = generate(load("scan", "__global__ void scan_kernel(const float *x, float *y, int rows, int cols)\n"
	                          "{\n    int r = blockIdx.x * blockDim.x + threadIdx.x;\n    if (r < rows) {\n"
	                          "        for (int j = 0; j < cols; j++)\n"
	                          "            y[r * cols + j] = (j > 0 ? y[r * cols + j - 1] : 0.0f) * 0.5f + x[r * cols + j];\n"
	                          "    }\n}\n"));
	assert_non_null(strstr(o.description, "not lifted: 'y' is read in its loop at an element another column writes"));
	assert_string_equal(o.candidates[o.n_candidates - 1].label, "generic block=256 restrict unroll=4");
	assert_non_null(strstr(o.candidates[o.n_candidates - 1].source, "#pragma unroll 4\n        for (int j = 0;"));
	builtin_output_release(&o);
}

static size_t
count_of(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void
the_unroll_hint_goes_before_loops_only_never_into_comments_or_strings(void **state)
{
	(void)state;
	/* issue 26: "OC is short for output channels" in a comment got a pragma */
	struct builtin_output o = generate(load("scan",
		"__global__ void scan_kernel(const float *x, float *y, int rows, int cols)\n"
		"{\n    // OC is short for \"output channels\"; for each row\n"
		"    /* a loop for\n       (every column) */\n"
		"    const char *note = \"for (;;)\"; (void)note;\n"
		"    int r = blockIdx.x * blockDim.x + threadIdx.x;\n    if (r < rows) {\n"
		"        for (int j = 0; j < cols; j++)\n"
		"            y[r * cols + j] = (j > 0 ? y[r * cols + j - 1] : 0.0f) * 0.5f + x[r * cols + j];\n"
		"    }\n}\n"));
	const char *src = o.candidates[o.n_candidates - 1].source;
	assert_string_equal(o.candidates[o.n_candidates - 1].label, "generic block=256 restrict unroll=4");
	assert_int_equal(count_of(src, "#pragma unroll 4"), 1);
	assert_non_null(strstr(src, "#pragma unroll 4\n        for (int j = 0;"));
	assert_non_null(strstr(src, "// OC is short for \"output channels\"; for each row\n"));
	assert_non_null(strstr(src, "/* a loop for\n       (every column) */"));
	assert_non_null(strstr(src, "\"for (;;)\""));
	builtin_output_release(&o);
}

static char *
hist_variant(const char *kernel_body, const char *launch)
{
	return egg_xasprintf("__global__ void hist_kernel(const int *x, int *hist, int n)\n{\n%s}\n"
	                     "void histogram(const int *x, int *hist, int n)\n{\n%s}\n",
	                     kernel_body, launch);
}

static struct builtin_output
generate_variant(const char *kernel_body, const char *launch)
{
	struct egg_bundle *b = load_unsized_histogram(NULL);
	char *all = hist_variant(kernel_body, launch), *split = strstr(all, "void histogram");
	free(b->closure);
	free(b->target);
	b->closure = egg_xstrndup(all, (size_t)(split - all));
	b->target = egg_xstrdup(split);
	free(all);
	return generate(b);
}

static const char hist_body[] =
	"    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) atomicAdd(&hist[x[i] & 255], 1);\n";

static void
the_generic_path_edits_only_what_is_safe(void **state)
{
	(void)state;
	/* shared memory in the closure: the block size stays */
	struct builtin_output o = generate_variant(
		"    __shared__ int s[256];\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
		"    s[threadIdx.x] = i;\n    if (i < n) atomicAdd(&hist[x[i] & 255], s[threadIdx.x] & 1);\n",
		"    hist_kernel<<<(n + 255) / 256, 256>>>(x, hist, n);\n");
	assert_int_equal(o.n_candidates, 1);
	assert_string_equal(o.candidates[0].label, "generic restrict");
	builtin_output_release(&o);
	/* a block size wired into the kernel */
	o = generate_variant("    int i = blockIdx.x * 256 + threadIdx.x;\n    if (i < n) atomicAdd(&hist[x[i] & 255], 1);\n",
	                     "    hist_kernel<<<(n + 255) / 256, 256>>>(x, hist, n);\n");
	assert_int_equal(o.n_candidates, 1);
	builtin_output_release(&o);
	/* a grid that is not ceil(n / block): geometry stays; the dim3 block is seen through */
	o = generate_variant(hist_body, "    dim3 b(256);\n    hist_kernel<<<1024, b>>>(x, hist, n);\n");
	assert_int_equal(o.n_candidates, 1);
	assert_non_null(strstr(o.candidates[0].source, "__launch_bounds__(256)"));
	builtin_output_release(&o);
	/* a grid from a local, a block from a dim3 of a constant */
	o = generate_variant(hist_body, "    const int threads = 256;\n    int blocks = (n + threads - 1) / threads;\n"
	                                "    hist_kernel<<<blocks, dim3(threads)>>>(x, hist, n);\n");
	assert_int_equal(o.n_candidates, 4);
	builtin_output_release(&o);
}

static void
code_the_generic_path_cannot_edit_gets_none_with_a_reason(void **state)
{
	(void)state;
	/* one buffer passed twice (no __restrict__), a 2-D block, no loop: nothing */
	struct builtin_output o = generate_variant(
		"    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) atomicAdd(&hist[x[i] & 255], 1);\n",
		"    hist_kernel<<<(n + 255) / 256, dim3(16, 16)>>>((const int *)hist, hist, n);\n");
	assert_int_equal(o.n_candidates, 0);
	assert_non_null(strstr(o.not_lifted, "nothing it can change safely"));
	builtin_output_release(&o);
	/* a launch behind a function-like macro */
	struct egg_bundle *b = load_unsized_histogram(NULL);
	char *c = egg_xasprintf("#define LAUNCH(n) hist_kernel<<<(n + 255) / 256, 256>>>(x, hist, n)\n%s",
	                        b->closure);
	free(b->closure);
	b->closure = c;
	free(b->target);
	b->target = egg_xstrdup("void histogram(const int *x, int *hist, int n)\n{\n    LAUNCH(n);\n}\n");
	o = generate(b);
	assert_int_equal(o.n_candidates, 0);
	assert_non_null(strstr(o.not_lifted, "the generic path leaves it as written"));
	builtin_output_release(&o);
	/* the kernel named outside its launch: an attribute would apply to the original */
	o = generate_variant(hist_body, "    cudaFuncSetCacheConfig(hist_kernel, cudaFuncCachePreferL1);\n"
	                                "    hist_kernel<<<(n + 255) / 256, 256>>>(x, hist, n);\n");
	assert_int_equal(o.n_candidates, 0);
	assert_non_null(strstr(o.not_lifted, "other than in its launches"));
	builtin_output_release(&o);
}

/* A block size the launcher hands to a function by address (an occupancy query
 * sets it) is not the number it was declared with: the generic path keeps the
 * launch as written instead of tuning a block it does not know. */
static void
a_block_size_whose_address_escapes_is_not_taken_for_its_initializer(void **state)
{
	(void)state;
	static const char launch[] = "    hist_kernel<<<(n + threads - 1) / threads, threads>>>(x, hist, n);\n";
	char *fixed = egg_xasprintf("    int threads = 256;\n%s", launch);
	char *chosen = egg_xasprintf("    int threads = 256;\n    choose_block(&threads);\n%s", launch);
	struct builtin_output o = generate_variant(hist_body, fixed);
	assert_int_equal(o.n_candidates, 4); /* as written, and blocks of 128, 512, 1024 */
	builtin_output_release(&o);
	o = generate_variant(hist_body, chosen);
	assert_int_equal(o.n_candidates, 1);
	assert_string_equal(o.candidates[0].label, "generic restrict");
	assert_null(strstr(o.candidates[0].source, "__launch_bounds__"));
	builtin_output_release(&o);
	free(fixed);
	free(chosen);
}

static void
a_kernel_target_keeps_its_name_with_restrict(void **state)
{
	(void)state;
	struct egg_bundle *b = load_unsized_histogram("");
	b->kind = BUNDLE_KERNEL;
	free(b->name);
	b->name = egg_xstrdup("hist_kernel");
	free(b->target);
	b->target = hist_variant(hist_body, "");
	*strstr(b->target, "void histogram") = '\0';
	struct builtin_output o = generate(b);
	assert_int_equal(o.n_candidates, 1);
	assert_non_null(strstr(o.candidates[0].source,
	                       "__global__ void hist_kernel(const int *__restrict__ x, int *__restrict__ hist, int n)"));
	assert_int_equal(strstr(o.candidates[0].source, "<<<") == NULL, 1);
	builtin_output_release(&o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(matmul_lifts_as_a_contraction),
		cmocka_unit_test(layouts_batches_and_epilogues_lift),
		cmocka_unit_test(non_contractions_are_refused_with_a_reason),
		cmocka_unit_test(nested_loops_lift_as_one_contraction),
		cmocka_unit_test(gemm_recipe_emits_every_tile),
		cmocka_unit_test(a_kernel_target_contraction_is_left_to_its_caller),
		cmocka_unit_test(unliftable_code_gets_generic_candidates),
		cmocka_unit_test(the_unroll_hint_goes_before_loops_only_never_into_comments_or_strings),
		cmocka_unit_test(the_generic_path_edits_only_what_is_safe),
		cmocka_unit_test(code_the_generic_path_cannot_edit_gets_none_with_a_reason),
		cmocka_unit_test(a_block_size_whose_address_escapes_is_not_taken_for_its_initializer),
		cmocka_unit_test(a_kernel_target_keeps_its_name_with_restrict),
	};
	return cmocka_run_group_tests(tests, builtin_test_setup, NULL);
}
