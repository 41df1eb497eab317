#!/bin/bash
# gpu-check.sh -- compiles and runs every builtin candidate against its reference
# on random data and prints a table (reference ms, candidate ms, speedup, max
# error, correct).  One call on a GPU machine; nothing to build first:
#
#   builtin/tests/gpu-check.sh OUTDIR            compile + run (exit 77 without a GPU)
#   builtin/tests/gpu-check.sh --no-gpu OUTDIR   compile only (tests this script on CPU)
#   builtin/tests/gpu-check.sh --format FILE     the table of a file of CHECK lines
#
# The check programs are written first, into OUTDIR/programs, by
# `egg generate --check-program tests/data/builtin/NAME.json` for every test
# bundle (EGG names the egg binary; default: egg on PATH); their content hashes
# are builtin/tests/check.sha256, which the builtin suite holds the generator to.
# Set EGG_CHECK_PROGRAMS to use a folder of programs instead.
# Exit status: 0 all candidates correct, 1 a failure (compile, run, or wrong
# result), 2 usage, 77 no GPU.
set -u
here=$(cd "$(dirname "$0")" && pwd)
programs=${EGG_CHECK_PROGRAMS:-}

format_table() { # FILE of CHECK lines -> table on stdout; status 1 if any is wrong
	awk '
	BEGIN { bad = 0; printf "%-16s %3s %10s %10s %8s %10s %-7s %s\n", "bundle", "#", "ref_ms", "cand_ms", "speedup", "max_err", "correct", "label" }
	/^CHECK-ERROR/ { print; bad = 1; next }
	/^CHECK / {
		name = $2; idx = $3
		if (idx == "--") { printf "%-16s %3s %10s %10s %8s %10s %-7s %s\n", name, "-", substr($4, 8), "-", "-", "-", "-", "not lifted"; next }
		ref = substr($4, 8); cand = substr($5, 9); err = substr($6, 9); ok = substr($7, 9)
		label = ""; for (i = 8; i <= NF; i++) label = label (i > 8 ? " " : "") $i
		sp = (cand > 0) ? sprintf("%.2fx", ref / cand) : "-"
		printf "%-16s %3s %10s %10s %8s %10s %-7s %s\n", name, idx, ref, cand, sp, err, ok, label
		if (ok != "yes") bad = 1
	}
	END { exit bad }' "$1"
}

no_gpu=0
case "${1:-}" in
--format)
	[ $# -eq 2 ] || { echo "usage: $0 --format FILE" >&2; exit 2; }
	format_table "$2"
	exit $?
	;;
--no-gpu)
	no_gpu=1
	shift
	;;
esac
[ $# -eq 1 ] || { echo "usage: $0 [--no-gpu] OUTDIR | --format FILE" >&2; exit 2; }
out=$1
mkdir -p "$out" || exit 1

if [ $no_gpu -eq 0 ]; then
	if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
		echo "gpu-check: no GPU here (nvidia-smi finds none); skipped"
		exit 77
	fi
fi
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$nvcc" ] || { echo "gpu-check: no nvcc (set NVCC)"; exit 1; }
arch=${EGG_CHECK_ARCH:-sm_90}
jobs=$(nproc 2>/dev/null || echo 2)
[ $no_gpu -eq 1 ] && [ "$jobs" -gt 2 ] && jobs=2

if [ -z "$programs" ]; then
	egg=${EGG:-$(command -v egg)}
	[ -x "$egg" ] || { echo "gpu-check: no egg binary to write the check programs (set EGG)"; exit 1; }
	programs=$out/programs
	mkdir -p "$programs" || exit 1
	export EGG_BUILTIN_TEMPLATES=${EGG_BUILTIN_TEMPLATES:-$here/../templates}
	for f in "$here"/../../tests/data/builtin/*.json; do
		"$egg" generate --check-program "$f" >"$programs/$(basename "$f" .json).cu" ||
			{ echo "gpu-check: egg generate --check-program $f failed"; exit 1; }
	done
fi
ls "$programs"/*.cu >/dev/null 2>&1 || { echo "gpu-check: no programs in $programs"; exit 1; }
# binaries go to a scratch folder: OUTDIR keeps only logs and the table
bin=$(mktemp -d "${TMPDIR:-/tmp}/egg-gpu-check.XXXXXX") || exit 1
trap 'rm -rf "$bin"' EXIT
export nvcc arch out bin
# compile in parallel; a failure leaves NAME.compile-failed with the log
ls "$programs"/*.cu | xargs -P "$jobs" -I{} bash -c '
	n=$(basename "{}" .cu)
	if ! "$nvcc" -O3 -arch="$arch" -o "$bin/$n" "{}" >"$out/$n.compile.log" 2>&1; then
		touch "$out/$n.compile-failed"
	fi'
status=0
: >"$out/checks.txt"
: >"$out/compiled.txt"
for src in "$programs"/*.cu; do
	n=$(basename "$src" .cu)
	if [ -e "$out/$n.compile-failed" ]; then
		echo "CHECK-ERROR $n: compile failed: $(grep -m3 error "$out/$n.compile.log" | tr '\n' ' ')" >>"$out/checks.txt"
		status=1
		continue
	fi
	if [ $no_gpu -eq 1 ]; then
		echo "compiled $n" >>"$out/compiled.txt"
		continue
	fi
	if ! timeout 300 "$bin/$n" >"$out/$n.run.log" 2>&1; then
		echo "CHECK-ERROR $n: run failed: $(tail -3 "$out/$n.run.log" | tr '\n' ' ')" >>"$out/checks.txt"
		status=1
	fi
	grep '^CHECK' "$out/$n.run.log" >>"$out/checks.txt"
done
if [ $no_gpu -eq 1 ]; then
	cat "$out/checks.txt"
	echo "gpu-check: compiled $(wc -l <"$out/compiled.txt") programs for $arch (no GPU: not run)"
	exit $status
fi
{
	echo "device: $(nvidia-smi -L | head -1); nvcc: $("$nvcc" --version | tail -1); arch: $arch"
	format_table "$out/checks.txt"
} | tee "$out/table.txt"
grep -q 'correct=no\|^CHECK-ERROR' "$out/checks.txt" && status=1
exit $status
