/*
Kernels for matmul forward pass (the fully connected layers of the model).
out = inp @ weight^T + bias, with
  inp    (B, T, C)
  weight (OC, C)   OC is the number of output channels, e.g. OC = 4 * C
  bias   (OC), or NULL for a layer without bias
  out    (B, T, OC)

version 1: naive kernel, every thread computes one output element, laid out
on a 2D grid of (B*T) x OC threads.
*/
// egg-bench: family = gemm
// egg-bench: flops = 2 * B * T * C * OC
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

__global__ void matmul_forward_kernel1(float* out,
                                       const float* inp, const float* weight, const float* bias,
                                       int BT, int C, int OC) {
    // one thread for each output element: row bt of the input, column oc of the weight
    int bt = blockIdx.x * blockDim.x + threadIdx.x;
    int oc = blockIdx.y * blockDim.y + threadIdx.y;
    if (bt < BT && oc < OC) {
        float val = (bias != NULL) ? bias[oc] : 0.0f;
        const float* wrow = weight + oc * C;
        const float* inp_bt = inp + bt * C;
        for (int i = 0; i < C; i++) {
            val += inp_bt[i] * wrow[i];
        }
        out[bt * OC + oc] = val;
    }
}

// ----------------------------------------------------------------------------
// kernel launcher

#pragma egg optimize in(inp[B * T * C], weight[OC * C], bias[OC]) out(out[B * T * OC]) \
        tolerance(rtol = 1e-4, atol = 2e-4) \
        workload(B = 8, T = 1024, C = 768, OC = 3072, sqrt_block_size = 16) \
        workload(B = 3, T = 21, C = 53, OC = 75, sqrt_block_size = 8)
void matmul_forward(float* out,
                    const float* inp, const float* weight, const float* bias,
                    int B, int T, int C, int OC,
                    const int sqrt_block_size) {
    // inp is (B,T,C), weight is (OC, C), bias is (OC)
    dim3 gridDim(ceil_div(B * T, sqrt_block_size), ceil_div(OC, sqrt_block_size));
    dim3 blockDim(sqrt_block_size, sqrt_block_size);
    matmul_forward_kernel1<<<gridDim, blockDim>>>(out, inp, weight, bias, B*T, C, OC);
    cudaCheck(cudaGetLastError());
}
