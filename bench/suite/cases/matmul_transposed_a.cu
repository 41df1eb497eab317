// egg-bench: family = gemm
// egg-bench: flops = 2 * M * N * K
// C = A^T @ B where A is stored K x M and B is K x N (both row-major); C is M x N.
#include <cuda_runtime.h>

__global__ void matmul_at_b(const float *A, const float *B, float *C, int M, int N, int K)
{
	int n = threadIdx.x + blockDim.x * blockIdx.x;
	int m = threadIdx.y + blockDim.y * blockIdx.y;
	if (m >= M || n >= N)
		return;
	float sum = 0.0f;
	for (int k = 0; k < K; ++k)
		sum += A[k * M + m] * B[k * N + n];
	C[m * N + n] = sum;
}

#pragma egg optimize in(A[K * M], B[K * N]) out(C[M * N]) \
	workload(M = 4096, N = 4096, K = 4096) workload(M = 123, N = 257, K = 77) \
	tolerance(rtol = 1e-3, atol = 1e-3)
void matmul_transposed_a(const float *A, const float *B, float *C, int M, int N, int K)
{
	dim3 threads(16, 16);
	dim3 blocks((N + 15) / 16, (M + 15) / 16);
	matmul_at_b<<<blocks, threads>>>(A, B, C, M, N, K);
}
