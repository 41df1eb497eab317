// main.cu -- links with the softmax.o that egg-cc built and checks
// softmax_forward against a softmax on the host (in double) on both of the
// annotation's shapes; prints "ok" and exits 0 when every element is right.
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void softmax_forward(const float *x, float *y, int rows, int cols);

static int check(int rows, int cols)
{
	size_t n = (size_t)rows * cols;
	float *hx = (float *)malloc(n * sizeof *hx), *hy = (float *)malloc(n * sizeof *hy);
	srand(rows * 31 + cols);
	for (size_t i = 0; i < n; i++)
		hx[i] = 8.0f * rand() / RAND_MAX - 4.0f;
	float *dx, *dy;
	cudaMalloc(&dx, n * sizeof *dx);
	cudaMalloc(&dy, n * sizeof *dy);
	cudaMemcpy(dx, hx, n * sizeof *dx, cudaMemcpyHostToDevice);
	cudaMemset(dy, 0xff, n * sizeof *dy); /* NaN: an element left unwritten fails */
	softmax_forward(dx, dy, rows, cols);
	cudaError_t e = cudaDeviceSynchronize();
	if (e == cudaSuccess)
		e = cudaGetLastError();
	if (e != cudaSuccess) {
		printf("%dx%d: CUDA error: %s\n", rows, cols, cudaGetErrorString(e));
		return 1;
	}
	cudaMemcpy(hy, dy, n * sizeof *hy, cudaMemcpyDeviceToHost);
	int bad = 0;
	for (int r = 0; r < rows; r++) {
		const float *xr = hx + (size_t)r * cols;
		double m = -INFINITY, s = 0;
		for (int j = 0; j < cols; j++)
			m = fmax(m, xr[j]);
		for (int j = 0; j < cols; j++)
			s += exp(xr[j] - m);
		for (int j = 0; j < cols; j++) {
			double want = exp(xr[j] - m) / s, got = hy[(size_t)r * cols + j];
			if (!(fabs(got - want) <= 1e-6 + 1e-4 * fabs(want))) {
				if (!bad)
					printf("%dx%d: first bad element [%d][%d]: got %g, want %g\n", rows, cols,
					       r, j, got, want);
				bad++;
			}
		}
	}
	printf("%dx%d: %d of %zu elements wrong\n", rows, cols, bad, n);
	cudaFree(dx);
	cudaFree(dy);
	free(hx);
	free(hy);
	return bad != 0;
}

int main(void)
{
	int fails = check(4096, 4096) + check(37, 1001) + check(3, 33);
	puts(fails ? "FAILED" : "ok");
	return fails != 0;
}
