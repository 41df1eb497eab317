/*
Kernels for the combined softmax + crossentropy backward pass:
  dlogits[b,t,v] += (probs[b,t,v] - (v == targets[b,t])) * dlosses[b,t]
for v < V; the padded columns V..Vp of every row are left alone.

version 1 is a straight-forward port from CPU code: one thread per
(b, t, v), recovering the three indices from the flat thread index.
*/
// egg-bench: family = elementwise
// egg-bench: flops = 3 * B * T * V
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

void cuda_check(cudaError_t error, const char *file, int line) {
    if (error != cudaSuccess) {
        printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line,
               cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
};
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

template<class T>
__host__ __device__ T ceil_div(T dividend, T divisor) {
    return (dividend + divisor-1) / divisor;
}

// ----------------------------------------------------------------------------
// GPU kernels

__global__ void crossentropy_softmax_backward_kernel1(float* dlogits,
                           const float* dlosses, const float* probs, const int* targets,
                           int B, int T, int V, int Vp) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < B * T * V) {
        int b = i / (T * V);
        int t = (i / V) % T;
        int v = i % V;
        float* dlogits_bt = dlogits + b * T * Vp + t * Vp;
        const float* probs_bt = probs + b * T * Vp + t * Vp;
        float dloss = dlosses[b * T + t];
        int ix = targets[b * T + t];
        float p = probs_bt[v];
        float indicator = v == ix ? 1.0f : 0.0f;
        dlogits_bt[v] += (p - indicator) * dloss;
    }
}

// ----------------------------------------------------------------------------
// kernel launcher

#pragma egg optimize in(dlosses[B * T], probs[B * T * Vp], targets[B * T]) inout(dlogits[B * T * Vp]) \
        range(probs, 0, 1) range(targets, 0, V) \
        workload(B = 2, T = 512, V = 50257, Vp = 50304, block_size = 256) \
        workload(B = 2, T = 7, V = 500, Vp = 512, block_size = 64)
void crossentropy_softmax_backward(float* dlogits,
                                   const float* dlosses, const float* probs, const int* targets,
                                   int B, int T, int V, int Vp,
                                   const int block_size) {
    const int N = B * T * V;
    const int grid_size = ceil_div(N, block_size);
    crossentropy_softmax_backward_kernel1<<<grid_size, block_size>>>(dlogits, dlosses, probs, targets, B, T, V, Vp);
    cudaCheck(cudaGetLastError());
}
