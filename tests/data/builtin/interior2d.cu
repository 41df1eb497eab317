// Stencils that write only the interior of a 2-D grid, their x and y from the
// thread index (.x, .y), in the two guard forms people write, and one whose
// output is the interior alone (a compact layout: not a map over rows x cols).
#include <cuda_runtime.h>

__global__ void smooth_interior(const float *in, float *out, int H, int W)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x > 0 && x < W - 1 && y > 0 && y < H - 1) {
		out[y * W + x] = 0.2f * (in[y * W + x] + in[y * W + x - 1] + in[y * W + x + 1] +
		                         in[(y - 1) * W + x] + in[(y + 1) * W + x]);
	}
}

#pragma egg optimize in(in[H * W]) out(out[H * W]) workload(H = 37, W = 101) workload(H = 3, W = 5)
void smooth(const float *in, float *out, int H, int W)
{
	dim3 block(32, 8);
	dim3 grid((W + 31) / 32, (H + 7) / 8);
	smooth_interior<<<grid, block>>>(in, out, H, W);
}

__global__ void laplace_kernel(const float *u, float *lap, int rows, int cols)
{
	const int c = blockIdx.x * blockDim.x + threadIdx.x;
	const int r = blockIdx.y * blockDim.y + threadIdx.y;
	if (c < 1 || c >= cols - 1 || r < 1 || r >= rows - 1)
		return;
	const int at = r * cols + c;
	lap[at] = u[at - cols] + u[at + cols] + u[at - 1] + u[at + 1] - 4.0f * u[at];
}

#pragma egg optimize in(u[rows * cols]) out(lap[rows * cols]) workload(rows = 29, cols = 67) workload(rows = 2, cols = 9)
void laplace(const float *u, float *lap, int rows, int cols)
{
	dim3 block(16, 16);
	dim3 grid((cols + 15) / 16, (rows + 15) / 16);
	laplace_kernel<<<grid, block>>>(u, lap, rows, cols);
}

__global__ void valid_blur_kernel(const float *in, float *out, int H, int W)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= 1 && x < W - 1 && y >= 1 && y < H - 1)
		out[(y - 1) * (W - 2) + (x - 1)] = (in[y * W + x - 1] + in[y * W + x] + in[y * W + x + 1]) / 3.0f;
}

#pragma egg optimize in(in[H * W]) out(out[(H - 2) * (W - 2)]) workload(H = 19, W = 23)
void valid_blur(const float *in, float *out, int H, int W)
{
	dim3 block(32, 4);
	dim3 grid((W + 31) / 32, (H + 3) / 4);
	valid_blur_kernel<<<grid, block>>>(in, out, H, W);
}
