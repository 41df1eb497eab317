// Matrix transpose through a shared-memory tile (32 x 33 floats, the extra
// column against bank conflicts), 32 x 8 threads, each thread moving four
// elements. in is rows x cols, out is cols x rows.
// egg-bench: family = transpose
// egg-bench: flops = 0
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))
static void cuda_check(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}

__global__ void transpose_coalesced(float *out, const float *in, int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];

    int x = blockIdx.x * TILE_DIM + threadIdx.x; /* column of in */
    int y = blockIdx.y * TILE_DIM + threadIdx.y; /* row of in */
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < cols && y + j < rows)
            tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];

    __syncthreads();

    x = blockIdx.y * TILE_DIM + threadIdx.x; /* column of out = row of in */
    y = blockIdx.x * TILE_DIM + threadIdx.y; /* row of out = column of in */
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < rows && y + j < cols)
            out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

#pragma egg optimize in(in[rows * cols]) out(out[rows * cols]) \
        workload(rows = 16384, cols = 4096) workload(rows = 45, cols = 70)
void transpose_tiled(float *out, const float *in, int rows, int cols)
{
    dim3 dimGrid((cols + TILE_DIM - 1) / TILE_DIM, (rows + TILE_DIM - 1) / TILE_DIM);
    dim3 dimBlock(TILE_DIM, BLOCK_ROWS);
    transpose_coalesced<<<dimGrid, dimBlock>>>(out, in, rows, cols);
    cudaCheck(cudaGetLastError());
}
