/* egg builtin generator: packs of the narrow float types (bf16, half), for candidates
 * whose buffers hold them: 2, 4 or 8 elements that move through memory as one word of
 * their size (8 bf16: one 16-byte access), read and written element by element
 * (.e[k]: a conversion to fp32 where the code computes, as the reference does). */
#ifndef EGG_BUILTIN_NARROW
#define EGG_BUILTIN_NARROW
template <class T, int N> struct alignas(sizeof(T) * N) egg_pack {
	T e[N];
};
/* the bits of one type as another of the same size (a pack as its word, and back) */
template <class To, class From> static __device__ __forceinline__ To egg_bits(const From &f)
{
	static_assert(sizeof(To) == sizeof(From), "a pack and its word have one size");
	To t;
	__builtin_memcpy(&t, &f, sizeof t);
	return t;
}
/* tanhf through the hardware's tanh (sm_75 and later: relative error 2^-11, below a
 * quarter of the rounding of a bf16 output), for the points of maps whose every output
 * is narrow; elsewhere (an older device, the CPU stand-in) tanhf itself */
static __device__ __forceinline__ __attribute__((unused)) float egg_tanhf_approx(float x)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
	float y;
	asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
	return y;
#else
	return tanhf(x);
#endif
}
#endif
