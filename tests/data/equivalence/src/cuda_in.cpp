// cuda_in.cpp -- CUDA code in a .cpp file: compiles only with -x cu.
__global__ void fill(float *x, float v)
{
	x[threadIdx.x] = v;
}
void fill_launch(float *x) { fill<<<1, 32>>>(x, 1.0f); }
