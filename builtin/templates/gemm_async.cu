/* @LABEL@: a @BM@x@BN@ tile of the output per block of @NT@ threads, @TM@x@TN@
 * outputs per thread in registers, k in steps of @BK@ through @ST@ stages of
 * shared memory that cp.async fills while the block computes on the oldest
 * (templates/gemm_async_helpers.cu; one barrier per step), k-major: 16-byte
 * copies when the output dimension is contiguous in memory, 4-byte ones that
 * transpose when k is, none through registers.  Each thread's outputs are
 * groups of 4 rows / columns a half tile apart, read as float4s.  The blocks
 * walk the output in bands of @GROUP@ tile rows, column by column, so that the
 * blocks resident together share their operands in L2.  Accumulation is in k
 * order from 0, the reference's initial value (a bias) added at the end: in the
 * unrolled code its loads spilled the accumulators.  The epilogue runs once per
 * output from shared memory, one row of the thread tiles at a time, as a loop. */
template <bool EGG_V>
@SIG@
{
	constexpr int BM = @BM@, BN = @BN@, BK = @BK@, TM = @TM@, TN = @TN@, NT = @NT@, ST = @ST@;
	constexpr int WM = BM / TM, WN = BN / TN, GROUP = @GROUP@;
	constexpr bool AO = @AK@, BO = @BKC@;
	constexpr int SA = BK * (BM + 4), SB = BK * (BN + 4);
	static_assert(WM * WN == NT && TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0, "tile");
	static_assert(WM * (BN + 4) <= ST * (SA + SB), "the epilogue's rows fit the stages");
	extern __shared__ __align__(16) float @KNAME@_smem[];
	float *const egg_as = @KNAME@_smem, *const egg_bs = @KNAME@_smem + ST * SA;
	const long long egg_m = @M@, egg_n = @N@, egg_k = @K@, egg_nb = @BATCH@;
	long long egg_m0, egg_n0;
	egg_gemm_band<BM, BN, GROUP>(egg_m, egg_n, egg_m0, egg_n0);
	const int egg_tx = threadIdx.x % WN, egg_ty = threadIdx.x / WN;
	const long long egg_nk = (egg_k + BK - 1) / BK;
	for (long long egg_b = blockIdx.y; egg_b < egg_nb; egg_b += gridDim.y) {
		const float *__restrict__ egg_pa = @A@ + (@AOFF@) + egg_b * (@ASB@);
		const float *__restrict__ egg_pb = @B@ + (@BOFF@) + egg_b * (@BSB@);
		const egg_gemm_src<BM, BK, NT, AO> egg_ca = egg_gemm_src_at<BM, BK, NT, AO>(egg_pa, @SAM@, @SAK@, egg_m0);
		const egg_gemm_src<BN, BK, NT, BO> egg_cb = egg_gemm_src_at<BN, BK, NT, BO>(egg_pb, @SBN@, @SBK@, egg_n0);
		float egg_c[TM][TN];
#pragma unroll
		for (int egg_i = 0; egg_i < TM; egg_i++)
#pragma unroll
			for (int egg_j = 0; egg_j < TN; egg_j++)
				egg_c[egg_i][egg_j] = 0.0f;
		/* the first ST - 1 steps in flight (a group per step, empty past the end) */
#pragma unroll
		for (int egg_s = 0; egg_s < ST - 1; egg_s++) {
			if (egg_s < egg_nk) {
				egg_gemm_copy<BM, BK, NT, AO, EGG_V && @AVEC@>(egg_as + egg_s * SA, egg_ca, egg_pa, @SAM@, @SAK@, egg_m, (long long)egg_s * BK, egg_k);
				egg_gemm_copy<BN, BK, NT, BO, EGG_V && @BVEC@>(egg_bs + egg_s * SB, egg_cb, egg_pb, @SBN@, @SBK@, egg_n, (long long)egg_s * BK, egg_k);
			}
			egg_cp_commit();
		}
		int egg_rs = 0, egg_ws = ST - 1; /* the stages read and written */
		for (long long egg_kt = 0; egg_kt < egg_nk; egg_kt++) {
			/* step kt has landed for every thread, and every thread is done with
			 * step kt - 1, whose stage the copy of step kt + ST - 1 takes */
			egg_cp_wait<ST - 2>();
			__syncthreads();
			if (egg_kt + ST - 1 < egg_nk) {
				const long long egg_k0 = (egg_kt + ST - 1) * BK;
				egg_gemm_copy<BM, BK, NT, AO, EGG_V && @AVEC@>(egg_as + egg_ws * SA, egg_ca, egg_pa, @SAM@, @SAK@, egg_m, egg_k0, egg_k);
				egg_gemm_copy<BN, BK, NT, BO, EGG_V && @BVEC@>(egg_bs + egg_ws * SB, egg_cb, egg_pb, @SBN@, @SBK@, egg_n, egg_k0, egg_k);
			}
			egg_cp_commit();
			const float *egg_sa = egg_as + egg_rs * SA, *egg_sb = egg_bs + egg_rs * SB;
			egg_rs = egg_rs + 1 == ST ? 0 : egg_rs + 1;
			egg_ws = egg_ws + 1 == ST ? 0 : egg_ws + 1;
#pragma unroll
			for (int egg_kk = 0; egg_kk < BK; egg_kk++) {
				float egg_fa[TM], egg_fb[TN];
				egg_gemm_frag<BM, TM>(egg_fa, egg_sa, egg_ty, egg_kk);
				egg_gemm_frag<BN, TN>(egg_fb, egg_sb, egg_tx, egg_kk);
#pragma unroll
				for (int egg_i = 0; egg_i < TM; egg_i++)
#pragma unroll
					for (int egg_j = 0; egg_j < TN; egg_j++)
						egg_c[egg_i][egg_j] = fmaf(egg_fa[egg_i], egg_fb[egg_j], egg_c[egg_i][egg_j]);
			}
		}
		/* the epilogue, one row of the thread tile at a time: the block's values
		 * for it (WM rows of the output) staged in the free stages, then read
		 * back a row of the tile per lane group, so that the epilogue is a loop
		 * (not TM x TN copies of itself) and the output's stores are coalesced */
		egg_cp_wait<0>();
		__syncthreads();
#pragma unroll
		for (int egg_i = 0; egg_i < TM; egg_i++) {
#pragma unroll
			for (int egg_g = 0; egg_g < TN / 4; egg_g++)
				*reinterpret_cast<float4 *>(@KNAME@_smem + egg_ty * (BN + 4) + egg_g * (BN / (TN / 4)) + egg_tx * 4) =
					make_float4(egg_c[egg_i][egg_g * 4], egg_c[egg_i][egg_g * 4 + 1],
					            egg_c[egg_i][egg_g * 4 + 2], egg_c[egg_i][egg_g * 4 + 3]);
			__syncthreads();
#pragma unroll 2
			for (int egg_e = threadIdx.x; egg_e < WM * BN; egg_e += NT) {
				const long long egg_row = egg_m0 + (egg_i / 4) * (BM / (TM / 4)) + (egg_e / BN) * 4 + egg_i % 4;
				const long long egg_col = egg_n0 + egg_e % BN;
				if (egg_row < egg_m && egg_col < egg_n) {
					@TYPE@ @ACC@ = (@INIT@) + @KNAME@_smem[(egg_e / BN) * (BN + 4) + egg_e % BN];
@EPILOGUE@
				}
			}
			__syncthreads();
		}
	}
}
