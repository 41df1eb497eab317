// pragma_err.cu -- an annotated kernel in a file with a compile error elsewhere:
// whatever egg tries first, the user must see nvcc's error and exit status.
#pragma egg optimize inout(x[n]) workload(n = 1000) launch(1, n)
__global__ void double_ref(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= 2.0f;
}

void launch(float *x, int n) { double_ref<<<1, n>>>(x, missing_count); }
