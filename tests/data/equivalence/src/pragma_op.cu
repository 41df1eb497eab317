// pragma_op.cu -- the annotation written with the _Pragma operator, as a macro
// would produce it.
#define EGG_OPTIMIZE _Pragma("egg optimize in(a[n], b[n]) out(c[n]) workload(n = 4096) launch((n + 255) / 256, 256)")

EGG_OPTIMIZE
__global__ void add_ref(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}
