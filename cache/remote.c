/*
 * remote.c -- HTTP remotes through libcurl's easy interface (see remote.h).
 *
 * One easy handle per remote, reused across requests so that a build talking
 * to one server keeps its connection.  Responses are read into memory with a
 * size cap (an entry is small; a server answering gigabytes is wrong).
 */
#include "config.h"
#include "cache/remote.h"
#include "common/outage.h"
#include "common/sigpipe.h"
#include "common/strvec.h"
#include "common/util.h"

#include <curl/curl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BODY ((size_t)256 << 20)

struct endpoint {
	char *url;     /* as configured, with credentials: only given to curl */
	char *display; /* without user info: the only form ever printed */
	char *auth_header;
	int read_only;
	long connect_timeout_ms, timeout_ms;
	int connect_timeout_set, timeout_set; /* given on the URL: the settings do not apply */
	int warned;    /* one warning per remote per process */
	int disabled;  /* failed once: not asked again by this process */
	int checked;   /* its outage record was read (once per process) */
	int recorded;  /* there was one: cleared after an answer */
	const char *asked; /* the last lookup's outcome, for the log: static text or NULL */
	CURL *curl;
};

struct cache_remote {
	struct endpoint *ep;
	int n;
	char *secret;
	char *outage_dir;  /* NULL: no records (every process decides alone) */
	int64_t skip_ms;
};

static char *
strip_userinfo(const char *url)
{
	const char *host = strstr(url, "://");
	host = host ? host + 3 : url;
	size_t auth_len = strcspn(host, "/");
	const char *at = memchr(host, '@', auth_len);
	if (!at)
		return egg_xstrdup(url);
	return egg_xasprintf("%.*s%s", (int)(host - url), url, at + 1);
}

static int
parse_ms(const char *v, long *out)
{
	char *end;
	long n = strtol(v, &end, 10);
	if (end == v || *end || n <= 0)
		return -1;
	*out = n;
	return 0;
}

static int
parse_endpoint(char *spec, struct endpoint *ep, struct strbuf *err)
{
	char *save = NULL;
	char *url = strtok_r(spec, "|", &save);
	if (!url || !(egg_str_starts(url, "http://") || egg_str_starts(url, "https://"))) {
		char *shown = url ? strip_userinfo(url) : egg_xstrdup("");
		strbuf_addf(err, "remote storage '%s' is not an http:// or https:// URL", shown);
		free(shown);
		return -1;
	}
	size_t n = strlen(url);
	while (n > 0 && url[n - 1] == '/')
		n--;
	ep->url = egg_xstrndup(url, n);
	ep->display = strip_userinfo(ep->url);
	ep->connect_timeout_ms = 1000;
	ep->timeout_ms = 10000;
	for (char *p = strtok_r(NULL, "|", &save); p; p = strtok_r(NULL, "|", &save)) {
		if (strcmp(p, "read-only") == 0) {
			ep->read_only = 1;
		} else if (egg_str_starts(p, "bearer-token=")) {
			free(ep->auth_header);
			ep->auth_header = egg_xasprintf("Authorization: Bearer %s", p + 13);
		} else if (egg_str_starts(p, "connect-timeout=")) {
			if (parse_ms(p + 16, &ep->connect_timeout_ms) < 0)
				goto bad_value;
			ep->connect_timeout_set = 1;
		} else if (egg_str_starts(p, "timeout=")) {
			if (parse_ms(p + 8, &ep->timeout_ms) < 0)
				goto bad_value;
			ep->timeout_set = 1;
		} else {
			size_t name = strcspn(p, "=");
			strbuf_addf(err, "remote storage %s: unknown property '%.*s' (known: read-only, "
				    "bearer-token, connect-timeout, timeout)", ep->display, (int)name, p);
			return -1;
		}
	}
	return 0;
bad_value:
	strbuf_addf(err, "remote storage %s: a timeout needs a positive number of milliseconds",
		    ep->display);
	return -1;
}

static void
endpoint_free(struct endpoint *ep)
{
	free(ep->url);
	free(ep->display);
	free(ep->auth_header);
	if (ep->curl)
		curl_easy_cleanup(ep->curl);
}

struct cache_remote *
cache_remote_new(const char *spec, const char *secret, struct strbuf *err)
{
	struct cache_remote *r = egg_xcalloc(1, sizeof *r);
	r->secret = secret && *secret ? egg_xstrdup(secret) : NULL;
	char *copy = egg_xstrdup(spec ? spec : "");
	char *save = NULL;
	for (char *tok = strtok_r(copy, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		r->ep = egg_xrealloc(r->ep, (size_t)(r->n + 1) * sizeof *r->ep);
		memset(&r->ep[r->n], 0, sizeof *r->ep);
		if (parse_endpoint(tok, &r->ep[r->n++], err) < 0) {
			free(copy);
			cache_remote_free(r);
			return NULL;
		}
	}
	free(copy);
	if (r->n > 0 && curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		strbuf_addstr(err, "libcurl could not be initialized");
		cache_remote_free(r);
		return NULL;
	}
	return r;
}

void
cache_remote_free(struct cache_remote *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->n; i++)
		endpoint_free(&r->ep[i]);
	free(r->ep);
	free(r->secret);
	free(r->outage_dir);
	free(r);
}

void
cache_remote_set_timeout(struct cache_remote *r, long timeout_ms)
{
	for (int i = 0; r && timeout_ms > 0 && i < r->n; i++) {
		struct endpoint *ep = &r->ep[i];
		if (!ep->timeout_set)
			ep->timeout_ms = timeout_ms;
		/* connecting is part of the transfer: never allowed longer than it */
		if (!ep->connect_timeout_set && ep->connect_timeout_ms > ep->timeout_ms)
			ep->connect_timeout_ms = ep->timeout_ms;
	}
}

void
cache_remote_set_outages(struct cache_remote *r, const char *dir, long skip_ms)
{
	free(r->outage_dir);
	r->outage_dir = dir ? egg_xstrdup(dir) : NULL;
	r->skip_ms = skip_ms;
}

int
cache_remote_count(const struct cache_remote *r)
{
	return r ? r->n : 0;
}

const char *
cache_remote_display(const struct cache_remote *r, int i, int *read_only)
{
	*read_only = r->ep[i].read_only;
	return r->ep[i].display;
}

static void
warn_once(struct endpoint *ep, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
warn_once(struct endpoint *ep, const char *fmt, ...)
{
	if (ep->warned)
		return;
	ep->warned = 1;
	va_list ap;
	va_start(ap, fmt);
	char *msg = egg_xvasprintf(fmt, ap);
	va_end(ap);
	egg_warn("remote cache %s: %s", ep->display, msg);
	free(msg);
}

struct body {
	struct strbuf sb;
	const char *upload;
	size_t upload_len, upload_pos;
};

static size_t
on_data(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct body *b = userdata;
	size_t n = size * nmemb;
	if (b->sb.len + n > MAX_BODY)
		return 0; /* makes curl fail with CURLE_WRITE_ERROR */
	strbuf_add(&b->sb, ptr, n);
	return n;
}

static size_t
on_upload(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct body *b = userdata;
	size_t n = b->upload_len - b->upload_pos;
	if (n > size * nmemb)
		n = size * nmemb;
	memcpy(ptr, b->upload + b->upload_pos, n);
	b->upload_pos += n;
	return n;
}

/* Whether ep may be asked: not given up by this process, and not skipped
 * because another compile of the build saw it time out (outage.h: that one
 * warned, so this one says nothing). */
static int
usable(struct cache_remote *r, struct endpoint *ep)
{
	if (ep->disabled)
		return 0;
	if (!ep->checked && r->outage_dir) {
		ep->checked = 1;
		if (outage_skipping(r->outage_dir, ep->display, r->skip_ms, NULL, &ep->recorded)) {
			ep->disabled = 1;
			return 0;
		}
	}
	return 1;
}

/* A transfer that timed out: recorded for the build's later compiles, and one
 * warning for the whole outage (outage_record decides). */
static void
timed_out(struct cache_remote *r, struct endpoint *ep, const char *method, int64_t started)
{
	ep->disabled = 1;
	if (r->outage_dir && !outage_record(r->outage_dir, ep->display, r->skip_ms, started)) {
		ep->warned = 1;
		return;
	}
	char later[64] = "";
	if (r->outage_dir && r->skip_ms > 0)
		snprintf(later, sizeof later, " (later compiles skip it for %ld s)",
			 (r->skip_ms + 999) / 1000);
	warn_once(ep, "%s timed out (connect-timeout %ld ms, timeout %ld ms); building without it%s",
		  method, ep->connect_timeout_ms, ep->timeout_ms, later);
}

/* One request.  Returns the HTTP status, or -1 after a transport failure
 * (warned about; the endpoint is disabled). */
static long
request(struct cache_remote *r, struct endpoint *ep, const char *method, const char *key,
	struct body *body)
{
	if (!ep->curl && !(ep->curl = curl_easy_init())) {
		warn_once(ep, "libcurl could not create a handle");
		ep->disabled = 1;
		return -1;
	}
	CURL *c = ep->curl;
	curl_easy_reset(c);
	char *url = egg_xasprintf("%s/%.2s/%s", ep->url, key, key + 2);
	struct curl_slist *headers = NULL;
	if (ep->auth_header)
		headers = curl_slist_append(headers, ep->auth_header);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, ep->connect_timeout_ms);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, ep->timeout_ms);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "egg/" PACKAGE_VERSION);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, body);
	if (strcmp(method, "HEAD") == 0) {
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	} else if (strcmp(method, "PUT") == 0) {
		curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(c, CURLOPT_READFUNCTION, on_upload);
		curl_easy_setopt(c, CURLOPT_READDATA, body);
		curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)body->upload_len);
	}
	/* A remote that hangs up mid-upload must cost a warning, not the build. */
	struct sigpipe_guard guard;
	int64_t started = outage_now_ms();
	sigpipe_guard_begin(&guard);
	CURLcode rc = curl_easy_perform(c);
	sigpipe_guard_end(&guard);
	long status = -1;
	if (rc == CURLE_OK) {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		if (ep->recorded) { /* it answers again: the outage is over */
			outage_clear(r->outage_dir, ep->display);
			ep->recorded = 0;
		}
	} else if (rc == CURLE_OPERATION_TIMEDOUT) {
		timed_out(r, ep, method, started);
	} else {
		warn_once(ep, "%s failed: %s; building without it", method, curl_easy_strerror(rc));
		ep->disabled = 1;
	}
	curl_slist_free_all(headers);
	free(url);
	return status;
}

/* Says what a failing status means, once; disables the remote. */
static void
status_failure(struct endpoint *ep, const char *method, long status)
{
	if (status == 401 || status == 403)
		warn_once(ep, "%s was refused with HTTP %ld (wrong or missing credentials?); "
			  "building without it", method, status);
	else
		warn_once(ep, "%s answered HTTP %ld; building without it", method, status);
	ep->disabled = 1;
}

const char *
cache_remote_asked(const struct cache_remote *r, int i)
{
	return r->ep[i].asked;
}

int
cache_remote_get(struct cache_remote *r, const char *key, struct cache_entry **out)
{
	*out = NULL;
	for (int i = 0; r && i < r->n; i++)
		r->ep[i].asked = r->ep[i].disabled ? "not asked (it failed earlier)" : NULL;
	for (int i = 0; r && i < r->n; i++) {
		struct endpoint *ep = &r->ep[i];
		if (!usable(r, ep)) {
			ep->asked = "not asked (it failed or timed out earlier)";
			continue;
		}
		struct body b = { STRBUF_INIT, NULL, 0, 0 };
		long status = request(r, ep, "GET", key, &b);
		ep->asked = status == 404 || status == 410 ? "miss" : "failed (see the warning)";
		if (status == 200) {
			struct strbuf err = STRBUF_INIT;
			*out = cache_entry_parse(b.sb.buf, b.sb.len, key, r->secret, &err);
			ep->asked = *out ? "hit" : "entry refused (checksum, signature or schema)";
			if (!*out)
				warn_once(ep, "refusing entry %.16s...: %s", key, err.buf);
			strbuf_release(&err);
		} else if (status >= 0 && status != 404 && status != 410) {
			status_failure(ep, "GET", status);
		}
		strbuf_release(&b.sb);
		if (*out)
			return 1;
	}
	return 0;
}

int
cache_remote_has(struct cache_remote *r, const char *key)
{
	for (int i = 0; r && i < r->n; i++) {
		struct endpoint *ep = &r->ep[i];
		if (!usable(r, ep))
			continue;
		struct body b = { STRBUF_INIT, NULL, 0, 0 };
		long status = request(r, ep, "HEAD", key, &b);
		strbuf_release(&b.sb);
		if (status == 200)
			return 1;
		if (status >= 0 && status != 404 && status != 410)
			status_failure(ep, "HEAD", status);
	}
	return 0;
}

int
cache_remote_put(struct cache_remote *r, const struct cache_entry *e)
{
	if (!r || r->n == 0)
		return 0;
	struct strbuf data = STRBUF_INIT;
	cache_entry_serialize(e, r->secret, &data);
	int stored = 0;
	for (int i = 0; i < r->n; i++) {
		struct endpoint *ep = &r->ep[i];
		if (ep->read_only || !usable(r, ep))
			continue;
		struct body b = { STRBUF_INIT, data.buf, data.len, 0 };
		long status = request(r, ep, "PUT", cache_entry_key(e), &b);
		strbuf_release(&b.sb);
		if (status >= 200 && status < 300)
			stored++;
		else if (status >= 0)
			status_failure(ep, "PUT", status);
	}
	strbuf_release(&data);
	return stored;
}
