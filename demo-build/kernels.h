/* kernels.h -- the example project's kernels: plain, naive CUDA as people write it. */
#ifndef EXAMPLE_KERNELS_H
#define EXAMPLE_KERNELS_H

void softmax_forward(const float *x, float *y, int rows, int cols);
void bias_gelu(const float *x, const float *bias, float *y, int rows, int cols);
void row_sum(const float *x, float *out, int rows, int cols);

#endif
