#!/bin/bash
# run.sh -- bench/gemm on a GPU: every builtin GEMM candidate of every case of
# cases.txt, checked against the case's reference and timed (the check programs
# that prepare.sh wrote into .device/gemm: one correctness trial, then the mean
# of 20 runs), and cuBLAS SGEMM at the same shapes (cublas_ref.cu, timed the same
# way); prints the table (table.py) and writes OUTDIR/gemm.md,
# OUTDIR/checks.txt, OUTDIR/cublas.txt and the logs (ptxas -v in *.build.log).
#
#   bench/gemm/run.sh OUTDIR [PROGRAMS_DIR]      (default .device/gemm)
#
# Exit status: 0 every candidate correct, 1 a failure or a wrong candidate,
# 77 no GPU.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${1:?usage: run.sh OUTDIR [PROGRAMS_DIR]}
progs=${2:-$top/.device/gemm}
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi -L >/dev/null 2>&1 || { echo "run.sh: no GPU"; exit 77; }
ls "$progs"/*.cu >/dev/null 2>&1 || { echo "run.sh: no check programs in $progs (bench/gemm/prepare.sh)"; exit 1; }
mkdir -p "$out/bin"
nvidia-smi -L | head -1 >"$out/device.txt"
status=0
# the builds in parallel, one nvcc per program
nvcc -O3 -arch=sm_90 -o "$out/bin/cublas_ref" "$here/cublas_ref.cu" -lcublas >"$out/cublas_ref.log" 2>&1 || status=1
pids=()
for p in "$progs"/*.cu; do
	n=$(basename "$p" .cu)
	nvcc -O3 -arch=sm_90 -Xptxas -v -o "$out/bin/$n" "$p" >"$out/$n.build.log" 2>&1 &
	pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
: >"$out/checks.txt"
: >"$out/cublas.txt"
: >"$out/shapes.txt"
grep -v '^#' "$here/cases.txt" | while read -r n _ _ m nn k b l e prec; do
	[ -n "$n" ] || continue
	if [ ! -x "$out/bin/$n" ]; then
		echo "CHECK-ERROR $n: no program or it does not compile: $(grep -m3 error "$out/$n.build.log" 2>/dev/null | tr '\n' ' ')" >>"$out/checks.txt"
		continue
	fi
	timeout 120 "$out/bin/$n" >"$out/$n.run.log" 2>&1 || echo "CHECK-ERROR $n: the program failed: $(tail -3 "$out/$n.run.log" | tr '\n' ' ')" >>"$out/checks.txt"
	# (its lines name the launcher: the case's name instead)
	sed -n -e "s/^CHECK [^ ]* /CHECK $n /p" -e '/^CHECK-/p' "$out/$n.run.log" >>"$out/checks.txt"
	"$out/bin/cublas_ref" "$n" "$l" "$m" "$nn" "$k" "$b" "$e" "$prec" >>"$out/cublas.txt" 2>&1
	echo "$n M=$m N=$nn K=$k batch=$b $l $e $prec" >>"$out/shapes.txt"
done
rm -rf "$out/bin"
python3 "$here/table.py" "$out" | tee "$out/gemm.md"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
exit $status
