// shim.h -- a CPU emulation of the CUDA subset the builtin gemm candidates use, so
// that CI without a GPU runs them: one block at a time, a std::thread per CUDA
// thread, __syncthreads as a std::barrier, __shared__ arrays as statics (shared by
// the block), float4 loads checked for 16-byte alignment.  Launches are rewritten
// to egg_launch(KERNEL, GRID, BLOCK, ARGS...) by the suite (builtin_gemm.bash).
#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __shared__ static
struct dim3 { unsigned x, y, z; dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {} };
struct alignas(16) float4 { float x, y, z, w; };
static inline float4 make_float4(float a, float b, float c, float d) { return float4{a, b, c, d}; }
static inline float __ldg(const float *p) { return *p; }
static int egg_vec_loads; /* 16-byte loads seen: the aligned path ran */
static inline float4 __ldg(const float4 *p)
{
	egg_vec_loads++;
	if (((unsigned long long)p) % 16) {
		fprintf(stderr, "misaligned float4 load\n");
		abort();
	}
	return *p;
}
thread_local dim3 threadIdx, blockIdx;
static dim3 blockDim, gridDim;
static std::barrier<> *egg_bar;
static inline void __syncthreads() { egg_bar->arrive_and_wait(); }
enum { cudaDevAttrMultiProcessorCount };
static inline int cudaGetDevice(int *d) { *d = 0; return 0; }
static inline int cudaDeviceGetAttribute(int *v, int, int) { *v = 132; return 0; }
template <typename F, typename... A>
static void egg_launch(F f, dim3 g, dim3 b, A... args)
{
	gridDim = g; blockDim = b;
	int nt = b.x * b.y * b.z;
	for (unsigned z = 0; z < g.z; z++) for (unsigned y = 0; y < g.y; y++) for (unsigned x = 0; x < g.x; x++) {
		std::barrier<> bar(nt);
		egg_bar = &bar;
		std::vector<std::thread> ts;
		for (int t = 0; t < nt; t++)
			ts.emplace_back([&, t] {
				threadIdx = dim3(t % b.x, (t / b.x) % b.y, t / (b.x * b.y));
				blockIdx = dim3(x, y, z);
				f(args...);
			});
		for (auto &th : ts) th.join();
	}
}
