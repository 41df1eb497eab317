// MLP activation in three launches through one temp: add the bias of each
// column (2-D launch), apply the exact (erf) GELU in place, then multiply by
// the constant that an inference-time dropout leaves (no mask, scale only).
// egg-bench: family = chain
// egg-bench: flops = 10 * rows * cols
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

void cuda_check(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

__global__ void add_bias_2d(float *out, const float *in, const float *bias, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < rows && col < cols)
        out[(size_t)row * cols + col] = in[(size_t)row * cols + col] + bias[col];
}

__global__ void gelu_erf_inplace(float *x, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        x[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    }
}

__global__ void scale_copy(float *out, const float *in, float s, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i] * s;
}

#pragma egg optimize in(x[rows * cols], bias[cols]) out(y[rows * cols]) temp(tmp[rows * cols]) \
        tolerance(rtol = 1e-5, atol = 1e-5) \
        workload(rows = 16384, cols = 4096, keep_scale = 1.1111111) \
        workload(rows = 5, cols = 77, keep_scale = 1.25)
void bias_gelu_scale(const float *x, const float *bias, float *y, float *tmp, int rows, int cols, float keep_scale)
{
    size_t n = (size_t)rows * cols;
    dim3 block(32, 8);
    dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    add_bias_2d<<<grid, block>>>(tmp, x, bias, rows, cols);
    cudaCheck(cudaGetLastError());
    gelu_erf_inplace<<<(unsigned)((n + 255) / 256), 256>>>(tmp, n);
    cudaCheck(cudaGetLastError());
    scale_copy<<<132 * 4, 256>>>(y, tmp, keep_scale, n);
    cudaCheck(cudaGetLastError());
}
