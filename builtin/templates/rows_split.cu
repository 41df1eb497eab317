/* @LABEL@: a row per lane, @R@ rows per warp-wide tile; the block's warps split each
 * row's columns (warp w takes columns w, w + @TPB@ / 32, ...) and their partials meet in
 * shared memory.  Every thread of the block runs the same number of tiles (the
 * barriers); lanes past the last row work on the last row and store nothing. */
@SIG@
{
	const long long egg_rows = @N@;
	const int egg_lane = threadIdx.x >> 5;
	for (long long egg_rb = (long long)blockIdx.x * @R@; egg_rb < egg_rows;
	     egg_rb += (long long)gridDim.x * @R@) {
		const long long egg_rt = egg_rb + (threadIdx.x & 31);
		const int egg_live = egg_rt < egg_rows;
		const long long egg_row = egg_live ? egg_rt : egg_rows - 1;
@ROWBODY@
	}
}
