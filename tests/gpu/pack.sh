#!/bin/sh
# pack.sh -- puts the built egg and the one shared library it needs that a CUDA
# image may lack (libcjson) under .device/harness/, for carrying to a GPU machine:
#   tests/gpu/pack.sh && (device run, carry [".device"]) tests/gpu/run-harness-gpu.sh $OUT/harness
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
builddir=${EGG_BUILDDIR:-$top}
dest=$top/.device/harness
rm -rf "$dest"
mkdir -p "$dest/lib"
cp "$builddir/egg" "$dest/egg"
ldd "$builddir/egg" | awk '/libcjson/ { print $3 }' | while read -r lib; do
	cp -L "$lib" "$dest/lib/"
done
echo "packed $(ls "$dest" "$dest/lib" | tr '\n' ' ')"
