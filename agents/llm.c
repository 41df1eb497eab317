/*
 * llm.c -- egg's model backends over libcurl's easy interface (see llm.h).
 *
 * One easy handle per client, reused so that a search keeps its connection to
 * the server.  A chat is a loop of attempts: each attempt is classified (done,
 * worth retrying, or final), and retries wait with exponential backoff and full
 * jitter, at least what Retry-After asks, at most max_backoff_s.  The pure
 * parts (bodies, parsing, Retry-After, backoff) live in llm_parse.c.
 *
 * The key lives in the client's own copy and in the header list handed to
 * curl; both are cleared before they are freed.  Every sentence put in err is
 * scrubbed of the key in case a server echoed it.  CURLOPT_VERBOSE is never
 * set: its output would carry the headers.
 *
 * Threads: a client is used by one thread at a time; separate clients may run
 * in parallel (libcurl's global init is thread-safe from 7.84 on).
 */
#include "config.h"
#include "agents/llm.h"
#include "agents/llm_parse.h"
#include "common/fsutil.h"
#include "common/sigpipe.h"
#include "common/strvec.h"
#include "common/util.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define MAX_BODY ((size_t)64 << 20)
#define DEFAULT_TIMEOUT_S 120.0
#define DEFAULT_RETRIES 4
#define DEFAULT_BACKOFF_S 1.0
#define DEFAULT_MAX_BACKOFF_S 60.0
#define DEFAULT_MAX_TOKENS 8192
#define MAX_CONNECT_S 30.0

struct llm_client {
	enum egg_backend backend;
	char *url;    /* the endpoint: no credentials in it */
	char *host;   /* for sentences */
	char *model;
	char *key;    /* NULL: none; cleared before it is freed */
	struct curl_slist *headers; /* holds the key: cleared before it is freed */
	double timeout_s, backoff_s, max_backoff_s, temperature;
	double deadline; /* CLOCK_MONOTONIC seconds; 0: none */
	double price_in, price_out;
	int max_retries, max_tokens;
	int completion_limit; /* the server wants max_completion_tokens */
	int no_temperature;   /* the server refuses any temperature but its own */
	struct llm_usage usage;
	uint64_t rng;
	CURL *curl;
};

/* What one HTTP exchange gave. */
struct attempt {
	CURLcode cc;
	long status;
	struct strbuf body;
	int too_big;
	int cut;            /* its limit was the deadline's, shorter than timeout_s */
	double retry_after; /* < 0: none */
};

static double
now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
sleep_s(double s)
{
	if (s <= 0)
		return;
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* A uniform number in [0, 1) (xorshift64*: jitter needs spread, not secrecy). */
static double
next_uniform(struct llm_client *c)
{
	c->rng ^= c->rng >> 12;
	c->rng ^= c->rng << 25;
	c->rng ^= c->rng >> 27;
	return (double)((c->rng * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

static void
clear_free(char *s)
{
	if (s) {
		memset(s, 0, strlen(s));
		free(s);
	}
}

const char *
llm_backend_name(enum egg_backend b)
{
	switch (b) {
	case EGG_BACKEND_OPENAI: return "openai";
	case EGG_BACKEND_ANTHROPIC: return "anthropic";
	case EGG_BACKEND_BUILTIN: return "builtin";
	}
	return "unknown";
}

const char *
llm_status_name(enum llm_status s)
{
	switch (s) {
	case LLM_OK: return "ok";
	case LLM_E_AUTH: return "auth";
	case LLM_E_MODEL: return "model";
	case LLM_E_REQUEST: return "request";
	case LLM_E_RATE: return "rate";
	case LLM_E_SERVER: return "server";
	case LLM_E_NETWORK: return "network";
	case LLM_E_TIMEOUT: return "timeout";
	case LLM_E_PROTOCOL: return "protocol";
	case LLM_E_DEADLINE: return "deadline";
	}
	return "unknown";
}

/* Reads the first line of a key file, without surrounding whitespace (an
 * editor's newline, a stray \r).  Returns a malloc'd key or NULL with err. */
static char *
read_key_file(const char *path, struct strbuf *err)
{
	char *data;
	size_t len;
	if (fs_read_file(path, 1 << 16, &data, &len) < 0) {
		strbuf_addf(err, "cannot read the API key file %s: %s", path,
		            errno == EFBIG ? "it is larger than 64 KiB" : strerror(errno));
		return NULL;
	}
	size_t start = strspn(data, " \t");
	size_t end = start + strcspn(data + start, "\r\n");
	while (end > start && (data[end - 1] == ' ' || data[end - 1] == '\t'))
		end--;
	memmove(data, data + start, end - start);
	memset(data + (end - start), 0, len - (end - start));
	if (!*data) {
		free(data);
		strbuf_addf(err, "the API key file %s has no key on its first line", path);
		return NULL;
	}
	return data;
}

static int
has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

/* A header line: a token name, a colon, printable text (HTAB allowed). */
static int
header_ok(const char *h)
{
	size_t name = strcspn(h, ":");
	if (!name || !h[name])
		return 0;
	for (size_t i = 0; i < name; i++)
		if (!(isalnum((unsigned char)h[i]) || strchr("!#$%&'*+-.^_`|~", h[i])))
			return 0;
	for (const char *p = h + name; *p; p++)
		if (((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f)
			return 0;
	return 1;
}

/* The items of api_headers, trimmed, into out.  Values are never quoted in
 * err: a header may carry a credential. */
static int
split_headers(const char *v, struct strvec *out, struct strbuf *err)
{
	int item = 0;
	while (v && *v) {
		size_t len = strcspn(v, ";");
		const char *b = v, *e = v + len;
		while (b < e && isspace((unsigned char)*b))
			b++;
		while (e > b && isspace((unsigned char)e[-1]))
			e--;
		item++;
		if (e > b) {
			char *h = egg_xstrndup(b, (size_t)(e - b));
			if (!header_ok(h)) {
				clear_free(h);
				strbuf_addf(err, "api_headers: item %d is not a 'Name: value' header", item);
				return -1;
			}
			strvec_push_owned(out, h);
		}
		v += len + (v[len] == ';');
	}
	return 0;
}

static int
price_value(const struct egg_config *cfg, const char *key, double *out, struct strbuf *err)
{
	const char *v = egg_config_get(cfg, key);
	if (!v || !*v)
		return 0;
	char *end;
	double d = strtod(v, &end);
	while (isspace((unsigned char)*end))
		end++;
	if (end == v || *end || !(d >= 0) || d > 1e9) {
		strbuf_addf(err, "%s '%s' is not a price in USD per million tokens", key, v);
		return -1;
	}
	*out = d;
	return 0;
}

/* One allocation holding the key (first, so that a caller clearing
 * strlen(*buf) bytes clears it), the header array and the headers. */
static char *
pack_settings(char *key, struct strvec *headers, struct llm_settings *s)
{
	size_t klen = key ? strlen(key) + 1 : 1, size = klen;
	size_t at = (size + sizeof(char *) - 1) / sizeof(char *) * sizeof(char *);
	size = at + (headers->n + 1) * sizeof(char *);
	for (size_t i = 0; i < headers->n; i++)
		size += strlen(headers->v[i]) + 1;
	char *buf = egg_xcalloc(1, size);
	memcpy(buf, key ? key : "", klen);
	const char **arr = (const char **)(void *)(buf + at);
	char *p = (char *)(arr + headers->n + 1);
	for (size_t i = 0; i < headers->n; i++) {
		size_t n = strlen(headers->v[i]) + 1;
		memcpy(p, headers->v[i], n);
		arr[i] = p;
		p += n;
	}
	if (key)
		s->api_key = buf;
	s->headers = arr;
	s->n_headers = headers->n;
	return buf;
}

int
llm_settings_from_config(const struct egg_config *cfg, struct llm_settings *s, char **key_buf,
                         struct strbuf *err)
{
	memset(s, 0, sizeof *s);
	s->max_retries = -1;
	s->temperature = -1;
	*key_buf = NULL;
	s->backend = egg_config_backend(cfg);
	if (s->backend == EGG_BACKEND_BUILTIN) {
		strbuf_addstr(err, "the backend is 'builtin', which asks no model: set backend to "
		                   "openai or anthropic");
		return -1;
	}
	const char *v = egg_config_get(cfg, "api_base");
	s->api_base = v && *v ? v : NULL;
	v = egg_config_get(cfg, "model");
	if (!v || !*v) {
		strbuf_addf(err, "the %s backend needs a model: set model (e.g. model = NAME in "
		                 "egg.conf, or EGG_MODEL)", llm_backend_name(s->backend));
		return -1;
	}
	s->model = v;
	uint64_t t = egg_config_seconds(cfg, "timeout");
	s->timeout_s = t ? (double)t : 365.0 * 86400; /* 0 means no limit */
	if (price_value(cfg, "price_in", &s->price_in_per_mtok, err) < 0 ||
	    price_value(cfg, "price_out", &s->price_out_per_mtok, err) < 0)
		return -1;
	struct strvec headers = STRVEC_INIT;
	if (split_headers(egg_config_get(cfg, "api_headers"), &headers, err) < 0) {
		strvec_clear(&headers);
		return -1;
	}
	char *file_key = NULL;
	v = egg_config_get(cfg, "api_key");
	const char *path = egg_config_get(cfg, "api_key_file");
	if (v && *v) {
		s->api_key = v;
	} else if (path && *path && !(file_key = read_key_file(path, err))) {
		strvec_clear(&headers);
		return -1;
	}
	if (file_key || headers.n)
		*key_buf = pack_settings(file_key, &headers, s);
	clear_free(file_key);
	for (size_t i = 0; i < headers.n; i++)
		memset(headers.v[i], 0, strlen(headers.v[i]));
	strvec_clear(&headers);
	return 0;
}

/* The endpoint for the protocol.  An anthropic base that already ends in /v1
 * is accepted as well as the documented one without it. */
static char *
endpoint_url(enum egg_backend b, const char *base)
{
	if (!base)
		base = b == EGG_BACKEND_ANTHROPIC ? "https://api.anthropic.com"
		                                  : "https://api.openai.com/v1";
	size_t n = strlen(base);
	while (n > 0 && base[n - 1] == '/')
		n--;
	if (b == EGG_BACKEND_OPENAI)
		return egg_xasprintf("%.*s/chat/completions", (int)n, base);
	int has_v1 = n >= 3 && !strncmp(base + n - 3, "/v1", 3);
	return egg_xasprintf("%.*s%s/messages", (int)n, base, has_v1 ? "" : "/v1");
}

static struct curl_slist *
build_headers(const struct llm_client *c, const struct llm_settings *s)
{
	struct curl_slist *h = NULL;
	h = curl_slist_append(h, "Content-Type: application/json");
	h = curl_slist_append(h, "Expect:"); /* no 100-continue round trip */
	if (c->backend == EGG_BACKEND_ANTHROPIC) {
		int own_version = 0; /* a user who names the version means it */
		for (size_t i = 0; i < s->n_headers; i++)
			own_version |= !strncasecmp(s->headers[i], "anthropic-version:", 18);
		if (!own_version)
			h = curl_slist_append(h, "anthropic-version: 2023-06-01");
		if (c->key) {
			char *line = egg_xasprintf("x-api-key: %s", c->key);
			h = curl_slist_append(h, line);
			clear_free(line);
		}
	} else if (c->key) {
		char *line = egg_xasprintf("Authorization: Bearer %s", c->key);
		h = curl_slist_append(h, line);
		clear_free(line);
	}
	for (size_t i = 0; i < s->n_headers; i++)
		h = curl_slist_append(h, s->headers[i]);
	return h;
}

static void
free_headers(struct curl_slist *h)
{
	for (struct curl_slist *p = h; p; p = p->next)
		memset(p->data, 0, strlen(p->data));
	curl_slist_free_all(h);
}

struct llm_client *
llm_client_new(const struct llm_settings *s, struct strbuf *err)
{
	const char *name = llm_backend_name(s->backend);
	if (s->backend != EGG_BACKEND_OPENAI && s->backend != EGG_BACKEND_ANTHROPIC) {
		strbuf_addf(err, "the %s backend does not talk to a model server", name);
		return NULL;
	}
	if (!s->model || !*s->model) {
		strbuf_addf(err, "the %s backend needs a model: set model", name);
		return NULL;
	}
	if (s->api_base && !egg_str_starts(s->api_base, "http://") &&
	    !egg_str_starts(s->api_base, "https://")) {
		/* Only the scheme is quoted: the rest may hold user:password@. */
		const char *sep = strstr(s->api_base, "://");
		strbuf_addf(err, "the %s backend's api_base is not an http:// or https:// URL", name);
		if (sep) {
			strbuf_addstr(err, " (it starts with '");
			llm_excerpt(s->api_base, (size_t)(sep - s->api_base) < 16 ?
			            (size_t)(sep - s->api_base) : 16, 16, err);
			strbuf_addstr(err, "://')");
		} else {
			strbuf_addstr(err, " (it has no scheme)");
		}
		return NULL;
	}
	if (s->api_key && has_control(s->api_key)) {
		strbuf_addf(err, "the %s backend's API key contains a control character (a line "
		                 "break pasted with it?)", name);
		return NULL;
	}
	for (size_t i = 0; i < s->n_headers; i++) {
		if (!s->headers[i] || !header_ok(s->headers[i])) {
			strbuf_addf(err, "the %s backend's extra header %zu is not a 'Name: value' "
			                 "header", name, i + 1);
			return NULL;
		}
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		strbuf_addf(err, "the %s backend cannot start libcurl", name);
		return NULL;
	}
	struct llm_client *c = egg_xcalloc(1, sizeof *c);
	c->backend = s->backend;
	c->url = endpoint_url(s->backend, s->api_base);
	struct strbuf host = STRBUF_INIT;
	llm_url_host(c->url, &host);
	c->host = strbuf_detach(&host);
	c->model = egg_xstrdup(s->model);
	c->key = s->api_key && *s->api_key ? egg_xstrdup(s->api_key) : NULL;
	c->timeout_s = s->timeout_s > 0 ? s->timeout_s : DEFAULT_TIMEOUT_S;
	c->max_retries = s->max_retries >= 0 ? s->max_retries : DEFAULT_RETRIES;
	c->backoff_s = s->backoff_s > 0 ? s->backoff_s : DEFAULT_BACKOFF_S;
	c->max_backoff_s = s->max_backoff_s > 0 ? s->max_backoff_s : DEFAULT_MAX_BACKOFF_S;
	c->max_tokens = s->max_tokens > 0 ? s->max_tokens : DEFAULT_MAX_TOKENS;
	c->temperature = s->temperature;
	c->price_in = s->price_in_per_mtok > 0 ? s->price_in_per_mtok : 0;
	c->price_out = s->price_out_per_mtok > 0 ? s->price_out_per_mtok : 0;
	c->headers = build_headers(c, s);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	c->rng = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40) ^
	         (uint64_t)(uintptr_t)c;
	if (!c->rng)
		c->rng = 88172645463325252ULL;
	c->curl = curl_easy_init();
	if (!c->curl) {
		curl_global_cleanup();
		strbuf_addf(err, "the %s backend cannot start libcurl", name);
		llm_client_free(c);
		return NULL;
	}
	return c;
}

void
llm_client_free(struct llm_client *c)
{
	if (!c)
		return;
	if (c->curl) {
		curl_easy_cleanup(c->curl);
		curl_global_cleanup();
	}
	free_headers(c->headers);
	clear_free(c->key);
	free(c->url);
	free(c->host);
	free(c->model);
	free(c);
}

void
llm_client_set_deadline(struct llm_client *c, double deadline)
{
	c->deadline = deadline > 0 ? deadline : 0;
}

const char *
llm_client_endpoint(const struct llm_client *c)
{
	return c->url;
}

const struct llm_usage *
llm_client_usage(const struct llm_client *c)
{
	return &c->usage;
}

void
llm_reply_release(struct llm_reply *r)
{
	free(r->text);
	free(r->stop_reason);
	memset(r, 0, sizeof *r);
}

static size_t
on_body(char *data, size_t size, size_t n, void *arg)
{
	struct attempt *a = arg;
	size_t len = size * n;
	if (a->body.len + len > MAX_BODY) {
		a->too_big = 1;
		return 0;
	}
	strbuf_add(&a->body, data, len);
	return len;
}

static size_t
on_header(char *data, size_t size, size_t n, void *arg)
{
	struct attempt *a = arg;
	size_t len = size * n;
	static const char name[] = "retry-after:";
	if (len >= 5 && !strncmp(data, "HTTP/", 5)) {
		a->retry_after = -1; /* a new response (after a 100 Continue) */
	} else if (len > sizeof name - 1 && !strncasecmp(data, name, sizeof name - 1)) {
		char *v = egg_xstrndup(data + sizeof name - 1, len - (sizeof name - 1));
		v[strcspn(v, "\r\n")] = 0;
		double s;
		if (llm_parse_retry_after(v, time(NULL), &s) == 0)
			a->retry_after = s;
		free(v);
	}
	return len;
}

/* curl_easy_perform under the SIGPIPE guard (common/sigpipe.h): a server that
 * hangs up mid-request is a failed attempt, never the death of the build that
 * asked for a kernel. */
static CURLcode
perform_without_sigpipe(CURL *h)
{
	struct sigpipe_guard g;
	sigpipe_guard_begin(&g);
	CURLcode cc = curl_easy_perform(h);
	sigpipe_guard_end(&g);
	return cc;
}

/* One attempt, limited to limit_s (timeout_s, or less when the deadline is
 * nearer). */
static void
perform(struct llm_client *c, const struct strbuf *req, double limit_s, struct attempt *a)
{
	CURL *h = c->curl;
	curl_easy_reset(h);
	/* Beyond a few weeks a limit means none (and would overflow a 32-bit long). */
	long timeout_ms = limit_s < 2e6 ? (long)(limit_s * 1000) + 1 : 0;
	double connect_s = limit_s < MAX_CONNECT_S ? limit_s : MAX_CONNECT_S;
	curl_easy_setopt(h, CURLOPT_URL, c->url);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)(connect_s * 1000) + 1);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, c->headers);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "egg/" PACKAGE_VERSION);
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, req->buf);
	curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->len);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, a);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, a);
	a->status = 0;
	a->too_big = 0;
	a->cut = limit_s < c->timeout_s;
	a->retry_after = -1;
	strbuf_reset(&a->body);
	a->cc = perform_without_sigpipe(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &a->status);
	c->usage.requests++;
	if ((a->cc == CURLE_OPERATION_TIMEDOUT && !a->cut && !a->status) ||
	    a->cc == CURLE_COULDNT_CONNECT || a->cc == CURLE_COULDNT_RESOLVE_HOST)
		c->usage.stalls++;
}

/* Transport failures that another attempt will not mend. */
static int
network_final(CURLcode cc)
{
	switch (cc) {
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_URL_MALFORMAT:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CIPHER:
	case CURLE_OUT_OF_MEMORY:
		return 1;
	default:
		return 0;
	}
}

/* The status of one attempt, and whether it is worth another. */
static enum llm_status
classify(const struct attempt *a, int *retry)
{
	*retry = 0;
	if (a->too_big)
		return LLM_E_PROTOCOL;
	if (a->cc == CURLE_OPERATION_TIMEDOUT) {
		*retry = 1;
		return LLM_E_TIMEOUT;
	}
	if (a->cc != CURLE_OK) {
		*retry = !network_final(a->cc);
		return LLM_E_NETWORK;
	}
	long st = a->status;
	if (st >= 200 && st < 300)
		return LLM_OK; /* the body is judged by the caller */
	if (st == 401 || st == 403)
		return LLM_E_AUTH;
	if (st == 404 || (st >= 300 && st < 400))
		return LLM_E_MODEL;
	if (st == 408) {
		*retry = 1;
		return LLM_E_TIMEOUT;
	}
	if (st == 429) {
		*retry = 1;
		return LLM_E_RATE;
	}
	if (st >= 500 && st < 600) {
		*retry = 1;
		return LLM_E_SERVER;
	}
	if (st >= 400 && st < 500)
		return LLM_E_REQUEST;
	return LLM_E_PROTOCOL;
}

/* The sentence for a failed attempt (the last one, for retried failures). */
static void
describe(const struct llm_client *c, enum llm_status st, const struct attempt *a,
         const char *why, int attempts, struct strbuf *err)
{
	const char *b = llm_backend_name(c->backend);
	struct strbuf detail = STRBUF_INIT;
	if (a->cc == CURLE_OK && !(a->status >= 200 && a->status < 300))
		llm_error_detail(a->body.buf, a->body.len, &detail);
	const char *sep = detail.len ? ": " : "";
	switch (st) {
	case LLM_E_AUTH:
		if (c->key)
			strbuf_addf(err, "the %s backend at %s refused the API key (HTTP %ld)", b,
			            c->host, a->status);
		else
			strbuf_addf(err, "the %s backend at %s wants an API key (HTTP %ld): set "
			                 "api_key or api_key_file", b, c->host, a->status);
		break;
	case LLM_E_MODEL:
		if (a->status == 404)
			strbuf_addf(err, "the %s backend at %s does not know model '%s' (HTTP 404): "
			                 "check model and api_base", b, c->host, c->model);
		else
			strbuf_addf(err, "the %s backend at %s answered with a redirect (HTTP %ld): "
			                 "check api_base", b, c->host, a->status);
		break;
	case LLM_E_REQUEST:
		strbuf_addf(err, "the %s backend at %s refused the request (HTTP %ld)%s%s", b,
		            c->host, a->status, sep, detail.buf);
		break;
	case LLM_E_RATE:
		strbuf_addf(err, "the %s backend at %s was still rate-limiting after %d attempts "
		                 "(HTTP 429)%s%s", b, c->host, attempts, sep, detail.buf);
		break;
	case LLM_E_SERVER:
		strbuf_addf(err, "the %s backend at %s failed %d times (HTTP %ld)%s%s", b, c->host,
		            attempts, a->status, sep, detail.buf);
		break;
	case LLM_E_TIMEOUT:
		strbuf_addf(err, "the %s backend at %s did not answer within %g s (%d attempts)", b,
		            c->host, c->timeout_s, attempts);
		break;
	case LLM_E_NETWORK:
		strbuf_addf(err, "could not reach the %s backend at %s (%d attempts): %s", b,
		            c->host, attempts, curl_easy_strerror(a->cc));
		break;
	case LLM_E_DEADLINE:
		strbuf_addf(err, "the time budget ran out waiting for the %s backend at %s (%d "
		                 "attempt%s)", b, c->host, attempts, attempts == 1 ? "" : "s");
		break;
	case LLM_E_PROTOCOL:
		if (a->too_big)
			strbuf_addf(err, "the %s backend at %s answered with more than %zu MiB", b,
			            c->host, MAX_BODY >> 20);
		else if (a->status >= 200 && a->status < 300)
			strbuf_addf(err, "the %s backend at %s answered with something that is not a "
			                 "chat completion: %s", b, c->host, why);
		else
			strbuf_addf(err, "the %s backend at %s answered with HTTP %ld%s%s", b, c->host,
			            a->status, sep, detail.buf);
		break;
	case LLM_OK:
		break;
	}
	strbuf_release(&detail);
}

static void
account(struct llm_client *c, const struct llm_reply *r)
{
	c->usage.input_tokens += r->input_tokens;
	c->usage.output_tokens += r->output_tokens;
	c->usage.cost_usd = ((double)c->usage.input_tokens * c->price_in +
	                     (double)c->usage.output_tokens * c->price_out) / 1e6;
}

/* OpenAI's reasoning models refuse "max_tokens" (they want
 * "max_completion_tokens") and any temperature but their default, with a 400
 * that names the parameter.  Such a request is adapted and sent again at once,
 * each adaptation once per client, which remembers it for later chats.
 * Returns 1 when it adapted. */
static int
adapt_request(struct llm_client *c, const struct attempt *a)
{
	if (c->backend != EGG_BACKEND_OPENAI || a->status != 400)
		return 0;
	if (!c->completion_limit && strstr(a->body.buf, "max_completion_tokens")) {
		c->completion_limit = 1;
		return 1;
	}
	if (!c->no_temperature && c->temperature >= 0 && strstr(a->body.buf, "temperature")) {
		c->no_temperature = 1;
		return 1;
	}
	return 0;
}

static void
build_request(const struct llm_client *c, const struct llm_message *msgs, size_t n,
              struct strbuf *req)
{
	strbuf_reset(req);
	llm_build_request(c->backend, c->model,
	                  c->completion_limit ? "max_completion_tokens" : "max_tokens",
	                  c->max_tokens, c->no_temperature ? -1 : c->temperature, msgs, n, req);
}

enum llm_status
llm_chat(struct llm_client *c, const struct llm_message *msgs, size_t n, struct llm_reply *out,
         struct strbuf *err)
{
	memset(out, 0, sizeof *out);
	double t0 = now_s();
	struct strbuf req = STRBUF_INIT, why = STRBUF_INIT;
	build_request(c, msgs, n, &req);
	struct attempt a = { .body = STRBUF_INIT };
	enum llm_status st;
	struct strbuf sentence = STRBUF_INIT;
	int silent = 0; /* attempts that let a whole timeout pass without a byte */
	for (int attempt = 0;; attempt++) {
		double limit = c->timeout_s;
		if (c->deadline > 0 && c->deadline - now_s() < limit)
			limit = c->deadline - now_s();
		if (limit <= 0) {
			st = LLM_E_DEADLINE;
			describe(c, st, &a, "", attempt, &sentence);
			break;
		}
		perform(c, &req, limit, &a);
		int retry;
		st = classify(&a, &retry);
		if (st == LLM_E_TIMEOUT && a.cut) { /* the deadline's limit, not the server's */
			st = LLM_E_DEADLINE;
			retry = 0;
		}
		if (st == LLM_OK) {
			strbuf_reset(&why);
			if (llm_parse_reply(c->backend, a.body.buf, a.body.len, out, &why) == 0) {
				account(c, out);
				break;
			}
			st = LLM_E_PROTOCOL;
		}
		if (st == LLM_E_REQUEST && adapt_request(c, &a)) {
			build_request(c, msgs, n, &req);
			attempt--; /* not a retry: the same request, in the server's dialect */
			continue;
		}
		/* A server that let a whole timeout pass without a byte twice is not
		 * waited for a third time in this call (with the defaults, 2 x 120 s
		 * instead of 5 x 120 s); the outage record spares later calls. */
		if (a.cc == CURLE_OPERATION_TIMEDOUT && !a.cut && !a.status)
			silent++;
		if (!retry || attempt >= c->max_retries || silent >= 2) {
			describe(c, st, &a, why.buf, attempt + 1, &sentence);
			break;
		}
		double wait = llm_backoff_delay(c->backoff_s, c->max_backoff_s, attempt,
		                                next_uniform(c), a.retry_after);
		if (c->deadline > 0 && now_s() + wait >= c->deadline) {
			/* no wait past the deadline: there would be no time left to ask */
			st = LLM_E_DEADLINE;
			describe(c, st, &a, "", attempt + 1, &sentence);
			break;
		}
		c->usage.retries++;
		sleep_s(wait);
	}
	if (st != LLM_OK) {
		/* A server may echo the key in its message; it never reaches err. */
		llm_scrub(&sentence, c->key);
		strbuf_addstr(err, sentence.buf);
	}
	strbuf_release(&sentence);
	strbuf_release(&a.body);
	strbuf_release(&why);
	strbuf_release(&req);
	c->usage.seconds += now_s() - t0;
	return st;
}

static enum llm_status
chat_through_client(void *ctx, const struct llm_message *msgs, size_t n, struct llm_reply *out,
                    struct strbuf *err)
{
	return llm_chat(ctx, msgs, n, out, err);
}

struct llm_chat_fn
llm_chat_client(struct llm_client *c)
{
	struct llm_chat_fn fn = { chat_through_client, c };
	return fn;
}
