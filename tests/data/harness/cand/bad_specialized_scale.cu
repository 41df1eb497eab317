// Must be refused: the element count is one of the two named workloads'
// (1 << 24 or 1003), picked by a threshold; right at both, wrong (and writing
// past the buffer) for any other n.
__global__ void k(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 2.0f * x[i];
}
void scale(const float *x, float *y, int n)
{
	const int m = n > 1003 ? 1 << 24 : 1003;
	k<<<(m + 255) / 256, 256>>>(x, y, m);
}
