/*
Kernels for the positional encoder backward pass of a GPT-2 training loop.
The gradient of the output flows into the token embedding row that was looked
up and into the position embedding row of the same t, accumulated (+=).

version 1 is the naive one: one thread per (b, t, c), two atomicAdds each.
*/
// egg-bench: family = scatter
// egg-bench: flops = 2 * B * T * C
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

// ----------------------------------------------------------------------------
// CUDA utils

#define cudaCheck(err) (cudaCheckImpl((err), __FILE__, __LINE__))
static void cudaCheckImpl(cudaError_t error, const char *file, int line) {
    if (error != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}

static int ceil_div(int a, int b) { return (a + b - 1) / b; }

// ----------------------------------------------------------------------------
// GPU kernels

// parallelize over B,T,C; every thread adds its one gradient element twice
__global__ void encoder_backward_kernel1(float* dwte, float* dwpe,
                                         const float* dout, const int* inp,
                                         int B, int T, int C) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int N = B * T * C;

    if (idx < N) {
        int bt = idx / C;
        int b = bt / T;
        int t = bt % T;
        int c = idx % C;

        int ix = inp[b * T + t];

        const float* dout_btc = dout + b * T * C + t * C + c;
        float* dwte_ix = dwte + ix * C + c;
        float* dwpe_tc = dwpe + t * C + c;

        atomicAdd(dwte_ix, *dout_btc);
        atomicAdd(dwpe_tc, *dout_btc);
    }
}

// ----------------------------------------------------------------------------
// kernel launcher

#pragma egg optimize in(dout[B * T * C], inp[B * T]) inout(dwte[V * C], dwpe[T * C]) \
        range(inp, 0, V) tolerance(rtol = 1e-4, atol = 1e-5) \
        workload(B = 32, T = 1024, C = 768, V = 50257, block_size = 512) \
        workload(B = 2, T = 29, C = 70, V = 97, block_size = 128)
void encoder_backward(float* dwte, float* dwpe,
                      const float* dout, const int* inp,
                      int B, int T, int C, int V, int block_size) {
    const int N = B * T * C;
    const int grid_size = ceil_div(N, block_size);
    encoder_backward_kernel1<<<grid_size, block_size>>>(dwte, dwpe, dout, inp, B, T, C);
    cudaCheck(cudaGetLastError());
}
