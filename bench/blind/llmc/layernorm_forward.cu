/*
Kernels for layernorm forward pass.

version 1 is naive port from CPU code to kernel: parallelizes over B,T, loops over C.
Each thread computes the mean and variance of its row in two passes, then
writes the normalized, scaled and shifted row. mean and rstd are saved for
the backward pass when the caller passes buffers for them (they may be NULL
at inference), and bias is optional too.
*/
// egg-bench: family = norm
// egg-bench: flops = 8 * B * T * C
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>

typedef __nv_bfloat16 floatX;

void cuda_check(cudaError_t error, const char *file, int line) {
    if (error != cudaSuccess) {
        printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line,
               cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
};
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))

// ----------------------------------------------------------------------------
// GPU kernels

__global__ void layernorm_forward_kernel1(floatX* out, float* mean, float* rstd,
                                          const floatX* inp, const floatX* weight, const floatX* bias,
                                          int N, int C) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    float eps = 1e-5f;

    if (idx < N) {
        // seek to the input position inp[idx,:]
        const floatX* x = inp + idx * C;
        // calculate the mean
        float m = 0.0f;
        for (int i = 0; i < C; i++) {
            m += (float)x[i];
        }
        m = m / C;
        // calculate the variance (without any bias correction)
        float v = 0.0f;
        for (int i = 0; i < C; i++) {
            float xshift = (float)x[i] - m;
            v += xshift * xshift;
        }
        v = v / C;
        // calculate the rstd
        float s = 1.0f / sqrtf(v + eps);
        // seek to the output position in out[idx,:]
        floatX* out_idx = out + idx * C;
        for (int i = 0; i < C; i++) {
            float n = (s * ((float)x[i] - m)); // normalized output
            float o = n * (float)weight[i] + (bias != NULL ? (float)bias[i] : 0.0f); // scale and shift it
            out_idx[i] = (floatX)o; // write
        }
        // cache the mean and rstd for the backward pass later
        if (mean != nullptr) {
            mean[idx] = m;
        }
        if (rstd != nullptr) {
            rstd[idx] = s;
        }
    }
}

// ----------------------------------------------------------------------------
// kernel launcher

#pragma egg optimize in(inp[B * T * C], weight[C], bias[C]) \
        out(out[B * T * C], mean[B * T], rstd[B * T]) tolerance(rtol = 1e-2, atol = 1e-2) \
        workload(B = 64, T = 1024, C = 768, block_size = 256) \
        workload(B = 5, T = 13, C = 67, block_size = 32)
void layernorm_forward(floatX* out, float* mean, float* rstd,
                       const floatX* inp, const floatX* weight, const floatX* bias,
                       int B, int T, int C,
                       const int block_size) {
    const int N = B * T;
    const int grid_size = CEIL_DIV(N, block_size);
    layernorm_forward_kernel1<<<grid_size, block_size>>>(out, mean, rstd, inp, weight, bias, N, C);
    cudaCheck(cudaGetLastError());
}
