#!/bin/bash
# emu-check.sh -- runs builtin check programs on the CPU: each program's kernel
# launches become calls of the stand-in runtime in builtin/tests/emu/ (its
# launches.py rewrites them), g++ compiles it, and it prints its CHECK lines
# (timings are meaningless; the timing loops are skipped).  For CPU CI: the candidates' results, tails and
# barriers included, checked without a GPU.  Keep workloads small.
#
#   builtin/tests/emu-check.sh OUTDIR PROGRAM.cu...
#
# Exit status: 0 all candidates correct, 1 a failure (rewrite, compile, run, or
# wrong result), 2 usage, 77 no g++ or python3.
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: $0 OUTDIR PROGRAM.cu..." >&2; exit 2; }
out=$1
shift
cxx=${CXX_EMU:-g++}
command -v "$cxx" >/dev/null 2>&1 || { echo "emu-check: no $cxx; skipped"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "emu-check: no python3; skipped"; exit 77; }
mkdir -p "$out" || exit 1
status=0
: >"$out/checks.txt"
for src in "$@"; do
	n=$(basename "$src" .cu)
	# launches become stand-in calls; the timing loops run no round
	if ! { python3 "$here/emu/launches.py" "$src" | sed -E 's/egg_k < (3|20); egg_k\+\+\) /egg_k < 0; egg_k++) /'; } >"$out/$n.cc" ||
	   ! "$cxx" -std=c++20 -Og -w -I"$here/emu" -x c++ "$out/$n.cc" -o "$out/$n" >"$out/$n.compile.log" 2>&1; then
		echo "CHECK-ERROR $n: compile failed: $(grep -m3 error "$out/$n.compile.log" | tr '\n' ' ')" >>"$out/checks.txt"
		status=1
		continue
	fi
	if ! timeout 300 "$out/$n" >"$out/$n.run.log" 2>&1; then
		echo "CHECK-ERROR $n: run failed: $(tail -3 "$out/$n.run.log" | tr '\n' ' ')" >>"$out/checks.txt"
		status=1
	fi
	grep '^CHECK' "$out/$n.run.log" >>"$out/checks.txt"
	rm -f "$out/$n"
done
cat "$out/checks.txt"
grep -q 'correct=no\|^CHECK-ERROR' "$out/checks.txt" && status=1
exit $status
