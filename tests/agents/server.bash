# server.bash -- the scripted model server (model-server.py) for the shell
# suites that talk to a model backend (llm.bash, agents.bash).  Source it from a
# suite; it needs $KEY (the test key) and lib.bash's $T and fail.
#
#   start_server BACKEND FIXTURE_JSON   starts the server on a free loopback port
#       with FIXTURE_JSON (text) as its fixture and the key in $T/key, and points
#       egg's configuration (EGG_BACKEND, EGG_MODEL=test-model, EGG_API_BASE,
#       EGG_API_KEY_FILE) at it.  Sets PORT; the log is $T/server.log.
#   stop_server                         stops it (also on exit)
#   logq PYTHON_EXPR                    EXPR with l = the log's entries

MODEL_SERVER=$EGG_SRCDIR/tests/agents/model-server.py

stop_server() {
	[ -n "${SERVER_PID:-}" ] && kill $SERVER_PID 2>/dev/null && wait $SERVER_PID 2>/dev/null
	SERVER_PID=
}
trap stop_server EXIT

start_server() {
	printf '%s\n' "$KEY" >"$T/key"
	printf '%s\n' "$2" >"$T/fixture.json"
	python3 "$MODEL_SERVER" --fixture "$T/fixture.json" --port-file "$T/port" \
		--log "$T/server.log" --expect-key-file "$T/key" 2>"$T/server.err" &
	SERVER_PID=$!
	local i
	for i in $(seq 100); do
		[ -s "$T/port" ] && break
		kill -0 $SERVER_PID 2>/dev/null || fail "the model server did not start: $(cat "$T/server.err")"
		sleep 0.05
	done
	[ -s "$T/port" ] || fail "the model server wrote no port"
	touch "$T/server.log"
	PORT=$(cat "$T/port")
	export EGG_BACKEND=$1 EGG_MODEL=test-model EGG_API_KEY_FILE=$T/key
	if [ "$1" = openai ]; then
		export EGG_API_BASE=http://127.0.0.1:$PORT/v1
	else
		export EGG_API_BASE=http://127.0.0.1:$PORT
	fi
}

logq() {
	python3 -c 'import json, sys
l = [json.loads(x) for x in open(sys.argv[1])]
print(eval(sys.argv[2]))' "$T/server.log" "$1"
}
