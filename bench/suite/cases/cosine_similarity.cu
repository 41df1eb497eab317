// egg-bench: family = norm
// egg-bench: flops = 6 * rows * dim
// Row-wise cosine similarity: out[r] = <a_r, b_r> / max(|a_r| * |b_r|, 1e-8).
#include <cuda_runtime.h>
#include <math.h>

__global__ void cosine_sim_kernel(const float *a, const float *b, float *out, int rows, int dim)
{
	int r = threadIdx.x + blockIdx.x * blockDim.x;
	if (r >= rows)
		return;
	float dot = 0.0f, na = 0.0f, nb = 0.0f;
	for (int d = 0; d < dim; d++) {
		float x = a[r * dim + d];
		float y = b[r * dim + d];
		dot += x * y;
		na += x * x;
		nb += y * y;
	}
	float denom = sqrtf(na) * sqrtf(nb);
	out[r] = dot / fmaxf(denom, 1e-8f);
}

#pragma egg optimize in(a[rows * dim], b[rows * dim]) out(out[rows]) \
	workload(rows = 16384, dim = 4096) workload(rows = 999, dim = 257) \
	tolerance(rtol = 1e-3, atol = 1e-4)
void cosine_similarity(const float *a, const float *b, float *out, int rows, int dim)
{
	cosine_sim_kernel<<<(rows + 127) / 128, 128>>>(a, b, out, rows, dim);
}
