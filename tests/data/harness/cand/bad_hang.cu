// Must be rejected (timeout): never finishes.
__global__ void k(const float *x, float *y, int n, int forever)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	volatile float *vy = y;
	while (forever)
		vy[0] = x[0];
	if (i < n)
		y[i] = 2.0f * x[i];
}
void scale(const float *x, float *y, int n)
{
	k<<<(n + 255) / 256, 256>>>(x, y, n, 1);
}
