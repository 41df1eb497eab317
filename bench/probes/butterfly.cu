// butterfly.cu -- a probe, not part of egg: where the time of the butterfly path's
// fused kernel goes on the suite's bitonic_segments (2^24 floats, segments of
// 1024, 55 steps fused in one launch), to choose what the generic path should do.
// Variants of the fused kernel, each with the original body:
//   as emitted         the body as written, `i % seg` with a run-time seg
//   pow2 mod           `i % seg` as `i & (seg - 1)` (what a host check that seg is
//                      a power of two could select)
//   magic mod          `i % seg` by a multiply with a per-step constant computed
//                      on the host (Lemire's fastmod, exact for 32-bit operands)
//   32-bit tile index  the same as emitted, with the tile's index arithmetic
//                      in 32 bits instead of 64
//   lower slots only   pow2 mod, and only the half of the slots whose bit hb is
//                      clear (what proving that the body does nothing when
//                      i ^ j < i would allow)
// Prints median ms of 30 runs and whether the result is sorted per segment.
//
//   nvcc -O3 -arch=sm_90 -o probe bench/probes/butterfly.cu && ./probe
#include "probe.h"
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>


struct step {
	int n, seg, j, k;
	unsigned grid, block;
	int hb;
	unsigned long long magic;
};
struct steps {
	step s[64];
};

template <int MODE> static __device__ __forceinline__ int
mod(int i, const step &a)
{
	if (MODE == 1)
		return i & (a.seg - 1);
	if (MODE == 2) {
		const unsigned long long low = a.magic * (unsigned)i;
		return (int)__umul64hi(low, (unsigned long long)(unsigned)a.seg);
	}
	return i % a.seg;
}

template <int MODE, int TPB>
__global__ void __launch_bounds__(TPB) fused(float *__restrict__ buf, long long extent, int ns, const steps st)
{
	__shared__ float s[1024];
	const long long base = (long long)blockIdx.x * 1024;
	for (int r = 0; r < 1024 / TPB; r++) {
		const int e = threadIdx.x + r * TPB;
		if (base + e < extent)
			s[e] = buf[base + e];
	}
	__syncthreads();
	for (int q = 0; q < ns; q++) {
		const step a = st.s[q];
		if (MODE == 4) {
#pragma unroll
			for (int r = 0; r < 512 / TPB; r++) {
				const int e = threadIdx.x + r * TPB;
				const int l = ((e >> a.hb) << (a.hb + 1)) | (e & ((1 << a.hb) - 1));
				const int i = (int)base + l;
				float *v = s - (int)base;
				const int partner = i ^ a.j;
				if (i < a.n && partner > i) {
					const bool ascending = ((i & (a.seg - 1)) & a.k) == 0;
					const float x0 = v[i], x1 = v[partner];
					if ((x0 > x1) == ascending) {
						v[i] = x1;
						v[partner] = x0;
					}
				}
			}
			__syncthreads();
			continue;
		}
		const long long cover = (long long)a.grid * a.block;
#pragma unroll
		for (int r = 0; r < 1024 / TPB; r++) {
			const int e = threadIdx.x + r * TPB;
			const int d = ((e >> a.hb) ^ (e >> 5)) & 1;
			int i;
			float *v;
			if (MODE == 3) {
				const int x = (int)base + (e ^ (d << a.hb) ^ (d << 5));
				if (x >= cover)
					continue;
				i = x;
				v = s - (int)base;
			} else {
				const long long x = base + (e ^ (d << a.hb) ^ (d << 5));
				if (x >= cover)
					continue;
				i = (unsigned)x;
				v = s - base;
			}
			if (i >= a.n)
				continue;
			const int partner = i ^ a.j;
			if (partner > i) {
				const bool ascending = (mod<MODE == 3 ? 0 : MODE>(i, a) & a.k) == 0;
				const float x0 = v[i], x1 = v[partner];
				if ((x0 > x1) == ascending) {
					v[i] = x1;
					v[partner] = x0;
				}
			}
		}
		__syncthreads();
	}
	for (int r = 0; r < 1024 / TPB; r++) {
		const int e = threadIdx.x + r * TPB;
		if (base + e < extent)
			buf[base + e] = s[e];
	}
}

int
main(void)
{
	const int n = 1 << 24, seg = 1024;
	std::vector<float> h(n), o(n);
	srand(7);
	for (auto &x : h)
		x = (float)rand() / RAND_MAX;
	float *keys, *v;
	CK(cudaMalloc(&keys, n * sizeof(float)));
	CK(cudaMalloc(&v, n * sizeof(float)));
	CK(cudaMemcpy(keys, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
	steps st;
	int ns = 0;
	for (int k = 2; k <= seg; k <<= 1)
		for (int j = k >> 1; j > 0; j >>= 1) {
			step &a = st.s[ns++];
			a.n = n, a.seg = seg, a.j = j, a.k = k;
			a.grid = (n + 255) / 256, a.block = 256;
			a.hb = 5;
			if (j) {
				a.hb = -1;
				for (int x = j; x; x >>= 1)
					a.hb++;
			}
			a.magic = 0xffffffffffffffffull / (unsigned)seg + 1;
		}
	cudaEvent_t e0, e1;
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	printf("%-28s %5s %9s %s\n", "variant", "tpb", "ms", "sorted");
	auto run = [&](const char *name, int tpb, void (*k)(float *, long long, int, const steps)) {
		std::vector<float> t;
		for (int it = 0; it < 33; it++) {
			CK(cudaMemcpy(v, keys, n * sizeof(float), cudaMemcpyDeviceToDevice));
			CK(cudaEventRecord(e0));
			k<<<n / 1024, tpb>>>(v, n, ns, st);
			CK(cudaEventRecord(e1));
			CK(cudaEventSynchronize(e1));
			float ms;
			CK(cudaEventElapsedTime(&ms, e0, e1));
			if (it >= 3)
				t.push_back(ms);
		}
		CK(cudaGetLastError());
		std::sort(t.begin(), t.end());
		CK(cudaMemcpy(o.data(), v, n * sizeof(float), cudaMemcpyDeviceToHost));
		bool ok = true;
		for (int s0 = 0; s0 < n && ok; s0 += seg) {
			std::vector<float> a(h.begin() + s0, h.begin() + s0 + seg);
			std::sort(a.begin(), a.end());
			ok = std::equal(a.begin(), a.end(), o.begin() + s0);
		}
		printf("%-28s %5d %9.4f %s\n", name, tpb, t[t.size() / 2], ok ? "yes" : "NO");
	};
	run("as emitted", 256, fused<0, 256>);
	run("as emitted", 512, fused<0, 512>);
	run("pow2 mod", 256, fused<1, 256>);
	run("pow2 mod", 512, fused<1, 512>);
	run("magic mod", 256, fused<2, 256>);
	run("magic mod", 512, fused<2, 512>);
	run("32-bit tile index", 256, fused<3, 256>);
	run("32-bit tile index", 512, fused<3, 512>);
	run("lower slots only", 128, fused<4, 128>);
	run("lower slots only", 256, fused<4, 256>);
	return 0;
}
