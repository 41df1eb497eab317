# builtin_long_rows.bash -- the row family on long odd rows (issue 26: softmax over a
# vocabulary of 50257 columns, norms over rows that are not a multiple of the vector
# width): every candidate of the softmax, log-softmax, layer-norm and RMS-norm test
# bundles runs on the CPU stand-in for CUDA (builtin/tests/emu) at odd column counts
# (1, 3, 31, 50257), on rows that start on every alignment (row stride 50257 floats:
# three rows in four start off a 16-byte boundary; the check programs also run every
# candidate on buffers shifted by one element), against the reference; and the vector
# body runs on misaligned rows too (a scalar head brings it to the boundary), which
# the stand-in's count of 16-byte loads shows.

DATA=$EGG_SRCDIR/tests/data/builtin
EMU_CHECK=$EGG_SRCDIR/builtin/tests/emu-check.sh
export EGG_BUILTIN_TEMPLATES=$EGG_SRCDIR/builtin/templates
export EGG_EMU_CACHE=${EGG_TEST_RUN_DIR:+$EGG_TEST_RUN_DIR/emu}

suite_probe() {
	command -v g++ >/dev/null || { echo "no g++"; return 1; }
	command -v python3 >/dev/null || { echo "no python3"; return 1; }
}

# sized BUNDLE OUT ROWVAR ROWS COLVAR COLS: BUNDLE's check program at ROWS x COLS,
# each CHECK line ending with the 16-byte loads its candidate issued (vec_loads=N)
sized() {
	local b=$1 out=$2
	"$EGG" generate --check-program "$DATA/$b.json" >"$b.full.cu" || fail "no check program for $b"
	sed -e "s/^\tint $3 = ([0-9]*);/\tint $3 = ($4);/" -e "s/^\tint $5 = ([0-9]*);/\tint $5 = ($6);/" \
		-e 's/^\t\tint ok = 1;$/&\n\t\tegg_emu_vec_loads = 0;/' \
		-e '/printf("CHECK %-16s %2d ref_ms=%.4f cand_ms=%.4f/{s/%s\\n", /%s vec_loads=%d\\n", /;s/);$/, egg_emu_vec_loads);/}' \
		"$b.full.cu" >"$out"
	grep -q "int $3 = ($4);" "$out" && grep -q "int $5 = ($6);" "$out" || fail "$b: sizes not replaced"
	grep -q 'vec_loads=%d' "$out" || fail "$b: load count not added"
}

# long_rows BUNDLE ROWVAR COLVAR PASSES: every candidate correct at 9 rows of 1, 3
# and 31 columns and at 4 rows of 50257 (rows start at every residue mod 4); and
# the block-per-row candidate reads (nearly) every element of its PASSES reads of
# the long rows through 16-byte loads, on the shifted buffers as on the aligned
# ones: 2 runs x 4 rows x 50257 x PASSES / 4, less the heads and tails.  (One test
# per bundle: the four sizes share one compile of the program.)
long_rows() {
	local n
	for n in 1 3 31; do
		sized "$1" "$1_$n.cu" "$2" 9 "$3" "$n"
	done
	sized "$1" "$1_v.cu" "$2" 4 "$3" 50257
	run_cmd e "$EMU_CHECK" "$T/emu" "$1_1.cu" "$1_3.cu" "$1_31.cu" "$1_v.cu"
	[ "$(cat e.rc)" -eq 0 ] || fail "wrong or failed: $(grep -v 'correct=yes' e.out | head -c 2000)"
	[ "$(grep -c 'correct=yes' e.out)" -ge 60 ] || fail "too few candidates checked: $(head -c 1000 e.out)"
	[ -n "$4" ] || return 0
	local want=$((2 * 4 * 50257 * $4 / 4 * 98 / 100)) line bad=0
	# the last program's lines are the long rows'
	tail -n "$(grep -c 'vec_loads=' "$T/emu/$1_v.run.log")" e.out |
		grep 'threads_per_row=512 tpb=512 vec=4 unroll=1 passes=online' >big.txt
	[ -s big.txt ] || fail "no block-per-row candidate: $(head -c 1000 e.out)"
	while read -r line; do
		[ "${line##*vec_loads=}" -ge "$want" ] || { echo "fewer than $want: $line"; bad=1; }
	done <big.txt >short.txt
	[ "$bad" -eq 0 ] && [ ! -s short.txt ] || fail "scalar loads on misaligned rows: $(head -c 1000 short.txt)"
}

test_softmax_over_rows_of_1_3_31_and_50257_columns_is_correct_and_vector_read() { long_rows softmax rows cols 2; }
test_layer_norm_over_rows_of_1_3_31_and_50257_columns_is_correct_and_vector_read() { long_rows layernorm rows cols 3; }
test_log_softmax_candidates_are_correct_on_rows_of_1_3_31_and_50257_columns() { long_rows log_softmax rows cols ""; }
test_rms_norm_candidates_are_correct_on_rows_of_1_3_31_and_50257_columns() { long_rows rmsnorm rows dim ""; }
