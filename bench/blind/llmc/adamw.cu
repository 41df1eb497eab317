/*
Kernels for the AdamW optimizer, one update step over all parameters:
  m = beta1 * m + (1 - beta1) * g
  v = beta2 * v + (1 - beta2) * g^2
  p -= lr * (m / beta1_correction / (sqrt(v / beta2_correction) + eps) + weight_decay * p)
with beta1_correction = 1 - beta1^t and beta2_correction = 1 - beta2^t for step t.

version 1: naive port, one thread per parameter.
*/
// egg-bench: family = elementwise
// egg-bench: flops = 16 * num_parameters
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

// ----------------------------------------------------------------------------
// CUDA utils

#define cudaCheck(err) (cudaCheck_((err), __FILE__, __LINE__))
inline void cudaCheck_(cudaError_t error, const char *file, int line) {
    if (error != cudaSuccess) {
        printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}

// ----------------------------------------------------------------------------
// GPU kernels

__global__ void adamw_kernel1(float* params_memory, const float* grads_memory, float* m_memory, float* v_memory, long num_parameters,
                              float learning_rate, float beta1, float beta2, float beta1_correction, float beta2_correction, float eps, float weight_decay) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= num_parameters) return;  // guard
    float grad = grads_memory[i];
    // update the first moment (momentum)
    float m = beta1 * m_memory[i] + (1.0f - beta1) * grad;
    // update the second moment (RMSprop)
    float v = beta2 * v_memory[i] + (1.0f - beta2) * grad * grad;
    m_memory[i] = m;
    v_memory[i] = v;
    float m_hat = m / beta1_correction;
    float v_hat = v / beta2_correction;
    params_memory[i] -= learning_rate * (m_hat / (sqrtf(v_hat) + eps) + weight_decay * params_memory[i]);
}

// ----------------------------------------------------------------------------
// kernel launcher

#pragma egg optimize in(grads_memory[num_parameters]) \
        inout(params_memory[num_parameters], m_memory[num_parameters], v_memory[num_parameters]) \
        range(v_memory, 0, 1) tolerance(rtol = 1e-5, atol = 1e-5) \
        workload(num_parameters = 1 << 25, learning_rate = 1e-3, beta1 = 0.9, beta2 = 0.999, \
                 beta1_correction = 0.271, beta2_correction = 0.002997, eps = 1e-8, weight_decay = 0.01, \
                 block_size = 512) \
        workload(num_parameters = 4099, learning_rate = 3e-4, beta1 = 0.9, beta2 = 0.95, \
                 beta1_correction = 0.19, beta2_correction = 0.0975, eps = 1e-8, weight_decay = 0.1, \
                 block_size = 96)
void adamw(float* params_memory, const float* grads_memory, float* m_memory, float* v_memory, long num_parameters,
           float learning_rate, float beta1, float beta2, float beta1_correction, float beta2_correction,
           float eps, float weight_decay, int block_size) {
    unsigned int num_blocks = (unsigned int)((num_parameters + block_size - 1) / block_size);
    adamw_kernel1<<<num_blocks, block_size>>>(params_memory, grads_memory, m_memory, v_memory, num_parameters,
                                              learning_rate, beta1, beta2, beta1_correction, beta2_correction, eps, weight_decay);
    cudaCheck(cudaGetLastError());
}
