// egg-bench: family = gather
// egg-bench: flops = tokens * dim
// Token plus learned position embeddings (GPT-2's wte[tok] + wpe[pos]), one thread
// per output element.
#include <cuda_runtime.h>

__global__ void embed_pos(const int *tok, const float *wte, const float *wpe, float *h, int tokens,
			  int seq, int dim)
{
	int idx = blockIdx.x * blockDim.x + threadIdx.x;
	if (idx >= tokens * dim)
		return;
	int t = idx / dim, c = idx % dim;
	h[idx] = wte[tok[t] * dim + c] + wpe[(t % seq) * dim + c];
}

#pragma egg optimize in(tok[tokens], wte[vocab * dim], wpe[seq * dim]) out(h[tokens * dim]) \
	range(tok, 0, vocab) \
	workload(tokens = 32768, seq = 1024, vocab = 50257, dim = 768) \
	workload(tokens = 300, seq = 128, vocab = 97, dim = 65)
void embed_positions(const int *tok, const float *wte, const float *wpe, float *h, int tokens, int seq,
		     int vocab, int dim)
{
	int n = tokens * dim;
	embed_pos<<<(n + 255) / 256, 256>>>(tok, wte, wpe, h, tokens, seq, dim);
}
