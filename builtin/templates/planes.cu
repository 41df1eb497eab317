/* @LABEL@: @N@ elements as planes of @X@ consecutive elements that share their
 * gathered operands; a block per plane (striding over the planes) computes what
 * depends on the plane only once, then streams the plane, @V@ elements per 16-byte
 * access when every streamed pointer is aligned and the plane length is a multiple
 * of @V@ (else a scalar pass over the plane), @U@ accesses in flight per thread;
 * the elements after the last whole plane go as written. */
@SIG@
{
	const long long egg_n = @N@;
	const long long egg_x = @X@;
	const long long egg_np = egg_x > 0 ? egg_n / egg_x : 0;
	const bool egg_vec = (@ALIGNED@) && egg_x % @V@ == 0;
	for (long long egg_p = blockIdx.x; egg_p < egg_np; egg_p += gridDim.x) {
@HOIST@
		const long long egg_o = egg_p * egg_x;
		if (egg_vec) {
			const long long egg_nv = egg_x / @V@;
			for (long long egg_w0 = threadIdx.x; egg_w0 < egg_nv; egg_w0 += (long long)blockDim.x * @U@) {
@LOADDECL@
#pragma unroll
				for (int egg_u = 0; egg_u < @U@; egg_u++) {
					const long long egg_w = egg_w0 + egg_u * (long long)blockDim.x;
					if (egg_w < egg_nv) {
@LOADS@
					}
				}
#pragma unroll
				for (int egg_u = 0; egg_u < @U@; egg_u++) {
					const long long egg_w = egg_w0 + egg_u * (long long)blockDim.x;
					if (egg_w < egg_nv) {
@COMPUTE@
					}
				}
			}
		} else {
			for (long long egg_j = threadIdx.x; egg_j < egg_x; egg_j += blockDim.x) {
				const long long egg_e = egg_o + egg_j;
@PLANESCALAR@
			}
		}
	}
	for (long long egg_e = egg_np * egg_x + (long long)blockIdx.x * blockDim.x + threadIdx.x; egg_e < egg_n;
	     egg_e += (long long)gridDim.x * blockDim.x) {
@SCALAR@
	}
}
