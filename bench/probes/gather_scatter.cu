// gather_scatter.cu -- a probe, not part of egg: times schedules for the two
// memory-bound suite cases below 80% of their floor on 2026-12-01 (embedding, a
// gather whose table is larger than the L2, and weighted_hist, float atomics into
// 1000 bins), at the suite's sizes, to choose what the recipes should emit.
// Prints one table: median of 30 timed runs (events) after 3 warm-ups, and the
// largest difference from the first variant of its group.
//
//   nvcc -O3 -arch=sm_90 -o probe bench/probes/gather_scatter.cu && ./probe [scatter|fixed]
#include "probe.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <algorithm>
#include <vector>


static int sms;

static __device__ __forceinline__ float4
keep_ld(const float4 *p)
{
	unsigned long long pol;
	float4 r;
	asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
	asm("ld.global.nc.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
	    : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(p), "l"(pol));
	return r;
}

/* ---------------- embedding: out[t, :] = table[ids[t], :] ---------------- */

/* a warp per row, 16-byte accesses (the recipe's row point) */
__global__ void __launch_bounds__(256) emb_warp(const long long *__restrict__ ids, const float *__restrict__ table,
                                                float *__restrict__ out, int tokens, int dim, int stream)
{
	const int lane = threadIdx.x & 31;
	for (long long t = (long long)blockIdx.x * 8 + threadIdx.x / 32; t < tokens; t += (long long)gridDim.x * 8) {
		const float4 *src = reinterpret_cast<const float4 *>(table + ids[t] * dim);
		float4 *dst = reinterpret_cast<float4 *>(out + t * dim);
		for (int c = lane; c < dim / 4; c += 32) {
			float4 v = __ldg(src + c);
			if (stream)
				__stcs(dst + c, v);
			else
				dst[c] = v;
		}
	}
}

/* a warp per row, a lane's 8 loads of a 1024-column row issued before its stores */
__global__ void __launch_bounds__(256) emb_warp8(const long long *__restrict__ ids, const float *__restrict__ table,
                                                 float *__restrict__ out, int tokens, int dim, int keep)
{
	const int lane = threadIdx.x & 31;
	for (long long t = (long long)blockIdx.x * 8 + threadIdx.x / 32; t < tokens; t += (long long)gridDim.x * 8) {
		const float4 *src = reinterpret_cast<const float4 *>(table + ids[t] * dim);
		float4 *dst = reinterpret_cast<float4 *>(out + t * dim);
		float4 v[8];
#pragma unroll
		for (int u = 0; u < 8; u++)
			v[u] = keep ? keep_ld(src + lane + 32 * u) : __ldg(src + lane + 32 * u);
#pragma unroll
		for (int u = 0; u < 8; u++)
			__stcs(dst + lane + 32 * u, v[u]);
	}
}

/* the tokens in the order of their ids, bucketed by id & (buckets - 1) (a
 * counting sort when buckets >= the table's rows): count, scan, place */
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

/* the same counting sort in one launch of one block: counts in shared memory,
 * keys read eight at a time per thread so that their loads overlap */
__global__ void __launch_bounds__(1024) emb_sort1(const long long *__restrict__ ids, int tokens, int *perm)
{
	__shared__ unsigned cnt[4096];
	__shared__ unsigned part[1024];
	for (int j = threadIdx.x; j < 4096; j += 1024)
		cnt[j] = 0;
	__syncthreads();
	for (int t0 = threadIdx.x; t0 < tokens; t0 += 8 * 1024) {
		unsigned k[8];
#pragma unroll
		for (int u = 0; u < 8; u++)
			k[u] = t0 + u * 1024 < tokens ? (unsigned)__ldg(&ids[t0 + u * 1024]) & 4095u : 0xffffffffu;
#pragma unroll
		for (int u = 0; u < 8; u++)
			if (k[u] != 0xffffffffu)
				atomicAdd(&cnt[k[u]], 1u);
	}
	__syncthreads();
	unsigned c4[4], s = 0;
#pragma unroll
	for (int j = 0; j < 4; j++) {
		c4[j] = cnt[threadIdx.x * 4 + j];
		s += c4[j];
	}
	part[threadIdx.x] = s;
	__syncthreads();
	for (int off = 1; off < 1024; off <<= 1) {
		unsigned v = threadIdx.x >= off ? part[threadIdx.x - off] : 0;
		__syncthreads();
		part[threadIdx.x] += v;
		__syncthreads();
	}
	unsigned run = part[threadIdx.x] - s;
#pragma unroll
	for (int j = 0; j < 4; j++) {
		cnt[threadIdx.x * 4 + j] = run;
		run += c4[j];
	}
	__syncthreads();
	for (int t0 = threadIdx.x; t0 < tokens; t0 += 8 * 1024) {
		unsigned k[8];
#pragma unroll
		for (int u = 0; u < 8; u++)
			k[u] = t0 + u * 1024 < tokens ? (unsigned)__ldg(&ids[t0 + u * 1024]) & 4095u : 0xffffffffu;
#pragma unroll
		for (int u = 0; u < 8; u++)
			if (k[u] != 0xffffffffu)
				perm[atomicAdd(&cnt[k[u]], 1u)] = t0 + u * 1024;
	}
}

/* a warp per row in the order perm gives */
__global__ void __launch_bounds__(256) emb_sorted(const long long *__restrict__ ids, const float *__restrict__ table,
                                                  float *__restrict__ out, int tokens, int dim,
                                                  const int *__restrict__ perm, int keep)
{
	const int lane = threadIdx.x & 31;
	for (long long s = (long long)blockIdx.x * 8 + threadIdx.x / 32; s < tokens; s += (long long)gridDim.x * 8) {
		const long long t = perm[s];
		const float4 *src = reinterpret_cast<const float4 *>(table + ids[t] * dim);
		float4 *dst = reinterpret_cast<float4 *>(out + t * dim);
		float4 v[8];
#pragma unroll
		for (int u = 0; u < 8; u++)
			v[u] = keep ? keep_ld(src + lane + 32 * u) : __ldg(src + lane + 32 * u);
#pragma unroll
		for (int u = 0; u < 8; u++)
			__stcs(dst + lane + 32 * u, v[u]);
	}
}

/* windows of the table: pass p copies the rows of the tokens whose id falls in the
 * p-th of `passes` equal ranges of [0, rows), the first and last open-ended, so that
 * while a pass runs the rows it reads fit in the L2 and a row that several tokens
 * select comes from DRAM once */
__global__ void __launch_bounds__(256) emb_window(const long long *__restrict__ ids, const float *__restrict__ table,
                                                  float *__restrict__ out, int tokens, int dim, long long rows,
                                                  int passes, int keep)
{
	const int lane = threadIdx.x & 31;
	const long long warps = (long long)gridDim.x * 8;
	const long long w0 = (long long)blockIdx.x * 8 + threadIdx.x / 32;
	for (int p = 0; p < passes; p++) {
		for (long long t = w0; t < tokens; t += warps) {
			const long long id = ids[t];
			long long win = id < 0 ? 0 : id * passes / rows;
			if (win >= passes)
				win = passes - 1;
			if (win != p)
				continue;
			const float4 *src = reinterpret_cast<const float4 *>(table + id * dim);
			float4 *dst = reinterpret_cast<float4 *>(out + t * dim);
			float4 v[8];
#pragma unroll
			for (int u = 0; u < 8; u++)
				v[u] = keep ? keep_ld(src + lane + 32 * u) : __ldg(src + lane + 32 * u);
#pragma unroll
			for (int u = 0; u < 8; u++)
				__stcs(dst + lane + 32 * u, v[u]);
		}
	}
}

/* ---------------- weighted histogram: hist[bin[i]] += w[i] ---------------- */

/* MODE 0: float atomicAdd into the block's shared copy (the recipe, copies=1)
 * MODE 1: no atomics, a per-thread sum (what the loads alone cost)
 * MODE 2: int atomicAdd into shared (the cost of an integer atomic, wrong sums)
 * MODE 3: a copy per warp owned by that warp: __match_any_sync groups the lanes
 *         of one bin, the group's lowest lane adds the group's sum with a plain
 *         load and store (no atomic)
 * MODE 4: float atomicAdd into a copy per warp
 * MODE 5: a copy per warp owned by that warp, and a tag per bin: the lanes with
 *         an element in range write their lane into the bin's tag, the lane
 *         that reads its own lane back adds with a plain load and store, the
 *         others try again (no atomic, no match)
 * MODE 6: float atomicAdd (native at the L2) into the block's own copy in
 *         global memory (sink, cleared by the block), folded by a second pass
 * MODE 7: a quarter of the elements (each thread's fourth) as MODE 6, the rest
 *         as MODE 0: the L2's atomic units and the shared memory's side by side
 * MODE 8: 64-bit fixed point (2^-32) with integer shared atomics for |v| < 256
 *         (no float compare-and-swap loop), a float shared atomic for the rest
 *         (and NaN, infinities); the bin's total is the two summed at the fold.
 *         A block adds at most 2^23 values below 2^40 each: no overflow. */
template <int MODE>
__global__ void __launch_bounds__(512) wh_kernel(const int *__restrict__ bin, const float *__restrict__ w,
                                                 float *__restrict__ hist, long long n, int nbins, int copies,
                                                 float *__restrict__ sink, int fold)
{
	extern __shared__ float sh[];
	for (int j = threadIdx.x; MODE != 6 && j < nbins * copies; j += blockDim.x)
		sh[j] = 0;
	__syncthreads();
	float *mine = sh + ((threadIdx.x >> 5) % copies) * nbins;
	/* MODE 8: the fixed-point bins after the float ones, 8-byte aligned */
	unsigned long long *fix = reinterpret_cast<unsigned long long *>(sh + ((copies * nbins + 1) & ~1));
	for (int j = threadIdx.x; MODE == 8 && j < nbins; j += blockDim.x)
		fix[j] = 0;
	float *priv = sink + (long long)blockIdx.x * nbins;
	if (MODE >= 6) {
		for (int j = threadIdx.x; j < nbins; j += blockDim.x)
			priv[j] = 0;
		__syncthreads();
	}
	const unsigned lane = threadIdx.x & 31;
	float acc = 0;
	const long long nv = n / 4;
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nv; i += stride) {
		const float4 wv = __ldg(reinterpret_cast<const float4 *>(w) + i);
		const int4 bv = __ldg(reinterpret_cast<const int4 *>(bin) + i);
		const float ws[4] = { wv.x, wv.y, wv.z, wv.w };
		const int bs[4] = { bv.x, bv.y, bv.z, bv.w };
#pragma unroll
		for (int u = 0; u < 4; u++) {
			const unsigned b = (unsigned)bs[u];
			const float v = ws[u] * 0.5f;
			if (MODE == 1) {
				acc += v * (float)b;
			} else if (MODE == 8) {
				if (b < (unsigned)nbins && fabsf(v) < 256.0f)
					atomicAdd(fix + b, (unsigned long long)__float2ll_rn(v * 4294967296.0f));
				else if (b < (unsigned)nbins)
					atomicAdd(mine + b, v);
				else
					atomicAdd(hist + b, v);
			} else if (MODE == 2) {
				if (b < (unsigned)nbins)
					atomicAdd(reinterpret_cast<int *>(mine) + b, (int)v);
			} else if (MODE == 6 || (MODE == 7 && u == 3)) {
				if (b < (unsigned)nbins)
					atomicAdd(priv + b, v);
				else
					atomicAdd(hist + b, v);
			} else if (MODE == 0 || MODE == 4 || MODE == 7) {
				if (b < (unsigned)nbins)
					atomicAdd(mine + b, v);
				else
					atomicAdd(hist + b, v);
			} else if (MODE == 5) {
				int *tag = reinterpret_cast<int *>(sh + copies * nbins) + (threadIdx.x >> 5) * nbins;
				bool pend = b < (unsigned)nbins;
				if (!pend)
					atomicAdd(hist + b, v);
				while (__any_sync(0xffffffffu, pend)) {
					if (pend)
						tag[b] = lane;
					__syncwarp();
					const bool won = pend && tag[b] == (int)lane;
					if (won)
						mine[b] += v;
					__syncwarp();
					pend = pend && !won;
				}
			} else {
				const unsigned peers = __match_any_sync(0xffffffffu, b);
				float s = v;
				/* sum the group: every lane adds the values of its higher peers */
				unsigned rest = peers & ~(1u << lane);
				while (__any_sync(0xffffffffu, rest != 0)) {
					const int src = rest ? __ffs(rest) - 1 : lane;
					const float o = __shfl_sync(0xffffffffu, v, src);
					if (rest) {
						s += o;
						rest &= rest - 1;
					}
				}
				if ((peers & ((1u << lane) - 1)) == 0) {
					if (b < (unsigned)nbins)
						mine[b] += s;
					else
						atomicAdd(hist + b, s);
				}
				__syncwarp();
			}
		}
	}
	if (MODE == 1) {
		if (acc == 12345.f)
			sink[0] = acc;
		return;
	}
	__syncthreads();
	if (MODE == 6)
		return;
	for (int j = threadIdx.x; j < nbins; j += blockDim.x) {
		float v = MODE == 7 ? __ldcg(priv + j) : 0;
		for (int c = 0; c < copies; c++)
			v += sh[c * nbins + j];
		if (MODE == 2)
			v = (float)__float_as_int(v);
		if (MODE == 8)
			v += (float)((double)(long long)fix[j] * (1.0 / 4294967296.0));
		if (fold && MODE != 7)
			atomicAdd(hist + j, v);
		else
			sink[(long long)blockIdx.x * nbins + j] = v;
	}
}

__global__ void fold_partials(const float *__restrict__ part, float *__restrict__ hist, int blocks, int nbins)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j >= nbins)
		return;
	float v = 0;
	for (int b = 0; b < blocks; b++)
		v += part[(long long)b * nbins + j];
	hist[j] = v;
}

int
main(int argc, char **argv)
{
	const bool only_scatter = argc > 1 && (argv[1][0] == 's' || argv[1][0] == 'f');
	const bool only_fixed = argc > 1 && argv[1][0] == 'f'; /* "fixed": modes 0, 2 and 8 */
	int dev = 0;
	CK(cudaGetDevice(&dev));
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, dev));
	printf("# %s, %d SMs, L2 %d MB\n", prop.name, sms, prop.l2CacheSize >> 20);
	srand(12345);

	/* embedding, the suite's size */
	if (!only_scatter) {
	const int tokens = 65536, vocab = 32000, dim = 1024;
	std::vector<long long> hid(tokens);
	for (auto &x : hid)
		x = rand() % vocab;
	std::vector<float> htab((size_t)vocab * dim);
	for (auto &x : htab)
		x = (float)rand() / RAND_MAX - 0.5f;
	long long *ids;
	float *table, *out, *out0;
	CK(cudaMalloc(&ids, tokens * sizeof(long long)));
	CK(cudaMalloc(&table, htab.size() * sizeof(float)));
	CK(cudaMalloc(&out, (size_t)tokens * dim * sizeof(float)));
	CK(cudaMalloc(&out0, (size_t)tokens * dim * sizeof(float)));
	CK(cudaMemcpy(ids, hid.data(), tokens * sizeof(long long), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(table, htab.data(), htab.size() * sizeof(float), cudaMemcpyHostToDevice));
	const size_t obytes = (size_t)tokens * dim * sizeof(float);
	std::vector<float> h0(obytes / 4), h1(obytes / 4);
	printf("%-44s %9s %9s\n", "variant", "ms", "maxdiff");
	auto check = [&](const char *name, double ms) {
		CK(cudaMemcpy(h1.data(), out, obytes, cudaMemcpyDeviceToHost));
		double md = 0;
		for (size_t i = 0; i < h1.size(); i++)
			md = fmax(md, fabs((double)h1[i] - h0[i]));
		printf("%-44s %9.4f %9.2g\n", name, ms, md);
	};
	int occ = 0;
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, emb_window, 256, 0));
	{
		double ms = median_ms([&] { emb_warp<<<tokens / 8, 256>>>(ids, table, out0, tokens, dim, 0); });
		CK(cudaMemcpy(h0.data(), out0, obytes, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(out, out0, obytes, cudaMemcpyDeviceToDevice));
		check("emb warp/row grid=tokens/8", ms);
	}
	{
		CK(cudaMemset(out, 0xff, obytes));
		double ms = median_ms([&] { emb_warp<<<tokens / 8, 256>>>(ids, table, out, tokens, dim, 1); });
		check("emb warp/row stcs", ms);
		CK(cudaMemset(out, 0xff, obytes));
		ms = median_ms([&] { emb_warp<<<sms * occ, 256>>>(ids, table, out, tokens, dim, 1); });
		check("emb warp/row stcs one wave", ms);
	}
	for (int keep = 0; keep < 2; keep++) {
		CK(cudaMemset(out, 0xff, obytes));
		double ms = median_ms([&] { emb_warp8<<<tokens / 8, 256>>>(ids, table, out, tokens, dim, keep); });
		check(keep ? "emb warp/row 8 in flight keep" : "emb warp/row 8 in flight", ms);
	}
	for (int passes : { 1, 4, 6, 8, 12 }) {
		for (int keep = 0; keep < 2; keep++) {
			CK(cudaMemset(out, 0xff, obytes));
			double ms = median_ms([&] {
				emb_window<<<sms * occ, 256>>>(ids, table, out, tokens, dim, vocab, passes, keep);
			});
			char name[64];
			snprintf(name, sizeof name, "emb window passes=%d 8 in flight%s", passes, keep ? " keep" : "");
			check(name, ms);
		}
	}
	{
		unsigned *cnt;
		int *perm;
		CK(cudaMalloc(&cnt, 65536 * sizeof(unsigned)));
		CK(cudaMalloc(&perm, tokens * sizeof(int)));
		{
			CK(cudaMemset(out, 0xff, obytes));
			double ms = median_ms([&] {
				emb_sort1<<<1, 1024>>>(ids, tokens, perm);
				emb_sorted<<<tokens / 8, 256>>>(ids, table, out, tokens, dim, perm, 0);
			});
			check("emb sorted, one-block sort (with the sort)", ms);
			ms = median_ms([&] { emb_sort1<<<1, 1024>>>(ids, tokens, perm); });
			printf("%-44s %9.4f %9s\n", "  the one-block sort alone", ms, "-");
			CK(cudaMemset(out, 0xff, obytes));
			ms = median_ms([&] {
				emb_sort1<<<1, 1024>>>(ids, tokens, perm);
				emb_sorted<<<tokens / 8, 256>>>(ids, table, out, tokens, dim, perm, 1);
			});
			check("emb sorted, one-block sort keep (with the sort)", ms);
		}
		for (int buckets : { 4096 }) {
			for (int keep = 0; keep < 2; keep++) {
				auto sort = [&] {
					CK(cudaMemsetAsync(cnt, 0, buckets * sizeof(unsigned)));
					emb_count<<<tokens / 256, 256>>>(ids, tokens, cnt, buckets - 1);
					emb_scan<<<1, 1024>>>(cnt, buckets);
					emb_place<<<tokens / 256, 256>>>(ids, tokens, cnt, buckets - 1, perm);
				};
				CK(cudaMemset(out, 0xff, obytes));
				double ms = median_ms([&] {
					sort();
					emb_sorted<<<tokens / 8, 256>>>(ids, table, out, tokens, dim, perm, keep);
				});
				char name[80];
				snprintf(name, sizeof name, "emb sorted buckets=%d%s (with the sort)", buckets, keep ? " keep" : "");
				check(name, ms);
				if (keep)
					continue;
				ms = median_ms(sort);
				printf("%-44s %9.4f %9s\n", "  the sort alone", ms, "-");
			}
		}
		CK(cudaFree(cnt));
		CK(cudaFree(perm));
	}
	/* what L2 hits could buy: the same tokens folded onto a table that fits */
	for (int hot : { 2000, 8000 }) {
		std::vector<long long> hh2(hid);
		for (auto &x : hh2)
			x %= hot;
		CK(cudaMemcpy(ids, hh2.data(), tokens * sizeof(long long), cudaMemcpyHostToDevice));
		double ms = median_ms([&] { emb_warp8<<<tokens / 8, 256>>>(ids, table, out, tokens, dim, 0); });
		printf("%-44s %9.4f %9s\n", hot == 2000 ? "emb (ids mod 2000: 8 MB of rows)" : "emb (ids mod 8000: 33 MB of rows)", ms, "-");
		CK(cudaMemcpy(ids, hid.data(), tokens * sizeof(long long), cudaMemcpyHostToDevice));
	}
	CK(cudaFree(out0));
	CK(cudaFree(out));
	CK(cudaFree(table));
	}

	/* weighted histogram, the suite's size */
	const long long n = 1 << 25;
	const int nbins = 1000;
	std::vector<int> hb(n);
	std::vector<float> hw(n);
	std::vector<double> ref(nbins, 0.0);
	for (long long i = 0; i < n; i++) {
		hb[i] = rand() % nbins;
		hw[i] = (float)rand() / RAND_MAX;
		ref[hb[i]] += hw[i] * 0.5f;
	}
	int *bin;
	float *w, *hist, *sink;
	CK(cudaMalloc(&bin, n * sizeof(int)));
	CK(cudaMalloc(&w, n * sizeof(float)));
	CK(cudaMalloc(&hist, nbins * sizeof(float)));
	CK(cudaMalloc(&sink, (size_t)sms * 64 * nbins * sizeof(float)));
	CK(cudaMemcpy(bin, hb.data(), n * sizeof(int), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(w, hw.data(), n * sizeof(float), cudaMemcpyHostToDevice));
	std::vector<float> hh(nbins);
	auto hcheck = [&](const char *name, double ms, bool judge) {
		CK(cudaMemcpy(hh.data(), hist, nbins * sizeof(float), cudaMemcpyDeviceToHost));
		double md = 0;
		for (int j = 0; j < nbins; j++)
			md = fmax(md, fabs(hh[j] - ref[j]) / fmax(1.0, fabs(ref[j])));
		if (judge)
			printf("%-44s %9.4f %9.2g\n", name, ms, md);
		else
			printf("%-44s %9.4f %9s\n", name, ms, "-");
	};
	for (int m = 0; m < 9; m++)
		CK(cudaFuncSetAttribute(m == 0 ? wh_kernel<0> : m == 1 ? wh_kernel<1> : m == 2 ? wh_kernel<2> :
		                        m == 3 ? wh_kernel<3> : m == 4 ? wh_kernel<4> : m == 5 ? wh_kernel<5> :
		                        m == 6 ? wh_kernel<6> : m == 7 ? wh_kernel<7> : wh_kernel<8>,
		                        cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
	for (int tpb : { 256, 512 }) {
		for (int mode = 0; mode < 9; mode++) {
			if (only_fixed && mode != 0 && mode != 2 && mode != 8)
				continue;
			for (int fold = 1; fold >= 0; fold--) {
				const int copies = (mode >= 3 && mode <= 5) ? tpb / 32 : 1;
				size_t sb = (size_t)copies * nbins * sizeof(float) * (mode == 5 ? 2 : 1);
				if (mode == 8)
					sb = (size_t)((copies * nbins + 1) & ~1) * sizeof(float) + nbins * 8;
				if (sb > 200 * 1024 || (mode == 1 && fold == 0) || (mode >= 6 && fold))
					continue;
				if (mode == 6)
					sb = 0;
				void (*k)(const int *, const float *, float *, long long, int, int, float *, int) =
					mode == 0 ? wh_kernel<0> : mode == 1 ? wh_kernel<1> : mode == 2 ? wh_kernel<2> :
					mode == 3 ? wh_kernel<3> : mode == 4 ? wh_kernel<4> : mode == 5 ? wh_kernel<5> :
					mode == 6 ? wh_kernel<6> : mode == 7 ? wh_kernel<7> : wh_kernel<8>;
				int o = 0;
				CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o, k, tpb, sb));
				const int grid = sms * o;
				double ms = median_ms([&] {
					CK(cudaMemsetAsync(hist, 0, nbins * sizeof(float)));
					k<<<grid, tpb, sb>>>(bin, w, hist, n, nbins, copies, sink, fold);
					if (!fold && mode != 1)
						fold_partials<<<(nbins + 255) / 256, 256>>>(sink, hist, grid, nbins);
				});
				char name[80];
				static const char *mn[] = { "shared f32 atomic", "loads only", "shared int atomic",
					                    "warp copy match_any", "warp copy f32 atomic", "warp copy tags",
					                    "global block copy", "1/4 global 3/4 shared",
					                    "shared 64-bit fixed point" };
				snprintf(name, sizeof name, "wh %s tpb=%d occ=%d %s", mn[mode], tpb, o,
				         fold ? "fold=atomic" : "fold=2nd pass");
				hcheck(name, ms, mode != 1 && mode != 2);
			}
		}
	}
	return 0;
}
