// Split attention heads: (B, T, NH, HS) -> (B, NH, T, HS), the permutation
// before the per-head products. A 3-D grid: blockIdx.z is the (batch, head)
// pair, y the position t, x the channel d inside the head.
// egg-bench: family = transpose
// egg-bench: flops = 0
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

void cuda_check(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

__global__ void split_heads(float *out, const float *in, int T, int NH, int HS)
{
    int bh = blockIdx.z; /* b * NH + h */
    int t = blockIdx.y * blockDim.y + threadIdx.y;
    int d = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < T && d < HS) {
        int b = bh / NH;
        int h = bh % NH;
        out[((size_t)bh * T + t) * HS + d] = in[(((size_t)b * T + t) * NH + h) * HS + d];
    }
}

#pragma egg optimize in(in[B * T * NH * HS]) out(out[B * T * NH * HS]) \
        workload(B = 64, T = 1024, NH = 12, HS = 64) workload(B = 2, T = 13, NH = 3, HS = 20)
void permute_heads(float *out, const float *in, int B, int T, int NH, int HS)
{
    dim3 block(32, 8, 1);
    dim3 grid((HS + block.x - 1) / block.x, (T + block.y - 1) / block.y, B * NH);
    split_heads<<<grid, block>>>(out, in, T, NH, HS);
    cudaCheck(cudaGetLastError());
}
