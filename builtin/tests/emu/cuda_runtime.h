/*
 * cuda_runtime.h -- a CPU stand-in for the CUDA runtime, enough of it to run the
 * builtin generator's check programs (egg generate --check-program, through
 * builtin/tests/emu-check.sh), single candidates against a reference
 * (tests/suites/builtin_gemm.bash), and the evaluation program of `egg eval`
 * (tests/tools/emu-nvcc) on a machine without a GPU.  launches.py beside it
 * rewrites kernel launches into egg_emu_launch calls; runtime_api.h holds the
 * host API (errors, memory, streams, events, the device).  It proves
 * correctness, not speed: blocks run one after another, and a block's threads
 * are fibers on one OS thread that run round robin from barrier to barrier, so
 * a thread never passes __syncthreads() before every thread of its block has
 * reached it (a missing barrier shows as a wrong result).  Shared memory is a
 * function's static array (one block at a time); warp shuffles (xor, up, down,
 * broadcast) exchange through a barrier.
 * A cooperative launch (cudaLaunchKernelEx with cudaLaunchAttributeCooperative)
 * runs every thread of the grid as fibers together, each block with its own
 * dynamic shared memory, so that cooperative_groups::this_grid().sync() can
 * hold every thread until all have reached it.  Static __shared__ arrays stay one
 * per program: a kernel launched that way must keep its shared data in dynamic
 * shared memory.  A grid barrier in an ordinary launch is a fault.
 * __ldg of a vector type checks the alignment a GPU would demand (a misaligned
 * load is a fault) and counts the 16-byte ones in egg_emu_vec_loads, so a test can
 * tell that the vectorized path ran.  The device has EGG_EMU_SM_COUNT
 * multiprocessors (default 4: small grids, quick runs) and EGG_EMU_SHARED_OPTIN
 * bytes of shared memory per block (the H200's by default; a program may define
 * less first): a launch asking more dynamic shared memory fails, as a GPU's
 * would.  Dynamic shared memory (extern __shared__, which launches.py rewrites)
 * starts poisoned.  A fault (runtime_api.h) aborts the program, or with
 * EGG_EMU_CUDA_ERRORS ends the launch with a sticky CUDA error.
 * Not emulated: atomics (plain read-modify-writes), concurrency between streams.
 */
#pragma once
#include "runtime_api.h"
#include <ucontext.h>
#include <cmath>
struct dim3 { unsigned x, y, z; dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {} };
struct uint3 { unsigned x, y, z; };
inline uint3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
#define __global__
#define __device__
#define __host__
#define __shared__ static
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __forceinline__ inline
inline void __syncwarp(unsigned = 0xffffffffu) {}
#define __align__(n) __attribute__((aligned(n)))
inline int egg_emu_vec_loads; /* 16-byte __ldg loads seen */
template <class T> T __ldg(const T *p)
{
	if (alignof(T) >= 16)
		egg_emu_vec_loads++;
	if ((uintptr_t)p % alignof(T))
		egg_emu_fault(cudaErrorMisalignedAddress, "misaligned load");
	return *p;
}
/* the other cache-hinted loads read like __ldg */
template <class T> T __ldca(const T *p) { return __ldg(p); }
template <class T> T __ldcg(const T *p) { return __ldg(p); }
template <class T> T __ldcs(const T *p) { return __ldg(p); }
template <class T> T __ldlu(const T *p) { return __ldg(p); }
template <class T> T __ldcv(const T *p) { return __ldg(p); }
/* a streaming store: the same alignment demand as a vector load */
template <class T> void __stcs(T *p, T v)
{
	if ((uintptr_t)p % alignof(T))
		egg_emu_fault(cudaErrorMisalignedAddress, "misaligned store");
	*p = v;
}
/* CUDA's fast-math intrinsics, computed exactly (glibc declares some of these
 * names for itself, hence the macros) */
inline float egg_emu_expf(float x) { return expf(x); }
inline float egg_emu_logf(float x) { return logf(x); }
inline float egg_emu_powf(float x, float y) { return powf(x, y); }
inline float egg_emu_fdividef(float x, float y) { return x / y; }
inline float egg_emu_sinf(float x) { return sinf(x); }
inline float egg_emu_cosf(float x) { return cosf(x); }
#define __expf egg_emu_expf
#define __logf egg_emu_logf
#define __powf egg_emu_powf
#define __fdividef egg_emu_fdividef
#define __sinf egg_emu_sinf
#define __cosf egg_emu_cosf
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
/* CUDA's overloads for the other integer types (an argmax's long long index) */
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
struct alignas(16) float4 { float x, y, z, w; };
inline float4 make_float4(float a, float b, float c, float d) { return float4{ a, b, c, d }; }
struct alignas(8) float2 { float x, y; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(8) int2 { int x, y; };
struct alignas(16) double2 { double x, y; };
struct alignas(16) uint4 { unsigned x, y, z, w; };
struct alignas(8) uint2 { unsigned x, y; };
inline uint4 make_uint4(unsigned a, unsigned b, unsigned c, unsigned d) { return uint4{ a, b, c, d }; }
inline int4 make_int4(int a, int b, int c, int d) { return int4{ a, b, c, d }; }
inline float2 make_float2(float a, float b) { return float2{ a, b }; }
constexpr int warpSize = 32;
/* the bits of one type as another */
template <class To, class From> To egg_emu_bits(From v)
{
	static_assert(sizeof(To) == sizeof(From), "same size");
	To t;
	memcpy(&t, &v, sizeof t);
	return t;
}
inline long long __double_as_longlong(double v) { return egg_emu_bits<long long>(v); }
inline double __longlong_as_double(long long v) { return egg_emu_bits<double>(v); }
inline int __float_as_int(float v) { return egg_emu_bits<int>(v); }
inline unsigned __float_as_uint(float v) { return egg_emu_bits<unsigned>(v); }
inline float __int_as_float(int v) { return egg_emu_bits<float>(v); }
inline float __uint_as_float(unsigned v) { return egg_emu_bits<float>(v); }
/* a kernel's clock: the host's, in cycles of a 2 GHz clock */
inline long long clock64() { return (long long)(egg_emu_now_ms() * 2e6); }
[[noreturn]] inline void __trap() { egg_emu_fault(cudaErrorLaunchFailure, "__trap()"); }
template <class K> cudaError_t cudaFuncSetAttribute(K, int, int) { return 0; }
/* one wave: 2 resident blocks per SM, whatever the kernel (grids stay small) */
template <class K> cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, K, int, size_t) { *n = 2; return 0; }
/* memory pools: allocations full of 0xff bytes (nothing may count on zeros),
 * or, with EGG_EMU_NO_POOLS set, a device without memory pools (errors) */
typedef struct egg_emu_pool *cudaMemPool_t;
enum { cudaMemAllocationTypePinned = 1, cudaMemLocationTypeDevice = 1, cudaMemPoolAttrReleaseThreshold = 4 };
struct cudaMemLocation { int type, id; };
struct cudaMemPoolProps { int allocType; cudaMemLocation location; };
inline cudaError_t cudaMemPoolCreate(cudaMemPool_t *pool, const cudaMemPoolProps *)
{
	static char one;
	*pool = getenv("EGG_EMU_NO_POOLS") ? nullptr : (cudaMemPool_t)(void *)&one;
	return *pool ? 0 : cudaErrorNotSupported;
}
inline cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t, int, void *) { return 0; }
template <class T> cudaError_t cudaMallocFromPoolAsync(T **p, size_t n, cudaMemPool_t pool, cudaStream_t)
{
	if (!pool)
		return 1;
	cudaError_t e = cudaMalloc(p, n);
	if (e == cudaSuccess)
		memset((void *)*p, 0xff, n);
	return e;
}
inline cudaError_t cudaFreeAsync(void *p, cudaStream_t) { return cudaFree(p); }
/* a block's threads are fibers on one OS thread: each runs until it reaches a
 * barrier or ends, round robin, so nobody passes a barrier before all reach it */
/* Where a suspended fiber (or the scheduler) goes on.  On x86-64 a switch is
 * egg_emu_swap below: six callee-saved registers pushed and the stack pointer
 * exchanged, no system call and no signal mask (glibc's _longjmp unwinds
 * cleanup handlers and demangles pointers, a third of the suite's time).
 * Elsewhere: _setjmp/_longjmp, and setcontext for a fiber's first entry. */
#if defined(__x86_64__)
#define EGG_EMU_FAST_SWITCH 1
extern "C" void egg_emu_swap(void **save_sp, void *load_sp);
asm(".text\n.weak egg_emu_swap\n.type egg_emu_swap,@function\negg_emu_swap:\n"
    "\tpushq %rbp\n\tpushq %rbx\n\tpushq %r12\n\tpushq %r13\n\tpushq %r14\n\tpushq %r15\n"
    "\tmovq %rsp, (%rdi)\n\tmovq %rsi, %rsp\n"
    "\tpopq %r15\n\tpopq %r14\n\tpopq %r13\n\tpopq %r12\n\tpopq %rbx\n\tpopq %rbp\n\tret\n"
    ".size egg_emu_swap, .-egg_emu_swap\n");
struct egg_emu_jmp {
	void *sp;
};
#else
struct egg_emu_jmp {
	jmp_buf b;
};
#endif
struct egg_emu_block {
#if !defined(EGG_EMU_FAST_SWITCH)
	std::vector<ucontext_t> ctx; /* a fiber's first entry (makecontext) */
	ucontext_t sched;
	jmp_buf sched_jb;            /* the scheduler, while a fiber runs */
#else
	void *sched_sp;              /* the scheduler, while a fiber runs */
#endif
	std::vector<egg_emu_jmp> jb; /* where a fiber that yielded goes on */
	std::vector<char> started;
	std::vector<char> done;
	unsigned cur;
	void (*call)(void *); /* runs the kernel's closure fn for the current fiber */
	void *fn;
	std::vector<char> at_grid; /* the fibers held at the grid barrier */
	unsigned per_block;        /* threads per block (fiber cur is thread cur % per_block) */
	bool cooperative;          /* a cooperative launch: the grid barrier is allowed */
};
inline egg_emu_block *egg_emu_cur;
inline void __threadfence() {}
inline void egg_emu_yield()
{
#if defined(EGG_EMU_FAST_SWITCH)
	egg_emu_swap(&egg_emu_cur->jb[egg_emu_cur->cur].sp, egg_emu_cur->sched_sp);
#else
	if (!_setjmp(egg_emu_cur->jb[egg_emu_cur->cur].b))
		_longjmp(egg_emu_cur->sched_jb, 1);
#endif
}
inline void __syncthreads() { egg_emu_yield(); }
inline void egg_emu_entry()
{
	egg_emu_cur->call(egg_emu_cur->fn);
	egg_emu_cur->done[egg_emu_cur->cur] = 1;
	/* a fiber never returns */
#if defined(EGG_EMU_FAST_SWITCH)
	void *dead;
	egg_emu_swap(&dead, egg_emu_cur->sched_sp);
#else
	_longjmp(egg_emu_cur->sched_jb, 1);
#endif
	abort();
}
/* a warp's exchange: every lane publishes its value, all lanes reach the yield,
 * then each reads its partner's; two slots so that a lane running ahead into the
 * next exchange does not overwrite a value a slower lane has yet to read */
#define EGG_EMU_MAX_FIBERS (1 << 16)
inline unsigned char egg_emu_slots[2][EGG_EMU_MAX_FIBERS][16]; /* the value's bytes (64-bit ones too) */
template <class T> void egg_emu_put(unsigned k, unsigned t, T v)
{
	static_assert(sizeof(T) <= 16, "a shuffle of more than 16 bytes");
	memcpy(egg_emu_slots[k][t], &v, sizeof v);
}
template <class T> T egg_emu_get(unsigned k, unsigned t)
{
	T v;
	memcpy(&v, egg_emu_slots[k][t], sizeof v);
	return v;
}
inline unsigned egg_emu_nshfl[EGG_EMU_MAX_FIBERS];
/* fiber t's partner: lane `lane` of t's warp (warps counted within t's block) */
inline unsigned egg_emu_peer(unsigned t, unsigned lane)
{
	const unsigned base = t - t % egg_emu_cur->per_block;
	return base + (((t - base) & ~31u) | (lane & 31u));
}
template <class T> T __shfl_xor_sync(unsigned, T v, int mask, int = 32)
{
	const unsigned t = egg_emu_cur->cur, k = egg_emu_nshfl[t]++ & 1;
	egg_emu_put(k, t, v);
	__syncthreads();
	return egg_emu_get<T>(k, egg_emu_peer(t, (t % egg_emu_cur->per_block) ^ (unsigned)mask));
}
/* the same exchange from the lane d below (a lane below d keeps its own value) */
template <class T> T __shfl_up_sync(unsigned, T v, unsigned d, int = 32)
{
	const unsigned t = egg_emu_cur->cur, k = egg_emu_nshfl[t]++ & 1;
	egg_emu_put(k, t, v);
	__syncthreads();
	return egg_emu_get<T>(k, (t % egg_emu_cur->per_block & 31u) >= d ? t - d : t);
}
/* and from the lane d above (a lane with none there keeps its own value) */
template <class T> T __shfl_down_sync(unsigned, T v, unsigned d, int = 32)
{
	const unsigned t = egg_emu_cur->cur, k = egg_emu_nshfl[t]++ & 1, i = t % egg_emu_cur->per_block;
	egg_emu_put(k, t, v);
	__syncthreads();
	return egg_emu_get<T>(k, (i & 31u) + d < 32 && i + d < egg_emu_cur->per_block ? t + d : t);
}
/* and from one lane of the warp */
template <class T> T __shfl_sync(unsigned, T v, int lane, int = 32)
{
	const unsigned t = egg_emu_cur->cur, k = egg_emu_nshfl[t]++ & 1;
	egg_emu_put(k, t, v);
	__syncthreads();
	return egg_emu_get<T>(k, egg_emu_peer(t, (unsigned)lane));
}
/* one OS thread runs every fiber, and a fiber yields only at barriers: atomics
 * are plain read-modify-writes */
template <class T, class U> T atomicAdd(T *p, U v) { T o = *p; *p = (T)(o + v); return o; }
template <class T, class U> T atomicMax(T *p, U v) { T o = *p; *p = o > (T)v ? o : (T)v; return o; }
template <class T, class U> T atomicMin(T *p, U v) { T o = *p; *p = o < (T)v ? o : (T)v; return o; }
/* the dynamic shared memory of each block running */
inline std::vector<std::vector<double>> egg_emu_dyn_blocks;
inline void *egg_emu_dyn_shared() { return egg_emu_dyn_blocks[egg_emu_cur->cur / egg_emu_cur->per_block].data(); }
/* fiber stacks, mapped lazily (a grid of fibers touches only what it uses) */
inline char *egg_emu_stack(unsigned t)
{
	static std::vector<char *> stacks;
	if (stacks.size() <= t)
		stacks.resize(t + 1, nullptr);
	if (!stacks[t]) {
		void *p = mmap(nullptr, 256 * 1024, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED) {
			perror("mmap");
			abort();
		}
		stacks[t] = (char *)p;
	}
	return stacks[t];
}
/* Blocks [first, first + count) of the launch, their threads fibers run round
 * robin together; a fiber at the grid barrier (cooperative launches only) is held
 * until every fiber still running has reached it, then all go on in the same
 * round. */
template <class F> void egg_emu_run(dim3 g, dim3 b, F f, size_t shmem, unsigned first, unsigned count, bool coop)
{
	const unsigned n = b.x * b.y * b.z, all = n * count;
	if (all > EGG_EMU_MAX_FIBERS) {
		fprintf(stderr, "a cooperative launch of %u threads (the stand-in runs at most %u)\n", all,
		        (unsigned)EGG_EMU_MAX_FIBERS);
		abort();
	}
	egg_emu_block blk;
#if !defined(EGG_EMU_FAST_SWITCH)
	blk.ctx.resize(all);
#endif
	blk.jb.resize(all);
	blk.started.assign(all, 0);
	blk.done.assign(all, 0);
	blk.at_grid.assign(all, 0);
	blk.per_block = n;
	blk.cooperative = coop;
	blk.call = [](void *p) { (*(F *)p)(); };
	blk.fn = &f;
	egg_emu_cur = &blk;
	egg_emu_dyn_blocks.assign(count, std::vector<double>(shmem / sizeof(double) + 1));
	for (auto &d : egg_emu_dyn_blocks)
		memset(d.data(), 0xa5, d.size() * sizeof(double)); /* poisoned */
	for (unsigned t = 0; t < all; t++) {
		egg_emu_nshfl[t] = 0;
	}
#if !defined(EGG_EMU_FAST_SWITCH)
	getcontext(&blk.sched);
#endif
	for (unsigned left = all; left > 0;) {
		unsigned ran = 0;
		for (unsigned t = 0; t < all; t++) {
			if (blk.done[t] || blk.at_grid[t])
				continue;
			const unsigned k = first + t / n, i = t % n;
			blk.cur = t;
			blockIdx = { k % g.x, k / g.x % g.y, k / (g.x * g.y) };
			threadIdx = { i % b.x, i / b.x % b.y, i / (b.x * b.y) };
#if defined(EGG_EMU_FAST_SWITCH)
			if (!blk.started[t]) {
				/* a fresh stack whose first switch "returns" into egg_emu_entry:
				 * six zero registers, the entry's address, a null return address
				 * (the entry never returns), the ABI's 16-byte alignment at entry */
				blk.started[t] = 1;
				void **top = (void **)(egg_emu_stack(t) + 256 * 1024);
				top[-1] = nullptr;
				top[-2] = (void *)egg_emu_entry;
				for (int r = 3; r <= 8; r++)
					top[-r] = nullptr;
				blk.jb[t].sp = (void *)(top - 8);
			}
			egg_emu_swap(&blk.sched_sp, blk.jb[t].sp);
#else
			if (!_setjmp(blk.sched_jb)) {
				if (!blk.started[t]) {
					/* the context is made at the first entry, from one getcontext per run */
					blk.started[t] = 1;
					blk.ctx[t] = blk.sched;
					blk.ctx[t].uc_stack.ss_sp = egg_emu_stack(t);
					blk.ctx[t].uc_stack.ss_size = 256 * 1024;
					blk.ctx[t].uc_link = nullptr;
					makecontext(&blk.ctx[t], egg_emu_entry, 0);
					setcontext(&blk.ctx[t]);
				}
				_longjmp(blk.jb[t].b, 1);
			}
#endif
			ran++;
		}
		left = 0;
		for (unsigned t = 0; t < all; t++)
			left += !blk.done[t];
		if (!ran) /* every fiber still running is at the grid barrier: release them */
			std::fill(blk.at_grid.begin(), blk.at_grid.end(), 0);
	}
	egg_emu_dyn_blocks.clear();
}
/* Runs a launch now: an ordinary one's blocks one after another, a cooperative
 * one's all together.  A fault in it (runtime_api.h) ends it with a sticky error. */
template <class F> void egg_emu_execute(dim3 g, dim3 b, F f, size_t shmem, bool coop)
{
	gridDim = g;
	blockDim = b;
	const unsigned nb = g.x * g.y * g.z;
	egg_emu_catch_faults();
	if (sigsetjmp(egg_emu_fault_jb, 1)) {
		/* a fiber faulted: its launch is abandoned where it stood */
		egg_emu_sticky = egg_emu_fault_code;
		egg_emu_cur = nullptr;
		egg_emu_dyn_blocks.clear();
		return;
	}
	egg_emu_in_kernel = 1;
	if (coop)
		egg_emu_run(g, b, f, shmem, 0, nb, true);
	else
		for (unsigned k = 0; k < nb; k++)
			egg_emu_run(g, b, f, shmem, k, 1, false);
	egg_emu_in_kernel = 0;
}
/* A launch on stream s (launches.py writes KERNEL<<<G, B, SHMEM, S>>>(ARGS) so):
 * checked as a GPU checks it (an error for cudaGetLastError, without running),
 * then run now or queued on s.  The closure reads the launch's arguments when
 * it runs. */
template <class F> void egg_emu_launch_on(cudaStream_t s, dim3 g, dim3 b, F f, size_t shmem = 0, bool coop = false)
{
	if (egg_emu_sticky)
		return;
	/* with EGG_EMU_LAUNCH_ERROR=N the Nth launch fails and runs nothing, as a
	 * launch the device refused (cudaErrorLaunchFailure for cudaGetLastError) */
	static unsigned launches;
	const char *fail = getenv("EGG_EMU_LAUNCH_ERROR");
	if (fail && strtoul(fail, nullptr, 10) == ++launches) {
		egg_emu_set_error(cudaErrorLaunchFailure);
		return;
	}
	const unsigned long long threads = (unsigned long long)b.x * b.y * b.z;
	if (!g.x || !g.y || !g.z || !threads || threads > 1024 || b.z > 64 || g.y > 65535 || g.z > 65535) {
#ifndef EGG_EMU_CUDA_ERRORS
		fprintf(stderr, "a launch of %u x %u x %u blocks of %u x %u x %u threads\n", g.x, g.y, g.z, b.x, b.y, b.z);
		abort();
#endif
		egg_emu_set_error(cudaErrorInvalidConfiguration);
		return;
	}
	if (shmem > EGG_EMU_SHARED_OPTIN) {
#ifndef EGG_EMU_CUDA_ERRORS
		fprintf(stderr, "a launch asks %zu bytes of dynamic shared memory\n", shmem);
		abort();
#endif
		egg_emu_set_error(cudaErrorInvalidValue);
		return;
	}
	egg_emu_submit(s, [=] { egg_emu_execute(g, b, f, shmem, coop); });
}
/* a launch on the legacy default stream */
template <class F> void egg_emu_launch(dim3 g, dim3 b, F f, size_t shmem = 0, bool coop = false)
{
	egg_emu_launch_on((cudaStream_t)0, g, b, f, shmem, coop);
}
inline void egg_emu_grid_sync()
{
	if (!egg_emu_cur->cooperative)
		egg_emu_fault(cudaErrorLaunchFailure, "a grid barrier outside a cooperative launch");
	egg_emu_cur->at_grid[egg_emu_cur->cur] = 1;
	egg_emu_yield();
}
namespace cooperative_groups {
struct grid_group {
	void sync() const { egg_emu_grid_sync(); }
};
inline grid_group this_grid() { return {}; }
}
/* cudaLaunchKernelEx, its C++ form (the kernel's arguments passed on) */
enum cudaLaunchAttributeID { cudaLaunchAttributeCooperative = 2 };
union cudaLaunchAttributeValue { int cooperative; };
struct cudaLaunchAttribute { cudaLaunchAttributeID id; cudaLaunchAttributeValue val; };
struct cudaLaunchConfig_t {
	dim3 gridDim, blockDim;
	size_t dynamicSmemBytes;
	cudaStream_t stream;
	cudaLaunchAttribute *attrs;
	unsigned numAttrs;
};
template <class... E, class... A>
cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *c, void (*k)(E...), A &&...a)
{
	bool coop = false;
	for (unsigned i = 0; i < c->numAttrs; i++)
		coop |= c->attrs[i].id == cudaLaunchAttributeCooperative && c->attrs[i].val.cooperative;
	auto f = [=] { k(a...); };
	egg_emu_launch_on(c->stream, c->gridDim, c->blockDim, f, c->dynamicSmemBytes, coop);
	return cudaPeekAtLastError();
}
