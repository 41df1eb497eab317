# nvcc_options: the committed option table (driver/nvcc-options.def) is what
# driver/gen-nvcc-options makes of the installed nvcc 13.0.  When nvcc changes,
# this fails and says to regenerate; other nvcc versions skip.

suite_probe() {
	[ -x "$REAL_NVCC" ] || { echo "no nvcc"; return 1; }
	command -v python3 >/dev/null || { echo "no python3"; return 1; }
	"$REAL_NVCC" --version | grep -q 'release 13\.0,' ||
		{ echo "the table is generated for nvcc 13.0; this nvcc is another release"; return 1; }
}

test_committed_option_table_matches_the_installed_nvcc() {
	python3 "$EGG_SRCDIR/driver/gen-nvcc-options" "$REAL_NVCC" >new.def ||
		fail "gen-nvcc-options failed"
	diff -u "$EGG_SRCDIR/driver/nvcc-options.def" new.def >table.diff ||
		fail "driver/nvcc-options.def is stale; regenerate it with driver/gen-nvcc-options: $(head -c 600 table.diff)"
	expect_file_contains new.def 'NVCC_OPTION("output-file", "o", NVCC_ARG_VALUE, 0, NULL)'
	expect_file_contains new.def 'NVCC_OPTION("include-path", "I", NVCC_ARG_LIST, 1, NULL)'
	expect_file_contains new.def 'NVCC_OPTION("device-debug", "G", NVCC_ARG_NONE, 0, NULL)'
}
