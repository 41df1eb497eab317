// Must be refused: right at the named workloads (8192 x 4096 and 37 x 1000)
// only.  The row length is a template constant picked from the two named
// values, as a model that read the pragma might write it; any other cols reads
// and writes the wrong elements.  (The validity domain's probe calls see it.)
template <int COLS>
__global__ void softmax_fixed(const float *x, float *y)
{
	__shared__ float part[32];
	const float *in = x + (size_t)blockIdx.x * COLS;
	float *out = y + (size_t)blockIdx.x * COLS;
	float m = -INFINITY;
	for (int c = threadIdx.x; c < COLS; c += blockDim.x)
		m = fmaxf(m, in[c]);
	for (int o = 16; o > 0; o >>= 1)
		m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
	if ((threadIdx.x & 31) == 0)
		part[threadIdx.x >> 5] = m;
	__syncthreads();
	m = -INFINITY;
	for (int w = 0; w < (int)(blockDim.x >> 5); w++)
		m = fmaxf(m, part[w]);
	__syncthreads();
	float s = 0.0f;
	for (int c = threadIdx.x; c < COLS; c += blockDim.x)
		s += expf(in[c] - m);
	for (int o = 16; o > 0; o >>= 1)
		s += __shfl_xor_sync(0xffffffffu, s, o);
	if ((threadIdx.x & 31) == 0)
		part[threadIdx.x >> 5] = s;
	__syncthreads();
	s = 0.0f;
	for (int w = 0; w < (int)(blockDim.x >> 5); w++)
		s += part[w];
	for (int c = threadIdx.x; c < COLS; c += blockDim.x)
		out[c] = expf(in[c] - m) / s;
}
void softmax_forward(const float *x, float *y, int rows, int cols)
{
	if (cols > 1000)
		softmax_fixed<4096><<<rows, 256>>>(x, y);
	else
		softmax_fixed<1000><<<rows, 256>>>(x, y);
}
