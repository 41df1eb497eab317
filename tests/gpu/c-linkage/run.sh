#!/bin/bash
# c-linkage/run.sh OUTDIR -- on a GPU machine, with egg-cc and egg on PATH: the
# example project with softmax_forward given C linkage (extern "C" before the
# definition and in the header, as a C or ctypes caller needs), searched from an
# empty cache and built as an object and as a shared library: the winner is
# linked, the symbol stays unmangled, and the self-checking demo passes with the
# winner at the call site.  The transcript goes to OUTDIR/c-linkage.txt.
set -u
out=${1:?usage: run.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
src=$(cd "$(dirname "$0")/../../../examples" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$src"/Makefile "$src"/*.cu "$src"/*.h "$work"/
cd "$work" || exit 1
sed -i 's/^void softmax_forward(/extern "C" void softmax_forward(/' kernels.cu kernels.h
export EGG_CACHE_DIR=$work/cache
{
	echo "# $(date -u +%Y-%m-%d), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1), $(nvcc --version | tail -n 1); tests/gpu/c-linkage/run.sh"
	echo "== search: make NVCC=egg-cc demo (softmax_forward extern \"C\")"
	make NVCC=egg-cc demo
	./demo
	echo "demo rc=$?"
	echo "== symbols of kernels.o"
	nm kernels.o | grep -E ' T (softmax_forward|.*egg_winner__softmax_forward)'
	echo "== as a shared library"
	egg-cc -O3 -arch=sm_90 -Xcompiler -fPIC -shared kernels.cu -o libk.so
	nm -D libk.so | grep -E ' T softmax_forward$' && echo "libk.so exports softmax_forward"
} >"$out/c-linkage.txt" 2>&1
tail -n 8 "$out/c-linkage.txt"
