/*
Kernel for the global gradient norm (before clipping): the squared sum of all
the elements of a gradient buffer, out[0] = sum_i g[i]^2. The caller takes
the square root.

version 1: each thread accumulates a grid-stride slice, the block adds its
threads' sums in shared memory, and one atomicAdd per block into out, which
the launcher zeroes first. The grid fills the GPU once.
*/
// egg-bench: family = full-reduction
// egg-bench: flops = 2 * count
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

void cuda_check(cudaError_t error, const char *file, int line) {
    if (error != cudaSuccess) {
        printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line,
               cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

// ----------------------------------------------------------------------------
// GPU kernels

__global__ void global_norm_squared_kernel(float* out, const float* data, size_t count) {
    extern __shared__ float block_acc[];
    size_t index = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t grid_width = (size_t)blockDim.x * gridDim.x;
    float accumulator = 0.0f;
    for (size_t i = index; i < count; i += grid_width) {
        accumulator += data[i] * data[i];
    }
    block_acc[threadIdx.x] = accumulator;
    __syncthreads();
    // fold the upper part of the array onto the lower part until one value is left
    for (int n = blockDim.x; n > 1; ) {
        int half = (n + 1) / 2;
        if (threadIdx.x < n - half) {
            block_acc[threadIdx.x] += block_acc[threadIdx.x + half];
        }
        __syncthreads();
        n = half;
    }
    if (threadIdx.x == 0) {
        atomicAdd(out, block_acc[0]);
    }
}

// ----------------------------------------------------------------------------
// kernel launcher

#pragma egg optimize in(values[count]) out(out[1]) tolerance(rtol = 1e-4, atol = 1e-5) \
        workload(count = 1 << 26, block_size = 512) workload(count = 5003, block_size = 96)
void global_norm_squared(float* out, const float* values, size_t count, int block_size) {
    int device, num_sms, threads_per_sm;
    cudaCheck(cudaGetDevice(&device));
    cudaCheck(cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, device));
    cudaCheck(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    const int grid_size = num_sms * (threads_per_sm / block_size);
    cudaCheck(cudaMemset(out, 0, sizeof(float)));
    global_norm_squared_kernel<<<grid_size, block_size, block_size * sizeof(float)>>>(out, values, count);
    cudaCheck(cudaGetLastError());
}
