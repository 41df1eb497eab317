/*
 * main.cu -- runs the example's kernels on random data and checks them against
 * a CPU computation in double precision.  Exit status 0 only if all agree.
 * Without a GPU it says so and exits 0: the build itself is what was tested.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "kernels.h"

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
	fprintf(stderr, "demo: %s: %s\n", #call, cudaGetErrorString(e_)); exit(1); } } while (0)

static float *upload(const float *h, size_t n)
{
	float *d;
	CHECK(cudaMalloc(&d, n * sizeof *d));
	CHECK(cudaMemcpy(d, h, n * sizeof *d, cudaMemcpyHostToDevice));
	return d;
}

static int compare(const char *what, const float *got, const double *want, size_t n, double rtol, double atol)
{
	double worst = 0;
	size_t bad = 0;
	for (size_t i = 0; i < n; i++) {
		double err = fabs(got[i] - want[i]);
		if (!(err <= atol + rtol * fabs(want[i])))
			bad++;
		if (err > worst || isnan(got[i]))
			worst = isnan(got[i]) ? INFINITY : err;
	}
	printf("%-16s %s (max abs error %.3g)\n", what, bad ? "WRONG" : "ok", worst);
	return bad == 0;
}

int main(void)
{
	int ndev = 0;
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
		printf("demo: no CUDA device here; the build succeeded, nothing to run\n");
		return 0;
	}
	const int rows = 2048, cols = 1024;
	size_t n = (size_t)rows * cols;
	float *hx = (float *)malloc(n * sizeof(float)), *hb = (float *)malloc(cols * sizeof(float));
	float *hy = (float *)malloc(n * sizeof(float));
	double *want = (double *)malloc(n * sizeof(double));
	srand(12345);
	for (size_t i = 0; i < n; i++)
		hx[i] = (float)rand() / RAND_MAX * 8.0f - 4.0f;
	for (int j = 0; j < cols; j++)
		hb[j] = (float)rand() / RAND_MAX - 0.5f;
	float *dx = upload(hx, n), *db = upload(hb, cols), *dy;
	CHECK(cudaMalloc(&dy, n * sizeof(float)));
	int ok = 1;

	softmax_forward(dx, dy, rows, cols);
	CHECK(cudaMemcpy(hy, dy, n * sizeof(float), cudaMemcpyDeviceToHost));
	for (int r = 0; r < rows; r++) {
		double m = -INFINITY, s = 0;
		for (int j = 0; j < cols; j++) m = fmax(m, hx[(size_t)r * cols + j]);
		for (int j = 0; j < cols; j++) s += exp(hx[(size_t)r * cols + j] - m);
		for (int j = 0; j < cols; j++) want[(size_t)r * cols + j] = exp(hx[(size_t)r * cols + j] - m) / s;
	}
	ok &= compare("softmax_forward", hy, want, n, 1e-5, 1e-6);

	bias_gelu(dx, db, dy, rows, cols);
	CHECK(cudaMemcpy(hy, dy, n * sizeof(float), cudaMemcpyDeviceToHost));
	for (size_t i = 0; i < n; i++) {
		double v = (double)hx[i] + hb[i % cols];
		want[i] = 0.5 * v * (1.0 + erf(v / sqrt(2.0)));
	}
	ok &= compare("bias_gelu", hy, want, n, 1e-5, 1e-5);

	row_sum(dx, dy, rows, cols);
	CHECK(cudaMemcpy(hy, dy, rows * sizeof(float), cudaMemcpyDeviceToHost));
	for (int r = 0; r < rows; r++) {
		double s = 0;
		for (int j = 0; j < cols; j++) s += hx[(size_t)r * cols + j];
		want[r] = s;
	}
	ok &= compare("row_sum", hy, want, rows, 1e-4, 1e-3);
	CHECK(cudaGetLastError());
	printf("demo: %s\n", ok ? "all results correct" : "WRONG RESULTS");
	return ok ? 0 : 1;
}
