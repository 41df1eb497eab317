// A training codebase's launcher: the launch's error is read through the
// user's cudaCheck macro, which prints it and exits (builtin.bash: the
// builtin's candidates must report a failed launch the same way).
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void cudaCheck_(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        printf("[CUDA ERROR] at file %s:%d: %s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cudaCheck_(err, __FILE__, __LINE__))

__global__ void gelu_forward_kernel1(float *out, const float *inp, int N)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        float xi = inp[i];
        float cube = 0.044715f * xi * xi * xi;
        out[i] = 0.5f * xi * (1.0f + tanhf(0.7978845608f * (xi + cube)));
    }
}

#pragma egg optimize in(inp[N]) out(out[N]) workload(N = 1 << 20, block_size = 128)
void gelu_forward(float *out, const float *inp, int N, const int block_size)
{
    const int grid_size = (N + block_size - 1) / block_size;
    gelu_forward_kernel1<<<grid_size, block_size>>>(out, inp, N);
    cudaCheck(cudaGetLastError());
}
