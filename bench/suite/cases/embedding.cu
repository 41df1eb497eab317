// egg-bench: family = gather
// egg-bench: flops = 0
// Token embedding lookup (nn.Embedding): int64 token ids select rows of the table,
// one thread per output element.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void embedding_lookup(const int64_t *ids, const float *table, float *out, int num_tokens, int dim)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < num_tokens * dim) {
		int t = i / dim;
		int d = i % dim;
		out[i] = table[ids[t] * dim + d];
	}
}

#pragma egg optimize in(ids[num_tokens], table[vocab * dim]) out(out[num_tokens * dim]) \
	range(ids, 0, vocab) \
	workload(num_tokens = 65536, vocab = 32000, dim = 1024) \
	workload(num_tokens = 999, vocab = 50, dim = 257)
void embedding(const int64_t *ids, const float *table, float *out, int num_tokens, int vocab, int dim)
{
	int n = num_tokens * dim;
	embedding_lookup<<<(n + 255) / 256, 256>>>(ids, table, out, num_tokens, dim);
}
