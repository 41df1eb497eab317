// 3x3 weighted stencil (9 points) over an H x W image, one thread per pixel
// from a flat 1-D index split into row and column with / and %. The
// weights come in a buffer of 9; border pixels are set to zero.
// egg-bench: family = stencil
// egg-bench: flops = 18 * H * W
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

static void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

__global__ void box9(const float *__restrict__ in, const float *__restrict__ w,
                     float *__restrict__ out, int H, int W)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= H * W)
        return;
    int r = idx / W;
    int c = idx % W;
    if (r == 0 || c == 0 || r == H - 1 || c == W - 1) {
        out[idx] = 0.0f;
        return;
    }
    float acc = 0.f;
    for (int dr = -1; dr <= 1; ++dr)
        for (int dc = -1; dc <= 1; ++dc)
            acc += w[(dr + 1) * 3 + (dc + 1)] * in[idx + dr * W + dc];
    out[idx] = acc;
}

#pragma egg optimize in(in[H * W], w[9]) out(out[H * W]) tolerance(rtol = 1e-5, atol = 1e-5) \
        workload(H = 8192, W = 8192) workload(H = 31, W = 45)
void stencil9_flat(const float *in, const float *w, float *out, int H, int W)
{
    const int threads = 256;
    int blocks = (H * W + threads - 1) / threads;
    box9<<<blocks, threads>>>(in, w, out, H, W);
    check(cudaGetLastError(), "box9");
}
