// egg-bench: family = elementwise
// egg-bench: flops = N * M
// C = diag(a) @ B : scales row i of B (N x M) by a[i].
#include <cuda_runtime.h>

__global__ void diag_matmul_kernel(const float *a, const float *B, float *C, int N, int M)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	if (row < N && col < M) {
		C[row * M + col] = a[row] * B[row * M + col];
	}
}

#pragma egg optimize in(a[N], B[N * M]) out(C[N * M]) \
	workload(N = 8192, M = 4096) workload(N = 999, M = 257)
void diag_matmul(const float *a, const float *B, float *C, int N, int M)
{
	dim3 block(32, 8);
	dim3 grid((M + block.x - 1) / block.x, (N + block.y - 1) / block.y);
	diag_matmul_kernel<<<grid, block>>>(a, B, C, N, M);
}
