/* @LABEL@: the second pass of a full reduction: one block folds the per-block
 * partials of the first pass into the destination element. */
@SIG@
{
	@TYPE@ egg_p_@ACC@ = @IDENTITY@;
	for (int egg_b = threadIdx.x; egg_b < egg_nparts; egg_b += @TPB@)
		egg_p_@ACC@ = @COMBINE_PART@;
@REDUCE@
	if (threadIdx.x == 0)
		@DEST@ = @COMBINE_DEST@;
}
