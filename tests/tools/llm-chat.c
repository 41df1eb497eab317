/*
 * llm-chat -- sends one conversation through agents/llm.c, for the shell suite
 * tests/suites/llm.bash (and for trying a backend by hand).
 *
 *   llm-chat [--backoff=S] [--max-backoff=S] [--retries=N] [--timeout=S]
 *            [--deadline=S] [--max-tokens=N] [--temperature=T]
 *            [--header='Name: value']... [-s SYSTEM] [-u USER] [-a ASSISTANT]...
 *
 * The backend, model, api_base and key come from egg's configuration (egg.conf,
 * EGG_BACKEND, EGG_MODEL, EGG_API_BASE, EGG_API_KEY_FILE, ...), as for egg-cc;
 * the options override the retry and timing settings, which have no
 * configuration keys (tests want small backoffs, users want the defaults);
 * --header adds to the configuration's api_headers; --deadline gives the client
 * a deadline S seconds from its start (as a kernel's max_search_time does).
 * Messages keep their order; with no -u the user message is read from stdin.
 *
 * Prints the reply's text on stdout, and on stderr "stop: REASON",
 * "usage: {JSON}" and, on failure, "error: STATUS: SENTENCE".  Exits 0 on
 * success, 1 when the chat failed, 2 on bad usage or configuration.
 */
#include "config.h"
#include "agents/llm.h"
#include "common/egg_config.h"
#include "common/strbuf.h"
#include "common/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int
opt_value(const char *arg, const char *name, const char **v)
{
	size_t n = strlen(name);
	if (strncmp(arg, name, n) || arg[n] != '=')
		return 0;
	*v = arg + n + 1;
	return 1;
}

static void
print_usage_json(const struct llm_usage *u)
{
	fprintf(stderr,
	        "usage: {\"requests\": %ld, \"retries\": %ld, \"stalls\": %ld, "
	        "\"input_tokens\": %ld, \"output_tokens\": %ld, \"seconds\": %.3f, "
	        "\"cost_usd\": %.6f}\n",
	        u->requests, u->retries, u->stalls, u->input_tokens, u->output_tokens, u->seconds,
	        u->cost_usd);
}

int
main(int argc, char **argv)
{
	egg_set_progname("llm-chat");
	struct egg_config *cfg = egg_config_new();
	struct strbuf err = STRBUF_INIT;
	if (egg_config_load(cfg, NULL, &err) < 0) {
		fprintf(stderr, "llm-chat: %s\n", err.buf);
		return 2;
	}
	struct llm_settings s;
	char *key_buf = NULL;
	if (llm_settings_from_config(cfg, &s, &key_buf, &err) < 0) {
		fprintf(stderr, "error: config: %s\n", err.buf);
		return 2;
	}
	struct llm_message *msgs = egg_xcalloc((size_t)argc + 1, sizeof *msgs);
	const char **headers = egg_xcalloc((size_t)argc + s.n_headers + 1, sizeof *headers);
	size_t n = 0, nh = 0;
	for (; nh < s.n_headers; nh++)
		headers[nh] = s.headers[nh];
	int has_user = 0;
	double deadline = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		if (opt_value(a, "--backoff", &v))
			s.backoff_s = atof(v);
		else if (opt_value(a, "--max-backoff", &v))
			s.max_backoff_s = atof(v);
		else if (opt_value(a, "--retries", &v))
			s.max_retries = atoi(v);
		else if (opt_value(a, "--timeout", &v))
			s.timeout_s = atof(v);
		else if (opt_value(a, "--deadline", &v))
			deadline = atof(v);
		else if (opt_value(a, "--max-tokens", &v))
			s.max_tokens = atoi(v);
		else if (opt_value(a, "--temperature", &v))
			s.temperature = atof(v);
		else if (opt_value(a, "--header", &v))
			headers[nh++] = v;
		else if ((!strcmp(a, "-s") || !strcmp(a, "-u") || !strcmp(a, "-a")) && i + 1 < argc) {
			msgs[n].role = a[1] == 's' ? LLM_SYSTEM : a[1] == 'u' ? LLM_USER : LLM_ASSISTANT;
			has_user |= a[1] == 'u';
			msgs[n++].content = argv[++i];
		} else {
			fprintf(stderr, "llm-chat: unknown argument '%s'\n", a);
			return 2;
		}
	}
	struct strbuf input = STRBUF_INIT;
	if (!has_user) {
		char buf[4096];
		size_t got;
		while ((got = fread(buf, 1, sizeof buf, stdin)) > 0)
			strbuf_add(&input, buf, got);
		msgs[n].role = LLM_USER;
		msgs[n++].content = input.buf;
	}
	s.headers = headers;
	s.n_headers = nh;
	struct llm_client *c = llm_client_new(&s, &err);
	if (!c) {
		fprintf(stderr, "error: config: %s\n", err.buf);
		return 2;
	}
	if (deadline > 0) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		llm_client_set_deadline(c, (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 + deadline);
	}
	struct llm_reply r;
	enum llm_status st = llm_chat(c, msgs, n, &r, &err);
	if (st == LLM_OK) {
		fputs(r.text, stdout);
		fprintf(stderr, "stop: %s\n", r.stop_reason ? r.stop_reason : "");
	} else {
		fprintf(stderr, "error: %s: %s\n", llm_status_name(st), err.buf);
	}
	print_usage_json(llm_client_usage(c));
	llm_reply_release(&r);
	llm_client_free(c);
	if (key_buf) {
		memset(key_buf, 0, strlen(key_buf));
		free(key_buf);
	}
	strbuf_release(&input);
	strbuf_release(&err);
	free(msgs);
	free(headers);
	egg_config_free(cfg);
	return st == LLM_OK ? 0 : 1;
}
