/*
 * test_llm.c -- unit tests for the pure parts of the model transport
 * (agents/llm_parse.c and the settings of agents/llm.c): request bodies of both
 * protocols, reading answers (content as text or parts, missing usage, cut
 * replies, HTML, truncated JSON, empty choices), server error messages,
 * Retry-After, the backoff's bounds, and that no sentence carries the key.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "agents/llm.h"
#include "agents/llm_parse.h"
#include "common/egg_config.h"
#include "common/strbuf.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A configuration read from the given egg.conf text, with the file removed
 * again; the key file, when the text names one, is tests' own. */
static struct egg_config *
config_from(const char *text)
{
	char path[] = "/tmp/egg-test-llm-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	struct egg_config *cfg = egg_config_new();
	struct strbuf err = STRBUF_INIT;
	if (egg_config_read_file(cfg, path, &err) < 0)
		fail_msg("%s", err.buf);
	unlink(path);
	strbuf_release(&err);
	return cfg;
}

static int
parse(enum egg_backend b, const char *body, struct llm_reply *r, struct strbuf *why)
{
	return llm_parse_reply(b, body, strlen(body), r, why);
}

static void
openai_request_has_model_roles_and_limits(void **state)
{
	(void)state;
	struct llm_message m[] = { { LLM_SYSTEM, "be fast" }, { LLM_USER, "write \"k\"" },
	                           { LLM_ASSISTANT, "ok" } };
	struct strbuf body = STRBUF_INIT;
	llm_build_request(EGG_BACKEND_OPENAI, "gpt-x", "max_tokens", 100, -1, m, 3, &body);
	cJSON *j = cJSON_Parse(body.buf);
	assert_non_null(j);
	assert_string_equal(cJSON_GetObjectItem(j, "model")->valuestring, "gpt-x");
	assert_int_equal(cJSON_GetObjectItem(j, "max_tokens")->valueint, 100);
	assert_null(cJSON_GetObjectItem(j, "temperature"));
	assert_null(cJSON_GetObjectItem(j, "system"));
	cJSON *msgs = cJSON_GetObjectItem(j, "messages");
	assert_int_equal(cJSON_GetArraySize(msgs), 3);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(msgs, 0), "role")->valuestring,
	                    "system");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(msgs, 1), "content")->valuestring,
	                    "write \"k\"");
	cJSON_Delete(j);
	strbuf_release(&body);
}

static void
anthropic_request_puts_system_messages_in_the_system_field(void **state)
{
	(void)state;
	struct llm_message m[] = { { LLM_SYSTEM, "one" }, { LLM_SYSTEM, "two" },
	                           { LLM_USER, "hi" } };
	struct strbuf body = STRBUF_INIT;
	llm_build_request(EGG_BACKEND_ANTHROPIC, "claude-x", "max_tokens", 50, 0.5, m, 3, &body);
	cJSON *j = cJSON_Parse(body.buf);
	assert_non_null(j);
	assert_string_equal(cJSON_GetObjectItem(j, "system")->valuestring, "one\n\ntwo");
	cJSON *msgs = cJSON_GetObjectItem(j, "messages");
	assert_int_equal(cJSON_GetArraySize(msgs), 1);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(msgs, 0), "role")->valuestring,
	                    "user");
	assert_true(cJSON_GetObjectItem(j, "temperature")->valuedouble == 0.5);
	cJSON_Delete(j);
	strbuf_release(&body);
}

static void
openai_reply_gives_text_stop_and_usage(void **state)
{
	(void)state;
	struct llm_reply r;
	struct strbuf why = STRBUF_INIT;
	assert_int_equal(parse(EGG_BACKEND_OPENAI,
	                       "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":"
	                       "\"hello\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":"
	                       "12,\"completion_tokens\":3}}", &r, &why), 0);
	assert_string_equal(r.text, "hello");
	assert_string_equal(r.stop_reason, "stop");
	assert_int_equal(r.input_tokens, 12);
	assert_int_equal(r.output_tokens, 3);
	llm_reply_release(&r);
	strbuf_release(&why);
}

static void
openai_reply_in_parts_is_concatenated(void **state)
{
	(void)state;
	struct llm_reply r;
	struct strbuf why = STRBUF_INIT;
	assert_int_equal(parse(EGG_BACKEND_OPENAI,
	                       "{\"choices\":[{\"message\":{\"content\":[{\"type\":\"text\",\"text\":"
	                       "\"a\"},{\"type\":\"image_url\",\"image_url\":{}},\"b\",{\"type\":"
	                       "\"text\",\"text\":\"c\"}]}}]}", &r, &why), 0);
	assert_string_equal(r.text, "abc");
	assert_null(r.stop_reason);
	assert_int_equal(r.input_tokens, 0); /* no usage: zero, not a failure */
	llm_reply_release(&r);
	strbuf_release(&why);
}

static void
cut_reply_is_read_with_its_length_stop(void **state)
{
	(void)state;
	struct llm_reply r;
	struct strbuf why = STRBUF_INIT;
	assert_int_equal(parse(EGG_BACKEND_OPENAI,
	                       "{\"choices\":[{\"message\":{\"content\":\"```cuda\\n__glob\"},"
	                       "\"finish_reason\":\"length\"}]}", &r, &why), 0);
	assert_string_equal(r.stop_reason, "length");
	assert_string_equal(r.text, "```cuda\n__glob");
	llm_reply_release(&r);
	/* No content at all (a reasoning model out of tokens): empty text. */
	assert_int_equal(parse(EGG_BACKEND_OPENAI,
	                       "{\"choices\":[{\"message\":{\"content\":null},"
	                       "\"finish_reason\":\"length\"}]}", &r, &why), 0);
	assert_string_equal(r.text, "");
	llm_reply_release(&r);
	strbuf_release(&why);
}

static void
anthropic_reply_joins_text_blocks_and_counts_cached_input(void **state)
{
	(void)state;
	struct llm_reply r;
	struct strbuf why = STRBUF_INIT;
	assert_int_equal(parse(EGG_BACKEND_ANTHROPIC,
	                       "{\"type\":\"message\",\"content\":[{\"type\":\"thinking\",\"thinking\":"
	                       "\"hmm\"},{\"type\":\"text\",\"text\":\"x\"},{\"type\":\"text\","
	                       "\"text\":\"y\"}],\"stop_reason\":\"max_tokens\",\"usage\":{"
	                       "\"input_tokens\":5,\"cache_read_input_tokens\":7,\"output_tokens\":9}}",
	                       &r, &why), 0);
	assert_string_equal(r.text, "xy");
	assert_string_equal(r.stop_reason, "max_tokens");
	assert_int_equal(r.input_tokens, 12);
	assert_int_equal(r.output_tokens, 9);
	llm_reply_release(&r);
	strbuf_release(&why);
}

/* Bodies that are not an answer: each fails with a description, never a crash. */
static void
bodies_that_are_not_answers_are_described(void **state)
{
	(void)state;
	static const struct {
		enum egg_backend b;
		const char *body, *why;
	} cases[] = {
		{ EGG_BACKEND_OPENAI, "{\"choices\":[]}", "empty \"choices\"" },
		{ EGG_BACKEND_OPENAI, "{\"object\":\"list\"}", "no \"choices\"" },
		{ EGG_BACKEND_OPENAI, "{\"choices\":[{\"message\":{\"content\":", "{\"choices\"" },
		{ EGG_BACKEND_OPENAI, "<html><body><h1>502 Bad Gateway</h1>\n</body></html>",
		  "502 Bad Gateway" },
		{ EGG_BACKEND_OPENAI, "", "an empty body" },
		{ EGG_BACKEND_OPENAI, "[1,2]", "[1,2]" },
		{ EGG_BACKEND_OPENAI, "{\"choices\":[{\"text\":\"legacy\"}]}", "no \"message\"" },
		{ EGG_BACKEND_OPENAI, "{\"choices\":[{\"message\":{\"content\":42}}]}",
		  "neither text" },
		{ EGG_BACKEND_OPENAI, "{\"error\":{\"message\":\"overloaded\"}}", "overloaded" },
		{ EGG_BACKEND_ANTHROPIC, "{\"type\":\"message\"}", "no \"content\"" },
		{ EGG_BACKEND_ANTHROPIC, "{\"type\":\"error\",\"error\":{\"message\":\"bad\"}}",
		  "an error: bad" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct llm_reply r;
		struct strbuf why = STRBUF_INIT;
		assert_int_equal(parse(cases[i].b, cases[i].body, &r, &why), -1);
		assert_null(r.text);
		if (!strstr(why.buf, cases[i].why))
			fail_msg("case %zu: '%s' lacks '%s'", i, why.buf, cases[i].why);
		strbuf_release(&why);
	}
}

static void
excerpts_are_short_printable_single_lines(void **state)
{
	(void)state;
	char big[2000];
	memset(big, 'x', sizeof big);
	big[10] = '\n';
	big[11] = '\x1b';
	big[12] = (char)0xc3;
	struct strbuf out = STRBUF_INIT;
	llm_excerpt(big, sizeof big, 100, &out);
	assert_true(out.len <= 104);
	assert_null(strchr(out.buf, '\n'));
	assert_null(strchr(out.buf, '\x1b'));
	assert_true(strstr(out.buf, "...") != NULL);
	assert_true(strstr(out.buf, "x ?x") != NULL);
	strbuf_release(&out);
}

static void
server_error_messages_are_quoted_from_each_shape(void **state)
{
	(void)state;
	static const struct {
		const char *body, *want;
	} cases[] = {
		{ "{\"error\":{\"message\":\"max_tokens is too large\",\"type\":\"x\"}}",
		  "max_tokens is too large" },
		{ "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":"
		  "\"messages: roles must alternate\"}}", "messages: roles must alternate" },
		{ "{\"error\":\"no such route\"}", "no such route" },
		{ "{\"detail\":\"Not Found\"}", "Not Found" },
		{ "<html><title>Forbidden</title></html>", "Forbidden" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct strbuf out = STRBUF_INIT;
		assert_int_equal(llm_error_detail(cases[i].body, strlen(cases[i].body), &out), 1);
		assert_string_equal(out.buf, cases[i].want);
		strbuf_release(&out);
	}
	struct strbuf out = STRBUF_INIT;
	assert_int_equal(llm_error_detail("", 0, &out), 0);
	strbuf_release(&out);
}

static void
retry_after_reads_seconds_and_http_dates(void **state)
{
	(void)state;
	double s = -1;
	assert_int_equal(llm_parse_retry_after("7", 0, &s), 0);
	assert_true(s == 7);
	assert_int_equal(llm_parse_retry_after(" 1.5 ", 0, &s), 0);
	assert_true(s == 1.5);
	/* Sun, 06 Nov 1994 08:49:37 GMT is 784111777. */
	assert_int_equal(llm_parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", 784111770, &s), 0);
	assert_true(s == 7);
	assert_int_equal(llm_parse_retry_after("Sunday, 06-Nov-94 08:49:37 GMT", 784111770, &s), 0);
	assert_true(s == 7);
	assert_int_equal(llm_parse_retry_after("Sun Nov  6 08:49:37 1994", 784111770, &s), 0);
	assert_true(s == 7);
	/* A date in the past: no wait. */
	assert_int_equal(llm_parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", 784111800, &s), 0);
	assert_true(s == 0);
	assert_int_equal(llm_parse_retry_after("soon", 0, &s), -1);
	assert_int_equal(llm_parse_retry_after("-3", 0, &s), -1);
	assert_int_equal(llm_parse_retry_after("3 s", 0, &s), -1);
	assert_int_equal(llm_parse_retry_after("", 0, &s), -1);
}

static void
backoff_stays_within_its_bounds(void **state)
{
	(void)state;
	for (int attempt = 0; attempt < 80; attempt++) {
		double ceiling = attempt < 6 ? 0.5 * (1 << attempt) : 10;
		if (ceiling > 10)
			ceiling = 10;
		for (double u = 0; u < 1; u += 0.125) {
			double d = llm_backoff_delay(0.5, 10, attempt, u, -1);
			assert_true(d >= 0 && d <= ceiling);
			assert_true(d == u * ceiling);
		}
	}
	/* Retry-After is a floor, the cap a ceiling over it. */
	assert_true(llm_backoff_delay(0.5, 10, 0, 0.1, 3) == 3);
	assert_true(llm_backoff_delay(0.5, 10, 0, 0.1, 3600) == 10);
	assert_true(llm_backoff_delay(0.5, 10, 3, 0.99, 0.2) > 3.9);
}

static void
scrub_removes_every_copy_of_the_key(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "Incorrect API key provided: sk-secret-123 (sk-secret-123)");
	llm_scrub(&sb, "sk-secret-123");
	assert_string_equal(sb.buf, "Incorrect API key provided: <key> (<key>)");
	llm_scrub(&sb, NULL);
	llm_scrub(&sb, "");
	assert_string_equal(sb.buf, "Incorrect API key provided: <key> (<key>)");
	strbuf_release(&sb);
}

static void
url_host_drops_credentials_and_path(void **state)
{
	(void)state;
	struct strbuf out = STRBUF_INIT;
	llm_url_host("https://user:pw@api.example.com:8443/v1/chat/completions", &out);
	assert_string_equal(out.buf, "api.example.com:8443");
	strbuf_release(&out);
}

static void
client_refuses_missing_model_and_odd_urls(void **state)
{
	(void)state;
	struct llm_settings s = { .backend = EGG_BACKEND_OPENAI, .model = "m",
	                          .api_base = "ftp://x", .api_key = "sk-hidden",
	                          .max_retries = -1, .temperature = -1 };
	struct strbuf err = STRBUF_INIT;
	assert_null(llm_client_new(&s, &err));
	assert_non_null(strstr(err.buf, "not an http:// or https:// URL (it starts with 'ftp://')"));
	assert_null(strstr(err.buf, "sk-hidden"));
	strbuf_reset(&err);
	s.api_base = "htps://user:pw-secret@host/v1";
	assert_null(llm_client_new(&s, &err));
	assert_null(strstr(err.buf, "pw-secret"));
	strbuf_reset(&err);
	s.api_base = "user:pw-secret@host/v1";
	assert_null(llm_client_new(&s, &err));
	assert_non_null(strstr(err.buf, "(it has no scheme)"));
	assert_null(strstr(err.buf, "pw-secret"));
	strbuf_reset(&err);
	s.api_base = NULL;
	s.model = NULL;
	assert_null(llm_client_new(&s, &err));
	assert_non_null(strstr(err.buf, "needs a model"));
	strbuf_release(&err);
}

static void
settings_read_key_file_headers_and_prices(void **state)
{
	(void)state;
	char key[] = "/tmp/egg-test-llm-key-XXXXXX";
	int fd = mkstemp(key);
	assert_true(fd >= 0);
	const char *content = "  sk-file-key-42 \r\nsecond line\n";
	assert_int_equal(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	close(fd);
	char text[512];
	snprintf(text, sizeof text,
	         "backend = anthropic\nmodel = claude-x\napi_key_file = %s\ntimeout = 30s\n"
	         "api_headers = anthropic-beta: b1 ; X-Team: egg;\nprice_in = 3\nprice_out = 15.5\n",
	         key);
	struct egg_config *cfg = config_from(text);
	struct llm_settings s;
	char *buf = NULL;
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(llm_settings_from_config(cfg, &s, &buf, &err), 0);
	unlink(key);
	assert_int_equal(s.backend, EGG_BACKEND_ANTHROPIC);
	assert_string_equal(s.model, "claude-x");
	assert_null(s.api_base);
	assert_string_equal(s.api_key, "sk-file-key-42");
	assert_ptr_equal(s.api_key, buf); /* the key first: clearing strlen(buf) clears it */
	assert_int_equal(s.n_headers, 2);
	assert_string_equal(s.headers[0], "anthropic-beta: b1");
	assert_string_equal(s.headers[1], "X-Team: egg");
	assert_true(s.timeout_s == 30);
	assert_true(s.price_in_per_mtok == 3 && s.price_out_per_mtok == 15.5);
	assert_int_equal(s.max_retries, -1);
	assert_true(s.temperature < 0);
	free(buf);
	egg_config_free(cfg);
	strbuf_release(&err);
}

static void
settings_errors_name_the_problem_never_the_secret(void **state)
{
	(void)state;
	static const struct {
		const char *conf, *want;
	} cases[] = {
		{ "model = m\n", "the backend is 'builtin'" },
		{ "backend = openai\n", "the openai backend needs a model" },
		{ "backend = openai\nmodel = m\napi_key_file = /nonexistent/key\n",
		  "cannot read the API key file /nonexistent/key: No such file" },
		{ "backend = openai\nmodel = m\napi_headers = Authorization Bearer sk-hdr-secret\n",
		  "api_headers: item 1 is not a 'Name: value' header" },
		{ "backend = openai\nmodel = m\nprice_in = cheap\n",
		  "price_in 'cheap' is not a price" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct egg_config *cfg = config_from(cases[i].conf);
		struct llm_settings s;
		char *buf = NULL;
		struct strbuf err = STRBUF_INIT;
		assert_int_equal(llm_settings_from_config(cfg, &s, &buf, &err), -1);
		assert_null(buf);
		if (!strstr(err.buf, cases[i].want))
			fail_msg("case %zu: '%s' lacks '%s'", i, err.buf, cases[i].want);
		assert_null(strstr(err.buf, "sk-hdr-secret"));
		strbuf_release(&err);
		egg_config_free(cfg);
	}
}

static void
settings_prefer_api_key_and_need_no_buffer_without_file_or_headers(void **state)
{
	(void)state;
	struct egg_config *cfg = config_from("backend = openai\nmodel = m\napi_key = sk-inline\n"
	                                     "api_key_file = /nonexistent\ntimeout = 0\n");
	struct llm_settings s;
	char *buf = (char *)"unset";
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(llm_settings_from_config(cfg, &s, &buf, &err), 0);
	assert_null(buf);
	assert_string_equal(s.api_key, "sk-inline");
	assert_int_equal(s.n_headers, 0);
	assert_true(s.timeout_s > 1e6); /* timeout 0: no limit */
	egg_config_free(cfg);
	strbuf_release(&err);
}

static void
client_refuses_control_characters_in_key_and_headers(void **state)
{
	(void)state;
	const char *bad[] = { "X-Injected: a\r\nHost: evil" };
	struct llm_settings s = { .backend = EGG_BACKEND_OPENAI, .model = "m",
	                          .api_key = "sk-line\n", .max_retries = -1, .temperature = -1 };
	struct strbuf err = STRBUF_INIT;
	assert_null(llm_client_new(&s, &err));
	assert_non_null(strstr(err.buf, "control character"));
	assert_null(strstr(err.buf, "sk-line"));
	strbuf_reset(&err);
	s.api_key = "sk-fine";
	s.headers = bad;
	s.n_headers = 1;
	assert_null(llm_client_new(&s, &err));
	assert_non_null(strstr(err.buf, "extra header 1 is not"));
	strbuf_release(&err);
}

/* A whole chat against a port nobody listens on: the network sentence names
 * the backend and the host, counts the attempts, and carries no key. */
static void
unreachable_server_gives_network_sentence_without_key(void **state)
{
	(void)state;
	struct llm_settings s = { .backend = EGG_BACKEND_ANTHROPIC, .model = "m",
	                          .api_base = "http://127.0.0.1:1", .api_key = "sk-never-shown",
	                          .max_retries = 1, .backoff_s = 0.001, .temperature = -1 };
	struct strbuf err = STRBUF_INIT;
	struct llm_client *c = llm_client_new(&s, &err);
	assert_non_null(c);
	struct llm_message m = { LLM_USER, "hi" };
	struct llm_reply r;
	assert_int_equal(llm_chat(c, &m, 1, &r, &err), LLM_E_NETWORK);
	assert_null(r.text);
	assert_non_null(strstr(err.buf, "could not reach the anthropic backend at 127.0.0.1:1 "
	                                "(2 attempts)"));
	assert_null(strstr(err.buf, "sk-never-shown"));
	assert_int_equal(llm_client_usage(c)->requests, 2);
	assert_int_equal(llm_client_usage(c)->retries, 1);
	struct llm_chat_fn fn = llm_chat_client(c);
	strbuf_reset(&err);
	assert_int_equal(fn.chat(fn.ctx, &m, 1, &r, &err), LLM_E_NETWORK);
	assert_int_equal(llm_client_usage(c)->requests, 4);
	assert_string_equal(llm_status_name(LLM_E_NETWORK), "network");
	assert_string_equal(llm_backend_name(EGG_BACKEND_ANTHROPIC), "anthropic");
	llm_client_free(c);
	strbuf_release(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(openai_request_has_model_roles_and_limits),
		cmocka_unit_test(anthropic_request_puts_system_messages_in_the_system_field),
		cmocka_unit_test(openai_reply_gives_text_stop_and_usage),
		cmocka_unit_test(openai_reply_in_parts_is_concatenated),
		cmocka_unit_test(cut_reply_is_read_with_its_length_stop),
		cmocka_unit_test(anthropic_reply_joins_text_blocks_and_counts_cached_input),
		cmocka_unit_test(bodies_that_are_not_answers_are_described),
		cmocka_unit_test(excerpts_are_short_printable_single_lines),
		cmocka_unit_test(server_error_messages_are_quoted_from_each_shape),
		cmocka_unit_test(retry_after_reads_seconds_and_http_dates),
		cmocka_unit_test(backoff_stays_within_its_bounds),
		cmocka_unit_test(scrub_removes_every_copy_of_the_key),
		cmocka_unit_test(url_host_drops_credentials_and_path),
		cmocka_unit_test(client_refuses_missing_model_and_odd_urls),
		cmocka_unit_test(settings_read_key_file_headers_and_prices),
		cmocka_unit_test(settings_errors_name_the_problem_never_the_secret),
		cmocka_unit_test(settings_prefer_api_key_and_need_no_buffer_without_file_or_headers),
		cmocka_unit_test(client_refuses_control_characters_in_key_and_headers),
		cmocka_unit_test(unreachable_server_gives_network_sentence_without_key),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
