#include <cuda_runtime.h>

struct Affine {
	float scale;
	float shift;
	__device__ float apply(float v) const { return v * scale + shift; }
};

typedef struct {
	int rows, cols;
} Shape;

__global__ void affine_k(const float *x, float *y, Affine a, Shape s)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < s.rows * s.cols) y[i] = a.apply(x[i]);
}

#pragma egg optimize in(x[rows * cols]) out(y[rows * cols]) workload(rows = 512, cols = 1024, scale = 0.5f, shift = -1.0f)
void affine(const float *x, float *y, float scale, float shift, int rows, int cols)
{
	Affine a = { scale, shift };
	Shape s = { rows, cols };
	affine_k<<<(rows * cols + 255) / 256, 256>>>(x, y, a, s);
}
