// Kernels written the way a first version often is (modelled on KernelBench
// level 1: pooling, argmax/argmin, cumprod, reverse cumsum, cross entropy,
// instance norm), for the builtin generator: pointer arithmetic on locals, rows
// of a few columns, blockIdx.z planes, argmax with first-max ties, argmin
// keeping the last of equal minima, product scans, loops counting down, and
// launchers that cudaMalloc and cudaFree their own scratch buffers.
#include <cuda_runtime.h>
#include <math.h>

// 1-D average pooling, kernel 4, stride 4, no padding.
// input: [rows = batch*channels, length], output: [rows, length / 4]

#define POOL_K 4

__global__ void avg_pool1d_kernel(const float *in, float *out, int rows, int length, int out_len)
{
	int idx = threadIdx.x + blockIdx.x * blockDim.x;
	if (idx >= rows * out_len)
		return;
	int r = idx / out_len;
	int o = idx % out_len;
	const float *src = in + r * length + o * POOL_K;
	float s = 0.0f;
	for (int k = 0; k < POOL_K; k++)
		s += src[k];
	out[idx] = s / POOL_K;
}

#pragma egg optimize in(in[rows * length]) out(out[rows * (length / 4)]) \
	workload(rows = 333, length = 257) workload(rows = 16384, length = 4096) \
	tolerance(rtol = 1e-5, atol = 1e-6)
void avg_pool1d(const float *in, float *out, int rows, int length)
{
	int out_len = length / POOL_K;
	int total = rows * out_len;
	avg_pool1d_kernel<<<(total + 127) / 128, 128>>>(in, out, rows, length, out_len);
}

// 2x2 max pooling, stride 2. input [planes, H, W] -> output [planes, H/2, W/2].

__global__ void maxpool2x2(const float *input, float *output, int H, int W, int OH, int OW)
{
	int ox = blockIdx.x * blockDim.x + threadIdx.x;
	int oy = blockIdx.y * blockDim.y + threadIdx.y;
	int p = blockIdx.z;
	if (ox < OW && oy < OH) {
		const float *plane = input + (size_t)p * H * W;
		int iy = oy * 2, ix = ox * 2;
		float m = plane[iy * W + ix];
		m = fmaxf(m, plane[iy * W + ix + 1]);
		m = fmaxf(m, plane[(iy + 1) * W + ix]);
		m = fmaxf(m, plane[(iy + 1) * W + ix + 1]);
		output[(size_t)p * OH * OW + oy * OW + ox] = m;
	}
}

#pragma egg optimize in(input[planes * H * W]) out(output[planes * (H / 2) * (W / 2)]) \
	workload(planes = 37, H = 33, W = 65) workload(planes = 1024, H = 256, W = 256)
void max_pool2d(const float *input, float *output, int planes, int H, int W)
{
	int OH = H / 2, OW = W / 2;
	dim3 block(16, 16, 1);
	dim3 grid((OW + 15) / 16, (OH + 15) / 16, planes);
	maxpool2x2<<<grid, block>>>(input, output, H, W, OH, OW);
}

// argmax over the last dimension: out[r] = index of the max of row r (first max wins).

__global__ void argmax_rows(const float *x, int *out, int rows, int cols)
{
	int r = blockDim.x * blockIdx.x + threadIdx.x;
	if (r < rows) {
		const float *row = x + (long)r * cols;
		float best = row[0];
		int best_j = 0;
		for (int j = 1; j < cols; j++) {
			if (row[j] > best) {
				best = row[j];
				best_j = j;
			}
		}
		out[r] = best_j;
	}
}

#pragma egg optimize in(x[rows * cols]) out(out[rows]) \
	workload(rows = 300, cols = 257) workload(rows = 16384, cols = 4096)
void argmax_dim(const float *x, int *out, int rows, int cols)
{
	argmax_rows<<<(rows + 255) / 256, 256>>>(x, out, rows, cols);
}

// Row-wise cumulative product (torch.cumprod(x, dim=1)), one thread per row.

__global__ void cumprod_kernel(const float *x, float *y, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows) return;
	float p = 1.0f;
	for (int j = 0; j < cols; j++) {
		p *= x[row * cols + j];
		y[row * cols + j] = p;
	}
}

#pragma egg optimize in(x[rows * cols]) out(y[rows * cols]) \
	workload(rows = 300, cols = 257) workload(rows = 16384, cols = 4096) \
	tolerance(rtol = 1e-3, atol = 1e-5)
void cumprod(const float *x, float *y, int rows, int cols)
{
	const int bs = 128;
	cumprod_kernel<<<(rows + bs - 1) / bs, bs>>>(x, y, rows, cols);
}

// Reverse cumulative sum along each row: out[r][j] = sum_{k >= j} x[r][k].

__global__ void reverse_cumsum_rows(const float *x, float *out, int rows, int cols)
{
	int r = threadIdx.x + blockIdx.x * blockDim.x;
	if (r < rows) {
		float running = 0.0f;
		for (int j = cols - 1; j >= 0; --j) {
			running += x[r * cols + j];
			out[r * cols + j] = running;
		}
	}
}

#pragma egg optimize in(x[rows * cols]) out(out[rows * cols]) \
	workload(rows = 300, cols = 257) workload(rows = 16384, cols = 4096) \
	tolerance(rtol = 1e-3, atol = 1e-3)
void reverse_cumsum(const float *x, float *out, int rows, int cols)
{
	int threads = 64;
	reverse_cumsum_rows<<<(rows + threads - 1) / threads, threads>>>(x, out, rows, cols);
}

// argmin over integer rows whose values repeat (ints in [0, 100)): <= keeps
// the last of equal minima, the index starts at -1 and the minimum at INT_MAX
__global__ void argmin_last_rows(const int *v, int *where, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	int lo = 2147483647;
	int at = -1;
	for (int j = 0; j < cols; j++) {
		int e = v[r * cols + j];
		if (e <= lo) {
			at = j;
			lo = e;
		}
	}
	where[r] = at;
}

#pragma egg optimize in(v[rows * cols]) out(where[rows]) \
	workload(rows = 300, cols = 100) workload(rows = 77, cols = 3) workload(rows = 8192, cols = 1000)
void argmin_last(const int *v, int *where, int rows, int cols)
{
	argmin_last_rows<<<(rows + 127) / 128, 128>>>(v, where, rows, cols);
}

// Cross-entropy loss over a batch of logits with integer class targets:
// loss = mean_r( logsumexp(logits[r, :]) - logits[r, target[r]] ).

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
	workload(batch = 300, classes = 257) workload(batch = 16384, classes = 4096) \
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

// Instance normalisation (no affine): each (n, c) plane of HW elements is normalised
// by its own mean and (biased) variance, eps = 1e-5.
// Kernel 1: one thread per plane computes mean and rstd. Kernel 2: one thread per element.

__global__ void instnorm_stats(const float *x, float *mean, float *rstd, int planes, int hw)
{
	int p = blockIdx.x * blockDim.x + threadIdx.x;
	if (p >= planes)
		return;
	const float *src = x + (long long)p * hw;
	float s = 0.0f;
	for (int i = 0; i < hw; i++)
		s += src[i];
	float m = s / hw;
	float v = 0.0f;
	for (int i = 0; i < hw; i++) {
		float d = src[i] - m;
		v += d * d;
	}
	v /= hw;
	mean[p] = m;
	rstd[p] = 1.0f / sqrtf(v + 1e-5f);
}

__global__ void instnorm_apply(const float *x, const float *mean, const float *rstd, float *y, int planes, int hw)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < (long long)planes * hw) {
		int p = (int)(i / hw);
		y[i] = (x[i] - mean[p]) * rstd[p];
	}
}

#pragma egg optimize in(x[planes * hw]) out(y[planes * hw]) \
	workload(planes = 37, hw = 999) workload(planes = 4096, hw = 16384) \
	tolerance(rtol = 1e-3, atol = 1e-3)
void instance_norm(const float *x, float *y, int planes, int hw)
{
	float *mean, *rstd;
	cudaMalloc(&mean, planes * sizeof(float));
	cudaMalloc(&rstd, planes * sizeof(float));
	instnorm_stats<<<(planes + 127) / 128, 128>>>(x, mean, rstd, planes, hw);
	long long total = (long long)planes * hw;
	instnorm_apply<<<(unsigned)((total + 255) / 256), 256>>>(x, mean, rstd, y, planes, hw);
	cudaFree(mean);
	cudaFree(rstd);
}
