// egg-bench: family = row-reduction
// egg-bench: flops = 2 * M * K
// y = A @ x, A is M x K row-major, one thread per row.
#include <cuda_runtime.h>

__global__ void matvec_kernel(const float *A, const float *x, float *y, int M, int K)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row < M) {
		float acc = 0.0f;
		for (int k = 0; k < K; k++)
			acc += A[row * K + k] * x[k];
		y[row] = acc;
	}
}

#pragma egg optimize in(A[M * K], x[K]) out(y[M]) \
	workload(M = 16384, K = 4096) workload(M = 999, K = 257) \
	tolerance(rtol = 1e-3, atol = 1e-3)
void matvec(const float *A, const float *x, float *y, int M, int K)
{
	int threads = 256;
	int blocks = (M + threads - 1) / threads;
	matvec_kernel<<<blocks, threads>>>(A, x, y, M, K);
}
