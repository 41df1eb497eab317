/*
 * llm_parse.h -- the pure parts of the model transport (agents/llm.c): the
 * request body of each protocol, the reading of an answer, the error message a
 * server puts in a refusal, Retry-After, the backoff schedule, and the
 * sanitizing of anything a server sent before it goes into a sentence.
 *
 * Kept apart from the HTTP code so that unit tests can feed them every kind of
 * hostile body without a server.  No I/O, no globals, no libcurl.
 *
 * Ownership: functions append to the caller's strbufs; a filled llm_reply owns
 * its strings (llm_reply_release).
 */
#ifndef EGG_AGENTS_LLM_PARSE_H
#define EGG_AGENTS_LLM_PARSE_H

#include <stddef.h>
#include <time.h>

#include "agents/llm.h"
#include "common/strbuf.h"

/* The JSON body of one request: model, messages (for anthropic the system
 * messages joined into "system"), the reply limit under the name limit_name
 * ("max_tokens"; OpenAI's reasoning models want "max_completion_tokens"), and
 * temperature when >= 0. */
void llm_build_request(enum egg_backend b, const char *model, const char *limit_name,
                       int max_tokens, double temperature, const struct llm_message *msgs,
                       size_t n, struct strbuf *body);

/* Reads a 2xx body of protocol b into *out (text never NULL, "" when the model
 * said nothing).  Returns 0, or -1 with a short description of what is wrong
 * in why ("no choices", "not JSON: <excerpt>", ...), *out left empty. */
int llm_parse_reply(enum egg_backend b, const char *body, size_t len, struct llm_reply *out,
                    struct strbuf *why);

/* Appends the message a server put in an error body ({"error": {"message"}},
 * {"error": "text"}, {"message"}, or a sanitized excerpt of a body that is not
 * JSON).  Appends nothing for an empty body.  Returns 1 if it appended. */
int llm_error_detail(const char *body, size_t len, struct strbuf *out);

/* Appends a one-line printable excerpt of at most max bytes: control bytes
 * and runs of whitespace become one space, non-ASCII bytes '?', and "..." marks a
 * cut.  Markup of an HTML page is dropped so that a proxy's error page reads
 * as its text. */
void llm_excerpt(const char *data, size_t len, size_t max, struct strbuf *out);

/* Replaces every occurrence of secret (when it is not NULL or empty) in sb by
 * "<key>", so that a server that echoes the key cannot put it in a sentence. */
void llm_scrub(struct strbuf *sb, const char *secret);

/* The value of a Retry-After header: delay-seconds or an HTTP date, relative to
 * now.  Returns 0 with *seconds (>= 0; a date in the past is 0), or -1 for a
 * value that is neither. */
int llm_parse_retry_after(const char *value, time_t now, double *seconds);

/* The wait before retry number attempt (0 for the first retry): full jitter,
 * u * min(cap, base * 2^attempt) with u in [0, 1), and never less than
 * retry_after (< 0: none) nor more than cap. */
double llm_backoff_delay(double base, double cap, int attempt, double u, double retry_after);

/* "host[:port]" of a URL, for sentences (user info dropped). */
void llm_url_host(const char *url, struct strbuf *out);

#endif
