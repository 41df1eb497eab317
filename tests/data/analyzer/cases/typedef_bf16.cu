// Element types through typedefs, as a training codebase writes them: floatX
// switches between bf16 and float at one line; idx_t is an int.  The bundle's
// elem_type is what the compiler sees (__nv_bfloat16, int), so the harness can
// fill, compare and hold them.
#include <cuda_runtime.h>
#include <cuda_bf16.h>

typedef __nv_bfloat16 floatX;
typedef int idx_t;

__global__ void gelu_kernel(floatX *out, const floatX *inp, idx_t n)
{
	idx_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float x = (float)inp[i];
		float cube = 0.044715f * x * x * x;
		out[i] = (floatX)(0.5f * x * (1.0f + tanhf(0.7978845608f * (x + cube))));
	}
}

#pragma egg optimize in(inp[n]) out(out[n]) workload(n = 1 << 20) tolerance(rtol = 2e-2, atol = 2e-2)
void gelu_forward(floatX *out, const floatX *inp, idx_t n)
{
	gelu_kernel<<<(n + 127) / 128, 128>>>(out, inp, n);
}
