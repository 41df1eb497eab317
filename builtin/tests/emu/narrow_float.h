/*
 * narrow_float.h -- the CPU stand-in's bf16 and half (cuda_bf16.h and
 * cuda_fp16.h beside it include this): 16-bit storage types that convert to and
 * from float with round-to-nearest-even as the GPU's __float2bfloat16_rn and
 * __float2half_rn do, read as float wherever the code computes (so a stand-in
 * sum of two bf16 is a float, where a GPU's operator+ would round it to bf16:
 * references and candidates run on the same stand-in, and a check compares them
 * within the bundle's tolerance), their x2 vector forms and the conversion
 * intrinsics the builtin generator and hand-written kernels use.
 */
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

inline float egg_emu_f32(uint32_t bits)
{
	float f;
	memcpy(&f, &bits, sizeof f);
	return f;
}

inline uint32_t egg_emu_u32(float f)
{
	uint32_t bits;
	memcpy(&bits, &f, sizeof bits);
	return bits;
}

inline uint16_t egg_emu_to_bf16(float f)
{
	uint32_t u = egg_emu_u32(f);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40); /* a quiet NaN */
	u += 0x7fffu + ((u >> 16) & 1);
	return (uint16_t)(u >> 16);
}

inline float egg_emu_from_bf16(uint16_t h) { return egg_emu_f32((uint32_t)h << 16); }

inline uint16_t egg_emu_to_half(float f)
{
	uint32_t u = egg_emu_u32(f), sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
	if (a > 0x7f800000u)
		return (uint16_t)(sign | 0x7e00u);
	if (a >= 0x477ff000u) /* 65520 and up round to infinity */
		return (uint16_t)(sign | 0x7c00u);
	int e = (int)(a >> 23) - 127;
	uint32_t m = (a & 0x7fffffu) | 0x800000u;
	if (e < -25) /* below half of the smallest subnormal */
		return (uint16_t)sign;
	int shift = e >= -14 ? 13 : 13 + (-14 - e); /* a subnormal keeps fewer bits */
	uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), halfway = 1u << (shift - 1);
	if (rem > halfway || (rem == halfway && (q & 1)))
		q++;
	if (e >= -14) /* normal: the exponent above the 10 bits (a carry moves it up) */
		return (uint16_t)(sign | ((uint32_t)(e + 15) << 10) + (q - 0x400u));
	return (uint16_t)(sign | q);
}

inline float egg_emu_from_half(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ffu;
	if (e == 31)
		return egg_emu_f32(sign | 0x7f800000u | (m << 13));
	if (e == 0)
		return (sign ? -1.0f : 1.0f) * std::ldexp((float)m, -24);
	return egg_emu_f32(sign | ((e + 112) << 23) | (m << 13));
}

/* One 16-bit float type: Bf 1 is bfloat16, 0 half. */
template <int Bf> struct egg_emu_narrow {
	uint16_t __x;
	egg_emu_narrow() = default;
	template <class T, class = std::enable_if_t<std::is_arithmetic<T>::value>>
	egg_emu_narrow(T v) : __x(Bf ? egg_emu_to_bf16((float)v) : egg_emu_to_half((float)v)) {}
	operator float() const { return Bf ? egg_emu_from_bf16(__x) : egg_emu_from_half(__x); }
	template <class T> egg_emu_narrow &operator+=(T v) { return *this = (float)*this + (float)v; }
	template <class T> egg_emu_narrow &operator-=(T v) { return *this = (float)*this - (float)v; }
	template <class T> egg_emu_narrow &operator*=(T v) { return *this = (float)*this * (float)v; }
	template <class T> egg_emu_narrow &operator/=(T v) { return *this = (float)*this / (float)v; }
};

template <class N> struct alignas(4) egg_emu_narrow2 {
	N x, y;
};

/* the arithmetic and halves of both types (cuda_bf16.h and cuda_fp16.h name them alike) */
template <int B> using egg_emu_n = egg_emu_narrow<B>;
template <int B> egg_emu_n<B> __hadd(egg_emu_n<B> a, egg_emu_n<B> b) { return (float)a + (float)b; }
template <int B> egg_emu_n<B> __hsub(egg_emu_n<B> a, egg_emu_n<B> b) { return (float)a - (float)b; }
template <int B> egg_emu_n<B> __hmul(egg_emu_n<B> a, egg_emu_n<B> b) { return (float)a * (float)b; }
template <int B> egg_emu_n<B> __hdiv(egg_emu_n<B> a, egg_emu_n<B> b) { return (float)a / (float)b; }
template <int B> egg_emu_n<B> __hneg(egg_emu_n<B> a) { return -(float)a; }
template <int B> egg_emu_n<B> __hmax(egg_emu_n<B> a, egg_emu_n<B> b) { return (float)a >= (float)b ? a : b; }
template <int B> egg_emu_n<B> __hmin(egg_emu_n<B> a, egg_emu_n<B> b) { return (float)a <= (float)b ? a : b; }
template <int B> egg_emu_n<B> __hfma(egg_emu_n<B> a, egg_emu_n<B> b, egg_emu_n<B> c)
{
	return fmaf((float)a, (float)b, (float)c);
}
template <class N> float __low2float(egg_emu_narrow2<N> h) { return (float)h.x; }
template <class N> float __high2float(egg_emu_narrow2<N> h) { return (float)h.y; }
