# config: egg.conf, EGG_* and --egg-* options as `egg config` shows them, and egg-cc
# going on as plain nvcc, with one warning, when the configuration is broken.

# No test may see the machine's own $(sysconfdir)/egg.conf.
export EGG_SYSTEM_CONFIG=/nonexistent/egg.conf

make_fake_nvcc() { # DIR: a stand-in nvcc that records its argv and fails with 3
	mkdir -p "$1"
	cat >"$1/nvcc" <<'SH'
#!/bin/sh
printf '%s\n' "$@" > "$(dirname "$0")/argv"
echo "fake nvcc stderr" >&2
exit 3
SH
	chmod +x "$1/nvcc"
}

test_egg_config_shows_every_layer_with_its_origin() {
	mkdir -p home/.config/egg proj/sub
	printf 'mode = cache\nmodel = sys\napi_base = sys\ngpu = sys\n' >system.conf
	printf '\nmodel = user\napi_base = user\ngpu = user\n' >home/.config/egg/egg.conf
	printf '# project\n\nmodel = proj\napi_base = proj\n' >proj/egg.conf
	cd proj/sub || fail "cd"
	EGG_SYSTEM_CONFIG=$T/system.conf EGG_MODEL=env \
		run_cmd r "$EGG" config --egg-max-size=1G || fail "egg config failed: $(cat r.err)"
	expect_eq "$(wc -l <r.out)" "$("$EGG" config --json | jq 'keys | length')" "lines"
	expect_file_contains r.out "# $T/system.conf:1"
	grep -Eq "^mode = cache +# $T/system.conf:1\$" r.out || fail "mode line: $(cat r.out)"
	grep -Eq "^gpu = user +# $T/home/.config/egg/egg.conf:4\$" r.out || fail "gpu: $(cat r.out)"
	grep -Eq "^api_base = proj +# $T/proj/egg.conf:4\$" r.out || fail "api_base: $(cat r.out)"
	grep -Eq "^model = env +# environment EGG_MODEL\$" r.out || fail "model: $(cat r.out)"
	grep -Eq "^max_size = 1G +# option --egg-max-size\$" r.out || fail "max_size: $(cat r.out)"
	grep -Eq "^backend = builtin +# default\$" r.out || fail "backend: $(cat r.out)"
	expect_eq "$(cat r.err)" ""
}

test_project_file_is_found_in_a_parent_directory() {
	printf 'mode = verify\n' >egg.conf
	mkdir -p a/b/c && cd a/b/c || fail "cd"
	run_cmd r "$EGG" config mode
	expect_eq "$(cat r.rc)" 0 "exit status"
	expect_eq "$(cat r.out)" "verify"
	run_cmd r "$EGG" config --json mode
	expect_eq "$(jq -r .mode.origin r.out)" "$T/egg.conf:1"
}

test_egg_config_key_prints_one_value_and_refuses_unknown_keys() {
	EGG_MAX_SIZE=512M run_cmd r "$EGG" config max_size
	expect_eq "$(cat r.out)" "512M"
	run_cmd r "$EGG" config model
	expect_eq "$(cat r.rc)" 0 "exit status for an unset key"
	expect_eq "$(cat r.out)" ""
	run_cmd r "$EGG" config mdoe
	expect_eq "$(cat r.rc)" 2 "exit status"
	expect_eq "$(cat r.err)" "egg: error: unknown key 'mdoe' (did you mean 'mode'?)"
}

test_egg_config_json_lists_every_key_the_man_page_documents() {
	EGG_MODE=off run_cmd r "$EGG" config --json
	expect_eq "$(cat r.rc)" 0 "exit status"
	expect_eq "$(jq -r 'keys[]' r.out | sort | tr '\n' ' ')" \
		"$(sed -n 's/^\.BR \([a-z_]*\) " (.*/\1/p' "$EGG_SRCDIR/man/egg.conf.5" | sort | tr '\n' ' ')" \
		"keys documented in egg.conf(5)"
	expect_eq "$(jq -r .mode.value r.out)" off
	expect_eq "$(jq -r .mode.origin r.out)" "environment EGG_MODE"
	expect_eq "$(jq -r .nvcc.value r.out)" null
}

test_secrets_are_never_printed() {
	printf 'api_key = sk-project-key\n' >egg.conf
	EGG_CACHE_SECRET=hmac-key run_cmd r "$EGG" config
	expect_file_lacks r.out "sk-project-key"
	expect_file_lacks r.out "hmac-key"
	grep -Eq '^api_key = <set> +#' r.out || fail "api_key line: $(cat r.out)"
	grep -Eq '^cache_secret = <set> +# environment EGG_CACHE_SECRET$' r.out ||
		fail "cache_secret line: $(cat r.out)"
	EGG_CACHE_SECRET=hmac-key run_cmd r "$EGG" config --json
	expect_file_lacks r.out "sk-project-key"
	expect_file_lacks r.out "hmac-key"
	run_cmd r "$EGG" config api_key
	expect_eq "$(cat r.out)" "<set>"
}

test_remote_credentials_are_never_printed_by_egg_config() {
	printf 'remote_storage = https://alice:pw-in-file@cache.example/egg|read-only\n' >egg.conf
	export EGG_REMOTE_STORAGE='http://bob:pw-in-env@h:8080/egg|bearer-token=tok-in-env|timeout=500 https://plain.example/c'
	run_cmd r "$EGG" config
	run_cmd j "$EGG" config --json
	run_cmd k "$EGG" config remote_storage
	local f
	for f in r.out j.out k.out; do
		expect_file_lacks "$f" pw-in-env
		expect_file_lacks "$f" tok-in-env
	done
	expect_eq "$(cat k.out)" 'http://bob:<set>@h:8080/egg|bearer-token=<set>|timeout=500 https://plain.example/c'
	unset EGG_REMOTE_STORAGE
	run_cmd k "$EGG" config remote_storage
	expect_eq "$(cat k.out)" 'https://alice:<set>@cache.example/egg|read-only'
}

test_junk_in_egg_conf_makes_egg_config_fail_naming_file_and_line() {
	printf 'mode = cache\n# fine\nmdoe = off\n' >egg.conf
	run_cmd r "$EGG" config
	expect_eq "$(cat r.rc)" 1 "exit status"
	expect_eq "$(cat r.out)" ""
	expect_eq "$(cat r.err)" "egg: error: $T/egg.conf:3: unknown key 'mdoe' (did you mean 'mode'?)"
	printf 'this line has no equals sign\n' >egg.conf
	run_cmd r "$EGG" config
	expect_eq "$(cat r.rc)" 1 "exit status"
	expect_file_contains r.err "$T/egg.conf:1: expected 'key = value'"
	printf 'max_size = a lot\n' >egg.conf
	run_cmd r "$EGG" config --json
	expect_eq "$(cat r.rc)" 1 "exit status"
	expect_file_contains r.err "$T/egg.conf:1: max_size must be a size"
}

test_junk_in_egg_conf_leaves_egg_cc_compiling_with_one_warning() {
	[ -x "$REAL_NVCC" ] || skip "no nvcc"
	printf 'mode = cache\nstrict = perhaps\n' >egg.conf
	printf '__global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }\n' >k.cu
	EGG_NVCC=$REAL_NVCC run_cmd r "$EGG_CC" -c k.cu -o k.o
	expect_eq "$(cat r.rc)" 0 "exit status"
	[ -s k.o ] || fail "no object written"
	expect_eq "$(cat r.err)" "egg-cc: warning: $T/egg.conf:2: strict must be true or false (or yes/no, on/off, 1/0), not 'perhaps'; egg is off for this compilation"
}

test_junk_in_egg_conf_keeps_nvccs_exit_status_and_streams() {
	make_fake_nvcc fake
	printf 'nvcc = fake/nvcc\njunk\n' >egg.conf
	run_cmd r "$EGG_CC" -c k.cu
	expect_eq "$(cat r.rc)" 3 "exit status"
	expect_file_lines r.err 2
	expect_eq "$(head -n 1 r.err)" "egg-cc: warning: $T/egg.conf:2: expected 'key = value', not 'junk'; egg is off for this compilation"
	expect_eq "$(tail -n 1 r.err)" "fake nvcc stderr"
	expect_eq "$(cat fake/argv)" "$(printf '%s\n' -c k.cu)"
}

test_config_nvcc_is_used_and_egg_nvcc_beats_it() {
	make_fake_nvcc fromconf
	make_fake_nvcc fromenv
	printf 'nvcc = fromconf/nvcc   # relative to this file\n' >egg.conf
	mkdir sub && cd sub || fail "cd"
	run_cmd r "$EGG_CC" -c k.cu
	[ -f "$T/fromconf/argv" ] || fail "the config's nvcc was not run: $(cat r.err)"
	expect_eq "$(cat r.err)" "fake nvcc stderr"
	rm "$T/fromconf/argv"
	EGG_NVCC=$T/fromenv/nvcc run_cmd r "$EGG_CC" -c k.cu
	[ -f "$T/fromenv/argv" ] || fail "EGG_NVCC's nvcc was not run"
	[ ! -f "$T/fromconf/argv" ] || fail "the config's nvcc was run although EGG_NVCC is set"
}

test_egg_options_are_accepted_and_a_bad_one_warns_once() {
	make_fake_nvcc fake
	PATH=$T/fake:$PATH run_cmd r "$EGG_CC" --egg-mode=off --egg-strict -c k.cu
	expect_eq "$(cat r.rc)" 3 "exit status"
	expect_eq "$(cat r.err)" "fake nvcc stderr"
	expect_eq "$(cat fake/argv)" "$(printf '%s\n' -c k.cu)"
	PATH=$T/fake:$PATH run_cmd r "$EGG_CC" --egg-mode=fast -c k.cu
	expect_eq "$(cat r.rc)" 3 "exit status"
	expect_eq "$(head -n 1 r.err)" "egg-cc: warning: option --egg-mode: mode must be search, cache, verify or off, not 'fast'; egg is off for this compilation"
	expect_file_lines r.err 2
}

test_bad_environment_value_is_named_by_egg_config() {
	EGG_REMOTE_READ_ONLY=sometimes run_cmd r "$EGG" config
	expect_eq "$(cat r.rc)" 1 "exit status"
	expect_eq "$(cat r.err)" "egg: error: environment EGG_REMOTE_READ_ONLY: remote_read_only must be true or false (or yes/no, on/off, 1/0), not 'sometimes'"
}

test_default_cache_dir_follows_xdg_cache_home_and_egg_cache_dir_wins() {
	unset EGG_CACHE_DIR XDG_CACHE_HOME
	run_cmd r "$EGG" config cache_dir
	expect_eq "$(cat r.out)" "$HOME/.cache/egg" "without XDG_CACHE_HOME"
	XDG_CACHE_HOME=relative/dir run_cmd r "$EGG" config cache_dir
	expect_eq "$(cat r.out)" "$HOME/.cache/egg" "a relative XDG_CACHE_HOME is ignored"
	export XDG_CACHE_HOME=$T/xdg
	run_cmd r "$EGG" config cache_dir
	expect_eq "$(cat r.out)" "$T/xdg/egg"
	# the store itself goes there, and egg cache says so
	run_cmd r "$EGG" cache stats --json || fail "stats: $(cat r.err)"
	expect_eq "$(jq -r .dir r.out)" "$T/xdg/egg" "the store's directory"
	[ -d "$T/xdg/egg" ] || fail "the store was not created under XDG_CACHE_HOME"
	printf 'cache_dir = from-file\n' >egg.conf
	run_cmd r "$EGG" config cache_dir
	expect_eq "$(cat r.out)" "$T/from-file" "cache_dir in egg.conf"
	EGG_CACHE_DIR=$T/from-env run_cmd r "$EGG" config cache_dir
	expect_eq "$(cat r.out)" "$T/from-env" "EGG_CACHE_DIR"
}

# An out-of-tree build: egg-cc runs in build/, the sources are in proj/src.
make_project() { # the repository proj/ (with .git) and its egg.conf naming its nvcc
	mkdir -p proj/.git proj/src build
	make_fake_nvcc proj/tools
	make_fake_nvcc elsewhere
	printf 'nvcc = tools/nvcc\nmodel = top\n' >proj/egg.conf
	printf '__global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }\n' >proj/src/k.cu
}

test_an_out_of_tree_build_finds_the_projects_egg_conf_from_the_sources_directory() {
	make_project
	cd build || fail "cd"
	PATH=$T/elsewhere:$PATH run_cmd r "$EGG_CC" -c ../proj/src/k.cu -o k.o
	[ -f "$T/proj/tools/argv" ] || fail "the project's nvcc was not run: $(cat r.err)"
	[ ! -f "$T/elsewhere/argv" ] || fail "the nvcc on PATH was run"
	expect_eq "$(cat r.err)" "fake nvcc stderr"
	run_cmd r "$EGG" config --json --source ../proj/src/k.cu model
	expect_eq "$(jq -r .model.origin r.out)" "$T/proj/egg.conf:2"
	# without a source, only the working directory counts
	run_cmd r "$EGG" config model
	expect_eq "$(cat r.out)" "" "model without --source"
}

test_the_nearer_project_file_wins_and_the_search_stops_at_the_repository() {
	make_project
	printf 'model = sub\n' >proj/src/egg.conf
	# a build directory inside the project: its egg.conf is above the source's
	mkdir proj/build && cd proj/build || fail "cd"
	expect_eq "$("$EGG" config --source ../src/k.cu model)" "sub" "the source's nearer file"
	# a build directory's own egg.conf, outside the sources, wins over theirs
	cd "$T/build" || fail "cd"
	printf 'model = build\n' >egg.conf
	expect_eq "$("$EGG" config --source ../proj/src/k.cu model)" "build" "the build directory's file"
	# nothing above the repository's root is read from the source's side
	rm egg.conf "$T/proj/src/egg.conf" "$T/proj/egg.conf"
	mkdir -p "$T/outer" && mv "$T/proj" "$T/outer/proj"
	printf 'model = outer\n' >"$T/outer/egg.conf"
	expect_eq "$("$EGG" config --source ../outer/proj/src/k.cu model)" "" "a file above the repository"
	rm -r "$T/outer/proj/.git"
	expect_eq "$("$EGG" config --source ../outer/proj/src/k.cu model)" "outer" "no repository: up to /"
}
