// Attention scores to probabilities in three launches through two temps:
// scale the scores, add a (T x T) additive mask shared by every head, then a
// softmax over each row. x is (BH, T, T).
// egg-bench: family = chain
// egg-bench: flops = 6 * BH * T * T
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define cudaCheck(err) (cudaCheckImpl((err), __FILE__, __LINE__))
static void cudaCheckImpl(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}

__global__ void scale_kernel(float *y, const float *x, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i] * s;
}

// the mask row is the position of the row inside its head's T x T block
__global__ void add_mask_kernel(float *y, const float *x, const float *mask, int rows, int T)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows * T) {
        int row = i / T;
        int col = i % T;
        y[i] = x[i] + mask[(row % T) * T + col];
    }
}

// one block per row; threads stride over the row and reduce in shared memory
__global__ void row_softmax_kernel(float *out, const float *in, int cols)
{
    extern __shared__ float red[];
    const float *x = in + (size_t)blockIdx.x * cols;
    float *y = out + (size_t)blockIdx.x * cols;
    int tid = threadIdx.x;

    float m = -INFINITY;
    for (int j = tid; j < cols; j += blockDim.x)
        m = fmaxf(m, x[j]);
    red[tid] = m;
    __syncthreads();
    for (int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0 && tid + s < blockDim.x)
            red[tid] = fmaxf(red[tid], red[tid + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();

    float sum = 0.0f;
    for (int j = tid; j < cols; j += blockDim.x)
        sum += expf(x[j] - m);
    red[tid] = sum;
    __syncthreads();
    for (int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0 && tid + s < blockDim.x)
            red[tid] += red[tid + s];
        __syncthreads();
    }
    sum = red[0];

    for (int j = tid; j < cols; j += blockDim.x)
        y[j] = expf(x[j] - m) / sum;
}

#pragma egg optimize in(x[BH * T * T], mask[T * T]) out(probs[BH * T * T]) \
        temp(scaled[BH * T * T], masked[BH * T * T]) tolerance(rtol = 1e-4, atol = 1e-8) \
        workload(BH = 48, T = 1024, scale = 0.125) workload(BH = 3, T = 37, scale = 0.2)
void scale_mask_softmax(const float *x, const float *mask, float *probs, float *scaled, float *masked,
                        int BH, int T, float scale)
{
    int n = BH * T * T;
    int block_size = 256;
    scale_kernel<<<(n + block_size - 1) / block_size, block_size>>>(scaled, x, scale, n);
    cudaCheck(cudaGetLastError());
    add_mask_kernel<<<(n + block_size - 1) / block_size, block_size>>>(masked, scaled, mask, BH * T, T);
    cudaCheck(cudaGetLastError());
    row_softmax_kernel<<<BH * T, block_size, block_size * sizeof(float)>>>(probs, masked, T);
    cudaCheck(cudaGetLastError());
}
