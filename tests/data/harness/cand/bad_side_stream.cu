// Must be rejected: does its work on a non-blocking stream and returns without
// ordering it before the caller's stream.  Each thread first waits ~100 us, so
// the work is certainly still running when the call returns.
static cudaStream_t side;
__global__ void k(const float *x, float *y, int n)
{
	long long t0 = clock64();
	while (clock64() - t0 < 200000)
		;
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 2.0f * x[i];
}
void scale(const float *x, float *y, int n)
{
	if (!side)
		cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
	k<<<(n + 255) / 256, 256, 0, side>>>(x, y, n);
}
