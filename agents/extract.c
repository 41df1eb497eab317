/*
 * extract.c -- see extract.h.
 *
 * A small C-ish lexer is enough for what we need to know about code a model
 * wrote: where a function is defined (its name, a parenthesized list, a body)
 * and what its header's tokens are.  Comments, preprocessor lines and string
 * literals are skipped so that a name in a comment or a #define is not taken for
 * a definition; prose outside code does not confuse it because an apostrophe
 * only opens a character literal when one closes it a few bytes later.
 */
#include "config.h"
#include "agents/extract.h"
#include "common/strvec.h"
#include "common/util.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct tok {
	size_t off, len;
};

struct toks {
	struct tok *v;
	size_t n, cap;
};

static void
toks_push(struct toks *t, size_t off, size_t len)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->v = egg_xrealloc(t->v, t->cap * sizeof *t->v);
	}
	t->v[t->n++] = (struct tok){ off, len };
}

static int
is_ident(int c)
{
	return isalnum(c) || c == '_';
}

/* Skips a preprocessor line (with backslash continuations) starting at i. */
static size_t
skip_directive(const char *s, size_t i)
{
	while (s[i] && s[i] != '\n') {
		if (s[i] == '\\' && s[i + 1] == '\n')
			i++;
		i++;
	}
	return i;
}

static void
lex(const char *s, struct toks *t)
{
	size_t i = 0;
	int line_start = 1;
	while (s[i]) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\n') {
			line_start = 1;
			i++;
		} else if (isspace(c)) {
			i++;
		} else if (c == '#' && line_start) {
			i = skip_directive(s, i);
		} else if (c == '/' && s[i + 1] == '/') {
			while (s[i] && s[i] != '\n')
				i++;
		} else if (c == '/' && s[i + 1] == '*') {
			const char *e = strstr(s + i + 2, "*/");
			i = e ? (size_t)(e - s) + 2 : strlen(s);
		} else {
			line_start = 0;
			size_t b = i;
			if (is_ident(c)) {
				while (is_ident((unsigned char)s[i]) || (isdigit(c) && s[i] == '.'))
					i++;
			} else if (c == '"') {
				i++;
				while (s[i] && s[i] != '"' && s[i] != '\n')
					i += s[i] == '\\' && s[i + 1] ? 2 : 1;
				if (s[i] == '"')
					i++;
			} else if (c == '\'') {
				size_t j = i + 1;
				while (j < i + 6 && s[j] && s[j] != '\'' && s[j] != '\n')
					j += s[j] == '\\' && s[j + 1] ? 2 : 1;
				i = s[j] == '\'' ? j + 1 : i + 1;
			} else {
				i++;
			}
			toks_push(t, b, i - b);
		}
	}
}

static int
tok_is(const char *s, const struct tok *k, const char *word)
{
	return k->len == strlen(word) && memcmp(s + k->off, word, k->len) == 0;
}

/* The index of the token closing the bracket at open (same kind), or n. */
static size_t
matching(const char *s, const struct toks *t, size_t open)
{
	char o = s[t->v[open].off], c = o == '(' ? ')' : o == '{' ? '}' : ']';
	int depth = 0;
	for (size_t i = open; i < t->n; i++) {
		if (t->v[i].len != 1)
			continue;
		char x = s[t->v[i].off];
		if (x == o)
			depth++;
		else if (x == c && --depth == 0)
			return i;
	}
	return t->n;
}

/* A definition of name: the index of its name token, and of the body's braces
 * (*body_close may be t->n for a body cut off).  Returns 0 when found. */
static int
find_definition(const char *s, const struct toks *t, const char *name, size_t *at,
                size_t *body_open, size_t *body_close)
{
	for (size_t i = 0; i + 1 < t->n; i++) {
		if (!tok_is(s, &t->v[i], name) || !tok_is(s, &t->v[i + 1], "("))
			continue;
		if (i > 0 && (tok_is(s, &t->v[i - 1], ".") || tok_is(s, &t->v[i - 1], ">")))
			continue; /* a member call or the tail of "->" */
		size_t close = matching(s, t, i + 1);
		if (close + 1 >= t->n || !tok_is(s, &t->v[close + 1], "{"))
			continue;
		*at = i;
		*body_open = close + 1;
		*body_close = matching(s, t, close + 1);
		return 0;
	}
	return -1;
}

int
extract_defines(const char *code, const char *name)
{
	struct toks t = { 0 };
	lex(code, &t);
	size_t a, b, c;
	int found = find_definition(code, &t, name, &a, &b, &c) == 0;
	free(t.v);
	return found;
}

/* Words that do not change a function's type or the caller's view of it. */
static int
ignorable(const char *s, const struct tok *k)
{
	static const char *const words[] = { "extern", "\"C\"", "static", "inline", "__inline__",
		                             "__forceinline__", "__noinline__", "__host__",
		                             "__restrict__", "__restrict", "restrict", NULL };
	for (size_t i = 0; words[i]; i++)
		if (tok_is(s, k, words[i]))
			return 1;
	return 0;
}

/* The header tokens from start to end (exclusive), normalized: one space
 * between tokens, ignorable words and __launch_bounds__(...) dropped. */
static char *
normalized(const char *s, const struct toks *t, size_t start, size_t end)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = start; i < end; i++) {
		if (tok_is(s, &t->v[i], "__launch_bounds__") && i + 1 < end &&
		    tok_is(s, &t->v[i + 1], "(")) {
			i = matching(s, t, i + 1);
			continue;
		}
		if (ignorable(s, &t->v[i]))
			continue;
		if (sb.len)
			strbuf_addch(&sb, ' ');
		strbuf_add(&sb, s + t->v[i].off, t->v[i].len);
	}
	return strbuf_detach(&sb);
}

int
extract_check_signature(const char *code, const struct egg_bundle *b, struct strbuf *why)
{
	struct toks t = { 0 }, st = { 0 };
	size_t at, open, close;
	lex(code, &t);
	if (find_definition(code, &t, b->name, &at, &open, &close) < 0) {
		strbuf_addf(why, "the answer does not define %s (its name, parameters and a body)",
		            b->name);
		free(t.v);
		return -1;
	}
	size_t start = at;
	while (start > 0 && !tok_is(code, &t.v[start - 1], ";") && !tok_is(code, &t.v[start - 1], "}") &&
	       !tok_is(code, &t.v[start - 1], "{"))
		start--;
	char *got = normalized(code, &t, start, open);
	lex(b->signature, &st);
	char *want = normalized(b->signature, &st, 0, st.n);
	int rc = 0;
	if (strcmp(got, want) != 0) {
		strbuf_addf(why, "the definition of %s has the signature `%s`; it must keep `%s` "
		            "(the same return type, parameter types and names, in order)",
		            b->name, got, want);
		rc = -1;
	}
	free(got);
	free(want);
	free(t.v);
	free(st.v);
	return rc;
}

/* ---- code blocks ---- */

struct block {
	const char *text; /* into the answer */
	size_t len;
};

/* A fence line: up to three spaces, then ``` or ~~~.  Returns its length (to
 * the end of the line) or 0. */
static size_t
fence_at(const char *p)
{
	const char *q = p;
	while (*q == ' ' && q - p < 3)
		q++;
	if (strncmp(q, "```", 3) != 0 && strncmp(q, "~~~", 3) != 0)
		return 0;
	const char *e = strchr(q, '\n');
	return e ? (size_t)(e - p) + 1 : strlen(p);
}

static size_t
find_blocks(const char *answer, struct block **out)
{
	size_t n = 0;
	*out = NULL;
	const char *p = answer;
	while (*p) {
		size_t f = fence_at(p);
		if (!f) {
			const char *e = strchr(p, '\n');
			p = e ? e + 1 : p + strlen(p);
			continue;
		}
		const char *body = p + f, *q = body;
		while (*q && !fence_at(q)) {
			const char *e = strchr(q, '\n');
			q = e ? e + 1 : q + strlen(q);
		}
		*out = egg_xrealloc(*out, (n + 1) * sizeof **out);
		(*out)[n++] = (struct block){ body, (size_t)(q - body) };
		p = *q ? q + fence_at(q) : q;
	}
	return n;
}

/* Names of the functions a piece of code defines. */
static void
defined_names(const char *code, struct strvec *out)
{
	struct toks t = { 0 };
	lex(code, &t);
	for (size_t i = 0; i + 1 < t.n; i++) {
		if (!is_ident((unsigned char)code[t.v[i].off]) || !tok_is(code, &t.v[i + 1], "("))
			continue;
		size_t close = matching(code, &t, i + 1);
		if (close + 1 < t.n && tok_is(code, &t.v[close + 1], "{"))
			strvec_push_owned(out, egg_xstrndup(code + t.v[i].off, t.v[i].len));
	}
	free(t.v);
}

static int
mentions(const char *code, const char *name)
{
	struct toks t = { 0 };
	lex(code, &t);
	int found = 0;
	for (size_t i = 0; i < t.n && !found; i++)
		found = tok_is(code, &t.v[i], name);
	free(t.v);
	return found;
}

/* Does the helper block define a function the chosen block calls but lacks? */
static int
helps(const char *helper, const char *chosen)
{
	struct strvec h = STRVEC_INIT, c = STRVEC_INIT;
	defined_names(helper, &h);
	defined_names(chosen, &c);
	int useful = 0;
	for (size_t i = 0; i < h.n && !useful; i++) {
		int there = 0;
		for (size_t j = 0; j < c.n && !there; j++)
			there = strcmp(h.v[i], c.v[j]) == 0;
		useful = !there && mentions(chosen, h.v[i]);
	}
	strvec_clear(&h);
	strvec_clear(&c);
	return useful;
}

static int
is_prose(const char *line, size_t len)
{
	while (len && isspace((unsigned char)*line)) {
		line++;
		len--;
	}
	while (len && isspace((unsigned char)line[len - 1]))
		len--;
	if (!len || !isalpha((unsigned char)line[0]))
		return 0;
	for (size_t i = 0; i < len; i++)
		if (strchr(";{}#()=", line[i]))
			return 0;
	return strchr(".:!?", line[len - 1]) != NULL || isupper((unsigned char)line[0]);
}

/* No fences: the code lines before the definition, up to its closing brace. */
static char *
unfenced(const char *answer, const char *name)
{
	struct toks t = { 0 };
	lex(answer, &t);
	size_t at, open, close;
	char *code = NULL;
	if (find_definition(answer, &t, name, &at, &open, &close) == 0) {
		size_t start = t.v[at].off;
		while (start > 0 && answer[start - 1] != '\n')
			start--;
		while (start > 0) {
			size_t prev = start - 1;
			while (prev > 0 && answer[prev - 1] != '\n')
				prev--;
			if (is_prose(answer + prev, start - prev))
				break;
			start = prev;
		}
		size_t end = close < t.n ? t.v[close].off + 1 : strlen(answer);
		code = egg_xasprintf("%.*s\n", (int)(end - start), answer + start);
	}
	free(t.v);
	return code;
}

char *
extract_code(const char *answer, const char *name, struct strbuf *why)
{
	struct block *blocks;
	size_t n = find_blocks(answer, &blocks);
	char **texts = egg_xcalloc(n + 1, sizeof *texts);
	size_t chosen = n;
	for (size_t i = 0; i < n; i++) {
		texts[i] = egg_xstrndup(blocks[i].text, blocks[i].len);
		if (extract_defines(texts[i], name))
			chosen = i;
	}
	char *code = NULL;
	if (chosen < n) {
		struct strbuf sb = STRBUF_INIT;
		for (size_t i = 0; i < n; i++)
			if (i != chosen && !extract_defines(texts[i], name) && helps(texts[i], texts[chosen]))
				strbuf_addf(&sb, "%s%s", texts[i], egg_str_ends(texts[i], "\n") ? "" : "\n");
		strbuf_addstr(&sb, texts[chosen]);
		code = strbuf_detach(&sb);
	} else {
		code = unfenced(answer, name);
	}
	if (!code)
		strbuf_addf(why, "%s: the answer has no code that defines %s(...) { ... }",
		            n ? "no code block defines the target" : "no code block", name);
	for (size_t i = 0; i < n; i++)
		free(texts[i]);
	free(texts);
	free(blocks);
	return code;
}

/* ---- feedback JSON ---- */

#define MAX_DEPTH 64

/* Parses the object starting at text[0] == '{', repairing a cut-off tail: the
 * whole of it first, then shorter prefixes ending before a ',' or after a '{'
 * or '[', each closed with the brackets open there.  NULL when nothing parses. */
static cJSON *
parse_object(const char *text)
{
	char stack[MAX_DEPTH];
	int depth = 0, in_str = 0;
	size_t len = strlen(text);
	/* cut points: the prefix length and the closers needed there */
	size_t *cut = egg_xcalloc(len + 2, sizeof *cut);
	char (*closers)[MAX_DEPTH + 1] = egg_xcalloc(len + 2, sizeof *closers);
	size_t n_cut = 0, end = len;
	for (size_t i = 0; i < len; i++) {
		char c = text[i];
		if (in_str) {
			if (c == '\\' && i + 1 < len)
				i++;
			else if (c == '"')
				in_str = 0;
			continue;
		}
		if (c == '"') {
			in_str = 1;
		} else if (c == '{' || c == '[') {
			if (depth == MAX_DEPTH)
				break;
			stack[depth++] = c == '{' ? '}' : ']';
		} else if (c == '}' || c == ']') {
			if (depth > 0)
				depth--;
			if (depth == 0) {
				end = i + 1;
				break;
			}
		}
		if (!in_str && (c == ',' || c == '{' || c == '[')) {
			cut[n_cut] = c == ',' ? i : i + 1;
			for (int d = 0; d < depth; d++)
				closers[n_cut][d] = stack[depth - 1 - d];
			n_cut++;
		}
	}
	cJSON *obj = cJSON_ParseWithLength(text, end);
	if (!obj && end == len) { /* cut off: close what is open */
		struct strbuf sb = STRBUF_INIT;
		strbuf_add(&sb, text, len);
		if (in_str)
			strbuf_addch(&sb, '"');
		for (int d = depth - 1; d >= 0; d--)
			strbuf_addch(&sb, stack[d]);
		obj = cJSON_Parse(sb.buf);
		for (size_t k = n_cut, tried = 0; !obj && k-- > 0 && tried++ < 64;) {
			strbuf_reset(&sb);
			strbuf_add(&sb, text, cut[k]);
			strbuf_addstr(&sb, closers[k]);
			obj = cJSON_Parse(sb.buf);
		}
		strbuf_release(&sb);
	}
	free(cut);
	free(closers);
	if (obj && !cJSON_IsObject(obj)) {
		cJSON_Delete(obj);
		obj = NULL;
	}
	return obj;
}

static char *
field_text(const cJSON *o, const char *key, const char *def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (cJSON_IsString(v) && v->valuestring[0])
		return egg_xstrdup(v->valuestring);
	if (cJSON_IsArray(v)) {
		struct strbuf sb = STRBUF_INIT;
		const cJSON *it;
		cJSON_ArrayForEach(it, v)
			if (cJSON_IsString(it))
				strbuf_addf(&sb, "%s%s", sb.len ? "; " : "", it->valuestring);
		if (sb.len)
			return strbuf_detach(&sb);
		strbuf_release(&sb);
	}
	if (cJSON_IsObject(v)) {
		char *p = cJSON_PrintUnformatted(v);
		char *r = egg_xstrdup(p);
		cJSON_free(p);
		return r;
	}
	return egg_xstrdup(def);
}

int
extract_feedback(const char *answer, char **bottleneck, char **plan, struct strbuf *why)
{
	cJSON *best = NULL;
	int tries = 0;
	for (const char *p = strchr(answer, '{'); p && tries < 32; p = strchr(p + 1, '{'), tries++) {
		cJSON *o = parse_object(p);
		if (o && !o->child) { /* "{}" says nothing (and repairs of garbage end there) */
			cJSON_Delete(o);
			o = NULL;
		}
		if (!o)
			continue;
		int useful = cJSON_HasObjectItem(o, "bottleneck") || cJSON_HasObjectItem(o, "modification_plan");
		if (useful || !best) {
			cJSON_Delete(best);
			best = o;
		} else {
			cJSON_Delete(o);
		}
		if (useful)
			break;
	}
	*bottleneck = field_text(best, "bottleneck", "unknown");
	*plan = field_text(best, "modification_plan", "");
	int found = best != NULL;
	if (!found)
		strbuf_addstr(why, "the answer has no JSON object");
	cJSON_Delete(best);
	return found ? 0 : -1;
}
