#include <cuda_runtime.h>
#include <cuda_bf16.h>

__global__ void gather_k(const __nv_bfloat16 *table, const int *idx, __nv_bfloat16 *out, int n, int vocab)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) out[i] = table[idx[i]];
}

#pragma egg optimize in(table[vocab], idx[n]) out(out[n]) range(idx, 0, vocab) \
	workload(n = 1 << 16, vocab = 50000) precision(bf16)
void gather(const __nv_bfloat16 *table, const int *idx, __nv_bfloat16 *out, int n, int vocab)
{
	gather_k<<<(n + 255) / 256, 256>>>(table, idx, out, n, vocab);
}
