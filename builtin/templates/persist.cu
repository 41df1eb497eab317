/* @LABEL@: the reduction and the map that reads its result in one cooperative launch
 * of one wave of blocks of @TPB@.  Block b reduces its own contiguous chunk of the
 * @N@ elements (@V@ per access), keeping what the map reads again: its first @REG@
 * accesses per thread in registers, the next egg_hold in its dynamic shared memory.
 * A grid barrier; every warp of every block folds the blocks' partials in the same
 * order, so all hold the same value (block 0 stores it); then the map runs over the
 * chunk: the part not kept read again from its end (what the reduction read last,
 * still in the L2), then the shared-memory part, then the registers. */
#include <cooperative_groups.h>
__device__ @TYPE@ @NAME@_parts[@MAXB@];
@SIG@
{
	extern __shared__ __align__(16) unsigned char @NAME@_smem[];
	@TYPE@ *const egg_red = reinterpret_cast<@TYPE@ *>(@NAME@_smem); /* 32 warp partials */
@HELDPTR@
	const long long egg_n = @N@;
	const long long egg_nv = egg_n / @V@;
	const long long egg_per = (egg_nv + gridDim.x - 1) / gridDim.x;
	const long long egg_lo = min(egg_nv, (long long)blockIdx.x * egg_per);
	const long long egg_hi = min(egg_nv, egg_lo + egg_per);
	const long long egg_p = min(egg_hi, egg_lo + (long long)@REG@ * @TPB@);
	const long long egg_q = min(egg_hi, egg_p + egg_hold); /* [egg_p, egg_q) in shared memory */
	@TYPE@ egg_p_@ACC@ = @IDENTITY@;
@INIT@
@REGDECL@
	{
@REGDECL1@
#pragma unroll
		for (int egg_u = 0; egg_u < @REG@; egg_u++) {
			const long long egg_w = egg_lo + egg_u * @TPB@ + threadIdx.x;
			if (egg_w < egg_hi) {
@REGLOADS1@
			}
		}
#pragma unroll
		for (int egg_u = 0; egg_u < @REG@; egg_u++) {
			const long long egg_w = egg_lo + egg_u * @TPB@ + threadIdx.x;
			if (egg_w < egg_hi) {
@REGCOMPUTE1@
			}
		}
	}
	for (long long egg_w0 = egg_p + threadIdx.x; egg_w0 < egg_hi; egg_w0 += @U@ * @TPB@) {
@UDECL1@
#pragma unroll
		for (int egg_u = 0; egg_u < @U@; egg_u++) {
			const long long egg_w = egg_w0 + egg_u * @TPB@;
			if (egg_w < egg_hi) {
@ULOADS1@
			}
		}
#pragma unroll
		for (int egg_u = 0; egg_u < @U@; egg_u++) {
			const long long egg_w = egg_w0 + egg_u * @TPB@;
			if (egg_w < egg_hi) {
				if (egg_w < egg_q) {
@KEEP@
				}
@UCOMPUTE1@
			}
		}
	}
	if (blockIdx.x == gridDim.x - 1) /* the elements after the last whole access */
		for (long long egg_e = egg_nv * @V@ + threadIdx.x; egg_e < egg_n; egg_e += @TPB@) {
@SCALAR1@
		}
#pragma unroll
	for (int egg_o = 16; egg_o > 0; egg_o >>= 1)
		egg_p_@ACC@ = @COMBINE_SHFL@;
	if ((threadIdx.x & 31) == 0)
		egg_red[threadIdx.x >> 5] = egg_p_@ACC@;
	__syncthreads();
	if (threadIdx.x == 0) {
		for (int egg_k = 1; egg_k < @WARPS@; egg_k++)
			egg_p_@ACC@ = @COMBINE_RED@;
		@NAME@_parts[blockIdx.x] = egg_p_@ACC@;
	}
	cooperative_groups::this_grid().sync();
	/* every warp folds the partials, in the same order everywhere */
	egg_p_@ACC@ = @IDENTITY@;
	for (unsigned egg_b = threadIdx.x & 31; egg_b < gridDim.x; egg_b += 32)
		egg_p_@ACC@ = @COMBINE_PART@;
#pragma unroll
	for (int egg_o = 16; egg_o > 0; egg_o >>= 1)
		egg_p_@ACC@ = @COMBINE_SHFL@;
	const @TYPE@ egg_r = @RESULT@;
	if (blockIdx.x == 0 && threadIdx.x == 0)
		@DEST@ = egg_r;
	for (long long egg_w0 = egg_hi - 1 - threadIdx.x; egg_w0 >= egg_q; egg_w0 -= @U@ * @TPB@) {
@UDECL2@
#pragma unroll
		for (int egg_u = 0; egg_u < @U@; egg_u++) {
			const long long egg_w = egg_w0 - egg_u * @TPB@;
			if (egg_w >= egg_q) {
@ULOADS2@
			}
		}
#pragma unroll
		for (int egg_u = 0; egg_u < @U@; egg_u++) {
			const long long egg_w = egg_w0 - egg_u * @TPB@;
			if (egg_w >= egg_q) {
@UCOMPUTE2@
			}
		}
	}
	for (long long egg_w = egg_p + threadIdx.x; egg_w < egg_q; egg_w += @TPB@) {
@SMEMLOADS2@
@SMEMCOMPUTE2@
	}
	{
@REGDECL2@
#pragma unroll
		for (int egg_u = 0; egg_u < @REG@; egg_u++) {
			const long long egg_w = egg_lo + egg_u * @TPB@ + threadIdx.x;
			if (egg_w < egg_hi) {
@REGLOADS2@
			}
		}
#pragma unroll
		for (int egg_u = 0; egg_u < @REG@; egg_u++) {
			const long long egg_w = egg_lo + egg_u * @TPB@ + threadIdx.x;
			if (egg_w < egg_hi) {
@REGCOMPUTE2@
			}
		}
	}
	if (blockIdx.x == gridDim.x - 1)
		for (long long egg_e = egg_nv * @V@ + threadIdx.x; egg_e < egg_n; egg_e += @TPB@) {
@SCALAR2@
		}
}
