#ifndef EGG_BUILTIN_GEMM_TF32
#define EGG_BUILTIN_GEMM_TF32
#include <mma.h>
#endif

/* @LABEL@: TF32 tensor cores (the bundle's precision clause allows it), fp32
 * accumulation: a @BM@x@BN@ tile per block of 8 warps, each warp 64x32 as 4x2 wmma
 * 16x16x8 fragments; operands staged k-major in double-buffered shared memory as in
 * the fp32 kernels (the same loads, 16-byte when aligned); the epilogue runs once per
 * output from a per-warp staging tile.  sm_80 and later. */
template <bool EGG_V>
@SIG@
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
	using namespace nvcuda;
	constexpr int BM = @BM@, BN = @BN@, BK = @BK@, NT = 256;
	constexpr int LA = (BM * BK / 4 + NT - 1) / NT, LB = (BN * BK / 4 + NT - 1) / NT;
	__shared__ __align__(32) float egg_as[2][BK][BM + 4];
	__shared__ __align__(32) float egg_bs[2][BK][BN + 4];
	__shared__ __align__(32) float egg_stage[8][16 * 16];
	const long long egg_m = @M@, egg_n = @N@, egg_k = @K@, egg_nb = @BATCH@;
	const long long egg_tiles_n = (egg_n + BN - 1) / BN;
	const long long egg_m0 = (long long)(blockIdx.x / egg_tiles_n) * BM;
	const long long egg_n0 = (long long)(blockIdx.x % egg_tiles_n) * BN;
	const int egg_warp = threadIdx.x / 32, egg_lane = threadIdx.x % 32;
	const int egg_wm = (egg_warp / 4) * 64, egg_wn = (egg_warp % 4) * 32;
	const long long egg_nk = (egg_k + BK - 1) / BK;
	for (long long egg_b = blockIdx.y; egg_b < egg_nb; egg_b += gridDim.y) {
		const float *__restrict__ egg_pa = @A@ + (@AOFF@) + egg_b * (@ASB@);
		const float *__restrict__ egg_pb = @B@ + (@BOFF@) + egg_b * (@BSB@);
		wmma::fragment<wmma::accumulator, 16, 16, 8, float> egg_c[4][2];
#pragma unroll
		for (int egg_i = 0; egg_i < 4; egg_i++)
#pragma unroll
			for (int egg_j = 0; egg_j < 2; egg_j++)
				wmma::fill_fragment(egg_c[egg_i][egg_j], 0.0f);
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
			for (int egg_kk = 0; egg_kk < BK; egg_kk += 8) {
				wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::col_major> egg_fa[4];
				wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> egg_fb[2];
#pragma unroll
				for (int egg_i = 0; egg_i < 4; egg_i++) {
					wmma::load_matrix_sync(egg_fa[egg_i], &egg_as[egg_buf][egg_kk][egg_wm + egg_i * 16], BM + 4);
#pragma unroll
					for (int egg_e = 0; egg_e < egg_fa[egg_i].num_elements; egg_e++)
						egg_fa[egg_i].x[egg_e] = wmma::__float_to_tf32(egg_fa[egg_i].x[egg_e]);
				}
#pragma unroll
				for (int egg_j = 0; egg_j < 2; egg_j++) {
					wmma::load_matrix_sync(egg_fb[egg_j], &egg_bs[egg_buf][egg_kk][egg_wn + egg_j * 16], BN + 4);
#pragma unroll
					for (int egg_e = 0; egg_e < egg_fb[egg_j].num_elements; egg_e++)
						egg_fb[egg_j].x[egg_e] = wmma::__float_to_tf32(egg_fb[egg_j].x[egg_e]);
				}
#pragma unroll
				for (int egg_i = 0; egg_i < 4; egg_i++)
#pragma unroll
					for (int egg_j = 0; egg_j < 2; egg_j++)
						wmma::mma_sync(egg_c[egg_i][egg_j], egg_fa[egg_i], egg_fb[egg_j], egg_c[egg_i][egg_j]);
			}
			if (egg_kt + 1 < egg_nk) {
				egg_gemm_store<BM, BK, NT, @AK@>(egg_as[egg_buf ^ 1], egg_ra);
				egg_gemm_store<BN, BK, NT, @BKC@>(egg_bs[egg_buf ^ 1], egg_rb);
			}
			__syncthreads();
		}
#pragma unroll
		for (int egg_i = 0; egg_i < 4; egg_i++)
#pragma unroll
			for (int egg_j = 0; egg_j < 2; egg_j++) {
				wmma::store_matrix_sync(egg_stage[egg_warp], egg_c[egg_i][egg_j], 16, wmma::mem_row_major);
				__syncwarp();
				for (int egg_e = egg_lane; egg_e < 256; egg_e += 32) {
					const long long egg_row = egg_m0 + egg_wm + egg_i * 16 + egg_e / 16;
					const long long egg_col = egg_n0 + egg_wn + egg_j * 16 + egg_e % 16;
					if (egg_row < egg_m && egg_col < egg_n) {
						@TYPE@ @ACC@ = (@INIT@) + egg_stage[egg_warp][egg_e];
@EPILOGUE@
					}
				}
				__syncwarp();
			}
	}
#endif
}
