/* @LABEL@: each thread owns @V@ adjacent columns and @K@ rows of the (@ROWS@) x (@COLS@)
 * domain.  Inside the domain it loads the @K@ + 2 * @HR@ rows its taps reach (one 16-byte
 * load per row and @HC@ halo elements each side, all issued before any is used) into
 * registers, computes the @K@ x @V@ elements from them and stores each row as one
 * 16-byte store.  Strips at the domain's edges walk the rows with a sliding window
 * of 2 * @HR@ + 1 rows whose loads check every flat index (out of range reads 0, as
 * the reference never uses them).  Blocks of @BX@ threads cover @BX@ * @V@ columns. */
@SIG@
{
	const long long egg_R = @ROWS@, egg_C = @COLS@, egg_RC = egg_R * egg_C;
	const bool egg_vok = @VOK@;
	(void)egg_vok;
	(void)egg_RC;
	for (long long egg_c0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * @V@; egg_c0 < egg_C;
	     egg_c0 += (long long)gridDim.x * blockDim.x * @V@) {
		const bool egg_full = egg_vok && egg_c0 + @V@ <= egg_C;
		(void)egg_full;
		for (long long egg_r0 = (long long)blockIdx.y * @K@; egg_r0 < egg_R;
		     egg_r0 += (long long)gridDim.y * @K@) {
			if (egg_full && egg_r0 - @HR@ >= 1 && egg_r0 + @K@ + @HR@ < egg_R && @HC@ <= egg_C) {
@TILEDECL@
#pragma unroll
				for (int egg_j = 0; egg_j < @K@ + 2 * @HR@; egg_j++) {
					const long long egg_f = (egg_r0 - @HR@ + egg_j) * egg_C + egg_c0;
@TILELOAD@
				}
#pragma unroll
				for (int egg_k = 0; egg_k < @K@; egg_k++) {
					const long long egg_r = egg_r0 + egg_k;
@OUTDECL@
#pragma unroll
					for (int egg_x = 0; egg_x < @V@; egg_x++) {
						const long long egg_c = egg_c0 + egg_x;
@TILEBODY@
					}
@STORES@
				}
				continue;
			}
@WINDECL@
#pragma unroll
			for (int egg_j = 1; egg_j < 2 * @HR@ + 1 + @PD@; egg_j++) {
				const long long egg_lr = egg_r0 - @HR@ + egg_j - 1;
@LOADROW@
			}
#pragma unroll @UNROLL@
			for (int egg_k = 0; egg_k < @K@; egg_k++) {
				const long long egg_r = egg_r0 + egg_k;
				if (egg_r >= egg_R)
					break;
@SHIFT@
				{
					const int egg_j = 2 * @HR@ + @PD@;
					const long long egg_lr = egg_r + @HR@ + @PD@;
@LOADROW@
				}
@OUTDECL@
#pragma unroll
				for (int egg_x = 0; egg_x < @V@; egg_x++) {
					const long long egg_c = egg_c0 + egg_x;
					if (egg_c < egg_C) {
@BODY@
					}
				}
@STORES@
			}
		}
	}
}
