#include <cuda_runtime.h>
#include <cooperative_groups.h>

using namespace cooperative_groups;

namespace mathx {
__device__ float twice(float v) { return 2.f * v; }
}
using namespace mathx;
using mathx::twice;

namespace unrelated_ns {
int nothing() { return 0; }
}
using namespace unrelated_ns;

__global__ void twice_k(const float *x, float *y, int n)
{
	thread_block b = this_thread_block();
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = twice(x[i]);
	b.sync();
}

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1 << 20)
void twice_all(const float *x, float *y, int n)
{
	twice_k<<<(n + 255) / 256, 256>>>(x, y, n);
}
