#!/bin/bash
# run.sh LOGDIR -- on a GPU machine: builds tests/data/builtin/namespaces.cu (five
# targets in namespaces, an inline namespace, an anonymous one and an extern "C"
# block), templates.cu (kernels written as templates, launched with arguments)
# and idioms.cu (cache-hinted loads, dim3 launches, a template helper) with
# egg-cc in search mode from an empty cache, checks that each target got a
# builtin winner (not the reference), and checks the program's results at sizes
# other than the workloads.  Needs egg-cc and nvcc on PATH.
# Prints PASS/FAIL lines; exits 0 when all pass.
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../../data/builtin
. "$here/../run-lib.sh"
egg-cc -O3 -arch=sm_90 -c "$data/namespaces.cu" -o namespaces.o 2>search.err
say "$([ $? = 0 ] && echo PASS || echo FAIL)" "egg-cc compiles namespaces.cu"
egg-cc -O3 -arch=sm_90 -c "$data/templates.cu" -o templates.o 2>>search.err
say "$([ $? = 0 ] && echo PASS || echo FAIL)" "egg-cc compiles templates.cu"
egg-cc -O3 -arch=sm_90 -c "$data/idioms.cu" -o idioms.o 2>>search.err
say "$([ $? = 0 ] && echo PASS || echo FAIL)" "egg-cc compiles idioms.cu"
# the lifted and refill ones must win; the generic path's edits of a copy or a
# kernel target's may tie with the reference, but must have been evaluated
for t in leaky_relu halvings scale c_leaky axpy exp_half swish; do
	line=$(grep "^egg: $t: .*over reference (builtin" search.err)
	say "$([ -n "$line" ] && echo PASS || echo FAIL)" "$t has a builtin winner: ${line:-$(grep "^egg: $t:" search.err | tail -1)}"
done
for t in square_k copy4 countdown; do
	line=$(grep -E "^egg: $t: (.*over reference \(builtin|nothing beat the reference)" search.err)
	ev=$(grep -E "^egg: $t: stage 2/tuning: [0-9]+/[0-9]+ candidates" search.err)
	say "$([ -n "$line" ] && [ -n "$ev" ] && echo PASS || echo FAIL)" "$t was searched: $ev; ${line:-$(grep "^egg: $t:" search.err | tail -1)}"
done
say "$(! grep -q 'warning' search.err && echo PASS || echo FAIL)" "no warning (no fallback to the reference)"
nvcc -O3 -arch=sm_90 "$here/main.cu" namespaces.o templates.o idioms.o -o prog 2>link.err
./prog >prog.out 2>&1
say "$([ $? = 0 ] && echo PASS || echo FAIL)" "the program's results are right: $(tail -1 prog.out)"
cat prog.out
egg-cc -O3 -arch=sm_90 -c "$data/namespaces.cu" -o namespaces2.o 2>hit.err &&
	egg-cc -O3 -arch=sm_90 -c "$data/templates.cu" -o templates2.o 2>>hit.err &&
	egg-cc -O3 -arch=sm_90 -c "$data/idioms.cu" -o idioms2.o 2>>hit.err
say "$([ $? = 0 ] && [ ! -s hit.err ] && echo PASS || echo FAIL)" "a rebuild takes the cached results silently"
cat search.err
echo "scopes: $fails failed"
exit $((fails != 0))
