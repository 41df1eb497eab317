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

#endif
