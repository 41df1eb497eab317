/*
 * llm.h -- egg's model backends: one chat request to an OpenAI-compatible
 * chat-completions server or to the Anthropic Messages API, over libcurl and
 * cJSON.
 *
 * This header is the contract between the transport (agents/llm.c: HTTP,
 * retries, errors, accounting) and the staged search (agents/search.c), which
 * only ever sees messages in and text out.  The search may also be driven by an
 * in-process chat function with the same shape (struct llm_chat_fn), which is
 * how its unit tests replay conversations without a server.
 *
 * Protocols:
 *   openai     POST {api_base}/chat/completions  (api_base default
 *              https://api.openai.com/v1), "Authorization: Bearer KEY" when a key
 *              is set (local servers need none), body {model, messages:[{role,
 *              content}], max_tokens, temperature}; text from
 *              choices[0].message.content, usage from usage.prompt_tokens /
 *              usage.completion_tokens, stop from choices[0].finish_reason.
 *   anthropic  POST {api_base}/v1/messages (api_base default
 *              https://api.anthropic.com), "x-api-key: KEY",
 *              "anthropic-version: 2023-06-01"; the system message goes into the
 *              top-level "system" field, the rest into messages; text is the
 *              concatenation of content[] blocks of type "text", usage from
 *              usage.input_tokens / usage.output_tokens, stop from stop_reason.
 *
 * Errors and retries: 429, 5xx (and 529), connection failures and timeouts are
 * retried up to max_retries times with exponential backoff and full jitter,
 * waiting at least Retry-After (seconds or an HTTP date) when the server gives
 * one; 401/403 (bad key), 404 (unknown model or wrong base URL) and other 4xx
 * (refused request: the server's own error message is quoted) are not.  Every
 * error is one sentence in err, naming the backend and the host, never the key.
 *
 * Deadline: a client may be given an absolute deadline (the kernel's search
 * budget, max_search_time).  Each attempt's transfer limit is then the smaller
 * of timeout_s and what is left, no retry waits past it, and a chat that meets
 * it ends with LLM_E_DEADLINE at once: model calls and their retries never
 * outlast the kernel's budget.
 *
 * Secrets: the key is read from the settings (api_key, or the first line of
 * api_key_file) and goes only into the request header.  It never appears in
 * err, in the usage record, in transcripts or in the process list (it is never
 * passed on a command line), and curl's verbose output is never enabled.
 *
 * Ownership: llm_client_new copies what it keeps from the settings; a reply owns
 * its strings (llm_reply_release frees them).
 */
#ifndef EGG_AGENTS_LLM_H
#define EGG_AGENTS_LLM_H

#include <stddef.h>

#include "common/egg_config.h"
#include "common/strbuf.h"

enum llm_role { LLM_SYSTEM, LLM_USER, LLM_ASSISTANT };

struct llm_message {
	enum llm_role role;
	const char *content;
};

struct llm_settings {
	enum egg_backend backend;     /* EGG_BACKEND_OPENAI or EGG_BACKEND_ANTHROPIC */
	const char *api_base;         /* NULL: the vendor's public endpoint */
	const char *model;            /* required */
	const char *api_key;          /* NULL: no key (local servers) */
	const char *const *headers;   /* extra "Name: value" headers, e.g. an organization */
	size_t n_headers;
	double timeout_s;             /* one request, connect included; 0: 120 s */
	int max_retries;              /* -1: the default (4) */
	double backoff_s;             /* first backoff; 0: 1 s (tests use small values) */
	double max_backoff_s;         /* cap of one wait, Retry-After included; 0: 60 s */
	int max_tokens;               /* reply limit; 0: 8192 */
	double temperature;           /* < 0: leave it to the server */
	double price_in_per_mtok;     /* USD per million input tokens, for the cost; 0: unknown */
	double price_out_per_mtok;
};

/* What went wrong with a request, for the caller's policy (the search stops on
 * AUTH, MODEL and REQUEST; it may carry on after the others). */
enum llm_status {
	LLM_OK = 0,
	LLM_E_AUTH,      /* 401/403: bad or missing key */
	LLM_E_MODEL,     /* 404: unknown model or wrong base URL */
	LLM_E_REQUEST,   /* other 4xx: the server refused the request */
	LLM_E_RATE,      /* 429 after every retry */
	LLM_E_SERVER,    /* 5xx after every retry */
	LLM_E_NETWORK,   /* no connection after every retry */
	LLM_E_TIMEOUT,   /* the request took longer than timeout_s, after every retry */
	LLM_E_PROTOCOL,  /* 2xx with a body that is not the protocol's answer */
	LLM_E_DEADLINE,  /* the client's deadline came before an answer */
};

struct llm_reply {
	char *text;          /* the model's text; never NULL on LLM_OK */
	char *stop_reason;   /* "stop", "length", "end_turn", "max_tokens", ... or NULL */
	long input_tokens;   /* as the server reports them; 0 when it does not */
	long output_tokens;
};

/* Totals over a client's life (all requests, retries included). */
struct llm_usage {
	long requests;       /* HTTP requests sent */
	long retries;
	long input_tokens;
	long output_tokens;
	long stalls;         /* attempts the server never answered: a full timeout_s
	                        without a response, or no connection (an attempt cut
	                        short by the deadline is not one) */
	double seconds;      /* wall time spent in requests and waits */
	double cost_usd;     /* from the prices in the settings; 0 when unknown */
};

struct llm_client;

/* Fills settings from a configuration: backend, api_base, model, api_key or
 * the first line of api_key_file, timeout.  Strings point into cfg or into
 * *key_buf (the key read from a file; the caller frees it, ideally after
 * overwriting it).  Returns 0, or -1 with a sentence in err (the builtin
 * backend, no model, an unreadable key file).
 * Also (added with llm.c): api_headers ("Name: value" items separated by ';')
 * into headers/n_headers, and price_in/price_out into the prices; the header
 * array and its strings live in the same single allocation *key_buf (so one
 * free() still releases everything), which may then be non-NULL without a key
 * file.  Errors also for a header item that is not "Name: value" and a price
 * that is not a number.  The other fields are the defaults (0, and -1 for
 * max_retries and temperature). */
int llm_settings_from_config(const struct egg_config *cfg, struct llm_settings *s,
                             char **key_buf, struct strbuf *err);

/* A client, or NULL with a sentence in err (no model, a base URL that is not
 * http:// or https://). */
struct llm_client *llm_client_new(const struct llm_settings *s, struct strbuf *err);
void llm_client_free(struct llm_client *c);

/* Sends one conversation and waits for the answer (with the retries above).
 * On LLM_OK *out holds the reply; otherwise *out is empty and err has the
 * sentence. */
enum llm_status llm_chat(struct llm_client *c, const struct llm_message *msgs, size_t n,
                         struct llm_reply *out, struct strbuf *err);

/* Bounds every later chat of c by deadline, in seconds of CLOCK_MONOTONIC (see
 * "Deadline" above); 0: none. */
void llm_client_set_deadline(struct llm_client *c, double deadline);

/* The endpoint's URL (without credentials), e.g. to name the server in a record
 * of its outages.  Owned by c. */
const char *llm_client_endpoint(const struct llm_client *c);

void llm_reply_release(struct llm_reply *r);
const struct llm_usage *llm_client_usage(const struct llm_client *c);

/* "openai" / "anthropic", and the status's short name ("auth", "rate", ...). */
const char *llm_backend_name(enum egg_backend b);
const char *llm_status_name(enum llm_status s);

/* The shape of a chat function, so that the search can be driven by a client
 * (llm_chat_client below) or, in tests, by a function that replays answers. */
struct llm_chat_fn {
	enum llm_status (*chat)(void *ctx, const struct llm_message *msgs, size_t n,
	                        struct llm_reply *out, struct strbuf *err);
	void *ctx;
};

/* A chat function that sends through c. */
struct llm_chat_fn llm_chat_client(struct llm_client *c);

#endif
