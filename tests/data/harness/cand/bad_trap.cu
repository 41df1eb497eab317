// Must be rejected (CUDA error): traps.
__global__ void k(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i == n / 2)
		__trap();
	if (i < n)
		y[i] = 2.0f * x[i];
}
void scale(const float *x, float *y, int n)
{
	k<<<(n + 255) / 256, 256>>>(x, y, n);
}
