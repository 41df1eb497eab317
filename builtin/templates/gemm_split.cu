#ifndef EGG_BUILTIN_GEMM_SPLIT
#define EGG_BUILTIN_GEMM_SPLIT
/* egg builtin gemm helpers for an operand whose k is two nested loops (ko, ki) =
 * (k / kin, k % kin) with strides of their own, a convolution's input read at
 * channel * L + tap + t (guarded: several candidates may share a file).  KI is kin
 * when it is a constant, else 0 and kin is the run-time value. */
template <int KI>
struct egg_ksplit {
	long long kin, so, si;
};

template <int KI>
static __device__ __forceinline__ egg_ksplit<KI> egg_ksplit_make(long long kin, long long so, long long si)
{
	egg_ksplit<KI> s;
	s.kin = kin;
	s.so = so;
	s.si = si;
	return s;
}

template <int KI>
static __device__ __forceinline__ long long egg_koff(const egg_ksplit<KI> &s, long long k)
{
	const long long d = KI > 0 ? (long long)KI : s.kin;
	return (k / d) * s.so + (k % d) * s.si;
}

/* egg_gemm_load's chunks with the split k: along the output dimension one
 * offset in k for 4 outputs, along k one offset per element; scalar loads */
template <int BO, int BK, int NT, bool AK, bool V, int KI>
static __device__ __forceinline__ void egg_gemm_load(float4 *r, const float *__restrict__ p,
                                                     long long so, egg_ksplit<KI> sk, long long o0,
                                                     long long no, long long k0, long long nk)
{
	constexpr int C = BO * BK / 4, L = (C + NT - 1) / NT;
#pragma unroll
	for (int l = 0; l < L; l++) {
		const int ch = threadIdx.x + l * NT;
		const int o = AK ? ch / (BK / 4) : (ch % (BO / 4)) * 4;
		const int q = AK ? (ch % (BK / 4)) * 4 : ch / (BO / 4);
		const long long go = o0 + o, gk = k0 + q;
		const bool ok = ch < C && (AK ? go < no : gk < nk);
		if (!AK) {
			r[l] = egg_gemm_ld4<false>(p + go * so + egg_koff(sk, gk), so, no - go, ok);
			continue;
		}
		float e[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
#pragma unroll
		for (int j = 0; j < 4; j++)
			if (ok && gk + j < nk)
				e[j] = __ldg(p + go * so + egg_koff(sk, gk + j));
		r[l] = make_float4(e[0], e[1], e[2], e[3]);
	}
}
#endif
