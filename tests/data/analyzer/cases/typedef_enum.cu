#include <cuda_runtime.h>

#ifdef USE_DOUBLE
typedef double real;
#else
typedef float real;
#endif

enum Mode { MODE_ADD = 1, MODE_SUB = 2 };
enum class Unused { A, B };

__global__ void op_k(const real *a, const real *b, real *c, Mode m, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) c[i] = m == MODE_ADD ? a[i] + b[i] : a[i] - b[i];
}

#pragma egg optimize in(a[n], b[n]) out(c[n]) workload(n = 1 << 20)
void op(const real *a, const real *b, real *c, int n)
{
	op_k<<<(n + 255) / 256, 256>>>(a, b, c, MODE_ADD, n);
}
