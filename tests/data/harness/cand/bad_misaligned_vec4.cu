// Must be refused: 16-byte loads and stores with a scalar tail, but it assumes
// the base pointers are 16-byte aligned (true of cudaMalloc's pointers at the
// named workloads, false for x + 1 or a sub-buffer a caller passes): a
// misaligned address at the probe calls with offset bases.
__global__ void k4(const float4 *__restrict__ x, float4 *__restrict__ y, int n4)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
		float4 v = x[i];
		y[i] = make_float4(2.0f * v.x, 2.0f * v.y, 2.0f * v.z, 2.0f * v.w);
	}
}
__global__ void tail(const float *x, float *y, int from, int n)
{
	int i = from + threadIdx.x;
	if (i < n)
		y[i] = 2.0f * x[i];
}
void scale(const float *x, float *y, int n)
{
	int n4 = n / 4;
	if (n4)
		k4<<<(n4 + 255) / 256 < 4096 ? (n4 + 255) / 256 : 4096, 256>>>((const float4 *)x, (float4 *)y, n4);
	if (n % 4)
		tail<<<1, 4>>>(x, y, n4 * 4, n);
}
