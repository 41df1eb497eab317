// egg-bench: family = gemm
// egg-bench: flops = 2 * M * N * K
// C = A * B in fp32, row-major, one thread per output element (the textbook kernel).
#include <cuda_runtime.h>

__global__ void matmul_naive(const float *A, const float *B, float *C, int M, int N, int K)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	if (row < M && col < N) {
		float sum = 0.0f;
		for (int k = 0; k < K; k++)
			sum += A[row * K + k] * B[k * N + col];
		C[row * N + col] = sum;
	}
}

#pragma egg optimize in(A[M * K], B[K * N]) out(C[M * N]) \
	workload(M = 4096, N = 4096, K = 4096) workload(M = 257, N = 130, K = 1000) \
	tolerance(rtol = 1e-3, atol = 2e-3)
void matmul(const float *A, const float *B, float *C, int M, int N, int K)
{
	dim3 block(16, 16);
	dim3 grid((N + 15) / 16, (M + 15) / 16);
	matmul_naive<<<grid, block>>>(A, B, C, M, N, K);
}
