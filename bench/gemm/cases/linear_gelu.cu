// A GPT-2 MLP's first layer: out = gelu(inp * weight^T + bias), inp (BT, C),
// weight (OC, C) as PyTorch stores it, GELU in its tanh form; one thread per
// output.
#include <cuda_runtime.h>

#define GELU_SCALE 0.7978845608f /* sqrt(2 / pi) */

__global__ void linear_gelu_kernel(float *out, const float *inp, const float *weight,
				   const float *bias, int BT, int C, int OC)
{
	const int oc = blockIdx.x * blockDim.x + threadIdx.x;
	const int bt = blockIdx.y;
	if (oc >= OC)
		return;
	const float *x = inp + bt * C, *w = weight + oc * C;
	float h = bias[oc];
	for (int c = 0; c < C; c++)
		h += x[c] * w[c];
	const float inner = GELU_SCALE * (h + 0.044715f * h * h * h);
	out[bt * OC + oc] = 0.5f * h * (1.0f + tanhf(inner));
}

#pragma egg optimize in(inp[BT * C], weight[OC * C], bias[OC]) out(out[BT * OC]) \
	workload(BT = 32768, C = 768, OC = 3072) workload(BT = 77, C = 100, OC = 65) \
	tolerance(rtol = 1e-3, atol = 2e-3)
void linear_gelu(float *out, const float *inp, const float *weight, const float *bias,
		 int BT, int C, int OC)
{
	dim3 grid((OC + 255) / 256, BT);
	linear_gelu_kernel<<<grid, 256>>>(out, inp, weight, bias, BT, C, OC);
}
