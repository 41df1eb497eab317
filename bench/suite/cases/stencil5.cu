// egg-bench: family = stencil
// egg-bench: flops = 6 * height * width
// One Jacobi step of a 5-point stencil on a 2-D grid; boundary cells are copied.
#include <cuda_runtime.h>

__global__ void jacobi5(const float *u, float *v, int height, int width, float center, float side)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i >= height || j >= width)
		return;
	if (i == 0 || j == 0 || i == height - 1 || j == width - 1) {
		v[i * width + j] = u[i * width + j];
		return;
	}
	v[i * width + j] = center * u[i * width + j] +
			   side * (u[(i - 1) * width + j] + u[(i + 1) * width + j] +
				   u[i * width + j - 1] + u[i * width + j + 1]);
}

#pragma egg optimize in(u[height * width]) out(v[height * width]) \
	workload(height = 8192, width = 8192, center = 0.5, side = 0.125) \
	workload(height = 33, width = 1025, center = -1.0, side = 0.25) \
	tolerance(rtol = 1e-5, atol = 1e-6)
void stencil_step(const float *u, float *v, int height, int width, float center, float side)
{
	dim3 block(32, 4);
	dim3 grid((width + 31) / 32, (height + 3) / 4);
	jacobi5<<<grid, block>>>(u, v, height, width, center, side);
}
