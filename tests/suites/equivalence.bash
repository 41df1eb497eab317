# equivalence: egg-cc is a faithful nvcc drop-in.  Every line of
# tests/data/equivalence/cases.txt is a real nvcc command line and becomes its own
# test, test_equiv_NAME (generated below with eval, so a failure names the case).
# Each case runs in a fresh copy of tests/data/equivalence/src, once with nvcc
# and once with egg-cc; nvcc_compare.bash says what is compared and how.  nvcc's
# own exit status must also be the one the case expects, so a corpus line cannot
# silently stop testing what it claims (e.g. every case failing alike).

source "$EGG_SRCDIR/tests/suites/nvcc_compare.bash"

EQ_DATA=$EGG_SRCDIR/tests/data/equivalence
EQ_CASES=$EQ_DATA/cases.txt

suite_probe() {
	nc_probe
}

# eq_fields NAME: sets eq_form eq_status eq_command eq_setup from the case's line.
eq_fields() {
	local line name
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

# eq_prepare: the case's inputs in the current (empty) directory, then its setup.
# The setup runs once (in the first side's directory: nc_run gives both sides the
# same path); the second side gets a copy of what it made.
eq_prepare() {
	if [ -d "$T/setup" ]; then
		cp -R "$T/setup/." .
		return
	fi
	cp -R "$EQ_DATA/src/." .
	chmod -R u+w . # make distcheck's source tree is read-only
	if [ -n "${eq_setup//[[:space:]]/}" ]; then
		PATH=$NVCC_DIR:$PATH eval "$eq_setup" >"$T/setup.log" 2>&1 ||
			fail "setup '$eq_setup' failed: $(head -c 300 "$T/setup.log")"
		mkdir "$T/setup" && cp -R . "$T/setup/"
	fi
}

equiv_case() {
	local words=()
	eq_fields "$1" || fail "no case '$1' in $EQ_CASES"
	eval "words=($eq_command)"
	nc_env=()
	while [ "${#words[@]}" -gt 0 ] && [[ ${words[0]} == [A-Za-z_]*=* ]]; do
		nc_env+=("${words[0]}")
		words=("${words[@]:1}")
	done
	[ "${words[0]-}" == nvcc ] || fail "case command must start with nvcc: $eq_command"
	nc_args=("${words[@]:1}")
	nc_form=$eq_form
	nc_prepare=eq_prepare
	nc_run ref
	expect_eq "$(cat "$T/ref.rc")" "$eq_status" "nvcc's own exit status for this case (the corpus expects it)"
	nc_run egg
	nc_compare
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
	local n dups name
	n=$(eq_names | wc -l)
	[ "$n" -ge 40 ] || fail "the corpus has $n cases, the issue asks for at least 40"
	dups=$(eq_names | sort | uniq -d)
	[ -z "$dups" ] || fail "duplicate case names: $dups"
	for name in $(eq_names); do
		[[ $name =~ ^[a-z0-9_]+$ ]] || fail "case name '$name' is not [a-z0-9_]+"
		eq_fields "$name"
		[[ $eq_form =~ ^(direct|launcher|masq)(\+warn)?$ ]] || fail "$name: bad form '$eq_form'"
		[[ $eq_status =~ ^[0-9]+$ ]] || fail "$name: bad status '$eq_status'"
		[[ $eq_command == *nvcc* ]] || fail "$name: no nvcc command"
	done
}
