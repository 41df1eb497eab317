// persistent.cu -- a probe, not part of egg: one cooperative (persistent) kernel for
// the two memory-bound suite cases still under 80% of their floor on 2026-12-02, at
// the suite's sizes, with the L2 flushed by reading before each timed run (as the
// suite does):
//  - frobenius_norm (out = x / ||x||, 2^24 floats): the reduction, a grid barrier, the
//    map, with x held on chip between the phases. Session 10's probe kept 2 loads in
//    flight per thread and got 0.0434 ms; here the shared-memory part is filled by
//    cp.async (every copy in flight at once) and blocks of 512 threads hold up to 24
//    float4 each in registers. Read-only and write-only passes give the phases' floors.
//  - embedding (65536 tokens of 1024 floats from 32000 rows): the tokens gathered in
//    the order of their ids (bucket id & 4095), the counting sort inside the same
//    cooperative kernel (count with ranks, barrier, scan and place, barrier, gather),
//    against the warp per row and the four-launch sort of session 8.
// Prints one table: median of 30 timed runs (events) after 3 warm-ups.
//
//   nvcc -O3 -arch=sm_90 -o /tmp/pp bench/probes/persistent.cu && /tmp/pp
#include "probe.h"
#include <cooperative_groups.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

namespace cg = cooperative_groups;
static int sms;

/* ---------------- frobenius_norm ---------------- */
__global__ void fill(float *x, long long n)
{
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
		x[i] = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
}

/* the phases' floors: read x once (4 float4 in flight per thread), write out once */
__global__ void read_only(const float4 *__restrict__ x, long long nv, float *s)
{
	float a = 0;
	const long long st = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nv; i += 4 * st) {
		float4 v[4];
#pragma unroll
		for (int u = 0; u < 4; u++)
			v[u] = i + u * st < nv ? __ldg(x + i + u * st) : make_float4(0, 0, 0, 0);
#pragma unroll
		for (int u = 0; u < 4; u++)
			a += v[u].x * v[u].x + v[u].y * v[u].y + v[u].z * v[u].z + v[u].w * v[u].w;
	}
	if (a == 1234.5f)
		*s = a;
}

__global__ void write_only(float4 *__restrict__ out, long long nv, float c)
{
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nv; i += (long long)gridDim.x * blockDim.x)
		out[i] = make_float4(c, c, c, c);
}

__global__ void sumsq(const float4 *__restrict__ x, float *s, long long nv)
{
	float a = 0;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nv; i += (long long)gridDim.x * blockDim.x) {
		float4 v = __ldg(x + i);
		a += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
	}
	for (int o = 16; o; o >>= 1)
		a += __shfl_xor_sync(0xffffffffu, a, o);
	if ((threadIdx.x & 31) == 0)
		atomicAdd(s, a);
}

__global__ void divide(const float4 *__restrict__ x, const float *s, float4 *__restrict__ out, long long nv)
{
	const float r = sqrtf(*s);
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nv; i += (long long)gridDim.x * blockDim.x) {
		const long long j = nv - 1 - i;
		float4 v = __ldg(x + j);
		v.x /= r, v.y /= r, v.z /= r, v.w /= r;
		out[j] = v;
	}
}

static __device__ __forceinline__ void
cp16(void *smem, const void *g)
{
	unsigned s = (unsigned)__cvta_generic_to_shared(smem);
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(g) : "memory");
}

static __device__ __forceinline__ float
sq4(float4 v)
{
	return v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
}

/* One block of T threads per SM. Block b owns float4s [lo, hi): REG per thread in
 * registers, then hold float4s in shared memory (cp.async, all in flight, each
 * thread summing what it copied), the rest streamed with UNR loads in flight and
 * read again after the barrier from its end. */
/* the flag barrier's state (BAR 1): zero between calls but the generation */
__device__ unsigned frob_count, frob_gen;
__device__ float frob_sum, frob_norm;

/* PH: 3 both phases; 1 the reduction and the barrier only (no map), for the phases
 * apart.  CS: the map's stores streaming (__stcs).  BAR: 0 cooperative_groups' grid
 * barrier, then every block folds the partials; 1 each block adds its partial with a
 * float atomic and counts itself in, the last one stores the norm and bumps a
 * generation the others spin on (one thread per block). */
template <int T, int REG, int UNR, int PH = 3, int CS = 0, int BAR = 0>
__global__ void __launch_bounds__(T, 1) frob(const float4 *__restrict__ x, float *part, float4 *__restrict__ out,
                                             long long nv, int hold)
{
	auto st4 = [](float4 *p, float4 v) {
		if (CS)
			__stcs(p, v);
		else
			*p = v;
	};
	extern __shared__ __align__(16) unsigned char smem[];
	float4 *held = reinterpret_cast<float4 *>(smem);
	__shared__ float red[32];
	const long long per = (nv + gridDim.x - 1) / gridDim.x;
	const long long lo = blockIdx.x * per, hi = min(nv, lo + per);
	float4 r[REG > 0 ? REG : 1];
	float a = 0;
#pragma unroll
	for (int u = 0; u < REG; u++) {
		const long long i = lo + u * T + threadIdx.x;
		r[u] = i < hi ? __ldg(x + i) : make_float4(0, 0, 0, 0);
	}
	const long long p = min(hi, lo + (long long)REG * T);
	const long long sm_end = min(hi, p + hold);
	for (long long i = p + threadIdx.x; i < sm_end; i += T)
		cp16(held + (i - p), x + i);
	asm volatile("cp.async.commit_group;" ::: "memory");
	for (long long i0 = sm_end + threadIdx.x; i0 < hi; i0 += UNR * T) {
		float4 v[UNR];
#pragma unroll
		for (int u = 0; u < UNR; u++)
			v[u] = i0 + u * T < hi ? __ldg(x + i0 + u * T) : make_float4(0, 0, 0, 0);
#pragma unroll
		for (int u = 0; u < UNR; u++)
			a += sq4(v[u]);
	}
#pragma unroll
	for (int u = 0; u < REG; u++)
		a += sq4(r[u]);
	asm volatile("cp.async.wait_all;" ::: "memory");
	for (long long i = p + threadIdx.x; i < sm_end; i += T)
		a += sq4(held[i - p]);
	for (int o = 16; o; o >>= 1)
		a += __shfl_xor_sync(0xffffffffu, a, o);
	if ((threadIdx.x & 31) == 0)
		red[threadIdx.x >> 5] = a;
	__syncthreads();
	if (threadIdx.x < 32) {
		a = threadIdx.x < T / 32 ? red[threadIdx.x] : 0;
		for (int o = 16; o; o >>= 1)
			a += __shfl_xor_sync(0xffffffffu, a, o);
		if (threadIdx.x == 0 && !BAR)
			part[blockIdx.x] = a;
		if (threadIdx.x == 0 && BAR) {
			const unsigned g = *(volatile unsigned *)&frob_gen;
			atomicAdd(&frob_sum, a);
			__threadfence();
			if (atomicAdd(&frob_count, 1u) == gridDim.x - 1) {
				__threadfence();
				const float nr = sqrtf(*(volatile float *)&frob_sum);
				red[0] = nr;
				*(volatile float *)&frob_norm = nr;
				frob_sum = 0;
				frob_count = 0;
				__threadfence();
				atomicAdd(&frob_gen, 1u);
			} else {
				while (*(volatile unsigned *)&frob_gen == g)
					;
				__threadfence();
				red[0] = *(volatile float *)&frob_norm;
			}
		}
	}
	if (BAR)
		__syncthreads();
	else
		cg::this_grid().sync();
	if (threadIdx.x < 32 && !BAR) {
		float s = 0;
		for (int b = threadIdx.x; b < gridDim.x; b += 32)
			s += __ldcg(part + b);
		for (int o = 16; o; o >>= 1)
			s += __shfl_xor_sync(0xffffffffu, s, o);
		if (threadIdx.x == 0)
			red[0] = sqrtf(s);
	}
	__syncthreads();
	const float nr = red[0];
	if (!(PH & 2)) {
		if (nr == 1234.5f)
			out[0] = make_float4(nr, nr, nr, nr);
		return;
	}
	for (long long i0 = hi - 1 - threadIdx.x; i0 >= sm_end; i0 -= UNR * T) {
		float4 v[UNR];
#pragma unroll
		for (int u = 0; u < UNR; u++)
			if (i0 - u * T >= sm_end)
				v[u] = __ldg(x + i0 - u * T);
#pragma unroll
		for (int u = 0; u < UNR; u++)
			if (i0 - u * T >= sm_end) {
				v[u].x /= nr, v[u].y /= nr, v[u].z /= nr, v[u].w /= nr;
				st4(out + i0 - u * T, v[u]);
			}
	}
	for (long long i = p + threadIdx.x; i < sm_end; i += T) {
		float4 v = held[i - p];
		v.x /= nr, v.y /= nr, v.z /= nr, v.w /= nr;
		st4(out + i, v);
	}
#pragma unroll
	for (int u = 0; u < REG; u++) {
		const long long i = lo + u * T + threadIdx.x;
		if (i < hi) {
			float4 v = r[u];
			v.x /= nr, v.y /= nr, v.z /= nr, v.w /= nr;
			st4(out + i, v);
		}
	}
}

static float
maxrel(const std::vector<float> &a, const std::vector<float> &b)
{
	float m = 0;
	for (size_t i = 0; i < a.size(); i++)
		m = fmaxf(m, fabsf(a[i] - b[i]) / fmaxf(1e-30f, fabsf(a[i])));
	return m;
}

template <int T, int REG, int UNR, int PH = 3, int CS = 0, int BAR = 0> static void
run_frob(const float4 *x, float *part, float4 *out, long long nv, int hold, const std::vector<float> &base)
{
	const size_t bytes = (size_t)hold * 16;
	CK(cudaFuncSetAttribute(frob<T, REG, UNR, PH, CS, BAR>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
	cudaFuncAttributes fa;
	CK(cudaFuncGetAttributes(&fa, frob<T, REG, UNR, PH, CS, BAR>));
	int occ = 0;
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, frob<T, REG, UNR, PH, CS, BAR>, T, bytes));
	char lab[96];
	snprintf(lab, sizeof lab, "frob T=%d reg=%d smem=%dKB unr=%d%s%s (%d regs, %d B spill)", T, REG, hold * 16 / 1024,
	         UNR, PH == 1 ? " reduce+barrier only" : "", CS ? (BAR ? " stcs flag" : " stcs") : BAR ? " flag" : "",
	         fa.numRegs, (int)fa.localSizeBytes);
	if (occ < 1) {
		printf("%-60s does not fit\n", lab);
		return;
	}
	int grid = sms;
	void *args[] = { (void *)&x, (void *)&part, (void *)&out, (void *)&nv, (void *)&hold };
	double ms = median_ms_cold([&] { CK(cudaLaunchCooperativeKernel((void *)frob<T, REG, UNR, PH, CS, BAR>, grid, T, args, bytes)); });
	if (PH != 3) {
		printf("%-60s %9.4f %9s\n", lab, ms, "-");
		return;
	}
	std::vector<float> r(nv * 4);
	CK(cudaMemcpy(r.data(), out, nv * 16, cudaMemcpyDeviceToHost));
	printf("%-60s %9.4f %9.2g\n", lab, ms, maxrel(base, r));
}

/* ---------------- embedding ---------------- */
__global__ void __launch_bounds__(256) emb_warp(const long long *__restrict__ ids, const float4 *__restrict__ table,
                                                float4 *__restrict__ out, int tokens, int dv)
{
	const int lane = threadIdx.x & 31;
	for (long long t = (long long)blockIdx.x * 8 + threadIdx.x / 32; t < tokens; t += (long long)gridDim.x * 8) {
		const float4 *src = table + ids[t] * dv;
		float4 *dst = out + t * dv;
		for (int c = lane; c < dv; c += 32)
			__stcs(dst + c, __ldg(src + c));
	}
}

__global__ void emb_count(const long long *__restrict__ ids, int tokens, unsigned *cnt, unsigned mask)
{
	for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < tokens; t += gridDim.x * blockDim.x)
		atomicAdd(&cnt[(unsigned)ids[t] & mask], 1u);
}

__global__ void __launch_bounds__(1024) emb_scan(unsigned *cnt, int buckets)
{
	__shared__ unsigned part[1024];
	const int per = buckets / 1024, b0 = threadIdx.x * per;
	unsigned s = 0;
	for (int j = 0; j < per; j++)
		s += cnt[b0 + j];
	part[threadIdx.x] = s;
	__syncthreads();
	for (int off = 1; off < 1024; off <<= 1) {
		unsigned v = threadIdx.x >= off ? part[threadIdx.x - off] : 0;
		__syncthreads();
		part[threadIdx.x] += v;
		__syncthreads();
	}
	unsigned run = part[threadIdx.x] - s;
	for (int j = 0; j < per; j++) {
		unsigned c = cnt[b0 + j];
		cnt[b0 + j] = run;
		run += c;
	}
}

__global__ void emb_place(const long long *__restrict__ ids, int tokens, unsigned *off, unsigned mask, int *perm)
{
	for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < tokens; t += gridDim.x * blockDim.x)
		perm[atomicAdd(&off[(unsigned)ids[t] & mask], 1u)] = t;
}

static __device__ __forceinline__ void
copy_row(const float4 *__restrict__ src, float4 *__restrict__ dst, int dv, int lane)
{
	int c = lane;
	for (; c + 7 * 32 < dv; c += 8 * 32) {
		float4 v[8];
#pragma unroll
		for (int u = 0; u < 8; u++)
			v[u] = __ldg(src + c + 32 * u);
#pragma unroll
		for (int u = 0; u < 8; u++)
			__stcs(dst + c + 32 * u, v[u]);
	}
	for (; c < dv; c += 32)
		__stcs(dst + c, __ldg(src + c));
}

__global__ void __launch_bounds__(256) emb_sorted(const long long *__restrict__ ids, const float4 *__restrict__ table,
                                                  float4 *__restrict__ out, int tokens, int dv, const int *__restrict__ perm)
{
	const int lane = threadIdx.x & 31;
	for (long long s = (long long)blockIdx.x * 8 + threadIdx.x / 32; s < tokens; s += (long long)gridDim.x * 8) {
		const long long t = perm[s];
		copy_row(table + ids[t] * dv, out + t * dv, dv, lane);
	}
}

/* One cooperative kernel: count (each token's rank in its bucket from the atomic),
 * barrier, every block scans the counts in shared memory and places its tokens,
 * barrier, block 0 puts the counts back to zero, all warps gather in sorted order
 * (warp w takes sorted positions w, w + warps, ...). cnt is zero on entry and exit. */
template <int T, int B>
__global__ void __launch_bounds__(T) emb_coop(const long long *__restrict__ ids, const float4 *__restrict__ table,
                                             float4 *__restrict__ out, int tokens, int dv, unsigned *cnt,
                                             unsigned *rank, int *perm)
{
	__shared__ unsigned off[B];
	__shared__ unsigned wsum[T / 32];
	const int tid = blockIdx.x * T + threadIdx.x, nth = gridDim.x * T;
	for (int t = tid; t < tokens; t += nth)
		rank[t] = atomicAdd(&cnt[(unsigned)__ldg(&ids[t]) & (B - 1)], 1u);
	cg::this_grid().sync();
	/* exclusive scan of cnt: each thread B / T consecutive buckets */
	constexpr int PER = B / T;
	unsigned c[PER], s = 0;
#pragma unroll
	for (int j = 0; j < PER; j++) {
		c[j] = __ldcg(&cnt[threadIdx.x * PER + j]);
		s += c[j];
	}
	const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
	unsigned inc = s;
	for (int o = 1; o < 32; o <<= 1) {
		unsigned v = __shfl_up_sync(0xffffffffu, inc, o);
		if (lane >= o)
			inc += v;
	}
	if (lane == 31)
		wsum[w] = inc;
	__syncthreads();
	if (w == 0) {
		unsigned v = lane < T / 32 ? wsum[lane] : 0, x = v;
		for (int o = 1; o < 32; o <<= 1) {
			unsigned y = __shfl_up_sync(0xffffffffu, x, o);
			if (lane >= o)
				x += y;
		}
		if (lane < T / 32)
			wsum[lane] = x - v;
	}
	__syncthreads();
	unsigned run = wsum[w] + inc - s;
#pragma unroll
	for (int j = 0; j < PER; j++) {
		off[threadIdx.x * PER + j] = run;
		run += c[j];
	}
	__syncthreads();
	for (int t = tid; t < tokens; t += nth)
		perm[off[(unsigned)__ldg(&ids[t]) & (B - 1)] + __ldcg(&rank[t])] = t;
	cg::this_grid().sync();
	if (blockIdx.x == 0)
		for (int j = threadIdx.x; j < B; j += T)
			cnt[j] = 0;
	const int warps = nth / 32;
	for (int sp = tid / 32; sp < tokens; sp += warps) {
		const long long t = __ldcg(&perm[sp]);
		copy_row(table + __ldg(&ids[t]) * dv, out + t * dv, dv, lane);
	}
}

template <int T, int B> static double
run_coop(const long long *ids, const float4 *table, float4 *out, int tokens, int dv, unsigned *cnt, unsigned *rank,
         int *perm, int *occ_out)
{
	int occ = 0;
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, emb_coop<T, B>, T, 0));
	*occ_out = occ;
	int grid = sms * occ;
	void *args[] = { (void *)&ids, (void *)&table, (void *)&out, (void *)&tokens, (void *)&dv, (void *)&cnt,
		         (void *)&rank, (void *)&perm };
	return median_ms_cold([&] { CK(cudaLaunchCooperativeKernel((void *)emb_coop<T, B>, grid, T, args, 0)); });
}

int
main(int argc, char **argv)
{
	/* "phases": the frobenius phases apart, then stop; "phases flag": and the flag barrier */
	const int phases = argc > 1 && strcmp(argv[1], "phases") == 0;
	cudaDeviceProp pr;
	CK(cudaGetDeviceProperties(&pr, 0));
	sms = pr.multiProcessorCount;
	printf("# %s, %d SMs, L2 %d MB; the L2 flushed by reading 256 MB before each timed run\n", pr.name, sms,
	       pr.l2CacheSize >> 20);
	printf("%-60s %9s %9s\n", "variant", "ms", "maxdiff");
	{
		const long long n = 1LL << 24, nv = n / 4;
		float *x, *s, *part;
		float4 *out;
		CK(cudaMalloc(&x, n * 4));
		CK(cudaMalloc(&out, n * 4));
		CK(cudaMalloc(&s, 4));
		CK(cudaMalloc(&part, 4096 * 4));
		fill<<<1024, 256>>>(x, n);
		const float4 *x4 = reinterpret_cast<const float4 *>(x);
		double ms = median_ms_cold([&] {
			cudaMemsetAsync(s, 0, 4);
			sumsq<<<sms * 4, 512>>>(x4, s, nv);
			divide<<<sms * 4, 512>>>(x4, s, out, nv);
		});
		std::vector<float> base(n);
		CK(cudaMemcpy(base.data(), out, n * 4, cudaMemcpyDeviceToHost));
		printf("%-60s %9.4f %9s\n", "frob two kernels (memset, reduce, reverse map)", ms, "-");
		ms = median_ms_cold([&] { cudaMemcpyAsync(out, x, n * 4, cudaMemcpyDeviceToDevice); });
		printf("%-60s %9.4f %9s\n", "frob copy x -> out (the floor's operation)", ms, "-");
		ms = median_ms_cold([&] { read_only<<<sms * 4, 512>>>(x4, nv, s); });
		printf("%-60s %9.4f %9s\n", "frob read x only", ms, "-");
		ms = median_ms_cold([&] { write_only<<<sms * 4, 512>>>(out, nv, 1.0f); });
		printf("%-60s %9.4f %9s\n", "frob write out only", ms, "-");
		ms = median_ms_cold([&] {
			read_only<<<sms * 4, 512>>>(x4, nv, s);
			write_only<<<sms * 4, 512>>>(out, nv, 1.0f);
		});
		printf("%-60s %9.4f %9s\n", "frob read only, then write only", ms, "-");
		if (phases) {
			for (int hold : { 12288, 14336 }) {
				run_frob<1024, 8, 2>(x4, part, out, nv, hold, base);
				run_frob<1024, 8, 2, 1>(x4, part, out, nv, hold, base);
				run_frob<1024, 8, 2, 3, 1>(x4, part, out, nv, hold, base);
				run_frob<1024, 8, 4, 3, 1>(x4, part, out, nv, hold, base);
			}
			run_frob<1024, 0, 2, 1>(x4, part, out, 0, 0, base);
			run_frob<1024, 0, 2, 1, 0, 1>(x4, part, out, 0, 0, base);
			if (argc > 2 && strcmp(argv[2], "flag") == 0)
				for (int hold : { 12288, 14336 }) {
					run_frob<1024, 8, 2, 1, 0, 1>(x4, part, out, nv, hold, base);
					run_frob<1024, 8, 2, 3, 1, 1>(x4, part, out, nv, hold, base);
					run_frob<1024, 8, 2, 3, 0, 1>(x4, part, out, nv, hold, base);
				}
			return 0;
		}
		for (int hold : { 12288, 14336 }) {
			run_frob<1024, 8, 2>(x4, part, out, nv, hold, base);
			run_frob<1024, 8, 4>(x4, part, out, nv, hold, base);
			run_frob<512, 16, 4>(x4, part, out, nv, hold, base);
			run_frob<512, 20, 4>(x4, part, out, nv, hold, base);
			run_frob<512, 24, 4>(x4, part, out, nv, hold, base);
			run_frob<256, 40, 4>(x4, part, out, nv, hold, base);
		}
		run_frob<512, 24, 4>(x4, part, out, nv, 0, base);
		CK(cudaFree(x));
		CK(cudaFree(out));
	}
	{
		const int tokens = 65536, vocab = 32000, dim = 1024, dv = dim / 4;
		std::vector<long long> hid(tokens);
		srand(7);
		for (auto &v : hid)
			v = rand() % vocab;
		std::vector<float> htab((size_t)vocab * dim);
		for (size_t i = 0; i < htab.size(); i++)
			htab[i] = (float)(i % 9973);
		long long *ids;
		float4 *table, *out;
		unsigned *cnt, *rank;
		int *perm;
		CK(cudaMalloc(&ids, tokens * 8));
		CK(cudaMalloc(&table, htab.size() * 4));
		CK(cudaMalloc(&out, (size_t)tokens * dim * 4));
		CK(cudaMalloc(&cnt, 65536 * 4));
		CK(cudaMalloc(&rank, tokens * 4));
		CK(cudaMalloc(&perm, tokens * 4));
		CK(cudaMemset(cnt, 0, 65536 * 4));
		CK(cudaMemcpy(ids, hid.data(), tokens * 8, cudaMemcpyHostToDevice));
		CK(cudaMemcpy(table, htab.data(), htab.size() * 4, cudaMemcpyHostToDevice));
		std::vector<float> h((size_t)tokens * dim);
		auto check = [&](const char *name, double ms) {
			CK(cudaMemcpy(h.data(), out, h.size() * 4, cudaMemcpyDeviceToHost));
			long long bad = 0;
			for (int t = 0; t < tokens; t++)
				for (int d = 0; d < dim; d++)
					bad += h[(size_t)t * dim + d] != htab[(size_t)hid[t] * dim + d];
			printf("%-60s %9.4f %9lld\n", name, ms, bad);
			CK(cudaMemset(out, 0xff, h.size() * 4));
		};
		double ms = median_ms_cold([&] { emb_warp<<<tokens / 8, 256>>>(ids, table, out, tokens, dv); });
		check("emb warp/row (builtin's kind), wrong elements ->", ms);
		auto sort = [&] {
			CK(cudaMemsetAsync(cnt, 0, 4096 * 4));
			emb_count<<<tokens / 256, 256>>>(ids, tokens, cnt, 4095);
			emb_scan<<<1, 1024>>>(cnt, 4096);
			emb_place<<<tokens / 256, 256>>>(ids, tokens, cnt, 4095, perm);
		};
		ms = median_ms_cold([&] {
			sort();
			emb_sorted<<<tokens / 8, 256>>>(ids, table, out, tokens, dv, perm);
		});
		check("emb four-launch sort + sorted gather", ms);
		ms = median_ms_cold([&] { emb_sorted<<<tokens / 8, 256>>>(ids, table, out, tokens, dv, perm); });
		check("  the sorted gather alone", ms);
		ms = median_ms_cold(sort);
		printf("%-60s %9.4f %9s\n", "  the four-launch sort alone", ms, "-");
		CK(cudaMemset(cnt, 0, 65536 * 4));
		int occ;
		char lab[96];
		ms = run_coop<512, 4096>(ids, table, out, tokens, dv, cnt, rank, perm, &occ);
		snprintf(lab, sizeof lab, "emb coop T=512 buckets=4096 (occ %d)", occ);
		check(lab, ms);
		ms = run_coop<1024, 4096>(ids, table, out, tokens, dv, cnt, rank, perm, &occ);
		snprintf(lab, sizeof lab, "emb coop T=1024 buckets=4096 (occ %d)", occ);
		check(lab, ms);
		ms = run_coop<256, 4096>(ids, table, out, tokens, dv, cnt, rank, perm, &occ);
		snprintf(lab, sizeof lab, "emb coop T=256 buckets=4096 (occ %d)", occ);
		check(lab, ms);
		ms = run_coop<512, 8192>(ids, table, out, tokens, dv, cnt, rank, perm, &occ);
		snprintf(lab, sizeof lab, "emb coop T=512 buckets=8192 (occ %d)", occ);
		check(lab, ms);
		ms = run_coop<1024, 8192>(ids, table, out, tokens, dv, cnt, rank, perm, &occ);
		snprintf(lab, sizeof lab, "emb coop T=1024 buckets=8192 (occ %d)", occ);
		check(lab, ms);
	}
	return 0;
}
