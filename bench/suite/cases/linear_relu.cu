// egg-bench: family = gemm
// egg-bench: flops = 2 * batch * out_features * in_features
// nn.Linear followed by ReLU (KernelBench level 2 "Gemm + bias + ReLU"): weight in
// PyTorch's (out_features, in_features) layout, one thread per output.
#include <cuda_runtime.h>

__global__ void linear_bias_relu_kernel(const float *input, const float *weight, const float *bias,
					float *output, int batch, int in_features, int out_features)
{
	int o = blockIdx.x * blockDim.x + threadIdx.x;
	int b = blockIdx.y;
	if (b < batch && o < out_features) {
		float acc = bias[o];
		for (int i = 0; i < in_features; i++)
			acc += input[b * in_features + i] * weight[o * in_features + i];
		output[b * out_features + o] = acc > 0.0f ? acc : 0.0f;
	}
}

#pragma egg optimize in(input[batch * in_features], weight[out_features * in_features], \
	bias[out_features]) out(output[batch * out_features]) \
	workload(batch = 4096, in_features = 2048, out_features = 4096) \
	workload(batch = 33, in_features = 300, out_features = 129) \
	tolerance(rtol = 1e-3, atol = 2e-3)
void linear_relu(const float *input, const float *weight, const float *bias, float *output,
		 int batch, int in_features, int out_features)
{
	dim3 grid((out_features + 255) / 256, batch);
	linear_bias_relu_kernel<<<grid, 256>>>(input, weight, bias, output, batch, in_features, out_features);
}
