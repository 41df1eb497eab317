// Transpose as a grid-stride loop over the output's flat index: o runs over
// out (cols x rows) in order, so the writes are coalesced and the reads
// strided; the source position comes from o with / and %.
// egg-bench: family = transpose
// egg-bench: flops = 0
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                        \
    do {                                                                        \
        cudaError_t e_ = (call);                                                \
        if (e_ != cudaSuccess) {                                                \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                    \
                         cudaGetErrorString(e_), __FILE__, __LINE__);           \
            std::abort();                                                       \
        }                                                                       \
    } while (0)

__global__ void transpose_flat(float *__restrict__ out, const float *__restrict__ in, size_t rows, size_t cols)
{
    size_t n = rows * cols;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t o = (size_t)blockIdx.x * blockDim.x + threadIdx.x; o < n; o += stride) {
        size_t c = o / rows; /* row of out = column of in */
        size_t r = o % rows;
        out[o] = in[r * cols + c];
    }
}

#pragma egg optimize in(in[rows * cols]) out(out[rows * cols]) \
        workload(rows = 5000, cols = 12000) workload(rows = 17, cols = 1001)
void transpose_gridstride(float *out, const float *in, int rows, int cols)
{
    const int threads = 512;
    const int blocks = 2048;
    transpose_flat<<<blocks, threads>>>(out, in, (size_t)rows, (size_t)cols);
    CUDA_CHECK(cudaGetLastError());
}
