// Annotated functions inside namespaces: the builtin generator must find them,
// name the closure's functions from where its candidates stand, and copy
// kernels of a namespace below the target's into that namespace.
#include <cuda_runtime.h>

namespace nn {
namespace detail {
__device__ float act(float v) { return v > 0.f ? v : 0.01f * v; }

__global__ void leaky_k(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = act(x[i]);
}

/* a data-dependent loop: not lifted, so the generic path copies it */
__global__ void halvings_k(const int *x, int *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	int v = x[i], c = 0;
	while (v > 1) {
		v = (v & 1) ? v - 1 : v / 2;
		c++;
	}
	y[i] = c;
}
} // namespace detail

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1 << 24) workload(n = 1001)
void leaky_relu(const float *x, float *y, int n)
{
	detail::leaky_k<<<(n + 255) / 256, 256>>>(x, y, n);
}

#pragma egg optimize in(x[n]) out(y[n]) range(x, 1, 100000) workload(n = 1 << 24) workload(n = 1001)
void halvings(const int *x, int *y, int n)
{
	detail::halvings_k<<<(n + 31) / 32, 32>>>(x, y, n);
}

namespace {
__global__ void scale_k(const float *x, float *y, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i];
}
} // namespace

inline namespace v2 {
#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1 << 24, a = 3) workload(n = 999, a = 3)
void scale(const float *x, float *y, float a, int n)
{
	scale_k<<<(n + 255) / 256, 256>>>(x, y, a, n);
}
} // namespace v2
} // namespace nn

namespace ops::fused {
#pragma egg optimize in(x[n]) out(y[n]) launch((n + 255) / 256, 256) \
	workload(n = 1 << 24) workload(n = 1001)
__global__ void square_k(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] * x[i];
}
} // namespace ops::fused

extern "C" {
#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1 << 24) workload(n = 1001)
void c_leaky(const float *x, float *y, int n)
{
	nn::detail::leaky_k<<<(n + 255) / 256, 256>>>(x, y, n);
}
}
