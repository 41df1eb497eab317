// A small annotated launcher for tests/suites/agents.bash: the scripted model
// server's answers replace it.
#include <cuda_runtime.h>

__global__ void scale_kernel(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = 2.0f * x[i];
}

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1 << 20)
void scale_forward(const float *x, float *y, int n)
{
    scale_kernel<<<(n + 127) / 128, 128>>>(x, y, n);
}
