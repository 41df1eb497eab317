/*
 * flush_copy.cu -- what the suite's L2 flush costs the call it times.
 *
 * bench_main times each call after flushing the L2 by writing 256 MiB (as
 * PyTorch's timing helpers do).  The L2 is write-back, so the flush leaves up to
 * an L2's worth of dirty lines, written back while the timed call runs.  This
 * program times a device-to-device copy of N bytes (2N moved, the very
 * operation the roofline floor is measured with) under the suite's protocol
 * with each flush, and prints it as a fraction of the steady-state copy rate
 * (a 1 GiB copy, back to back, which is bench_main --ceilings).  A copy is the
 * best a memory-bound kernel can do; where it is far below 100% at a case's
 * size, the flush, not the kernel, is what is missing.
 *
 *   nvcc -O3 -arch=sm_90 -o flush_copy bench/probes/flush_copy.cu && ./flush_copy
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>

#define CK(x)                                                                          \
	do {                                                                           \
		cudaError_t e_ = (x);                                                  \
		if (e_ != cudaSuccess) {                                               \
			fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));       \
			exit(1);                                                       \
		}                                                                      \
	} while (0)

__global__ void flush_by_reading(const unsigned *p, size_t n, unsigned *sink)
{
	unsigned acc = 0;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		acc ^= p[i];
	if (acc == 0x9e3779b9u)
		*sink = acc;
}

enum flush { NONE, WRITE, READ };

/* median ms of 50 copies of n bytes, each after the flush */
static float time_copy(void *dst, const void *src, size_t n, enum flush f, void *fl, size_t fb)
{
	cudaEvent_t t0, t1;
	CK(cudaEventCreate(&t0));
	CK(cudaEventCreate(&t1));
	std::vector<float> v;
	for (int r = 0; r < 53; r++) {
		if (f == WRITE)
			CK(cudaMemsetAsync(fl, r & 0xff, fb));
		else if (f == READ)
			flush_by_reading<<<4096, 256>>>((const unsigned *)fl, fb / 4, (unsigned *)((char *)fl + fb));
		CK(cudaEventRecord(t0));
		CK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice));
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
	return v[v.size() / 2];
}

int main(void)
{
	const size_t big = (size_t)1 << 30, fb = (size_t)256 << 20;
	void *a, *b, *fl;
	CK(cudaMalloc(&a, big));
	CK(cudaMalloc(&b, big));
	CK(cudaMalloc(&fl, fb + 16));
	CK(cudaMemset(a, 1, big));
	CK(cudaMemset(fl, 0x5a, fb));
	const double rate = 2.0 * big / (time_copy(b, a, big, NONE, fl, fb) * 1e-3); /* bytes/s */
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, 0));
	printf("# %s, L2 %d MiB; steady copy rate (1 GiB, back to back): %.0f GB/s\n", p.name,
	       p.l2CacheSize >> 20, rate * 1e-9);
	printf("%-10s %-12s %10s %10s %14s\n", "copy", "flush", "ms", "floor ms", "% of floor");
	const size_t sizes[] = { (size_t)32 << 20, (size_t)64 << 20, (size_t)128 << 20, (size_t)256 << 20,
		                 (size_t)512 << 20 };
	const char *names[] = { "none", "write 256M", "read 256M" };
	for (size_t s : sizes)
		for (int f = 0; f < 3; f++) {
			float ms = time_copy(b, a, s, (enum flush)f, fl, fb);
			double floor_ms = 2.0 * s / rate * 1e3;
			printf("%4zu MiB   %-12s %10.4f %10.4f %13.0f%%\n", s >> 20, names[f], ms, floor_ms,
			       100.0 * floor_ms / ms);
		}
	return 0;
}
