// egg-bench: family = scatter
// egg-bench: flops = n
// Weighted histogram (torch.bincount with weights): float weights added into 1000
// bins by one global atomicAdd per element after the launcher clears the bins.
#include <cuda_runtime.h>

__global__ void accumulate_weights(const int *bin, const float *w, float *hist, int n)
{
	int t = threadIdx.x + blockIdx.x * blockDim.x;
	if (t >= n)
		return;
	atomicAdd(&hist[bin[t]], w[t]);
}

#pragma egg optimize in(bin[n], w[n]) out(hist[nbins]) range(bin, 0, nbins) \
	workload(n = 1 << 25, nbins = 1000) workload(n = 77777, nbins = 37) \
	tolerance(rtol = 1e-3, atol = 1e-2)
void weighted_histogram(const int *bin, const float *w, float *hist, int n, int nbins)
{
	cudaMemset(hist, 0, sizeof(float) * nbins);
	accumulate_weights<<<(n + 511) / 512, 512>>>(bin, w, hist, n);
}
