// Must be refused: reads its output as if it were an input (accumulates into
// y, which holds whatever the caller left there).
__global__ void k(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] += 2.0f * x[i];
}
void scale(const float *x, float *y, int n)
{
	cudaMemsetAsync(y, 0, 0);
	k<<<(n + 255) / 256, 256>>>(x, y, n);
}
