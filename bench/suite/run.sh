#!/usr/bin/env bash
# run.sh -- egg's benchmark suite in one command (see README.md beside this file).
#
#   bench/suite/run.sh OUTDIR [--nvcc CMD] [--egg-cc CMD] [--cases REGEX] [--cases-dir DIR]
#                             [--no-gpu] [--no-build] [--jobs N] [--budget-ms MS] [--keep-dumps]
#                             [--flush read|write]
#
# Builds every case with plain nvcc (and with egg-cc when --egg-cc is given), runs
# them on the GPU, checks them against PyTorch, times PyTorch eager, measures the
# ceilings, and prints the table; writes OUTDIR/results.{json,md,png}.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 1 ] || [ "${1#-}" != "$1" ]; then
	echo "usage: $0 OUTDIR [--nvcc CMD] [--egg-cc CMD] [--cases REGEX] [--cases-dir DIR] [--no-gpu] [--no-build]" >&2
	exit 2
fi
command -v python3 >/dev/null || { echo "run.sh: python3 is required" >&2; exit 2; }
[ -d /usr/local/cuda/bin ] && PATH=$PATH:/usr/local/cuda/bin
exec python3 -B "$here/suite.py" "$@"
