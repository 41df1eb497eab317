// variant: map (online softmax, block per row; the block size left to the tuner)
// egg-tune: THREADS = 128, 256, 512
#include <cuda_runtime.h>
#include <math.h>

#ifndef THREADS
#define THREADS 256
#endif

/* Merges the running (max, sum) pair (m, s) with (m2, s2); -INFINITY is empty. */
__device__ __forceinline__ void egg_softmax_forward_merge(float &m, float &s, float m2, float s2)
{
	float mm = fmaxf(m, m2);
	if (mm == -INFINITY)
		return;
	s = s * expf(m - mm) + s2 * expf(m2 - mm);
	m = mm;
}

__device__ __forceinline__ void egg_softmax_forward_warp_merge(float &m, float &s)
{
	for (int o = 16; o > 0; o >>= 1) {
		float m2 = __shfl_xor_sync(0xffffffffu, m, o);
		float s2 = __shfl_xor_sync(0xffffffffu, s, o);
		egg_softmax_forward_merge(m, s, m2, s2);
	}
}

__global__ void __launch_bounds__(THREADS)
egg_softmax_forward_mapped_row(const float *__restrict__ x, float *__restrict__ y, int rows, int cols)
{
	__shared__ float shm[32], shs[32];
	const float *xr = x + (size_t)blockIdx.x * cols;
	float *yr = y + (size_t)blockIdx.x * cols;
	float m = -INFINITY, s = 0.0f;
	for (int j = threadIdx.x; j < cols; j += THREADS) {
		float v = xr[j];
		if (v > m) {
			s = s * expf(m - v) + 1.0f;
			m = v;
		} else {
			s += expf(v - m);
		}
	}
	egg_softmax_forward_warp_merge(m, s);
	int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nwarps = THREADS / 32;
	if (lane == 0) {
		shm[warp] = m;
		shs[warp] = s;
	}
	__syncthreads();
	m = lane < nwarps ? shm[lane] : -INFINITY;
	s = lane < nwarps ? shs[lane] : 0.0f;
	egg_softmax_forward_warp_merge(m, s);
	float inv = 1.0f / s;
	for (int j = threadIdx.x; j < cols; j += THREADS)
		yr[j] = expf(xr[j] - m) * inv;
}

void softmax_forward(const float *x, float *y, int rows, int cols)
{
	if (rows > 0)
		egg_softmax_forward_mapped_row<<<rows, THREADS>>>(x, y, rows, cols);
}
