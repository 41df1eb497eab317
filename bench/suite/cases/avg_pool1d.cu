// egg-bench: family = pool
// egg-bench: flops = rows * length
// 1-D average pooling, kernel 4, stride 4, no padding.
// input: [rows = batch*channels, length], output: [rows, length / 4]
#include <cuda_runtime.h>

#define POOL_K 4

__global__ void avg_pool1d_kernel(const float *in, float *out, int rows, int length, int out_len)
{
	int idx = threadIdx.x + blockIdx.x * blockDim.x;
	if (idx >= rows * out_len)
		return;
	int r = idx / out_len;
	int o = idx % out_len;
	const float *src = in + r * length + o * POOL_K;
	float s = 0.0f;
	for (int k = 0; k < POOL_K; k++)
		s += src[k];
	out[idx] = s / POOL_K;
}

#pragma egg optimize in(in[rows * length]) out(out[rows * (length / 4)]) \
	workload(rows = 16384, length = 4096) workload(rows = 999, length = 257) \
	tolerance(rtol = 1e-5, atol = 1e-6)
void avg_pool1d(const float *in, float *out, int rows, int length)
{
	int out_len = length / POOL_K;
	int total = rows * out_len;
	avg_pool1d_kernel<<<(total + 127) / 128, 128>>>(in, out, rows, length, out_len);
}
