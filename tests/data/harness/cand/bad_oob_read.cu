// Must be rejected: reads one element past the end of x (multiplied by zero, so
// it would look right wherever that memory happens to hold a finite number).
__global__ void k(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 2.0f * x[i] + 0.0f * x[i + 1];
}
void scale(const float *x, float *y, int n)
{
	k<<<(n + 255) / 256, 256>>>(x, y, n);
}
