// Must be rejected: scribbles on its read-only input.
__global__ void k(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		y[i] = 2.0f * x[i];
		((float *)x)[i] = 0.0f;
	}
}
void scale(const float *x, float *y, int n)
{
	k<<<(n + 255) / 256, 256>>>(x, y, n);
}
