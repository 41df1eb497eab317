/*
Kernels for crossentropy forward pass, from the logits: for every (b, t)
  losses[b,t] = -log(softmax(logits[b,t,:V])[targets[b,t]])
              = log(sum_v exp(logits[b,t,v] - max)) + max - logits[b,t,targets[b,t]]
The logits rows are padded to Vp columns (a multiple of 64 past the vocab
size V); the padding is ignored.

version 1: one thread per (b, t) row, a pass for the max and one for the sum.
*/
// egg-bench: family = softmax
// egg-bench: flops = 3 * B * T * V
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define cudaCheck(err) (cudaCheckImpl((err), __FILE__, __LINE__))
static void cudaCheckImpl(cudaError_t error, const char *file, int line) {
    if (error != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}

static int ceil_div(int a, int b) { return (a + b - 1) / b; }

// ----------------------------------------------------------------------------
// GPU kernels

__global__ void crossentropy_forward_kernel1(float* losses,
                                             const float* logits, const int* targets,
                                             int B, int T, int V, int Vp) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < B * T) {
        const float* logits_bt = logits + (size_t)i * Vp;
        float maxval = -INFINITY;
        for (int v = 0; v < V; v++) {
            maxval = fmaxf(maxval, logits_bt[v]);
        }
        float sum = 0.0f;
        for (int v = 0; v < V; v++) {
            sum += expf(logits_bt[v] - maxval);
        }
        int ix = targets[i];
        losses[i] = logf(sum) + maxval - logits_bt[ix];
    }
}

// ----------------------------------------------------------------------------
// kernel launcher

#pragma egg optimize in(logits[B * T * Vp], targets[B * T]) out(losses[B * T]) \
        range(targets, 0, V) tolerance(rtol = 1e-4, atol = 1e-4) \
        workload(B = 4, T = 512, V = 50257, Vp = 50304, block_size = 128) \
        workload(B = 3, T = 5, V = 1000, Vp = 1024, block_size = 32)
void crossentropy_forward(float* losses,
                          const float* logits, const int* targets,
                          int B, int T, int V, int Vp,
                          const int block_size) {
    const int N = B * T;
    const int grid_size = ceil_div(N, block_size);
    crossentropy_forward_kernel1<<<grid_size, block_size>>>(losses, logits, targets, B, T, V, Vp);
    cudaCheck(cudaGetLastError());
}
