/*
 * parse_lex.c -- the parser's pool, error and tokenizer: C tokens with offsets,
 * comments dropped, preprocessor lines skipped except object-like #defines,
 * which are recorded and expanded (nested, bounded) as tokens are pushed.
 */
#include "config.h"

#include "builtin/parse/parse_internal.h"
#include "common/util.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void *
parse_alloc(struct pool *pl, size_t size)
{
	void *p = egg_xcalloc(1, size);
	if (pl->n == pl->cap) {
		pl->cap = pl->cap ? 2 * pl->cap : 64;
		pl->ptrs = egg_xrealloc(pl->ptrs, pl->cap * sizeof *pl->ptrs);
	}
	pl->ptrs[pl->n++] = p;
	return p;
}

char *
parse_strdup(struct pool *pl, const char *s, size_t n)
{
	char *d = parse_alloc(pl, n + 1);
	memcpy(d, s, n);
	return d;
}

void *
parse_grow(struct pool *pl, void *arr, size_t n, size_t size)
{
	/* arrays grow by copying into a fresh pool block: parse trees are small */
	void *d = parse_alloc(pl, (n + 1) * size);
	if (n)
		memcpy(d, arr, n * size);
	return d;
}

void
parse_fail(struct parser *p, const char *fmt, ...)
{
	if (p->failed)
		return;
	p->failed = 1;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(p->err, fmt, ap);
	va_end(ap);
}

/* ---- tokenizer ---- */

static const char *const puncts[] = {
	"<<<", ">>>", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=",
	"&&", "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "::", NULL,
};

static void
push_tok(struct parser *p, enum tok_kind kind, const char *s, size_t n, size_t off)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 256;
		p->toks = egg_xrealloc(p->toks, p->cap * sizeof *p->toks);
	}
	p->toks[p->n].kind = kind;
	p->toks[p->n].text = parse_strdup(p->pool, s, n);
	p->toks[p->n].off = off;
	p->n++;
}

static const struct macro *
find_macro(const struct parser *p, const char *name)
{
	for (size_t i = 0; i < p->n_macros; i++)
		if (strcmp(p->macros[i].name, name) == 0)
			return &p->macros[i];
	return NULL;
}

static void
push_expanded(struct parser *p, enum tok_kind kind, const char *s, size_t n, size_t off, int depth)
{
	if (kind == TK_ID && depth < 8) {
		char *name = egg_xstrndup(s, n);
		const struct macro *m = find_macro(p, name);
		free(name);
		if (m) {
			for (size_t i = 0; i < m->n; i++)
				push_expanded(p, m->toks[i].kind, m->toks[i].text,
				              strlen(m->toks[i].text), off, depth + 1);
			return;
		}
	}
	push_tok(p, kind, s, n, off);
}

/* Scans one token at s; returns its length and kind (0 at the end). */
static size_t
scan_token(const char *s, enum tok_kind *kind)
{
	if (isalpha((unsigned char)*s) || *s == '_') {
		size_t n = 1;
		while (isalnum((unsigned char)s[n]) || s[n] == '_')
			n++;
		*kind = TK_ID;
		return n;
	}
	if (isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))) {
		size_t n = 1;
		while (isalnum((unsigned char)s[n]) || s[n] == '.' ||
		       ((s[n] == '+' || s[n] == '-') && (s[n - 1] == 'e' || s[n - 1] == 'E') &&
		        !(s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))))
			n++;
		*kind = TK_NUM;
		return n;
	}
	if (*s == '"' || *s == '\'') {
		size_t n = 1;
		while (s[n] && s[n] != *s)
			n += s[n] == '\\' && s[n + 1] ? 2 : 1;
		*kind = TK_STR;
		return s[n] ? n + 1 : n;
	}
	for (int i = 0; puncts[i]; i++)
		if (strncmp(s, puncts[i], strlen(puncts[i])) == 0) {
			*kind = TK_PUNCT;
			return strlen(puncts[i]);
		}
	*kind = TK_PUNCT;
	return 1;
}

/* Handles one preprocessor line starting at s ('#'); returns the offset after it. */
static size_t
directive(struct parser *p, const char *s)
{
	size_t n = 0;
	while (s[n] && !(s[n] == '\n' && (n == 0 || s[n - 1] != '\\')))
		n++;
	char *line = egg_xstrndup(s, n);
	for (char *c = line; *c; c++)
		if (*c == '\\' && c[1] == '\n')
			c[0] = c[1] = ' ';
	const char *c = line + 1;
	while (*c == ' ' || *c == '\t')
		c++;
	if (strncmp(c, "define", 6) == 0 && (c[6] == ' ' || c[6] == '\t')) {
		c += 6;
		while (*c == ' ' || *c == '\t')
			c++;
		enum tok_kind k;
		size_t len = scan_token(c, &k);
		if (k == TK_ID && c[len] != '(') {
			struct macro m = { egg_xstrndup(c, len), NULL, 0 };
			c += len;
			for (;;) {
				while (*c && isspace((unsigned char)*c))
					c++;
				if (!*c || (c[0] == '/' && (c[1] == '/' || c[1] == '*')))
					break;
				len = scan_token(c, &k);
				m.toks = egg_xrealloc(m.toks, (m.n + 1) * sizeof *m.toks);
				m.toks[m.n].kind = k;
				m.toks[m.n].text = parse_strdup(p->pool, c, len);
				m.toks[m.n].off = 0;
				m.n++;
				c += len;
			}
			p->macros = egg_xrealloc(p->macros, (p->n_macros + 1) * sizeof *p->macros);
			p->macros[p->n_macros++] = m;
		}
	}
	free(line);
	return n;
}

void
parse_tokenize(struct parser *p, const char *text)
{
	const char *s = text;
	int line_start = 1;
	while (*s) {
		if (*s == '\n') {
			line_start = 1;
			s++;
			continue;
		}
		if (isspace((unsigned char)*s)) {
			s++;
			continue;
		}
		if (s[0] == '/' && s[1] == '/') {
			while (*s && *s != '\n')
				s++;
			continue;
		}
		if (s[0] == '/' && s[1] == '*') {
			const char *e = strstr(s + 2, "*/");
			s = e ? e + 2 : s + strlen(s);
			continue;
		}
		if (*s == '#' && line_start) {
			s += directive(p, s);
			continue;
		}
		line_start = 0;
		enum tok_kind k;
		size_t len = scan_token(s, &k);
		push_expanded(p, k, s, len, (size_t)(s - text), 0);
		s += len;
	}
	push_tok(p, TK_END, "", 0, (size_t)(s - text));
}

