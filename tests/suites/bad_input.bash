# bad_input: on bad input egg-cc gives nvcc's own answer (message, exit status,
# outputs), or, where the trouble is egg-cc's own (no nvcc, a loop of symlinks),
# one clear message and exit status 127 -- and signals end it as they end nvcc.
# Tests that compare with nvcc use nvcc_compare.bash (same directory, both runs).
# driver_forms.bash already covers a PATH without nvcc, EGG_NVCC naming egg-cc and
# a wrapper script loop; these extend that to the other ways of naming nvcc.

source "$EGG_SRCDIR/tests/suites/nvcc_compare.bash"

suite_probe() {
	nc_probe
}

KERNEL='__global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }'

# bi_egg_only ARGS...: runs egg-cc, streams to r.out/r.err/r.rc, cut off after 60 s
# so that a loop fails the test instead of hanging it.
bi_egg_only() {
	run_cmd r timeout 60 "$@"
}

# bi_expect_one_line_127 TEXT: egg-cc failed on its own, with one line naming TEXT.
bi_expect_one_line_127() {
	expect_eq "$(cat r.rc)" 127 "exit status"
	expect_file_lines r.err 1
	expect_file_contains r.err "$1"
	expect_eq "$(wc -c <r.out)" 0 "bytes on stdout"
}

# --- sources nvcc cannot read ------------------------------------------------

PRAGMA_KERNEL="#pragma egg optimize inout(x[32]) launch(1, 32)
$KERNEL"

# Annotated sources, so that egg-cc's own reading of the source is what fails
# first.  (fast_path.bash checks the same as an unprivileged user against nvcc's
# streams; these also run as root and compare every output.)
prepare_unreadable() {
	echo "$PRAGMA_KERNEL" >a.cu
	chmod 000 a.cu
}

test_unreadable_annotated_source_gets_nvccs_message_and_status() {
	nc_form=direct+warn nc_prepare=prepare_unreadable nc_env=() nc_args=(-c a.cu -o a.o)
	# root reads anything: drop the capabilities that let it, for both runs.
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --bounding-set -dac_override,-dac_read_search true 2>/dev/null ||
			skip "running as root without setpriv to drop CAP_DAC_OVERRIDE"
		nc_wrap=(setpriv --bounding-set -dac_override,-dac_read_search)
	fi
	nc_run ref
	nc_run egg
	expect_file_contains ref.err "Permission denied"
	[ "$(cat ref.rc)" -ne 0 ] || fail "nvcc compiled an unreadable file"
	chmod u+r ref/a.cu egg/a.cu
	nc_compare
}

prepare_directory_source() {
	mkdir dir.cu
	echo "$PRAGMA_KERNEL" >k.cu
}

test_directory_among_inputs_next_to_an_annotated_source_gets_nvccs_answer() {
	nc_form=direct+warn nc_prepare=prepare_directory_source nc_env=() nc_args=(-c k.cu dir.cu)
	nc_run ref
	nc_run egg
	[ "$(cat ref.rc)" -ne 0 ] || fail "nvcc compiled a directory"
	nc_compare
}

# Sources that a scanner for "#pragma egg" could trip on; egg-cc must still give
# nvcc's results (at most one warning line of its own where there is a pragma).
prepare_binary_garbage() { # the same 4 KiB of noise for both runs
	perl -e 'srand(7); print map { chr(int(rand(256))) } 1 .. 4096' >garbage.cu
}

test_binary_garbage_source_gets_nvccs_errors() {
	nc_form=direct+warn nc_prepare=prepare_binary_garbage nc_env=() nc_args=(-c garbage.cu)
	nc_run ref
	nc_run egg
	[ "$(cat ref.rc)" -ne 0 ] || fail "nvcc compiled random bytes"
	nc_compare
}

prepare_odd_pragma_sources() {
	# A NUL byte before the pragma, a pragma as the last line without a newline,
	# and a 2 MB single line: all valid for nvcc.
	{ printf '/* \0 */\n#pragma egg optimize\n%s\n' "$KERNEL"; } >nul.cu
	{ printf '%s\n#pragma egg optimize' "$KERNEL"; } >eof.cu
	{ printf 'static const char big[] = "'; head -c 2000000 /dev/zero | tr '\0' 'x'; printf '";\n%s\n' "$KERNEL"; } >long.cu
}

test_odd_sources_with_and_without_pragma_compile_as_with_nvcc() {
	nc_form=direct+warn nc_prepare=prepare_odd_pragma_sources nc_env=()
	nc_args=(-objtemp -c nul.cu eof.cu long.cu)
	nc_run ref
	nc_run egg
	nc_compare
}

prepare_unicode_names() {
	mkdir "out dir ü"
	printf '#include <cstdio>\n%s\nvoid say() { std::printf("%%s\\n", MSG); }\n' "$KERNEL" >"my kern ü.cu"
}

test_file_names_with_spaces_and_unicode_reach_nvcc_intact() {
	nc_form=direct nc_prepare=prepare_unicode_names nc_env=()
	# (nvcc hands -D values to sh: a backquote would run a command.)
	nc_args=(-MD -c "my kern ü.cu" -o "out dir ü/k ☃.o" '-DMSG="a b"' '-DQUOTED="x \"y\""')
	nc_run ref
	expect_eq "$(cat ref.rc)" 0 "nvcc's exit status"
	nc_run egg
	nc_compare
}

# --- arguments passed through exactly ---------------------------------------

ARGV_ODD=(-c "" "a b" "  leading space" 'say "hi"' "it's" 'back\slash' 'ünïcødé ☃'
	$'new\nline' '$HOME' '*' '-D=x' -o "out put.o" -- -)

make_argv_recorder() { # DIR: a stand-in nvcc that writes its argv, NUL-separated
	mkdir -p "$1"
	printf '#!/bin/sh\nprintf "%%s\\0" "$@" >"%s/argv"\n' "$T/$1" >"$1/nvcc"
	chmod +x "$1/nvcc"
}

test_odd_arguments_pass_through_exactly_in_every_form() {
	make_argv_recorder fake
	printf '%s\0' "${ARGV_ODD[@]}" >want
	EGG_NVCC=$T/fake/nvcc bi_egg_only "$EGG_CC" "${ARGV_ODD[@]}"
	expect_same_file fake/argv want
	rm fake/argv
	bi_egg_only "$EGG_CC" "$T/fake/nvcc" "${ARGV_ODD[@]}"
	expect_same_file fake/argv want
	rm fake/argv
	mkdir masq
	ln -s "$EGG_CC" masq/nvcc
	bi_egg_only env PATH=$T/masq:$T/fake:$PATH nvcc "${ARGV_ODD[@]}"
	expect_same_file fake/argv want
}

# --- no usable nvcc -----------------------------------------------------------

test_launcher_naming_a_missing_nvcc_fails_with_one_line() {
	bi_egg_only "$EGG_CC" /nonexistent/bin/nvcc -c a.cu
	bi_expect_one_line_127 /nonexistent/bin/nvcc
}

test_egg_nvcc_naming_a_missing_file_fails_with_one_line() {
	EGG_NVCC=/nonexistent/nvcc bi_egg_only "$EGG_CC" -c a.cu
	bi_expect_one_line_127 /nonexistent/nvcc
}

test_egg_nvcc_naming_a_file_that_is_not_executable_fails_with_one_line() {
	echo 'not a program' >notexec
	EGG_NVCC=$T/notexec bi_egg_only "$EGG_CC" -c a.cu
	bi_expect_one_line_127 "$T/notexec"
}

test_directory_named_nvcc_on_path_is_not_run() {
	mkdir -p d/nvcc
	bi_egg_only env PATH=$T/d "$EGG_CC" -c a.cu
	bi_expect_one_line_127 nvcc
}

# --- masquerade loops ---------------------------------------------------------

test_masquerade_symlink_as_the_only_nvcc_fails_with_one_line() {
	mkdir masq
	ln -s "$EGG_CC" masq/nvcc
	bi_egg_only env PATH=$T/masq nvcc -c a.cu
	bi_expect_one_line_127 nvcc
}

test_two_masquerade_symlinks_and_a_chain_fail_with_one_line() {
	mkdir m1 m2 m3
	ln -s "$EGG_CC" m1/nvcc
	ln -s "$EGG_CC" m2/nvcc
	ln -s "$EGG_CC" m3/egg-link
	ln -s "$T/m3/egg-link" m3/nvcc
	bi_egg_only env PATH=$T/m1:$T/m2:$T/m3 nvcc -c a.cu
	bi_expect_one_line_127 nvcc
}

test_two_copies_of_egg_cc_named_nvcc_stop_with_one_line() {
	# Copies, not links: different files that each take the other for nvcc.
	mkdir c1 c2
	cp "$EGG_CC" c1/nvcc
	cp "$EGG_CC" c2/nvcc
	bi_egg_only env PATH=$T/c1:$T/c2 nvcc -c a.cu
	bi_expect_one_line_127 nvcc
}

# --- egg.conf ------------------------------------------------------------------

prepare_junk_conf() {
	echo "$KERNEL" >a.cu
	printf 'mode = off\nthis line is not key = value junk ]]]\n= no key\n' >egg.conf
}

test_junk_in_egg_conf_still_compiles_with_one_egg_line() {
	"$EGG" config >/dev/null 2>&1 ||
		skip "'egg config' does not exist yet, so egg.conf is not read on this branch"
	nc_form=direct+warn nc_prepare=prepare_junk_conf nc_env=() nc_args=(-c a.cu -o a.o)
	nc_run ref
	nc_run egg
	nc_compare
	expect_eq "$(grep -cE '^(egg-cc|egg): ' egg.err)" 1 "egg-cc's own lines on stderr"
	expect_file_contains egg.err egg.conf
}

# --- signals -------------------------------------------------------------------

write_slow_source() { # a source that keeps cicc busy for several seconds
	{
		echo 'template <int N> __global__ void work(float *x) {'
		echo '  float acc = x[threadIdx.x];'
		echo '#pragma unroll'
		echo '  for (int i = 0; i < 64 * N; i++) acc = __sinf(acc * i) + __cosf(acc + N);'
		echo '  x[threadIdx.x] = acc;'
		echo '}'
		for n in $(seq 1 40); do echo "template __global__ void work<$n>(float *);"; done
	} >"$1"
}

# sig_run SIDE SIGNAL group|pid: starts a long compile as SIDE (ref: nvcc, egg:
# egg-cc) in its own process group, waits until cicc runs, sends SIGNAL to the
# whole group (what Ctrl-C does) or to the compiler's pid alone, and records the
# exit status in SIDE.rc and stderr in SIDE.err.  Leftover processes of the group
# are listed in SIDE.left and then stopped.
sig_run() {
	local side=$1 sig=$2 target=$3 pid i wd
	mkdir -p "$T/$side.d"
	cd "$T/$side.d" || exit 1
	write_slow_source slow.cu
	local cmd=("$REAL_NVCC")
	[ "$side" == egg ] && cmd=("$EGG_CC")
	set -m
	PATH=$NVCC_DIR:$PATH "${cmd[@]}" -c slow.cu -o slow.o 2>"$T/$side.err" &
	pid=$!
	set +m
	for i in $(seq 1 600); do
		pgrep -g "$pid" -x cicc >/dev/null && break
		sleep 0.1
	done
	pgrep -g "$pid" -x cicc >/dev/null || { kill -KILL -- "-$pid"; fail "$side: cicc never started"; }
	if [ "$target" == group ]; then kill "-$sig" -- "-$pid"; else kill "-$sig" "$pid"; fi
	(sleep 60 && kill -KILL -- "-$pid") 2>/dev/null &
	wd=$!
	wait "$pid"
	echo $? >"$T/$side.rc"
	kill "$wd" 2>/dev/null
	sleep 0.5
	local p
	for p in $(pgrep -g "$pid"); do # zombies waiting for init are not running
		[ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" == Z ] || ps -o pid=,args= -p "$p"
	done >"$T/$side.left"
	kill -KILL -- "-$pid" 2>/dev/null
	cd "$T" || exit 1
}

# sig_compare SIGNAL group|pid: egg-cc ends as nvcc ends, with nvcc's own stderr
# lines (sorted: a signal to the group makes several processes write at once).
sig_compare() {
	sig_run ref "$1" "$2"
	sig_run egg "$1" "$2"
	[ "$(cat ref.rc)" -ne 0 ] || fail "nvcc finished before the signal; the test proves nothing"
	expect_eq "$(cat egg.rc)" "$(cat ref.rc)" "exit status after SIG$1 to the $2"
	# The words nvcc prints depend on which of its children the signal caught
	# first ("nvcc: Terminated" or "nvcc: Compilation terminated.", either in
	# the same setup under load), so two runs of nvcc itself differ: compare that
	# both printed nvcc's lines and that egg-cc added none of its own.
	grep -aq '^nvcc' ref.err || fail "nvcc printed nothing after SIG$1; there is nothing to compare"
	grep -aq '^nvcc' egg.err || fail "egg-cc's run printed no nvcc message after SIG$1: $(head -c 300 egg.err)"
	! grep -aq '^egg' egg.err || fail "egg-cc added its own lines: $(grep -a '^egg' egg.err | head -3)"

}

test_ctrl_c_ends_egg_cc_as_it_ends_nvcc() {
	# nvcc 13 itself exits 2 here ("cicc died due to signal 2"), not 130.
	sig_compare INT group
	[ ! -s egg.left ] || fail "processes left running after Ctrl-C: $(head -c 300 egg.left)"
	[ ! -e egg.d/slow.o ] || fail "an object was left after Ctrl-C"
}

test_sigterm_to_egg_cc_ends_it_as_it_ends_nvcc() {
	# nvcc 13 exits 255 ("nvcc: Terminated") and leaves cicc to finish on its own.
	sig_compare TERM pid
}

test_sigterm_to_the_group_ends_egg_cc_as_it_ends_nvcc() {
	sig_compare TERM group
	[ ! -s egg.left ] || fail "processes left running after SIGTERM: $(head -c 300 egg.left)"
}

# An evaluator that never answers: it records its shell's pid and a child's
# (what a real evaluator's ssh or make would be) and sleeps.
write_hanging_evaluator() { # FILE
	cat >"$1" <<SH
#!/bin/sh
sleep 300 &
echo \$! >"$T/eval-child.pid"
echo \$\$ >"$T/eval.pid"
wait
SH
	chmod +x "$1"
}

# stop_mid_search SIGNAL: an annotated compile whose evaluator hangs, stopped by
# SIGNAL to egg-cc once the evaluator runs; egg-cc's exit status in stop.rc.
stop_mid_search() {
	write_hanging_evaluator "$T/hang-eval"
	cp "$EGG_SRCDIR"/examples/{kernels.cu,kernels.h} .
	mkdir -p "$T/tmp"
	set -m # a background job of a script ignores SIGINT otherwise
	TMPDIR=$T/tmp EGG_EVAL_COMMAND=$T/hang-eval EGG_BUILTIN_TEMPLATES=$EGG_SRCDIR/builtin/templates \
		PATH=$NVCC_DIR:$PATH "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o k.o 2>stop.err &
	local pid=$! i
	set +m
	for i in $(seq 1 300); do
		[ -s "$T/eval-child.pid" ] && break
		sleep 0.1
	done
	[ -s "$T/eval-child.pid" ] || { kill -KILL "$pid"; fail "the evaluator never started: $(cat stop.err)"; }
	kill "-$1" "$pid"
	(sleep 60 && kill -KILL "$pid") 2>/dev/null &
	local wd=$!
	wait "$pid"
	echo $? >stop.rc
	kill "$wd" 2>/dev/null
	for i in $(seq 1 50); do # the evaluator's group gets the signal; give it a moment
		kill -0 "$(cat "$T/eval-child.pid")" 2>/dev/null || break
		sleep 0.1
	done
}

# nothing of a search outlives the build: no egg-cc.* directory, no evaluator
evaluator_is_gone() {
	local p
	for p in "$(cat "$T/eval.pid")" "$(cat "$T/eval-child.pid")"; do
		if kill -0 "$p" 2>/dev/null && [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" != Z ]; then
			kill -KILL "$p"
			fail "the evaluator (pid $p) outlived the build"
		fi
	done
	[ -z "$(ls "$T/tmp")" ] || fail "left in TMPDIR: $(ls "$T/tmp")"
}

test_a_build_stopped_during_a_search_leaves_no_temporary_directory_and_no_evaluator() {
	stop_mid_search TERM
	expect_eq "$(cat stop.rc)" 143 "exit status after SIGTERM"
	evaluator_is_gone
	rm -f "$T"/eval*.pid
	# a runner started in the background of a script ignores SIGINT from its start,
	# and so does everything it starts (set -m cannot undo that): egg-cc too
	[ -z "$(trap -p INT)" ] || skip "SIGINT is ignored in this run (the test runner was started in the background)"
	stop_mid_search INT
	expect_eq "$(cat stop.rc)" 130 "exit status after SIGINT"
	evaluator_is_gone
}

test_egg_cc_killed_outright_stops_the_evaluator_too() {
	stop_mid_search KILL
	expect_eq "$(cat stop.rc)" 137 "exit status after SIGKILL"
	local i
	for i in $(seq 1 50); do # egg plan is told by the kernel (parent-death signal)
		kill -0 "$(cat "$T/eval-child.pid")" 2>/dev/null || break
		sleep 0.1
	done
	# the directory of a killed egg-cc stays until a later build sweeps it (next test)
	rm -rf "$T"/tmp/egg-cc.*
	evaluator_is_gone
}

test_stale_temporary_directories_of_killed_builds_are_swept() {
	mkdir -p "$T/tmp/egg-cc.old1" "$T/tmp/egg-cc.fresh1" "$T/tmp/unrelated.old"
	touch -d '2 days ago' "$T/tmp/egg-cc.old1" "$T/tmp/unrelated.old"
	cp "$EGG_SRCDIR"/examples/{kernels.cu,kernels.h} .
	TMPDIR=$T/tmp EGG_MODE=cache EGG_BUILTIN_TEMPLATES=$EGG_SRCDIR/builtin/templates \
		PATH=$NVCC_DIR:$PATH run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o k.o ||
		fail "$(cat r.err)"
	[ ! -e "$T/tmp/egg-cc.old1" ] || fail "a day-old egg-cc directory was not swept"
	[ -d "$T/tmp/egg-cc.fresh1" ] || fail "a live build's directory was swept"
	[ -d "$T/tmp/unrelated.old" ] || fail "a directory that is not egg-cc's was swept"
}
