/*
Kernels for the residual forward pass: out = inp1 + inp2, where inp1 is the
residual stream and inp2 the output of an attention or MLP block.

version 1 is naive port from CPU code to kernel: one thread per element.
*/
// egg-bench: family = elementwise
// egg-bench: flops = N
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>

typedef __nv_bfloat16 floatX;

#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))

#define cudaCheck(call)                                                          \
    do {                                                                         \
        cudaError_t err_ = (call);                                               \
        if (err_ != cudaSuccess) {                                               \
            fprintf(stderr, "[CUDA ERROR] at file %s:%d:\n%s\n", __FILE__,       \
                    __LINE__, cudaGetErrorString(err_));                         \
            exit(EXIT_FAILURE);                                                  \
        }                                                                        \
    } while (0)

// ----------------------------------------------------------------------------
// GPU kernels

__global__ void residual_forward_kernel1(floatX* out, const floatX* inp1, const floatX* inp2, int N) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < N) {
        out[idx] = __float2bfloat16(__bfloat162float(inp1[idx]) + __bfloat162float(inp2[idx]));
    }
}

// ----------------------------------------------------------------------------
// kernel launcher

#pragma egg optimize in(inp1[N], inp2[N]) out(out[N]) tolerance(rtol = 1e-2, atol = 1e-2) \
        workload(N = 64 * 1024 * 768, block_size = 512) \
        workload(N = 12345, block_size = 128)
void residual_forward(floatX* out, const floatX* inp1, const floatX* inp2, int N, int block_size) {
    const int grid_size = CEIL_DIV(N, block_size);
    residual_forward_kernel1<<<grid_size, block_size>>>(out, inp1, inp2, N);
    cudaCheck(cudaGetLastError());
}
