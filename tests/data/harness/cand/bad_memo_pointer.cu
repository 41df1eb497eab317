// Must be refused: remembers the buffers of the last call and, when called
// with the same ones again, returns without computing (the inputs behind the
// pointers may have changed).
static const float *last_x;
static float *last_y;
__global__ void k(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 2.0f * x[i];
}
void scale(const float *x, float *y, int n)
{
	if (x == last_x && y == last_y)
		return;
	k<<<(n + 255) / 256, 256>>>(x, y, n);
	last_x = x;
	last_y = y;
}
