/*
 * bench_main.cu -- the benchmark suite's driver, linked with one case's object
 * (built by nvcc or by egg-cc) and its generated glue table (bench_case.h).
 * It is deliberately independent of egg's own harness: the bench must judge
 * egg's output, not share its assumptions.
 *
 * For every workload of the case: allocate the buffers from the clause
 * extents, fill inputs with counter-hashed random data on the GPU (ranges
 * honoured), poison outputs and temps with 0xFF bytes, run the launcher once,
 * count output elements still holding the poison and non-finite floats, and
 * (with --dump DIR) write inputs as they were before the call and outputs after
 * it, plus DIR/manifest.json, for torch_ref.py to compare against PyTorch in
 * float64.  Then, on the first workload, time the launcher: warm-up, then per
 * repetition restore inout buffers, flush the L2 by reading a 256 MiB buffer
 * (--flush read, the default: it leaves the L2 holding clean lines; --flush
 * write, the method before 2026-12-02, leaves dirty ones that the timed call
 * pays to write back),
 * CUDA events around the call followed by a device synchronize; median,
 * p10 and p90 of N repetitions, N adapted to a time budget (at least 20).
 * The last stdout line is one JSON object.
 *
 * With --ceilings it instead measures the device's copy bandwidth (D2D copy,
 * bytes read + written) and fp32 FMA rate, for the roofline floor.
 */
#ifndef BENCH_HOSTSIM
#include <cuda_runtime.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdint.h>
#include <vector>
#include <algorithm>
#include <string>
#include "bench_case.h"

/* BENCH_HOSTSIM (tests only): the driver's own logic built for the CPU by the test
 * suite, with hostsim.h standing in for the CUDA runtime and a host "launcher". */
#ifdef BENCH_HOSTSIM
#define LAUNCH(kernel, grid, block) hostsim_launch(grid, block), kernel
#else
#define LAUNCH(kernel, grid, block) kernel<<<grid, block>>>
#endif

static const char *g_case = "?";

static void die(const char *what, const char *detail)
{
	/* one JSON line so the suite records the failure instead of losing it */
	printf("{\"case\": \"%s\", \"error\": \"%s: %s\"}\n", g_case, what, detail);
	fflush(stdout);
	exit(1);
}

#define CK(call)                                                                  \
	do {                                                                      \
		cudaError_t e_ = (call);                                          \
		if (e_ != cudaSuccess)                                            \
			die(#call, cudaGetErrorString(e_));                       \
	} while (0)

static size_t dtype_size(int t)
{
	switch (t) {
	case BT_F64: case BT_I64: case BT_U64: return 8;
	case BT_I8: case BT_U8: return 1;
	case BT_BF16: return 2;
	default: return 4;
	}
}

static const char *dtype_name(int t)
{
	static const char *names[] = {"float32", "float64", "int32", "int64",
				      "uint32", "uint64", "int8", "uint8", "bfloat16"};
	return names[t];
}

static const char *role_name(int r)
{
	static const char *names[] = {"in", "out", "inout", "temp"};
	return names[r];
}

__device__ __forceinline__ uint64_t mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in [lo, hi): reals directly, integers as floor */
template <typename T>
__global__ void fill_random(T *p, long long n, uint64_t seed, double lo, double hi, int integral)
{
	long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		double u = (double)(mix64(seed ^ mix64((uint64_t)i)) >> 11) * (1.0 / 9007199254740992.0);
		double v = lo + (hi - lo) * u;
		if (integral) {
			v = floor(v);
			if (v >= hi)
				v = hi - 1;
		} else if (v >= hi) {
			v = lo;
		}
		p[i] = (T)v;
	}
}

/* bfloat16 as bits, so that the driver needs no cuda_bf16.h (and its host
 * stand-in none either): the top half of a float, rounded to nearest even */
__device__ __forceinline__ uint16_t float_to_bf16_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return 0x7fc0; /* NaN */
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

__device__ __forceinline__ float bf16_bits_to_float(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

/* uniform reals in [lo, hi) rounded to bfloat16 (a value that rounds up to hi
 * is taken as lo, as fill_random does) */
__global__ void fill_random_bf16(uint16_t *p, long long n, uint64_t seed, double lo, double hi)
{
	long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		double u = (double)(mix64(seed ^ mix64((uint64_t)i)) >> 11) * (1.0 / 9007199254740992.0);
		uint16_t b = float_to_bf16_bits((float)(lo + (hi - lo) * u));
		if ((double)bf16_bits_to_float(b) >= hi)
			b = float_to_bf16_bits((float)lo);
		p[i] = b;
	}
}

/* elements whose bytes are all 0xFF (the poison), and non-finite floats */
__global__ void count_poison(const unsigned char *p, long long n, int esize, int isfloat,
			     unsigned long long *counts)
{
	long long stride = (long long)gridDim.x * blockDim.x;
	unsigned long long unwritten = 0, nonfinite = 0;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		const unsigned char *e = p + i * esize;
		int all = 1;
		for (int b = 0; b < esize; b++)
			all &= e[b] == 0xFF;
		unwritten += all;
		if (isfloat && !all) {
			double v = esize == 2 ? (double)bf16_bits_to_float(*(const uint16_t *)e)
				 : esize == 4 ? (double)*(const float *)e : *(const double *)e;
			nonfinite += !isfinite(v);
		}
	}
	if (unwritten)
		atomicAdd(&counts[0], unwritten);
	if (nonfinite)
		atomicAdd(&counts[1], nonfinite);
}

static void fill_buffer(void *p, int dtype, long long n, uint64_t seed, double lo, double hi)
{
	int grid = 132 * 8, block = 256;
	switch (dtype) {
	case BT_F32: LAUNCH(fill_random<float>, grid, block)((float *)p, n, seed, lo, hi, 0); break;
	case BT_F64: LAUNCH(fill_random<double>, grid, block)((double *)p, n, seed, lo, hi, 0); break;
	case BT_I32: LAUNCH(fill_random<int32_t>, grid, block)((int32_t *)p, n, seed, lo, hi, 1); break;
	case BT_I64: LAUNCH(fill_random<long long>, grid, block)((long long *)p, n, seed, lo, hi, 1); break;
	case BT_U32: LAUNCH(fill_random<uint32_t>, grid, block)((uint32_t *)p, n, seed, lo, hi, 1); break;
	case BT_U64: LAUNCH(fill_random<unsigned long long>, grid, block)((unsigned long long *)p, n, seed, lo, hi, 1); break;
	case BT_I8: LAUNCH(fill_random<int8_t>, grid, block)((int8_t *)p, n, seed, lo, hi, 1); break;
	case BT_BF16: LAUNCH(fill_random_bf16, grid, block)((uint16_t *)p, n, seed, lo, hi); break;
	default: LAUNCH(fill_random<uint8_t>, grid, block)((uint8_t *)p, n, seed, lo, hi, 1); break;
	}
	CK(cudaGetLastError());
}

struct opts {
	const char *dump_dir;
	double dump_max_bytes;
	double budget_ms;
	int min_reps, max_reps;
	int time_it;
	int only; /* -1: every workload, timing the first; else just this one */
	int flush_read; /* flush the L2 by reading (clean lines), not by writing */
	unsigned long long seed;
};

static void write_file(const std::string &path, const void *data, size_t n)
{
	FILE *f = fopen(path.c_str(), "wb");
	if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0)
		die("cannot write", path.c_str());
}

struct check_result {
	unsigned long long unwritten, nonfinite;
	int dumped;
};

static void call_checked(const struct bench_case *c, void *const *bufs, const double *sc)
{
	c->call(bufs, sc);
	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());
}

/* Reads n words (the sink keeps the loads): the L2 is left holding clean lines. */
__global__ void flush_by_reading(const unsigned *p, size_t n, unsigned *sink)
{
	unsigned acc = 0;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		acc ^= p[i];
	if (acc == 0x9e3779b9u)
		*sink = acc;
}

/* The L2 flush buffer: 256 MiB, over twice the H200's 60 MiB L2 (and any GPU's
 * today).  The CPU stand-in of the tests (tests/data/bench/hostsim.h) runs
 * every thread of the flush kernel on the host and builds with a smaller one. */
#ifndef BENCH_FLUSH_MIB
#define BENCH_FLUSH_MIB 256
#endif

/* Time workload w's launcher: returns sorted per-repetition milliseconds. */
static std::vector<float> time_launcher(const struct bench_case *c, int w, void *const *bufs,
					void *const *saved, const struct opts *o)
{
	const struct bench_workload *wl = &c->work[w];
	size_t flush_bytes = (size_t)BENCH_FLUSH_MIB << 20;
	void *flush = NULL;
	CK(cudaMalloc(&flush, flush_bytes + 16));
	if (o->flush_read)
		CK(cudaMemset(flush, 0x5a, flush_bytes));
	cudaEvent_t t0, t1;
	CK(cudaEventCreate(&t0));
	CK(cudaEventCreate(&t1));
	std::vector<float> ms;
	int reps = 3; /* the first three are warm-up and the budget probe */
	for (int r = 0; r < reps + 3; r++) {
		for (int b = 0; b < c->nbuf; b++)
			if (c->bufs[b].role == BR_INOUT)
				CK(cudaMemcpy(bufs[b], saved[b], wl->extents[b] * dtype_size(c->bufs[b].dtype),
					      cudaMemcpyDeviceToDevice));
		if (o->flush_read)
			LAUNCH(flush_by_reading, 4096, 256)((const unsigned *)flush, flush_bytes / 4,
							    (unsigned *)((char *)flush + flush_bytes));
		else
			CK(cudaMemsetAsync(flush, r & 0xff, flush_bytes));
		CK(cudaEventRecord(t0));
		c->call(bufs, wl->scalars);
		CK(cudaGetLastError());
		CK(cudaEventRecord(t1));
		CK(cudaDeviceSynchronize());
		float e = 0;
		CK(cudaEventElapsedTime(&e, t0, t1));
		if (r < 3) {
			if (r == 2) {
				double want = o->budget_ms / std::max(e, 1e-3f);
				reps = (int)std::min<double>(o->max_reps, std::max<double>(o->min_reps, ceil(want)));
			}
			continue;
		}
		ms.push_back(e);
	}
	CK(cudaEventDestroy(t0));
	CK(cudaEventDestroy(t1));
	CK(cudaFree(flush));
	std::sort(ms.begin(), ms.end());
	return ms;
}

static float quantile(const std::vector<float> &v, double q)
{
	if (v.empty())
		return NAN;
	double pos = q * (v.size() - 1);
	size_t i = (size_t)pos;
	double f = pos - i;
	return i + 1 < v.size() ? (float)(v[i] * (1 - f) + v[i + 1] * f) : v[i];
}

static void run_case(const struct bench_case *c, const struct opts *o)
{
	FILE *man = NULL;
	std::string dir = o->dump_dir ? o->dump_dir : "";
	if (o->dump_dir) {
		man = fopen((dir + "/manifest.json").c_str(), "w");
		if (!man)
			die("cannot write manifest in", o->dump_dir);
		fprintf(man, "{\"case\": \"%s\", \"family\": \"%s\", \"workloads\": [\n", c->name, c->family);
	}
	unsigned long long total_unwritten = 0, total_nonfinite = 0;
	int nman = 0; /* workloads written to the manifest so far */
	std::vector<float> ms;
	/* time first, on a fresh device; then check every workload */
	for (int pass = 0; pass < 2; pass++) {
		for (int w = 0; w < c->nwork; w++) {
			if (o->only >= 0 && w != o->only)
				continue;
			int timed = o->only >= 0 ? o->only : 0;
			if (pass == 0 && (w != timed || !o->time_it))
				continue;
			const struct bench_workload *wl = &c->work[w];
			std::vector<void *> bufs(c->nbuf), saved(c->nbuf, (void *)NULL);
			std::vector<std::vector<char> > host_in(c->nbuf);
			double wbytes = 0;
			for (int b = 0; b < c->nbuf; b++) {
				size_t n = (size_t)wl->extents[b] * dtype_size(c->bufs[b].dtype);
				wbytes += n * (c->bufs[b].role == BR_TEMP ? 0 : 1);
				CK(cudaMalloc(&bufs[b], n ? n : 16));
				int role = c->bufs[b].role;
				if (role == BR_IN || role == BR_INOUT)
					fill_buffer(bufs[b], c->bufs[b].dtype, wl->extents[b],
						    o->seed * 1000003ULL + w * 131 + b, wl->range_lo[b], wl->range_hi[b]);
				else
					CK(cudaMemset(bufs[b], 0xFF, n ? n : 16));
				if (role == BR_INOUT) {
					CK(cudaMalloc(&saved[b], n ? n : 16));
					CK(cudaMemcpy(saved[b], bufs[b], n, cudaMemcpyDeviceToDevice));
				}
			}
			CK(cudaDeviceSynchronize());
			int dump = pass == 1 && man && wbytes <= o->dump_max_bytes;
			if (dump)
				for (int b = 0; b < c->nbuf; b++) {
					int role = c->bufs[b].role;
					if (role != BR_IN && role != BR_INOUT)
						continue;
					host_in[b].resize(wl->extents[b] * dtype_size(c->bufs[b].dtype));
					CK(cudaMemcpy(host_in[b].data(), bufs[b], host_in[b].size(), cudaMemcpyDeviceToHost));
				}
			if (pass == 0) {
				ms = time_launcher(c, w, bufs.data(), saved.data(), o);
			} else {
				call_checked(c, bufs.data(), wl->scalars);
				unsigned long long *cnt;
				CK(cudaMalloc(&cnt, 2 * sizeof *cnt));
				if (man)
					fprintf(man, "%s  {\"index\": %d, \"dumped\": %s, \"scalars\": {", nman++ ? ",\n" : "",
						w, dump ? "true" : "false");
				for (int s = 0; man && s < c->nscalar; s++)
					fprintf(man, "%s\"%s\": %.17g", s ? ", " : "", c->scalar_names[s], wl->scalars[s]);
				if (man)
					fprintf(man, "}, \"buffers\": [");
				for (int b = 0; b < c->nbuf; b++) {
					int role = c->bufs[b].role, dt = c->bufs[b].dtype;
					size_t n = (size_t)wl->extents[b] * dtype_size(dt);
					unsigned long long h[2] = {0, 0};
					if (role == BR_OUT || role == BR_INOUT) {
						CK(cudaMemset(cnt, 0, 2 * sizeof *cnt));
						if (role == BR_OUT && wl->extents[b] > 0)
							LAUNCH(count_poison, 132 * 8, 256)((const unsigned char *)bufs[b], wl->extents[b],
										     (int)dtype_size(dt), dt == BT_F32 || dt == BT_F64 || dt == BT_BF16, cnt);
						CK(cudaGetLastError());
						CK(cudaMemcpy(h, cnt, sizeof h, cudaMemcpyDeviceToHost));
						total_unwritten += h[0];
						total_nonfinite += h[1];
					}
					std::string base = "w" + std::to_string(w) + "." + c->bufs[b].name;
					if (dump && (role == BR_IN || role == BR_INOUT))
						write_file(dir + "/" + base + ".in.bin", host_in[b].data(), host_in[b].size());
					if (dump && (role == BR_OUT || role == BR_INOUT)) {
						std::vector<char> out(n);
						CK(cudaMemcpy(out.data(), bufs[b], n, cudaMemcpyDeviceToHost));
						write_file(dir + "/" + base + ".out.bin", out.data(), n);
					}
					if (man)
						fprintf(man, "%s{\"name\": \"%s\", \"dtype\": \"%s\", \"role\": \"%s\", \"count\": %lld, "
							     "\"range\": [%.17g, %.17g], \"unwritten\": %llu, \"nonfinite\": %llu}",
							b ? ", " : "", c->bufs[b].name, dtype_name(dt), role_name(role),
							wl->extents[b], wl->range_lo[b], wl->range_hi[b], h[0], h[1]);
				}
				if (man)
					fprintf(man, "]}");
				CK(cudaFree(cnt));
			}
			for (int b = 0; b < c->nbuf; b++) {
				CK(cudaFree(bufs[b]));
				if (saved[b])
					CK(cudaFree(saved[b]));
			}
		}
	}
	if (man) {
		fprintf(man, "\n]}\n");
		if (fclose(man) != 0)
			die("cannot write manifest in", o->dump_dir);
	}
	const struct bench_workload *w0 = &c->work[o->only >= 0 ? o->only : 0];
	printf("{\"case\": \"%s\", \"family\": \"%s\", ", c->name, c->family);
	if (ms.empty())
		printf("\"ms\": null, \"p10\": null, \"p90\": null, \"reps\": 0, ");
	else
		printf("\"ms\": %.6f, \"p10\": %.6f, \"p90\": %.6f, \"reps\": %d, \"flush\": \"%s\", ",
		       quantile(ms, 0.5), quantile(ms, 0.1), quantile(ms, 0.9), (int)ms.size(),
		       o->flush_read ? "read" : "write");
	printf("\"bytes\": %.17g, \"flops\": %.17g, \"unwritten\": %llu, \"nonfinite\": %llu, "
	       "\"written\": %s, \"finite\": %s, \"workloads\": %d}\n",
	       w0->bytes, w0->flops, total_unwritten, total_nonfinite, total_unwritten ? "false" : "true",
	       total_nonfinite ? "false" : "true", c->nwork);
}

/* ---- ceilings: what the roofline floor divides by ---- */

__global__ void fma_peak(float *out, float a, float b, int iters)
{
	float x[8];
#pragma unroll
	for (int k = 0; k < 8; k++)
		x[k] = threadIdx.x * 1e-3f + k;
	for (int i = 0; i < iters; i++) {
#pragma unroll
		for (int k = 0; k < 8; k++)
			x[k] = fmaf(x[k], a, b);
	}
	float s = 0;
#pragma unroll
	for (int k = 0; k < 8; k++)
		s += x[k];
	if (s == 1234.5f) /* never true; keeps the chains alive */
		out[threadIdx.x] = s;
}

/* median milliseconds of 20 timed runs of f after 3 warm-ups */
template <typename F> static float median_of_runs(F f)
{
	cudaEvent_t t0, t1;
	CK(cudaEventCreate(&t0));
	CK(cudaEventCreate(&t1));
	std::vector<float> v;
	for (int r = 0; r < 23; r++) {
		CK(cudaEventRecord(t0));
		f();
		CK(cudaEventRecord(t1));
		CK(cudaDeviceSynchronize());
		float e;
		CK(cudaEventElapsedTime(&e, t0, t1));
		if (r >= 3)
			v.push_back(e);
	}
	CK(cudaEventDestroy(t0));
	CK(cudaEventDestroy(t1));
	std::sort(v.begin(), v.end());
	return quantile(v, 0.5);
}

static void run_ceilings(void)
{
	cudaDeviceProp p;
	int dev = 0;
	CK(cudaGetDevice(&dev));
	CK(cudaGetDeviceProperties(&p, dev));
	size_t n = (size_t)1 << 30;
	void *a, *b;
	CK(cudaMalloc(&a, n));
	CK(cudaMalloc(&b, n));
	CK(cudaMemset(a, 1, n));
	int blocks = p.multiProcessorCount * 8, threads = 256, iters = 8192;
	double copy_s = median_of_runs([&] { CK(cudaMemcpyAsync(b, a, n, cudaMemcpyDeviceToDevice)); }) * 1e-3;
	double fma_s = median_of_runs([&] {
		LAUNCH(fma_peak, blocks, threads)((float *)a, 0.999f, 0.001f, iters);
		CK(cudaGetLastError());
	}) * 1e-3;
	double flops = 2.0 * 8 * (double)iters * blocks * threads;
	printf("{\"gpu\": \"%s\", \"sm\": \"%d.%d\", \"sms\": %d, \"copy_bytes_per_s\": %.6g, "
	       "\"fp32_flops_per_s\": %.6g}\n",
	       p.name, p.major, p.minor, p.multiProcessorCount, 2.0 * n / copy_s, flops / fma_s);
	CK(cudaFree(a));
	CK(cudaFree(b));
}

static void usage(void)
{
	fprintf(stderr, "usage: BENCH [--dump DIR] [--dump-max-bytes N] [--budget-ms MS] [--min-reps N]\n"
			"             [--max-reps N] [--no-time] [--seed N] [--workload K] [--flush read|write]\n"
			"             | --ceilings | --describe\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const struct bench_case *c = &bench_this_case;
	struct opts o = {NULL, 3e9, 1000.0, 20, 200, 1, -1, 1, 20261130ULL};
	int ceilings = 0;
	g_case = c->name;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int more = i + 1 < argc;
		if (!strcmp(a, "--dump") && more)
			o.dump_dir = argv[++i];
		else if (!strcmp(a, "--dump-max-bytes") && more)
			o.dump_max_bytes = atof(argv[++i]);
		else if (!strcmp(a, "--budget-ms") && more)
			o.budget_ms = atof(argv[++i]);
		else if (!strcmp(a, "--min-reps") && more)
			o.min_reps = atoi(argv[++i]);
		else if (!strcmp(a, "--max-reps") && more)
			o.max_reps = atoi(argv[++i]);
		else if (!strcmp(a, "--seed") && more)
			o.seed = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(a, "--workload") && more)
			o.only = atoi(argv[++i]);
		else if (!strcmp(a, "--flush") && more && (!strcmp(argv[i + 1], "read") || !strcmp(argv[i + 1], "write")))
			o.flush_read = !strcmp(argv[++i], "read");
		else if (!strcmp(a, "--no-time"))
			o.time_it = 0;
		else if (!strcmp(a, "--ceilings"))
			ceilings = 1;
		else if (!strcmp(a, "--describe")) {
			/* no GPU needed: what the table says, for the suite's dry run */
			printf("{\"case\": \"%s\", \"family\": \"%s\", \"buffers\": %d, \"workloads\": %d, "
			       "\"bytes\": %.17g, \"flops\": %.17g}\n",
			       c->name, c->family, c->nbuf, c->nwork, c->work[0].bytes, c->work[0].flops);
			return 0;
		} else
			usage();
	}
	if (o.min_reps < 1 || o.max_reps < o.min_reps || o.only >= c->nwork)
		usage();
	if (ceilings)
		run_ceilings();
	else
		run_case(c, &o);
	return 0;
}
