/*
Kernel for the bias gradient of a fully connected layer: the column sums of
the output gradient,
  dbias[o] += sum over b, t of dout[b, t, o]
dout is (B, T, OC) in floatX; dbias is kept in fp32 and accumulated.

version 1: one block per output channel o; its threads stride down the
column (B*T elements, OC apart) and reduce in shared memory.
*/
// egg-bench: family = row-reduction
// egg-bench: flops = B * T * OC
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>

typedef __nv_bfloat16 floatX;

#define cudaCheck(err) (cudaCheckImpl((err), __FILE__, __LINE__))
static void cudaCheckImpl(cudaError_t error, const char *file, int line) {
    if (error != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}

// ----------------------------------------------------------------------------
// GPU kernels

__global__ void matmul_backward_bias_kernel1(float* dbias, const floatX* dout, int B, int T, int OC) {
    extern __shared__ float shared[];
    int o = blockIdx.x; // range [0, OC)
    int tid = threadIdx.x; // range [0, block_size)
    int block_size = blockDim.x;
    const floatX* x = dout + o;
    // thread coarsening
    float sum = 0.0f;
    for (int i = tid; i < B * T; i += block_size) {
        sum += (float)x[i * OC];
    }
    shared[tid] = sum;
    __syncthreads();
    // reductions: fold the upper half onto the lower one (any block size)
    for (int n = block_size; n > 1; ) {
        int half = (n + 1) / 2;
        if (tid < n - half) {
            shared[tid] += shared[tid + half];
        }
        __syncthreads();
        n = half;
    }
    // write the final result (at thread 0) to global memory
    if (tid == 0) {
        dbias[o] += shared[0];
    }
}

// ----------------------------------------------------------------------------
// kernel launcher

#pragma egg optimize in(dout[B * T * OC]) inout(dbias[OC]) tolerance(rtol = 1e-4, atol = 1e-3) \
        workload(B = 32, T = 1024, OC = 3072, block_size = 512) \
        workload(B = 3, T = 7, OC = 37, block_size = 100)
void matmul_backward_bias(float* dbias, const floatX* dout, int B, int T, int OC, int block_size) {
    // one block per output channel
    matmul_backward_bias_kernel1<<<OC, block_size, block_size * sizeof(float)>>>(dbias, dout, B, T, OC);
    cudaCheck(cudaGetLastError());
}
