// fastpath.cu -- a realistic translation unit WITHOUT any egg annotation: the
// kind of file egg-cc must hand to nvcc at no noticeable cost.  Kernels for
// element-wise work, reductions, a tiled matrix multiply, softmax, layer norm,
// a histogram and a block scan, with host launchers and error checking.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>

#define CUDA_CHECK(call)                                                          \
	do {                                                                          \
		cudaError_t err_ = (call);                                                \
		if (err_ != cudaSuccess) {                                                \
			std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,              \
			             cudaGetErrorString(err_));                               \
			std::exit(1);                                                         \
		}                                                                         \
	} while (0)

namespace fp {

constexpr int kBlock = 256;
constexpr int kTile = 16;

inline int blocks_for(int n, int block = kBlock) { return (n + block - 1) / block; }

// ---------------------------------------------------------------- element-wise

__global__ void axpby(int n, float a, const float *x, float b, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	for (; i < n; i += blockDim.x * gridDim.x)
		y[i] = a * x[i] + b * y[i];
}

template <typename T>
__global__ void clamp_inplace(T *x, int n, T lo, T hi)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = x[i] < lo ? lo : (x[i] > hi ? hi : x[i]);
}

__device__ __forceinline__ float gelu(float v)
{
	const float c = 0.7978845608f;
	return 0.5f * v * (1.0f + tanhf(c * (v + 0.044715f * v * v * v)));
}

__global__ void bias_gelu(float *x, const float *bias, int rows, int cols)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < rows * cols)
		x[i] = gelu(x[i] + bias[i % cols]);
}

// ------------------------------------------------------------------ reductions

struct SumOp {
	static __device__ __forceinline__ float apply(float a, float b) { return a + b; }
	static __device__ __forceinline__ float identity() { return 0.0f; }
};

struct MaxOp {
	static __device__ __forceinline__ float apply(float a, float b) { return fmaxf(a, b); }
	static __device__ __forceinline__ float identity() { return -INFINITY; }
};

template <typename Op>
__device__ __forceinline__ float warp_reduce(float v)
{
	for (int off = 16; off > 0; off >>= 1)
		v = Op::apply(v, __shfl_down_sync(0xffffffffu, v, off));
	return v;
}

// Reduces v over the block; the result is valid in thread 0.
template <typename Op>
__device__ float block_reduce(float v)
{
	__shared__ float partial[32];
	int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	v = warp_reduce<Op>(v);
	if (lane == 0)
		partial[warp] = v;
	__syncthreads();
	v = threadIdx.x < blockDim.x / 32 ? partial[lane] : Op::identity();
	if (warp == 0)
		v = warp_reduce<Op>(v);
	__syncthreads();
	return v;
}

__device__ float block_sum(float v) { return block_reduce<SumOp>(v); }
__device__ float block_max(float v) { return block_reduce<MaxOp>(v); }

__global__ void sum_reduce(const float *x, float *out, int n)
{
	float acc = 0.0f;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		acc += x[i];
	acc = block_sum(acc);
	if (threadIdx.x == 0)
		atomicAdd(out, acc);
}

// --------------------------------------------------------------------- matmul

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int N, int K)
{
	__shared__ float As[kTile][kTile];
	__shared__ float Bs[kTile][kTile];
	int row = blockIdx.y * kTile + threadIdx.y;
	int col = blockIdx.x * kTile + threadIdx.x;
	float acc = 0.0f;
	for (int t = 0; t < (K + kTile - 1) / kTile; t++) {
		int ka = t * kTile + threadIdx.x, kb = t * kTile + threadIdx.y;
		As[threadIdx.y][threadIdx.x] = row < M && ka < K ? A[row * K + ka] : 0.0f;
		Bs[threadIdx.y][threadIdx.x] = kb < K && col < N ? B[kb * N + col] : 0.0f;
		__syncthreads();
#pragma unroll
		for (int k = 0; k < kTile; k++)
			acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
		__syncthreads();
	}
	if (row < M && col < N)
		C[row * N + col] = acc;
}

// ------------------------------------------------------- softmax and layernorm

__global__ void softmax_rows(const float *x, float *y, int cols)
{
	const float *in = x + (size_t)blockIdx.x * cols;
	float *out = y + (size_t)blockIdx.x * cols;
	__shared__ float s_max, s_sum;
	float m = -INFINITY;
	for (int c = threadIdx.x; c < cols; c += blockDim.x)
		m = fmaxf(m, in[c]);
	m = block_max(m);
	if (threadIdx.x == 0)
		s_max = m;
	__syncthreads();
	float s = 0.0f;
	for (int c = threadIdx.x; c < cols; c += blockDim.x)
		s += __expf(in[c] - s_max);
	s = block_sum(s);
	if (threadIdx.x == 0)
		s_sum = s;
	__syncthreads();
	for (int c = threadIdx.x; c < cols; c += blockDim.x)
		out[c] = __expf(in[c] - s_max) / s_sum;
}

__global__ void layernorm_rows(const float *x, float *y, const float *gamma, const float *beta,
                               int cols, float eps)
{
	const float *in = x + (size_t)blockIdx.x * cols;
	float *out = y + (size_t)blockIdx.x * cols;
	__shared__ float s_mean, s_rstd;
	float s = 0.0f;
	for (int c = threadIdx.x; c < cols; c += blockDim.x)
		s += in[c];
	s = block_sum(s);
	if (threadIdx.x == 0)
		s_mean = s / cols;
	__syncthreads();
	float v = 0.0f;
	for (int c = threadIdx.x; c < cols; c += blockDim.x) {
		float d = in[c] - s_mean;
		v += d * d;
	}
	v = block_sum(v);
	if (threadIdx.x == 0)
		s_rstd = rsqrtf(v / cols + eps);
	__syncthreads();
	for (int c = threadIdx.x; c < cols; c += blockDim.x)
		out[c] = (in[c] - s_mean) * s_rstd * gamma[c] + beta[c];
}

// ------------------------------------------------------- histogram and scan

__global__ void histogram256(const unsigned char *data, unsigned int *hist, int n)
{
	__shared__ unsigned int local[256];
	for (int b = threadIdx.x; b < 256; b += blockDim.x)
		local[b] = 0;
	__syncthreads();
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		atomicAdd(&local[data[i]], 1u);
	__syncthreads();
	for (int b = threadIdx.x; b < 256; b += blockDim.x)
		atomicAdd(&hist[b], local[b]);
}

__global__ void block_scan(const int *in, int *out, int n)
{
	__shared__ int buf[2 * kBlock];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int pin = 0, pout = 1;
	buf[threadIdx.x] = i < n ? in[i] : 0;
	__syncthreads();
	for (int off = 1; off < blockDim.x; off <<= 1) {
		pout = 1 - pout;
		pin = 1 - pout;
		int v = buf[pin * kBlock + threadIdx.x];
		if (threadIdx.x >= off)
			v += buf[pin * kBlock + threadIdx.x - off];
		buf[pout * kBlock + threadIdx.x] = v;
		__syncthreads();
	}
	if (i < n)
		out[i] = buf[pout * kBlock + threadIdx.x];
}

// ------------------------------------------------------------------ launchers

struct DeviceBuffer {
	float *ptr = nullptr;
	size_t count = 0;
	explicit DeviceBuffer(size_t n) : count(n) { CUDA_CHECK(cudaMalloc(&ptr, n * sizeof(float))); }
	~DeviceBuffer() { cudaFree(ptr); }
	DeviceBuffer(const DeviceBuffer &) = delete;
	DeviceBuffer &operator=(const DeviceBuffer &) = delete;
	void upload(const std::vector<float> &h)
	{
		CUDA_CHECK(cudaMemcpy(ptr, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
	}
	std::vector<float> download() const
	{
		std::vector<float> h(count);
		CUDA_CHECK(cudaMemcpy(h.data(), ptr, count * sizeof(float), cudaMemcpyDeviceToHost));
		return h;
	}
};

void launch_matmul(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t s)
{
	dim3 block(kTile, kTile);
	dim3 grid((N + kTile - 1) / kTile, (M + kTile - 1) / kTile);
	matmul_tiled<<<grid, block, 0, s>>>(A, B, C, M, N, K);
	CUDA_CHECK(cudaGetLastError());
}

void launch_softmax(const float *x, float *y, int rows, int cols, cudaStream_t s)
{
	softmax_rows<<<rows, kBlock, 0, s>>>(x, y, cols);
	CUDA_CHECK(cudaGetLastError());
}

void launch_layernorm(const float *x, float *y, const float *g, const float *b, int rows, int cols,
                      cudaStream_t s)
{
	layernorm_rows<<<rows, kBlock, 0, s>>>(x, y, g, b, cols, 1e-5f);
	CUDA_CHECK(cudaGetLastError());
}

float device_sum(const float *x, int n, cudaStream_t s)
{
	float *d_out, h_out = 0.0f;
	CUDA_CHECK(cudaMalloc(&d_out, sizeof(float)));
	CUDA_CHECK(cudaMemsetAsync(d_out, 0, sizeof(float), s));
	sum_reduce<<<blocks_for(n) < 1024 ? blocks_for(n) : 1024, kBlock, 0, s>>>(x, d_out, n);
	CUDA_CHECK(cudaMemcpyAsync(&h_out, d_out, sizeof(float), cudaMemcpyDeviceToHost, s));
	CUDA_CHECK(cudaStreamSynchronize(s));
	CUDA_CHECK(cudaFree(d_out));
	return h_out;
}

template void __global__ clamp_inplace<float>(float *, int, float, float);
template void __global__ clamp_inplace<int>(int *, int, int, int);

} // namespace fp

int fastpath_selftest()
{
	const int rows = 64, cols = 512, n = rows * cols;
	std::vector<float> h(n);
	for (int i = 0; i < n; i++)
		h[i] = std::sin(0.01f * i);
	fp::DeviceBuffer x(n), y(n), g(cols), b(cols);
	x.upload(h);
	g.upload(std::vector<float>(cols, 1.0f));
	b.upload(std::vector<float>(cols, 0.0f));
	cudaStream_t s;
	CUDA_CHECK(cudaStreamCreate(&s));
	fp::launch_softmax(x.ptr, y.ptr, rows, cols, s);
	float total = fp::device_sum(y.ptr, n, s);
	fp::launch_layernorm(x.ptr, y.ptr, g.ptr, b.ptr, rows, cols, s);
	fp::axpby<<<fp::blocks_for(n), fp::kBlock, 0, s>>>(n, 2.0f, x.ptr, 0.5f, y.ptr);
	fp::bias_gelu<<<fp::blocks_for(n), fp::kBlock, 0, s>>>(y.ptr, b.ptr, rows, cols);
	CUDA_CHECK(cudaStreamSynchronize(s));
	CUDA_CHECK(cudaStreamDestroy(s));
	std::printf("softmax rows sum to %.3f (expect %d)\n", total, rows);
	return std::fabs(total - rows) < 1e-2f ? 0 : 1;
}
