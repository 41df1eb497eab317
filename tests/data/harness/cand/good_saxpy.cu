// Must be correct: the kernel target with __restrict__ and a read-only load.
__global__ void saxpy_kernel(float a, const float *__restrict__ x, float *__restrict__ y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = fmaf(a, __ldg(&x[i]), y[i]);
}
