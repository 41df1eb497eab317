#!/bin/bash
# long-rows.sh -- issue 26's long odd rows on the GPU, in one device call: the
# suite's cases over rows of 50257 columns (softmax_gpt2_vocab, log_softmax_vocab,
# layer_norm_odd) and their short-row siblings (softmax, log_softmax, layer_norm:
# that nothing got slower), then the GPT-2 batch's cases of the same shapes
# (bench/blind/llmc: crossentropy_forward over 50257 of 50304 padded columns, and
# softmax_vocab, a block-per-row kernel egg does not lift: its egg column is the
# reference rebuilt), each against nvcc, PyTorch eager and the roofline floor.
#
#   bench/suite/long-rows.sh OUTDIR [--budget-ms MS]
#
# Uses ./egg-cc and ./egg built in this tree, else egg-cc on PATH, else builds
# them here (autoreconf, configure, make).  Writes OUTDIR/suite/results.{md,json}
# and OUTDIR/llmc/results.{md,json} (results.partial.json as each case ends, so a
# call cut short keeps what it measured) and OUTDIR/tables.md, both tables
# together.  About 5 to 7 minutes on an H200 from an empty cache.
set -u
out=${1:?usage: bench/suite/long-rows.sh OUTDIR [--budget-ms MS]}
shift
budget=300
[ "${1:-}" = --budget-ms ] && budget=${2:?--budget-ms needs a value}
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
cd "$top" || exit 1
export PATH=/usr/local/cuda/bin:$PATH
if [ -x ./egg-cc ] && [ -x ./egg ]; then
	eggcc=$top/egg-cc
elif command -v egg-cc >/dev/null 2>&1; then
	eggcc=$(command -v egg-cc)
else
	echo "long-rows: building egg here (log: $out/build.log)"
	{ autoreconf -fi && ./configure && make -j"$(nproc)"; } >"$out/build.log" 2>&1 ||
		{ echo "long-rows: the build failed: $(tail -5 "$out/build.log")" >&2; exit 1; }
	eggcc=$top/egg-cc
fi
# an egg-cc of this tree, not installed, reads the templates from it
[ "$eggcc" = "$top/egg-cc" ] && export EGG_BUILTIN_TEMPLATES=$top/builtin/templates
export EGG_CACHE_DIR=$out/cache
commit=${EGG_BENCH_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
echo "long-rows: egg-cc $eggcc, commit $commit"
status=0
bench/suite/run.sh "$out/suite" --egg-cc "$eggcc" --no-overheads --budget-ms "$budget" --commit "$commit" \
	--cases '^(softmax_gpt2_vocab|log_softmax_vocab|layer_norm_odd|softmax|log_softmax|layer_norm)$' || status=1
bench/suite/run.sh "$out/llmc" --cases-dir bench/blind/llmc --egg-cc "$eggcc" --no-overheads \
	--budget-ms "$budget" --commit "$commit" --cases '^(crossentropy_forward|softmax_vocab)$' || status=1
# which candidate won each case, from the build reports in the cache
"$(dirname "$eggcc")/egg" report >"$out/winners.txt" 2>&1 || true
{
	echo "# long odd rows (issue 26), commit $commit"
	for part in suite llmc; do
		echo
		echo "## $part"
		echo
		if [ -f "$out/$part/results.md" ]; then
			sed -n '/^| case /,/^$/p' "$out/$part/results.md"
		else
			echo "(no results: see $out/$part)"
		fi
	done
	echo
	echo "## winners (egg report)"
	echo
	sed 's/^/    /' "$out/winners.txt"
} >"$out/tables.md"
cat "$out/tables.md"
exit $status
