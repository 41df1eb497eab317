/* egg builtin generator: division by a launch's scalar (guarded: several candidates may share a file).
 * A kernel parameter that the body divides by is passed as egg_div<T>: the host
 * works out, once per launch, whether the divisor is a power of two (a shift and
 * a mask) or another value below 2^32 (a 64-bit reciprocal, Lemire's exact
 * 32-bit fastdiv and fastmod); x / d and x % d take the quick way when x is
 * in [0, 2^32), the division as written otherwise (a negative x, a divisor that
 * is 0, negative or wider).  Every other use of the parameter sees T. */
#ifndef EGG_BUILTIN_FASTDIV
#define EGG_BUILTIN_FASTDIV
#include <type_traits>
static __host__ __device__ __forceinline__ unsigned long long egg_mulhi64(unsigned long long a, unsigned long long b)
{
#ifdef __CUDA_ARCH__
	return __umul64hi(a, b);
#else
	return (unsigned long long)(((unsigned __int128)a * b) >> 64);
#endif
}
/* a < 0 without a comparison of an unsigned type with 0 */
template <class A> static __host__ __device__ __forceinline__ bool egg_negative(A a)
{
	return std::is_signed<A>::value && (long long)a < 0;
}
template <class T> struct egg_div {
	T v;
	int shift;                /* log2(v) when v is a power of two, else -1 */
	unsigned long long magic; /* ceil(2^64 / v) for another v in [3, 2^32), else 0 */
	egg_div() = default;
	__host__ __device__ egg_div(T x) : v(x), shift(-1), magic(0)
	{
		if (x > 0 && (unsigned long long)x <= 0xffffffffull) {
			const unsigned long long u = (unsigned long long)x;
			if ((u & (u - 1)) == 0)
				for (shift = 0; (1ull << shift) < u; shift++)
					;
			else
				magic = 0xffffffffffffffffull / u + 1;
		}
	}
	__host__ __device__ operator T() const { return v; }
};
template <class A, class T, class = typename std::enable_if<std::is_integral<A>::value>::type>
static __host__ __device__ __forceinline__ auto operator/(A a, const egg_div<T> &d) -> decltype(a / d.v)
{
	typedef decltype(a / d.v) R;
	if (!egg_negative(a) && (unsigned long long)a <= 0xffffffffull) {
		if (d.shift >= 0)
			return (R)((unsigned long long)a >> d.shift);
		if (d.magic)
			return (R)egg_mulhi64(d.magic, (unsigned long long)a);
	}
	return a / d.v;
}
template <class A, class T, class = typename std::enable_if<std::is_integral<A>::value>::type>
static __host__ __device__ __forceinline__ auto operator%(A a, const egg_div<T> &d) -> decltype(a % d.v)
{
	typedef decltype(a % d.v) R;
	if (!egg_negative(a) && (unsigned long long)a <= 0xffffffffull) {
		if (d.shift >= 0)
			return (R)((unsigned long long)a & ((1ull << d.shift) - 1));
		if (d.magic)
			return (R)egg_mulhi64(d.magic * (unsigned long long)a, (unsigned long long)d.v);
	}
	return a % d.v;
}
template <class A, class T, class = typename std::enable_if<std::is_integral<A>::value>::type>
static __host__ __device__ __forceinline__ A &operator/=(A &a, const egg_div<T> &d)
{
	return a = (A)(a / d);
}
template <class A, class T, class = typename std::enable_if<std::is_integral<A>::value>::type>
static __host__ __device__ __forceinline__ A &operator%=(A &a, const egg_div<T> &d)
{
	return a = (A)(a % d);
}
#endif
