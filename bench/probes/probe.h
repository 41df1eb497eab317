// probe.h -- what the probes in this folder share: a CUDA call checked, or the
// program stops with the call's place and error; the median of timed runs.
#ifndef EGG_PROBE_H
#define EGG_PROBE_H
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>

#define CK(x)                                                                             \
	do {                                                                              \
		cudaError_t e_ = (x);                                                     \
		if (e_ != cudaSuccess) {                                                  \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
			exit(1);                                                          \
		}                                                                         \
	} while (0)

/* The median of 30 event-timed runs of f, in ms, after 3 warm-ups; before() runs
 * ahead of each, outside the timing (an L2 flush, say). */
template <class F, class B> static double
median_ms_after(F f, B before)
{
	cudaEvent_t a, b;
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	for (int i = 0; i < 3; i++) {
		before();
		f();
	}
	CK(cudaDeviceSynchronize());
	std::vector<float> t;
	for (int i = 0; i < 30; i++) {
		before();
		CK(cudaEventRecord(a));
		f();
		CK(cudaEventRecord(b));
		CK(cudaEventSynchronize(b));
		float ms;
		CK(cudaEventElapsedTime(&ms, a, b));
		t.push_back(ms);
	}
	CK(cudaGetLastError());
	CK(cudaEventDestroy(a));
	CK(cudaEventDestroy(b));
	std::sort(t.begin(), t.end());
	return t[t.size() / 2];
}

template <class F> static double
median_ms(F f)
{
	return median_ms_after(f, [] {});
}

/* The L2 left cold and clean before each timed run, as the suite does: a read of
 * 256 MB (allocated at the first call), on a grid of 4 blocks of 512 per SM. */
__global__ void probe_flush_read(const float4 *__restrict__ p, long long n, float *sink)
{
	float a = 0;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
		float4 v = __ldcs(p + i);
		a += v.x + v.y + v.z + v.w;
	}
	if (a == 1234.5f)
		*sink = a;
}

template <class F> static double
median_ms_cold(F f)
{
	static float *buf, *sink;
	static int sms;
	if (!buf) {
		CK(cudaMalloc(&buf, 256 << 20));
		CK(cudaMalloc(&sink, 4));
		CK(cudaMemset(buf, 0, 256 << 20));
		CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	}
	return median_ms_after(f, [] {
		probe_flush_read<<<sms * 4, 512>>>(reinterpret_cast<const float4 *>(buf), (256LL << 20) / 16, sink);
	});
}

#endif
