// dev_main.cu -- calls dev_util.cu's device function: needs relocatable device code.
#include <cstdio>
extern __device__ float dev_scale(float v);

__global__ void apply(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = dev_scale(x[i]);
}

int main()
{
	std::printf("dev_main: linked\n");
	return 0;
}
