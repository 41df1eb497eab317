# nvcc_compare.bash -- run one nvcc command line twice, once with the real nvcc and
# once with egg-cc, and compare everything the two runs leave behind.  Sourced by
# the equivalence and bad_input suites (it defines no tests itself).
#
# Both runs happen in the SAME absolute directory $T/w, filled each time by
# $nc_prepare: first with the real nvcc (the tree is then moved to $T/ref), then
# with egg-cc (moved to $T/egg).  One path for both, rather than two sibling
# directories, matters: nvcc derives the module id of relocatable device code
# (-dc, -dlink) from the source's absolute path, and -M/-E/--dryrun print paths,
# so two directories would differ for reasons that have nothing to do with egg-cc.
# No directory name needs normalizing this way.
#
# What nc_compare compares, and how:
# - exit status: equal.
# For "+warn" forms (annotated sources) on a machine with a GPU, egg-cc runs with
# EGG_MODE=cache and the test's empty cache, so it has nothing better than nvcc.
# - stdout and stderr: equal after two normalizations, both of text that differs
#   between two runs of nvcc itself: nvcc's temporary file names
#   (tmpxft_PID_COUNTER, printed by --dryrun, in -cuda output, in linker messages)
#   and ptxas's "Compile time = N ms" (-Xptxas -v).  With nc_form "...+warn"
#   egg-cc may add at most one line of its own ("egg-cc: ..."/"egg: ...") to stderr.
# - produced files: the whole tree after the run (inputs, outputs, depfiles,
#   -keep intermediates, anything stray) must list the same paths with the same
#   types and permission bits, and every regular file must be byte-identical, or
#   byte-identical after replacing tmpxft_XXXXXXXX_XXXXXXXX names with a constant
#   of the same length.  Measured with nvcc 13.0 in one directory: .ptx, .cubin,
#   .fatbin, -E output, depfiles, -objtemp objects and -dlink objects are
#   byte-identical between runs; objects without -objtemp, -dw/-dc objects,
#   executables, .a archives and -cuda output embed the temporary file name and
#   are identical after that one substitution (no cuobjdump here to dump them).
#   The substitution keeps lengths, so offsets and sizes are still compared.
#   Two traps are avoided rather than normalized: with -G the temporary name lands
#   inside the object's compressed fatbin, so -G object cases use -objtemp (the
#   name is then the object's own); and -G debug info records the source's mtime,
#   so nc_run stamps every prepared file with one fixed time.
#
# Inputs (globals): nc_form (direct | launcher | masq, optionally +warn),
# nc_prepare (a command run in the empty $T/w), nc_env (array of VAR=value),
# nc_args (array: nvcc's arguments); optional nc_wrap (array: a command that both
# runs go through, such as setpriv).

# nc_normalize FILE: prints FILE with nvcc's run-specific temp names and timings fixed.
nc_normalize() {
	perl -0777 -pe 's/tmpxft_[0-9a-f]{8}_[0-9a-f]{8}/tmpxft_XXXXXXXX_XXXXXXXX/g;
	                s/(Compile time = )[0-9.]+( ms)/${1}N${2}/g' "$1"
}

# nc_command SIDE: sets nc_cmd and nc_cmd_env, how SIDE (ref | egg) runs nvcc.
nc_command() {
	local nvcc_dir
	nvcc_dir=$(dirname "$REAL_NVCC")
	nc_cmd_env=("PATH=$nvcc_dir:$PATH")
	if [ "$1" == ref ]; then
		nc_cmd=("$REAL_NVCC")
		return
	fi
	case ${nc_form%+warn} in
	direct) nc_cmd=("$EGG_CC") ;;
	launcher) nc_cmd=("$EGG_CC" "$REAL_NVCC") ;;
	masq)
		mkdir -p "$T/masq"
		ln -sf "$EGG_CC" "$T/masq/nvcc"
		nc_cmd=(nvcc)
		nc_cmd_env=("PATH=$T/masq:$nvcc_dir:$PATH")
		;;
	*) fail "unknown form '$nc_form'" ;;
	esac
	# Annotated cases prove that egg gives nvcc's results when it has nothing
	# better.  Without a GPU that is the default; with one, egg would search and
	# compile a different kernel, so keep it to its (empty) cache.
	if [[ $nc_form == *+warn ]] && nc_gpu_present; then
		nc_cmd_env+=(EGG_MODE=cache)
	fi
}

nc_gpu_present() {
	[ -e /dev/nvidia0 ] || nvidia-smi -L >/dev/null 2>&1
}

# nc_run SIDE: prepares a fresh $T/w, runs nvcc's command line there as SIDE, and
# moves the tree to $T/SIDE; streams go to $T/SIDE.out/.err, status to $T/SIDE.rc.
nc_run() {
	local side=$1
	rm -rf "$T/w" "$T/$side"
	mkdir -p "$T/w"
	cd "$T/w" || exit 1
	$nc_prepare
	# -G debug info records each source's mtime: give both runs the same one.
	find "$T/w" -exec touch -h -d @1700000000 {} +
	nc_command "$side"
	"${nc_wrap[@]}" env "${nc_cmd_env[@]}" "${nc_env[@]}" timeout 300 "${nc_cmd[@]}" "${nc_args[@]}" \
		</dev/null >"$T/$side.out" 2>"$T/$side.err"
	echo $? >"$T/$side.rc"
	cd "$T" || exit 1
	mv "$T/w" "$T/$side"
}

# nc_tree DIR: one line per path: type, permission bits, relative path.
nc_tree() {
	(cd "$1" && find . -mindepth 1 -printf '%y %m %P\n' | LC_ALL=C sort)
}

# nc_same_text WHAT REF EGG [allow]: the streams match after normalizing.
nc_same_text() {
	local what=$1 ref=$2 egg=$3 allow=${4-}
	nc_normalize "$ref" >"$T/cmp.ref"
	nc_normalize "$egg" >"$T/cmp.egg"
	if [ -n "$allow" ]; then
		# One message of egg's own: a warning line, or one analyzer diagnostic
		# (FILE:LINE:COL: warning: egg: ..., the source line, the caret line).
		local extra
		extra=$(awk '/^(egg-cc|egg): / || /:[0-9]+:[0-9]+: warning: egg: / { n++ } END { print n + 0 }' "$T/cmp.egg")
		[ "$extra" -le 1 ] || fail "$what: egg-cc added $extra messages of its own, at most 1 allowed"
		awk 'skip > 0 { skip--; next } /:[0-9]+:[0-9]+: warning: egg: / { skip = 2; next }
		     /^(egg-cc|egg): / { next } { print }' "$T/cmp.egg" >"$T/cmp.egg2"
		mv "$T/cmp.egg2" "$T/cmp.egg"
	fi
	if ! cmp -s "$T/cmp.ref" "$T/cmp.egg"; then
		diff "$T/cmp.ref" "$T/cmp.egg" | head -n 20
		fail "$what differs: $(diff "$T/cmp.ref" "$T/cmp.egg" | head -n 3 | tr '\n' ' ' | head -c 300)"
	fi
}

# nc_compare: after nc_run ref and nc_run egg, fails on the first difference.
nc_compare() {
	expect_eq "$(cat "$T/egg.rc")" "$(cat "$T/ref.rc")" "egg-cc's exit status against nvcc's"
	nc_same_text stdout "$T/ref.out" "$T/egg.out"
	nc_same_text stderr "$T/ref.err" "$T/egg.err" "$([[ $nc_form == *+warn ]] && echo allow)"
	nc_tree "$T/ref" >"$T/tree.ref"
	nc_tree "$T/egg" >"$T/tree.egg"
	if ! cmp -s "$T/tree.ref" "$T/tree.egg"; then
		diff "$T/tree.ref" "$T/tree.egg"
		fail "files differ (path, type or mode): $(diff "$T/tree.ref" "$T/tree.egg" | grep '^[<>]' | head -n 3 | tr '\n' ' ')"
	fi
	local type mode path
	while read -r type mode path; do
		[ "$type" == f ] || continue
		cmp -s "$T/ref/$path" "$T/egg/$path" && continue
		cmp -s <(nc_normalize "$T/ref/$path") <(nc_normalize "$T/egg/$path") ||
			fail "output $path differs from nvcc's (even with temporary names normalized)"
	done <"$T/tree.ref"
}

# nc_probe: suite_probe for suites that compare against the real nvcc.
nc_probe() {
	[ -x "$REAL_NVCC" ] || { echo "no nvcc (set EGG_TEST_NVCC or put CUDA's bin on PATH)"; return 1; }
	[ -x "$EGG_CC" ] || { echo "egg-cc is not built"; return 1; }
	command -v perl >/dev/null || { echo "no perl to normalize temporary names"; return 1; }
}
