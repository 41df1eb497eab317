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
#endif
