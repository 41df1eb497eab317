// Must be rejected: correct on every call but the second, i.e. on one seed.
static int calls;
__global__ void k(const float *x, float *y, int n, float f)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = f * x[i];
}
void scale(const float *x, float *y, int n)
{
	calls++;
	k<<<(n + 255) / 256, 256>>>(x, y, n, calls == 2 ? 2.001f : 2.0f);
}
