#!/bin/bash
# reseed.sh OUTDIR -- on a GPU machine, with egg-cc and egg on PATH: builds the
# example project with egg-cc in search mode from an empty cache, exports the
# cache as OUTDIR/example-seed.egg.gz (commit it as examples/seed/example-seed.egg.gz;
# gzip keeps it a tenth of its size: `make demo` unpacks it),
# then builds it in verify mode, again as a cache hit, and with plain nvcc, each
# time running the self-checking demo.  The transcript goes to OUTDIR/example-run.txt.
set -u
out=${1:?usage: reseed.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$src"/Makefile "$src"/*.cu "$src"/*.h "$work"/
export EGG_CACHE_DIR=$work/cache
cd "$work" || exit 1
log=$out/example-run.txt
{
	echo "# examples/ built with egg-cc in search mode from an empty cache, then in verify mode, then again (cache hit), then with plain nvcc"
	echo "# $(date -u +%Y-%m-%d), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1) (device tool), $(nvcc --version | tail -n 1); examples/seed/reseed.sh"
	echo "== search from an empty cache: make NVCC=egg-cc demo"
	time make NVCC=egg-cc demo
	./demo
	echo "demo rc=$?"
	egg cache export "$out/example-seed.egg" && gzip -9nf "$out/example-seed.egg"
	echo "== verify mode: EGG_MODE=verify make NVCC=egg-cc demo"
	rm -f demo ./*.o
	time EGG_MODE=verify make NVCC=egg-cc demo
	./demo
	echo "demo rc=$?"
	echo "== cache hit"
	rm -f demo ./*.o
	time make NVCC=egg-cc demo
	echo "== plain nvcc"
	rm -f demo ./*.o
	time make NVCC=nvcc demo
	./demo
	echo "demo rc=$?"
} >"$log" 2>&1
tail -n 5 "$log"
