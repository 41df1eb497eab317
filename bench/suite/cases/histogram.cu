// egg-bench: family = generic
// egg-bench: flops = 0
// Histogram of small integer keys (torch.bincount) with one global atomicAdd per
// element; the launcher clears the bins first.
#include <cuda_runtime.h>

__global__ void count_keys(const int *keys, int *bins, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		atomicAdd(&bins[keys[i]], 1);
}

#pragma egg optimize in(keys[n]) out(bins[nbins]) range(keys, 0, nbins) \
	workload(n = 1 << 26, nbins = 256) workload(n = 100001, nbins = 1000)
void histogram(const int *keys, int *bins, int n, int nbins)
{
	cudaMemset(bins, 0, nbins * sizeof(int));
	count_keys<<<(n + 255) / 256, 256>>>(keys, bins, n);
}
