/*
Kernels for the positional encoder forward pass of a GPT-2 training loop:
out[b,t,:] = wte[inp[b,t],:] + wpe[t,:]

version 1 is a naive port from the CPU code: one thread per (b, t) position,
looping over all C channels.
*/
// egg-bench: family = gather
// egg-bench: flops = B * T * C
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>

typedef __nv_bfloat16 floatX;

// ----------------------------------------------------------------------------
// CUDA utils

void cuda_check(cudaError_t error, const char *file, int line) {
    if (error != cudaSuccess) {
        printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line,
               cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

template<class T>
__host__ __device__ T ceil_div(T dividend, T divisor) {
    return (dividend + divisor - 1) / divisor;
}

// ----------------------------------------------------------------------------
// GPU kernels

// naive implementation into kernel, parallelize over B,T, loop over C
__global__ void encoder_forward_kernel1(floatX* out,
                                        const int* inp, const floatX* wte, const floatX* wpe,
                                        int B, int T, int C) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int N = B * T;

    if (idx < N) {
        int b = idx / T;
        int t = idx % T;
        floatX* out_bt = out + b * T * C + t * C;
        int ix = inp[b * T + t];
        const floatX* wte_ix = wte + ix * C;
        const floatX* wpe_t = wpe + t * C;
        for (int i = 0; i < C; i++) {
            out_bt[i] = (floatX)((float)wte_ix[i] + (float)wpe_t[i]);
        }
    }
}

// ----------------------------------------------------------------------------
// kernel launcher

#pragma egg optimize in(inp[B * T], wte[V * C], wpe[T * C]) out(out[B * T * C]) \
        range(inp, 0, V) tolerance(rtol = 1e-2, atol = 1e-2) \
        workload(B = 64, T = 1024, C = 768, V = 50257, block_size = 256) \
        workload(B = 3, T = 37, C = 100, V = 1001, block_size = 64)
void encoder_forward(floatX* out,
                     const int* inp, const floatX* wte, const floatX* wpe,
                     int B, int T, int C, int V, int block_size) {
    const int N = B * T;
    const int grid_size = ceil_div(N, block_size);
    encoder_forward_kernel1<<<grid_size, block_size>>>(out, inp, wte, wpe, B, T, C);
    cudaCheck(cudaGetLastError());
}
