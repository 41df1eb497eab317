/* @LABEL@: a prefix scan along each row, @G@ threads per row, @R@ rows per block of
 * @TPB@.  The row goes in tiles of @G@ x @S@ x @V@ columns: each thread scans its @V@
 * consecutive elements of each of its @S@ slots serially, the threads' totals are
 * scanned by warp shuffles (and shared memory across warps), and a carry chains the
 * slots and tiles; @V@-element vector accesses when the row's pointers are aligned
 * (checked per row), scalar guarded accesses for the last tile and other rows. */
@SIG@
{
	const long long egg_rows = @N@;
	const int egg_lane = threadIdx.x % @G@;
	for (long long egg_row = (long long)blockIdx.x * @R@ + threadIdx.x / @G@; egg_row < egg_rows;
	     egg_row += (long long)gridDim.x * @R@) {
@ROWBODY@
	}
}
