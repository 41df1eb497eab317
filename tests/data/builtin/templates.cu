// Kernels written as templates and launched with explicit arguments: the
// builtin generator instantiates each where it is launched (lifting the
// instance, or copying the template for the generic path with the launch's
// arguments kept).
#include <cuda_runtime.h>

template <typename T>
__global__ void axpy_k(const T *x, T *y, T a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

#pragma egg optimize in(x[n]) inout(y[n]) workload(n = 1 << 24, a = 2) workload(n = 1001, a = 2)
void axpy(const float *x, float *y, float a, int n)
{
	axpy_k<float><<<(n + 255) / 256, 256>>>(x, y, a, n);
}

namespace tk {
/* a per-thread unrolled copy: outside the families, so the generic path */
template <typename T, int UNROLL = 4>
__global__ void copy_k(const T *src, T *dst, int n)
{
	int i = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL;
#pragma unroll
	for (int u = 0; u < UNROLL; u++)
		if (i + u < n)
			dst[i + u] = src[i + u];
}

/* a data-dependent loop with a step from the template */
template <int STEP>
__global__ void countdown_k(const int *x, int *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	int v = x[i], c = 0;
	while (v > 0) {
		v -= STEP;
		c++;
	}
	y[i] = c;
}

#pragma egg optimize in(src[n]) out(dst[n]) workload(n = 1 << 24) workload(n = 1001)
void copy4(const float *src, float *dst, int n)
{
	copy_k<float><<<(n + 1023) / 1024, 256>>>(src, dst, n);
}

#pragma egg optimize in(x[n]) out(y[n]) range(x, 0, 3000) workload(n = 1 << 24) workload(n = 1001)
void countdown(const int *x, int *y, int n)
{
	countdown_k<3><<<(n + 127) / 128, 128>>>(x, y, n);
}
} // namespace tk
