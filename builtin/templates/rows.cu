/* @LABEL@: @G@ threads per row, @R@ rows per block of @TPB@; column loops are strided
 * by the group with @V@-element vector accesses from the row's first aligned column
 * (a scalar head and tail around them), reductions by shuffles (and shared memory
 * across warps). */
@SIG@
{
	const long long egg_rows = @N@;
	const int egg_lane = threadIdx.x % @G@;
	for (long long egg_row = (long long)blockIdx.x * @R@ + threadIdx.x / @G@; egg_row < egg_rows;
	     egg_row += (long long)gridDim.x * @R@) {
@ROWBODY@
	}
}
