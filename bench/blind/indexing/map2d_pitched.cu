// out = alpha * A + r * c^T over a rows x cols matrix, A read through a
// leading dimension lda >= cols (a padded, pitched allocation; the padding is
// never read), out dense. 2-D thread index with a bounds guard.
// egg-bench: family = elementwise
// egg-bench: flops = 3 * rows * cols
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                       \
    do {                                                                       \
        cudaError_t err__ = (call);                                            \
        if (err__ != cudaSuccess) {                                            \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                  \
                    cudaGetErrorString(err__));                                \
            exit(EXIT_FAILURE);                                                \
        }                                                                      \
    } while (0)

__global__ void scale_add_outer(float *out, const float *A, int lda, const float *r, const float *c,
                                float alpha, int rows, int cols)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= rows || col >= cols)
        return;
    out[(size_t)row * cols + col] = alpha * A[(size_t)row * lda + col] + r[row] * c[col];
}

#pragma egg optimize in(A[rows * lda], r[rows], c[cols]) out(out[rows * cols]) \
        tolerance(rtol = 1e-5, atol = 1e-6) \
        workload(rows = 8192, cols = 8000, lda = 8192, alpha = 0.75) \
        workload(rows = 21, cols = 30, lda = 33, alpha = -1.5)
void map2d_pitched(float *out, const float *A, const float *r, const float *c, int rows, int cols, int lda, float alpha)
{
    dim3 threads(16, 16);
    dim3 blocks((cols + 15) / 16, (rows + 15) / 16);
    scale_add_outer<<<blocks, threads>>>(out, A, lda, r, c, alpha, rows, cols);
    CUDA_CHECK(cudaGetLastError());
}
