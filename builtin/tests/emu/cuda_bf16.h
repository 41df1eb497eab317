/* cuda_bf16.h -- the CPU stand-in's bfloat16 (narrow_float.h) */
#pragma once
#include "narrow_float.h"
#include "cuda_runtime.h"
typedef egg_emu_narrow<1> __nv_bfloat16;
typedef egg_emu_narrow<1> nv_bfloat16;
typedef egg_emu_narrow2<__nv_bfloat16> __nv_bfloat162;
typedef __nv_bfloat162 nv_bfloat162;
inline float __bfloat162float(__nv_bfloat16 h) { return (float)h; }
inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __double2bfloat16(double d) { return __nv_bfloat16(d); }
inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return { __nv_bfloat16(a), __nv_bfloat16(b) }; }
inline __nv_bfloat162 __float22bfloat162_rn(float2 f) { return { __nv_bfloat16(f.x), __nv_bfloat16(f.y) }; }
inline __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 h) { return { h, h }; }
inline float2 __bfloat1622float2(__nv_bfloat162 h) { return float2{ (float)h.x, (float)h.y }; }
