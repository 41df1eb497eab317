# cache_trust: what egg-cc links from a cache it did not fill itself.  With a
# secret (EGG_CACHE_SECRET) every entry is verified before it is used, wherever it
# came from (the local store, an import, a remote); every cached winner goes
# through the static screen before it is compiled into a build; and nothing
# planted at an entry's path (a FIFO, a link, a directory) blocks or misleads a
# build.  Winners come from a recorded evaluation (CI has no GPU); attacks are
# written into the cache as someone who can write it would (checksum recomputed).

suite_probe() {
	[ -x "$REAL_NVCC" ] || { echo "no nvcc"; return 1; }
	command -v python3 >/dev/null || { echo "no python3"; return 1; }
}
# the compiles several tests repeat, done once per run (lib.bash)
suite_setup() { share_nvcc_compiles; }

RECORDED=$EGG_SRCDIR/tests/data/pipeline/recorded-eval
export EGG_BUILTIN_TEMPLATES=$EGG_SRCDIR/builtin/templates

# search_example: the example's three winners, found by a recorded search, in
# the cache.
search_example() {
	export PATH=$NVCC_DIR:$PATH
	cp "$EGG_SRCDIR"/examples/{kernels.cu,kernels.h} .
	EGG_EVAL_COMMAND=$RECORDED "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o first.o 2>first.err ||
		fail "the search build failed: $(cat first.err)"
	nm -C first.o >first.nm
	expect_eq "$(grep -c ' T egg_winner__' first.nm)" 3 "winners linked by the search"
}

# cache_build: the example built in cache mode into kernels.o (r.err: stderr).
cache_build() {
	EGG_MODE=cache run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o kernels.o ||
		fail "the build broke: $(cat r.err)"
	nm -C kernels.o >k.nm
}

linked() { grep -q " T egg_winner__$1" k.nm; }

entry_of() { # NAME: the path of its entry
	grep -l "\"name\":\"$1\"" "$EGG_CACHE_DIR"/??/* | head -n 1
}

test_a_tampered_local_entry_is_refused_under_a_secret_and_the_rest_are_linked() {
	export EGG_CACHE_SECRET=s3cret
	search_example
	grep -q '"signature":' "$(entry_of softmax_forward)" || fail "entries are stored unsigned under a secret"
	tamper_cached_winner softmax_forward 's.replace("egg builtin generator", "egg builtin generator (changed)")'
	cache_build
	expect_file_lines r.err 1
	expect_file_contains r.err "signature is wrong"
	expect_file_lacks r.err s3cret
	! linked softmax_forward || fail "the tampered winner was linked"
	linked bias_gelu && linked row_sum || fail "the untouched winners were not linked"
	# control: without the secret the recomputed checksum passes, so only the
	# signature caught the change
	search_example
	tamper_cached_winner softmax_forward 's.replace("egg builtin generator", "egg builtin generator (changed)")'
	unset EGG_CACHE_SECRET
	cache_build
	linked softmax_forward || fail "without a secret the tampered entry was refused: $(cat r.err)"
}

test_unsigned_entries_are_refused_once_a_secret_is_set() {
	search_example
	export EGG_CACHE_SECRET=s3cret
	cache_build
	expect_file_lines r.err 3
	expect_eq "$(grep -c 'is not signed' r.err)" 3 "warnings naming the missing signature"
	expect_eq "$(grep -c ' T egg_winner__' k.nm)" 0 "winners linked"
}

test_import_under_a_secret_takes_only_entries_signed_with_it() {
	search_example
	"$EGG" cache export plain.egg >/dev/null || fail "export"
	export EGG_CACHE_DIR=$T/signed-cache EGG_CACHE_SECRET=s3cret
	search_example
	"$EGG" cache export signed.egg >/dev/null || fail "export"
	export EGG_CACHE_DIR=$T/fresh
	run_cmd i "$EGG" cache import plain.egg && fail "an import of unsigned entries succeeded"
	expect_file_contains i.err "not signed"
	expect_file_contains i.out "imported 0 entries"
	run_cmd i2 "$EGG" cache import signed.egg || fail "an import of signed entries failed: $(cat i2.err)"
	EGG_CACHE_SECRET=other run_cmd i3 "$EGG" cache import signed.egg && fail "entries signed with another secret came in"
	expect_file_contains i3.err "signature is wrong"
	cache_build
	expect_eq "$(grep -c ' T egg_winner__' k.nm)" 3 "winners linked from the signed import"
}

test_a_cached_winner_that_calls_system_is_refused_by_the_screen() {
	search_example
	tamper_cached_winner softmax_forward \
		's + "\nstatic int egg_once = system(\"touch /tmp/egg-pwned-$$\");\n"'
	cache_build
	expect_file_lines r.err 1
	expect_file_contains r.err "softmax_forward: the cached winner is refused by the screen"
	expect_file_contains r.err "system"
	! linked softmax_forward || fail "the winner that calls system() was linked"
	linked bias_gelu && linked row_sum || fail "the untouched winners were not linked"
}

test_a_winners_screening_is_remembered_but_a_tampered_winner_is_screened_again() {
	search_example
	local memos=$EGG_CACHE_DIR/gpu/screened
	expect_eq "$(ls "$memos" | wc -l)" 3 "passes remembered after the search"
	cache_build
	expect_file_lines r.err 0
	linked softmax_forward && linked bias_gelu && linked row_sum || fail "a winner was not linked"
	expect_eq "$(ls "$memos" | wc -l)" 3 "passes remembered after a hit (the same three)"
	# a remembered pass is for exactly that text: a tampered winner is a new one
	tamper_cached_winner softmax_forward \
		's + "\nstatic int egg_once = (remove)(\"/tmp/egg-pwned-$$\");\n"'
	cache_build
	expect_file_contains r.err "softmax_forward: the cached winner is refused by the screen"
	! linked softmax_forward || fail "the tampered winner was linked"
	expect_eq "$(ls "$memos" | wc -l)" 3 "no pass remembered for the tampered winner"
}

test_a_fifo_at_an_entry_path_does_not_block_the_build() {
	search_example
	local p
	p=$(entry_of softmax_forward)
	rm "$p" && mkfifo "$p" || fail "mkfifo"
	timeout 120 env EGG_MODE=cache "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o kernels.o 2>r.err
	expect_eq "$?" 0 "exit status (124: the build blocked on the FIFO)"
	nm -C kernels.o >k.nm
	expect_file_contains r.err "not a regular file"
	! linked softmax_forward || fail "something was linked from a FIFO"
	linked bias_gelu || fail "the other winners were not linked"
	[ ! -p "$p" ] || fail "the FIFO was left at the entry's path"
	timeout 60 "$EGG" cache ls >ls.out 2>ls.err || fail "egg cache ls: $?"
}

test_links_at_entry_paths_and_subdirectories_are_not_followed() {
	search_example
	local p d key
	p=$(entry_of softmax_forward)
	mkdir -p "$T/elsewhere"
	mv "$p" "$T/elsewhere/entry" && ln -s "$T/elsewhere/entry" "$p" || fail "ln"
	cache_build
	expect_file_contains r.err "symbolic link"
	! linked softmax_forward || fail "an entry was linked through a symbolic link"
	# a subdirectory replaced by a link to a folder of files with entry names:
	# eviction must not remove them
	p=$(entry_of bias_gelu)
	d=$(dirname "$p")
	key=$(basename "$p")
	mkdir -p "$T/victim" && cp "$p" "$T/victim/$key"
	rm -rf "$d" && ln -s "$T/victim" "$d" || fail "ln -s"
	"$EGG" cache evict --max-size 1 >ev.out 2>ev.err
	[ -f "$T/victim/$key" ] || fail "eviction removed a file through a linked subdirectory"
}
