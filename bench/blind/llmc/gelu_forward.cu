/*
Kernels for the GeLU nonlinearity (tanh approximation), forward pass.
y = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))

version 1: one thread per element, computed in fp32, stored as floatX.
*/
// egg-bench: family = elementwise
// egg-bench: flops = 10 * N
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>

typedef __nv_bfloat16 floatX;

#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))
void cuda_check(cudaError_t error, const char *file, int line) {
    if (error != cudaSuccess) {
        printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}

#define GELU_SCALING_FACTOR sqrtf(2.0f / M_PI)

// ----------------------------------------------------------------------------
// GPU kernels

__global__ void gelu_forward_kernel1(floatX* out, const floatX* inp, int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        float xi = (float)inp[i];
        float cube = 0.044715f * xi * xi * xi;
        out[i] = (floatX)(0.5f * xi * (1.0f + tanhf(GELU_SCALING_FACTOR * (xi + cube))));
    }
}

// ----------------------------------------------------------------------------
// kernel launcher

#pragma egg optimize in(inp[N]) out(out[N]) tolerance(rtol = 1e-2, atol = 1e-2) \
        workload(N = 16 * 1024 * 4 * 768, block_size = 128) \
        workload(N = 1001, block_size = 96)
void gelu_forward(floatX* out, const floatX* inp, int N, const int block_size) {
    const int grid_size = (N + block_size - 1) / block_size;
    gelu_forward_kernel1<<<grid_size, block_size>>>(out, inp, N);
    cudaCheck(cudaGetLastError());
}
