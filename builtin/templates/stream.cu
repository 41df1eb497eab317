/* @LABEL@: a grid-stride pass over @N@ elements; @V@ elements per 16-byte access when
 * every streamed pointer is aligned (checked at run time), @U@ accesses in flight per
 * thread, scalar tail and scalar fallback. */
@SIG@
{
	const long long egg_n = @N@;
	const long long egg_stride = (long long)gridDim.x * blockDim.x;
	const long long egg_t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long egg_done = 0;
@PROLOGUE@
	if (@ALIGNED@) {
		const long long egg_nv = egg_n / @V@;
		for (long long egg_w0 = egg_t; egg_w0 < egg_nv; egg_w0 += egg_stride * @U@) {
@LOADDECL@
#pragma unroll
			for (int egg_u = 0; egg_u < @U@; egg_u++) {
				const long long egg_w = @W@;
				if (@WOK@) {
@LOADS@
				}
			}
#pragma unroll
			for (int egg_u = 0; egg_u < @U@; egg_u++) {
				const long long egg_w = @W@;
				if (@WOK@) {
@COMPUTE@
				}
			}
		}
		egg_done = egg_nv * @V@;
	}
	for (long long egg_e = egg_done + egg_t; egg_e < egg_n; egg_e += egg_stride) {
@SCALAR@
	}
@EPILOGUE@
}
