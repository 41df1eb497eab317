# cache_remote: remote storage over HTTP against a real nginx (WebDAV PUT),
# which each test starts on a free loopback port and stops; a python3 stdlib
# server stands in for a remote that accepts connections and never answers.

CACHE_TOOL=$EGG_BUILDDIR/tests/cache-tool
NGINX=${EGG_TEST_NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}

suite_probe() {
	[ -x "$CACHE_TOOL" ] || { echo "tests/cache-tool is not built"; return 1; }
	[ -x "$NGINX" ] || { echo "nginx is not installed (Debian: apt-get install nginx-light)"; return 1; }
	command -v python3 >/dev/null || { echo "python3 is needed for the stalling server"; return 1; }
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# A python3 prelude for a stand-in server: the listening socket s on the
# loopback port given as its first argument.
PY_LISTEN='import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(8)'

wait_for_port() { # PORT: returns once something listens there (5 s at most)
	python3 -c "import socket,time
for _ in range(100):
    try: socket.create_connection(('127.0.0.1', $1), 0.1); break
    except OSError: time.sleep(0.05)"
}

# Starts nginx with: /rw/ (PUT), /rw2/ (PUT), /ro/ (GET only), /err/ (500),
# /auth/ (basic auth egg:pw), /bearer/ (token tok123).  Sets PORT and WEB.
start_nginx() {
	PORT=$(free_port)
	WEB=$T/nginx/root
	mkdir -p "$WEB/rw" "$WEB/rw2" "$WEB/ro" "$WEB/auth" "$WEB/bearer" "$T/nginx/tmp"
	echo 'egg:{PLAIN}pw' >"$T/nginx/htpasswd"
	cat >"$T/nginx/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $T/nginx/nginx.pid;
error_log $T/nginx/error.log;
events { worker_connections 64; }
http {
	access_log $T/nginx/access.log;
	client_body_temp_path $T/nginx/tmp/body;
	proxy_temp_path $T/nginx/tmp/proxy;
	fastcgi_temp_path $T/nginx/tmp/fastcgi;
	uwsgi_temp_path $T/nginx/tmp/uwsgi;
	scgi_temp_path $T/nginx/tmp/scgi;
	server {
		listen 127.0.0.1:$PORT;
		root $WEB;
		client_max_body_size 64m;
		location /rw/ { dav_methods PUT DELETE; create_full_put_path on; }
		location /rw2/ { dav_methods PUT DELETE; create_full_put_path on; }
		location /ro/ { }
		location /err/ { return 500; }
		location /auth/ {
			auth_basic "egg"; auth_basic_user_file $T/nginx/htpasswd;
			dav_methods PUT; create_full_put_path on;
		}
		location /bearer/ {
			if (\$http_authorization != "Bearer tok123") { return 401; }
			dav_methods PUT; create_full_put_path on;
		}
	}
}
CONF
	"$NGINX" -p "$T/nginx" -e "$T/nginx/error.log" -c "$T/nginx/nginx.conf" 2>"$T/nginx/start.err" &
	NGINX_PID=$!
	local i
	for i in $(seq 1 100); do
		python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $PORT), 0.1)" 2>/dev/null && return 0
		kill -0 $NGINX_PID 2>/dev/null || fail "nginx did not start: $(cat "$T/nginx/start.err" "$T/nginx/error.log" 2>/dev/null)"
		sleep 0.05
	done
	fail "nginx did not listen on port $PORT"
}

stop_nginx() {
	[ -n "${NGINX_PID:-}" ] && kill $NGINX_PID 2>/dev/null && wait $NGINX_PID 2>/dev/null
	NGINX_PID=
}

# Each test runs in its own bash: stop nginx whichever way the test ends.
trap stop_nginx EXIT

server_file() { # PATH SEED: the file a remote at /PATH/ holds for SEED
	local k
	k=$("$CACHE_TOOL" key "$2")
	echo "$WEB/$1/${k:0:2}/${k:2}"
}

test_round_trip_through_nginx_and_copy_to_local() {
	start_nginx
	export EGG_REMOTE_STORAGE=http://127.0.0.1:$PORT/rw
	run_cmd p "$CACHE_TOOL" put rt 500 || fail "put failed: $(cat p.err)"
	[ -f "$(server_file rw rt)" ] || fail "the entry did not reach nginx"
	expect_file_lines p.err 0
	export EGG_CACHE_DIR=$T/fresh
	run_cmd g "$CACHE_TOOL" get rt || fail "remote miss: $(cat g.err)"
	expect_file_contains g.out "// winner for rt"
	"$EGG" cache stats --json >s.json
	expect_file_contains s.json '"remote_hits":	1'
	# now served locally, even with the server gone
	stop_nginx
	run_cmd g2 "$CACHE_TOOL" get rt || fail "not copied to the local store"
	expect_file_lines g2.err 0
	"$CACHE_TOOL" has rt && fail "HEAD found an entry on a stopped server"
	return 0
}

test_head_finds_an_entry_on_the_remote() {
	start_nginx
	export EGG_REMOTE_STORAGE=http://127.0.0.1:$PORT/rw
	"$CACHE_TOOL" has hd && fail "HEAD found an entry before it was stored"
	"$CACHE_TOOL" put hd 100
	"$CACHE_TOOL" has hd || fail "HEAD did not find the stored entry"
	grep -q '"HEAD /rw/' "$T/nginx/access.log" || fail "no HEAD request reached nginx"
}

test_read_only_remote_is_never_written() {
	start_nginx
	export EGG_REMOTE_STORAGE="http://127.0.0.1:$PORT/rw|read-only"
	run_cmd p "$CACHE_TOOL" put ro 100 || fail "local put failed"
	expect_file_lines p.err 0
	[ -f "$(server_file rw ro)" ] && fail "a read-only remote was written"
	export EGG_REMOTE_STORAGE="http://127.0.0.1:$PORT/rw" EGG_REMOTE_READ_ONLY=1
	"$CACHE_TOOL" put ro2 100
	[ -f "$(server_file rw ro2)" ] && fail "remote_read_only did not stop the upload"
	expect_file_lacks "$T/nginx/access.log" '"PUT '
}

test_several_remotes_are_tried_in_order() {
	start_nginx
	EGG_REMOTE_STORAGE=http://127.0.0.1:$PORT/rw2 "$CACHE_TOOL" put two 100
	export EGG_CACHE_DIR=$T/fresh
	export EGG_REMOTE_STORAGE="http://127.0.0.1:$PORT/rw http://127.0.0.1:$PORT/rw2"
	run_cmd g "$CACHE_TOOL" get two || fail "the second remote was not asked"
	expect_file_lines g.err 0
	grep -n 'GET /rw' "$T/nginx/access.log" | grep -q 'GET /rw/.* 404' || fail "the first remote was not asked first"
}

test_remote_that_is_down_is_one_warning_and_a_miss() {
	local port
	port=$(free_port)
	export EGG_REMOTE_STORAGE=http://127.0.0.1:$port/rw
	run_cmd g "$CACHE_TOOL" get down && fail "a hit from nowhere"
	expect_eq "$(cat g.rc)" 1 "lookup status"
	expect_file_lines g.err 1
	expect_file_contains g.err "warning: remote cache http://127.0.0.1:$port/rw: GET failed"
	run_cmd p "$CACHE_TOOL" put down 100 || fail "the local store failed because the remote is down"
	expect_file_lines p.err 1
	"$CACHE_TOOL" get down >/dev/null || fail "not stored locally"
}

test_remote_answering_500_is_one_warning_and_a_miss() {
	start_nginx
	export EGG_REMOTE_STORAGE=http://127.0.0.1:$PORT/err
	run_cmd g "$CACHE_TOOL" get e5 && fail "a hit from a failing server"
	expect_file_lines g.err 1
	expect_file_contains g.err "answered HTTP 500"
	run_cmd p "$CACHE_TOOL" put e5 100 || fail "a failing remote failed the store"
	expect_file_lines p.err 1
}

# start_staller PORT: a remote that accepts connections and never answers,
# counting them in $T/stall.count (SPID: its pid).  start_answerer PORT: one
# that answers 404 to everything (a reachable remote without the entry).
start_staller() {
	rm -f "$T/stall.count"
	python3 -c "$PY_LISTEN"'
held = []
open(sys.argv[2], "w").write("0\n")  # listening (no probe: it would count)
end = time.time() + 30
s.settimeout(0.2)
while time.time() < end:
    try:
        c, _ = s.accept()
        held.append(c)  # read nothing, answer nothing
        open(sys.argv[2], "w").write("%d\n" % len(held))
    except socket.timeout:
        pass
' "$1" "$T/stall.count" &
	SPID=$!
	local i
	for i in $(seq 100); do
		[ -s "$T/stall.count" ] && return 0
		sleep 0.05
	done
	fail "the stalling server did not start"
}

start_answerer() {
	python3 -c "$PY_LISTEN"'
end = time.time() + 30
s.settimeout(0.2)
while time.time() < end:
    try:
        c, _ = s.accept()
    except socket.timeout:
        continue
    c.settimeout(2)
    try:
        c.recv(65536)
        c.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    except OSError:
        pass
    c.close()
' "$1" &
	SPID=$!
	wait_for_port "$1"
}

stop_stub() { kill $SPID 2>/dev/null; wait $SPID 2>/dev/null; }

connections() { cat "$T/stall.count"; }

# stalled_remote [|PROPERTIES]: a stalling server on a free port (STALL_PORT) as
# the only remote
stalled_remote() {
	STALL_PORT=$(free_port)
	start_staller "$STALL_PORT"
	export EGG_REMOTE_STORAGE="http://127.0.0.1:$STALL_PORT/rw${1:-}"
}

# timed PREFIX CMD...: run_cmd, and the milliseconds it took in PREFIX.ms
timed() {
	local p=$1 start rc
	start=$(date +%s%N)
	run_cmd "$@"
	rc=$?
	echo $((($(date +%s%N) - start) / 1000000)) >"$p.ms"
	return $rc
}

expect_faster_than() { # PREFIX MS
	[ "$(cat "$1.ms")" -lt "$2" ] || fail "$1 took $(cat "$1.ms") ms (at most $2 expected): $(cat "$1.err")"
}

test_stalled_remote_times_out_with_one_warning() {
	stalled_remote "|timeout=400"
	timed g "$CACHE_TOOL" get stall
	stop_stub
	expect_eq "$(cat g.rc)" 1 "lookup status"
	expect_faster_than g 3000
	expect_file_lines g.err 1
	expect_file_contains g.err "timed out"
}

# The timeout setting (EGG_TIMEOUT, timeout in egg.conf) bounds a remote's
# transfers when its URL names none: 1 s here, against the remote default of 10 s.
test_the_timeout_setting_bounds_a_remote_without_its_own() {
	stalled_remote
	export EGG_TIMEOUT=1s
	timed g "$CACHE_TOOL" get slow
	stop_stub
	expect_eq "$(cat g.rc)" 1 "lookup status"
	expect_faster_than g 4000
	expect_file_contains g.err "timeout 1000 ms"
	# a |timeout= on the URL still wins over the setting
	stalled_remote "|timeout=300"
	export EGG_TIMEOUT=20s
	timed g2 "$CACHE_TOOL" get slow2
	stop_stub
	expect_faster_than g2 3000
	expect_file_contains g2.err "timeout 300 ms"
}

# One compile pays the timeout and warns; the build's next compiles (separate
# processes, as egg-cc's are) skip the remote without a connection or a word.
test_a_remote_that_timed_out_is_skipped_by_later_compiles_with_one_warning() {
	stalled_remote "|timeout=2000"
	timed g1 "$CACHE_TOOL" get a
	expect_file_lines g1.err 1
	expect_file_contains g1.err "timed out"
	expect_file_contains g1.err "later compiles skip it for 60 s"
	expect_eq "$(connections)" 1 "connections after the first compile"
	timed g2 "$CACHE_TOOL" get b
	timed p3 "$CACHE_TOOL" put c 100
	timed g4 "$CACHE_TOOL" get d
	stop_stub
	local x
	for x in g2 p3 g4; do
		expect_file_lines $x.err 0
		expect_faster_than $x 1500 # waiting for the remote would take 2000
	done
	expect_eq "$(cat p3.rc)" 0 "the local store's status"
	expect_eq "$(connections)" 1 "connections after four compiles"
}

# make -j: compiles that time out together warn once in all.
test_compiles_timing_out_together_warn_once() {
	local i pids=()
	stalled_remote "|timeout=1000"
	for i in 1 2 3 4; do
		"$CACHE_TOOL" get par$i >/dev/null 2>par$i.err &
		pids+=($!)
	done
	wait "${pids[@]}"
	stop_stub
	cat par?.err >all.err
	expect_file_lines all.err 1
	expect_file_contains all.err "timed out"
}

# After skip_after_timeout the remote is asked again; a remote that answers
# again clears the record (no skipping afterwards), without a warning.
test_a_skipped_remote_is_asked_again_after_the_skip_period() {
	stalled_remote "|timeout=500"
	export EGG_SKIP_AFTER_TIMEOUT=1s
	run_cmd g1 "$CACHE_TOOL" get a
	run_cmd g2 "$CACHE_TOOL" get a
	expect_eq "$(connections)" 1 "connections within the skip period"
	expect_file_lines g2.err 0
	ls "$EGG_CACHE_DIR"/outages/ | grep -qv lock || fail "no outage was recorded"
	sleep 1.1
	run_cmd g3 "$CACHE_TOOL" get a
	expect_eq "$(connections)" 2 "connections after the skip period"
	expect_file_lines g3.err 0 # the same outage goes on: no second warning
	stop_stub
	sleep 1.1
	start_answerer "$STALL_PORT"
	run_cmd g4 "$CACHE_TOOL" get a
	stop_stub
	expect_eq "$(cat g4.rc)" 1 "a miss"
	expect_file_lines g4.err 0
	[ -z "$(ls "$EGG_CACHE_DIR"/outages/ | grep -v lock)" ] || fail "the answer did not clear the outage"
}

# The real build: timeout in egg.conf bounds the remote (1 s, not the 10 s
# default), and the build's second compile does not wait for it at all.
test_timeout_in_egg_conf_applies_to_remotes_in_a_build() {
	[ -x "$REAL_NVCC" ] || skip "no nvcc"
	stalled_remote
	export PATH=$NVCC_DIR:$PATH
	cat >k.cu <<'CU'
__global__ void twice_k(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 2.0f * x[i];
}

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1024)
void twice(const float *x, float *y, int n)
{
	twice_k<<<(n + 127) / 128, 128>>>(x, y, n);
}
CU
	printf 'mode = cache\ntimeout = 1s\nremote_storage = %s\n' "$EGG_REMOTE_STORAGE" >egg.conf
	unset EGG_REMOTE_STORAGE
	timed b1 "$EGG_CC" -arch=sm_90 -c k.cu -o one.o || fail "the build broke: $(cat b1.err)"
	expect_file_lines b1.err 1
	expect_file_contains b1.err "timed out (connect-timeout 1000 ms, timeout 1000 ms)"
	timed b2 "$EGG_CC" -arch=sm_90 -c k.cu -o two.o || fail "the build broke: $(cat b2.err)"
	stop_stub
	expect_file_lines b2.err 0
	expect_eq "$(connections)" 1 "connections in two compiles"
	# the first compile paid about the timeout once (not 10 s, not once per kernel)
	[ $(($(cat b1.ms) - $(cat b2.ms))) -lt 4000 ] ||
		fail "the timed-out compile took $(cat b1.ms) ms, the next $(cat b2.ms) ms"
}

# A remote that accepts an upload and hangs up in the middle of it (unread data
# left, so the kernel answers the next writes with a reset) must cost one
# warning, never the process: the client runs with SIGPIPE at its default action
# (deadly), as a build started from a shell that does not ignore it would.
test_remote_that_hangs_up_mid_upload_is_a_warning_not_sigpipe() {
	local port
	port=$(free_port)
	python3 -c "$PY_LISTEN"'
import struct
s.settimeout(0.5)
end = time.time() + 30
while time.time() < end:
    try:
        c, _ = s.accept()
    except socket.timeout:
        continue
    c.settimeout(5)
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = c.recv(4096)
        if not chunk:
            break
        head += chunk
    if head.startswith(b"PUT "):
        if b"100-continue" in head.lower():
            c.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
        c.recv(65536)  # a little of the body, then gone: a reset, not a clean close
        c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    else:
        c.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    c.close()
' "$port" &
	local spid=$!
	wait_for_port "$port"
	export EGG_REMOTE_STORAGE="http://127.0.0.1:$port/rw|timeout=5000"
	# an entry of 16 MB: far more than the socket buffers hold, so the client is
	# still writing when the server hangs up
	run_cmd p python3 -c 'import os, signal, sys
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$CACHE_TOOL" put hangup 16000000
	kill $spid 2>/dev/null
	wait $spid 2>/dev/null
	[ "$(cat p.rc)" -ne 141 ] || fail "killed by SIGPIPE"
	expect_eq "$(cat p.rc)" 0 "the local store's status"
	expect_file_lines p.err 1
	expect_file_contains p.err "PUT failed"
	run_cmd g "$CACHE_TOOL" get hangup || fail "not in the local store"
}

test_wrong_basic_credentials_are_refused_and_never_printed() {
	start_nginx
	export EGG_REMOTE_STORAGE="http://egg:sesame-wrong@127.0.0.1:$PORT/auth"
	run_cmd p "$CACHE_TOOL" put cred 100
	expect_file_lines p.err 1
	expect_file_contains p.err "HTTP 401 (wrong or missing credentials?)"
	expect_file_contains p.err "http://127.0.0.1:$PORT/auth"
	expect_file_lacks p.err "sesame-wrong"
	expect_file_lacks p.err "egg:"
	[ -f "$(server_file auth cred)" ] && fail "stored despite wrong credentials"
	"$EGG" cache stats >st.out
	expect_file_contains st.out "remote storage   http://127.0.0.1:$PORT/auth"
	expect_file_lacks st.out "sesame-wrong"
	export EGG_REMOTE_STORAGE="http://egg:pw@127.0.0.1:$PORT/auth"
	run_cmd p2 "$CACHE_TOOL" put cred 100
	expect_file_lines p2.err 0
	[ -f "$(server_file auth cred)" ] || fail "not stored with the right credentials"
	export EGG_CACHE_DIR=$T/fresh
	"$CACHE_TOOL" get cred >/dev/null || fail "not read back with the right credentials"
}

test_bearer_token_is_sent_and_never_printed() {
	start_nginx
	export EGG_REMOTE_STORAGE="http://127.0.0.1:$PORT/bearer|bearer-token=tok123"
	run_cmd p "$CACHE_TOOL" put tok 100
	expect_file_lines p.err 0
	"$EGG" cache stats --json >st.json
	expect_file_lacks st.json tok123
	[ -f "$(server_file bearer tok)" ] || fail "not stored with the token"
	export EGG_CACHE_DIR=$T/fresh EGG_REMOTE_STORAGE="http://127.0.0.1:$PORT/bearer|bearer-token=nope999"
	run_cmd g "$CACHE_TOOL" get tok && fail "a hit with a wrong token"
	expect_file_contains g.err "HTTP 401"
	expect_file_lacks g.err "nope999"
}

# Rewrites the entry's source and recomputes its checksum the way egg does,
# keeping the old signature: only the secret can tell.
tamper() { # FILE
	python3 "$EDIT_ENTRY" --source 's.replace("winner", "LOSER!")' "$1" || fail "no entry in $1"
}

test_tampered_remote_entry_is_refused_under_a_secret() {
	start_nginx
	export EGG_REMOTE_STORAGE=http://127.0.0.1:$PORT/rw EGG_CACHE_SECRET=s3cret
	"$CACHE_TOOL" put signed 100
	expect_file_contains "$(server_file rw signed)" '"signature":'
	export EGG_CACHE_DIR=$T/fresh1
	"$CACHE_TOOL" get signed >/dev/null || fail "a correctly signed entry was refused"
	tamper "$(server_file rw signed)"
	export EGG_CACHE_DIR=$T/fresh2
	run_cmd g "$CACHE_TOOL" get signed && fail "a tampered entry was accepted"
	expect_file_lines g.err 1
	expect_file_contains g.err "signature is wrong"
	expect_file_lacks g.err "s3cret"
	# control: without a secret the recomputed checksum passes, so only the
	# signature caught the change
	unset EGG_CACHE_SECRET
	export EGG_CACHE_DIR=$T/fresh3
	run_cmd c "$CACHE_TOOL" get signed || fail "the tampered entry's checksum did not pass: $(cat c.err)"
	expect_file_contains c.out "LOSER!"
}

test_unsigned_remote_entry_is_refused_under_a_secret() {
	start_nginx
	export EGG_REMOTE_STORAGE=http://127.0.0.1:$PORT/rw
	"$CACHE_TOOL" put plain 100
	export EGG_CACHE_DIR=$T/fresh EGG_CACHE_SECRET=s3cret
	run_cmd g "$CACHE_TOOL" get plain && fail "an unsigned entry was accepted"
	expect_file_contains g.err "not signed"
}

test_malformed_remote_specification_is_a_clear_error() {
	export EGG_REMOTE_STORAGE="ftp://example/cache"
	run_cmd g "$CACHE_TOOL" get x
	expect_file_contains g.err "is not an http:// or https:// URL"
	export EGG_REMOTE_STORAGE="http://u:secretpw@127.0.0.1:1/c|speed=fast"
	run_cmd g2 "$CACHE_TOOL" get x
	expect_file_contains g2.err "unknown property 'speed'"
	expect_file_lacks g2.err secretpw
}
