/*
Kernels for the softmax forward pass over the vocabulary: inp and out are
(N, C) with C = V = 50257 columns, the probabilities of the next token at each
of the N positions.

version 1: one block per row of a fixed SOFTMAX_BLOCK threads. The threads
stride over the row; warp shuffles reduce inside a warp and thread 0 of the
block combines the warps' results through shared memory.
*/
// egg-bench: family = softmax
// egg-bench: flops = 4 * N * C
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define SOFTMAX_BLOCK 512

#define cudaCheck(call)                                                          \
    do {                                                                         \
        cudaError_t e = (call);                                                  \
        if (e != cudaSuccess) {                                                  \
            printf("[CUDA ERROR] at file %s:%d:\n%s\n", __FILE__, __LINE__,      \
                   cudaGetErrorString(e));                                       \
            exit(EXIT_FAILURE);                                                  \
        }                                                                        \
    } while (0)

// ----------------------------------------------------------------------------
// GPU kernels

__device__ float warpReduceMax(float val) {
    for (int offset = 16; offset > 0; offset /= 2) {
        val = fmaxf(val, __shfl_xor_sync(0xFFFFFFFF, val, offset));
    }
    return val;
}

__device__ float warpReduceSum(float val) {
    for (int offset = 16; offset > 0; offset /= 2) {
        val += __shfl_xor_sync(0xFFFFFFFF, val, offset);
    }
    return val;
}

__global__ void softmax_forward_kernel(float* out, const float* inp, int N, int C) {
    // out is (N, C) just like inp. Each row of inp will get softmaxed.
    __shared__ float shared[SOFTMAX_BLOCK / 32];
    int idx = blockIdx.x;
    int tid = threadIdx.x;
    int warpId = threadIdx.x / 32;
    int laneId = threadIdx.x % 32;
    int warpsPerBlock = blockDim.x / 32;

    const float* x = inp + (size_t)idx * C;

    // max
    float maxval = -INFINITY;
    for (int i = tid; i < C; i += blockDim.x) {
        maxval = fmaxf(maxval, x[i]);
    }
    maxval = warpReduceMax(maxval);
    if (laneId == 0) shared[warpId] = maxval;
    __syncthreads();
    if (tid == 0) {
        float val = shared[0];
        for (int i = 1; i < warpsPerBlock; i++) {
            val = fmaxf(val, shared[i]);
        }
        shared[0] = val;
    }
    __syncthreads();
    float offset = shared[0];
    __syncthreads();

    // sum of exp(x - max)
    float sumval = 0.0f;
    for (int i = tid; i < C; i += blockDim.x) {
        sumval += expf(x[i] - offset);
    }
    sumval = warpReduceSum(sumval);
    if (laneId == 0) shared[warpId] = sumval;
    __syncthreads();
    if (tid == 0) {
        float val = shared[0];
        for (int i = 1; i < warpsPerBlock; i++) {
            val += shared[i];
        }
        shared[0] = val;
    }
    __syncthreads();
    float sum = shared[0];

    // divide, recomputing the exponentials
    for (int i = tid; i < C; i += blockDim.x) {
        out[(size_t)idx * C + i] = expf(x[i] - offset) / sum;
    }
}

// ----------------------------------------------------------------------------
// kernel launcher

#pragma egg optimize in(inp[N * C]) out(out[N * C]) tolerance(rtol = 1e-4, atol = 1e-9) \
        workload(N = 2048, C = 50257) workload(N = 6, C = 4099)
void softmax_forward(float* out, const float* inp, int N, int C) {
    const int grid_size = N;
    softmax_forward_kernel<<<grid_size, SOFTMAX_BLOCK>>>(out, inp, N, C);
    cudaCheck(cudaGetLastError());
}
