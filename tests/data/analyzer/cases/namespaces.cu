#include <cuda_runtime.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

namespace nn {
namespace detail {
__device__ float act(float v) { return v > 0.f ? v : 0.01f * v; }

__global__ void leaky_k(const float *x, float *y, int n)
{
	cg::thread_block b = cg::this_thread_block();
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = act(x[i]);
	b.sync();
}
} // namespace detail

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1 << 20)
void leaky_relu(const float *x, float *y, int n)
{
	detail::leaky_k<<<(n + 255) / 256, 256>>>(x, y, n);
}
} // namespace nn
