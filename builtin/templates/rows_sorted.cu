/* @LABEL@: the rows in the order of the key their gathered rows are found by, bucketed
 * by its low bits (& @MASK@),
 * in one cooperative launch of one wave of blocks of @TPB@: a thread takes @RPT@ rows at most
 * and counts them into their buckets (keeping each row's rank), a grid barrier, every
 * block scans the counts in its dynamic shared memory and places its rows, a grid
 * barrier, then @G@ threads per row run the row program over the rows in that order, so
 * that rows of equal key meet in time and what they gather is read once from memory.
 * The counts are zero between calls (block 0 clears them once they are read). */
#include <cooperative_groups.h>
__device__ unsigned @NAME@_cnt[@B@]; /* zero between calls */
__device__ unsigned @NAME@_perm[@MAXROWS@]; /* the rows in that order */
@SIG@
{
	extern __shared__ unsigned @NAME@_off[]; /* @B@ bucket offsets, then @WARPS@ warp sums */
	const long long egg_rows = @N@;
	const long long egg_nth = (long long)gridDim.x * @TPB@;
	const long long egg_tid = (long long)blockIdx.x * @TPB@ + threadIdx.x;
	unsigned egg_key[@RPT@], egg_rank[@RPT@];
#pragma unroll
	for (int egg_k = 0; egg_k < @RPT@; egg_k++) {
		const long long egg_row = egg_tid + egg_k * egg_nth;
		if (egg_row < egg_rows) {
			egg_key[egg_k] = (unsigned)(@KEY@) & @MASK@u;
			egg_rank[egg_k] = atomicAdd(&@NAME@_cnt[egg_key[egg_k]], 1u);
		}
	}
	cooperative_groups::this_grid().sync();
	{
		/* exclusive scan of the counts: @PER@ consecutive buckets per thread */
		unsigned *egg_ws = @NAME@_off + @B@;
		const int egg_l = threadIdx.x & 31, egg_w = threadIdx.x >> 5;
		unsigned egg_c[@PER@], egg_s = 0;
#pragma unroll
		for (int egg_j = 0; egg_j < @PER@; egg_j++) {
			egg_c[egg_j] = __ldcg(&@NAME@_cnt[threadIdx.x * @PER@ + egg_j]);
			egg_s += egg_c[egg_j];
		}
		unsigned egg_in = egg_s;
		for (int egg_o = 1; egg_o < 32; egg_o <<= 1) {
			const unsigned egg_v = __shfl_up_sync(0xffffffffu, egg_in, egg_o);
			if (egg_l >= egg_o)
				egg_in += egg_v;
		}
		if (egg_l == 31)
			egg_ws[egg_w] = egg_in;
		__syncthreads();
		/* every warp scans the warp sums (no warp waits on another's) and takes the
		 * sum of the warps before it */
		const unsigned egg_v = egg_l < @WARPS@ ? egg_ws[egg_l] : 0u;
		unsigned egg_x = egg_v;
		for (int egg_o = 1; egg_o < 32; egg_o <<= 1) {
			const unsigned egg_y = __shfl_up_sync(0xffffffffu, egg_x, egg_o);
			if (egg_l >= egg_o)
				egg_x += egg_y;
		}
		unsigned egg_run = __shfl_sync(0xffffffffu, egg_x - egg_v, egg_w) + egg_in - egg_s;
#pragma unroll
		for (int egg_j = 0; egg_j < @PER@; egg_j++) {
			@NAME@_off[threadIdx.x * @PER@ + egg_j] = egg_run;
			egg_run += egg_c[egg_j];
		}
		__syncthreads();
#pragma unroll
		for (int egg_k = 0; egg_k < @RPT@; egg_k++) {
			const long long egg_row = egg_tid + egg_k * egg_nth;
			if (egg_row < egg_rows)
				@NAME@_perm[@NAME@_off[egg_key[egg_k]] + egg_rank[egg_k]] = (unsigned)egg_row;
		}
	}
	cooperative_groups::this_grid().sync();
	if (blockIdx.x == 0)
		for (int egg_j = threadIdx.x; egg_j < @B@; egg_j += @TPB@)
			@NAME@_cnt[egg_j] = 0;
	const int egg_lane = threadIdx.x % @G@;
	for (long long egg_s = (long long)blockIdx.x * @R@ + threadIdx.x / @G@; egg_s < egg_rows;
	     egg_s += (long long)gridDim.x * @R@) {
		const long long egg_row = (long long)__ldcg(&@NAME@_perm[egg_s]);
@ROWBODY@
	}
}
