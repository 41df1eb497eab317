/* kern.h -- shared declarations for the equivalence corpus. */
#ifndef KERN_H
#define KERN_H
#include <cuda_runtime.h>
#ifndef SCALE
#define SCALE 2.0f
#endif
void saxpy_launch(int n, float a, const float *x, float *y, cudaStream_t s);
#endif
