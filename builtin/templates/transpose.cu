/* @LABEL@: @T@ x @T@ tiles of the (@ROWS@) x (@COLS@) domain, @B@ rows of threads, each
 * thread @T@ / @B@ elements of a tile.  Accesses in the other layout go through
 * shared memory (one column of padding against bank conflicts), so that global
 * reads and writes are both coalesced; the element-wise work runs in between. */
@SIG@
{
@SHARED@
	const long long egg_R = @ROWS@, egg_C = @COLS@;
	const int egg_tx = threadIdx.x, egg_ty = threadIdx.y;
	for (long long egg_r0 = (long long)blockIdx.y * @T@; egg_r0 < egg_R; egg_r0 += (long long)gridDim.y * @T@) {
		for (long long egg_c0 = (long long)blockIdx.x * @T@; egg_c0 < egg_C; egg_c0 += (long long)gridDim.x * @T@) {
@STAGE_IN@
#pragma unroll
			for (int egg_k = 0; egg_k < @T@; egg_k += @B@) {
				const long long egg_r = egg_r0 + egg_ty + egg_k, egg_c = egg_c0 + egg_tx;
				if (egg_r < egg_R && egg_c < egg_C) {
@BODY@
				}
			}
@STAGE_OUT@
		}
	}
}
