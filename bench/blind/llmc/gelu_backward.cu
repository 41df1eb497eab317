/*
Kernels for the GeLU nonlinearity (tanh approximation), backward pass.
dinp = dgelu/dx(inp) * dout, where with u = sqrt(2/pi) * (x + 0.044715 x^3):
dgelu/dx = 0.5 * (1 + tanh(u)) + 0.5 * x * sech^2(u) * sqrt(2/pi) * (1 + 3 * 0.044715 x^2)

version 1: one thread per element. The input gradient is written (not
accumulated): the activation's output gradient is consumed here only.
*/
// egg-bench: family = elementwise
// egg-bench: flops = 22 * N
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>

typedef __nv_bfloat16 floatX;

void cudaCheck(cudaError_t error, const char *file, int line) {
  if (error != cudaSuccess) {
    printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line,
           cudaGetErrorString(error));
    exit(EXIT_FAILURE);
  }
};
#define cudaCheck(err) (cudaCheck(err, __FILE__, __LINE__))

#define GELU_SCALING_FACTOR sqrtf(2.0f / M_PI)

// ----------------------------------------------------------------------------
// GPU kernels

__global__ void gelu_backward_kernel1(floatX* dinp, const floatX* inp, const floatX* dout, const int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        float x = (float)inp[i];
        float cube = 0.044715f * x * x * x;
        float tanh_arg = GELU_SCALING_FACTOR * (x + cube);
        float tanh_out = tanhf(tanh_arg);
        float coshf_out = coshf(tanh_arg);
        float sech_out = 1.0f / (coshf_out * coshf_out);
        float local_grad = 0.5f * (1.0f + tanh_out) + x * 0.5f * sech_out * GELU_SCALING_FACTOR * (1.0f + 3.0f * 0.044715f * x * x);
        dinp[i] = (floatX)(local_grad * (float)dout[i]);
    }
}

// ----------------------------------------------------------------------------
// kernel launcher

#pragma egg optimize in(inp[N], dout[N]) out(dinp[N]) tolerance(rtol = 1e-2, atol = 1e-2) \
        workload(N = 16 * 1024 * 4 * 768, block_size = 256) \
        workload(N = 4099, block_size = 160)
void gelu_backward(floatX* dinp, const floatX* inp, const floatX* dout, const int N, const int block_size) {
    const int grid_size = (N + block_size - 1) / block_size;
    gelu_backward_kernel1<<<grid_size, block_size>>>(dinp, inp, dout, N);
    cudaCheck(cudaGetLastError());
}
