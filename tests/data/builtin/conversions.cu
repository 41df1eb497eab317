#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <stdio.h>
#include <stdlib.h>

// a training codebase's residual in bf16: each element converted to float, added, converted back
typedef __nv_bfloat16 floatX;

#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))
#define cudaCheck(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s\n", cudaGetErrorString(e_)); exit(EXIT_FAILURE); } } while (0)

__global__ void residual_forward_kernel(floatX *out, const floatX *inp1, const floatX *inp2, int N)
{
	int idx = blockIdx.x * blockDim.x + threadIdx.x;
	if (idx < N)
		out[idx] = __float2bfloat16(__bfloat162float(inp1[idx]) + __bfloat162float(inp2[idx]));
}

#pragma egg optimize in(inp1[N], inp2[N]) out(out[N]) tolerance(rtol = 1e-2, atol = 1e-2) \
	workload(N = 4099, block_size = 128) workload(N = 77, block_size = 32)
void residual_forward(floatX *out, const floatX *inp1, const floatX *inp2, int N, int block_size)
{
	residual_forward_kernel<<<CEIL_DIV(N, block_size), block_size>>>(out, inp1, inp2, N);
	cudaCheck(cudaGetLastError());
}
