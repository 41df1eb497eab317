#ifndef HELPERS_CUH
#define HELPERS_CUH
#include <cuda_runtime.h>

#define HD __host__ __device__

HD inline float lerp1(float a, float b, float t) { return a + t * (b - a); }
HD inline float not_used(float a) { return a; }

struct Range { float lo, hi; };

#endif
