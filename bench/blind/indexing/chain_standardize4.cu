// Standardize every row (zero mean, unit variance) in four launches through
// temps: row means, centred values, row inverse standard deviations, the
// scaled result. Each launch in a different indexing: one thread per row, a
// flat index with / to find the row, a block per row, and a 2-D grid.
// egg-bench: family = chain
// egg-bench: flops = 5 * rows * cols
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define cudaCheck(err) (cudaCheck_((err), __FILE__, __LINE__))
static inline void cudaCheck_(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}

static inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

__global__ void row_mean(float *mean, const float *x, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float s = 0.0f;
        for (int c = 0; c < cols; ++c)
            s += x[(size_t)r * cols + c];
        mean[r] = s / cols;
    }
}

__global__ void center(float *xc, const float *x, const float *mean, int rows, int cols)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (size_t)rows * cols)
        xc[i] = x[i] - mean[i / cols];
}

__global__ void row_rstd(float *rstd, const float *xc, int cols, float eps)
{
    __shared__ float acc[128];
    const float *row = xc + (size_t)blockIdx.x * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        s += row[c] * row[c];
    acc[threadIdx.x] = s;
    __syncthreads();
    for (int n = blockDim.x; n > 1;) {
        int half = (n + 1) / 2;
        if (threadIdx.x < n - half)
            acc[threadIdx.x] += acc[threadIdx.x + half];
        __syncthreads();
        n = half;
    }
    if (threadIdx.x == 0)
        rstd[blockIdx.x] = 1.0f / sqrtf(acc[0] / cols + eps);
}

__global__ void scale_rows(float *y, const float *xc, const float *rstd, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols)
        y[(size_t)r * cols + c] = xc[(size_t)r * cols + c] * rstd[r];
}

#pragma egg optimize in(x[rows * cols]) out(y[rows * cols]) \
        temp(mean[rows], xc[rows * cols], rstd[rows]) tolerance(rtol = 1e-4, atol = 1e-5) \
        workload(rows = 16384, cols = 4096, eps = 1e-5) workload(rows = 9, cols = 1000, eps = 1e-5)
void standardize_rows(const float *x, float *y, float *mean, float *xc, float *rstd, int rows, int cols, float eps)
{
    row_mean<<<ceil_div(rows, 128), 128>>>(mean, x, rows, cols);
    cudaCheck(cudaGetLastError());
    size_t n = (size_t)rows * cols;
    center<<<(unsigned)((n + 255) / 256), 256>>>(xc, x, mean, rows, cols);
    cudaCheck(cudaGetLastError());
    row_rstd<<<rows, 128>>>(rstd, xc, cols, eps);
    cudaCheck(cudaGetLastError());
    dim3 block(64, 4);
    dim3 grid(ceil_div(cols, 64), ceil_div(rows, 4));
    scale_rows<<<grid, block>>>(y, xc, rstd, rows, cols);
    cudaCheck(cudaGetLastError());
}
