// The targets of tests/data/builtin/namespaces.cu, templates.cu and idioms.cu,
// called as a user would, at sizes other than their workloads, checked against
// the CPU.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

namespace nn {
void leaky_relu(const float *x, float *y, int n);
void halvings(const int *x, int *y, int n);
inline namespace v2 {
void scale(const float *x, float *y, float a, int n);
}
} // namespace nn
namespace ops::fused {
__global__ void square_k(const float *x, float *y, int n);
}
extern "C" void c_leaky(const float *x, float *y, int n);
void axpy(const float *x, float *y, float a, int n);
void exp_half(const float *x, const float *z, float *y, int64_t n);
void swish(const float *x, float *y, int n);
namespace tk {
void copy4(const float *src, float *dst, int n);
void countdown(const int *x, int *y, int n);
} // namespace tk

static int failures;

static void
expect(const char *what, const float *got, const float *want, int n)
{
	double m = 0;
	for (int i = 0; i < n; i++)
		if (!(fabs((double)got[i] - want[i]) <= 1e-6 * fabs((double)want[i]) + 1e-7))
			m = m > fabs((double)got[i] - want[i]) ? m : fabs((double)got[i] - want[i]) + 1e-30;
	printf("%-12s %s\n", what, m == 0 ? "ok" : "WRONG");
	failures += m != 0;
}

/* transcendental results: within 1e-5 relative (the device's expf, __expf) */
static void
expect_close(const char *what, const float *got, const float *want, int n)
{
	int bad = 0;
	for (int i = 0; i < n; i++)
		bad += !(fabs((double)got[i] - want[i]) <= 1e-5 * fabs((double)want[i]) + 1e-6);
	printf("%-12s %s\n", what, bad ? "WRONG" : "ok");
	failures += bad != 0;
}

int
main(void)
{
	const int n = (1 << 22) + 3;
	float *hx = (float *)malloc(n * sizeof(float)), *hy = (float *)malloc(n * sizeof(float));
	float *want = (float *)malloc(n * sizeof(float));
	int *hi = (int *)malloc(n * sizeof(int)), *ho = (int *)malloc(n * sizeof(int));
	for (int i = 0; i < n; i++) {
		hx[i] = (float)((i * 2654435761u) % 20001) / 1000.0f - 10.0f;
		hi[i] = 1 + (int)((i * 2246822519u) % 100000);
	}
	float *x, *y;
	int *xi, *yi;
	cudaMalloc(&x, n * sizeof(float));
	cudaMalloc(&y, n * sizeof(float));
	cudaMalloc(&xi, n * sizeof(int));
	cudaMalloc(&yi, n * sizeof(int));
	cudaMemcpy(x, hx, n * sizeof(float), cudaMemcpyHostToDevice);
	cudaMemcpy(xi, hi, n * sizeof(int), cudaMemcpyHostToDevice);

	for (int i = 0; i < n; i++)
		want[i] = hx[i] > 0.f ? hx[i] : 0.01f * hx[i];
	nn::leaky_relu(x, y, n);
	cudaMemcpy(hy, y, n * sizeof(float), cudaMemcpyDeviceToHost);
	expect("leaky_relu", hy, want, n);
	cudaMemset(y, 0xff, n * sizeof(float));
	c_leaky(x, y, n);
	cudaMemcpy(hy, y, n * sizeof(float), cudaMemcpyDeviceToHost);
	expect("c_leaky", hy, want, n);

	for (int i = 0; i < n; i++)
		want[i] = 3.0f * hx[i];
	nn::scale(x, y, 3.0f, n);
	cudaMemcpy(hy, y, n * sizeof(float), cudaMemcpyDeviceToHost);
	expect("scale", hy, want, n);

	for (int i = 0; i < n; i++)
		want[i] = hx[i] * hx[i];
	ops::fused::square_k<<<(n + 255) / 256, 256>>>(x, y, n);
	cudaMemcpy(hy, y, n * sizeof(float), cudaMemcpyDeviceToHost);
	expect("square_k", hy, want, n);

	nn::halvings(xi, yi, n);
	cudaMemcpy(ho, yi, n * sizeof(int), cudaMemcpyDeviceToHost);
	int bad = 0;
	for (int i = 0; i < n; i++) {
		int v = hi[i], c = 0;
		while (v > 1) {
			v = (v & 1) ? v - 1 : v / 2;
			c++;
		}
		bad += ho[i] != c;
	}
	printf("%-12s %s\n", "halvings", bad ? "WRONG" : "ok");
	failures += bad != 0;
	for (int i = 0; i < n; i++)
		hi[i] %= 3000;
	cudaMemcpy(xi, hi, n * sizeof(int), cudaMemcpyHostToDevice);
	tk::countdown(xi, yi, n);
	cudaMemcpy(ho, yi, n * sizeof(int), cudaMemcpyDeviceToHost);
	bad = 0;
	for (int i = 0; i < n; i++) {
		int v = hi[i], c = 0;
		while (v > 0) {
			v -= 3;
			c++;
		}
		bad += ho[i] != c;
	}
	printf("%-12s %s\n", "countdown", bad ? "WRONG" : "ok");
	failures += bad != 0;

	cudaMemset(y, 0xff, n * sizeof(float));
	tk::copy4(x, y, n);
	cudaMemcpy(hy, y, n * sizeof(float), cudaMemcpyDeviceToHost);
	expect("copy4", hy, hx, n);

	for (int i = 0; i < n; i++)
		want[i] = 2.0f * hx[i] + hx[i] * hx[i];
	ops::fused::square_k<<<(n + 255) / 256, 256>>>(x, y, n);
	axpy(x, y, 2.0f, n);
	cudaMemcpy(hy, y, n * sizeof(float), cudaMemcpyDeviceToHost);
	expect("axpy", hy, want, n);

	for (int i = 0; i < n; i++)
		want[i] = expf(hx[i]) * 0.5f + hx[i];
	exp_half(x, x, y, n);
	cudaMemcpy(hy, y, n * sizeof(float), cudaMemcpyDeviceToHost);
	expect_close("exp_half", hy, want, n);

	for (int i = 0; i < n; i++)
		want[i] = hx[i] / (1.0f + expf(-hx[i]));
	swish(x, y, n);
	cudaMemcpy(hy, y, n * sizeof(float), cudaMemcpyDeviceToHost);
	expect_close("swish", hy, want, n);

	cudaError_t e = cudaDeviceSynchronize();
	printf("%s\n", e == cudaSuccess && !failures ? "scopes: all results correct" : "scopes: FAILED");
	return e != cudaSuccess || failures;
}
