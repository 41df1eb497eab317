// egg-bench: family = generic
// egg-bench: flops = 0
// Sort every segment of `seg` floats ascending with a bitonic network, one global
// compare-exchange launch per step (the CUDA-samples style sort); seg is a power of two.
#include <cuda_runtime.h>

__global__ void bitonic_step(float *v, int n, int seg, int j, int k)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	int partner = i ^ j;
	if (partner > i) {
		bool ascending = ((i % seg) & k) == 0;
		float a = v[i], b = v[partner];
		if ((a > b) == ascending) {
			v[i] = b;
			v[partner] = a;
		}
	}
}

#pragma egg optimize in(keys[n]) out(sorted[n]) \
	workload(n = 1 << 24, seg = 1024) workload(n = 4096, seg = 256)
void sort_segments(const float *keys, float *sorted, int n, int seg)
{
	cudaMemcpy(sorted, keys, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice);
	for (int k = 2; k <= seg; k <<= 1)
		for (int j = k >> 1; j > 0; j >>= 1)
			bitonic_step<<<(n + 255) / 256, 256>>>(sorted, n, seg, j, k);
}
