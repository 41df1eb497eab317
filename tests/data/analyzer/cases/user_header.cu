#include "include/helpers.cuh"

__global__ void lerp_k(const float *a, const float *b, float *y, Range r, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = lerp1(a[i], b[i], r.lo + (r.hi - r.lo) * 0.5f);
}

#pragma egg optimize in(a[n], b[n]) out(y[n]) workload(n = 1 << 16)
void lerp(const float *a, const float *b, float *y, int n)
{
	Range r = { 0.f, 1.f };
	lerp_k<<<(n + 255) / 256, 256>>>(a, b, y, r, n);
}
