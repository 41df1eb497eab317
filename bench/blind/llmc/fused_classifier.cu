/*
Kernels for the fused classifier: the forward softmax + crossentropy loss and
the backward into the logits in one kernel. For every (b, t) row:
  losses[b,t] = log(sum_v exp(logits[v] - max)) + max - logits[target]
  logits[v]   = (softmax(logits)[v] - (v == target)) * dloss      for v < V
The logits are overwritten in place by their gradient; dloss = 1 / (B*T)
makes the loss the mean over all positions. Columns V..P of the padded rows
are left alone.

version 1: one block per row; the threads stride over the row and meet in
shared memory for the max and the sum.
*/
// egg-bench: family = softmax
// egg-bench: flops = 6 * B * T * V
#include <stdio.h>
#include <stdlib.h>
#include <float.h>
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

// ----------------------------------------------------------------------------
// GPU kernels

__global__ void fused_classifier_kernel1(floatX* logits, float* losses,
                                         const int* targets, float dloss, int V, int P) {
    extern __shared__ float smem[];
    int row = blockIdx.x;
    int tid = threadIdx.x;
    floatX* x = logits + (size_t)row * P;

    // max over the row
    float m = -FLT_MAX;
    for (int i = tid; i < V; i += blockDim.x) {
        m = fmaxf(m, (float)x[i]);
    }
    smem[tid] = m;
    __syncthreads();
    for (int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0 && tid + s < blockDim.x) {
            smem[tid] = fmaxf(smem[tid], smem[tid + s]);
        }
        __syncthreads();
    }
    float maxval = smem[0];
    __syncthreads();

    // sum of the exponentials
    float sum = 0.0f;
    for (int i = tid; i < V; i += blockDim.x) {
        sum += expf((float)x[i] - maxval);
    }
    smem[tid] = sum;
    __syncthreads();
    for (int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0 && tid + s < blockDim.x) {
            smem[tid] += smem[tid + s];
        }
        __syncthreads();
    }
    float sumval = smem[0];

    // the loss, read before anyone overwrites the target's logit
    int ix = targets[row];
    float logit_ix = (float)x[ix];
    if (tid == 0) {
        losses[row] = logf(sumval) + maxval - logit_ix;
    }
    __syncthreads();

    // and the gradient, in place
    for (int i = tid; i < V; i += blockDim.x) {
        float prob = expf((float)x[i] - maxval) / sumval;
        float indicator = (i == ix) ? 1.0f : 0.0f;
        x[i] = (floatX)((prob - indicator) * dloss);
    }
}

// ----------------------------------------------------------------------------
// kernel launcher

#pragma egg optimize in(targets[B * T]) inout(logits[B * T * P]) out(losses[B * T]) \
        range(targets, 0, V) tolerance(rtol = 1e-2, atol = 1e-10) \
        workload(B = 4, T = 512, V = 50257, P = 50304, block_size = 512) \
        workload(B = 2, T = 3, V = 997, P = 1024, block_size = 96)
void fused_classifier(floatX* logits, float* losses, const int* targets,
                      int B, int T, int V, int P, int block_size) {
    const float dloss = 1.0f / (B * T);
    const int grid_size = B * T;
    fused_classifier_kernel1<<<grid_size, block_size, block_size * sizeof(float)>>>(logits, losses, targets, dloss, V, P);
    cudaCheck(cudaGetLastError());
}
