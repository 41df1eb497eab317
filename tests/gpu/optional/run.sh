#!/bin/bash
# run.sh LOGDIR -- on a GPU machine: builds optional.cu (three launchers whose
# bias or residual is optional: a matmul at GPT-2 small's shape, bias+GELU, a
# residual; each checked with the pointer and with it NULL) with egg-cc in
# search mode from an empty cache, then again from the cache.  Needs egg-cc,
# egg and nvcc on PATH.  Prints PASS/FAIL lines and the search's progress;
# exits 0 when all pass.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../run-lib.sh"
egg-cc -O3 -arch=sm_90 --egg-report="$logdir/report.jsonl" -c "$here/optional.cu" -o optional.o 2>search.err
say "$([ $? = 0 ] && echo PASS || echo FAIL)" "egg-cc compiles optional.cu"
for k in matmul_forward1 bias_gelu_forward residual_forward; do
	line=$(grep "^egg: $k: " search.err | tail -1)
	say "$(grep -q "^egg: $k: stage 1/structure: lifted" search.err && echo PASS || echo FAIL)" \
		"$k lifted and searched: ${line:-nothing said}"
done
egg-cc -O3 -arch=sm_90 -c "$here/optional.cu" -o optional2.o 2>hit.err
say "$([ $? = 0 ] && [ ! -s hit.err ] && echo PASS || echo FAIL)" "a rebuild takes the cached results silently"
egg report "$logdir/report.jsonl" >report.txt 2>&1
cat search.err report.txt
echo "optional: $fails failed"
exit $((fails != 0))
