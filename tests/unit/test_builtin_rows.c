/*
 * test_builtin_rows.c -- the row family's register-resident pass (each row read
 * from memory once whatever the number of passes over it) and the folding of a
 * stored element-wise prologue (a residual stream) into the row program; with
 * the near misses that must keep the passes from memory or the two launches;
 * and the textbook shared-memory tree reductions (over the grid, or a block per
 * row) lifted as the full or row reduction they compute, with their near misses
 * left unlifted.
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

/* The max written from the row's first element, a loop from 1 (the bench case's
 * spelling). */
static const char softmax_from_one[] =
	"__global__ void sm(const float *in, float *out, int batch, int classes) {\n"
	"  int row = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"  if (row >= batch) return;\n"
	"  const float *x = in + row * classes;\n"
	"  float mx = x[0];\n"
	"  for (int j = 1; j < classes; j++) mx = fmaxf(mx, x[j]);\n"
	"  float s = 0.0f;\n"
	"  for (int j = 0; j < classes; j++) s += expf(x[j] - mx);\n"
	"  for (int j = 0; j < classes; j++) out[row * classes + j] = expf(x[j] - mx) / s;\n"
	"}\n";

/* The part of a register candidate's kernel that runs when the row fits. */
static char *
held_branch(const char *src)
{
	const char *a = strstr(src, "egg_rn = ");
	const char *b = a ? strstr(a, "\t\t\t} else {\n") : NULL;
	assert_non_null(b);
	return egg_xstrndup(a, (size_t)(b - a));
}

static void
softmax_from_the_first_element_lifts_with_a_loop_from_one(void **state)
{
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "softmax", "const float *in:in, float *out:out, int batch:scalar, int classes:scalar",
	                               softmax_from_one,
	                               "void softmax(const float *in, float *out, int batch, int classes) {\n"
	                               "  sm<<<(batch + 63) / 64, 64>>>(in, out, batch, classes);\n}\n"),
	                   "launcher softmax\n"
	                   "stage 0 rows kernel=sm n=batch\n"
	                   "  let float mx_0 = in[((row * classes) + 0)]\n"
	                   "  loop col < (classes - 1)\n"
	                   "    acc max mx_0 <- in[(((row * classes) + 1) + col)]\n"
	                   "  let float s_0 = 0.0f\n"
	                   "  loop col < classes\n"
	                   "    acc sum s_0 <- expf((in[((row * classes) + col)] - mx_0))\n"
	                   "  loop col < classes\n"
	                   "    let float st0_0 = (expf((in[((row * classes) + col)] - mx_0)) / s_0)\n"
	                   "    store out[((row * classes) + col)] = st0_0\n");
}

static void
row_in_registers_is_read_once_for_all_passes(void **state)
{
	struct builtin_output o = generate(make_bundle(
		BUNDLE_LAUNCHER, "softmax", "const float *in:in, float *out:out, int batch:scalar, int classes:scalar",
		softmax_from_one,
		"void softmax(const float *in, float *out, int batch, int classes) {\n"
		"  sm<<<(batch + 63) / 64, 64>>>(in, out, batch, classes);\n}\n"));
	assert_null(o.not_lifted);
	int held = 0;
	for (size_t i = 0; i < o.n_candidates; i++) {
		if (!strstr(o.candidates[i].label, "passes=registers"))
			continue;
		held++;
		char *h = held_branch(o.candidates[i].source);
		/* one vector load of the row per slot, before the three passes */
		assert_int_equal(count(h, "reinterpret_cast<const float4 *>(&in["), 1);
		assert_non_null(strstr(h, "float4 egg_l0["));
		/* the loop from 1 leaves out the row's first element */
		assert_non_null(strstr(h, ">= 1) {"));
		/* stores vectorized at the same positions; rows that do not fit fall back */
		assert_non_null(strstr(h, "reinterpret_cast<float4 *>(&out["));
		assert_non_null(strstr(h, "egg_rn % 4 == 0"));
		free(h);
	}
	assert_true(held >= 6);
	builtin_output_release(&o);
}

/* In the branch where the rows fit: x and r each loaded once (vectors), and h
 * stored h_stores times. */
static void
expect_x_and_r_read_once(const char *src, int h_stores)
{
	char *h = held_branch(src);
	assert_int_equal(count(h, "reinterpret_cast<const float4 *>(&x["), 1);
	assert_int_equal(count(h, "reinterpret_cast<const float4 *>(&r["), 1);
	assert_int_equal(count(h, "reinterpret_cast<float4 *>(&h["), h_stores);
	free(h);
}

static void
row_points_hold_no_more_than_32_registers_per_thread(void **state)
{
	/* two rows streamed (x and r): slots * 4 * 2 <= 32, so 8 slots are refused */
	struct builtin_output o = generate(make_bundle(
		BUNDLE_LAUNCHER, "d", "const float *x:in, const float *r:in, float *y:out, int rows:scalar, int cols:scalar",
		"__global__ void k(const float *x, const float *r, float *y, int rows, int cols) {\n"
		"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i >= rows) return;\n"
		"  float s = 0.0f;\n  for (int c = 0; c < cols; c++) s += x[i * cols + c] * r[i * cols + c];\n"
		"  for (int c = 0; c < cols; c++) y[i * cols + c] = x[i * cols + c] - s * r[i * cols + c];\n}\n",
		"void d(const float *x, const float *r, float *y, int rows, int cols) {\n"
		"  k<<<rows / 128 + 1, 128>>>(x, r, y, rows, cols);\n}\n"));
	assert_null(o.not_lifted);
	int held = 0;
	for (size_t i = 0; i < o.n_candidates; i++) {
		if (!strstr(o.candidates[i].label, "passes=registers"))
			continue;
		held++;
		assert_null(strstr(o.candidates[i].label, "slots=8"));
		expect_x_and_r_read_once(o.candidates[i].source, 0);
	}
	assert_true(held >= 4);
	builtin_output_release(&o);
}

/* Near misses: a row program that overwrites the row it reads, or whose loops
 * run over different lengths, keeps its passes from memory (no register point
 * survives the removal of duplicates). */
static void
rows_read_in_place_or_over_other_lengths_are_not_held(void **state)
{
	static const char *const closures[] = {
		"__global__ void k(float *x, float *y, int rows, int cols) {\n"
		"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i >= rows) return;\n"
		"  float s = 0.0f;\n  for (int c = 0; c < cols; c++) s += x[i * cols + c];\n"
		"  for (int c = 0; c < cols; c++) x[i * cols + c] = x[i * cols + c] / s;\n}\n",
		"__global__ void k(float *x, float *y, int rows, int cols) {\n"
		"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i >= rows) return;\n"
		"  float s = 0.0f;\n  for (int c = 0; c < cols; c++) s += x[i * cols + c];\n"
		"  for (int c = 0; c < cols / 2; c++) y[i * cols + c] = x[i * cols + c] / s;\n}\n",
	};
	for (size_t n = 0; n < sizeof closures / sizeof *closures; n++) {
		struct builtin_output o = generate(make_bundle(
			BUNDLE_LAUNCHER, "f", "float *x:inout, float *y:out, int rows:scalar, int cols:scalar",
			closures[n],
			"void f(float *x, float *y, int rows, int cols) {\n"
			"  k<<<rows / 128 + 1, 128>>>(x, y, rows, cols);\n}\n"));
		assert_null(o.not_lifted);
		assert_true(o.n_candidates >= 4);
		for (size_t i = 0; i < o.n_candidates; i++)
			assert_null(strstr(o.candidates[i].label, "passes=registers"));
		builtin_output_release(&o);
	}
}

static const char add_norm_closure[] =
	"__global__ void add(const float *x, const float *r, float *h, int n) {\n"
	"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) h[i] = x[i] + r[i];\n}\n"
	"__global__ void norm(const float *h, const float *w, float *y, int t, int d, float eps) {\n"
	"  int row = blockIdx.x * blockDim.x + threadIdx.x;\n  if (row >= t) return;\n"
	"  float ss = 0.0f;\n  for (int k = 0; k < d; k++) ss += h[row * d + k] * h[row * d + k];\n"
	"  float sc = rsqrtf(ss / d + eps);\n"
	"  for (int k = 0; k < d; k++) y[row * d + k] = h[row * d + k] * sc * w[k];\n}\n";

static struct builtin_output
add_norm(const char *map_count)
{
	char *target = egg_xasprintf(
		"void an(const float *x, const float *r, const float *w, float *h, float *y, int t, int d, float eps) {\n"
		"  int n = %s;\n  add<<<(n + 255) / 256, 256>>>(x, r, h, n);\n"
		"  norm<<<(t + 127) / 128, 128>>>(h, w, y, t, d, eps);\n}\n", map_count);
	struct builtin_output o = generate(make_bundle(
		BUNDLE_LAUNCHER, "an",
		"const float *x:in, const float *r:in, const float *w:in, float *h:out, float *y:out, int t:scalar, int d:scalar, float eps:scalar",
		add_norm_closure, target));
	free(target);
	return o;
}

static void
stored_residual_folds_into_the_row_program(void **state)
{
	struct builtin_output o = add_norm("t * d");
	assert_null(o.not_lifted);
	/* the description shows the code as written: two launches */
	assert_non_null(strstr(o.description, "stage 0 map kernel=add"));
	assert_non_null(strstr(o.description, "stage 1 rows kernel=norm"));
	int held = 0;
	for (size_t i = 0; i < o.n_candidates; i++) {
		const char *src = o.candidates[i].source;
		assert_null(strstr(o.candidates[i].label, "elementwise"));
		if (!strstr(o.candidates[i].label, "auto"))
			assert_int_equal(count(src, "<<<"), 1);
		/* h is written (vectorized or not) and never read back: every mention
		 * of it is a store (or the alignment test of its vector store) */
		int stores = count(src, "reinterpret_cast<float4 *>(&h[") + count(src, "\th[((") +
		             count(src, "(unsigned long long)(&h[");
		assert_true(stores >= 1);
		assert_int_equal(count(src, "h["), stores + count(src, "*>(&h[") -
		                                   count(src, "reinterpret_cast<float4 *>(&h["));
		if (strstr(o.candidates[i].label, "passes=registers")) {
			held++;
			expect_x_and_r_read_once(src, 1);
		}
	}
	assert_true(held >= 3);
	builtin_output_release(&o);
}

/* A norm written as a statistics kernel (its row at ((long long)p) * hw) and an
 * apply kernel over the flat index: one row program whose three loops read the
 * row at bases equal but for the cast, so the row is held, read once. */
static void
statistics_and_apply_kernels_hold_the_row_through_a_cast(void **state)
{
	(void)state;
	struct builtin_output o = generate(make_bundle(
		BUNDLE_LAUNCHER, "inorm", "const float *x:in, float *y:out, int planes:scalar, int hw:scalar",
		"__global__ void st(const float *x, float *mean, float *rstd, int planes, int hw) {\n"
		"  int p = blockIdx.x * blockDim.x + threadIdx.x;\n  if (p >= planes) return;\n"
		"  const float *src = x + (long long)p * hw;\n"
		"  float s = 0.0f;\n  for (int i = 0; i < hw; i++) s += src[i];\n  float m = s / hw;\n"
		"  float v = 0.0f;\n  for (int i = 0; i < hw; i++) { float d = src[i] - m; v += d * d; }\n"
		"  mean[p] = m;\n  rstd[p] = 1.0f / sqrtf(v / hw + 1e-5f);\n}\n"
		"__global__ void ap(const float *x, const float *mean, const float *rstd, float *y, int planes, int hw) {\n"
		"  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
		"  if (i < (long long)planes * hw) { int p = (int)(i / hw); y[i] = (x[i] - mean[p]) * rstd[p]; }\n}\n",
		"void inorm(const float *x, float *y, int planes, int hw) {\n"
		"  float *mean, *rstd;\n  cudaMalloc(&mean, planes * sizeof(float));\n"
		"  cudaMalloc(&rstd, planes * sizeof(float));\n"
		"  st<<<(planes + 127) / 128, 128>>>(x, mean, rstd, planes, hw);\n"
		"  long long total = (long long)planes * hw;\n"
		"  ap<<<(unsigned)((total + 255) / 256), 256>>>(x, mean, rstd, y, planes, hw);\n"
		"  cudaFree(mean);\n  cudaFree(rstd);\n}\n"));
	assert_null(o.not_lifted);
	int held = 0;
	for (size_t i = 0; i < o.n_candidates; i++) {
		const char *src = o.candidates[i].source;
		assert_null(strstr(o.candidates[i].label, "elementwise")); /* one row program */
		if (!strstr(o.candidates[i].label, "passes=registers"))
			continue;
		held++;
		char *h = held_branch(src);
		assert_int_equal(count(h, "reinterpret_cast<const float4 *>(&x["), 1);
		assert_int_equal(count(h, "reinterpret_cast<float4 *>(&y["), 1);
		free(h);
	}
	assert_int_equal(held, 9);
	builtin_output_release(&o);
}

/* A launcher of one kernel per row whose value comes from helper (closure) through
 * call (an expression in the kernel). */
static struct builtin_output
helper_rows(const char *helper, const char *call)
{
	char *closure = egg_xasprintf(
		"%s"
		"__global__ void k(const float *x, float *y, int rows, int cols) {\n"
		"  int r = blockIdx.x * blockDim.x + threadIdx.x;\n  if (r >= rows) return;\n"
		"  y[r] = %s;\n}\n", helper, call);
	struct builtin_output o = generate(make_bundle(
		BUNDLE_LAUNCHER, "hr", "const float *x:in, float *y:out, int rows:scalar, int cols:scalar", closure,
		"void hr(const float *x, float *y, int rows, int cols) {\n"
		"  k<<<(rows + 127) / 128, 128>>>(x, y, rows, cols);\n}\n"));
	free(closure);
	return o;
}

static const char sum_row[] =
	"__device__ float sum_row(const float *p, int n) {\n"
	"  float s = 0.0f;\n  for (int j = 0; j < n; j++) s += p[j];\n  return s;\n}\n";

/* A __device__ helper that takes a pointer and holds a loop is written out where
 * the kernel calls it: its loop is the row program's column loop, its names
 * prefixed, a scalar parameter passed a name replaced by it. */
static void
helpers_with_loops_are_written_out_where_they_are_called(void **state)
{
	(void)state;
	struct builtin_output o = helper_rows(sum_row, "2.0f * sum_row(x + r * cols, cols)");
	assert_null(o.not_lifted);
	assert_string_equal(o.description,
		"launcher hr\n"
		"stage 0 rows kernel=k n=rows\n"
		"  let float egg_h1_s_0 = 0.0f\n"
		"  loop col < cols\n"
		"    acc sum egg_h1_s_0 <- x[((row * cols) + col)]\n"
		"  let float egg_h1_ret_0 = egg_h1_s_0\n"
		"  let float st0_0 = (2.0f * egg_h1_ret_0)\n"
		"  store y[row] = st0_0\n");
	assert_true(o.n_candidates >= 8);
	builtin_output_release(&o);
	/* a helper calling a helper; a scalar argument that is an expression (a local
	 * initialized to it); a parameter the helper assigns (a local too) */
	o = helper_rows("__device__ float first(const float *p) { return p[0]; }\n"
	                "__device__ float outer(const float *p, int n) {\n"
	                "  float s = first(p);\n  n = n - 1;\n"
	                "  for (int j = 0; j < n; j++) s += p[j + 1];\n  return s;\n}\n",
	                "outer(x + r * cols, cols + 0)");
	assert_null(o.not_lifted);
	assert_non_null(strstr(o.description, "let int egg_h1_n_0 = (cols + 0)"));
	assert_non_null(strstr(o.description, "let float egg_h2_ret_0 = x[((row * cols) + 0)]"));
	builtin_output_release(&o);
}

/* Calls that are not always evaluated, helpers with more than one return, and
 * helpers that read a name the kernel declares stay calls, which the lifter
 * refuses; a reference parameter is refused too. */
static void
helpers_that_cannot_be_written_out_stay_calls(void **state)
{
	(void)state;
	static const struct { const char *helper, *call; } cases[] = {
		{ sum_row, "r > 0 ? sum_row(x + r * cols, cols) : 0.0f" },
		{ sum_row, "r > 0 && sum_row(x + r * cols, cols) > 0.0f" },
		/* (in a declaration of two names, the second's call may use the first) */
		{ sum_row, "0.0f;\n  float a = 1.0f, b = sum_row(x + r * cols, cols) * a;\n  y[r] = b" },
		{ "__device__ float two(const float *p, int n) {\n  if (n == 0) return 0.0f;\n"
		  "  float s = 0.0f;\n  for (int j = 0; j < n; j++) s += p[j];\n  return s;\n}\n",
		  "two(x + r * cols, cols)" },
		/* rows is the kernel's parameter: the helper's global of that name would be
		 * read as the kernel's */
		{ "__device__ float cap(const float *p) {\n  float s = 0.0f;\n"
		  "  for (int j = 0; j < rows; j++) s += p[j];\n  return s;\n}\n", "cap(x + r * cols)" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct builtin_output o = helper_rows(cases[i].helper, cases[i].call);
		assert_non_null(o.description);
		assert_non_null(strstr(o.description, "not lifted: a call to '"));
		assert_non_null(strstr(o.description, "', which is not a math function"));
		builtin_output_release(&o);
	}
	/* (the parser reads a reference as a pointer: the int written out as a pointer
	 * is not a buffer's, and the kernel is refused) */
	struct builtin_output o = helper_rows("__device__ float byref(const float *p, int &n) {\n  return p[n];\n}\n",
	                                      "byref(x, cols)");
	assert_non_null(strstr(o.description, "not lifted: a local pointer 'egg_h1_n' that is not buffer + offset"));
	builtin_output_release(&o);
}

static void
residual_that_does_not_cover_the_rows_keeps_two_launches(void **state)
{
	/* the map writes more (or other) elements than the row program's rows x
	 * columns: folding it would leave some unwritten */
	static const char *const counts[] = { "t * d + 1", "d * d" };
	for (size_t n = 0; n < sizeof counts / sizeof *counts; n++) {
		struct builtin_output o = add_norm(counts[n]);
		assert_null(o.not_lifted);
		for (size_t i = 0; i < o.n_candidates; i++)
			assert_true(count(o.candidates[i].source, "<<<") >= 2);
		builtin_output_release(&o);
	}
}

/* The textbook block reduction; %s are the guard's other side, the block size,
 * the tree step and the loop's barrier. */
static struct builtin_output
tree_reduction(const char *past, const char *block, const char *step, const char *barrier)
{
	char *closure = egg_xasprintf(
		"__global__ void k(const float *x, float *out, int n) {\n"
		"  __shared__ float sh[256];\n  int tid = threadIdx.x;\n"
		"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
		"  float v = i < n ? x[i] : %s;\n  sh[tid] = v * v;\n  __syncthreads();\n"
		"  for (int s = blockDim.x / 2; s > 0; s >>= 1) {\n    if (tid < s) %s;\n    %s\n  }\n"
		"  if (tid == 0) atomicAdd(out, sh[0]);\n}\n", past, step, barrier);
	char *target = egg_xasprintf(
		"void ss(const float *x, float *out, int n) {\n  cudaMemset(out, 0, sizeof(float));\n"
		"  k<<<(n + %s - 1) / %s, %s>>>(x, out, n);\n}\n", block, block, block);
	struct builtin_output o = generate(make_bundle(
		BUNDLE_LAUNCHER, "ss", "const float *x:in, float *out:out, int n:scalar", closure, target));
	free(closure);
	free(target);
	return o;
}

static void
block_tree_reduction_lifts_as_a_full_reduction(void **state)
{
	struct builtin_output o = tree_reduction("0.0f", "256", "sh[tid] += sh[tid + s]", "__syncthreads();");
	assert_null(o.not_lifted);
	assert_string_equal(o.description,
	                    "launcher ss\n"
	                    "stage 0 memset buffer=out n=sizeof(float)\n"
	                    "stage 1 reduce kernel=k n=n\n"
	                    "  let float v_1 = ((i < n) ? x[i] : 0.0f)\n"
	                    "  acc sum out[0] <- (v_1 * v_1)\n");
	assert_true(o.n_candidates >= 4);
	builtin_output_release(&o);
	/* the step spelled out in full, and a literal block size */
	o = tree_reduction("0", "128", "sh[tid] = sh[tid] + sh[s + tid]", "__syncthreads();");
	assert_null(o.not_lifted);
	assert_non_null(strstr(o.description, "acc sum out[0] <- (v_1 * v_1)"));
	builtin_output_release(&o);
}

static void
tree_reductions_that_do_not_sum_every_thread_are_not_lifted(void **state)
{
	struct {
		const char *past, *block, *step, *barrier;
	} near[] = {
		{ "1.0f", "256", "sh[tid] += sh[tid + s]", "__syncthreads();" }, /* threads past n add 1 */
		{ "0.0f", "192", "sh[tid] += sh[tid + s]", "__syncthreads();" }, /* not a power of two */
		{ "0.0f", "256", "sh[tid] += sh[tid + s]", ";" },                /* no barrier in the tree */
		{ "0.0f", "256", "sh[tid] += sh[tid + 2 * s]", "__syncthreads();" }, /* other partner */
		{ "0.0f", "256", "sh[tid] = fmaxf(sh[tid], sh[tid + s])", "__syncthreads();" }, /* a max, added */
	};
	for (size_t i = 0; i < sizeof near / sizeof *near; i++) {
		struct builtin_output o = tree_reduction(near[i].past, near[i].block, near[i].step, near[i].barrier);
		assert_non_null(strstr(o.description, "not lifted: a local array or shared memory ('sh')"));
		builtin_output_release(&o);
	}
}

/* A block per row summing a strided column loop through the tree; %s are the
 * loop's stride, its update, the slot filled, and thread 0's store. */
static struct builtin_output
row_tree(const char *stride, const char *update, const char *fill, const char *store)
{
	char *closure = egg_xasprintf(
		"#define BLOCK 256\n"
		"__global__ void k(const float *x, float *m, int rows, int cols) {\n"
		"  __shared__ float part[BLOCK];\n  int row = blockIdx.x;\n  float s = 0.0f;\n"
		"  for (int c = threadIdx.x; c < cols; c += %s) %s;\n"
		"  part[threadIdx.x] = %s;\n  __syncthreads();\n"
		"  for (int st = BLOCK / 2; st > 0; st >>= 1) {\n"
		"    if (threadIdx.x < st) part[threadIdx.x] += part[threadIdx.x + st];\n    __syncthreads();\n  }\n"
		"  if (threadIdx.x == 0) %s;\n}\n", stride, update, fill, store);
	struct builtin_output o = generate(make_bundle(
		BUNDLE_LAUNCHER, "rm", "const float *x:in, float *m:out, int rows:scalar, int cols:scalar", closure,
		"void rm(const float *x, float *m, int rows, int cols) {\n  k<<<rows, BLOCK>>>(x, m, rows, cols);\n}\n"));
	free(closure);
	return o;
}

static void
block_per_row_tree_lifts_as_a_row_program(void **state)
{
	struct builtin_output o = row_tree("BLOCK", "s += x[(size_t)row * cols + c]", "s", "m[row] = part[0] / cols");
	assert_null(o.not_lifted);
	assert_string_equal(o.description,
	                    "launcher rm\n"
	                    "stage 0 rows kernel=k n=rows\n"
	                    "  let float s_0 = 0.0f\n"
	                    "  loop col < cols\n"
	                    "    acc sum s_0 <- x[((((size_t)row) * cols) + col)]\n"
	                    "  let float st0_0 = (s_0 / cols)\n"
	                    "  store m[row] = st0_0\n");
	assert_true(o.n_candidates >= 8);
	builtin_output_release(&o);
	o = row_tree("blockDim.x", "s = s + x[row * cols + c] * x[row * cols + c]", "s", "m[row] = sqrtf(part[0])");
	assert_null(o.not_lifted);
	assert_non_null(strstr(o.description, "store m[row] = st0_0"));
	builtin_output_release(&o);
}

static void
row_trees_that_do_not_sum_the_row_are_not_lifted(void **state)
{
	struct {
		const char *stride, *update, *fill, *store, *why;
	} near[] = {
		{ "128", "s += x[row * cols + c]", "s", "m[row] = part[0]", /* strides half the row */
		  "a loop that reads 'threadIdx' is neither a strided column loop nor a tree over 'part'" },
		{ "BLOCK", "s = fmaxf(s, x[row * cols + c])", "s", "m[row] = part[0]", /* maxima, summed */
		  "a tree that combines 's' with another operator than its loop's" },
		{ "BLOCK", "s += x[row * cols + c]", "s * 2.0f", "m[row] = part[0]", /* not the sum itself */
		  "'part' is filled with something other than a partial of a strided loop" },
		{ "BLOCK", "s += x[row * cols + c]", "s", "m[row] = part[1]", /* another slot */
		  "'part' is read at another element than [0], the reduction's result" },
		{ "BLOCK", "s += x[row * cols + threadIdx.x]", "s", "m[row] = part[0]", /* the thread, not the column */
		  "the update of 's' in a strided loop reads 'threadIdx'" },
	};
	for (size_t i = 0; i < sizeof near / sizeof *near; i++) {
		struct builtin_output o = row_tree(near[i].stride, near[i].update, near[i].fill, near[i].store);
		char *want = egg_xasprintf("not lifted: a block-per-row reduction in shared memory: %s", near[i].why);
		if (!strstr(o.description, want))
			fail_msg("case %zu: %s", i, o.description);
		free(want);
		builtin_output_release(&o);
	}
}

/* ---- loads in flight for gathers; a thread per row for strided columns ---- */

static struct builtin_output
embedding_bundle(void)
{
	return generate(make_bundle(
		BUNDLE_LAUNCHER, "emb", "const int64_t *ids:in, const float *table:in, float *out:out, int n:scalar, int dim:scalar",
		"__global__ void k(const int64_t *ids, const float *table, float *out, int n, int dim) {\n"
		"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
		"  if (i < n * dim) { int t = i / dim; int d = i % dim; out[i] = table[ids[t] * dim + d]; }\n}\n",
		"void emb(const int64_t *ids, const float *table, float *out, int n, int dim) {\n"
		"  k<<<(n * dim + 255) / 256, 256>>>(ids, table, out, n, dim);\n}\n"));
}

static const struct builtin_candidate *
find_label(const struct builtin_output *o, const char *part)
{
	for (size_t i = 0; i < o->n_candidates; i++)
		if (strstr(o->candidates[i].label, part))
			return &o->candidates[i];
	return NULL;
}

static void
gather_keeps_several_vector_loads_in_flight_before_storing(void **state)
{
	struct builtin_output o = embedding_bundle();
	assert_null(o.not_lifted);
	const struct builtin_candidate *c = find_label(&o, "inflight=8 grid=wave");
	assert_non_null(c);
	const char *src = c->source;
	/* eight vectors per lane, all loaded before the first store */
	const char *arr = strstr(src, "float4 egg_l0[8];");
	const char *load = strstr(src, "egg_l0[egg_u] = __ldg(reinterpret_cast<const float4 *>(&table[");
	const char *store = strstr(src, "*reinterpret_cast<float4 *>(&out[");
	assert_non_null(arr);
	assert_non_null(load);
	assert_non_null(store);
	assert_true(arr < load && load < store);
	assert_non_null(strstr(src, "egg_jv + 224 < egg_cv; egg_jv += 256"));
	/* what is left of the row a vector at a time, unaligned rows and odd
	 * lengths element by element */
	assert_non_null(strstr(src, "for (; egg_jv < egg_cv; egg_jv += 32)"));
	assert_non_null(strstr(src, "egg_jh = (4 - egg_r) & 3;"));
	assert_non_null(strstr(src, "egg_t < egg_jh + egg_cn - egg_j0; egg_t += 32)"));
	/* one wave of resident blocks */
	assert_non_null(strstr(src, "cudaOccupancyMaxActiveBlocksPerMultiprocessor(&egg_occ"));
	/* the other points keep the loop a vector at a time */
	c = find_label(&o, "threads_per_row=128 tpb=128 vec=4 unroll=1 passes=online");
	assert_non_null(c);
	assert_null(strstr(c->source, "egg_u"));
	builtin_output_release(&o);
}

/* Streaming stores (__stcs) for the gathered output, and with loads=keep the
 * gathered rows read through egg_ldg_keep (an L2 evict-last policy); the scalar
 * tail stays plain; row programs that reduce get neither. */
static struct builtin_output middle_sum(const char *index);

static void
gather_stores_stream_and_keeps_its_rows_in_the_l2(void **state)
{
	struct builtin_output o = embedding_bundle();
	assert_null(o.not_lifted);
	size_t streaming = 0;
	for (size_t i = 0; i < o.n_candidates; i++) {
		const char *label = o.candidates[i].label, *src = o.candidates[i].source;
		const char *k = strstr(src, "__global__");
		assert_non_null(k);
		if (!strstr(label, "stores=streaming")) {
			assert_null(strstr(k, "__stcs("));
			assert_null(strstr(k, "egg_ldg_keep<"));
			continue;
		}
		streaming++;
		assert_non_null(strstr(k, "__stcs(reinterpret_cast<float4 *>(&out["));
		assert_null(strstr(k, "*reinterpret_cast<float4 *>(&out["));
		assert_non_null(strstr(k, "\t\t\t\tout[((egg_row * dim) + egg_j)] = "));
		if (strstr(label, "loads=keep100%"))
			assert_non_null(strstr(k, "egg_ldg_keep<100>(reinterpret_cast<const float4 *>(&table["));
		else if (strstr(label, "loads=keep50%"))
			assert_non_null(strstr(k, "egg_ldg_keep<50>(reinterpret_cast<const float4 *>(&table["));
		else
			assert_null(strstr(k, "egg_ldg_keep<"));
	}
	assert_int_equal(streaming, 7);
	builtin_output_release(&o);
	/* a row sum reduces: no streaming or keeping points */
	o = middle_sum("(b * dim + d) * inner + i");
	assert_null(find_label(&o, "stores=streaming"));
	builtin_output_release(&o);
	(void)state;
}

/* Rows gathered by an integer key read per row run in the order of that key, in
 * one cooperative launch, with the plain kernel beside it for when that launch
 * cannot run; a row copy, a gather by a float key and a row sum get no such point. */
static void
gathers_run_in_the_order_of_their_integer_key_with_a_plain_fallback(void **state)
{
	struct builtin_output o = embedding_bundle();
	assert_null(o.not_lifted);
	size_t sorted = 0;
	for (size_t i = 0; i < o.n_candidates; i++) {
		const char *label = o.candidates[i].label, *src = o.candidates[i].source;
		if (!strstr(label, "order=key&4095 (cooperative)")) {
			assert_null(strstr(src, "this_grid()"));
			assert_null(strstr(src, "cudaLaunchKernelEx"));
			continue;
		}
		sorted++;
		/* the key of each row, its bucket counted with the row's rank */
		assert_non_null(strstr(src, "egg_key[egg_k] = (unsigned)(ids[((int)egg_row)]) & 4095u;"));
		assert_non_null(strstr(src, "_cnt[egg_key[egg_k]], 1u);"));
		/* two grid barriers: after the counts, after the places */
		const char *b1 = strstr(src, "cooperative_groups::this_grid().sync();");
		assert_non_null(b1);
		const char *b2 = strstr(b1 + 1, "cooperative_groups::this_grid().sync();");
		assert_non_null(b2);
		assert_null(strstr(b2 + 1, "cooperative_groups::this_grid().sync();"));
		/* the counts cleared after the second, the rows gathered in the sorted order */
		assert_non_null(strstr(b2, "_cnt[egg_j] = 0;"));
		assert_non_null(strstr(b2, "const long long egg_row = (long long)__ldcg(&"));
		assert_non_null(strstr(b2, "__stcs(reinterpret_cast<float4 *>(&out["));
		/* the host: the cooperative launch where the device has it and the rows fit,
		 * else (or when it fails) the plain kernel */
		const char *h = strstr(src, "cudaDevAttrCooperativeLaunch");
		assert_non_null(h);
		const char *l = strstr(h, "egg_done = cudaLaunchKernelEx(&egg_cfg, ");
		assert_non_null(l);
		assert_non_null(strstr(h, "egg_rows <= 1048576 && egg_rows <= 4 * egg_g * "));
		const char *fb = strstr(l, "if (!egg_done) {");
		assert_non_null(fb);
		assert_non_null(strstr(fb, "<<<(unsigned)egg_g, "));
	}
	assert_int_equal(sorted, 2);
	builtin_output_release(&o);
	/* a copy of rows: no key */
	o = generate(make_bundle(
		BUNDLE_LAUNCHER, "cp", "const float *in:in, float *out:out, int n:scalar, int dim:scalar",
		"__global__ void k(const float *in, float *out, int n, int dim) {\n"
		"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
		"  if (i < n * dim) { int t = i / dim; int d = i % dim; out[i] = 2.0f * in[t * dim + d]; }\n}\n",
		"void cp(const float *in, float *out, int n, int dim) {\n"
		"  k<<<(n * dim + 255) / 256, 256>>>(in, out, n, dim);\n}\n"));
	assert_null(o.not_lifted);
	assert_non_null(find_label(&o, "inflight=8"));
	assert_null(find_label(&o, "order=key"));
	builtin_output_release(&o);
	/* rows found by a float read per row: not an integer key */
	o = generate(make_bundle(
		BUNDLE_LAUNCHER, "fk", "const float *pos:in, const float *table:in, float *out:out, int n:scalar, int dim:scalar",
		"__global__ void k(const float *pos, const float *table, float *out, int n, int dim) {\n"
		"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
		"  if (i < n * dim) { int t = i / dim; int d = i % dim; out[i] = table[(int)pos[t] * dim + d]; }\n}\n",
		"void fk(const float *pos, const float *table, float *out, int n, int dim) {\n"
		"  k<<<(n * dim + 255) / 256, 256>>>(pos, table, out, n, dim);\n}\n"));
	assert_null(o.not_lifted);
	assert_null(find_label(&o, "order=key"));
	builtin_output_release(&o);
	/* a row sum reduces */
	o = middle_sum("(b * dim + d) * inner + i");
	assert_null(find_label(&o, "order=key"));
	builtin_output_release(&o);
	(void)state;
}

static void
row_programs_that_reduce_get_no_in_flight_points(void **state)
{
	struct builtin_output o = generate(make_bundle(
		BUNDLE_LAUNCHER, "softmax", "const float *in:in, float *out:out, int batch:scalar, int classes:scalar",
		softmax_from_one,
		"void softmax(const float *in, float *out, int batch, int classes) {\n"
		"  sm<<<(batch + 63) / 64, 64>>>(in, out, batch, classes);\n}\n"));
	assert_null(o.not_lifted);
	assert_true(o.n_candidates >= 8);
	assert_null(find_label(&o, "inflight="));
	assert_null(find_label(&o, "threads_per_row=1 "));
	builtin_output_release(&o);
}

/* out[b][i] = sum over d of x[b][d][i], with the column index written as given */
static struct builtin_output
middle_sum(const char *index)
{
	char *closure = egg_xasprintf(
		"__global__ void k(const float *x, float *y, int batch, int dim, int inner) {\n"
		"  int idx = blockIdx.x * blockDim.x + threadIdx.x;\n  if (idx >= batch * inner) return;\n"
		"  int b = idx / inner, i = idx %% inner;\n  float s = 0.0f;\n"
		"  for (int d = 0; d < dim; d++) s += x[%s];\n  y[b * inner + i] = s;\n}\n", index);
	struct builtin_output o = generate(make_bundle(
		BUNDLE_LAUNCHER, "ms", "const float *x:in, float *y:out, int batch:scalar, int dim:scalar, int inner:scalar",
		closure,
		"void ms(const float *x, float *y, int batch, int dim, int inner) {\n"
		"  k<<<(batch * inner + 255) / 256, 256>>>(x, y, batch, dim, inner);\n}\n"));
	free(closure);
	return o;
}

static void
middle_dimension_sum_gets_a_thread_per_row_with_loads_in_flight(void **state)
{
	struct builtin_output o = middle_sum("(b * dim + d) * inner + i");
	assert_null(o.not_lifted);
	assert_non_null(strstr(o.description, "acc sum s_0 <- x[((((b_0 * dim) + col) * inner) + i_0)]"));
	int n = 0;
	for (size_t i = 0; i < o.n_candidates; i++) {
		const char *src = o.candidates[i].source;
		if (!strstr(o.candidates[i].label, "threads_per_row=1 ") ||
		    strstr(o.candidates[i].label, "split="))
			continue;
		n++;
		/* neighbouring threads own neighbouring rows; no group to reduce over or
		 * wait for */
		assert_non_null(strstr(src, "threadIdx.x / 1;"));
		assert_non_null(strstr(src, "egg_t < egg_jh + egg_cn - egg_j0; egg_t += 1)"));
		assert_true(strstr(src, "#pragma unroll 8\n") || strstr(src, "#pragma unroll 16\n"));
		const char *k = strstr(src, "__global__");
		assert_non_null(k);
		assert_null(strstr(k, "__shfl_xor_sync"));
		assert_null(strstr(k, "__syncthreads"));
		assert_null(strstr(k, "__syncwarp"));
	}
	assert_int_equal(n, 3);
	builtin_output_release(&o);
	/* written with the stride first */
	o = middle_sum("i + inner * (d + dim * b)");
	assert_null(o.not_lifted);
	assert_non_null(find_label(&o, "threads_per_row=1 "));
	builtin_output_release(&o);
}

/* Split points: lane k of every warp owns row base + k, warp w takes columns w,
 * w + split, ...; the partials meet in shared memory in warp order, lanes past the
 * last row compute the last row and store nothing. */
static void
middle_dimension_sum_split_over_warps_folds_partials_in_shared_memory(void **state)
{
	struct builtin_output o = middle_sum("(b * dim + d) * inner + i");
	assert_null(o.not_lifted);
	int n = 0;
	for (size_t i = 0; i < o.n_candidates; i++) {
		const char *src = o.candidates[i].source, *label = o.candidates[i].label;
		const char *sp = strstr(label, "split=");
		if (!sp)
			continue;
		n++;
		int split = atoi(sp + 6);
		char want[96];
		assert_non_null(strstr(src, "const int egg_lane = threadIdx.x >> 5;"));
		assert_non_null(strstr(src, "const long long egg_row = egg_live ? egg_rt : egg_rows - 1;"));
		snprintf(want, sizeof want, "egg_t < egg_jh + egg_cn - egg_j0; egg_t += %d)", split);
		assert_non_null(strstr(src, want));
		snprintf(want, sizeof want, "[%d][32];", split);
		assert_non_null(strstr(src, want));
		snprintf(want, sizeof want, "for (int egg_w = 1; egg_w < %d; egg_w++)", split);
		assert_non_null(strstr(src, want));
		assert_non_null(strstr(src, "if (egg_lane == 0 && egg_live)\n"));
		snprintf(want, sizeof want, "__launch_bounds__(%d)", 32 * split);
		assert_non_null(strstr(src, want));
		assert_null(strstr(strstr(src, "__global__"), "__shfl_xor_sync"));
	}
	assert_int_equal(n, 5);
	builtin_output_release(&o);
	(void)state;
}

/* A row program whose strided column loop also stores gets no split point (a
 * thread per row keeps them). */
static void
split_points_are_for_column_loops_that_only_accumulate(void **state)
{
	char *closure = egg_xstrdup(
		"__global__ void k(const float *x, float *y, float *z, int batch, int dim, int inner) {\n"
		"\tint idx = blockIdx.x * blockDim.x + threadIdx.x;\n"
		"\tif (idx >= batch * inner) return;\n"
		"\tint b = idx / inner, i = idx % inner;\n"
		"\tfloat s = 0.0f;\n"
		"\tfor (int d = 0; d < dim; d++) {\n"
		"\t\ts += x[(b * dim + d) * inner + i];\n"
		"\t\tz[(b * dim + d) * inner + i] = 2.0f * x[(b * dim + d) * inner + i];\n"
		"\t}\n"
		"\ty[b * inner + i] = s;\n"
		"}\n");
	struct builtin_output o = generate(make_bundle(
		BUNDLE_LAUNCHER, "ms", "const float *x:in, float *y:out, float *z:out, int batch:scalar, "
		"int dim:scalar, int inner:scalar", closure,
		"void ms(const float *x, float *y, float *z, int batch, int dim, int inner) {\n"
		"  k<<<(batch * inner + 255) / 256, 256>>>(x, y, z, batch, dim, inner);\n}\n"));
	free(closure);
	assert_null(o.not_lifted);
	assert_non_null(find_label(&o, "threads_per_row=1 "));
	assert_null(find_label(&o, "split="));
	builtin_output_release(&o);
	(void)state;
}

static void
columns_that_do_not_stride_by_a_row_independent_factor_get_no_thread_per_row(void **state)
{
	const char *near[] = {
		"(b * inner + i) * dim + d", /* the column contiguous: rows as usual */
		"(b * dim + d) * i + i",     /* a stride that changes with the row */
		"(b * dim + d * d) * inner + i", /* the column twice */
	};
	for (size_t i = 0; i < sizeof near / sizeof *near; i++) {
		struct builtin_output o = middle_sum(near[i]);
		assert_null(o.not_lifted);
		assert_true(o.n_candidates > 0);
		assert_null(find_label(&o, "threads_per_row=1 "));
		builtin_output_release(&o);
	}
}

/* A pooling window of two nested loops: the inner one, of constant bounds (here
 * -1 ..= 1), is unrolled inside the column loop, each copy's locals renamed; of
 * run-time bounds, the two are collapsed into one; the guard's bound a local
 * before it, read through its value. */
static char *
window_kernel(const char *inner)
{
	return egg_xasprintf("__global__ void mp(const float *in, float *out, int n, int W) {\n"
	                     "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                     "  int total = n - 1;\n"
	                     "  if (i >= total) return;\n"
	                     "  float m = -INFINITY;\n"
	                     "  for (int a = 0; a < 2; a++)\n"
	                     "    for (%s) {\n"
	                     "      float v = in[(i + a) * W + b + 1];\n"
	                     "      m = fmaxf(m, v);\n"
	                     "    }\n"
	                     "  out[i] = m;\n"
	                     "}\n", inner);
}

static struct egg_bundle *
window_bundle(const char *inner)
{
	char *k = window_kernel(inner);
	struct egg_bundle *b = make_bundle(BUNDLE_LAUNCHER, "win", "const float *in:in, float *out:out, int n:scalar, int W:scalar", k,
	                                   "void win(const float *in, float *out, int n, int W) {\n"
	                                   "  mp<<<(n + 255) / 256, 256>>>(in, out, n, W);\n}\n");
	free(k);
	return b;
}

static void
constant_loops_inside_a_column_loop_are_unrolled(void **state)
{
	(void)state;
	EXPECT_DESCRIPTION(window_bundle("int b = -1; b <= 1; b++"),
	                   "launcher win\n"
	                   "stage 0 rows kernel=mp n=(n - 1)\n"
	                   "  let int total_0 = (n - 1)\n"
	                   "  let float m_0 = (-INFINITY)\n"
	                   "  loop col < 2\n"
	                   "    let float v_0_u1 = in[((((row + col) * W) + -1) + 1)]\n"
	                   "    acc max m_0 <- v_0_u1\n"
	                   "    let float v_0_u2 = in[((((row + col) * W) + 0) + 1)]\n"
	                   "    acc max m_0 <- v_0_u2\n"
	                   "    let float v_0_u3 = in[((((row + col) * W) + 1) + 1)]\n"
	                   "    acc max m_0 <- v_0_u3\n"
	                   "  let float st0_0 = m_0\n"
	                   "  store out[row] = st0_0\n");
	/* a local assigned after its let is not read through the let's value */
	struct ir_block blk = { 0 };
	struct ir_stmt *let = ir_stmt_new(IR_LET);
	let->name = egg_xstrdup("t_0");
	let->type = egg_xstrdup("int");
	let->value = ir_expr_new(IR_VAR, "n");
	ir_block_add(&blk, let);
	struct ir_expr *loc = ir_expr_new(IR_LOCAL, "t_0"), *x = ir_expr_inline_lets(loc, &blk, blk.n);
	assert_int_equal(x->kind, IR_VAR);
	ir_expr_free(x);
	struct ir_stmt *as = ir_stmt_new(IR_ASSIGN);
	as->name = egg_xstrdup("t_0");
	as->value = ir_expr_new(IR_NUM, "1");
	ir_block_add(&blk, as);
	x = ir_expr_inline_lets(loc, &blk, blk.n);
	assert_int_equal(x->kind, IR_LOCAL);
	ir_expr_free(x);
	x = ir_expr_inline_lets(loc, &blk, 1); /* up to the let only */
	assert_int_equal(x->kind, IR_VAR);
	ir_expr_free(x);
	ir_expr_free(loc);
	ir_block_free(&blk);
	/* such shapes seldom beat the reference: the generic path's candidates compete */
	struct builtin_output o = generate(window_bundle("int b = -1; b <= 1; b++"));
	assert_string_equal(o.candidates[0].label, "rows threads_per_row=1 tpb=256 vec=1 unroll=8 passes=online");
	int generic = 0;
	for (size_t i = 0; i < o.n_candidates; i++)
		generic += strncmp(o.candidates[i].label, "generic ", 8) == 0 &&
		           strstr(o.candidates[i].source, "egg_win_g_c") != NULL;
	assert_true(generic >= 2);
	builtin_output_release(&o);
	/* an inner bound of run time: the two loops are one of 2 * W columns, in the
	 * same order */
	char *dd = describe(window_bundle("int b = 0; b < W; b++"));
	if (!strstr(dd, "  loop col < (2 * W)\n    let float v_0 = in[((((row + (col / W)) * W) + (col % W)) + 1)]\n"
	                "    acc max m_0 <- v_0\n"))
		fail_msg("collapsed: %s", dd);
	free(dd);
	/* more than 16 copies with a step of 2, a triangle, a bound read from memory:
	 * nested loops */
	static const char *const refused[] = { "int b = 0; b < 40; b += 2", "int b = 0; b < a; b++",
		                               "int b = 0; b < (int)in[0]; b++" };
	for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
		char *d = describe(window_bundle(refused[i]));
		if (!strstr(d, "not lifted: nested loops") && !strstr(d, "not lifted: a data-dependent loop bound"))
			fail_msg("'%s': %s", refused[i], d);
		free(d);
	}
}

/* A guard that also bounds blockIdx.y by the grid's own extent: the term holds in
 * every block and is dropped; bounded by anything else, the kernel is refused. */
static struct egg_bundle *
plane_bundle(const char *plane_term)
{
	char *k = egg_xasprintf("__global__ void mn(const float *x, float *out, int B, int D1, int D2) {\n"
	                        "  int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                        "  int b = blockIdx.y;\n"
	                        "  if (j >= D2 || %s) return;\n"
	                        "  float m = x[(size_t)b * D1 * D2 + j];\n"
	                        "  for (int i = 1; i < D1; i++) m = fminf(m, x[((size_t)b * D1 + i) * D2 + j]);\n"
	                        "  out[(size_t)b * D2 + j] = m;\n"
	                        "}\n", plane_term);
	struct egg_bundle *b = make_bundle(BUNDLE_LAUNCHER, "mind", "const float *x:in, float *out:out, int B:scalar, int D1:scalar, int D2:scalar", k,
	                                   "void mind(const float *x, float *out, int B, int D1, int D2) {\n"
	                                   "  dim3 grid((D2 + 255) / 256, B);\n"
	                                   "  mn<<<grid, 256>>>(x, out, B, D1, D2);\n}\n");
	free(k);
	return b;
}

static void
guards_on_grid_planes_by_the_grids_extent_are_dropped(void **state)
{
	(void)state;
	char *d = describe(plane_bundle("b >= B"));
	assert_non_null(strstr(d, "stage 0 rows kernel=mn n=((B) * D2)\n"));
	assert_non_null(strstr(d, "acc min m_0 <- "));
	free(d);
	d = describe(plane_bundle("B <= b"));
	assert_non_null(strstr(d, "stage 0 rows kernel=mn n=((B) * D2)\n"));
	free(d);
	/* fewer planes than the grid has: not the grid's extent */
	d = describe(plane_bundle("b >= B - 1"));
	assert_non_null(strstr(d, "not lifted: no bounds guard"));
	free(d);
}

/* A column loop's lets that use neither the column nor what the loop changes,
 * and load nothing, are computed once per row before it; a load (the loop may
 * run no iteration) and what uses the column stay. */
static void
lets_a_column_loop_does_not_change_move_before_it(void **state)
{
	(void)state;
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "hs", "const float *x:in, const float *b:in, float *out:out, int n:scalar, int C:scalar",
	                               "__global__ void hk(const float *x, const float *b, float *out, int n, int C) {\n"
	                               "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                               "  if (i >= n) return;\n"
	                               "  float s = 0.0f;\n"
	                               "  for (int c = 0; c < C; c++) {\n"
	                               "    int r2 = (i / 2) * C;\n"
	                               "    float w = b[i];\n"
	                               "    int at = r2 + c;\n"
	                               "    s += x[at] * w;\n"
	                               "  }\n"
	                               "  out[i] = s;\n"
	                               "}\n",
	                               "void hs(const float *x, const float *b, float *out, int n, int C) {\n"
	                               "  hk<<<(n + 255) / 256, 256>>>(x, b, out, n, C);\n}\n"),
	                   "launcher hs\n"
	                   "stage 0 rows kernel=hk n=n\n"
	                   "  let float s_0 = 0.0f\n"
	                   "  let int r2_0 = ((row / 2) * C)\n"
	                   "  loop col < C\n"
	                   "    let float w_0 = b[row]\n"
	                   "    let int at_0 = (r2_0 + col)\n"
	                   "    acc sum s_0 <- (x[at_0] * w_0)\n"
	                   "  let float st0_0 = s_0\n"
	                   "  store out[row] = st0_0\n");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(softmax_from_the_first_element_lifts_with_a_loop_from_one),
		cmocka_unit_test(row_in_registers_is_read_once_for_all_passes),
		cmocka_unit_test(row_points_hold_no_more_than_32_registers_per_thread),
		cmocka_unit_test(statistics_and_apply_kernels_hold_the_row_through_a_cast),
		cmocka_unit_test(helpers_with_loops_are_written_out_where_they_are_called),
		cmocka_unit_test(helpers_that_cannot_be_written_out_stay_calls),
		cmocka_unit_test(rows_read_in_place_or_over_other_lengths_are_not_held),
		cmocka_unit_test(stored_residual_folds_into_the_row_program),
		cmocka_unit_test(residual_that_does_not_cover_the_rows_keeps_two_launches),
		cmocka_unit_test(block_tree_reduction_lifts_as_a_full_reduction),
		cmocka_unit_test(tree_reductions_that_do_not_sum_every_thread_are_not_lifted),
		cmocka_unit_test(block_per_row_tree_lifts_as_a_row_program),
		cmocka_unit_test(row_trees_that_do_not_sum_the_row_are_not_lifted),
		cmocka_unit_test(gather_keeps_several_vector_loads_in_flight_before_storing),
		cmocka_unit_test(gather_stores_stream_and_keeps_its_rows_in_the_l2),
		cmocka_unit_test(gathers_run_in_the_order_of_their_integer_key_with_a_plain_fallback),
		cmocka_unit_test(row_programs_that_reduce_get_no_in_flight_points),
		cmocka_unit_test(middle_dimension_sum_gets_a_thread_per_row_with_loads_in_flight),
		cmocka_unit_test(columns_that_do_not_stride_by_a_row_independent_factor_get_no_thread_per_row),
		cmocka_unit_test(middle_dimension_sum_split_over_warps_folds_partials_in_shared_memory),
		cmocka_unit_test(split_points_are_for_column_loops_that_only_accumulate),
		cmocka_unit_test(constant_loops_inside_a_column_loop_are_unrolled),
		cmocka_unit_test(guards_on_grid_planes_by_the_grids_extent_are_dropped),
		cmocka_unit_test(lets_a_column_loop_does_not_change_move_before_it),
	};
	return cmocka_run_group_tests(tests, builtin_test_setup, NULL);
}
