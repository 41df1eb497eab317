/*
 * hostsim_bf16.cpp -- the host implementation of tests/data/bench/bf16_double.cu
 * for the CPU test of bench_main's bfloat16 buffers (bench_suite.bash).  With
 * -DHOSTSIM_WRONG the last element is left as the poison.
 */
#include <cuda_bf16.h>

void bf16_double(__nv_bfloat16 *y, const __nv_bfloat16 *x, int n)
{
	for (int i = 0; i < n; i++)
		y[i] = __float2bfloat16(2.0f * __bfloat162float(x[i]));
#ifdef HOSTSIM_WRONG
	y[n - 1] = *(const __nv_bfloat16 *)"\xff\xff"; /* left as the poison */
#endif
}
