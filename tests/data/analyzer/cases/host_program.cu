#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                        \
	do {                                                                    \
		cudaError_t err_ = (call);                                      \
		if (err_ != cudaSuccess) {                                      \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,      \
				cudaGetErrorString(err_));                      \
			exit(1);                                                \
		}                                                               \
	} while (0)

class Timer {
public:
	Timer() { cudaEventCreate(&a_); cudaEventCreate(&b_); }
	~Timer() { cudaEventDestroy(a_); cudaEventDestroy(b_); }
private:
	cudaEvent_t a_, b_;
};

template <typename T>
struct DeviceBuffer {
	T *ptr = nullptr;
	explicit DeviceBuffer(size_t n) { CUDA_CHECK(cudaMalloc(&ptr, n * sizeof(T))); }
	~DeviceBuffer() { cudaFree(ptr); }
};

__global__ void rowsum_k(const float *m, float *out, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows) return;
	float s = 0.f;
	for (int c = 0; c < cols; c++)
		s += m[(size_t)r * cols + c];
	out[r] = s;
}

#pragma egg optimize in(m[rows * cols]) out(out[rows]) workload(rows = 4096, cols = 1024) \
	tolerance(rtol = 1e-4, atol = 1e-4)
void rowsum(const float *m, float *out, int rows, int cols)
{
	rowsum_k<<<(rows + 127) / 128, 128>>>(m, out, rows, cols);
	CUDA_CHECK(cudaGetLastError());
}

int main()
{
	const int rows = 256, cols = 64;
	std::vector<float> h(rows * cols, 1.f);
	DeviceBuffer<float> m(rows * cols), out(rows);
	Timer t;
	CUDA_CHECK(cudaMemcpy(m.ptr, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
	rowsum(m.ptr, out.ptr, rows, cols);
	auto show = [&](int i) { printf("%d\n", i); };
	show(0);
	return 0;
}
