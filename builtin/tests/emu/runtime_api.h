/*
 * runtime_api.h -- the CPU stand-in's host API (cuda_runtime.h beside it
 * includes it): errors, device memory, streams, events and the device's
 * description, enough of them for the builtin's check programs and for the
 * evaluation program of `egg eval` (harness/runtime.cuh, built by
 * tests/tools/emu-nvcc).
 *
 * Device memory is host memory, each allocation mapped alone and ending
 * (to 256 bytes) at an inaccessible page, with another before it: a kernel
 * that reads or writes well outside a buffer faults, as on a GPU.
 * Errors: with EGG_EMU_CUDA_ERRORS defined (emu-nvcc defines it), a launch that
 * cannot run leaves an error for cudaGetLastError, and a kernel that faults (a
 * bad address, a misaligned one, __trap) leaves a sticky error that every later
 * call returns, as a GPU's lost context does.  Without it (the builtin's check
 * programs), such a fault aborts the program with a line on stderr.
 * Streams: the legacy default stream (0) runs its work at once, after the work
 * queued on the blocking streams; a stream the program creates queues its work
 * until something waits for it (a synchronize of it, of an event recorded on
 * it, of the device, cudaStreamWaitEvent), or, unless it is non-blocking,
 * until the legacy stream is used.  So work left on a non-blocking stream is not
 * done when the caller's next copy on the default stream runs, which a GPU
 * allows too.  Events hold the host's clock when the work before them ran.
 */
#pragma once
#include <sys/mman.h>
#include <setjmp.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

typedef int cudaError_t;
enum {
	cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,
	cudaErrorInvalidConfiguration = 9, cudaErrorNoDevice = 100, cudaErrorInvalidDevice = 101,
	cudaErrorInvalidResourceHandle = 400, cudaErrorNotReady = 600, cudaErrorIllegalAddress = 700,
	cudaErrorLaunchOutOfResources = 701, cudaErrorIllegalInstruction = 715,
	cudaErrorMisalignedAddress = 716, cudaErrorLaunchFailure = 719, cudaErrorNotSupported = 801
};
enum { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
       cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4 };
enum { cudaStreamDefault = 0, cudaStreamNonBlocking = 1 };
enum { cudaEventDefault = 0, cudaEventBlockingSync = 1, cudaEventDisableTiming = 2 };

inline const char *cudaGetErrorString(cudaError_t e)
{
	switch (e) {
	case cudaSuccess: return "no error";
	case cudaErrorInvalidValue: return "invalid argument";
	case cudaErrorMemoryAllocation: return "out of memory";
	case cudaErrorInvalidConfiguration: return "invalid configuration argument";
	case cudaErrorNoDevice: return "no CUDA-capable device is detected";
	case cudaErrorInvalidResourceHandle: return "invalid resource handle";
	case cudaErrorNotReady: return "device not ready";
	case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
	case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
	case cudaErrorIllegalInstruction: return "an illegal instruction was encountered";
	case cudaErrorMisalignedAddress: return "misaligned address";
	case cudaErrorLaunchFailure: return "unspecified launch failure";
	case cudaErrorNotSupported: return "operation not supported";
	}
	return "unknown error";
}
inline const char *cudaGetErrorName(cudaError_t e) { return cudaGetErrorString(e); }

/* ---- errors: the last one, and the sticky one of a kernel that faulted ---- */

inline cudaError_t egg_emu_last, egg_emu_sticky;
inline cudaError_t egg_emu_set_error(cudaError_t e)
{
	if (e && !egg_emu_last)
		egg_emu_last = e;
	return e;
}
inline cudaError_t cudaGetLastError()
{
	cudaError_t e = egg_emu_sticky ? egg_emu_sticky : egg_emu_last;
	egg_emu_last = cudaSuccess;
	return e;
}
inline cudaError_t cudaPeekAtLastError() { return egg_emu_sticky ? egg_emu_sticky : egg_emu_last; }

/* Where a faulting kernel goes: the launch that ran it (cuda_runtime.h). */
inline sigjmp_buf egg_emu_fault_jb;
inline volatile sig_atomic_t egg_emu_in_kernel;
inline volatile cudaError_t egg_emu_fault_code;

/* A fault a kernel made: the launch ends with a sticky error (with
 * EGG_EMU_CUDA_ERRORS), or the program with what on stderr. */
[[noreturn]] inline void egg_emu_fault(cudaError_t code, const char *what)
{
#ifdef EGG_EMU_CUDA_ERRORS
	if (egg_emu_in_kernel) {
		egg_emu_in_kernel = 0;
		egg_emu_fault_code = code;
		siglongjmp(egg_emu_fault_jb, 1);
	}
#else
	(void)code;
#endif
	fprintf(stderr, "%s\n", what);
	abort();
}

#ifdef EGG_EMU_CUDA_ERRORS
/* A signal in a kernel is its fault: SIGILL is the alignment check's trap
 * (emu-nvcc compiles the contenders with -fsanitize=alignment), SIGSEGV and
 * SIGBUS a bad address.  Elsewhere the signal does what it always does. */
inline void egg_emu_on_signal(int sig)
{
	if (!egg_emu_in_kernel) {
		signal(sig, SIG_DFL);
		return; /* the instruction runs again, and the default action ends the program */
	}
	egg_emu_fault(sig == SIGILL ? cudaErrorMisalignedAddress : sig == SIGFPE ? cudaErrorIllegalInstruction
	                                                                          : cudaErrorIllegalAddress,
	              "a fault in a kernel");
}
inline void egg_emu_catch_faults()
{
	static bool done;
	if (done)
		return;
	done = true;
	static char alt[64 * 1024];
	stack_t ss = {};
	ss.ss_sp = alt;
	ss.ss_size = sizeof alt;
	sigaltstack(&ss, nullptr);
	struct sigaction sa = {};
	sa.sa_handler = egg_emu_on_signal;
	sa.sa_flags = SA_ONSTACK | SA_NODEFER;
	for (int s : { SIGSEGV, SIGBUS, SIGILL, SIGFPE })
		sigaction(s, &sa, nullptr);
}
#else
inline void egg_emu_catch_faults() {}
#endif

/* ---- the device ---- */

#ifndef EGG_EMU_SM_COUNT
#define EGG_EMU_SM_COUNT 4
#endif
#ifndef EGG_EMU_SHARED_OPTIN
#define EGG_EMU_SHARED_OPTIN 232448
#endif
#ifndef EGG_EMU_GLOBAL_MEM
#define EGG_EMU_GLOBAL_MEM ((size_t)1 << 30)
#endif
#ifndef EGG_EMU_L2_BYTES
#define EGG_EMU_L2_BYTES (512 * 1024)
#endif
struct cudaUUID_t {
	char bytes[16];
};
struct cudaDeviceProp {
	char name[256];
	cudaUUID_t uuid;
	size_t totalGlobalMem, sharedMemPerBlock, sharedMemPerBlockOptin, sharedMemPerMultiprocessor,
		totalConstMem;
	int regsPerBlock, warpSize, maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], clockRate,
		major, minor, multiProcessorCount, l2CacheSize, persistingL2CacheMaxSize,
		maxThreadsPerMultiProcessor, memoryBusWidth, memoryClockRate, concurrentKernels,
		cooperativeLaunch;
};
inline cudaError_t cudaGetDeviceCount(int *n) { *n = 1; return cudaSuccess; }
inline cudaError_t cudaGetDevice(int *d) { *d = 0; return cudaSuccess; }
inline cudaError_t cudaSetDevice(int d) { return d == 0 ? cudaSuccess : cudaErrorInvalidDevice; }
inline cudaError_t cudaDriverGetVersion(int *v) { *v = 13000; return cudaSuccess; }
inline cudaError_t cudaRuntimeGetVersion(int *v) { *v = 13000; return cudaSuccess; }
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int d)
{
	if (d != 0)
		return cudaErrorInvalidDevice;
	memset(p, 0, sizeof *p);
	snprintf(p->name, sizeof p->name, "egg CPU stand-in");
	memcpy(p->uuid.bytes, "egg-cpu-standin!", 16);
	p->totalGlobalMem = EGG_EMU_GLOBAL_MEM;
	p->sharedMemPerBlock = 48 * 1024;
	p->sharedMemPerBlockOptin = EGG_EMU_SHARED_OPTIN;
	p->sharedMemPerMultiprocessor = EGG_EMU_SHARED_OPTIN + 1024;
	p->totalConstMem = 64 * 1024;
	p->regsPerBlock = 65536;
	p->warpSize = 32;
	p->maxThreadsPerBlock = 1024;
	p->maxThreadsDim[0] = p->maxThreadsDim[1] = 1024;
	p->maxThreadsDim[2] = 64;
	p->maxGridSize[0] = 0x7fffffff;
	p->maxGridSize[1] = p->maxGridSize[2] = 65535;
	p->clockRate = 1980000;
	p->major = 9;
	p->minor = 0;
	p->multiProcessorCount = EGG_EMU_SM_COUNT;
	p->l2CacheSize = EGG_EMU_L2_BYTES;
	p->maxThreadsPerMultiProcessor = 2048;
	p->memoryBusWidth = 5120;
	p->memoryClockRate = 2619000;
	p->concurrentKernels = 1;
	p->cooperativeLaunch = 1;
	return cudaSuccess;
}
enum { cudaDevAttrMaxThreadsPerBlock = 1, cudaDevAttrMultiProcessorCount = 16,
       cudaDevAttrL2CacheSize = 38, cudaDevAttrComputeCapabilityMajor = 75,
       cudaDevAttrComputeCapabilityMinor = 76, cudaDevAttrCooperativeLaunch = 95,
       cudaDevAttrMaxSharedMemoryPerBlockOptin = 97 };
enum { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
inline cudaError_t cudaDeviceGetAttribute(int *v, int attr, int)
{
	switch (attr) {
	case cudaDevAttrCooperativeLaunch:
#ifdef EGG_EMU_NO_COOPERATIVE /* a device without cooperative launches: generated code must not use them */
		*v = 0;
#else
		*v = 1;
#endif
		break;
	case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = EGG_EMU_SHARED_OPTIN; break;
	case cudaDevAttrMaxThreadsPerBlock: *v = 1024; break;
	case cudaDevAttrL2CacheSize: *v = EGG_EMU_L2_BYTES; break;
	case cudaDevAttrComputeCapabilityMajor: *v = 9; break;
	case cudaDevAttrComputeCapabilityMinor: *v = 0; break;
	default: *v = EGG_EMU_SM_COUNT; break;
	}
	return cudaSuccess;
}

/* ---- device memory ---- */

struct egg_emu_mapping {
	void *user, *base;
	size_t len;
};
inline std::vector<egg_emu_mapping> egg_emu_mappings;
inline void *egg_emu_map(size_t n)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE), body = (n + page - 1) / page * page;
	const size_t len = body + 2 * page;
	char *base = (char *)mmap(nullptr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return nullptr;
	if (body && mprotect(base + page, body, PROT_READ | PROT_WRITE) < 0) {
		munmap(base, len);
		return nullptr;
	}
	char *user = base + page + body - (n + 255) / 256 * 256;
	egg_emu_mappings.push_back({ user, base, len });
	return user;
}
template <class T> cudaError_t cudaMalloc(T **p, size_t n)
{
	if (egg_emu_sticky)
		return egg_emu_sticky;
	void *m = n > EGG_EMU_GLOBAL_MEM ? nullptr : egg_emu_map(n);
	*p = (T *)m;
	return m ? cudaSuccess : egg_emu_set_error(cudaErrorMemoryAllocation);
}
inline cudaError_t cudaFree(void *p)
{
	if (!p)
		return cudaSuccess;
	for (size_t i = 0; i < egg_emu_mappings.size(); i++)
		if (egg_emu_mappings[i].user == p) {
			munmap(egg_emu_mappings[i].base, egg_emu_mappings[i].len);
			egg_emu_mappings[i] = egg_emu_mappings.back();
			egg_emu_mappings.pop_back();
			return egg_emu_sticky;
		}
	return egg_emu_sticky ? egg_emu_sticky : egg_emu_set_error(cudaErrorInvalidValue);
}
template <class T> cudaError_t cudaMallocHost(T **p, size_t n) { *p = (T *)malloc(n ? n : 1); return *p ? 0 : 2; }
inline cudaError_t cudaFreeHost(void *p) { free(p); return cudaSuccess; }

/* ---- streams: a queue of work each; the legacy default stream is 0 ---- */

struct egg_emu_task {
	void (*call)(void *, bool run); /* runs (or only drops) the closure, and frees it */
	void *closure;
};
template <class F> egg_emu_task egg_emu_task_of(F f)
{
	return { [](void *p, bool run) {
		        F *g = (F *)p;
		        if (run)
			        (*g)();
		        delete g;
	        },
		 new F(f) };
}
struct CUstream_st {
	unsigned flags;
	std::vector<egg_emu_task> queue;
};
typedef CUstream_st *cudaStream_t;
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
inline std::vector<CUstream_st *> egg_emu_streams;
/* 1 if work on s is queued rather than run at once */
inline bool egg_emu_queued(cudaStream_t s) { return s && s != cudaStreamLegacy && s != cudaStreamPerThread; }
/* Runs s's queued work; a fault drops what is left of every stream's. */
inline void egg_emu_drain(cudaStream_t s)
{
	if (!egg_emu_queued(s))
		return;
	while (!s->queue.empty()) {
		egg_emu_task t = s->queue.front();
		s->queue.erase(s->queue.begin());
		t.call(t.closure, !egg_emu_sticky);
	}
}
inline void egg_emu_drain_all(bool only_blocking)
{
	for (CUstream_st *s : egg_emu_streams)
		if (!only_blocking || !(s->flags & cudaStreamNonBlocking))
			egg_emu_drain(s);
}
/* Puts f on stream s: queued on a created stream, else run now, after what the
 * blocking streams have queued (the legacy stream's implicit synchronization). */
template <class F> void egg_emu_submit(cudaStream_t s, F f)
{
	if (egg_emu_queued(s)) {
		s->queue.push_back(egg_emu_task_of(f));
		return;
	}
	egg_emu_drain_all(true);
	if (!egg_emu_sticky)
		f();
}
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags)
{
	*s = new CUstream_st{ flags, {} };
	egg_emu_streams.push_back(*s);
	return egg_emu_sticky;
}
inline cudaError_t cudaStreamCreate(cudaStream_t *s) { return cudaStreamCreateWithFlags(s, cudaStreamDefault); }
inline cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned flags, int) { return cudaStreamCreateWithFlags(s, flags); }
inline cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
	if (egg_emu_queued(s))
		egg_emu_drain(s);
	else
		egg_emu_drain_all(true);
	return egg_emu_sticky;
}
inline cudaError_t cudaStreamQuery(cudaStream_t s)
{
	return egg_emu_sticky ? egg_emu_sticky : egg_emu_queued(s) && !s->queue.empty() ? cudaErrorNotReady : cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t s)
{
	if (!egg_emu_queued(s))
		return cudaErrorInvalidResourceHandle;
	egg_emu_drain(s); /* its work still completes */
	for (size_t i = 0; i < egg_emu_streams.size(); i++)
		if (egg_emu_streams[i] == s)
			egg_emu_streams.erase(egg_emu_streams.begin() + (long)i);
	delete s;
	return egg_emu_sticky;
}
inline cudaError_t cudaDeviceSynchronize()
{
	egg_emu_drain_all(false);
	return egg_emu_sticky;
}
inline cudaError_t cudaThreadSynchronize() { return cudaDeviceSynchronize(); }

/* ---- copies and fills ---- */

inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, int, cudaStream_t st = 0)
{
	if (egg_emu_sticky)
		return egg_emu_sticky;
	egg_emu_submit(st, [=] { memmove(d, s, n); });
	return egg_emu_sticky;
}
inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, int kind) { return cudaMemcpyAsync(d, s, n, kind, 0); }
inline cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t st = 0)
{
	if (egg_emu_sticky)
		return egg_emu_sticky;
	egg_emu_submit(st, [=] { memset(d, v, n); });
	return egg_emu_sticky;
}
inline cudaError_t cudaMemset(void *d, int v, size_t n) { return cudaMemsetAsync(d, v, n, 0); }

/* ---- events: the host's clock when the work before them ran ---- */

struct CUevent_st {
	double ms;
	bool recorded, done;
	cudaStream_t stream;
};
typedef CUevent_st *cudaEvent_t;
inline double egg_emu_now_ms()
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}
inline cudaError_t cudaEventCreate(cudaEvent_t *e)
{
	*e = new CUevent_st{ 0, false, false, nullptr };
	return egg_emu_sticky;
}
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned) { return cudaEventCreate(e); }
inline cudaError_t cudaEventDestroy(cudaEvent_t e)
{
	delete e;
	return egg_emu_sticky;
}
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = 0)
{
	if (!e)
		return egg_emu_set_error(cudaErrorInvalidResourceHandle);
	e->recorded = true;
	e->done = false;
	e->stream = s;
	egg_emu_submit(s, [=] {
		e->ms = egg_emu_now_ms();
		e->done = true;
	});
	return egg_emu_sticky;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
	if (!e)
		return cudaErrorInvalidResourceHandle;
	if (e->recorded && !e->done)
		egg_emu_drain(e->stream);
	return egg_emu_sticky;
}
inline cudaError_t cudaEventQuery(cudaEvent_t e)
{
	return egg_emu_sticky ? egg_emu_sticky : e->recorded && !e->done ? cudaErrorNotReady : cudaSuccess;
}
inline cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t e, unsigned = 0)
{
	/* what s does next comes after the event's work: that work is done now */
	return cudaEventSynchronize(e);
}
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
	if (egg_emu_sticky)
		return egg_emu_sticky;
	if (!a || !b || !a->recorded || !b->recorded)
		return cudaErrorInvalidResourceHandle;
	if (!a->done || !b->done)
		return cudaErrorNotReady;
	*ms = (float)(b->ms - a->ms);
	return cudaSuccess;
}
