// Pre-norm residual block entry in two launches: h = x + res (the new residual
// stream, kept), then y = h / sqrt(mean(h^2) + eps) * weight over each row of
// `hidden` channels.
// egg-bench: family = chain
// egg-bench: flops = 5 * rows * hidden
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t e = (x);                                                   \
        if (e != cudaSuccess) {                                                \
            fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(e));     \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

__global__ void residual_add(float *h, const float *x, const float *res, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x)
        h[i] = x[i] + res[i];
}

__global__ void rmsnorm_rows(float *y, const float *h, const float *weight, int hidden, float eps)
{
    __shared__ float partial[256];
    const float *row = h + (size_t)blockIdx.x * hidden;
    float *out = y + (size_t)blockIdx.x * hidden;

    float ss = 0.0f;
    for (int j = threadIdx.x; j < hidden; j += blockDim.x)
        ss += row[j] * row[j];
    partial[threadIdx.x] = ss;
    __syncthreads();
    for (int n = blockDim.x; n > 1;) {
        int half = (n + 1) / 2;
        if (threadIdx.x < n - half)
            partial[threadIdx.x] += partial[threadIdx.x + half];
        __syncthreads();
        n = half;
    }
    float inv = rsqrtf(partial[0] / hidden + eps);
    for (int j = threadIdx.x; j < hidden; j += blockDim.x)
        out[j] = row[j] * inv * weight[j];
}

#pragma egg optimize in(x[rows * hidden], res[rows * hidden], weight[hidden]) \
        out(h[rows * hidden], y[rows * hidden]) tolerance(rtol = 1e-5, atol = 1e-5) \
        workload(rows = 8192, hidden = 4096, eps = 1e-6) workload(rows = 7, hidden = 333, eps = 1e-5)
void rmsnorm_residual(const float *x, const float *res, const float *weight, float *h, float *y,
                      int rows, int hidden, float eps)
{
    size_t n = (size_t)rows * hidden;
    residual_add<<<1024, 256>>>(h, x, res, n);
    CUDA_CHECK(cudaGetLastError());
    rmsnorm_rows<<<rows, 256>>>(y, h, weight, hidden, eps);
    CUDA_CHECK(cudaGetLastError());
}
