#!/bin/bash
# emu-check.sh -- runs builtin check programs on the CPU: each program's kernel
# launches become calls of the stand-in runtime in builtin/tests/emu/ (its
# launches.py rewrites them), g++ compiles it, and it prints its CHECK lines
# (timings are meaningless; the timing loops are skipped).  For CPU CI: the candidates' results, tails and
# barriers included, checked without a GPU.  Keep workloads small.
#
# A program is compiled in two parts (emu/prepare.py): its body, and the scalars
# its main starts with.  The body's object is kept in EGG_EMU_CACHE (default:
# OUTDIR/cache) under the SHA-256 of the compiler, its flags, the stand-in's
# headers and the body, so that a program run at several sizes, or by several
# tests sharing the cache, is compiled once.  A program without such a main, or
# whose body does not compile alone, is compiled whole.
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
cache=${EGG_EMU_CACHE:-$out/cache}
mkdir -p "$out" "$cache" || exit 1
flags=(-std=c++20 -Og -w -I"$here/emu" -x c++)
# what the body's object depends on besides the body itself
toolchain=$({ command -v "$cxx"; "$cxx" --version; echo "${flags[*]}"; cat "$here"/emu/*.h; } | sha256sum | cut -d' ' -f1)

# The stand-in's cuda_runtime.h (37k lines once expanded: a third of a program's
# compile) precompiled once per toolchain in the cache: a folder with the
# stand-in's headers and cuda_runtime.h.gch, first on the include path, so that
# every program's `#include <cuda_runtime.h>` (its first line) reads the .gch.
# Where g++ cannot use it, it reads the header beside it: the result is the same.
pch=$cache/pch-$(echo "$toolchain" | cut -c1-24)
if [ ! -f "$pch/cuda_runtime.h.gch" ]; then
	pch_tmp=$(mktemp -d "$cache/.pch.XXXXXX") &&
		cp "$here"/emu/*.h "$pch_tmp/" &&
		"$cxx" "${flags[@]/#c++/c++-header}" "$pch_tmp/cuda_runtime.h" -o "$pch_tmp/cuda_runtime.h.gch" &&
		mv -T "$pch_tmp" "$pch" 2>/dev/null
	rm -rf "$pch_tmp"
fi
[ -f "$pch/cuda_runtime.h.gch" ] && flags=(-I"$pch" "${flags[@]}")

# build N: $out/N from $out/N.cc, the body's object from the cache when it is there
build() {
	local n=$1 key obj tmp
	if [ -f "$out/$n.body.cc" ]; then
		key=$({ echo "$toolchain"; cat "$out/$n.body.cc"; } | sha256sum | cut -d' ' -f1)
		obj=$cache/$key.o
		if [ ! -f "$obj" ]; then
			tmp=$(mktemp "$cache/.tmp.XXXXXX") &&
				"$cxx" "${flags[@]}" -c "$out/$n.body.cc" -o "$tmp" >"$out/$n.compile.log" 2>&1 &&
				mv -f "$tmp" "$obj" || rm -f "$tmp"
		fi
		[ -f "$obj" ] && "$cxx" "${flags[@]}" -c "$out/$n.sizes.cc" -o "$out/$n.sizes.o" >>"$out/$n.compile.log" 2>&1 &&
			"$cxx" "$obj" "$out/$n.sizes.o" -o "$out/$n" >>"$out/$n.compile.log" 2>&1 && return 0
	fi
	"$cxx" "${flags[@]}" "$out/$n.cc" -o "$out/$n" >"$out/$n.compile.log" 2>&1
}

status=0
: >"$out/checks.txt"
for src in "$@"; do
	n=$(basename "$src" .cu)
	# launches become stand-in calls; the timing loops run no round
	if ! python3 "$here/emu/prepare.py" "$src" "$out/$n" || ! build "$n"; then
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
