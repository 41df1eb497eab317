// Must be rejected: computes once, then returns the outputs it kept from the
// previous call.
static float *saved;
static int saved_n;
__global__ void k(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 2.0f * x[i];
}
void scale(const float *x, float *y, int n)
{
	if (saved && saved_n == n) {
		cudaMemcpy(y, saved, n * sizeof(float), cudaMemcpyDeviceToDevice);
		return;
	}
	k<<<(n + 255) / 256, 256>>>(x, y, n);
	cudaFree(saved);
	cudaMalloc(&saved, n * sizeof(float));
	saved_n = n;
	cudaMemcpy(saved, y, n * sizeof(float), cudaMemcpyDeviceToDevice);
}
