#ifndef EGG_BUILTIN_GEMM_ASYNC
#define EGG_BUILTIN_GEMM_ASYNC
/* egg builtin gemm helpers for the multi-stage kernels (guarded: several
 * candidates may share a file).  Global memory goes to shared memory without
 * registers: cp.async on sm_80 and later (16-byte copies of aligned whole
 * chunks, 4-byte ones with zero fill elsewhere), a plain load and store on older
 * devices and on the CPU stand-in (no __CUDA_ARCH__), where the copy is
 * complete when it returns and commit / wait have nothing to do.
 * An operand tile is BO outputs (rows of A or columns of B) x BK of k, staged
 * k-major, s[k][BO + P], so that one float4 read gives a thread 4 outputs' values
 * at one k; the pad (4; 8 for the tensor cores' fragments) keeps a warp's
 * transposing copies and its reads free of bank conflicts. */
static __device__ __forceinline__ void egg_cp16(float *s, const float *g)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	const unsigned a = (unsigned)__cvta_generic_to_shared(s);
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(a), "l"(g));
#else
	*reinterpret_cast<float4 *>(s) = __ldg(reinterpret_cast<const float4 *>(g));
#endif
}

/* ok false: the element is 0 and g is not read */
static __device__ __forceinline__ void egg_cp4(float *s, const float *g, bool ok)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	const unsigned a = (unsigned)__cvta_generic_to_shared(s);
	asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(a), "l"(g), "r"(ok ? 4 : 0));
#else
	*s = ok ? __ldg(g) : 0.0f;
#endif
}

static __device__ __forceinline__ void egg_cp_commit()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	asm volatile("cp.async.commit_group;\n" ::);
#endif
}

/* every copy but the N most recent groups of this thread has landed */
template <int N>
static __device__ __forceinline__ void egg_cp_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}

/* The block's tile of the output (m0, n0): bands of G tile rows, down each
 * column of a band, so that the blocks resident together share their operands
 * in L2 */
template <int BM, int BN, int G>
static __device__ __forceinline__ void egg_gemm_band(long long m, long long n, long long &m0, long long &n0)
{
	const long long tm = (m + BM - 1) / BM, tn = (n + BN - 1) / BN;
	const long long band = (long long)blockIdx.x / (G * tn), in = (long long)blockIdx.x % (G * tn);
	const long long rows = tm - band * G < G ? tm - band * G : G;
	m0 = (band * G + in % rows) * BM;
	n0 = (in / rows) * BN;
}

/* A thread's copies of an operand tile, BO outputs (o0 ..) x BK of k, into
 * s[k][BO + P], zero beyond no outputs and nk of k.  OM (k contiguous): one
 * element per copy, KT consecutive k of R rows per thread (one pointer each),
 * the tile transposed on its way to shared memory (a warp's writes fall on
 * distinct banks); else R chunks of 4 outputs, a 16-byte copy each when V (the
 * host found base and strides aligned) and the chunk is whole.  The thread's
 * first copy is at (o, q) of the tile, read from g at step 0; its others are D
 * rows (OM) or D of k (else) apart. */
template <int BO, int BK, int NT, bool OM, int P = 4>
struct egg_gemm_src {
	static constexpr int E = BO * BK / NT;                     /* elements per thread */
	static constexpr int KT = OM ? (E < BK ? E : BK) : 4;      /* per row or chunk */
	static constexpr int R = OM ? E / KT : E / 4;              /* rows or chunks */
	static constexpr int TW = OM ? BK / KT : BO / 4;           /* threads across one */
	static constexpr int D = NT / TW;
	static_assert(BO * BK % NT == 0 && E % KT == 0 && NT % TW == 0, "copy map");
	const float *g;
	long long go, gq; /* the first copy's output and k in the operand */
	int off;          /* and its place in the stage */
	long long dg;     /* from one row or chunk to the next */
};

template <int BO, int BK, int NT, bool OM, int P = 4>
static __device__ __forceinline__ egg_gemm_src<BO, BK, NT, OM, P> egg_gemm_src_at(const float *p, long long so,
                                                                                long long sk, long long o0)
{
	using S = egg_gemm_src<BO, BK, NT, OM, P>;
	S c;
	const int o = OM ? threadIdx.x / S::TW : (threadIdx.x % S::TW) * 4;
	const int q = OM ? (threadIdx.x % S::TW) * S::KT : threadIdx.x / S::TW;
	c.go = o0 + o;
	c.gq = q;
	c.off = q * (BO + P) + o;
	c.g = p + c.go * so + q * sk;
	c.dg = (long long)S::D * (OM ? so : sk);
	return c;
}

template <int BO, int BK, int NT, bool OM, bool V, int P = 4>
static __device__ __forceinline__ void egg_gemm_copy(float *s, const egg_gemm_src<BO, BK, NT, OM, P> &c,
                                                     const float *p, long long so, long long sk,
                                                     long long no, long long k0, long long nk)
{
	using S = egg_gemm_src<BO, BK, NT, OM, P>;
	const float *g = c.g + k0 * sk;
#pragma unroll
	for (int r = 0; r < S::R; r++) {
		const float *gr = g + r * c.dg;
		if (OM) {
			const bool row = c.go + r * S::D < no;
#pragma unroll
			for (int e = 0; e < S::KT; e++) {
				const bool in = row && k0 + c.gq + e < nk;
				egg_cp4(s + c.off + e * (BO + P) + r * S::D, in ? gr + e * sk : p, in);
			}
			continue;
		}
		const long long gk = k0 + c.gq + r * S::D;
		float *d = s + c.off + r * S::D * (BO + P);
		if (V && gk < nk && no - c.go >= 4) {
			egg_cp16(d, gr);
		} else {
#pragma unroll
			for (int e = 0; e < 4; e++) {
				const bool in = gk < nk && c.go + e < no;
				egg_cp4(d + e, in ? gr + e * so : p, in);
			}
		}
	}
}

/* The thread's T values of the operand at k from the staged tile s[k][BO + 4]:
 * in groups of 4 a BO / (T / 4) apart, one float4 read each (conflict-free: a
 * warp reads consecutive groups) */
template <int BO, int T>
static __device__ __forceinline__ void egg_gemm_frag(float *f, const float *s, int t, int k)
{
#pragma unroll
	for (int g = 0; g < T / 4; g++) {
		const float4 v = *reinterpret_cast<const float4 *>(s + k * (BO + 4) + g * (BO / (T / 4)) + t * 4);
		f[g * 4] = v.x;
		f[g * 4 + 1] = v.y;
		f[g * 4 + 2] = v.z;
		f[g * 4 + 3] = v.w;
	}
}
#endif
