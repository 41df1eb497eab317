// warn.cu -- compiles, with a front-end warning on stderr.
__global__ void quiet(float *x)
{
	int unused = 3;
	x[threadIdx.x] = 0.0f;
}
