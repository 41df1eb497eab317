#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

__global__ void sum_k(const float *x, float *out, int n)
{
	cg::thread_block block = cg::this_thread_block();
	cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float v = i < n ? x[i] : 0.f;
	v = cg::reduce(warp, v, cg::plus<float>());
	if (warp.thread_rank() == 0)
		atomicAdd(out, v);
}

#pragma egg optimize in(x[n]) out(out[1]) workload(n = 1 << 20) tolerance(rtol = 1e-4, atol = 1e-3)
void sum(const float *x, float *out, int n)
{
	cudaMemset(out, 0, sizeof(float));
	sum_k<<<(n + 255) / 256, 256>>>(x, out, n);
}
