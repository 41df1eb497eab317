// refill2.cu -- a probe, not part of egg: collatz (the suite's generic case, a
// data-dependent loop per element) with lanes that walk their elements and
// refill when an element's loop ends, as the builtin's refill path emits it
// (one element per lane, the loop checked for its end every STEPS steps), against
// lanes that keep two elements in flight (two independent chains, each refilled
// on its own).  On 2026-12-01 ncu put refill steps=16 at 68% of issue slots busy,
// with 30% of cycles with no eligible warp: the chain of one step (test, select,
// compare) is latency-bound.  Prints one table: median of 30 timed runs after 3
// warm-ups, and whether the output matches the reference's.
//
//   nvcc -O3 -arch=sm_90 -o refill2 bench/probes/refill2.cu && ./refill2
#include "probe.h"
#include <algorithm>
#include <vector>

__global__ void ref_k(const int *start, int *steps, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	long long v = start[i];
	int count = 0;
	while (v != 1) {
		v = (v & 1) ? 3 * v + 1 : v >> 1;
		count++;
	}
	steps[i] = count;
}

/* one element per lane, refilled; the end checked every STEPS steps */
template <int STEPS>
__global__ void __launch_bounds__(256) one_k(const int *__restrict__ start, int *__restrict__ steps, int n)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	bool live = e < n;
	long long v = live ? start[e] : 1;
	int count = 0;
	while (live) {
		int s = 0;
#pragma unroll
		for (; s < STEPS; s++) {
			if (v == 1)
				break;
			v = (v & 1) ? 3 * v + 1 : v >> 1;
			count++;
		}
		if (s < STEPS) {
			steps[e] = count;
			e += stride;
			live = e < n;
			if (live) {
				v = start[e];
				count = 0;
			}
		}
	}
}

/* two elements per lane in flight (elements e and e + stride of a doubled
 * stride), each refilled when its chain ends; both chains advance together */
template <int STEPS>
__global__ void __launch_bounds__(256) two_k(const int *__restrict__ start, int *__restrict__ steps, int n)
{
	const long long stride = (long long)gridDim.x * blockDim.x * 2;
	long long ea = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * 2, eb = ea + 1;
	bool la = ea < n, lb = eb < n;
	long long va = la ? start[ea] : 1, vb = lb ? start[eb] : 1;
	int ca = 0, cb = 0;
	while (la || lb) {
#pragma unroll
		for (int s = 0; s < STEPS; s++) {
			if (va != 1) {
				va = (va & 1) ? 3 * va + 1 : va >> 1;
				ca++;
			}
			if (vb != 1) {
				vb = (vb & 1) ? 3 * vb + 1 : vb >> 1;
				cb++;
			}
		}
		if (la && va == 1) {
			steps[ea] = ca;
			ea += stride;
			la = ea < n;
			va = la ? start[ea] : 1;
			ca = 0;
		}
		if (lb && vb == 1) {
			steps[eb] = cb;
			eb += stride;
			lb = eb < n;
			vb = lb ? start[eb] : 1;
			cb = 0;
		}
	}
}

int
main(void)
{
	const int n = 1 << 24;
	int dev = 0, sms = 0;
	CK(cudaGetDevice(&dev));
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	std::vector<int> h(n), want(n), got(n);
	srand(12345);
	for (auto &x : h)
		x = 1 + rand() % 1048576;
	int *start, *steps;
	CK(cudaMalloc(&start, n * sizeof(int)));
	CK(cudaMalloc(&steps, n * sizeof(int)));
	CK(cudaMemcpy(start, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
	printf("%-36s %9s %s\n", "variant", "ms", "correct");
	double ms = median_ms([&] { ref_k<<<(n + 127) / 128, 128>>>(start, steps, n); });
	CK(cudaMemcpy(want.data(), steps, n * sizeof(int), cudaMemcpyDeviceToHost));
	printf("%-36s %9.4f %s\n", "reference", ms, "-");
	auto run = [&](const char *name, void (*k)(const int *, int *, int), int waves, int per_lane) {
		int occ = 0;
		CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, 256, 0));
		long long g = (long long)sms * occ * waves, need = ((long long)n / per_lane + 255) / 256;
		g = std::min(g, need);
		CK(cudaMemset(steps, 0xff, n * sizeof(int)));
		double t = median_ms([&] { k<<<(unsigned)g, 256>>>(start, steps, n); });
		CK(cudaMemcpy(got.data(), steps, n * sizeof(int), cudaMemcpyDeviceToHost));
		char label[80];
		snprintf(label, sizeof label, "%s waves=%d (occ %d)", name, waves, occ);
		printf("%-36s %9.4f %s\n", label, t, got == want ? "yes" : "NO");
	};
	for (int waves : { 1, 2 }) {
		run("one steps=16", one_k<16>, waves, 1);
		run("one steps=32", one_k<32>, waves, 1);
		run("two steps=8", two_k<8>, waves, 2);
		run("two steps=16", two_k<16>, waves, 2);
	}
	return 0;
}
