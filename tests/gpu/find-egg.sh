# find-egg.sh -- sourced by the GPU scripts with $top set to the source tree:
# puts CUDA's bin on PATH and sets EGG to $EGG, else .device/harness/egg (packed
# by tests/gpu/pack.sh, with its libraries), else the built ./egg.
export PATH=/usr/local/cuda/bin:$PATH
if [ -n "${EGG:-}" ]; then
	:
elif [ -x "$top/.device/harness/egg" ]; then
	EGG=$top/.device/harness/egg
	export LD_LIBRARY_PATH=$top/.device/harness/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
else
	EGG=$top/egg
fi
