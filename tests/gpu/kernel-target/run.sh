#!/bin/bash
# run.sh LOGDIR -- on a GPU machine: builds this folder's kernel target with
# egg-cc in search mode (empty cache), checks the program's results, checks that
# the tuned body is in the binary, then rebuilds from the cache.  Needs egg-cc
# and nvcc on PATH.  Prints PASS/FAIL lines; exits 0 when all pass.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../run-lib.sh"
egg-cc -O3 -arch=sm_90 -c "$here/kernel.cu" -o kernel.o 2>search.err
say "$([ $? = 0 ] && echo PASS || echo FAIL)" "egg-cc compiles the kernel target ($(tail -1 search.err))"
nvcc -O3 -arch=sm_90 "$here/main.cu" kernel.o -o prog 2>link.err
./prog >prog.out 2>&1
say "$([ $? = 0 ] && echo PASS || echo FAIL)" "the program's results are right: $(tail -1 prog.out)"
if grep -q "over reference" search.err; then
	# A kernel target's winner is a __device__ __forceinline__ body inlined into
	# the kernel under __CUDA_ARCH__ == 900: it has no symbol of its own, so the
	# proof is that the sm_90 code differs from plain nvcc's.
	nvcc -O3 -arch=sm_90 -c "$here/kernel.cu" -o plain.o
	cuobjdump -sass kernel.o | grep -E '^\s+/\*[0-9a-f]{4}\*/' | sed 's@/\*[0-9a-f]*\*/@@; s@;.*@@' >egg.sass
	cuobjdump -sass plain.o | grep -E '^\s+/\*[0-9a-f]{4}\*/' | sed 's@/\*[0-9a-f]*\*/@@; s@;.*@@' >plain.sass
	say "$([ -s egg.sass ] && ! cmp -s egg.sass plain.sass && echo PASS || echo FAIL)" \
		"the tuned body is in the sm_90 code ($(wc -l <egg.sass) instructions, plain nvcc $(wc -l <plain.sass))"
fi
egg-cc -O3 -arch=sm_90 -c "$here/kernel.cu" -o kernel2.o 2>hit.err
say "$([ $? = 0 ] && [ ! -s hit.err ] && echo PASS || echo FAIL)" "a rebuild takes the cached result silently"
cat search.err
echo "kernel-target: $fails failed"
exit $((fails != 0))
