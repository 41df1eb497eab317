/*
 * runtime.cuh -- the generic half of every evaluation program egg generates.
 *
 * harness/gen.c writes main.cu as: a table describing the bundle's parameters,
 * one setup function per workload (the clause expressions compiled with the scalar
 * parameters in scope), the two entry points it may call (the reference's, under a
 * name the candidate cannot know, and the candidate's), and a main that hands
 * all of that (an egg_program, local to main) to egg_runtime_main here.  This
 * file is its own translation unit, runtime.cu (gen_runtime: the shared types,
 * then this text), the same for every bundle, so that it is compiled once per
 * toolchain and flags and kept (prepared.h), not once per bundle; the probe
 * program alone puts both halves in one unit.  The reference and the candidate
 * live in other translation units; main only passes their entry points, so
 * neither can reach the other.
 *
 * What it does, in order (every step can end the program with a JSON verdict):
 *   1. find the GPU (none: status "no_gpu", exit 3);
 *   2. for each workload, for each trial: fresh random inputs from a new seed
 *      (drawn on the GPU, each element a hash of the seed and its index),
 *      outputs poisoned (0xFF bytes on even trials, 0x7F on odd ones: NaN for every
 *      float type, so "unwritten" can never pass by luck twice), guards around every
 *      buffer, candidate first then reference, each on its own buffers (a pointer
 *      the workload leaves NULL gets none: both are called with NULL); outputs are
 *      snapshotted by a copy on the legacy default stream right after the call, so
 *      work the call left running on another stream is seen as unwritten output;
 *      outputs are judged on the GPU; a float output outside the tolerance only
 *      is judged again against the reference's float64 twin where it is linked
 *      (see "the float64 evaluation of the reference" below);
 *   3. interleaved timing unless --no-timing: warm-up, then rounds of candidate,
 *      reference and an empty call in alternating order, each after restoring
 *      the inputs and sweeping a buffer of twice the L2 (outside the timed part),
 *      timed by events around the call and by an event after a device-wide
 *      synchronize (see egg_time_workload for which counts);
 *   4. one more check with a fresh seed after timing (a candidate that changes its
 *      behaviour after many calls, or caches results, is caught there too).
 * The verdict is written as one JSON object to --out FILE (stdout without it), with
 * printf only: the program needs nothing but libc and the CUDA runtime:
 *   { "schema": "egg-harness-run", "version": 1, "status": "ok" | "wrong" |
 *     "cuda_error" | "reference_error" | "harness_error" | "no_gpu" | "usage",
 *     "message", "target", "seed", "self_check", "device": {...},
 *     "checks": [ { "workload", "trial", "seed", "pass", "problem"?,
 *                   "buffers": [ { "name", "elements", "max_abs", "max_rel", "rtol",
 *                                  "atol", "bad", "first_bad", "got"?, "want"?,
 *                                  "unwritten", "nonfinite", "ref_unwritten",
 *                                  "judged_against": "reference" | "float64",
 *                                  "reference_f64"?: { "trusted", "mismatch",
 *                                      "max_err", "rms_err", "max_magnitude" } } ] } ],
 *     "timings": [ { "workload", "reps", "bytes", "flops"? (when the job counts them), "overhead_ms",
 *                    "candidate": STATS, "reference": STATS, "speedup",
 *                    "event_median_ms": {...}, "unordered_work": {...} } ],
 *     "ceilings"?: { "copy_bytes", "copy_ms", "copy_gbs", "fma_gflops" } }
 *   STATS = { "median_ms", "p10_ms", "p90_ms", "min_ms", "max_ms", "spread" }
 * where spread is (p90 - p10) / median and bytes counts each in/out buffer once
 * and each inout buffer twice.
 *
 * With --profile W the program checks workload W once and then calls the
 * candidate once more between cudaProfilerStart and cudaProfilerStop, for a
 * profiler started with its collection off (ncu --profile-from-start off): only
 * the candidate's kernels of that one call are profiled, none of the harness's.
 *
 * Exit status: 0 correct (and timed), 1 wrong, 2 usage, 3 no GPU, 4 the candidate
 * raised a CUDA error, 5 the reference failed or the harness could not set up.
 */
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EGG_GUARD 4096 /* bytes of 0xFF before and after every device buffer */
/* How much measuring the program does: timing rounds (the --warmup and --reps
 * defaults), the least bytes the L2 flush reads, the FMA ceiling's loop.  A
 * build for the CPU stand-in (tests/tools/emu-nvcc) makes them small: there the
 * judge's logic is under test, not speed. */
#ifndef EGG_WARMUP
#define EGG_WARMUP 3
#endif
#ifndef EGG_MIN_REPS
#define EGG_MIN_REPS 15
#endif
#ifndef EGG_MAX_REPS
#define EGG_MAX_REPS 300
#endif
#ifndef EGG_FLUSH_MIN_BYTES
#define EGG_FLUSH_MIN_BYTES ((size_t)64 << 20)
#endif
#ifndef EGG_FMA_ITERS
#define EGG_FMA_ITERS 16384
#endif
/* The bundle's half of the program: its name, parameter table, workloads'
 * setup and entry points (egg_program, harness/gen.c), from main. */
static const egg_program *g_prog;
/* 0 with --no-guards: exact allocations, for compute-sanitizer's memcheck */
static size_t g_guard = EGG_GUARD;

/* ---- JSON text, built in memory and written once ---- */

struct egg_text {
	char *s;
	size_t len, cap;
};
static egg_text g_checks, g_timings, g_device, g_misc;
static const char *g_out_path;

static void
egg_add(egg_text *t, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if (t->s && t->len + (size_t)n < t->cap) {
			t->len += (size_t)n;
			return;
		}
		size_t cap = (t->cap + (size_t)n + 1) * 2;
		char *s = (char *)realloc(t->s, cap);
		if (!s)
			abort();
		t->s = s;
		t->cap = cap;
		if (t->len == 0)
			t->s[0] = 0;
	}
}

static void
egg_add_str(egg_text *t, const char *s)
{
	egg_add(t, "\"");
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			egg_add(t, "\\%c", c);
		else if (c < 0x20)
			egg_add(t, "\\u%04x", c);
		else
			egg_add(t, "%c", c);
	}
	egg_add(t, "\"");
}

/* JSON has no NaN or Inf: those become null. */
static void
egg_add_num(egg_text *t, double v)
{
	if (isfinite(v))
		egg_add(t, "%.9g", v);
	else
		egg_add(t, "null");
}

/* Where the check being written began in g_checks (-1: none open): a program
 * that ends in the middle of one drops it, so its output is still JSON. */
static long long g_check_mark = -1;
static unsigned long long g_seed;
static cudaDeviceProp g_prop;
static int g_self_check;
/* the validity domain's probe calls (see "probes" below) */
static int g_probing, g_probes_checked;
static egg_text g_probe_skips;
static char g_probe_stop[400];
static char g_why[600]; /* the first failure, for the verdict's message */

static void
egg_finish(int code, const char *status, const char *message)
{
	egg_text o = { 0, 0, 0 };
	if (g_check_mark >= 0 && g_checks.s) {
		g_checks.len = (size_t)g_check_mark;
		g_checks.s[g_checks.len] = 0;
	}
	egg_add(&o, "{\"schema\":\"egg-harness-run\",\"version\":1,\"status\":");
	egg_add_str(&o, status);
	egg_add(&o, ",\"message\":");
	if (message)
		egg_add_str(&o, message);
	else
		egg_add(&o, "null");
	egg_add(&o, ",\"target\":");
	egg_add_str(&o, g_prog->name);
	egg_add(&o, ",\"seed\":%llu,\"self_check\":%s,\"device\":%s", g_seed,
	        g_self_check ? "true" : "false", g_device.s ? g_device.s : "null");
	egg_add(&o, ",\"checks\":[%s],\"timings\":[%s]%s", g_checks.s ? g_checks.s : "",
	        g_timings.s ? g_timings.s : "", g_misc.s ? g_misc.s : "");
	if (g_probing) {
		egg_add(&o, ",\"domain\":{\"probes\":%d,\"checked\":%d,\"skipped\":[%s],\"stopped\":",
		        g_prog->n_probes, g_probes_checked, g_probe_skips.s ? g_probe_skips.s : "");
		if (g_probe_stop[0])
			egg_add_str(&o, g_probe_stop);
		else
			egg_add(&o, "null");
		egg_add(&o, "}");
	}
	egg_add(&o, "}\n");
	FILE *f = g_out_path ? fopen(g_out_path, "w") : stdout;
	if (f) {
		fputs(o.s, f);
		if (f != stdout)
			fclose(f);
		else
			fflush(stdout);
	}
	exit(code);
}

static void
egg_failf(int code, const char *status, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	egg_finish(code, status, msg);
}

/* A CUDA call made by the harness itself: failure is a setup error. */
#define EGG_CK(call)                                                                     \
	do {                                                                             \
		cudaError_t egg_e_ = (call);                                             \
		if (egg_e_ != cudaSuccess)                                               \
			egg_failf(5, "harness_error", "%s failed: %s", #call,            \
			          cudaGetErrorString(egg_e_));                           \
	} while (0)

/* ---- element types ---- */

static __host__ __device__ size_t
egg_type_size(int t)
{
	switch (t) {
	case EGG_T_F64: case EGG_T_I64: case EGG_T_U64: return 8;
	case EGG_T_F32: case EGG_T_I32: case EGG_T_U32: return 4;
	case EGG_T_F16: case EGG_T_BF16: case EGG_T_I16: case EGG_T_U16: return 2;
	default: return 1;
	}
}

static __host__ __device__ int
egg_type_is_float(int t)
{
	return t == EGG_T_F32 || t == EGG_T_F64 || t == EGG_T_F16 || t == EGG_T_BF16;
}

/* Half and bfloat16 by their bits, round to nearest even as __float2half_rn and
 * __float2bfloat16_rn do: the program needs no cuda_fp16.h or cuda_bf16.h, whose
 * parsing costs nvcc a second on every evaluation. */
static __host__ __device__ uint32_t
egg_f32_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return u;
}

static __host__ __device__ float
egg_bits_f32(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

static __host__ __device__ float
egg_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
	if (e == 0) {
		float v = (float)m * 5.9604644775390625e-8f; /* m * 2^-24, exact */
		return sign ? -v : v;
	}
	if (e == 31)
		return egg_bits_f32(sign | 0x7f800000u | (m << 13));
	return egg_bits_f32(sign | ((e + 112) << 23) | (m << 13));
}

static __host__ __device__ uint16_t
egg_f32_to_f16(float f)
{
	uint32_t u = egg_f32_bits(f), sign = (u >> 16) & 0x8000u;
	u &= 0x7fffffffu;
	if (u >= 0x7f800000u) /* inf, NaN */
		return (uint16_t)(sign | 0x7c00u | (u > 0x7f800000u ? 0x200u : 0));
	if (u >= 0x477ff000u) /* 65520 and above round to inf */
		return (uint16_t)(sign | 0x7c00u);
	uint32_t e = u >> 23, m = (u & 0x7fffffu) | 0x800000u;
	if (e < 113) { /* below 2^-14: a subnormal half, in units of 2^-24 */
		if (e < 102)
			return (uint16_t)sign;
		uint32_t s = 126 - e, q = m >> s, rem = m & ((1u << s) - 1), half = 1u << (s - 1);
		if (rem > half || (rem == half && (q & 1)))
			q++;
		return (uint16_t)(sign | q);
	}
	uint32_t h = ((e - 112) << 10) | ((u & 0x7fffffu) >> 13), rem = u & 0x1fffu;
	if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
		h++;
	return (uint16_t)(sign | h);
}

static __host__ __device__ float
egg_bf16_to_f32(uint16_t b)
{
	return egg_bits_f32((uint32_t)b << 16);
}

static __host__ __device__ uint16_t
egg_f32_to_bf16(float f)
{
	uint32_t u = egg_f32_bits(f);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40u); /* a quiet NaN */
	return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}

static __host__ __device__ double
egg_get(int t, const void *p, size_t i)
{
	switch (t) {
	case EGG_T_F32: return ((const float *)p)[i];
	case EGG_T_F64: return ((const double *)p)[i];
	case EGG_T_F16: return egg_f16_to_f32(((const uint16_t *)p)[i]);
	case EGG_T_BF16: return egg_bf16_to_f32(((const uint16_t *)p)[i]);
	case EGG_T_I8: return ((const int8_t *)p)[i];
	case EGG_T_U8: return ((const uint8_t *)p)[i];
	case EGG_T_I16: return ((const int16_t *)p)[i];
	case EGG_T_U16: return ((const uint16_t *)p)[i];
	case EGG_T_I32: return ((const int32_t *)p)[i];
	case EGG_T_U32: return ((const uint32_t *)p)[i];
	case EGG_T_I64: return (double)((const int64_t *)p)[i];
	case EGG_T_U64: return (double)((const uint64_t *)p)[i];
	case EGG_T_BOOL: return ((const uint8_t *)p)[i];
	}
	return 0;
}

static __host__ __device__ void
egg_set(int t, void *p, size_t i, double v)
{
	switch (t) {
	case EGG_T_F32: ((float *)p)[i] = (float)v; break;
	case EGG_T_F64: ((double *)p)[i] = v; break;
	case EGG_T_F16: ((uint16_t *)p)[i] = egg_f32_to_f16((float)v); break;
	case EGG_T_BF16: ((uint16_t *)p)[i] = egg_f32_to_bf16((float)v); break;
	case EGG_T_I8: ((int8_t *)p)[i] = (int8_t)v; break;
	case EGG_T_U8: ((uint8_t *)p)[i] = (uint8_t)v; break;
	case EGG_T_I16: ((int16_t *)p)[i] = (int16_t)v; break;
	case EGG_T_U16: ((uint16_t *)p)[i] = (uint16_t)v; break;
	case EGG_T_I32: ((int32_t *)p)[i] = (int32_t)v; break;
	case EGG_T_U32: ((uint32_t *)p)[i] = (uint32_t)v; break;
	case EGG_T_I64: ((int64_t *)p)[i] = (int64_t)v; break;
	case EGG_T_U64: ((uint64_t *)p)[i] = (uint64_t)v; break;
	case EGG_T_BOOL: ((uint8_t *)p)[i] = v != 0; break;
	}
}

/* Default ranges when the bundle has no range(): floats in [-1, 1) (never zeros:
 * METHOD.md), integers small and of both signs where the type has them. */
static void
egg_default_range(int t, double *lo, double *hi)
{
	switch (t) {
	case EGG_T_I8: *lo = -128; *hi = 128; break;
	case EGG_T_U8: *lo = 0; *hi = 256; break;
	case EGG_T_BOOL: *lo = 0; *hi = 2; break;
	case EGG_T_I16: case EGG_T_I32: case EGG_T_I64: *lo = -1000; *hi = 1000; break;
	case EGG_T_U16: case EGG_T_U32: case EGG_T_U64: *lo = 0; *hi = 1000; break;
	default: *lo = -1; *hi = 1; break;
	}
}

/* Default tolerances, |got - ref| <= atol + rtol * |ref| (see harness/gen.h for why
 * these values).  precision() loosens the float defaults; integers compare exactly. */
static void
egg_default_tolerance(int t, double *rtol, double *atol)
{
	switch (t) {
	case EGG_T_F64: *rtol = 1e-9; *atol = 1e-10; break;
	case EGG_T_F32: *rtol = 1e-4; *atol = 1e-4; break;
	case EGG_T_F16: *rtol = 1e-2; *atol = 1e-3; break;
	case EGG_T_BF16: *rtol = 5e-2; *atol = 1e-2; break;
	default: *rtol = 0; *atol = 0; return;
	}
	double pr = 0, pa = 0;
	if (g_prog->precision == 1) { pr = 1e-2; pa = 1e-2; }      /* tf32 */
	else if (g_prog->precision == 2) { pr = 5e-2; pa = 5e-2; } /* bf16 */
	else if (g_prog->precision == 3) { pr = 1e-2; pa = 1e-2; } /* fp16 */
	if (t != EGG_T_F64 || g_prog->precision) {
		*rtol = fmax(*rtol, pr);
		*atol = fmax(*atol, pa);
	}
}

/* ---- device-side helpers: fill, compare, byte checks ----
 * Buffers of the timed workloads are hundreds of megabytes: filling and judging
 * them on the GPU keeps a candidate's evaluation to a fraction of a second. */

static unsigned
egg_grid(size_t n)
{
	size_t blocks = (n + 255) / 256, most = (size_t)(g_prop.multiProcessorCount > 0 ?
	                                                 g_prop.multiProcessorCount : 16) * 16;
	return (unsigned)(blocks < 1 ? 1 : blocks > most ? most : blocks);
}

#define EGG_FOR_EACH(i, n)                                                               \
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n);           \
	     i += (size_t)gridDim.x * blockDim.x)

/* splitmix64's finalizer over the element's index: every element's value is fixed
 * by the seed alone, whatever the order the GPU writes them in. */
static __host__ __device__ inline unsigned long long
egg_mix(unsigned long long z)
{
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

__global__ void
egg_fill_kernel(int t, void *p, size_t n, double lo, double hi, unsigned long long seed)
{
	int fl = egg_type_is_float(t);
	EGG_FOR_EACH(i, n) {
		unsigned long long z = egg_mix(seed + (i + 1) * 0x9E3779B97F4A7C15ull);
		double v = lo + (hi - lo) * ((double)(z >> 11) * (1.0 / 9007199254740992.0));
		if (!fl) {
			v = floor(v);
			if (v >= hi)
				v = hi - 1;
		}
		egg_set(t, p, i, v);
	}
}

/* float inputs widened for the float64 evaluation of the reference */
__global__ void
egg_widen_kernel(const float *in, double *out, size_t n)
{
	EGG_FOR_EACH(i, n)
		out[i] = in[i];
}

/* *flag = 1 if a and b differ (b NULL: if some byte of a is not v); the first
 * words 16-byte words are compared as such (a and b must then be aligned). */
__global__ void
egg_differ_kernel(const unsigned char *a, const unsigned char *b, unsigned char v, size_t n,
                  size_t words, int *flag)
{
	const uint4 *aw = (const uint4 *)a, *bw = (const uint4 *)b;
	unsigned vv = 0x01010101u * v;
	EGG_FOR_EACH(i, words) {
		uint4 x = aw[i], y = b ? bw[i] : make_uint4(vv, vv, vv, vv);
		if (x.x != y.x || x.y != y.y || x.z != y.z || x.w != y.w)
			*flag = 1;
	}
	EGG_FOR_EACH(i, n - words * 16) {
		size_t k = words * 16 + i;
		if (a[k] != (b ? b[k] : v))
			*flag = 1;
	}
}

struct egg_cmp_stats {
	unsigned long long bad, unwritten, nonfinite, ref_unwritten;
	unsigned long long first_bad;        /* ~0: none */
	unsigned long long max_abs, max_rel; /* the bits of non-negative doubles */
};

/* Statistics of the reference's float result against its float64 evaluation. */
struct egg_f64_stats {
	unsigned long long mismatch;         /* NaN/Inf where the other has none, or unlike */
	unsigned long long max_err, max_mag; /* bits of non-negative doubles */
	unsigned long long n;                /* finite elements compared */
	double sum_sq;
};

static __device__ unsigned long long
egg_warp_max(unsigned long long v)
{
	for (int o = 16; o; o >>= 1) {
		unsigned long long u = __shfl_down_sync(0xffffffffu, v, o);
		v = u > v ? u : v;
	}
	return v;
}

static __device__ double
egg_warp_sum(double v)
{
	for (int o = 16; o; o >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, o);
	return v;
}

static __device__ int
egg_poisoned(const unsigned char *p, size_t es, unsigned char v)
{
	for (size_t k = 0; k < es; k++)
		if (p[k] != v)
			return 0;
	return 1;
}

/* Judges every element of got against want: |got - want| <= atol + rtol * |want|,
 * NaN and Inf only where want has the same, poison only where want's is too.
 * want64 (not NULL): a float64 evaluation of the reference, the judge wherever
 * want holds a finite number, with slack added to the tolerance. */
__global__ void
egg_compare_kernel(int t, const unsigned char *got, const unsigned char *want,
                   const double *want64, size_t n, unsigned char poison, double rtol,
                   double atol, double slack, egg_cmp_stats *st)
{
	size_t es = egg_type_size(t);
	unsigned long long bad = 0, unw = 0, nonfin = 0, refunw = 0, first = ~0ull;
	double max_abs = 0, max_rel = 0;
	EGG_FOR_EACH(i, n) {
		int gp = egg_poisoned(got + i * es, es, poison);
		int wp = egg_poisoned(want + i * es, es, poison);
		refunw += wp;
		double g = egg_get(t, got, i), w = egg_get(t, want, i), tol = atol;
		if (want64 && !wp && isfinite(w)) {
			w = want64[i];
			tol += slack;
		}
		int ok;
		if (wp || gp) {
			ok = wp && gp;
			unw += gp && !wp;
		} else if (isnan(w) || isnan(g)) {
			ok = isnan(w) && isnan(g);
			nonfin += !ok && !isnan(w);
		} else if (isinf(w) || isinf(g)) {
			ok = w == g;
			nonfin += !ok && !isinf(w);
		} else {
			double d = fabs(g - w);
			max_abs = fmax(max_abs, d);
			if (w != 0)
				max_rel = fmax(max_rel, d / fabs(w));
			ok = d <= tol + rtol * fabs(w);
		}
		if (!ok) {
			bad++;
			if (i < first)
				first = i;
		}
	}
	if (bad) {
		atomicAdd(&st->bad, bad);
		atomicMin(&st->first_bad, first);
	}
	if (unw)
		atomicAdd(&st->unwritten, unw);
	if (nonfin)
		atomicAdd(&st->nonfinite, nonfin);
	if (refunw)
		atomicAdd(&st->ref_unwritten, refunw);
	unsigned long long ma = egg_warp_max((unsigned long long)__double_as_longlong(max_abs));
	unsigned long long mr = egg_warp_max((unsigned long long)__double_as_longlong(max_rel));
	if ((threadIdx.x & 31) == 0) {
		atomicMax(&st->max_abs, ma);
		atomicMax(&st->max_rel, mr);
	}
}

__global__ void
egg_f64_stats_kernel(const float *w32, const double *w64, size_t n, unsigned char poison,
                     egg_f64_stats *st)
{
	unsigned long long mism = 0, cnt = 0;
	double max_err = 0, max_mag = 0, sq = 0;
	EGG_FOR_EACH(i, n) {
		if (egg_poisoned((const unsigned char *)(w32 + i), 4, poison))
			continue;
		double a = w32[i], b = w64[i];
		if (isnan(a) || isinf(a) || isnan(b) || isinf(b)) {
			mism += !((isnan(a) && isnan(b)) || a == b);
			continue;
		}
		double e = fabs(a - b);
		max_err = fmax(max_err, e);
		max_mag = fmax(max_mag, fabs(b));
		sq += e * e;
		cnt++;
	}
	if (mism)
		atomicAdd(&st->mismatch, mism);
	if (cnt)
		atomicAdd(&st->n, cnt);
	unsigned long long me = egg_warp_max((unsigned long long)__double_as_longlong(max_err));
	unsigned long long mm = egg_warp_max((unsigned long long)__double_as_longlong(max_mag));
	double s = egg_warp_sum(sq);
	if ((threadIdx.x & 31) == 0) {
		atomicMax(&st->max_err, me);
		atomicMax(&st->max_mag, mm);
		atomicAdd(&st->sum_sq, s);
	}
}

static void *g_scratch; /* device: one egg_cmp_stats, egg_f64_stats or flag */

/* 1 if n bytes at a and b (device) differ; b NULL: if some byte of a is not v. */
static int
egg_dev_differ(const unsigned char *a, const unsigned char *b, unsigned char v, size_t n)
{
	int flag = 0;
	if (n == 0)
		return 0;
	/* the guard after a buffer starts wherever the buffer ends */
	size_t words = ((uintptr_t)a | (uintptr_t)b) % 16 ? 0 : n / 16;
	EGG_CK(cudaMemset(g_scratch, 0, sizeof flag));
	egg_differ_kernel<<<egg_grid(words ? words : n), 256>>>(a, b, v, n, words, (int *)g_scratch);
	EGG_CK(cudaGetLastError());
	EGG_CK(cudaMemcpy(&flag, g_scratch, sizeof flag, cudaMemcpyDeviceToHost));
	return flag;
}

static double
egg_bits_double(unsigned long long u)
{
	double d;
	memcpy(&d, &u, sizeof d);
	return d;
}

/* ---- buffers ---- */

struct egg_buf {
	int used;        /* a pointer parameter */
	size_t n;        /* scalars of the base type (elements x lanes) */
	size_t bytes;
	unsigned char *dev[2];  /* [0] candidate, [1] reference; each inside guards */
	unsigned char *orig;    /* pristine inputs of this trial (device) */
	unsigned char *snap[2]; /* outputs copied right after the call (device) */
	unsigned char *dev64;   /* the float64 evaluation's buffer (doubles for float) */
	size_t off;             /* dev[c] lies this many bytes past an aligned allocation */
};

static egg_buf g_buf[EGG_MAX_PARAMS];
static int g_offset_bases; /* this probe offsets the contenders' base pointers */
/* the guards' bytes around each contender's buffers (0xFF: NaN for every float
 * type); a probe's two reference runs use different ones */
static unsigned char g_guard_fill[2] = { 0xFF, 0xFF };
static egg_wl g_wl;
static void *g_args[3][EGG_MAX_PARAMS];
struct egg_slot {
	alignas(16) unsigned char b[16];
};
static egg_slot g_scalar64[EGG_MAX_PARAMS];
static unsigned char *g_flush;
static size_t g_flush_bytes;

static int
egg_is_output(int p)
{
	return g_prog->params[p].role == EGG_ROLE_OUT || g_prog->params[p].role == EGG_ROLE_INOUT;
}

static int
egg_is_input(int p)
{
	return g_prog->params[p].role == EGG_ROLE_IN || g_prog->params[p].role == EGG_ROLE_INOUT ||
	       g_prog->params[p].role == EGG_ROLE_TEMP;
}

static unsigned char *
egg_dev_alloc(size_t bytes)
{
	unsigned char *p = NULL;
	cudaError_t e = cudaMalloc((void **)&p, bytes + 2 * g_guard);
	if (e != cudaSuccess)
		egg_failf(5, "harness_error", "cannot allocate %zu bytes on the GPU: %s", bytes,
		          cudaGetErrorString(e));
	return p + g_guard;
}

static void
egg_alloc_workload(void)
{
	for (int p = 0; p < g_prog->n_params; p++) {
		egg_buf *b = &g_buf[p];
		memset(b, 0, sizeof *b);
		if (!g_prog->params[p].is_pointer) {
			g_args[0][p] = g_args[1][p] = g_wl.scalar[p];
			continue;
		}
		if (g_wl.absent[p]) { /* left NULL by the workload: no buffer */
			g_args[0][p] = &b->dev[0];
			g_args[1][p] = &b->dev[1];
			continue;
		}
		b->used = 1;
		if (g_wl.count[p] < 0)
			egg_failf(5, "harness_error", "the extent of %s is negative (%lld)",
			          g_prog->params[p].name, g_wl.count[p]);
		b->n = (size_t)g_wl.count[p] * (size_t)g_prog->params[p].lanes;
		b->bytes = b->n * egg_type_size(g_prog->params[p].type);
		/* a probe with offset bases: one element past cudaMalloc's alignment, or
		 * the alignment aligned(...) declares */
		b->off = !g_offset_bases ? 0 : g_prog->params[p].align ? (size_t)g_prog->params[p].align
		         : egg_type_size(g_prog->params[p].type) * (size_t)g_prog->params[p].lanes;
		for (int c = 0; c < 2; c++) {
			b->dev[c] = egg_dev_alloc(b->bytes + b->off) + b->off;
			g_args[c][p] = &b->dev[c];
			if (egg_is_output(p))
				b->snap[c] = egg_dev_alloc(b->bytes);
		}
		b->orig = egg_dev_alloc(b->bytes);
	}
}

static void
egg_free_workload(void)
{
	for (int p = 0; p < g_prog->n_params; p++) {
		egg_buf *b = &g_buf[p];
		if (!b->used)
			continue;
		for (int c = 0; c < 2; c++) {
			cudaFree(b->dev[c] - b->off - g_guard);
			if (b->snap[c])
				cudaFree(b->snap[c] - g_guard);
		}
		cudaFree(b->orig - g_guard);
		if (b->dev64)
			cudaFree(b->dev64 - g_guard);
		memset(b, 0, sizeof *b);
	}
}

/* Puts contender c's buffers in their pre-call state: inputs from orig, outputs
 * poisoned, guards 0xFF. */
static void
egg_prepare(int c, int poison)
{
	for (int p = 0; p < g_prog->n_params; p++) {
		egg_buf *b = &g_buf[p];
		if (!b->used)
			continue;
		EGG_CK(cudaMemset(b->dev[c] - g_guard, g_guard_fill[c], g_guard));
		EGG_CK(cudaMemset(b->dev[c] + b->bytes, g_guard_fill[c], g_guard));
		if (egg_is_input(p))
			EGG_CK(cudaMemcpy(b->dev[c], b->orig, b->bytes, cudaMemcpyDeviceToDevice));
		else
			EGG_CK(cudaMemset(b->dev[c], poison, b->bytes));
	}
	EGG_CK(cudaDeviceSynchronize());
}

/* Calls contender who (0 the candidate, 1 the reference) on buffer set `set`
 * and snapshots that set's outputs in stream order; the first CUDA error. */
static cudaError_t
egg_call_on(int who, int set)
{
	const egg_launch *l = &g_wl.launch;
	if (who == 0)
		g_prog->cand(g_args[set], l);
	else
		g_prog->ref(g_args[set], l);
	cudaError_t e = cudaGetLastError();
	for (int p = 0; e == cudaSuccess && p < g_prog->n_params; p++)
		if (g_buf[p].snap[set])
			e = cudaMemcpy(g_buf[p].snap[set], g_buf[p].dev[set], g_buf[p].bytes,
			               cudaMemcpyDeviceToDevice);
	if (e == cudaSuccess)
		e = cudaDeviceSynchronize();
	return e;
}

/* Calls contender c and snapshots its outputs in stream order.  A CUDA error is
 * the contender's fault: the program ends with its verdict. */
static void
egg_call_checked(int c, const char *where)
{
	cudaError_t e = egg_call_on(c, c);
	if (e != cudaSuccess) {
		if (c == 0)
			egg_failf(4, "cuda_error", "the candidate failed (%s): %s", where,
			          cudaGetErrorString(e));
		if (g_probing) { /* outside the reference's own domain; the GPU may be unusable now */
			snprintf(g_probe_stop, sizeof g_probe_stop, "the reference failed at %s: %s; "
			         "the probes after it were not run", where, cudaGetErrorString(e));
			egg_finish(0, "ok", NULL);
		}
		egg_failf(5, "reference_error", "the reference failed (%s): %s", where,
		          cudaGetErrorString(e));
	}
}

/* ---- the float64 evaluation of the reference ----
 * A long float reduction written as a serial loop rounds far more than the
 * tolerance allows, so a correct candidate that sums in another order (a tree)
 * differs from it by the reference's own error.  Where a candidate fails only by
 * tolerance on a float buffer, the reference is run once more compiled with double
 * for float (harness/gen.c: gen_unit_f64) and the candidate is judged against
 * that: within the tolerance plus twice the reference's own largest error in
 * that buffer (|float result - float64 result|).  A candidate is held to the
 * reference's accuracy and no more: a slip smaller than the reference's own
 * rounding is one the reference could not show either, and an order-dependent
 * reference (atomics) still passes its own self-check.  The float64 result is trusted
 * only if the reference's float result is within a quarter of the buffer's
 * largest magnitude of it everywhere, with NaN and Inf at the same places;
 * otherwise the float reference stays the judge. */

static int g_f64_state; /* this trial: 0 not run, 1 ran, -1 failed */
static char g_f64_why[300];

static int
egg_run_f64(void)
{
	if (g_f64_state)
		return g_f64_state > 0;
	g_f64_state = -1;
	if (!g_prog->ref64) {
		snprintf(g_f64_why, sizeof g_f64_why, "the reference has no float64 version");
		return 0;
	}
	for (int p = 0; p < g_prog->n_params; p++) {
		egg_buf *b = &g_buf[p];
		int f32 = g_prog->params[p].type == EGG_T_F32;
		if (g_wl.absent[p]) {
			g_args[2][p] = &b->dev64; /* NULL */
			continue;
		}
		if (!b->used) {
			memcpy(g_scalar64[p].b, g_wl.scalar[p], sizeof g_scalar64[p].b);
			if (f32)
				*(double *)g_scalar64[p].b = *(const float *)g_wl.scalar[p];
			g_args[2][p] = g_scalar64[p].b;
			continue;
		}
		if (!b->dev64)
			b->dev64 = egg_dev_alloc(f32 ? b->n * sizeof(double) : b->bytes);
		g_args[2][p] = &b->dev64;
		if (!egg_is_input(p))
			EGG_CK(cudaMemset(b->dev64, 0xFF, f32 ? b->n * sizeof(double) : b->bytes));
		else if (f32)
			egg_widen_kernel<<<egg_grid(b->n), 256>>>((const float *)b->orig,
			                                          (double *)b->dev64, b->n);
		else
			EGG_CK(cudaMemcpy(b->dev64, b->orig, b->bytes, cudaMemcpyDeviceToDevice));
	}
	EGG_CK(cudaDeviceSynchronize());
	egg_launch l = g_wl.launch;
	l.smem *= 2; /* a kernel's dynamic shared floats are doubles there */
	g_prog->ref64(g_args[2], &l);
	cudaError_t e = cudaGetLastError();
	if (e == cudaSuccess)
		e = cudaDeviceSynchronize();
	if (e != cudaSuccess) {
		snprintf(g_f64_why, sizeof g_f64_why, "the float64 version of the reference failed: %s",
		         cudaGetErrorString(e));
		/* A fault that poisoned the context ends the program: the candidate was
		 * already wrong against the float reference. */
		if (cudaMemset(g_scratch, 0, 8) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess)
			egg_failf(1, "wrong", "%s (%s)", g_why[0] ? g_why : "outside the tolerance",
			          g_f64_why);
		return 0;
	}
	g_f64_state = 1;
	return 1;
}

static void
egg_get_stats(egg_cmp_stats *s)
{
	EGG_CK(cudaGetLastError());
	EGG_CK(cudaMemcpy(s, g_scratch, sizeof *s, cudaMemcpyDeviceToHost));
}

static void
egg_run_compare(int p, unsigned char poison, const double *want64, double rtol, double atol,
                double slack, egg_cmp_stats *s)
{
	egg_buf *b = &g_buf[p];
	memset(s, 0, sizeof *s);
	s->first_bad = ~0ull;
	EGG_CK(cudaMemcpy(g_scratch, s, sizeof *s, cudaMemcpyHostToDevice));
	egg_compare_kernel<<<egg_grid(b->n), 256>>>(g_prog->params[p].type, b->snap[0], b->snap[1],
	                                            want64, b->n, poison, rtol, atol, slack,
	                                            (egg_cmp_stats *)g_scratch);
	egg_get_stats(s);
}

/* One element of a device buffer, as a double. */
static double
egg_dev_value(int t, const unsigned char *p, size_t i)
{
	unsigned char tmp[8];
	size_t es = egg_type_size(t);
	EGG_CK(cudaMemcpy(tmp, p + i * es, es, cudaMemcpyDeviceToHost));
	return egg_get(t, tmp, 0);
}

/* Output p's tolerance: the clause's, else the type's default. */
static void
egg_tolerance(int p, double *rtol, double *atol)
{
	egg_default_tolerance(g_prog->params[p].type, rtol, atol);
	if (g_wl.rtol >= 0)
		*rtol = g_wl.rtol;
	if (g_wl.atol >= 0)
		*atol = g_wl.atol;
}

/* Compares one output buffer; appends its JSON; returns 1 if it passes. */
static int
egg_compare(int p, unsigned char poison)
{
	egg_buf *b = &g_buf[p];
	int t = g_prog->params[p].type;
	double rtol, atol;
	egg_tolerance(p, &rtol, &atol);
	egg_cmp_stats s;
	egg_run_compare(p, poison, NULL, rtol, atol, 0, &s);
	/* Outside the tolerance only (nothing unwritten, no stray NaN): ask the
	 * float64 evaluation whether the reference itself is that far off. */
	int f64_asked = 0, f64_trusted = 0;
	egg_f64_stats fs;
	memset(&fs, 0, sizeof fs);
	if (s.bad && !s.unwritten && !s.nonfinite && t == EGG_T_F32 && egg_run_f64()) {
		f64_asked = 1;
		EGG_CK(cudaMemcpy(g_scratch, &fs, sizeof fs, cudaMemcpyHostToDevice));
		egg_f64_stats_kernel<<<egg_grid(b->n), 256>>>((const float *)b->snap[1],
		                                              (const double *)b->dev64, b->n, poison,
		                                              (egg_f64_stats *)g_scratch);
		EGG_CK(cudaGetLastError());
		EGG_CK(cudaMemcpy(&fs, g_scratch, sizeof fs, cudaMemcpyDeviceToHost));
		f64_trusted = fs.mismatch == 0 &&
		              egg_bits_double(fs.max_err) <= 0.25 * egg_bits_double(fs.max_mag) + atol;
		if (f64_trusted)
			egg_run_compare(p, poison, (const double *)b->dev64, rtol, atol,
			                2 * egg_bits_double(fs.max_err), &s);
	}
	double got_bad = 0, want_bad = 0;
	long long first_bad = s.bad ? (long long)s.first_bad : -1;
	if (s.bad) {
		got_bad = egg_dev_value(t, b->snap[0], s.first_bad);
		want_bad = f64_trusted ? egg_dev_value(EGG_T_F64, b->dev64, s.first_bad)
		                       : egg_dev_value(t, b->snap[1], s.first_bad);
	}
	if (s.bad && !g_why[0])
		snprintf(g_why, sizeof g_why, "%s: %llu of %zu elements wrong (%llu unwritten, %llu "
		         "non-finite), the first at index %lld: got %.9g, want %.9g%s", g_prog->params[p].name,
		         s.bad, b->n, s.unwritten, s.nonfinite, first_bad, got_bad, want_bad,
		         f64_trusted ? " (the reference evaluated in float64)" : "");
	egg_add(&g_checks, "{\"name\":");
	egg_add_str(&g_checks, g_prog->params[p].name);
	egg_add(&g_checks, ",\"elements\":%zu,\"max_abs\":", b->n);
	egg_add_num(&g_checks, egg_bits_double(s.max_abs));
	egg_add(&g_checks, ",\"max_rel\":");
	egg_add_num(&g_checks, egg_bits_double(s.max_rel));
	egg_add(&g_checks, ",\"rtol\":%g,\"atol\":%g,\"bad\":%llu,\"first_bad\":%lld", rtol, atol,
	        s.bad, first_bad);
	if (first_bad >= 0) {
		egg_add(&g_checks, ",\"got\":");
		egg_add_num(&g_checks, got_bad);
		egg_add(&g_checks, ",\"want\":");
		egg_add_num(&g_checks, want_bad);
	}
	egg_add(&g_checks, ",\"unwritten\":%llu,\"nonfinite\":%llu,\"ref_unwritten\":%llu",
	        s.unwritten, s.nonfinite, s.ref_unwritten);
	egg_add(&g_checks, ",\"judged_against\":\"%s\"", f64_trusted ? "float64" : "reference");
	if (f64_asked) {
		egg_add(&g_checks, ",\"reference_f64\":{\"trusted\":%s,\"mismatch\":%llu,\"max_err\":",
		        f64_trusted ? "true" : "false", fs.mismatch);
		egg_add_num(&g_checks, egg_bits_double(fs.max_err));
		egg_add(&g_checks, ",\"rms_err\":");
		egg_add_num(&g_checks, fs.n ? sqrt(fs.sum_sq / (double)fs.n) : 0);
		egg_add(&g_checks, ",\"max_magnitude\":");
		egg_add_num(&g_checks, egg_bits_double(fs.max_mag));
		egg_add(&g_checks, "}");
	} else if (s.bad && g_f64_state < 0 && g_f64_why[0] && t == EGG_T_F32) {
		egg_add(&g_checks, ",\"reference_f64\":{\"trusted\":false,\"why\":");
		egg_add_str(&g_checks, g_f64_why);
		egg_add(&g_checks, "}");
	}
	egg_add(&g_checks, "}");
	return s.bad == 0;
}

/* 1 if every guard of contender c is still 0xFF and its read-only inputs are
 * unchanged; names the first offender in *what. */
static int
egg_check_integrity(int c, const char **what)
{
	for (int p = 0; g_guard && p < g_prog->n_params; p++) {
		egg_buf *b = &g_buf[p];
		if (!b->used)
			continue;
		if (egg_dev_differ(b->dev[c] - g_guard, NULL, g_guard_fill[c], g_guard) ||
		    egg_dev_differ(b->dev[c] + b->bytes, NULL, g_guard_fill[c], g_guard)) {
			*what = g_prog->params[p].name;
			return 0;
		}
	}
	for (int p = 0; p < g_prog->n_params; p++) {
		egg_buf *b = &g_buf[p];
		if (!b->used || g_prog->params[p].role != EGG_ROLE_IN)
			continue;
		if (egg_dev_differ(b->dev[c], b->orig, 0, b->bytes)) {
			*what = g_prog->params[p].name;
			return -1;
		}
	}
	return 1;
}

static int g_n_checks;

/* "workload 2", or "probe 3 (rows = 5, cols = 4099)" with the scalar values;
 * either with the pointers it leaves NULL ("workload 1 (bias = NULL)"). */
static void
egg_label(int w, char *buf, size_t size)
{
	int n, named = w < g_prog->n_workloads;
	if (named)
		n = snprintf(buf, size, "workload %d", w);
	else
		n = snprintf(buf, size, "probe %d (", w - g_prog->n_workloads);
	const char *sep = "";
	for (int p = 0; p < g_prog->n_params && n > 0 && (size_t)n < size; p++) {
		if (g_wl.absent[p]) {
			n += snprintf(buf + n, size - (size_t)n, "%s%s = NULL", named ? (*sep ? sep : " (") : sep,
			              g_prog->params[p].name);
			sep = ", ";
			continue;
		}
		if (named || g_prog->params[p].is_pointer)
			continue;
		double v = egg_get(g_prog->params[p].type, g_wl.scalar[p], 0);
		if (g_prog->params[p].type == EGG_T_I64)
			n += snprintf(buf + n, size - (size_t)n, "%s%s = %lld", sep, g_prog->params[p].name,
			              (long long)*(const int64_t *)g_wl.scalar[p]);
		else if (g_prog->params[p].type == EGG_T_U64)
			n += snprintf(buf + n, size - (size_t)n, "%s%s = %llu", sep, g_prog->params[p].name,
			              (unsigned long long)*(const uint64_t *)g_wl.scalar[p]);
		else
			n += snprintf(buf + n, size - (size_t)n, "%s%s = %.9g", sep, g_prog->params[p].name, v);
		sep = ", ";
	}
	if (named && *sep && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, ")");
	else if (!named && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, "%s)", g_offset_bases ? "; bases offset" : "");
}

/* Fresh inputs of one trial from its seed. */
static void
egg_fill_inputs(unsigned long long seed)
{
	for (int p = 0; p < g_prog->n_params; p++) {
		egg_buf *b = &g_buf[p];
		if (!b->used || !egg_is_input(p))
			continue;
		double lo = g_wl.lo[p], hi = g_wl.hi[p];
		if (!g_wl.has_range[p])
			egg_default_range(g_prog->params[p].type, &lo, &hi);
		egg_fill_kernel<<<egg_grid(b->n), 256>>>(g_prog->params[p].type, b->orig, b->n, lo, hi,
		                                         egg_mix(seed + 7919ull * (unsigned)p));
		EGG_CK(cudaGetLastError());
	}
	EGG_CK(cudaDeviceSynchronize());
}

/* A check's record: its header and the comparison of every output (snap[0]
 * against snap[1]); returns 1 if they all pass.  egg_record_end closes it. */
static int
egg_record_outputs(int w, int trial, unsigned long long seed, const char *label, unsigned char poison)
{
	g_check_mark = (long long)g_checks.len;
	if (g_n_checks++)
		egg_add(&g_checks, ",");
	egg_add(&g_checks, "{\"workload\":%d,\"trial\":%d,\"seed\":%llu,\"call\":", w, trial, seed);
	egg_add_str(&g_checks, label);
	egg_add(&g_checks, ",\"buffers\":[");
	int pass = 1, first = 1;
	for (int p = 0; p < g_prog->n_params; p++) {
		if (!g_buf[p].used || !egg_is_output(p))
			continue;
		if (!first)
			egg_add(&g_checks, ",");
		first = 0;
		pass &= egg_compare(p, poison);
	}
	egg_add(&g_checks, "]");
	return pass;
}

/* Closes the record: a problem (or ""), the verdict's message prefixed with
 * where, "pass".  Returns the check's verdict. */
static int
egg_record_end(int pass, const char *where, const char *problem)
{
	if (problem[0]) {
		egg_add(&g_checks, ",\"problem\":");
		egg_add_str(&g_checks, problem);
		if (!g_why[0])
			snprintf(g_why, sizeof g_why, "%s", problem);
		pass = 0;
	}
	if (!pass) {
		char tmp[sizeof g_why];
		snprintf(tmp, sizeof tmp, "%s: %s", where, g_why);
		memcpy(g_why, tmp, sizeof g_why);
	}
	egg_add(&g_checks, ",\"pass\":%s}", pass ? "true" : "false");
	g_check_mark = -1;
	return pass;
}

/* One trial: fresh inputs, both contenders, comparison.  Returns 1 if it passed. */
static int
egg_check_trial(int w, int trial)
{
	unsigned long long seed = g_seed ^ (0x100000001B3ull * (unsigned long long)(w * 64 + trial + 1));
	unsigned char poison = (trial & 1) ? 0x7F : 0xFF;
	g_f64_state = 0;
	egg_fill_inputs(seed);
	char label[300], where[340];
	egg_label(w, label, sizeof label);
	snprintf(where, sizeof where, "%s, trial %d", label, trial);
	/* Both contenders' buffers are poisoned before either runs: while the
	 * candidate runs, no reference output of this or an earlier trial exists. */
	egg_prepare(0, poison);
	egg_prepare(1, poison);
	egg_call_checked(0, where);
	egg_call_checked(1, where);
	/* Work still running when the call returned (on a stream the caller's
	 * stream does not wait for) shows as outputs that changed after the snapshot. */
	const char *late = NULL;
	for (int p = 0; !late && p < g_prog->n_params; p++) {
		egg_buf *b = &g_buf[p];
		if (b->snap[0] && egg_dev_differ(b->dev[0], b->snap[0], 0, b->bytes))
			late = g_prog->params[p].name;
	}
	int pass = egg_record_outputs(w, trial, seed, label, poison);
	const char *what = NULL;
	int integ = egg_check_integrity(0, &what);
	char problem[200] = "";
	if (integ == 0)
		snprintf(problem, sizeof problem, "wrote outside buffer %s", what);
	else if (integ < 0)
		snprintf(problem, sizeof problem, "modified the read-only input %s", what);
	else if (late)
		snprintf(problem, sizeof problem, "%s changed after the call returned: work on another "
		         "stream was not ordered before the caller's stream", late);
	return egg_record_end(pass, where, problem);
}

/* ---- probes: the validity domain ----
 * The named workloads are what is timed; a replacement is linked for every call
 * the program makes, so it is also checked on probe calls (harness/gen.c derives
 * them: each size scalar at 1, at small odd primes, at the next prime above its
 * named value and one below it, the others small).  A probe is in the
 * reference's own domain if the reference, run twice on it (with zeros around
 * its buffers, then NaN), agrees with itself, writes inside its buffers and
 * leaves its inputs alone; one that is not is skipped and said so.  A reference that fails at a probe ends the probes (the
 * GPU may be unusable after it). */

static int g_no_probes;

/* The sum of the buffers' bytes of the workload set up in g_wl. */
static double
egg_wl_bytes(void)
{
	double t = 0;
	for (int p = 0; p < g_prog->n_params; p++)
		if (g_prog->params[p].is_pointer)
			t += (double)g_wl.count[p] * g_prog->params[p].lanes * egg_type_size(g_prog->params[p].type);
	return t;
}

static void
egg_probe_skip(int k, const char *label, const char *why)
{
	if (g_probe_skips.len)
		egg_add(&g_probe_skips, ",");
	egg_add(&g_probe_skips, "{\"probe\":%d,\"call\":", k);
	egg_add_str(&g_probe_skips, label);
	egg_add(&g_probe_skips, ",\"why\":");
	egg_add_str(&g_probe_skips, why);
	egg_add(&g_probe_skips, "}");
}

/* The reference twice on the probe's inputs (on the candidate's buffers and on
 * its own): 1 if it agrees with itself and keeps to its buffers. */
static int
egg_probe_reference(int w, const char **why)
{
	unsigned long long seed = g_seed ^ (0x100000001B3ull * (unsigned long long)(w * 64 + 63));
	egg_fill_inputs(seed);
	/* the first run sees zeros around its buffers, the second NaN: a reference
	 * that reads outside its buffers there gives two results */
	g_guard_fill[0] = 0x00;
	egg_prepare(0, 0xFF);
	egg_prepare(1, 0xFF);
	char label[300], where[340];
	egg_label(w, label, sizeof label);
	snprintf(where, sizeof where, "%s, its own run", label);
	for (int c = 0; c < 2; c++) {
		cudaError_t e = egg_call_on(1, c);
		if (e != cudaSuccess) {
			snprintf(g_probe_stop, sizeof g_probe_stop, "the reference failed at %s: %s; "
			         "the probes after it were not run", where, cudaGetErrorString(e));
			egg_finish(0, "ok", NULL);
		}
	}
	const char *what = NULL;
	int kept = egg_check_integrity(0, &what) == 1 && egg_check_integrity(1, &what) == 1;
	g_guard_fill[0] = 0xFF;
	if (!kept) {
		*why = "the reference writes outside its buffers or into its inputs there";
		return 0;
	}
	for (int p = 0; p < g_prog->n_params; p++) {
		if (!g_buf[p].used || !egg_is_output(p))
			continue;
		double rtol, atol;
		egg_tolerance(p, &rtol, &atol);
		egg_cmp_stats st;
		egg_run_compare(p, 0xFF, NULL, rtol, atol, 0, &st);
		if (st.bad) {
			*why = "the reference does not agree with itself there (it reads outside its "
			       "buffers, or is not deterministic)";
			return 0;
		}
	}
	return 1;
}

/* Every probe in turn; 1 if the candidate is right at each one checked. */
static int
egg_check_probes(double max_named_bytes)
{
	g_probing = 1;
	for (int k = 0; k < g_prog->n_probes; k++) {
		const int w = g_prog->n_workloads + k;
		g_wl = egg_wl();
		g_wl.rtol = g_wl.atol = -1;
		g_prog->setup(w, &g_wl);
		/* probe 1 (every size small) and each "value less one" probe run with
		 * base pointers one element off the allocator's alignment */
		g_offset_bases = k == 1 || (k >= 3 && k % 2 == 1);
		char label[300];
		egg_label(w, label, sizeof label);
		int neg = 0;
		for (int p = 0; p < g_prog->n_params; p++)
			neg |= g_prog->params[p].is_pointer && g_wl.count[p] < 0;
		if (neg) {
			egg_probe_skip(k, label, "an extent is negative there");
			continue;
		}
		if (egg_wl_bytes() > 2 * max_named_bytes + (64 << 20)) {
			egg_probe_skip(k, label, "its buffers are larger than the named workloads'");
			continue;
		}
		egg_alloc_workload();
		const char *why = NULL;
		if (!egg_probe_reference(w, &why)) {
			egg_probe_skip(k, label, why);
			egg_free_workload();
			continue;
		}
		int ok = egg_check_trial(w, 0) && egg_check_trial(w, 1);
		egg_free_workload();
		if (!ok)
			return 0;
		g_probes_checked++;
	}
	return 1;
}

/* ---- timing ---- */

static void
egg_noop_entry(void *const *a, const egg_launch *l)
{
}

static int
egg_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double
egg_quantile(double *v, int n, double q)
{
	qsort(v, (size_t)n, sizeof *v, egg_cmp_double);
	double pos = q * (n - 1);
	int i = (int)pos;
	return i + 1 < n ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[i];
}

static cudaEvent_t g_ev[3];
static int *g_sink;

/* Reads the flush buffer (twice the L2) so that the L2 holds only clean lines
 * of it: a memset would leave dirty lines whose write-back would then be paid
 * inside the next timed call. */
__global__ void
egg_flush_kernel(const int4 *p, size_t n, int *sink)
{
	int acc = 0;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		int4 v = p[i];
		acc ^= v.x ^ v.y ^ v.z ^ v.w;
	}
	if (acc == 0x5EED5EED)
		*sink = acc;
}

/* Times one call of contender c (2: the empty call).  Inputs are restored and the
 * L2 flushed before it, outside the timed region.  ev_ms: from an event before
 * the call to one recorded right after it; sync_ms: to an event recorded after a
 * device-wide synchronize, so work the call left on other streams is counted. */
/* --profile: the candidate's timed call is the one a profiler sees */
static int g_profile;

static void
egg_time_once(int c, double *ev_ms, double *sync_ms)
{
	/* inputs restored, outputs poisoned: the last timed call's outputs are judged
	 * (egg_check_timed), so a call that skips its work when it sees the same
	 * inputs again is caught */
	for (int p = 0; c < 2 && p < g_prog->n_params; p++) {
		if (!g_buf[p].used)
			continue;
		if (egg_is_input(p))
			EGG_CK(cudaMemcpyAsync(g_buf[p].dev[c], g_buf[p].orig, g_buf[p].bytes,
			                       cudaMemcpyDeviceToDevice, 0));
		else
			EGG_CK(cudaMemsetAsync(g_buf[p].dev[c], 0xFF, g_buf[p].bytes, 0));
	}
	egg_flush_kernel<<<g_prop.multiProcessorCount * 4, 512>>>((const int4 *)g_flush,
	                                                         g_flush_bytes / sizeof(int4), g_sink);
	EGG_CK(cudaGetLastError());
	EGG_CK(cudaDeviceSynchronize());
	EGG_CK(cudaEventRecord(g_ev[0], 0));
	if (c == 0 && g_profile)
		EGG_CK(cudaProfilerStart());
	if (c == 0)
		g_prog->cand(g_args[0], &g_wl.launch);
	else if (c == 1)
		g_prog->ref(g_args[1], &g_wl.launch);
	else
		egg_noop_entry(NULL, &g_wl.launch);
	cudaError_t e = cudaEventRecord(g_ev[1], 0);
	if (e == cudaSuccess)
		e = cudaDeviceSynchronize();
	if (e == cudaSuccess)
		e = cudaEventRecord(g_ev[2], 0);
	if (e == cudaSuccess)
		e = cudaEventSynchronize(g_ev[2]);
	if (e == cudaSuccess && c == 0 && g_profile)
		e = cudaProfilerStop();
	if (e != cudaSuccess) {
		if (c == 0)
			egg_failf(4, "cuda_error", "the candidate failed while being timed: %s",
			          cudaGetErrorString(e));
		egg_failf(5, "reference_error", "the reference failed while being timed: %s",
		          cudaGetErrorString(e));
	}
	float a, b;
	EGG_CK(cudaEventElapsedTime(&a, g_ev[0], g_ev[1]));
	EGG_CK(cudaEventElapsedTime(&b, g_ev[0], g_ev[2]));
	*ev_ms = a;
	*sync_ms = b;
}

static int g_warmup = EGG_WARMUP, g_min_reps = EGG_MIN_REPS, g_max_reps = EGG_MAX_REPS, g_n_timings;
static double g_target_ms = 300;

static void
egg_add_stats(const char *key, double *t, int n, double *median)
{
	double p10 = egg_quantile(t, n, 0.1), p90 = egg_quantile(t, n, 0.9);
	*median = egg_quantile(t, n, 0.5);
	egg_add(&g_timings, ",\"%s\":{\"median_ms\":%.6g,\"p10_ms\":%.6g,\"p90_ms\":%.6g,"
	        "\"min_ms\":%.6g,\"max_ms\":%.6g,\"spread\":%.4g}", key, *median, p10, p90, t[0],
	        t[n - 1], *median > 0 ? (p90 - p10) / *median : 0);
}

static void
egg_time_workload(int w)
{
	double ev, sy, est[2] = { 0, 0 };
	for (int i = 0; i < g_warmup; i++)
		for (int c = 0; c < 3; c++) {
			egg_time_once(c, &ev, &sy);
			if (c < 2)
				est[c] = sy;
		}
	double per = est[0] > est[1] ? est[0] : est[1];
	int reps = per > 0 ? (int)(g_target_ms / per) : g_max_reps;
	reps = reps < g_min_reps ? g_min_reps : reps > g_max_reps ? g_max_reps : reps;
	double *t[3], *evt[2];
	for (int c = 0; c < 3; c++)
		t[c] = (double *)malloc(sizeof(double) * (size_t)reps);
	for (int c = 0; c < 2; c++)
		evt[c] = (double *)malloc(sizeof(double) * (size_t)reps);
	double *sync_raw[2] = { (double *)malloc(sizeof(double) * (size_t)reps),
		                (double *)malloc(sizeof(double) * (size_t)reps) };
	for (int r = 0; r < reps; r++)
		for (int k = 0; k < 3; k++) {
			int c = (r & 1) ? 2 - k : k; /* alternate the order */
			egg_time_once(c, &ev, &sy);
			if (c == 2) {
				t[2][r] = sy;
			} else {
				evt[c][r] = ev;
				sync_raw[c][r] = sy;
			}
		}
	double overhead = egg_quantile(t[2], reps, 0.5);
	/* The time of a call is the event time, unless the synchronized time less the
	 * cost of an empty call is clearly longer: then the call left work running
	 * on another stream, and the synchronized times are the ones that count.
	 * (Deciding on medians keeps the host's jitter out of ordinary timings.) */
	int escaped[2];
	for (int c = 0; c < 2; c++) {
		double ev_med = egg_quantile(evt[c], reps, 0.5);
		double sy_med = egg_quantile(sync_raw[c], reps, 0.5) - overhead;
		escaped[c] = sy_med > ev_med * 1.1 + 0.005;
		for (int r = 0; r < reps; r++)
			t[c][r] = escaped[c] ? fmax(sync_raw[c][r] - overhead, 0) : evt[c][r];
	}
	double bytes = 0;
	for (int p = 0; p < g_prog->n_params; p++)
		if (g_buf[p].used && g_prog->params[p].role != EGG_ROLE_TEMP)
			bytes += (double)g_buf[p].bytes * (g_prog->params[p].role == EGG_ROLE_INOUT ? 2 : 1);
	if (g_n_timings++)
		egg_add(&g_timings, ",");
	egg_add(&g_timings, "{\"workload\":%d,\"reps\":%d,\"bytes\":%.0f,\"overhead_ms\":%.6g", w,
	        reps, bytes, overhead);
	if (g_wl.flops > 0)
		egg_add(&g_timings, ",\"flops\":%.17g", g_wl.flops);
	double med[2], evmed[2];
	egg_add_stats("candidate", t[0], reps, &med[0]);
	egg_add_stats("reference", t[1], reps, &med[1]);
	for (int c = 0; c < 2; c++)
		evmed[c] = egg_quantile(evt[c], reps, 0.5);
	egg_add(&g_timings, ",\"event_median_ms\":{\"candidate\":%.6g,\"reference\":%.6g}", evmed[0],
	        evmed[1]);
	egg_add(&g_timings, ",\"unordered_work\":{\"candidate\":%s,\"reference\":%s}",
	        escaped[0] ? "true" : "false", escaped[1] ? "true" : "false");
	egg_add(&g_timings, ",\"speedup\":%.6g}", med[0] > 0 ? med[1] / med[0] : 0);
	for (int c = 0; c < 3; c++)
		free(t[c]);
	for (int c = 0; c < 2; c++) {
		free(evt[c]);
		free(sync_raw[c]);
	}
}

/* The outputs of the last timed calls of both contenders (the same inputs,
 * outputs poisoned with 0xFF before each): 1 if the candidate's are right.  A
 * candidate that is right when checked and skips its work when timed (it sees
 * the same inputs again and again) fails here. */
static int
egg_check_timed(int w)
{
	for (int p = 0; p < g_prog->n_params; p++)
		for (int c = 0; c < 2; c++)
			if (g_buf[p].snap[c])
				EGG_CK(cudaMemcpy(g_buf[p].snap[c], g_buf[p].dev[c], g_buf[p].bytes,
				                  cudaMemcpyDeviceToDevice));
	EGG_CK(cudaDeviceSynchronize());
	g_f64_state = 0; /* (the float64 twin, if asked, runs on orig's inputs) */
	char label[300], where[340];
	egg_label(w, label, sizeof label);
	snprintf(where, sizeof where, "%s, its last timed call", label);
	int pass = egg_record_outputs(w, -1, 0, where, 0xFF);
	return egg_record_end(pass, where, "");
}

/* ---- the device: description and ceilings ---- */

static void
egg_describe_device(int dev)
{
	EGG_CK(cudaGetDeviceProperties(&g_prop, dev));
	int drv = 0, rt = 0;
	cudaDriverGetVersion(&drv);
	cudaRuntimeGetVersion(&rt);
	char uuid[40];
	const unsigned char *u = (const unsigned char *)g_prop.uuid.bytes;
	snprintf(uuid, sizeof uuid, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
	         u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
	         u[13], u[14], u[15]);
	egg_add(&g_device, "{\"name\":");
	egg_add_str(&g_device, g_prop.name);
	egg_add(&g_device, ",\"uuid\":\"GPU-%s\",\"cc\":\"%d.%d\",\"sm_count\":%d,"
	        "\"memory_bytes\":%zu,\"l2_bytes\":%d,\"driver_version\":%d,\"runtime_version\":%d}",
	        uuid, g_prop.major, g_prop.minor, g_prop.multiProcessorCount, g_prop.totalGlobalMem,
	        g_prop.l2CacheSize, drv, rt);
}

__global__ void
egg_fma_kernel(float *out, int iters, float seed)
{
	float a0 = seed + threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3;
	float a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
	const float m = 0.9999f, k = 1e-7f;
	for (int i = 0; i < iters; i++) {
		a0 = fmaf(a0, m, k); a1 = fmaf(a1, m, k); a2 = fmaf(a2, m, k); a3 = fmaf(a3, m, k);
		a4 = fmaf(a4, m, k); a5 = fmaf(a5, m, k); a6 = fmaf(a6, m, k); a7 = fmaf(a7, m, k);
	}
	float s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
	if (s == 12345.678f)
		out[0] = s;
}

/* The two ceilings of METHOD.md: device-to-device copy bandwidth (bytes read plus
 * bytes written) and the fp32 FMA rate, each the median of several runs. */
static void
egg_measure_ceilings(void)
{
	size_t bytes = (size_t)512 << 20;
	if (bytes * 4 > g_prop.totalGlobalMem)
		bytes = g_prop.totalGlobalMem / 8;
	unsigned char *a, *b;
	EGG_CK(cudaMalloc((void **)&a, bytes));
	EGG_CK(cudaMalloc((void **)&b, bytes));
	EGG_CK(cudaMemset(a, 1, bytes));
	float ms[15];
	for (int i = 0; i < 15; i++) {
		EGG_CK(cudaEventRecord(g_ev[0], 0));
		EGG_CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0));
		EGG_CK(cudaEventRecord(g_ev[1], 0));
		EGG_CK(cudaEventSynchronize(g_ev[1]));
		EGG_CK(cudaEventElapsedTime(&ms[i], g_ev[0], g_ev[1]));
	}
	double d[15];
	for (int i = 0; i < 15; i++)
		d[i] = ms[i];
	double copy_ms = egg_quantile(d + 3, 12, 0.5);
	double copy_gbs = 2.0 * (double)bytes / (copy_ms * 1e-3) / 1e9;
	cudaFree(a);
	cudaFree(b);

	float *out;
	EGG_CK(cudaMalloc((void **)&out, sizeof(float)));
	int blocks = g_prop.multiProcessorCount * 8, threads = 256, iters = EGG_FMA_ITERS;
	for (int i = 0; i < 9; i++) {
		EGG_CK(cudaEventRecord(g_ev[0], 0));
		egg_fma_kernel<<<blocks, threads>>>(out, iters, (float)i);
		EGG_CK(cudaEventRecord(g_ev[1], 0));
		EGG_CK(cudaEventSynchronize(g_ev[1]));
		EGG_CK(cudaEventElapsedTime(&ms[i], g_ev[0], g_ev[1]));
		d[i] = ms[i];
	}
	double fma_ms = egg_quantile(d + 1, 8, 0.5);
	double flops = 2.0 * 8 * (double)iters * blocks * threads;
	cudaFree(out);
	egg_add(&g_misc, ",\"ceilings\":{\"copy_bytes\":%zu,\"copy_ms\":%.6g,\"copy_gbs\":%.6g,"
	        "\"fma_gflops\":%.6g}", 2 * bytes, copy_ms, copy_gbs, flops / (fma_ms * 1e-3) / 1e9);
}

/* ---- main ---- */

static void
egg_usage(void)
{
	egg_failf(2, "usage", "usage: PROGRAM [--out FILE] [--seed N] [--trials N] [--warmup N] "
	          "[--reps MIN:MAX] [--target-ms MS] [--no-timing] [--no-guards] [--no-probes] [--self-check] "
	          "[--probe] [--ceilings] [--profile WORKLOAD]");
}

/* The program's main (main.cu, harness/gen.c) calls this with its bundle's half. */
int
egg_runtime_main(int argc, char **argv, const egg_program *prog)
{
	g_prog = prog;
	int trials = 3, timing = 1, probe = 0, ceilings = 0, profile = -1;
	g_seed = 0x5EEDull;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--out") && v) g_out_path = argv[++i];
		else if (!strcmp(a, "--seed") && v) g_seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(a, "--trials") && v) trials = atoi(argv[++i]);
		else if (!strcmp(a, "--warmup") && v) g_warmup = atoi(argv[++i]);
		else if (!strcmp(a, "--reps") && v) {
			if (sscanf(argv[++i], "%d:%d", &g_min_reps, &g_max_reps) != 2) egg_usage();
		}
		else if (!strcmp(a, "--target-ms") && v) g_target_ms = atof(argv[++i]);
		else if (!strcmp(a, "--no-timing")) timing = 0;
		else if (!strcmp(a, "--no-guards")) g_guard = 0;
		else if (!strcmp(a, "--self-check")) g_self_check = 1;
		else if (!strcmp(a, "--no-probes")) g_no_probes = 1;
		else if (!strcmp(a, "--probe")) probe = 1;
		else if (!strcmp(a, "--ceilings")) probe = ceilings = 1;
		else if (!strcmp(a, "--profile") && v) profile = atoi(argv[++i]);
		else egg_usage();
	}
	if (trials < 2 || g_min_reps < 3 || g_max_reps < g_min_reps)
		egg_usage();
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess || n == 0)
		egg_failf(3, "no_gpu", "no usable GPU: %s",
		          e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device is visible");
	EGG_CK(cudaSetDevice(0));
	egg_describe_device(0);
	for (int i = 0; i < 3; i++)
		EGG_CK(cudaEventCreate(&g_ev[i]));
	if (probe) {
		egg_add(&g_misc, ",\"device_count\":%d", n);
		if (ceilings)
			egg_measure_ceilings();
		egg_finish(0, "ok", NULL);
	}
	g_flush_bytes = (size_t)(g_prop.l2CacheSize > 0 ? g_prop.l2CacheSize : 8 << 20) * 2;
	if (g_flush_bytes < EGG_FLUSH_MIN_BYTES)
		g_flush_bytes = EGG_FLUSH_MIN_BYTES;
	EGG_CK(cudaMalloc((void **)&g_flush, g_flush_bytes));
	EGG_CK(cudaMemset(g_flush, 0x3C, g_flush_bytes));
	EGG_CK(cudaMalloc((void **)&g_sink, sizeof(int)));
	EGG_CK(cudaMalloc(&g_scratch, 64));

	if (profile >= 0) {
		if (profile >= g_prog->n_workloads)
			egg_usage();
		double ev, sy;
		g_wl = egg_wl();
		g_wl.rtol = g_wl.atol = -1;
		g_prog->setup(profile, &g_wl);
		egg_alloc_workload();
		if (!egg_check_trial(profile, 0))
			egg_finish(1, "wrong", g_why[0] ? g_why : "the outputs differ from the reference's");
		g_profile = 1;
		egg_time_once(0, &ev, &sy);
		egg_free_workload();
		egg_finish(0, "ok", NULL);
	}
	int ok = 1;
	double max_bytes = 0;
	for (int w = 0; ok && w < g_prog->n_workloads; w++) {
		g_wl = egg_wl();
		g_wl.rtol = g_wl.atol = -1;
		g_prog->setup(w, &g_wl);
		if (egg_wl_bytes() > max_bytes)
			max_bytes = egg_wl_bytes();
		egg_alloc_workload();
		for (int t = 0; ok && t < trials; t++)
			ok = egg_check_trial(w, t);
		if (ok && timing) {
			egg_time_workload(w);
			ok = egg_check_timed(w) && egg_check_trial(w, trials);
		}
		egg_free_workload();
	}
	if (ok && !g_no_probes && g_prog->n_probes > 0)
		ok = egg_check_probes(max_bytes);
	if (!ok)
		egg_finish(1, "wrong", g_why[0] ? g_why : "the outputs differ from the reference's");
	egg_finish(0, "ok", NULL);
}
