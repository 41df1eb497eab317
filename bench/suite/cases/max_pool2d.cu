// egg-bench: family = pool
// egg-bench: flops = planes * H * W
// 2x2 max pooling, stride 2. input [planes, H, W] -> output [planes, H/2, W/2].
#include <cuda_runtime.h>
#include <math.h>

__global__ void maxpool2x2(const float *input, float *output, int H, int W, int OH, int OW)
{
	int ox = blockIdx.x * blockDim.x + threadIdx.x;
	int oy = blockIdx.y * blockDim.y + threadIdx.y;
	int p = blockIdx.z;
	if (ox < OW && oy < OH) {
		const float *plane = input + (size_t)p * H * W;
		int iy = oy * 2, ix = ox * 2;
		float m = plane[iy * W + ix];
		m = fmaxf(m, plane[iy * W + ix + 1]);
		m = fmaxf(m, plane[(iy + 1) * W + ix]);
		m = fmaxf(m, plane[(iy + 1) * W + ix + 1]);
		output[(size_t)p * OH * OW + oy * OW + ox] = m;
	}
}

#pragma egg optimize in(input[planes * H * W]) out(output[planes * (H / 2) * (W / 2)]) \
	workload(planes = 1024, H = 256, W = 256) workload(planes = 37, H = 33, W = 65)
void max_pool2d(const float *input, float *output, int planes, int H, int W)
{
	int OH = H / 2, OW = W / 2;
	dim3 block(16, 16, 1);
	dim3 grid((OW + 15) / 16, (OH + 15) / 16, planes);
	maxpool2x2<<<grid, block>>>(input, output, H, W, OH, OW);
}
