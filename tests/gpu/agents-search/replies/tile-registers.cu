// variant: tile (block per row, the row held in registers: x read once, not twice)
// egg-tune: THREADS = 256, 512
#include <cuda_runtime.h>
#include <math.h>

#ifndef THREADS
#define THREADS 256
#endif
#define EGG_SOFTMAX_FORWARD_PER 16 /* elements a thread holds in registers */

/* The block's max (is_max) or sum of v, in every thread; sh holds 32 floats. */
__device__ __forceinline__ float egg_softmax_forward_block_reduce(float v, bool is_max, float *sh)
{
	for (int o = 16; o > 0; o >>= 1) {
		float w = __shfl_xor_sync(0xffffffffu, v, o);
		v = is_max ? fmaxf(v, w) : v + w;
	}
	int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nwarps = blockDim.x / 32;
	__syncthreads(); /* sh may still be read by an earlier reduction */
	if (lane == 0)
		sh[warp] = v;
	__syncthreads();
	v = lane < nwarps ? sh[lane] : (is_max ? -INFINITY : 0.0f);
	for (int o = 16; o > 0; o >>= 1) {
		float w = __shfl_xor_sync(0xffffffffu, v, o);
		v = is_max ? fmaxf(v, w) : v + w;
	}
	return v;
}

/* Rows of at most THREADS * EGG_SOFTMAX_FORWARD_PER elements: the row stays in
 * registers between the max, the sum and the write (x is read once). */
__global__ void __launch_bounds__(THREADS)
egg_softmax_forward_reg_row(const float *__restrict__ x, float *__restrict__ y, int rows, int cols)
{
	__shared__ float sh[32];
	const float *xr = x + (size_t)blockIdx.x * cols;
	float *yr = y + (size_t)blockIdx.x * cols;
	float v[EGG_SOFTMAX_FORWARD_PER];
	float m = -INFINITY;
#pragma unroll
	for (int i = 0; i < EGG_SOFTMAX_FORWARD_PER; i++) {
		int j = threadIdx.x + i * THREADS;
		v[i] = j < cols ? xr[j] : -INFINITY;
		m = fmaxf(m, v[i]);
	}
	m = egg_softmax_forward_block_reduce(m, true, sh);
	float s = 0.0f;
#pragma unroll
	for (int i = 0; i < EGG_SOFTMAX_FORWARD_PER; i++) {
		v[i] = expf(v[i] - m); /* 0 for the padding */
		s += v[i];
	}
	s = egg_softmax_forward_block_reduce(s, false, sh);
	float inv = 1.0f / s;
#pragma unroll
	for (int i = 0; i < EGG_SOFTMAX_FORWARD_PER; i++) {
		int j = threadIdx.x + i * THREADS;
		if (j < cols)
			yr[j] = v[i] * inv;
	}
}

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
egg_softmax_forward_online_row(const float *__restrict__ x, float *__restrict__ y,
                                                                              int rows, int cols)
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
	if (rows <= 0)
		return;
	if (cols <= THREADS * EGG_SOFTMAX_FORWARD_PER)
		egg_softmax_forward_reg_row<<<rows, THREADS>>>(x, y, rows, cols);
	else
		egg_softmax_forward_online_row<<<rows, THREADS>>>(x, y, rows, cols);
}
