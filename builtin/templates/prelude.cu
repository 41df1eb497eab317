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
#endif
