// First versions that call __device__ helpers taking pointers: the helper's loop
// is the kernel's column loop once it is written out (lift_inline.c).
//   batched matvec: written by a helper that had seen neither the recipes nor the
//   suite (the third blind batch, 2026-12-02), with blockIdx.y as the batch;
//   row_l2norm: the helper's value inside an expression, its length a scalar.
#include <cuda_runtime.h>
#include <math.h>

// y[b] = A[b] @ x[b]
// A: [B, M, K], x: [B, K], y: [B, M]. One thread per (b, m).
__device__ float dot_row(const float* a, const float* v, int K)
{
    float s = 0.0f;
    for (int k = 0; k < K; ++k)
        s += a[k] * v[k];
    return s;
}

__global__ void batched_matvec_kernel(const float* A, const float* x, float* y,
                                      int B, int M, int K)
{
    int m = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (m < M && b < B) {
        const float* arow = A + ((size_t)b * M + m) * K;
        const float* xv = x + (size_t)b * K;
        y[(size_t)b * M + m] = dot_row(arow, xv, K);
    }
}

#pragma egg optimize in(A[B*M*K], x[B*K]) out(y[B*M]) workload(B = 3, M = 7, K = 129) workload(B = 16, M = 1024, K = 2048) tolerance(rtol = 1e-3, atol = 1e-3)
void batched_matvec(const float* A, const float* x, float* y, int B, int M, int K)
{
    dim3 block(128);
    dim3 grid((M + block.x - 1) / block.x, B);
    batched_matvec_kernel<<<grid, block>>>(A, x, y, B, M, K);
}

__device__ float row_sumsq(const float *p, int n)
{
	float s = 0.0f;
	for (int j = 0; j < n; j++)
		s += p[j] * p[j];
	return s;
}

__global__ void l2_rows(const float *x, float *y, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	float inv = rsqrtf(row_sumsq(x + (size_t)r * cols, cols) + 1e-6f);
	for (int j = 0; j < cols; j++)
		y[(size_t)r * cols + j] = x[(size_t)r * cols + j] * inv;
}

#pragma egg optimize in(x[rows * cols]) out(y[rows * cols]) workload(rows = 37, cols = 517) \
	workload(rows = 8192, cols = 4096) tolerance(rtol = 1e-4, atol = 1e-6)
void row_l2norm(const float *x, float *y, int rows, int cols)
{
	l2_rows<<<(rows + 127) / 128, 128>>>(x, y, rows, cols);
}
