/*
 * main.cu -- launches gated_silu the way its launch(...) clause says and checks
 * every element against the host; prints "kernel-target: ok" or what differs.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void gated_silu(const float *x, const float *g, float *y, int n);

static int
check(int n)
{
	size_t bytes = (size_t)n * sizeof(float);
	float *hx = (float *)malloc(bytes), *hg = (float *)malloc(bytes), *hy = (float *)malloc(bytes);
	for (int i = 0; i < n; i++) {
		hx[i] = (float)((i * 2654435761u) % 20000) / 2000.0f - 5.0f;
		hg[i] = (float)((i * 40503u) % 1000) / 500.0f - 1.0f;
	}
	float *x, *g, *y;
	cudaMalloc(&x, bytes);
	cudaMalloc(&g, bytes);
	cudaMalloc(&y, bytes);
	cudaMemcpy(x, hx, bytes, cudaMemcpyHostToDevice);
	cudaMemcpy(g, hg, bytes, cudaMemcpyHostToDevice);
	cudaMemset(y, 0xFF, bytes);
	gated_silu<<<(n + 255) / 256, 256>>>(x, g, y, n);
	cudaError_t e = cudaDeviceSynchronize();
	if (e != cudaSuccess) {
		printf("kernel-target: n=%d: %s\n", n, cudaGetErrorString(e));
		return 1;
	}
	cudaMemcpy(hy, y, bytes, cudaMemcpyDeviceToHost);
	int bad = 0;
	for (int i = 0; i < n; i++) {
		double v = hx[i], want = v / (1.0 + exp(-v)) * hg[i];
		if (!(fabs(hy[i] - want) <= 1e-5 + 1e-5 * fabs(want))) {
			if (!bad)
				printf("kernel-target: n=%d: first bad index %d: got %g, want %g\n", n, i, hy[i], want);
			bad++;
		}
	}
	cudaFree(x);
	cudaFree(g);
	cudaFree(y);
	free(hx);
	free(hg);
	free(hy);
	return bad != 0;
}

int
main(void)
{
	int rc = check(1 << 25) | check(1000003) | check(77);
	printf("kernel-target: %s\n", rc ? "WRONG" : "ok");
	return rc;
}
