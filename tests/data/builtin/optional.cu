#include <cuda_runtime.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

// a training codebase's development kernels: an optional bias, read only when it is not NULL
#define cudaCheck(err) (cuda_check((err), __FILE__, __LINE__))
static void cuda_check(cudaError_t e, const char *file, int line)
{
	if (e != cudaSuccess) {
		fprintf(stderr, "CUDA error at %s:%d: %s\n", file, line, cudaGetErrorString(e));
		exit(1);
	}
}

static int ceil_div(int a, int b) { return (a + b - 1) / b; }

// out (BT, OC) = inp (BT, C) times weight (OC, C) transposed, plus bias (OC) when there is one
__global__ void matmul_forward_kernel1(float *out, const float *inp, const float *weight,
                                       const float *bias, int BT, int C, int OC)
{
	int bt = blockIdx.x * blockDim.x + threadIdx.x;
	int oc = blockIdx.y * blockDim.y + threadIdx.y;
	if (bt < BT && oc < OC) {
		float val = (bias != NULL) ? bias[oc] : 0.0f;
		const float *wrow = weight + oc * C;
		const float *inp_bt = inp + bt * C;
		for (int i = 0; i < C; i++)
			val += inp_bt[i] * wrow[i];
		out[bt * OC + oc] = val;
	}
}

#pragma egg optimize in(inp[B * T * C], weight[OC * C], bias[OC]) out(out[B * T * OC]) \
	workload(B = 2, T = 37, C = 72, OC = 101, sqrt_block_size = 16) \
	workload(B = 2, T = 37, C = 72, OC = 101, sqrt_block_size = 16, bias = NULL)
void matmul_forward1(float *out, const float *inp, const float *weight, const float *bias,
                     int B, int T, int C, int OC, const int sqrt_block_size)
{
	dim3 gridDim(ceil_div(B * T, sqrt_block_size), ceil_div(OC, sqrt_block_size));
	dim3 blockDim(sqrt_block_size, sqrt_block_size);
	matmul_forward_kernel1<<<gridDim, blockDim>>>(out, inp, weight, bias, B * T, C, OC);
	cudaCheck(cudaGetLastError());
}

// the bias (C) of a matmul's output added before its GELU, when there is one
__global__ void bias_gelu_kernel(float *out, const float *inp, const float *bias, int N, int C)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N) {
		float x = inp[i];
		if (bias)
			x += bias[i % C];
		out[i] = 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
	}
}

#pragma egg optimize in(inp[N], bias[C]) out(out[N]) workload(N = 100003, C = 97, block_size = 128) \
	workload(N = 100003, C = 97, block_size = 128, bias = nullptr)
void bias_gelu_forward(float *out, const float *inp, const float *bias, int N, int C, int block_size)
{
	bias_gelu_kernel<<<ceil_div(N, block_size), block_size>>>(out, inp, bias, N, C);
	cudaCheck(cudaGetLastError());
}

// a residual added when the caller passes one
__global__ void residual_kernel(float *out, const float *inp1, const float *inp2, int N)
{
	int idx = blockIdx.x * blockDim.x + threadIdx.x;
	if (idx < N)
		out[idx] = inp1[idx] + (inp2 != nullptr ? inp2[idx] : 0.0f);
}

#pragma egg optimize in(inp1[N], inp2[N]) out(out[N]) workload(N = 100003, block_size = 256) \
	workload(N = 100003, block_size = 256, inp2 = NULL)
void residual_forward(float *out, const float *inp1, const float *inp2, int N, int block_size)
{
	residual_kernel<<<ceil_div(N, block_size), block_size>>>(out, inp1, inp2, N);
	cudaCheck(cudaGetLastError());
}

// a norm that saves its statistics for the backward pass only when given where
// to: optional outputs, stored under "if (mean != NULL)"
__global__ void norm_stats_kernel(float *y, float *mean, float *rstd, const float *x, const float *g,
                                  int rows, int C)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	const float *xr = x + (size_t)r * C;
	float sum = 0.0f, sq = 0.0f;
	for (int c = 0; c < C; c++)
		sum += xr[c];
	const float mu = sum / C;
	for (int c = 0; c < C; c++)
		sq += (xr[c] - mu) * (xr[c] - mu);
	const float inv = rsqrtf(sq / C + 1e-5f);
	for (int c = 0; c < C; c++)
		y[(size_t)r * C + c] = (xr[c] - mu) * inv * g[c];
	if (mean != NULL)
		mean[r] = mu;
	if (rstd)
		rstd[r] = inv;
}

#pragma egg optimize in(x[rows * C], g[C]) out(y[rows * C], mean[rows], rstd[rows]) \
	workload(rows = 37, C = 67) workload(rows = 37, C = 67, mean = NULL, rstd = NULL) \
	workload(rows = 5, C = 3, rstd = NULL)
void norm_stats(float *y, float *mean, float *rstd, const float *x, const float *g, int rows, int C)
{
	norm_stats_kernel<<<ceil_div(rows, 64), 64>>>(y, mean, rstd, x, g, rows, C);
	cudaCheck(cudaGetLastError());
}
