# equivalence: egg-cc is a faithful nvcc drop-in.  Every line of
# tests/data/equivalence/cases.txt is a real nvcc command line and becomes its own
# test, test_equiv_NAME (generated below with eval, so a failure names the case).
#
# A case runs twice, in the SAME absolute directory $T/w, filled each time with a
# fresh copy of tests/data/equivalence/src: first with the real nvcc (the tree is
# then moved to $T/ref), then with egg-cc (moved to $T/egg).  Using one path for
# both, rather than two sibling directories, matters: nvcc derives the module id
# of relocatable device code (-dc, -dlink) from the source's absolute path, and
# -M/-E/--dryrun print paths, so two different directories would differ for
# reasons that have nothing to do with egg-cc.  Nothing needs a directory name
# normalized this way.
#
# What is compared, and how:
# - exit status: equal.  nvcc's status must also be the one the case expects, so a
#   corpus line cannot silently stop testing what it claims (e.g. nvcc not found).
# - stdout and stderr: equal after two normalizations, both of text that differs
#   between two runs of nvcc itself: nvcc's temporary file names
#   (tmpxft_PID_COUNTER, printed by --dryrun, -E of -cuda output, linker messages)
#   and ptxas's "Compile time = N ms" (-Xptxas -v).  For FORM "+warn" egg-cc may
#   add at most one line of its own ("egg-cc: ..."/"egg: ...") to stderr.
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
#   Two exceptions found and avoided in the corpus rather than normalized: with
#   -G the temporary name lands inside the compressed fatbin of an object, so the
#   -G object case uses -objtemp (the name is then the object's own); and -G debug
#   info records the source's mtime, so both copies keep the data's timestamps.

EQ_DATA=$EGG_SRCDIR/tests/data/equivalence
EQ_CASES=$EQ_DATA/cases.txt

suite_probe() {
	[ -x "$REAL_NVCC" ] || { echo "no nvcc (set EGG_TEST_NVCC or put CUDA's bin on PATH)"; return 1; }
	[ -x "$EGG_CC" ] || { echo "egg-cc is not built"; return 1; }
	command -v perl >/dev/null || { echo "no perl to normalize temporary names"; return 1; }
}

# eq_fields NAME: sets eq_form eq_status eq_command eq_setup from the case's line.
eq_fields() {
	local line name rest
	while IFS= read -r line; do
		case $line in '#'* | '') continue ;; esac
		name=${line%%|*}
		name=${name//[[:space:]]/}
		[ "$name" == "$1" ] || continue
		IFS='|' read -r _ eq_form eq_status eq_command eq_setup <<<"$line"
		eq_form=${eq_form//[[:space:]]/}
		eq_status=${eq_status//[[:space:]]/}
		return 0
	done <"$EQ_CASES"
	return 1
}

# eq_normalize FILE: prints FILE with run-specific temporary names and timings fixed.
eq_normalize() {
	perl -0777 -pe 's/tmpxft_[0-9a-f]{8}_[0-9a-f]{8}/tmpxft_XXXXXXXX_XXXXXXXX/g;
	                s/(Compile time = )[0-9.]+( ms)/${1}N${2}/g' "$1"
}

# eq_run SIDE: runs the case's command in a fresh $T/w as nvcc (ref) or egg-cc
# (egg), then moves the tree to $T/SIDE; streams go to $T/SIDE.out/.err/.rc.
eq_run() {
	local side=$1 nvcc_dir words=() envs=() w
	nvcc_dir=$(dirname "$REAL_NVCC")
	rm -rf "$T/w"
	mkdir -p "$T/w"
	# Timestamps are kept because -G debug info records the source's mtime; write
	# permission is added because make distcheck's source tree is read-only.
	cp -R --preserve=timestamps "$EQ_DATA/src/." "$T/w/"
	chmod -R u+w "$T/w"
	cd "$T/w" || exit 1
	if [ -n "${eq_setup//[[:space:]]/}" ]; then
		PATH=$nvcc_dir:$PATH eval "$eq_setup" >"$T/$side.setup.log" 2>&1 ||
			fail "setup '$eq_setup' failed: $(head -c 300 "$T/$side.setup.log")"
	fi
	eval "words=($eq_command)"
	while [ "${#words[@]}" -gt 0 ] && [[ ${words[0]} == [A-Za-z_]*=* ]]; do
		envs+=("${words[0]}")
		words=("${words[@]:1}")
	done
	[ "${words[0]-}" == nvcc ] || fail "case command must start with nvcc: $eq_command"
	words=("${words[@]:1}")
	local cmd=()
	if [ "$side" == ref ]; then
		cmd=("$REAL_NVCC")
		envs=("PATH=$nvcc_dir:$PATH" "${envs[@]}")
	else
		case ${eq_form%+warn} in
		direct) cmd=("$EGG_CC") envs=("PATH=$nvcc_dir:$PATH" "${envs[@]}") ;;
		launcher) cmd=("$EGG_CC" "$REAL_NVCC") envs=("PATH=$nvcc_dir:$PATH" "${envs[@]}") ;;
		masq)
			mkdir -p "$T/masq"
			ln -sf "$EGG_CC" "$T/masq/nvcc"
			cmd=(nvcc) envs=("PATH=$T/masq:$nvcc_dir:$PATH" "${envs[@]}")
			;;
		*) fail "unknown form '$eq_form'" ;;
		esac
	fi
	env "${envs[@]}" timeout 300 "${cmd[@]}" "${words[@]}" </dev/null >"$T/$side.out" 2>"$T/$side.err"
	echo $? >"$T/$side.rc"
	cd "$T" || exit 1
	mv "$T/w" "$T/$side"
}

# eq_tree DIR: one line per path: type, permission bits, relative path.
eq_tree() {
	(cd "$1" && find . -mindepth 1 -printf '%y %m %P\n' | LC_ALL=C sort)
}

# eq_same_text WHAT REF EGG [ALLOW_EGG_LINE]
eq_same_text() {
	local what=$1 ref=$2 egg=$3 allow=${4-}
	eq_normalize "$ref" >"$T/cmp.ref"
	eq_normalize "$egg" >"$T/cmp.egg"
	if [ -n "$allow" ]; then
		local extra
		extra=$(grep -cE '^(egg-cc|egg): ' "$T/cmp.egg")
		[ "$extra" -le 1 ] || fail "$what: egg-cc added $extra lines of its own, at most 1 allowed"
		grep -vE '^(egg-cc|egg): ' "$T/cmp.egg" >"$T/cmp.egg2"
		mv "$T/cmp.egg2" "$T/cmp.egg"
	fi
	if ! cmp -s "$T/cmp.ref" "$T/cmp.egg"; then
		diff "$T/cmp.ref" "$T/cmp.egg" | head -n 20
		fail "$what differs: $(diff "$T/cmp.ref" "$T/cmp.egg" | head -n 3 | tr '\n' ' ' | head -c 300)"
	fi
}

equiv_case() {
	local name=$1
	eq_fields "$name" || fail "no case '$name' in $EQ_CASES"
	eq_run ref
	expect_eq "$(cat "$T/ref.rc")" "$eq_status" "nvcc's own exit status for this case (the corpus expects it)"
	eq_run egg
	expect_eq "$(cat "$T/egg.rc")" "$(cat "$T/ref.rc")" "egg-cc's exit status against nvcc's"
	eq_same_text stdout "$T/ref.out" "$T/egg.out"
	eq_same_text stderr "$T/ref.err" "$T/egg.err" "$([[ $eq_form == *+warn ]] && echo allow)"
	eq_tree "$T/ref" >"$T/tree.ref"
	eq_tree "$T/egg" >"$T/tree.egg"
	if ! cmp -s "$T/tree.ref" "$T/tree.egg"; then
		diff "$T/tree.ref" "$T/tree.egg"
		fail "files differ (path, type or mode): $(diff "$T/tree.ref" "$T/tree.egg" | grep '^[<>]' | head -n 3 | tr '\n' ' ')"
	fi
	local type mode path
	while read -r type mode path; do
		[ "$type" == f ] || continue
		cmp -s "$T/ref/$path" "$T/egg/$path" && continue
		cmp -s <(eq_normalize "$T/ref/$path") <(eq_normalize "$T/egg/$path") ||
			fail "output $path differs from nvcc's (even with temporary names normalized)"
	done <"$T/tree.ref"
}

# One test per corpus line.
eq_names() {
	sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' -e 's/|.*//' -e 's/[[:space:]]//g' "$EQ_CASES"
}
for eq_name in $(eq_names 2>/dev/null); do
	[[ $eq_name =~ ^[a-z0-9_]+$ ]] && eval "test_equiv_$eq_name() { equiv_case $eq_name; }"
done
unset eq_name

test_corpus_is_well_formed() {
	local n names line form status
	n=$(eq_names | wc -l)
	[ "$n" -ge 40 ] || fail "the corpus has $n cases, the issue asks for at least 40"
	names=$(eq_names | sort | uniq -d)
	[ -z "$names" ] || fail "duplicate case names: $names"
	for name in $(eq_names); do
		[[ $name =~ ^[a-z0-9_]+$ ]] || fail "case name '$name' is not [a-z0-9_]+"
		eq_fields "$name"
		[[ $eq_form =~ ^(direct|launcher|masq)(\+warn)?$ ]] || fail "$name: bad form '$eq_form'"
		[[ $eq_status =~ ^[0-9]+$ ]] || fail "$name: bad status '$eq_status'"
		[[ $eq_command == *nvcc* ]] || fail "$name: no nvcc command"
	done
}
