// Must pass (faster): one block per row, warp-shuffle reductions.
__device__ float block_reduce(float v, bool is_max)
{
	__shared__ float part[32];
	for (int o = 16; o > 0; o >>= 1) {
		float w = __shfl_xor_sync(0xffffffffu, v, o);
		v = is_max ? fmaxf(v, w) : v + w;
	}
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (lane == 0)
		part[warp] = v;
	__syncthreads();
	int nw = blockDim.x >> 5;
	v = lane < nw ? part[lane] : (is_max ? -INFINITY : 0.0f);
	for (int o = 16; o > 0; o >>= 1) {
		float w = __shfl_xor_sync(0xffffffffu, v, o);
		v = is_max ? fmaxf(v, w) : v + w;
	}
	__syncthreads();
	return v;
}
__global__ void softmax_rows(const float *x, float *y, int cols)
{
	const float *in = x + (size_t)blockIdx.x * cols;
	float *out = y + (size_t)blockIdx.x * cols;
	float m = -INFINITY;
	for (int c = threadIdx.x; c < cols; c += blockDim.x)
		m = fmaxf(m, in[c]);
	m = block_reduce(m, true);
	float s = 0.0f;
	for (int c = threadIdx.x; c < cols; c += blockDim.x)
		s += expf(in[c] - m);
	s = block_reduce(s, false);
	for (int c = threadIdx.x; c < cols; c += blockDim.x)
		out[c] = expf(in[c] - m) / s;
}
void softmax_forward(const float *x, float *y, int rows, int cols)
{
	softmax_rows<<<rows, 256>>>(x, y, cols);
}
