// egg-bench: family = generic
// egg-bench: flops = 0
// Collatz stopping times: a data-dependent loop per element (trip counts from 0 to a
// few hundred), integer only.
#include <cuda_runtime.h>

__global__ void stopping_time(const int *start, int *steps, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	long long v = start[i];
	int count = 0;
	while (v != 1) {
		v = (v & 1) ? 3 * v + 1 : v >> 1;
		count++;
	}
	steps[i] = count;
}

#pragma egg optimize in(start[n]) out(steps[n]) range(start, 1, 1048576) \
	workload(n = 1 << 24) workload(n = 4097)
void collatz_steps(const int *start, int *steps, int n)
{
	stopping_time<<<(n + 127) / 128, 128>>>(start, steps, n);
}
