#ifndef EGG_BUILTIN_GEMM
#define EGG_BUILTIN_GEMM
/* egg builtin gemm helpers (guarded: several candidates may share a file).
 * An operand tile is BO (rows or columns of the output) x BK (k), read as
 * 4-element chunks along k (AK) or along the output dimension, and staged in
 * shared memory k-major, s[k][o], so that the inner loop reads 4 consecutive
 * outputs' values as one float4. */
template <bool V>
static __device__ __forceinline__ float4 egg_gemm_ld4(const float *__restrict__ p, long long s,
                                                      long long valid, bool ok)
{
	float4 r = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
	if (!ok)
		return r;
	if (V && valid >= 4)
		return __ldg(reinterpret_cast<const float4 *>(p));
	if (valid > 0)
		r.x = __ldg(p);
	if (valid > 1)
		r.y = __ldg(p + s);
	if (valid > 2)
		r.z = __ldg(p + 2 * s);
	if (valid > 3)
		r.w = __ldg(p + 3 * s);
	return r;
}

template <int BO, int BK, int NT, bool AK, bool V>
static __device__ __forceinline__ void egg_gemm_load(float4 *r, const float *__restrict__ p,
                                                     long long so, long long sk, long long o0,
                                                     long long no, long long k0, long long nk)
{
	constexpr int C = BO * BK / 4, L = (C + NT - 1) / NT;
#pragma unroll
	for (int l = 0; l < L; l++) {
		const int ch = threadIdx.x + l * NT;
		const int o = AK ? ch / (BK / 4) : (ch % (BO / 4)) * 4;
		const int q = AK ? (ch % (BK / 4)) * 4 : ch / (BO / 4);
		const long long go = o0 + o, gk = k0 + q;
		r[l] = egg_gemm_ld4<V>(p + go * so + gk * sk, AK ? sk : so, AK ? nk - gk : no - go,
		                       ch < C && (AK ? go < no : gk < nk));
	}
}

template <int BO, int BK, int NT, bool AK>
static __device__ __forceinline__ void egg_gemm_store(float (*s)[BO + 4], const float4 *r)
{
	constexpr int C = BO * BK / 4, L = (C + NT - 1) / NT;
#pragma unroll
	for (int l = 0; l < L; l++) {
		const int ch = threadIdx.x + l * NT;
		if (ch >= C)
			break;
		const int o = AK ? ch / (BK / 4) : (ch % (BO / 4)) * 4;
		const int q = AK ? (ch % (BK / 4)) * 4 : ch / (BO / 4);
		if (AK) {
			s[q][o] = r[l].x;
			s[q + 1][o] = r[l].y;
			s[q + 2][o] = r[l].z;
			s[q + 3][o] = r[l].w;
		} else {
			*reinterpret_cast<float4 *>(&s[q][o]) = r[l];
		}
	}
}
#endif
