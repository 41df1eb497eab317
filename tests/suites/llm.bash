# llm: the model backends (agents/llm.c) against the scripted model server
# (tests/agents/model-server.py), which each test starts on a free loopback port
# with its own fixture, through tests/tools/llm-chat.  The server's log tells
# what the client sent; llm-chat's outputs tell what it made of the answers.

LLM_CHAT=$EGG_BUILDDIR/tests/tools/llm-chat
KEY=sk-egg-test-5f3a9c0d7e
. "$EGG_SRCDIR/tests/agents/server.bash" # start_server, stop_server, logq

suite_probe() {
	[ -x "$LLM_CHAT" ] || { echo "tests/tools/llm-chat is not built"; return 1; }
	command -v python3 >/dev/null || { echo "python3 is needed for the scripted model server"; return 1; }
}

# chat ARGS...: llm-chat with small backoffs; outputs in $T/chat.{out,err,rc}
chat() {
	run_cmd "$T/chat" "$LLM_CHAT" --backoff=0.01 --max-backoff=5 "$@"
}

requests() { wc -l <"$T/server.log" | tr -d ' '; }

# usage_field NAME: a field of the usage line llm-chat printed
usage_field() {
	sed -n 's/^usage: //p' "$T/chat.err" | python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"
}

expect_rc() { expect_eq "$(cat "$T/chat.rc")" "$1" "llm-chat's exit status ($(cat "$T/chat.err"))"; }

expect_no_key_shown() {
	expect_file_lacks "$T/chat.out" "$KEY"
	expect_file_lacks "$T/chat.err" "$KEY"
	expect_file_lacks "$T/server.log" "$KEY"
}

test_openai_chat_sends_model_roles_and_bearer_key() {
	start_server openai '[{"expect": {"protocol": "openai", "path": "/v1/chat/completions",
		"model": "test-model", "roles": ["system", "user"], "auth": "match",
		"system_contains": ["kernel expert"], "last_user_contains": ["make it fast"]},
		"reply": "```cuda\n__global__ void k() {}\n```", "usage": {"input": 21, "output": 8}}]'
	chat -s "you are a kernel expert" -u "make it fast"
	expect_rc 0
	expect_eq "$(cat "$T/chat.out")" $'```cuda\n__global__ void k() {}\n```' "reply"
	expect_file_contains "$T/chat.err" "stop: stop"
	expect_eq "$(logq 'l[0]["status"]')" 200 "status answered"
	expect_eq "$(logq 'l[0]["auth"]')" match "auth header"
	expect_eq "$(logq 'l[0]["max_tokens"]')" 8192 "max_tokens"
	expect_eq "$(usage_field input_tokens)" 21 "input tokens"
	expect_eq "$(usage_field output_tokens)" 8 "output tokens"
	expect_eq "$(usage_field requests)" 1 "requests"
	expect_no_key_shown
}

test_anthropic_chat_sends_system_field_and_x_api_key() {
	start_server anthropic '[{"expect": {"protocol": "anthropic", "path": "/v1/messages",
		"model": "test-model", "roles": ["system", "user", "assistant", "user"],
		"auth": "match", "header": {"anthropic-version": "2023-06-01"}}, "reply": "done"}]'
	chat --max-tokens=100 -s "sys prompt" -u "first" -a "answer" -u "second"
	expect_rc 0
	expect_eq "$(cat "$T/chat.out")" done "reply"
	expect_file_contains "$T/chat.err" "stop: end_turn"
	expect_eq "$(logq 'l[0]["system"]')" "sys prompt" "system field"
	expect_eq "$(logq '[m["role"] for m in l[0]["messages"]]')" "['user', 'assistant', 'user']" \
		"messages without the system prompt"
	expect_eq "$(logq 'l[0]["headers"].get("authorization")')" None "no bearer header"
	expect_eq "$(logq 'l[0]["max_tokens"]')" 100 "max_tokens"
	expect_no_key_shown
}

test_anthropic_base_ending_in_v1_reaches_messages() {
	start_server anthropic '[{"expect": {"path": "/v1/messages"}, "reply": "ok"}]'
	export EGG_API_BASE=http://127.0.0.1:$PORT/v1/
	chat -u hi
	expect_rc 0
	expect_eq "$(cat "$T/chat.out")" ok "reply"
}

test_key_from_api_key_setting_is_sent() {
	start_server openai '[{"expect": {"auth": "match"}, "reply": "ok"}]'
	unset EGG_API_KEY_FILE
	export EGG_API_KEY=$KEY
	chat -u hi
	expect_rc 0
	expect_no_key_shown
}

test_no_key_sends_no_auth_header() {
	start_server openai '[{"expect": {"auth": "absent"}, "reply": "local"}]'
	unset EGG_API_KEY_FILE
	chat -u hi
	expect_rc 0
	expect_eq "$(cat "$T/chat.out")" local "reply"
}

test_extra_headers_from_api_headers_are_sent() {
	start_server openai '[{"expect": {"header": {"OpenAI-Organization": "org-egg",
		"X-Gateway-Token": "gw-1"}}, "reply": "ok"}]'
	export EGG_API_HEADERS='OpenAI-Organization: org-egg; X-Gateway-Token: gw-1'
	chat -u hi
	expect_rc 0
	expect_eq "$(logq 'l[0]["headers"]["x-gateway-token"]')" gw-1 "header logged"
}

test_anthropic_version_header_can_be_overridden() {
	start_server anthropic '[{"expect": {"header": {"anthropic-version": "2099-01-01"}}, "reply": "ok"}]'
	chat --header='anthropic-version: 2099-01-01' -u hi
	expect_rc 0
}

test_bad_api_headers_are_refused_without_showing_them() {
	export EGG_BACKEND=openai EGG_MODEL=m EGG_API_HEADERS="Authorization Bearer $KEY"
	chat -u hi
	expect_rc 2
	expect_file_contains "$T/chat.err" "api_headers: item 1 is not a 'Name: value' header"
	expect_file_lacks "$T/chat.err" "$KEY"
}

test_retry_after_on_429_is_honoured() {
	start_server openai '[{"status": 429, "headers": {"Retry-After": "1"}, "error": "slow down"},
		{"reply": "after the wait"}]'
	chat -u hi
	expect_rc 0
	expect_eq "$(cat "$T/chat.out")" "after the wait" "reply"
	expect_eq "$(requests)" 2 "requests"
	expect_eq "$(logq 'l[1]["time"] - l[0]["time"] >= 1.0')" True \
		"waited at least Retry-After ($(logq 'l[1]["time"] - l[0]["time"]') s)"
	expect_eq "$(usage_field retries)" 1 "retries"
}

test_retry_after_as_http_date_is_honoured() {
	local when
	when=$(python3 -c 'import email.utils, time; print(email.utils.formatdate(time.time() + 3, usegmt=True))')
	start_server anthropic '[{"status": 529, "headers": {"Retry-After": "'"$when"'"}, "error": "overloaded"},
		{"reply": "ok"}]'
	chat -u hi
	expect_rc 0
	# A date has a one-second resolution: at least one second must pass.
	expect_eq "$(logq 'l[1]["time"] - l[0]["time"] >= 1.0')" True "waited for the date"
}

test_retry_after_is_capped_by_max_backoff() {
	start_server openai '[{"status": 429, "headers": {"Retry-After": "30"}, "error": "slow"},
		{"reply": "ok"}]'
	chat --max-backoff=0.2 -u hi
	expect_rc 0
	expect_eq "$(logq 'l[1]["time"] - l[0]["time"] < 5')" True "the wait was capped"
}

test_server_error_then_success_is_retried() {
	start_server openai '[{"status": 500, "error": "internal"}, {"status": 503, "body": "busy",
		"content_type": "text/plain"}, {"reply": "third time"}]'
	chat -u hi
	expect_rc 0
	expect_eq "$(cat "$T/chat.out")" "third time" "reply"
	expect_eq "$(requests)" 3 "requests"
	expect_eq "$(usage_field retries)" 2 "retries"
}

test_retries_exhausted_give_server_error_after_max_retries_plus_one() {
	start_server openai '[{"status": 500, "error": "still broken", "repeat": 20}]'
	chat --retries=3 -u hi
	expect_rc 1
	expect_eq "$(requests)" 4 "requests"
	expect_file_contains "$T/chat.err" "error: server: the openai backend at 127.0.0.1:$PORT failed 4 times (HTTP 500): still broken"
	expect_eq "$(usage_field requests)" 4 "requests counted"
}

test_rate_limit_exhausted_gives_rate_error() {
	start_server anthropic '[{"status": 429, "error": "too many", "repeat": 5}]'
	chat --retries=1 -u hi
	expect_rc 1
	expect_eq "$(requests)" 2 "requests"
	expect_file_contains "$T/chat.err" "error: rate: the anthropic backend at 127.0.0.1:$PORT was still rate-limiting after 2 attempts (HTTP 429): too many"
}

test_stall_past_timeout_is_retried_then_fails_as_timeout() {
	start_server openai '[{"delay_s": 3, "reply": "too late", "repeat": 2}, {"reply": "unused"}]'
	local t0 t1
	t0=$(date +%s.%N)
	chat --timeout=0.5 --retries=1 -u hi
	t1=$(date +%s.%N)
	expect_rc 1
	expect_file_contains "$T/chat.err" "error: timeout: the openai backend at 127.0.0.1:$PORT did not answer within 0.5 s (2 attempts)"
	expect_eq "$(requests)" 2 "requests"
	expect_eq "$(python3 -c "print($t1 - $t0 < 2.5)")" True "gave up at the timeout"
}

# The kernel's budget (a deadline) bounds a request the server never answers
# and every retry after it: 120 s x 5 attempts become the 1.5 s left.
test_a_deadline_ends_a_stalled_request_and_its_retries() {
	start_server openai '[{"delay_s": 30, "reply": "too late", "repeat": 5}]'
	local t0 t1
	t0=$(date +%s.%N)
	chat --timeout=120 --retries=4 --deadline=1.5 -u hi
	t1=$(date +%s.%N)
	expect_rc 1
	expect_file_contains "$T/chat.err" "error: deadline: the time budget ran out waiting for the openai backend at 127.0.0.1:$PORT (1 attempt)"
	expect_eq "$(python3 -c "print($t1 - $t0 < 4)")" True "ended at the deadline ($(python3 -c "print($t1 - $t0)") s)"
	expect_eq "$(usage_field stalls)" 0 "stalls (a request cut by the deadline proves nothing)"
}

# No retry waits past the deadline: a Retry-After of 30 s ends the chat at once.
test_no_retry_waits_past_the_deadline() {
	start_server openai '[{"status": 503, "headers": {"Retry-After": "30"}, "error": "busy", "repeat": 5}]'
	local t0 t1
	t0=$(date +%s.%N)
	chat --max-backoff=60 --deadline=10 -u hi
	t1=$(date +%s.%N)
	expect_rc 1
	expect_file_contains "$T/chat.err" "error: deadline: the time budget ran out waiting"
	expect_eq "$(requests)" 1 "requests"
	expect_eq "$(python3 -c "print($t1 - $t0 < 5)")" True "did not wait ($(python3 -c "print($t1 - $t0)") s)"
}

# A request that runs its full timeout without an answer is a stall (what the
# build's outage record counts), and so is a closed port.
test_a_full_timeout_without_an_answer_counts_as_a_stall() {
	start_server openai '[{"delay_s": 30, "reply": "too late", "repeat": 5}]'
	chat --timeout=0.5 --retries=1 -u hi
	expect_rc 1
	expect_eq "$(usage_field stalls)" 2 "stalls"
}

test_a_server_that_stalls_twice_is_not_waited_for_a_third_time() {
	start_server openai '[{"delay_s": 30, "reply": "too late", "repeat": 5}]'
	chat --timeout=0.5 --retries=4 -u hi
	expect_rc 1
	expect_eq "$(requests)" 2 "requests"
	expect_file_contains "$T/chat.err" "did not answer within 0.5 s (2 attempts)"
}

test_stall_then_answer_succeeds_on_retry() {
	start_server anthropic '[{"delay_s": 2, "reply": "late"}, {"reply": "on time"}]'
	chat --timeout=0.4 -u hi
	expect_rc 0
	expect_eq "$(cat "$T/chat.out")" "on time" "reply"
	expect_eq "$(usage_field retries)" 1 "retries"
}

test_bad_key_gives_auth_error_without_retry() {
	start_server openai '[{"status": 401, "error": "Incorrect API key provided"}, {"reply": "no"}]'
	chat -u hi
	expect_rc 1
	expect_file_contains "$T/chat.err" "error: auth: the openai backend at 127.0.0.1:$PORT refused the API key (HTTP 401)"
	expect_eq "$(requests)" 1 "requests"
	expect_no_key_shown
}

test_missing_key_is_named_on_403() {
	start_server anthropic '[{"status": 403, "error": "no key"}]'
	unset EGG_API_KEY_FILE
	chat -u hi
	expect_rc 1
	expect_file_contains "$T/chat.err" "error: auth: the anthropic backend at 127.0.0.1:$PORT wants an API key (HTTP 403): set api_key or api_key_file"
}

test_unknown_model_gives_model_error() {
	start_server openai '[{"status": 404, "error": "The model test-model does not exist"}]'
	chat -u hi
	expect_rc 1
	expect_file_contains "$T/chat.err" "error: model: the openai backend at 127.0.0.1:$PORT does not know model 'test-model' (HTTP 404): check model and api_base"
	expect_eq "$(requests)" 1 "requests"
}

test_refused_request_quotes_the_server_message() {
	start_server anthropic '[{"status": 400, "error": "max_tokens: 999999 > 64000, which is the maximum"}]'
	chat -u hi
	expect_rc 1
	expect_file_contains "$T/chat.err" "error: request: the anthropic backend at 127.0.0.1:$PORT refused the request (HTTP 400): max_tokens: 999999 > 64000, which is the maximum"
	expect_eq "$(requests)" 1 "requests"
}

test_key_echoed_by_the_server_is_scrubbed_from_the_error() {
	start_server openai '[{"status": 400, "error": "bad key format: '"$KEY"'"}]'
	chat -u hi
	expect_rc 1
	expect_file_contains "$T/chat.err" "bad key format: <key>"
	expect_no_key_shown
}

test_garbage_body_is_a_protocol_error() {
	start_server openai '[{"body": "\u0001garbage \u001b[31m here", "content_type": "text/plain"}]'
	chat -u hi
	expect_rc 1
	expect_file_contains "$T/chat.err" "error: protocol: the openai backend at 127.0.0.1:$PORT answered with something that is not a chat completion: garbage [31m here"
	expect_eq "$(requests)" 1 "requests"
}

test_truncated_json_is_a_protocol_error() {
	start_server anthropic '[{"body": "{\"type\": \"message\", \"content\": [{\"type\": \"text\", \"text\": \"hal"}]'
	chat -u hi
	expect_rc 1
	expect_file_contains "$T/chat.err" "error: protocol: the anthropic backend at 127.0.0.1:$PORT answered with something that is not a chat completion: {\"type\": \"message\""
}

test_html_body_is_a_protocol_error_with_its_text() {
	start_server openai '[{"body": "<html>\n<head><title>Sign in</title></head>\n<body><h1>Corporate proxy login</h1></body></html>", "content_type": "text/html"}]'
	chat -u hi
	expect_rc 1
	expect_file_contains "$T/chat.err" "not a chat completion: Sign in Corporate proxy login"
}

test_empty_choices_is_a_protocol_error() {
	start_server openai '[{"json": {"object": "chat.completion", "choices": []}}]'
	chat -u hi
	expect_rc 1
	expect_file_contains "$T/chat.err" "not a chat completion: an empty \"choices\" array"
}

test_reply_in_parts_is_joined() {
	start_server openai '[{"reply_parts": ["```cuda\n", "__global__ void k() {}\n", "```"]}]'
	chat -u hi
	expect_rc 0
	expect_eq "$(cat "$T/chat.out")" $'```cuda\n__global__ void k() {}\n```' "openai parts"
	stop_server
	rm -f "$T/port"
	start_server anthropic '[{"reply_parts": ["one ", "two"]}]'
	chat -u hi
	expect_rc 0
	expect_eq "$(cat "$T/chat.out")" "one two" "anthropic blocks"
}

test_reply_cut_at_the_token_limit_reports_length() {
	start_server openai '[{"reply": "```cuda\n__global__ void k(", "stop": "length"}]'
	chat -u hi
	expect_rc 0
	expect_file_contains "$T/chat.err" "stop: length"
}

test_missing_usage_counts_zero_tokens() {
	start_server anthropic '[{"reply": "ok", "usage": null}]'
	chat -u hi
	expect_rc 0
	expect_eq "$(usage_field input_tokens)" 0 "input tokens"
	expect_eq "$(usage_field output_tokens)" 0 "output tokens"
}

test_cost_comes_from_the_prices() {
	start_server openai '[{"reply": "a", "usage": {"input": 1000000, "output": 500000}},
		{"reply": "b", "usage": {"input": 0, "output": 0}}]'
	export EGG_PRICE_IN=3 EGG_PRICE_OUT=15
	chat -u hi
	expect_rc 0
	expect_eq "$(usage_field cost_usd)" 10.5 "cost"
}

test_transfer_cut_midway_is_retried() {
	start_server openai '[{"reply": "partial", "cut_after": 10}, {"reply": "whole"}]'
	chat -u hi
	expect_rc 0
	expect_eq "$(cat "$T/chat.out")" whole "reply"
	expect_eq "$(requests)" 2 "requests"
}

test_closed_port_is_a_network_error_after_retries() {
	local port
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	export EGG_BACKEND=openai EGG_MODEL=m EGG_API_BASE=http://127.0.0.1:$port/v1
	chat --retries=2 -u hi
	expect_rc 1
	expect_file_contains "$T/chat.err" "error: network: could not reach the openai backend at 127.0.0.1:$port (3 attempts)"
	expect_eq "$(usage_field requests)" 3 "requests"
}

test_key_never_appears_in_output_or_process_list() {
	start_server openai '[{"delay_s": 1.5, "reply": "slow"}]'
	"$LLM_CHAT" --backoff=0.01 -u hi >"$T/chat.out" 2>"$T/chat.err" &
	local pid=$! i
	for i in $(seq 100); do
		[ -s "$T/server.log" ] && break
		sleep 0.05
	done
	[ -s "$T/server.log" ] || fail "the request never reached the server"
	tr '\0' ' ' <"/proc/$pid/cmdline" >"$T/cmdline" || fail "llm-chat ended before the check"
	ps -ww -o args= -p "$pid" >"$T/ps" || fail "ps does not see llm-chat"
	wait $pid
	expect_eq $? 0 "llm-chat's exit status"
	expect_file_contains "$T/cmdline" "llm-chat"
	expect_file_lacks "$T/cmdline" "$KEY"
	expect_file_contains "$T/ps" "llm-chat"
	expect_file_lacks "$T/ps" "$KEY"
	expect_no_key_shown
}

test_failed_expectation_answers_418_and_is_logged() {
	start_server openai '[{"expect": {"model": "other-model"}, "reply": "never"}]'
	chat -u hi
	expect_rc 1
	expect_file_contains "$T/chat.err" "(HTTP 418): fixture expectation failed: expected model \"other-model\", got \"test-model\""
	expect_eq "$(logq 'l[0]["expect_failed"]')" 'expected model "other-model", got "test-model"' "logged reason"
}

test_exhausted_fixture_answers_500() {
	start_server anthropic '[]'
	chat --retries=0 -u hi
	expect_rc 1
	expect_file_contains "$T/chat.err" "(HTTP 500): fixture exhausted"
}

test_unconfigured_backend_is_refused_clearly() {
	export EGG_BACKEND=builtin
	chat -u hi
	expect_rc 2
	expect_file_contains "$T/chat.err" "the backend is 'builtin'"
	export EGG_BACKEND=openai EGG_MODEL=m EGG_API_KEY_FILE=$T/missing
	chat -u hi
	expect_rc 2
	expect_file_contains "$T/chat.err" "cannot read the API key file $T/missing"
}

test_when_routes_requests_to_their_exchange_in_any_order() {
	start_server openai '[{"when": {"last_user_contains": ["seed B"]}, "reply": "answer B"},
		{"when": {"last_user_contains": ["seed A"]}, "reply": "answer A"}]'
	chat -u "structure for seed A"
	expect_rc 0
	expect_eq "$(cat "$T/chat.out")" "answer A" "first request"
	chat -u "structure for seed B"
	expect_rc 0
	expect_eq "$(cat "$T/chat.out")" "answer B" "second request"
	expect_eq "$(logq '[e["exchange"] for e in l]')" "[1, 0]" "exchanges served"
}

test_request_matching_no_exchange_answers_500() {
	start_server anthropic '[{"when": {"model": "other"}, "reply": "no"}]'
	chat --retries=0 -u hi
	expect_rc 1
	expect_file_contains "$T/chat.err" "(HTTP 500): no fixture exchange left matches the request"
}

test_max_chars_expectation_catches_a_prompt_too_long() {
	start_server openai '[{"expect": {"max_chars": 40}, "reply": "short enough"},
		{"expect": {"max_chars": 40}, "reply": "never"}]'
	chat -u "twenty characters.."
	expect_rc 0
	chat -u "this prompt is much longer than forty characters in all"
	expect_rc 1
	expect_file_contains "$T/chat.err" "(HTTP 418): fixture expectation failed: the messages hold 55 characters, more than 40"
}

# A multi-turn exchange in the manner of the staged search: each turn resends
# the conversation; the server checks what each turn must and must not carry.
test_scripted_conversation_replays_code_and_json_feedback() {
	start_server anthropic '[
		{"name": "stage1", "expect": {"roles": ["system", "user"], "system_contains": ["CUDA"]},
		 "reply": "Plan.\n```cuda\n__global__ void k(float *x) { x[0] = 1; }\n```\n```cuda\n// second block\n```"},
		{"name": "feedback", "expect": {"roles": ["system", "user", "assistant", "user"],
		  "last_user_contains": ["\"correct\": false"], "contains": ["second block"],
		  "lacks": [{"regex": "sk-[a-z]"}]},
		 "reply": "```json\n{\"bottleneck\": \"memory\", \"modification_plan\": \"coalesce\"}\n```"}]'
	chat -s "You write CUDA." -u "stage 1: propose a structure"
	expect_rc 0
	cp "$T/chat.out" "$T/turn1"
	expect_file_contains "$T/turn1" "// second block"
	chat -s "You write CUDA." -u "stage 1: propose a structure" -a "$(cat "$T/turn1")" \
		-u '{"correct": false, "first_bad_index": 3}'
	expect_rc 0
	expect_file_contains "$T/chat.out" '"bottleneck": "memory"'
	expect_eq "$(logq '[e["name"] for e in l]')" "['stage1', 'feedback']" "exchanges"
}

test_reasoning_model_refusing_max_tokens_gets_max_completion_tokens() {
	start_server openai '[{"expect": {"request": {"max_tokens": 300, "temperature": 0.2}},
		 "error": "Unsupported parameter: '"'"'max_tokens'"'"' is not supported with this model. Use '"'"'max_completion_tokens'"'"' instead."},
		{"expect": {"request": {"max_tokens": null, "max_completion_tokens": 300, "temperature": 0.2}},
		 "error": "Unsupported value: '"'"'temperature'"'"' does not support 0.2 with this model."},
		{"expect": {"request": {"max_tokens": null, "max_completion_tokens": 300, "temperature": null}},
		 "reply": "adapted"}]'
	chat --max-tokens=300 --temperature=0.2 -u hi
	expect_rc 0
	expect_eq "$(cat "$T/chat.out")" adapted "reply"
	expect_eq "$(requests)" 3 "requests"
	expect_eq "$(usage_field retries)" 0 "retries"
}

test_other_refusals_are_not_adapted() {
	start_server openai '[{"error": "temperature is fine, the messages are not"}, {"reply": "no"}]'
	chat -u hi
	expect_rc 1
	expect_eq "$(requests)" 1 "requests"
}

test_fixture_with_a_typo_is_refused_at_start() {
	printf '%s\n' '[{"reply": "ok", "expect": {"modle": "m"}}]' >"$T/fixture.json"
	run_cmd "$T/server" python3 "$MODEL_SERVER" --fixture "$T/fixture.json" --port-file "$T/port"
	expect_eq "$(cat "$T/server.rc")" 1 "server exit status"
	expect_file_contains "$T/server.err" "exchange 0: expect has unknown checks ['modle']"
	[ ! -e "$T/port" ] || fail "a port file was written"
	printf '%s\n' '[{"reponse": "ok"}]' >"$T/fixture.json"
	run_cmd "$T/server" python3 "$MODEL_SERVER" --fixture "$T/fixture.json" --port-file "$T/port"
	expect_file_contains "$T/server.err" "exchange 0 has unknown keys ['reponse']"
}
