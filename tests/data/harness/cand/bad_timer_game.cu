// Must be refused: right whenever it is checked, but when it sees the same
// input as at its last call (as in a timing loop, which restores the inputs
// before every call) it skips the work and leaves the output as it is.
static float last_first = -12345.0f;
static int last_n = -1;
__global__ void k(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 2.0f * x[i];
}
void scale(const float *x, float *y, int n)
{
	float first = 0.0f;
	cudaMemcpy(&first, x, sizeof first, cudaMemcpyDeviceToHost);
	if (first == last_first && n == last_n)
		return;
	last_first = first;
	last_n = n;
	k<<<(n + 255) / 256, 256>>>(x, y, n);
}
