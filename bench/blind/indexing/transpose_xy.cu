// Naive matrix transpose with a 2-D thread index: reads along rows
// (coalesced), writes down columns (strided). idata is height x width,
// odata is width x height.
// egg-bench: family = transpose
// egg-bench: flops = 0
#include <stdio.h>
#include <cuda_runtime.h>

#define BLOCK_DIM 16

#define checkCuda(val) checkCudaImpl((val), #val, __FILE__, __LINE__)
static void checkCudaImpl(cudaError_t result, const char *expr, const char *file, int line)
{
    if (result != cudaSuccess) {
        fprintf(stderr, "CUDA error at %s:%d (%s): %s\n", file, line, expr, cudaGetErrorString(result));
        exit(1);
    }
}

__global__ void transpose_naive(float *odata, const float *idata, int width, int height)
{
    unsigned int xIndex = blockDim.x * blockIdx.x + threadIdx.x;
    unsigned int yIndex = blockDim.y * blockIdx.y + threadIdx.y;

    if (xIndex < width && yIndex < height) {
        unsigned int index_in = xIndex + width * yIndex;
        unsigned int index_out = yIndex + height * xIndex;
        odata[index_out] = idata[index_in];
    }
}

#pragma egg optimize in(idata[width * height]) out(odata[width * height]) \
        workload(width = 10240, height = 6144) workload(width = 37, height = 53)
void transpose_xy(float *odata, const float *idata, int width, int height)
{
    dim3 grid((width + BLOCK_DIM - 1) / BLOCK_DIM, (height + BLOCK_DIM - 1) / BLOCK_DIM, 1);
    dim3 threads(BLOCK_DIM, BLOCK_DIM, 1);
    transpose_naive<<<grid, threads>>>(odata, idata, width, height);
    checkCuda(cudaGetLastError());
}
