// lane_copies.cu -- a probe, not part of egg: two memory-bound suite cases below 80% of
// their floor after builtin-13 (2026-12-02), at the suite's sizes.
//  - weighted_hist (2^25 float weights into 1000 bins): the shared-memory float atomic is
//    a compare-and-swap loop on sm_90 and the L1 pipe saturates (ncu 95%) on its bank
//    conflicts. Copies per lane group, laid out so that group g owns banks [g*k, g*k+k)
//    (k = 32 / copies): with 32 copies no two lanes of a warp ever share a bank.
//  - frobenius_norm (x / ||x||, 2^24 floats): reduce and map in one persistent kernel with
//    a grid barrier, each block's chunk partly held on chip (registers, shared memory)
//    between the two phases, the rest read again from the end (what is still in the L2).
// Prints one table: median of 30 timed runs (events) after 3 warm-ups, largest
// difference from the first variant of its group.
//
//   nvcc -O3 -arch=sm_90 -o /tmp/lc bench/probes/lane_copies.cu && /tmp/lc
#include "probe.h"
#include <cooperative_groups.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

namespace cg = cooperative_groups;
static int sms;

/* ---------------- weighted_hist ---------------- */

/* LANES = 0: a copy per warp (builtin-13's point, atomicAdd into warp % copies).
 * LANES > 0: LANES copies per block, lane group lane / (32 / LANES) in its banks. */
template <int LANES, class T>
__global__ void __launch_bounds__(1024) hist(const int *__restrict__ bin, const float *__restrict__ w, T *hist,
                                             long long n, int nbins, int copies)
{
	extern __shared__ __align__(16) unsigned char smem[];
	T *h = reinterpret_cast<T *>(smem);
	const int k = LANES ? 32 / LANES : 1;
	const int shift = LANES ? __ffs(k) - 1 : 0;
	const long long words = LANES ? (long long)((nbins + k - 1) / k) * 32 : (long long)nbins * copies;
	for (long long j = threadIdx.x; j < words; j += blockDim.x)
		h[j] = 0;
	__syncthreads();
	const int lane = threadIdx.x & 31;
	T *mine = LANES ? h + (lane >> shift) * k : h + ((threadIdx.x >> 5) % copies) * nbins;
	const long long nv = n / 4, stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nv; i += stride * 2) {
		float4 wv[2];
		int4 bv[2];
#pragma unroll
		for (int u = 0; u < 2; u++)
			if (i + u * stride < nv) {
				wv[u] = __ldg(reinterpret_cast<const float4 *>(w) + i + u * stride);
				bv[u] = __ldg(reinterpret_cast<const int4 *>(bin) + i + u * stride);
			}
#pragma unroll
		for (int u = 0; u < 2; u++)
			if (i + u * stride < nv) {
				const int bs[4] = { bv[u].x, bv[u].y, bv[u].z, bv[u].w };
				const float ws[4] = { wv[u].x, wv[u].y, wv[u].z, wv[u].w };
#pragma unroll
				for (int c = 0; c < 4; c++) {
					const long long x = bs[c];
					const T v = (T)ws[c];
					if ((unsigned long long)x < (unsigned long long)nbins)
						atomicAdd(LANES ? &mine[((x >> shift) << 5) + (x & (k - 1))] : &mine[x], v);
					else
						atomicAdd(&hist[x], v);
				}
			}
	}
	__syncthreads();
	for (long long x = threadIdx.x; x < nbins; x += blockDim.x) {
		T v = 0;
		if (LANES) {
			const long long base = (x >> shift) << 5;
			for (int g = 0; g < LANES; g++) {
				const int gg = (int)((g + (x >> shift)) % (LANES ? LANES : 1)); /* skewed: no bank conflicts */
				v += h[base + gg * k + (x & (k - 1))];
			}
		} else {
			for (int c = 0; c < copies; c++)
				v += h[(long long)c * nbins + x];
		}
		if (v != 0)
			atomicAdd(&hist[x], v);
	}
}

template <int LANES, class T> static double
run_hist(const int *bin, const float *w, T *out, long long n, int nbins, int tpb, std::vector<T> &res)
{
	const int copies = LANES ? 0 : tpb / 32;
	const size_t bytes = LANES ? (size_t)((nbins + 32 / LANES - 1) / (32 / LANES)) * 32 * sizeof(T)
	                           : (size_t)copies * nbins * sizeof(T);
	CK(cudaFuncSetAttribute(hist<LANES, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
	int occ = 0;
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, hist<LANES, T>, tpb, bytes));
	long long g = (n / 4 + 2LL * tpb - 1) / (2LL * tpb);
	if (g > (long long)sms * occ)
		g = (long long)sms * occ;
	auto f = [&] {
		cudaMemsetAsync(out, 0, sizeof(T) * nbins);
		hist<LANES, T><<<(unsigned)g, tpb, bytes>>>(bin, w, out, n, nbins, copies);
	};
	double ms = median_ms(f);
	res.resize(nbins);
	CK(cudaMemcpy(res.data(), out, sizeof(T) * nbins, cudaMemcpyDeviceToHost));
	printf("  (occupancy %d blocks of %d, %zu bytes of shared memory each)\n", occ, tpb, bytes);
	return ms;
}

__global__ void fill(int *bin, float *w, long long n, int nbins)
{
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
		unsigned long long z = (unsigned long long)i * 0x9E3779B97F4A7C15ULL + 12345;
		z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9ULL;
		z ^= z >> 29;
		bin[i] = (int)((z >> 11) % (unsigned long long)nbins);
		w[i] = (float)((z >> 40) & 0xffffff) / 16777216.0f;
	}
}

/* ---------------- frobenius_norm ---------------- */

__global__ void sumsq(const float *__restrict__ x, float *s, long long n)
{
	float a = 0;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n / 4; i += (long long)gridDim.x * blockDim.x) {
		float4 v = __ldg(reinterpret_cast<const float4 *>(x) + i);
		a += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
	}
	for (int o = 16; o; o >>= 1)
		a += __shfl_xor_sync(0xffffffffu, a, o);
	if ((threadIdx.x & 31) == 0)
		atomicAdd(s, a);
}

__global__ void divide(const float *__restrict__ x, const float *s, float *__restrict__ out, long long n)
{
	const float r = sqrtf(*s);
	const long long nv = n / 4;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nv; i += (long long)gridDim.x * blockDim.x) {
		const long long j = nv - 1 - i;
		float4 v = __ldg(reinterpret_cast<const float4 *>(x) + j);
		v.x /= r, v.y /= r, v.z /= r, v.w /= r;
		reinterpret_cast<float4 *>(out)[j] = v;
	}
}

/* One persistent block per SM (cooperative launch). Block b owns float4s [lo, hi):
 * REG per thread held in registers, then SM float4s held in shared memory, the rest
 * read again after the barrier, from the end. */
template <int REG, int UNR>
__global__ void __launch_bounds__(1024, 1) frob(const float *__restrict__ x, float *part, float *__restrict__ out,
                                                long long n, int hold_smem)
{
	extern __shared__ __align__(16) unsigned char smem[];
	float4 *held = reinterpret_cast<float4 *>(smem);
	__shared__ float red[32];
	const long long nv = n / 4;
	const long long per = (nv + gridDim.x - 1) / gridDim.x;
	const long long lo = blockIdx.x * per, hi = min(nv, lo + per);
	float4 r[REG > 0 ? REG : 1];
	float a = 0;
	long long p = lo;
#pragma unroll
	for (int u = 0; u < REG; u++) {
		const long long i = p + u * blockDim.x + threadIdx.x;
		if (i < hi) {
			r[u] = __ldg(reinterpret_cast<const float4 *>(x) + i);
			a += r[u].x * r[u].x + r[u].y * r[u].y + r[u].z * r[u].z + r[u].w * r[u].w;
		}
	}
	p += (long long)REG * blockDim.x;
	const long long sm_end = min(hi, p + hold_smem);
	/* UNR loads in flight per thread (one block of 1024 threads per SM needs them) */
	for (long long i0 = p + threadIdx.x; i0 < hi; i0 += UNR * blockDim.x) {
		float4 v[UNR];
#pragma unroll
		for (int u = 0; u < UNR; u++)
			if (i0 + u * blockDim.x < hi)
				v[u] = __ldg(reinterpret_cast<const float4 *>(x) + i0 + u * blockDim.x);
#pragma unroll
		for (int u = 0; u < UNR; u++) {
			const long long i = i0 + u * blockDim.x;
			if (i < hi) {
				if (i < sm_end)
					held[i - p] = v[u];
				a += v[u].x * v[u].x + v[u].y * v[u].y + v[u].z * v[u].z + v[u].w * v[u].w;
			}
		}
	}
	for (int o = 16; o; o >>= 1)
		a += __shfl_xor_sync(0xffffffffu, a, o);
	if ((threadIdx.x & 31) == 0)
		red[threadIdx.x >> 5] = a;
	__syncthreads();
	if (threadIdx.x < 32) {
		a = threadIdx.x < blockDim.x / 32 ? red[threadIdx.x] : 0;
		for (int o = 16; o; o >>= 1)
			a += __shfl_xor_sync(0xffffffffu, a, o);
		if (threadIdx.x == 0)
			part[blockIdx.x] = a;
	}
	cg::this_grid().sync();
	if (threadIdx.x < 32) {
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
	/* the re-read part first, from the end (its last lines are the freshest in the L2) */
	for (long long i0 = hi - 1 - threadIdx.x; i0 >= sm_end; i0 -= UNR * blockDim.x) {
		float4 v[UNR];
#pragma unroll
		for (int u = 0; u < UNR; u++)
			if (i0 - u * (long long)blockDim.x >= sm_end)
				v[u] = __ldg(reinterpret_cast<const float4 *>(x) + i0 - u * (long long)blockDim.x);
#pragma unroll
		for (int u = 0; u < UNR; u++) {
			const long long i = i0 - u * (long long)blockDim.x;
			if (i >= sm_end) {
				v[u].x /= nr, v[u].y /= nr, v[u].z /= nr, v[u].w /= nr;
				reinterpret_cast<float4 *>(out)[i] = v[u];
			}
		}
	}
	for (long long i = p + threadIdx.x; i < sm_end; i += blockDim.x) {
		float4 v = held[i - p];
		v.x /= nr, v.y /= nr, v.z /= nr, v.w /= nr;
		reinterpret_cast<float4 *>(out)[i] = v;
	}
#pragma unroll
	for (int u = 0; u < REG; u++) {
		const long long i = lo + u * blockDim.x + threadIdx.x;
		if (i < hi) {
			float4 v = r[u];
			v.x /= nr, v.y /= nr, v.z /= nr, v.w /= nr;
			reinterpret_cast<float4 *>(out)[i] = v;
		}
	}
}

template <int REG, int UNR = 1> static double
run_frob(const float *x, float *part, float *out, long long n, int smem_f4, std::vector<float> &res)
{
	const size_t bytes = (size_t)smem_f4 * 16;
	CK(cudaFuncSetAttribute(frob<REG, UNR>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
	int occ = 0;
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, frob<REG, UNR>, 1024, bytes));
	if (occ < 1) {
		printf("  (does not fit)\n");
		return -1;
	}
	int grid = sms * occ;
	int hs = smem_f4;
	void *args[] = { (void *)&x, (void *)&part, (void *)&out, (void *)&n, (void *)&hs };
	auto f = [&] { CK(cudaLaunchCooperativeKernel((void *)frob<REG, UNR>, grid, 1024, args, bytes)); };
	double ms = median_ms_cold(f);
	res.resize(n);
	CK(cudaMemcpy(res.data(), out, sizeof(float) * n, cudaMemcpyDeviceToHost));
	return ms;
}

static float
maxdiff(const std::vector<float> &a, const std::vector<float> &b)
{
	float m = 0;
	for (size_t i = 0; i < a.size(); i++)
		m = fmaxf(m, fabsf(a[i] - b[i]) / fmaxf(1e-30f, fabsf(a[i])));
	return m;
}

int
main()
{
	cudaDeviceProp pr;
	CK(cudaGetDeviceProperties(&pr, 0));
	sms = pr.multiProcessorCount;
	printf("# %s, %d SMs, L2 %d MB\n%-52s %9s %9s\n", pr.name, sms, pr.l2CacheSize >> 20, "variant", "ms", "maxdiff");
	{
		const long long n = 1LL << 25;
		const int nbins = 1000;
		int *bin;
		float *w, *h;
		CK(cudaMalloc(&bin, n * 4));
		CK(cudaMalloc(&w, n * 4));
		CK(cudaMalloc(&h, 1 << 20));
		fill<<<1024, 256>>>(bin, w, n, nbins);
		std::vector<float> base, r;
		std::vector<int> ir;
		double ms = run_hist<0, float>(bin, w, h, n, nbins, 512, base);
		printf("%-52s %9.4f %9s\n", "wh warp copies f32 tpb=512 (builtin-13)", ms, "-");
		/* copies per warp, then lane copies: {lanes, threads per block} */
		const int f32[][2] = { { 0, 1024 }, { 32, 1024 }, { 32, 512 }, { 16, 1024 }, { 16, 512 }, { 8, 512 } };
		for (auto &v : f32) {
			ms = v[0] == 0 ? run_hist<0, float>(bin, w, h, n, nbins, v[1], r)
			   : v[0] == 32 ? run_hist<32, float>(bin, w, h, n, nbins, v[1], r)
			   : v[0] == 16 ? run_hist<16, float>(bin, w, h, n, nbins, v[1], r)
			                : run_hist<8, float>(bin, w, h, n, nbins, v[1], r);
			char lab[80];
			if (v[0])
				snprintf(lab, sizeof lab, "wh %d lane copies f32 tpb=%d", v[0], v[1]);
			else
				snprintf(lab, sizeof lab, "wh warp copies f32 tpb=%d", v[1]);
			printf("%-52s %9.4f %9.2g\n", lab, ms, maxdiff(base, r));
		}
		ms = run_hist<0, int>(bin, w, (int *)h, n, nbins, 512, ir);
		printf("%-52s %9.4f %9s\n", "wh warp copies int tpb=512 (histogram's kind)", ms, "-");
		ms = run_hist<32, int>(bin, w, (int *)h, n, nbins, 1024, ir);
		printf("%-52s %9.4f %9s\n", "wh 32 lane copies int tpb=1024", ms, "-");
		CK(cudaFree(bin));
		CK(cudaFree(w));
		CK(cudaFree(h));
	}
	{
		const long long n = 1LL << 24;
		float *x, *s, *out, *part;
		CK(cudaMalloc(&x, n * 4));
		CK(cudaMalloc(&out, n * 4));
		CK(cudaMalloc(&s, 4));
		CK(cudaMalloc(&part, 4096 * 4));
		fill<<<1024, 256>>>((int *)out, x, n, 7);
		std::vector<float> base, r;
		printf("# frobenius_norm: the L2 flushed by reading 256 MB before each timed run\n");
		double ms = median_ms_cold([&] {
			cudaMemsetAsync(s, 0, 4);
			sumsq<<<sms * 4, 512>>>(x, s, n);
			divide<<<sms * 4, 512>>>(x, s, out, n);
		});
		base.resize(n);
		CK(cudaMemcpy(base.data(), out, n * 4, cudaMemcpyDeviceToHost));
		printf("%-52s %9.4f %9s\n", "frob two kernels (memset, reduce, reverse map)", ms, "-");
		ms = median_ms_cold([&] { cudaMemcpyAsync(out, x, n * 4, cudaMemcpyDeviceToDevice); });
		printf("%-52s %9.4f %9s\n", "frob copy x -> out (the floor's operation)", ms, "-");
		const int smem_opts[] = { 0, 6144, 12288, 13824 };
		for (int so : smem_opts) {
			char lab[80];
			ms = run_frob<0>(x, part, out, n, so, r);
			snprintf(lab, sizeof lab, "frob persistent reg=0 smem=%d KB", so * 16 / 1024);
			printf("%-52s %9.4f %9.2g\n", lab, ms, maxdiff(base, r));
			ms = run_frob<8>(x, part, out, n, so, r);
			snprintf(lab, sizeof lab, "frob persistent reg=8 float4 smem=%d KB", so * 16 / 1024);
			printf("%-52s %9.4f %9.2g\n", lab, ms, maxdiff(base, r));
			ms = run_frob<0, 4>(x, part, out, n, so, r);
			snprintf(lab, sizeof lab, "frob persistent reg=0 smem=%d KB 4 in flight", so * 16 / 1024);
			printf("%-52s %9.4f %9.2g\n", lab, ms, maxdiff(base, r));
			ms = run_frob<4, 4>(x, part, out, n, so, r);
			snprintf(lab, sizeof lab, "frob persistent reg=4 float4 smem=%d KB 4 in flight", so * 16 / 1024);
			printf("%-52s %9.4f %9.2g\n", lab, ms, maxdiff(base, r));
			ms = run_frob<8, 2>(x, part, out, n, so, r);
			snprintf(lab, sizeof lab, "frob persistent reg=8 float4 smem=%d KB 2 in flight", so * 16 / 1024);
			printf("%-52s %9.4f %9.2g\n", lab, ms, maxdiff(base, r));
		}
	}
	return 0;
}
