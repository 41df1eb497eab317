/* cuda_bf16.h -- the CPU stand-in's bf16: the scalar type as 16 bits, converted
 * from float by round-to-nearest-even (NaN kept quiet) and to float exactly, with
 * the conversion intrinsics a kernel of the corpora calls.  Enough for check
 * programs over bf16 buffers (fill, compare) and scalar kernels; no vector pairs. */
#pragma once
#include "cuda_runtime.h"
#include <cstdint>
#include <cstring>
struct __nv_bfloat16 {
	uint16_t __x;
	__nv_bfloat16() = default;
	__host__ __device__ __nv_bfloat16(float f)
	{
		uint32_t u;
		memcpy(&u, &f, 4);
		if ((u & 0x7fffffffu) > 0x7f800000u)
			__x = (uint16_t)((u >> 16) | 0x40u);
		else
			__x = (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
	}
	__host__ __device__ __nv_bfloat16(double d) : __nv_bfloat16((float)d) {}
	__host__ __device__ operator float() const
	{
		uint32_t u = (uint32_t)__x << 16;
		float f;
		memcpy(&f, &u, 4);
		return f;
	}
};
typedef __nv_bfloat16 nv_bfloat16;
static inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
static inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
static inline float __bfloat162float(__nv_bfloat16 b) { return (float)b; }
