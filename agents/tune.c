/*
 * tune.c -- see tune.h.
 *
 * Declarations are read line by line; a value is kept only when it is plainly
 * an expression (so a hostile value cannot close the #define and smuggle in
 * code: the variant still goes through the harness's screen, but a define that
 * stays one line and one expression keeps the variants' meaning obvious).
 */
#include "config.h"
#include "agents/tune.h"
#include "common/strbuf.h"
#include "common/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define TAG "egg-tune:"

static char *
trimmed(const char *b, const char *e)
{
	while (b < e && isspace((unsigned char)*b))
		b++;
	while (e > b && isspace((unsigned char)e[-1]))
		e--;
	return egg_xstrndup(b, (size_t)(e - b));
}

static int
valid_name(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

static int
valid_value(const char *s)
{
	if (!*s || strstr(s, "//") || strstr(s, "/*"))
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.+-*/()<>&|^~% ", *s))
			return 0;
	return 1;
}

/* One declaration (the text after the tag, up to the end of its line). */
static void
parse_line(const char *b, const char *e, struct tune_space *s, struct strvec *notes)
{
	const char *eq = memchr(b, '=', (size_t)(e - b));
	char *line = trimmed(b, e);
	if (!eq) {
		strvec_push_owned(notes, egg_xasprintf("ignored `egg-tune: %s`: no \"=\"", line));
		free(line);
		return;
	}
	char *name = trimmed(b, eq);
	const char *why = NULL;
	if (!valid_name(name))
		why = "the name is not an identifier";
	for (size_t i = 0; i < s->n && !why; i++)
		if (strcmp(s->params[i].name, name) == 0)
			why = "the name is declared twice";
	if (!why && s->n == TUNE_MAX_PARAMS)
		why = "too many parameters";
	struct strvec values = STRVEC_INIT;
	for (const char *v = eq + 1; !why && v < e;) {
		const char *comma = memchr(v, ',', (size_t)(e - v));
		const char *ve = comma ? comma : e;
		char *val = trimmed(v, ve);
		if (!valid_value(val))
			why = *val ? "a value is not a plain expression" : "an empty value";
		else if (values.n == TUNE_MAX_VALUES)
			why = "too many values";
		else
			strvec_push(&values, val);
		free(val);
		v = comma ? comma + 1 : e;
	}
	if (!why && values.n == 0)
		why = "no values";
	if (why) {
		strvec_push_owned(notes, egg_xasprintf("ignored `egg-tune: %s`: %s", line, why));
		strvec_clear(&values);
		free(name);
	} else {
		s->params[s->n].name = name;
		s->params[s->n].values = values;
		s->n++;
	}
	free(line);
}

/* The declaration tag on the line at p (up to eol), or NULL: a line comment
 * whose text starts with the tag. */
static const char *
tag_on_line(const char *p, const char *eol)
{
	const char *q = p;
	while (q < eol && isspace((unsigned char)*q))
		q++;
	if (eol - q <= 2 || q[0] != '/' || q[1] != '/')
		return NULL;
	q += 2;
	while (q < eol && isspace((unsigned char)*q))
		q++;
	return (size_t)(eol - q) >= strlen(TAG) && memcmp(q, TAG, strlen(TAG)) == 0 ? q : NULL;
}

size_t
tune_parse(const char *src, struct tune_space *out, struct strvec *notes)
{
	memset(out, 0, sizeof *out);
	for (const char *p = src; *p;) {
		const char *eol = strchr(p, '\n');
		if (!eol)
			eol = p + strlen(p);
		const char *tag = tag_on_line(p, eol);
		if (tag)
			parse_line(tag + strlen(TAG), eol, out, notes);
		p = *eol ? eol + 1 : eol;
	}
	return out->n;
}

void
tune_space_release(struct tune_space *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->params[i].name);
		strvec_clear(&s->params[i].values);
	}
	s->n = 0;
}

size_t
tune_count(const struct tune_space *s)
{
	size_t total = 1;
	for (size_t i = 0; i < s->n; i++) {
		size_t k = s->params[i].values.n;
		if (total > (size_t)-1 / k)
			return (size_t)-1;
		total *= k;
	}
	return total;
}

/* src with every declaration's tag turned into "egg-tuned:", so that a
 * variant (which defines the names) is not expanded again when an agent
 * builds on it. */
static char *
mark_tuned(const char *src)
{
	struct strbuf sb = STRBUF_INIT;
	for (const char *p = src; *p;) {
		const char *eol = strchr(p, '\n');
		if (!eol)
			eol = p + strlen(p);
		const char *tag = tag_on_line(p, eol);
		if (tag) {
			strbuf_add(&sb, p, (size_t)(tag - p));
			strbuf_addstr(&sb, "egg-tuned:");
			p = tag + strlen(TAG);
		}
		strbuf_add(&sb, p, (size_t)(eol - p) + (*eol == '\n'));
		p = *eol ? eol + 1 : eol;
	}
	return strbuf_detach(&sb);
}

size_t
tune_expand(const char *src, size_t cap, struct tune_variant **out, struct strvec *notes)
{
	struct tune_space s;
	tune_parse(src, &s, notes);
	if (cap < 1)
		cap = 1;
	size_t total = tune_count(&s);
	size_t n = s.n == 0 ? 1 : total < cap ? total : cap;
	*out = egg_xcalloc(n, sizeof **out);
	if (s.n == 0) {
		(*out)[0].label = egg_xstrdup("");
		(*out)[0].source = egg_xstrdup(src);
		return 1;
	}
	char *marked = mark_tuned(src);
	if (total > cap)
		strvec_push_owned(notes, egg_xasprintf("%zu combinations of tunable values; "
		                                       "evaluating a sample of %zu", total, cap));
	for (size_t i = 0; i < n; i++) {
		/* evenly spaced combination numbers; 0 (every first value) comes first */
		size_t k = total > cap ? (size_t)((double)i * (double)total / (double)cap) : i;
		struct strbuf label = STRBUF_INIT, code = STRBUF_INIT;
		size_t pick[TUNE_MAX_PARAMS];
		for (size_t p = s.n; p-- > 0;) { /* mixed radix, the last parameter fastest */
			pick[p] = k % s.params[p].values.n;
			k /= s.params[p].values.n;
		}
		for (size_t p = 0; p < s.n; p++) {
			const char *v = s.params[p].values.v[pick[p]];
			strbuf_addf(&code, "#define %s %s\n", s.params[p].name, v);
			strbuf_addf(&label, "%s%s=%s", p ? " " : "", s.params[p].name, v);
		}
		strbuf_addstr(&code, marked);
		if (code.len && code.buf[code.len - 1] != '\n')
			strbuf_addch(&code, '\n');
		for (size_t p = 0; p < s.n; p++) /* the names end with the candidate */
			strbuf_addf(&code, "#undef %s\n", s.params[p].name);
		(*out)[i].label = strbuf_detach(&label);
		(*out)[i].source = strbuf_detach(&code);
	}
	free(marked);
	tune_space_release(&s);
	return n;
}

void
tune_variants_free(struct tune_variant *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].label);
		free(v[i].source);
	}
	free(v);
}
