// Inference batch norm followed by ReLU on an NCHW tensor, one thread per
// element; the channel of a flat index is (i / HW) % C.
// egg-bench: family = elementwise
// egg-bench: flops = 5 * N * C * HW
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

static void cuda_check(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

__global__ void bn_relu(float *y, const float *x, const float *mean, const float *var,
                        const float *gamma, const float *beta, unsigned C, unsigned HW, unsigned total, float eps)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < total) {
        unsigned c = (i / HW) % C;
        float v = (x[i] - mean[c]) * rsqrtf(var[c] + eps) * gamma[c] + beta[c];
        y[i] = v > 0.0f ? v : 0.0f;
    }
}

#pragma egg optimize in(x[N * C * HW], mean[C], var[C], gamma[C], beta[C]) out(y[N * C * HW]) \
        range(var, 0.1, 2.0) tolerance(rtol = 1e-5, atol = 1e-5) \
        workload(N = 64, C = 64, HW = 128 * 128, eps = 1e-5) workload(N = 2, C = 3, HW = 35, eps = 1e-3)
void batchnorm_relu(float *y, const float *x, const float *mean, const float *var, const float *gamma,
                    const float *beta, int N, int C, int HW, float eps)
{
    unsigned total = (unsigned)N * C * HW;
    int block_size = 256;
    bn_relu<<<(total + block_size - 1) / block_size, block_size>>>(y, x, mean, var, gamma, beta, C, HW, total, eps);
    cudaCheck(cudaGetLastError());
}
