	/* the one-launch epilogue (recipes/reduce.c): the block's partial out, a
	 * ticket, and the block that draws the last one folds the partials */
	__shared__ int egg_last@U@;
	if (threadIdx.x == 0) {
		@PARTS@[blockIdx.x] = @P@;
		__threadfence();
		egg_last@U@ = atomicAdd(&@TICKET@, 1u) == gridDim.x - 1;
	}
	__syncthreads();
	if (!egg_last@U@)
		return;
	__threadfence();
	@P@ = @IDENTITY@;
	for (unsigned egg_b = threadIdx.x; egg_b < gridDim.x; egg_b += @TPB@)
		@P@ = @COMBINE_PART@;
@REDUCE@	if (threadIdx.x == 0) {
		@DEST@ = @COMBINE_DEST@;
		@TICKET@ = 0;
	}
