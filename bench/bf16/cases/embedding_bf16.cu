// egg-bench: family = gather
// egg-bench: flops = 0
// Token embedding lookup of a bf16 table: int ids select rows, one thread per output element.
#include <cuda_runtime.h>
#include <cuda_bf16.h>

__global__ void embedding_bf16_lookup(const int *ids, const __nv_bfloat16 *table, __nv_bfloat16 *out,
				      int num_tokens, int dim)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < num_tokens * dim) {
		int t = i / dim;
		int d = i % dim;
		out[i] = table[ids[t] * dim + d];
	}
}

#pragma egg optimize in(ids[num_tokens], table[vocab * dim]) out(out[num_tokens * dim]) \
	range(ids, 0, vocab) tolerance(rtol = 0, atol = 0) \
	workload(num_tokens = 65536, vocab = 32000, dim = 1024) \
	workload(num_tokens = 999, vocab = 50, dim = 257)
void embedding_bf16(const int *ids, const __nv_bfloat16 *table, __nv_bfloat16 *out, int num_tokens, int vocab, int dim)
{
	int n = num_tokens * dim;
	embedding_bf16_lookup<<<(n + 255) / 256, 256>>>(ids, table, out, num_tokens, dim);
}
