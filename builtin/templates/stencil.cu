/* @LABEL@: blocks of @BX@ x @BY@ threads own tiles of @TH@ x @TW@ elements of the
 * (@ROWS@) x (@COLS@) domain, each thread @K@ of them down a column.  The stencil's
 * buffers are read once per tile, with a halo of @HR@ rows and @HC@ columns, into
 * shared memory (elements outside the buffer read as 0 and are never used: the
 * reference's own conditions guard them); the taps then come from the tile. */
@SIG@
{
@SHARED@
	const long long egg_R = @ROWS@, egg_C = @COLS@;
	const int egg_tx = threadIdx.x, egg_ty = threadIdx.y;
	for (long long egg_r0 = (long long)blockIdx.y * @TH@; egg_r0 < egg_R; egg_r0 += (long long)gridDim.y * @TH@) {
		for (long long egg_c0 = (long long)blockIdx.x * @TW@; egg_c0 < egg_C; egg_c0 += (long long)gridDim.x * @TW@) {
@TILE@
#pragma unroll
			for (int egg_k = 0; egg_k < @K@; egg_k++) {
				const int egg_ly = egg_ty + egg_k * @BY@, egg_lx = egg_tx;
				const long long egg_r = egg_r0 + egg_ly, egg_c = egg_c0 + egg_lx;
				(void)egg_ly;
				(void)egg_lx;
				if (egg_r < egg_R && egg_c < egg_C) {
@BODY@
				}
			}
@SYNC@
		}
	}
}
