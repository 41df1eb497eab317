// egg-bench: family = conv
// egg-bench: flops = 2 * batch * out_ch * in_ch * 3 * (L - 2)
// Direct 1-D convolution, no padding, stride 1, kernel size 3.
// input [batch, in_ch, L], weight [out_ch, in_ch, 3], output [batch, out_ch, L - 2].
#include <cuda_runtime.h>

__global__ void conv1d_k3(const float *input, const float *weight, float *output,
                          int in_ch, int out_ch, int L)
{
	int out_len = L - 2;
	int t = threadIdx.x + blockIdx.x * blockDim.x;
	int oc = blockIdx.y;
	int b = blockIdx.z;
	if (t < out_len) {
		float acc = 0.0f;
		for (int ic = 0; ic < in_ch; ic++) {
			const float *in_row = input + ((long)b * in_ch + ic) * L;
			const float *w = weight + (oc * in_ch + ic) * 3;
			for (int k = 0; k < 3; k++)
				acc += w[k] * in_row[t + k];
		}
		output[((long)b * out_ch + oc) * out_len + t] = acc;
	}
}

#pragma egg optimize in(input[batch * in_ch * L], weight[out_ch * in_ch * 3]) \
	out(output[batch * out_ch * (L - 2)]) \
	workload(batch = 16, in_ch = 64, out_ch = 64, L = 16384) \
	workload(batch = 3, in_ch = 5, out_ch = 7, L = 257) \
	tolerance(rtol = 1e-3, atol = 1e-3)
void conv1d(const float *input, const float *weight, float *output, int batch, int in_ch, int out_ch, int L)
{
	int out_len = L - 2;
	dim3 block(256);
	dim3 grid((out_len + 255) / 256, out_ch, batch);
	conv1d_k3<<<grid, block>>>(input, weight, output, in_ch, out_ch, L);
}
