# docs: the manual pages render without warnings, and the README's commands are
# the ones .ci/run runs.

suite_probe() {
	command -v man >/dev/null || { echo "man is not installed"; return 1; }
}

test_man_pages_render_without_warnings() {
	local f n=0
	for f in "$EGG_SRCDIR"/man/*.[1-9]; do
		LC_ALL=C MANWIDTH=80 man --warnings -l "$f" >out.txt 2>warn.txt || fail "man failed on $f"
		[ ! -s warn.txt ] || fail "$f: $(head -3 warn.txt)"
		[ -s out.txt ] || fail "$f rendered empty"
		n=$((n + 1))
	done
	[ "$n" -ge 2 ] || fail "only $n man pages found"
}

test_ci_runs_the_readmes_second_command() {
	# The README's test command, minus the PATH export, must appear in .ci/run.
	local cmd
	cmd=$(grep -A1 'whole test suite' "$EGG_SRCDIR/README.md" >/dev/null &&
		grep -F 'make check' "$EGG_SRCDIR/README.md" | grep -F '.ci/deps' | head -1 |
		sed 's/^export PATH=[^;]*; //')
	[ -n "$cmd" ] || fail "no test command in README.md"
	cmd=${cmd//-j2 /-j2 }
	grep -qF -- "$cmd" "$EGG_SRCDIR/.ci/run" || fail ".ci/run does not run: $cmd"
}

# The repository stays small to clone (#22): results are small tables, the
# example's seed is gzipped; anything bigger is made at build or test time.
test_no_tracked_file_is_over_200_kb() {
	git -C "$EGG_SRCDIR" rev-parse --git-dir >/dev/null 2>&1 || skip "not a git checkout"
	git -C "$EGG_SRCDIR" ls-files -z >files || fail "git ls-files failed"
	(cd "$EGG_SRCDIR" && xargs -0 stat -c '%s %n' <"$T/files") >sizes || fail "stat failed"
	awk '$1 > 200 * 1024' sizes >big
	[ ! -s big ] || fail "tracked files over 200 KB: $(head -5 big | tr '\n' ' ')"
}

# ARCHITECTURE.md's table of folders is the layout (#22): every folder of C
# sources outside the tests, benchmarks and examples has its row, and every row
# names a folder that exists.
test_architecture_md_has_a_row_for_every_source_folder_and_no_other() {
	local d
	sed -n 's/^| `\([^`]*\)\/` |.*/\1/p' "$EGG_SRCDIR/ARCHITECTURE.md" | sort -u >rows
	[ -s rows ] || fail "no folder rows in ARCHITECTURE.md"
	(cd "$EGG_SRCDIR" && find . \( -name '.?*' -o -path ./tests -o -path ./bench -o \
		-path ./examples -o -path ./builtin/tests \) -prune -o -type f -name '*.[ch]' -print |
		sed -n 's|^\./\(.*\)/[^/]*$|\1|p' | sort -u) >folders
	[ -s folders ] || fail "no source folders found"
	while read -r d; do
		grep -qxF "$d" rows || fail "$d/ holds sources but has no row in ARCHITECTURE.md"
	done <folders
	while read -r d; do
		[ -d "$EGG_SRCDIR/$d" ] || fail "ARCHITECTURE.md has a row for $d/, which does not exist"
	done <rows
}
