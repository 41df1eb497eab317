# cache_admin: `egg cache ...` on a local store filled through cache-tool (which
# drives the cache as egg-cc does), and `egg cache key` on an analyzer bundle.

CACHE_TOOL=$EGG_BUILDDIR/tests/cache-tool
BUNDLE=$EGG_SRCDIR/tests/data/cache/bundle.json

suite_probe() {
	[ -x "$CACHE_TOOL" ] || { echo "tests/cache-tool is not built"; return 1; }
	command -v python3 >/dev/null || { echo "python3 is needed to read --json output"; return 1; }
}

json_field() { # FILE FIELD
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}

entry_path() { # SEED
	local k
	k=$("$CACHE_TOOL" key "$1")
	echo "$EGG_CACHE_DIR/${k:0:2}/${k:2}"
}

test_stats_count_hits_misses_searches_and_stores() {
	"$CACHE_TOOL" get a && fail "hit in an empty cache"
	"$CACHE_TOOL" put a 300 || fail "put failed"
	"$CACHE_TOOL" get a >/dev/null || fail "miss after put"
	"$CACHE_TOOL" get a >/dev/null || fail "miss after put"
	"$CACHE_TOOL" claim b 0 >/dev/null
	run_cmd s "$EGG" cache stats --json || fail "stats failed: $(cat s.err)"
	expect_eq "$(json_field s.out hits)" 2 hits
	expect_eq "$(json_field s.out misses)" 2 misses
	expect_eq "$(json_field s.out searches)" 1 searches
	expect_eq "$(json_field s.out stores)" 2 stores
	expect_eq "$(json_field s.out entries)" 2 entries
	local bytes
	bytes=$(($(stat -c %s "$(entry_path a)") + $(stat -c %s "$(entry_path b)")))
	expect_eq "$(json_field s.out bytes)" "$bytes" bytes
	run_cmd h "$EGG" cache stats
	expect_file_contains h.out "cache directory  $EGG_CACHE_DIR"
	expect_file_contains h.out "searches         1"
	"$EGG" cache stats --zero >/dev/null
	"$EGG" cache stats --json >z.json
	expect_eq "$(json_field z.json hits)" 0 "hits after --zero"
	expect_eq "$(json_field z.json entries)" 2 "entries after --zero"
}

test_ls_lists_entries_most_recently_used_first() {
	"$CACHE_TOOL" put first 100
	sleep 0.02
	"$CACHE_TOOL" put-negative second
	sleep 0.02
	"$CACHE_TOOL" put third 100
	sleep 0.02
	"$CACHE_TOOL" get first >/dev/null # now the most recent
	run_cmd l "$EGG" cache ls
	expect_file_lines l.out 3
	expect_eq "$(awk '{print $NF}' l.out | tr '\n' ' ')" "first third second " order
	expect_file_contains l.out "negative"
	run_cmd j "$EGG" cache ls --json
	expect_eq "$(python3 -c 'import json; print(len(json.load(open("j.out"))))')" 3 "json entries"
}

test_show_prints_the_report_by_key_or_prefix() {
	"$CACHE_TOOL" put kern 200
	local key
	key=$("$CACHE_TOOL" key kern)
	run_cmd s "$EGG" cache show "${key:0:8}" || fail "show by prefix failed: $(cat s.err)"
	expect_file_contains s.out "key:        $key"
	expect_file_contains s.out "outcome:    winner"
	expect_file_contains s.out '"speedup":'
	expect_file_contains s.out "// winner for kern"
	run_cmd src "$EGG" cache show "$key" --source
	expect_eq "$(head -n 1 src.out)" "// winner for kern"
	run_cmd j "$EGG" cache show "$key" --json
	expect_eq "$(json_field j.out outcome)" winner
	run_cmd m "$EGG" cache show 0000000000 && fail "show of an absent key succeeded"
	expect_file_contains m.err "no cache entry has the key"
}

test_clear_removes_every_entry() {
	for i in 1 2 3; do "$CACHE_TOOL" put "c$i" 100; done
	run_cmd c "$EGG" cache clear || fail "clear failed"
	expect_file_contains c.out "removed 3 entries"
	"$CACHE_TOOL" get c1 && fail "entry survived clear"
	"$EGG" cache stats --json >s.json
	expect_eq "$(json_field s.json entries)" 0 entries
	expect_eq "$(json_field s.json bytes)" 0 bytes
}

test_evict_keeps_the_most_recent_within_the_size() {
	for i in 1 2 3 4 5 6; do
		"$CACHE_TOOL" put "e$i" 1000
		sleep 0.02
	done
	local size
	size=$(stat -c %s "$(entry_path e6)")
	run_cmd ev "$EGG" cache evict --max-size $((size * 2 + 10)) || fail "evict failed: $(cat ev.err)"
	expect_file_contains ev.out "removed 4 entries"
	"$CACHE_TOOL" get e6 >/dev/null || fail "most recent entry evicted"
	"$CACHE_TOOL" get e5 >/dev/null || fail "second most recent entry evicted"
	"$CACHE_TOOL" get e4 && fail "old entry kept"
	run_cmd bad "$EGG" cache evict --max-size lots && fail "a bad size was accepted"
	expect_file_contains bad.err "is not a size"
}

test_max_size_takes_ccaches_decimal_and_binary_suffixes() {
	local v want
	for v in 1.5G:1500000000 500Mi:524288000 2GiB:2147483648 10M:10000000 1T:1000000000000 4096:4096; do
		want=${v#*:}
		EGG_MAX_SIZE=${v%%:*} run_cmd s "$EGG" cache stats --json || fail "${v%%:*}: $(cat s.err)"
		expect_eq "$(json_field s.out max_size)" "$want" "max_size ${v%%:*}"
	done
	# evict --max-size reads sizes the same way (an entry here is some 650 bytes)
	"$CACHE_TOOL" put a 300 && "$CACHE_TOOL" put b 300 || fail "put failed"
	run_cmd ev "$EGG" cache evict --max-size 1.2Ki || fail "evict: $(cat ev.err)"
	expect_file_contains ev.out "removed 1 entries"
	EGG_MAX_SIZE=1.5 run_cmd bad "$EGG" cache stats && fail "a fraction of a byte was accepted"
	expect_file_contains bad.err "max_size must be a size"
}

test_evict_older_than_removes_what_was_not_used_for_that_long_and_names_it() {
	local e
	for e in old older recent used; do "$CACHE_TOOL" put "$e" 300 || fail "put $e"; done
	touch -d '40 days ago' "$(entry_path older)"
	touch -d '2 hours ago' "$(entry_path old)"
	touch -d '40 days ago' "$(entry_path used)"
	"$CACHE_TOOL" get used >/dev/null || fail "miss on used" # a hit is a use
	run_cmd ev "$EGG" cache evict --older-than 30d || fail "evict: $(cat ev.err)"
	expect_file_contains ev.out "removed $("$CACHE_TOOL" key older)  older  last used"
	expect_file_contains ev.out "removed 1 entries"
	[ ! -e "$(entry_path older)" ] || fail "the 40-day-old entry is still there"
	run_cmd ev "$EGG" cache evict --older-than=90m || fail "evict: $(cat ev.err)"
	expect_file_contains ev.out "removed 1 entries"
	[ ! -e "$(entry_path old)" ] || fail "the 2-hour-old entry is still there"
	"$CACHE_TOOL" get recent >/dev/null || fail "a recent entry was evicted"
	"$CACHE_TOOL" get used >/dev/null || fail "an entry hit just now was evicted"
	run_cmd s "$EGG" cache stats --json
	expect_eq "$(json_field s.out entries)" 2 "entries counted after eviction"
	expect_eq "$(json_field s.out evictions)" 2 "evictions counted"
	run_cmd bad "$EGG" cache evict --older-than 30y && fail "a bad age was accepted"
	expect_eq "$(cat bad.rc)" 2 "exit status of a bad age"
	expect_file_contains bad.err "is not an age"
}

# A store with one problem of each kind beside two good entries.
damage_store() {
	local k dead
	for k in good1 good2 torn evil; do "$CACHE_TOOL" put "$k" 200 || fail "put $k"; done
	sed -i 's/winner for torn/winner for TORN/' "$(entry_path torn)"
	python3 "$EDIT_ENTRY" --name evil --source 's + "\nvoid f() { system(\"id\"); }\n"' \
		"$(entry_path evil)" || fail "tamper"
	dead=$(sh -c 'echo $$')
	k=$("$CACHE_TOOL" key good1)
	echo partial >"$EGG_CACHE_DIR/${k:0:2}/${k:2}.tmp.$dead.Ab12Cd"
	echo junk >"$EGG_CACHE_DIR/${k:0:2}/notes.txt"
	mkdir -p "$EGG_CACHE_DIR/locks" && : >"$EGG_CACHE_DIR/locks/$k"
	echo "mine" >"$EGG_CACHE_DIR/README.user" # not the store's: left alone
}

test_verify_reports_each_damaged_entry_and_orphan_and_repair_removes_them() {
	damage_store
	run_cmd v "$EGG" cache verify && fail "verify passed a damaged store: $(cat v.out)"
	expect_eq "$(cat v.rc)" 1 "exit status"
	grep -q "$(entry_path torn): an invalid entry: .*checksum" v.out || fail "torn: $(cat v.out)"
	grep -q "$(entry_path evil): a winner the screen refuses: .*system" v.out || fail "evil: $(cat v.out)"
	grep -q '\.tmp\.[0-9]*\.Ab12Cd: a temporary file left by an interrupted write' v.out || fail "tmp: $(cat v.out)"
	grep -q "notes.txt: not a cache entry" v.out || fail "junk: $(cat v.out)"
	grep -q "locks/$("$CACHE_TOOL" key good1): a lock no process holds" v.out || fail "lock: $(cat v.out)"
	expect_file_lacks v.out "README.user"
	expect_eq "$(tail -n 1 v.out)" "4 entries checked, 2 valid (no cache_secret: signatures not checked); 5 problems"
	expect_file_lines v.out 6
	run_cmd r "$EGG" cache verify --repair || fail "repair: $(cat r.out) $(cat r.err)"
	expect_eq "$(tail -n 1 r.out)" "4 entries checked, 2 valid (no cache_secret: signatures not checked); 5 problems, 5 removed"
	run_cmd v2 "$EGG" cache verify || fail "verify after repair: $(cat v2.out)"
	expect_eq "$(cat v2.out)" "2 entries checked, 2 valid (no cache_secret: signatures not checked); 0 problems"
	"$CACHE_TOOL" get good1 >/dev/null && "$CACHE_TOOL" get good2 >/dev/null || fail "a good entry was lost"
	[ -f "$EGG_CACHE_DIR/README.user" ] || fail "repair removed a file that is not the store's"
	run_cmd s "$EGG" cache stats --json
	expect_eq "$(json_field s.out entries)" 2 "entries recounted"
}

test_verify_refuses_unsigned_entries_under_a_secret() {
	"$CACHE_TOOL" put unsigned 100
	EGG_CACHE_SECRET=s3cret "$CACHE_TOOL" put signed 100
	EGG_CACHE_SECRET=s3cret run_cmd v "$EGG" cache verify && fail "an unsigned entry passed"
	grep -q "$(entry_path unsigned): an invalid entry: .*sign" v.out || fail "$(cat v.out)"
	expect_file_lacks v.out "$(entry_path signed)"
	expect_eq "$(tail -n 1 v.out)" "2 entries checked, 1 valid (signatures checked); 1 problems"
	EGG_CACHE_SECRET=other run_cmd v "$EGG" cache verify && fail "a wrongly signed entry passed"
	grep -q "$(entry_path signed): an invalid entry: .*sign" v.out || fail "$(cat v.out)"
}

test_size_limit_evicts_on_store() {
	export EGG_MAX_SIZE=8K
	for i in $(seq 1 20); do "$CACHE_TOOL" put "s$i" 1000; done
	"$EGG" cache stats --json >s.json
	[ "$(json_field s.json bytes)" -le 8192 ] || fail "over the limit: $(json_field s.json bytes) bytes"
	[ "$(json_field s.json evictions)" -gt 0 ] || fail "nothing evicted"
	"$CACHE_TOOL" get s20 >/dev/null || fail "the newest entry was evicted"
}

test_export_and_import_move_entries_between_caches() {
	"$CACHE_TOOL" put x1 500
	"$CACHE_TOOL" put-negative x2
	run_cmd ex "$EGG" cache export "$T/all.egg" || fail "export failed: $(cat ex.err)"
	expect_file_contains ex.out "exported 2 entries"
	expect_file_lines "$T/all.egg" 3
	export EGG_CACHE_DIR=$T/other
	"$CACHE_TOOL" get x1 && fail "hit in the fresh cache"
	run_cmd im "$EGG" cache import "$T/all.egg" || fail "import failed: $(cat im.err)"
	expect_file_contains im.out "imported 2 entries"
	"$CACHE_TOOL" get x1 >got || fail "imported entry missing"
	expect_file_contains got "// winner for x1"
	expect_eq "$("$CACHE_TOOL" get x2)" negative
}

test_import_skips_altered_entries_and_says_which_line() {
	"$CACHE_TOOL" put y1 100
	"$CACHE_TOOL" put y2 100
	"$EGG" cache export "$T/all.egg" >/dev/null
	sed -i '3s/winner for/WINNER FOR/' "$T/all.egg"
	export EGG_CACHE_DIR=$T/other
	run_cmd im "$EGG" cache import "$T/all.egg" && fail "import of an altered file succeeded"
	expect_file_contains im.err "all.egg:3: entry skipped"
	expect_file_contains im.err "checksum"
	expect_file_contains im.out "imported 1 entries"
	echo '{"schema":"something-else"}' >bad.egg
	run_cmd b "$EGG" cache import bad.egg && fail "a foreign file was imported"
	expect_file_contains b.err "is not an egg cache export"
}

test_invalid_entry_is_reported_once_and_treated_as_a_miss() {
	"$CACHE_TOOL" put t 100
	local p
	p=$(entry_path t)
	sed -i 's/winner for t/winner for T/' "$p"
	run_cmd g1 "$CACHE_TOOL" get t && fail "an altered entry was a hit"
	expect_file_lines g1.err 1
	expect_file_contains g1.err "warning: ignoring the invalid cache entry"
	run_cmd g2 "$CACHE_TOOL" get t && fail "second lookup hit"
	expect_file_lines g2.err 0
	"$EGG" cache stats --json >s.json
	expect_eq "$(json_field s.json errors)" 1 errors
}

test_key_is_printed_and_paths_do_not_change_it() {
	run_cmd k "$EGG" cache key --bundle "$BUNDLE" -- -O3 -arch=sm_90 || fail "key failed: $(cat k.err)"
	[[ $(cat k.out) =~ ^[0-9a-f]{64}\ \ scale$ ]] || fail "unexpected output: $(cat k.out)"
	sed 's|/home/alice/src/scale.cu|/build/elsewhere/scale.cu|; s|"line": 12|"line": 400|' "$BUNDLE" >moved.json
	run_cmd m "$EGG" cache key --bundle moved.json -- -arch=sm_90 -O3
	expect_eq "$(cat m.out)" "$(cat k.out)" "key after moving the file and reordering flags"
	run_cmd f "$EGG" cache key --bundle "$BUNDLE" -- -O3 -arch=sm_90 -use_fast_math
	[ "$(cat f.out)" != "$(cat k.out)" ] || fail "-use_fast_math did not change the key"
	run_cmd a "$EGG" cache key --bundle "$BUNDLE" -- -O3 -arch=sm_80
	[ "$(cat a.out)" != "$(cat k.out)" ] || fail "the architecture did not change the key"
}

test_key_explain_shows_what_was_hashed_so_a_miss_is_a_diff() {
	"$EGG" cache key --bundle "$BUNDLE" --explain -- -O3 -arch=sm_90 >one.txt || fail "explain failed"
	"$EGG" cache key --bundle "$BUNDLE" --explain -- -O3 -arch=sm_90 -use_fast_math >two.txt
	expect_file_contains one.txt "egg-cache-key: 2"
	expect_file_contains one.txt "arch: sm_90"
	expect_file_contains one.txt "| 		y[i] = 2.0f * x[i];"
	expect_file_lacks one.txt "alice"
	diff one.txt two.txt | grep '^[<>]' >d.txt
	expect_eq "$(grep -c '^> flag: -use_fast_math' d.txt)" 1 "flag lines in the diff"
	# host-only -O is not hashed: -O2 is the same key
	"$EGG" cache key --bundle "$BUNDLE" --explain -- -O2 -arch=sm_90 >three.txt
	expect_same_file three.txt one.txt
	expect_eq "$(grep -vc '^[<>] \(flag\|# key\)' d.txt)" 0 "other lines in the diff"
	# the key is the SHA-256 of the text between the comment lines
	expect_eq "$(grep -v '^#' one.txt | sha256sum | cut -d' ' -f1)" "$(sed -n 's/^# key: //p' one.txt)" "hash of the text"
}

test_key_without_source_bundle_or_arch_explains_what_is_missing() {
	run_cmd n "$EGG" cache key -- -O3 && fail "key without a bundle succeeded"
	expect_file_contains n.err "no .cu file and no --bundle"
	run_cmd a "$EGG" cache key --bundle "$BUNDLE" -- -O3 && fail "key without an architecture succeeded"
	expect_file_contains a.err "no target architecture"
}

test_unknown_cache_command_is_a_usage_error() {
	run_cmd u "$EGG" cache frobnicate
	expect_eq "$(cat u.rc)" 2 "exit status"
	expect_file_contains u.err "unknown cache command 'frobnicate'"
}
