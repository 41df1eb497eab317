// Must be rejected as slower: correct, but one block does all the work.
__global__ void k(const float *x, float *y, int n)
{
	for (int i = threadIdx.x; i < n; i += blockDim.x)
		y[i] = 2.0f * x[i];
}
void scale(const float *x, float *y, int n)
{
	k<<<1, 256>>>(x, y, n);
}
