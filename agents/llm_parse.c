/*
 * llm_parse.c -- the pure parts of the model transport (see llm_parse.h).
 *
 * Everything a server sends is hostile input here: bodies that are HTML error
 * pages of a proxy, JSON cut off mid-way, answers with no choices, content as
 * a string or as an array of parts.  Each is either read or described in a few
 * printable words; nothing a server sends reaches a sentence unsanitized, and
 * nothing here can crash on it.
 */
#include "config.h"
#include "agents/llm_parse.h"
#include "common/util.h"

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EXCERPT_MAX 160

static const char *
role_name(enum llm_role r)
{
	switch (r) {
	case LLM_SYSTEM: return "system";
	case LLM_USER: return "user";
	case LLM_ASSISTANT: return "assistant";
	}
	return "user";
}

static cJSON *
message_json(const char *role, const char *content)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "role", role);
	cJSON_AddStringToObject(m, "content", content ? content : "");
	return m;
}

void
llm_build_request(enum egg_backend b, const char *model, const char *limit_name, int max_tokens,
                  double temperature, const struct llm_message *msgs, size_t n,
                  struct strbuf *body)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "model", model);
	struct strbuf system = STRBUF_INIT;
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++) {
		if (b == EGG_BACKEND_ANTHROPIC && msgs[i].role == LLM_SYSTEM) {
			if (system.len)
				strbuf_addstr(&system, "\n\n");
			strbuf_addstr(&system, msgs[i].content ? msgs[i].content : "");
			continue;
		}
		cJSON_AddItemToArray(arr, message_json(role_name(msgs[i].role), msgs[i].content));
	}
	if (system.len)
		cJSON_AddStringToObject(root, "system", system.buf);
	cJSON_AddItemToObject(root, "messages", arr);
	cJSON_AddNumberToObject(root, limit_name, max_tokens);
	if (temperature >= 0)
		cJSON_AddNumberToObject(root, "temperature", temperature);
	char *text = cJSON_PrintUnformatted(root);
	strbuf_addstr(body, text);
	free(text);
	cJSON_Delete(root);
	strbuf_release(&system);
}

/* The text of a content value: a string, or an array of parts (strings, or
 * objects of type "text"/"output_text" with a "text" string).  Returns 0 with
 * the text appended, -1 for anything else. */
static int
content_text(const cJSON *c, struct strbuf *out)
{
	if (cJSON_IsString(c)) {
		strbuf_addstr(out, c->valuestring);
		return 0;
	}
	if (!cJSON_IsArray(c))
		return -1;
	const cJSON *part;
	cJSON_ArrayForEach(part, c) {
		if (cJSON_IsString(part)) {
			strbuf_addstr(out, part->valuestring);
			continue;
		}
		const cJSON *type = cJSON_GetObjectItemCaseSensitive(part, "type");
		const cJSON *text = cJSON_GetObjectItemCaseSensitive(part, "text");
		if (!cJSON_IsString(text))
			continue; /* tool use, thinking, images: not the model's text */
		if (cJSON_IsString(type) && strcmp(type->valuestring, "text") &&
		    strcmp(type->valuestring, "output_text"))
			continue;
		strbuf_addstr(out, text->valuestring);
	}
	return 0;
}

static long
token_count(const cJSON *usage, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(usage, name);
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble > 1e15)
		return 0;
	return (long)v->valuedouble;
}

static char *
string_or_null(const cJSON *obj, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
	return cJSON_IsString(v) ? egg_xstrdup(v->valuestring) : NULL;
}

/* The message of an error object found in a body, if there is one. */
static const char *
error_message(const cJSON *root)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(root, "error");
	if (cJSON_IsString(e))
		return e->valuestring;
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "message");
	if (cJSON_IsString(m))
		return m->valuestring;
	m = cJSON_GetObjectItemCaseSensitive(root, "message");
	if (cJSON_IsString(m))
		return m->valuestring;
	m = cJSON_GetObjectItemCaseSensitive(root, "detail");
	if (cJSON_IsString(m))
		return m->valuestring;
	return NULL;
}

static int
parse_openai(const cJSON *root, struct llm_reply *out, struct strbuf *text, struct strbuf *why)
{
	const cJSON *choices = cJSON_GetObjectItemCaseSensitive(root, "choices");
	if (!cJSON_IsArray(choices)) {
		strbuf_addstr(why, "no \"choices\"");
		return -1;
	}
	const cJSON *first = cJSON_GetArrayItem(choices, 0);
	if (!first) {
		strbuf_addstr(why, "an empty \"choices\" array");
		return -1;
	}
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(first, "message");
	if (!cJSON_IsObject(msg)) {
		strbuf_addstr(why, "no \"message\" in the first choice");
		return -1;
	}
	const cJSON *content = cJSON_GetObjectItemCaseSensitive(msg, "content");
	if (!content || cJSON_IsNull(content)) {
		/* A refusal, or a reasoning model that spent its tokens thinking:
		 * an answer without text, which the caller judges. */
		const cJSON *refusal = cJSON_GetObjectItemCaseSensitive(msg, "refusal");
		if (cJSON_IsString(refusal))
			strbuf_addstr(text, refusal->valuestring);
	} else if (content_text(content, text) < 0) {
		strbuf_addstr(why, "a \"content\" that is neither text nor a list of parts");
		return -1;
	}
	out->stop_reason = string_or_null(first, "finish_reason");
	const cJSON *usage = cJSON_GetObjectItemCaseSensitive(root, "usage");
	out->input_tokens = token_count(usage, "prompt_tokens");
	out->output_tokens = token_count(usage, "completion_tokens");
	return 0;
}

static int
parse_anthropic(const cJSON *root, struct llm_reply *out, struct strbuf *text,
                struct strbuf *why)
{
	const cJSON *content = cJSON_GetObjectItemCaseSensitive(root, "content");
	if (!content) {
		strbuf_addstr(why, "no \"content\"");
		return -1;
	}
	if (content_text(content, text) < 0) {
		strbuf_addstr(why, "a \"content\" that is neither text nor a list of blocks");
		return -1;
	}
	out->stop_reason = string_or_null(root, "stop_reason");
	const cJSON *usage = cJSON_GetObjectItemCaseSensitive(root, "usage");
	/* Cached prompt tokens are input too (billed differently; counted here). */
	out->input_tokens = token_count(usage, "input_tokens") +
	                    token_count(usage, "cache_creation_input_tokens") +
	                    token_count(usage, "cache_read_input_tokens");
	out->output_tokens = token_count(usage, "output_tokens");
	return 0;
}

int
llm_parse_reply(enum egg_backend b, const char *body, size_t len, struct llm_reply *out,
                struct strbuf *why)
{
	memset(out, 0, sizeof *out);
	cJSON *root = cJSON_ParseWithLength(body, len);
	if (!cJSON_IsObject(root)) {
		strbuf_addstr(why, len ? "" : "an empty body");
		if (len)
			llm_excerpt(body, len, EXCERPT_MAX, why);
		cJSON_Delete(root);
		return -1;
	}
	const char *emsg = cJSON_GetObjectItemCaseSensitive(root, "error") ? error_message(root)
	                                                                      : NULL;
	struct strbuf text = STRBUF_INIT;
	int rc;
	if (emsg) {
		strbuf_addstr(why, "an error: ");
		llm_excerpt(emsg, strlen(emsg), EXCERPT_MAX, why);
		rc = -1;
	} else if (b == EGG_BACKEND_ANTHROPIC) {
		rc = parse_anthropic(root, out, &text, why);
	} else {
		rc = parse_openai(root, out, &text, why);
	}
	cJSON_Delete(root);
	if (rc < 0) {
		strbuf_release(&text);
		llm_reply_release(out);
		return -1;
	}
	out->text = text.len ? strbuf_detach(&text) : egg_xstrdup("");
	return 0;
}

int
llm_error_detail(const char *body, size_t len, struct strbuf *out)
{
	if (!len)
		return 0;
	cJSON *root = cJSON_ParseWithLength(body, len);
	const char *msg = cJSON_IsObject(root) ? error_message(root) : NULL;
	size_t before = out->len;
	if (msg)
		llm_excerpt(msg, strlen(msg), EXCERPT_MAX, out);
	else
		llm_excerpt(body, len, EXCERPT_MAX, out);
	cJSON_Delete(root);
	return out->len > before;
}

/* True when the data looks like markup (an HTML page, an XML error). */
static int
looks_like_markup(const char *data, size_t len)
{
	size_t i = 0;
	while (i < len && isspace((unsigned char)data[i]))
		i++;
	return i < len && data[i] == '<';
}

void
llm_excerpt(const char *data, size_t len, size_t max, struct strbuf *out)
{
	int markup = looks_like_markup(data, len), in_tag = 0, space = 0;
	size_t written = 0, start = out->len;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)data[i];
		if (markup && ch == '<') {
			in_tag = 1;
			space = 1;
			continue;
		}
		if (in_tag) {
			in_tag = ch != '>';
			continue;
		}
		if (isspace(ch) || ch < 0x20 || ch == 0x7f) {
			space = 1;
			continue;
		}
		if (written >= max) {
			strbuf_addstr(out, "...");
			return;
		}
		if (space && out->len > start) {
			strbuf_addch(out, ' ');
			written++;
		}
		space = 0;
		strbuf_addch(out, ch < 0x80 ? (char)ch : '?');
		written++;
	}
}

void
llm_scrub(struct strbuf *sb, const char *secret)
{
	if (!secret || !*secret || !sb->len)
		return;
	size_t n = strlen(secret);
	char *hit = strstr(sb->buf, secret);
	if (!hit)
		return;
	struct strbuf clean = STRBUF_INIT;
	const char *p = sb->buf;
	for (; hit; p = hit + n, hit = strstr(p, secret)) {
		strbuf_add(&clean, p, (size_t)(hit - p));
		strbuf_addstr(&clean, "<key>");
	}
	strbuf_addstr(&clean, p);
	/* The old buffer held the key: clear it before it goes back to malloc. */
	memset(sb->buf, 0, sb->len);
	strbuf_release(sb);
	*sb = clean;
}

int
llm_parse_retry_after(const char *value, time_t now, double *seconds)
{
	while (isspace((unsigned char)*value))
		value++;
	if (isdigit((unsigned char)*value)) {
		char *end;
		double s = strtod(value, &end);
		while (isspace((unsigned char)*end))
			end++;
		if (*end || !isfinite(s) || s < 0)
			return -1;
		*seconds = s;
		return 0;
	}
	/* IMF-fixdate, RFC 850 and asctime forms, as RFC 9110 asks a reader to
	 * accept them all; curl's date parser knows each. */
	time_t t = curl_getdate(value, NULL);
	if (t == (time_t)-1 || !*value)
		return -1;
	*seconds = t > now ? (double)(t - now) : 0;
	return 0;
}

double
llm_backoff_delay(double base, double cap, int attempt, double u, double retry_after)
{
	double ceiling = base * ldexp(1.0, attempt > 60 ? 60 : attempt);
	if (ceiling > cap)
		ceiling = cap;
	double d = u * ceiling;
	if (retry_after > d)
		d = retry_after;
	return d > cap ? cap : d;
}

void
llm_url_host(const char *url, struct strbuf *out)
{
	const char *host = strstr(url, "://");
	host = host ? host + 3 : url;
	size_t len = strcspn(host, "/?#");
	const char *at = memchr(host, '@', len);
	if (at) {
		len -= (size_t)(at + 1 - host);
		host = at + 1;
	}
	llm_excerpt(host, len, 200, out);
}
