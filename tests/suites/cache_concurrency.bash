# cache_concurrency: many processes on one store (single flight, no torn
# entries, counts that add up), writers killed with SIGKILL, a full disk.

CACHE_TOOL=$EGG_BUILDDIR/tests/cache-tool

suite_probe() {
	[ -x "$CACHE_TOOL" ] || { echo "tests/cache-tool is not built"; return 1; }
	command -v python3 >/dev/null || { echo "python3 is needed to read --json output"; return 1; }
}

json_field() { # FILE FIELD
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}

# Every entry file in the store reads back as valid (egg cache ls says "invalid"
# otherwise) and no temporary file is mistaken for an entry.
expect_no_invalid_entry() {
	"$EGG" cache ls >ls.out || fail "egg cache ls failed"
	expect_file_lacks ls.out invalid
}

test_sixteen_processes_missing_one_key_search_once() {
	for i in $(seq 1 16); do
		"$CACHE_TOOL" claim same 400 >"claim.$i" 2>&1 &
	done
	wait
	cat claim.* >all
	expect_eq "$(grep -c '^search$' all)" 1 "searches"
	expect_eq "$(grep -c '^hit$' all)" 15 "hits"
	"$EGG" cache stats --json >s.json
	expect_eq "$(json_field s.json searches)" 1 "searches counted"
	expect_eq "$(json_field s.json hits)" 15 "hits counted"
	expect_eq "$(json_field s.json misses)" 1 "misses counted"
}

test_waiters_give_up_after_the_lock_timeout_and_use_the_reference() {
	"$CACHE_TOOL" claim slow 3000 >searcher &
	local pid=$!
	sleep 0.3
	local start end
	start=$(date +%s%N)
	EGG_LOCK_TIMEOUT=300ms run_cmd w "$CACHE_TOOL" claim slow 0
	end=$(date +%s%N)
	expect_eq "$(cat w.out)" reference "waiter's outcome"
	[ $(((end - start) / 1000000)) -lt 2500 ] || fail "the waiter waited $(((end - start) / 1000000)) ms"
	wait $pid
	expect_eq "$(cat searcher)" search "searcher's outcome"
}

test_a_searcher_killed_midway_hands_the_search_to_a_waiter() {
	"$CACHE_TOOL" claim orphan 10000 >victim &
	local pid=$!
	sleep 0.3
	"$CACHE_TOOL" claim orphan 0 >waiter &
	local wpid=$!
	sleep 0.3
	kill -KILL $pid
	wait $wpid
	expect_eq "$(cat waiter)" search "waiter's outcome after the searcher died"
	"$CACHE_TOOL" get orphan >/dev/null || fail "the waiter's result was not stored"
}

test_sixteen_processes_storing_and_reading_leave_no_torn_entry_and_counts_add_up() {
	local rounds=5
	for i in $(seq 1 16); do
		(
			for r in $(seq 1 $rounds); do
				"$CACHE_TOOL" put shared $((20000 + i * 1000 + r)) || exit 1
				"$CACHE_TOOL" put "own$i" $((1000 + r)) || exit 1
				"$CACHE_TOOL" get shared >"got.$i.$r" || exit 1
				"$CACHE_TOOL" get "own$i" >/dev/null || exit 1
			done
		) &
	done
	local failed=0
	for job in $(jobs -p); do wait "$job" || failed=1; done
	[ $failed -eq 0 ] || fail "a process failed to store or read"
	for f in got.*; do
		head -n 1 "$f" | grep -qx '// winner for shared' || fail "$f is not a whole entry"
	done
	expect_no_invalid_entry
	"$EGG" cache stats --json >s.json
	expect_eq "$(json_field s.json stores)" $((16 * rounds * 2)) stores
	expect_eq "$(json_field s.json hits)" $((16 * rounds * 2)) hits
	expect_eq "$(json_field s.json entries)" 17 entries
	local bytes
	bytes=$(find "$EGG_CACHE_DIR" -mindepth 2 -path '*/[0-9a-f][0-9a-f]/*' -type f ! -name '*.tmp.*' -printf '%s\n' | awk '{s += $1} END {print s}')
	expect_eq "$(json_field s.json bytes)" "$bytes" bytes
}

test_writers_killed_with_sigkill_leave_nothing_that_reads_as_valid_but_wrong() {
	local i
	for i in $(seq 1 12); do
		"$CACHE_TOOL" put "k$((i % 3))" 4000000 &
		local pid=$!
		sleep "0.0$((RANDOM % 10))"
		kill -KILL $pid 2>/dev/null
		wait $pid 2>/dev/null
	done
	expect_no_invalid_entry
	for i in 0 1 2; do
		if "$CACHE_TOOL" get "k$i" >got 2>err; then
			head -n 1 got | grep -qx "// winner for k$i" || fail "k$i read back wrong"
			[ "$(stat -c %s got)" -ge 4000000 ] || fail "k$i read back short"
		fi
		expect_file_lacks err warning
	done
	"$EGG" cache clear >/dev/null
	[ -z "$(find "$EGG_CACHE_DIR" -name '*.tmp.*')" ] || fail "clear left temporary files"
}

test_full_disk_is_one_warning_and_a_clean_miss() {
	local how
	mkdir small
	if mount -t tmpfs -o size=64k tmpfs "$T/small" 2>/dev/null; then
		how=tmpfs
		export EGG_CACHE_DIR=$T/small/cache
		"$CACHE_TOOL" put fits 1000 || { umount "$T/small"; fail "a small entry did not fit"; }
		run_cmd p "$CACHE_TOOL" put big 200000
	else
		# No mount permission (CI containers): a file size limit has the same
		# effect on the write (EFBIG instead of ENOSPC).
		how=rlimit
		"$CACHE_TOOL" put fits 1000 || fail "a small entry did not fit"
		(trap '' XFSZ; ulimit -f 64; run_cmd p "$CACHE_TOOL" put big 200000)
	fi
	local rc
	rc=$(cat p.rc)
	"$CACHE_TOOL" get big >/dev/null 2>g.err && { [ $how = tmpfs ] && umount "$T/small"; fail "a partial entry was a hit"; }
	"$CACHE_TOOL" get fits >/dev/null || { [ $how = tmpfs ] && umount "$T/small"; fail "the earlier entry was lost"; }
	local tmps
	tmps=$(find "$EGG_CACHE_DIR" -name '*.tmp.*' | wc -l)
	"$EGG" cache stats --json >s.json
	[ $how = tmpfs ] && umount "$T/small"
	expect_eq "$rc" 1 "exit status of the failed store ($how)"
	expect_file_lines p.err 1
	expect_file_contains p.err "warning: cannot write the cache entry"
	expect_file_lacks g.err warning
	expect_eq "$tmps" 0 "temporary files left ($how)"
	expect_eq "$(json_field s.json errors)" 1 errors
}
