/*
Kernels for layernorm backward pass.

version 1 is naive port from CPU code to kernel: one thread per (b, t) row.
Two passes over the row: the first computes the two reductions the input
gradient needs, the second accumulates into dinp and, with atomics (every row
touches every channel), into dweight and dbias.
*/
// egg-bench: family = norm
// egg-bench: flops = 14 * B * T * C
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define cudaCheck(err) (cudaCheck_((err), __FILE__, __LINE__))
static inline void cudaCheck_(cudaError_t error, const char *file, int line) {
    if (error != cudaSuccess) {
        printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}

template<class T>
T ceil_div(T dividend, T divisor) {
    return (dividend + divisor - 1) / divisor;
}

// ----------------------------------------------------------------------------
// GPU kernels

__global__ void layernorm_backward_kernel1(float* dinp, float* dweight, float* dbias,
                                           const float* dout, const float* inp, const float* weight,
                                           const float* mean, const float* rstd,
                                           int B, int T, int C) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * T) return;
    int b = idx / T;
    int t = idx % T;

    const float* dout_bt = dout + b * T * C + t * C;
    const float* inp_bt = inp + b * T * C + t * C;
    float* dinp_bt = dinp + b * T * C + t * C;
    const float mean_bt = mean[b * T + t];
    const float rstd_bt = rstd[b * T + t];

    // first: two reduce operations
    float dnorm_mean = 0.0f;
    float dnorm_norm_mean = 0.0f;
    for (int i = 0; i < C; i++) {
        float norm_bti = (inp_bt[i] - mean_bt) * rstd_bt;
        float dnorm_i = weight[i] * dout_bt[i];
        dnorm_mean += dnorm_i;
        dnorm_norm_mean += dnorm_i * norm_bti;
    }
    dnorm_mean = dnorm_mean / C;
    dnorm_norm_mean = dnorm_norm_mean / C;

    // now iterate again and accumulate all the gradients
    for (int i = 0; i < C; i++) {
        float norm_bti = (inp_bt[i] - mean_bt) * rstd_bt;
        float dnorm_i = weight[i] * dout_bt[i];
        // gradient contribution to bias
        atomicAdd(&dbias[i], dout_bt[i]);
        // gradient contribution to weight
        atomicAdd(&dweight[i], norm_bti * dout_bt[i]);
        // gradient contribution to input
        float dval = 0.0f;
        dval += dnorm_i;                    // term 1
        dval -= dnorm_mean;                 // term 2
        dval -= norm_bti * dnorm_norm_mean; // term 3
        dval *= rstd_bt;                    // final scale
        dinp_bt[i] += dval;
    }
}

// ----------------------------------------------------------------------------
// kernel launcher

#pragma egg optimize in(dout[B * T * C], inp[B * T * C], weight[C], mean[B * T], rstd[B * T]) \
        inout(dinp[B * T * C], dweight[C], dbias[C]) range(rstd, 0.5, 2.0) \
        tolerance(rtol = 1e-4, atol = 5e-3) \
        workload(B = 16, T = 1024, C = 768, block_size = 256) \
        workload(B = 3, T = 11, C = 53, block_size = 64)
void layernorm_backward(float* dinp, float* dweight, float* dbias,
                        const float* dout, const float* inp, const float* weight,
                        const float* mean, const float* rstd,
                        int B, int T, int C, const int block_size) {
    const int N = B * T;
    const int grid_size = ceil_div(N, block_size);
    layernorm_backward_kernel1<<<grid_size, block_size>>>(dinp, dweight, dbias, dout, inp, weight, mean, rstd, B, T, C);
    cudaCheck(cudaGetLastError());
}
