/* @LABEL@: a @BM@x@BN@ tile of the output per block of @NT@ threads, @TM@x@TN@ outputs
 * per thread in registers (in groups of 4 rows / columns a half tile apart, so that
 * shared-memory reads are conflict-free float4s), k in steps of @BK@ through
 * double-buffered shared memory with the next step prefetched into registers during
 * the FMAs of the current one; 16-byte global loads when the host found the operands
 * aligned (EGG_V), bounds-checked loads at the edges; the epilogue runs once
 * per output. */
template <bool EGG_V>
@SIG@
{
	constexpr int BM = @BM@, BN = @BN@, BK = @BK@, TM = @TM@, TN = @TN@, NT = @NT@;
	constexpr int LA = (BM * BK / 4 + NT - 1) / NT, LB = (BN * BK / 4 + NT - 1) / NT;
	constexpr int GM = TM / 4, GN = TN / 4;
	__shared__ __align__(16) float egg_as[2][BK][BM + 4];
	__shared__ __align__(16) float egg_bs[2][BK][BN + 4];
	const long long egg_m = @M@, egg_n = @N@, egg_k = @K@, egg_nb = @BATCH@;
	const long long egg_tiles_n = (egg_n + BN - 1) / BN;
	const long long egg_m0 = (long long)(blockIdx.x / egg_tiles_n) * BM;
	const long long egg_n0 = (long long)(blockIdx.x % egg_tiles_n) * BN;
	const int egg_tx = threadIdx.x % (BN / TN), egg_ty = threadIdx.x / (BN / TN);
	const long long egg_nk = (egg_k + BK - 1) / BK;
	for (long long egg_b = blockIdx.y; egg_b < egg_nb; egg_b += gridDim.y) {
		const float *__restrict__ egg_pa = @A@ + (@AOFF@) + egg_b * (@ASB@);
		const float *__restrict__ egg_pb = @B@ + (@BOFF@) + egg_b * (@BSB@);
		float egg_c[TM][TN];
#pragma unroll
		for (int egg_i = 0; egg_i < TM; egg_i++)
#pragma unroll
			for (int egg_j = 0; egg_j < TN; egg_j++) {
				const long long egg_row = egg_m0 + (egg_i / 4) * (BM / GM) + egg_ty * 4 + egg_i % 4;
				const long long egg_col = egg_n0 + (egg_j / 4) * (BN / GN) + egg_tx * 4 + egg_j % 4;
				egg_c[egg_i][egg_j] = 0.0f;
				if (egg_row < egg_m && egg_col < egg_n)
					egg_c[egg_i][egg_j] = @INIT@;
			}
		float4 egg_ra[LA], egg_rb[LB];
		egg_gemm_load<BM, BK, NT, @AK@, EGG_V && @AVEC@>(egg_ra, egg_pa, @SAM@, @SAK@, egg_m0, egg_m, 0, egg_k);
		egg_gemm_load<BN, BK, NT, @BKC@, EGG_V && @BVEC@>(egg_rb, egg_pb, @SBN@, @SBK@, egg_n0, egg_n, 0, egg_k);
		egg_gemm_store<BM, BK, NT, @AK@>(egg_as[0], egg_ra);
		egg_gemm_store<BN, BK, NT, @BKC@>(egg_bs[0], egg_rb);
		__syncthreads();
		for (long long egg_kt = 0; egg_kt < egg_nk; egg_kt++) {
			const int egg_buf = (int)(egg_kt & 1);
			if (egg_kt + 1 < egg_nk) {
				const long long egg_k0 = (egg_kt + 1) * BK;
				egg_gemm_load<BM, BK, NT, @AK@, EGG_V && @AVEC@>(egg_ra, egg_pa, @SAM@, @SAK@, egg_m0, egg_m, egg_k0, egg_k);
				egg_gemm_load<BN, BK, NT, @BKC@, EGG_V && @BVEC@>(egg_rb, egg_pb, @SBN@, @SBK@, egg_n0, egg_n, egg_k0, egg_k);
			}
#pragma unroll
			for (int egg_kk = 0; egg_kk < BK; egg_kk++) {
				float egg_fa[TM], egg_fb[TN];
#pragma unroll
				for (int egg_g = 0; egg_g < GM; egg_g++) {
					const float4 egg_v = *reinterpret_cast<const float4 *>(
						&egg_as[egg_buf][egg_kk][egg_g * (BM / GM) + egg_ty * 4]);
					egg_fa[egg_g * 4] = egg_v.x;
					egg_fa[egg_g * 4 + 1] = egg_v.y;
					egg_fa[egg_g * 4 + 2] = egg_v.z;
					egg_fa[egg_g * 4 + 3] = egg_v.w;
				}
#pragma unroll
				for (int egg_g = 0; egg_g < GN; egg_g++) {
					const float4 egg_v = *reinterpret_cast<const float4 *>(
						&egg_bs[egg_buf][egg_kk][egg_g * (BN / GN) + egg_tx * 4]);
					egg_fb[egg_g * 4] = egg_v.x;
					egg_fb[egg_g * 4 + 1] = egg_v.y;
					egg_fb[egg_g * 4 + 2] = egg_v.z;
					egg_fb[egg_g * 4 + 3] = egg_v.w;
				}
#pragma unroll
				for (int egg_i = 0; egg_i < TM; egg_i++)
#pragma unroll
					for (int egg_j = 0; egg_j < TN; egg_j++)
						egg_c[egg_i][egg_j] = fmaf(egg_fa[egg_i], egg_fb[egg_j], egg_c[egg_i][egg_j]);
			}
			if (egg_kt + 1 < egg_nk) {
				egg_gemm_store<BM, BK, NT, @AK@>(egg_as[egg_buf ^ 1], egg_ra);
				egg_gemm_store<BN, BK, NT, @BKC@>(egg_bs[egg_buf ^ 1], egg_rb);
			}
			__syncthreads();
		}
#pragma unroll
		for (int egg_i = 0; egg_i < TM; egg_i++)
#pragma unroll
			for (int egg_j = 0; egg_j < TN; egg_j++) {
				const long long egg_row = egg_m0 + (egg_i / 4) * (BM / GM) + egg_ty * 4 + egg_i % 4;
				const long long egg_col = egg_n0 + (egg_j / 4) * (BN / GN) + egg_tx * 4 + egg_j % 4;
				if (egg_row < egg_m && egg_col < egg_n) {
					@TYPE@ @ACC@ = egg_c[egg_i][egg_j];
@EPILOGUE@
				}
			}
	}
}
