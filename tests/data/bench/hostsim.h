/*
 * hostsim.h -- just enough of the CUDA runtime, on the host, to build
 * bench/suite/bench_main.cu with g++ (-DBENCH_HOSTSIM -include hostsim.h) so that the
 * benchmark driver's own logic (allocation from the table, random fill, poison,
 * dumps, manifest, timing loop, JSON line) is tested on machines without a GPU.
 * Kernels run as one host "thread" (grid 1 x 1): bench_main's helper kernels are
 * grid-stride loops, so one thread covers every element.
 */
#ifndef EGG_BENCH_HOSTSIM_H
#define EGG_BENCH_HOSTSIM_H
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <cmath>

#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static

struct hostsim_dim3 {
	unsigned x, y, z;
};
static hostsim_dim3 blockIdx = {0, 0, 0}, threadIdx = {0, 0, 0}, blockDim = {1, 1, 1}, gridDim = {1, 1, 1};
static inline void hostsim_launch(int, int) {}

typedef int cudaError_t;
typedef void *cudaEvent_t;
enum { cudaSuccess = 0, cudaErrorMemoryAllocation = 2 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };
struct cudaDeviceProp {
	char name[256];
	int major, minor, multiProcessorCount;
};
static inline const char *cudaGetErrorString(cudaError_t) { return "hostsim error"; }
static inline cudaError_t cudaGetLastError(void) { return cudaSuccess; }
static inline cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
static inline cudaError_t cudaMalloc(void **p, size_t n)
{
	*p = malloc(n);
	return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
template <typename T> static inline cudaError_t cudaMalloc(T **p, size_t n)
{
	return cudaMalloc((void **)p, n);
}
static inline cudaError_t cudaFree(void *p)
{
	free(p);
	return cudaSuccess;
}
static inline cudaError_t cudaMemset(void *p, int v, size_t n)
{
	memset(p, v, n);
	return cudaSuccess;
}
static inline cudaError_t cudaMemsetAsync(void *p, int v, size_t n) { return cudaMemset(p, v, n); }
static inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind)
{
	memcpy(d, s, n);
	return cudaSuccess;
}
static inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind k)
{
	return cudaMemcpy(d, s, n, k);
}
static inline cudaError_t cudaEventCreate(cudaEvent_t *e)
{
	*e = malloc(sizeof(double));
	return cudaSuccess;
}
static inline cudaError_t cudaEventDestroy(cudaEvent_t e)
{
	free(e);
	return cudaSuccess;
}
static inline cudaError_t cudaEventRecord(cudaEvent_t e, int stream = 0)
{
	(void)stream;
	*(double *)e = std::chrono::duration<double, std::milli>(
			       std::chrono::steady_clock::now().time_since_epoch()).count();
	return cudaSuccess;
}
static inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
	*ms = (float)(*(double *)b - *(double *)a);
	return cudaSuccess;
}
static inline cudaError_t cudaGetDevice(int *d)
{
	*d = 0;
	return cudaSuccess;
}
static inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int)
{
	strcpy(p->name, "hostsim");
	p->major = 9;
	p->minor = 0;
	p->multiProcessorCount = 1;
	return cudaSuccess;
}
template <typename T> static inline T atomicAdd(T *p, T v)
{
	T old = *p;
	*p += v;
	return old;
}
#endif
