// Must be rejected: returns NaN where the input is close to -1.
__global__ void k(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] < -0.999f ? sqrtf(x[i]) : 2.0f * x[i];
}
void scale(const float *x, float *y, int n)
{
	k<<<(n + 255) / 256, 256>>>(x, y, n);
}
