# args_vs_nvcc: driver/args' model of a command line (the files nvcc writes and
# the depfiles) matches what the installed nvcc does, read from `nvcc -dryrun`,
# for a corpus of command lines: every phase, several inputs, -odir, -o, -x,
# -M*, options files and environment flags.  A line the model says nvcc rejects
# must make nvcc fail.

suite_probe() {
	[ -x "$REAL_NVCC" ] || { echo "no nvcc"; return 1; }
	"$REAL_NVCC" --version | grep -q 'release 13\.' || { echo "the model is measured on nvcc 13"; return 1; }
}

ARGS_DUMP=$EGG_BUILDDIR/tests/tools/args-dump

make_inputs() {
	mkdir -p sub d od
	for f in a.cu b.cu zz.cu sub/x.y.cu; do echo '__global__ void k(float *x) { x[0] = 1; }' >"$f"; done
	echo 'int h(void) { return 0; }' >m.c
	echo 'int g() { return 0; }' >m.cpp
	echo '.version 8.0' >k.ptx
	printf -- '-c "a.cu" -odir od\n' >opts.txt
	printf -- '-MD -optf opts.txt\n' >nested.txt
}

# The files and depfiles nvcc -dryrun shows for ARGS, one "OUT f"/"DEP f" a line.
nvcc_view() {
	"$REAL_NVCC" -dryrun "$@" 2>&1 |
		grep -oE ' -o "[^"]*"| cr "[^"]*"|--create="[^"]*"|-- Filter Dependencies --( > [^ ]*)?' |
		sed -E -e 's/^ -o "(.*)"$/OUT \1/' -e 's/^ cr "(.*)"$/OUT \1/' \
			-e 's/^--create="(.*)"$/OUT \1/' -e 's/^-- Filter Dependencies -- > (.*)$/DEP \1/' \
			-e 's/^-- Filter Dependencies --$/DEP -/' |
		grep -vE '^OUT (/tmp/|.*tmpxft)' | sort -u
}

model_view() {
	"$ARGS_DUMP" "$@" | grep -E '^(OUT|DEP) ' | sort -u
}

# check ARGS...: the model and nvcc agree on ARGS
check() {
	local model nvcc
	model=$(model_view "$@")
	nvcc=$(nvcc_view "$@")
	if [[ $("$ARGS_DUMP" "$@") == *$'\n'problem* ]]; then
		[[ $("$REAL_NVCC" -dryrun "$@" 2>&1) == *"nvcc fatal"* ]] ||
			fail "the model says nvcc rejects '$*' but nvcc accepts it"
		return
	fi
	[ "$model" == "$nvcc" ] ||
		fail "for '$*': model says [$(echo $model)], nvcc -dryrun says [$(echo $nvcc)]"
}

test_per_input_phases_write_what_nvcc_writes() {
	make_inputs
	check -c a.cu
	check -c sub/x.y.cu
	check -c a.cu b.cu
	check -c a.cu b.cu -odir d
	check -c a.cu -odir d/
	check -c a.cu -o sub/q.o -odir d
	check -c a.cu -o=x.o
	check --compile a.cu --output-file x.o
	check -dc a.cu m.cpp
	check -dw a.cu
	check -dc k.ptx
	check -cubin k.ptx
	check -c m.c m.cpp
	check -c -x cu m.cpp
	check -ptx a.cu b.cu -odir d
	check -cubin a.cu
	check -fatbin a.cu
	check -cuda a.cu
	check -optix-ir a.cu
	check -dlto -ltoir a.cu
	check -E a.cu -o x.i
	check -c -ptx a.cu
	check -cuda -c a.cu
	check -fatbin -cubin a.cu
}

test_whole_program_phases_write_one_file() {
	make_inputs
	check a.cu
	check a.cu b.cu -odir d
	check a.cu -o prog
	check -link a.cu m.cpp
	check -lib a.cu
	check -lib a.cu -odir d
	check -lib a.cu -o libk.a
	check -dc -dlink a.cu
	check -run a.cu -odir d
}

test_depfiles_are_where_nvcc_puts_them() {
	make_inputs
	check -M a.cu
	check -MM a.cu b.cu
	check -M -MF f.d a.cu
	check -M a.cu -o x.d -MF y.d
	check -MD -c a.cu
	check -MMD -c sub/x.y.cu
	check -MD -c a.cu -o sub/q.o
	check -MD -MF f.d -c a.cu
	check -MD -c a.cu b.cu
	check -MD -c a.cu -odir d
	check -MD -c a.cu -o noext
	check -MD -ptx a.cu -odir d
	check -MD a.cu -o prog
	check -MD a.cu b.cu
	check -MD -c m.cpp
}

test_options_files_and_environment_flags_are_followed() {
	make_inputs
	check -optf opts.txt
	check -optf nested.txt
	check --options-file=opts.txt b.cu
	NVCC_APPEND_FLAGS="-odir d" check -c a.cu
	NVCC_PREPEND_FLAGS="-MD -c" NVCC_APPEND_FLAGS="-o x.o" check a.cu
}

test_rejected_command_lines_are_rejected_by_nvcc() {
	make_inputs
	check -c a.cu -ofoo.o
	check -c a.cu -o
	check -c a.cu b.cu -o x.o
	check -c a.cu -optf nosuch.txt
	check -c a.cu --bogus
	check -c a.cu -G=1
	check -c a.cu -std=c++23
	check -c a.cu -x cuda
}

test_depfile_targets_are_nvcc_s() {
	make_inputs
	local args
	for args in "-M a.cu" "-M -odir d sub/x.y.cu" "-M -MT t1 -MT t2 a.cu" "-M -MT x,y a.cu"; do
		# shellcheck disable=SC2086
		target=$("$REAL_NVCC" $args 2>/dev/null | head -1 | sed 's/ : .*//')
		# shellcheck disable=SC2086
		expect_eq "$("$ARGS_DUMP" $args | sed -n 's/^TARGET //p')" "$target" "target of $args"
	done
}
