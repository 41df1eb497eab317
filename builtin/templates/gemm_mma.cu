#ifndef EGG_BUILTIN_GEMM_MMA
#define EGG_BUILTIN_GEMM_MMA
/* egg builtin TF32 tensor-core helpers (guarded: several candidates may share a
 * file): one mma.sync m16n8k8 (fp32 accumulation) on sm_80 and later.  A lane
 * (g = lane / 4, t = lane % 4) holds A's (g, t), (g + 8, t), (g, t + 4),
 * (g + 8, t + 4), B's (t, g), (t + 4, g) and C's (g, 2t), (g, 2t + 1),
 * (g + 8, 2t), (g + 8, 2t + 1).  Without __CUDA_ARCH__ (the CPU stand-in, which
 * has no warps' registers to exchange) it does nothing: such a candidate is
 * judged on a GPU only. */
static __device__ __forceinline__ unsigned egg_tf32(float x)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	unsigned r;
	asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
	return r;
#else
	return (unsigned)x;
#endif
}

static __device__ __forceinline__ void egg_mma_tf32(float *c, const unsigned *a, const unsigned *b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "
	             "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
	             : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
	             : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
	(void)c, (void)a, (void)b;
#endif
}
#endif

/* @LABEL@: TF32 tensor cores through mma.sync m16n8k8 (the bundle's precision
 * clause allows it), fp32 accumulation: a @BM@x@BN@ tile per block of 8 warps (2 x 4),
 * each warp (@BM@ / 2) x (@BN@ / 4) as m16n8 fragments; k in steps of @BK@ through @ST@
 * stages of shared memory that cp.async fills (templates/gemm_async_helpers.cu,
 * k-major with rows of BO + 8 floats, so that a warp's fragment reads fall on 32
 * banks); the epilogue once per output, the initial value added to the sum.
 * sm_80 and later. */
template <bool EGG_V>
@SIG@
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
	constexpr int BM = @BM@, BN = @BN@, BK = @BK@, NT = 256, ST = @ST@, GROUP = @GROUP@;
	constexpr int MI = BM / 2 / 16, NI = BN / 4 / 8;
	constexpr bool AO = @AK@, BO = @BKC@;
	constexpr int SA = BK * (BM + 8), SB = BK * (BN + 8);
	static_assert(BM % 32 == 0 && BN % 32 == 0 && BK % 8 == 0, "tile");
	extern __shared__ __align__(16) float @KNAME@_smem[];
	float *const egg_as = @KNAME@_smem, *const egg_bs = @KNAME@_smem + ST * SA;
	const long long egg_m = @M@, egg_n = @N@, egg_k = @K@, egg_nb = @BATCH@;
	long long egg_m0, egg_n0;
	egg_gemm_band<BM, BN, GROUP>(egg_m, egg_n, egg_m0, egg_n0);
	const int egg_warp = threadIdx.x / 32, egg_g = threadIdx.x % 32 / 4, egg_t = threadIdx.x % 4;
	const int egg_wm = (egg_warp / 4) * (BM / 2), egg_wn = (egg_warp % 4) * (BN / 4);
	const long long egg_nk = (egg_k + BK - 1) / BK;
	for (long long egg_b = blockIdx.y; egg_b < egg_nb; egg_b += gridDim.y) {
		const float *__restrict__ egg_pa = @A@ + (@AOFF@) + egg_b * (@ASB@);
		const float *__restrict__ egg_pb = @B@ + (@BOFF@) + egg_b * (@BSB@);
		const egg_gemm_src<BM, BK, NT, AO, 8> egg_ca = egg_gemm_src_at<BM, BK, NT, AO, 8>(egg_pa, @SAM@, @SAK@, egg_m0);
		const egg_gemm_src<BN, BK, NT, BO, 8> egg_cb = egg_gemm_src_at<BN, BK, NT, BO, 8>(egg_pb, @SBN@, @SBK@, egg_n0);
		float egg_c[MI][NI][4];
#pragma unroll
		for (int egg_i = 0; egg_i < MI; egg_i++)
#pragma unroll
			for (int egg_j = 0; egg_j < NI; egg_j++)
#pragma unroll
				for (int egg_r = 0; egg_r < 4; egg_r++)
					egg_c[egg_i][egg_j][egg_r] = 0.0f;
#pragma unroll
		for (int egg_s = 0; egg_s < ST - 1; egg_s++) {
			if (egg_s < egg_nk) {
				egg_gemm_copy<BM, BK, NT, AO, EGG_V && @AVEC@, 8>(egg_as + egg_s * SA, egg_ca, egg_pa, @SAM@, @SAK@, egg_m, (long long)egg_s * BK, egg_k);
				egg_gemm_copy<BN, BK, NT, BO, EGG_V && @BVEC@, 8>(egg_bs + egg_s * SB, egg_cb, egg_pb, @SBN@, @SBK@, egg_n, (long long)egg_s * BK, egg_k);
			}
			egg_cp_commit();
		}
		int egg_rs = 0, egg_ws = ST - 1;
		for (long long egg_kt = 0; egg_kt < egg_nk; egg_kt++) {
			egg_cp_wait<ST - 2>();
			__syncthreads();
			if (egg_kt + ST - 1 < egg_nk) {
				const long long egg_k0 = (egg_kt + ST - 1) * BK;
				egg_gemm_copy<BM, BK, NT, AO, EGG_V && @AVEC@, 8>(egg_as + egg_ws * SA, egg_ca, egg_pa, @SAM@, @SAK@, egg_m, egg_k0, egg_k);
				egg_gemm_copy<BN, BK, NT, BO, EGG_V && @BVEC@, 8>(egg_bs + egg_ws * SB, egg_cb, egg_pb, @SBN@, @SBK@, egg_n, egg_k0, egg_k);
			}
			egg_cp_commit();
			const float *egg_sa = egg_as + egg_rs * SA + egg_wm + egg_g, *egg_sb = egg_bs + egg_rs * SB + egg_wn + egg_g;
			egg_rs = egg_rs + 1 == ST ? 0 : egg_rs + 1;
			egg_ws = egg_ws + 1 == ST ? 0 : egg_ws + 1;
#pragma unroll
			for (int egg_kk = 0; egg_kk < BK; egg_kk += 8) {
				const float *egg_ra = egg_sa + (egg_kk + egg_t) * (BM + 8), *egg_rb = egg_sb + (egg_kk + egg_t) * (BN + 8);
				unsigned egg_fa[MI][4], egg_fb[NI][2];
#pragma unroll
				for (int egg_i = 0; egg_i < MI; egg_i++) {
					egg_fa[egg_i][0] = egg_tf32(egg_ra[egg_i * 16]);
					egg_fa[egg_i][1] = egg_tf32(egg_ra[egg_i * 16 + 8]);
					egg_fa[egg_i][2] = egg_tf32(egg_ra[4 * (BM + 8) + egg_i * 16]);
					egg_fa[egg_i][3] = egg_tf32(egg_ra[4 * (BM + 8) + egg_i * 16 + 8]);
				}
#pragma unroll
				for (int egg_j = 0; egg_j < NI; egg_j++) {
					egg_fb[egg_j][0] = egg_tf32(egg_rb[egg_j * 8]);
					egg_fb[egg_j][1] = egg_tf32(egg_rb[4 * (BN + 8) + egg_j * 8]);
				}
#pragma unroll
				for (int egg_i = 0; egg_i < MI; egg_i++)
#pragma unroll
					for (int egg_j = 0; egg_j < NI; egg_j++)
						egg_mma_tf32(egg_c[egg_i][egg_j], egg_fa[egg_i], egg_fb[egg_j]);
			}
		}
		egg_cp_wait<0>();
		__syncthreads();
#pragma unroll
		for (int egg_i = 0; egg_i < MI; egg_i++)
#pragma unroll
			for (int egg_j = 0; egg_j < NI; egg_j++)
#pragma unroll
				for (int egg_r = 0; egg_r < 4; egg_r++) {
					const long long egg_row = egg_m0 + egg_wm + egg_i * 16 + egg_g + (egg_r / 2) * 8;
					const long long egg_col = egg_n0 + egg_wn + egg_j * 8 + egg_t * 2 + egg_r % 2;
					if (egg_row < egg_m && egg_col < egg_n) {
						@TYPE@ @ACC@ = (@INIT@) + egg_c[egg_i][egg_j][egg_r];
@EPILOGUE@
					}
				}
	}
#endif
}
