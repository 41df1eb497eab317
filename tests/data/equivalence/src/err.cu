// err.cu -- a compile error: nvcc's message, exit status and no object.
__global__ void broken(float *x)
{
	x[threadIdx.x] = undefined_name + 1.0f;
}
