#include <cuda_runtime.h>

#define TILE 32

#pragma egg optimize in(in[rows * cols]) out(out[rows * cols]) workload(rows = 1024, cols = 2048) \
	launch(dim3((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE), dim3(TILE, 8))
__launch_bounds__(256) __global__ void transpose_k(const float *in, float *out, int rows, int cols)
{
	__shared__ float tile[TILE][TILE + 1];
	int x = blockIdx.x * TILE + threadIdx.x;
	int y = blockIdx.y * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += 8)
		if (x < cols && y + j < rows)
			tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
	__syncthreads();
	x = blockIdx.y * TILE + threadIdx.x;
	y = blockIdx.x * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += 8)
		if (x < rows && y + j < cols)
			out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
