#!/bin/bash
# run-h200.sh OUTDIR [suite|llmc|sass] ... -- on the H200, in one device call: the
# bf16 cases (bench/bf16/cases: a bf16 case of each builtin family) and the llmc
# blind batch's cases that lifted with bf16 or float maps (bench/blind/llmc) through
# the benchmark suite with egg-cc searching from an empty cache (reference, egg and
# PyTorch eager columns, each checked against PyTorch in float64), then the SASS of
# every egg-built object: its kernels' 128-bit global loads and stores (LDG.E.128,
# STG.E.128) against the reference's.  Writes under OUTDIR:
#   bf16/results.md, llmc/results.md   the suite's tables (egg %floor is the column)
#   sass.txt                           per kernel: 128-bit loads, stores; 16-bit ones
#   summary.txt                        the two tables (egg %floor per case)
# Needs egg-cc, egg and nvcc (and cuobjdump) on PATH, python3 with torch, as the other
# GPU scripts.  Parts (default: all three, about 7 to 9 minutes from a cold cache):
# suite (the bf16 cases), llmc, sass.  EGG_CC overrides the egg-cc command;
# EGG_BENCH_COMMIT names the commit (the device's copy of the tree has no .git).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: run-h200.sh OUTDIR [suite|llmc|sass]...}
shift
parts=${*:-suite llmc sass}
export PATH=/usr/local/cuda/bin:$PATH
egg_cc=${EGG_CC:-egg-cc}
commit=${EGG_BENCH_COMMIT:-$(cd "$top" && git rev-parse --short HEAD 2>/dev/null || echo unknown)}
mkdir -p "$out"
work=$(mktemp -d)
# an empty cache: every egg build searches (builtin-23's candidates, not older winners)
export EGG_CACHE_DIR=$work/cache
trap 'rm -rf "$work"' EXIT
common=(--egg-cc "$egg_cc" --no-overheads --budget-ms 300 --jobs 8 --commit "$commit")
status=0
for p in $parts; do
	case $p in
	suite)
		"$top/bench/suite/run.sh" "$out/bf16" --cases-dir "$top/bench/bf16/cases" --work "$work/bf16" \
			"${common[@]}" || status=1
		;;
	llmc)
		# the bf16 maps and gather (gelu_forward, gelu_backward, residual_forward,
		# encoder_forward) and the float map the issue names with them
		"$top/bench/suite/run.sh" "$out/llmc" --cases-dir "$top/bench/blind/llmc" --work "$work/llmc" \
			--cases '^(gelu_forward|gelu_backward|residual_forward|encoder_forward|crossentropy_softmax_backward)$' \
			"${common[@]}" || status=1
		;;
	sass)
		# per kernel of each case's reference and egg objects: LDG.E.128 STG.E.128 LDG.E.U16 STG.E.U16
		for o in "$work"/*/build/*/*.o; do
			[ -f "$o" ] || continue
			case $o in *.glue.o | */bench_main.o) continue ;; esac
			cuobjdump -sass "$o" 2>/dev/null | awk -v obj="${o#"$work"/}" '
				/Function : / { k = $3 }
				/LDG\.E\.128/ { l[k]++ } /STG\.E\.128/ { s[k]++ }
				/LDG\.E\.U16|LDG\.E\.16/ { h[k]++ } /STG\.E\.U16|STG\.E\.16/ { hs[k]++ }
				/Function : / { seen[k] = 1 }
				END { for (x in seen) printf "%-40s %-60s ld128=%d st128=%d ld16=%d st16=%d\n", obj, x, l[x], s[x], h[x], hs[x] }'
		done | sort >"$out/sass.txt"
		;;
	*)
		echo "run-h200.sh: unknown part '$p' (suite, llmc, sass)" >&2
		exit 2
		;;
	esac
done
# the suite's tables (egg %floor: the column the issue's 0.85 is about), then the SASS
for part in bf16 llmc; do
	for f in "$out/$part/results.md" "$out/$part/results.partial.md"; do
		[ -f "$f" ] && { echo "## $part ($(basename "$f"))"; grep '^|' "$f"; }
	done
done >"$out/summary.txt"
cat "$out/summary.txt" "$out/sass.txt" 2>/dev/null | head -250
exit $status
