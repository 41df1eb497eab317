// egg-bench: family = softmax
// egg-bench: flops = 4 * batch * classes
// Cross-entropy loss over a batch of logits with integer class targets:
// loss = mean_r( logsumexp(logits[r, :]) - logits[r, target[r]] ).
#include <cuda_runtime.h>
#include <math.h>

__global__ void ce_row_loss(const float *logits, const int *targets, float *row_loss, int batch, int classes)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= batch)
		return;
	const float *row = logits + r * classes;
	float mx = row[0];
	for (int c = 1; c < classes; c++)
		if (row[c] > mx)
			mx = row[c];
	float s = 0.0f;
	for (int c = 0; c < classes; c++)
		s += expf(row[c] - mx);
	float lse = mx + logf(s);
	row_loss[r] = lse - row[targets[r]];
}

__global__ void ce_mean(const float *row_loss, float *out, int batch)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r < batch)
		atomicAdd(out, row_loss[r] / batch);
}

#pragma egg optimize in(logits[batch * classes], targets[batch]) out(out[1]) \
	range(targets, 0, classes) \
	workload(batch = 16384, classes = 4096) workload(batch = 999, classes = 257) \
	tolerance(rtol = 1e-3, atol = 1e-3)
void cross_entropy(const float *logits, const int *targets, float *out, int batch, int classes)
{
	float *row_loss;
	cudaMalloc(&row_loss, sizeof(float) * batch);
	cudaMemset(out, 0, sizeof(float));
	int threads = 256;
	int blocks = (batch + threads - 1) / threads;
	ce_row_loss<<<blocks, threads>>>(logits, targets, row_loss, batch, classes);
	ce_mean<<<blocks, threads>>>(row_loss, out, batch);
	cudaFree(row_loss);
}
