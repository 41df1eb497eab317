/* egg builtin generator: shared helpers (guarded: several candidates may share a file) */
#ifndef EGG_BUILTIN_PRELUDE
#define EGG_BUILTIN_PRELUDE
#include <math.h>
static __attribute__((unused)) int egg_builtin_sm_count(void)
{
	static int sms = 0;
	if (sms <= 0) {
		int dev = 0;
		cudaGetDevice(&dev);
		cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
		if (sms <= 0)
			sms = 1;
	}
	return sms;
}
/* a read-only load that asks the L2 to keep its line (evict-last policy for all
 * lines, PCT 100, or half of them, sm_80 and later; a plain __ldg elsewhere): rows a gather
 * will read again, when they do not all fit */
template <int PCT, class T> static __device__ __forceinline__ T egg_ldg_keep(const T *p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	if (sizeof(T) == 16) {
		unsigned long long pol;
		uint4 r;
		if (PCT >= 100)
			asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
		else
			asm("createpolicy.fractional.L2::evict_last.b64 %0, 0.5;" : "=l"(pol));
		/* volatile: a load the compiler takes for pure would be hoisted above the
		 * caller's alignment test (a loop-invariant row of weights was, and faulted
		 * on a misaligned call) */
		asm volatile("ld.global.nc.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
		    : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p), "l"(pol));
		return *reinterpret_cast<const T *>(&r);
	}
#endif
	return __ldg(p);
}
#endif
