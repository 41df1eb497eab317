#include <cuda_runtime.h>

__global__ void copy_k(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = x[i];
}

#pragma egg optimize in(xs[n]) out(y[n]) workload(n = 1024)
void unknown_param(const float *x, float *y, int n) { copy_k<<<n, 1>>>(x, y, n); }

#pragma egg optimize inn(x[n]) out(y[n]) workload(n = 1024)
void unknown_clause(const float *x, float *y, int n) { copy_k<<<n, 1>>>(x, y, n); }

#pragma egg optimize in(x) out(y[n]) workload(n = 1024)
void missing_extent(const float *x, float *y, int n) { copy_k<<<n, 1>>>(x, y, n); }

#pragma egg optimize in(x[n]) workload(n = 1024)
void no_role(const float *x, float *y, int n) { copy_k<<<n, 1>>>(x, y, n); }

#pragma egg optimize in(x[n]) out(y[n]) workload(n 1024)
void bad_workload(const float *x, float *y, int n) { copy_k<<<n, 1>>>(x, y, n); }

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1024) range(x, 0)
void bad_range(const float *x, float *y, int n) { copy_k<<<n, 1>>>(x, y, n); }

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1024) tolerance(rtl = 1e-3)
void bad_tolerance(const float *x, float *y, int n) { copy_k<<<n, 1>>>(x, y, n); }

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1024) precision(fp8)
void bad_precision(const float *x, float *y, int n) { copy_k<<<n, 1>>>(x, y, n); }

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1024) launch(n, 1)
void launch_on_launcher(const float *x, float *y, int n) { copy_k<<<n, 1>>>(x, y, n); }

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1024)
__global__ void kernel_without_launch(const float *x, float *y, int n) { y[0] = x[0]; }

#pragma egg optimize in(x[(n + 1]) out(y[n]) workload(n = 1024)
void bad_expression(const float *x, float *y, int n) { copy_k<<<n, 1>>>(x, y, n); }

#pragma egg optimize in(x[m]) out(y[n]) workload(n = 1024)
void unknown_name(const float *x, float *y, int n) { copy_k<<<n, 1>>>(x, y, n); }

#pragma egg optimize in(x[n]) out(x[n], y[n]) workload(n = 1024)
void two_roles(const float *x, float *y, int n) { copy_k<<<n, 1>>>(x, y, n); }

#pragma egg optimize in(x[n], n[4]) out(y[n]) workload(n = 1024)
void scalar_buffer(const float *x, float *y, int n) { copy_k<<<n, 1>>>(x, y, n); }

#pragma egg optimize in(x[n]) out(y[n] workload(n = 1024)
void missing_paren(const float *x, float *y, int n) { copy_k<<<n, 1>>>(x, y, n); }

#pragma egg optimise in(x[n]) out(y[n]) workload(n = 1024)
void misspelt_directive(const float *x, float *y, int n) { copy_k<<<n, 1>>>(x, y, n); }

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1024) workload(n = 8, a = 1.5f)
void unbound_scalar(const float *x, float *y, float a, int n) { copy_k<<<n, 1>>>(x, y, n); }

#pragma egg optimize in(x[n]) out(y[n])
void no_workload(const float *x, float *y, int n) { copy_k<<<n, 1>>>(x, y, n); }

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1024)
int not_a_function = 3;

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1024)
void still_fine(const float *x, float *y, int n) { copy_k<<<n, 1>>>(x, y, n); }
