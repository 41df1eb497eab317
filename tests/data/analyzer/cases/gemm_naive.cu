#include <cuda_runtime.h>

__global__ void gemm_k(const float *A, const float *B, float *C, int M, int N, int K)
{
	int r = blockIdx.y * blockDim.y + threadIdx.y;
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= M || c >= N) return;
	float acc = 0.f;
	for (int k = 0; k < K; k++)
		acc += A[r * K + k] * B[k * N + c];
	C[r * N + c] = acc;
}

#pragma egg optimize in(A[M * K], B[K * N]) out(C[M * N]) workload(M = 512, N = 512, K = 512) \
	workload(M = 1000, N = 300, K = 70) tolerance(rtol = 1e-4, atol = 1e-4) precision(tf32)
void gemm(const float *A, const float *B, float *C, int M, int N, int K)
{
	dim3 block(16, 16), grid((N + 15) / 16, (M + 15) / 16);
	gemm_k<<<grid, block>>>(A, B, C, M, N, K);
}
