/*
 * test_builtin.c -- the builtin generator: lifting each pattern to its expected
 * description, refusing code outside the families with a reason, fusing launch
 * chains, and emitting candidates for every family.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "builtin/builtin.h"
#include "builtin/lift/lift.h"
#include "builtin/parse/parse.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

#include "tests/unit/builtin_helpers.h"

static const char relu_closure[] =
	"__global__ void relu_kernel(const float *x, float *y, int n)\n"
	"{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"    if (i < n) { y[i] = x[i] > 0.0f ? x[i] : 0.0f; }\n}\n";

static void
map_lifts_with_launcher_names(void **state)
{
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "relu", "const float *in:in, float *out:out, int count:scalar",
	                               relu_closure,
	                               "void relu(const float *in, float *out, int count)\n{\n"
	                               "    int t = 256;\n    relu_kernel<<<(count + t - 1) / t, t>>>(in, out, count);\n}\n"),
	                   "launcher relu\n"
	                   "stage 0 map kernel=relu_kernel n=count\n"
	                   "  let float st0_0 = ((in[i] > 0.0f) ? in[i] : 0.0f)\n"
	                   "  store out[i] = st0_0\n");
}

static void
guards_and_index_spellings_lift(void **state)
{
	/* early return guard, commuted index, casts, a macro, a grid-stride loop */
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "f", "const float *a:in, float *b:out, int n:scalar",
	                               "#define SCALE 2.0f\n"
	                               "__global__ void k1(const float *a, float *b, int n) {\n"
	                               "  size_t i = threadIdx.x + (size_t)blockDim.x * blockIdx.x;\n"
	                               "  if (i >= n) return;\n  b[i] = SCALE * a[i];\n}\n"
	                               "__global__ void k2(float *b, int n) {\n"
	                               "  for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += gridDim.x * blockDim.x)\n"
	                               "    b[j] += 1.0f;\n}\n",
	                               "void f(const float *a, float *b, int n) {\n  k1<<<n / 256 + 1, 256>>>(a, b, n);\n"
	                               "  k2<<<64, 256>>>(b, n);\n  cudaDeviceSynchronize();\n}\n"),
	                   "launcher f\n"
	                   "stage 0 map kernel=k1 n=n\n"
	                   "  let float st0_0 = (2.0f * a[i])\n"
	                   "  store b[i] = st0_0\n"
	                   "stage 1 map kernel=k2 n=n\n"
	                   "  let float st0_1 = (b[i] + 1.0f)\n"
	                   "  store b[i] = st0_1\n");
}

static void
launcher_idioms_lift(void **state)
{
	/* a local stride, CUDA_CHECK around syncs, CEIL_DIV geometry, a null stream */
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "f", "const float *x:in, float *y:out, int n:scalar",
	                               "#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))\n"
	                               "#define CUDA_CHECK(e) do { cudaError_t r = (e); if (r) abort(); } while (0)\n"
	                               "__global__ void k(const float *x, float *y, int n) {\n"
	                               "  int idx = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                               "  int stride = blockDim.x * gridDim.x;\n"
	                               "  for (int i = idx; i < n; i += stride) y[i] = tanhf(x[i]);\n}\n",
	                               "void f(const float *x, float *y, int n) {\n"
	                               "  int blocks = CEIL_DIV(n, 256);\n"
	                               "  k<<<blocks, 256, 0, 0>>>(x, y, n);\n"
	                               "  CUDA_CHECK(cudaGetLastError());\n}\n"),
	                   "launcher f\n"
	                   "stage 0 map kernel=k n=n\n"
	                   "  let float st0_0 = tanhf(x[i])\n"
	                   "  store y[i] = st0_0\n");
}

static void
broadcast_and_host_locals_lift(void **state)
{
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "addb", "const float *x:in, const float *bias:in, float *y:out, int rows:scalar, int cols:scalar",
	                               "__global__ void k(const float *x, const float *b, float *y, int n, int c) {\n"
	                               "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                               "  if (i < n) y[i] = x[i] + b[i % c];\n}\n",
	                               "void addb(const float *x, const float *bias, float *y, int rows, int cols) {\n"
	                               "  int n = rows * cols;\n  k<<<(n + 255) / 256, 256>>>(x, bias, y, n, cols);\n}\n"),
	                   "launcher addb\n"
	                   "stage 0 map kernel=k n=(rows * cols)\n"
	                   "  let float st0_0 = (x[i] + bias[(i % cols)])\n"
	                   "  store y[i] = st0_0\n");
}

static void
two_d_maps_flatten_to_one_index(void **state)
{
	/* dim3 geometry, a 2-D guard, r * cols + c folded back to the flat index,
	 * and a row/column split computed before the guard */
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "f", "const float *x:in, const float *b:in, float *y:out, float *z:out, int rows:scalar, int cols:scalar",
	                               "__global__ void k(const float *x, const float *b, float *y, int rows, int cols) {\n"
	                               "  int c = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                               "  int r = blockIdx.y * blockDim.y + threadIdx.y;\n"
	                               "  if (r >= rows || c >= cols) return;\n"
	                               "  y[r * cols + c] = x[r * cols + c] * b[c];\n}\n"
	                               "__global__ void k2(const float *b, float *z, int n, int cols) {\n"
	                               "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                               "  int col = i % cols;\n"
	                               "  if (i < n) z[i] = b[col];\n}\n",
	                               "void f(const float *x, const float *b, float *y, float *z, int rows, int cols) {\n"
	                               "  dim3 block(32, 8);\n  dim3 grid((cols + 31) / 32, (rows + 7) / 8);\n"
	                               "  k<<<grid, block>>>(x, b, y, rows, cols);\n"
	                               "  k2<<<(rows * cols + 255) / 256, 256>>>(b, z, rows * cols, cols);\n}\n"),
	                   "launcher f\n"
	                   "stage 0 map kernel=k n=(rows * cols)\n"
	                   "  let float st0_0 = (x[i] * b[(i % cols)])\n"
	                   "  store y[i] = st0_0\n"
	                   "stage 1 map kernel=k2 n=(rows * cols)\n"
	                   "  let int col_1 = (i % cols)\n"
	                   "  let float st0_1 = b[col_1]\n"
	                   "  store z[i] = st0_1\n");
}

static void
branches_become_selects(void **state)
{
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "f", "const float *x:in, float *y:out, float *m:out, int rows:scalar, int cols:scalar",
	                               "__global__ void k(const float *x, float *y, int n) {\n"
	                               "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                               "  if (i < n) {\n    float v = x[i];\n    if (v < 0.0f) v = 0.0f;\n"
	                               "    if (v > 6.0f) y[i] = 6.0f; else y[i] = v;\n  }\n}\n"
	                               "__global__ void r(const float *x, float *m, int rows, int cols) {\n"
	                               "  int row = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                               "  if (row < rows) {\n    float best = x[row * cols], pos = 0.0f;\n"
	                               "    for (int j = 1; j < cols; j++) {\n"
	                               "      if (x[row * cols + j] > best) best = x[row * cols + j];\n    }\n"
	                               "    for (int j = 0; j < cols; j++)\n      if (x[row * cols + j] > 0.0f) pos += x[row * cols + j];\n"
	                               "    m[row] = best + pos;\n  }\n}\n",
	                               "void f(const float *x, float *y, float *m, int rows, int cols) {\n"
	                               "  k<<<rows * cols / 256 + 1, 256>>>(x, y, rows * cols);\n"
	                               "  r<<<rows / 256 + 1, 256>>>(x, m, rows, cols);\n}\n"),
	                   "launcher f\n"
	                   "stage 0 map kernel=k n=(rows * cols)\n"
	                   "  let float v_0 = x[i]\n"
	                   "  set v_0 = ((v_0 < 0.0f) ? 0.0f : v_0)\n"
	                   "  let float st0_0 = ((v_0 > 6.0f) ? 6.0f : v_0)\n"
	                   "  store y[i] = st0_0\n"
	                   "stage 1 rows kernel=r n=rows\n"
	                   "  let float best_1 = x[(row * cols)]\n"
	                   "  let float pos_1 = 0.0f\n"
	                   "  loop col < (cols - 1)\n"
	                   "    acc max best_1 <- x[(((row * cols) + 1) + col)]\n"
	                   "  loop col < cols\n"
	                   "    acc sum pos_1 <- ((x[((row * cols) + col)] > 0.0f) ? x[((row * cols) + col)] : 0)\n"
	                   "  let float st0_1 = (best_1 + pos_1)\n"
	                   "  store m[row] = st0_1\n");
}

static const char softmax_closure[] =
	"__global__ void sm(const float *x, float *y, int rows, int cols) {\n"
	"  int row = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"  if (row < rows) {\n"
	"    const float *xr = x + row * cols;\n"
	"    float m = -INFINITY;\n"
	"    for (int j = 0; j < cols; j++) m = fmaxf(m, xr[j]);\n"
	"    float s = 0.0f;\n"
	"    for (int j = 0; j < cols; j++) s += expf(xr[j] - m);\n"
	"    for (int j = 0; j < cols; j++) y[row * cols + j] = expf(xr[j] - m) / s;\n"
	"  }\n}\n";

static void
softmax_lifts_as_rows_with_accumulators(void **state)
{
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "softmax", "const float *x:in, float *y:out, int rows:scalar, int cols:scalar",
	                               softmax_closure,
	                               "void softmax(const float *x, float *y, int rows, int cols) {\n"
	                               "  sm<<<(rows + 127) / 128, 128>>>(x, y, rows, cols);\n}\n"),
	                   "launcher softmax\n"
	                   "stage 0 rows kernel=sm n=rows\n"
	                   "  let float m_0 = (-INFINITY)\n"
	                   "  loop col < cols\n"
	                   "    acc max m_0 <- x[((row * cols) + col)]\n"
	                   "  let float s_0 = 0.0f\n"
	                   "  loop col < cols\n"
	                   "    acc sum s_0 <- expf((x[((row * cols) + col)] - m_0))\n"
	                   "  loop col < cols\n"
	                   "    let float st0_0 = (expf((x[((row * cols) + col)] - m_0)) / s_0)\n"
	                   "    store y[((row * cols) + col)] = st0_0\n");
}

static void
norm_lifts_with_row_level_code(void **state)
{
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "ln", "const float *x:in, const float *g:in, float *y:out, int r:scalar, int c:scalar, float eps:scalar",
	                               "__global__ void k(const float *x, const float *g, float *y, int r, int c, float eps) {\n"
	                               "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                               "  if (i < r) {\n"
	                               "    float mean = 0, sq = 0;\n"
	                               "    for (int j = 0; j < c; ++j) { float v = x[i * c + j]; mean += v; sq = sq + v * v; }\n"
	                               "    mean /= c;\n"
	                               "    float inv = rsqrtf(sq / c - mean * mean + eps);\n"
	                               "    for (int j = 0; j < c; j++) y[i * c + j] = (x[i * c + j] - mean) * inv * g[j];\n"
	                               "  }\n}\n",
	                               "void ln(const float *x, const float *g, float *y, int r, int c, float eps) {\n"
	                               "  k<<<r, 1>>>(x, g, y, r, c, eps);\n}\n"),
	                   "launcher ln\n"
	                   "stage 0 rows kernel=k n=r\n"
	                   "  let float mean_0 = 0\n"
	                   "  let float sq_0 = 0\n"
	                   "  loop col < c\n"
	                   "    let float v_0 = x[((row * c) + col)]\n"
	                   "    acc sum mean_0 <- v_0\n"
	                   "    acc sum sq_0 <- (v_0 * v_0)\n"
	                   "  set mean_0 = (mean_0 / c)\n"
	                   "  let float inv_0 = rsqrtf((((sq_0 / c) - (mean_0 * mean_0)) + eps))\n"
	                   "  loop col < c\n"
	                   "    let float st0_0 = (((x[((row * c) + col)] - mean_0) * inv_0) * g[col])\n"
	                   "    store y[((row * c) + col)] = st0_0\n");
}

static void
full_reduction_lifts_with_its_memset(void **state)
{
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "ss", "const float *x:in, float *out:out, int n:scalar",
	                               "__global__ void k(const float *x, float *out, int n) {\n"
	                               "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                               "  if (i < n) { float v = x[i]; atomicAdd(&out[0], v * v); }\n}\n",
	                               "void ss(const float *x, float *out, int n) {\n"
	                               "  cudaMemset(out, 0, sizeof(float));\n  k<<<(n + 255) / 256, 256>>>(x, out, n);\n}\n"),
	                   "launcher ss\n"
	                   "stage 0 memset buffer=out n=sizeof(float)\n"
	                   "stage 1 reduce kernel=k n=n\n"
	                   "  let float v_1 = x[i]\n"
	                   "  acc sum out[0] <- (v_1 * v_1)\n");
}

static void
single_thread_kernels_lift_as_one_row(void **state)
{
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "nrm", "const float *x:in, float *out:out, int n:scalar",
	                               "__global__ void k(const float *x, float *out, int n) {\n"
	                               "  if (threadIdx.x == 0 && blockIdx.x == 0) {\n    float s = 0.0f;\n"
	                               "    for (int i = 0; i < n; i++) s += x[i] * x[i];\n"
	                               "    *out = sqrtf(s);\n  }\n}\n",
	                               "void nrm(const float *x, float *out, int n) {\n  k<<<1, 1>>>(x, out, n);\n}\n"),
	                   "launcher nrm\n"
	                   "stage 0 rows kernel=k n=1\n"
	                   "  let float s_0 = 0.0f\n"
	                   "  loop col < n\n"
	                   "    acc sum s_0 <- (x[col] * x[col])\n"
	                   "  let float st0_0 = sqrtf(s_0)\n"
	                   "  store out[0] = st0_0\n");
}

static void
kernel_target_lifts_alone(void **state)
{
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_KERNEL, "silu", "const float *x:in, float *y:out, int n:scalar", "",
	                               "__global__ void silu(const float *x, float *y, int n) {\n"
	                               "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                               "  if (i < n) y[i] = x[i] / (1.0f + expf(-x[i]));\n}\n"),
	                   "kernel silu\n"
	                   "stage 0 map kernel=silu n=n\n"
	                   "  let float st0_0 = (x[i] / (1.0f + expf((-x[i]))))\n"
	                   "  store y[i] = st0_0\n");
}

/* Code outside the families: each refusal names its reason. */
static void
expect_not_lifted(const char *kernel, const char *launcher_body, const char *reason)
{
	struct strbuf t = STRBUF_INIT;
	strbuf_addf(&t, "void f(const float *x, float *y, int *h, int n) {\n%s\n}\n", launcher_body);
	char *d = describe(make_bundle(BUNDLE_LAUNCHER, "f", "const float *x:in, float *y:out, int *h:inout, int n:scalar",
	                               kernel, t.buf));
	if (!egg_str_starts(d, "not lifted: ") || !strstr(d, reason))
		fail_msg("expected 'not lifted: ...%s...', got: %s", reason, d);
	free(d);
	strbuf_release(&t);
}

/* A cache-hinted load reads its element like x[i] does, whichever way the
 * pointer is written; a __device__ template called with deduced arguments is a
 * pure call unless a parameter is a pointer. */
static void
cache_hinted_loads_and_deduced_template_calls_lift(void **state)
{
	const char *closure = "namespace m {\ntemplate <typename T> __device__ T sq(T v) { return v * v; }\n}\n"
	                      "template <typename T> __device__ T first(const T *p) { return p[0]; }\n";
	struct strbuf k = STRBUF_INIT;
	strbuf_addf(&k, "%s__global__ void k(const float *x, float *y, int n) {\n"
	                "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                "  if (i < n) y[i] = __ldg(&x[i]) + __ldcg(x + i) * __ldca(i + x) + m::sq(__ldcs((const float *)&x[i]));\n}\n",
	            closure);
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "f", "const float *x:in, float *y:out, int n:scalar", k.buf,
	                               "void f(const float *x, float *y, int n) {\n  k<<<(n + 255) / 256, 256>>>(x, y, n);\n}\n"),
	                   "launcher f\n"
	                   "stage 0 map kernel=k n=n\n"
	                   "  let float st0_0 = ((x[i] + (x[i] * x[i])) + ::m::sq(x[i]))\n"
	                   "  store y[i] = st0_0\n");
	strbuf_reset(&k);
	strbuf_addf(&k, "%s__global__ void k(const float *x, float *y, int n) {\n"
	                "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = first(x + i);\n}\n", closure);
	expect_not_lifted(k.buf, "k<<<(n + 255) / 256, 256>>>(x, y, n);", "a call to 'first', which is not a math function");
	strbuf_release(&k);
}

/* The conversion intrinsics (__float2bfloat16, __bfloat162float, __float2half_rn,
 * __float2int_rz...) are one value in, one value out: they lift as calls kept as
 * spelled, so that a candidate rounds as the reference does, and the IR knows
 * the type each returns.  A function of the same shape that is none stays
 * refused. */
static void
conversion_intrinsics_lift_as_typed_calls(void **state)
{
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "f", "__nv_bfloat16 *y:out, const __nv_bfloat16 *a:in, "
	                               "const __nv_bfloat16 *b:in, int n:scalar",
	                               "__global__ void k(__nv_bfloat16 *y, const __nv_bfloat16 *a, const __nv_bfloat16 *b, int n) {\n"
	                               "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                               "  if (i < n) y[i] = __float2bfloat16(__bfloat162float(a[i]) + __bfloat162float(b[i]));\n}\n",
	                               "void f(__nv_bfloat16 *y, const __nv_bfloat16 *a, const __nv_bfloat16 *b, int n) {\n"
	                               "  k<<<(n + 255) / 256, 256>>>(y, a, b, n);\n}\n"),
	                   "launcher f\n"
	                   "stage 0 map kernel=k n=n\n"
	                   "  let __nv_bfloat16 st0_0 = __float2bfloat16((__bfloat162float(a[i]) + __bfloat162float(b[i])))\n"
	                   "  store y[i] = st0_0\n");
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "f", "const float *x:in, float *y:out, int n:scalar",
	                               "__global__ void k(const float *x, float *y, int n) {\n"
	                               "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                               "  if (i < n) y[i] = __int2float_rn(__float2int_rz(x[i] * 8.0f)) * 0.125f"
	                               " + __half2float(__float2half_rn(x[i]));\n}\n",
	                               "void f(const float *x, float *y, int n) {\n  k<<<(n + 255) / 256, 256>>>(x, y, n);\n}\n"),
	                   "launcher f\n"
	                   "stage 0 map kernel=k n=n\n"
	                   "  let float st0_0 = ((__int2float_rn(__float2int_rz((x[i] * 8.0f))) * 0.125f) + "
	                   "__half2float(__float2half_rn(x[i])))\n"
	                   "  store y[i] = st0_0\n");
	assert_string_equal(ir_conversion_type("__float2bfloat16_rn"), "__nv_bfloat16");
	assert_string_equal(ir_conversion_type("__half2float"), "float");
	assert_string_equal(ir_conversion_type("__float2int_rz"), "int");
	assert_null(ir_conversion_type("__float22bfloat162_rn")); /* a pair: not a scalar conversion */
	expect_not_lifted("__global__ void k(const float *x, float *y, int n) {\n"
	                  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = __float2rounded(x[i]);\n}\n",
	                  "k<<<(n + 255) / 256, 256>>>(x, y, n);", "a call to '__float2rounded', which is not a math function");
}

/* Launcher code whose only effect is the launch geometry does not block lifting:
 * cudaGetDevice and cudaDeviceGetAttribute (through a checking macro named like
 * CUDA's own, cudaCheck) fill locals that size the grid, which the recipes
 * choose themselves; such a local passed to the kernel is refused. */
static void
device_queries_that_size_the_grid_lift(void **state)
{
	static const char kernel[] =
		"#define cudaCheck(e) do { cudaError_t r_ = (e); if (r_ != cudaSuccess) exit(1); } while (0)\n"
		"__global__ void k(const float *x, float *y, int n) {\n"
		"  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = 2.0f * x[i];\n}\n";
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "f", "const float *x:in, float *y:out, int n:scalar", kernel,
	                               "void f(const float *x, float *y, int n) {\n"
	                               "  int dev = 0, sms = 0, per_sm;\n  cudaDeviceProp prop;\n"
	                               "  cudaCheck(cudaGetDevice(&dev));\n"
	                               "  cudaCheck(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));\n"
	                               "  cudaGetDeviceProperties(&prop, dev);\n"
	                               "  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, 256, 0);\n"
	                               "  k<<<sms * per_sm, prop.maxThreadsPerBlock / 4>>>(x, y, n);\n"
	                               "  cudaCheck(cudaGetLastError());\n}\n"),
	                   "launcher f\n"
	                   "stage 0 map kernel=k n=n\n"
	                   "  let float st0_0 = (2.0f * x[i])\n"
	                   "  store y[i] = st0_0\n");
	expect_not_lifted(kernel, "int sms = 0;\n  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);\n"
	                  "  k<<<sms, 256>>>(x, y, sms);", "argument 3 of 'k' has side effects or uses a value computed by a call");
	expect_not_lifted(kernel, "cudaCheck(cudaMemcpy(y, x, n * sizeof(float), cudaMemcpyHostToDevice));\n"
	                  "  k<<<n, 256>>>(x, y, n);", "the launcher calls cudaMemcpy other than device to device");
}

/* A clamped-edge stencil whose clamps are written as selects (r > 0 ? r - 1 : 0)
 * and as one-sided min/max (max(c - 1, 0), min(c + 1, cols - 1)), its column
 * recomputed as t - r * cols, is a stencil: the clamps are known by their values
 * at every point.  A select that is no clamp (it wraps around) is no stencil. */
static void
clamps_written_as_selects_and_one_sided_bounds_lift_as_stencils(void **state)
{
	static const char launcher[] = "void f(const float *x, float *y, int rows, int cols) {\n"
	                               "  k<<<(rows * cols + 255) / 256, 256>>>(x, y, rows, cols);\n}\n";
	static const char params[] = "const float *x:in, float *y:out, int rows:scalar, int cols:scalar";
	struct strbuf k = STRBUF_INIT;
	static const char *const bodies[] = {
		"  int up = r > 0 ? r - 1 : 0, dn = r < rows - 1 ? r + 1 : rows - 1;\n"
		"  int lf = max(c - 1, 0), rt = min(c + 1, cols - 1);\n"
		"  y[t] = x[up * cols + c] + x[dn * cols + c] + x[r * cols + lf] + x[r * cols + rt];\n",
		/* wraps around at the top edge: not a clamp */
		"  int up = r > 0 ? r - 1 : rows - 1;\n  y[t] = x[up * cols + c] + x[t];\n",
	};
	for (size_t i = 0; i < 2; i++) {
		strbuf_reset(&k);
		strbuf_addf(&k, "__global__ void k(const float *x, float *y, int rows, int cols) {\n"
		                "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n  if (t >= rows * cols) return;\n"
		                "  int r = t / cols, c = t - r * cols;\n%s}\n", bodies[i]);
		char *d = describe(make_bundle(BUNDLE_LAUNCHER, "f", params, k.buf, launcher));
		if (!egg_str_starts(d, i == 0 ? "launcher f\nstage 0 stencil kernel=k n=(rows * cols) rows=rows cols=cols\n"
		                              : "launcher f\nstage 0 map kernel=k"))
			fail_msg("case %zu: %s", i, d);
		free(d);
	}
	strbuf_release(&k);
}

/* A border the kernel treats apart by an early return ("if (edge) { y[t] = x[t];
 * return; } y[t] = f(taps)") is both sides of one select: every element stored
 * once, the taps read only where the condition does not hold, and the map is the
 * stencil it is.  On data instead of indices it stays a data-dependent branch. */
static void
early_returns_on_index_conditions_lift_both_sides_as_one_select(void **state)
{
	static const char params[] = "const float *x:in, float *y:out, int rows:scalar, int cols:scalar";
	static const char launcher[] = "void f(const float *x, float *y, int rows, int cols) {\n"
	                               "  k<<<(rows * cols + 255) / 256, 256>>>(x, y, rows, cols);\n}\n";
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "f", params,
	                               "__global__ void k(const float *x, float *y, int rows, int cols) {\n"
	                               "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n  if (t >= rows * cols) return;\n"
	                               "  int r = t / cols, c = t % cols;\n"
	                               "  if (r == 0 || c == 0) { y[t] = x[t]; return; }\n"
	                               "  float d = x[t - cols] + x[t - 1];\n  y[t] = 0.5f * d;\n}\n", launcher),
	                   "launcher f\n"
	                   "stage 0 stencil kernel=k n=(rows * cols) rows=rows cols=cols\n"
	                   "  let float st0_0 = (((((int)row) == 0) || (((int)col) == 0)) ? x[((row * cols) + col)] : 0)\n"
	                   "  let float d_0 = ((!((((int)row) == 0) || (((int)col) == 0))) ? "
	                   "(x[(((row * cols) + col) - cols)] + x[(((row * cols) + col) - 1)]) : 0)\n"
	                   "  let float st1_0 = ((!((((int)row) == 0) || (((int)col) == 0))) ? (0.5f * d_0) : 0)\n"
	                   "  let float sel2_0 = (((((int)row) == 0) || (((int)col) == 0)) ? st0_0 : st1_0)\n"
	                   "  store y[((row * cols) + col)] = sel2_0\n");
	char *d = describe(make_bundle(BUNDLE_LAUNCHER, "f", params,
	                               "__global__ void k(const float *x, float *y, int rows, int cols) {\n"
	                               "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n  if (t >= rows * cols) return;\n"
	                               "  if (x[t] > 0.0f) { y[t] = x[t]; return; }\n"
	                               "  float h = x[t] * 0.5f;\n  y[t] = h * h;\n}\n", launcher));
	assert_string_equal(d, "not lifted: a data-dependent branch\n");
	free(d);
}

/* Loops over a small fixed window centred on the element (for (dr = -1; dr <= 1;
 * ++dr) around taps at t + dr * cols + dc) are unrolled in the element, so that
 * the taps are a stencil's; a window past 64 copies is no stencil. */
static void
small_fixed_windows_unroll_into_stencil_taps(void **state)
{
	static const char launcher[] = "void f(const float *x, const float *w, float *y, int rows, int cols) {\n"
	                               "  k<<<(rows * cols + 255) / 256, 256>>>(x, w, y, rows, cols);\n}\n";
	struct strbuf k = STRBUF_INIT;
	for (int reach = 1; reach <= 4; reach += 3) {
		strbuf_reset(&k);
		strbuf_addf(&k, "__global__ void k(const float *x, const float *w, float *y, int rows, int cols) {\n"
		                "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n  if (t < rows * cols) {\n"
		                "    float s = 0.0f;\n"
		                "    for (int dr = -%d; dr <= %d; ++dr)\n      for (int dc = -%d; dc <= %d; dc++)\n"
		                "        s += w[0] * x[t + dr * cols + dc];\n    y[t] = s;\n  }\n}\n",
		            reach, reach, reach, reach);
		char *d = describe(make_bundle(BUNDLE_LAUNCHER, "f", "const float *x:in, const float *w:in, float *y:out, "
		                               "int rows:scalar, int cols:scalar", k.buf, launcher));
		if (egg_str_starts(d, "launcher f\nstage 0 stencil kernel=k n=(rows * cols)") != (reach == 1))
			fail_msg("reach %d: %s", reach, d);
		free(d);
	}
	strbuf_release(&k);
}

/* A device-to-device cudaMemcpy between two of the launcher's buffers is a copy
 * stage; before a stencil that writes only the interior (its border keeps the
 * element, the copy's), it folds into the stencil, which reads the source
 * instead: one pass.  Before a map that does not store the copy's destination
 * it stays a stage; a copy from the host is refused. */
static void
device_copies_lift_and_fold_into_the_stencil_that_keeps_them(void **state)
{
	static const char params[] = "const float *u:in, float *v:out, float *y:out, int w:scalar, int h:scalar";
	static const char kernel[] =
		"__global__ void k(const float *u, float *v, int w, int h) {\n"
		"  int x = blockIdx.x * blockDim.x + threadIdx.x;\n  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
		"  if (x > 0 && x < w - 1 && y > 0 && y < h - 1) v[y * w + x] = u[y * w + x - 1] + u[y * w + x + 1];\n}\n"
		"__global__ void m(const float *u, float *y, int n) {\n"
		"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = 2.0f * u[i];\n}\n";
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "f", params, kernel,
	                               "void f(const float *u, float *v, float *y, int w, int h) {\n"
	                               "  cudaMemcpy(v, u, sizeof(float) * w * h, cudaMemcpyDeviceToDevice);\n"
	                               "  k<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>(u, v, w, h);\n}\n"),
	                   "launcher f\n"
	                   "stage 0 stencil kernel=k n=(h * w) rows=h cols=w\n"
	                   "  let float st0_1 = (((((col > 0) && (col < (w - 1))) && (row > 0)) && (row < (h - 1))) ? "
	                   "(u[(((row * w) + col) - 1)] + u[(((row * w) + col) + 1)]) : u[((row * w) + col)])\n"
	                   "  store v[((row * w) + col)] = st0_1\n");
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "f", params, kernel,
	                               "void f(const float *u, float *v, float *y, int w, int h) {\n"
	                               "  cudaMemcpy(v, u, w * h * sizeof(*v), cudaMemcpyDeviceToDevice);\n"
	                               "  m<<<(w * h + 255) / 256, 256>>>(u, y, w * h);\n}\n"),
	                   "launcher f\n"
	                   "stage 0 map kernel=cudaMemcpy n=(((size_t)w) * h)\n"
	                   "  let float copy_0 = u[i]\n"
	                   "  store v[i] = copy_0\n"
	                   "stage 1 map kernel=m n=(w * h)\n"
	                   "  let float st0_1 = (2.0f * u[i])\n"
	                   "  store y[i] = st0_1\n");
	expect_not_lifted(kernel, "cudaMemcpy(y, x, n * sizeof(float), cudaMemcpyHostToDevice);",
	                  "cudaMemcpy other than device to device");
}

/* A causal row (for (j = 0; j <= t; j++), t the row's position) is a column loop
 * of t + 1; a launcher scalar computed with sqrtf (1.0f / sqrtf(HS): exact on
 * host and device alike) is an argument like any other; one computed with expf
 * (rounded differently on the device) is refused. */
static void
causal_bounds_and_exact_host_math_lift(void **state)
{
	static const char kernel[] = "__global__ void k(const float *x, float *y, int rows, int len, float s) {\n"
	                             "  int r = blockIdx.x * blockDim.x + threadIdx.x;\n  if (r < rows) {\n"
	                             "    int t = r % len;\n    float m = 0.0f;\n"
	                             "    for (int j = 0; j <= t; j++) m += x[r * len + j] * s;\n    y[r] = m;\n  }\n}\n";
	static const char params[] = "const float *x:in, float *y:out, int rows:scalar, int len:scalar, int d:scalar";
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "f", params, kernel,
	                               "void f(const float *x, float *y, int rows, int len, int d) {\n"
	                               "  float scale = 1.0f / sqrtf((float)d);\n"
	                               "  k<<<(rows + 63) / 64, 64>>>(x, y, rows, len, scale);\n}\n"),
	                   "launcher f\n"
	                   "stage 0 rows kernel=k n=rows\n"
	                   "  let int t_0 = (row % len)\n"
	                   "  let float m_0 = 0.0f\n"
	                   "  loop col < (t_0 + 1)\n"
	                   "    acc sum m_0 <- (x[((row * len) + col)] * (1.0f / sqrtf(((float)d))))\n"
	                   "  let float st0_0 = m_0\n"
	                   "  store y[row] = st0_0\n");
	char *d = describe(make_bundle(BUNDLE_LAUNCHER, "f", params, kernel,
	                               "void f(const float *x, float *y, int rows, int len, int d) {\n"
	                               "  float scale = expf((float)d);\n  k<<<(rows + 63) / 64, 64>>>(x, y, rows, len, scale);\n}\n"));
	assert_string_equal(d, "not lifted: argument 5 of 'k' has side effects or uses a value computed by a call\n");
	free(d);
}

/* A buffer read only where it is not NULL (an optional bias) lifts as a select
 * on the flag (b != nullptr), in each spelling of the test; one read outside
 * the test, or written, is refused. */
static void
optional_pointers_lift_as_a_select_on_a_flag(void **state)
{
	static const char params[] = "const float *x:in, const float *b:in, float *y:out, int n:scalar";
	static const char launcher[] = "void f(const float *x, const float *b, float *y, int n) {\n"
	                               "  k<<<(n + 255) / 256, 256>>>(x, b, y, n);\n}\n";
	static const char head[] = "__global__ void k(const float *x, const float *b, float *y, int n) {\n"
	                           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n";
	static const struct { const char *body, *want; } cases[] = {
		{ "  if (i < n) y[i] = (b != NULL) ? x[i] + b[i] : x[i];\n}\n",
		  "  let float st0_0 = ((b != nullptr) ? (x[i] + b[i]) : x[i])\n" },
		{ "  if (i < n) y[i] = nullptr == b ? x[i] : x[i] * b[i];\n}\n",
		  "  let float st0_0 = ((!(b != nullptr)) ? x[i] : (x[i] * b[i]))\n" },
		{ "  if (i < n) { float v = x[i]; if (b) v += b[i]; y[i] = v; }\n}\n",
		  "  let float v_0 = x[i]\n  set v_0 = ((b != nullptr) ? (v_0 + b[i]) : v_0)\n"
		  "  let float st0_0 = v_0\n" },
		{ "  if (i < n) y[i] = b && b[i] > 0.0f ? x[i] : 0.0f;\n}\n",
		  "  let float st0_0 = (((b != nullptr) && (b[i] > 0.0f)) ? x[i] : 0.0f)\n" },
	};
	struct strbuf k = STRBUF_INIT, want = STRBUF_INIT;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		strbuf_reset(&k);
		strbuf_reset(&want);
		strbuf_addf(&k, "%s%s", head, cases[i].body);
		strbuf_addf(&want, "launcher f\nstage 0 map kernel=k n=n\n%s  store y[i] = st0_0\n", cases[i].want);
		EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "f", params, k.buf, launcher), want.buf);
	}
	strbuf_reset(&k);
	strbuf_addf(&k, "%s  if (i < n) y[i] = x[i] + b[i] * (b ? 1.0f : 0.0f);\n}\n", head);
	char *d = describe(make_bundle(BUNDLE_LAUNCHER, "f", params, k.buf, launcher));
	assert_string_equal(d, "not lifted: 'b' is tested against NULL but also read where the test does not hold\n");
	free(d);
	strbuf_release(&k);
	strbuf_release(&want);
}

/* A buffer stored only where it is not NULL ("if (mean != NULL) mean[r] = m;",
 * "if (rstd) rstd[r] = s;") is an optional output: it lifts, named as such, and
 * every candidate guards its stores.  One that is also read is refused. */
static void
optional_outputs_lift_with_their_stores_guarded(void **state)
{
	static const char params[] = "const float *x:in, float *y:out, float *m:out, int rows:scalar, int C:scalar";
	static const char launcher[] = "void f(const float *x, float *y, float *m, int rows, int C) {\n"
	                               "  k<<<(rows + 255) / 256, 256>>>(x, y, m, rows, C);\n}\n";
	static const char head[] = "__global__ void k(const float *x, float *y, float *m, int rows, int C) {\n"
	                           "  int r = blockIdx.x * blockDim.x + threadIdx.x;\n  if (r < rows) {\n"
	                           "    float s = 0.0f;\n    for (int c = 0; c < C; c++) s += x[r * C + c];\n";
	struct strbuf k = STRBUF_INIT;
	strbuf_addf(&k, "%s    y[r] = s;\n    if (m != NULL) { m[r] = s / C; }\n  }\n}\n", head);
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "f", params, k.buf, launcher),
	                   "launcher f\n"
	                   "optional output m\n"
	                   "stage 0 rows kernel=k n=rows\n"
	                   "  let float s_0 = 0.0f\n"
	                   "  loop col < C\n"
	                   "    acc sum s_0 <- x[((row * C) + col)]\n"
	                   "  let float st0_0 = s_0\n"
	                   "  store y[row] = st0_0\n"
	                   "  let float st1_0 = (s_0 / C)\n"
	                   "  store m[row] = st1_0\n");
	struct builtin_output o = generate(make_bundle(BUNDLE_LAUNCHER, "f", params, k.buf, launcher));
	assert_null(o.not_lifted);
	assert_true(o.n_candidates > 0);
	for (size_t i = 0; i < o.n_candidates; i++)
		if (count(o.candidates[i].source, "m[egg_row] =") != count(o.candidates[i].source, "if (m != nullptr) m[egg_row] ="))
			fail_msg("candidate %zu stores m unguarded", i);
	builtin_output_release(&o);
	strbuf_reset(&k);
	strbuf_addf(&k, "%s    y[r] = m ? m[r] * s : s;\n    if (m) m[r] = s;\n  }\n}\n", head);
	char *d = describe(make_bundle(BUNDLE_LAUNCHER, "f", params, k.buf, launcher));
	if (!egg_str_starts(d, "not lifted: ") || !strstr(d, "'m' is tested against NULL but both written and read"))
		fail_msg("%s", d);
	free(d);
	strbuf_release(&k);
}

static void
outside_the_families_is_not_lifted_with_a_reason(void **state)
{
	expect_not_lifted("__global__ void k(const float *x, float *y, int n) {\n"
	                  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                  "  if (i < n) { float v = x[i]; while (v > 1.0f) v *= 0.5f; y[i] = v; }\n}\n",
	                  "k<<<n, 1>>>(x, y, n);", "data-dependent loop");
	expect_not_lifted("__global__ void k(const float *x, int *h, int n) {\n"
	                  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                  "  if (i < n) atomicAdd(&h[(int)x[i]], 1);\n}\n",
	                  "k<<<n, 1>>>(x, h, n);", "histogram");
	expect_not_lifted("__global__ void k(const float *x, float *y, int n) {\n"
	                  "  int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                  "  if (r < 1) { float s = 0; for (int j = 0; j < n; j++) { s = s * 0.5f + x[j]; y[j] = s; } }\n}\n",
	                  "k<<<1, 1>>>(x, y, n);", "not a sum, product, max or min");
	expect_not_lifted("__global__ void k(const float *x, float *y, int n) {\n"
	                  "  __shared__ float s[256];\n  int t = threadIdx.x;\n  s[t] = x[t];\n  __syncthreads();\n}\n",
	                  "k<<<1, 256>>>(x, y, n);", "shared memory");
	expect_not_lifted("__global__ void k(const float *x, float *y, int n) {\n"
	                  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                  "  if (i < n) { float s = 0; for (int a = 0; a < n; a++) for (int b = 0; b < a; b++) s += x[a * n + b]; y[i] = s; }\n}\n",
	                  "k<<<n, 1>>>(x, y, n);", "nested loops");
	expect_not_lifted("__global__ void k(const float *x, float *y, int n) {\n"
	                  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                  "  if (i < n) { if (x[i] > 0) y[i] = 1; }\n}\n",
	                  "k<<<n, 1>>>(x, y, n);", "partial write");
	expect_not_lifted("__global__ void k(const float *x, float *y, int n) {\n"
	                  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                  "  if (i < n) { float v = x[i]; if (v > 0) { v = 1; y[i] = v; } }\n}\n",
	                  "k<<<n, 1>>>(x, y, n);", "data-dependent branch");
	expect_not_lifted("__global__ void k(const float *x, float *y, int n) {\n"
	                  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = x[i];\n}\n",
	                  "float *t = y + 1; k<<<n, 1>>>(x, t, n);", "not a scalar");
	expect_not_lifted("__global__ void k(const float *x, float *y, int n) {\n"
	                  "  y[threadIdx.x] = x[threadIdx.x];\n}\n",
	                  "k<<<1, 32>>>(x, y, n);", "thread index");
	expect_not_lifted("template <typename T> __global__ void k(const T *x) { }\n", "k<<<1, 1>>>(x);",
	                  "launched without template arguments");
	expect_not_lifted("__global__ void k(const float *x, float *y, int n) {\n"
	                  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = x[i];\n}\n",
	                  "cudaStream_t s = 0; k<<<n, 1, 0, s>>>(x, y, n);", "stream");
	expect_not_lifted("__global__ void k(const float *x, float *y, int n) {\n"
	                  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = x[i];\n}\n",
	                  "int m = clamp(n); k<<<n, 1>>>(x, y, m);", "computed by a call");
}

/* Atomics no recipe takes are refused with the buffer and the shape named:
 * rows scattered by an index (an embedding's backward, dwte[ix * C + c]),
 * threads that collide by their index (dwpe[t * C + c] summed over b), sums
 * over the rows inside a row's loop (a layer norm's dbias[i]). */
static void
atomics_outside_the_recipes_are_refused_naming_their_buffer_and_shape(void **state)
{
	expect_not_lifted("__global__ void k(const float *x, int *h, int n) {\n"
	                  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                  "  if (i < n) { int ix = (int)x[i / 8]; atomicAdd(&h[ix * 8 + i % 8], 1); }\n}\n",
	                  "k<<<n, 1>>>(x, h, n);",
	                  "an atomic into 'h' at an element computed from both loaded data and the thread index");
	expect_not_lifted("__global__ void k(const float *x, float *y, int n) {\n"
	                  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                  "  if (i < n) atomicAdd(&y[i % 16], x[i]);\n}\n",
	                  "k<<<n, 1>>>(x, y, n);", "an atomic into 'y' at an element computed from the thread index");
	expect_not_lifted("__global__ void k(const float *x, float *y, int n) {\n"
	                  "  int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                  "  if (r < n) { for (int j = 0; j < 16; j++) atomicAdd(&y[j], x[r * 16 + j]); }\n}\n",
	                  "k<<<n, 1>>>(x, y, n);", "an atomic into 'y' inside a loop (sums over the rows");
}

/* The generic path counts a kernel's name where the code names it, not in a
 * string or a comment of the launcher: one that passes it to its error check
 * as a message keeps its generic candidates; one that takes its attributes
 * (code that would apply to the original) has none. */
static void
kernel_names_in_strings_and_comments_do_not_block_the_generic_path(void **state)
{
	static const char kernel[] = "static void check(cudaError_t e, const char *what) { if (e) exit(1); }\n"
	                             "__global__ void k(const float *x, float *y, int n) {\n"
	                             "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                             "  if (i < n) { float v = x[i]; while (v > 1.0f) v *= 0.5f; y[i] = v; }\n}\n";
	static const char params[] = "const float *x:in, float *y:out, int n:scalar";
	struct builtin_output o = generate(make_bundle(BUNDLE_LAUNCHER, "f", params, kernel,
	                                               "void f(const float *x, float *y, int n) {\n"
	                                               "  k<<<(n + 255) / 256, 256>>>(x, y, n); // k halves\n"
	                                               "  check(cudaGetLastError(), \"k\");\n}\n"));
	assert_true(o.n_candidates > 0);
	assert_non_null(strstr(o.candidates[0].label, "generic"));
	builtin_output_release(&o);
	o = generate(make_bundle(BUNDLE_LAUNCHER, "f", params, kernel,
	                         "void f(const float *x, float *y, int n) {\n  cudaFuncAttributes a;\n"
	                         "  cudaFuncGetAttributes(&a, k);\n  k<<<(n + 255) / 256, 256>>>(x, y, n);\n}\n"));
	assert_int_equal(o.n_candidates, 0);
	assert_non_null(strstr(o.not_lifted, "the launcher names 'k' other than in its launches"));
	builtin_output_release(&o);
}

static void
launch_chain_fuses_into_one_pass_without_the_temp(void **state)
{
	struct builtin_output o = generate(make_bundle(
		BUNDLE_LAUNCHER, "bg", "const float *x:in, const float *b:in, float *t:temp, float *y:out, int n:scalar, int c:scalar",
		"__device__ float act(float v) { return v > 0.0f ? v : 0.01f * v; }\n"
		"__global__ void k1(const float *x, const float *b, float *t, int n, int c) {\n"
		"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) t[i] = x[i] + b[i % c];\n}\n"
		"__global__ void k2(const float *t, float *y, int n) {\n"
		"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = act(t[i]);\n}\n",
		"void bg(const float *x, const float *b, float *t, float *y, int n, int c) {\n"
		"  k1<<<(n + 255) / 256, 256>>>(x, b, t, n, c);\n  k2<<<(n + 255) / 256, 256>>>(t, y, n);\n}\n"));
	assert_null(o.not_lifted);
	assert_true(o.n_candidates >= 4);
	for (size_t i = 0; i < o.n_candidates; i++) {
		const char *s = o.candidates[i].source;
		assert_int_equal(count(s, "<<<"), 1);        /* one launch */
		assert_null(strstr(s, "t["));                /* the temp is neither read nor written */
		assert_non_null(strstr(s, "act("));
		assert_non_null(strstr(s, "void bg(const float *x"));
		assert_non_null(strstr(o.candidates[i].label, "elementwise"));
	}
	assert_non_null(strstr(o.candidates[0].source, "float4"));
	builtin_output_release(&o);
}

/* The count reaches one kernel as its own guard (i < rows * cols) and the next
 * as a launcher local (int n = rows * cols): the same extent, so one pass, and
 * the first store, overwritten in place by the second, is never written. */
static void
chain_with_the_count_in_a_launcher_local_fuses(void **state)
{
	struct builtin_output o = generate(make_bundle(
		BUNDLE_LAUNCHER, "bg", "const float *x:in, const float *b:in, float *y:out, int rows:scalar, int cols:scalar",
		"__global__ void add(const float *x, const float *b, float *y, int rows, int cols) {\n"
		"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < rows * cols) y[i] = x[i] + b[i % cols];\n}\n"
		"__global__ void act(float *y, int n) {\n"
		"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
		"  if (i < n) { float v = y[i]; y[i] = 0.5f * v * (1.0f + erff(v)); }\n}\n",
		"void bg(const float *x, const float *b, float *y, int rows, int cols) {\n"
		"  int n = rows * cols;\n"
		"  add<<<(n + 255) / 256, 256>>>(x, b, y, rows, cols);\n  act<<<(n + 255) / 256, 256>>>(y, n);\n}\n"));
	assert_null(o.not_lifted);
	assert_true(o.n_candidates >= 4);
	for (size_t i = 0; i < o.n_candidates; i++) {
		const char *s = o.candidates[i].source;
		assert_int_equal(count(s, "<<<"), 1);
		assert_int_equal(count(s, "__global__"), 1);
		assert_non_null(strstr(s, "erff("));
		assert_null(strstr(s, "= y["));      /* the intermediate is never read back */
	}
	builtin_output_release(&o);
}

/* A broadcast operand's column (i % cols) and an NCHW channel ((i / hw) % c) are
 * divided once per vector, each lane stepping from there; the vector path asks
 * for divisors its one-wrap stepping holds for, and the scalar path keeps the
 * division as written. */
static void
divisions_by_an_invariant_are_done_once_per_vector(void **state)
{
	struct builtin_output o = generate(make_bundle(
		BUNDLE_LAUNCHER, "bn", "const float *x:in, const float *s:in, const float *b:in, float *y:out, int n:scalar, int c:scalar, int hw:scalar",
		"__global__ void k(const float *x, const float *s, const float *b, float *y, int n, int c, int hw) {\n"
		"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
		"  if (i < n * c * hw) { int ch = (i / hw) % c; y[i] = x[i] * s[ch] + b[i % hw]; }\n}\n",
		"void bn(const float *x, const float *s, const float *b, float *y, int n, int c, int hw) {\n"
		"  k<<<(n * c * hw + 255) / 256, 256>>>(x, s, b, y, n, c, hw);\n}\n"));
	assert_null(o.not_lifted);
	const char *src = o.candidates[0].source;
	assert_non_null(strstr(o.candidates[0].label, "vec=4"));
	assert_non_null(strstr(src, "egg_q = egg_b / (hw), egg_r = egg_b - egg_q * (hw)"));
	assert_non_null(strstr(src, "egg_m = egg_q % (c)"));
	assert_non_null(strstr(src, "int ch_0 = egg_dm0[egg_lane];"));
	assert_non_null(strstr(src, "__ldg(&b[egg_dr0[egg_lane]])"));
	assert_non_null(strstr(src, "&& (hw) >= 4 && (c) >= 1)"));
	assert_int_equal(count(src, "const int egg_lane = "), 4);
	assert_non_null(strstr(src, "int ch_0 = ((egg_e / hw) % c);"));
	for (size_t i = 0; i < o.n_candidates; i++)
		if (strstr(o.candidates[i].label, "vec=1"))
			assert_null(strstr(o.candidates[i].source, "egg_lane"));
	builtin_output_release(&o);
	/* a float divisor divides as a float, and a divisor of unknown type stays */
	o = generate(make_bundle(
		BUNDLE_LAUNCHER, "fd", "const float *x:in, float *y:out, int n:scalar, float s:scalar",
		"__global__ void k(const float *x, float *y, int n, float s) {\n"
		"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
		"  if (i < n) y[i] = x[i] * (i / s) + (float)(i / 2.0f);\n}\n",
		"void fd(const float *x, float *y, int n, float s) {\n"
		"  k<<<(n + 255) / 256, 256>>>(x, y, n, s);\n}\n"));
	assert_null(o.not_lifted);
	assert_true(o.n_candidates > 0);
	for (size_t i = 0; i < o.n_candidates; i++)
		assert_null(strstr(o.candidates[i].source, "egg_lane"));
	builtin_output_release(&o);
}

static struct builtin_output
nchw_map(const char *body)
{
	char *closure = egg_xasprintf(
		"__global__ void k(const float *x, const float *m, const float *v, float *y, int n, int c, int hw, float eps) {\n"
		"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n * c * hw) { %s }\n}\n", body);
	struct builtin_output o = generate(make_bundle(
		BUNDLE_LAUNCHER, "nm", "const float *x:in, const float *m:in, const float *v:in, float *y:out, int n:scalar, int c:scalar, int hw:scalar, float eps:scalar",
		closure,
		"void nm(const float *x, const float *m, const float *v, float *y, int n, int c, int hw, float eps) {\n"
		"  k<<<(n * c * hw + 255) / 256, 256>>>(x, m, v, y, n, c, hw, eps);\n}\n"));
	free(closure);
	return o;
}

static size_t
planes_candidates(const struct builtin_output *o)
{
	size_t n = 0;
	for (size_t i = 0; i < o->n_candidates; i++)
		if (strstr(o->candidates[i].label, "planes")) {
			assert_non_null(strstr(o->candidates[i].source, "egg_p"));
			n++;
		} else {
			assert_null(strstr(o->candidates[i].source, "egg_np"));
		}
	return n;
}

/* grid=full points launch a block per tpb x inflight vectors with no cap; the
 * others one wave of resident blocks, sized by the occupancy asked at run time */
static void
full_grid_points_launch_a_block_per_chunk_without_the_wave_cap(void **state)
{
	struct builtin_output o = nchw_map("y[i] = x[i] * 2.0f;");
	assert_null(o.not_lifted);
	size_t full = 0, wave = 0;
	for (size_t i = 0; i < o.n_candidates; i++) {
		const char *src = o.candidates[i].source, *launcher = strstr(src, "egg_g =");
		assert_non_null(launcher);
		if (strstr(o.candidates[i].label, "grid=full")) {
			full++;
			assert_null(strstr(src, "cudaOccupancyMaxActiveBlocksPerMultiprocessor"));
			assert_null(strstr(src, "egg_cap"));
		} else if (!strstr(o.candidates[i].label, "planes")) {
			wave++;
			assert_non_null(strstr(src, "cudaOccupancyMaxActiveBlocksPerMultiprocessor"));
		}
	}
	assert_int_equal(full, 3);
	assert_true(wave > 0);
	/* tpb=256 inflight=2 at 4 floats per vector: 512 vectors per block */
	const struct builtin_candidate *cd = NULL;
	for (size_t i = 0; i < o.n_candidates; i++)
		if (strcmp(o.candidates[i].label, "elementwise tpb=256 vec=4 inflight=2 grid=full") == 0)
			cd = &o.candidates[i];
	assert_non_null(cd);
	assert_non_null(strstr(cd->source, " + 512 - 1) / 512;"));
	assert_non_null(strstr(cd->source, "<<<(unsigned)egg_g, 256>>>"));
	builtin_output_release(&o);
	(void)state;
}

static void
planes_pass_computes_what_depends_on_the_channel_once_per_plane(void **state)
{
	struct builtin_output o = nchw_map("int ch = (i / hw) % c; y[i] = (x[i] - m[ch]) / sqrtf(v[ch] + eps);");
	assert_null(o.not_lifted);
	assert_int_equal(planes_candidates(&o), 2);
	const struct builtin_candidate *cd = NULL;
	for (size_t i = 0; i < o.n_candidates; i++)
		if (strstr(o.candidates[i].label, "planes"))
			cd = &o.candidates[i];
	assert_non_null(cd);
	assert_string_equal(cd->label, "elementwise tpb=512 vec=4 inflight=2 planes (else streamed)");
	const char *src = cd->source;
	/* per plane: the channel, its gathers and the square root */
	assert_non_null(strstr(src, "const long long egg_x = hw;"));
	assert_non_null(strstr(src, "\t\tint ch_0 = (egg_p % c);\n"
	                            "\t\tconst auto egg_h0 __attribute__((unused)) = __ldg(&m[ch_0]);\n"
	                            "\t\tconst auto egg_h1 __attribute__((unused)) = sqrtf((__ldg(&v[ch_0]) + eps));\n"));
	/* per element: the stream and the arithmetic that needs it, 16 bytes at a time */
	assert_non_null(strstr(src, "egg_l0[egg_u] = __ldg(reinterpret_cast<const float4 *>(&x[(egg_o + egg_w * 4)]));"));
	assert_non_null(strstr(src, "float st0_0 = ((egg_l0[egg_u].w - egg_h0) / egg_h1);"));
	assert_non_null(strstr(src, "*reinterpret_cast<float4 *>(&y[(egg_o + egg_w * 4)]) = egg_s1;"));
	assert_non_null(strstr(src, "egg_x % 4 == 0"));
	/* an odd plane goes scalar with the hoisted values; the elements after the last
	 * whole plane as written */
	assert_non_null(strstr(src, "float st0_0 = ((__ldg(&x[egg_e]) - egg_h0) / egg_h1);"));
	assert_non_null(strstr(src, "int ch_0 = ((egg_e / hw) % c);"));
	assert_int_equal(count(src, "sqrtf("), 2);
	/* a block per plane, at most one wave */
	assert_non_null(strstr(src, "long long egg_g = ((long long)((hw) > 0 ? (long long)(((n * c) * hw)) / (hw) : 0) + 1 - 1) / 1;"));
	builtin_output_release(&o);
}

static void
planes_pass_is_not_used_where_a_gather_changes_along_the_plane(void **state)
{
	static const char *const bodies[] = {
		/* a broadcast operand read by the position inside the plane */
		"int ch = (i / hw) % c; y[i] = x[i] * m[ch] + v[i % hw];",
		/* no gather at all */
		"y[i] = x[i] > 0.0f ? x[i] : 0.0f;",
		/* two plane lengths */
		"y[i] = x[i] * m[i / hw] + v[i / c];",
		/* a gather under a condition stays guarded, per element */
		"y[i] = x[i] > eps ? x[i] * m[(i / hw) % c] : 0.0f;",
	};
	for (size_t b = 0; b < sizeof bodies / sizeof *bodies; b++) {
		struct builtin_output o = nchw_map(bodies[b]);
		assert_null(o.not_lifted);
		assert_true(o.n_candidates > 0);
		assert_int_equal(planes_candidates(&o), 0);
		builtin_output_release(&o);
	}
}

static void
map_into_a_temp_folds_into_the_row_program(void **state)
{
	struct builtin_output o = generate(make_bundle(
		BUNDLE_LAUNCHER, "bs", "const float *x:in, const float *b:in, float *t:temp, float *y:out, int rows:scalar, int cols:scalar",
		"__global__ void k1(const float *x, const float *b, float *t, int n, int c) {\n"
		"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) { float v = x[i] * 2.0f; t[i] = v + b[i % c]; }\n}\n"
		"__global__ void k2(const float *t, float *y, int rows, int cols) {\n"
		"  int r = blockIdx.x * blockDim.x + threadIdx.x;\n  if (r < rows) {\n"
		"    float s = 0.0f;\n    for (int j = 0; j < cols; j++) s += t[r * cols + j];\n"
		"    for (int j = 0; j < cols; j++) y[r * cols + j] = t[r * cols + j] - s / cols;\n  }\n}\n",
		"void bs(const float *x, const float *b, float *t, float *y, int rows, int cols) {\n"
		"  k1<<<rows * cols / 256 + 1, 256>>>(x, b, t, rows * cols, cols);\n"
		"  k2<<<rows / 128 + 1, 128>>>(t, y, rows, cols);\n}\n"));
	assert_null(o.not_lifted);
	/* the description shows both launches; every candidate runs one kernel that
	 * never touches the temp and reads the broadcast operand by column */
	assert_non_null(strstr(o.description, "stage 1 rows kernel=k2"));
	for (size_t i = 0; i < o.n_candidates; i++) {
		const char *src = o.candidates[i].source;
		assert_null(strstr(src, "t["));
		assert_non_null(strstr(src, "b[egg_j]"));
		if (!strstr(o.candidates[i].label, "auto"))
			assert_int_equal(count(src, "<<<"), 1);
	}
	builtin_output_release(&o);
}

static void
rows_and_reductions_emit_every_point(void **state)
{
	struct builtin_output o = generate(make_bundle(
		BUNDLE_LAUNCHER, "softmax", "const float *x:in, float *y:out, int rows:scalar, int cols:scalar",
		softmax_closure,
		"void softmax(const float *x, float *y, int rows, int cols) {\n"
		"  sm<<<(rows + 127) / 128, 128>>>(x, y, rows, cols);\n}\n"));
	assert_null(o.not_lifted);
	assert_true(o.n_candidates >= 6);
	int warp = 0, block = 0;
	for (size_t i = 0; i < o.n_candidates; i++) {
		warp += strstr(o.candidates[i].label, "threads_per_row=32 ") != NULL;
		block += strstr(o.candidates[i].label, "threads_per_row=1024") != NULL &&
		         !strstr(o.candidates[i].label, "passes=registers");
		assert_non_null(strstr(o.candidates[i].source, "__shfl_xor_sync"));
	}
	assert_true(warp >= 2);
	assert_int_equal(block, 1);
	/* the auto point chooses warp or block per call from the row length */
	assert_non_null(strstr(o.candidates[1].label, "threads_per_row=auto"));
	assert_non_null(strstr(o.candidates[1].source, "if ((long long)(cols) <= 2048) {"));
	assert_int_equal(count(o.candidates[1].source, "<<<"), 2);
	/* the max and sum loops run as one online pass, and as written in another point */
	assert_non_null(strstr(o.candidates[0].label, "passes=online"));
	assert_non_null(strstr(o.candidates[0].source, "egg_om"));
	size_t aw = 0;
	while (aw < o.n_candidates && !strstr(o.candidates[aw].label, "passes=as-written"))
		aw++;
	assert_true(aw < o.n_candidates);
	assert_null(strstr(o.candidates[aw].source, "egg_om"));
	builtin_output_release(&o);

	o = generate(make_bundle(BUNDLE_LAUNCHER, "ss", "const float *x:in, float *out:out, int n:scalar",
	                         "__global__ void k(const float *x, float *out, int n) {\n"
	                         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                         "  if (i < n) atomicAdd(out, x[i] * x[i]);\n}\n",
	                         "void ss(const float *x, float *out, int n) {\n"
	                         "  cudaMemset(out, 0, sizeof(float));\n  k<<<(n + 255) / 256, 256>>>(x, out, n);\n}\n"));
	assert_null(o.not_lifted);
	int two_pass = 0, atomic = 0, one = 0;
	for (size_t i = 0; i < o.n_candidates; i++) {
		const int single = strstr(o.candidates[i].label, "one-launch") != NULL;
		/* the one-launch fold stores the sum over the memset's zero */
		if (single)
			assert_null(strstr(o.candidates[i].source, "cudaMemsetAsync"));
		else
			assert_non_null(strstr(o.candidates[i].source, "cudaMemsetAsync(out, 0, sizeof(float))"));
		two_pass += strstr(o.candidates[i].label, "two-pass") != NULL;
		atomic += strstr(o.candidates[i].label, "atomic") != NULL;
		one += single;
	}
	assert_true(two_pass >= 2 && atomic >= 2 && one >= 2);
	builtin_output_release(&o);
}

/* The one-launch mode: one kernel, the last block to draw a ticket folds the
 * partials and puts the ticket back to zero; the memset before it is absorbed only
 * when it clears exactly the destination element of a sum. */
static void
one_launch_reductions_absorb_only_the_memset_of_their_element(void **state)
{
	(void)state;
	static const char *const launchers[] = {
		/* absorbed */
		"void ss(const float *x, float *out, int n) {\n  cudaMemset(out, 0, sizeof(float));\n"
		"  k<<<(n + 255) / 256, 256>>>(x, out, n);\n}\n",
		/* no memset: the sum adds to what out holds */
		"void ss(const float *x, float *out, int n) {\n  k<<<(n + 255) / 256, 256>>>(x, out, n);\n}\n",
		/* the memset clears more than the element */
		"void ss(const float *x, float *out, int n) {\n  cudaMemset(out, 0, 2 * sizeof(float));\n"
		"  k<<<(n + 255) / 256, 256>>>(x, out, n);\n}\n",
		/* the sum reads the buffer it clears (kernel below) */
		"void ss(const float *x, float *out, int n) {\n  cudaMemset(out, 0, sizeof(float));\n"
		"  k<<<(n + 255) / 256, 256>>>(x, out, n);\n}\n",
	};
	for (int v = 0; v < 4; v++) {
		struct builtin_output o = generate(make_bundle(
			BUNDLE_LAUNCHER, "ss", "const float *x:in, float *out:out, int n:scalar",
			v == 3 ? "__global__ void k(const float *x, float *out, int n) {\n"
			         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
			         "  if (i < n) atomicAdd(out, x[i] * out[1]);\n}\n"
			       : "__global__ void k(const float *x, float *out, int n) {\n"
			         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
			         "  if (i < n) atomicAdd(out, x[i] * x[i]);\n}\n",
			launchers[v]));
		assert_null(o.not_lifted);
		int one = 0;
		for (size_t i = 0; i < o.n_candidates; i++) {
			const char *src = o.candidates[i].source;
			if (!strstr(o.candidates[i].label, "one-launch"))
				continue;
			one++;
			assert_null(strstr(src, "egg_nparts")); /* no second kernel */
			assert_non_null(strstr(src, "__device__ unsigned egg_ss_c"));
			assert_non_null(strstr(src, "atomicAdd(&egg_ss_c"));
			assert_non_null(strstr(src, "_ticket = 0;"));
			if (v == 0) {
				assert_null(strstr(src, "cudaMemset"));
				assert_non_null(strstr(src, "out[0] = egg_p_out;"));
			} else {
				assert_non_null(strstr(src, "out[0] = (out[0] + egg_p_out);"));
				assert_true((strstr(src, "cudaMemsetAsync(out, 0, (2 * sizeof(float)))") != NULL) == (v == 2));
				assert_true((strstr(src, "cudaMemsetAsync(out, 0, sizeof(float))") != NULL) == (v == 3));
			}
		}
		assert_int_equal(one, 2);
		builtin_output_release(&o);
	}
}

/* A reduction and a map that reads its one element: points that run both in one
 * cooperative launch (the reduction keeping what the map reads again, a grid
 * barrier, the fold in every block, the map reading the folded value), with the
 * two recipes' launches as the fallback in the same launcher; and the shapes
 * refused. */
static struct builtin_output
reduce_then_map(const char *red_value, const char *map_stmt, int memset)
{
	char *closure = egg_xasprintf(
		"__global__ void r(const float *x, const float *z, float *acc, int n) {\n"
		"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
		"  if (i < n) atomicAdd(acc, %s);\n}\n"
		"__global__ void m(float *x, const float *z, const float *acc, float *y, int n) {\n"
		"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
		"  if (i < n) %s;\n}\n", red_value, map_stmt);
	char *target = egg_xasprintf(
		"void rm(float *x, const float *z, float *y, float *acc, int n) {\n%s"
		"  r<<<(n + 255) / 256, 256>>>(x, z, acc, n);\n"
		"  m<<<(n + 255) / 256, 256>>>(x, z, acc, y, n);\n}\n",
		memset ? "  cudaMemset(acc, 0, sizeof(float));\n" : "");
	struct builtin_output o = generate(make_bundle(
		BUNDLE_LAUNCHER, "rm", "float *x:inout, const float *z:in, float *y:out, float *acc:temp, int n:scalar",
		closure, target));
	free(closure);
	free(target);
	return o;
}

static int
persistent_candidates(const struct builtin_output *o)
{
	int k = 0;
	for (size_t i = 0; i < o->n_candidates; i++)
		k += strstr(o->candidates[i].label, "persist ") != NULL;
	return k;
}

static void
reductions_and_the_maps_that_read_them_run_in_one_cooperative_launch(void **state)
{
	(void)state;
	for (int memset = 1; memset >= 0; memset--) {
		struct builtin_output o = reduce_then_map("x[i] * x[i]", "y[i] = x[i] / sqrtf(acc[0])", memset);
		assert_null(o.not_lifted);
		assert_int_equal(persistent_candidates(&o), 2);
		for (size_t i = 0; i < o.n_candidates; i++) {
			const char *src = o.candidates[i].source;
			if (!strstr(o.candidates[i].label, "persist ")) {
				assert_null(strstr(src, "this_grid"));
				continue;
			}
			/* one barrier; x kept in registers and shared memory, read again from the end */
			assert_int_equal(count(src, "cooperative_groups::this_grid().sync();"), 1);
			assert_non_null(strstr(src, "egg_hp0[egg_w - egg_p] = egg_l0[egg_u];"));
			assert_non_null(strstr(src, "const float4 egg_l0 = egg_hp0[egg_w - egg_p];"));
			assert_true(strstr(src, "float4 egg_h0[8];") || strstr(src, "float4 egg_h0[20];"));
			assert_non_null(strstr(src, "egg_w0 = egg_hi - 1 - threadIdx.x; egg_w0 >= egg_q;"));
			/* the map divides by the folded value, block 0 stores it */
			assert_non_null(strstr(src, "sqrtf(egg_r)"));
			const char *kb = strstr(src, "(cooperative: reduce, grid barrier, map)");
			const char *ke = kb ? strstr(kb, "\n}\n") : NULL;
			assert_non_null(ke);
			char *kern = egg_xstrndup(kb, (size_t)(ke - kb));
			assert_null(strstr(kern, "sqrtf(acc[0])"));
			free(kern);
			assert_non_null(strstr(src, "\t\tacc[0] = egg_r;\n"));
			/* the host: the attribute, the alignment, the launch, then the fallback's two */
			assert_non_null(strstr(src, "cudaDevAttrCooperativeLaunch"));
			assert_non_null(strstr(src, "egg_at[0].id = cudaLaunchAttributeCooperative;"));
			assert_non_null(strstr(src, "egg_g <= 4096 && (((unsigned long long)(&x[0])"));
			const char *fb = strstr(src, "\t\tif (!egg_done) {\n");
			assert_non_null(fb);
			assert_int_equal(count(fb, "<<<"), memset ? 2 : 3); /* one-launch or two-pass */
			if (memset) { /* absorbed by both */
				assert_null(strstr(src, "cudaMemset"));
				assert_null(strstr(src, "egg_init"));
			} else { /* the sum adds to what acc held, read before the barrier */
				assert_non_null(strstr(src, "const float egg_init = acc[0];"));
				assert_non_null(strstr(src, "const float egg_r = (egg_init + egg_p_acc);"));
			}
		}
		builtin_output_release(&o);
	}
	/* a dot product: x kept, z only reduced */
	struct builtin_output o = reduce_then_map("x[i] * z[i]", "y[i] = x[i] * acc[0]", 1);
	assert_int_equal(persistent_candidates(&o), 2);
	for (size_t i = 0; i < o.n_candidates; i++)
		if (strstr(o.candidates[i].label, "persist ")) {
			assert_non_null(strstr(o.candidates[i].source, "egg_hp0"));
			assert_null(strstr(o.candidates[i].source, "egg_hp1"));
			assert_non_null(strstr(o.candidates[i].source, "egg_h1[egg_u] = __ldg(reinterpret_cast<const float4 *>(&z["));
		}
	builtin_output_release(&o);
	/* refused: a map that does not read the result; that writes what is read (x in
	 * place); that reads nothing the reduction read; that reads the result's
	 * buffer elsewhere */
	static const char *const refused[][2] = {
		{ "x[i] * x[i]", "y[i] = x[i] * 2.0f" },
		{ "x[i] * x[i]", "x[i] = x[i] / sqrtf(acc[0])" },
		{ "x[i] * x[i]", "y[i] = z[i] / sqrtf(acc[0])" },
		{ "x[i] * x[i]", "y[i] = x[i] / sqrtf(acc[0] + acc[1])" },
	};
	for (size_t v = 0; v < sizeof refused / sizeof *refused; v++) {
		o = reduce_then_map(refused[v][0], refused[v][1], 1);
		assert_null(o.not_lifted);
		assert_true(o.n_candidates > 0);
		assert_int_equal(persistent_candidates(&o), 0);
		builtin_output_release(&o);
	}
}

static void
one_row_reductions_spread_over_the_grid(void **state)
{
	struct builtin_output o = generate(make_bundle(
		BUNDLE_LAUNCHER, "nrm", "const float *x:in, float *out:out, int n:scalar",
		"__global__ void k(const float *x, float *out, int n) {\n"
		"  float s = 0.0f;\n  for (int i = 0; i < n; i++) s += x[i] * x[i];\n  out[0] = sqrtf(s);\n}\n",
		"void nrm(const float *x, float *out, int n) {\n  k<<<1, 1>>>(x, out, n);\n}\n"));
	assert_null(o.not_lifted);
	int grid = 0, one_group = 0;
	for (size_t i = 0; i < o.n_candidates; i++) {
		const char *src = o.candidates[i].source;
		if (strstr(src, "egg_nparts")) {
			grid++;
			assert_int_equal(count(src, "<<<"), 2);
			assert_non_null(strstr(src, "if (egg_lane == 0)\n\t\t\tout[0] = "));
		} else {
			one_group++;
		}
	}
	assert_true(grid >= 3);
	assert_true(one_group >= 2);
	builtin_output_release(&o);
}

static void
kernel_targets_keep_their_header_and_rows_need_a_launcher(void **state)
{
	struct builtin_output o = generate(make_bundle(
		BUNDLE_KERNEL, "silu", "const float *x:in, float *y:out, int n:scalar", "",
		"__global__ void silu(const float *x, float *y, int n) {\n"
		"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
		"  if (i < n) y[i] = x[i] / (1.0f + expf(-x[i]));\n}\n"));
	assert_true(o.n_candidates >= 4);
	assert_int_equal(count(o.candidates[0].source, "__global__ void silu(const float *x, float *y, int n)"), 1);
	assert_int_equal(count(o.candidates[0].source, "<<<"), 0);
	builtin_output_release(&o);

	o = generate(make_bundle(BUNDLE_KERNEL, "sm", "const float *x:in, float *y:out, int rows:scalar, int cols:scalar",
	                         "", softmax_closure));
	/* the rows recipe declines; only the generic path's edits of the code as written */
	assert_non_null(strstr(o.description, "launcher"));
	assert_true(o.n_candidates >= 1);
	for (size_t i = 0; i < o.n_candidates; i++)
		assert_true(strncmp(o.candidates[i].label, "generic", 7) == 0);
	builtin_output_release(&o);
}

static void
parser_substitutes_macros_and_skips_types(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct ast_unit *u = parse_unit("#include <x.h>\n#define N 4\ntypedef struct { int a; } pair;\n"
	                                "struct S { float v; };\n__device__ float g[N];\n"
	                                "static __device__ __forceinline__ float sq(float v) { return v * v; }\n"
	                                "__global__ void __launch_bounds__(256) k(float *p) { pair q; p[0] = N; }\n", &err);
	assert_string_equal(err.buf, "");
	assert_non_null(u);
	assert_int_equal(u->n_functions, 2);
	const struct ast_function *k = ast_find_function(u, "k");
	assert_non_null(k);
	assert_string_equal(k->qualifiers, "__global__");
	assert_int_equal(k->body->n_body, 2);
	assert_string_equal(k->body->body[1]->expr->kids[1]->text, "4");
	ast_unit_free(u);
	strbuf_release(&err);
}

static void
variables_named_like_types_parse_as_variables(void **state)
{
	(void)state;
	struct strbuf err = STRBUF_INIT;
	struct ast_unit *u = parse_unit(
		"__global__ void k(float *s, int n) {\n"
		"  while (n > 1) { int half = (n + 1) / 2; s[0] += s[half];\n"
		"    half = (half + 1) * 2; n = half; }\n"
		"  const half h = (half)s[0]; size_t m = (size_t)n;\n}\n", &err);
	assert_string_equal(err.buf, "");
	assert_non_null(u);
	const struct ast_function *k = ast_find_function(u, "k");
	const struct ast_stmt *loop = k->body->body[0]->then;
	assert_int_equal(loop->n_body, 4);
	assert_int_equal(loop->body[0]->kind, AST_DECL);
	assert_string_equal(loop->body[0]->decls[0].name, "half");
	assert_string_equal(loop->body[0]->decls[0].type, "int");
	assert_int_equal(loop->body[2]->kind, AST_EXPR);
	assert_int_equal(loop->body[2]->expr->kind, AST_ASSIGN);
	assert_int_equal(loop->body[2]->expr->kids[1]->kind, AST_BIN);
	assert_int_equal(k->body->body[1]->kind, AST_DECL);
	assert_string_equal(k->body->body[1]->decls[0].type, "const half");
	assert_int_equal(k->body->body[1]->decls[0].init->kind, AST_CAST);
	ast_unit_free(u);
	strbuf_release(&err);
}

static void
parser_reads_through_namespaces_and_linkage_blocks(void **state)
{
	(void)state;
	struct strbuf err = STRBUF_INIT;
	struct ast_unit *u = parse_unit("namespace cg = cooperative_groups;\nusing namespace std;\n"
	                                "namespace nn {\nnamespace detail {\n__device__ float act(float v) { return v; }\n"
	                                "__global__ void k(float *p) { p[0] = act(p[0]); }\n}\n"
	                                "namespace {\n__device__ int hidden(int v) { return v; }\n}\n"
	                                "inline namespace v2 {\nvoid run(float *p) { detail::k<<<1, 1>>>(p); ::nn::detail::k<<<1, 1>>>(p); }\n}\n}\n"
	                                "namespace ops::fused { __global__ void sq(float *p) { p[0] *= p[0]; } }\n"
	                                "extern \"C\" {\nvoid c_run(float *p) { nn::detail::k<<<1, 1>>>(p); }\n}\n"
	                                "void top(void) {}\n", &err);
	assert_string_equal(err.buf, "");
	assert_non_null(u);
	assert_int_equal(u->n_functions, 7);
	static const char *const want[][2] = {
		{ "act", "nn::detail" }, { "k", "nn::detail" }, { "hidden", "nn::(anonymous namespace)" },
		{ "run", "nn::v2" }, { "sq", "ops::fused" }, { "c_run", "" }, { "top", "" },
	};
	for (size_t i = 0; i < 7; i++) {
		const struct ast_function *f = ast_find_function(u, want[i][0]);
		assert_non_null(f);
		assert_string_equal(f->ns, want[i][1]);
	}
	/* qualified launches keep their qualifier; names resolve to the last part */
	const struct ast_function *run = ast_find_function(u, "run");
	assert_int_equal(run->body->n_body, 2);
	assert_int_equal(run->body->body[0]->kind, AST_LAUNCH);
	assert_string_equal(run->body->body[0]->expr->text, "k");
	assert_string_equal(run->body->body[0]->expr->qual, "detail::");
	assert_string_equal(run->body->body[1]->expr->qual, "::nn::detail::");
	/* a member named from anywhere: anonymous namespaces left out */
	char *q = ast_ns_prefix(ast_find_function(u, "hidden")->ns);
	assert_string_equal(q, "::nn::");
	free(q);
	q = ast_ns_prefix(ast_find_function(u, "top")->ns);
	assert_string_equal(q, "");
	free(q);
	ast_unit_free(u);
	/* a brace too many closes nothing the parser opened */
	u = parse_unit("namespace a {\nvoid f(void) {}\n}\n}\nvoid g(void) {}\n", &err);
	if (u)
		assert_string_equal(ast_find_function(u, "f")->ns, "a");
	ast_unit_free(u);
	strbuf_release(&err);
}

static void
namespace_paths_below_the_target_reopen(void **state)
{
	(void)state;
	static const struct {
		const char *outer, *inner, *open, *qual;
		int rc;
	} cases[] = {
		{ "nn", "nn", "", "", 0 },
		{ "nn", "nn::detail", "namespace detail {\n", "detail::", 0 },
		{ "nn", "nn::(anonymous namespace)::x", "namespace {\nnamespace x {\n", "x::", 0 },
		{ "", "a::b", "namespace a {\nnamespace b {\n", "a::b::", 0 },
		{ "nn", "nnx", "", "", -1 },
		{ "nn::detail", "nn", "", "", -1 },
		{ "nn", "other", "", "", -1 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct strbuf open = STRBUF_INIT, close = STRBUF_INIT, qual = STRBUF_INIT;
		assert_int_equal(ast_ns_below(cases[i].outer, cases[i].inner, &open, &close, &qual), cases[i].rc);
		if (cases[i].rc == 0) {
			assert_string_equal(open.buf, cases[i].open);
			assert_string_equal(qual.buf, cases[i].qual);
			assert_int_equal(count(close.buf, "}"), count(open.buf, "{"));
		}
		strbuf_release(&open);
		strbuf_release(&close);
		strbuf_release(&qual);
	}
}

/* The lifted code calls the closure's functions by their full names; the
 * generic path copies a kernel into the namespace it came from below the
 * target's and refuses one from beside it. */
static void
targets_in_namespaces_get_candidates(void **state)
{
	(void)state;
	const char *closure = "namespace nn {\nnamespace detail {\n"
	                      "__device__ float act(float v) { return v > 0.f ? v : 0.01f * v; }\n"
	                      "__global__ void leaky_k(const float *x, float *y, int n)\n"
	                      "{\n\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n\tif (i < n)\n\t\ty[i] = act(x[i]);\n}\n"
	                      "__global__ void count_k(const int *x, int *y, int n)\n"
	                      "{\n\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n\tif (i >= n)\n\t\treturn;\n"
	                      "\tint v = x[i], c = 0;\n\twhile (v > 1) {\n\t\tv /= 2;\n\t\tc++;\n\t}\n\ty[i] = c;\n}\n}\n}\n"
	                      "namespace other {\n__global__ void count_k2(const int *x, int *y, int n)\n"
	                      "{\n\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n\tint v = x[i], c = 0;\n"
	                      "\twhile (v > 1) {\n\t\tv /= 2;\n\t\tc++;\n\t}\n\tif (i < n)\n\t\ty[i] = c;\n}\n}\n";
	struct egg_bundle *b = make_bundle(BUNDLE_LAUNCHER, "leaky", "const float *x:in, float *y:out, int n:scalar",
	                                   closure, "namespace nn {\nvoid leaky(const float *x, float *y, int n)\n"
	                                   "{\n\tdetail::leaky_k<<<(n + 255) / 256, 256>>>(x, y, n);\n}\n}\n");
	free(b->qualified_name);
	b->qualified_name = egg_xstrdup("nn::leaky");
	struct builtin_output o = generate(b);
	assert_true(o.n_candidates >= 4);
	assert_non_null(o.program);
	assert_string_equal(o.program->header, "void leaky(const float *x, float *y, int n)\n");
	for (size_t i = 0; i < o.n_candidates; i++) {
		assert_non_null(strstr(o.candidates[i].source, "::nn::detail::act("));
		assert_null(strstr(o.candidates[i].source, "namespace nn"));
		/* its helpers guarded for nn alone: egg-cc may put another winner's
		 * copy in another namespace of the same file */
		assert_non_null(strstr(o.candidates[i].source, "#ifndef EGG_BUILTIN_PRELUDE__NS_nn\n"));
		assert_non_null(strstr(o.candidates[i].source, "#define EGG_BUILTIN_PRELUDE__NS_nn\n"));
	}
	builtin_output_release(&o);

	b = make_bundle(BUNDLE_LAUNCHER, "count", "const int *x:in, int *y:out, int n:scalar", closure,
	                "namespace nn {\nvoid count(const int *x, int *y, int n)\n"
	                "{\n\tdetail::count_k<<<(n + 127) / 128, 128>>>(x, y, n);\n}\n}\n");
	free(b->qualified_name);
	b->qualified_name = egg_xstrdup("nn::count");
	o = generate(b);
	assert_null(o.program);
	assert_true(o.n_candidates >= 2);
	for (size_t i = 0; i < o.n_candidates; i++) {
		const char *s = o.candidates[i].source;
		assert_non_null(strstr(s, "namespace detail {\n"));
		assert_non_null(strstr(s, "detail::egg_count"));
		assert_non_null(strstr(s, "<<<"));
		assert_null(strstr(s, "detail::count_k<<<"));
	}
	builtin_output_release(&o);

	b = make_bundle(BUNDLE_LAUNCHER, "count2", "const int *x:in, int *y:out, int n:scalar", closure,
	                "namespace nn {\nvoid count2(const int *x, int *y, int n)\n"
	                "{\n\tother::count_k2<<<(n + 127) / 128, 128>>>(x, y, n);\n}\n}\n");
	free(b->qualified_name);
	b->qualified_name = egg_xstrdup("nn::count2");
	o = generate(b);
	assert_int_equal(o.n_candidates, 0);
	assert_non_null(o.not_lifted);
	assert_non_null(strstr(o.not_lifted, "it launches 'count_k2' of namespace 'other', outside the target's "
	                                     "namespace 'nn'"));
	builtin_output_release(&o);
}

static void
launches_instantiate_function_templates(void **state)
{
	(void)state;
	struct strbuf err = STRBUF_INIT;
	const char *closure = "template <typename T, int N = 2>\n__global__ void k(const T *x, T *y, int n)\n"
	                      "{\n\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n\tif (i < n)\n\t\ty[i] = x[i] * N;\n}\n"
	                      "template <typename T> struct Box { T v; };\n"
	                      "template <> struct Box<int> { int v; };\n"
	                      "template __global__ void k<float>(const float *, float *, int);\n";
	struct strbuf text = STRBUF_INIT;
	strbuf_addf(&text, "%svoid run(const float *x, float *y, const double *a, double *b, int n)\n"
	                   "{\n\tk<float><<<1, 1>>>(x, y, n);\n\tk<double, 3><<<1, 1>>>(a, b, n);\n"
	                   "\tk<float><<<2, 1>>>(x, y, n);\n}\n", closure);
	struct ast_unit *u = parse_unit(text.buf, &err);
	assert_string_equal(err.buf, "");
	assert_non_null(u);
	/* one instance per distinct argument list, parsed with the arguments in place */
	assert_int_equal(u->n_functions, 3);
	const struct ast_function *f = ast_find_function(u, "k<float>");
	assert_non_null(f);
	assert_true(f->is_instance);
	assert_string_equal(f->tname, "k");
	assert_string_equal(f->params[0].type, "const float *");
	assert_string_equal(f->params[1].type, "float *");
	assert_int_equal(f->template_at, 0);
	f = ast_find_function(u, "k<double, 3>");
	assert_non_null(f);
	assert_string_equal(f->params[0].type, "const double *");
	const struct ast_function *run = ast_find_function(u, "run");
	assert_string_equal(run->body->body[0]->expr->text, "k<float>");
	assert_string_equal(run->body->body[1]->expr->text, "k<double, 3>");
	assert_false(run->is_instance);
	ast_unit_free(u);
	/* a launch with arguments of something that is no template */
	strbuf_reset(&text);
	strbuf_addstr(&text, "__global__ void g(float *y) { y[0] = 1; }\nvoid run(float *y) { g<float><<<1, 1>>>(y); }\n");
	u = parse_unit(text.buf, &err);
	assert_null(u);
	assert_non_null(strstr(err.buf, "'g' is launched with template arguments but is not a function template"));
	/* a parameter with no argument and no default */
	strbuf_reset(&err);
	strbuf_reset(&text);
	strbuf_addstr(&text, "template <typename T, int N>\n__global__ void h(T *y) { y[0] = N; }\n"
	                     "void run(float *y) { h<float><<<1, 1>>>(y); }\n");
	u = parse_unit(text.buf, &err);
	assert_null(u);
	assert_non_null(strstr(err.buf, "the template parameter 'N' of 'h' has no argument"));
	/* more arguments than the parser keeps is refused, not cut short */
	strbuf_reset(&err);
	strbuf_reset(&text);
	strbuf_addstr(&text, "template <int A, int B>\n__global__ void m(int *y) { y[0] = A + B; }\n"
	                     "void run(int *y) { m<1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17><<<1, 1>>>(y); }\n");
	u = parse_unit(text.buf, &err);
	assert_null(u);
	assert_non_null(strstr(err.buf, "'m' is launched with more than 16 template arguments"));
	strbuf_release(&err);

	/* the lifted path works on the instance; the generic path copies the
	 * template once and refuses two instances of it in one launcher */
	struct egg_bundle *b = make_bundle(BUNDLE_LAUNCHER, "run", "const float *x:in, float *y:out, int n:scalar",
	                                   closure, "void run(const float *x, float *y, int n)\n"
	                                   "{\n\tk<float, 3><<<(n + 255) / 256, 256>>>(x, y, n);\n}\n");
	struct builtin_output o = generate(b);
	assert_non_null(o.program);
	assert_non_null(strstr(o.description, "kernel=k<float, 3>"));
	assert_non_null(strstr(o.description, "(x[i] * 3)"));
	assert_true(o.n_candidates >= 4);
	builtin_output_release(&o);
	b = make_bundle(BUNDLE_LAUNCHER, "run2", "const float *x:in, float *y:out, int n:scalar", closure,
	                "void run2(const float *x, float *y, int n)\n"
	                "{\n\tk<float, 3><<<(n + 255) / 256, 256>>>(x, y, n);\n\tk<float, 2><<<(n + 255) / 256, 256>>>(y, y, n);\n}\n");
	o = generate(b);
	/* lifted as a chain of two maps; no generic candidate in any case */
	for (size_t i = 0; i < o.n_candidates; i++)
		assert_true(strncmp(o.candidates[i].label, "generic", 7) != 0);
	builtin_output_release(&o);
	b = make_bundle(BUNDLE_LAUNCHER, "run3", "const float *x:in, float *y:out, int n:scalar", closure,
	                "void run3(const float *x, float *y, int n)\n"
	                "{\n\tk<float, 3><<<(n + 255) / 256, 256>>>(x, y, n);\n\tk<float, 2><<<(n + 255) / 256, 256>>>(y, y, n);\n"
	                "\tfor (int r = 0; r < n; r++)\n\t\tk<float, 2><<<1, 1>>>(y, y, 1);\n}\n");
	o = generate(b);
	assert_int_equal(o.n_candidates, 0);
	if (!strstr(o.not_lifted, "it launches two instances of the template 'k'"))
		print_error("not lifted: %s\n", o.not_lifted);
	assert_non_null(strstr(o.not_lifted, "it launches two instances of the template 'k'"));
	builtin_output_release(&o);
	strbuf_release(&text);
}

/* Shapes of first versions seen outside the suite: pointer arithmetic on locals
 * (x + r * cols + o * 4, then src[k]), rows of a few columns (a thread per
 * row), planes of the grid (blockIdx.z with the launch's dim3) whose digits
 * recombine into the flat index, an argmax in two passes, a product scan and a
 * loop counting down. */
static void
first_version_shapes_lift(void **state)
{
	(void)state;
	const char *pool = "__global__ void pool(const float *x, float *y, int rows, int len, int ol) {\n"
	                   "  int i = threadIdx.x + blockIdx.x * blockDim.x;\n  if (i >= rows * ol) return;\n"
	                   "  const float *src = x + (i / ol) * len + (i % ol) * 4;\n  float s = 0.0f;\n"
	                   "  for (int k = 0; k < 4; k++) s += src[k];\n  y[i] = s * 0.25f;\n}\n";
	struct egg_bundle *b = make_bundle(BUNDLE_LAUNCHER, "f", "const float *x:in, float *y:out, int rows:scalar, int len:scalar",
	                                   pool, "void f(const float *x, float *y, int rows, int len) {\n"
	                                   "  pool<<<(rows * (len / 4) + 127) / 128, 128>>>(x, y, rows, len, len / 4);\n}\n");
	EXPECT_DESCRIPTION(b, "launcher f\n"
	                      "stage 0 rows kernel=pool n=(rows * (len / 4))\n"
	                      "  let float s_0 = 0.0f\n"
	                      "  loop col < 4\n"
	                      "    acc sum s_0 <- x[((((row / (len / 4)) * len) + ((row % (len / 4)) * 4)) + col)]\n"
	                      "  let float st0_0 = (s_0 * 0.25f)\n"
	                      "  store y[row] = st0_0\n");
	struct builtin_output o = generate(make_bundle(BUNDLE_LAUNCHER, "f", "const float *x:in, float *y:out, int rows:scalar, int len:scalar",
	                                               pool, "void f(const float *x, float *y, int rows, int len) {\n"
	                                               "  pool<<<(rows * (len / 4) + 127) / 128, 128>>>(x, y, rows, len, len / 4);\n}\n"));
	assert_true(o.n_candidates >= 4);
	for (size_t i = 0; i < o.n_candidates; i++) /* four columns: no group of threads per row */
		assert_non_null(strstr(o.candidates[i].label, "threads_per_row=1 "));
	builtin_output_release(&o);

	/* a plane per blockIdx.z; the store's digits make i again */
	const char *planes = "__global__ void dbl(const float *x, float *y, int h, int w) {\n"
	                     "  int c = blockIdx.x * blockDim.x + threadIdx.x;\n  int r = blockIdx.y * blockDim.y + threadIdx.y;\n"
	                     "  int p = blockIdx.z;\n  if (r < h && c < w)\n"
	                     "    y[(size_t)p * h * w + r * w + c] = 2.0f * x[((size_t)p * h + r) * w + c];\n}\n";
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "f", "const float *x:in, float *y:out, int np:scalar, int h:scalar, int w:scalar",
	                               planes, "void f(const float *x, float *y, int np, int h, int w) {\n"
	                               "  dim3 g((w + 15) / 16, (h + 15) / 16, np);\n  dbl<<<g, dim3(16, 16)>>>(x, y, h, w);\n}\n"),
	                   "launcher f\n"
	                   "stage 0 map kernel=dbl n=((np) * (h * w))\n"
	                   "  let float st0_0 = (2.0f * x[i])\n"
	                   "  store y[i] = st0_0\n");
	expect_not_lifted(planes, "dbl<<<n, 256>>>(x, y, n, n);", "'p' is blockIdx.z, but the launch's grid has no extent");
	/* a y thread index with no 2-D guard (a grid-stride loop over x) */
	expect_not_lifted("__global__ void k(const float *x, float *y, int n) {\n"
	                  "  int r = blockIdx.y * blockDim.y + threadIdx.y;\n"
	                  "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
	                  "    y[i] = x[i] + r;\n}\n",
	                  "k<<<n, 256>>>(x, y, n);", "a y thread index 'r' without a 'y < rows && x < cols' guard");

	/* argmax: the first of equal maxima, in two passes */
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "f", "const float *x:in, int *y:out, int rows:scalar, int cols:scalar",
	                               "__global__ void am(const float *x, int *y, int rows, int cols) {\n"
	                               "  int r = blockIdx.x * blockDim.x + threadIdx.x;\n  if (r < rows) {\n"
	                               "    float b = -INFINITY;\n    int k = 0;\n"
	                               "    for (int j = 0; j < cols; j++)\n      if (x[r * cols + j] > b) { b = x[r * cols + j]; k = j; }\n"
	                               "    y[r] = k;\n  }\n}\n",
	                               "void f(const float *x, int *y, int rows, int cols) { am<<<rows, 1>>>(x, y, rows, cols); }\n"),
	                   "launcher f\n"
	                   "stage 0 rows kernel=am n=rows\n"
	                   "  let float b_0 = (-INFINITY)\n"
	                   "  let int k_0 = 0\n"
	                   "  let float egg_am0_0 = b_0\n"
	                   "  loop col < cols\n"
	                   "    acc max b_0 <- x[((row * cols) + col)]\n"
	                   "  let long long egg_am1_0 = 9223372036854775807LL\n"
	                   "  loop col < cols\n"
	                   "    acc min egg_am1_0 <- ((x[((row * cols) + col)] == b_0) ? ((long long)col) : 9223372036854775807LL)\n"
	                   "  set k_0 = (((egg_am0_0 == b_0) || ((egg_am0_0 != egg_am0_0) || (egg_am1_0 == 9223372036854775807LL))) ? k_0 : ((int)egg_am1_0))\n"
	                   "  set b_0 = ((egg_am0_0 != egg_am0_0) ? egg_am0_0 : b_0)\n"
	                   "  let int st2_0 = k_0\n"
	                   "  store y[row] = st2_0\n");

	/* a product scan, counting down */
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "f", "const float *x:in, float *y:out, int rows:scalar, int cols:scalar",
	                               "__global__ void cp(const float *x, float *y, int rows, int cols) {\n"
	                               "  int r = blockIdx.x * blockDim.x + threadIdx.x;\n  if (r < rows) {\n"
	                               "    float p = 1.0f;\n    for (int j = cols - 1; j >= 0; --j) { p *= x[r * cols + j]; y[r * cols + j] = p; }\n"
	                               "  }\n}\n",
	                               "void f(const float *x, float *y, int rows, int cols) { cp<<<rows, 1>>>(x, y, rows, cols); }\n"),
	                   "launcher f\n"
	                   "stage 0 scan kernel=cp n=rows\n"
	                   "  let float p_0 = 1.0f\n"
	                   "  loop col < (((cols - 1) - 0) + 1) scan\n"
	                   "    acc product p_0 <- x[((row * cols) + ((cols - 1) - col))]\n"
	                   "    let float st0_0 = p_0\n"
	                   "    store y[((row * cols) + ((cols - 1) - col))] = st0_0\n");
	/* what stays outside: two argmax updates in one loop, a step down by 2 */
	expect_not_lifted("__global__ void k(const float *x, float *y, int n) {\n"
	                  "  int r = blockIdx.x * blockDim.x + threadIdx.x;\n  if (r < n) {\n"
	                  "    float a = 0, b = 0; int i = 0, j = 0;\n"
	                  "    for (int c = 0; c < n; c++) { if (x[c] > a) { a = x[c]; i = c; } if (x[c] < b) { b = x[c]; j = c; } }\n"
	                  "    y[r] = i + j;\n  }\n}\n",
	                  "k<<<n, 1>>>(x, y, n);", "two argmax or argmin updates in one loop");
	expect_not_lifted("__global__ void k(const float *x, float *y, int n) {\n"
	                  "  int r = blockIdx.x * blockDim.x + threadIdx.x;\n  if (r < n) {\n"
	                  "    float s = 0; for (int c = n - 1; c >= 0; c -= 2) s += x[c];\n    y[r] = s;\n  }\n}\n",
	                  "k<<<n, 1>>>(x, y, n);", "a loop counting down by other than 1");
	/* scratch the launcher allocates: a declared pointer and cudaMalloc(&p, bytes) */
	const char *scale = "__global__ void k(const float *x, float *y, int n) {\n"
	                    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = 2.0f * x[i];\n}\n";
	expect_not_lifted(scale, "float *t = y;\n  k<<<n, 1>>>(x, t, n);", "the launcher declares 't', which is not a scalar");
	expect_not_lifted(scale, "float *t;\n  cudaMalloc(&t, sizeof(float) * n);\n  cudaMalloc(&t, sizeof(float) * n);\n"
	                  "  k<<<n, 1>>>(x, t, n);", "cudaMalloc other than as 'cudaMalloc(&p, bytes)'");
	expect_not_lifted(scale, "float *t;\n  cudaMalloc(&t, sizeof(float) * n);\n  k<<<n, 1>>>(x, t, n);\n  cudaFree(y);",
	                  "the launcher calls 'cudaFree'");
	o = generate(make_bundle(BUNDLE_LAUNCHER, "f", "const float *x:in, float *y:out, int n:scalar", scale,
	                         "void f(const float *x, float *y, int n) {\n  float *t = NULL;\n"
	                         "  cudaMalloc((void **)&t, sizeof(float) * n);\n  k<<<n, 1>>>(x, t, n);\n"
	                         "  k<<<n, 1>>>(t, y, n);\n  cudaFree(t);\n}\n"));
	assert_true(o.n_candidates > 0);
	/* the chain fuses through t, which every kernel still takes: allocated, freed */
	assert_non_null(strstr(o.candidates[0].source, "cudaMallocFromPoolAsync((void **)&t, egg_bytes_t, egg_pool_t, 0)"));
	assert_non_null(strstr(o.candidates[0].source, "cudaFreeAsync(t, 0);"));
	builtin_output_release(&o);

	/* a statistics kernel and an apply kernel over the same rows: one row
	 * program, the per-row values forwarded, no second kernel */
	const char *norm = "__global__ void stats(const float *x, float *mu, int rows, int cols) {\n"
	                   "  int r = blockIdx.x * blockDim.x + threadIdx.x;\n  if (r >= rows) return;\n"
	                   "  float s = 0.0f;\n  for (int c = 0; c < cols; c++) s += x[r * cols + c];\n  mu[r] = s / cols;\n}\n"
	                   "__global__ void apply(const float *x, const float *mu, float *y, int rows, int cols) {\n"
	                   "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                   "  if (i < rows * cols) y[i] = x[i] - mu[i / cols];\n}\n"
	                   "__global__ void apply1(const float *x, const float *mu, float *y, int rows, int cols) {\n"
	                   "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                   "  if (i < rows * cols) y[i] = x[i] - mu[i / cols + 1];\n}\n";
	const char *two = "void f(const float *x, float *mu, float *y, int rows, int cols) {\n"
	                  "  stats<<<rows, 1>>>(x, mu, rows, cols);\n  apply<<<rows * cols, 1>>>(x, mu, y, rows, cols);\n}\n";
	o = generate(make_bundle(BUNDLE_LAUNCHER, "f", "const float *x:in, float *mu:temp, float *y:out, int rows:scalar, int cols:scalar",
	                         norm, two));
	assert_true(o.n_candidates > 0);
	assert_int_equal(count(o.candidates[0].source, "<<<"), 1); /* one launch (a warp per row) */
	for (size_t i = 0; i < o.n_candidates; i++)
		assert_null(strstr(o.candidates[i].source, "mu[egg_row]")); /* the temp is not stored */
	builtin_output_release(&o);
	/* read at another row: left as two kernels */
	o = generate(make_bundle(BUNDLE_LAUNCHER, "f", "const float *x:in, float *mu:temp, float *y:out, int rows:scalar, int cols:scalar",
	                         norm, "void f(const float *x, float *mu, float *y, int rows, int cols) {\n"
	                         "  stats<<<rows, 1>>>(x, mu, rows, cols);\n  apply1<<<rows * cols, 1>>>(x, mu, y, rows - 1, cols);\n}\n"));
	assert_true(o.n_candidates > 0);
	assert_int_equal(count(o.candidates[0].source, "<<<"), 2);
	builtin_output_release(&o);
	/* the map stores into what the row program stores: left as two kernels */
	o = generate(make_bundle(BUNDLE_LAUNCHER, "f", "const float *x:in, float *mu:out, int rows:scalar, int cols:scalar",
	                         norm, "void f(const float *x, float *mu, int rows, int cols) {\n"
	                         "  stats<<<rows, 1>>>(x, mu, rows, cols);\n  apply<<<rows * cols, 1>>>(x, x, mu, rows, cols);\n}\n"));
	assert_true(o.n_candidates > 0);
	assert_int_equal(count(o.candidates[0].source, "<<<"), 2);
	builtin_output_release(&o);
	/* the launcher's own scratch, fused away: declared, never allocated */
	o = generate(make_bundle(BUNDLE_LAUNCHER, "f", "const float *x:in, float *y:out, int rows:scalar, int cols:scalar",
	                         norm, "void f(const float *x, float *y, int rows, int cols) {\n  float *mu;\n"
	                         "  cudaMalloc(&mu, rows * sizeof(float));\n  stats<<<rows, 1>>>(x, mu, rows, cols);\n"
	                         "  apply<<<rows * cols, 1>>>(x, mu, y, rows, cols);\n  cudaFree(mu);\n}\n"));
	assert_true(o.n_candidates > 0);
	assert_non_null(strstr(o.candidates[0].source, "float *mu = NULL; /* no kernel uses it any more */"));
	assert_null(strstr(o.candidates[0].source, "cudaMallocFromPoolAsync"));
	assert_null(strstr(o.candidates[0].source, "egg_builtin_pool"));
	builtin_output_release(&o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parser_substitutes_macros_and_skips_types),
		cmocka_unit_test(parser_reads_through_namespaces_and_linkage_blocks),
		cmocka_unit_test(variables_named_like_types_parse_as_variables),
		cmocka_unit_test(namespace_paths_below_the_target_reopen),
		cmocka_unit_test(targets_in_namespaces_get_candidates),
		cmocka_unit_test(launches_instantiate_function_templates),
		cmocka_unit_test(map_lifts_with_launcher_names),
		cmocka_unit_test(guards_and_index_spellings_lift),
		cmocka_unit_test(broadcast_and_host_locals_lift),
		cmocka_unit_test(launcher_idioms_lift),
		cmocka_unit_test(two_d_maps_flatten_to_one_index),
		cmocka_unit_test(branches_become_selects),
		cmocka_unit_test(softmax_lifts_as_rows_with_accumulators),
		cmocka_unit_test(norm_lifts_with_row_level_code),
		cmocka_unit_test(full_reduction_lifts_with_its_memset),
		cmocka_unit_test(single_thread_kernels_lift_as_one_row),
		cmocka_unit_test(kernel_target_lifts_alone),
		cmocka_unit_test(optional_pointers_lift_as_a_select_on_a_flag),
		cmocka_unit_test(optional_outputs_lift_with_their_stores_guarded),
		cmocka_unit_test(outside_the_families_is_not_lifted_with_a_reason),
		cmocka_unit_test(atomics_outside_the_recipes_are_refused_naming_their_buffer_and_shape),
		cmocka_unit_test(kernel_names_in_strings_and_comments_do_not_block_the_generic_path),
		cmocka_unit_test(cache_hinted_loads_and_deduced_template_calls_lift),
		cmocka_unit_test(conversion_intrinsics_lift_as_typed_calls),
		cmocka_unit_test(device_queries_that_size_the_grid_lift),
		cmocka_unit_test(clamps_written_as_selects_and_one_sided_bounds_lift_as_stencils),
		cmocka_unit_test(early_returns_on_index_conditions_lift_both_sides_as_one_select),
		cmocka_unit_test(small_fixed_windows_unroll_into_stencil_taps),
		cmocka_unit_test(device_copies_lift_and_fold_into_the_stencil_that_keeps_them),
		cmocka_unit_test(causal_bounds_and_exact_host_math_lift),
		cmocka_unit_test(first_version_shapes_lift),
		cmocka_unit_test(launch_chain_fuses_into_one_pass_without_the_temp),
		cmocka_unit_test(chain_with_the_count_in_a_launcher_local_fuses),
		cmocka_unit_test(divisions_by_an_invariant_are_done_once_per_vector),
		cmocka_unit_test(planes_pass_computes_what_depends_on_the_channel_once_per_plane),
		cmocka_unit_test(full_grid_points_launch_a_block_per_chunk_without_the_wave_cap),
		cmocka_unit_test(planes_pass_is_not_used_where_a_gather_changes_along_the_plane),
		cmocka_unit_test(map_into_a_temp_folds_into_the_row_program),
		cmocka_unit_test(rows_and_reductions_emit_every_point),
		cmocka_unit_test(one_launch_reductions_absorb_only_the_memset_of_their_element),
		cmocka_unit_test(reductions_and_the_maps_that_read_them_run_in_one_cooperative_launch),
		cmocka_unit_test(one_row_reductions_spread_over_the_grid),
		cmocka_unit_test(kernel_targets_keep_their_header_and_rows_need_a_launcher),
	};
	return cmocka_run_group_tests(tests, builtin_test_setup, NULL);
}
