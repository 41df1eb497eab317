// 5-point smoothing with clamped (replicated) edges: every point is computed,
// neighbours past an edge read the edge itself. A grid-stride loop over the
// flat index, sized to the GPU, with 64-bit indices.
// egg-bench: family = stencil
// egg-bench: flops = 6 * rows * cols
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define cudaCheck(e) do { cudaError_t r_ = (e); if (r_ != cudaSuccess) { \
    fprintf(stderr, "[CUDA ERROR] %s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(r_)); exit(EXIT_FAILURE); } } while (0)

__global__ void smooth5_clamped(float *dst, const float *src, int rows, int cols, float w_center, float w_side)
{
    long long n = (long long)rows * cols;
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < n;
         t += (long long)gridDim.x * blockDim.x) {
        int r = (int)(t / cols);
        int c = (int)(t - (long long)r * cols);
        int up = r > 0 ? r - 1 : 0;
        int dn = r < rows - 1 ? r + 1 : rows - 1;
        int lf = max(c - 1, 0);
        int rt = min(c + 1, cols - 1);
        dst[t] = w_center * src[t] +
                 w_side * (src[(size_t)up * cols + c] + src[(size_t)dn * cols + c] +
                           src[(size_t)r * cols + lf] + src[(size_t)r * cols + rt]);
    }
}

#pragma egg optimize in(src[rows * cols]) out(dst[rows * cols]) tolerance(rtol = 1e-5, atol = 1e-5) \
        workload(rows = 4096, cols = 16384, w_center = 0.6, w_side = 0.1) \
        workload(rows = 19, cols = 23, w_center = 0.2, w_side = 0.2)
void stencil5_gridstride(float *dst, const float *src, int rows, int cols, float w_center, float w_side)
{
    int dev = 0, sms = 0;
    cudaCheck(cudaGetDevice(&dev));
    cudaCheck(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    smooth5_clamped<<<sms * 4, 256>>>(dst, src, rows, cols, w_center, w_side);
    cudaCheck(cudaGetLastError());
}
