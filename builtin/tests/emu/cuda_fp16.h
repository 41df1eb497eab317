/* cuda_fp16.h -- the CPU stand-in's half (narrow_float.h) */
#pragma once
#include "narrow_float.h"
#include "cuda_runtime.h"
typedef egg_emu_narrow<0> __half;
typedef egg_emu_narrow<0> half;
typedef egg_emu_narrow2<__half> __half2;
typedef __half2 half2;
inline float __half2float(__half h) { return (float)h; }
inline __half __float2half(float f) { return __half(f); }
inline __half __float2half_rn(float f) { return __half(f); }
inline __half __double2half(double d) { return __half(d); }
inline __half2 __floats2half2_rn(float a, float b) { return { __half(a), __half(b) }; }
inline __half2 __float22half2_rn(float2 f) { return { __half(f.x), __half(f.y) }; }
inline __half2 __half2half2(__half h) { return { h, h }; }
inline float2 __half22float2(__half2 h) { return float2{ (float)h.x, (float)h.y }; }
