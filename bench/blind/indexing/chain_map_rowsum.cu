// Row-wise Euclidean distance between two matrices in two launches: a map
// writes the squared differences into a scratch buffer the launcher
// allocates, then one thread per row sums its row and takes the root.
// egg-bench: family = chain
// egg-bench: flops = 3 * rows * cols
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t st = (call); if (st != cudaSuccess) { \
    fprintf(stderr, "CUDA: %s (%s:%d)\n", cudaGetErrorString(st), __FILE__, __LINE__); exit(1); } } while (0)

__global__ void sqdiff(float *d, const float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float t = a[i] - b[i];
        d[i] = t * t;
    }
}

__global__ void row_norm(float *out, const float *d, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float s = 0.0f;
    for (int c = 0; c < cols; c++)
        s += d[(size_t)r * cols + c];
    out[r] = sqrtf(s);
}

#pragma egg optimize in(a[rows * cols], b[rows * cols]) out(dist[rows]) tolerance(rtol = 1e-4, atol = 1e-5) \
        workload(rows = 32768, cols = 2048) workload(rows = 13, cols = 300)
void row_distance(const float *a, const float *b, float *dist, int rows, int cols)
{
    int n = rows * cols;
    float *d = NULL;
    CHECK(cudaMalloc(&d, (size_t)n * sizeof(float)));
    sqdiff<<<(n + 511) / 512, 512>>>(d, a, b, n);
    CHECK(cudaGetLastError());
    row_norm<<<(rows + 127) / 128, 128>>>(dist, d, rows, cols);
    CHECK(cudaGetLastError());
    CHECK(cudaFree(d));
}
